/* toympi_check.h -- tiny check helpers for the multi-process tests.
 * CHECK never aborts: it records the failure and the test's main returns
 * non-zero at the end (after MPI_Finalize), so one failing rank makes the
 * whole mpiexec job fail. */
#ifndef TOYMPI_CHECK_H
#define TOYMPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int check_failures;
static int check_rank = -1;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "[rank %d] CHECK failed at %s:%d: %s\n", check_rank, __FILE__,   \
                    __LINE__, #cond);                                                      \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                 \
    do {                                                                                   \
        long long a_ = (long long)(a), b_ = (long long)(b);                                \
        if (a_ != b_) {                                                                    \
            fprintf(stderr, "[rank %d] CHECK failed at %s:%d: %s == %s (%lld vs %lld)\n",  \
                    check_rank, __FILE__, __LINE__, #a, #b, a_, b_);                       \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define MPI_OK(call) CHECK_EQ_INT((call), MPI_SUCCESS)

static inline int check_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    return check_rank;
}

static inline int check_finish(const char *name)
{
    /* every rank learns whether any rank failed */
    int mine = check_failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (check_rank == 0)
        printf("%s: %s (%d failed checks)\n", name, total ? "FAILED" : "passed", total);
    MPI_Finalize();
    return mine ? 1 : 0;
}

#endif
