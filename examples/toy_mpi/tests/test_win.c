/* test_win: one-sided communication moves the right data. Fence epochs (put, get,
 * accumulate SUM/MAX/REPLACE, displacement units, self access, 1 MiB transfers, MPI_PROC_NULL),
 * MPI_Win_allocate, a window over a split communicator (window ranks are not world
 * ranks), two windows at once, passive target (an exclusive-lock counter incremented
 * from every rank gives the exact sum; shared locks held by two ranks at once; lock_all,
 * flush, flush_all). Deterministic: no timing, only MPI's own synchronization. */
#include <stdlib.h>
#include <string.h>

#include "toympi_check.h"

static int rank, size;

static void fence_put_get(void)
{
    int buf[8];
    for (int i = 0; i < 8; i++)
        buf[i] = -1;
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int v[2] = {rank * 10, rank * 10 + 1};
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(v, 2, MPI_INT, right, 2, 2, MPI_INT, win)); /* right's buf[2..3] */
    MPI_OK(MPI_Put(v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win)); /* nothing */
    MPI_OK(MPI_Put(v, 0, MPI_INT, right, 8, 0, MPI_INT, win));          /* empty, at the end */
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ_INT(buf[2], left * 10);
    CHECK_EQ_INT(buf[3], left * 10 + 1);
    CHECK_EQ_INT(buf[0] + buf[1] + buf[4] + buf[6] + buf[7], -5);
    buf[5] = rank * 100 + 5; /* a local store before the fence: visible after it */
    MPI_OK(MPI_Win_fence(0, win));
    int g = -7, b[2] = {0, 0};
    MPI_OK(MPI_Get(&g, 1, MPI_INT, left, 5, 1, MPI_INT, win));
    /* an int read as bytes: only sizes must agree */
    MPI_OK(MPI_Get(b, 2, MPI_INT, right, 2, 2 * (int)sizeof(int), MPI_BYTE, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_EQ_INT(g, left * 100 + 5);
    CHECK_EQ_INT(b[0], rank * 10);
    CHECK_EQ_INT(b[1], rank * 10 + 1);
    MPI_OK(MPI_Win_free(&win));
    CHECK_EQ_INT(win, MPI_WIN_NULL);
}

static void fence_accumulate(void)
{
    long acc[4] = {0, 0, 0, 0};
    MPI_Win win; /* disp_unit 1: displacements in bytes */
    MPI_OK(MPI_Win_create(acc, sizeof acc, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    long mine[2] = {rank + 1, 2 * (rank + 1)}, tag = 1000 + rank, top = rank;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(mine, 2, MPI_LONG, 0, sizeof(long), 2, MPI_LONG, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(&tag, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_REPLACE, win));
    MPI_OK(MPI_Accumulate(&top, 1, MPI_LONG, 0, 3 * sizeof(long), 1, MPI_LONG, MPI_MAX, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ_INT(acc[0], 1000 + left);
    if (rank == 0) {
        CHECK_EQ_INT(acc[1], (long)size * (size + 1) / 2);
        CHECK_EQ_INT(acc[2], (long)size * (size + 1));
        CHECK_EQ_INT(acc[3], size - 1);
    }
    MPI_OK(MPI_Win_free(&win));

    /* doubles, summed into rank 0 from everybody, twice (exact in binary) */
    double *d;
    MPI_OK(MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &d, &win));
    d[0] = 0.25;
    d[1] = 0;
    double x[2] = {0.5, rank};
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(x, 2, MPI_DOUBLE, 0, 0, 2, MPI_DOUBLE, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(x, 2, MPI_DOUBLE, 0, 0, 2, MPI_DOUBLE, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 0) {
        CHECK(d[0] == 0.25 + size);
        CHECK(d[1] == (double)size * (size - 1));
    }
    MPI_OK(MPI_Win_free(&win));
}

/* MPI_Win_allocate's memory, 1 MiB moved each way (larger than a socket buffer). */
static void allocate_big(void)
{
    enum { N = 1 << 18 };
    int *mem = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                            &win));
    CHECK(mem != NULL);
    int *src = malloc(N * sizeof(int)), *back = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) {
        mem[i] = -1;
        src[i] = rank * N + i;
    }
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += mem[i] != left * N + i;
    CHECK_EQ_INT(bad, 0);
    MPI_OK(MPI_Get(back, N, MPI_INT, right, 0, N, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += back[i] != src[i];
    CHECK_EQ_INT(bad, 0);
    MPI_OK(MPI_Win_free(&win));
    free(src);
    free(back);
}

/* A window over a split communicator with reversed ranks; two windows at once. */
static void split_and_two_windows(void)
{
    MPI_Comm sub;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub));
    int srank, ssize;
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    int *world_of = malloc((size_t)ssize * sizeof(int));
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, world_of, 1, MPI_INT, sub));
    int a[16], b[16];
    for (int i = 0; i < 16; i++)
        a[i] = b[i] = -1;
    MPI_Win wa, wb;
    MPI_OK(MPI_Win_create(a, sizeof a, sizeof(int), MPI_INFO_NULL, sub, &wa));
    MPI_OK(MPI_Comm_free(&sub)); /* the window keeps its group */
    MPI_OK(MPI_Win_create(b, sizeof b, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wb));
    MPI_OK(MPI_Win_fence(0, wa));
    MPI_OK(MPI_Win_fence(0, wb));
    /* window rank 0 of wa learns every member's world rank at its window rank */
    MPI_OK(MPI_Put(&rank, 1, MPI_INT, 0, srank, 1, MPI_INT, wa));
    int neg = -rank - 100;
    MPI_OK(MPI_Put(&neg, 1, MPI_INT, 0, rank, 1, MPI_INT, wb));
    MPI_OK(MPI_Win_fence(0, wb)); /* in the other order than they were opened */
    MPI_OK(MPI_Win_fence(0, wa));
    if (srank == 0)
        for (int i = 0; i < ssize; i++)
            CHECK_EQ_INT(a[i], world_of[i]);
    if (rank == 0)
        for (int i = 0; i < size; i++)
            CHECK_EQ_INT(b[i], -i - 100);
    for (int i = (srank == 0 ? ssize : 0); i < 16; i++)
        CHECK_EQ_INT(a[i], -1); /* nothing of wb's traffic in wa's memory */
    MPI_OK(MPI_Win_free(&wb));
    MPI_OK(MPI_Win_free(&wa));
    free(world_of);
}

