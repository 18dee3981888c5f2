/* Event type declarations and the type/category queries.
 *
 * Declarations live for the process, so every test declares objects of its own (static,
 * names no other test uses) and computes indices from n0, the number of types declared
 * when it starts. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static int ntypes(void) {
    int n = -1;
    OK(mpitev_type_get_num(&n));
    return n;
}

static void declare_ok_and_query(void **state) {
    (void)state;
    static mpitev_type t1;
    int n = -1, n0 = ntypes();
    assert_int_equal(mpitev_type_index_of(&t1, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    mpitev_type_desc d = pair_desc("ev_one", MPITEV_BIND_MPI_COMM);
    d.desc = "first";
    d.verbosity = MPITEV_VERBOSITY_TUNER_DETAIL;
    OK(mpitev_type_declare(&t1, &d));
    assert_int_equal(tindex(&t1), n0);
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, n0 + 1);
    int idx = -1;
    OK(mpitev_type_get_index("ev_one", &idx));
    assert_int_equal(idx, n0);
    assert_int_equal(mpitev_type_get_index("ev_none", &idx), MPITEV_ERR_INVALID_NAME);
    mpitev_type_info info;
    memset(&info, 0xa5, sizeof info);
    OK(mpitev_type_get_info(n0, &info));
    assert_string_equal(info.name, "ev_one");
    assert_string_equal(info.desc, "first");
    assert_int_equal(info.verbosity, MPITEV_VERBOSITY_TUNER_DETAIL);
    assert_int_equal(info.bind, MPITEV_BIND_MPI_COMM);
    assert_null(info.category);
    assert_null(info.enumtype);
    assert_int_equal(info.num_elements, 2);
    assert_ptr_equal(info.elements, pair_elems);
    assert_int_equal(info.displacements[0], offsetof(struct pair, a));
    assert_int_equal(info.displacements[1], offsetof(struct pair, b));
    assert_int_equal(info.sizes[0], 4);
    assert_int_equal(info.sizes[1], 8);
    assert_int_equal(info.extent, sizeof(struct pair));
    assert_int_equal(info.flags, 0);
    assert_int_equal(mpitev_type_get_info(n0 + 1, &info), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_type_get_info(-1, &info), MPITEV_ERR_INVALID_INDEX);
}

static void desc_null_reported_empty(void **state) {
    (void)state;
    static mpitev_type t1;
    mpitev_type_desc d = pair_desc("nodesc", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&t1, &d));
    mpitev_type_info info;
    OK(mpitev_type_get_info(tindex(&t1), &info));
    assert_non_null(info.desc);
    assert_string_equal(info.desc, "");
}

static void duplicate_name_rejected(void **state) {
    (void)state;
    static mpitev_type t1, t2;
    int n0 = ntypes();
    mpitev_type_desc d = pair_desc("dup", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&t1, &d));
    /* Another name buffer with the same contents: compared by value. */
    char name[] = "dup";
    mpitev_type_desc d2 = pair_desc(name, MPITEV_BIND_NO_OBJECT);
    assert_int_equal(mpitev_type_declare(&t2, &d2), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(ntypes(), n0 + 1);
    assert_int_equal(mpitev_type_index_of(&t2, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    /* t2 is still usable for another name afterwards */
    d2.name = "dup2";
    OK(mpitev_type_declare(&t2, &d2));
    assert_int_equal(tindex(&t2), n0 + 1);
}

static void bad_names(void **state) {
    (void)state;
    static mpitev_type t1;
    int n0 = ntypes();
    mpitev_type_desc d = pair_desc("", MPITEV_BIND_NO_OBJECT);
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_NAME);
    d.name = NULL;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(ntypes(), n0);
}

static void bad_fields(void **state) {
    (void)state;
    static mpitev_type t1;
    int n0 = ntypes();
    mpitev_type_desc d = pair_desc("bad", MPITEV_BIND_NO_OBJECT);
    d.verbosity = -1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.verbosity = MPITEV_VERBOSITY_MPIDEV_ALL + 1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.verbosity = MPITEV_VERBOSITY_MPIDEV_ALL; /* highest valid */
    d.bind = -1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.bind = MPITEV_BIND_KINDS;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.bind = MPITEV_BIND_MPI_SESSION; /* highest valid */
    d.num_elements = -1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.num_elements = MPITEV_MAX_ELEMENTS + 1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.num_elements = 2;
    d.elements = NULL;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.elements = pair_elems;
    d.flags = 1u << 7;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.flags = 0;
    mpitev_enum en = { "e", -1, NULL };
    d.enumtype = &en;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    en.num_items = 2; /* items NULL */
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.enumtype = NULL;
    assert_int_equal(ntypes(), n0);
    /* And the same desc, fixed, is accepted: the rejections were for the fields. */
    OK(mpitev_type_declare(&t1, &d));
    mpitev_type_info info;
    OK(mpitev_type_get_info(n0, &info));
    assert_int_equal(info.verbosity, MPITEV_VERBOSITY_MPIDEV_ALL);
    assert_int_equal(info.bind, MPITEV_BIND_MPI_SESSION);
}

static void bad_elements(void **state) {
    (void)state;
    static mpitev_type t1;
    int n0 = ntypes();
    /* static: declared, the elements are the type's for the rest of the process */
    static mpitev_element e[2];
    e[0] = (mpitev_element){ "x", MPITEV_DTYPE_INT32, 1, MPITEV_ANY_OFFSET };
    e[1] = (mpitev_element){ "y", MPITEV_DTYPE_INT32, 1, MPITEV_ANY_OFFSET };
    mpitev_type_desc d = pair_desc("els", MPITEV_BIND_NO_OBJECT);
    d.elements = e;
    d.payload_size = 0;
    e[1].dtype = MPITEV_DTYPE_INVALID;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].dtype = (mpitev_dtype)(MPITEV_DTYPE_CHAR_ARRAY + 1); /* past the last one */
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].dtype = (mpitev_dtype)-3;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].dtype = MPITEV_DTYPE_INT32;
    e[1].count = 2; /* only char arrays have counts */
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].count = -1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].dtype = MPITEV_DTYPE_CHAR_ARRAY;
    e[1].count = 0;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].count = -5;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].count = 5;
    e[1].expect_offset = -7; /* negative and not ANY */
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    e[1].expect_offset = 5; /* actual: 4 */
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(ntypes(), n0);
    e[1].expect_offset = 4;
    e[0].count = 0; /* 0 is accepted for scalars */
    OK(mpitev_type_declare(&t1, &d));
    mpitev_type_info info;
    OK(mpitev_type_get_info(n0, &info));
    assert_int_equal(info.sizes[0], 4);
    assert_int_equal(info.sizes[1], 5);
    assert_int_equal(info.displacements[1], 4);
    assert_int_equal(info.extent, 9); /* ends with the last element: no trailing padding */
}

