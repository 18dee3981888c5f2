/* The adapter on a real MPI: MPICH's own mpi.h (Debian's libmpich-dev), one TU playing the
 * MPI library (hooks + MPITEV_IMPLEMENTATION + MPITEV_ADAPTER_IMPLEMENTATION, the worked
 * example of docs/adapter-guide.md) and a tool using only the standard MPI_T API.
 *
 * MPICH 4.0.2 has its own MPI_T_event_* (reporting zero event types and sources); the
 * program's strong PMPI_T_ and weak MPI_T_ definitions must be the ones it uses, which
 * the counts prove. Exit 0 on success, 1 on failure (with a message). */
#include <mpi.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ================= The MPI side: what an MPICH developer would write. ================= */

/* MPI_T state: the hook is a plain load, never a call (it runs inside async-signal-safe
 * callbacks). MPICH's own count is private (inside MPICH: MPIR_T_init_balance > 0), so
 * this program keeps one by wrapping MPI_T_init_thread / MPI_T_finalize (below); being
 * in the executable, its definitions win over libmpich's. */
static int mpit_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (mpit_refcount > 0)
/* Everything else uses the defaults: MPICH's datatype, verbosity (221..) and bind (9700..)
 * names, PMPI_Info_* for info objects, and the MPI_Comm value as the object key. */

#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

int MPI_T_init_thread(int required, int *provided) {
    int rc = PMPI_T_init_thread(required, provided);
    if (rc == MPI_SUCCESS) mpit_refcount++;
    return rc;
}
int MPI_T_finalize(void) {
    int rc = PMPI_T_finalize();
    if (rc == MPI_SUCCESS) mpit_refcount--;
    return rc;
}

struct demo_msg { int32_t peer; int32_t tag; int64_t bytes; };
static const mpitev_element demo_msg_elems[] = {
    MPITEV_ELEMENT_OF(struct demo_msg, peer, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct demo_msg, tag, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct demo_msg, bytes, MPITEV_DTYPE_INT64),
};
struct demo_comm { double t; uint8_t phase; };
static const mpitev_element demo_comm_elems[] = {
    MPITEV_ELEMENT_OF(struct demo_comm, t, MPITEV_DTYPE_DOUBLE),
    MPITEV_ELEMENT_OF(struct demo_comm, phase, MPITEV_DTYPE_UINT8),
};
static mpitev_type ev_msg, ev_comm;
static mpitev_source src_main;

static int declare_events(void) {
    int rc = mpitev_init();
    if (!rc) rc = mpitev_source_declare(&src_main, &(mpitev_source_desc){
        .name = "mpich_demo_main", .desc = "the demo's only thread", .ordering = MPITEV_SOURCE_ORDERED });
    if (!rc) rc = mpitev_type_declare(&ev_msg, &(mpitev_type_desc){
        .name = "mpich_demo_msg", .desc = "a message left for a peer", .verbosity = MPITEV_VERBOSITY_USER_BASIC,
        .bind = MPITEV_BIND_NO_OBJECT, .category = "mpich_demo", .num_elements = 3, .elements = demo_msg_elems,
        .payload_size = sizeof(struct demo_msg) });
    if (!rc) rc = mpitev_type_declare(&ev_comm, &(mpitev_type_desc){
        .name = "mpich_demo_comm", .verbosity = MPITEV_VERBOSITY_TUNER_DETAIL, .bind = MPITEV_BIND_MPI_COMM,
        .category = "mpich_demo", .num_elements = 2, .elements = demo_comm_elems,
        .payload_size = sizeof(struct demo_comm) });
    return rc;
}

static void raise_msg(int32_t peer, int32_t tag, int64_t bytes) {
    MPITEV_RAISE(&ev_msg, &src_main, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE, &(struct demo_msg){ peer, tag, bytes });
}
static void raise_comm(MPI_Comm comm, double t, uint8_t phase) {
    MPITEV_RAISE(&ev_comm, &src_main, MPITEV_ADAPTER_HANDLE_AS_KEY(comm), MPITEV_CB_REQUIRE_NONE,
                 &(struct demo_comm){ t, phase });
}

/* ================= The tool side: the standard API only. ================= */

static int failures;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "mpich_adapter: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS)

typedef struct { int n; struct demo_msg last; MPI_Count ts; int source; MPI_T_cb_safety safety; } msg_seen;
static void on_msg(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg;
    msg_seen *s = ud;
    s->n++;
    s->safety = safety;
    OK(MPI_T_event_read(inst, 0, &s->last.peer));
    OK(MPI_T_event_read(inst, 1, &s->last.tag));
    OK(MPI_T_event_read(inst, 2, &s->last.bytes));
    struct demo_msg copy;
    OK(MPI_T_event_copy(inst, &copy));
    CHECK(copy.peer == s->last.peer && copy.tag == s->last.tag && copy.bytes == s->last.bytes);
    OK(MPI_T_event_get_timestamp(inst, &s->ts));
    OK(MPI_T_event_get_source(inst, &s->source));
}

static int comm_seen;
static void on_comm(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety; (void)ud;
    double t;
    uint8_t phase;
    OK(MPI_T_event_read(inst, 0, &t));
    OK(MPI_T_event_read(inst, 1, &phase));
    CHECK(t == 2.5 && phase == 7);
    comm_seen++;
}

static int freed;
static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety;
    CHECK(ud == &freed);
    freed++;
}

