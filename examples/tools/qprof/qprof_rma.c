/* qprof_rma.c -- the queue profiler's one-sided summary: per window (tc_win id, labelled
 * win#N in this process's creation order), from the catalogue's window-bound events:
 *   - operations started by kind (put_started, get_started, accumulate_started) and
 *     their bytes, and how many completed (*_complete);
 *   - locks acquired (lock_acquired) and the lock wait: from the sync_begin of
 *     MPI_Win_lock or MPI_Win_lock_all (kind MPITEV_CATALOG_SYNC_LOCK, 2, or _LOCK_ALL, 4)
 *     to the lock_acquired that follows on the window (after the call returned too, for
 *     an MPI that takes the lock lazily);
 *   - synchronization calls (sync_begin to sync_end, any kind) and their time.
 * Every operation started is also a line of rank<r>.rma.dat (time, window, kind, bytes)
 * for the plot rma.png (qprof_report.c). */
#include "qprof.h"

#include <stdlib.h>
#include <string.h>

/* The catalogue's kind codes of MPI_Win_lock and MPI_Win_lock_all (catalog.h:
 * MPITEV_CATALOG_SYNC_LOCK, _LOCK_ALL); the codes are the catalogue's on every MPI. */
enum { SYNC_LOCK = 2, SYNC_LOCK_ALL = 4 };

static struct qp_win *win_stats(int id)
{
    if (id < 0)
        return NULL;
    if (id >= qp.nwins) {
        int n = id + 1;
        struct qp_win *w = realloc(qp.wins, (size_t)n * sizeof *w);
        if (!w)
            return NULL;
        memset(w + qp.nwins, 0, (size_t)(n - qp.nwins) * sizeof *w);
        qp.wins = w, qp.nwins = n;
    }
    return &qp.wins[id];
}

static void add_time(double dt, long *n, double *sum, double *max)
{
    (*n)++;
    *sum += dt;
    if (dt > *max)
        *max = dt;
}

static void started(struct qp_win *w, const struct qtype *k, const struct tc_type *t, const struct tc_record *r,
                    double now)
{
    long long bytes = k->e_bytes >= 0 ? (long long)tc_elem_int(t, r, k->e_bytes) : 0;
    w->ops[k->which]++;
    w->bytes[k->which] += bytes;
    char *p = qp_line(&qp.rma);
    if (p) { /* "%.9f %d %d %lld\n" */
        p = tc_put_fixed(p, now, 9);
        *p++ = ' ', p = tc_put_int(p, r->win);
        *p++ = ' ', p = tc_put_int(p, k->which);
        *p++ = ' ', p = tc_put_int(p, bytes);
        *p++ = '\n';
        qp_line_end(&qp.rma, p);
    }
}

static void sync_begin(struct qp_win *w, const struct qtype *k, const struct tc_type *t,
                       const struct tc_record *r, double now)
{
    int64_t kind = k->e_kind >= 0 ? tc_elem_int(t, r, k->e_kind) : 0;
    w->sync_open = 1;
    w->sync_t0 = now;
    if (kind == SYNC_LOCK || kind == SYNC_LOCK_ALL) {
        w->lock_open = 1;
        w->lock_t0 = now;
    }
}

void qp_rma_process(const struct qtype *k, const struct tc_type *t, const struct tc_record *r, double now)
{
    struct qp_win *w = win_stats(r->win);
    if (!w)
        return;
    switch (k->role) {
    case R_RMA_START:
        started(w, k, t, r, now);
        break;
    case R_RMA_DONE:
        w->completed[k->which]++;
        break;
    case R_SYNC_BEGIN:
        sync_begin(w, k, t, r, now);
        break;
    case R_SYNC_END:
        if (w->sync_open)
            add_time(now - w->sync_t0, &w->syncs, &w->sync_sum, &w->sync_max);
        w->sync_open = 0;
        break;
    case R_LOCK_ACQUIRED:
        w->locks++;
        if (w->lock_open)
            add_time(now - w->lock_t0, &w->lock_waits, &w->lock_wait_sum, &w->lock_wait_max);
        w->lock_open = 0;
        break;
    default:
        break;
    }
}