static void payload_size_mismatch(void **state) {
    (void)state;
    static mpitev_type t1;
    mpitev_type_desc d = pair_desc("psz", MPITEV_BIND_NO_OBJECT);
    d.payload_size = sizeof(struct pair) + 1;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.payload_size = 12; /* 4 + 8 without the padding */
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    d.payload_size = 0; /* unchecked */
    OK(mpitev_type_declare(&t1, &d));
}

/* A struct whose member offsets are not the natural layout. */
struct overaligned {
    int32_t a;
    _Alignas(16) int32_t b;
};
struct natural {
    int8_t a;
    double b;
    int16_t c;
    char s[3];
    int64_t d;
    uint8_t e;
};

static void element_of_offset_mismatch(void **state) {
    (void)state;
    static const mpitev_element el[] = {
        MPITEV_ELEMENT_OF(struct overaligned, a, MPITEV_DTYPE_INT32),
        MPITEV_ELEMENT_OF(struct overaligned, b, MPITEV_DTYPE_INT32),
    };
    static mpitev_type t1;
    int n0 = ntypes();
    mpitev_type_desc d = pair_desc("overaligned", MPITEV_BIND_NO_OBJECT);
    d.elements = el;
    d.payload_size = 0;
    assert_int_equal(mpitev_type_declare(&t1, &d), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_index_of(&t1, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);

    static const mpitev_element nl[] = {
        MPITEV_ELEMENT_OF(struct natural, a, MPITEV_DTYPE_INT8),
        MPITEV_ELEMENT_OF(struct natural, b, MPITEV_DTYPE_DOUBLE),
        MPITEV_ELEMENT_OF(struct natural, c, MPITEV_DTYPE_INT16),
        MPITEV_CHARS_OF(struct natural, s),
        MPITEV_ELEMENT_OF(struct natural, d, MPITEV_DTYPE_INT64),
        MPITEV_ELEMENT_OF(struct natural, e, MPITEV_DTYPE_UINT8),
    };
    mpitev_type_desc d2 = pair_desc("natural", MPITEV_BIND_NO_OBJECT);
    d2.elements = nl;
    d2.num_elements = 6;
    d2.payload_size = sizeof(struct natural);
    OK(mpitev_type_declare(&t1, &d2));
    mpitev_type_info info;
    OK(mpitev_type_get_info(n0, &info));
    assert_int_equal(info.displacements[0], 0);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(info.displacements[i], (size_t)nl[i].expect_offset);
        if (i) assert_true(info.displacements[i] > info.displacements[i - 1]);
    }
    assert_int_equal(info.sizes[3], 3);
    assert_int_equal(info.extent, offsetof(struct natural, e) + 1); /* sizeof minus trailing padding */
    assert_true(info.extent < sizeof(struct natural));
}

