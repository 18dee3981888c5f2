/* test_events.c -- MPICH + mpitev's MPI_T events, checked the way a tool sees them: only
 * the standard MPI_T API of MPICH's mpi.h, no mpitev header. The event types are the
 * mpitev catalogue's (include/mpitev/catalog.h: names, element names and order,
 * bindings, conventions) plus MPICH's own two. Needs 2 or more ranks. The recording and
 * the phases that do not depend on the MPI are integrations/common's (mpit_record.h,
 * mpit_pattern.h), shared with integrations/openmpi's test.
 *
 * usage: mpiexec -n N test_events [queues|provider|disabled] [multiple]
 *   queues    MPICH matches in its own queues (shared memory, or the network module
 *             with MPIR_CVAR_CH4_OFI_ENABLE_TAGGED=0): the receive-queue events fire
 *   provider  the network module matches in libfabric (MPIR_CVAR_NOLOCAL=1, tagged):
 *             MPICH has no queue there, none of its receive-queue events may fire
 *   disabled  MPICH + mpitev configured --disable-mpit-events: every type and source is
 *             there and registrations work, but nothing is ever raised
 *   multiple  MPI_Init_thread(MPI_THREAD_MULTIPLE), and a second thread on every rank
 *             exchanges messages on its own communicator meanwhile
 *
 * 1. Before MPI_Init: the event types, sources, a nested MPI_T init/finalize, and
 *    registrations on MPI_COMM_WORLD and MPI_COMM_SELF that see their comm_create,
 *    raised in MPI_Init (keys 1 and 2, parent_key 0).
 * 2. Enums (every type's element names, through MPICH's MPI_T_enum_get_*) and MPICH's
 *    categories (every type in exactly one), with their error codes.
 * 3. A pattern on a dup of MPI_COMM_WORLD, rank 0 -> rank 1: three messages that arrive
 *    before rank 1 posts receives (unexpected), a probe with wildcards, two messages
 *    after the receives are posted, a cancelled receive; then the same tags on
 *    MPI_COMM_WORLD. Each rank registers for the queue events on the dup and checks:
 *    delivered + dropped = raised (exactly, where the pattern fixes it; else the
 *    invariants every arrival obeys), the payloads (read by element name: a message's
 *    events share its seq, a receive's its request_id, wildcards are -1), that nothing
 *    of MPI_COMM_WORLD's traffic reaches them, non-decreasing timestamps per ordered
 *    source, free callbacks exactly once. message_arrived's callback runs at
 *    MPI_T_CB_REQUIRE_NONE and calls MPI_Iprobe, re-entering MPI inside the delivery.
 * 4. comm_create is bound to the communicator of the creating call (the parent): a tool
 *    registered there sees the new communicator's creation, with its key, parent_key,
 *    rank and size; comm_free, bound to the communicator itself, the same payload. Dup,
 *    split, idup, split_type (one comm_create, none for MPICH's intermediate
 *    communicators), a Cartesian communicator; a window's internal communicator is
 *    never announced; keys are never reused.
 * 5. (queues, not multiple) A message that arrives before its receiver has created the
 *    communicator: rank 0 sends on a new communicator while rank 1, still inside its
 *    MPI_Comm_dup (held by a callback until the message surely arrived), has not
 *    committed it. Rank 1 registers on the communicator right after creating it; its
 *    receive delivers the message's message_arrived and unexpected_insert (same seq,
 *    queue_length -1), before the search events.
 * 6. (queues) A tool that registers while messages wait unexpected, sent while nobody
 *    listened: the lengths its events report count them, their seq is 0 (none).
 * Clock: the three sources share one clock (MPIR_CVAR_EVENTS_CLOCK; with the argument
 * "monotonic" the test expects that CVAR's CLOCK_MONOTONIC, 10^9 ticks per second),
 * and their ticks over a 50 ms wait, divided by the rate MPI_T_source_get_info reports,
 * agree with MPI_Wtime within 10 %. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_check.h"
#include "mpit_record.h"
#include "mpit_pattern.h"

static int clock_ns; /* "monotonic": the clock is CLOCK_MONOTONIC, in nanoseconds */

