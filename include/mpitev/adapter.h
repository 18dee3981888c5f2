/* mpitev/adapter.h - the standard MPI_T_event_* / MPI_T_source_* entry points
 * (MPI-4.1 section 16.3.8) on top of mpitev, for any MPI's own mpi.h.
 *
 * Two parts, stb style:
 *
 *   1. Declarations (always): the category helpers below. No MPI type is needed, so
 *      this header compiles on its own and any TU of the MPI library may include it.
 *
 *   2. The implementation (one TU only): define MPITEV_ADAPTER_IMPLEMENTATION, include
 *      the MPI's own mpi.h first, then this header. That TU then defines, for each of
 *      the 18 event functions, a strong PMPI_T_... and a weak MPI_T_... alias (the
 *      profiling convention of MPI-3.1 14.2.6), with exactly the C signatures of
 *      16.3.8, in the MPI's own types (MPI_Datatype, MPI_Info, MPI_Count, MPI_T_enum,
 *      MPI_T_event_registration, MPI_T_event_instance, MPI_T_cb_safety, ...).
 *
 *      #include "mpi.h"                       // the MPI's header, first
 *      #include <mpitev/mpi_t_events.h>       // if mpi.h predates MPI-4 (MPI_VERSION < 4)
 *      #define MPITEV_ADAPTER_T_INITIALIZED() (my_mpit_refcount > 0)
 *      #define MPITEV_ADAPTER_IMPLEMENTATION
 *      #include <mpitev/adapter.h>
 *
 * The MPI's side, each stated in full once in docs/adapter-guide.md:
 *   - init/finalize: MPI_T_init_thread and MPI_Init each call mpitev_init, MPI_T_finalize
 *     and MPI_Finalize each call mpitev_finalize; declarations live for the process
 *     (declaring again in every init is a no-op);
 *   - link order: the adapter belongs inside the MPI library. In a separate shared
 *     library it must come before the MPI's library on the link line (or be preloaded),
 *     else the MPI's own MPI_T_event_* win silently;
 *   - the last MPI_T_finalize calls mpitev_adapter_t_finalize before dropping the MPI's
 *     last MPI_T reference (no tool code runs into a finalized interface);
 *   - enums and strings: the MPI's MPI_T_enum_get_info / _get_item call
 *     mpitev_adapter_enum_get_info / _get_item first; its other MPI_T string returns can
 *     use mpitev_adapter_string / _string_check (declared below).
 *
 * ============================ CONFIGURATION (implementation TU) ============================
 * Each hook is a function-like macro the MPI may define before including this header.
 * Only MPITEV_ADAPTER_T_INITIALIZED is required; every other one has a default that
 * uses nothing but standard names from mpi.h (MPI-3.1 names when MPI_VERSION < 4). An
 * MPI whose handles are pointers (Open MPI) should define MPITEV_ADAPTER_IS_HANDLE.
 *
 *   MPITEV_ADAPTER_T_INITIALIZED()         [required] non-zero while MPI_T is initialised
 *        (between the first MPI_T_init_thread and the matching last MPI_T_finalize).
 *        Every entry point returns MPI_T_ERR_NOT_INITIALIZED when it is zero. A plain
 *        load of the MPI's own MPI_T reference count, never a call (the instance
 *        functions run inside async-signal-safe callbacks): MPICH
 *        (MPIR_T_init_balance > 0), the toy (mpit_refcount > 0).
 *
 *   MPITEV_ADAPTER_OBJECT_KEY(bind, obj_handle, keyp)   -> MPI error code
 *        Turns MPI_T_event_handle_alloc's obj_handle (a pointer to the MPI's handle, e.g.
 *        MPI_Comm *, never NULL here) for an event type bound to `bind` (MPITEV_BIND_*)
 *        into the key the MPI passes to MPITEV_RAISE for that object; stores it in
 *        *keyp (const void **). Return MPI_SUCCESS, or e.g. MPI_T_ERR_INVALID_HANDLE
 *        for a handle the MPI does not know. Default: the handle value itself,
 *        MPITEV_ADAPTER_HANDLE_KEY(MPI_Comm, obj_handle) for MPITEV_BIND_MPI_COMM and
 *        likewise for Datatype, Errhandler, Op, Request, Info (types every mpi.h has);
 *        other kinds give MPI_T_ERR_INVALID. So by default the raise site passes
 *        MPITEV_ADAPTER_HANDLE_AS_KEY(comm).
 *
 *   MPITEV_ADAPTER_IS_HANDLE(bind, uintptr_t value)      -> non-zero if live
 *        Whether value, as a handle of kind bind ((MPI_Comm)value for
 *        MPITEV_BIND_MPI_COMM), is the handle of a live object. Must answer for any value
 *        without crashing (look it up; do not dereference it). When defined, the default
 *        object key also recognises a handle the tool passed by value (MPI_COMM_WORLD
 *        instead of &comm): obj_handle is tried as the handle first, then, if it is an
 *        aligned address above 64 KiB, the handle it points to; neither is
 *        MPI_T_ERR_INVALID_HANDLE (docs/adapter-guide.md, "Your handles are pointers").
 *
 *   MPITEV_ADAPTER_DATATYPE(dtype)         mpitev_dtype -> MPI_Datatype
 *        Default: the MPI basic datatype of the same name (MPI_INT8_T ..., MPI_CHAR for
 *        each byte of a MPITEV_DTYPE_CHAR_ARRAY, which tools see as one MPI_CHAR element
 *        per byte; MPI_AINT for MPITEV_DTYPE_UINTPTR, MPI_COUNT, MPI_OFFSET).
 *   MPITEV_ADAPTER_ENUM_TO_MPI(int type_index)               -> MPI_T_enum
 *   MPITEV_ADAPTER_ENUM_FROM_MPI(MPI_T_enum h, int *type_indexp) -> non-zero if h is
 *        mpitev's (then *type_indexp is set), 0 if it is one of the MPI's own enums.
 *        The MPI_T_enum MPI_T_event_get_info returns for an event type's enumtype (an
 *        enum with at least one item; else MPI_T_ENUM_NULL), which the helpers
 *        mpitev_adapter_enum_get_info / _get_item decode. Default: a tag and the type
 *        index through uintptr_t (an odd number below 2^31, never dereferenced); define
 *        both if that could be one of your own MPI_T_enum values.
 *   MPITEV_ADAPTER_ENUM(const mpitev_enum *e) -> MPI_T_enum (e is never NULL)
 *        Older hook, still honoured: an MPI that maps enums itself (and answers
 *        MPI_T_enum_get_info / _get_item for them) defines this instead; the helpers
 *        then recognise no handle unless MPITEV_ADAPTER_ENUM_FROM_MPI is also defined.
 *   MPITEV_ADAPTER_VERBOSITY(v), MPITEV_ADAPTER_BIND(b)   MPITEV_* -> MPI_T_*
 *        Default: the MPI_T_VERBOSITY_* / MPI_T_BIND_* constant of the same name, so
 *        MPIs that number them their own way (MPICH: 221.., 9700..) need nothing.
 *        MPITEV_BIND_MPI_SESSION maps to MPI_T_BIND_MPI_SESSION when that is a macro
 *        or MPITEV_ADAPTER_HAVE_BIND_SESSION is defined; else to MPI_T_BIND_NO_OBJECT.
 *
 *   Info objects. Defaults are the standard PMPI_Info_* calls:
 *   MPITEV_ADAPTER_INFO_CREATE(MPI_Info *info)
 *   MPITEV_ADAPTER_INFO_SET(MPI_Info info, const char *key, const char *value)
 *   MPITEV_ADAPTER_INFO_GET_NKEYS(MPI_Info info, int *nkeys)
 *   MPITEV_ADAPTER_INFO_GET_NTHKEY(MPI_Info info, int n, char key[MPI_MAX_INFO_KEY + 1])
 *   MPITEV_ADAPTER_INFO_GET_STRING(MPI_Info info, const char *key, int *buflen,
 *                                  char *value, int *flag)      (MPI-4 semantics;
 *        with MPI_VERSION < 4 the default uses PMPI_Info_get_valuelen and PMPI_Info_get)
 *   MPITEV_ADAPTER_INFO_FREE(MPI_Info *info)   (only to drop a half-built info on error)
 *   MPITEV_ADAPTER_INFO_IS_NULL(info)      default: (info) == MPI_INFO_NULL
 *        Each returns an MPI error code; a failure is reported as MPI_T_ERR_INVALID
 *        (reading the tool's info) or MPI_T_ERR_MEMORY (building a new info).
 *
 *   Handles. Defaults carry the core's 64-bit registration handle (slot + generation),
 *   and the 64-bit token naming an instance's delivery (adapter_handle.inc), inside the
 *   MPI's handle through uintptr_t; neither is ever dereferenced, so stale and random
 *   handles are detected. They need a 64-bit uintptr_t (checked).
 *   MPITEV_ADAPTER_REG_TO_MPI(uint64_t bits)          -> MPI_T_event_registration
 *   MPITEV_ADAPTER_REG_FROM_MPI(MPI_T_event_registration h) -> uint64_t
 *   MPITEV_ADAPTER_INSTANCE_TO_MPI(uint64_t token)    -> MPI_T_event_instance
 *   MPITEV_ADAPTER_INSTANCE_FROM_MPI(MPI_T_event_instance h) -> uint64_t
 *
 *   MPITEV_ADAPTER_EXPORT   linkage of the MPI_T_ / PMPI_T_ definitions. Default:
 *        default visibility on ELF (they are the MPI's public API even when the rest of
 *        the library is built with -fvisibility=hidden).
 *   MPITEV_ADAPTER_NO_WEAK  define on toolchains without weak symbols: MPI_T_x becomes a
 *        strong function calling PMPI_T_x (interposable only by dynamic linking).
 *   MPITEV_ADAPTER_MALLOC(n), MPITEV_ADAPTER_FREE(p)  scratch memory for converting
 *        info objects (default malloc/free). Never used inside event callbacks.
 * ===========================================================================================
 */
