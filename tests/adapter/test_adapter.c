/* The adapter through the standard API only, against the fake test MPI (fake_mpi/mpi.h):
 * every MPI_T_event_* / MPI_T_source_* function, every error path, the string convention
 * and the info objects. The fake MPI library (fake_mpi_lib.c) is the one TU with the
 * adapter implementation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mpi.h"
#include "fakempi_test.h"
#include <mpitev/adapter.h> /* MPITEV_CB_* for the raise helpers and the category helpers */

#define RANDOM_REG ((MPI_T_event_registration)(uintptr_t)0xdeadbeef12345ull)

/* ---- A recording callback. ---- */
typedef struct seen {
    int n;
    MPI_T_event_registration reg;
    MPI_T_cb_safety safety;
    int32_t peer, tag;
    int64_t bytes;
    unsigned char copy[32];
    MPI_Count ts;
    int source;
    int read_errs[6]; /* error codes of the bad calls made inside the callback */
    int free_self;
} seen;

static void on_msg(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    seen *s = ud;
    s->n++;
    s->reg = reg;
    s->safety = safety;
    assert_int_equal(MPI_T_event_read(inst, 0, &s->peer), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_read(inst, 1, &s->tag), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_read(inst, 2, &s->bytes), MPI_SUCCESS);
    memset(s->copy, 0xAA, sizeof s->copy);
    assert_int_equal(MPI_T_event_copy(inst, s->copy), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_get_timestamp(inst, &s->ts), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_get_source(inst, &s->source), MPI_SUCCESS);
    int32_t x;
    s->read_errs[0] = MPI_T_event_read(inst, 3, &x);
    s->read_errs[1] = MPI_T_event_read(inst, -1, &x);
    s->read_errs[2] = MPI_T_event_read(inst, 0, NULL);
    s->read_errs[3] = MPI_T_event_copy(inst, NULL);
    s->read_errs[4] = MPI_T_event_get_timestamp(inst, NULL);
    s->read_errs[5] = MPI_T_event_get_source(inst, NULL);
    if (s->free_self) assert_int_equal(MPI_T_event_handle_free(reg, NULL, NULL), MPI_SUCCESS);
}

static void on_comm(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    seen *s = ud;
    (void)reg;
    s->n++;
    s->safety = safety;
    memset(s->copy, 0xAA, sizeof s->copy);
    assert_int_equal(MPI_T_event_copy(inst, s->copy), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_read(inst, 0, &s->bytes), MPI_SUCCESS);
}

typedef struct dropped {
    int n;
    MPI_Count count;
    MPI_T_event_registration reg;
    int source;
    MPI_T_cb_safety safety;
    void *ud;
    int seen_before; /* callbacks seen when the handler ran */
} dropped;
static dropped g_drop;
static seen *g_drop_watch;
static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source, MPI_T_cb_safety safety, void *ud) {
    g_drop.n++;
    g_drop.count = count;
    g_drop.reg = reg;
    g_drop.source = source;
    g_drop.safety = safety;
    g_drop.ud = ud;
    g_drop.seen_before = g_drop_watch ? g_drop_watch->n : -1;
}

typedef struct freed {
    int n;
    MPI_T_event_registration reg;
    MPI_T_cb_safety safety;
    void *ud;
} freed;
static freed g_free;
static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    g_free.n++;
    g_free.reg = reg;
    g_free.safety = safety;
    g_free.ud = ud;
}

/* ---- Info helpers on the fake MPI's MPI_Info. ---- */
static MPI_Info info_of(const char *k1, const char *v1, const char *k2, const char *v2) {
    MPI_Info i;
    assert_int_equal(MPI_Info_create(&i), MPI_SUCCESS);
    if (k1) assert_int_equal(MPI_Info_set(i, k1, v1), MPI_SUCCESS);
    if (k2) assert_int_equal(MPI_Info_set(i, k2, v2), MPI_SUCCESS);
    return i;
}
/* Value of key in info ("" buffer semantics), or NULL if absent. */
static const char *info_get(MPI_Info info, const char *key) {
    static char buf[256];
    int len = sizeof buf, flag = 0;
    assert_int_equal(MPI_Info_get_string(info, key, &len, buf, &flag), MPI_SUCCESS);
    return flag ? buf : NULL;
}
static int info_nkeys(MPI_Info info) {
    int n = -1;
    assert_int_equal(MPI_Info_get_nkeys(info, &n), MPI_SUCCESS);
    return n;
}