/* ---------------------------------------------------------------- 2. enums, categories */
static const char *const all_events[] = {
    "unexp_message_enqueued", "unexp_message_dequeued", "message_arrived",
    "search_posted_begin",    "search_posted_end",      "search_unexpected_begin",
    "search_unexpected_end",  "posted_insert",          "posted_remove",
    "unexpected_insert",      "unexpected_remove",      "send_posted",
    "recv_posted",            "request_complete",       "request_cancel",
    "comm_create",            "comm_free",              "win_create",
    "win_free",               "put_started",            "put_complete",
    "get_started",            "get_complete",           "accumulate_started",
    "accumulate_complete",    "lock_acquired",          "lock_released",
    "sync_begin",             "sync_end"};
#define NALL ((int)(sizeof all_events / sizeof all_events[0]))
#define L_SEARCH "seq request_id source tag queue_length found"
#define L_POSTED "request_id source tag queue_length"
#define L_UNEXPECTED "bytes seq source tag queue_length"
#define L_REQUEST "bytes request_id peer tag is_send"
#define L_COMM "key parent_key rank size"
#define L_WIN "key comm_key bytes rank size"
#define L_RMA "target_disp bytes op_id target op"
static const char *const all_elements[NALL] = {
    "source tag context_id", "source tag context_id", "bytes seq source tag",
    L_SEARCH, L_SEARCH, L_SEARCH, L_SEARCH, L_POSTED, L_POSTED, L_UNEXPECTED, L_UNEXPECTED,
    L_REQUEST, L_REQUEST, L_REQUEST, "request_id peer tag is_send cancelled",
    L_COMM, L_COMM, L_WIN, L_WIN, L_RMA, L_RMA, L_RMA, L_RMA, L_RMA, L_RMA,
    "target lock_type", "target lock_type", "kind target", "kind target"};
/* the binding of all_events[i]: the two original types none, the window's events the
 * window (win_create: its communicator), the others the communicator */
static int bind_of(int i)
{
    if (i < 2)
        return MPI_T_BIND_NO_OBJECT;
    if (strcmp(all_events[i], "win_free") == 0 || i > 18)
        return MPI_T_BIND_MPI_WIN;
    return MPI_T_BIND_MPI_COMM;
}

/* the types (their elements in order: MPICH's layout for its own two, element 0 the
 * source and element 1 the tag as before, the catalogue's for the others), then MPICH's
 * enums, categories and sources */
static void check_types_enums_categories(void)
{
    int nev = 0, ncat = 0;
    check_event_types(all_events, all_elements, NALL, bind_of);
    T_OK(MPI_T_event_get_num(&nev));
    /* MPICH's own enums still answer (a cvar's, if any has one) and a bad handle is refused */
    int nn;
    CHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &nn, NULL, NULL) != MPI_SUCCESS);

    /* every event type is in exactly one of MPICH's categories */
    T_OK(MPI_T_category_get_num(&ncat));
    int total = 0, *seen = calloc((size_t)nev, sizeof *seen);
    for (int c = 0; c < ncat; c++) {
        int n = -1;
        T_OK(MPI_T_category_get_num_events(c, &n));
        if (n <= 0)
            continue;
        int *ind = malloc(sizeof(int) * (size_t)n);
        T_OK(MPI_T_category_get_events(c, n, ind));
        for (int i = 0; i < n; i++)
            if (ind[i] >= 0 && ind[i] < nev)
                seen[ind[i]]++;
        free(ind);
        total += n;
    }
    CHECK_EQ(total, nev);
    for (int i = 0; i < nev; i++)
        CHECK_EQ(seen[i], 1);
    free(seen);

    /* sources: one per VCI (VCI0, ...) ordered; OBJECTS and RMA unordered; one clock */
    int nsrc = 0, nvci = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK(nsrc >= 3);
    MPI_Count tps0 = 0;
    for (int s = 0; s < nsrc && s < 16; s++) {
        char sn[32];
        int sl = (int)sizeof sn;
        MPI_T_source_order order;
        MPI_Count tps = 0, max_ticks = 0;
        T_OK(MPI_T_source_get_info(s, sn, &sl, NULL, NULL, &order, &tps, &max_ticks, NULL));
        ordered[s] = order == MPI_T_SOURCE_ORDERED;
        CHECK_EQ(ordered[s], strncmp(sn, "VCI", 3) == 0);
        nvci += ordered[s];
        CHECK(tps > 0 && max_ticks > 0);
        if (s == 0)
            tps0 = tps;
        CHECK_EQ(tps, tps0);
        if (clock_ns)
            CHECK_EQ(tps, 1000000000);
    }
    CHECK_EQ(nsrc, nvci + 2);
    CHECK(nvci >= 1);
}

