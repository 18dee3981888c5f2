/* onesided.c -- a small one-sided exchange (the demo's second program): every rank
 * exposes a window of NSLOTS ints, then
 *   1. in a fence epoch, puts its rank into slot 0 of its right neighbour and gets
 *      slot 1 of its left neighbour (the neighbour's rank * 10, written before);
 *   2. under an exclusive lock on rank 0, adds 1 to rank 0's slot 2 (MPI_Accumulate,
 *      MPI_SUM): rank 0 ends with the number of ranks there;
 *   3. under MPI_Win_lock_all, puts into slot 3 + its rank of rank 0 and flushes.
 * Prints what rank 0's window holds and checks every value; exits 1 on a wrong one. */
#include <mpi.h>

#include <stdio.h>

#define NSLOTS 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > NSLOTS - 3) {
        if (rank == 0)
            fprintf(stderr, "onesided: at most %d ranks\n", NSLOTS - 3);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *base;
    MPI_Win win;
    MPI_Win_allocate(NSLOTS * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    for (int i = 0; i < NSLOTS; i++)
        base[i] = 0;
    base[1] = rank * 10;
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, one = 1;

    MPI_Win_fence(0, win); /* 1 */
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Get(&got, 1, MPI_INT, left, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    errors += base[0] != left || got != left * 10;

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win); /* 2 */
    MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);

    MPI_Win_lock_all(0, win); /* 3 */
    MPI_Put(&rank, 1, MPI_INT, 0, 3 + rank, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win); /* see the others' updates */
        errors += base[2] != size;
        for (int r = 0; r < size; r++)
            errors += base[3 + r] != r;
        printf("onesided: %d ranks; rank 0's window: from the left %d, accumulated %d, "
               "slots 3.. =", size, base[0], base[2]);
        for (int r = 0; r < size; r++)
            printf(" %d", base[3 + r]);
        printf("\n");
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("onesided: %s\n", all ? "WRONG VALUES" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
