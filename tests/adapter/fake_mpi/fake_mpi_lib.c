/* The fake MPI library: the one translation unit an MPI implementor writes to plug in the
 * adapter (hooks + MPITEV_IMPLEMENTATION + MPITEV_ADAPTER_IMPLEMENTATION), plus the tiny
 * bits of an MPI the adapter needs (MPI_Info, MPI_T_init_thread/finalize, live
 * communicators and operations) and a few event raise sites. Everything else about the
 * fake MPI's types is in mpi.h.
 *
 * It uses only names, never what a handle type is, so it also builds over another MPI's
 * mpi.h (the first <mpi.h> on the include path): adapter_openmpi builds it over Open MPI
 * 4.1's, an MPI-3.1 header, with <mpitev/mpi_t_events.h> (a no-op over the fake's own
 * MPI-4 header) and openmpi/ompi_standins.c for the objects that header names. */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <mpitev/mpi_t_events.h>
#include "fakempi_test.h"

/* The fake's own MPI_ names: exported weak aliases of its PMPI_ functions, the same
 * profiling scheme as the adapter's. */
#define FAKEMPI_WEAK(name) \
    FAKEMPI_EXPORT extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)));

/* ---- The hooks: MPI_T state and the MPI_T_enum the fake exports for one event type. */
static int fakempi_t_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (fakempi_t_refcount > 0)

struct fakempi_enum_data { const void *e; };
static struct fakempi_enum_data fakempi_comm_enum;
static MPI_T_enum fakempi_enum_of(const void *e) {
    fakempi_comm_enum.e = e;
    return (MPI_T_enum)(void *)&fakempi_comm_enum;
}
#define MPITEV_ADAPTER_ENUM(en) fakempi_enum_of(en)

/* Which values are handles of live objects (communicators, operations): the adapter then
 * also takes a handle a tool passes by value to MPI_T_event_handle_alloc. */
static int fakempi_is_handle(int bind, uintptr_t value);
#define MPITEV_ADAPTER_IS_HANDLE(bind, value) fakempi_is_handle((bind), (value))

#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

/* ---- Events. ---- */
static const mpitev_element msg_elems[] = {
    MPITEV_ELEMENT_OF(struct fake_msg, peer, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct fake_msg, tag, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct fake_msg, bytes, MPITEV_DTYPE_INT64),
};
static const mpitev_element comm_elems[] = {
    MPITEV_ELEMENT_OF(struct fake_comm_ev, a, MPITEV_DTYPE_INT64),
    MPITEV_ELEMENT_OF(struct fake_comm_ev, b, MPITEV_DTYPE_UINT32),
};
static const mpitev_enum_item comm_items[] = { { "created", 0 }, { "freed", 1 } };
static const mpitev_enum comm_enum = { "fake_comm_state", 2, comm_items };
static mpitev_type ev_msg, ev_comm, ev_mark;
static mpitev_source src_main, src_noclock;
static const mpitev_clock no_clock = { NULL, NULL, 1000, 1000000, NULL };

static void fakempi_declare(void) {
    static int done;
    if (done) return;
    done = 1;
    mpitev_init(); /* the library's own lifetime, not MPI_T's: kept until exit */
    mpitev_source_declare(&src_main, &(mpitev_source_desc){ .name = "fake_main", .desc = "the main thread",
                                                              .ordering = MPITEV_SOURCE_ORDERED });
    mpitev_source_declare(&src_noclock, &(mpitev_source_desc){ .name = "fake_noclock",
                                                                 .ordering = MPITEV_SOURCE_UNORDERED,
                                                                 .clock = &no_clock });
    mpitev_type_declare(&ev_msg, &(mpitev_type_desc){
        .name = "fake_msg", .desc = "a message", .verbosity = MPITEV_VERBOSITY_USER_DETAIL,
        .bind = MPITEV_BIND_NO_OBJECT, .category = "fake_p2p", .num_elements = 3, .elements = msg_elems,
        .payload_size = sizeof(struct fake_msg) });
    mpitev_type_declare(&ev_comm, &(mpitev_type_desc){
        .name = "fake_comm_ev", .desc = NULL, .verbosity = MPITEV_VERBOSITY_TUNER_ALL,
        .bind = MPITEV_BIND_MPI_COMM, .category = "fake_p2p", .enumtype = &comm_enum, .num_elements = 2,
        .elements = comm_elems, .payload_size = sizeof(struct fake_comm_ev) });
    mpitev_type_declare(&ev_mark, &(mpitev_type_desc){
        .name = "fake_mark", .desc = "", .verbosity = MPITEV_VERBOSITY_MPIDEV_ALL,
        .bind = MPITEV_BIND_NO_OBJECT, .category = "fake_other" });
}