/* ---------------------------------------------------------------- 3. the pattern */
/* the queues' types (NQREG of them, freed after phase 3), then the dup's communicator
 * types (freed after phase 4) */
enum { R_ARRIVED, R_UX_ENQ, R_UX_DEQ, R_P_ENQ, R_P_DEQ, R_SP_BEGIN, R_SP_END, R_SU_BEGIN,
       R_SU_END, R_UX_INS, R_UX_REM, R_SEND_POSTED, R_RECV_POSTED, R_REQ_COMPLETE, R_REQ_CANCEL,
       NQREG, R_COMM_FREED = NQREG, R_COMM_CREATED, NREG };
/* the transfer and requests family: raised on every path (also where libfabric matches) */
#define IS_TRANSFER(i) ((i) >= R_SEND_POSTED && (i) <= R_REQ_CANCEL)
static const char *reg_events[NREG] = {
    "message_arrived",     "unexp_message_enqueued", "unexp_message_dequeued",
    "posted_insert",       "posted_remove",          "search_posted_begin",
    "search_posted_end",   "search_unexpected_begin", "search_unexpected_end",
    "unexpected_insert",   "unexpected_remove",      "send_posted",
    "recv_posted",         "request_complete",       "request_cancel",
    "comm_free",           "comm_create"};
static struct reg pre[3], regs[NREG], world_arrived;
static int queues = 1, multiple, disabled;

/* Phase 3's registrations on dup: every type of reg_events (the two unbound ones for no
 * object), message_arrived at NONE re-entering MPI, the others alternating between
 * MPI_RESTRICTED and ASYNC_SIGNAL_SAFE; MPI_COMM_WORLD's message_arrived; the error
 * paths of the object argument. */
static void register_pattern(MPI_Comm *dup)
{
    MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;
    for (int i = 0; i < NREG; i++)
        reg_alloc(&regs[i], reg_events[i], (i == R_UX_ENQ || i == R_UX_DEQ) ? NULL : dup,
                  i == R_ARRIVED ? MPI_T_CB_REQUIRE_NONE
                  : i % 2        ? MPI_T_CB_REQUIRE_MPI_RESTRICTED
                                 : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    regs[R_ARRIVED].reenter = 1;
    reg_alloc(&world_arrived, "message_arrived", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_T_event_registration bad;
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &null, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, NULL, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID);
    /* a handle passed by value (a tool written for pointer handles) is taken as a handle */
    MPI_T_event_registration byval;
    T_OK(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, (void *)(uintptr_t)MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &byval));
    T_OK(MPI_T_event_handle_free(byval, NULL, NULL));
}

/* Everything bound to the dup is about the dup: its tags only (nothing of
 * MPI_COMM_WORLD's barrier, of D, of the second thread's communicator); searches come in
 * pairs, with the same seq where the begin has one; nothing dropped. */
