/* Instructions per raise when nobody listens (measured under callgrind, see
 * bench/run.sh). Two loops of the same shape: one raises a 3-element event on a
 * declared type that has no registration, one does not. The difference per iteration
 * is the cost of a disabled MPITEV_RAISE. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <stdio.h>
#include <stdlib.h>

struct msg { int32_t peer; int32_t tag; int64_t bytes; };
static const mpitev_element msg_elements[] = {
    MPITEV_ELEMENT_OF(struct msg, peer, MPITEV_INT32),
    MPITEV_ELEMENT_OF(struct msg, tag, MPITEV_INT32),
    MPITEV_ELEMENT_OF(struct msg, bytes, MPITEV_INT64),
};
static mpitev_type ev_msg;
static mpitev_source src;

/* An opaque payload source the compiler cannot fold away. */
__attribute__((noinline)) static int64_t expensive(int i) { return (int64_t)i * 7 + 1; }

__attribute__((noinline)) void bench_loop_baseline(int n) {
    for (int i = 0; i < n; i++) __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void bench_loop_disabled(int n) {
    for (int i = 0; i < n; i++) {
        MPITEV_RAISE(&ev_msg, &src, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE,
                     &(struct msg){ i, i + 1, expensive(i) });
        __asm__ volatile("" ::: "memory");
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (mpitev_init() || mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "bench" }) ||
        mpitev_type_declare(&ev_msg, &(mpitev_type_desc){ .name = "bench_msg", .elements = msg_elements,
                                                           .num_elements = 3, .payload_size = sizeof(struct msg) }))
        return 1;
    bench_loop_baseline(n);
    bench_loop_disabled(n);
    mpitev_finalize();
    printf("%d iterations\n", n);
    return 0;
}