FAKEMPI_EXPORT void fakempi_raise_msg(int src, int32_t peer, int32_t tag, int64_t bytes, int cb_safety) {
    MPITEV_RAISE(&ev_msg, src == FAKE_SRC_MAIN ? &src_main : &src_noclock, NULL, cb_safety,
                 &(struct fake_msg){ peer, tag, bytes });
}
FAKEMPI_EXPORT void fakempi_raise_comm(MPI_Comm comm, int64_t a, int32_t b) {
    /* The default object key is the handle's value. */
    MPITEV_RAISE(&ev_comm, &src_main, MPITEV_ADAPTER_HANDLE_AS_KEY(comm), MPITEV_CB_REQUIRE_NONE,
                 &(struct fake_comm_ev){ a, b });
}
FAKEMPI_EXPORT void fakempi_raise_mark(int cb_safety) {
    MPITEV_RAISE(&ev_mark, &src_main, NULL, cb_safety, NULL);
}
/* The number of free callbacks run. */
FAKEMPI_EXPORT int fakempi_progress(void) {
    int n = 0;
    (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, &n);
    return n;
}
FAKEMPI_EXPORT MPI_T_enum fakempi_enum_of_comm_ev(void) { return (MPI_T_enum)(void *)&fakempi_comm_enum; }
/* The progress engine's drain of the main source. */
FAKEMPI_EXPORT int fakempi_drain(void) {
    int n = 0;
    (void)mpitev_source_drain(&src_main, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n);
    return n;
}

/* A type with a char array, declared only by the tests that ask (the other tests count
 * FAKE_NUM_EVENTS types). */
static const mpitev_element text_elems[] = {
    MPITEV_ELEMENT_OF(struct fake_text, id, MPITEV_DTYPE_INT32),
    MPITEV_CHARS_OF(struct fake_text, text),
    MPITEV_ELEMENT_OF(struct fake_text, tail, MPITEV_DTYPE_INT16),
};
static mpitev_type ev_text;
FAKEMPI_EXPORT int fakempi_declare_text(void) {
    int index = -1;
    if (mpitev_type_declare(&ev_text, &(mpitev_type_desc){ .name = "fake_text", .num_elements = 3,
                                                            .elements = text_elems,
                                                            .payload_size = sizeof(struct fake_text) }) ||
        mpitev_type_index_of(&ev_text, &index))
        return -1;
    return index;
}
FAKEMPI_EXPORT void fakempi_raise_text(int32_t id, const char *text, int16_t tail) {
    struct fake_text t = { id, { 0 }, tail };
    size_t n = strlen(text);
    memcpy(t.text, text, n < sizeof t.text ? n : sizeof t.text); /* NUL-padded, not terminated */
    MPITEV_RAISE(&ev_text, &src_main, NULL, MPITEV_CB_REQUIRE_NONE, &t);
}

/* A type bound to MPI_Op, an integer handle in the fake's mpi.h (and a pointer in Open
 * MPI's), declared only by the tests that ask. */
