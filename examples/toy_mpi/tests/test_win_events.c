/* test_win_events: the toy's one-sided events, checked the way a tool sees them: only the
 * standard MPI_T API of mpi.h (registrations made with MPI_T_event_handle_alloc on
 * &win), events and elements found by their catalogue names. Needs 2 or more ranks.
 *
 * Window A is created over a dup of MPI_COMM_WORLD ("parent"), window B over
 * MPI_COMM_WORLD. Every rank registers the ten one-sided types and win_free on A and on
 * B, win_create on parent and on MPI_COMM_WORLD, then runs a known pattern on A (a fence
 * epoch with a put, a get and two accumulates; an exclusive lock on its right neighbour
 * with a put and a flush; lock_all with a get from every rank and a flush_all) and other
 * traffic on B. It checks, per registration: the exact number of instances (nothing
 * dropped); every *_started has one *_complete with the same op_id and payload, later;
 * op_ids never 0 and never repeated; target_disp in bytes (displacement times
 * disp_unit); the operator codes; lock_acquired/_released in pairs inside their
 * sync_begin/_end; sync_begin/_end paired, in the order of the calls. Binding: nothing
 * of B's traffic reaches A's registrations nor A's B's; win_create reaches the
 * registration on the communicator the window was created over, with the window's key,
 * which win_free repeats; the object key function refuses freed windows, MPI_WIN_NULL
 * and communicators for window-bound types. Last, tool code that synchronizes or frees
 * a window under the call synchronizing it is refused. All deterministic: each event is delivered
 * before the call that raised it returns. */
#include <mpi.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toympi_check.h"

#define T_OK(call) CHECK_EQ_INT((call), MPI_SUCCESS)
#define MAXREC 64

/* catalogue codes (include/mpitev/catalog.h, docs/event-catalogue.md) */
enum { OP_SUM = 1, OP_REPLACE = 13, LOCK_EXCLUSIVE = 1, LOCK_SHARED = 2 };
enum { SYNC_FENCE = 1, SYNC_LOCK, SYNC_UNLOCK, SYNC_LOCK_ALL, SYNC_UNLOCK_ALL, SYNC_FLUSH,
       SYNC_FLUSH_ALL };

enum { F_DISP, F_BYTES, F_OP_ID, F_TARGET, F_OP, F_LOCK_TYPE, F_KIND, F_KEY, F_COMM_KEY,
       F_RANK, F_SIZE, F_PARENT_KEY, NF };
static const char *field_names[NF] = {"target_disp", "bytes", "op_id", "target", "op",
                                      "lock_type", "kind", "key", "comm_key", "rank", "size",
                                      "parent_key"};

struct rec {
    int64_t v[NF];
    long seq; /* delivery order across all registrations */
};
struct reg {
    const char *event;
    int index;
    int field[NF];
    MPI_Datatype dtype[NF];
    MPI_T_event_registration h;
    long delivered, dropped, freed;
    int nrec;
    struct rec rec[MAXREC];
};

static long next_seq;

static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h; (void)s;
    struct reg *r = ud;
    r->delivered++;
    if (r->nrec >= MAXREC)
        return;
    struct rec *x = &r->rec[r->nrec++];
    x->seq = next_seq++;
    for (int f = 0; f < NF; f++) {
        x->v[f] = INT64_MIN;
        unsigned char buf[16] = {0};
        if (r->field[f] < 0 || MPI_T_event_read(inst, r->field[f], buf) != MPI_SUCCESS)
            continue;
        if (r->dtype[f] == MPI_INT32_T) {
            int32_t v;
            memcpy(&v, buf, 4);
            x->v[f] = v;
        } else {
            memcpy(&x->v[f], buf, 8);
        }
    }
}
static void on_dropped(MPI_Count n, MPI_T_event_registration h, int src, MPI_T_cb_safety s,
                       void *ud)
{
    (void)h; (void)src; (void)s;
    ((struct reg *)ud)->dropped += (long)n;
}
static void on_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)h; (void)s;
    ((struct reg *)ud)->freed++;
}

