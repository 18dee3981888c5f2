/* tc_core.c -- attaching a tool: the MPI_Init/MPI_Finalize wrappers, MPI_T tables, registrations that follow
 * communicators and windows, per-thread recording and the fold (see tc.h). */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ tables */
static struct tc_type *types;
static int ntypes;
static struct tc_source *sources;
static int nsources;
static int my_rank, my_size;
static int attached; /* registrations exist; wrappers follow communicators */

/* One registration: a type on a communicator, on a window, or unbound. Never released
 * before finish, so a late callback never sees freed memory. */
struct tc_reg {
    struct tc_type *type;
    int comm; /* tc_comm id, -1 for window-bound and unbound types */
    int win;  /* tc_win id, -1 for the others */
    MPI_T_event_registration handle;
    int live;
    struct tc_reg *next;
};
static struct tc_reg *regs;
static _Atomic int frees_pending;

static struct tc_comm **comms;
static int ncomms, comms_cap;
static struct tc_win **wins;
static int nwins, wins_cap;

int tc_num_types(void) { return ntypes; }
struct tc_type *tc_types(void) { return types; }
int tc_num_sources(void) { return nsources; }
const struct tc_source *tc_sources(void) { return sources; }
int tc_num_comms(void) { return ncomms; }
const struct tc_comm *tc_comm(int id) { return id >= 0 && id < ncomms ? comms[id] : NULL; }
int tc_num_wins(void) { return nwins; }
const struct tc_win *tc_win(int id) { return id >= 0 && id < nwins ? wins[id] : NULL; }
int tc_rank(void) { return my_rank; }

const char *tc_object_label(const struct tc_record *r)
{
    const struct tc_win *w = tc_win(r->win);
    const struct tc_comm *c = tc_comm(r->comm);
    return w ? w->label : c ? c->label : "-";
}

double tc_seconds(int source, MPI_Count ts)
{
    if (source < 0 || source >= nsources || sources[source].ticks_per_second <= 0)
        return 0;
    const struct tc_source *s = &sources[source];
    return (double)(ts - s->t0) / (double)s->ticks_per_second;
}

/* ------------------------------------------------------------------ per-thread rings
 * Each thread that runs a callback claims one ring (an index in a preallocated array, by
 * an atomic increment) and keeps it in an initial-exec TLS variable: the library is
 * loaded at startup (LD_PRELOAD or linked), so the access is a plain load relative to the
 * thread pointer, safe in a signal handler (no __tls_get_addr, no allocation).
 * A slot is claimed by a CAS on tail (so a signal handler interrupting its own thread's
 * callback claims the next slot), filled, then published by its ready flag. The folder
 * (one at a time, under fold_lock) consumes from head while slots are ready. */
struct tc_slot {
    _Atomic int ready;
    struct tc_record rec;
};
struct tc_ring {
    _Atomic uint64_t head, tail;
    struct tc_slot *slots;
};
static struct tc_ring rings[TC_MAX_THREADS];
static uint64_t ring_cap; /* a power of two: a slot's index is a mask, not a division */
static _Atomic int rings_used;
static _Atomic long not_kept;
static _Thread_local struct tc_ring *my_ring __attribute__((tls_model("initial-exec")));
static _Thread_local int my_ring_none __attribute__((tls_model("initial-exec"))); /* no ring left */
static pthread_mutex_t fold_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tc_record *batch;
static size_t batch_cap;
static uint64_t fold_at; /* records waiting that make a callback fold (tc_tool.live: 1) */
static int count_only;   /* tc_count_only(): callbacks count, nothing is recorded */

long tc_not_kept(void) { return atomic_load(&not_kept); }
void tc_count_only(void) { count_only = 1; }

static struct tc_record *claim(void)
{
    struct tc_ring *r = my_ring;
    if (!r) {
        if (my_ring_none)
            goto lost;
        int k = atomic_fetch_add(&rings_used, 1);
        if (k >= TC_MAX_THREADS || !rings[k].slots) {
            my_ring_none = 1;
            goto lost;
        }
        my_ring = r = &rings[k];
    }
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    do {
        if (t - atomic_load_explicit(&r->head, memory_order_acquire) >= ring_cap)
            goto lost;
    } while (!atomic_compare_exchange_weak_explicit(&r->tail, &t, t + 1, memory_order_acq_rel,
                                                    memory_order_relaxed));
    struct tc_record *rec = &r->slots[t & (ring_cap - 1)].rec;
    rec->order = t;
    return rec;
lost:
    atomic_fetch_add_explicit(&not_kept, 1, memory_order_relaxed);
    return NULL;
}

