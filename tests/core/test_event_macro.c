/* The event declaration macros (detail/event.inc): what MPITEV_EVENT_TYPE generates,
 * what NAME_declare declares, and what MPITEV_RAISE_EVENT delivers, from two TUs (the
 * second, test_event_macro_b.c, has no MPITEV_IMPLEMENTATION), immediately and buffered,
 * on ordered and unordered sources. */
#define MPITEV_IMPLEMENTATION
#include "test_event_macro.h"
#include "core_test.h"

MPITEV_EVENT_DEFINE(tev_msg)
MPITEV_EVENT_DEFINE(tev_empty)
MPITEV_EVENT_DEFINE(tev_dup)

/* ---- The few API calls the cases below share. ---- */
#define CB_PARAMS const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud
#define CB_UNUSED_EXT ((void)0)
/* tindex, sindex: tests/api_helpers.h (via core_test.h) */
static int drain(mpitev_source *s) {
    int n = -1;
    OK(mpitev_source_drain(s, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    return n;
}
static void set_cb(mpitev_reg r, mpitev_event_cb fn) {
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, fn, NULL, NULL, 0));
}
static void reg_free(mpitev_reg r) { OK(mpitev_reg_free(r, NULL, NULL)); }
/* Declaring a declared type again with an equal descriptor is a no-op. */
#define REDECLARE_EQUAL_RC MPITEV_SUCCESS
/* ---- */

static mpitev_source ord, unord, ord_tsc; /* ord_tsc: ordered on the TSC clock, where there is one */
static int comm_a, comm_b;       /* object keys of the bound type tev_msg */
static const mpitev_enum_item mixed_items[] = { { "custom", 5 } };
static const mpitev_enum mixed_enum = { "mixed_custom_enum", 1, mixed_items };

static mpitev_type_desc msg_meta(void) {
    return (mpitev_type_desc){ .desc = "a message arrived", .verbosity = MPITEV_VERBOSITY_MPIDEV_BASIC,
                               .bind = MPITEV_BIND_MPI_COMM, .category = "p2p" };
}

/* One registry for the whole group (declarations are made once, as an MPI does). */
static int group_setup(void **state) {
    (void)state;
    if (mpitev_init()) return -1;
    if (mpitev_clock_tsc() && mpitev_source_declare(&ord_tsc, &(mpitev_source_desc){ .name = "ord_tsc",
                                                                                    .ordering = MPITEV_SOURCE_ORDERED,
                                                                                    .clock = mpitev_clock_tsc() }))
        return -1;
    if (mpitev_source_declare(&ord, &(mpitev_source_desc){ .name = "ord", .ordering = MPITEV_SOURCE_ORDERED }) ||
        mpitev_source_declare(&unord, &(mpitev_source_desc){ .name = "unord", .ordering = MPITEV_SOURCE_UNORDERED }))
        return -1;
    /* tev_msg: every generated default; tev_mixed: its own name and enum (kept). */
    if (tev_msg_declare(msg_meta()) ||
        tev_mixed_declare((mpitev_type_desc){ .name = "tev.mixed", .enumtype = &mixed_enum }) ||
        tev_empty_declare((mpitev_type_desc){ .desc = "nothing to say" }))
        return -1;
    return 0;
}
static int group_teardown(void **state) {
    (void)state;
    int flag = 0;
    while (mpitev_initialized(&flag) == MPITEV_SUCCESS && flag) mpitev_finalize();
    return 0;
}

/* What callbacks saw. */
#define SEEN_MAX 16
typedef struct seen {
    int type, source, cb_safety;
    int64_t ts;
    unsigned char payload[64];
} seen;
static seen log_[SEEN_MAX];
static int nlog;
static mpitev_reg regs[8];
static int nregs;

static void record_cb(CB_PARAMS) {
    CB_UNUSED_EXT;
    (void)reg;
    (void)ud;
    assert_true(nlog < SEEN_MAX);
    seen *e = &log_[nlog++];
    memset(e, 0, sizeof *e);
    e->cb_safety = cb_safety;
    OK(mpitev_instance_type(inst, &e->type));
    OK(mpitev_instance_source(inst, &e->source));
    OK(mpitev_instance_timestamp(inst, &e->ts));
    OK(mpitev_instance_copy(inst, e->payload));
}

