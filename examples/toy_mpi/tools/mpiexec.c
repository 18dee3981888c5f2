/* mpiexec -- launcher for toy_mpi jobs on the local machine.
 *
 *   mpiexec -n N [--timeout SECONDS] [--] program [args...]
 *
 * Creates one Unix-domain socketpair per pair of ranks, forks N processes
 * and tells each its rank, the job size and its socket descriptors through
 * the environment (TOYMPI_RANK, TOYMPI_SIZE, TOYMPI_FDS). Exits 0 when all
 * ranks exit 0. When a rank exits non-zero or dies from a signal, mpiexec
 * prints which rank failed, kills the remaining ranks and exits non-zero
 * (the rank's exit status, or 128+signal). --timeout (or MPIEXEC_TIMEOUT)
 * kills a job that runs longer than SECONDS and exits 124; without either
 * there is no time limit. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* exit status of a rank that stopped because a peer died (toympi_internal.h) */
#define TOYMPI_EXIT_PEER_LOST 99

static volatile sig_atomic_t got_alarm, got_term;
static pid_t *pids;
static int nranks;

static void on_alarm(int s) { (void)s; got_alarm = 1; }
static void on_term(int s) { got_term = s; }

static void usage(void)
{
    fprintf(stderr, "usage: mpiexec -n N [--timeout SECONDS] [--] program [args...]\n");
    exit(2);
}

static void kill_all(int sig)
{
    for (int i = 0; i < nranks; i++)
        if (pids[i] > 0)
            kill(pids[i], sig);
}

static int rank_of(pid_t pid)
{
    for (int i = 0; i < nranks; i++)
        if (pids[i] == pid)
            return i;
    return -1;
}

/* reap all remaining ranks: SIGTERM, then SIGKILL after a grace period */
static void shutdown_job(void)
{
    kill_all(SIGTERM);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int killed = 0;
    for (;;) {
        int left = 0;
        for (int i = 0; i < nranks; i++) {
            if (pids[i] <= 0)
                continue;
            if (waitpid(pids[i], NULL, WNOHANG) == pids[i])
                pids[i] = 0;
            else
                left++;
        }
        if (!left)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!killed && now.tv_sec - start.tv_sec >= 2) {
            kill_all(SIGKILL);
            killed = 1;
        }
        usleep(10000);
    }
}

static int failure_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void describe(int r, pid_t pid, int status)
{
    if (WIFEXITED(status))
        fprintf(stderr, "mpiexec: rank %d (pid %d) exited with status %d%s\n", r, (int)pid,
                WEXITSTATUS(status),
                WEXITSTATUS(status) == TOYMPI_EXIT_PEER_LOST ? " (lost a peer)" : "");
    else
        fprintf(stderr, "mpiexec: rank %d (pid %d) was killed by signal %d (%s)\n", r, (int)pid,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
}

/* A rank failed. Ranks that merely lost a dead peer exit with
 * TOYMPI_EXIT_PEER_LOST; wait briefly for the rank that really failed so
 * that it is the one reported first and whose status is returned. */
static int report_failure(int r, pid_t pid, int status, int remaining)
{
    int fr[8], fs[8], n = 0;
    pid_t fp[8];
    fr[n] = r, fp[n] = pid, fs[n++] = status;
    int primary = -1;
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == TOYMPI_EXIT_PEER_LOST))
        primary = 0;
    for (int waited = 0; primary < 0 && remaining > 0 && waited < 100; waited++) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0) {
            usleep(10000);
            continue;
        }
        int k = rank_of(p);
        if (k < 0)
            continue;
        pids[k] = 0;
        remaining--;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
            continue;
        if (n < 8) {
            fr[n] = k, fp[n] = p, fs[n] = st;
            if (!(WIFEXITED(st) && WEXITSTATUS(st) == TOYMPI_EXIT_PEER_LOST))
                primary = n;
            n++;
        }
    }
    if (primary < 0)
        primary = 0;
    describe(fr[primary], fp[primary], fs[primary]);
    for (int i = 0; i < n; i++)
        if (i != primary)
            describe(fr[i], fp[i], fs[i]);
    if (remaining > 0)
        fprintf(stderr, "mpiexec: killing %d remaining rank(s)\n", remaining);
    shutdown_job();
    return failure_code(fs[primary]);
}

static long parse_num(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0) {
        fprintf(stderr, "mpiexec: invalid %s '%s'\n", what, s);
        exit(2);
    }
    return v;
}

/* The options (-n, --timeout, MPIEXEC_TIMEOUT): sets *n and *timeout and returns the
 * index of the program in argv; exits 2 on a bad command line. */
