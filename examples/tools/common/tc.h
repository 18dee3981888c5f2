/* tc.h -- the part every example tool shares ("tool core"), standard MPI_T API only.
 *
 * A tool is a shared library attached to an unmodified MPI program (LD_PRELOAD, or linked
 * before the MPI library). tc_core.c owns the PMPI wrappers of MPI_Init, MPI_Init_thread
 * and MPI_Finalize, tc_comms.c those of the calls that create or free a communicator,
 * tc_wins.c those that create or free a window, and tc_core.c everything a tool needs
 * around them:
 *
 *   - the event types and sources as MPI_T describes them (names, elements named by the
 *     type's enum, datatypes, displacements, sources' clocks);
 *   - registrations: for every type the tool selects, one handle per communicator
 *     (MPI_COMM_WORLD, MPI_COMM_SELF and each communicator created later; freed when the
 *     communicator is freed), one per window for MPI_WIN-bound types (each window the
 *     program creates; freed after the window), or one handle for unbound types;
 *   - recording: the event callback is registered at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
 *     and only copies the instance into the calling thread's preallocated ring; at the
 *     MPI_T_CB_REQUIRE_MPI_RESTRICTED and _NONE levels, once the rings hold a batch (a
 *     quarter ring; every record for a .live tool), it then "folds": takes every
 *     thread's recorded instances in timestamp order and hands them to the tool's
 *     process() function. Dropped-handler calls are recorded the same way. A tool that
 *     only counts (tc_count_only) records nothing: its callbacks count per type.
 *
 * The tool defines `const struct tc_tool tc_tool` with its hooks. */
#ifndef MPITEV_TOOLS_TC_H
#define MPITEV_TOOLS_TC_H

#include <mpi.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* What the tool's files declare stays inside the tool library (only the PMPI wrappers,
 * declared by mpi.h, are exported): calls between its files are direct, not through the
 * PLT. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define TC_NAME 96        /* event type / source name buffer */
#define TC_MAX_ELEMS 16   /* elements decoded per type */
#define TC_ELEM_NAME 32
#define TC_DATA 64        /* payload bytes kept per record (larger payloads: not copied) */
#define TC_MAX_THREADS 16 /* threads that get a ring; more are counted as not kept */

/* How an element decodes (from its MPI datatype and size, once per type). */
enum { TC_ELEM_OTHER = 0, TC_ELEM_INT, TC_ELEM_UINT, TC_ELEM_FLOAT, TC_ELEM_DOUBLE, TC_ELEM_TEXT };

struct tc_type {
    int index; /* MPI_T event index */
    char name[TC_NAME];
    int verbosity, bind, num_elements;
    int extent; /* bytes of the payload (last displacement + its size) */
    MPI_Datatype types[TC_MAX_ELEMS];
    MPI_Aint displs[TC_MAX_ELEMS];
    int sizes[TC_MAX_ELEMS]; /* bytes of each element (MPI_CHAR: up to the next one) */
    unsigned char kinds[TC_MAX_ELEMS]; /* TC_ELEM_*: tc_elem_kind of each element */
    char elem_names[TC_MAX_ELEMS][TC_ELEM_NAME];
    int selected; /* the tool registers for it */
    _Atomic long delivered, dropped;
};

struct tc_source {
    char name[TC_NAME];
    MPI_T_source_order ordering;
    MPI_Count ticks_per_second, max_ticks;
    MPI_Count t0; /* the source's timestamp when the tool attached */
};

/* A communicator the tool follows. */
struct tc_comm {
    MPI_Comm comm;
    int id;         /* 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, then 2, 3, ... in creation order */
    char label[32]; /* "MPI_COMM_WORLD", "MPI_COMM_SELF", "comm#2", ... */
    int rank, size;
    int active; /* 0 once freed */
};

/* A window's handle; an int where the MPI has no windows (built with TC_NO_WIN: no window
 * is followed then). */
#if defined(TC_NO_WIN)
typedef int tc_win_handle;
#else
typedef MPI_Win tc_win_handle;
#endif

/* A window the tool follows. */
struct tc_win {
    tc_win_handle win;
    int id;         /* 0, 1, ... in creation order on this process */
    char label[32]; /* "win#0", "win#1", ... */
    int comm;       /* tc_comm id of the communicator it was created over; -1 if not followed */
    int rank, size; /* in the window's group (that communicator's) */
    long long bytes; /* local window size given at creation (0 for a dynamic window) */
    int active;     /* 0 once freed */
    /* The same window on every member: the members' ranks in MPI_COMM_WORLD, in window
     * rank order (NULL: not known), their hash, and how many windows over the same
     * members this process created before (windows over one group are created in the
     * same order on all its members). */
    int *world;
    uint64_t group_hash;
    int group_seq;
};

/* Records: instances and drops, and two the tool core makes itself when the program
 * creates or frees a window (PMPI wrapper; timestamp on source 0 taken right after the
 * MPI's create, before any registration on the window exists, and right after its free),
 * so a tool sees the window's life in timestamp order with its events. */
enum { TC_REC_EVENT = 0, TC_REC_DROPPED = 1, TC_REC_WIN_CREATED = 2, TC_REC_WIN_FREED = 3 };

/* One recorded callback. */
struct tc_record {
    int32_t kind;   /* TC_REC_* */
    int32_t type;   /* index into tc_types(); -1 for TC_REC_WIN_* */
    int32_t source; /* MPI_T source index (-1 if unknown) */
    int32_t comm;   /* tc_comm id; -1 for unbound and window-bound types */
    int32_t win;    /* tc_win id for window-bound types and TC_REC_WIN_*; -1 otherwise */
    MPI_Count timestamp;
    int64_t count;     /* TC_REC_DROPPED: instances lost */
    uint64_t order;    /* recording order on its thread (tie-breaker) */
    int32_t safety;    /* cb_safety the callback received */
    int32_t has_data;  /* data holds the payload */
    unsigned char data[TC_DATA];
};

