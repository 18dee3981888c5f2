/* test_abort / test_crash / test_hang: jobs that must fail.
 *   abort: last rank calls MPI_Abort(MPI_COMM_WORLD, 3) while the others
 *          wait in a barrier  -> mpiexec exits 3 and names that rank
 *   crash: rank 1 dies from SIGKILL -> mpiexec reports the signal
 *   hang:  every rank waits for a message that never comes -> --timeout */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, v;
    const char *mode = argc > 1 ? argv[1] : "abort";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "abort")) {
        if (rank == size - 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(mode, "crash")) {
        if (rank == 1)
            raise(SIGKILL);
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "hang")) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("rank %d: reached the end (BUG)\n", rank);
    MPI_Finalize();
    return 0;
}
