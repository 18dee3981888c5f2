/* mpitev_qprof: a message-queue profiler built on MPI_T events (standard API only).
 *
 * It reads the mpitev event catalogue's types, by their names alone (every MPI that
 * raises them names them so; docs/tool-writers-guide.md):
 *   posted_insert, posted_remove                 posted-receive queue changes
 *   unexpected_insert, unexpected_remove         unexpected-message queue changes
 *   search_posted_begin / _end                   search of the posted queue
 *   search_unexpected_begin / _end               search of the unexpected queue
 * with their elements queue_length (depth after the change; at a search's begin, the
 * entries it may examine), source, found, request_id (posted entries) and seq (unexpected
 * entries); without queue_length (or where it is -1, unknown) the depth is counted from
 * inserts/removes. And the
 * one-sided ones, bound to windows: put_started, get_started, accumulate_started and
 * their _complete (element bytes), lock_acquired, lock_released, sync_begin and sync_end
 * (element kind) -- qprof_rma.c.
 *
 * From the queue events it computes, per process, per communicator and per peer: queue
 * depth over time, how long entries wait, search lengths and search times. The search
 * length of a search that found its entry is that entry's position in the queue (the
 * profiler keeps a shadow copy of both queues, keyed by request_id / seq); of a search
 * that found nothing, the queue length at its begin. At MPI_Finalize: qprof_report.c.
 *
 * Callbacks only record (tc_core.c); statistics are computed in batches, when a callback
 * runs at MPI_RESTRICTED or NONE once the rings hold a quarter ring, and at MPI_Finalize. */
#define _POSIX_C_SOURCE 200809L
#include "qprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct qp_state qp;

static const char usage[] =
    "mpitev_qprof: MPI message-queue and one-sided profiler (standard MPI_T API only).\n"
    "Environment:\n"
    "  MPITEV_QPROF_DIR       directory for data files, gnuplot script and PNGs\n"
    "                         (default mpitev-qprof; created if missing)\n"
    "  MPITEV_QPROF_OUTPUT    summary table: stdout (default) or a file path pattern\n"
    "                         where %r is the rank (without %r, .<rank> is appended)\n"
    "  MPITEV_QPROF_GNUPLOT   gnuplot command (default gnuplot); none: write the script\n"
    "                         and data only\n"
    "  MPITEV_QPROF_PNG_SIZE  WIDTHxHEIGHT of each PNG in pixels (default 1024x768)\n"
    "  MPITEV_TOOL_RING       instances buffered per thread before they are processed\n"
    "                         (default 16384)\n";

static struct qtype *qt;

/* shadow queues: entries in queue order */
struct entry {
    uint64_t key;
    double t_in;
    int comm, peer;
};
static struct entry *shadow[Q_NUM];
static long shadow_n[Q_NUM], shadow_cap[Q_NUM];

struct pending_search {
    int active;
    double t;
    long len;
};
static struct pending_search pending[Q_NUM];

static void classify(const struct tc_type *t, struct qtype *q)
{
    static const struct {
        const char *name;
        int role, which;
    } table[] = {
        {"search_posted_begin", R_SEARCH_BEGIN, Q_POSTED},
        {"search_posted_end", R_SEARCH_END, Q_POSTED},
        {"search_unexpected_begin", R_SEARCH_BEGIN, Q_UNEX},
        {"search_unexpected_end", R_SEARCH_END, Q_UNEX},
        {"posted_insert", R_INSERT, Q_POSTED},
        {"posted_remove", R_REMOVE, Q_POSTED},
        {"unexpected_insert", R_INSERT, Q_UNEX},
        {"unexpected_remove", R_REMOVE, Q_UNEX},
        {"put_started", R_RMA_START, RMA_PUT},
        {"get_started", R_RMA_START, RMA_GET},
        {"accumulate_started", R_RMA_START, RMA_ACC},
        {"put_complete", R_RMA_DONE, RMA_PUT},
        {"get_complete", R_RMA_DONE, RMA_GET},
        {"accumulate_complete", R_RMA_DONE, RMA_ACC},
        {"lock_acquired", R_LOCK_ACQUIRED, 0},
        {"lock_released", R_LOCK_RELEASED, 0},
        {"sync_begin", R_SYNC_BEGIN, 0},
        {"sync_end", R_SYNC_END, 0},
    };
    q->role = R_NONE;
    q->which = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(t->name, table[i].name) == 0) {
            q->role = table[i].role;
            q->which = table[i].which;
            break;
        }
    q->e_len = tc_elem_find(t, "queue_length");
    q->e_peer = tc_elem_find(t, "source");
    q->e_found = tc_elem_find(t, "found");
    q->e_key = tc_elem_find(t, q->which == Q_POSTED ? "request_id" : "seq");
    q->e_bytes = tc_elem_find(t, "bytes");
    q->e_kind = tc_elem_find(t, "kind");
}