struct tc_tool {
    const char *name;
    /* Read the environment. Return 0 if fine; otherwise the tool prints its help text and
     * stays detached (the program runs as without it). Called once per process. */
    int (*configure)(void);
    /* Whether to register for this type (called after configure). */
    int (*select)(const struct tc_type *t);
    /* After the registrations on MPI_COMM_WORLD / MPI_COMM_SELF exist. May be NULL. */
    void (*start)(int rank, int size);
    /* A recorded instance or drop, in timestamp order per fold. */
    void (*process)(const struct tc_record *r);
    /* A new communicator is followed (also world and self). May be NULL. */
    void (*comm_added)(const struct tc_comm *c);
    /* A new window is followed. May be NULL. */
    void (*win_added)(const struct tc_win *w);
    /* At MPI_Finalize, after every registration is freed and everything recorded was
     * processed; MPI (PMPI_*) is still usable. */
    void (*finish)(int rank, int size);
    /* 1: process each record as soon as a callback may (the logger's lines appear as
     * instances arrive); 0: in batches, once the rings hold a quarter of a ring's slots
     * (and at MPI_Finalize), which costs less per record. */
    int live;
};
extern const struct tc_tool tc_tool;

/* ---- tables (valid between attach and finish) */
/* Register the selected communicator-bound types on a new communicator (a no-op before
 * the tool is attached, or for MPI_COMM_NULL), and free those registrations when it is
 * freed. tc_comms.c calls them from its wrappers. */
void tc_comm_follow(MPI_Comm c, const char *label);
void tc_comm_unfollow(MPI_Comm c);
/* The same for a window created over comm (tc_wins.c): registers the selected
 * window-bound types on it and records TC_REC_WIN_CREATED; world: its members' ranks in
 * MPI_COMM_WORLD (size entries, copied) or NULL if not known. Unfollow: after the MPI's
 * free, records TC_REC_WIN_FREED and frees the registrations. */
void tc_win_follow(tc_win_handle w, MPI_Comm comm, long long bytes, const int *world);
void tc_win_unfollow(tc_win_handle w);

int tc_num_types(void);
struct tc_type *tc_types(void);
int tc_num_sources(void);
const struct tc_source *tc_sources(void);
int tc_num_comms(void);
const struct tc_comm *tc_comm(int id);
int tc_num_wins(void);
const struct tc_win *tc_win(int id);
/* The label of a record's object: its window's, its communicator's, or "-". */
const char *tc_object_label(const struct tc_record *r);
int tc_rank(void);
long tc_not_kept(void); /* records lost because a ring was full or no ring was free */
/* From configure(): the tool only counts instances and drops (tc_type's delivered and
 * dropped): callbacks record nothing and process() is never called. */
void tc_count_only(void);

/* Seconds since the tool attached, on the source's clock. */
double tc_seconds(int source, MPI_Count ts);

/* ---- payload decoding (tc_format.c) */
/* TC_ELEM_* of an element of datatype d and size bytes (integers of 1, 2, 4, 8 bytes). */
int tc_elem_kind(MPI_Datatype d, int size);
int tc_elem_find(const struct tc_type *t, const char *name); /* -1 if absent */
int tc_elem_is_int(const struct tc_type *t, int i);
int tc_elem_is_float(const struct tc_type *t, int i);
int tc_elem_is_text(const struct tc_type *t, int i);
int tc_elem_is_unsigned(const struct tc_type *t, int i);
/* Integer value of element i (0 if not an integer element or no data). */
int64_t tc_elem_int(const struct tc_type *t, const struct tc_record *r, int i);
double tc_elem_double(const struct tc_type *t, const struct tc_record *r, int i);
/* Writes element i as text ("12", "3.5", "\"MPI_Bcast\""); returns chars written. */
int tc_elem_format(const struct tc_type *t, const struct tc_record *r, int i, char *buf, size_t len);
/* Numbers for data files written per record, at a fraction of printf's cost: write v at
 * p (no NUL) and return the end. tc_put_int: up to 20 characters; tc_put_fixed: as
 * "%.<decimals>f" (0..9 decimals; up to 32 characters; rounded half away from zero). */
char *tc_put_int(char *p, long long v);
char *tc_put_fixed(char *p, double v, int decimals);

/* ---- configuration helpers (tc_format.c) */
/* A list of names or glob patterns separated by comma, colon, semicolon or spaces.
 * tc_patterns_match: 1 if the list is empty (NULL) or a pattern matches. */
struct tc_patterns {
    int n;
    char **pat;
};
int tc_patterns_parse(const char *text, struct tc_patterns *out);
int tc_patterns_match(const struct tc_patterns *p, const char *name);
/* Verbosity: a name (user_basic ... mpidev_all) or 1..9; returns 1..9, 0 if malformed.
 * tc_verbosity_level maps an MPI_T_VERBOSITY_* value to 1..9. */
int tc_verbosity_parse(const char *text);
int tc_verbosity_level(int mpi_verbosity);
/* Positive integer from the environment: dflt if unset, -1 if malformed. */
long tc_env_long(const char *name, long dflt);
/* Expands %r in a path pattern to the rank (appends ".<rank>" if there is none). */
void tc_path_for_rank(const char *pattern, int rank, char *out, size_t len);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
