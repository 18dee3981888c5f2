/* A careless tool against the adapter, through the standard API only (issue 40):
 *   - instance handles kept past their callback, used in a later callback, taken from
 *     another thread's delivery, or random: MPI_T_ERR_INVALID_HANDLE from every instance
 *     function, never another instance's data or a crash; live ones (also an outer one
 *     during a nested delivery) work;
 *   - object handles passed by value to MPI_T_event_handle_alloc (MPI_COMM_WORLD rather
 *     than &comm), for a pointer handle (MPI_Comm) and an integer one (the fake's MPI_Op):
 *     accepted and delivered, or MPI_T_ERR_INVALID_HANDLE; never success and then silence;
 *   - MPI_T_event_copy and MPI_T_event_read on a layout with padding between elements:
 *     exactly the elements' bytes are written.
 * Built twice: adapter_careless over the fake test MPI's mpi.h (MPI-4), and
 * adapter_openmpi over Open MPI 4.1's (MPI-3.1, with <mpitev/mpi_t_events.h>, the MPI-3.1
 * info calls, pointer handles everywhere), with the same stand-in MPI (fake_mpi_lib.c). */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mpi.h>
#include <mpitev/mpi_t_events.h>
#include "fakempi_test.h"
#include <mpitev/adapter.h> /* MPITEV_CB_* for the raise helpers */

static int setup(void **state) {
    (void)state;
    int provided;
    return MPI_T_init_thread(0, &provided);
}
static int teardown(void **state) {
    (void)state;
    fakempi_progress();
    assert_int_equal(fakempi_info_live(), 0);
    return MPI_T_finalize();
}

static MPI_T_event_registration alloc_on(int type_index, void *obj_handle, MPI_Info info) {
    MPI_T_event_registration r;
    assert_int_equal(MPI_T_event_handle_alloc(type_index, obj_handle, info, &r), MPI_SUCCESS);
    return r;
}

/* Every instance function on h gives MPI_T_ERR_INVALID_HANDLE and writes nothing. */
static void expect_instance_invalid(MPI_T_event_instance h) {
    unsigned char buf[64];
    MPI_Count ts = -5;
    int src = -5;
    memset(buf, 0xAA, sizeof buf);
    assert_int_equal(MPI_T_event_read(h, 0, buf), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_copy(h, buf), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_get_timestamp(h, &ts), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_get_source(h, &src), MPI_T_ERR_INVALID_HANDLE);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], 0xAA);
    assert_int_equal(ts, -5);
    assert_int_equal(src, -5);
}

#define RANDOM_INSTANCE ((MPI_T_event_instance)(uintptr_t)0x1000)

/* ---- Instance handles. ---- */
typedef struct kept {
    int n;
    MPI_T_event_instance first, last;
    int32_t peer; /* this delivery's element 0, read through its own handle */
    int checked;  /* the earlier handles were checked inside a later callback */
} kept;

/* Keeps every handle; from the second delivery on, the first one (stale) must be refused
 * inside this callback while the live one reads this instance. */
static void on_msg_keep(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety;
    kept *k = ud;
    if (k->n++ == 0) k->first = inst;
    k->last = inst;
    assert_int_equal(MPI_T_event_read(inst, 0, &k->peer), MPI_SUCCESS);
    if (k->n >= 2) {
        assert_true(inst != k->first);
        expect_instance_invalid(k->first);
        expect_instance_invalid(RANDOM_INSTANCE);
        expect_instance_invalid(NULL);
        k->checked++;
    }
}

static void check_kept_handles(int buffered) {
    kept k = { 0 };
    MPI_Info info = MPI_INFO_NULL;
    if (buffered) {
        assert_int_equal(MPI_Info_create(&info), MPI_SUCCESS);
        assert_int_equal(MPI_Info_set(info, "mpitev_buffered", "true"), MPI_SUCCESS);
    }
    MPI_T_event_registration r = alloc_on(FAKE_EV_MSG, NULL, info);
    if (buffered) assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &k, on_msg_keep),
                     MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 11, 1, 1, MPITEV_CB_REQUIRE_NONE);
    fakempi_drain();
    assert_int_equal(k.n, 1);
    assert_int_equal(k.peer, 11);
    expect_instance_invalid(k.first); /* kept past its callback */
    fakempi_raise_msg(FAKE_SRC_MAIN, 22, 1, 1, MPITEV_CB_REQUIRE_NONE);
    fakempi_drain();
    assert_int_equal(k.n, 2);
    assert_int_equal(k.peer, 22);
    assert_int_equal(k.checked, 1); /* the first one was refused inside the second callback */
    expect_instance_invalid(k.last);
    expect_instance_invalid(RANDOM_INSTANCE);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

