/* init.c -- MPI_Init/Init_thread/Finalize, MPI_Abort, timers, version,
 * job-level state and fatal-error handling. */
#include "toympi_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "matching.h"
#include "progress.h"
#include "transport.h"
#include "win.h"

#define TOYMPI_DEFAULT_EAGER_LIMIT 8192

toympi_global_t toympi_g = {.world_size = 1};
static int events_ref; /* MPI_Init's reference on the MPI_T events (events.c) */

_Noreturn void toympi_abort_job(int errorcode, const char *why)
{
    (void)why;
    fflush(stdout);
    fflush(stderr);
    /* mpiexec notices the non-zero exit, reports this rank and kills the
     * other ranks of the job. Exit status 0 is reserved for success. */
    int status = errorcode & 0xff;
    _exit(status ? status : 1);
}

_Noreturn void toympi_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "toympi: rank %d: fatal: %s\n", toympi_g.world_rank, msg);
    toympi_abort_job(MPI_ERR_INTERN, msg);
}

void *toympi_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        toympi_fatal("out of memory (%zu bytes)", n);
    return p;
}

void *toympi_calloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p)
        toympi_fatal("out of memory");
    return p;
}

void *toympi_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        toympi_fatal("out of memory (%zu bytes)", n);
    return q;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < 0) {
        fprintf(stderr, "toympi: ignoring invalid %s='%s'\n", name, v);
        return dflt;
    }
    return x;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    /* From a callback (inside MPI_Init itself, or any MPI call): refused, never nested. */
    if (toympi_g.in_tool)
        return MPI_ERR_OTHER;
    if (toympi_g.initialized || toympi_g.finalized) {
        fprintf(stderr, "toympi: MPI_Init called twice\n");
        toympi_abort_job(MPI_ERR_OTHER, "double init");
    }
    toympi_g.world_rank = (int)env_long("TOYMPI_RANK", 0);
    toympi_g.world_size = (int)env_long("TOYMPI_SIZE", 1);
    if (toympi_g.world_size < 1 || toympi_g.world_rank >= toympi_g.world_size)
        toympi_fatal("bad TOYMPI_RANK/TOYMPI_SIZE");
    toympi_g.eager_limit = (size_t)env_long("TOYMPI_EAGER_LIMIT", TOYMPI_DEFAULT_EAGER_LIMIT);
    toympi_g.wtime_base = now();
    if (required < MPI_THREAD_SINGLE)
        required = MPI_THREAD_SINGLE;
    /* no internal threads and no locks: at most serialized use is safe */
    toympi_g.thread_level = required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED : required;
    if (provided)
        *provided = toympi_g.thread_level;
    signal(SIGPIPE, SIG_IGN);
    /* MPI_T events: first, so MPI_COMM_WORLD's comm_create is raised (a tool may have
     * registered on it after MPI_T_init_thread); events are optional, a failure only
     * means there are none (the reason was printed). */
    events_ref = toympi_events_init() == MPITEV_SUCCESS;
    toympi_transport_init();
    toympi_comm_init_world();
    toympi_g.initialized = 1;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Init_thread)

int PMPI_Init(int *argc, char ***argv)
{
    int provided;
    return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
TOYMPI_WEAK(Init)

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = toympi_g.initialized;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = toympi_g.finalized;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Finalized)

int PMPI_Finalize(void)
{
    TOYMPI_CHECK_INIT("MPI_Finalize");
    /* From a callback: the MPI call that runs the callback still uses communicators,
     * requests and the transport that MPI_Finalize would free under it. Refused, returned
     * to the callback (not raised on an error handler: MPI_ERRORS_ARE_FATAL would abort
     * the application for its tool's mistake). */
    if (toympi_g.in_tool)
        return MPI_ERR_OTHER;
    /* Deliver what the engine buffered while MPI is still fully usable: the application
     * has stopped calling MPI and nothing internal is held, so tool code may call MPI
     * (not finalizing yet: toympi_progress_poll delivers at MPITEV_CB_REQUIRE_NONE). */
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    /* From here on, a peer closing its connection is expected, and the drains deliver
     * at MPITEV_CB_REQUIRE_MPI_RESTRICTED (progress.c). */
    toympi_g.finalizing = 1;
    toympi_barrier_impl(toympi_comm_get(MPI_COMM_WORLD));
    toympi_transport_finalize();
    toympi_match_finalize();
    toympi_win_finalize();
    toympi_comm_finalize();
    toympi_request_finalize();
    toympi_g.finalized = 1;
    /* The final barrier's engine events: MPI is gone, so tool code may not call it
     * (finalizing: MPITEV_CB_REQUIRE_MPI_RESTRICTED; no I/O, the transport is closed). */
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    if (events_ref) { /* the last reference (no tool holds MPI_T) finalizes mpitev */
        events_ref = 0;
        toympi_events_finalize();
    }
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Finalize)

int PMPI_Query_thread(int *provided)
{
    TOYMPI_CHECK_INIT("MPI_Query_thread");
    if (!provided)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Query_thread", "NULL argument");
    *provided = toympi_g.thread_level;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    TOYMPI_CHECK_INIT("MPI_Is_thread_main");
    if (!flag)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "NULL argument");
    *flag = 1;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Is_thread_main)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    fprintf(stderr, "toympi: rank %d: MPI_Abort(comm=0x%x, errorcode=%d) called, aborting job\n",
            toympi_g.world_rank, (unsigned)comm, errorcode);
    toympi_abort_job(errorcode, "MPI_Abort");
}
TOYMPI_WEAK(Abort)

double PMPI_Wtime(void) { return now() - toympi_g.wtime_base; }
TOYMPI_WEAK(Wtime)

double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
TOYMPI_WEAK(Wtick)

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPI_ERR_ARG;
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "toy_mpi 0.1 (mpitev reference MPI, MPI %d.%d subset, Unix-domain sockets)",
             MPI_VERSION, MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    TOYMPI_CHECK_INIT("MPI_Get_processor_name");
    if (!name || !resultlen)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_processor_name", "NULL argument");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Get_processor_name)