static int bad(const char *var, const char *value)
{
    fprintf(stderr, "mpitev_qprof: invalid %s='%s'; the profiler is not attached.\n%s", var, value, usage);
    return -1;
}

static int configure(void)
{
    const char *dir = getenv("MPITEV_QPROF_DIR");
    const char *out = getenv("MPITEV_QPROF_OUTPUT");
    const char *gp = getenv("MPITEV_QPROF_GNUPLOT");
    const char *size = getenv("MPITEV_QPROF_PNG_SIZE");
    snprintf(qp.dir, sizeof qp.dir, "%s", dir && *dir ? dir : "mpitev-qprof");
    snprintf(qp.summary, sizeof qp.summary, "%s", out && *out ? out : "stdout");
    snprintf(qp.gnuplot, sizeof qp.gnuplot, "%s", gp && *gp ? gp : "gnuplot");
    qp.png_w = 1024, qp.png_h = 768;
    if (size && *size) {
        char x;
        int w, h;
        if (sscanf(size, "%d%c%d", &w, &x, &h) != 3 || x != 'x' || w < 64 || h < 64 || w > 10000 || h > 10000)
            return bad("MPITEV_QPROF_PNG_SIZE", size);
        qp.png_w = w, qp.png_h = h;
    }
    if (tc_env_long("MPITEV_TOOL_RING", 1) < 0)
        return bad("MPITEV_TOOL_RING", getenv("MPITEV_TOOL_RING"));
    if (mkdir(qp.dir, 0755) != 0 && errno != EEXIST)
        return bad("MPITEV_QPROF_DIR (cannot create the directory)", qp.dir);
    return 0;
}

static int select_type(const struct tc_type *t)
{
    if (!qt) {
        qt = calloc((size_t)tc_num_types(), sizeof *qt);
        if (!qt)
            return 0;
    }
    struct qtype *q = &qt[t - tc_types()];
    classify(t, q);
    return q->role != R_NONE;
}

char *qp_line(struct qp_data *d)
{
    if (!d->f)
        return NULL;
    if (d->n > sizeof d->buf - QP_LINE) {
        fwrite(d->buf, 1, d->n, d->f);
        d->n = 0;
    }
    return d->buf + d->n;
}

void qp_line_end(struct qp_data *d, const char *end) { d->n = (size_t)(end - d->buf); }

/* Opens rank<r>.NAME.dat with its first lines. */
static void data_open(struct qp_data *d, int rank, const char *name, const char *head)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/rank%d.%s.dat", qp.dir, rank, name);
    d->n = 0;
    if ((d->f = fopen(path, "w")) != NULL)
        fprintf(d->f, "# rank %d: %s", rank, head);
}

static void data_close(struct qp_data *d)
{
    if (!d->f)
        return;
    fwrite(d->buf, 1, d->n, d->f);
    fclose(d->f);
    d->f = NULL;
}

static void start(int rank, int size)
{
    (void)size;
    data_open(&qp.depth, rank, "depth", "time_s posted_depth unexpected_depth\n0 0 0\n");
    data_open(&qp.search, rank, "search", "time_s queue(0 posted, 1 unexpected) length time_us found\n");
    /* the first line: a point for the plot of a rank without windows */
    data_open(&qp.rma, rank, "rma", "time_s window(win#) kind(0 put, 1 get, 2 accumulate) bytes\n0 -1 -1 0\n");
}

