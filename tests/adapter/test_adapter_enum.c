/* The adapter's element-name enums (mpitev_adapter_enum_get_info / _get_item and the
 * MPI_T_enum MPI_T_event_get_info returns) and its public string helpers
 * (mpitev_adapter_string / _string_check), against the fake test MPI's header.
 *
 * This file is itself the MPI's implementation TU, built three ways:
 *   default                   the adapter's own handle encoding (tag + type index);
 *   TEST_ENUM_CUSTOM_HOOKS    the MPI's encoding through MPITEV_ADAPTER_ENUM_TO_MPI /
 *                             _FROM_MPI (pointers into a table of its own);
 *   TEST_ENUM_LEGACY_HOOK     the older MPITEV_ADAPTER_ENUM(e) hook: the MPI answers for
 *                             its enums itself, so the helpers recognise no handle. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mpi.h"

static int t_refcount; /* the fake MPI's MPI_T reference count */
#define MPITEV_ADAPTER_T_INITIALIZED() (t_refcount > 0)

#if defined(TEST_ENUM_CUSTOM_HOOKS)
struct fakempi_enum { int type_index; };
static struct fakempi_enum my_enums[8] = { { 0 }, { 1 }, { 2 }, { 3 }, { 4 }, { 5 }, { 6 }, { 7 } };
static int my_enum_from(MPI_T_enum h, int *type_index) {
    uintptr_t v = (uintptr_t)h, lo = (uintptr_t)my_enums;
    if (v < lo || v >= lo + sizeof my_enums || (v - lo) % sizeof my_enums[0]) return 0;
    *type_index = h->type_index;
    return 1;
}
#define MPITEV_ADAPTER_ENUM_TO_MPI(i) ((i) < 8 ? &my_enums[(i)] : MPI_T_ENUM_NULL)
#define MPITEV_ADAPTER_ENUM_FROM_MPI(h, ip) my_enum_from((h), (ip))
#elif defined(TEST_ENUM_LEGACY_HOOK)
struct fakempi_enum { const void *e; };
static struct fakempi_enum legacy_enum;
static MPI_T_enum legacy_enum_of(const void *e) {
    legacy_enum.e = e;
    return &legacy_enum;
}
#define MPITEV_ADAPTER_ENUM(e) legacy_enum_of(e)
#endif

#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

/* The adapter's info code links against these; no test here builds an info object. */
int PMPI_Info_create(MPI_Info *info) { (void)info; return MPI_ERR_ARG; }
int PMPI_Info_free(MPI_Info *info) { (void)info; return MPI_ERR_ARG; }
int PMPI_Info_set(MPI_Info info, const char *k, const char *v) { (void)info; (void)k; (void)v; return MPI_ERR_ARG; }
int PMPI_Info_get_nkeys(MPI_Info info, int *n) { (void)info; (void)n; return MPI_ERR_ARG; }
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *k) { (void)info; (void)n; (void)k; return MPI_ERR_ARG; }
int PMPI_Info_get_string(MPI_Info info, const char *k, int *l, char *v, int *f) {
    (void)info; (void)k; (void)l; (void)v; (void)f;
    return MPI_ERR_ARG;
}

/* ---- Event types: two sharing one enum, one without, one with an empty enum, one whose
 * enum has no name (the type's name is reported). */
static const mpitev_enum_item state_items[] = { { "idle", 0 }, { "busy", 7 }, { "a_rather_long_item", -3 } };
static const mpitev_enum state_enum = { "state_enum", 3, state_items };
static const mpitev_enum_item one_item[] = { { "only", 42 } };
static const mpitev_enum empty_enum = { "empty_enum", 0, NULL };
static const mpitev_enum nameless_enum = { NULL, 1, one_item };
enum { T_STATE, T_PLAIN, T_EMPTY, T_NAMELESS, T_STATE2, NTYPES };
static mpitev_type types[NTYPES];
static const struct { const char *name; const mpitev_enum *e; } type_defs[NTYPES] = {
    { "ev_state", &state_enum }, { "ev_plain", NULL }, { "ev_empty", &empty_enum },
    { "ev_nameless", &nameless_enum }, { "ev_state2", &state_enum },
};

static int group_setup(void **state) {
    (void)state;
    if (mpitev_init() != MPITEV_SUCCESS) return -1;
    for (int i = 0; i < NTYPES; i++) {
        mpitev_type_desc d = { .name = type_defs[i].name, .verbosity = MPITEV_VERBOSITY_USER_BASIC,
                               .bind = MPITEV_BIND_NO_OBJECT, .enumtype = type_defs[i].e };
        if (mpitev_type_declare(&types[i], &d) != MPITEV_SUCCESS) return -1;
    }
    return 0;
}
static int group_teardown(void **state) {
    (void)state;
    return mpitev_finalize() == MPITEV_SUCCESS ? 0 : -1;
}
static int setup(void **state) {
    (void)state;
    t_refcount = 1;
    return 0;
}

