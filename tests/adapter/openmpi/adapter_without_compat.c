/* The adapter's TU over an MPI-3.1 mpi.h without <mpitev/mpi_t_events.h>: must stop with
 * the adapter's #error that says so (adapter_openmpi_needs_compat_*), not with dozens of
 * unknown type names. */
#include <mpi.h>

static int t_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (t_refcount > 0)
#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>
