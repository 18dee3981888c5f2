/* mpi_events.c - MPI_T events for an existing MPI, as an implementor starts: the mpitev
 * adapter over that MPI's own mpi.h (here Debian's MPICH 4.0.2, whose MPI_T_event_*
 * report no events), built into one shared library, libmpi_events.so.
 *
 * Inside a real MPI this file is one translation unit of the MPI library and the raise
 * sites are in its internals. Here PMPI wrappers stand in for those internals: the
 * library wraps MPI_Send / MPI_Recv (the two event types), MPI_Init / MPI_Finalize and
 * MPI_T_init_thread / MPI_T_finalize (the lifecycle) and MPI_T_enum_get_info / _get_item
 * (element names). Because it replaces MPICH's definitions by interposition, a program
 * must link it BEFORE -lmpich (or preload it); see README.md. */
#include <mpi.h>

#include <stdatomic.h>
#include <stdint.h>

/* ---- 1. MPI_T state. The adapter asks "is MPI_T initialised?" in every entry point,
 * including MPI_T_event_read inside async-signal-safe callbacks, so the hook must be a
 * plain load, never a call. We keep MPI_T's reference count ourselves by wrapping
 * MPI_T_init_thread / MPI_T_finalize (inside MPICH it would be MPIR_T_init_balance). */
static atomic_int t_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (atomic_load_explicit(&t_refcount, memory_order_relaxed) > 0)

/* The bound object's key is the MPI_Comm value, as by default, but MPICH's MPI_Comm is an
 * int and tools written for an MPI whose MPI_Comm is a pointer pass the handle itself as
 * obj_handle (MPI_COMM_WORLD, not &MPI_COMM_WORLD). MPICH's handle values are
 * recognisable (object kind 1, communicator, in bits 26-29; a non-zero handle type in
 * bits 30-31; below 2^32, where a 64-bit Linux process has no data a tool could point
 * to): take such a value as the handle itself, and dereference only what can point to
 * an MPI_Comm (docs/adapter-guide.md section 11). */
#include <mpitev/adapter.h> /* declarations only for now: the hook uses MPITEV_ names */
static int example_object_key(int bind, void *obj_handle, const void **key) {
    uintptr_t v = (uintptr_t)obj_handle;
    if (bind != MPITEV_BIND_MPI_COMM) return MPI_T_ERR_INVALID;
    if (v <= 0xffffffffu && ((v >> 26) & 0xfu) == 1u && (v >> 30) != 0u)
        *key = MPITEV_ADAPTER_HANDLE_AS_KEY((MPI_Comm)(unsigned)v); /* by value */
    else if (v < 4096u || v % _Alignof(MPI_Comm) != 0u)
        return MPI_T_ERR_INVALID_HANDLE;
    else
        *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Comm, obj_handle);
    return MPI_SUCCESS;
}
#define MPITEV_ADAPTER_OBJECT_KEY(b, h, k) example_object_key((b), (h), (k))

/* Every other hook keeps its default: MPICH's datatype/verbosity/bind constants by name,
 * PMPI_Info_* for info objects. */
#define MPITEV_IMPLEMENTATION         /* the core: in exactly one TU */
#define MPITEV_ADAPTER_IMPLEMENTATION /* the 18 MPI_T_event_* / MPI_T_source_* */
#include <mpitev/adapter.h>

/* ---- 2. The events, each spelled once: a list of (C type, element name, datatype).
 * mpitev's macros generate the payload struct, the element list (checked against the
 * struct), the element-name enum a tool reads, the type object and a typed raise. Both
 * types share one layout and bind to a communicator. */
#define EXAMPLE_P2P_FIELDS(X)                                                             \
    X(int32_t, peer, MPITEV_DTYPE_INT32)  /* destination (send) or source (recv) rank */  \
    X(int32_t, tag, MPITEV_DTYPE_INT32)                                                   \
    X(MPI_Count, bytes, MPITEV_DTYPE_COUNT) /* MPI_Count is 64-bit in MPICH */
MPITEV_EVENT_TYPE(example_send, EXAMPLE_P2P_FIELDS)
MPITEV_EVENT_TYPE(example_recv, EXAMPLE_P2P_FIELDS)
MPITEV_EVENT_DEFINE(example_send)
MPITEV_EVENT_DEFINE(example_recv)

static mpitev_source src; /* where and when events happen */
static const mpitev_source_desc src_desc = {
    .name = "example_app_threads",
    .desc = "application threads calling MPI_Send/MPI_Recv",
    .ordering = MPITEV_SOURCE_UNORDERED, /* any thread may raise (MPI_THREAD_MULTIPLE) */
};
#define P2P_META(DESC)                                                                    \
    ((mpitev_type_desc){ .desc = DESC, .verbosity = MPITEV_VERBOSITY_USER_BASIC,          \
                         .bind = MPITEV_BIND_MPI_COMM, .category = "example_p2p" })

/* ---- 3. Lifecycle. MPI_T_init_thread and MPI_Init each take a reference on the core,
 * MPI_T_finalize and MPI_Finalize each drop one; the core stays up while either MPI or
 * MPI_T is in use. Declaring is idempotent, so every init simply declares. */