/* Index, binding and element positions of the event, by name. */
static void describe(struct reg *r, const char *event, int bind_expected)
{
    memset(r, 0, sizeof *r);
    r->event = event;
    for (int f = 0; f < NF; f++)
        r->field[f] = -1;
    MPI_Datatype dt[16];
    MPI_Aint disp[16];
    int num = 16, bind = -1, n = 0;
    MPI_T_enum e = MPI_T_ENUM_NULL;
    T_OK(MPI_T_event_get_index(event, &r->index));
    T_OK(MPI_T_event_get_info(r->index, NULL, NULL, NULL, dt, disp, &num, &e, NULL, NULL, NULL,
                              &bind));
    CHECK_EQ_INT(bind, bind_expected);
    if (e == MPI_T_ENUM_NULL || MPI_T_enum_get_info(e, &n, NULL, NULL) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n && i < 16; i++) {
        char name[32];
        int len = (int)sizeof name, value = -1;
        T_OK(MPI_T_enum_get_item(e, i, &value, name, &len));
        for (int f = 0; f < NF; f++)
            if (strcmp(name, field_names[f]) == 0) {
                r->field[f] = value;
                r->dtype[f] = dt[value];
            }
    }
}

static void reg_alloc(struct reg *r, const char *event, int bind, void *obj)
{
    describe(r, event, bind);
    T_OK(MPI_T_event_handle_alloc(r->index, obj, MPI_INFO_NULL, &r->h));
    T_OK(MPI_T_event_set_dropped_handler(r->h, on_dropped));
    T_OK(MPI_T_event_register_callback(r->h, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, r, on_event));
}

/* ------------------------------------------------------------ per-window registrations */
enum { PUT_S, PUT_C, GET_S, GET_C, ACC_S, ACC_C, LOCK_A, LOCK_R, SYNC_B, SYNC_E, WFREE, NW };
static const char *win_events[NW] = {
    "put_started", "put_complete", "get_started", "get_complete", "accumulate_started",
    "accumulate_complete", "lock_acquired", "lock_released", "sync_begin", "sync_end",
    "win_free"};

static void register_window(struct reg *regs, MPI_Win *win)
{
    for (int i = 0; i < NW; i++)
        reg_alloc(&regs[i], win_events[i], MPI_T_BIND_MPI_WIN, win);
}

static int same_rma_payload(const struct rec *a, const struct rec *b)
{
    for (int f = F_DISP; f <= F_OP; f++)
        if (a->v[f] != b->v[f])
            return 0;
    return 1;
}

/* Every started has exactly one later complete with its op_id and payload. */
static void check_pairs(const struct reg *started, const struct reg *complete, long expected)
{
    CHECK_EQ_INT(started->delivered, expected);
    CHECK_EQ_INT(complete->delivered, expected);
    for (int i = 0; i < started->nrec; i++) {
        const struct rec *s = &started->rec[i];
        int found = 0;
        CHECK(s->v[F_OP_ID] != 0);
        for (int j = 0; j < complete->nrec; j++) {
            const struct rec *c = &complete->rec[j];
            if (c->v[F_OP_ID] != s->v[F_OP_ID])
                continue;
            found++;
            CHECK(same_rma_payload(s, c));
            CHECK(c->seq > s->seq);
        }
        CHECK_EQ_INT(found, 1);
    }
}

/* op_ids of all started events on a window are distinct (and those of another window
 * are none of them: check_disjoint). */
static int collect_ids(const struct reg *regs, int64_t *ids)
{
    int n = 0;
    for (int k = PUT_S; k <= ACC_S; k += 2)
        for (int i = 0; i < regs[k].nrec; i++)
            ids[n++] = regs[k].rec[i].v[F_OP_ID];
    return n;
}

