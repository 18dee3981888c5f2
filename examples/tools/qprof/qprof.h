/* qprof.h -- the queue profiler's state, shared by its two files:
 * mpitev_qprof.c (configuration, roles of event types, statistics as instances are
 * processed) and qprof_report.c (summary table, data files, gnuplot script and PNGs). */
#ifndef MPITEV_TOOLS_QPROF_H
#define MPITEV_TOOLS_QPROF_H

#include "../common/tc.h"

#include <stdio.h>

enum { Q_POSTED = 0, Q_UNEX = 1, Q_NUM = 2 };

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

struct qp_state {
    struct qp_stats all[Q_NUM];
    struct qp_stats *comm;    /* [ncomm][Q_NUM] */
    int ncomm;
    struct qp_peer *peers;
    int npeers, peers_cap;
    long *hist[Q_NUM];        /* search-length histogram */
    long hist_len[Q_NUM];
    FILE *depth_file, *search_file;
    char dir[1024];
    char summary[1024];       /* "stdout" or a path pattern */
    char gnuplot[256];        /* command, or "none" */
    int png_w, png_h;
    long instances;
    long dropped;
};
extern struct qp_state qp;

void qp_report(int rank, int size);

#endif
