/* mpitev_minimal.c -- the smallest complete MPI_T event tool: counts the application's
 * messages (and their bytes) per source rank of MPI_COMM_WORLD from the catalogue's
 * message_arrived, and prints one line per process at MPI_Finalize. Standard MPI_T API
 * and PMPI only (no mpitev header): it runs on any MPI that raises message_arrived.
 *
 *   mpicc -std=c11 -shared -fPIC mpitev_minimal.c -o libmpitev_minimal.so
 *   LD_PRELOAD=./libmpitev_minimal.so mpiexec -n 4 ./prog
 *
 * Walked through in docs/tool-writers-guide.md ("Start here: a minimal tool"). Only
 * MPI_COMM_WORLD's messages are counted, numbered by world rank: a communicator the
 * application creates needs registrations of its own (examples/tools/common/tc_comms.c
 * follows them). */
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELEMS 32
static int rank, size, attached;
static MPI_T_event_registration reg;
static MPI_Datatype types[MAX_ELEMS];
static int el_source = -1, el_tag = -1, el_bytes = -1, width[MAX_ELEMS];
/* Updated by callbacks that may run in a signal handler or on any thread: lock-free atomics. */
static _Atomic long long *msgs, *bytes, mpi_own, dropped;
static atomic_int freed;

/* Bytes of a signed integer datatype (the catalogue's int32, int64, count), else 0. */
static int width_of(MPI_Datatype t)
{
    int n = 0;
    if (t == MPI_INT32_T || t == MPI_INT64_T || t == MPI_COUNT || t == MPI_INT || t == MPI_LONG ||
        t == MPI_LONG_LONG)
        PMPI_Type_size(t, &n);
    return n == 4 || n == 8 ? n : 0;
}

/* Element el of the instance, converted by its datatype's width. */
static long long read_int(MPI_T_event_instance ev, int el)
{
    union { int32_t i32; int64_t i64; } v;
    if (MPI_T_event_read(ev, el, &v) != MPI_SUCCESS)
        return -1;
    return width[el] == 4 ? v.i32 : v.i64;
}

static void on_arrived(MPI_T_event_instance ev, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    long long src = read_int(ev, el_source), tag = read_int(ev, el_tag), n = read_int(ev, el_bytes);
    (void)r, (void)s, (void)ud;
    if (tag < 0) { /* the MPI's own message: tag -2 (docs/event-catalogue.md) */
        atomic_fetch_add_explicit(&mpi_own, 1, memory_order_relaxed);
    } else if (src >= 0 && src < size) { /* the application's */
        atomic_fetch_add_explicit(&msgs[src], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&bytes[src], n, memory_order_relaxed);
    }
}

static void on_dropped(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety s, void *ud)
{
    (void)r, (void)source, (void)s, (void)ud;
    atomic_fetch_add_explicit(&dropped, (long long)count, memory_order_relaxed);
}

static void on_free(MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)r, (void)s, (void)ud;
    atomic_store_explicit(&freed, 1, memory_order_release);
}

static int not_attached(const char *why)
{
    if (rank == 0)
        fprintf(stderr, "mpitev_minimal: %s: not attached\n", why);
    MPI_T_finalize();
    return 0;
}

static int attach(void)
{
    int provided, idx, num = MAX_ELEMS, bind, items = 0, rc;
    MPI_T_enum elements;
    MPI_Comm world = MPI_COMM_WORLD;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return 0;
    if ((rc = MPI_T_event_get_index("message_arrived", &idx)) != MPI_SUCCESS)
        return not_attached(rc == MPI_T_ERR_INVALID_NAME ? "the MPI has no event type message_arrived "
                                                           "(MPI_T_ERR_INVALID_NAME)"
                                                         : "MPI_T_event_get_index failed");
    /* Elements by name: item k of the type's enum names element `value`. */
    if (MPI_T_event_get_info(idx, NULL, NULL, NULL, types, NULL, &num, &elements, NULL, NULL, NULL, &bind) ==
        MPI_SUCCESS)
        MPI_T_enum_get_info(elements, &items, NULL, NULL);
    for (int k = 0; k < items; k++) {
        char name[64];
        int value, len = (int)sizeof name;
        if (MPI_T_enum_get_item(elements, k, &value, name, &len) != MPI_SUCCESS || value < 0 ||
            value >= num || value >= MAX_ELEMS || !(width[value] = width_of(types[value])))
            continue;
        if (strcmp(name, "source") == 0) el_source = value;
        if (strcmp(name, "tag") == 0) el_tag = value;
        if (strcmp(name, "bytes") == 0) el_bytes = value;
    }
    if (el_source < 0 || el_tag < 0 || el_bytes < 0)
        return not_attached("message_arrived has no integer source, tag or bytes");
    msgs = calloc((size_t)size, sizeof *msgs);
    bytes = calloc((size_t)size, sizeof *bytes);
    /* A type bound to a communicator takes a pointer to it; an unbound one, NULL. */
    if (!msgs || !bytes ||
        MPI_T_event_handle_alloc(idx, bind == MPI_T_BIND_NO_OBJECT ? NULL : &world, MPI_INFO_NULL, &reg))
        return not_attached("cannot register on message_arrived");
    MPI_T_event_set_dropped_handler(reg, on_dropped); /* first, so that nothing is missed */
    if (MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, NULL,
                                      on_arrived) != MPI_SUCCESS) {
        MPI_T_event_handle_free(reg, NULL, NULL);
        return not_attached("cannot register a callback on message_arrived");
    }
    return attached = 1;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        attach();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        attach();
    return rc;
}

int MPI_Finalize(void)
{
    if (attached) {
        /* Free our registration and let the MPI progress until its free callback ran:
         * then no callback of ours runs any more, and the dropped count is final. */
        MPI_T_event_handle_free(reg, NULL, on_free);
        for (long spin = 0; !atomic_load_explicit(&freed, memory_order_acquire) && spin < 1000000; spin++) {
            int flag;
            PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        }
        printf("[rank %d] mpitev_minimal:", rank);
        for (int s = 0; s < size; s++)
            printf(" from %d: %lld msgs %lld bytes;", s, (long long)msgs[s], (long long)bytes[s]);
        printf(" the MPI's own: %lld; dropped: %lld%s\n", (long long)mpi_own, (long long)dropped,
               atomic_load(&freed) ? "" : " (free callback not run: counts may be incomplete)");
        fflush(stdout);
        MPI_T_finalize();
        attached = 0;
    }
    return PMPI_Finalize();
}
