/* mpit_check.h -- the checks of the integration tests (integrations/mpich/tests,
 * integrations/openmpi/tests): programs written as tool writers write them, with standard
 * MPI and MPI_T only, compiled by each MPI's own mpicc. Header-only, for one translation
 * unit per program. A failed check prints where and what, counts the failure (atomically:
 * checks run in MPI_T callbacks and in several threads) and goes on; main reports
 * failures and exits non-zero. Set my_rank once MPI_Comm_rank is known. */
#ifndef MPIT_CHECK_H
#define MPIT_CHECK_H

#include <stdatomic.h>
#include <stdio.h>

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

#endif
