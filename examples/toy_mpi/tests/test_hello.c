/* test_hello: minimal end-to-end: init, rank/size, ring send/recv. */
#include "toympi_check.h"

int main(int argc, char **argv)
{
    int rank = check_init(&argc, &argv), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 1);
    int token = rank * 100, got = -1;
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    MPI_Status st;
    if (rank == 0) {
        MPI_OK(MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
    } else {
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD));
    }
    CHECK_EQ_INT(got, prev * 100);
    CHECK_EQ_INT(st.MPI_SOURCE, prev);
    CHECK_EQ_INT(st.MPI_TAG, 7);
    return check_finish("test_hello");
}
