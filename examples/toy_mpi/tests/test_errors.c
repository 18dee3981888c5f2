/* test_errors: with MPI_ERRORS_RETURN every kind of bad argument returns
 * the right error class and the library keeps working afterwards; user
 * error handlers are called; error strings and classes. */
#include <string.h>

#include "toympi_check.h"

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

int main(int argc, char **argv)
{
    int rank = check_init(&argc, &argv), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK_EQ_INT(eh, MPI_ERRORS_RETURN);
    int buf[4] = {0}, flag;
    MPI_Status st;
    MPI_Request rq;

    /* communicators */
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)12345), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Comm_size((MPI_Comm)0x440000ff, &flag), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK_EQ_INT(MPI_Comm_free(&w), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &w), MPI_ERR_ARG);
    /* ranks, tags, counts, datatypes, buffers */
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_EQ_INT(MPI_Isend(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq), MPI_ERR_TAG);
    CHECK_EQ_INT(MPI_Recv(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    CHECK_EQ_INT(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Irecv(buf, -3, MPI_INT, 0, 0, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Send(buf, 1, (MPI_Datatype)42, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_EQ_INT(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Iprobe(0, 0, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG);
    int sz;
    CHECK_EQ_INT(MPI_Type_size(MPI_DATATYPE_NULL, &sz), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Get_count(&st, (MPI_Datatype)7, &sz), MPI_ERR_TYPE);
    /* collectives: root, op, datatype/op mismatch */
    CHECK_EQ_INT(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    CHECK_EQ_INT(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    CHECK_EQ_INT(MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, size + 1, MPI_COMM_WORLD),
                 MPI_ERR_ROOT);
    CHECK_EQ_INT(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, (MPI_Op)99, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(buf, buf + 1, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(buf, buf + 1, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(buf, buf + 1, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Allreduce(buf, buf + 1, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_TYPE);
    /* requests */
    rq = (MPI_Request)0x2c0000ff;
    CHECK_EQ_INT(MPI_Wait(&rq, &st), MPI_ERR_REQUEST);
    CHECK_EQ_INT(MPI_Test(&rq, &flag, &st), MPI_ERR_REQUEST);
    CHECK_EQ_INT(MPI_Cancel(&rq), MPI_ERR_REQUEST);
    rq = (MPI_Request)77;
    CHECK_EQ_INT(MPI_Request_free(&rq), MPI_ERR_REQUEST);
    MPI_Request arr[2] = {MPI_REQUEST_NULL, (MPI_Request)5};
    CHECK_EQ_INT(MPI_Waitall(2, arr, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
    CHECK_EQ_INT(MPI_Waitall(-1, arr, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
    /* info */
    MPI_Info info;
    CHECK_EQ_INT(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    CHECK_EQ_INT(MPI_Info_set((MPI_Info)1234, "a", "b"), MPI_ERR_INFO);
    MPI_OK(MPI_Info_create(&info));
    CHECK_EQ_INT(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY);
    char longkey[MPI_MAX_INFO_KEY + 10];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    CHECK_EQ_INT(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY);
    CHECK_EQ_INT(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    CHECK_EQ_INT(MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE);
    CHECK_EQ_INT(MPI_Info_get_nthkey(info, 0, longkey), MPI_ERR_ARG);
    MPI_OK(MPI_Info_free(&info));
    CHECK_EQ_INT(info, MPI_INFO_NULL);
    /* truncation through Wait */
    MPI_OK(MPI_Irecv(buf, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Send(buf, 2, MPI_INT, rank, 3, MPI_COMM_WORLD));
    CHECK_EQ_INT(MPI_Wait(&rq, &st), MPI_ERR_TRUNCATE);
    CHECK_EQ_INT(rq, MPI_REQUEST_NULL);
    /* error strings and classes */
    char str[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_OK(MPI_Error_string(MPI_ERR_RANK, str, &len));
    CHECK(strstr(str, "MPI_ERR_RANK") != NULL && len == (int)strlen(str));
    MPI_OK(MPI_Error_string(MPI_T_ERR_INVALID_HANDLE, str, &len));
    CHECK(strstr(str, "MPI_T_ERR_INVALID_HANDLE") != NULL);
    MPI_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE);
    CHECK(MPI_ERR_LASTCODE >= MPI_T_ERR_NOT_SUPPORTED);

    /* user handler on a dup (dup inherits ERRORS_RETURN first) */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_EQ_INT(MPI_Send(buf, 1, MPI_INT, size, 0, dup), MPI_ERR_RANK);
    MPI_Errhandler mine;
    MPI_OK(MPI_Comm_create_errhandler(my_handler, &mine));
    MPI_OK(MPI_Comm_set_errhandler(dup, mine));
    MPI_OK(MPI_Errhandler_free(&mine));
    CHECK_EQ_INT(mine, MPI_ERRHANDLER_NULL);
    int rc = MPI_Send(buf, 1, MPI_INT, 0, -3, dup);
    CHECK_EQ_INT(rc, MPI_ERR_TAG);
    CHECK_EQ_INT(handler_calls, 1);
    CHECK_EQ_INT(handler_code, MPI_ERR_TAG);
    CHECK_EQ_INT(handler_comm, dup);
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK_EQ_INT(handler_calls, 2);
    MPI_OK(MPI_Comm_free(&dup));

    /* everything still works */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size, v = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &v, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                        &st));
    CHECK_EQ_INT(v, left);
    return check_finish("test_errors");
}
