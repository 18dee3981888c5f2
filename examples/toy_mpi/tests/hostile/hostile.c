/* hostile.c -- tools written by other people, often for another MPI, against the toy MPI
 * (issue 14), through the standard MPI_T API only. One program, one mode per ctest test
 * (argv[1]); each runs with 2 ranks and must finish well within 30 s:
 *
 *   comm_by_value     obj_handle is the communicator itself, not a pointer to it (item 1)
 *   get_info_count    the count query with NULL arrays and an unset count (item 2)
 *   sizing            every buffer sized from the reported datatypes (item 4)
 *   finalize_order    MPI_T_finalize, then MPI_Finalize, handles never freed (item 3)
 *   free_cb_finalize  a free callback calls MPI_T_finalize after MPI_Finalize (item 5)
 *   event_cb_finalize a callback calls MPI_T_finalize, then MPI_Finalize (items 5, 8)
 *   mpi_from_callback callbacks at NONE call MPI; at MPI_RESTRICTED they get an error (8)
 *   slow_tool         callbacks that sleep and poll: the MPI goes on, drops are counted
 *                     and reported, delivered + dropped = raised
 *   t_before_after    MPI_T calls before MPI_T_init_thread and after MPI_T_finalize
 *   free_comm_under_op  a callback at NONE frees the communicator of the operation that
 *                     runs it (collective entry, engine drain mid-collective, MPI_Probe;
 *                     again from its own comm_free event): released when that operation
 *                     ends; freeing it again is MPI_ERR_COMM (item 8)
 *   free_request_under_op  a callback completes or frees the request whose MPI_Wait /
 *                     MPI_Waitall runs it: refused with MPI_ERR_REQUEST (item 8)
 *   free_op_under_op  a callback frees the user operator of the reduction that runs it:
 *                     the reduction completes with it (item 8)
 *   mpi_from_engine   a callback delivered at once inside the progress engine (at
 *                     MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE) calls MPI anyway: refused with
 *                     MPI_ERR_OTHER, the engine is not re-entered mid-frame (item 8) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../toympi_check.h"

static void t_init(void)
{
    int provided;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
}
static int event_index(const char *name)
{
    int i = -1;
    MPI_OK(MPI_T_event_get_index(name, &i));
    return i;
}
static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
static MPI_T_event_registration reg_on(const char *name, MPI_Comm *comm, MPI_T_cb_safety level,
                                       MPI_T_event_cb_function *cb, void *ud)
{
    MPI_T_event_registration r;
    MPI_OK(MPI_T_event_handle_alloc(event_index(name), comm, MPI_INFO_NULL, &r));
    MPI_OK(MPI_T_event_register_callback(r, level, MPI_INFO_NULL, ud, cb));
    return r;
}
/* Exit status after MPI_Finalize (check_finish needs MPI). */
static int finish_local(const char *name)
{
    if (check_rank == 0 || check_failures)
        printf("%s: rank %d %s (%d failed checks)\n", name, check_rank,
               check_failures ? "FAILED" : "passed", check_failures);
    return check_failures ? 1 : 0;
}

/* ------------------------------------------------------------------ comm_by_value */
static void count_cb(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)s;
    ++*(int *)ud;
}
static int comm_by_value(void)
{
    check_init(NULL, NULL);
    t_init();
    int idx = event_index("toympi_coll_begin");
    MPI_Comm world = MPI_COMM_WORLD, dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int by_ptr = 0, by_val = 0, dup_val = 0;
    MPI_T_event_registration a = reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, count_cb, &by_ptr);
    /* The handle itself, as a tool written for a pointer-handle MPI passes it. */
    MPI_T_event_registration b, c, x;
    MPI_OK(MPI_T_event_handle_alloc(idx, (void *)(uintptr_t)MPI_COMM_WORLD, MPI_INFO_NULL, &b));
    MPI_OK(MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &by_val, count_cb));
    MPI_OK(MPI_T_event_handle_alloc(idx, (void *)(uintptr_t)dup, MPI_INFO_NULL, &c));
    MPI_OK(MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &dup_val, count_cb));
    /* Clear errors, never a crash: the null handle, another kind of handle, and values
     * that cannot point to an MPI_Comm. */
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, (void *)(uintptr_t)MPI_COMM_NULL, MPI_INFO_NULL, &x),
                 MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, (void *)(uintptr_t)MPI_INT, MPI_INFO_NULL, &x),
                 MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, (void *)(uintptr_t)0x13, MPI_INFO_NULL, &x),
                 MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, (void *)(uintptr_t)0x44000ff1, MPI_INFO_NULL, &x),
                 MPI_T_ERR_INVALID_HANDLE); /* a communicator that does not exist */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(by_ptr, 1);
    CHECK_EQ_INT(by_val, 1);
    CHECK_EQ_INT(dup_val, 0);
    MPI_OK(MPI_Barrier(dup));
    CHECK_EQ_INT(dup_val, 1);
    CHECK_EQ_INT(by_ptr, 1);
    MPI_OK(MPI_T_event_handle_free(a, NULL, NULL));
    MPI_OK(MPI_T_event_handle_free(b, NULL, NULL));
    MPI_OK(MPI_T_event_handle_free(c, NULL, NULL));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile comm_by_value");
}