struct fake_op_ev { int32_t x; };
static const mpitev_element op_elems[] = { MPITEV_ELEMENT_OF(struct fake_op_ev, x, MPITEV_DTYPE_INT32) };
static mpitev_type ev_op;
FAKEMPI_EXPORT int fakempi_declare_op_ev(void) {
    int index = -1;
    if (mpitev_type_declare(&ev_op, &(mpitev_type_desc){ .name = "fake_op_ev", .bind = MPITEV_BIND_MPI_OP,
                                                          .num_elements = 1, .elements = op_elems,
                                                          .payload_size = sizeof(struct fake_op_ev) }) ||
        mpitev_type_index_of(&ev_op, &index))
        return -1;
    return index;
}
FAKEMPI_EXPORT void fakempi_raise_op(MPI_Op op, int32_t x) {
    MPITEV_RAISE(&ev_op, &src_main, MPITEV_ADAPTER_HANDLE_AS_KEY(op), MPITEV_CB_REQUIRE_NONE,
                 &(struct fake_op_ev){ x });
}

/* Padding between elements (bytes 4..7), declared only by the tests that ask. */
static const mpitev_element padded_elems[] = {
    MPITEV_ELEMENT_OF(struct fake_padded, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct fake_padded, b, MPITEV_DTYPE_UINT64),
    MPITEV_ELEMENT_OF(struct fake_padded, c, MPITEV_DTYPE_UINT64),
};
static mpitev_type ev_padded;
FAKEMPI_EXPORT int fakempi_declare_padded(void) {
    int index = -1;
    if (mpitev_type_declare(&ev_padded, &(mpitev_type_desc){ .name = "fake_padded", .num_elements = 3,
                                                              .elements = padded_elems,
                                                              .payload_size = sizeof(struct fake_padded) }) ||
        mpitev_type_index_of(&ev_padded, &index))
        return -1;
    return index;
}
FAKEMPI_EXPORT void fakempi_raise_padded(const struct fake_padded *p) {
    MPITEV_RAISE(&ev_padded, &src_main, NULL, MPITEV_CB_REQUIRE_NONE, p);
}

/* ---- Live communicators and operations. A communicator is an object whose first word
 * is no handle (as Open MPI's, which start with their class pointer); an operation an
 * odd integer (never an address). Each kind has a table of its live handles. ---- */
enum { FAKE_MAX_LIVE = 16 };
struct fakempi_comm_data { const void *class_word; int id; };
static MPI_Comm live_comms[FAKE_MAX_LIVE];
static MPI_Op live_ops[FAKE_MAX_LIVE];
static int live_op_set[FAKE_MAX_LIVE];

FAKEMPI_EXPORT void fakempi_comm_adopt(MPI_Comm comm) {
    for (int i = 0; i < FAKE_MAX_LIVE; i++)
        if (!live_comms[i]) { live_comms[i] = comm; return; }
    abort(); /* the tests need fewer */
}
FAKEMPI_EXPORT MPI_Comm fakempi_comm_create(void) {
    static struct fakempi_comm_data objects[FAKE_MAX_LIVE];
    static const char comm_class[] = "communicator";
    static int next;
    struct fakempi_comm_data *o = &objects[next++ % FAKE_MAX_LIVE];
    o->class_word = comm_class;
    o->id = next;
    MPI_Comm comm = (MPI_Comm)(void *)o;
    fakempi_comm_adopt(comm);
    return comm;
}
FAKEMPI_EXPORT void fakempi_comm_free(MPI_Comm comm) {
    for (int i = 0; i < FAKE_MAX_LIVE; i++)
        if (live_comms[i] == comm) live_comms[i] = NULL;
}
FAKEMPI_EXPORT MPI_Op fakempi_op_create(void) {
    static int n;
    MPI_Op op = (MPI_Op)(uintptr_t)(0x5e000001u + 2u * (unsigned)n++);
    for (int i = 0; i < FAKE_MAX_LIVE; i++)
        if (!live_op_set[i]) { live_ops[i] = op; live_op_set[i] = 1; return op; }
    abort();
}
FAKEMPI_EXPORT void fakempi_op_free(MPI_Op op) {
    for (int i = 0; i < FAKE_MAX_LIVE; i++)
        if (live_op_set[i] && live_ops[i] == op) live_op_set[i] = 0;
}
static int fakempi_is_handle(int bind, uintptr_t value) {
    for (int i = 0; i < FAKE_MAX_LIVE; i++) {
        if (bind == MPITEV_BIND_MPI_COMM && live_comms[i] && live_comms[i] == (MPI_Comm)value) return 1;
        if (bind == MPITEV_BIND_MPI_OP && live_op_set[i] && live_ops[i] == (MPI_Op)value) return 1;
    }
    return 0;
}

