/* mpitev_logger: a MEL-style MPI_T events logger that uses only the standard API.
 *
 * Load it into any MPI program (LD_PRELOAD=libmpitev_logger.so, or link it before the MPI
 * library). tc_core.c registers, for every selected event type, on MPI_COMM_WORLD,
 * MPI_COMM_SELF and every communicator the program creates later (freed with it), and
 * window-bound types on every window. Each instance is printed generically from
 * MPI_T_event_get_info, whatever its type: rank, seconds since the tool attached (the
 * source's ticks per second), communicator or window, source, type name and every
 * element decoded by its datatype and named by the type's enum. Drops are printed when
 * the dropped handler reports them; at MPI_Finalize a per-type summary follows.
 *
 * Callbacks run at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE: they copy the instance into the
 * thread's preallocated ring; lines are formatted and written when a callback runs at
 * MPI_RESTRICTED or NONE (or at MPI_Finalize). With MPITEV_LOGGER_QUIET=1 (the summary
 * only) the callbacks only count (tc_count_only). Variables: see usage below. */
#define _POSIX_C_SOURCE 200809L
#include "../common/tc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "mpitev_logger: MPI_T events logger (standard MPI_T API only). Environment:\n"
    "  MPITEV_LOGGER_EVENTS     event type names or glob patterns, separated by comma,\n"
    "                           colon, semicolon or space (unset or empty: all types)\n"
    "  MPITEV_LOGGER_FILTER     a substring the name must contain (EVENTS=*text*; EVENTS wins)\n"
    "  MPITEV_LOGGER_VERBOSITY  highest verbosity logged: user_basic, user_detail, user_all,\n"
    "                           tuner_basic, ..., mpidev_all, or 1..9 (default: all)\n"
    "  MPITEV_LOGGER_OUTPUT     stderr (default), stdout, or a file path pattern where %r\n"
    "                           is the rank (without %r, .<rank> is appended)\n"
    "  MPITEV_LOGGER_QUIET=1    print only the per-type summary\n"
    "  MPITEV_TOOL_RING         instances buffered per thread before they are printed\n"
    "                           (default 16384)\n";

static struct tc_patterns select_patterns;
static int max_verbosity = 9;
static int quiet;
static const char *output = "stderr";
static int out_fd = 2;

static int bad(const char *var, const char *value)
{
    fprintf(stderr, "mpitev_logger: invalid %s='%s'; the logger is not attached.\n%s", var, value,
            usage);
    return -1;
}

/* MPITEV_LOGGER_FILTER: the patterns *filter*. */
static int parse_filter(const char *filter)
{
    char pat[256];
    if (strlen(filter) > sizeof pat - 3 || strpbrk(filter, ",:; "))
        return -1;
    snprintf(pat, sizeof pat, "*%s*", filter);
    return tc_patterns_parse(pat, &select_patterns);
}

/* MPITEV_LOGGER_OUTPUT out: stdout, stderr or a path pattern (opened). */
static int open_output(const char *out)
{
    output = out;
    if (!strcmp(out, "stdout"))
        out_fd = 1;
    else if (strcmp(out, "stderr")) {
        char path[4096];
        tc_path_for_rank(out, tc_rank(), path, sizeof path);
        out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out_fd < 0) {
            out_fd = 2;
            return bad("MPITEV_LOGGER_OUTPUT (cannot create the file)", path);
        }
    }
    return 0;
}

