/* A library that compares its own function's address with a stored pointer, as OpenSSL's
 * CRYPTO_malloc does (`if (malloc_impl != CRYPTO_malloc) return malloc_impl(...)`): sgd_update
 * (matched by the default TPROF_OPS) calls through the pointer only when someone replaced it.
 * If hooking made `sgd_update` here differ from the pointer, it would call itself forever. The
 * pointer starts as this library's own &sgd_update (a data relocation); tpself_set() replaces it
 * with one the program took. tests/plt_identity.sh. */
typedef void (*update_fn)(float *w, const float *g, int n, float lr);

void sgd_update(float *w, const float *g, int n, float lr);

static update_fn impl = sgd_update;
static int replaced_calls;

void tpself_set(update_fn f)
{
    impl = f;
}

int tpself_replaced(void)
{
    return replaced_calls;
}

void sgd_update(float *w, const float *g, int n, float lr)
{
    if (impl != sgd_update) {
        replaced_calls++;
        impl(w, g, n, lr);
        return;
    }
    for (int i = 0; i < n; i++)
        w[i] -= lr * g[i];
}

/* The library's own call of its export, through its PLT. */
void tpself_train(float *w, const float *g, int n, int steps)
{
    for (int s = 0; s < steps; s++)
        sgd_update(w, g, n, 0.5f);
}