#ifndef MPITEV_ADAPTER_H
#define MPITEV_ADAPTER_H

#include "mpitev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Category helpers for the MPI's MPI_T_category_get_num_events / _get_events.
 *
 * The MPI owns its category numbering (its categories also hold cvars and pvars), so the
 * adapter does not define MPI_T_category_* itself. Event types name their category by
 * string (mpitev_type_desc.category); the MPI lists the event categories with
 * mpitev_category_get_num / mpitev_category_get_name (to create its categories) and
 * answers the two event queries of one of its categories by name with these.
 *
 * Both return MPI error codes (they are defined in the implementation TU, which has
 * mpi.h): MPI_SUCCESS, MPI_T_ERR_NOT_INITIALIZED, MPI_T_ERR_INVALID (NULL out pointer,
 * len < 0, indices NULL with len > 0). A NULL or unknown category name is not an error:
 * such a category simply holds no event types (0). */
MPITEV_API int mpitev_adapter_category_num_events(const char *category_name, int *num_events);
/* Writes up to len event indices of the category into indices[] (ascending; entries past
 * the count are left alone, as MPI_T_category_get_events requires); *num_events (may be
 * NULL) receives the total number of event types in the category. */
MPITEV_API int mpitev_adapter_category_events(const char *category_name, int len, int indices[],
                                              int *num_events);