static int setup(void **state) {
    (void)state;
    int provided;
    g_drop = (dropped){ 0 };
    g_free = (freed){ 0 };
    g_drop_watch = NULL;
    return MPI_T_init_thread(0, &provided);
}
static int teardown(void **state) {
    (void)state;
    fakempi_progress();
    assert_int_equal(fakempi_info_live(), 0); /* every info the adapter made was freed by us */
    return MPI_T_finalize();
}

static MPI_T_event_registration alloc_msg(void) {
    MPI_T_event_registration r;
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_MSG, NULL, MPI_INFO_NULL, &r), MPI_SUCCESS);
    return r;
}

/* ---- Not initialised: before the first MPI_T_init_thread and after the last finalize. */
static void expect_all_not_initialized(void) {
    const int E = MPI_T_ERR_NOT_INITIALIZED;
    int n, idx;
    char name[16];
    int len = sizeof name;
    MPI_T_event_registration r = RANDOM_REG;
    MPI_Info info;
    MPI_Count c;
    assert_int_equal(MPI_T_event_get_num(&n), E);
    assert_int_equal(MPI_T_event_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), E);
    assert_int_equal(MPI_T_event_get_index("fake_msg", &idx), E);
    assert_int_equal(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &r), E);
    assert_int_equal(MPI_T_event_handle_set_info(r, MPI_INFO_NULL), E);
    assert_int_equal(MPI_T_event_handle_get_info(r, &info), E);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_msg), E);
    assert_int_equal(MPI_T_event_callback_set_info(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), E);
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_NONE, &info), E);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), E);
    assert_int_equal(MPI_T_event_set_dropped_handler(r, on_dropped), E);
    assert_int_equal(MPI_T_event_read(NULL, 0, &n), E);
    assert_int_equal(MPI_T_event_copy(NULL, &n), E);
    assert_int_equal(MPI_T_event_get_timestamp(NULL, &c), E);
    assert_int_equal(MPI_T_event_get_source(NULL, &n), E);
    assert_int_equal(MPI_T_source_get_num(&n), E);
    assert_int_equal(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), E);
    assert_int_equal(MPI_T_source_get_timestamp(0, &c), E);
    assert_int_equal(MPI_T_category_get_num_events(FAKE_CAT_P2P, &n), E);
    assert_int_equal(mpitev_adapter_category_num_events("fake_p2p", &n), E);
    assert_int_equal(mpitev_adapter_category_events("fake_p2p", 1, &idx, NULL), E);
}

static void test_not_initialized_before_init(void **state) {
    (void)state;
    expect_all_not_initialized();
}

static void test_not_initialized_after_last_finalize(void **state) {
    (void)state;
    int provided, n;
    assert_int_equal(MPI_T_init_thread(0, &provided), MPI_SUCCESS);
    assert_int_equal(MPI_T_init_thread(0, &provided), MPI_SUCCESS);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_get_num(&n), MPI_SUCCESS); /* still one init outstanding */
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
    expect_all_not_initialized();
}

/* ---- Queries. ---- */
static void test_counts_and_index(void **state) {
    (void)state;
    int n = -1, idx = -1;
    assert_int_equal(MPI_T_event_get_num(&n), MPI_SUCCESS);
    assert_int_equal(n, FAKE_NUM_EVENTS);
    assert_int_equal(MPI_T_source_get_num(&n), MPI_SUCCESS);
    assert_int_equal(n, FAKE_NUM_SOURCES);
    assert_int_equal(MPI_T_event_get_num(NULL), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_source_get_num(NULL), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_get_index("fake_comm_ev", &idx), MPI_SUCCESS);
    assert_int_equal(idx, FAKE_EV_COMM);
    assert_int_equal(MPI_T_event_get_index("fake_mark", &idx), MPI_SUCCESS);
    assert_int_equal(idx, FAKE_EV_MARK);
    assert_int_equal(MPI_T_event_get_index("no_such_event", &idx), MPI_T_ERR_INVALID_NAME);
    assert_int_equal(MPI_T_event_get_index("", &idx), MPI_T_ERR_INVALID_NAME);
    assert_int_equal(MPI_T_event_get_index(NULL, &idx), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_get_index("fake_msg", NULL), MPI_T_ERR_INVALID);
}

