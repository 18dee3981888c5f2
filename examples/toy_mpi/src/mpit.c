/* mpit.c -- MPI tool information interface: initialization only (phase 1).
 * MPI_T_init_thread / MPI_T_finalize are reference counted and independent
 * of MPI_Init/MPI_Finalize (MPI-4.1 §15.3.4). The event, source, enum and
 * category functions declared in mpi.h are implemented in phase 2 on top of
 * mpitev. */
#include "toympi_internal.h"

static int mpit_refcount;

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    mpit_refcount++;
    *provided = required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED : required;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(T_init_thread)

int PMPI_T_finalize(void)
{
    if (mpit_refcount == 0)
        return MPI_T_ERR_NOT_INITIALIZED;
    mpit_refcount--;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(T_finalize)