/* ------------------------------------------------------------------ get_info_count */
static int get_info_count(void)
{
    check_init(NULL, NULL);
    t_init();
    int n = 0;
    MPI_OK(MPI_T_event_get_num(&n));
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        int num = -1 - i, name_len = -5; /* unset: meaningless without arrays and buffers */
        MPI_OK(MPI_T_event_get_info(i, NULL, &name_len, NULL, NULL, NULL, &num, NULL, NULL, NULL,
                                    NULL, NULL));
        CHECK(num >= 0);
        CHECK(name_len > 1);
        MPI_Datatype dt[1];
        num = -1;
        CHECK_EQ_INT(MPI_T_event_get_info(i, NULL, NULL, NULL, dt, NULL, &num, NULL, NULL, NULL,
                                          NULL, NULL),
                     MPI_T_ERR_INVALID);
    }
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile get_info_count");
}

/* ------------------------------------------------------------------ sizing */
#define GUARD 16
typedef struct {
    int n;
    MPI_Datatype dt[64];
    MPI_Aint disp[64];
    int seen;
} layout_t;
static void sized_reader(MPI_T_event_instance inst, MPI_T_event_registration r, MPI_T_cb_safety s,
                         void *ud)
{
    (void)r; (void)s;
    layout_t *l = ud;
    size_t extent = 0;
    for (int i = 0; i < l->n; i++) {
        int size = 0;
        MPI_OK(MPI_Type_size(l->dt[i], &size));
        unsigned char *b = malloc((size_t)size + GUARD); /* exactly what the datatype says */
        memset(b, 0xEE, (size_t)size + GUARD);
        MPI_OK(MPI_T_event_read(inst, i, b));
        for (int g = 0; g < GUARD; g++)
            CHECK_EQ_INT(b[size + g], 0xEE);
        free(b);
        if ((size_t)l->disp[i] + (size_t)size > extent)
            extent = (size_t)l->disp[i] + (size_t)size;
    }
    unsigned char *c = malloc(extent + GUARD);
    memset(c, 0xEE, extent + GUARD);
    MPI_OK(MPI_T_event_copy(inst, c));
    for (int g = 0; g < GUARD; g++)
        CHECK_EQ_INT(c[extent + g], 0xEE);
    free(c);
    l->seen++;
}
static int sizing(void)
{
    check_init(NULL, NULL);
    t_init();
    int n = 0, total = 0;
    MPI_OK(MPI_T_event_get_num(&n));
    layout_t *ls = calloc((size_t)n, sizeof *ls);
    MPI_T_event_registration *rs = calloc((size_t)n, sizeof *rs);
    int *on = calloc((size_t)n, sizeof *on); /* registered */
    MPI_Comm world = MPI_COMM_WORLD;
    for (int i = 0; i < n; i++) {
        ls[i].n = 64;
        int bind = -1;
        MPI_OK(MPI_T_event_get_info(i, NULL, NULL, NULL, ls[i].dt, ls[i].disp, &ls[i].n, NULL, NULL,
                                    NULL, NULL, &bind));
        CHECK(ls[i].n <= 64);
        if (bind != MPI_T_BIND_MPI_COMM) /* window-bound: no window here */
            continue;
        on[i] = 1;
        MPI_OK(MPI_T_event_handle_alloc(i, &world, MPI_INFO_NULL, &rs[i]));
        MPI_OK(MPI_T_event_register_callback(rs[i], MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &ls[i],
                                             sized_reader));
    }
    int peer = 1 - check_rank, x = check_rank, y = -1;
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, 7, &y, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) {
        total += ls[i].seen;
        if (on[i])
            MPI_OK(MPI_T_event_handle_free(rs[i], NULL, NULL));
    }
    CHECK(total > 0);
    free(ls);
    free(rs);
    free(on);
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile sizing");
}