/* Every dtype: size and natural alignment of the displacement after a leading char. */
static void every_dtype_size(void **state) {
    (void)state;
    static const struct { mpitev_dtype t; size_t size, align; } cases[] = {
        { MPITEV_DTYPE_INT8, 1, 1 }, { MPITEV_DTYPE_INT16, 2, _Alignof(int16_t) }, { MPITEV_DTYPE_INT32, 4, _Alignof(int32_t) },
        { MPITEV_DTYPE_INT64, 8, _Alignof(int64_t) }, { MPITEV_DTYPE_UINT8, 1, 1 }, { MPITEV_DTYPE_UINT16, 2, _Alignof(uint16_t) },
        { MPITEV_DTYPE_UINT32, 4, _Alignof(uint32_t) }, { MPITEV_DTYPE_UINT64, 8, _Alignof(uint64_t) },
        { MPITEV_DTYPE_CHAR, 1, 1 }, { MPITEV_DTYPE_SIGNED_CHAR, 1, 1 }, { MPITEV_DTYPE_UNSIGNED_CHAR, 1, 1 },
        { MPITEV_DTYPE_SHORT, sizeof(short), _Alignof(short) }, { MPITEV_DTYPE_UNSIGNED_SHORT, sizeof(unsigned short), _Alignof(unsigned short) },
        { MPITEV_DTYPE_INT, sizeof(int), _Alignof(int) }, { MPITEV_DTYPE_UNSIGNED, sizeof(unsigned), _Alignof(unsigned) },
        { MPITEV_DTYPE_LONG, sizeof(long), _Alignof(long) }, { MPITEV_DTYPE_UNSIGNED_LONG, sizeof(unsigned long), _Alignof(unsigned long) },
        { MPITEV_DTYPE_LONG_LONG, sizeof(long long), _Alignof(long long) },
        { MPITEV_DTYPE_UNSIGNED_LONG_LONG, sizeof(unsigned long long), _Alignof(unsigned long long) },
        { MPITEV_DTYPE_FLOAT, sizeof(float), _Alignof(float) }, { MPITEV_DTYPE_DOUBLE, sizeof(double), _Alignof(double) },
        { MPITEV_DTYPE_COUNT, sizeof(mpitev_count_t), _Alignof(mpitev_count_t) },
        { MPITEV_DTYPE_OFFSET, sizeof(mpitev_offset_t), _Alignof(mpitev_offset_t) },
        { MPITEV_DTYPE_AINT, sizeof(intptr_t), _Alignof(intptr_t) }, { MPITEV_DTYPE_UINTPTR, sizeof(uintptr_t), _Alignof(uintptr_t) },
        { MPITEV_DTYPE_CHAR_ARRAY, 7, 1 },
    };
    static mpitev_type types[sizeof cases / sizeof cases[0]];
    static mpitev_element els[sizeof cases / sizeof cases[0]][2];
    static char names[sizeof cases / sizeof cases[0]][16];
    assert_int_equal(sizeof cases / sizeof cases[0], MPITEV_DTYPE_CHAR_ARRAY); /* all covered (1 .. CHAR_ARRAY) */
    int n0 = ntypes();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        els[i][0] = (mpitev_element){ "c", MPITEV_DTYPE_CHAR, 1, 0 };
        els[i][1] = (mpitev_element){ "v", cases[i].t, cases[i].t == MPITEV_DTYPE_CHAR_ARRAY ? 7 : 1, MPITEV_ANY_OFFSET };
        snprintf(names[i], sizeof names[i], "dt%zu", i);
        mpitev_type_desc d = pair_desc(names[i], MPITEV_BIND_NO_OBJECT);
        d.elements = els[i];
        d.payload_size = 0;
        OK(mpitev_type_declare(&types[i], &d));
        mpitev_type_info info;
        OK(mpitev_type_get_info(n0 + (int)i, &info));
        assert_int_equal(info.sizes[0], 1);
        assert_int_equal(info.sizes[1], cases[i].size);
        assert_int_equal(info.displacements[1], cases[i].align); /* 1 rounded up to the alignment */
        assert_int_equal(info.extent, cases[i].align + cases[i].size); /* end of the last element */
    }
}

