/* qprof_report.c -- what the queue profiler leaves at MPI_Finalize:
 *   - a summary table per rank (stdout, rank by rank, or one file per rank): per queue
 *     for the process, per communicator, and per peer; then, if the process created
 *     windows, one line per window (one-sided operations, locks, synchronization);
 *   - in MPITEV_QPROF_DIR: rank<r>.depth.dat (depth over time), rank<r>.search.dat (every
 *     search), rank<r>.hist.dat (search-length histogram), rank<r>.rma.dat (every
 *     one-sided operation started), qprof.gp (gnuplot script) and the PNGs it makes:
 *     depth.png (depth over time, one line per rank), search_length.png (search-length
 *     histogram, one bar colour per rank) and, if any rank created a window, rma.png
 *     (bytes and operations started per window over time, one line per rank and
 *     window). Restyle with `cd DIR && gnuplot qprof.gp`. */
#define _POSIX_C_SOURCE 200809L
#include "qprof.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const qname[Q_NUM] = {"posted", "unexpected"};

static void stats_row(FILE *f, int rank, const char *scope, int q, const struct qp_stats *s)
{
    fprintf(f, "[rank %d] %-16s %-10s %8ld %6ld %9.1f %8ld %6ld %8.2f %6ld %10.2f %10.2f\n", rank, scope,
            qname[q], s->inserts, s->max_depth, s->waits ? s->wait_sum / (double)s->waits * 1e6 : 0.0,
            s->searches, s->hits, s->searches ? (double)s->len_sum / (double)s->searches : 0.0, s->len_max,
            s->searches ? s->stime_sum / (double)s->searches * 1e6 : 0.0, s->stime_max * 1e6);
}

static double per_us(double sum, long n) { return n ? sum / (double)n * 1e6 : 0.0; }

/* One line per window this process created (with or without one-sided instances). */
static void win_rows(FILE *f, int rank)
{
    static const struct qp_win none;
    if (tc_num_wins() == 0)
        return;
    fprintf(f, "[rank %d] %-8s %-16s %10s %6s %10s %6s %10s %6s %10s %6s %12s %12s %6s %12s\n", rank, "window",
            "over", "win_bytes", "puts", "put_bytes", "gets", "get_bytes", "accs", "acc_bytes", "locks",
            "wait_mean_us", "wait_max_us", "syncs", "sync_us");
    for (int i = 0; i < tc_num_wins(); i++) {
        const struct tc_win *tw = tc_win(i);
        const struct tc_comm *c = tc_comm(tw->comm);
        const struct qp_win *w = i < qp.nwins ? &qp.wins[i] : &none;
        fprintf(f, "[rank %d] %-8s %-16s %10lld %6ld %10lld %6ld %10lld %6ld %10lld %6ld %12.1f %12.1f %6ld %12.1f\n",
                rank, tw->label, c ? c->label : "-", tw->bytes, w->ops[RMA_PUT], w->bytes[RMA_PUT], w->ops[RMA_GET],
                w->bytes[RMA_GET], w->ops[RMA_ACC], w->bytes[RMA_ACC], w->locks,
                per_us(w->lock_wait_sum, w->lock_waits), w->lock_wait_max * 1e6, w->syncs, w->sync_sum * 1e6);
    }
}

