/* mpit_check.h -- the checks of the integration tests (integrations/mpich/tests,
 * integrations/openmpi/tests): programs written as tool writers write them, with standard
 * MPI and MPI_T only, compiled by each MPI's own mpicc. Header-only, for one translation
 * unit per program, included after mpi.h. A failed check prints where and what, counts the failure (atomically:
 * checks run in MPI_T callbacks and in several threads) and goes on; main reports
 * failures and exits non-zero. Set my_rank once MPI_Comm_rank is known. */
#ifndef MPIT_CHECK_H
#define MPIT_CHECK_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static _Atomic int failures;
static int my_rank = -1;

#define CHECK(c)                                                                            \
    do {                                                                                    \
        if (!(c)) {                                                                         \
            fprintf(stderr, "[rank %d] check failed at %s:%d: %s\n", my_rank, __FILE__,      \
                    __LINE__, #c);                                                          \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)
#define CHECK_EQ(a, b)                                                                      \
    do {                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                 \
        if (a_ != b_) {                                                                     \
            fprintf(stderr, "[rank %d] check failed at %s:%d: %s == %s (%lld vs %lld)\n",   \
                    my_rank, __FILE__, __LINE__, #a, #b, a_, b_);                           \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)
#define T_OK(call) CHECK_EQ((call), MPI_SUCCESS)

/* Element `element` of an event instance, an MPI_INT32_T or a 64-bit integer (the
 * catalogue's types), as int64_t; INT64_MIN if the element is absent (< 0) or the read
 * fails. */
static inline int64_t mpit_read_int(MPI_T_event_instance inst, int element, MPI_Datatype dtype)
{
    unsigned char buf[16] = {0};
    if (element < 0 || MPI_T_event_read(inst, element, buf) != MPI_SUCCESS)
        return INT64_MIN;
    if (dtype == MPI_INT32_T) {
        int32_t v;
        memcpy(&v, buf, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, buf, 8);
    return v;
}

#endif
