/* mpitev.h - MPI_T events (MPI-4.1 section 16.3.8) for MPI implementors.
 *
 * Header-only C11. One public header: include this one and nothing under detail/.
 *
 * ============================== COMPILE-TIME OPTIONS ==============================
 * Define these before including mpitev.h. The scope says in which translation units
 * (TUs) the option must be set; "all TUs, same value" options change layouts or
 * symbol names seen by every TU, so they must agree everywhere.
 *
 *   MPITEV_IMPLEMENTATION      [exactly one TU]   Instantiate the registry and the
 *                              out-of-line functions (slow paths, queries, lifecycle) in
 *                              this TU. Every other TU sees declarations and the
 *                              static-inline raise fast path only.
 *   MPITEV_API                 [all TUs, same value]  Storage class / visibility of the
 *                              out-of-line functions and the registry. Default: extern
 *                              with hidden visibility on ELF, so an MPI library that
 *                              vendors mpitev does not export the core symbols; only the
 *                              adapter's MPI_T_* entry points are exported.
 *   MPITEV_MAX_SOURCES         [all TUs, same value]  Largest number of event sources
 *                              (default 64). Each registration keeps one drop counter
 *                              per source. Declaring one more gives MPITEV_ERR_LIMIT.
 *   MPITEV_MAX_TYPES           [implementation TU]  Largest number of event types
 *                              (default 131072; 1 to 16777216). Static memory: one
 *                              pointer per type in the registry and two ints per type in
 *                              the name index (2 MiB at the default, touched only as
 *                              types are declared). Declaring costs the same for the
 *                              first and the 100000th type, a raise the same whatever
 *                              the number. Declaring one more gives MPITEV_ERR_LIMIT.
 *   MPITEV_MAX_ELEMENTS        [all TUs, same value]  Largest number of elements in one
 *                              event type (default 64).
 *   MPITEV_MAX_DEPTH           [implementation TU] How deep deliveries may nest on one
 *                              thread: a callback that raises an event is itself a
 *                              delivery one level deeper. Default 2: a callback may
 *                              raise, and that nested instance is delivered; a raise
 *                              from a nested callback is dropped and counted.
 *   MPITEV_CACHE_LINE          [all TUs, same value]  Cache line size used to separate
 *                              producer and consumer counters (default 64).
 *   MPITEV_DISABLE             [per TU; usually the whole MPI]  Compile the events out
 *                              (as NVTX_DISABLE does): the raises and MPITEV_DRAIN expand
 *                              to nothing, MPITEV_ENABLED, MPITEV_ANY_ENABLED,
 *                              MPITEV_DRAIN_DUE and MPITEV_ANY_DRAIN_DUE to 0. No argument
 *                              is evaluated and no symbol referenced (the arguments are
 *                              only type-checked, inside sizeof). Declarations, queries,
 *                              registrations and the adapter work as usual: a tool sees
 *                              every type and source, and nothing is ever raised.
 *   MPITEV_TLS_DYNAMIC         [implementation TU]  Undefined by default: the thread-local
 *                              delivery depth, read and written by every drain and
 *                              delivery, uses the initial-exec TLS model (a load from the
 *                              thread pointer, no __tls_get_addr call in a shared
 *                              library). Define it for an MPI library that programs load
 *                              with dlopen where the static TLS surplus is exhausted
 *                              (then the default model is used).
 *   MPITEV_EVENT_EXTERN        [all TUs, same value]  Storage class / visibility of the
 *                              NAME_type and NAME_declare that MPITEV_EVENT_TYPE declares
 *                              (extern plus attributes). Default: as MPITEV_API.
 *
 * Runtime-replaceable: the allocator (mpitev_set_allocator, before the first declaration)
 * and each source's clock.
 * ==================================================================================
 *
 * Quick use (the implementor's guide, docs/implementors-guide.md, has the whole story):
 *
 *   #define MPITEV_IMPLEMENTATION      // in exactly one .c file of the MPI library
 *   #include <mpitev/mpitev.h>
 *
 *   struct msg_arrived { int32_t comm; int32_t src; int32_t tag; int64_t size; };
 *   static const mpitev_element msg_arrived_elems[] = {
 *       MPITEV_ELEMENT_OF(struct msg_arrived, comm, MPITEV_DTYPE_INT32),
 *       MPITEV_ELEMENT_OF(struct msg_arrived, src, MPITEV_DTYPE_INT32),
 *       MPITEV_ELEMENT_OF(struct msg_arrived, tag, MPITEV_DTYPE_INT32),
 *       MPITEV_ELEMENT_OF(struct msg_arrived, size, MPITEV_DTYPE_INT64) };
 *   static mpitev_type ev_msg_arrived;            // static storage: the raise is one load
 *   static mpitev_source src_main;
 *   ...
 *   mpitev_init();
 *   mpitev_source_declare(&src_main, &(mpitev_source_desc){ .name = "main",
 *       .ordering = MPITEV_SOURCE_ORDERED, ... });   // lives for the process
 *   mpitev_type_declare(&ev_msg_arrived, &(mpitev_type_desc){ .name = "msg_arrived", ...,
 *       .elements = msg_arrived_elems, .num_elements = 4,
 *       .payload_size = sizeof(struct msg_arrived) });
 *   ...
 *   MPITEV_RAISE(&ev_msg_arrived, &src_main, comm_key, MPITEV_CB_REQUIRE_THREAD_SAFE,
 *                &(struct msg_arrived){ comm->id, src, tag, size });
 *
 * Or spell the event once and let the macros (detail/event.inc) generate the struct,
 * the element list, the element-name enum, the type object and a typed raise helper:
 *
 *   #define MSG_ARRIVED_FIELDS(X)                                                   \
 *       X(int32_t, comm, MPITEV_DTYPE_INT32) X(int32_t, src, MPITEV_DTYPE_INT32)                \
 *       X(int32_t, tag, MPITEV_DTYPE_INT32) X(int64_t, size, MPITEV_DTYPE_INT64)
 *   MPITEV_EVENT_TYPE(msg_arrived, MSG_ARRIVED_FIELDS)   // in a header (no semicolon)
 *   MPITEV_EVENT_DEFINE(msg_arrived)                     // in one .c file
 *   msg_arrived_declare((mpitev_type_desc){ .desc = "...", ... });  // after mpitev_init
 *   MPITEV_RAISE_EVENT(msg_arrived, &src_main, comm_key, MPITEV_CB_REQUIRE_THREAD_SAFE,
 *                      comm->id, src, tag, size);
 */
