/* test_events.c -- Open MPI 4.1 + mpitev's MPI_T events, checked the way a tool sees them:
 * only the standard MPI_T API of Open MPI's mpi.h, no mpitev header. The event types are
 * the mpitev catalogue's (include/mpitev/catalog.h: names, element names and order,
 * bindings, conventions). Needs 2 or more ranks. The recording and the phases that do not
 * depend on the MPI are integrations/common's (mpit_record.h, mpit_pattern.h), shared
 * with integrations/mpich's test.
 *
 * usage: mpirun -n N test_events [disabled] [multiple]
 *   disabled  Open MPI + mpitev configured --disable-mpit-events: every type and source is
 *             there and registrations work, but nothing is ever raised
 *   multiple  MPI_Init_thread(MPI_THREAD_MULTIPLE), and a second thread on every rank
 *             exchanges messages on its own communicator meanwhile
 *
 * 1. Before MPI_Init: the event types, sources, a nested MPI_T init/finalize, and
 *    registrations on MPI_COMM_WORLD and MPI_COMM_SELF that see their comm_create,
 *    raised in MPI_Init (keys 1 and 2, parent_key 0), also at MPI_T_CB_REQUIRE_NONE.
 * 2. Enums: every type's element names, through Open MPI's MPI_T_enum_get_*, with their
 *    error codes. The sources: "ompi_pml" ordered, the others unordered, one clock
 *    (CLOCK_MONOTONIC in nanoseconds; ticks over 50 ms agree with MPI_Wtime within 10 %).
 * 3. A pattern on a dup of MPI_COMM_WORLD, rank 0 -> rank 1, through ob1's PERUSE hooks:
 *    three messages that arrive before rank 1 posts receives (unexpected), a probe with
 *    wildcards, two messages after the receives are posted, a cancelled receive; then the
 *    same tags on MPI_COMM_WORLD. Each rank registers for the matching and transfer
 *    events on the dup and checks: the exact counts, the payloads (read by element name:
 *    a message's events share its seq, a receive's its request_id, wildcards are -1,
 *    queue_length -1), that nothing of MPI_COMM_WORLD's traffic reaches them,
 *    non-decreasing timestamps per ordered source, free callbacks exactly once, no drops.
 *    message_arrived's callback runs at MPI_T_CB_REQUIRE_NONE and calls MPI_Iprobe,
 *    re-entering MPI inside the delivery (a drain from opal_progress or a call's exit).
 *    The sender sees send_posted and request_complete for each message, with the sizes.
 * 4. comm_create is bound to the communicator of the creating call (the parent): a tool
 *    registered there sees the new communicator's creation, with its key, parent_key,
 *    rank and size; comm_free, bound to the communicator itself, the same payload. Dup,
 *    split, idup, split_type, a Cartesian communicator; a window's internal
 *    communicator is never announced; keys are never reused. A freed communicator's
 *    handle is MPI_T_ERR_INVALID_HANDLE. A window: win_create bound to its communicator
 *    (key, comm_key, bytes, rank, size), win_free bound to the window, registered by
 *    reference and by value (skipped where no one-sided component serves: over TCP
 *    with MPI_THREAD_MULTIPLE). */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_check.h"
#include "mpit_record.h"
#include "mpit_pattern.h"

/* ---------------------------------------------------------------- 2. enums, sources */
static const char *const all_events[] = {
    "message_arrived",  "search_posted_begin", "search_posted_end", "search_unexpected_begin",
    "search_unexpected_end", "posted_insert",  "posted_remove",     "unexpected_insert",
    "unexpected_remove", "send_posted",        "recv_posted",       "transfer_begin",
    "transfer_end",     "request_complete",    "request_cancel",    "comm_create",
    "comm_free",
    "win_create",       "win_free",            "put_started",       "put_complete",
    "get_started",      "get_complete",        "accumulate_started", "accumulate_complete",
    "lock_acquired",    "lock_released",       "sync_begin",        "sync_end"};