static void test_event_get_info_full(void **state) {
    (void)state;
    char name[32], desc[32];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = -1, num = 8, bind = -1;
    MPI_Datatype dt[8];
    MPI_Aint disp[8];
    MPI_T_enum en = (MPI_T_enum)(uintptr_t)1;
    MPI_Info info = MPI_INFO_NULL;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, name, &name_len, &verbosity, dt, disp, &num, &en, &info, desc,
                                          &desc_len, &bind), MPI_SUCCESS);
    assert_string_equal(name, "fake_msg");
    assert_int_equal(name_len, 9);
    assert_int_equal(verbosity, MPI_T_VERBOSITY_USER_DETAIL);
    assert_int_equal(num, 3);
    assert_int_equal(dt[0], MPI_INT32_T);
    assert_int_equal(dt[1], MPI_INT32_T);
    assert_int_equal(dt[2], MPI_INT64_T);
    assert_int_equal(disp[0], offsetof(struct fake_msg, peer));
    assert_int_equal(disp[1], offsetof(struct fake_msg, tag));
    assert_int_equal(disp[2], offsetof(struct fake_msg, bytes));
    assert_ptr_equal(en, MPI_T_ENUM_NULL);
    assert_string_equal(desc, "a message");
    assert_int_equal(desc_len, 10);
    assert_int_equal(bind, MPI_T_BIND_NO_OBJECT);
    /* The info holds the defaults a new registration gets: the core's delivery mode. */
    assert_non_null(info);
    assert_non_null(info_get(info, "mpitev_buffered"));
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);

    /* A bound type with an enumeration and no description. */
    name_len = sizeof name;
    desc_len = sizeof desc;
    num = 8;
    strcpy(desc, "xxxx");
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_COMM, name, &name_len, &verbosity, dt, disp, &num, &en, NULL, desc,
                                          &desc_len, &bind), MPI_SUCCESS);
    assert_string_equal(name, "fake_comm_ev");
    assert_int_equal(verbosity, MPI_T_VERBOSITY_TUNER_ALL);
    assert_int_equal(num, 2);
    assert_int_equal(dt[0], MPI_INT64_T);
    assert_int_equal(dt[1], MPI_UINT32_T);
    assert_int_equal(disp[0], 0);
    assert_int_equal(disp[1], 8);
    assert_ptr_equal(en, fakempi_enum_of_comm_ev());
    assert_int_equal(desc[0], '\0'); /* no description: "" and desc_len 1 (16.3.8.3) */
    assert_int_equal(desc_len, 1);
    assert_int_equal(bind, MPI_T_BIND_MPI_COMM);

    /* No elements; explicit "" description. */
    desc_len = sizeof desc;
    num = 8;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MARK, NULL, NULL, &verbosity, dt, disp, &num, NULL, NULL, desc,
                                          &desc_len, &bind), MPI_SUCCESS);
    assert_int_equal(num, 0);
    assert_int_equal(desc_len, 1);
    assert_int_equal(verbosity, MPI_T_VERBOSITY_MPIDEV_ALL);
}

