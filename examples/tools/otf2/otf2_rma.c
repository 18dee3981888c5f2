/* otf2_rma.c -- the tracer's one-sided part: the catalogue's window-bound events as
 * OTF2's own RMA records, and the windows as OTF2 RmaWin definitions.
 *
 *   put_started          RmaPut (remote: target, bytes, matching id: op_id)
 *   get_started          RmaGet
 *   accumulate_started   RmaAtomic, type ACCUMULATE (bytes sent: bytes, received: 0)
 *   *_complete           RmaOpCompleteBlocking (matching id: op_id)
 *   lock_acquired        RmaAcquireLock (lock_type 1 exclusive, 2 shared; target -1:
 *                        MPI_Win_lock_all, remote OTF2_UNDEFINED_UINT32)
 *   lock_released        RmaReleaseLock
 *   sync_begin/sync_end  Enter/Leave of a region named after the call (kind:
 *                        MPI_Win_fence, MPI_Win_lock, ...); a fence also brackets
 *                        RmaCollectiveBegin/RmaCollectiveEnd (BARRIER, process and
 *                        memory synchronization), an MPI_Win_sync ends with RmaSync
 *                        (MEMORY) on the process's own rank.
 * Every record carries the instance's elements as attributes (target_disp, op, ...), as
 * the regions of other instances do. A sync_end without its sync_begin on the location,
 * or a sync_begin while one is open there, is written as an ordinary instance region.
 *
 * Completion: the catalogue raises *_complete once per operation, at the latest in the
 * synchronization call that completes it at the origin, for operations without a
 * request; OTF2's RmaOpCompleteBlocking is the local completion of exactly those
 * (RmaOpCompleteNonBlocking is for request-based operations, completed by a wait or
 * test). Readers pair every RmaPut/RmaGet/RmaAtomic with its local completion record;
 * RmaOpCompleteRemote is an extra, optional record, and would say nothing more here,
 * since the catalogue has one completion point per operation.
 *
 * Windows: the tool core records a window's creation and free (tc_wins.c); each becomes
 * RmaWinCreate / RmaWinDestroy on every location of the process, with the process's
 * window id (tc_win id). At finalize rank 0 gathers every rank's windows: the same
 * members (world ranks) and the same place among the windows over those members make one
 * global window; it defines a COMM_LOCATIONS group (rank r: location r * nsources), per
 * distinct member set a COMM_GROUP group and a Comm, and per window an RmaWin; each
 * location's local definitions map the process's window ids to the global ones. */
#include "otf2_tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_NONE, K_PUT, K_GET, K_ACC, K_DONE, K_LOCK, K_UNLOCK, K_SYNC_BEGIN, K_SYNC_END };

/* The catalogue's codes (catalog.h: MPITEV_CATALOG_LOCK_SHARED, MPITEV_CATALOG_SYNC_*), the
 * same on every MPI. */
enum { LOCK_SHARED = 2 };
enum { SYNC_FENCE = 1, SYNC_WIN_SYNC = 10, SYNC_KINDS = 14 };
static const char *const sync_names[SYNC_KINDS] = {
    "MPI_Win_fence",       "MPI_Win_lock",       "MPI_Win_unlock",       "MPI_Win_lock_all",
    "MPI_Win_unlock_all",  "MPI_Win_flush",      "MPI_Win_flush_all",    "MPI_Win_flush_local",
    "MPI_Win_flush_local_all", "MPI_Win_sync",   "MPI_Win_start",        "MPI_Win_complete",
    "MPI_Win_post",        "MPI_Win_wait"};

struct rtype {
    int role;
    int e_target, e_bytes, e_op_id, e_lock_type, e_kind;
};
static struct rtype *rt;
static int *open_kind;             /* per source: the sync kind open on its location, 0 none */
static OTF2_RegionRef sync_region; /* the region of kind 1; kind k: sync_region + k - 1 */

/* rank 0 after rma_unify: the global windows and their communicators */
struct gwin {
    uint64_t hash, seq;
    int comm;
};
struct gcomm {
    uint64_t hash;
    uint32_t n;
    uint64_t *members; /* world ranks */
};
static struct gwin *gwins;
static int ngwins;
static struct gcomm *gcomms;
static int ngcomms;
static uint64_t *global_of; /* this rank: global id of each window */