static void tool(void) {
    int n = -1, provided, idx_msg = -1, idx_comm = -1;
    /* Not initialised yet: the adapter says so. */
    CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

    /* Ours, not MPICH's (which reports 0 event types and 0 sources). */
    OK(MPI_T_event_get_num(&n));
    CHECK(n == 2);
    OK(MPI_T_source_get_num(&n));
    CHECK(n == 1);
    printf("MPI_T_event_get_num: 2 event types, MPI_T_source_get_num: 1 source (the adapter's)\n");

    OK(MPI_T_event_get_index("mpich_demo_msg", &idx_msg));
    OK(MPI_T_event_get_index("mpich_demo_comm", &idx_comm));
    CHECK(MPI_T_event_get_index("nope", &n) == MPI_T_ERR_INVALID_NAME);

    /* Metadata in MPICH's own constants. */
    char name[64], desc[64];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, num = 4, bind;
    MPI_Datatype dt[4];
    MPI_Aint disp[4];
    MPI_T_enum en;
    MPI_Info info;
    OK(MPI_T_event_get_info(idx_msg, name, &name_len, &verbosity, dt, disp, &num, &en, &info, desc, &desc_len, &bind));
    CHECK(strcmp(name, "mpich_demo_msg") == 0 && name_len == (int)strlen("mpich_demo_msg") + 1);
    CHECK(verbosity == MPI_T_VERBOSITY_USER_BASIC);
    CHECK(num == 3 && dt[0] == MPI_INT32_T && dt[1] == MPI_INT32_T && dt[2] == MPI_INT64_T);
    CHECK(disp[0] == 0 && disp[1] == 4 && disp[2] == 8);
    CHECK(en == MPI_T_ENUM_NULL);
    CHECK(strcmp(desc, "a message left for a peer") == 0);
    CHECK(bind == MPI_T_BIND_NO_OBJECT);
    int nkeys = -1;
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys >= 1); /* the registration defaults (mpitev_buffered) */
    OK(MPI_Info_free(&info));
    desc_len = sizeof desc;
    num = 4;
    OK(MPI_T_event_get_info(idx_comm, NULL, NULL, &verbosity, dt, NULL, &num, NULL, NULL, desc, &desc_len, &bind));
    CHECK(verbosity == MPI_T_VERBOSITY_TUNER_DETAIL && bind == MPI_T_BIND_MPI_COMM);
    CHECK(num == 2 && dt[0] == MPI_DOUBLE && dt[1] == MPI_UINT8_T);
    CHECK(desc[0] == '\0' && desc_len == 1);

    MPI_T_source_order order;
    MPI_Count tps, max_ticks, now;
    OK(MPI_T_source_get_info(0, name, &name_len, NULL, NULL, &order, &tps, &max_ticks, NULL));
    CHECK(order == MPI_T_SOURCE_ORDERED && tps == 1000000000);
    OK(MPI_T_source_get_timestamp(0, &now));

    /* An unbound registration with a callback. */
    msg_seen s = { 0 };
    MPI_T_event_registration reg_msg;
    OK(MPI_T_event_handle_alloc(idx_msg, NULL, MPI_INFO_NULL, &reg_msg));
    OK(MPI_T_event_register_callback(reg_msg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &s, on_msg));
    raise_msg(3, 99, 4096);
    CHECK(s.n == 1 && s.last.peer == 3 && s.last.tag == 99 && s.last.bytes == 4096);
    CHECK(s.ts >= now && s.source == 0 && s.safety == MPI_T_CB_REQUIRE_THREAD_SAFE);
    printf("event seen through MPI_T_event_read: peer=%d tag=%d bytes=%" PRId64 " ts=%lld\n", (int)s.last.peer,
           (int)s.last.tag, s.last.bytes, (long long)s.ts);

    /* A registration bound to MPI_COMM_WORLD, with hints in MPICH's own MPI_Info. */
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_T_event_registration reg_comm;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "demo_hint", "on"));
    OK(MPI_T_event_handle_alloc(idx_comm, &world, info, &reg_comm));
    OK(MPI_Info_free(&info));
    OK(MPI_T_event_register_callback(reg_comm, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_comm));
    OK(MPI_T_event_handle_get_info(reg_comm, &info));
    char value[16];
    int vlen = sizeof value, flag = 0;
    OK(MPI_Info_get_string(info, "demo_hint", &vlen, value, &flag));
    CHECK(flag && strcmp(value, "on") == 0);
    OK(MPI_Info_free(&info));
    raise_comm(MPI_COMM_SELF, 2.5, 7);  /* another communicator: not for us */
    raise_comm(MPI_COMM_WORLD, 2.5, 7);
    CHECK(comm_seen == 1);

    /* Handles: freed and random ones are detected. */
    OK(MPI_T_event_handle_free(reg_msg, &freed, on_free));
    OK(MPI_T_event_handle_free(reg_comm, &freed, on_free));
    CHECK(MPI_T_event_handle_free(reg_msg, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_event_set_dropped_handler((MPI_T_event_registration)(uintptr_t)0x5eed5eed1234ull, NULL) ==
          MPI_T_ERR_INVALID_HANDLE);
    (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    CHECK(freed == 2);
    raise_msg(0, 0, 0);
    CHECK(s.n == 1);

    OK(MPI_T_finalize());
    CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
}

int main(int argc, char **argv) {
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "mpich_adapter: MPI_Init failed\n");
        return 1;
    }
    if (declare_events() != MPITEV_SUCCESS) {
        fprintf(stderr, "mpich_adapter: declaring the events failed\n");
        failures++;
    } else {
        tool();
    }
    mpitev_finalize();
    MPI_Finalize();
    if (failures) fprintf(stderr, "mpich_adapter: %d check(s) failed\n", failures);
    else printf("mpich_adapter: OK\n");
    return failures ? 1 : 0;
}
