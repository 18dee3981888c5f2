/* test_win_errors: the error classes of the one-sided calls, raised on the window's error
 * handler (MPI_ERRORS_RETURN here, then a user handler), or on MPI_COMM_WORLD's for an
 * invalid window handle and on the communicator's for MPI_Win_create/_allocate; the
 * library keeps working afterwards.
 *
 * With the argument "fatal": a window keeps the default MPI_ERRORS_ARE_FATAL, and rank 1
 * puts outside an epoch, which must end the job (ctest toympi.win_errors_are_fatal). */
#include <string.h>

#include "toympi_check.h"

static int rank, size;
static int handler_calls, handler_code;
static MPI_Win handler_win;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *win;
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}

static int fatal_mode(void)
{
    int buf[2] = {0, 0};
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 1) {
        MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* no epoch */
        printf("rank 1: still alive after a fatal error (BUG)\n");
        return 0;
    }
    MPI_Recv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}

static void creation_errors(void)
{
    int buf[4];
    MPI_Win win = MPI_WIN_NULL;
    void *base;
    CHECK_EQ_INT(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_NULL, &win),
                 MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Win_create(buf, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE);
    CHECK_EQ_INT(MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 MPI_ERR_DISP);
    CHECK_EQ_INT(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, NULL),
                 MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Win_create(NULL, 16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Win_allocate(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, NULL, &win),
                 MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Win_allocate(-5, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                 MPI_ERR_SIZE);
    CHECK_EQ_INT(win, MPI_WIN_NULL); /* nothing written on failure */
}

static void invalid_handles(void)
{
    int buf[2] = {0, 0};
    MPI_Win w = MPI_WIN_NULL;
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Get(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, (MPI_Win)12345), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Win_fence(0, (MPI_Win)0x200000ff), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Win_fence(0, MPI_COMM_WORLD), MPI_ERR_WIN); /* another kind of handle */
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Win_free(NULL), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Win_free(&w), MPI_ERR_WIN);
}

/* Arguments of operations inside a fence epoch on a window of 4 ints per rank. */
static void operation_errors(MPI_Win win)
{
    int buf[4] = {0, 0, 0, 0};
    MPI_Op uop;
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, -5, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Get(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Get(buf, 2, MPI_INT, 0, 3, 2, MPI_INT, win), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, (MPI_Aint)1 << 60, 1, MPI_INT, win), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Put(buf, -1, MPI_INT, 0, 0, -1, MPI_INT, win), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Get(buf, 1, MPI_INT, 0, 0, 1, (MPI_Datatype)42, win), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_DOUBLE, win), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Put(NULL, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_BUFFER);
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, (MPI_Op)99, win), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_FLOAT, 0, 0, 1, MPI_FLOAT, MPI_BAND, win), MPI_ERR_OP);
    MPI_OK(MPI_Op_create(user_op, 1, &uop));
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, uop, win), MPI_ERR_OP);
    MPI_OK(MPI_Op_free(&uop));
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_UNSIGNED, MPI_SUM, win),
                 MPI_ERR_TYPE);
}

/* Epoch rules: each call made where its epoch does not allow it. */
static void epoch_errors(MPI_Win win)
{
    int buf[4] = {0, 0, 0, 0}, other = size > 1 ? 1 : MPI_PROC_NULL;
    /* no epoch yet */
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Get(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win),
                 MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE);
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    CHECK_EQ_INT(MPI_Win_unlock(-4, win), MPI_ERR_RANK);
    /* a fence epoch with an operation in it: no lock may start */
    MPI_OK(MPI_Win_fence(0, win));
    operation_errors(win);
    MPI_OK(MPI_Put(buf, 1, MPI_INT, rank, 0, 1, MPI_INT, win));
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    MPI_OK(MPI_Win_fence(0, win));
    /* an unused fence epoch: a lock may start; then nothing else may */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    if (other != MPI_PROC_NULL) {
        CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, other, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
        CHECK_EQ_INT(MPI_Win_unlock(other, win), MPI_ERR_RMA_SYNC);
        CHECK_EQ_INT(MPI_Win_flush(other, win), MPI_ERR_RMA_SYNC);
    }
    MPI_OK(MPI_Win_flush(0, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    /* lock_all */
    MPI_OK(MPI_Win_lock_all(0, win));
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    MPI_OK(MPI_Win_unlock_all(win));
    /* a fence with MPI_MODE_NOSUCCEED closes the epoch */
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
}

int main(int argc, char **argv)
{
    rank = check_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0)
        return fatal_mode();
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    creation_errors();
    invalid_handles();

    int buf[4] = {1, 2, 3, 4};
    MPI_Win win;
    MPI_Errhandler eh;
    MPI_OK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK_EQ_INT(eh, MPI_ERRORS_ARE_FATAL); /* the default for windows */
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_EQ_INT(MPI_Win_set_errhandler(win, (MPI_Errhandler)77), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Win_get_errhandler(win, NULL), MPI_ERR_ARG);
    epoch_errors(win);

    /* a user handler gets the window and the code */
    MPI_OK(MPI_Win_create_errhandler(win_handler, &eh));
    MPI_OK(MPI_Win_set_errhandler(win, eh));
    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK_EQ_INT(handler_calls, 1);
    CHECK_EQ_INT(handler_code, MPI_ERR_RANK);
    CHECK_EQ_INT(handler_win, win);
    CHECK_EQ_INT(MPI_Win_create_errhandler(NULL, &eh), MPI_ERR_ARG);

    /* a freed window is an invalid handle (MPI_COMM_WORLD's handler: RETURN) */
    MPI_Win copy = win;
    MPI_OK(MPI_Win_free(&win));
    CHECK_EQ_INT(win, MPI_WIN_NULL);
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, copy), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Win_fence(0, copy), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, copy), MPI_ERR_WIN);
    CHECK_EQ_INT(MPI_Win_free(&copy), MPI_ERR_WIN);
    CHECK_EQ_INT(handler_calls, 1); /* not the freed window's handler */

    /* everything still works */
    int *mem, left = (rank - 1 + size) % size;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ_INT(*mem, left);
    MPI_OK(MPI_Win_free(&win));
    return check_finish("test_win_errors");
}