static void test_event_get_info_nulls_and_index(void **state) {
    (void)state;
    int name_len = 0;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_get_info(-1, NULL, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_event_get_info(FAKE_NUM_EVENTS, NULL, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(name_len, 0); /* nothing written on failure */
}

static void test_event_get_info_num_elements(void **state) {
    (void)state;
    MPI_Datatype dt[3] = { -1, -1, -1 };
    MPI_Aint disp[3] = { -1, -1, -1 };
    int num = 1;
    /* Truncated to the user's num_elements; the count required is returned. */
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, dt, disp, &num, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(num, 3);
    assert_int_equal(dt[0], MPI_INT32_T);
    assert_int_equal(disp[0], 0);
    assert_int_equal(dt[1], -1);
    assert_int_equal(disp[1], -1);
    /* 0: only the count. */
    num = 0;
    dt[0] = -1;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, dt, disp, &num, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(num, 3);
    assert_int_equal(dt[0], -1);
    /* NULL arrays are ignored, each on its own. */
    num = 3;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, NULL, disp, &num, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(disp[2], 8);
    assert_int_equal(dt[2], -1);
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, dt, NULL, &num, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(dt[2], MPI_INT64_T);
    /* num_elements NULL: the arrays are ignored too. */
    MPI_Datatype dt2[1] = { -1 };
    MPI_Aint disp2[1] = { -1 };
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, dt2, disp2, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(dt2[0], -1);
    assert_int_equal(disp2[0], -1);
    /* Negative: a bad argument. */
    num = -1;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, dt, disp, &num, NULL, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_INVALID);
}

/* MPI-3.1 14.3.3 on the name "fake_msg" (8 characters). */
static void test_string_convention(void **state) {
    (void)state;
    char buf[16];
    int len;
#define NAME(b, l) MPI_T_event_get_info(FAKE_EV_MSG, (b), (l), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
    len = 5; /* length query: NULL buffer */
    assert_int_equal(NAME(NULL, &len), MPI_SUCCESS);
    assert_int_equal(len, 9);
    len = 0; /* len 0: length only, buffer untouched */
    memset(buf, 'z', sizeof buf);
    assert_int_equal(NAME(buf, &len), MPI_SUCCESS);
    assert_int_equal(len, 9);
    assert_int_equal(buf[0], 'z');
    len = 4; /* truncation: n-1 characters and a terminator; the full length plus one */
    memset(buf, 'z', sizeof buf);
    assert_int_equal(NAME(buf, &len), MPI_SUCCESS);
    assert_string_equal(buf, "fak");
    assert_int_equal(buf[4], 'z');
    assert_int_equal(len, 9);
    len = 8; /* one short */
    assert_int_equal(NAME(buf, &len), MPI_SUCCESS);
    assert_string_equal(buf, "fake_ms");
    assert_int_equal(len, 9);
    len = 9; /* exact fit */
    memset(buf, 'z', sizeof buf);
    assert_int_equal(NAME(buf, &len), MPI_SUCCESS);
    assert_string_equal(buf, "fake_msg");
    assert_int_equal(buf[9], 'z');
    assert_int_equal(len, 9);
    len = 1; /* room for the terminator only */
    assert_int_equal(NAME(buf, &len), MPI_SUCCESS);
    assert_string_equal(buf, "");
    assert_int_equal(len, 9);
    memset(buf, 'z', sizeof buf); /* NULL len: the buffer is ignored */
    assert_int_equal(NAME(buf, NULL), MPI_SUCCESS);
    assert_int_equal(buf[0], 'z');
    len = -1; /* negative with a buffer: bad argument, nothing written */
    assert_int_equal(NAME(buf, &len), MPI_T_ERR_INVALID);
    assert_int_equal(buf[0], 'z');
    assert_int_equal(len, -1);
#undef NAME
    /* The same convention for sources. */
    len = 3;
    assert_int_equal(MPI_T_source_get_info(FAKE_SRC_MAIN, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    assert_string_equal(buf, "fa");
    assert_int_equal(len, 10); /* "fake_main" */
    len = -2;
    assert_int_equal(MPI_T_source_get_info(FAKE_SRC_MAIN, NULL, NULL, buf, &len, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_INVALID);
}

static void test_source_get_info(void **state) {
    (void)state;
    char name[32], desc[32];
    int name_len = sizeof name, desc_len = sizeof desc;
    MPI_T_source_order order = (MPI_T_source_order)0;
    MPI_Count tps = 0, max = 0;
    MPI_Info info = MPI_INFO_NULL;
    assert_int_equal(MPI_T_source_get_info(FAKE_SRC_MAIN, name, &name_len, desc, &desc_len, &order, &tps, &max, &info),
                     MPI_SUCCESS);
    assert_string_equal(name, "fake_main");
    assert_string_equal(desc, "the main thread");
    assert_int_equal(order, MPI_T_SOURCE_ORDERED);
    assert_int_equal(tps, 1000000000);
    assert_true(max > 0);
    assert_non_null(info);
    assert_int_equal(info_nkeys(info), 0); /* a new, empty info */
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);

    desc_len = sizeof desc;
    assert_int_equal(MPI_T_source_get_info(FAKE_SRC_NOCLOCK, NULL, NULL, desc, &desc_len, &order, &tps, &max, NULL),
                     MPI_SUCCESS);
    assert_string_equal(desc, "");
    assert_int_equal(desc_len, 1);
    assert_int_equal(order, MPI_T_SOURCE_UNORDERED);
    assert_int_equal(tps, 1000);
    assert_int_equal(max, 1000000);

    assert_int_equal(MPI_T_source_get_info(FAKE_SRC_MAIN, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_source_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_source_get_info(FAKE_NUM_SOURCES, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &info),
                     MPI_T_ERR_INVALID_INDEX);
}

static void test_source_get_timestamp(void **state) {
    (void)state;
    MPI_Count a = -1, b = -1;
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_SRC_MAIN, &a), MPI_SUCCESS);
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_SRC_MAIN, &b), MPI_SUCCESS);
    assert_true(a >= 0 && b >= a);
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_SRC_NOCLOCK, &a), MPI_T_ERR_NOT_SUPPORTED);
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_NUM_SOURCES, &a), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_source_get_timestamp(-1, &a), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_SRC_MAIN, NULL), MPI_T_ERR_INVALID);
}