/* Map an mpitev return code to the MPI's MPI_T error class (MPI_SUCCESS for 0). For an MPI
 * that calls the core directly from its own MPI_T code. */
MPITEV_API int mpitev_adapter_error(int mpitev_rc);

/* ---- The MPI_T string convention (MPI-3.1 14.3.3), for the MPI's own MPI_T code
 * (categories, cvars, enums).
 *
 * mpitev_adapter_string_check: check an OUT pair before writing anything: MPI_SUCCESS,
 * or MPI_T_ERR_INVALID for a buffer with a negative *len (return it as it is).
 * mpitev_adapter_string: return s (NULL: "") in buf/len. len NULL: nothing (buf ignored);
 * buf NULL or *len == 0: only the length; else at most *len - 1 characters and a null
 * terminator. *len becomes strlen(s) + 1 in every case, truncated or not. */
MPITEV_API int mpitev_adapter_string_check(const char *buf, const int *len);
MPITEV_API void mpitev_adapter_string(const char *s, char *buf, int *len);

/* ---- The last MPI_T_finalize (docs/adapter-guide.md section 10). Call it from your
 * MPI_T_finalize when the call is about to drop your last MPI_T reference, BEFORE you drop
 * it: it delivers what is buffered, frees every registration (their unreported drops are
 * reported) and runs pending free callbacks, at cb_safety (an MPITEV_CB_REQUIRE_* level:
 * what tool code may do where MPI_T_finalize was called), while tools may still use
 * MPI_T. Afterwards no tool code is called until the next MPI_T_init_thread. Returns an
 * MPI error code (MPI_T_ERR_NOT_INITIALIZED if MPI_T is not initialised). */
MPITEV_API int mpitev_adapter_t_finalize(int cb_safety);

#ifdef __cplusplus
}
#endif

/* Helpers for the object-key hook and raise sites: a handle value as a key, and the key
 * of the handle obj_handle points to. Work for integer and pointer handle types. */
#define MPITEV_ADAPTER_HANDLE_AS_KEY(h) ((const void *)(uintptr_t)(h))
#define MPITEV_ADAPTER_HANDLE_KEY(type, obj_handle) MPITEV_ADAPTER_HANDLE_AS_KEY(*(const type *)(obj_handle))

#endif /* MPITEV_ADAPTER_H */