static void check_ids(const struct reg *a, const struct reg *b)
{
    int64_t ia[3 * MAXREC], ib[3 * MAXREC];
    int na = collect_ids(a, ia), nb = collect_ids(b, ib);
    for (int i = 0; i < na; i++) {
        for (int j = i + 1; j < na; j++)
            CHECK(ia[i] != ia[j]);
        for (int j = 0; j < nb; j++)
            CHECK(ia[i] != ib[j]);
    }
}

/* sync_begin/_end: the expected kinds and targets, in order, each end after its begin. */
static void check_syncs(const struct reg *regs, const int (*want)[2], int n)
{
    const struct reg *b = &regs[SYNC_B], *e = &regs[SYNC_E];
    CHECK_EQ_INT(b->delivered, n);
    CHECK_EQ_INT(e->delivered, n);
    for (int i = 0; i < n && i < b->nrec && i < e->nrec; i++) {
        CHECK_EQ_INT(b->rec[i].v[F_KIND], want[i][0]);
        CHECK_EQ_INT(b->rec[i].v[F_TARGET], want[i][1]);
        CHECK_EQ_INT(e->rec[i].v[F_KIND], want[i][0]);
        CHECK_EQ_INT(e->rec[i].v[F_TARGET], want[i][1]);
        CHECK(b->rec[i].seq < e->rec[i].seq);
        if (i + 1 < b->nrec)
            CHECK(e->rec[i].seq < b->rec[i + 1].seq);
    }
}

/* The sync_begin/_end pair of the i-th call contains the seq. */
static int inside_sync(const struct reg *regs, int i, long seq)
{
    return regs[SYNC_B].rec[i].seq < seq && seq < regs[SYNC_E].rec[i].seq;
}

/* lock_acquired/_released: (target, type) in order, inside the lock's and the unlock's
 * synchronization calls (the calls' positions in the sync sequence). */
static void check_locks(const struct reg *regs, const int (*want)[2], const int (*sync_at)[2],
                        int n)
{
    const struct reg *a = &regs[LOCK_A], *r = &regs[LOCK_R];
    CHECK_EQ_INT(a->delivered, n);
    CHECK_EQ_INT(r->delivered, n);
    for (int i = 0; i < n && i < a->nrec && i < r->nrec; i++) {
        CHECK_EQ_INT(a->rec[i].v[F_TARGET], want[i][0]);
        CHECK_EQ_INT(a->rec[i].v[F_LOCK_TYPE], want[i][1]);
        CHECK_EQ_INT(r->rec[i].v[F_TARGET], want[i][0]);
        CHECK_EQ_INT(r->rec[i].v[F_LOCK_TYPE], want[i][1]);
        CHECK(inside_sync(regs, sync_at[i][0], a->rec[i].seq));
        CHECK(inside_sync(regs, sync_at[i][1], r->rec[i].seq));
    }
}

static void check_no_drops(const struct reg *regs, int n)
{
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(regs[i].dropped, 0);
}

/* Free, drive progress (whose drains run the free callbacks) until each ran, once. */
static void free_regs(struct reg *regs, int n)
{
    for (int i = 0; i < n; i++)
        T_OK(MPI_T_event_handle_free(regs[i].h, &regs[i], on_free));
    for (int spin = 0, done = 0; spin < 10000 && !done; spin++) {
        int flag;
        done = 1;
        for (int i = 0; i < n; i++)
            done &= regs[i].freed > 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(regs[i].freed, 1);
}

/* ------------------------------------------------------------ the pattern */
static int rank, size;
#define DISP_UNIT 4

/* On A (check_a knows what it raises). */
static void pattern_a(MPI_Win a, int right, int left)
{
    int v[2] = {rank, rank}, g = 0, all[16];
    MPI_OK(MPI_Win_fence(0, a));
    MPI_OK(MPI_Put(v, 2, MPI_INT, right, 3, 2, MPI_INT, a));
    MPI_OK(MPI_Get(&g, 1, MPI_INT, left, 5, 1, MPI_INT, a));
    MPI_OK(MPI_Accumulate(v, 1, MPI_INT, 0, 7, 1, MPI_INT, MPI_SUM, a));
    MPI_OK(MPI_Accumulate(v, 1, MPI_INT, right, 9, 1, MPI_INT, MPI_REPLACE, a));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, a));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, a));
    MPI_OK(MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, a));
    MPI_OK(MPI_Win_flush(right, a));
    MPI_OK(MPI_Win_unlock(right, a));
    MPI_OK(MPI_Win_lock_all(0, a));
    for (int t = 0; t < size; t++)
        MPI_OK(MPI_Get(&all[t], 1, MPI_INT, t, 1, 1, MPI_INT, a));
    MPI_OK(MPI_Win_flush_all(a));
    MPI_OK(MPI_Win_unlock_all(a));
}