#define NALL ((int)(sizeof all_events / sizeof all_events[0]))
#define L_ARRIVED "bytes seq source tag"
#define L_SEARCH "seq request_id source tag queue_length found"
#define L_POSTED "request_id source tag queue_length"
#define L_UNEXPECTED "bytes seq source tag queue_length"
#define L_REQUEST "bytes request_id peer tag is_send"
#define L_CANCEL "request_id peer tag is_send cancelled"
#define L_COMM "key parent_key rank size"
#define L_WIN "key comm_key bytes rank size"
#define L_RMA "target_disp bytes op_id target op"
#define L_LOCK "target lock_type"
#define L_SYNC "kind target"
static const char *const all_elements[NALL] = {
    L_ARRIVED, L_SEARCH, L_SEARCH, L_SEARCH, L_SEARCH, L_POSTED, L_POSTED, L_UNEXPECTED,
    L_UNEXPECTED, L_REQUEST, L_REQUEST, L_REQUEST, L_REQUEST, L_REQUEST, L_CANCEL, L_COMM, L_COMM,
    L_WIN,     L_WIN,        L_RMA,    L_RMA,    L_RMA,    L_RMA,    L_RMA,   L_RMA,
    L_LOCK,    L_LOCK,       L_SYNC,   L_SYNC};

/* win_free and the one-sided family (after it in the list) are bound to the window;
 * everything else to a communicator */
static int bind_of(int i)
{
    return i >= NALL - 11 ? MPI_T_BIND_MPI_WIN : MPI_T_BIND_MPI_COMM;
}

static void check_types_enums_sources(void)
{
    check_event_types(all_events, all_elements, NALL, bind_of);

    /* sources: ompi_pml ordered; ompi_pml_mt, ompi_comm and ompi_osc unordered; one clock */
    int nsrc = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK_EQ(nsrc, 4);
    for (int s = 0; s < nsrc && s < 16; s++) {
        char sn[32];
        int sl = (int)sizeof sn;
        MPI_T_source_order order;
        MPI_Count tps = 0, max_ticks = 0;
        T_OK(MPI_T_source_get_info(s, sn, &sl, NULL, NULL, &order, &tps, &max_ticks, NULL));
        ordered[s] = order == MPI_T_SOURCE_ORDERED;
        CHECK_EQ(ordered[s], strcmp(sn, "ompi_pml") == 0);
        CHECK(strcmp(sn, "ompi_pml") == 0 || strcmp(sn, "ompi_pml_mt") == 0 ||
              strcmp(sn, "ompi_comm") == 0 || strcmp(sn, "ompi_osc") == 0);
        CHECK(max_ticks > 0);
        CHECK_EQ(tps, 1000000000);
    }
}

/* MPI_T_category_get_num_events / _get_events: every type in exactly one category, the
 * group of what raises it (the PML's types, then the communicator and window types, then
 * the one-sided family, in all_events' order); entries past len left alone. */