/* ------------------------------------------------------------------ finalize_order */
static int delivered, calls_failed, t_finalized;
static void mpit_user(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)r; (void)s; (void)ud;
    int n, src = -1;
    if (t_finalized)
        calls_failed += 1000; /* called after the tool's last MPI_T_finalize */
    if (MPI_T_event_get_num(&n) != MPI_SUCCESS || MPI_T_event_get_source(i, &src) != MPI_SUCCESS)
        calls_failed++;
    delivered++;
}
static int finalize_order(void)
{
    t_init(); /* before MPI_Init, as tools loaded with the application do */
    check_init(NULL, NULL);
    MPI_Comm world = MPI_COMM_WORLD;
    /* engine events (buffered, delivered by the MPI's drains) and API events */
    (void)reg_on("message_arrived", &world, MPI_T_CB_REQUIRE_NONE, mpit_user, NULL);
    (void)reg_on("transfer_end", &world, MPI_T_CB_REQUIRE_NONE, mpit_user, NULL);
    (void)reg_on("comm_free", &world, MPI_T_CB_REQUIRE_MPI_RESTRICTED, mpit_user, NULL);
    (void)reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, mpit_user, NULL);
    int peer = 1 - check_rank, x = check_rank, y = -1;
    for (int k = 0; k < 20; k++)
        MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, k, &y, 1, MPI_INT, peer, k, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    MPI_OK(MPI_T_finalize()); /* the tool's last; its handles are never freed */
    t_finalized = 1;
    int before = delivered;
    MPI_OK(MPI_Finalize()); /* barrier traffic, communicators freed: nothing for the tool */
    CHECK(before > 0);
    CHECK_EQ_INT(delivered, before);
    CHECK_EQ_INT(calls_failed, 0);
    return finish_local("hostile finalize_order");
}

/* ------------------------------------------------------------------ free_cb_finalize */
static int free_cb_runs, free_cb_rc = -1;
static void free_then_t_finalize(MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)r; (void)s; (void)ud;
    free_cb_runs++;
    free_cb_rc = MPI_T_finalize(); /* the last reference: ends the session from here */
}
static int free_cb_finalize(void)
{
    t_init();
    check_init(NULL, NULL);
    MPI_Comm world = MPI_COMM_WORLD;
    int seen = 0;
    MPI_T_event_registration r = reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, count_cb, &seen);
    (void)reg_on("toympi_coll_end", &world, MPI_T_CB_REQUIRE_NONE, count_cb, &seen); /* never freed */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(seen, 2);
    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_T_event_handle_free(r, NULL, free_then_t_finalize));
    CHECK_EQ_INT(free_cb_runs, 1);
    CHECK_EQ_INT(free_cb_rc, MPI_SUCCESS);
    int n;
    CHECK_EQ_INT(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    t_init(); /* usable again */
    MPI_OK(MPI_T_event_get_num(&n));
    MPI_OK(MPI_T_finalize());
    return finish_local("hostile free_cb_finalize");
}

/* ------------------------------------------------------------------ event_cb_finalize */
static int ev_t_fin_rc = -1, ev_fin_rc = -1, ev_runs;
static void finalize_everything(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s,
                                void *ud)
{
    (void)i; (void)r; (void)s; (void)ud;
    if (ev_runs++)
        return;
    ev_t_fin_rc = MPI_T_finalize();
    ev_fin_rc = MPI_Finalize(); /* inside MPI_Allreduce: refused, never a teardown under it */
}
static int event_cb_finalize(void)
{
    check_init(NULL, NULL);
    t_init();
    MPI_Comm world = MPI_COMM_WORLD;
    (void)reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, finalize_everything, NULL);
    int x = check_rank + 1, y = 0;
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ_INT(y, 3); /* the collective completed */
    CHECK_EQ_INT(ev_runs, 1);
    CHECK_EQ_INT(ev_t_fin_rc, MPI_SUCCESS);
    CHECK_EQ_INT(ev_fin_rc, MPI_ERR_OTHER);
    int flag = 1;
    MPI_OK(MPI_Finalized(&flag));
    CHECK_EQ_INT(flag, 0);
    return check_finish("hostile event_cb_finalize"); /* MPI still works; finalizes */
}

/* ------------------------------------------------------------------ mpi_from_callback */
static int none_calls, none_failed, restricted_calls, restricted_rc = -1;
static void calls_mpi(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)ud;
    if (s != MPI_T_CB_REQUIRE_NONE)
        return;
    int rank = -1, flag = 0;
    none_calls++;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank != check_rank)
        none_failed++;
    if (MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        none_failed++;
}
static void restricted_calls_mpi(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s,
                                 void *ud)
{
    (void)i; (void)r; (void)ud;
    int rank;
    if (s == MPI_T_CB_REQUIRE_NONE)
        return;
    restricted_calls++;
    restricted_rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* MPI is being torn down */
}
static int mpi_from_callback(void)
{
    check_init(NULL, NULL);
    t_init();
    MPI_Comm world = MPI_COMM_WORLD;
    (void)reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, calls_mpi, NULL);
    (void)reg_on("message_arrived", &world, MPI_T_CB_REQUIRE_NONE, calls_mpi, NULL);
    (void)reg_on("comm_free", &world, MPI_T_CB_REQUIRE_MPI_RESTRICTED, restricted_calls_mpi, NULL);
    int peer = 1 - check_rank, x = check_rank, y = -1;
    for (int k = 0; k < 10; k++) {
        MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, k, &y, 1, MPI_INT, peer, k, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        CHECK_EQ_INT(y, peer);
        MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ_INT(y, 1);
    }
    CHECK(none_calls >= 20);
    CHECK_EQ_INT(none_failed, 0);
    MPI_OK(MPI_Finalize()); /* comm_free at MPI_RESTRICTED: MPI refused, not aborted */
    CHECK(restricted_calls >= 1);
    CHECK_EQ_INT(restricted_rc, MPI_ERR_OTHER);
    MPI_OK(MPI_T_finalize());
    return finish_local("hostile mpi_from_callback");
}