/* ---- Registrations and delivery. ---- */
static void test_callback_delivery_and_reading(void **state) {
    (void)state;
    seen s = { 0 };
    MPI_T_event_registration r = alloc_msg();
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 2, 3, MPITEV_CB_REQUIRE_NONE); /* no callback yet: nothing */
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &s, on_msg),
                     MPI_SUCCESS);
    MPI_Count before;
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_SRC_MAIN, &before), MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 7, 42, 1234567890123ll, MPITEV_CB_REQUIRE_MPI_RESTRICTED);
    assert_int_equal(s.n, 1);
    assert_ptr_equal(s.reg, r);
    assert_int_equal(s.safety, MPI_T_CB_REQUIRE_MPI_RESTRICTED); /* the raise site's level, mapped */
    assert_int_equal(s.peer, 7);
    assert_int_equal(s.tag, 42);
    assert_int_equal(s.bytes, 1234567890123ll);
    struct fake_msg m;
    memcpy(&m, s.copy, sizeof m);
    assert_int_equal(m.peer, 7);
    assert_int_equal(m.tag, 42);
    assert_int_equal(m.bytes, 1234567890123ll);
    assert_int_equal(s.copy[sizeof m], 0xAA); /* no byte past the extent */
    assert_true(s.ts >= before);
    assert_int_equal(s.source, FAKE_SRC_MAIN);
    assert_int_equal(s.read_errs[0], MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(s.read_errs[1], MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(s.read_errs[2], MPI_T_ERR_INVALID);
    assert_int_equal(s.read_errs[3], MPI_T_ERR_INVALID);
    assert_int_equal(s.read_errs[4], MPI_T_ERR_INVALID);
    assert_int_equal(s.read_errs[5], MPI_T_ERR_INVALID);
    fakempi_raise_msg(FAKE_SRC_NOCLOCK, 1, 1, 1, MPITEV_CB_REQUIRE_THREAD_SAFE);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.source, FAKE_SRC_NOCLOCK);
    assert_int_equal(s.safety, MPI_T_CB_REQUIRE_THREAD_SAFE);

    /* NULL removes the callback: nothing delivered, nothing dropped. */
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL, NULL),
                     MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(s.n, 2);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

static void test_instance_handle_errors(void **state) {
    (void)state;
    int32_t x;
    MPI_Count c;
    int src;
    assert_int_equal(MPI_T_event_read(NULL, 0, &x), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_copy(NULL, &x), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_get_timestamp(NULL, &c), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_get_source(NULL, &src), MPI_T_ERR_INVALID_HANDLE);
}