static void comm_added(const struct tc_comm *c)
{
    if (c->id >= qp.ncomm) {
        int n = c->id + 1;
        struct qp_stats *s = realloc(qp.comm, (size_t)n * Q_NUM * sizeof *s);
        if (!s)
            return;
        memset(s + (size_t)qp.ncomm * Q_NUM, 0, (size_t)(n - qp.ncomm) * Q_NUM * sizeof *s);
        qp.comm = s, qp.ncomm = n;
    }
}

static struct qp_peer *peer_of(int comm, int peer)
{
    for (int i = 0; i < qp.npeers; i++)
        if (qp.peers[i].comm == comm && qp.peers[i].peer == peer)
            return &qp.peers[i];
    if (qp.npeers == qp.peers_cap) {
        int cap = qp.peers_cap ? 2 * qp.peers_cap : 16;
        struct qp_peer *p = realloc(qp.peers, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        qp.peers = p, qp.peers_cap = cap;
    }
    struct qp_peer *p = &qp.peers[qp.npeers++];
    memset(p, 0, sizeof *p);
    p->comm = comm, p->peer = peer;
    return p;
}

static void hist_add(int q, long len)
{
    if (len < 0)
        len = 0;
    if (len >= qp.hist_len[q]) {
        long n = len + 16;
        long *h = realloc(qp.hist[q], (size_t)n * sizeof *h);
        if (!h)
            return;
        memset(h + qp.hist_len[q], 0, (size_t)(n - qp.hist_len[q]) * sizeof *h);
        qp.hist[q] = h, qp.hist_len[q] = n;
    }
    qp.hist[q][len]++;
}

static struct qp_stats *comm_stats(int comm, int q)
{
    return comm >= 0 && comm < qp.ncomm ? &qp.comm[comm * Q_NUM + q] : NULL;
}

/* The record's queue_length, or fallback where the type has none or the MPI did not know
 * it (the catalogue's -1: Open MPI's ob1 keeps no queue lengths) */
static long queue_length(const struct tc_type *t, const struct qtype *k, const struct tc_record *r, long fallback)
{
    long v = k->e_len >= 0 ? (long)tc_elem_int(t, r, k->e_len) : -1;
    return v >= 0 ? v : fallback;
}

static void insert(int q, const struct tc_type *t, const struct qtype *k, const struct tc_record *r, double now)
{
    struct entry e = {k->e_key >= 0 ? (uint64_t)tc_elem_int(t, r, k->e_key) : 0, now, r->comm,
                      k->e_peer >= 0 ? (int)tc_elem_int(t, r, k->e_peer) : -1};
    if (shadow_n[q] == shadow_cap[q]) {
        long cap = shadow_cap[q] ? 2 * shadow_cap[q] : 64;
        struct entry *s = realloc(shadow[q], (size_t)cap * sizeof *s);
        if (!s)
            return;
        shadow[q] = s, shadow_cap[q] = cap;
    }
    shadow[q][shadow_n[q]++] = e;
    struct qp_stats *a = &qp.all[q], *c = comm_stats(r->comm, q);
    a->inserts++;
    a->depth = queue_length(t, k, r, a->depth + 1);
    if (a->depth > a->max_depth)
        a->max_depth = a->depth;
    if (c) {
        c->inserts++;
        if (++c->depth > c->max_depth)
            c->max_depth = c->depth;
    }
    struct qp_peer *p = peer_of(r->comm, e.peer);
    if (p)
        p->inserts[q]++;
}

static long position(int q, uint64_t key) /* 1-based, 0 if not in the shadow queue */
{
    for (long i = 0; i < shadow_n[q]; i++)
        if (shadow[q][i].key == key)
            return i + 1;
    return 0;
}

static void remove_entry(int q, const struct tc_type *t, const struct qtype *k, const struct tc_record *r,
                         double now)
{
    struct qp_stats *a = &qp.all[q], *c = comm_stats(r->comm, q);
    a->removes++;
    a->depth = queue_length(t, k, r, a->depth > 0 ? a->depth - 1 : 0);
    if (c && c->depth > 0)
        c->depth--;
    if (c)
        c->removes++;
    long pos = k->e_key >= 0 ? position(q, (uint64_t)tc_elem_int(t, r, k->e_key)) : (shadow_n[q] ? 1 : 0);
    if (pos == 0)
        return;
    struct entry e = shadow[q][pos - 1];
    memmove(&shadow[q][pos - 1], &shadow[q][pos], (size_t)(shadow_n[q] - pos) * sizeof e);
    shadow_n[q]--;
    double wait = now - e.t_in;
    a->waits++, a->wait_sum += wait;
    if (wait > a->wait_max)
        a->wait_max = wait;
    if (c) {
        c->waits++, c->wait_sum += wait;
        if (wait > c->wait_max)
            c->wait_max = wait;
    }
    struct qp_peer *p = peer_of(e.comm, e.peer);
    if (p)
        p->waits[q]++, p->wait_sum[q] += wait;
}

static void search_end(int q, const struct tc_type *t, const struct qtype *k, const struct tc_record *r,
                       double now)
{
    int found = k->e_found >= 0 ? tc_elem_int(t, r, k->e_found) > 0 : 0;
    long len = pending[q].active ? pending[q].len : shadow_n[q];
    if (found && k->e_key >= 0) {
        long pos = position(q, (uint64_t)tc_elem_int(t, r, k->e_key));
        if (pos > 0)
            len = pos;
    }
    double dt = pending[q].active ? now - pending[q].t : 0;
    pending[q].active = 0;
    struct qp_stats *s[2] = {&qp.all[q], comm_stats(r->comm, q)};
    for (int i = 0; i < 2; i++) {
        if (!s[i])
            continue;
        s[i]->searches++;
        s[i]->hits += found;
        s[i]->len_sum += len;
        if (len > s[i]->len_max)
            s[i]->len_max = len;
        s[i]->stime_sum += dt;
        if (dt > s[i]->stime_max)
            s[i]->stime_max = dt;
    }
    hist_add(q, len);
    char *p = qp_line(&qp.search);
    if (p) { /* "%.9f %d %ld %.3f %d\n" */
        p = tc_put_fixed(p, now, 9);
        *p++ = ' ', p = tc_put_int(p, q);
        *p++ = ' ', p = tc_put_int(p, len);
        *p++ = ' ', p = tc_put_fixed(p, dt * 1e6, 3);
        *p++ = ' ', p = tc_put_int(p, found);
        *p++ = '\n';
        qp_line_end(&qp.search, p);
    }
}

static void process(const struct tc_record *r)
{
    if (r->kind == TC_REC_DROPPED)
        qp.dropped += r->count;
    if (r->kind != TC_REC_EVENT)
        return;
    const struct tc_type *t = &tc_types()[r->type];
    const struct qtype *k = &qt[r->type];
    double now = tc_seconds(r->source, r->timestamp);
    if (k->role >= R_RMA_START) {
        qp.rma_instances++;
        qp_rma_process(k, t, r, now);
        return;
    }
    qp.instances++;
    switch (k->role) {
    case R_INSERT:
        insert(k->which, t, k, r, now);
        break;
    case R_REMOVE:
        remove_entry(k->which, t, k, r, now);
        break;
    case R_SEARCH_BEGIN:
        pending[k->which].active = 1;
        pending[k->which].t = now;
        pending[k->which].len = queue_length(t, k, r, shadow_n[k->which]);
        return;
    case R_SEARCH_END:
        search_end(k->which, t, k, r, now);
        return;
    default:
        return;
    }
    char *p = qp_line(&qp.depth);
    if (p) { /* "%.9f %ld %ld\n" */
        p = tc_put_fixed(p, now, 9);
        *p++ = ' ', p = tc_put_int(p, qp.all[Q_POSTED].depth);
        *p++ = ' ', p = tc_put_int(p, qp.all[Q_UNEX].depth);
        *p++ = '\n';
        qp_line_end(&qp.depth, p);
    }
}

static void finish(int rank, int size)
{
    data_close(&qp.depth);
    data_close(&qp.search);
    data_close(&qp.rma);
    qp_report(rank, size);
}

const struct tc_tool tc_tool = {
    .name = "mpitev_qprof",
    .configure = configure,
    .select = select_type,
    .start = start,
    .process = process,
    .comm_added = comm_added,
    .finish = finish,
};
