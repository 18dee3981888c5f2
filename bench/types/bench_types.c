/* The raise with many declared types (bench/types/measure.sh): bench_types T N declares
 * T types, then raises the last one declared, N and 2N times per loop (the *_a and *_b
 * functions, alike but for the count: callgrind reports them apart, and their
 * difference per raise leaves out the calls' fixed costs):
 *   disabled   nobody listens
 *   immediate  one registration with an empty callback (clock read and callback
 *              included: the figure is compared across T, not with other tables)
 * A raise reads only its own type object and that type's registration set, so every
 * figure should be the same for T = 1 and T = 100000. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define MAXT 100000

struct msg { int32_t a; int64_t b; };
static const mpitev_element msg_elems[] = {
    MPITEV_ELEMENT_OF(struct msg, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, b, MPITEV_DTYPE_INT64),
};
static mpitev_type types[MAXT];
static char names[MAXT][16];
static mpitev_source src;
static mpitev_type *raised;
static long n_cb;

static void empty_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) { (void)i, (void)r, (void)s, (void)u; n_cb++; }

#define LOOP(name)                                                                                 \
    NOINLINE static void name(long n) {                                                            \
        mpitev_type *t = raised;                                                                   \
        for (long i = 0; i < n; i++) {                                                             \
            MPITEV_RAISE(t, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct msg){ (int32_t)i, (int64_t)i }); \
            __asm__ volatile("# " #name); /* distinct bodies: not folded */                   \
        }                                                                                          \
    }
LOOP(loop_disabled_a)
LOOP(loop_disabled_b)
LOOP(loop_immediate_a)
LOOP(loop_immediate_b)

int main(int argc, char **argv) {
    long t = argc > 1 ? atol(argv[1]) : 1, n = argc > 2 ? atol(argv[2]) : 100000;
    if (t < 1 || t > MAXT) return 2;
    if (mpitev_init() || mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "bench", .ordering = MPITEV_SOURCE_ORDERED }))
        return 1;
    for (long i = 0; i < t; i++) {
        snprintf(names[i], sizeof names[i], "type.%ld", i);
        if (mpitev_type_declare(&types[i], &(mpitev_type_desc){ .name = names[i], .verbosity = MPITEV_VERBOSITY_USER_BASIC,
                                                               .elements = msg_elems, .num_elements = 2,
                                                               .payload_size = sizeof(struct msg) })) {
            fprintf(stderr, "bench_types: declaring type %ld failed\n", i);
            return 1;
        }
    }
    raised = &types[t - 1];
    loop_disabled_a(n);
    loop_disabled_b(2 * n);
    mpitev_reg reg;
    int idx = -1;
    if (mpitev_type_index_of(raised, &idx) || mpitev_reg_alloc(idx, NULL, NULL, 0, &reg) ||
        mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, empty_cb, NULL, NULL, 0))
        return 1;
    loop_immediate_a(n);
    loop_immediate_b(2 * n);
    printf("%ld %ld\n", t, n_cb);
    mpitev_finalize();
    return n_cb == 3 * n ? 0 : 1;
}
