/* ring.c -- pass a token around a ring of processes, then agree on a sum.
 *
 * The demo program of examples/demo.sh: run it under the mpitev logger tool to see the
 * MPI_T events toy_mpi raises (matching, protocols, transfers, collectives):
 *
 *   LD_PRELOAD=build/examples/tools/lib/libmpitev_logger.so \
 *       build/examples/toy_mpi/bin/mpiexec -n 4 --timeout 60 build/examples/toy_mpi/bin/ring
 *
 * Rank 0 starts a token (one int) that every rank increments and forwards to its right
 * neighbour; when it is back at rank 0 it has been incremented size - 1 times. Then one
 * rendezvous-sized message (64 KiB, above the 8 KiB eager limit) from each rank goes to
 * its right neighbour, and an MPI_Allreduce checks that everyone took part. Plain MPI: it builds
 * with any mpicc. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define BIG (64 * 1024)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* the token: eager messages */
    int token = 0;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token++;
        MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    }

    /* a big block each: rendezvous (RTS, CTS, DATA), non-blocking receive */
    char *out = malloc(BIG), *in = calloc(BIG, 1);
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < BIG; i++)
        out[i] = (char)rank;
    MPI_Request req;
    MPI_Irecv(in, BIG, MPI_CHAR, left, 2, MPI_COMM_WORLD, &req);
    MPI_Send(out, BIG, MPI_CHAR, right, 2, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = total == size && in[0] == (char)left && in[BIG - 1] == (char)left &&
             (rank != 0 || token == size - 1);
    if (rank == 0)
        printf("ring: %d processes, token came back as %d, allreduce %d: %s\n", size, token, total,
               ok ? "ok" : "WRONG");
    free(out);
    free(in);
    MPI_Finalize();
    return ok ? 0 : 1;
}
