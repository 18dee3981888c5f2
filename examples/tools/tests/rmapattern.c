/* rmapattern: a one-sided pattern with known counts, for the tools' tests. With n ranks,
 * right = (rank + 1) % n; every rank does:
 *
 *   window A (win#0): MPI_Win_create over MPI_COMM_WORLD, n + 1 ints, disp_unit 4
 *     fence; put my rank into right's A[rank]; fence; get right's A[rank] (my rank
 *     again); fence;
 *     lock exclusive on rank 0; accumulate MPI_SUM 1 into rank 0's A[n]; unlock;
 *     barrier; lock shared on right; get right's A[n] (n on rank 0, else 0); unlock.
 *     -> 1 put (4 bytes), 2 gets (8 bytes), 1 accumulate (4 bytes), 2 locks acquired,
 *        7 synchronization calls (3 fences, 2 locks, 2 unlocks), 2 lock waits.
 *   window B (win#1): MPI_Win_allocate over a duplicate of MPI_COMM_WORLD (comm#2),
 *     2 * P ints, disp_unit 4
 *     lock_all; P puts of 2 ints (8 bytes) into right's B; flush right; unlock_all;
 *     barrier; lock shared on myself, get my whole B (2 * P ints), unlock; check it.
 *     -> P puts (8 * P bytes), 1 get (8 * P bytes), 2 locks acquired (lock_all, lock),
 *        5 synchronization calls, 2 lock waits (lock_all and lock).
 *     (Read through MPI_Get, not the base pointer: Debian's MPICH 4.0.2 returns rank 1's
 *     base 8 bytes off from where puts land in a shared-memory MPI_Win_allocate window.)
 *   MPI_Win_free(B), MPI_Comm_free, MPI_Win_free(A).
 *
 * Prints "rmapattern: N processes: ok" when every value read back is right. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define P 3

static int check(int ok, int rank, const char *what)
{
    if (!ok)
        fprintf(stderr, "rmapattern: rank %d: FAILED: %s\n", rank, what);
    return ok ? 0 : 1;
}

static int window_a(int rank, int size)
{
    int right = (rank + 1) % size, one = 1, got = -1, total = -1, bad = 0;
    int *a = calloc((size_t)size + 1, sizeof *a);
    MPI_Win win;
    MPI_Win_create(a, (MPI_Aint)((size_t)(size + 1) * sizeof *a), (int)sizeof *a, MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(&got, 1, MPI_INT, right, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    bad += check(got == rank, rank, "get after put");
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, size, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&total, 1, MPI_INT, right, size, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    bad += check(total == (right == 0 ? size : 0), rank, "accumulated sum");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(a);
    return bad;
}

static int window_b(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, bad = 0, *b = NULL, v[P][2], mine[2 * P];
    MPI_Comm c;
    MPI_Win win;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Win_allocate((MPI_Aint)(2 * P * sizeof(int)), (int)sizeof(int), MPI_INFO_NULL, c, &b, &win);
    MPI_Barrier(c);
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < P; k++) {
        v[k][0] = rank, v[k][1] = k;
        MPI_Put(v[k], 2, MPI_INT, right, 2 * k, 2, MPI_INT, win);
    }
    MPI_Win_flush(right, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(c);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Get(mine, 2 * P, MPI_INT, rank, 0, 2 * P, MPI_INT, win);
    MPI_Win_unlock(rank, win);
    for (int k = 0; k < P; k++)
        bad += check(mine[2 * k] == left && mine[2 * k + 1] == k, rank, "puts of the left neighbour");
    MPI_Barrier(c);
    MPI_Win_free(&win);
    MPI_Comm_free(&c);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bad += window_a(rank, size);
    bad += window_b(rank, size);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rmapattern: %d processes: %s\n", size, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