int rma_start(void)
{
    static const struct {
        const char *name;
        int role;
    } table[] = {
        {"put_started", K_PUT},         {"get_started", K_GET},       {"accumulate_started", K_ACC},
        {"put_complete", K_DONE},       {"get_complete", K_DONE},     {"accumulate_complete", K_DONE},
        {"lock_acquired", K_LOCK},      {"lock_released", K_UNLOCK},  {"sync_begin", K_SYNC_BEGIN},
        {"sync_end", K_SYNC_END},
    };
    int nt = tc_num_types(), ns = tc_num_sources();
    rt = calloc((size_t)(nt ? nt : 1), sizeof *rt);
    open_kind = calloc((size_t)(ns ? ns : 1), sizeof *open_kind);
    if (!rt || !open_kind)
        return -1;
    sync_region = (OTF2_RegionRef)nt + 1; /* after the types' regions and MPI_T_events_dropped */
    for (int i = 0; i < nt; i++) {
        const struct tc_type *t = &tc_types()[i];
        for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
            if (strcmp(t->name, table[k].name) == 0)
                rt[i].role = table[k].role;
        rt[i].e_target = tc_elem_find(t, "target");
        rt[i].e_bytes = tc_elem_find(t, "bytes");
        rt[i].e_op_id = tc_elem_find(t, "op_id");
        rt[i].e_lock_type = tc_elem_find(t, "lock_type");
        rt[i].e_kind = tc_elem_find(t, "kind");
    }
    return 0;
}

static int64_t elem(const struct tc_record *r, int e) { return tc_elem_int(&tc_types()[r->type], r, e); }

static uint32_t remote(const struct tc_record *r, int e)
{
    int64_t v = e >= 0 ? elem(r, e) : -1;
    return v < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)v;
}

/* Whether a sync_begin / sync_end can be a region's Enter / Leave on its location. */
static int sync_fits(const struct rtype *k, const struct tc_record *r)
{
    int64_t kind = elem(r, k->e_kind);
    if (k->role == K_SYNC_BEGIN)
        return kind >= 1 && kind <= SYNC_KINDS && open_kind[r->source] == 0;
    if (k->role == K_SYNC_END)
        return kind >= 1 && kind == open_kind[r->source];
    return 1;
}

static int sync_begin(OTF2_EvtWriter *w, const struct rtype *k, const struct tc_record *r, OTF2_TimeStamp ts)
{
    int kind = (int)elem(r, k->e_kind);
    OTF2_EvtWriter_Enter(w, trace_alist, ts, sync_region + (OTF2_RegionRef)kind - 1);
    open_kind[r->source] = kind;
    if (kind != SYNC_FENCE)
        return 1;
    OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, ts);
    return 2;
}

static int sync_end(OTF2_EvtWriter *w, const struct tc_record *r, OTF2_TimeStamp ts)
{
    int kind = open_kind[r->source], n = 1;
    OTF2_RmaWinRef win = (OTF2_RmaWinRef)r->win;
    const struct tc_win *tw = tc_win(r->win);
    if (kind == SYNC_FENCE) {
        OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, ts, OTF2_COLLECTIVE_OP_BARRIER,
                                        OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, win,
                                        OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
        n++;
    } else if (kind == SYNC_WIN_SYNC && tw) {
        OTF2_EvtWriter_RmaSync(w, NULL, ts, win, (uint32_t)tw->rank, OTF2_RMA_SYNC_TYPE_MEMORY);
        n++;
    }
    OTF2_EvtWriter_Leave(w, trace_alist, ts, sync_region + (OTF2_RegionRef)kind - 1);
    open_kind[r->source] = 0;
    return n;
}

static OTF2_LockType lock_type(const struct rtype *k, const struct tc_record *r)
{
    return elem(r, k->e_lock_type) == LOCK_SHARED ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
}

/* Writes the record; returns how many records that made. */
static int write_rma(OTF2_EvtWriter *w, const struct rtype *k, const struct tc_record *r, OTF2_TimeStamp ts)
{
    OTF2_RmaWinRef win = (OTF2_RmaWinRef)r->win;
    uint64_t bytes = (uint64_t)elem(r, k->e_bytes), id = (uint64_t)elem(r, k->e_op_id);
    uint32_t target = remote(r, k->e_target);
    switch (k->role) {
    case K_PUT:
        OTF2_EvtWriter_RmaPut(w, trace_alist, ts, win, target, bytes, id);
        return 1;
    case K_GET:
        OTF2_EvtWriter_RmaGet(w, trace_alist, ts, win, target, bytes, id);
        return 1;
    case K_ACC:
        OTF2_EvtWriter_RmaAtomic(w, trace_alist, ts, win, target, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, bytes, 0, id);
        return 1;
    case K_DONE:
        OTF2_EvtWriter_RmaOpCompleteBlocking(w, trace_alist, ts, win, id);
        return 1;
    case K_LOCK:
        OTF2_EvtWriter_RmaAcquireLock(w, trace_alist, ts, win, target, 0, lock_type(k, r));
        return 1;
    case K_UNLOCK:
        OTF2_EvtWriter_RmaReleaseLock(w, trace_alist, ts, win, target, 0);
        return 1;
    case K_SYNC_BEGIN:
        return sync_begin(w, k, r, ts);
    default:
        return sync_end(w, r, ts);
    }
}