static void table(FILE *f, int rank)
{
    fprintf(f,
            "[rank %d] mpitev_qprof: %ld queue instances processed, %ld one-sided, %ld reported dropped, "
            "%ld not kept\n"
            "[rank %d] %-16s %-10s %8s %6s %9s %8s %6s %8s %6s %10s %10s\n",
            rank, qp.instances, qp.rma_instances, qp.dropped, tc_not_kept(), rank, "scope", "queue", "inserts",
            "max", "wait_us",
            "searches", "hits", "mean_len", "max_len", "search_us", "max_s_us");
    for (int q = 0; q < Q_NUM; q++)
        stats_row(f, rank, "process", q, &qp.all[q]);
    for (int c = 0; c < qp.ncomm; c++) {
        const struct tc_comm *tc = tc_comm(c);
        for (int q = 0; q < Q_NUM; q++) {
            const struct qp_stats *s = &qp.comm[c * Q_NUM + q];
            if (tc && (s->inserts || s->searches))
                stats_row(f, rank, tc->label, q, s);
        }
    }
    fprintf(f, "[rank %d] %-16s %-6s %16s %16s %16s %16s\n", rank, "peers of", "peer", "posted_inserts",
            "posted_wait_us", "unexp_inserts", "unexp_wait_us");
    for (int i = 0; i < qp.npeers; i++) {
        const struct qp_peer *p = &qp.peers[i];
        const struct tc_comm *tc = tc_comm(p->comm);
        char peer[16];
        if (p->peer < 0)
            snprintf(peer, sizeof peer, "any");
        else
            snprintf(peer, sizeof peer, "%d", p->peer);
        fprintf(f, "[rank %d] %-16s %-6s %16ld %16.1f %16ld %16.1f\n", rank, tc ? tc->label : "-", peer,
                p->inserts[Q_POSTED],
                p->waits[Q_POSTED] ? p->wait_sum[Q_POSTED] / (double)p->waits[Q_POSTED] * 1e6 : 0.0,
                p->inserts[Q_UNEX], p->waits[Q_UNEX] ? p->wait_sum[Q_UNEX] / (double)p->waits[Q_UNEX] * 1e6 : 0.0);
    }
    win_rows(f, rank);
    fflush(f);
}

static void write_hist(int rank)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/rank%d.hist.dat", qp.dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    long n = qp.hist_len[0] > qp.hist_len[1] ? qp.hist_len[0] : qp.hist_len[1];
    fprintf(f, "# rank %d: search_length posted_searches unexpected_searches\n", rank);
    for (long len = 0; len < n; len++) {
        long a = len < qp.hist_len[0] ? qp.hist[0][len] : 0, b = len < qp.hist_len[1] ? qp.hist[1][len] : 0;
        if (a || b)
            fprintf(f, "%ld %ld %ld\n", len, a, b);
    }
    if (n == 0)
        fprintf(f, "0 0 0\n");
    fclose(f);
}

/* The time origin: the earliest attach time of all ranks (sources of one machine share a
 * clock; CLOCK_MONOTONIC in the toy), so the ranks' curves line up. */
static double attach_seconds(void)
{
    const struct tc_source *s = tc_num_sources() > 0 ? &tc_sources()[0] : NULL;
    return s && s->ticks_per_second > 0 ? (double)s->t0 / (double)s->ticks_per_second : 0;
}

/* A tick step for an axis of counts from 0 to max: 1, 2, 5, 10, 20, 50, ... with at
 * most 8 intervals, so the axis never shows fractions of an entry or a search. */
static long count_tic_step(long max)
{
    static const long mantissa[3] = {1, 2, 5};
    for (long decade = 1;; decade *= 10)
        for (int i = 0; i < 3; i++)
            if (max / (mantissa[i] * decade) <= 8)
                return mantissa[i] * decade;
}

/* rma.png: per rank and window, the bytes and the operations started so far, over time
 * (only if some rank created a window). A rank without windows plots nothing (NaN). */
static void write_rma_script(FILE *f, int size, const int *nwin, long max_ops)
{
    int any = 0;
    for (int r = 0; r < size; r++)
        any |= nwin[r] > 0;
    if (!any)
        return;
    fprintf(f, "\narray nwin[%d]\n", size);
    for (int r = 0; r < size; r++)
        fprintf(f, "nwin[%d] = %d  # windows rank %d created\n", r + 1, nwin[r], r);
    fprintf(f,
            "\n"
            "set output 'rma.png'\n"
            "set multiplot layout 2,1 title 'MPI one-sided operations started, per window (mpitev_qprof, MPI_T "
            "events)'\n"
            "set xrange [*:*]\n"
            "set yrange [0:*]\n"
            "set xtics autofreq\n"
            "set ytics autofreq\n"
            "set key outside right top title 'rank win#'\n"
            "set xlabel 'time since the first MPI_Init (ms)'\n"
            "set ylabel 'bytes (cumulative)'\n"
            "set title 'bytes put, got and accumulated'\n"
            "plot for [r=0:nranks-1] for [w=0:nwin[r+1]-1] sprintf('rank%%d.rma.dat', r) \\\n"
            "     using (($1+offset[r+1])*1000):(w < nwin[r+1] ? ($2 == w ? $4 : 0) : NaN) smooth cumulative \\\n"
            "     with steps linewidth 2 title (w < nwin[r+1] ? sprintf('%%d %%d', r, w) : '')\n"
            "set ytics %ld\n"
            "set ylabel 'operations (cumulative)'\n"
            "set title 'operations: put, get, accumulate'\n"
            "plot for [r=0:nranks-1] for [w=0:nwin[r+1]-1] sprintf('rank%%d.rma.dat', r) \\\n"
            "     using (($1+offset[r+1])*1000):(w < nwin[r+1] ? ($2 == w ? 1 : 0) : NaN) smooth cumulative \\\n"
            "     with steps linewidth 2 title (w < nwin[r+1] ? sprintf('%%d %%d', r, w) : '')\n"
            "unset multiplot\n",
            count_tic_step(max_ops));
}