/* On B: the same kinds of traffic, which A's registrations must not see. */
static void pattern_b(MPI_Win b, int right)
{
    int v = rank, g = 0;
    MPI_OK(MPI_Win_fence(0, b));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, b));
    MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, b));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, b));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, b));
    MPI_OK(MPI_Get(&g, 1, MPI_INT, right, 1, 1, MPI_INT, b));
    MPI_OK(MPI_Win_unlock(right, b));
}

static void check_a(const struct reg *ra, int right)
{
    check_pairs(&ra[PUT_S], &ra[PUT_C], 2);
    check_pairs(&ra[GET_S], &ra[GET_C], 1 + size);
    check_pairs(&ra[ACC_S], &ra[ACC_C], 2);
    if (ra[PUT_S].nrec == 2) { /* the fence epoch's put, then the locked one */
        CHECK_EQ_INT(ra[PUT_S].rec[0].v[F_DISP], 3 * DISP_UNIT);
        CHECK_EQ_INT(ra[PUT_S].rec[0].v[F_BYTES], 2 * sizeof(int));
        CHECK_EQ_INT(ra[PUT_S].rec[0].v[F_TARGET], right);
        CHECK_EQ_INT(ra[PUT_S].rec[0].v[F_OP], 0);
        CHECK_EQ_INT(ra[PUT_S].rec[1].v[F_DISP], 0);
    }
    if (ra[GET_S].nrec == 1 + size) {
        CHECK_EQ_INT(ra[GET_S].rec[0].v[F_DISP], 5 * DISP_UNIT);
        for (int t = 0; t < size; t++)
            CHECK_EQ_INT(ra[GET_S].rec[1 + t].v[F_TARGET], t);
    }
    if (ra[ACC_S].nrec == 2) {
        CHECK_EQ_INT(ra[ACC_S].rec[0].v[F_OP], OP_SUM);
        CHECK_EQ_INT(ra[ACC_S].rec[0].v[F_TARGET], 0);
        CHECK_EQ_INT(ra[ACC_S].rec[0].v[F_DISP], 7 * DISP_UNIT);
        CHECK_EQ_INT(ra[ACC_S].rec[1].v[F_OP], OP_REPLACE);
    }
    const int syncs[][2] = {{SYNC_FENCE, -1}, {SYNC_FENCE, -1},       {SYNC_LOCK, right},
                            {SYNC_FLUSH, right}, {SYNC_UNLOCK, right}, {SYNC_LOCK_ALL, -1},
                            {SYNC_FLUSH_ALL, -1}, {SYNC_UNLOCK_ALL, -1}};
    check_syncs(ra, syncs, 8);
    const int locks[][2] = {{right, LOCK_EXCLUSIVE}, {-1, LOCK_SHARED}};
    const int lock_syncs[][2] = {{2, 4}, {5, 7}}; /* acquired in lock, released in unlock */
    if (ra[SYNC_B].nrec == 8 && ra[SYNC_E].nrec == 8)
        check_locks(ra, locks, lock_syncs, 2);
    /* the fence epoch's operations complete inside the fence that ends it */
    for (int k = PUT_C; k <= ACC_C; k += 2)
        if (ra[k].nrec > 0 && ra[SYNC_E].nrec > 1)
            CHECK(ra[k].rec[0].seq < ra[SYNC_E].rec[1].seq);
}