static void no_elements(void **state) {
    (void)state;
    static mpitev_type t1;
    mpitev_type_desc d = pair_desc("empty", MPITEV_BIND_NO_OBJECT);
    d.elements = NULL;
    d.num_elements = 0;
    d.payload_size = 0;
    OK(mpitev_type_declare(&t1, &d));
    mpitev_type_info info;
    OK(mpitev_type_get_info(tindex(&t1), &info));
    assert_int_equal(info.num_elements, 0);
    assert_int_equal(info.extent, 0);
}

static void same_object_twice(void **state) {
    (void)state;
    static mpitev_type t1;
    int n0 = ntypes(), idx;
    mpitev_type_desc d = pair_desc("once", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&t1, &d));
    mpitev_type_desc d2 = pair_desc("twice", MPITEV_BIND_NO_OBJECT);
    assert_int_equal(mpitev_type_declare(&t1, &d2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(ntypes(), n0 + 1);
    assert_int_equal(mpitev_type_get_index("twice", &idx), MPITEV_ERR_INVALID_NAME);
    OK(mpitev_type_get_index("once", &idx));
    assert_int_equal(idx, n0);
    assert_int_equal(tindex(&t1), n0);
}

/* A component loaded later declares more types while registrations exist. */
static void late_declaration_keeps_indices(void **state) {
    (void)state;
    static mpitev_type t1, t2, t3, t4;
    int n0 = ntypes();
    mpitev_type_desc a = pair_desc("early_a", MPITEV_BIND_NO_OBJECT), b = pair_desc("early_b", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&t1, &a));
    OK(mpitev_type_declare(&t2, &b));
    mpitev_reg r1, r2;
    OK(mpitev_reg_alloc(n0 + 1, NULL, NULL, 0, &r1));
    OK(mpitev_reg_alloc(n0, NULL, NULL, 0, &r2));
    OK(mpitev_reg_free(r2, NULL, NULL));
    mpitev_type_desc c = pair_desc("late_c", MPITEV_BIND_NO_OBJECT), dd = pair_desc("late_d", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&t3, &c));
    assert_int_equal(mpitev_type_declare(&t4, &a), MPITEV_ERR_INVALID_NAME); /* early name */
    OK(mpitev_type_declare(&t4, &dd));
    assert_int_equal(tindex(&t1), n0);
    assert_int_equal(tindex(&t2), n0 + 1);
    assert_int_equal(tindex(&t3), n0 + 2); /* never reuses an index */
    assert_int_equal(tindex(&t4), n0 + 3);
    int idx;
    OK(mpitev_type_get_index("early_a", &idx)); assert_int_equal(idx, n0);
    OK(mpitev_type_get_index("early_b", &idx)); assert_int_equal(idx, n0 + 1);
    OK(mpitev_type_get_index("late_c", &idx)); assert_int_equal(idx, n0 + 2);
    OK(mpitev_type_get_index("late_d", &idx)); assert_int_equal(idx, n0 + 3);
    assert_int_equal(ntypes(), n0 + 4);
    OK(mpitev_reg_get_type(r1, &idx)); assert_int_equal(idx, n0 + 1);
    mpitev_type_info info;
    OK(mpitev_type_get_info(n0 + 1, &info));
    assert_string_equal(info.name, "early_b");
}