/* ------------------------------------------------------------------ slow_tool */
#define SLOW_N 6000 /* more than the engine buffer holds (4096 records, one per arrival here) */
static int slow_delivered, slow_first = 1;
static long slow_dropped;
static void slow_cb(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)s; (void)ud;
    slow_delivered++;
    if (!slow_first)
        return;
    slow_first = 0;
    sleep_ms(100); /* slow */
    /* and calls MPI: the nested progress reads the sender's messages and raises their
     * engine events while this drain is stuck here, until the buffer overflows */
    for (int k = 0; k < 1500; k++) {
        int flag;
        MPI_Iprobe(0, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (k % 50 == 0)
            sleep_ms(1);
    }
}
static void slow_dropped_cb(MPI_Count c, MPI_T_event_registration r, int src, MPI_T_cb_safety s, void *ud)
{
    (void)r; (void)src; (void)s; (void)ud;
    slow_dropped += (long)c;
}
static int slow_tool(void)
{
    check_init(NULL, NULL);
    t_init();
    int x = 1;
    if (check_rank == 0) {
        for (int k = 0; k < SLOW_N; k++) /* the MPI keeps going */
            MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, k % 1000, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        MPI_Comm world = MPI_COMM_WORLD;
        MPI_T_event_registration r = reg_on("message_arrived", &world, MPI_T_CB_REQUIRE_NONE,
                                            slow_cb, NULL);
        MPI_OK(MPI_T_event_set_dropped_handler(r, slow_dropped_cb));
        for (int k = 0; k < SLOW_N; k++)
            MPI_OK(MPI_Recv(&x, 1, MPI_INT, 0, k % 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int flag;
        MPI_OK(MPI_Iprobe(0, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE)); /* a last drain */
        /* Exact accounting: every arrival was delivered or reported dropped. */
        CHECK_EQ_INT(slow_delivered + slow_dropped, SLOW_N);
        CHECK(slow_dropped > 0);
        printf("hostile slow_tool: %d delivered, %ld dropped\n", slow_delivered, slow_dropped);
        MPI_OK(MPI_T_event_handle_free(r, NULL, NULL));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile slow_tool");
}

/* ------------------------------------------------------------------ t_before_after */
static void all_not_initialized(MPI_T_event_registration h)
{
    int n = -1, i = -1;
    char name[8];
    int len = sizeof name;
    MPI_Info info;
    MPI_Count c;
    int v;
    MPI_T_source_order o;
    MPI_T_event_instance inst = (MPI_T_event_instance)(uintptr_t)0x1234;
    const int E = MPI_T_ERR_NOT_INITIALIZED;
    CHECK_EQ_INT(MPI_T_event_get_num(&n), E);
    CHECK_EQ_INT(MPI_T_event_get_info(0, name, &len, &v, NULL, NULL, &n, NULL, &info, NULL, NULL, &v), E);
    CHECK_EQ_INT(MPI_T_event_get_index("toympi_coll_begin", &i), E);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &h), E);
    CHECK_EQ_INT(MPI_T_event_handle_set_info(h, MPI_INFO_NULL), E);
    CHECK_EQ_INT(MPI_T_event_handle_get_info(h, &info), E);
    CHECK_EQ_INT(MPI_T_event_register_callback(h, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, count_cb), E);
    CHECK_EQ_INT(MPI_T_event_callback_set_info(h, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), E);
    CHECK_EQ_INT(MPI_T_event_callback_get_info(h, MPI_T_CB_REQUIRE_NONE, &info), E);
    CHECK_EQ_INT(MPI_T_event_handle_free(h, NULL, NULL), E);
    CHECK_EQ_INT(MPI_T_event_set_dropped_handler(h, NULL), E);
    CHECK_EQ_INT(MPI_T_event_read(inst, 0, &v), E);
    CHECK_EQ_INT(MPI_T_event_copy(inst, &v), E);
    CHECK_EQ_INT(MPI_T_event_get_timestamp(inst, &c), E);
    CHECK_EQ_INT(MPI_T_event_get_source(inst, &v), E);
    CHECK_EQ_INT(MPI_T_source_get_num(&n), E);
    CHECK_EQ_INT(MPI_T_source_get_info(0, name, &len, NULL, NULL, &o, &c, &c, &info), E);
    CHECK_EQ_INT(MPI_T_source_get_timestamp(0, &c), E);
    CHECK_EQ_INT(MPI_T_finalize(), E);
}
static int t_before_after(void)
{
    MPI_T_event_registration none = (MPI_T_event_registration)(uintptr_t)0x100000001ull;
    all_not_initialized(none); /* before anything */
    check_init(NULL, NULL);
    all_not_initialized(none); /* MPI without MPI_T */
    t_init();
    MPI_Comm world = MPI_COMM_WORLD;
    int seen = 0;
    MPI_T_event_registration h = reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, count_cb, &seen);
    MPI_OK(MPI_T_finalize());
    all_not_initialized(h); /* after the last MPI_T_finalize, with a handle of that session */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(seen, 0);
    t_init();
    CHECK_EQ_INT(MPI_T_event_handle_free(h, NULL, NULL), MPI_T_ERR_INVALID_HANDLE); /* ended */
    MPI_OK(MPI_T_finalize());
    int rc = check_finish("hostile t_before_after");
    all_not_initialized(h); /* after MPI_Finalize too */
    t_init();             /* and MPI_T works after MPI_Finalize */
    int n = 0;
    MPI_OK(MPI_T_event_get_num(&n));
    CHECK(n > 0);
    MPI_OK(MPI_T_finalize());
    return rc | finish_local("hostile t_before_after (after MPI_Finalize)");
}