static void test_safety_selection_and_dropped_handler(void **state) {
    (void)state;
    seen s = { 0 };
    MPI_T_event_registration r = alloc_msg();
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &s, on_msg),
                     MPI_SUCCESS);
    assert_int_equal(MPI_T_event_set_dropped_handler(r, on_dropped), MPI_SUCCESS);
    g_drop_watch = &s;
    /* Needs an async-signal-safe callback; only thread-safe is registered: dropped. */
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    assert_int_equal(s.n, 0);
    /* The next instance of that source reports the loss first (16.3.8.5). */
    fakempi_raise_msg(FAKE_SRC_MAIN, 5, 5, 5, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(g_drop.n, 1);
    assert_int_equal(g_drop.count, 2);
    assert_ptr_equal(g_drop.reg, r);
    assert_int_equal(g_drop.source, FAKE_SRC_MAIN);
    assert_int_equal(g_drop.safety, MPI_T_CB_REQUIRE_NONE);
    assert_ptr_equal(g_drop.ud, &s);
    assert_int_equal(g_drop.seen_before, 0);
    assert_int_equal(s.n, 1);
    /* NULL handler: no loss recorded. */
    assert_int_equal(MPI_T_event_set_dropped_handler(r, NULL), MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(g_drop.n, 1);
    /* An async-signal-safe callback now takes the strict raises. */
    seen s2 = { 0 };
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, &s2, on_msg),
                     MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    assert_int_equal(s2.n, 1);
    assert_int_equal(s2.safety, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_NONE); /* lowest valid level: thread-safe */
    assert_int_equal(s.n, 3);
    assert_int_equal(s2.n, 1);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

static void test_bound_object_and_compact_copy(void **state) {
    (void)state;
    MPI_Comm c1 = fakempi_comm_create(), c2 = fakempi_comm_create();
    MPI_T_event_registration r;
    seen s = { 0 };
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_COMM, NULL, MPI_INFO_NULL, &r), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_COMM, &c1, MPI_INFO_NULL, &r), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &s, on_comm), MPI_SUCCESS);
    fakempi_raise_comm(c2, 1, 1);
    assert_int_equal(s.n, 0);
    fakempi_raise_comm(c1, -77, 99);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.bytes, -77);
    /* The computable extent is 12 (8 + sizeof uint32); the C struct is 16: bytes 12..15
     * of the user's buffer must stay untouched. */
    int64_t a;
    uint32_t b;
    memcpy(&a, s.copy, 8);
    memcpy(&b, s.copy + 8, 4);
    assert_int_equal(a, -77);
    assert_int_equal(b, 99);
    for (int i = 12; i < 16; i++) assert_int_equal(s.copy[i], 0xAA);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    /* An unbound type ignores obj_handle: never dereferenced. */
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_MSG, (void *)(uintptr_t)1, MPI_INFO_NULL, &r), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    fakempi_comm_free(c1);
    fakempi_comm_free(c2);
}

static void test_handle_alloc_errors(void **state) {
    (void)state;
    MPI_T_event_registration r;
    assert_int_equal(MPI_T_event_handle_alloc(-1, NULL, MPI_INFO_NULL, &r), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_NUM_EVENTS, NULL, MPI_INFO_NULL, &r), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_MSG, NULL, MPI_INFO_NULL, NULL), MPI_T_ERR_INVALID);
}

/* Every handle function on a NULL, a random and a freed handle. */
static void expect_invalid_handle(MPI_T_event_registration r) {
    const int E = MPI_T_ERR_INVALID_HANDLE;
    MPI_Info info = MPI_INFO_NULL;
    assert_int_equal(MPI_T_event_handle_set_info(r, MPI_INFO_NULL), E);
    assert_int_equal(MPI_T_event_handle_get_info(r, &info), E);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_msg), E);
    assert_int_equal(MPI_T_event_callback_set_info(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), E);
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_NONE, &info), E);
    assert_int_equal(MPI_T_event_set_dropped_handler(r, on_dropped), E);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, on_free), E);
    assert_null(info);
    assert_int_equal(g_free.n, 0);
}

static void test_invalid_handles(void **state) {
    (void)state;
    expect_invalid_handle(NULL);
    expect_invalid_handle(RANDOM_REG);
    expect_invalid_handle((MPI_T_event_registration)(uintptr_t)~(uintptr_t)0);
    MPI_T_event_registration r = alloc_msg();
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    expect_invalid_handle(r); /* freed */
    fakempi_progress();
    MPI_T_event_registration r2 = alloc_msg(); /* likely the same slot, a new generation */
    assert_ptr_not_equal(r2, r);
    expect_invalid_handle(r);
    assert_int_equal(MPI_T_event_handle_free(r2, NULL, NULL), MPI_SUCCESS);
}

static void test_handle_info(void **state) {
    (void)state;
    MPI_Info in = info_of("foo", "bar", "tool.key", "a much longer value than usual"), used = MPI_INFO_NULL;
    MPI_T_event_registration r;
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_MSG, NULL, in, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&in), MPI_SUCCESS); /* the adapter keeps no reference */
    assert_int_equal(MPI_T_event_handle_get_info(r, &used), MPI_SUCCESS);
    assert_string_equal(info_get(used, "foo"), "bar");
    assert_string_equal(info_get(used, "tool.key"), "a much longer value than usual");
    assert_non_null(info_get(used, "mpitev_buffered"));
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    /* set_info updates the keys given and leaves the others. */
    in = info_of("foo", "baz", "x", "1");
    assert_int_equal(MPI_T_event_handle_set_info(r, in), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&in), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_set_info(r, MPI_INFO_NULL), MPI_SUCCESS); /* no hints */
    assert_int_equal(MPI_T_event_handle_get_info(r, &used), MPI_SUCCESS);
    assert_string_equal(info_get(used, "foo"), "baz");
    assert_string_equal(info_get(used, "x"), "1");
    assert_string_equal(info_get(used, "tool.key"), "a much longer value than usual");
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_get_info(r, NULL), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