/* Every rank adds 1 to rank 0's counter N times under an exclusive lock (get, flush,
 * put): without mutual exclusion, increments get lost. */
static void exclusive_counter(void)
{
    enum { N = 40 };
    int *counter;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter,
                            &win));
    *counter = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        int v = -1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(0, win));
        v++;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int v = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK_EQ_INT(v, N * size);
    if (rank == 0)
        CHECK_EQ_INT(*counter, N * size);
    MPI_OK(MPI_Win_free(&win));
}

/* Ranks 0 and 1 hold a shared lock on rank 0 at the same time: rank 1 takes it while
 * rank 0 holds it and waits for rank 1's message before it unlocks (if shared locks
 * excluded each other, this would never end). */
static void shared_together(void)
{
    if (size < 2)
        return;
    int val = 77, got = -1, token = 0;
    MPI_Win win;
    MPI_OK(MPI_Win_create(&val, sizeof val, sizeof val, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(0, win));
    } else if (rank == 1) {
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(0, win));
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
    }
    if (rank < 2)
        CHECK_EQ_INT(got, 77);
    MPI_OK(MPI_Win_free(&win));
}

/* lock_all: everybody writes its slot in everybody's array, reads it back after a flush;
 * after unlock_all and a barrier every array is complete. */
static void lock_all_flush(void)
{
    int *arr;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate((MPI_Aint)size * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &arr, &win));
    for (int i = 0; i < size; i++)
        arr[i] = -1;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < size; t++) {
        int v = rank * 1000 + t, back = -1;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(t, win)); /* applied at t: a get now sees it */
        MPI_OK(MPI_Get(&back, 1, MPI_INT, t, rank, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK_EQ_INT(back, v);
    }
    int v = -rank;
    for (int t = 0; t < size; t++)
        MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, t, rank, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK_EQ_INT(arr[i], i * 1000 + rank - i);
    /* exclusive locks on every target in turn, several held at once */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        for (int t = 0; t < size; t++)
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        for (int t = 0; t < size; t++) {
            int z = 5;
            MPI_OK(MPI_Put(&z, 1, MPI_INT, t, 0, 1, MPI_INT, win));
        }
        for (int t = size - 1; t >= 0; t--)
            MPI_OK(MPI_Win_unlock(t, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(arr[0], 5);
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    rank = check_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fence_put_get();
    fence_accumulate();
    allocate_big();
    split_and_two_windows();
    exclusive_counter();
    shared_together();
    lock_all_flush();
    return check_finish("test_win");
}