static void test_instance_kept_immediate(void **state) {
    (void)state;
    check_kept_handles(0);
}
static void test_instance_kept_buffered(void **state) {
    (void)state;
    check_kept_handles(1);
}

/* A callback that raises: the nested delivery runs inside it, on the same thread. The
 * outer instance stays live during the nested callback and after it; the nested one is
 * refused once its callback returned. */
typedef struct nested {
    int outer_n, inner_n;
    MPI_T_event_instance outer, inner;
    int32_t outer_peer_seen_inside;
} nested;
static nested g_nested;
static void on_mark_inner(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety; (void)ud;
    g_nested.inner_n++;
    g_nested.inner = inst;
    assert_int_equal(MPI_T_event_read(g_nested.outer, 0, &g_nested.outer_peer_seen_inside), MPI_SUCCESS);
    int src = -1;
    assert_int_equal(MPI_T_event_get_source(inst, &src), MPI_SUCCESS);
    assert_int_equal(src, FAKE_SRC_MAIN);
}
static void on_msg_outer(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety; (void)ud;
    g_nested.outer_n++;
    g_nested.outer = inst;
    fakempi_raise_mark(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(g_nested.inner_n, 1);
    int32_t peer = 0;
    assert_int_equal(MPI_T_event_read(inst, 0, &peer), MPI_SUCCESS); /* still live */
    assert_int_equal(peer, 33);
    expect_instance_invalid(g_nested.inner); /* its callback returned */
}
static void test_instance_nested_delivery(void **state) {
    (void)state;
    g_nested = (nested){ 0 };
    MPI_T_event_registration outer = alloc_on(FAKE_EV_MSG, NULL, MPI_INFO_NULL);
    MPI_T_event_registration inner = alloc_on(FAKE_EV_MARK, NULL, MPI_INFO_NULL);
    assert_int_equal(MPI_T_event_register_callback(outer, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_msg_outer),
                     MPI_SUCCESS);
    assert_int_equal(MPI_T_event_register_callback(inner, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_mark_inner),
                     MPI_SUCCESS);
    fakempi_raise_msg(FAKE_SRC_MAIN, 33, 1, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(g_nested.outer_n, 1);
    assert_int_equal(g_nested.inner_n, 1);
    assert_int_equal(g_nested.outer_peer_seen_inside, 33);
    expect_instance_invalid(g_nested.outer);
    assert_int_equal(MPI_T_event_handle_free(outer, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(inner, NULL, NULL), MPI_SUCCESS);
}

/* Another thread's instance, used while that thread's callback is still running: the main
 * thread's callback publishes its handle and waits; a second thread raises, and inside its
 * own callback tries the main thread's handle. */
static _Atomic(MPI_T_event_instance) g_main_instance;
static sem_t g_published, g_tried;
static _Thread_local int g_on_helper;
static int g_helper_rcs[4];
static int g_helper_own_rc;
static void on_msg_cross(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety; (void)ud;
    if (!g_on_helper) {
        atomic_store(&g_main_instance, inst);
        sem_post(&g_published);
        while (sem_wait(&g_tried) != 0) {}
        return;
    }
    MPI_T_event_instance foreign = atomic_load(&g_main_instance);
    unsigned char buf[64];
    MPI_Count ts;
    int src;
    g_helper_rcs[0] = MPI_T_event_read(foreign, 0, buf);
    g_helper_rcs[1] = MPI_T_event_copy(foreign, buf);
    g_helper_rcs[2] = MPI_T_event_get_timestamp(foreign, &ts);
    g_helper_rcs[3] = MPI_T_event_get_source(foreign, &src);
    int32_t peer = 0;
    g_helper_own_rc = MPI_T_event_read(inst, 0, &peer);
    if (peer != 44) g_helper_own_rc = -1;
}
static void *helper_raises(void *arg) {
    (void)arg;
    g_on_helper = 1;
    while (sem_wait(&g_published) != 0) {}
    fakempi_raise_msg(FAKE_SRC_NOCLOCK, 44, 1, 1, MPITEV_CB_REQUIRE_NONE);
    sem_post(&g_tried);
    return NULL;
}
static void test_instance_of_another_thread(void **state) {
    (void)state;
    assert_int_equal(sem_init(&g_published, 0, 0), 0);
    assert_int_equal(sem_init(&g_tried, 0, 0), 0);
    MPI_T_event_registration r = alloc_on(FAKE_EV_MSG, NULL, MPI_INFO_NULL);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_msg_cross),
                     MPI_SUCCESS);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, helper_raises, NULL), 0);
    fakempi_raise_msg(FAKE_SRC_MAIN, 55, 1, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(pthread_join(t, NULL), 0);
    for (int i = 0; i < 4; i++) assert_int_equal(g_helper_rcs[i], MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(g_helper_own_rc, MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    sem_destroy(&g_published);
    sem_destroy(&g_tried);
}

/* ---- Object handles passed by value. ---- */
typedef struct counted { int n; int32_t x; } counted;
static void on_count(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety;
    counted *c = ud;
    c->n++;
    int64_t a = 0; /* fake_comm_ev's first element is 64 bits, fake_op_ev's 32 */
    assert_int_equal(MPI_T_event_read(inst, 0, &a), MPI_SUCCESS);
    c->x = (int32_t)a;
}
static MPI_T_event_registration listen_on(int type_index, void *obj_handle, counted *c) {
    MPI_T_event_registration r = alloc_on(type_index, obj_handle, MPI_INFO_NULL);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, c, on_count), MPI_SUCCESS);
    return r;
}
static void expect_alloc_invalid_handle(int type_index, void *obj_handle) {
    MPI_T_event_registration r = NULL;
    assert_int_equal(MPI_T_event_handle_alloc(type_index, obj_handle, MPI_INFO_NULL, &r), MPI_T_ERR_INVALID_HANDLE);
    assert_null(r);
}