/* ------------------------------------------------------------------ free_comm_under_op
 * MPI_Comm_free from tool code while an operation on that communicator is in progress
 * (the callback runs inside it). As for an application's MPI_Comm_free with operations
 * pending (MPI-4.1 6.4.3), the call succeeds and the handle is invalid at once; the
 * operation completes normally, and the communicator is released (comm_free raised,
 * context id given back) when it ends. Before the fix: heap-use-after-free in coll.c
 * and pt2pt.c (MPI_Probe), a double free from the comm_free event (comm.c). */
static MPI_Comm victim = MPI_COMM_NULL;
static int victim_rc = -1, victim_frees;
static int order[8], norder; /* 1 coll_begin, 2 coll_end, 3 comm_free on the victim */
static void free_victim(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)ud;
    if (s != MPI_T_CB_REQUIRE_NONE || victim == MPI_COMM_NULL)
        return;
    MPI_Comm c = victim; /* the tool's copy; the application keeps its own */
    victim = MPI_COMM_NULL;
    victim_frees++;
    victim_rc = MPI_Comm_free(&c);
    if (c != MPI_COMM_NULL)
        victim_rc = -2;
}
static void note(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)s;
    if (norder < 8)
        order[norder++] = (int)(intptr_t)ud;
}
/* The comm_free event of the victim: freeing it again is an invalid handle, an error. */
static int again_rc = -1;
static void free_again(MPI_T_event_instance inst, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)inst; (void)r; (void)s;
    MPI_Comm c = *(const MPI_Comm *)ud; /* a copy of the handle the application frees */
    again_rc = MPI_Comm_free(&c);
}
/* Registrations on the victim: the freeing callback on `what`, and the order notes. */
static void watch_victim(MPI_Comm *comm, const char *what, MPI_T_event_registration rs[4])
{
    rs[0] = reg_on(what, comm, MPI_T_CB_REQUIRE_NONE, free_victim, NULL);
    rs[1] = reg_on("toympi_coll_begin", comm, MPI_T_CB_REQUIRE_NONE, note, (void *)1);
    rs[2] = reg_on("toympi_coll_end", comm, MPI_T_CB_REQUIRE_NONE, note, (void *)2);
    rs[3] = reg_on("comm_free", comm, MPI_T_CB_REQUIRE_NONE, note, (void *)3);
    norder = 0;
    victim_rc = -1;
    victim_frees = 0;
}
static void unwatch(MPI_T_event_registration rs[4])
{
    for (int k = 0; k < 4; k++)
        MPI_OK(MPI_T_event_handle_free(rs[k], NULL, NULL));
}
/* The application's handle is now invalid: an error through MPI_COMM_WORLD's handler. */
static void check_gone(MPI_Comm app_copy)
{
    int size = -1;
    CHECK_EQ_INT(MPI_Comm_size(app_copy, &size), MPI_ERR_COMM);
}
static int free_comm_under_op(void)
{
    check_init(NULL, NULL);
    t_init();
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int peer = 1 - check_rank;
    MPI_T_event_registration rs[4];

    /* 1. At the collective's entry (coll_begin, immediate): the collective completes,
     * then the communicator is released: coll_begin, coll_end, comm_free. */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    victim = dup;
    watch_victim(&dup, "toympi_coll_begin", rs);
    int big[4096], sum[4096];
    for (int k = 0; k < 4096; k++)
        big[k] = check_rank + k;
    MPI_OK(MPI_Allreduce(big, sum, 4096, MPI_INT, MPI_SUM, dup)); /* rendezvous: many polls */
    CHECK_EQ_INT(sum[0], 1);
    CHECK_EQ_INT(sum[4095], 2 * 4095 + 1);
    CHECK_EQ_INT(victim_frees, 1);
    CHECK_EQ_INT(victim_rc, MPI_SUCCESS);
    CHECK_EQ_INT(norder, 3);
    CHECK_EQ_INT(order[0], 1);
    CHECK_EQ_INT(order[1], 2);
    CHECK_EQ_INT(order[2], 3);
    check_gone(dup);
    unwatch(rs);

    /* 2. From the engine's drain in the middle of a collective (the data arriving on its
     * collective context, delivered inside the collective's progress). */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    victim = dup;
    watch_victim(&dup, "transfer_end", rs);
    MPI_OK(MPI_Bcast(big, 4096, MPI_INT, 0, dup));
    CHECK_EQ_INT(victim_frees, 1);
    CHECK_EQ_INT(victim_rc, MPI_SUCCESS);
    CHECK(norder >= 2 && order[norder - 1] == 3); /* released last */
    check_gone(dup);
    unwatch(rs);

    /* 3. Inside MPI_Probe on the communicator (its drain), on rank 0, waiting for a
     * message rank 1 sends only once told to (so it arrives during the probe): the probe
     * still finds it, then the communicator goes (the message stays unreceived: the
     * tool took the handle). */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm dup_w = dup;
    int x = check_rank, y = -1, go = 1;
    if (check_rank == 0) {
        MPI_Request gr;
        MPI_Status st;
        watch_victim(&dup_w, "message_arrived", rs);
        victim = dup;
        MPI_OK(MPI_Isend(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &gr));
        MPI_OK(MPI_Probe(1, 5, dup, &st));
        CHECK_EQ_INT(st.MPI_SOURCE, 1);
        CHECK_EQ_INT(victim_frees, 1);
        CHECK_EQ_INT(victim_rc, MPI_SUCCESS);
        MPI_OK(MPI_Wait(&gr, MPI_STATUS_IGNORE));
        check_gone(dup);
        unwatch(rs);
    } else {
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 5, dup));
        MPI_OK(MPI_Comm_free(&dup));
    }

    /* 4. MPI_Comm_free from the comm_free event of the same communicator: it is already
     * freed there (still complete for queries), so an error (MPI_ERR_COMM, on its
     * handler: MPI_ERRORS_RETURN, inherited), never a double free. */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    static MPI_Comm dup_copy;
    dup_copy = dup;
    MPI_T_event_registration fr = reg_on("comm_free", &dup, MPI_T_CB_REQUIRE_NONE, free_again, &dup_copy);
    MPI_OK(MPI_Comm_free(&dup));
    CHECK_EQ_INT(again_rc, MPI_ERR_COMM);
    MPI_OK(MPI_T_event_handle_free(fr, NULL, NULL));

    /* The library goes on: communicators, collectives and point-to-point work. */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, 9, &y, 1, MPI_INT, peer, 9, dup, MPI_STATUS_IGNORE));
    CHECK_EQ_INT(y, peer);
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile free_comm_under_op");
}

