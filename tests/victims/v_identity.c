/* Calls libtpself.so's sgd_update, whose body compares a stored pointer with its own address
 * (tests/plt_identity.sh): 3 calls with the library's own pointer, 2 made by the library itself,
 * then 4 more after the program stored the address dlsym gives for sgd_update. Prints the
 * weights and how many calls took the "replaced" path (0: the addresses compared equal every
 * time). The program never takes sgd_update's address itself, so its calls go through a PLT slot
 * of their own (a JUMP_SLOT); the library's calls share the GOT entry its comparison reads. */
#include <dlfcn.h>
#include <stdio.h>

typedef void (*update_fn)(float *w, const float *g, int n, float lr);
void sgd_update(float *w, const float *g, int n, float lr);
void tpself_set(update_fn f);
int tpself_replaced(void);
void tpself_train(float *w, const float *g, int n, int steps);

int main(void)
{
    float w[4] = {1, 2, 3, 4}, g[4] = {0.5f, -1, 2, 0.25f};
    for (int i = 0; i < 3; i++)
        sgd_update(w, g, 4, 0.25f);
    tpself_train(w, g, 4, 2);
    update_fn f = (update_fn)dlsym(RTLD_DEFAULT, "sgd_update");
    if (!f) {
        fprintf(stderr, "v_identity: %s\n", dlerror());
        return 1;
    }
    tpself_set(f);
    for (int i = 0; i < 4; i++)
        sgd_update(w, g, 4, 0.125f);
    printf("w %.4f %.4f %.4f %.4f replaced %d\n", (double)w[0], (double)w[1], (double)w[2],
           (double)w[3], tpself_replaced());
    return 0;
}