/* A registration with record_cb on t for object (buffered: "true" or "false"). */
static void listen(mpitev_type *t, const void *object, const char *buffered) {
    assert_true(nregs < 8);
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(t), object, &kv, 1, &regs[nregs]));
    set_cb(regs[nregs++], record_cb);
}

static int test_setup(void **state) {
    (void)state;
    nlog = nregs = 0;
    return 0;
}
/* Nobody listens after a test and nothing stays buffered for the next one. */
static int test_teardown(void **state) {
    (void)state;
    while (nregs) reg_free(regs[--nregs]);
    drain(&ord);
    drain(&unord);
    return 0;
}

static struct tev_msg_payload msg_at(int i) {
    struct tev_msg_payload p;
    memcpy(&p, log_[i].payload, sizeof p);
    return p;
}
static struct tev_mixed_payload mixed_at(int i) {
    struct tev_mixed_payload p;
    memcpy(&p, log_[i].payload, sizeof p);
    return p;
}
static void assert_mixed_equal(struct tev_mixed_payload got, struct tev_mixed_payload want) {
    assert_int_equal(got.flag, want.flag);
    assert_true(got.ratio == want.ratio);
    assert_int_equal(got.small, want.small);
    assert_true(got.addr == want.addr);
    assert_int_equal(got.last, want.last);
}

/* ---- What MPITEV_EVENT_TYPE generates ---- */

/* The members, in list order, with the listed types: the same layout as the struct
 * written by hand. */
struct msg_by_hand { int32_t context_id; int32_t source; mpitev_count_t bytes; };
struct mixed_by_hand { uint8_t flag; double ratio; int16_t small; uintptr_t addr; int8_t last; };
#define SAME_TYPE(a, T) _Generic((a), T: 1, default: 0)
static void payload_struct_has_the_members_in_order(void **state) {
    (void)state;
    const struct tev_msg_payload m = { 1, 2, 3 };
    assert_true(SAME_TYPE(m.context_id, int32_t) && SAME_TYPE(m.source, int32_t) && SAME_TYPE(m.bytes, mpitev_count_t));
    assert_int_equal(sizeof m, sizeof(struct msg_by_hand));
    assert_int_equal(offsetof(struct tev_msg_payload, context_id), offsetof(struct msg_by_hand, context_id));
    assert_int_equal(offsetof(struct tev_msg_payload, source), offsetof(struct msg_by_hand, source));
    assert_int_equal(offsetof(struct tev_msg_payload, bytes), offsetof(struct msg_by_hand, bytes));
    assert_int_equal(m.context_id + m.source + m.bytes, 6); /* positional: list order */
    const struct tev_mixed_payload x = { 0 };
    assert_true(SAME_TYPE(x.flag, uint8_t) && SAME_TYPE(x.ratio, double) && SAME_TYPE(x.small, int16_t) &&
                SAME_TYPE(x.addr, uintptr_t) && SAME_TYPE(x.last, int8_t));
    assert_int_equal(sizeof x, sizeof(struct mixed_by_hand));
    assert_int_equal(offsetof(struct tev_mixed_payload, ratio), offsetof(struct mixed_by_hand, ratio));
    assert_int_equal(offsetof(struct tev_mixed_payload, small), offsetof(struct mixed_by_hand, small));
    assert_int_equal(offsetof(struct tev_mixed_payload, addr), offsetof(struct mixed_by_hand, addr));
    assert_int_equal(offsetof(struct tev_mixed_payload, last), offsetof(struct mixed_by_hand, last));
}

/* The declared type: the list's elements (names, datatypes, the struct's offsets, which
 * the core checked), payload_size, and the element-name enum; meta's fields kept. */