static void test_callback_info(void **state) {
    (void)state;
    seen s = { 0 };
    MPI_T_event_registration r = alloc_msg();
    MPI_Info in = info_of("cb", "one", NULL, NULL), used = MPI_INFO_NULL;
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, in, &s, on_msg), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&in), MPI_SUCCESS);
    /* Stored and echoed. */
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_THREAD_SAFE, &used), MPI_SUCCESS);
    assert_int_equal(info_nkeys(used), 1);
    assert_string_equal(info_get(used, "cb"), "one");
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    in = info_of("more", "two", NULL, NULL);
    assert_int_equal(MPI_T_event_callback_set_info(r, MPI_T_CB_REQUIRE_THREAD_SAFE, in), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&in), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_THREAD_SAFE, &used), MPI_SUCCESS);
    assert_string_equal(info_get(used, "cb"), "one");
    assert_string_equal(info_get(used, "more"), "two");
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    /* Another level has its own (empty) hints: a new empty info. */
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_NONE, &used), MPI_SUCCESS);
    assert_int_equal(info_nkeys(used), 0);
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    /* Re-registering replaces the callback's hints (16.3.8.4). */
    in = info_of("cb", "replaced", NULL, NULL);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, in, &s, on_msg), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&in), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_THREAD_SAFE, &used), MPI_SUCCESS);
    assert_int_equal(info_nkeys(used), 1);
    assert_string_equal(info_get(used, "cb"), "replaced");
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    /* Bad safety levels and NULL out argument. */
    MPI_T_cb_safety bad = (MPI_T_cb_safety)3; /* MPITEV's ASYNC value, not this MPI's */
    assert_int_equal(MPI_T_event_register_callback(r, bad, MPI_INFO_NULL, &s, on_msg), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_callback_set_info(r, bad, MPI_INFO_NULL), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_callback_get_info(r, bad, &used), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_NONE, NULL), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

static void test_handle_free_callback(void **state) {
    (void)state;
    int token;
    MPI_T_event_registration r = alloc_msg();
    assert_int_equal(MPI_T_event_handle_free(r, &token, on_free), MPI_SUCCESS);
    fakempi_progress();
    assert_int_equal(g_free.n, 1);
    assert_ptr_equal(g_free.reg, r);
    assert_ptr_equal(g_free.ud, &token);
    assert_int_equal(g_free.safety, MPI_T_CB_REQUIRE_NONE);
    assert_int_equal(MPI_T_event_handle_free(r, &token, on_free), MPI_T_ERR_INVALID_HANDLE); /* twice */
    /* Freeing from inside the callback (the standard allows it). */
    seen s = { 0 };
    s.free_self = 1;
    r = alloc_msg();
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &s, on_msg), MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_NONE);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(s.n, 1);
    assert_int_equal(MPI_T_event_set_dropped_handler(r, on_dropped), MPI_T_ERR_INVALID_HANDLE);
}

/* MPI_T_event_get_info with an info argument reads the default hints without taking a
 * registration: another registration's pending free (freed inside its own callback, so
 * still in flight) does not complete, and its free callback does not run, from inside
 * the query; it runs at the next progress. */
static void on_msg_free_self_cb(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety,
                                void *ud) {
    (void)inst; (void)safety;
    assert_int_equal(MPI_T_event_handle_free(reg, ud, on_free), MPI_SUCCESS);
}
static void test_get_info_runs_no_pending_free(void **state) {
    (void)state;
    int token;
    MPI_T_event_registration r = alloc_msg();
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &token, on_msg_free_self_cb),
                     MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 1, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(g_free.n, 0); /* pending: the raise was in flight when it was freed */
    MPI_Info info = MPI_INFO_NULL;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &info, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_string_equal(info_get(info, "mpitev_buffered"), "default");
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
    assert_int_equal(g_free.n, 0); /* not from inside the query */
    fakempi_progress();
    assert_int_equal(g_free.n, 1);
    assert_ptr_equal(g_free.ud, &token);
    assert_ptr_equal(g_free.reg, r);
}