/* MPI_Comm is a pointer (in both mpi.h): by reference and by value, each registration
 * receives exactly the instances raised on its communicator. */
static void test_pointer_handle_by_value(void **state) {
    (void)state;
    MPI_Comm c1 = fakempi_comm_create(), c2 = fakempi_comm_create();
    counted by_ref = { 0, 0 }, by_value = { 0, 0 };
    MPI_T_event_registration r1 = listen_on(FAKE_EV_COMM, &c1, &by_ref);
    MPI_T_event_registration r2 = listen_on(FAKE_EV_COMM, (void *)c2, &by_value); /* the careless call */
    fakempi_raise_comm(c1, 1, 0);
    fakempi_raise_comm(c2, 2, 0);
    fakempi_raise_comm(c2, 3, 0);
    assert_int_equal(by_ref.n, 1);
    assert_int_equal(by_ref.x, 1);
    assert_int_equal(by_value.n, 2);
    assert_int_equal(by_value.x, 3);
    assert_int_equal(MPI_T_event_handle_free(r1, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(r2, NULL, NULL), MPI_SUCCESS);
    /* A communicator that is gone, either way, and values that are no handle and cannot
     * point to one. */
    fakempi_comm_free(c2);
    expect_alloc_invalid_handle(FAKE_EV_COMM, (void *)c2);
    expect_alloc_invalid_handle(FAKE_EV_COMM, &c2);
    expect_alloc_invalid_handle(FAKE_EV_COMM, (void *)(uintptr_t)1);
    expect_alloc_invalid_handle(FAKE_EV_COMM, (void *)(uintptr_t)0x1000);
    fakempi_comm_free(c1);
}

/* The fake's MPI_Op is an integer (in Open MPI's mpi.h a pointer): the same. */
static void test_integer_handle_by_value(void **state) {
    (void)state;
    int ev = fakempi_declare_op_ev();
    assert_true(ev >= 0);
    MPI_Op o1 = fakempi_op_create(), o2 = fakempi_op_create();
    counted by_ref = { 0, 0 }, by_value = { 0, 0 };
    MPI_T_event_registration r1 = listen_on(ev, &o1, &by_ref);
    MPI_T_event_registration r2 = listen_on(ev, (void *)(uintptr_t)o2, &by_value); /* the careless call */
    fakempi_raise_op(o1, 10);
    fakempi_raise_op(o2, 20);
    assert_int_equal(by_ref.n, 1);
    assert_int_equal(by_ref.x, 10);
    assert_int_equal(by_value.n, 1);
    assert_int_equal(by_value.x, 20);
    assert_int_equal(MPI_T_event_handle_free(r1, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(r2, NULL, NULL), MPI_SUCCESS);
    fakempi_op_free(o2);
    expect_alloc_invalid_handle(ev, (void *)(uintptr_t)o2);
    expect_alloc_invalid_handle(ev, &o2);
    fakempi_op_free(o1);
}

#if MPI_VERSION < 4
/* Open MPI's own MPI_COMM_WORLD (the stand-in object), exactly as the careless tool passes
 * it, and as the standard says. */
static void test_openmpi_comm_world_by_value(void **state) {
    (void)state;
    fakempi_comm_adopt(MPI_COMM_WORLD);
    MPI_Comm world = MPI_COMM_WORLD;
    counted by_ref = { 0, 0 }, by_value = { 0, 0 };
    MPI_T_event_registration r1 = listen_on(FAKE_EV_COMM, &world, &by_ref);
    MPI_T_event_registration r2 = listen_on(FAKE_EV_COMM, MPI_COMM_WORLD, &by_value);
    fakempi_raise_comm(MPI_COMM_WORLD, 7, 0);
    assert_int_equal(by_ref.n, 1);
    assert_int_equal(by_value.n, 1);
    assert_int_equal(by_value.x, 7);
    assert_int_equal(MPI_T_event_handle_free(r1, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(r2, NULL, NULL), MPI_SUCCESS);
    fakempi_comm_free(MPI_COMM_WORLD);
}
#endif

/* ---- Padding between elements: {int32, uint64, uint64}, bytes 4..7 padding. ---- */
typedef struct padded_seen {
    int n;
    unsigned char copy[32];
    unsigned char read[3][16];
} padded_seen;
static void on_padded(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg; (void)safety;
    padded_seen *p = ud;
    p->n++;
    memset(p->copy, 0xAA, sizeof p->copy);
    assert_int_equal(MPI_T_event_copy(inst, p->copy), MPI_SUCCESS);
    for (int i = 0; i < 3; i++) {
        memset(p->read[i], 0xAA, sizeof p->read[i]);
        assert_int_equal(MPI_T_event_read(inst, i, p->read[i]), MPI_SUCCESS);
    }
}
static void test_copy_and_read_padded_layout(void **state) {
    (void)state;
    int ev = fakempi_declare_padded();
    assert_true(ev >= 0);
    MPI_Datatype dt[3];
    MPI_Aint disp[3];
    int num = 3;
    assert_int_equal(MPI_T_event_get_info(ev, NULL, NULL, NULL, dt, disp, &num, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(num, 3);
    assert_true(dt[0] == MPI_INT32_T && dt[1] == MPI_UINT64_T && dt[2] == MPI_UINT64_T);
    assert_int_equal(disp[0], 0);
    assert_int_equal(disp[1], 8);
    assert_int_equal(disp[2], 16);

    padded_seen seen = { 0 };
    MPI_T_event_registration r = alloc_on(ev, NULL, MPI_INFO_NULL);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &seen, on_padded),
                     MPI_SUCCESS);
    struct fake_padded p;
    memset(&p, 0x55, sizeof p); /* the raise site's padding bytes: 0x55 */
    p.a = 0x11223344;
    p.b = 0x0102030405060708ull;
    p.c = 0xf1f2f3f4f5f6f7f8ull;
    fakempi_raise_padded(&p);
    assert_int_equal(seen.n, 1);
    unsigned char want[32];
    memset(want, 0xAA, sizeof want);
    memcpy(want + 0, &p.a, 4);
    memcpy(want + 8, &p.b, 8);
    memcpy(want + 16, &p.c, 8);
    for (int i = 0; i < 32; i++) assert_int_equal(seen.copy[i], want[i]); /* 4..7 and 24.. untouched */
    const unsigned char *elems[3] = { want + 0, want + 8, want + 16 };
    const int sizes[3] = { 4, 8, 8 };
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 16; i++) assert_int_equal(seen.read[e][i], i < sizes[e] ? elems[e][i] : 0xAA);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
}

/* ---- Hints through the info calls of the mpi.h's version (MPI-3.1: MPI_Info_get_valuelen
 * and MPI_Info_get), and the error class of a source without clock. ---- */
static void test_hints_and_not_supported(void **state) {
    (void)state;
    MPI_Info in, used = MPI_INFO_NULL;
    assert_int_equal(MPI_Info_create(&in), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(in, "tool.key", "a value of some length"), MPI_SUCCESS);
    MPI_T_event_registration r = alloc_on(FAKE_EV_MSG, NULL, in);
    assert_int_equal(MPI_Info_free(&in), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_get_info(r, &used), MPI_SUCCESS);
    int len = -1, flag = 0;
    char value[64];
    assert_int_equal(MPI_Info_get_valuelen(used, "tool.key", &len, &flag), MPI_SUCCESS);
    assert_true(flag);
    assert_int_equal(len, (int)strlen("a value of some length"));
    assert_int_equal(MPI_Info_get(used, "tool.key", (int)sizeof value - 1, value, &flag), MPI_SUCCESS);
    assert_string_equal(value, "a value of some length");
    assert_int_equal(MPI_Info_free(&used), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    MPI_Count ts;
    assert_int_equal(MPI_T_source_get_timestamp(FAKE_SRC_NOCLOCK, &ts), MPI_T_ERR_NOT_SUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_instance_kept_immediate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instance_kept_buffered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instance_nested_delivery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instance_of_another_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pointer_handle_by_value, setup, teardown),
        cmocka_unit_test_setup_teardown(test_integer_handle_by_value, setup, teardown),
#if MPI_VERSION < 4
        cmocka_unit_test_setup_teardown(test_openmpi_comm_world_by_value, setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(test_copy_and_read_padded_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hints_and_not_supported, setup, teardown),
    };
    return cmocka_run_group_tests_name(MPI_VERSION < 4 ? "adapter_openmpi" : "adapter_careless", tests, NULL, NULL);
}