/* ymax: the largest posted depth, unexpected depth, posted-search count,
 * unexpected-search count and operations on one window of any rank (the plots' y
 * ranges). */
static void write_script(int size, const double *offset, const long *maxlen, const long ymax[5], const int *nwin)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/qprof.gp", qp.dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    long xmax = 1;
    for (int r = 0; r < size; r++)
        if (maxlen[r] > xmax)
            xmax = maxlen[r];
    fprintf(f,
            "# mpitev_qprof: run in this directory (gnuplot qprof.gp); data: rank<r>.*.dat\n"
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d font ',11' noenhanced\n"
            "} else {\n"
            "  set terminal png size %d,%d noenhanced\n"
            "}\n"
            "nranks = %d\n"
            "array offset[%d]\n",
            qp.png_w, qp.png_h, qp.png_w, qp.png_h, size, size);
    for (int r = 0; r < size; r++)
        fprintf(f, "offset[%d] = %.9f  # rank %d attached this many seconds after the first\n", r + 1,
                offset[r], r);
    fprintf(f,
            "set grid\n"
            "set key outside right top title 'rank'\n"
            "\n"
            "set output 'depth.png'\n"
            "set multiplot layout 2,1 title 'MPI message queue depth over time (mpitev_qprof, MPI_T events)'\n"
            "set xlabel 'time since the first MPI_Init (ms)'\n"
            "set ylabel 'entries in the queue'\n"
            "set yrange [0:*]\n"
            "set ytics %ld\n"
            "set title 'posted-receive queue'\n"
            "plot for [r=0:nranks-1] sprintf('rank%%d.depth.dat', r) using (($1+offset[r+1])*1000):2 \\\n"
            "     with steps linewidth 2 linecolor r+1 title sprintf('%%d', r)\n"
            "set ytics %ld\n"
            "set title 'unexpected-message queue'\n"
            "plot for [r=0:nranks-1] sprintf('rank%%d.depth.dat', r) using (($1+offset[r+1])*1000):3 \\\n"
            "     with steps linewidth 2 linecolor r+1 title sprintf('%%d', r)\n"
            "unset multiplot\n"
            "\n"
            "set output 'search_length.png'\n"
            "set multiplot layout 2,1 title 'MPI queue search lengths (entries examined per search)'\n"
            "set style fill solid 0.8 border -1\n"
            "bw = 0.8 / nranks\n"
            "set boxwidth bw\n"
            "set xrange [-0.6:%ld.6]\n"
            "set xtics 1\n"
            "if (%ld > 20) { set xtics autofreq }\n"
            "set xlabel 'search length (queue entries examined)'\n"
            "set ylabel 'searches (count)'\n"
            "set ytics %ld\n"
            "set title 'posted-receive queue (searched when a message arrives)'\n"
            "plot for [r=0:nranks-1] sprintf('rank%%d.hist.dat', r) using ($1-0.4+bw*(r+0.5)):2 \\\n"
            "     with boxes linecolor r+1 title sprintf('%%d', r)\n"
            "set ytics %ld\n"
            "set title 'unexpected-message queue (searched when a receive is posted)'\n"
            "plot for [r=0:nranks-1] sprintf('rank%%d.hist.dat', r) using ($1-0.4+bw*(r+0.5)):3 \\\n"
            "     with boxes linecolor r+1 title sprintf('%%d', r)\n"
            "unset multiplot\n",
            count_tic_step(ymax[0]), count_tic_step(ymax[1]), xmax, xmax, count_tic_step(ymax[2]),
            count_tic_step(ymax[3]));
    write_rma_script(f, size, nwin, ymax[4]);
    fclose(f);
}