static void check_bound_to_dup(void)
{
    for (int i = 0; i < NQREG; i++) {
        if (regs[i].dropped)
            fprintf(stderr, "[rank %d] %s: %ld dropped\n", my_rank, regs[i].event, regs[i].dropped);
        CHECK_EQ(regs[i].dropped, 0); /* buffered, big enough, a safe drain level */
        if (i == R_UX_ENQ || i == R_UX_DEQ)
            continue;
        for (int k = 0; k < regs[i].nrec; k++) {
            CHECK(dup_tag(regs[i].rec[k].v[F_TAG]) || regs[i].rec[k].v[F_TAG] == -1);
            if (regs[i].rec[k].v[F_BYTES] != INT64_MIN)
                CHECK(regs[i].rec[k].v[F_BYTES] != D_BYTES);
        }
    }
    CHECK_EQ(regs[R_SP_BEGIN].nrec, regs[R_SP_END].nrec);
    CHECK_EQ(regs[R_SU_BEGIN].nrec, regs[R_SU_END].nrec);
    for (int i = 0; i < regs[R_SP_BEGIN].nrec && i < regs[R_SP_END].nrec; i++) {
        CHECK_EQ(regs[R_SP_BEGIN].rec[i].v[F_SEQ], regs[R_SP_END].rec[i].v[F_SEQ]);
        CHECK_EQ(regs[R_SP_BEGIN].rec[i].v[F_FOUND], -1);
        CHECK_EQ(regs[R_SP_BEGIN].rec[i].v[F_REQ], 0);
    }
    for (int i = 0; i < regs[R_SU_BEGIN].nrec; i++) {
        CHECK_EQ(regs[R_SU_BEGIN].rec[i].v[F_FOUND], -1);
        CHECK_EQ(regs[R_SU_BEGIN].rec[i].v[F_SEQ], 0);
    }
}

/* The transfer and requests family, on every path: rank 0 posted five sends on the dup
 * (A, B), rank 1 six receives (B's two, the cancelled one, A's three). */
static void check_sends(void)
{
    const struct reg *sp = &regs[R_SEND_POSTED], *rc = &regs[R_REQ_COMPLETE];
    CHECK_EQ(sp->nrec, 5);
    CHECK_EQ(rc->nrec, 5);
    CHECK_EQ(regs[R_RECV_POSTED].nrec + regs[R_REQ_CANCEL].nrec, 0);
    for (int i = 0; i < sp->nrec && i < 5 && i < rc->nrec; i++) {
        const struct rec *x = &sp->rec[i], *c = &rc->rec[i];
        CHECK_EQ(x->v[F_PEER], 1);
        CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
        CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
        CHECK_EQ(x->v[F_IS_SEND], 1);
        CHECK(x->v[F_REQ] != 0);
        /* blocking sends: each completes before the next is posted */
        CHECK_EQ(c->v[F_REQ], x->v[F_REQ]);
        CHECK_EQ(c->v[F_PEER], 1);
        CHECK_EQ(c->v[F_TAG], x->v[F_TAG]);
        CHECK_EQ(c->v[F_BYTES], x->v[F_BYTES]);
        CHECK_EQ(c->v[F_IS_SEND], 1);
        CHECK(x->order < c->order);
    }
}
static void check_receives(void)
{
    const struct reg *rp = &regs[R_RECV_POSTED], *rc = &regs[R_REQ_COMPLETE];
    const struct reg *cn = &regs[R_REQ_CANCEL];
    static const int tags[6] = {20, 21, CANCEL_TAG, 10, 11, 12};
    static const int cap[6] = {400, 500, 1, 100, 200, 300};
    CHECK_EQ(rp->nrec, 6);
    CHECK_EQ(rc->nrec, 6);
    CHECK_EQ(regs[R_SEND_POSTED].nrec, 0);
    CHECK_EQ(cn->nrec, 1);
    for (int i = 0; i < rp->nrec && i < 6; i++) {
        const struct rec *x = &rp->rec[i];
        CHECK_EQ(x->v[F_PEER], 0);
        CHECK_EQ(x->v[F_TAG], tags[i]);
        CHECK_EQ(x->v[F_BYTES], cap[i]);
        CHECK_EQ(x->v[F_IS_SEND], 0);
        CHECK(x->v[F_REQ] != 0);
        /* its completion: the same request, the matched source and tag and the bytes
         * received; the cancelled one: 0 bytes, its pattern */
        const struct rec *c = next_where(rc, F_REQ, x->v[F_REQ], x);
        CHECK(c != NULL);
        if (c) {
            CHECK_EQ(c->v[F_PEER], 0);
            CHECK_EQ(c->v[F_TAG], tags[i]);
            CHECK_EQ(c->v[F_BYTES], tags[i] == CANCEL_TAG ? 0 : cap[i]);
            CHECK_EQ(c->v[F_IS_SEND], 0);
            CHECK(x->order < c->order);
        }
        if (tags[i] == CANCEL_TAG && cn->nrec == 1) {
            CHECK_EQ(cn->rec[0].v[F_REQ], x->v[F_REQ]);
            CHECK_EQ(cn->rec[0].v[F_TAG], CANCEL_TAG);
            CHECK_EQ(cn->rec[0].v[F_PEER], 0);
            CHECK_EQ(cn->rec[0].v[F_IS_SEND], 0);
            CHECK_EQ(cn->rec[0].v[F_CANCELLED], 1);
        }
    }
}
static void check_transfer(void)
{
    if (!disabled && my_rank == 0)
        check_sends();
    else if (!disabled && my_rank == 1)
        check_receives();
    else
        for (int i = R_SEND_POSTED; i <= R_REQ_CANCEL; i++)
            CHECK_EQ(regs[i].nrec, 0);
}