static void check_b(const struct reg *rb, int right)
{
    check_pairs(&rb[PUT_S], &rb[PUT_C], 1);
    check_pairs(&rb[GET_S], &rb[GET_C], 1);
    check_pairs(&rb[ACC_S], &rb[ACC_C], 1);
    const int syncs[][2] = {{SYNC_FENCE, -1}, {SYNC_FENCE, -1}, {SYNC_LOCK, right},
                            {SYNC_UNLOCK, right}};
    check_syncs(rb, syncs, 4);
    const int locks[][2] = {{right, LOCK_SHARED}};
    const int lock_syncs[][2] = {{2, 3}};
    if (rb[SYNC_B].nrec == 4 && rb[SYNC_E].nrec == 4)
        check_locks(rb, locks, lock_syncs, 1);
}

/* Tool code on a window an MPI call is synchronizing: sync_begin of a fence is delivered
 * inside the fence's barrier (its own barrier frame must be read first), where
 * synchronizing or freeing the window is refused; win_free is delivered at once inside
 * MPI_Win_free, where a new operation is refused too. */
static MPI_Win tool_win;
static int tool_rc[3] = {-1, -1, -1};

static void tool_on_sync_begin(MPI_T_event_instance inst, MPI_T_event_registration h,
                               MPI_T_cb_safety s, void *ud)
{
    (void)inst; (void)h; (void)s; (void)ud;
    MPI_Win w = tool_win;
    tool_rc[0] = MPI_Win_fence(0, tool_win);
    tool_rc[1] = MPI_Win_free(&w);
}

static void tool_on_win_free(MPI_T_event_instance inst, MPI_T_event_registration h,
                             MPI_T_cb_safety s, void *ud)
{
    (void)inst; (void)h; (void)s; (void)ud;
    tool_rc[2] = MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, tool_win);
}

static void tool_code_on_window(void)
{
    int mem = 0, idx_sync, idx_free;
    MPI_T_event_registration hs, hf;
    MPI_OK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL, MPI_COMM_WORLD,
                          &tool_win));
    T_OK(MPI_T_event_get_index("sync_begin", &idx_sync));
    T_OK(MPI_T_event_get_index("win_free", &idx_free));
    T_OK(MPI_T_event_handle_alloc(idx_sync, &tool_win, MPI_INFO_NULL, &hs));
    T_OK(MPI_T_event_register_callback(hs, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                       tool_on_sync_begin));
    T_OK(MPI_T_event_handle_alloc(idx_free, &tool_win, MPI_INFO_NULL, &hf));
    T_OK(MPI_T_event_register_callback(hf, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                       tool_on_win_free));
    MPI_OK(MPI_Win_fence(0, tool_win));
    CHECK_EQ_INT(tool_rc[0], MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(tool_rc[1], MPI_ERR_RMA_SYNC);
    T_OK(MPI_T_event_handle_free(hs, NULL, NULL));
    MPI_OK(MPI_Win_free(&tool_win));
    CHECK_EQ_INT(tool_rc[2], MPI_ERR_RMA_SYNC);
    T_OK(MPI_T_event_handle_free(hf, NULL, NULL));
}

/* The object key function for window-bound types. */
static void check_keys(int put_index, MPI_Win freed, MPI_Win live)
{
    MPI_T_event_registration h;
    MPI_Win null = MPI_WIN_NULL;
    MPI_Comm world = MPI_COMM_WORLD;
    CHECK_EQ_INT(MPI_T_event_handle_alloc(put_index, &freed, MPI_INFO_NULL, &h),
                 MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(put_index, &null, MPI_INFO_NULL, &h),
                 MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(put_index, &world, MPI_INFO_NULL, &h),
                 MPI_T_ERR_INVALID_HANDLE);
    /* the handle by value, as tools written for pointer handles pass it */
    T_OK(MPI_T_event_handle_alloc(put_index, (void *)(uintptr_t)(unsigned)live, MPI_INFO_NULL,
                                  &h));
    T_OK(MPI_T_event_handle_free(h, NULL, NULL));
}