static void categories(void **state) {
    (void)state;
    /* The only test of this file that names categories: they are indexed from 0. */
    static mpitev_type t1, t2, t3, t4, t5;
    int n0 = ntypes();
    mpitev_type_desc d;
    d = pair_desc("c0", MPITEV_BIND_NO_OBJECT); d.category = "pt2pt"; OK(mpitev_type_declare(&t1, &d));
    d = pair_desc("c1", MPITEV_BIND_NO_OBJECT); d.category = NULL; OK(mpitev_type_declare(&t2, &d));
    d = pair_desc("c2", MPITEV_BIND_NO_OBJECT); d.category = "coll"; OK(mpitev_type_declare(&t3, &d));
    static char pt2pt_copy[] = "pt2pt"; /* same name, other storage */
    d = pair_desc("c3", MPITEV_BIND_NO_OBJECT); d.category = pt2pt_copy; OK(mpitev_type_declare(&t4, &d));
    d = pair_desc("c4", MPITEV_BIND_NO_OBJECT); d.category = "pt2pt"; OK(mpitev_type_declare(&t5, &d));
    int n = -1;
    OK(mpitev_category_get_num(&n));
    assert_int_equal(n, 2);
    const char *name = NULL;
    OK(mpitev_category_get_name(0, &name));
    assert_string_equal(name, "pt2pt");
    OK(mpitev_category_get_name(1, &name));
    assert_string_equal(name, "coll");
    assert_int_equal(mpitev_category_get_name(2, &name), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_category_get_name(-1, &name), MPITEV_ERR_INVALID_INDEX);
    int idx[8], ne = -1;
    OK(mpitev_category_get_events(0, 8, idx, &ne));
    assert_int_equal(ne, 3);
    assert_int_equal(idx[0], n0);
    assert_int_equal(idx[1], n0 + 3);
    assert_int_equal(idx[2], n0 + 4);
    /* Truncation: only len written, the full count returned. */
    int buf[3] = { -1, -1, -77 };
    OK(mpitev_category_get_events(0, 2, buf, &ne));
    assert_int_equal(ne, 3);
    assert_int_equal(buf[0], n0);
    assert_int_equal(buf[1], n0 + 3);
    assert_int_equal(buf[2], -77);
    OK(mpitev_category_get_events(0, 0, NULL, &ne));
    assert_int_equal(ne, 3);
    OK(mpitev_category_get_events(1, 8, idx, &ne));
    assert_int_equal(ne, 1);
    assert_int_equal(idx[0], n0 + 2);
    assert_int_equal(mpitev_category_get_events(2, 8, idx, &ne), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_category_get_events(0, -1, idx, &ne), MPITEV_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(declare_ok_and_query, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(desc_null_reported_empty, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(duplicate_name_rejected, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(bad_names, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(bad_fields, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(bad_elements, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(payload_size_mismatch, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(element_of_offset_mismatch, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(every_dtype_size, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(no_elements, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(same_object_twice, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(late_declaration_keeps_indices, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(categories, core_setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
