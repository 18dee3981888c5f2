/* mpit_pattern.h -- the phases of the event-stream test (test_events.c of
 * integrations/mpich and integrations/openmpi) that do not depend on the MPI: MPI_T and
 * MPI initialisation with the predefined communicators' comm_create, the event types'
 * names, bindings and elements, the clock, a second
 * thread's traffic, the point-to-point pattern on a dup of MPI_COMM_WORLD, and the
 * communicators created from it with their comm_create / comm_free. What each MPI raises
 * for the pattern is checked by its own test. Include after mpit_record.h. */
#ifndef MPIT_PATTERN_H
#define MPIT_PATTERN_H

#include <pthread.h>
#include <stdlib.h>

static int nranks;

/* ---------------------------------------------------------------- 1. before MPI_Init */
/* MPI_T before MPI_Init: not initialised, then nall types, a nested init and finalize;
 * registrations on comm_create for MPI_COMM_WORLD (pre[0] at MPI_RESTRICTED, pre[1] at
 * NONE) and MPI_COMM_SELF (pre[2]); then MPI_Init (MPI_Init_thread with multiple). By its
 * end each saw its communicator's creation (none if the events are compiled out):
 * keys 1 and 2, no parent. Sets my_rank, nranks and in_mpi. */
static inline void init_mpit_then_mpi(int *argc, char ***argv, int multiple, int nall,
                                      int disabled, struct reg pre[3])
{
    int provided, nev = 0, nev2 = 0;
    CHECK_EQ(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    T_OK(MPI_T_init_thread(multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    T_OK(MPI_T_event_get_num(&nev));
    CHECK_EQ(nev, nall);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* nested: a second reference */
    T_OK(MPI_T_finalize());
    T_OK(MPI_T_event_get_num(&nev2));
    CHECK_EQ(nev2, nev);

    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    reg_alloc(&pre[0], "comm_create", &world, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    reg_alloc(&pre[1], "comm_create", &world, MPI_T_CB_REQUIRE_NONE);
    reg_alloc(&pre[2], "comm_create", &self, MPI_T_CB_REQUIRE_NONE);
    if (multiple) {
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(argc, argv);
    }
    in_mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2) {
        fprintf(stderr, "test_events: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* delivered by the end of MPI_Init, where MPI is usable: both levels are safe */
    for (int i = 0; i < 3; i++)
        CHECK_EQ(pre[i].nrec, disabled ? 0 : 1);
    if (!disabled && pre[0].nrec == 1 && pre[2].nrec == 1) {
        CHECK_EQ(pre[0].rec[0].v[F_KEY], 1);
        CHECK_EQ(pre[0].rec[0].v[F_PARENT], 0);
        CHECK_EQ(pre[0].rec[0].v[F_SIZE], nranks);
        CHECK_EQ(pre[0].rec[0].v[F_RANK], my_rank);
        CHECK_EQ(pre[2].rec[0].v[F_KEY], 2);
        CHECK_EQ(pre[2].rec[0].v[F_PARENT], 0);
        CHECK_EQ(pre[2].rec[0].v[F_SIZE], 1);
        CHECK_EQ(pre[2].rec[0].v[F_RANK], 0);
    }
}

/* ---------------------------------------------------------------- 2. the types */
/* The MPI's n event types, events[i] named so, bound as bind_of(i), its elements the
 * enum "<name>_elements" with items named elements[i] (space-separated, in order);
 * the enum refuses items out of range and a NULL value; an unknown name and the index n
 * are refused. */
static inline void check_event_types(const char *const *events, const char *const *elements,
                                     int n, int (*bind_of)(int))
{
    int nev = 0;
    T_OK(MPI_T_event_get_num(&nev));
    CHECK_EQ(nev, n);
    for (int i = 0; i < n; i++) {
        int idx = -1, verb, bind, num = 0, nn = 0;
        char name[64], en[96], want[96];
        int nl = (int)sizeof name, el = (int)sizeof en;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        T_OK(MPI_T_event_get_index(events[i], &idx));
        T_OK(MPI_T_event_get_info(idx, name, &nl, &verb, NULL, NULL, &num, &e, NULL, NULL,
                                  NULL, &bind));
        CHECK(strcmp(name, events[i]) == 0);
        CHECK_EQ(nl, (int)strlen(events[i]) + 1);
        CHECK_EQ(bind, bind_of(i));
        CHECK(e != MPI_T_ENUM_NULL);
        T_OK(MPI_T_enum_get_info(e, &nn, en, &el));
        CHECK_EQ(nn, num);
        snprintf(want, sizeof want, "%s_elements", events[i]);
        CHECK(strcmp(en, want) == 0);
        /* (MPICH's MPI_T_enum_get_item requires the name buffer and its length) */
        int value, il = 32;
        char item[32];
        CHECK_EQ(MPI_T_enum_get_item(e, nn, &value, item, &il), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ(MPI_T_enum_get_item(e, -1, &value, item, &il), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ(MPI_T_enum_get_item(e, 0, NULL, item, &il), MPI_T_ERR_INVALID);
        char elems[160] = "", item_name[32];
        for (int k = 0; k < nn; k++) {
            int l = (int)sizeof item_name;
            T_OK(MPI_T_enum_get_item(e, k, &value, item_name, &l));
            if (strlen(elems) + strlen(item_name) + 2 < sizeof elems) {
                strcat(elems, k ? " " : "");
                strcat(elems, item_name);
            }
        }
        if (strcmp(elems, elements[i]) != 0)
            fprintf(stderr, "[rank %d] %s: elements '%s', expected '%s'\n", my_rank, events[i],
                    elems, elements[i]);
        CHECK(strcmp(elems, elements[i]) == 0);
    }
    int idx = -1;
    CHECK_EQ(MPI_T_event_get_index("no_such_event", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_EQ(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
}

/* ---------------------------------------------------------------- 2. the clock */
/* source 0's ticks over a 50 ms wait, converted with its reported rate, against
 * MPI_Wtime over the same wait: within 10 % */
static inline void check_clock(void)
{
    MPI_Count tps = 0;
    MPI_Count ts0 = 0, ts1 = 0;
    T_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &tps, NULL, NULL));
    double w0 = MPI_Wtime();
    T_OK(MPI_T_source_get_timestamp(0, &ts0));
    while (MPI_Wtime() - w0 < 0.05)
        ;
    T_OK(MPI_T_source_get_timestamp(0, &ts1));
    double w1 = MPI_Wtime();
    double ticks_s = tps > 0 ? (double)(ts1 - ts0) / (double)tps : 0;
    CHECK(ticks_s > 0.9 * (w1 - w0) && ticks_s < 1.1 * (w1 - w0));
}

/* ---------------------------------------------------------------- the second thread */
/* With MPI_THREAD_MULTIPLE: a second thread on every rank exchanges 200 messages with
 * its neighbour (rank ^ 1) on a communicator of its own while phase 3 runs. */
static MPI_Comm thread_comm;
static pthread_t side_thread;
static inline void *side_traffic(void *arg)
{
    (void)arg;
    int size, peer, rank;
    MPI_Comm_size(thread_comm, &size);
    MPI_Comm_rank(thread_comm, &rank);
    peer = rank ^ 1;
    if (peer >= size)
        return NULL;
    /* a fixed number of exchanges, so both sides finish together */
    for (int n = 0; n < 200; n++) {
        int x = n, y = -1;
        MPI_Sendrecv(&x, 1, MPI_INT, peer, 7, &y, 1, MPI_INT, peer, 7, thread_comm,
                     MPI_STATUS_IGNORE);
        CHECK_EQ(y, n);
    }
    return NULL;
}
static inline void side_traffic_start(void)
{
    MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm);
    pthread_create(&side_thread, NULL, side_traffic, NULL);
}
static inline void side_traffic_join(void)
{
    pthread_join(side_thread, NULL);
    MPI_Comm_free(&thread_comm);
}

/* ---------------------------------------------------------------- 3. the pattern */
/* On dup, rank 0 -> rank 1: A, three messages that arrive before rank 1 posts receives
 * (unexpected); a probe with both wildcards at rank 1 (finds A's first); B, two messages
 * after rank 1 posted their receives (and a receive with tag 77 it cancels); then D, two
 * messages of 7 bytes with A's and B's first tags on MPI_COMM_WORLD. */
static const int a_tags[3] = {10, 11, 12}, a_bytes[3] = {100, 200, 300};
static const int b_tags[2] = {20, 21}, b_bytes[2] = {400, 500};
enum { CANCEL_TAG = 77, D_BYTES = 7 };

/* is t one of the tags of the pattern on the dup? */
static inline int dup_tag(int64_t t)
{
    return t == 10 || t == 11 || t == 12 || t == 20 || t == 21 || t == CANCEL_TAG;
}

/* The pattern's traffic. probe: rank 1 probes for A's first message. arrived: if not
 * NULL, a registration of rank 1's on message_arrived for dup: before the probe, wait
 * (10 s at most) until it saw A's three messages (MPI orders messages per communicator
 * only: with several channels A may come after the token sent on MPI_COMM_WORLD), making
 * progress on MPI_COMM_SELF, whose searches no registration on dup sees. */
static inline void pattern_traffic(MPI_Comm dup, int probe, const struct reg *arrived)
{
    static char sbuf[4096], rbuf[8192];
    MPI_Request req[5];
    int token = 0;
    if (my_rank == 0) {
        for (int i = 0; i < 3; i++) /* A: arrive before rank 1 posts receives */
            MPI_Send(sbuf, a_bytes[i], MPI_BYTE, 1, a_tags[i], dup);
        MPI_Send(&token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD); /* after A, in order */
        MPI_Recv(&token, 1, MPI_INT, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* B posted */
        for (int i = 0; i < 2; i++) /* B: posted path */
            MPI_Send(sbuf, b_bytes[i], MPI_BYTE, 1, b_tags[i], dup);
        for (int i = 0; i < 2; i++) /* D: MPI_COMM_WORLD, A's and B's first tags */
            MPI_Send(sbuf, D_BYTES, MPI_BYTE, 1, i ? b_tags[0] : a_tags[0], MPI_COMM_WORLD);
        return;
    }
    if (my_rank != 1)
        return;
    MPI_Recv(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t0 = MPI_Wtime();
    while (arrived && arrived->delivered < 3 && MPI_Wtime() - t0 < 10) {
        int f;
        MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_SELF, &f, MPI_STATUS_IGNORE);
    }
    if (probe) {
        int probed = 0;
        MPI_Status pst;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &probed, &pst);
        CHECK(probed);
        if (probed)
            CHECK_EQ(pst.MPI_TAG, a_tags[0]);
    }
    for (int i = 0; i < 2; i++)
        MPI_Irecv(rbuf + 1000 * i, b_bytes[i], MPI_BYTE, 0, b_tags[i], dup, &req[i]);
    MPI_Request c;
    MPI_Status st;
    int cancelled = 0;
    MPI_Irecv(rbuf, 1, MPI_BYTE, 0, CANCEL_TAG, dup, &c);
    MPI_Cancel(&c);
    MPI_Wait(&c, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled);
    MPI_Send(&token, 1, MPI_INT, 0, 98, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        MPI_Irecv(rbuf + 2000 + 300 * i, a_bytes[i], MPI_BYTE, 0, a_tags[i], dup, &req[2 + i]);
    MPI_Status sts[5]; /* (gcc 12 warns about MPICH's MPI_STATUSES_IGNORE here) */
    MPI_Waitall(5, req, sts);
    for (int i = 0; i < 2; i++)
        MPI_Recv(rbuf, D_BYTES, MPI_BYTE, 0, i ? b_tags[0] : a_tags[0], MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* ---------------------------------------------------------------- 4. communicators */
/* Creates and frees communicators from dup (a split by rank parity, an idup) and from
 * MPI_COMM_WORLD (split_type shared, a 1-d Cartesian communicator). child_free: a
 * registration on the split's comm_free (child_size: its size). Returns the number of
 * comm_create records pre_world (a registration on MPI_COMM_WORLD) got meanwhile. */
static inline int create_children(MPI_Comm dup, struct reg *child_free, int *child_size,
                                  const struct reg *pre_world)
{
    int before = pre_world->nrec;
    MPI_Comm child, child2, shared, cart;
    MPI_Comm_split(dup, my_rank % 2, my_rank, &child);
    MPI_Request ir;
    MPI_Comm_idup(dup, &child2, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    reg_alloc(child_free, "comm_free", &child, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_Comm_size(child, child_size);
    MPI_Comm_free(&child);
    MPI_Comm_free(&child2);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, my_rank, MPI_INFO_NULL, &shared);
    int dims[1] = {nranks}, periods[1] = {0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int created = pre_world->nrec - before;
    MPI_Comm_free(&shared);
    MPI_Comm_free(&cart);
    return created;
}

/* the comm_create records of r that concern a communicator created from parent_key */
static inline int created_from(const struct reg *r, int64_t parent_key)
{
    return count_where(r, F_PARENT, parent_key);
}

/* The communicator events of phases 1 and 4 (free_dup_and_check's arguments): the dup's
 * comm_free bound to it and its creation seen from MPI_COMM_WORLD, with its key,
 * parent_key 1, rank and size; one comm_create per communicator an application creates
 * (none for an MPI's intermediate communicators or a window's), bound to the parent;
 * keys never reused, above the predefined 1 and 2. */
static inline void check_comm_events(const struct reg pre[3], const struct reg *freed,
                                     const struct reg *created, const struct reg *child_free,
                                     int child_size, int world_comms, int world_win,
                                     int disabled)
{
    CHECK_EQ(freed->nrec, disabled ? 0 : 1);
    if (disabled) {
        CHECK_EQ(created->nrec + child_free->nrec + world_comms + world_win, 0);
        return;
    }
    int64_t dup_key = freed->nrec ? freed->rec[0].v[F_KEY] : -1;
    if (freed->nrec) {
        CHECK(dup_key >= 16); /* the predefined keys are 1 and 2; the others never reused */
        CHECK_EQ(freed->rec[0].v[F_PARENT], 1);
        CHECK_EQ(freed->rec[0].v[F_SIZE], nranks);
        CHECK_EQ(freed->rec[0].v[F_RANK], my_rank);
        const struct rec *dc = first_where(&pre[0], F_KEY, dup_key);
        CHECK(dc != NULL);
        CHECK_EQ(count_where(&pre[0], F_KEY, dup_key), 1);
        CHECK_EQ(count_where(&pre[1], F_KEY, dup_key), 1);
        if (dc) {
            CHECK_EQ(dc->v[F_PARENT], 1);
            CHECK_EQ(dc->v[F_SIZE], nranks);
            CHECK_EQ(dc->v[F_RANK], my_rank);
        }
    }
    /* the split and the idup of the dup, bound to the dup, created from it */
    CHECK_EQ(created->nrec, 2);
    CHECK_EQ(created_from(created, dup_key), created->nrec);
    CHECK_EQ(child_free->nrec, 1);
    if (created->nrec == 2 && child_free->nrec == 1) {
        const struct rec *f = &child_free->rec[0];
        CHECK_EQ(f->v[F_KEY], created->rec[0].v[F_KEY]); /* the split's */
        CHECK_EQ(f->v[F_PARENT], dup_key);
        CHECK_EQ(f->v[F_SIZE], child_size);
        CHECK_EQ(created->rec[0].v[F_SIZE], child_size);
        CHECK_EQ(created->rec[0].v[F_RANK], my_rank / 2);
        CHECK(created->rec[1].v[F_KEY] > created->rec[0].v[F_KEY]);
        CHECK_EQ(created->rec[1].v[F_SIZE], nranks);
    }
    /* one comm_create each for the shared-memory split and the Cartesian communicator
     * (none for the intermediate communicators inside MPI_Comm_split_type), none for the
     * window's */
    CHECK_EQ(world_comms, 2);
    CHECK_EQ(world_win, 0);
    CHECK_EQ(created_from(&pre[0], 1), pre[0].nrec - 1);
    for (int i = 0; i < pre[0].nrec; i++) {
        CHECK_EQ(count_where(&pre[0], F_KEY, pre[0].rec[i].v[F_KEY]), 1);
        CHECK_EQ(count_where(created, F_KEY, pre[0].rec[i].v[F_KEY]), 0);
        if (i > 0)
            CHECK(pre[0].rec[i].v[F_KEY] >= 16);
    }
    CHECK_EQ(pre[0].nrec, pre[1].nrec);
    CHECK_EQ(pre[2].nrec, 1); /* nothing was created from MPI_COMM_SELF */
}

/* The end of phase 4: frees dup (its handle is then refused), the registrations dup_regs
 * (comm_free and comm_create on dup), child_free and pre; checks their events
 * (check_comm_events), no drops, timestamps in order. pre: as init_mpit_then_mpi;
 * child_free, child_size: create_children's; world_comms, world_win: the comm_create
 * records pre[0] got for create_children and for a window. */
static inline void free_dup_and_check(MPI_Comm dup, struct reg pre[3], struct reg dup_regs[2],
                                      struct reg *child_free, int child_size, int world_comms,
                                      int world_win, int disabled)
{
    MPI_Comm dup_handle = dup;
    MPI_T_event_registration bad;
    MPI_Comm_free(&dup);
    CHECK_EQ(MPI_T_event_handle_alloc(dup_regs[0].index, &dup_handle, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);
    reg_free_all(dup_regs, 2);
    reg_free_all(child_free, 1);
    CHECK_EQ(dup_regs[0].dropped + dup_regs[1].dropped + child_free->dropped, 0);
    CHECK_EQ(ts_errors, 0);
    check_comm_events(pre, &dup_regs[0], &dup_regs[1], child_free, child_size, world_comms,
                      world_win, disabled);
    reg_free_all(pre, 3);
}

/* ---------------------------------------------------------------- 5. early arrival */
/* A message that arrives before its receiver has its communicator. In a round, rank 0
 * (early_sender) duplicates pair and at once sends EARLY_BYTES with TAG_EARLY on the new
 * communicator, then a marker (TAG_MARKER) on MPI_COMM_WORLD. Rank 1 holds itself inside
 * its own MPI_Comm_dup of pair (a registration's hold, mpit_record.h; which one, and when a
 * round counts, depend on the MPI) until the marker came, then registers on the new
 * communicator and receives (early_receive): the message's events reach those
 * registrations (check_early). */
enum { TAG_EARLY = 4242, TAG_GO = 4244, EARLY_BYTES = 44 };
enum { O_ARRIVED, O_INS, O_REM, O_SU_BEGIN, O_SU_END, NO };

/* rank 0's round; returns whether rank 1 counted it */
static inline int early_sender(MPI_Comm pair)
{
    static char buf[EARLY_BYTES];
    int token = 0, counts = 0;
    MPI_Comm c;
    MPI_Recv(&token, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_dup(pair, &c);
    MPI_Send(buf, EARLY_BYTES, MPI_BYTE, 1, TAG_EARLY, c);
    MPI_Send(&token, 1, MPI_INT, 1, TAG_MARKER, MPI_COMM_WORLD);
    MPI_Recv(&counts, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_free(&c);
    return counts;
}

/* rank 1, right after creating c: registrations o on c (the message's five types),
 * before anything is received on it; the message and the marker received; o freed */
static inline void early_receive(MPI_Comm c, struct reg o[NO])
{
    static const char *names[NO] = {"message_arrived", "unexpected_insert", "unexpected_remove",
                                     "search_unexpected_begin", "search_unexpected_end"};
    static char buf[64];
    int token;
    for (int i = 0; i < NO; i++)
        reg_alloc(&o[i], names[i], &c, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_Recv(buf, 64, MPI_BYTE, 0, TAG_EARLY, c, MPI_STATUS_IGNORE);
    MPI_Recv(&token, 1, MPI_INT, 0, TAG_MARKER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    reg_free_all(o, NO);
}

/* A counted round's events, one of each type, all with the message's seq: arrival and
 * insert (raised when the receive first searched the queue), then the search that found
 * it. Returns the seq, 0 if an event is missing. */
static inline int64_t check_early(const struct reg o[NO])
{
    int ok = 1;
    for (int i = 0; i < NO; i++) {
        CHECK_EQ(o[i].nrec, 1);
        ok &= o[i].nrec == 1;
    }
    if (!ok)
        return 0;
    const struct rec *ar = &o[O_ARRIVED].rec[0], *in = &o[O_INS].rec[0],
                     *rm = &o[O_REM].rec[0], *sb = &o[O_SU_BEGIN].rec[0],
                     *se = &o[O_SU_END].rec[0];
    int64_t seq = ar->v[F_SEQ];
    CHECK(seq != 0);
    for (int i = O_ARRIVED; i <= O_INS; i++) {
        const struct rec *x = &o[i].rec[0];
        CHECK_EQ(x->v[F_SEQ], seq);
        CHECK_EQ(x->v[F_SOURCE], 0);
        CHECK_EQ(x->v[F_TAG], TAG_EARLY);
        CHECK_EQ(x->v[F_BYTES], EARLY_BYTES);
    }
    CHECK_EQ(rm->v[F_SEQ], seq);
    CHECK_EQ(se->v[F_SEQ], seq);
    CHECK_EQ(se->v[F_FOUND], 1);
    CHECK_EQ(sb->v[F_FOUND], -1);
    CHECK_EQ(sb->v[F_TAG], TAG_EARLY);
    CHECK(ar->order < in->order && in->order < sb->order && sb->order < se->order);
    return seq;
}

/* Phase 5 at ranks 0 and 1: round(pair, &seq) at rank 1 (early_sender at rank 0), up to
 * 5 rounds until one counts; at least one must. */
static inline void run_early(int (*round)(MPI_Comm pair, int64_t *seq))
{
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, my_rank < 2 ? 0 : MPI_UNDEFINED, my_rank, &pair);
    if (pair == MPI_COMM_NULL)
        return;
    int counted = 0, tries = 0;
    int64_t seq = 0;
    while (!counted && tries++ < 5)
        counted = my_rank == 0 ? early_sender(pair) : round(pair, &seq);
    if (!counted)
        fprintf(stderr, "[rank %d] early arrival: in %d rounds, never a message that arrived "
                "before its receiver had its communicator\n", my_rank, tries - 1);
    CHECK(counted);
    if (my_rank == 1 && counted)
        printf("test_events: a message that arrived before its receiver had its communicator "
               "(seq %lld) reached its registrations (%d round%s)\n", (long long)seq, tries,
               tries > 1 ? "s" : "");
    MPI_Comm_free(&pair);
}

#endif
