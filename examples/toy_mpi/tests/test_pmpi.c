/* test_pmpi: profiling interface. The program defines its own MPI_Send,
 * MPI_Recv and MPI_Barrier that count calls and forward to PMPI_*. The
 * strong definitions here must replace the library's weak MPI_ symbols,
 * and the library must not route its own internal traffic (collectives,
 * communicator creation) through the MPI_ names. */
#include "toympi_check.h"

static int n_send, n_recv, n_barrier;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    n_send++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    n_recv++;
    return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Barrier(MPI_Comm comm)
{
    n_barrier++;
    return PMPI_Barrier(comm);
}

int main(int argc, char **argv)
{
    int rank = check_init(&argc, &argv), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size, v = -1;
    MPI_Request rq;
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Send(&rank, 1, MPI_INT, right, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_EQ_INT(v, left);
    MPI_OK(MPI_Isend(&rank, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int sum;
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Bcast(&sum, 1, MPI_INT, 0, dup));
    MPI_OK(MPI_Comm_free(&dup));
    CHECK_EQ_INT(sum, size * (size - 1) / 2);
    CHECK_EQ_INT(n_send, 1);
    CHECK_EQ_INT(n_recv, 1);
    CHECK_EQ_INT(n_barrier, 1);
    return check_finish("test_pmpi");
}