static void publish(struct tc_record *rec)
{
    struct tc_slot *s = (struct tc_slot *)((char *)rec - offsetof(struct tc_slot, rec));
    atomic_store_explicit(&s->ready, 1, memory_order_release);
}

static int by_time(const void *a, const void *b)
{
    const struct tc_record *x = a, *y = b;
    if (x->timestamp != y->timestamp)
        return x->timestamp < y->timestamp ? -1 : 1;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return 0;
}

static int sorted(const struct tc_record *b, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (by_time(&b[i - 1], &b[i]) > 0)
            return 0;
    return 1;
}

/* Whether the rings hold enough records for a fold (the tool's process() in batches:
 * the fold's fixed cost, the lock and the sort, shared by many records). */
static int fold_due(void)
{
    uint64_t n = 0;
    int used = atomic_load_explicit(&rings_used, memory_order_relaxed);
    for (int k = 0; k < used && k < TC_MAX_THREADS; k++)
        n += atomic_load_explicit(&rings[k].tail, memory_order_relaxed) -
             atomic_load_explicit(&rings[k].head, memory_order_relaxed);
    return n >= fold_at;
}

/* Takes what every ring holds, sorts it by timestamp and lets the tool process it. Only
 * where the callback may block (MPI_RESTRICTED, NONE) or at finalize. A nested fold (the
 * tool's process() made the MPI deliver more instances) finds the lock taken and leaves
 * its records to the outer fold's next round. */
static void fold(void)
{
    if (pthread_mutex_trylock(&fold_lock) != 0)
        return;
    for (;;) {
        size_t n = 0;
        int used = atomic_load(&rings_used);
        for (int k = 0; k < used && k < TC_MAX_THREADS; k++) {
            struct tc_ring *r = &rings[k];
            if (!r->slots)
                continue;
            uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
            for (;; h++) {
                struct tc_slot *s = &r->slots[h & (ring_cap - 1)];
                if (!atomic_load_explicit(&s->ready, memory_order_acquire))
                    break;
                if (n == batch_cap) {
                    size_t cap = batch_cap ? 2 * batch_cap : 1024;
                    struct tc_record *b = realloc(batch, cap * sizeof *b);
                    if (!b)
                        break; /* leave the rest for the next fold */
                    batch = b, batch_cap = cap;
                }
                batch[n++] = s->rec;
                atomic_store_explicit(&s->ready, 0, memory_order_relaxed);
            }
            atomic_store_explicit(&r->head, h, memory_order_release);
        }
        if (n == 0)
            break;
        if (!sorted(batch, n))
            qsort(batch, n, sizeof *batch, by_time);
        for (size_t i = 0; i < n; i++)
            tc_tool.process(&batch[i]);
    }
    pthread_mutex_unlock(&fold_lock);
}

/* ------------------------------------------------------------------ callbacks */
static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety safety,
                     void *user_data)
{
    (void)h;
    struct tc_reg *g = user_data;
    atomic_fetch_add_explicit(&g->type->delivered, 1, memory_order_relaxed);
    struct tc_record *rec = claim();
    if (rec) {
        rec->kind = TC_REC_EVENT;
        rec->type = (int32_t)(g->type - types);
        rec->comm = g->comm;
        rec->win = g->win;
        rec->count = 0;
        rec->safety = (int32_t)safety;
        if (MPI_T_event_get_timestamp(inst, &rec->timestamp) != MPI_SUCCESS)
            rec->timestamp = 0;
        if (MPI_T_event_get_source(inst, &rec->source) != MPI_SUCCESS)
            rec->source = -1;
        rec->has_data = g->type->extent <= TC_DATA && MPI_T_event_copy(inst, rec->data) == MPI_SUCCESS;
        publish(rec);
    }
    if ((safety == MPI_T_CB_REQUIRE_NONE || safety == MPI_T_CB_REQUIRE_MPI_RESTRICTED) && fold_due())
        fold();
}

/* The callback of a tool that only counts (tc_count_only): nothing claimed or copied. */
static void on_count(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety safety,
                     void *user_data)
{
    (void)inst, (void)h, (void)safety;
    struct tc_reg *g = user_data;
    atomic_fetch_add_explicit(&g->type->delivered, 1, memory_order_relaxed);
}

