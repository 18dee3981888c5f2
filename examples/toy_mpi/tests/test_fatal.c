/* test_fatal: with the default MPI_ERRORS_ARE_FATAL an invalid rank on
 * rank 1 must abort the whole job with a non-zero exit status and mpiexec
 * must report rank 1 (rank 0 is blocked in a receive meanwhile). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 1) {
        MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        printf("rank 1: still alive after a fatal error (BUG)\n");
        return 0;
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