static int configure(void)
{
    const char *ev = getenv("MPITEV_LOGGER_EVENTS");
    const char *filter = getenv("MPITEV_LOGGER_FILTER");
    const char *verb = getenv("MPITEV_LOGGER_VERBOSITY");
    const char *out = getenv("MPITEV_LOGGER_OUTPUT");
    const char *q = getenv("MPITEV_LOGGER_QUIET");
    if (ev && *ev && tc_patterns_parse(ev, &select_patterns) != 0)
        return bad("MPITEV_LOGGER_EVENTS", ev);
    /* FILTER only without EVENTS */
    if (filter && *filter && select_patterns.n == 0 && parse_filter(filter) != 0)
        return bad("MPITEV_LOGGER_FILTER", filter);
    if (verb && *verb && !(max_verbosity = tc_verbosity_parse(verb)))
        return bad("MPITEV_LOGGER_VERBOSITY", verb);
    if (q && *q && strcmp(q, "0") && strcmp(q, "1"))
        return bad("MPITEV_LOGGER_QUIET", q);
    if ((quiet = q && q[0] == '1')) /* the summary needs the counts only */
        tc_count_only();
    if (tc_env_long("MPITEV_TOOL_RING", 1) < 0)
        return bad("MPITEV_TOOL_RING", getenv("MPITEV_TOOL_RING"));
    return out && *out ? open_output(out) : 0;
}

static int select_type(const struct tc_type *t)
{
    return tc_patterns_match(&select_patterns, t->name) && tc_verbosity_level(t->verbosity) <= max_verbosity;
}

/* One write() per line, so lines of different ranks sharing a terminal do not mix. */
static void emit(const char *line, size_t n)
{
    while (n > 0) {
        ssize_t w = write(out_fd, line, n);
        if (w <= 0)
            return;
        line += w, n -= (size_t)w;
    }
}

static void process(const struct tc_record *r)
{
    if (r->kind != TC_REC_EVENT && r->kind != TC_REC_DROPPED)
        return; /* instances and drops only, not the tool core's window records */
    const struct tc_type *t = &tc_types()[r->type];
    const char *src = r->source >= 0 && r->source < tc_num_sources() ? tc_sources()[r->source].name : "?";
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "[rank %d] %12.9f s %-14s %-14s ", tc_rank(),
                                tc_seconds(r->source, r->timestamp), tc_object_label(r), src);
    if (r->kind == TC_REC_DROPPED) {
        n += (size_t)snprintf(line + n, sizeof line - n, "DROPPED %lld instances of %s\n",
                              (long long)r->count, t->name);
        emit(line, n < sizeof line ? n : sizeof line - 1);
        return;
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "%s", t->name);
    for (int i = 0; i < t->num_elements && n < sizeof line - 64; i++) {
        n += (size_t)snprintf(line + n, sizeof line - n, " %s=", t->elem_names[i]);
        n += (size_t)tc_elem_format(t, r, i, line + n, sizeof line - n - 2);
    }
    if (n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    emit(line, n);
}

static void start(int rank, int size)
{
    (void)size;
    if (rank == 0 && !quiet) {
        char line[256];
        int n = snprintf(line, sizeof line, "[rank 0] mpitev_logger attached: output %s\n", output);
        emit(line, (size_t)n);
    }
}

static void finish(int rank, int size)
{
    (void)size;
    char line[512];
    long delivered = 0, dropped = 0;
    int n = snprintf(line, sizeof line, "[rank %d] mpitev_logger summary: %-32s %10s %10s\n", rank,
                     "event type", "delivered", "dropped");
    emit(line, (size_t)n);
    for (int i = 0; i < tc_num_types(); i++) {
        const struct tc_type *t = &tc_types()[i];
        if (!t->selected)
            continue;
        long d = atomic_load(&t->delivered), x = atomic_load(&t->dropped);
        delivered += d, dropped += x;
        if (d == 0 && x == 0)
            continue;
        n = snprintf(line, sizeof line, "[rank %d] mpitev_logger summary: %-32s %10ld %10ld\n", rank, t->name,
                     d, x);
        emit(line, (size_t)n);
    }
    n = snprintf(line, sizeof line,
                 "[rank %d] mpitev_logger: %ld instances delivered, %ld reported dropped, %ld not kept "
                 "(buffer full), %d communicators followed, %d windows followed\n",
                 rank, delivered, dropped, tc_not_kept(), tc_num_comms(), tc_num_wins());
    emit(line, (size_t)n);
    if (out_fd > 2)
        close(out_fd);
}

const struct tc_tool tc_tool = {
    .name = "mpitev_logger",
    .configure = configure,
    .select = select_type,
    .start = start,
    .process = process,
    .finish = finish,
    .live = 1,
};
