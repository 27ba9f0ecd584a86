/* Built with -finstrument-functions and loaded with dlopen by tests/victims/v_forklocks.c: each
 * load brings functions tprof has not named yet, so their first calls read this library's
 * symbol table under the symbol-table lock. */
static int fk_a(int x) { return x + 1; }
static int fk_b(int x) { return x * 2; }
static int fk_c(int x) { return fk_a(x) - fk_b(x); }
int fk_work(int x) { return fk_a(x) + fk_b(x) + fk_c(x); }