static void test_categories(void **state) {
    (void)state;
    int n = -1, idx[4] = { -1, -1, -1, -1 };
    assert_int_equal(MPI_T_category_get_num_events(FAKE_CAT_P2P, &n), MPI_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(MPI_T_category_get_events(FAKE_CAT_P2P, 4, idx), MPI_SUCCESS);
    assert_int_equal(idx[0], FAKE_EV_MSG);
    assert_int_equal(idx[1], FAKE_EV_COMM);
    assert_int_equal(idx[2], -1); /* remaining entries are not modified */
    idx[0] = idx[1] = -1;
    assert_int_equal(MPI_T_category_get_events(FAKE_CAT_P2P, 1, idx), MPI_SUCCESS);
    assert_int_equal(idx[0], FAKE_EV_MSG);
    assert_int_equal(idx[1], -1);
    assert_int_equal(MPI_T_category_get_num_events(FAKE_CAT_OTHER, &n), MPI_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(MPI_T_category_get_events(FAKE_CAT_OTHER, 4, idx), MPI_SUCCESS);
    assert_int_equal(idx[0], FAKE_EV_MARK);
    assert_int_equal(MPI_T_category_get_num_events(FAKE_CAT_CVARS, &n), MPI_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(MPI_T_category_get_events(FAKE_CAT_CVARS, 0, NULL), MPI_SUCCESS);
    /* The helpers' own argument checks. */
    assert_int_equal(mpitev_adapter_category_num_events("fake_p2p", NULL), MPI_T_ERR_INVALID);
    assert_int_equal(mpitev_adapter_category_num_events(NULL, &n), MPI_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(mpitev_adapter_category_events("fake_p2p", -1, idx, &n), MPI_T_ERR_INVALID);
    assert_int_equal(mpitev_adapter_category_events("fake_p2p", 2, NULL, &n), MPI_T_ERR_INVALID);
    assert_int_equal(mpitev_adapter_category_events("fake_p2p", 0, NULL, &n), MPI_SUCCESS);
    assert_int_equal(n, 2);
}

static void test_memory_errors(void **state) {
    (void)state;
    MPI_T_event_registration r = alloc_msg();
    MPI_Info used = MPI_INFO_NULL;
    fakempi_info_fail_after(0); /* Info_create fails */
    assert_int_equal(MPI_T_event_handle_get_info(r, &used), MPI_T_ERR_MEMORY);
    assert_null(used);
    fakempi_info_fail_after(1); /* the first Info_set fails: the half-built info is freed */
    assert_int_equal(MPI_T_event_handle_get_info(r, &used), MPI_T_ERR_MEMORY);
    assert_null(used);
    assert_int_equal(fakempi_info_live(), 0);
    fakempi_info_fail_after(0);
    assert_int_equal(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &used), MPI_T_ERR_MEMORY);
    fakempi_info_fail_after(0);
    assert_int_equal(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &used, NULL, NULL, NULL),
                     MPI_T_ERR_MEMORY);
    fakempi_info_fail_after(-1);
    assert_null(used);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

static void test_error_map(void **state) {
    (void)state;
    assert_int_equal(mpitev_adapter_error(MPITEV_SUCCESS), MPI_SUCCESS);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_INVALID_INDEX), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_INVALID_HANDLE), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_INVALID_NAME), MPI_T_ERR_INVALID_NAME);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_INVALID_ARG), MPI_T_ERR_INVALID);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_NO_MEM), MPI_T_ERR_MEMORY);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_NOT_SUPPORTED), MPI_T_ERR_NOT_SUPPORTED);
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_NOT_INITIALIZED), MPI_T_ERR_NOT_INITIALIZED);
    /* A configured limit: out of handles where the MPI has the class (this fake mpi.h
     * does not), else out of memory. */
#ifdef MPI_T_ERR_OUT_OF_HANDLES
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_LIMIT), MPI_T_ERR_OUT_OF_HANDLES);
#else
    assert_int_equal(mpitev_adapter_error(MPITEV_ERR_LIMIT), MPI_T_ERR_MEMORY);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_initialized_before_init),
        cmocka_unit_test_setup_teardown(test_counts_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_get_info_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_get_info_nulls_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_get_info_num_elements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_string_convention, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_get_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_get_timestamp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callback_delivery_and_reading, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instance_handle_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_safety_selection_and_dropped_handler, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bound_object_and_compact_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handle_alloc_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handle_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callback_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handle_free_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_get_info_runs_no_pending_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_categories, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_map, setup, teardown),
        cmocka_unit_test(test_not_initialized_after_last_finalize),
    };
    return cmocka_run_group_tests_name("adapter", tests, NULL, NULL);
}
