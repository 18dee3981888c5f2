/* msgcount: a known number of messages per pair of ranks, for the minimal tool's test
 * (check_minimal.sh computes the same numbers).
 *
 * On MPI_COMM_WORLD, rank s sends rank d (d != s) 1 + s + d messages of s + 1 ints (tags
 * 0..2, received with both wildcards), and one message of BIG bytes (rendezvous on the
 * toy) to rank s + 1 (mod n), tag 9. Then collectives and a duplicate of MPI_COMM_WORLD
 * with one message on it: the MPI's own messages on MPI_COMM_WORLD, and a communicator
 * the minimal tool does not follow. So at rank d, from rank s: 1 + s + d messages of
 * 4 (s + 1) bytes, plus one of BIG bytes if s = d - 1 (mod n); nothing from itself. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define BIG 16384

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nsend = 0, nrecv = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int p = 0; p < size; p++)
        if (p != rank) {
            nsend += 1 + rank + p;
            nrecv += 1 + p + rank;
        }
    MPI_Request *req = malloc((size_t)(nsend + 2) * sizeof *req);
    int small[64] = {0}, got[64] = {0};
    char *big = calloc(2, BIG);
    if (!req || !big || size > 16) {
        fprintf(stderr, "msgcount: at most 16 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int n = 0;
    if (size > 1)
        MPI_Irecv(big + BIG, BIG, MPI_CHAR, prev, 9, MPI_COMM_WORLD, &req[n++]);
    for (int d = 0; d < size; d++)
        for (int k = 0; d != rank && k < 1 + rank + d; k++)
            MPI_Isend(small, rank + 1, MPI_INT, d, k % 3, MPI_COMM_WORLD, &req[n++]);
    if (size > 1)
        MPI_Isend(big, BIG, MPI_CHAR, next, 9, MPI_COMM_WORLD, &req[n++]);
    for (int i = 0; i < nrecv; i++) {
        MPI_Status st;
        int count = -1;
        MPI_Recv(got, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        bad |= st.MPI_TAG > 2 || count != st.MPI_SOURCE + 1;
    }
    for (int i = 0; i < n; i++)
        MPI_Wait(&req[i], MPI_STATUS_IGNORE);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (size > 1)
        MPI_Sendrecv(small, 1, MPI_INT, next, 0, got, 1, MPI_INT, prev, 0, dup, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("msgcount: %d processes: %s\n", size, total ? "FAILED" : "ok");
    free(req);
    free(big);
    MPI_Finalize();
    return total != 0;
}