static void on_dropped(MPI_Count count, MPI_T_event_registration h, int source_index,
                       MPI_T_cb_safety safety, void *user_data)
{
    (void)h;
    struct tc_reg *g = user_data;
    atomic_fetch_add_explicit(&g->type->dropped, (long)count, memory_order_relaxed);
    if (count_only)
        return;
    struct tc_record *rec = claim();
    if (rec) {
        rec->kind = TC_REC_DROPPED;
        rec->type = (int32_t)(g->type - types);
        rec->comm = g->comm;
        rec->win = g->win;
        rec->count = (int64_t)count;
        rec->source = source_index;
        rec->safety = (int32_t)safety;
        rec->has_data = 0;
        if (MPI_T_source_get_timestamp(source_index, &rec->timestamp) != MPI_SUCCESS)
            rec->timestamp = 0;
        publish(rec);
    }
    /* No fold here: the next instance of that source follows and folds. */
}

static void on_free(MPI_T_event_registration h, MPI_T_cb_safety safety, void *user_data)
{
    (void)h, (void)safety, (void)user_data;
    atomic_fetch_sub_explicit(&frees_pending, 1, memory_order_release);
}

/* A record the tool core makes itself (TC_REC_WIN_*): timestamp now, on source 0. */
static void record_mark(int kind, const struct tc_win *w)
{
    if (nsources <= 0 || count_only)
        return;
    struct tc_record *rec = claim();
    if (!rec)
        return;
    rec->kind = kind;
    rec->type = -1;
    rec->source = 0;
    rec->comm = w->comm;
    rec->win = w->id;
    rec->count = 0;
    rec->safety = MPI_T_CB_REQUIRE_NONE;
    rec->has_data = 0;
    if (MPI_T_source_get_timestamp(0, &rec->timestamp) != MPI_SUCCESS)
        rec->timestamp = 0;
    publish(rec);
}

/* ------------------------------------------------------------------ registrations */
/* obj: a pointer to the communicator or window handle (NULL for unbound types). */
static void reg_add(struct tc_type *t, int comm_id, int win_id, void *obj)
{
    struct tc_reg *g = calloc(1, sizeof *g);
    if (!g)
        return;
    g->type = t;
    g->comm = comm_id;
    g->win = win_id;
    if (MPI_T_event_handle_alloc(t->index, obj, MPI_INFO_NULL, &g->handle) != MPI_SUCCESS) {
        free(g);
        return;
    }
    /* the dropped handler first, so nothing is lost uncounted */
    MPI_T_event_set_dropped_handler(g->handle, on_dropped);
    if (MPI_T_event_register_callback(g->handle, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, g,
                                      count_only ? on_count : on_event) != MPI_SUCCESS) {
        MPI_T_event_handle_free(g->handle, NULL, NULL);
        free(g);
        return;
    }
    g->live = 1;
    g->next = regs;
    regs = g;
}

static void reg_free(struct tc_reg *g)
{
    if (!g->live)
        return;
    g->live = 0;
    atomic_fetch_add(&frees_pending, 1);
    if (MPI_T_event_handle_free(g->handle, NULL, on_free) != MPI_SUCCESS)
        atomic_fetch_sub(&frees_pending, 1);
}

void tc_comm_follow(MPI_Comm c, const char *label)
{
    if (!attached || c == MPI_COMM_NULL)
        return;
    if (ncomms == comms_cap) {
        int cap = comms_cap ? 2 * comms_cap : 8;
        struct tc_comm **n = realloc(comms, (size_t)cap * sizeof *n);
        if (!n)
            return;
        comms = n, comms_cap = cap;
    }
    struct tc_comm *tc = calloc(1, sizeof *tc);
    if (!tc)
        return;
    tc->comm = c;
    tc->id = ncomms;
    if (label)
        snprintf(tc->label, sizeof tc->label, "%s", label);
    else
        snprintf(tc->label, sizeof tc->label, "comm#%d", tc->id);
    PMPI_Comm_rank(c, &tc->rank);
    PMPI_Comm_size(c, &tc->size);
    tc->active = 1;
    comms[ncomms++] = tc;
    for (int i = 0; i < ntypes; i++)
        if (types[i].selected && types[i].bind == MPI_T_BIND_MPI_COMM)
            reg_add(&types[i], tc->id, -1, &tc->comm);
    if (tc_tool.comm_added)
        tc_tool.comm_added(tc);
}

static int comm_id_of(MPI_Comm c)
{
    for (int i = ncomms - 1; i >= 0; i--)
        if (comms[i]->active && comms[i]->comm == c)
            return i;
    return -1;
}

/* The window's identity across ranks: its members (their world ranks; if not known, this
 * process and the window's id, so it is never merged with another rank's window) and how
 * many windows over the same members came before. */
