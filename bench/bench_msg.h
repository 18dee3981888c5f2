/* What the buffer and delivery benchmarks raise: a three-member payload whose values
 * come from the loop counter, its element list, and the baseline loop both subtract
 * from their raise rows (the loop and the payload's values without the raise: the raise
 * site's own work, which a disabled raise skips too). Include after <mpitev/mpitev.h>. */
#ifndef MPITEV_BENCH_MSG_H
#define MPITEV_BENCH_MSG_H

struct msg { int32_t peer; int32_t tag; int64_t bytes; };
__attribute__((unused)) static const mpitev_element msg_elements[] = {
    MPITEV_ELEMENT_OF(struct msg, peer, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, tag, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, bytes, MPITEV_DTYPE_INT64),
};
/* The payload of iteration i, as every measured raise loop writes it. */
#define BENCH_MSG(i) ((struct msg){ (i), (i) + 1, (int64_t)(i) * 7 })

/* The baseline loop: n iterations computing the payload's values, no raise. */
#define BENCH_BASELINE(name)                                                           \
    __attribute__((noinline)) void name(int n) {                                       \
        for (int i = 0; i < n; i++) {                                                  \
            struct msg m = BENCH_MSG(i);                                               \
            __asm__ volatile("" ::"r"(m.peer), "r"(m.tag), "r"(m.bytes) : "memory");   \
        }                                                                              \
    }

#endif /* MPITEV_BENCH_MSG_H */