static void declared_type_matches_the_list(void **state) {
    (void)state;
    static const struct { const char *name; int dtype; size_t off; } want[] = {
        { "context_id", MPITEV_DTYPE_INT32, offsetof(struct tev_msg_payload, context_id) }, /* API v0.1 dtypes */
        { "source", MPITEV_DTYPE_INT32, offsetof(struct tev_msg_payload, source) },
        { "bytes", MPITEV_DTYPE_COUNT, offsetof(struct tev_msg_payload, bytes) },
    };
    mpitev_type_info info;
    int idx = -1;
    OK(mpitev_type_get_index("tev_msg", &idx)); /* name: NULL in meta, so "NAME" */
    assert_int_equal(idx, tindex(&tev_msg_type));
    OK(mpitev_type_get_info(idx, &info));
    assert_string_equal(info.desc, "a message arrived");
    assert_int_equal(info.verbosity, MPITEV_VERBOSITY_MPIDEV_BASIC);
    assert_int_equal(info.bind, MPITEV_BIND_MPI_COMM);
    assert_string_equal(info.category, "p2p");
    assert_int_equal(info.num_elements, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(info.elements[i].name, want[i].name);
        assert_int_equal(info.elements[i].dtype, want[i].dtype);
        assert_int_equal(info.elements[i].count, 1);
        assert_int_equal(info.elements[i].expect_offset, (long)want[i].off);
        assert_int_equal(info.displacements[i], want[i].off);
    }
    /* The element-name enum: "NAME_elements", item i = element i's name, value i. */
    assert_non_null(info.enumtype);
    assert_string_equal(info.enumtype->name, "tev_msg_elements");
    assert_int_equal(info.enumtype->num_items, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(info.enumtype->items[i].name, want[i].name);
        assert_int_equal(info.enumtype->items[i].value, i);
    }

    /* A given name and enum are kept; the holes of the mixed struct are in the offsets. */
    OK(mpitev_type_get_index("tev.mixed", &idx));
    assert_int_equal(idx, tindex(&tev_mixed_type));
    OK(mpitev_type_get_info(idx, &info));
    assert_ptr_equal(info.enumtype, &mixed_enum);
    assert_int_equal(info.num_elements, 5);
    static const char *const mixed_names[] = { "flag", "ratio", "small", "addr", "last" };
    const size_t mixed_off[] = { offsetof(struct tev_mixed_payload, flag), offsetof(struct tev_mixed_payload, ratio),
                                 offsetof(struct tev_mixed_payload, small), offsetof(struct tev_mixed_payload, addr),
                                 offsetof(struct tev_mixed_payload, last) };
    for (int i = 0; i < 5; i++) {
        assert_string_equal(info.elements[i].name, mixed_names[i]);
        assert_int_equal(info.displacements[i], mixed_off[i]);
    }
    assert_int_equal(info.elements[1].dtype, MPITEV_DTYPE_DOUBLE); /* API v0.1 dtype */

    /* The empty variant: no elements, no payload, no enum. */
    OK(mpitev_type_get_index("tev_empty", &idx));
    OK(mpitev_type_get_info(idx, &info));
    assert_string_equal(info.desc, "nothing to say");
    assert_int_equal(info.num_elements, 0);
    assert_null(info.enumtype);
}

/* Declaring again: what the core says for the same object (equal descriptor, other
 * descriptor) and for another object under a taken name; the first declaration stays. */