static void win_identity(struct tc_win *w, const int *world)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    w->world = world ? malloc((size_t)w->size * sizeof *w->world) : NULL;
    if (w->world) {
        memcpy(w->world, world, (size_t)w->size * sizeof *w->world);
        for (int k = 0; k < w->size; k++)
            h = (h ^ (uint64_t)(uint32_t)world[k]) * 1099511628211ull;
    } else {
        h = ((h ^ 0x10ca1u) * 1099511628211ull ^ (uint64_t)my_rank) * 1099511628211ull ^ (uint64_t)w->id;
    }
    w->group_hash = h;
    for (int i = 0; i < nwins; i++)
        if (wins[i] != w && wins[i]->group_hash == h)
            w->group_seq++;
}

static struct tc_win *win_new(void)
{
    if (nwins == wins_cap) {
        int cap = wins_cap ? 2 * wins_cap : 8;
        struct tc_win **n = realloc(wins, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        wins = n, wins_cap = cap;
    }
    struct tc_win *w = calloc(1, sizeof *w);
    if (w)
        w->id = nwins;
    return w;
}

void tc_win_follow(tc_win_handle win, MPI_Comm comm, long long bytes, const int *world)
{
    if (!attached)
        return;
    struct tc_win *w = win_new();
    if (!w)
        return;
    w->win = win;
    snprintf(w->label, sizeof w->label, "win#%d", w->id);
    w->comm = comm_id_of(comm);
    PMPI_Comm_rank(comm, &w->rank);
    PMPI_Comm_size(comm, &w->size);
    w->bytes = bytes;
    w->active = 1;
    wins[nwins++] = w;
    win_identity(w, world);
    record_mark(TC_REC_WIN_CREATED, w); /* before any instance on the window */
    for (int i = 0; i < ntypes; i++)
        if (types[i].selected && types[i].bind == MPI_T_BIND_MPI_WIN)
            reg_add(&types[i], -1, w->id, &w->win);
    if (tc_tool.win_added)
        tc_tool.win_added(w);
}

void tc_win_unfollow(tc_win_handle win)
{
    if (!attached)
        return;
    for (int i = 0; i < nwins; i++) {
        if (!wins[i]->active || wins[i]->win != win)
            continue;
        wins[i]->active = 0;
        record_mark(TC_REC_WIN_FREED, wins[i]);
        for (struct tc_reg *g = regs; g; g = g->next)
            if (g->win == i)
                reg_free(g);
    }
}

void tc_comm_unfollow(MPI_Comm c)
{
    if (!attached)
        return;
    for (int i = 0; i < ncomms; i++) {
        if (!comms[i]->active || comms[i]->comm != c)
            continue;
        comms[i]->active = 0;
        for (struct tc_reg *g = regs; g; g = g->next)
            if (g->comm == i)
                reg_free(g);
    }
}

/* ------------------------------------------------------------------ attach / detach */
static int type_size(MPI_Datatype t)
{
    int s = 0;
    return PMPI_Type_size(t, &s) == MPI_SUCCESS ? s : 0;
}

static void element_names(struct tc_type *t, MPI_T_enum e)
{
    for (int i = 0; i < t->num_elements; i++)
        snprintf(t->elem_names[i], sizeof t->elem_names[i], "e%d", i);
    int n = 0, len = 0;
    char ename[8];
    len = (int)sizeof ename;
    if (e == MPI_T_ENUM_NULL || MPI_T_enum_get_info(e, &n, ename, &len) != MPI_SUCCESS)
        return;
    for (int k = 0; k < n; k++) {
        int value = 0, nl = TC_ELEM_NAME;
        char buf[TC_ELEM_NAME];
        if (MPI_T_enum_get_item(e, k, &value, buf, &nl) == MPI_SUCCESS && value >= 0 &&
            value < t->num_elements)
            snprintf(t->elem_names[value], sizeof t->elem_names[value], "%s", buf);
    }
}

/* Event type i as MPI_T describes it, into t; 0 if it is not described or has more
 * elements than the tools decode. */
static int describe_type(int i, struct tc_type *t)
{
    int name_len = TC_NAME, verbosity = 0, bind = 0, num = TC_MAX_ELEMS, desc_len = 0;
    MPI_T_enum e = MPI_T_ENUM_NULL;
    if (MPI_T_event_get_info(i, t->name, &name_len, &verbosity, t->types, t->displs, &num, &e, NULL, NULL,
                             &desc_len, &bind) != MPI_SUCCESS ||
        num > TC_MAX_ELEMS)
        return 0;
    t->index = i;
    t->verbosity = verbosity;
    t->bind = bind;
    t->num_elements = num;
    for (int k = 0; k < num; k++)
        t->sizes[k] = type_size(t->types[k]);
    t->extent = num ? (int)t->displs[num - 1] + t->sizes[num - 1] : 0;
    /* a text element covers the bytes up to the next element (or the end) */
    for (int k = 0; k < num; k++)
        if (t->types[k] == MPI_CHAR)
            t->sizes[k] = (k + 1 < num ? (int)t->displs[k + 1] : t->extent) - (int)t->displs[k];
    for (int k = 0; k < num; k++)
        t->kinds[k] = (unsigned char)tc_elem_kind(t->types[k], t->sizes[k]);
    element_names(t, e);
    return 1;
}

static int read_tables(void)
{
    int n = 0;
    if (MPI_T_event_get_num(&n) != MPI_SUCCESS || n < 0)
        return -1;
    types = calloc((size_t)(n ? n : 1), sizeof *types);
    if (!types)
        return -1;
    for (int i = 0; i < n; i++)
        ntypes += describe_type(i, &types[ntypes]);
    if (MPI_T_source_get_num(&nsources) != MPI_SUCCESS || nsources < 0)
        nsources = 0;
    sources = calloc((size_t)(nsources ? nsources : 1), sizeof *sources);
    if (!sources)
        return -1;
    for (int s = 0; s < nsources; s++) {
        struct tc_source *src = &sources[s];
        int nl = TC_NAME, dl = 0;
        if (MPI_T_source_get_info(s, src->name, &nl, NULL, &dl, &src->ordering, &src->ticks_per_second,
                                  &src->max_ticks, NULL) != MPI_SUCCESS)
            snprintf(src->name, sizeof src->name, "source%d", s);
        MPI_T_source_get_timestamp(s, &src->t0);
    }
    return 0;
}

/* Selects the tool's types; with none (the MPI declares no event type, or none the tool
 * wants), says so once per run (rank 0: every rank runs the same MPI) and returns 0. */
static int select_types(void)
{
    int n = 0;
    for (int i = 0; i < ntypes; i++) {
        types[i].selected = tc_tool.select(&types[i]) != 0;
        n += types[i].selected;
    }
    if (n > 0)
        return n;
    if (my_rank == 0 && ntypes == 0)
        fprintf(stderr, "%s: the MPI declares no MPI_T event types: nothing to record, the tool is not "
                        "attached\n", tc_tool.name);
    else if (my_rank == 0)
        fprintf(stderr, "%s: none of the MPI's %d MPI_T event types is one the tool records: nothing to "
                        "record, the tool is not attached\n", tc_tool.name, ntypes);
    return 0;
}

static void attach(void)
{
    int provided;
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &my_size);
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (tc_tool.configure() != 0 || read_tables() != 0 || select_types() == 0) {
        MPI_T_finalize();
        return;
    }
    long cap = tc_env_long("MPITEV_TOOL_RING", 16384);
    if (cap <= 0)
        cap = 16384;
    for (ring_cap = 1; ring_cap < (uint64_t)cap && ring_cap < (1ull << 30); ring_cap *= 2)
        ; /* MPITEV_TOOL_RING rounded up to a power of two */
    fold_at = tc_tool.live || ring_cap < 4 ? 1 : ring_cap / 4;
    /* calloc of this size maps zero pages: only what a thread writes becomes resident */
    for (int k = 0; k < TC_MAX_THREADS && !count_only; k++)
        rings[k].slots = calloc(ring_cap, sizeof *rings[k].slots);
    if (tc_tool.start)
        tc_tool.start(my_rank, my_size);
    attached = 1;
    tc_comm_follow(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    tc_comm_follow(MPI_COMM_SELF, "MPI_COMM_SELF");
    for (int i = 0; i < ntypes; i++)
        if (types[i].selected && types[i].bind == MPI_T_BIND_NO_OBJECT)
            reg_add(&types[i], -1, -1, NULL);
}

static void detach(void)
{
    if (!attached)
        return;
    attached = 0;
    for (struct tc_reg *g = regs; g; g = g->next)
        reg_free(g);
    /* A free callback may wait for the MPI's progress engine (buffered instances still in
     * flight): give it turns with a cheap local call. */
    for (int spin = 0; spin < 100000 && atomic_load_explicit(&frees_pending, memory_order_acquire) > 0;
         spin++) {
        int flag;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    }
    fold();
    tc_tool.finish(my_rank, my_size);
    MPI_T_finalize();
}

/* ------------------------------------------------------------------ PMPI wrappers */
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
    detach();
    return PMPI_Finalize();
}