/* The matching family at rank 1, where MPICH matches in its queues: A and B, five
 * arrivals, three of them unexpected, two matched posted receives. dup_ctx: the dup's
 * context id, which the two unbound types name. */
static void check_queues_receiver(int64_t dup_ctx)
{
    int arrived = regs[R_ARRIVED].nrec;
    CHECK_EQ(arrived, 5);
    CHECK_EQ(count_where(&regs[R_UX_ENQ], F_CTX, dup_ctx), 3);
    CHECK_EQ(count_where(&regs[R_UX_DEQ], F_CTX, dup_ctx), 3);
    CHECK_EQ(regs[R_UX_INS].nrec, 3); /* the bound pair: the same three */
    CHECK_EQ(regs[R_UX_REM].nrec, 3);
    /* the arrivals' seqs: numbered in arrival order */
    int64_t seq[5] = {0};
    for (int i = 0; i < arrived && i < 5; i++) {
        const struct rec *x = &regs[R_ARRIVED].rec[i];
        seq[i] = x->v[F_SEQ];
        CHECK(seq[i] > (i ? seq[i - 1] : 0));
        CHECK_EQ(x->v[F_SOURCE], 0);
        CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
        CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
        /* each arrival searched the posted queue once, with its seq */
        CHECK_EQ(count_where(&regs[R_SP_END], F_SEQ, seq[i]), 1);
    }
    for (int i = 0; i < regs[R_UX_INS].nrec && i < 3; i++) {
        const struct rec *x = &regs[R_UX_INS].rec[i];
        CHECK_EQ(x->v[F_TAG], a_tags[i]);
        CHECK_EQ(x->v[F_SEQ], seq[i]);
        CHECK_EQ(x->v[F_BYTES], a_bytes[i]);
        CHECK_EQ(x->v[F_SOURCE], 0);
        /* the length after the insert: with two ranks and one thread the queue holds
         * only these; else other communicators' messages come and go (the second
         * thread's, the next barrier's from idle ranks) */
        if (nranks == 2 && !multiple)
            CHECK_EQ(x->v[F_QLEN], i + 1);
        else
            CHECK(x->v[F_QLEN] >= 1);
        /* removed once, with its seq: the receive's search found it */
        const struct rec *rm = first_where(&regs[R_UX_REM], F_SEQ, seq[i]);
        CHECK(rm != NULL);
        if (rm)
            CHECK_EQ(rm->v[F_TAG], a_tags[i]);
        CHECK_EQ(count_where(&regs[R_SU_END], F_SEQ, seq[i]), i == 0 ? 2 : 1);
    }
    CHECK_EQ(regs[R_P_ENQ].nrec, 3); /* B's two and the cancelled one */
    CHECK_EQ(regs[R_P_DEQ].nrec, 3); /* matched (2) or cancelled (1) */
    for (int i = 0; i < regs[R_P_ENQ].nrec; i++) {
        const struct rec *x = &regs[R_P_ENQ].rec[i];
        CHECK(x->v[F_REQ] != 0);
        CHECK_EQ(x->v[F_SOURCE], 0);
        CHECK(x->v[F_TAG] == CANCEL_TAG || x->v[F_TAG] == b_tags[0] || x->v[F_TAG] == b_tags[1]);
        CHECK_EQ(count_where(&regs[R_P_DEQ], F_REQ, x->v[F_REQ]), 1); /* the same entry */
    }
    CHECK_EQ(regs[R_SP_END].nrec, 5); /* one search per arrival */
    CHECK_EQ(count_where(&regs[R_SP_END], F_FOUND, 1), 2);
    for (int i = 0; i < regs[R_SP_END].nrec; i++) /* found: the posted receive's id */
        if (regs[R_SP_END].rec[i].v[F_FOUND] == 1)
            CHECK(has(&regs[R_P_ENQ], F_REQ, regs[R_SP_END].rec[i].v[F_REQ]));
        else
            CHECK_EQ(regs[R_SP_END].rec[i].v[F_REQ], 0);
    /* the probe and A's three receives found theirs; B's and the cancelled did not */
    CHECK_EQ(regs[R_SU_END].nrec, 7);
    CHECK_EQ(count_where(&regs[R_SU_END], F_FOUND, 1), 4);
    CHECK_EQ(count_where(&regs[R_SU_END], F_FOUND, 0), 3);
    if (regs[R_SU_BEGIN].nrec == 7 && regs[R_SU_END].nrec == 7) {
        /* the probe: both wildcards -1, no request; it found A's first message */
        const struct rec *pb = &regs[R_SU_BEGIN].rec[0], *pe = &regs[R_SU_END].rec[0];
        CHECK_EQ(pb->v[F_SOURCE], -1);
        CHECK_EQ(pb->v[F_TAG], -1);
        CHECK_EQ(pb->v[F_REQ], 0);
        CHECK_EQ(pe->v[F_SOURCE], -1);
        CHECK_EQ(pe->v[F_FOUND], 1);
        CHECK_EQ(pe->v[F_SEQ], seq[0]);
        CHECK_EQ(pe->v[F_REQ], 0);
        for (int i = 1; i < 7; i++) { /* the receives: a request once found */
            const struct rec *e = &regs[R_SU_END].rec[i];
            CHECK_EQ(e->v[F_SOURCE], 0);
            if (e->v[F_FOUND] == 1)
                CHECK(e->v[F_REQ] != 0);
            else
                CHECK_EQ(e->v[F_SEQ], 0);
        }
    }
    int k = 0;
    for (int i = 0; i < regs[R_UX_ENQ].nrec; i++) /* the original layout: source, tag */
        if (regs[R_UX_ENQ].rec[i].v[F_CTX] == dup_ctx && k < 3) {
            CHECK_EQ(regs[R_UX_ENQ].rec[i].v[F_SOURCE], 0);
            CHECK_EQ(regs[R_UX_ENQ].rec[i].v[F_TAG], a_tags[k]);
            k++;
        }
    CHECK_EQ(count_where(&regs[R_P_DEQ], F_TAG, CANCEL_TAG), 1);
    /* MPI_COMM_WORLD's registration got D, the dup's did not */
    CHECK_EQ(count_where(&world_arrived, F_BYTES, D_BYTES), 2);
    CHECK_EQ(count_where(&regs[R_ARRIVED], F_BYTES, D_BYTES), 0);
    /* the dup's arrivals are not the world's: seqs number every arrival once */
    for (int i = 0; i < arrived && i < 5; i++)
        CHECK_EQ(count_where(&world_arrived, F_SEQ, seq[i]), 0);
}

