/* A library of the program's own whose exports are reached by name in three ways the PLT scan
 * must follow (tests/plt_names.sh): a plain export, one with two versions (tpn_ver@TPN_1, the
 * old one, and tpn_ver@@TPN_2, the default: libtpnames.map), and an alias of another function;
 * and one named like a runtime's internal. */
int tpn_plain(int x)
{
    return x * 3;
}

int tpn_ver_old(int x)
{
    return x + 1;
}
__asm__(".symver tpn_ver_old, tpn_ver@TPN_1");

int tpn_ver_new(int x)
{
    return x + 2;
}
__asm__(".symver tpn_ver_new, tpn_ver@@TPN_2");

int tpn_target(int x)
{
    return x * 5;
}
int tpn_alias(int x) __attribute__((alias("tpn_target")));

/* Named like Python's C API, whose functions an interpreter exports: an op only when TPROF_OPS
 * names it exactly. */
int PyTpn_call(int x)
{
    return x - 1;
}