int rma_process(const struct tc_record *r)
{
    if (r->win < 0 || !rt) /* not bound to a window: the usual case, decided first */
        return 0;
    const struct rtype *k = &rt[r->type];
    OTF2_EvtWriter *w = trace_writer(r->source);
    if (k->role == K_NONE || !r->has_data || !w || !sync_fits(k, r))
        return 0;
    OTF2_TimeStamp ts = trace_time(r->source, r->timestamp);
    trace_attributes(r);
    trace_wrote(r->source, ts, write_rma(w, k, r, ts));
    return 1;
}

void rma_window_record(const struct tc_record *r)
{
    for (int s = 0; s < tc_num_sources(); s++) {
        OTF2_EvtWriter *w = trace_writer(s);
        if (!w)
            continue;
        OTF2_TimeStamp ts = trace_time_on(s, r->source, r->timestamp);
        if (r->kind == TC_REC_WIN_CREATED)
            OTF2_EvtWriter_RmaWinCreate(w, NULL, ts, (OTF2_RmaWinRef)r->win);
        else
            OTF2_EvtWriter_RmaWinDestroy(w, NULL, ts, (OTF2_RmaWinRef)r->win);
        trace_wrote(s, ts, 1);
    }
}

void rma_close(void)
{
    for (int s = 0; open_kind && s < tc_num_sources(); s++) {
        OTF2_EvtWriter *w = trace_writer(s);
        if (!w || open_kind[s] == 0)
            continue;
        OTF2_TimeStamp ts = trace_time(s, 0); /* the location's last time */
        OTF2_EvtWriter_Leave(w, NULL, ts, sync_region + (OTF2_RegionRef)open_kind[s] - 1);
        trace_wrote(s, ts, 1);
        open_kind[s] = 0;
    }
}

/* ---------------------------------------------------------------- unification */
/* This rank's windows as uint64s: per window hash, seq, n and n world ranks (n 0: the
 * members are not known). */
static uint64_t *pack_windows(int *len)
{
    size_t n = 0;
    for (int i = 0; i < tc_num_wins(); i++)
        n += 3 + (tc_win(i)->world ? (size_t)tc_win(i)->size : 0);
    uint64_t *p = malloc((n ? n : 1) * sizeof *p), *q = p;
    for (int i = 0; p && i < tc_num_wins(); i++) {
        const struct tc_win *w = tc_win(i);
        int m = w->world ? w->size : 0;
        *q++ = w->group_hash, *q++ = (uint64_t)w->group_seq, *q++ = (uint64_t)m;
        for (int k = 0; k < m; k++)
            *q++ = (uint64_t)w->world[k];
    }
    *len = p ? (int)n : 0;
    return p;
}

static int comm_of(uint64_t hash, uint32_t n, const uint64_t *members)
{
    for (int c = 0; c < ngcomms; c++)
        if (gcomms[c].hash == hash && gcomms[c].n == n)
            return c;
    struct gcomm *g = realloc(gcomms, (size_t)(ngcomms + 1) * sizeof *g);
    uint64_t *m = malloc(n * sizeof *m);
    if (!g || !m) {
        free(m);
        gcomms = g ? g : gcomms;
        return -1;
    }
    gcomms = g;
    memcpy(m, members, n * sizeof *m);
    gcomms[ngcomms] = (struct gcomm){hash, n, m};
    return ngcomms++;
}

/* The global id of a window of rank r (members: n world ranks; n 0: only r is known). */
static uint64_t window_of(uint64_t hash, uint64_t seq, uint32_t n, const uint64_t *members, int r)
{
    for (int g = 0; g < ngwins; g++)
        if (gwins[g].hash == hash && gwins[g].seq == seq)
            return (uint64_t)g;
    struct gwin *gw = realloc(gwins, (size_t)(ngwins + 1) * sizeof *gw);
    if (!gw)
        return OTF2_UNDEFINED_RMA_WIN;
    gwins = gw;
    uint64_t self = (uint64_t)r;
    gwins[ngwins] = (struct gwin){hash, seq, n ? comm_of(hash, n, members) : comm_of(hash, 1, &self)};
    return (uint64_t)ngwins++;
}