/* The enumtype MPI_T_event_get_info reports for a type. */
static MPI_T_enum enum_of(int type_index) {
    MPI_T_enum e = (MPI_T_enum)(uintptr_t)0x1234; /* overwritten on success */
    assert_int_equal(MPI_T_event_get_info(type_index, NULL, NULL, NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    return e;
}

/* ===================================================== strings (14.3.3) */

static void test_string_rules(void **state) {
    (void)state;
    char buf[16];
    int len;

    /* Fits: copied with its terminator; length + 1 back. */
    memset(buf, 'x', sizeof buf);
    len = sizeof buf;
    mpitev_adapter_string("abcdef", buf, &len);
    assert_string_equal(buf, "abcdef");
    assert_int_equal(len, 7);
    /* Exact fit (n == strlen + 1). */
    memset(buf, 'x', sizeof buf);
    len = 7;
    mpitev_adapter_string("abcdef", buf, &len);
    assert_string_equal(buf, "abcdef");
    assert_int_equal(len, 7);
    /* One short: n - 1 characters and a terminator; still the full length + 1 back. */
    memset(buf, 'x', sizeof buf);
    len = 6;
    mpitev_adapter_string("abcdef", buf, &len);
    assert_string_equal(buf, "abcde");
    assert_int_equal(len, 7);
    assert_int_equal(buf[6], 'x'); /* nothing past n */
    /* n == 1: only the terminator. */
    memset(buf, 'x', sizeof buf);
    len = 1;
    mpitev_adapter_string("abcdef", buf, &len);
    assert_int_equal(buf[0], '\0');
    assert_int_equal(buf[1], 'x');
    assert_int_equal(len, 7);
    /* n == 0 or a NULL buffer: only the length, the buffer untouched. */
    memset(buf, 'x', sizeof buf);
    len = 0;
    mpitev_adapter_string("abcdef", buf, &len);
    assert_int_equal(buf[0], 'x');
    assert_int_equal(len, 7);
    len = 3;
    mpitev_adapter_string("abcdef", NULL, &len);
    assert_int_equal(len, 7);
    /* NULL length: nothing at all. */
    mpitev_adapter_string("abcdef", buf, NULL);
    assert_int_equal(buf[0], 'x');
    /* NULL string: "" (length 1), and the empty string likewise. */
    len = sizeof buf;
    mpitev_adapter_string(NULL, buf, &len);
    assert_string_equal(buf, "");
    assert_int_equal(len, 1);
    buf[0] = 'x';
    len = sizeof buf;
    mpitev_adapter_string("", buf, &len);
    assert_string_equal(buf, "");
    assert_int_equal(len, 1);
}

static void test_string_check(void **state) {
    (void)state;
    char buf[4] = { 0 }; /* never read: initialised so gcc -O0 does not warn (maybe-uninitialized) */
    int neg = -1, zero = 0, pos = 4;
    assert_int_equal(mpitev_adapter_string_check(buf, &neg), MPI_T_ERR_INVALID); /* a buffer with a negative length */
    assert_int_equal(mpitev_adapter_string_check(NULL, &neg), MPI_SUCCESS); /* no buffer: a length query */
    assert_int_equal(mpitev_adapter_string_check(buf, NULL), MPI_SUCCESS);  /* no length: buffer ignored */
    assert_int_equal(mpitev_adapter_string_check(buf, &zero), MPI_SUCCESS);
    assert_int_equal(mpitev_adapter_string_check(buf, &pos), MPI_SUCCESS);
    assert_int_equal(mpitev_adapter_string_check(NULL, NULL), MPI_SUCCESS);
}

#if !defined(TEST_ENUM_LEGACY_HOOK)
/* ===================================================== enums (14.3.5) */

static void test_enum_handles(void **state) {
    (void)state;
    MPI_T_enum a = enum_of(T_STATE), b = enum_of(T_STATE2);
    assert_true(a != MPI_T_ENUM_NULL);
    assert_true(b != MPI_T_ENUM_NULL);
    assert_true(a != b); /* one handle per event type, even for a shared enum */
    assert_true(enum_of(T_PLAIN) == MPI_T_ENUM_NULL);
    assert_true(enum_of(T_EMPTY) == MPI_T_ENUM_NULL); /* 14.3.5: N > 0 */
    assert_true(enum_of(T_NAMELESS) != MPI_T_ENUM_NULL);
    assert_true(enum_of(T_STATE) == a); /* stable */
#if defined(TEST_ENUM_CUSTOM_HOOKS)
    assert_ptr_equal(a, &my_enums[T_STATE]);
    assert_ptr_equal(b, &my_enums[T_STATE2]);
#else
    /* The default: an odd number below 2^31 (fits an int handle, never an aligned pointer). */
    uintptr_t v = (uintptr_t)a;
    assert_true(v & 1u);
    assert_true(v <= (uintptr_t)INT_MAX);
    assert_true(MPITEV_ADAPTER_ENUM_TO_MPI(T_STATE) == a);
    int ti = -1;
    assert_true(MPITEV_ADAPTER_ENUM_FROM_MPI(b, &ti));
    assert_int_equal(ti, T_STATE2);
#endif
}

static void test_enum_get_info(void **state) {
    (void)state;
    char name[32];
    int num = -1, len = sizeof name;
    assert_int_equal(mpitev_adapter_enum_get_info(enum_of(T_STATE), &num, name, &len), MPI_SUCCESS);
    assert_int_equal(num, 3);
    assert_string_equal(name, "state_enum");
    assert_int_equal(len, (int)strlen("state_enum") + 1);
    /* Same answer through the second type's handle. */
    num = -1;
    len = sizeof name;
    assert_int_equal(mpitev_adapter_enum_get_info(enum_of(T_STATE2), &num, name, &len), MPI_SUCCESS);
    assert_int_equal(num, 3);
    assert_string_equal(name, "state_enum");
    /* Truncated name, full length back. */
    len = 6;
    assert_int_equal(mpitev_adapter_enum_get_info(enum_of(T_STATE), &num, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "state");
    assert_int_equal(len, 11);
    /* name/name_len NULL: only num. */
    num = -1;
    assert_int_equal(mpitev_adapter_enum_get_info(enum_of(T_STATE), &num, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(num, 3);
    /* An enum without a name reports its event type's (a name of length >= 1 is required). */
    len = sizeof name;
    assert_int_equal(mpitev_adapter_enum_get_info(enum_of(T_NAMELESS), &num, name, &len), MPI_SUCCESS);
    assert_int_equal(num, 1);
    assert_string_equal(name, "ev_nameless");
}

static void test_enum_get_item(void **state) {
    (void)state;
    MPI_T_enum e = enum_of(T_STATE);
    for (int i = 0; i < 3; i++) {
        char name[32];
        int value = 12345, len = sizeof name;
        assert_int_equal(mpitev_adapter_enum_get_item(e, i, &value, name, &len), MPI_SUCCESS);
        assert_int_equal(value, state_items[i].value);
        assert_string_equal(name, state_items[i].name);
        assert_int_equal(len, (int)strlen(state_items[i].name) + 1);
    }
    char name[8];
    int value = 12345, len = 4;
    assert_int_equal(mpitev_adapter_enum_get_item(e, 2, &value, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "a_r");
    assert_int_equal(len, (int)strlen("a_rather_long_item") + 1);
    len = 0;
    assert_int_equal(mpitev_adapter_enum_get_item(e, 1, &value, name, &len), MPI_SUCCESS);
    assert_int_equal(len, 5);
    value = 0;
    assert_int_equal(mpitev_adapter_enum_get_item(e, 1, &value, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(value, 7);
}

static void test_enum_item_bounds(void **state) {
    (void)state;
    MPI_T_enum e = enum_of(T_STATE);
    int value = 12345;
    char name[8] = "keep";
    int len = sizeof name;
    assert_int_equal(mpitev_adapter_enum_get_item(e, 3, &value, name, &len), MPI_T_ERR_INVALID_ITEM);
    assert_int_equal(mpitev_adapter_enum_get_item(e, -1, &value, name, &len), MPI_T_ERR_INVALID_ITEM);
    assert_int_equal(mpitev_adapter_enum_get_item(e, INT_MAX, &value, name, &len), MPI_T_ERR_INVALID_ITEM);
    assert_int_equal(mpitev_adapter_enum_get_item(enum_of(T_NAMELESS), 1, &value, name, &len),
                     MPI_T_ERR_INVALID_ITEM);
    /* The item index is checked before the other arguments. */
    assert_int_equal(mpitev_adapter_enum_get_item(e, 3, NULL, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
    assert_int_equal(value, 12345);
    assert_string_equal(name, "keep");
    assert_int_equal(len, (int)sizeof name);
}

static void test_enum_null_args(void **state) {
    (void)state;
    MPI_T_enum e = enum_of(T_STATE);
    char name[8] = "keep";
    int num = -1, value = 12345, len = sizeof name, neg = -1;
    /* num and value are required OUT arguments; nothing is written on failure. */
    assert_int_equal(mpitev_adapter_enum_get_info(e, NULL, name, &len), MPI_T_ERR_INVALID);
    assert_string_equal(name, "keep");
    assert_int_equal(len, (int)sizeof name);
    assert_int_equal(mpitev_adapter_enum_get_item(e, 0, NULL, name, &len), MPI_T_ERR_INVALID);
    assert_string_equal(name, "keep");
    assert_int_equal(len, (int)sizeof name);
    /* A buffer with a negative length is a bad string pair. */
    assert_int_equal(mpitev_adapter_enum_get_info(e, &num, name, &neg), MPI_T_ERR_INVALID);
    assert_int_equal(mpitev_adapter_enum_get_item(e, 0, &value, name, &neg), MPI_T_ERR_INVALID);
    assert_int_equal(num, -1);
    assert_int_equal(value, 12345);
    assert_string_equal(name, "keep");
    assert_int_equal(neg, -1);
    /* A NULL name with a length: a length query. */
    len = 0;
    assert_int_equal(mpitev_adapter_enum_get_info(e, &num, NULL, &len), MPI_SUCCESS);
    assert_int_equal(len, (int)strlen("state_enum") + 1);
}

static void test_enum_foreign_handles(void **state) {
    (void)state;
    struct fakempi_enum *own = (struct fakempi_enum *)test_malloc(64); /* the MPI's own enum object */
    MPI_T_enum foreign[] = {
        MPI_T_ENUM_NULL,
        own,
        (MPI_T_enum)(uintptr_t)0x7e000003u,          /* the toy MPI's tag */
        (MPI_T_enum)(uintptr_t)0xdeadbeef12345ull,   /* random */
        (MPI_T_enum)(uintptr_t)0x6d000000u,          /* our tag without the low bit */
        (MPI_T_enum)(uintptr_t)0x16d000001ull,       /* our tag with high bits set */
        MPITEV_ADAPTER_ENUM_TO_MPI(T_PLAIN),         /* a type without enum */
        MPITEV_ADAPTER_ENUM_TO_MPI(T_EMPTY),         /* a type with an empty enum */
        MPITEV_ADAPTER_ENUM_TO_MPI(NTYPES),          /* no such type */
        MPITEV_ADAPTER_ENUM_TO_MPI(7),
    };
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        int num = -1, value = -1, len = 8;
        char name[8] = "keep";
        assert_int_equal(mpitev_adapter_enum_get_info(foreign[i], &num, name, &len), MPI_T_ERR_INVALID_INDEX);
        assert_int_equal(mpitev_adapter_enum_get_item(foreign[i], 0, &value, name, &len), MPI_T_ERR_INVALID_INDEX);
        /* Also before argument checks: the MPI's own code decides about its handles. */
        assert_int_equal(mpitev_adapter_enum_get_info(foreign[i], NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
        assert_int_equal(mpitev_adapter_enum_get_item(foreign[i], -1, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
        assert_int_equal(num, -1);
        assert_int_equal(value, -1);
        assert_int_equal(len, 8);
        assert_string_equal(name, "keep");
    }
    test_free(own);
}

static void test_enum_not_initialized(void **state) {
    (void)state;
    MPI_T_enum e = enum_of(T_STATE);
    int num = -1;
    t_refcount = 0;
    /* Ours: MPI_T is not initialised. The MPI's own: still "not ours". */
    assert_int_equal(mpitev_adapter_enum_get_info(e, &num, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_adapter_enum_get_item(e, 0, &num, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_adapter_enum_get_info(MPI_T_ENUM_NULL, &num, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(num, -1);
    t_refcount = 1;
}
#else
/* ===================================================== the older hook */

static void test_enum_legacy_hook(void **state) {
    (void)state;
    MPI_T_enum e = enum_of(T_STATE);
    assert_ptr_equal(e, &legacy_enum);
    assert_ptr_equal(legacy_enum.e, &state_enum);
    assert_true(enum_of(T_PLAIN) == MPI_T_ENUM_NULL);
    assert_true(enum_of(T_EMPTY) == MPI_T_ENUM_NULL);
    int num = -1, value = -1;
    assert_int_equal(mpitev_adapter_enum_get_info(e, &num, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_adapter_enum_get_item(e, 0, &value, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    /* Nor does the default encoding of a type with an enum mean anything now. */
    assert_int_equal(mpitev_adapter_enum_get_info((MPI_T_enum)(uintptr_t)0x6d000001u, &num, NULL, NULL),
                     MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(num, -1);
    assert_int_equal(value, -1);
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_rules),
        cmocka_unit_test(test_string_check),
#if !defined(TEST_ENUM_LEGACY_HOOK)
        cmocka_unit_test_setup(test_enum_handles, setup),
        cmocka_unit_test_setup(test_enum_get_info, setup),
        cmocka_unit_test_setup(test_enum_get_item, setup),
        cmocka_unit_test_setup(test_enum_item_bounds, setup),
        cmocka_unit_test_setup(test_enum_null_args, setup),
        cmocka_unit_test_setup(test_enum_foreign_handles, setup),
        cmocka_unit_test_setup(test_enum_not_initialized, setup),
#else
        cmocka_unit_test_setup(test_enum_legacy_hook, setup),
#endif
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