static void declare_again(void **state) {
    (void)state;
    int idx = tindex(&tev_msg_type);
    assert_int_equal(tev_msg_declare(msg_meta()), REDECLARE_EQUAL_RC);
    mpitev_type_desc other = msg_meta();
    other.desc = "something else";
    assert_int_equal(tev_msg_declare(other), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(tev_dup_declare((mpitev_type_desc){ .name = "tev_msg" }), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(tindex(&tev_msg_type), idx);
    mpitev_type_info info;
    OK(mpitev_type_get_info(idx, &info));
    assert_string_equal(info.desc, "a message arrived");
}

/* ---- MPITEV_RAISE_EVENT ---- */

/* Immediate delivery from both TUs: the payload is the arguments; the object, source
 * and safety level are the raise's. */
static void raise_delivers_the_arguments(void **state) {
    (void)state;
    listen(&tev_msg_type, &comm_a, "false");
    listen(&tev_mixed_type, NULL, "false");
    const mpitev_count_t big = ((mpitev_count_t)1 << 40) + 5;
    MPITEV_RAISE_EVENT(tev_msg, &ord, &comm_a, MPITEV_CB_REQUIRE_THREAD_SAFE, 11, -3, big);
    MPITEV_RAISE_EVENT(tev_msg, &ord, &comm_b, MPITEV_CB_REQUIRE_THREAD_SAFE, 12, -4, big); /* other object */
    b_raise_msg(&unord, &comm_a, 13, -5, -big);
    const struct tev_mixed_payload mx = { 200, -0.75, -32000, (uintptr_t)&comm_b, -128 };
    b_raise_mixed(&ord, &mx);
    MPITEV_RAISE_EVENT(tev_mixed, &unord, NULL, MPITEV_CB_REQUIRE_NONE, 1, 2.5, 3, 4, 5);

    assert_int_equal(nlog, 4);
    struct tev_msg_payload m = msg_at(0);
    assert_int_equal(log_[0].type, tindex(&tev_msg_type));
    assert_int_equal(log_[0].source, sindex(&ord));
    assert_int_equal(log_[0].cb_safety, MPITEV_CB_REQUIRE_THREAD_SAFE);
    assert_int_equal(m.context_id, 11);
    assert_int_equal(m.source, -3);
    assert_true(m.bytes == big);
    m = msg_at(1);
    assert_int_equal(log_[1].source, sindex(&unord));
    assert_int_equal(log_[1].cb_safety, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    assert_int_equal(m.context_id, 13);
    assert_int_equal(m.source, -5);
    assert_true(m.bytes == -big);
    assert_int_equal(log_[2].type, tindex(&tev_mixed_type));
    assert_mixed_equal(mixed_at(2), mx);
    assert_int_equal(log_[3].source, sindex(&unord));
    assert_mixed_equal(mixed_at(3), (struct tev_mixed_payload){ 1, 2.5, 3, 4, 5 });
}

/* Buffered: nothing is delivered at the raise; the drain delivers the payloads in raise
 * order, from both TUs, on both ring kinds. */
static void raise_buffered_then_drained(void **state) {
    (void)state;
    listen(&tev_mixed_type, NULL, "true");
    listen(&tev_empty_type, NULL, "true");
    for (int i = 0; i < 3; i++) {
        MPITEV_RAISE_EVENT(tev_mixed, &ord, NULL, MPITEV_CB_REQUIRE_NONE, (uint8_t)i, i * 0.5, (int16_t)-i,
                           (uintptr_t)i, (int8_t)i);
        const struct tev_mixed_payload p = { (uint8_t)(10 + i), 1.0 + i, (int16_t)(100 * i), 7, -1 };
        b_raise_mixed(&ord, &p);
    }
    MPITEV_RAISE_EVENT_EMPTY(tev_empty, &unord, NULL, MPITEV_CB_REQUIRE_NONE);
    b_raise_empty(&unord);
    assert_int_equal(nlog, 0);
    assert_int_equal(drain(&ord), 6);
    assert_int_equal(nlog, 6);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(log_[2 * i].source, sindex(&ord));
        assert_mixed_equal(mixed_at(2 * i),
                           (struct tev_mixed_payload){ (uint8_t)i, i * 0.5, (int16_t)-i, (uintptr_t)i, (int8_t)i });
        assert_mixed_equal(mixed_at(2 * i + 1),
                           (struct tev_mixed_payload){ (uint8_t)(10 + i), 1.0 + i, (int16_t)(100 * i), 7, -1 });
    }
    assert_int_equal(drain(&unord), 2);
    assert_int_equal(nlog, 8);
    assert_int_equal(log_[6].type, tindex(&tev_empty_type));
    assert_int_equal(log_[7].type, tindex(&tev_empty_type));
}

/* Side-effect counters for every argument of the raise. */
static int n_src, n_obj, n_safety, n_args;
static mpitev_source *src_arg(mpitev_source *s) { n_src++; return s; }
static const void *obj_arg(const void *o) { n_obj++; return o; }
static int safety_arg(int c) { n_safety++; return c; }
static int32_t i32_arg(int32_t v) { n_args++; return v; }
static mpitev_count_t count_arg(mpitev_count_t v) { n_args++; return v; }
static void raise_counted(void) {
    MPITEV_RAISE_EVENT(tev_msg, src_arg(&ord), obj_arg(&comm_a), safety_arg(MPITEV_CB_REQUIRE_NONE), i32_arg(1),
                       i32_arg(2), count_arg(3));
    MPITEV_RAISE_EVENT_EMPTY(tev_empty, src_arg(&ord), obj_arg(NULL), safety_arg(MPITEV_CB_REQUIRE_NONE));
}
static void counters_are(int src, int obj, int safety, int args) {
    assert_int_equal(n_src, src);
    assert_int_equal(n_obj, obj);
    assert_int_equal(n_safety, safety);
    assert_int_equal(n_args, args);
    n_src = n_obj = n_safety = n_args = 0;
}

/* Nobody listens (nothing registered, a registration without callback, another type
 * listened to): no argument is evaluated. Someone listens: each exactly once. */
static void arguments_evaluated_only_when_someone_listens(void **state) {
    (void)state;
    n_src = n_obj = n_safety = n_args = 0;
    raise_counted();
    counters_are(0, 0, 0, 0);
    mpitev_reg bare;
    OK(mpitev_reg_alloc(tindex(&tev_msg_type), &comm_a, NULL, 0, &bare));
    listen(&tev_mixed_type, NULL, "false");
    raise_counted();
    counters_are(0, 0, 0, 0);
    assert_int_equal(nlog, 0);
    set_cb(bare, record_cb);
    listen(&tev_empty_type, NULL, "false");
    raise_counted();
    counters_are(2, 2, 2, 3);
    assert_int_equal(nlog, 2);
    reg_free(bare);
    reg_free(regs[--nregs]);
    raise_counted();
    counters_are(0, 0, 0, 0);
    assert_int_equal(nlog, 2);
}

/* Buffered and immediate registrations of one type on one source, raised from TU b on
 * an ordered source (the default clock, then the TSC clock where there is one) and an
 * unordered one: the immediate one gets each instance at the raise, the buffered one at
 * the drain, both with the arguments and nondecreasing positive timestamps. */
static void buffered_and_immediate_on_one_source(void **state) {
    (void)state;
    mpitev_source *srcs[3] = { &ord, &unord, mpitev_clock_tsc() ? &ord_tsc : NULL };
    listen(&tev_mixed_type, NULL, "true");
    listen(&tev_empty_type, NULL, "true");
    listen(&tev_msg_type, &comm_a, "true");
    for (int k = 0; k < 3 && srcs[k]; k++) {
        nlog = 0;
        const struct tev_mixed_payload p = { 9, 0.125, -9, 99, (int8_t)k };
        for (int i = 0; i < 3; i++) b_raise_mixed(srcs[k], &p);
        b_raise_empty(srcs[k]);
        b_raise_msg(srcs[k], &comm_a, 1, 2, 3);
        b_raise_msg(srcs[k], &comm_b, 4, 5, 6); /* nobody on comm_b */
        assert_int_equal(nlog, 0);
        assert_int_equal(drain(srcs[k]), 5);
        for (int i = 0; i < 3; i++) assert_mixed_equal(mixed_at(i), p);
        assert_int_equal(log_[3].type, tindex(&tev_empty_type));
        assert_int_equal(msg_at(4).bytes, 3);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(log_[i].source, sindex(srcs[k]));
            assert_true(log_[i].ts > 0);
            if (i) assert_true(log_[i].ts >= log_[i - 1].ts);
        }
    }
    listen(&tev_mixed_type, NULL, "false");
    for (int k = 0; k < 3 && srcs[k]; k++) {
        nlog = 0;
        const struct tev_mixed_payload p = { 7, 0.5, 7, 7, (int8_t)k };
        b_raise_mixed(srcs[k], &p);
        assert_int_equal(nlog, 1); /* the immediate one */
        assert_mixed_equal(mixed_at(0), p);
        assert_int_equal(log_[0].cb_safety, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        assert_int_equal(drain(srcs[k]), 1);
        assert_int_equal(nlog, 2); /* then the buffered one */
        assert_mixed_equal(mixed_at(1), p);
        assert_int_equal(log_[1].cb_safety, MPITEV_CB_REQUIRE_NONE);
        assert_true(log_[1].ts == log_[0].ts); /* one instance */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(payload_struct_has_the_members_in_order, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(declared_type_matches_the_list, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(declare_again, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(raise_delivers_the_arguments, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(raise_buffered_then_drained, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(arguments_evaluated_only_when_someone_listens, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(buffered_and_immediate_on_one_source, test_setup, test_teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