/* ---- MPI_T init/finalize (reference counted, MPI-3.1 14.3.4). ---- */
FAKEMPI_EXPORT int PMPI_T_init_thread(int required, int *provided) {
    fakempi_declare();
    fakempi_t_refcount++;
    if (provided) *provided = required;
    return MPI_SUCCESS;
}
/* The last one ends every registration first, while the tool may still use MPI_T. */
FAKEMPI_EXPORT int PMPI_T_finalize(void) {
    static int finalizing;
    if (fakempi_t_refcount == 0 || finalizing) return MPI_T_ERR_NOT_INITIALIZED;
    if (fakempi_t_refcount == 1) {
        finalizing = 1;
        (void)mpitev_adapter_t_finalize(MPITEV_CB_REQUIRE_NONE);
        finalizing = 0;
    }
    fakempi_t_refcount--;
    return MPI_SUCCESS;
}
FAKEMPI_WEAK(T_init_thread)
FAKEMPI_WEAK(T_finalize)

/* ---- Categories: the fake's own numbering, answered by name through the helpers. ---- */
static const char *const fake_categories[FAKE_NUM_CATEGORIES] = { "fake_other", "fake_p2p", "fake_cvars" };
FAKEMPI_EXPORT int PMPI_T_category_get_num_events(int cat_index, int *num_events) {
    if (!MPITEV_ADAPTER_T_INITIALIZED()) return MPI_T_ERR_NOT_INITIALIZED;
    if (cat_index < 0 || cat_index >= FAKE_NUM_CATEGORIES) return MPI_T_ERR_INVALID_INDEX;
    return mpitev_adapter_category_num_events(fake_categories[cat_index], num_events);
}
FAKEMPI_EXPORT int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
    if (!MPITEV_ADAPTER_T_INITIALIZED()) return MPI_T_ERR_NOT_INITIALIZED;
    if (cat_index < 0 || cat_index >= FAKE_NUM_CATEGORIES) return MPI_T_ERR_INVALID_INDEX;
    return mpitev_adapter_category_events(fake_categories[cat_index], len, indices, NULL);
}
FAKEMPI_WEAK(T_category_get_num_events)
FAKEMPI_WEAK(T_category_get_events)

/* ---- A minimal MPI_Info: a list of owned pairs. MPI_Info points to it (through void *:
 * the fake's mpi.h and Open MPI's name the pointee differently). ---- */
struct fakempi_info_data { int n; char *key[64]; char *val[64]; };
#define INFO(info) ((struct fakempi_info_data *)(void *)(info))
static int info_live, info_fail_after = -1;
FAKEMPI_EXPORT int fakempi_info_live(void) { return info_live; }
FAKEMPI_EXPORT void fakempi_info_fail_after(int n) { info_fail_after = n; }
static int info_should_fail(void) {
    if (info_fail_after < 0) return 0;
    return info_fail_after-- == 0;
}
static char *dup(const char *s) {
    char *d = malloc(strlen(s) + 1);
    if (d) strcpy(d, s);
    return d;
}

