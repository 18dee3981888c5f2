/* qprof.h -- the queue profiler's state, shared by its files: mpitev_qprof.c
 * (configuration, roles of event types, queue statistics as instances are processed),
 * qprof_rma.c (the per-window one-sided statistics) and qprof_report.c (summary table,
 * data files, gnuplot script and PNGs). */
#ifndef MPITEV_TOOLS_QPROF_H
#define MPITEV_TOOLS_QPROF_H

#include "../common/tc.h"

#include <stdio.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden) /* see tc.h */
#endif

enum { Q_POSTED = 0, Q_UNEX = 1, Q_NUM = 2 };
enum { RMA_PUT = 0, RMA_GET = 1, RMA_ACC = 2, RMA_KINDS = 3 };

/* What an event type means to the profiler (by its catalogue name). */
enum role {
    R_NONE,
    R_INSERT, /* which: the queue */
    R_REMOVE,
    R_SEARCH_BEGIN,
    R_SEARCH_END,
    R_RMA_START, /* which: RMA_PUT, RMA_GET or RMA_ACC */
    R_RMA_DONE,
    R_LOCK_ACQUIRED,
    R_LOCK_RELEASED,
    R_SYNC_BEGIN,
    R_SYNC_END
};

/* A type's role and where its elements are (-1: absent). */
struct qtype {
    int role, which;
    int e_len, e_peer, e_key, e_found; /* queues */
    int e_bytes, e_kind;               /* one-sided */
};

/* One-sided statistics of one window (tc_win id). */
struct qp_win {
    long ops[RMA_KINDS], completed[RMA_KINDS];
    long long bytes[RMA_KINDS];
    long syncs;
    double sync_sum, sync_max, sync_t0; /* seconds in synchronization calls */
    int sync_open;                      /* a sync_begin waits for its sync_end */
    long locks, lock_waits;
    double lock_wait_sum, lock_wait_max, lock_t0; /* MPI_Win_lock's begin to lock_acquired */
    int lock_open;
};

/* Statistics of one queue, for the process or for one communicator. */
struct qp_stats {
    long inserts, removes, searches, hits;
    long depth, max_depth;
    long len_sum, len_max;         /* search lengths: entries examined */
    double stime_sum, stime_max;   /* search times, seconds */
    long waits;                    /* entries that left the queue with a known insert time */
    double wait_sum, wait_max;     /* seconds an entry stayed in the queue */
};

struct qp_peer {
    int comm, peer;
    long inserts[Q_NUM];
    long waits[Q_NUM];
    double wait_sum[Q_NUM];
};

/* A data file written a line per record: lines are formatted into buf (tc_put_*), and
 * buf goes to the file when it is nearly full (one stdio call per many lines). */
struct qp_data {
    FILE *f;
    size_t n;
    char buf[1 << 16];
};
/* Where the next line goes (room for QP_LINE bytes), or NULL without a file; then
 * qp_line_end with the end of the line. */
#define QP_LINE 256
char *qp_line(struct qp_data *d);
void qp_line_end(struct qp_data *d, const char *end);

struct qp_state {
    struct qp_stats all[Q_NUM];
    struct qp_stats *comm;    /* [ncomm][Q_NUM] */
    int ncomm;
    struct qp_peer *peers;
    int npeers, peers_cap;
    long *hist[Q_NUM];        /* search-length histogram */
    long hist_len[Q_NUM];
    struct qp_win *wins;      /* [nwins] */
    int nwins;
    struct qp_data depth, search, rma; /* rank<r>.depth.dat, .search.dat, .rma.dat */
    char dir[1024];
    char summary[1024];       /* "stdout" or a path pattern */
    char gnuplot[256];        /* command, or "none" */
    int png_w, png_h;
    long instances, rma_instances;
    long dropped;
};
extern struct qp_state qp;

void qp_rma_process(const struct qtype *k, const struct tc_type *t, const struct tc_record *r, double now);
void qp_report(int rank, int size);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
