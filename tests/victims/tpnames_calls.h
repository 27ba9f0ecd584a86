/* The calls into libtpnames.so made by v_plt_names (at start-up) and by libtpnames_user.so (a
 * plugin loaded later): each round calls tpn_plain, both versions of tpn_ver, tpn_alias and
 * PyTpn_call once.
 */
#ifndef TPNAMES_CALLS_H
#define TPNAMES_CALLS_H

int tpn_plain(int x);
int tpn_ver(int x); /* the default version, TPN_2 */
int tpn_alias(int x);
int PyTpn_call(int x);
/* The old version, named explicitly. */
int tpn_ver_v1(int x);
__asm__(".symver tpn_ver_v1, tpn_ver@TPN_1");

static inline long tpnames_rounds(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += tpn_plain(i) + tpn_ver(i) + tpn_ver_v1(i) + tpn_alias(i) + PyTpn_call(i);
    return s;
}

#endif