static int parse_args(int argc, char **argv, long *n, long *timeout)
{
    const char *envt = getenv("MPIEXEC_TIMEOUT");
    *n = 1;
    *timeout = envt && *envt ? parse_num(envt, "MPIEXEC_TIMEOUT") : 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-n") || !strcmp(a, "-np")) {
            if (++i >= argc)
                usage();
            *n = parse_num(argv[i], "process count");
        } else if (!strcmp(a, "--timeout") || !strcmp(a, "-timeout")) {
            if (++i >= argc)
                usage();
            *timeout = parse_num(argv[i], "timeout");
        } else if (!strncmp(a, "--timeout=", 10)) {
            *timeout = parse_num(a + 10, "timeout");
        } else if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (a[0] == '-') {
            fprintf(stderr, "mpiexec: unknown option '%s'\n", a);
            usage();
        } else {
            break;
        }
    }
    if (i >= argc)
        usage();
    if (*n < 1 || *n > 1024) {
        fprintf(stderr, "mpiexec: process count must be between 1 and 1024\n");
        exit(2);
    }
    return i;
}

/* One socketpair per pair of ranks: fd[a * nranks + b] is a's end of its connection to
 * b (-1 for a == b). NULL on failure (said). */
static int *connect_ranks(void)
{
    /* N*(N-1) descriptors are needed while forking */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int *fd = malloc(sizeof(int) * (size_t)nranks * (size_t)nranks);
    if (!fd) {
        perror("mpiexec: malloc");
        return NULL;
    }
    for (int a = 0; a < nranks; a++) {
        fd[a * nranks + a] = -1;
        for (int b = a + 1; b < nranks; b++) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
                perror("mpiexec: socketpair");
                return NULL;
            }
            fd[a * nranks + b] = sv[0];
            fd[b * nranks + a] = sv[1];
        }
    }
    return fd;
}

/* In the child of rank r: dies with mpiexec (parent: its pid), keeps only its own ends of
 * the connections, says its rank, the size and its descriptors in the environment, and
 * runs the program. */
static void exec_rank(int r, pid_t parent, const int *fd, char **prog)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* whatever kills mpiexec */
    if (getppid() != parent)
        _exit(1);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    size_t fdslen = (size_t)nranks * 12 + 16, off = 0;
    char *fds = malloc(fdslen);
    if (!fds)
        _exit(1);
    for (int b = 0; b < nranks; b++)
        off += (size_t)snprintf(fds + off, fdslen - off, "%s%d", b ? "," : "", fd[r * nranks + b]);
    for (int a = 0; a < nranks; a++)
        for (int b = 0; b < nranks; b++)
            if (a != r && fd[a * nranks + b] >= 0)
                close(fd[a * nranks + b]);
    char num[32];
    snprintf(num, sizeof num, "%d", r);
    setenv("TOYMPI_RANK", num, 1);
    snprintf(num, sizeof num, "%d", nranks);
    setenv("TOYMPI_SIZE", num, 1);
    setenv("TOYMPI_FDS", fds, 1);
    execvp(prog[0], prog);
    fprintf(stderr, "mpiexec: rank %d: cannot execute '%s': %s\n", r, prog[0], strerror(errno));
    _exit(127);
}

/* Waits for the ranks until all exited 0 (returns 0), one failed (report_failure's code),
 * the timeout passed (124) or mpiexec got a signal (128 + it). */
static int wait_job(long timeout)
{
    if (timeout > 0)
        alarm((unsigned)timeout);
    int remaining = nranks;
    while (remaining > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0 && errno != EINTR)
            break;
        if (pid < 0 && got_alarm) {
            fprintf(stderr, "mpiexec: job timed out after %ld s; killing %d remaining rank(s)\n",
                    timeout, remaining);
            shutdown_job();
            return 124;
        }
        if (pid < 0 && got_term) {
            fprintf(stderr, "mpiexec: received signal %d; killing the job\n", (int)got_term);
            shutdown_job();
            return 128 + (int)got_term;
        }
        int r = pid < 0 ? -1 : rank_of(pid);
        if (r < 0)
            continue;
        pids[r] = 0;
        remaining--;
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            return report_failure(r, pid, status, remaining);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n, timeout;
    char **prog = &argv[parse_args(argc, argv, &n, &timeout)];
    nranks = (int)n;
    pids = calloc((size_t)nranks, sizeof *pids);
    if (!pids) {
        perror("mpiexec: malloc");
        return 1;
    }
    int *fd = connect_ranks();
    if (!fd)
        return 1;

    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: waitpid returns EINTR */
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    pid_t self = getpid();
    for (int r = 0; r < nranks; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("mpiexec: fork");
            kill_all(SIGKILL);
            return 1;
        }
        if (pid == 0)
            exec_rank(r, self, fd, prog);
        pids[r] = pid;
    }
    for (int k = 0; k < nranks * nranks; k++)
        if (fd[k] >= 0)
            close(fd[k]);
    free(fd);
    return wait_job(timeout);
}
