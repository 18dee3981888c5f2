/* The adapter in a shared library of its own, next to Debian's MPICH (not inside it):
 * what tests/adapter/mpich/CMakeLists.txt links into a program before and after -lmpich
 * to show which MPI_T_event_* definitions the program gets (docs/adapter-guide.md,
 * "Link order"). It declares LINK_ORDER_NUM_TYPES event types, so the adapter's
 * MPI_T_event_get_num answers that, where MPICH 4.0.2's own answers 0.
 *
 * MPI_T state: this library wraps MPI_T_init_thread / MPI_T_finalize (calling MPICH's
 * PMPI_ versions) and keeps the reference count the "initialised" hook loads. Those
 * wrappers are subject to the same link order as the MPI_T_event_* functions. */
#include <mpi.h>

#include "link_order.h"

static int t_refcount; /* MPI_T_init_thread calls minus MPI_T_finalize calls */
#define MPITEV_ADAPTER_T_INITIALIZED() (t_refcount > 0)

#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

static mpitev_type types[LINK_ORDER_NUM_TYPES];
static const char *const type_names[LINK_ORDER_NUM_TYPES] = { "link_order_a", "link_order_b", "link_order_c" };

/* Declarations live for the process: after the first init, declaring is a no-op. */
static int declare(void) {
    int rc = MPITEV_SUCCESS;
    for (int i = 0; rc == MPITEV_SUCCESS && i < LINK_ORDER_NUM_TYPES; i++) {
        rc = mpitev_type_declare(&types[i], &(mpitev_type_desc){ .name = type_names[i],
                                                                 .verbosity = MPITEV_VERBOSITY_USER_BASIC,
                                                                 .bind = MPITEV_BIND_NO_OBJECT });
    }
    return rc;
}

MPITEV_ADAPTER_EXPORT int MPI_T_init_thread(int required, int *provided) {
    int rc = PMPI_T_init_thread(required, provided);
    if (rc != MPI_SUCCESS) return rc;
    if (mpitev_init() != MPITEV_SUCCESS) {
        PMPI_T_finalize();
        return MPI_T_ERR_MEMORY;
    }
    if (declare() != MPITEV_SUCCESS) {
        mpitev_finalize();
        PMPI_T_finalize();
        return MPI_T_ERR_MEMORY;
    }
    t_refcount++;
    return MPI_SUCCESS;
}

MPITEV_ADAPTER_EXPORT int MPI_T_finalize(void) {
    int rc = PMPI_T_finalize();
    if (rc != MPI_SUCCESS) return rc;
    t_refcount--;
    mpitev_finalize();
    return MPI_SUCCESS;
}