/* ---- Element-name enums: helpers for the MPI's own MPI_T_enum_get_info / _get_item. They
 * take MPI_T_enum, so they are declared only when the MPI's mpi.h came first (guarded on
 * their own, for a TU that includes this header both before and after mpi.h); the
 * implementation TU defines them.
 *
 * Call them first; MPI_T_ERR_INVALID_INDEX means "not one of mpitev's handles": answer
 * from your own enums then. Otherwise the result is final: MPI_SUCCESS,
 * MPI_T_ERR_NOT_INITIALIZED, MPI_T_ERR_INVALID_ITEM (index outside [0, num)),
 * MPI_T_ERR_INVALID (num or value NULL, or a buffer with *name_len < 0). name/name_len
 * follow mpitev_adapter_string; nothing is written on failure.
 *
 *     int PMPI_T_enum_get_info(MPI_T_enum e, int *num, char *name, int *name_len) {
 *         if (!my_mpit_initialized) return MPI_T_ERR_NOT_INITIALIZED;
 *         int rc = mpitev_adapter_enum_get_info(e, num, name, name_len);
 *         return rc != MPI_T_ERR_INVALID_INDEX ? rc : my_enum_get_info(e, num, name, name_len);
 *     }
 */
#if defined(MPI_VERSION) && !defined(MPITEV__ADAPTER_MPI_DECLS)
#define MPITEV__ADAPTER_MPI_DECLS 1
#ifdef __cplusplus
extern "C" {
#endif
MPITEV_API int mpitev_adapter_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
MPITEV_API int mpitev_adapter_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                                            int *name_len);
#ifdef __cplusplus
}
#endif
#endif

/* ---- The implementation: outside the include guard, so a TU may include the header for
 * declarations first and define MPITEV_ADAPTER_IMPLEMENTATION later. ---- */
#if defined(MPITEV_ADAPTER_IMPLEMENTATION) && !defined(MPITEV__ADAPTER_IMPLEMENTED)
#define MPITEV__ADAPTER_IMPLEMENTED 1
/* Again, for a TU that included this header before defining MPITEV_IMPLEMENTATION: the
 * core's implementation also sits outside its include guard. */
#include "mpitev.h"
#if !defined(MPI_SUCCESS) || !defined(MPI_VERSION) || !defined(MPI_T_ERR_INVALID_HANDLE) || \
    !defined(MPI_T_ERR_NOT_INITIALIZED) || !defined(MPI_INFO_NULL)
#error "MPITEV_ADAPTER_IMPLEMENTATION: include your MPI's own mpi.h before <mpitev/adapter.h> (its MPI_T types, MPI_SUCCESS, MPI_T_ERR_* and MPI_INFO_NULL are needed)"
#endif
#if !defined(MPI_T_ERR_INVALID)
#error "MPITEV_ADAPTER_IMPLEMENTATION: mpi.h lacks MPI_T_ERR_INVALID: the adapter needs an MPI-3.1 mpi.h or later"
#endif
/* An mpi.h without the MPI-4 event interface (MPI_VERSION < 4, or MPITEV_MPI_HAS_T_EVENTS
 * 0) needs <mpitev/mpi_t_events.h> after it; that header records that it ran. */
#if !defined(MPITEV__MPI_T_EVENTS_DONE) && \
    ((defined(MPITEV_MPI_HAS_T_EVENTS) && !MPITEV_MPI_HAS_T_EVENTS) || (!defined(MPITEV_MPI_HAS_T_EVENTS) && MPI_VERSION < 4))
#error "MPITEV_ADAPTER_IMPLEMENTATION: this mpi.h predates MPI-4 (no MPI_T_event_registration, MPI_T_cb_safety, MPI_T_event_* ...): #include <mpitev/mpi_t_events.h> right after it, and let your tools see it too (docs/adapter-guide.md, \"Your mpi.h predates MPI-4\")"
#endif
#if !defined(MPITEV_ADAPTER_T_INITIALIZED)
#error "MPITEV_ADAPTER_IMPLEMENTATION: define MPITEV_ADAPTER_T_INITIALIZED() (non-zero while MPI_T is initialised) before including <mpitev/adapter.h>; see docs/adapter-guide.md"
#endif
#define MPITEV__INSIDE 1
#include "detail/adapter_config.inc"
#include "detail/adapter_util.inc"
#include "detail/adapter_enum.inc"
#include "detail/adapter_info.inc"
#include "detail/adapter_query.inc"
#include "detail/adapter_handle.inc"
#include "detail/adapter_instance.inc"
#include "detail/adapter_profiling.inc"
#undef MPITEV__INSIDE
#endif