static void run_gnuplot(int rma)
{
    if (strcmp(qp.gnuplot, "none") == 0)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        if (chdir(qp.dir) == 0)
            execlp(qp.gnuplot, qp.gnuplot, "qprof.gp", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "mpitev_qprof: '%s qprof.gp' in %s failed (status %d); data and script are there\n",
                qp.gnuplot, qp.dir, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else
        fprintf(stderr, "mpitev_qprof: plots in %s/depth.png and %s/search_length.png%s%s%s\n", qp.dir, qp.dir,
                rma ? " and " : "", rma ? qp.dir : "", rma ? "/rma.png" : "");
}

/* The summary: on stdout rank by rank, or one file per rank. */
static void write_summary(int rank, int size)
{
    if (strcmp(qp.summary, "stdout") == 0) {
        for (int r = 0; r < size; r++) { /* rank by rank */
            if (r == rank)
                table(stdout, rank);
            PMPI_Barrier(MPI_COMM_WORLD);
        }
        return;
    }
    char path[1200];
    tc_path_for_rank(qp.summary, rank, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f) {
        table(f, rank);
        fclose(f);
    } else {
        fprintf(stderr, "mpitev_qprof: cannot write %s\n", path);
    }
}

/* What rank 0 needs from every rank for the script: attach times, longest searches,
 * windows created, and the plots' y ranges (for integer ticks: the deepest queues and
 * the tallest bars). */
struct plot_data {
    double *t0;
    long *maxlen;
    int *nwin;
    long ymax[5];
};

static void gather_plot_data(int rank, int size, struct plot_data *d)
{
    double t0 = attach_seconds();
    long maxlen = qp.all[0].len_max > qp.all[1].len_max ? qp.all[0].len_max : qp.all[1].len_max;
    int nwin = tc_num_wins();
    d->t0 = rank == 0 ? calloc((size_t)size, sizeof *d->t0) : NULL;
    d->maxlen = rank == 0 ? calloc((size_t)size, sizeof *d->maxlen) : NULL;
    d->nwin = rank == 0 ? calloc((size_t)size, sizeof *d->nwin) : NULL;
    PMPI_Gather(&t0, 1, MPI_DOUBLE, d->t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    PMPI_Gather(&maxlen, 1, MPI_LONG, d->maxlen, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    PMPI_Gather(&nwin, 1, MPI_INT, d->nwin, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long mine[5] = {qp.all[Q_POSTED].max_depth, qp.all[Q_UNEX].max_depth, 0, 0, 0};
    for (int q = 0; q < Q_NUM; q++)
        for (long len = 0; len < qp.hist_len[q]; len++)
            if (qp.hist[q][len] > mine[2 + q])
                mine[2 + q] = qp.hist[q][len];
    for (int w = 0; w < qp.nwins; w++) {
        long ops = qp.wins[w].ops[RMA_PUT] + qp.wins[w].ops[RMA_GET] + qp.wins[w].ops[RMA_ACC];
        if (ops > mine[4])
            mine[4] = ops;
    }
    memset(d->ymax, 0, sizeof d->ymax);
    PMPI_Reduce(mine, d->ymax, 5, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
}

void qp_report(int rank, int size)
{
    write_hist(rank);
    write_summary(rank, size);
    struct plot_data d;
    gather_plot_data(rank, size, &d);
    /* every rank's data files are closed before rank 0 plots them */
    PMPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && d.t0 && d.maxlen && d.nwin) {
        double first = d.t0[0];
        int rma = 0;
        for (int r = 1; r < size; r++)
            if (d.t0[r] < first)
                first = d.t0[r];
        for (int r = 0; r < size; r++) {
            d.t0[r] -= first;
            rma |= d.nwin[r] > 0;
        }
        write_script(size, d.t0, d.maxlen, d.ymax, d.nwin);
        run_gnuplot(rma);
    }
    free(d.t0), free(d.maxlen), free(d.nwin);
}