/* The matching family: where libfabric matches (provider) MPICH's queues are not used
 * and nothing of them is raised; with the events compiled out nothing at all; else rank
 * 1's as check_queues_receiver, nothing on the dup at the other ranks. */
static void check_matching(void)
{
    /* the unbound types see every communicator: the dup's part of them (A's last message
     * names the dup's context id: tag 12 from rank 0 is sent on no other communicator) */
    const struct rec *a2 = last_where(&regs[R_UX_ENQ], F_TAG, a_tags[2]);
    int64_t dup_ctx = a2 ? a2->v[F_CTX] : -1;
    int ux = count_where(&regs[R_UX_ENQ], F_CTX, dup_ctx) +
             count_where(&regs[R_UX_DEQ], F_CTX, dup_ctx);
    if (!queues) {
        for (int i = 0; i < NQREG; i++)
            if (!IS_TRANSFER(i))
                CHECK_EQ(regs[i].nrec, 0);
        CHECK_EQ(ux, 0);
        if (disabled)
            CHECK_EQ(world_arrived.nrec, 0);
    } else if (my_rank == 1) {
        check_queues_receiver(dup_ctx);
    } else {
        CHECK_EQ(regs[R_ARRIVED].nrec, 0);
        CHECK_EQ(ux, 0);
        CHECK_EQ(regs[R_P_ENQ].nrec, 0);
    }
}