FAKEMPI_EXPORT int PMPI_Info_create(MPI_Info *info) {
    if (!info) return MPI_ERR_ARG;
    if (info_should_fail()) return MPI_ERR_NO_MEM;
    struct fakempi_info_data *d = calloc(1, sizeof *d);
    if (!d) return MPI_ERR_NO_MEM;
    *info = (MPI_Info)(void *)d;
    info_live++;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_free(MPI_Info *info) {
    if (!info || !*info) return MPI_ERR_ARG;
    struct fakempi_info_data *d = INFO(*info);
    for (int i = 0; i < d->n; i++) { free(d->key[i]); free(d->val[i]); }
    free(d);
    *info = MPI_INFO_NULL;
    info_live--;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_set(MPI_Info mpi_info, const char *key, const char *value) {
    struct fakempi_info_data *info = INFO(mpi_info);
    if (!info || !key || !value || !key[0] || strlen(key) > MPI_MAX_INFO_KEY) return MPI_ERR_INFO_KEY;
    if (info_should_fail()) return MPI_ERR_NO_MEM;
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->key[i], key) == 0) { free(info->val[i]); info->val[i] = dup(value); return MPI_SUCCESS; }
    if (info->n == 64) return MPI_ERR_NO_MEM;
    info->key[info->n] = dup(key);
    info->val[info->n] = dup(value);
    info->n++;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
    if (!info || !nkeys) return MPI_ERR_ARG;
    *nkeys = INFO(info)->n;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
    if (!info || n < 0 || n >= INFO(info)->n || !key) return MPI_ERR_ARG;
    strcpy(key, INFO(info)->key[n]);
    return MPI_SUCCESS;
}
/* The value of key, or NULL. */
static const char *info_value(MPI_Info info, const char *key) {
    struct fakempi_info_data *d = INFO(info);
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->key[i], key) == 0) return d->val[i];
    return NULL;
}
#if MPI_VERSION >= 4
/* MPI-4.0 MPI_Info_get_string: *buflen in, length of value + 1 out; buflen 0 is a query.
 * Not defined over an MPI-3 mpi.h: the adapter must not call it there (the link says so). */
FAKEMPI_EXPORT int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
    /* As strict as MPICH 4.0: value must not be NULL, even for a length query. */
    if (!info || !key || !buflen || !value || !flag) return MPI_ERR_ARG;
    const char *v = info_value(info, key);
    *flag = v != NULL;
    if (!v) return MPI_SUCCESS;
    int need = (int)strlen(v) + 1;
    if (*buflen > 0) {
        int k = need <= *buflen ? need - 1 : *buflen - 1;
        memcpy(value, v, (size_t)k);
        value[k] = '\0';
    }
    *buflen = need;
    return MPI_SUCCESS;
}
FAKEMPI_WEAK(Info_get_string)
#endif
/* MPI-1: the value's length without terminator, and at most valuelen characters of it. */
FAKEMPI_EXPORT int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
    if (!info || !key || !valuelen || !flag) return MPI_ERR_ARG;
    const char *v = info_value(info, key);
    *flag = v != NULL;
    if (v) *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
    if (!info || !key || valuelen < 0 || !value || !flag) return MPI_ERR_ARG;
    const char *v = info_value(info, key);
    *flag = v != NULL;
    if (!v) return MPI_SUCCESS;
    size_t k = strlen(v) < (size_t)valuelen ? strlen(v) : (size_t)valuelen;
    memcpy(value, v, k);
    value[k] = '\0';
    return MPI_SUCCESS;
}
FAKEMPI_WEAK(Info_create)
FAKEMPI_WEAK(Info_free)
FAKEMPI_WEAK(Info_set)
FAKEMPI_WEAK(Info_get_nkeys)
FAKEMPI_WEAK(Info_get_nthkey)
FAKEMPI_WEAK(Info_get_valuelen)
FAKEMPI_WEAK(Info_get)
