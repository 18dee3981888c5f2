/* mpitev/mpi_t_events.h - the MPI-4 event interface (MPI-4.1 section 16.3.8) for an mpi.h
 * that predates it (MPI-3.1: Open MPI 4.1, MPICH 3.x, most MPIs installed today).
 *
 * Include it right after your mpi.h, in the adapter's TU and wherever tools see your
 * mpi.h (the simplest: at the end of your mpi.h, or in an mpi_t_events.h you install
 * next to it):
 *
 *     #include "mpi.h"
 *     #include <mpitev/mpi_t_events.h>
 *
 * When the mpi.h lacks the event interface it declares, exactly as MPI-4.1 does:
 *   - the handle types MPI_T_event_registration and MPI_T_event_instance (pointers to
 *     structs of their own, never looked into);
 *   - MPI_T_cb_safety (MPI_T_CB_REQUIRE_NONE .. _ASYNC_SIGNAL_SAFE, numbered 0..3 as in
 *     mpitev) and MPI_T_source_order (MPI_T_SOURCE_ORDERED, _UNORDERED);
 *   - the callback types MPI_T_event_cb_function, MPI_T_event_free_cb_function and
 *     MPI_T_event_dropped_cb_function;
 *   - the error class MPI_T_ERR_NOT_SUPPORTED (MPI-4.0) when mpi.h has none: as
 *     MPI_T_ERR_INVALID, an existing class, so MPI_Error_string still knows it. An MPI
 *     that adds a class of its own defines MPI_T_ERR_NOT_SUPPORTED before including this;
 *   - the prototypes of the 18 MPI_T_event_* / MPI_T_source_* functions and their 18
 *     PMPI_ twins, the ones <mpitev/adapter.h> defines (one list for both).
 *
 * Whether the mpi.h lacks them is read from the header itself: MPI_VERSION < 4. Define
 * MPITEV_MPI_HAS_T_EVENTS to 1 before including this (an MPI-3 header that has them) or
 * to 0 (an MPI-4 header that lacks them) to decide otherwise; this header defines it
 * (0 or 1) in every case, and declares nothing when it is 1.
 *
 * Included before mpi.h (or with no mpi.h at all) it declares nothing, and may be
 * included again after mpi.h. The adapter's implementation TU stops with an #error when
 * the event interface is missing and this header was not included after mpi.h. */
#ifndef MPITEV_MPI_T_EVENTS_H
#define MPITEV_MPI_T_EVENTS_H
/* Nothing needed from it; a TU that includes this header alone (no mpi.h) is then not
 * empty, which ISO C forbids. */
#include <stddef.h>
#endif

#if defined(MPI_VERSION) && !defined(MPITEV__MPI_T_EVENTS_DONE)
#define MPITEV__MPI_T_EVENTS_DONE 1

#ifndef MPITEV_MPI_HAS_T_EVENTS
#if MPI_VERSION >= 4
#define MPITEV_MPI_HAS_T_EVENTS 1
#else
#define MPITEV_MPI_HAS_T_EVENTS 0
#endif
#endif

#if !MPITEV_MPI_HAS_T_EVENTS
#ifndef MPI_T_ERR_NOT_SUPPORTED
#define MPI_T_ERR_NOT_SUPPORTED MPI_T_ERR_INVALID
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mpitev_mpi_t_event_registration *MPI_T_event_registration;
typedef struct mpitev_mpi_t_event_instance *MPI_T_event_instance;

typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;

typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED = 1 } MPI_T_source_order;

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance, MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void *user_data);

#define MPITEV__MPI_T_EVENTS_INSIDE 1
#include "detail/adapter_functions.inc"
#undef MPITEV__MPI_T_EVENTS_INSIDE
#define MPITEV__MPI_T_EVENTS_PROTOTYPE(name, params, args) int MPI_T_##name params; int PMPI_T_##name params;
MPITEV__ADAPTER_FUNCTIONS(MPITEV__MPI_T_EVENTS_PROTOTYPE)
#undef MPITEV__MPI_T_EVENTS_PROTOTYPE

#ifdef __cplusplus
}
#endif
#endif /* !MPITEV_MPI_HAS_T_EVENTS */
#endif /* MPI_VERSION, once */