/* Phase 3: the pattern (mpit_pattern.h) on a dup of MPI_COMM_WORLD, with a second thread's
 * traffic under MPI_THREAD_MULTIPLE; the registrations of the pattern's types freed and
 * checked. Returns the dup, with regs[R_COMM_FREED] and regs[R_COMM_CREATED] still
 * registered on it. */
static MPI_Comm run_pattern(void)
{
    if (multiple)
        side_traffic_start();
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    register_pattern(&dup);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone registered */
    pattern_traffic(dup, queues, queues ? &regs[R_ARRIVED] : NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (multiple)
        side_traffic_join();
    reg_free_all(regs, NQREG);
    reg_free_all(&world_arrived, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* no collective on the dup before they are all freed */
    check_bound_to_dup();
    check_transfer();
    check_matching();
    return dup;
}

/* Phase 4: communicators created from the dup (bound to it: regs[R_COMM_CREATED]) and
 * from MPI_COMM_WORLD (pre[0]), a window, then the dup freed. */
static void run_communicators(MPI_Comm dup)
{
    static struct reg child_free;
    int child_size;
    int world_comms = create_children(dup, &child_free, &child_size, &pre[0]);
    int before = pre[0].nrec;
    static char wbuf[64];
    MPI_Win win; /* its internal communicator is MPICH's own: never announced */
    MPI_Win_create(wbuf, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    int world_win = pre[0].nrec - before;
    free_dup_and_check(dup, pre, &regs[R_COMM_FREED], &child_free, child_size, world_comms,
                       world_win, disabled);
}

/* ---------------------------------------------------------------- 5. the orphan */
/* A round of phase 5 (mpit_pattern.h) at rank 1: the hold is the callback of its
 * search_unexpected_begin on pair (each receive of the allreduce of the new context id;
 * delivered by a drain after the receive and its send were posted). When the marker
 * comes there, rank 0 has its communicator (its allreduce had all of rank 1's messages),
 * rank 1 has not committed its own (it is inside the allreduce, or inside the commit
 * before the communicator has its key: the commit's broadcast of a sequence number waits
 * for rank 0), and the message, sent before the marker on the same channel, has arrived:
 * an orphan, its context id maps to no key there. The hold cannot tell a drain of the
 * commit from the drain at MPI_Comm_dup's exit, after the key is given: a round counts
 * if the insert's queue_length is -1 (raised late, the length at the insert unknown);
 * else it is retried. Returns 1 for a round that counts. */
static int orphan_round(MPI_Comm pair, int64_t *checked)
{
    static struct reg hold, o[NO];
    int token = 0;
    MPI_Comm c;
    reg_alloc(&hold, "search_unexpected_begin", &pair, MPI_T_CB_REQUIRE_NONE);
    MPI_Send(&token, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    hold.hold = 1.0; /* from here on: inside MPI_Comm_dup, 1 s at most per hold */
    MPI_Comm_dup(pair, &c);
    hold.hold = 0;
    early_receive(c, o);
    reg_free_all(&hold, 1);
    int counts = hold.held && has(&o[O_INS], F_QLEN, -1);
    MPI_Send(&counts, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Comm_free(&c);
    if (!counts)
        return 0;
    *checked = check_early(o);
    /* MPICH numbers arrivals from 1; the removal comes inside the search that found it */
    CHECK(*checked > 0);
    if (o[O_REM].nrec == 1 && o[O_SU_BEGIN].nrec == 1 && o[O_SU_END].nrec == 1)
        CHECK(o[O_SU_BEGIN].rec[0].order < o[O_REM].rec[0].order &&
              o[O_REM].rec[0].order < o[O_SU_END].rec[0].order);
    return 1;
}

/* Phase 6: a tool that attaches while messages wait in the unexpected queue, sent while
 * nobody listened: the lengths its events report count them. unexpected_insert and
 * unexpected_remove on MPI_COMM_WORLD; tags above MPICH's internal ones (its collectives'
 * messages are MPI_COMM_WORLD's too). */
static void run_late_tool(void)
{
    static char sbuf[8], rbuf[8];
    static struct reg late[2];
    MPI_Comm world = MPI_COMM_WORLD;
    int token = 0;
    MPI_Barrier(MPI_COMM_WORLD); /* every registration is freed */
    if (my_rank == 0) {
        for (int t = 1030; t <= 1031; t++) /* E: while nobody listens */
            MPI_Send(sbuf, 1, MPI_BYTE, 1, t, MPI_COMM_WORLD);
        MPI_Send(&token, 1, MPI_INT, 1, 96, MPI_COMM_WORLD); /* after E, in order */
        MPI_Recv(&token, 1, MPI_INT, 1, 95, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, 1, MPI_BYTE, 1, 1032, MPI_COMM_WORLD); /* F: a tool listens */
        /* nothing more to rank 1 (the barrier's message) until it has E and F */
        MPI_Recv(&token, 1, MPI_INT, 1, 94, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (my_rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* E waits */
        reg_alloc(&late[0], "unexpected_insert", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        reg_alloc(&late[1], "unexpected_remove", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        MPI_Send(&token, 1, MPI_INT, 0, 95, MPI_COMM_WORLD);
        MPI_Probe(0, 1032, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* F arrived, unexpected too */
        for (int t = 1030; t <= 1032; t++)
            MPI_Recv(rbuf, 1, MPI_BYTE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&token, 1, MPI_INT, 0, 94, MPI_COMM_WORLD);
        reg_free_all(late, 2);
        /* F's insert counts E: 3 (exactly 3 with two ranks and one thread; else other
         * ranks' barrier messages may wait too); then each removal, its length after.
         * E arrived while nobody listened: no seq (0); F's is not 0 */
        const struct rec *ins = last_where(&late[0], F_TAG, 1032);
        CHECK(ins != NULL);
        if (ins) {
            if (nranks == 2 && !multiple)
                CHECK_EQ(ins->v[F_QLEN], 3);
            else
                CHECK(ins->v[F_QLEN] >= 3);
            CHECK(ins->v[F_SEQ] > 0);
        }
        for (int t = 1030; t <= 1032; t++) {
            const struct rec *rem = last_where(&late[1], F_TAG, t);
            CHECK(rem != NULL);
            if (rem && nranks == 2 && !multiple)
                CHECK_EQ(rem->v[F_QLEN], 1032 - t);
            if (rem)
                CHECK(t == 1032 ? rem->v[F_SEQ] > 0 : rem->v[F_SEQ] == 0);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "provider") == 0)
            queues = 0;
        else if (strcmp(argv[i], "disabled") == 0)
            queues = 0, disabled = 1;
        else if (strcmp(argv[i], "multiple") == 0)
            multiple = 1;
        else if (strcmp(argv[i], "monotonic") == 0)
            clock_ns = 1;
    }
    init_mpit_then_mpi(&argc, &argv, multiple, NALL, disabled, pre); /* 1 */
    check_types_enums_categories();                                   /* 2 */
    check_clock();
    MPI_Comm dup = run_pattern(); /* 3 */
    run_communicators(dup);       /* 4 */
    if (queues && !multiple)
        run_early(orphan_round); /* 5 */
    if (queues)
        run_late_tool(); /* 6 */

    in_mpi = 0;
    int nev, mine = failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T_OK(MPI_T_finalize());
    CHECK_EQ(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    MPI_Finalize();
    if (my_rank == 0)
        printf("test_events (%s%s, %d ranks): %s\n",
               queues ? "queues" : disabled ? "disabled" : "provider",
               multiple ? ", MPI_THREAD_MULTIPLE" : "", nranks, total ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