/* Rank 0: every rank's packed windows -> the global id of each (maps, rank by rank). */
static void assign(int size, const uint64_t *all, const int *len, const int *nwin, const int *wdsp,
                   uint64_t *maps)
{
    const uint64_t *p = all;
    for (int r = 0; r < size; r++) {
        const uint64_t *end = p + len[r];
        for (int k = 0; k < nwin[r] && p + 3 <= end; k++) {
            uint32_t n = (uint32_t)p[2];
            maps[wdsp[r] + k] = window_of(p[0], p[1], n, p + 3, r);
            p += 3 + n;
        }
        p = end;
    }
}

static int *displacements(const int *count, int size, int *total)
{
    int *d = calloc((size_t)size, sizeof *d);
    *total = 0;
    for (int r = 0; d && r < size; r++)
        d[r] = *total, *total += count[r];
    return d;
}

/* Rank 0's view of the gather: per rank, uint64s sent and windows, with displacements. */
struct gathered {
    int *len, *nwin, *dsp, *wdsp;
    uint64_t *all, *maps;
};

static int gathered_alloc(struct gathered *g, const int *both, int size)
{
    int total = 0, wtotal = 0;
    g->len = calloc((size_t)size, sizeof *g->len);
    g->nwin = calloc((size_t)size, sizeof *g->nwin);
    if (!g->len || !g->nwin)
        return -1;
    for (int r = 0; r < size; r++)
        g->len[r] = both[2 * r], g->nwin[r] = both[2 * r + 1];
    g->dsp = displacements(g->len, size, &total);
    g->wdsp = displacements(g->nwin, size, &wtotal);
    g->all = malloc((size_t)(total ? total : 1) * sizeof *g->all);
    g->maps = calloc((size_t)(wtotal ? wtotal : 1), sizeof *g->maps);
    return g->dsp && g->wdsp && g->all && g->maps ? 0 : -1;
}

void rma_unify(int rank, int size)
{
    int my[2] = {0, tc_num_wins()}, *both = rank == 0 ? calloc((size_t)size * 2, sizeof(int)) : NULL, ok = 0;
    uint64_t *mine = pack_windows(&my[0]);
    struct gathered g = {0};
    global_of = calloc((size_t)(my[1] ? my[1] : 1), sizeof *global_of);
    PMPI_Gather(my, 2, MPI_INT, both, 2, MPI_INT, 0, trace_coll.comm);
    if (rank == 0 && both)
        ok = gathered_alloc(&g, both, size) == 0;
    PMPI_Gatherv(mine, my[0], MPI_UINT64_T, g.all, g.len, g.dsp, MPI_UINT64_T, 0, trace_coll.comm);
    if (ok)
        assign(size, g.all, g.len, g.nwin, g.wdsp, g.maps);
    PMPI_Scatterv(g.maps, g.nwin, g.wdsp, MPI_UINT64_T, global_of, my[1], MPI_UINT64_T, 0, trace_coll.comm);
    free(both), free(mine), free(g.len), free(g.nwin), free(g.dsp), free(g.wdsp), free(g.all), free(g.maps);
}

void rma_write_mapping(OTF2_DefWriter *d)
{
    if (!global_of || tc_num_wins() == 0)
        return;
    OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array((uint64_t)tc_num_wins(), global_of, false);
    if (m) {
        OTF2_DefWriter_WriteMappingTable(d, OTF2_MAPPING_RMA_WIN, m);
        OTF2_IdMap_Free(m);
    }
}

static void write_groups(OTF2_GlobalDefWriter *g, int size, int nsources)
{
    uint64_t *locations = malloc((size_t)size * sizeof *locations);
    if (!locations)
        return;
    for (int r = 0; r < size; r++)
        locations[r] = (uint64_t)r * (uint64_t)nsources;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)size, locations);
    free(locations);
    for (int c = 0; c < ngcomms; c++) {
        OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)c + 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, gcomms[c].n, gcomms[c].members);
        OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)c, 0, (OTF2_GroupRef)c + 1, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
    }
}

void rma_write_global_defs(OTF2_GlobalDefWriter *g, uint32_t *next_string, OTF2_RegionRef first_region, int size,
                           int nsources)
{
    uint32_t s = *next_string;
    for (int k = 0; k < SYNC_KINDS; k++, s++) {
        OTF2_GlobalDefWriter_WriteString(g, s, sync_names[k]);
        OTF2_GlobalDefWriter_WriteRegion(g, first_region + (OTF2_RegionRef)k, s, s, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    if (ngwins > 0)
        write_groups(g, size, nsources);
    for (int w = 0; w < ngwins; w++, s++) {
        char name[48];
        snprintf(name, sizeof name, "window %d", w);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteRmaWin(g, (OTF2_RmaWinRef)w, s,
                                         gwins[w].comm >= 0 ? (OTF2_CommRef)gwins[w].comm : OTF2_UNDEFINED_COMM,
                                         OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS);
    }
    *next_string = s;
}