static int events_init(void) {
    int rc = mpitev_init();
    if (rc != MPITEV_SUCCESS) return rc;
    /* Declarations live for the process: after the first init these are no-ops. */
    rc = mpitev_source_declare(&src, &src_desc);
    if (rc == MPITEV_SUCCESS) rc = example_send_declare(P2P_META("MPI_Send returned"));
    if (rc == MPITEV_SUCCESS) rc = example_recv_declare(P2P_META("MPI_Recv returned"));
    if (rc != MPITEV_SUCCESS) mpitev_finalize();
    return rc;
}

int MPI_T_init_thread(int required, int *provided) {
    int rc = PMPI_T_init_thread(required, provided);
    if (rc != MPI_SUCCESS) return rc;
    int erc = events_init();
    if (erc != MPITEV_SUCCESS) {
        PMPI_T_finalize(); /* all or nothing: the counts stay equal */
        return mpitev_adapter_error(erc);
    }
    atomic_fetch_add(&t_refcount, 1); /* last: the adapter answers only from here on */
    return MPI_SUCCESS;
}

/* The last MPI_T_finalize first ends every registration while the tool may still use
 * MPI_T (what is buffered is delivered, drops reported, pending free callbacks run), so
 * no tool code is called into a finalized interface; a call made by that tool code is one
 * too many. The level: tool code may call MPI between MPI_Init and MPI_Finalize. */
static int t_finalizing;
int MPI_T_finalize(void) {
    if (t_finalizing) return MPI_T_ERR_NOT_INITIALIZED;
    if (atomic_load(&t_refcount) == 1) {
        int init = 0, fin = 0;
        PMPI_Initialized(&init);
        PMPI_Finalized(&fin);
        t_finalizing = 1;
        (void)mpitev_adapter_t_finalize(init && !fin ? MPITEV_CB_REQUIRE_NONE : MPITEV_CB_REQUIRE_MPI_RESTRICTED);
        t_finalizing = 0;
    }
    int rc = PMPI_T_finalize(); /* MPICH rejects an unbalanced call: then so do we */
    if (rc != MPI_SUCCESS) return rc;
    atomic_fetch_sub(&t_refcount, 1);
    mpitev_finalize();
    return MPI_SUCCESS;
}

/* MPI itself: events are optional, so a failure here does not fail MPI_Init; the flag
 * remembers whether MPI_Finalize has a reference to drop. */
static int mpi_holds_events;
int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) mpi_holds_events = events_init() == MPITEV_SUCCESS;
    return rc;
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) mpi_holds_events = events_init() == MPITEV_SUCCESS;
    return rc;
}
int MPI_Finalize(void) {
    if (mpi_holds_events) mpitev_finalize(); /* first: pending free callbacks may call MPI */
    mpi_holds_events = 0;
    return PMPI_Finalize();
}

/* ---- 4. Raise sites. MPITEV_RAISE_EVENT evaluates its key and payload only when a
 * tool listens, so the work to fill them (PMPI_Type_size, PMPI_Get_count) costs nothing
 * otherwise. MPITEV_CB_REQUIRE_NONE: we are back in the application, where a tool's
 * callback may do anything, including calling MPI. */
static MPI_Count bytes_of(int count, MPI_Datatype datatype) {
    int size = 0;
    PMPI_Type_size(datatype, &size);
    return (MPI_Count)count * size;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    int rc = PMPI_Send(buf, count, datatype, dest, tag, comm);
    if (rc == MPI_SUCCESS)
        MPITEV_RAISE_EVENT(example_send, &src, MPITEV_ADAPTER_HANDLE_AS_KEY(comm), MPITEV_CB_REQUIRE_NONE,
                           dest, tag, bytes_of(count, datatype));
    return rc;
}

static MPI_Count received_bytes(const MPI_Status *status) {
    int n = 0;
    PMPI_Get_count(status, MPI_BYTE, &n);
    return n;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    MPI_Status local; /* the event reports the actual source and tag, even if the caller ignores them */
    if (status == MPI_STATUS_IGNORE) status = &local;
    int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    if (rc == MPI_SUCCESS)
        MPITEV_RAISE_EVENT(example_recv, &src, MPITEV_ADAPTER_HANDLE_AS_KEY(comm), MPITEV_CB_REQUIRE_NONE,
                           status->MPI_SOURCE, status->MPI_TAG, received_bytes(status));
    return rc;
}

/* ---- 5. Element names. MPI_T_event_get_info hands tools an MPI_T_enum for each event
 * type's enum; the MPI's own MPI_T_enum_get_info / _get_item ask mpitev first and answer
 * from their own enums (MPICH's cvar enums) when the handle is not mpitev's. */
int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len) {
    int rc = mpitev_adapter_enum_get_info(enumtype, num, name, name_len);
    return rc != MPI_T_ERR_INVALID_INDEX ? rc : PMPI_T_enum_get_info(enumtype, num, name, name_len);
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len) {
    int rc = mpitev_adapter_enum_get_item(enumtype, index, value, name, name_len);
    return rc != MPI_T_ERR_INVALID_INDEX ? rc : PMPI_T_enum_get_item(enumtype, index, value, name, name_len);
}