static const char *expected_category(int i)
{
    return i < NALL - 14 ? "ompi_pml_ob1" : i < NALL - 10 ? "ompi_mpi" : "ompi_osc";
}
static void check_categories(void)
{
    int ncat = 0, total = 0, want[NALL], seen[NALL] = {0};
    T_OK(MPI_T_category_get_num(&ncat));
    for (int i = 0; i < NALL; i++) {
        int idx = -1;
        T_OK(MPI_T_event_get_index(all_events[i], &idx));
        CHECK(idx >= 0 && idx < NALL);
        if (idx >= 0 && idx < NALL)
            want[idx] = i;
    }
    for (int c = 0; c < ncat; c++) {
        int n = -1, ind[NALL + 1];
        char cn[128];
        int cl = (int)sizeof cn;
        /* Open MPI keeps the indices of the groups of components it closed: invalid */
        int rc = MPI_T_category_get_info(c, cn, &cl, NULL, NULL, NULL, NULL, NULL);
        if (rc == MPI_T_ERR_INVALID_INDEX) {
            CHECK_EQ(MPI_T_category_get_num_events(c, &n), MPI_T_ERR_INVALID_INDEX);
            CHECK_EQ(MPI_T_category_get_events(c, 0, NULL), MPI_T_ERR_INVALID_INDEX);
            continue;
        }
        T_OK(rc);
        T_OK(MPI_T_category_get_num_events(c, &n));
        CHECK(n >= 0 && n <= NALL);
        if (n <= 0 || n > NALL)
            continue;
        ind[n - 1] = -7;
        T_OK(MPI_T_category_get_events(c, n - 1, ind));
        CHECK_EQ(ind[n - 1], -7);
        T_OK(MPI_T_category_get_events(c, n, ind));
        for (int k = 0; k < n; k++) {
            CHECK(ind[k] >= 0 && ind[k] < NALL);
            if (ind[k] < 0 || ind[k] >= NALL)
                continue;
            seen[ind[k]]++;
            CHECK(strcmp(cn, expected_category(want[ind[k]])) == 0);
        }
        total += n;
    }
    CHECK_EQ(total, NALL);
    for (int i = 0; i < NALL; i++)
        CHECK_EQ(seen[i], 1);
    int n;
    CHECK_EQ(MPI_T_category_get_num_events(ncat, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ(MPI_T_category_get_num_events(-1, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ(MPI_T_category_get_num_events(0, NULL), MPI_T_ERR_INVALID);
    CHECK_EQ(MPI_T_category_get_events(ncat, 0, NULL), MPI_T_ERR_INVALID_INDEX);
}

/* ---------------------------------------------------------------- 3. the pattern */
/* the PML's types (NQREG of them, freed after phase 3: the collectives of phase 4 on the
 * dup send Open MPI's own messages), then the dup's communicator types (freed after
 * phase 4) */
enum { R_ARRIVED, R_P_ENQ, R_P_DEQ, R_SP_BEGIN, R_SP_END, R_SU_BEGIN, R_SU_END, R_UX_INS,
       R_UX_REM, R_SEND_POSTED, R_RECV_POSTED, R_XFER_BEGIN, R_XFER_END, R_COMPLETE, R_CANCEL,
       NQREG,
       R_COMM_FREED = NQREG, R_COMM_CREATED, NREG };
static const char *reg_events[NREG] = {
    "message_arrived",   "posted_insert",     "posted_remove",   "search_posted_begin",
    "search_posted_end", "search_unexpected_begin", "search_unexpected_end",
    "unexpected_insert", "unexpected_remove", "send_posted",     "recv_posted",
    "transfer_begin",    "transfer_end",      "request_complete", "request_cancel",
    "comm_free",         "comm_create"};
static struct reg pre[3], regs[NREG], world_arrived, byval;
static int multiple, disabled;

/* Phase 3's registrations on dup: every type of reg_events, message_arrived at NONE
 * re-entering MPI, the others at ASYNC_SIGNAL_SAFE; MPI_COMM_WORLD's message_arrived;
 * message_arrived again with the handle passed by value (MPI_Comm is a pointer: this
 * compiles), taken as the handle; the error paths of the object argument. */
static void register_pattern(MPI_Comm *dup)
{
    MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;
    for (int i = 0; i < NREG; i++)
        reg_alloc(&regs[i], reg_events[i], dup,
                  i == R_ARRIVED ? MPI_T_CB_REQUIRE_NONE : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    regs[R_ARRIVED].reenter = 1;
    reg_alloc(&world_arrived, "message_arrived", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    reg_alloc(&byval, "message_arrived", (void *)*dup, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_T_event_registration bad;
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &null, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, NULL, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID);
}

/* Everything bound to the dup is about the dup: its tags only (nothing of
 * MPI_COMM_WORLD's barrier, of D, of the second thread's communicator); the catalogue's
 * conventions (queue_length -1: ob1 does not count; found -1 at a search's begin);
 * searches in pairs; nothing dropped. */
static void check_bound_to_dup(void)
{
    for (int i = 0; i < NQREG; i++) {
        if (regs[i].dropped)
            fprintf(stderr, "[rank %d] %s: %ld dropped\n", my_rank, regs[i].event, regs[i].dropped);
        CHECK_EQ(regs[i].dropped, 0); /* buffered, big enough, a safe drain level */
        for (int k = 0; k < regs[i].nrec; k++) {
            int64_t t = regs[i].rec[k].v[F_TAG];
            CHECK(dup_tag(t) || t == -1);
            if (regs[i].rec[k].v[F_BYTES] != INT64_MIN)
                CHECK(regs[i].rec[k].v[F_BYTES] != D_BYTES);
            if (regs[i].field[F_QLEN] >= 0)
                CHECK_EQ(regs[i].rec[k].v[F_QLEN], -1);
        }
    }
    const struct reg *sp_b = &regs[R_SP_BEGIN], *sp_e = &regs[R_SP_END];
    const struct reg *su_b = &regs[R_SU_BEGIN], *su_e = &regs[R_SU_END];
    CHECK_EQ(sp_b->nrec, sp_e->nrec);
    CHECK_EQ(su_b->nrec, su_e->nrec);
    for (int i = 0; i < sp_b->nrec && i < sp_e->nrec; i++) {
        CHECK_EQ(sp_b->rec[i].v[F_SEQ], sp_e->rec[i].v[F_SEQ]);
        CHECK_EQ(sp_b->rec[i].v[F_FOUND], -1);
        CHECK_EQ(sp_b->rec[i].v[F_REQ], 0);
    }
    for (int i = 0; i < su_b->nrec; i++) {
        CHECK_EQ(su_b->rec[i].v[F_FOUND], -1);
        CHECK_EQ(su_b->rec[i].v[F_SEQ], 0);
        if (i < su_e->nrec)
            CHECK_EQ(su_b->rec[i].v[F_REQ], su_e->rec[i].v[F_REQ]);
    }
}

/* The receiver's matching events (rank 1): A and B, five arrivals, three of them
 * unexpected, two matched posted receives. */
static void check_receiver_matching(void)
{
    const struct reg *sp_e = &regs[R_SP_END], *su_b = &regs[R_SU_BEGIN], *su_e = &regs[R_SU_END];
    int arrived = regs[R_ARRIVED].nrec;
    CHECK_EQ(arrived, 5);
    CHECK_EQ(byval.nrec, 5); /* the registration made with the handle by value */
    CHECK_EQ(regs[R_UX_INS].nrec, 3);
    CHECK_EQ(regs[R_UX_REM].nrec, 3);
    int64_t seq[5] = {0};
    for (int i = 0; i < arrived && i < 5; i++) {
        const struct rec *x = &regs[R_ARRIVED].rec[i];
        seq[i] = x->v[F_SEQ];
        CHECK(seq[i] != 0);
        for (int k = 0; k < i; k++) /* a seq identifies one message */
            CHECK(seq[i] != seq[k]);
        CHECK_EQ(x->v[F_SOURCE], 0);
        CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
        CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
        /* each arrival searched the posted queue once, with its seq */
        CHECK_EQ(count_where(sp_e, F_SEQ, seq[i]), 1);
    }
    for (int i = 0; i < regs[R_UX_INS].nrec && i < 3; i++) {
        const struct rec *x = &regs[R_UX_INS].rec[i];
        CHECK_EQ(x->v[F_TAG], a_tags[i]);
        CHECK_EQ(x->v[F_SEQ], seq[i]);
        CHECK_EQ(x->v[F_BYTES], a_bytes[i]);
        CHECK_EQ(x->v[F_SOURCE], 0);
        /* removed once, with its seq and size: the receive's search found it */
        const struct rec *rm = first_where(&regs[R_UX_REM], F_SEQ, seq[i]);
        CHECK(rm != NULL);
        if (rm) {
            CHECK_EQ(rm->v[F_TAG], a_tags[i]);
            CHECK_EQ(rm->v[F_BYTES], a_bytes[i]);
            CHECK(x->order < rm->order);
        }
        /* found by the probe (the first) and by its receive */
        CHECK_EQ(count_where(su_e, F_SEQ, seq[i]), i == 0 ? 2 : 1);
    }
    CHECK_EQ(regs[R_P_ENQ].nrec, 3); /* B's two and the cancelled one */
    CHECK_EQ(regs[R_P_DEQ].nrec, 3); /* matched (2) or cancelled (1) */
    for (int i = 0; i < regs[R_P_ENQ].nrec; i++) {
        const struct rec *x = &regs[R_P_ENQ].rec[i];
        CHECK(x->v[F_REQ] != 0);
        CHECK_EQ(x->v[F_SOURCE], 0);
        CHECK(x->v[F_TAG] == CANCEL_TAG || x->v[F_TAG] == b_tags[0] || x->v[F_TAG] == b_tags[1]);
        CHECK(next_where(&regs[R_P_DEQ], F_REQ, x->v[F_REQ], x) != NULL); /* the same entry */
    }
    CHECK_EQ(sp_e->nrec, 5); /* one search per arrival */
    CHECK_EQ(count_where(sp_e, F_FOUND, 1), 2);
    for (int i = 0; i < sp_e->nrec; i++) /* found: the posted receive's id */
        if (sp_e->rec[i].v[F_FOUND] == 1)
            CHECK(has(&regs[R_P_ENQ], F_REQ, sp_e->rec[i].v[F_REQ]));
        else
            CHECK_EQ(sp_e->rec[i].v[F_REQ], 0);
    /* the probe and A's three receives found theirs; B's and the cancelled did not */
    CHECK_EQ(su_e->nrec, 7);
    CHECK_EQ(count_where(su_e, F_FOUND, 1), 4);
    CHECK_EQ(count_where(su_e, F_FOUND, 0), 3);
    if (su_b->nrec == 7 && su_e->nrec == 7) {
        /* the probe: both wildcards -1, no request; it found A's first message */
        const struct rec *pb = &su_b->rec[0], *pe = &su_e->rec[0];
        CHECK_EQ(pb->v[F_SOURCE], -1);
        CHECK_EQ(pb->v[F_TAG], -1);
        CHECK_EQ(pb->v[F_REQ], 0);
        CHECK_EQ(pe->v[F_SOURCE], -1);
        CHECK_EQ(pe->v[F_FOUND], 1);
        CHECK_EQ(pe->v[F_SEQ], seq[0]);
        CHECK_EQ(pe->v[F_REQ], 0);
        for (int i = 1; i < 7; i++) { /* the receives: a request always */
            const struct rec *e = &su_e->rec[i];
            CHECK_EQ(e->v[F_SOURCE], 0);
            CHECK(e->v[F_REQ] != 0);
            if (e->v[F_FOUND] == 0)
                CHECK_EQ(e->v[F_SEQ], 0);
        }
    }
    CHECK_EQ(count_where(&regs[R_P_DEQ], F_TAG, CANCEL_TAG), 1);
    /* MPI_COMM_WORLD's registration got D, the dup's did not */
    CHECK_EQ(count_where(&world_arrived, F_BYTES, D_BYTES), 2);
    CHECK_EQ(count_where(&regs[R_ARRIVED], F_BYTES, D_BYTES), 0);
}

/* The receiver's requests (rank 1): the cancelled receive; each receive posted, its
 * transfer and its completion. */
static void check_receiver_requests(void)
{
    /* MPI_Cancel on the receive with CANCEL_TAG: cancelled, the receive's id and pattern */
    CHECK_EQ(regs[R_CANCEL].nrec, 1);
    const struct rec *cp = first_where(&regs[R_RECV_POSTED], F_TAG, CANCEL_TAG);
    if (regs[R_CANCEL].nrec == 1 && cp) {
        const struct rec *x = &regs[R_CANCEL].rec[0];
        CHECK_EQ(x->v[F_REQ], cp->v[F_REQ]);
        CHECK_EQ(x->v[F_CANCELLED], 1);
        CHECK_EQ(x->v[F_PEER], 0);
        CHECK_EQ(x->v[F_TAG], CANCEL_TAG);
        CHECK_EQ(x->v[F_IS_SEND], 0);
        CHECK(cp->order < x->order);
    }
    /* the receives: six posted (B's two, the cancelled, A's three), with their
     * capacity; each completed once, with what it received (0: cancelled) */
    const struct reg *rp = &regs[R_RECV_POSTED], *rc = &regs[R_COMPLETE];
    CHECK_EQ(rp->nrec, 6);
    CHECK_EQ(rc->nrec, 6);
    CHECK_EQ(regs[R_SEND_POSTED].nrec, 0);
    for (int i = 0; i < rp->nrec; i++) {
        const struct rec *p = &rp->rec[i];
        CHECK_EQ(p->v[F_IS_SEND], 0);
        CHECK_EQ(p->v[F_PEER], 0);
        const struct rec *c = next_where(rc, F_REQ, p->v[F_REQ], p);
        CHECK(c != NULL);
        if (!c)
            continue;
        CHECK_EQ(c->v[F_IS_SEND], 0);
        if (p->v[F_TAG] == CANCEL_TAG) {
            CHECK_EQ(c->v[F_BYTES], 0);
        } else {
            CHECK_EQ(c->v[F_BYTES], p->v[F_BYTES]); /* the sizes posted are the sizes sent */
            CHECK_EQ(c->v[F_TAG], p->v[F_TAG]);
            CHECK_EQ(c->v[F_PEER], 0);
            /* its transfer, begun and ended, between posting and completion */
            const struct rec *xb = next_where(&regs[R_XFER_BEGIN], F_REQ, p->v[F_REQ], p);
            const struct rec *xe = next_where(&regs[R_XFER_END], F_REQ, p->v[F_REQ], p);
            CHECK(xb != NULL && xe != NULL);
            if (xb && xe) {
                CHECK(xb->order < xe->order && xe->order < c->order);
                CHECK_EQ(xb->v[F_BYTES], p->v[F_BYTES]);
            }
        }
    }
    CHECK_EQ(regs[R_XFER_BEGIN].nrec, 5);
    CHECK_EQ(regs[R_XFER_END].nrec, 5);
}

/* The sender (rank 0): five sends on the dup, each posted and completed once, with its
 * size; a send without a request (Open MPI's inline send) has request_id 0. */
static void check_sender(void)
{
    const struct reg *sp = &regs[R_SEND_POSTED], *rc = &regs[R_COMPLETE];
    CHECK_EQ(sp->nrec, 5);
    CHECK_EQ(rc->nrec, 5);
    CHECK_EQ(regs[R_RECV_POSTED].nrec + regs[R_ARRIVED].nrec, 0);
    for (int i = 0; i < sp->nrec && i < 5; i++) {
        const struct rec *p = &sp->rec[i];
        CHECK_EQ(p->v[F_IS_SEND], 1);
        CHECK_EQ(p->v[F_PEER], 1);
        CHECK_EQ(p->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
        CHECK_EQ(p->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
        const struct rec *c = &rc->rec[i];
        CHECK_EQ(c->v[F_REQ], p->v[F_REQ]);
        CHECK_EQ(c->v[F_BYTES], p->v[F_BYTES]);
        CHECK_EQ(c->v[F_TAG], p->v[F_TAG]);
        CHECK(p->order < c->order);
    }
    /* transfers of the sends that had a request */
    CHECK_EQ(regs[R_XFER_BEGIN].nrec, regs[R_XFER_END].nrec);
    for (int i = 0; i < regs[R_XFER_BEGIN].nrec; i++) {
        int64_t id = regs[R_XFER_BEGIN].rec[i].v[F_REQ];
        CHECK(id != 0 && has(sp, F_REQ, id));
    }
}

/* Phase 3: the pattern (mpit_pattern.h) on a dup of MPI_COMM_WORLD, through ob1's
 * PERUSE hooks, with a second thread's traffic under MPI_THREAD_MULTIPLE; the
 * registrations of the pattern's types freed and checked. Returns the dup, with
 * regs[R_COMM_FREED] and regs[R_COMM_CREATED] still registered on it. */
static MPI_Comm run_pattern(void)
{
    if (multiple)
        side_traffic_start();
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    register_pattern(&dup);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone registered */
    pattern_traffic(dup, 1, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (multiple)
        side_traffic_join();
    reg_free_all(regs, NQREG);
    reg_free_all(&world_arrived, 1);
    reg_free_all(&byval, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* phase 4's collectives on the dup come after every free */
    check_bound_to_dup();
    if (disabled) {
        for (int i = 0; i < NQREG; i++)
            CHECK_EQ(regs[i].nrec, 0);
        CHECK_EQ(world_arrived.nrec + byval.nrec, 0);
    } else if (my_rank == 1) {
        check_receiver_matching();
        check_receiver_requests();
    } else if (my_rank == 0) {
        check_sender();
    } else { /* nothing on the dup at the other ranks */
        CHECK_EQ(regs[R_ARRIVED].nrec, 0);
        CHECK_EQ(regs[R_P_ENQ].nrec + regs[R_SEND_POSTED].nrec + regs[R_RECV_POSTED].nrec, 0);
    }
    return dup;
}

/* A window over MPI_COMM_WORLD: win_create bound to its communicator, win_free bound to
 * the window (registered by reference and by value); its internal communicator is Open
 * MPI's own, never announced. Returns the comm_create records pre[0] got meanwhile.
 * Where no one-sided component serves (TCP with MPI_THREAD_MULTIPLE) there is none. */
static int run_window(void)
{
    static char wbuf[64];
    static struct reg winc, winf[2];
    int before = pre[0].nrec, have_win = 0;
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_Win win;
    MPI_T_event_registration bad;
    reg_alloc(&winc, "win_create", &world, MPI_T_CB_REQUIRE_NONE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Win_create(wbuf, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS) {
        have_win = 1;
        reg_alloc(&winf[0], "win_free", &win, MPI_T_CB_REQUIRE_NONE);
        reg_alloc(&winf[1], "win_free", (void *)win, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        MPI_Win_free(&win);
        MPI_Win wnull = MPI_WIN_NULL;
        CHECK_EQ(MPI_T_event_handle_alloc(winf[0].index, &wnull, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_HANDLE);
    } else if (my_rank == 0) {
        printf("test_events: no window here (no one-sided component for these transports)\n");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int created = pre[0].nrec - before;
    reg_free_all(&winc, 1);
    if (have_win)
        reg_free_all(winf, 2);
    if (disabled || !have_win) {
        CHECK_EQ(winc.nrec, 0);
        return created;
    }
    /* one window, its key never a communicator's, over MPI_COMM_WORLD (key 1), 64 bytes
     * here; its free, bound to it, with the same payload, through both registrations */
    CHECK_EQ(winc.nrec, 1);
    CHECK_EQ(winf[0].nrec, 1);
    CHECK_EQ(winf[1].nrec, 1);
    if (winc.nrec == 1 && winf[0].nrec == 1 && winf[1].nrec == 1) {
        const struct rec *c = &winc.rec[0], *f = &winf[0].rec[0];
        CHECK(c->v[F_KEY] >= 16);
        CHECK_EQ(count_where(&pre[0], F_KEY, c->v[F_KEY]), 0);
        CHECK_EQ(c->v[F_COMM_KEY], 1);
        CHECK_EQ(c->v[F_BYTES], 64);
        CHECK_EQ(c->v[F_RANK], my_rank);
        CHECK_EQ(c->v[F_SIZE], nranks);
        for (int f_ = F_KEY; f_ < NF; f_++)
            CHECK_EQ(f->v[f_], c->v[f_]);
        CHECK_EQ(winf[1].rec[0].v[F_KEY], c->v[F_KEY]);
        CHECK(c->order < f->order);
    }
    return created;
}

/* Phase 4: communicators created from the dup (bound to it: regs[R_COMM_CREATED]) and
 * from MPI_COMM_WORLD (pre[0]), a window, then the dup freed. */
static void run_communicators(MPI_Comm dup)
{
    static struct reg child_free;
    int child_size;
    int world_comms = create_children(dup, &child_free, &child_size, &pre[0]);
    int world_win = run_window();
    free_dup_and_check(dup, pre, &regs[R_COMM_FREED], &child_free, child_size, world_comms,
                       world_win, disabled);
}

/* ---------------------------------------------------------------- 5. early arrival */
/* A round of phase 5 (mpit_pattern.h) at rank 1: the hold is the callback of its
 * search_unexpected_begin on pair (each receive of the allreduces over pair that create
 * the communicator; delivered by the drain in opal_progress). A hold that comes after the
 * dup's comm_create (on pair, delivered at once when the binding hands the communicator
 * out) does not count. When the marker comes inside a hold, the message, sent before it
 * on the same channel, has arrived and is queued (or waits for the communicator) while
 * no tool can have registered on the communicator. Returns 1 for a round that counts. */
static int early_round(MPI_Comm pair, int64_t *checked)
{
    /* a tool listening to the two types already (on MPI_COMM_WORLD, as a tool that follows
     * every communicator from MPI_COMM_WORLD does): ob1 marks what it queues for a
     * communicator not handed out yet only while someone listens to them */
    static struct reg hold, created, world[2], o[NO];
    MPI_Comm w = MPI_COMM_WORLD, c;
    int token = 0;
    reg_alloc(&world[0], "message_arrived", &w, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    reg_alloc(&world[1], "unexpected_insert", &w, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    reg_alloc(&hold, "search_unexpected_begin", &pair, MPI_T_CB_REQUIRE_NONE);
    reg_alloc(&created, "comm_create", &pair, MPI_T_CB_REQUIRE_NONE);
    created.handed = 1;
    handed_out = 0;
    MPI_Send(&token, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    hold.hold = 0.5; /* from here on: inside MPI_Comm_dup, 0.5 s at most per hold */
    MPI_Comm_dup(pair, &c);
    hold.hold = 0;
    CHECK_EQ(created.nrec, 1);
    early_receive(c, o);
    reg_free_all(&hold, 1);
    reg_free_all(&created, 1);
    reg_free_all(world, 2);
    MPI_Send(&hold.held, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Comm_free(&c);
    if (!hold.held)
        return 0;
    *checked = check_early(o);
    return 1;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "disabled") == 0)
            disabled = 1;
        else if (strcmp(argv[i], "multiple") == 0)
            multiple = 1;
    }
    init_mpit_then_mpi(&argc, &argv, multiple, NALL, disabled, pre); /* 1 */
    check_types_enums_sources();                                      /* 2 */
    check_categories();
    check_clock();
    MPI_Comm dup = run_pattern(); /* 3 */
    run_communicators(dup);       /* 4 */
    /* 5 (the drain in opal_progress, where the hold runs, is not there with
     * MPI_THREAD_MULTIPLE) */
    if (!disabled && !multiple)
        run_early(early_round);

    /* MPI_T_finalize before MPI_Finalize: Open MPI 4.1 crashes in an MPI_T_finalize after
     * MPI_Finalize, with or without this series (open-mpi/ompi#11485) */
    int nev;
    T_OK(MPI_T_finalize());
    CHECK_EQ(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    in_mpi = 0;
    MPI_Finalize();
    if (failures)
        fprintf(stderr, "[rank %d] test_events: %d failure(s)\n", my_rank, failures);
    else if (my_rank == 0)
        printf("test_events: %d ranks%s%s: ok\n", nranks, multiple ? ", MPI_THREAD_MULTIPLE" : "",
               disabled ? ", events compiled out" : "");
    return failures ? 1 : 0;
}