/* ------------------------------------------------------------------ free_request_under_op
 * A tool that knows the application's requests (it interposes MPI_Irecv, say) completes
 * or frees, from a callback, the request whose MPI_Wait / MPI_Waitall / MPI_Test / MPI_Cancel
 * runs that callback. Two calls completing one request at once is erroneous in MPI; the
 * toy refuses the inner one with MPI_ERR_REQUEST, returned to the callback (no error
 * handler runs), and the outer call completes the request normally. Before the fix:
 * heap-use-after-free in request.c. */
static MPI_Request tool_req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
static int req_calls, req_wrong;
static void touch_request(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)ud;
    if (s != MPI_T_CB_REQUIRE_NONE)
        return;
    for (int k = 0; k < 2; k++) {
        if (tool_req[k] == MPI_REQUEST_NULL)
            continue;
        MPI_Request copy = tool_req[k];
        int flag = 0, idx = -1;
        req_calls++;
        /* each must be refused and leave the handle alone */
        if (MPI_Wait(&copy, MPI_STATUS_IGNORE) != MPI_ERR_REQUEST || copy != tool_req[k])
            req_wrong++;
        if (MPI_Test(&copy, &flag, MPI_STATUS_IGNORE) != MPI_ERR_REQUEST || copy != tool_req[k])
            req_wrong++;
        if (MPI_Request_free(&copy) != MPI_ERR_REQUEST || copy != tool_req[k])
            req_wrong++;
        if (MPI_Waitall(1, &copy, MPI_STATUSES_IGNORE) != MPI_ERR_REQUEST || copy != tool_req[k])
            req_wrong++;
        if (MPI_Waitany(1, &copy, &idx, MPI_STATUS_IGNORE) != MPI_ERR_REQUEST || copy != tool_req[k])
            req_wrong++;
        if (MPI_Testall(1, &copy, &flag, MPI_STATUSES_IGNORE) != MPI_ERR_REQUEST || copy != tool_req[k])
            req_wrong++;
    }
}
static int free_request_under_op(void)
{
    check_init(NULL, NULL);
    t_init();
    MPI_Comm world = MPI_COMM_WORLD;
    int peer = 1 - check_rank;
    /* In MPI_Waitall's request_free events the requests finished before are gone: those
     * are invalid handles, MPI_ERR_REQUEST too, through the (returning) handler. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_T_event_registration ra = reg_on("message_arrived", &world, MPI_T_CB_REQUIRE_NONE, touch_request, NULL);
    MPI_T_event_registration rf = reg_on("toympi_request_free", &world, MPI_T_CB_REQUIRE_NONE, touch_request, NULL);
    int in[2] = {-1, -1}, out[2] = {check_rank, check_rank + 10};
    /* MPI_Wait: rank 0 receives what rank 1 sends a little later (the arrival is drained
     * inside the wait), then the request's own request_free event */
    if (check_rank == 0) {
        MPI_Request rq;
        MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq));
        tool_req[0] = rq;
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        tool_req[0] = MPI_REQUEST_NULL;
        CHECK_EQ_INT(rq, MPI_REQUEST_NULL);
        CHECK_EQ_INT(in[0], 1);
        CHECK(req_calls >= 2); /* the arrival and the request_free event */
        CHECK_EQ_INT(req_wrong, 0);
    } else {
        sleep_ms(50);
        MPI_OK(MPI_Send(&out[0], 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
    }
    /* MPI_Waitall of two receives, then MPI_Test / MPI_Cancel of one that never matches */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    req_calls = 0;
    MPI_Request rr[2];
    MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rr[0]));
    MPI_OK(MPI_Irecv(&in[1], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rr[1]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* both posted */
    MPI_OK(MPI_Send(&out[0], 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&out[1], 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
    /* Only now does the tool touch them: outside a call completing them, an MPI_Wait
     * from a callback would really wait (and could block a barrier above). */
    tool_req[0] = rr[0];
    tool_req[1] = rr[1];
    MPI_OK(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
    tool_req[0] = tool_req[1] = MPI_REQUEST_NULL;
    CHECK_EQ_INT(in[0], peer);
    CHECK_EQ_INT(in[1], peer + 10);
    CHECK(req_calls >= 2); /* the request_free events at least */
    CHECK_EQ_INT(req_wrong, 0);
    MPI_Request never;
    int flag = 1;
    MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &never));
    tool_req[0] = never;
    MPI_OK(MPI_Test(&never, &flag, MPI_STATUS_IGNORE));
    CHECK_EQ_INT(flag, 0);
    MPI_OK(MPI_Cancel(&never));
    MPI_Status st;
    MPI_OK(MPI_Wait(&never, &st)); /* request_free event: refused calls again */
    tool_req[0] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK_EQ_INT(flag, 1);
    CHECK_EQ_INT(req_wrong, 0);
    MPI_OK(MPI_T_event_handle_free(ra, NULL, NULL));
    MPI_OK(MPI_T_event_handle_free(rf, NULL, NULL));
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile free_request_under_op");
}

/* ------------------------------------------------------------------ free_op_under_op
 * A callback frees the user operator of the reduction that runs it, then creates another
 * one. As for MPI_Op_free with operations pending (MPI-4.1 6.9.5) the free succeeds, the
 * reduction completes with the operator it started with, and the slot is not reused
 * under it. Before the fix: the operator was gone mid-reduction (result left unreduced)
 * and the new operator took its slot (the reduction then applied the wrong function). */
static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] += ((int *)in)[k];
}
static void op_prod(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] *= ((int *)in)[k];
}
static MPI_Op tool_op = MPI_OP_NULL, new_op = MPI_OP_NULL;
static int op_free_rc = -1, op_create_rc = -1;
static void free_the_op(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)s; (void)ud;
    if (tool_op == MPI_OP_NULL)
        return;
    MPI_Op copy = tool_op;
    tool_op = MPI_OP_NULL;
    op_free_rc = MPI_Op_free(&copy);
    op_create_rc = MPI_Op_create(op_prod, 1, &new_op);
}
static int free_op_under_op(void)
{
    check_init(NULL, NULL);
    t_init();
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_T_event_registration rb = reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, free_the_op, NULL);
    for (int round = 0; round < 2; round++) { /* MPI_Allreduce, then MPI_Reduce */
        MPI_Op sum;
        MPI_OK(MPI_Op_create(op_sum, 1, &sum));
        tool_op = sum;
        int x[3] = {check_rank + 2, 3, 4}, y[3] = {0, 0, 0};
        if (round == 0)
            MPI_OK(MPI_Allreduce(x, y, 3, MPI_INT, sum, MPI_COMM_WORLD));
        else
            MPI_OK(MPI_Reduce(x, y, 3, MPI_INT, sum, 0, MPI_COMM_WORLD));
        CHECK_EQ_INT(op_free_rc, MPI_SUCCESS);
        CHECK_EQ_INT(op_create_rc, MPI_SUCCESS);
        CHECK(new_op != sum); /* the slot was still in use */
        if (round == 0 || check_rank == 0) {
            CHECK_EQ_INT(y[0], 5); /* 2 + 3: summed, not multiplied */
            CHECK_EQ_INT(y[1], 6);
            CHECK_EQ_INT(y[2], 8);
        }
        /* the freed handle is invalid now; the new operator works */
        CHECK_EQ_INT(MPI_Allreduce(x, y, 3, MPI_INT, sum, MPI_COMM_WORLD), MPI_ERR_OP);
        MPI_OK(MPI_T_event_handle_free(rb, NULL, NULL));
        MPI_OK(MPI_Allreduce(x, y, 3, MPI_INT, new_op, MPI_COMM_WORLD));
        CHECK_EQ_INT(y[0], 6);
        MPI_OK(MPI_Op_free(&new_op));
        rb = reg_on("toympi_coll_begin", &world, MPI_T_CB_REQUIRE_NONE, free_the_op, NULL);
    }
    MPI_OK(MPI_T_event_handle_free(rb, NULL, NULL));
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile free_op_under_op");
}