int main(int argc, char **argv)
{
    int provided;
    rank = check_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    /* the parent communicator; comm_create on MPI_COMM_WORLD tells its key */
    struct reg cc, wc_parent, wc_world;
    MPI_Comm world = MPI_COMM_WORLD, parent;
    reg_alloc(&cc, "comm_create", MPI_T_BIND_MPI_COMM, &world);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    CHECK_EQ_INT(cc.delivered, 1);
    int64_t parent_key = cc.rec[0].v[F_KEY];
    reg_alloc(&wc_parent, "win_create", MPI_T_BIND_MPI_COMM, &parent);
    reg_alloc(&wc_world, "win_create", MPI_T_BIND_MPI_COMM, &world);

    int mem_a[16] = {0}, mem_b[4] = {0};
    MPI_Win a, b;
    MPI_OK(MPI_Win_create(mem_a, sizeof mem_a, DISP_UNIT, MPI_INFO_NULL, parent, &a));
    MPI_OK(MPI_Win_create(mem_b, sizeof mem_b, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b));
    /* win_create: on the communicator it was created over, and there only */
    CHECK_EQ_INT(wc_parent.delivered, 1);
    CHECK_EQ_INT(wc_world.delivered, 1);
    int64_t key_a = wc_parent.rec[0].v[F_KEY], key_b = wc_world.rec[0].v[F_KEY];
    CHECK(key_a != key_b && key_a != 0 && key_b != 0);
    CHECK_EQ_INT(wc_parent.rec[0].v[F_COMM_KEY], parent_key);
    CHECK_EQ_INT(wc_parent.rec[0].v[F_BYTES], sizeof mem_a);
    CHECK_EQ_INT(wc_parent.rec[0].v[F_RANK], rank);
    CHECK_EQ_INT(wc_parent.rec[0].v[F_SIZE], size);
    CHECK_EQ_INT(wc_world.rec[0].v[F_COMM_KEY], 1); /* MPI_COMM_WORLD's key */

    struct reg ra[NW], rb[NW];
    register_window(ra, &a);
    register_window(rb, &b);
    pattern_a(a, right, left);
    pattern_b(b, right);
    check_a(ra, right);
    check_b(rb, right);
    check_ids(ra, rb);

    MPI_Win freed = a;
    MPI_OK(MPI_Win_free(&a));
    CHECK_EQ_INT(ra[WFREE].delivered, 1);
    CHECK_EQ_INT(rb[WFREE].delivered, 0);
    if (ra[WFREE].nrec == 1) {
        CHECK_EQ_INT(ra[WFREE].rec[0].v[F_KEY], key_a);
        CHECK_EQ_INT(ra[WFREE].rec[0].v[F_COMM_KEY], parent_key);
        CHECK_EQ_INT(ra[WFREE].rec[0].v[F_BYTES], sizeof mem_a);
    }
    check_keys(ra[PUT_S].index, freed, b);
    MPI_OK(MPI_Win_free(&b));
    CHECK_EQ_INT(rb[WFREE].delivered, 1);
    CHECK_EQ_INT(wc_parent.delivered, 1); /* nothing else was created over parent */
    check_no_drops(ra, NW);
    check_no_drops(rb, NW);
    free_regs(ra, NW);
    free_regs(rb, NW);
    T_OK(MPI_T_event_handle_free(cc.h, NULL, NULL));
    T_OK(MPI_T_event_handle_free(wc_parent.h, NULL, NULL));
    T_OK(MPI_T_event_handle_free(wc_world.h, NULL, NULL));
    MPI_OK(MPI_Comm_free(&parent));
    tool_code_on_window();
    T_OK(MPI_T_finalize());
    return check_finish("test_win_events");
}