#ifndef MPITEV_MPITEV_H
#define MPITEV_MPITEV_H

/* Version. CMake reads these three lines; keep their form. */
#define MPITEV_VERSION_MAJOR 0
#define MPITEV_VERSION_MINOR 1
#define MPITEV_VERSION_PATCH 0
#define MPITEV_VERSION (MPITEV_VERSION_MAJOR * 10000 + MPITEV_VERSION_MINOR * 100 + MPITEV_VERSION_PATCH)

#define MPITEV__INSIDE 1
#include "detail/config.inc"
#include "detail/types.inc"
#include "detail/grace.inc"
#include "detail/ring.inc"
#include "detail/instance.inc"
#include "detail/objects.inc"
#include "detail/api.inc"
#include "detail/raise.inc"
#include "detail/event.inc"
#undef MPITEV__INSIDE

#endif /* MPITEV_MPITEV_H */

/* The implementation sits outside the include guard (stb style), so a TU may include
 * mpitev.h for declarations first and define MPITEV_IMPLEMENTATION later. */
#if defined(MPITEV_IMPLEMENTATION) && !defined(MPITEV__IMPLEMENTED)
#define MPITEV__IMPLEMENTED 1
#define MPITEV__INSIDE 1
#include "detail/impl_common.inc"
#include "detail/impl_clock.inc"
#include "detail/impl_clock_tsc.inc"
#include "detail/impl_ring.inc"
#include "detail/impl_grace.inc"
#include "detail/impl_registration.inc"
#include "detail/impl_catalog.inc"
#include "detail/impl_drops.inc"
#include "detail/impl_instance.inc"
#include "detail/impl_raise.inc"
#include "detail/impl_free.inc"
#include "detail/impl_drain.inc"
#include "detail/impl_lifecycle.inc"
#undef MPITEV__INSIDE
#endif