/* ------------------------------------------------------------------ mpi_from_engine
 * The one event the toy delivers at once inside its engine: request_free of a request
 * MPI_Request_free detached while active, when a frame handler completes it, raised at
 * MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE. A registration that asked for immediate delivery
 * ("mpitev_buffered" = "false") with a callback at that level gets it there, and a
 * hostile callback that ignores its cb_safety argument calls MPI: each call must return
 * an error, not re-enter the transport between a frame's header and its payload. The
 * dropped handler of such a registration can run there too (pending drops are reported
 * before an immediate delivery). */
static int engine_runs, engine_level_ok = 1, engine_rc_iprobe = -1, engine_rc_rank = -1, engine_rc_free = -1;
static void engine_cb(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)r; (void)ud;
    if (engine_runs++)
        return;
    if (s != MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
        engine_level_ok = 0;
    int flag, rank;
    MPI_Comm c = MPI_COMM_WORLD;
    engine_rc_iprobe = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    engine_rc_rank = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    engine_rc_free = MPI_Comm_free(&c);
}
static int mpi_from_engine(void)
{
    check_init(NULL, NULL);
    t_init();
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpitev_buffered", "false"));
    MPI_T_event_registration r;
    MPI_OK(MPI_T_event_handle_alloc(event_index("toympi_request_free"), &world, info, &r));
    MPI_OK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, NULL, engine_cb));
    MPI_OK(MPI_Info_free(&info));
    int x = 5, y = -1;
    if (check_rank == 0) {
        MPI_Request rq;
        MPI_OK(MPI_Irecv(&y, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Request_free(&rq)); /* active: completed (and freed) by the engine */
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (check_rank == 1)
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
    for (int k = 0; check_rank == 0 && engine_runs == 0 && k < 2000; k++) {
        int flag;
        MPI_OK(MPI_Iprobe(1, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE)); /* progress */
        sleep_ms(1);
    }
    if (check_rank == 0) {
        CHECK_EQ_INT(engine_runs, 1);
        CHECK_EQ_INT(y, 5);
        CHECK(engine_level_ok);
        CHECK_EQ_INT(engine_rc_iprobe, MPI_ERR_OTHER);
        CHECK_EQ_INT(engine_rc_rank, MPI_ERR_OTHER);
        CHECK_EQ_INT(engine_rc_free, MPI_ERR_OTHER);
    }
    /* MPI goes on: the engine was not re-entered */
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, 1 - check_rank, 8, &y, 1, MPI_INT, 1 - check_rank, 8, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    MPI_OK(MPI_T_event_handle_free(r, NULL, NULL));
    MPI_OK(MPI_T_finalize());
    return check_finish("hostile mpi_from_engine");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(void);
    } modes[] = {{"comm_by_value", comm_by_value},         {"get_info_count", get_info_count},
                 {"sizing", sizing},                       {"finalize_order", finalize_order},
                 {"free_cb_finalize", free_cb_finalize},   {"event_cb_finalize", event_cb_finalize},
                 {"mpi_from_callback", mpi_from_callback}, {"slow_tool", slow_tool},
                 {"t_before_after", t_before_after},       {"free_comm_under_op", free_comm_under_op},
                 {"free_request_under_op", free_request_under_op}, {"free_op_under_op", free_op_under_op},
                 {"mpi_from_engine", mpi_from_engine}};
    for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(argv[1], modes[i].name) == 0)
            return modes[i].fn();
    fprintf(stderr, "usage: hostile MODE\n");
    return 2;
}
