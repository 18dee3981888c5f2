/* The fake MPI library: the one translation unit an MPI implementor writes to plug in the
 * adapter (hooks + MPITEV_IMPLEMENTATION + MPITEV_ADAPTER_IMPLEMENTATION), plus the tiny
 * bits of an MPI the adapter needs (MPI_Info, MPI_T_init_thread/finalize) and a few event
 * raise sites. Everything else about the fake MPI's types is in mpi.h. */
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "fakempi_test.h"

/* The fake's own MPI_ names: exported weak aliases of its PMPI_ functions, the same
 * profiling scheme as the adapter's. */
#define FAKEMPI_WEAK(name) \
    FAKEMPI_EXPORT extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)));

/* ---- The hooks: MPI_T state and the MPI_T_enum the fake exports for one event type. */
static int fakempi_t_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (fakempi_t_refcount > 0)

struct fakempi_enum { const void *e; };
static struct fakempi_enum fakempi_comm_enum;
static MPI_T_enum fakempi_enum_of(const void *e) {
    fakempi_comm_enum.e = e;
    return &fakempi_comm_enum;
}
#define MPITEV_ADAPTER_ENUM(en) fakempi_enum_of(en)

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
FAKEMPI_EXPORT MPI_T_enum fakempi_enum_of_comm_ev(void) { return &fakempi_comm_enum; }
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

/* ---- A minimal MPI_Info: a growable list of owned pairs. ---- */
struct fakempi_info { int n; char *key[64]; char *val[64]; };
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
    *info = calloc(1, sizeof **info);
    if (!*info) return MPI_ERR_NO_MEM;
    info_live++;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_free(MPI_Info *info) {
    if (!info || !*info) return MPI_ERR_ARG;
    for (int i = 0; i < (*info)->n; i++) { free((*info)->key[i]); free((*info)->val[i]); }
    free(*info);
    *info = MPI_INFO_NULL;
    info_live--;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_set(MPI_Info info, const char *key, const char *value) {
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
    *nkeys = info->n;
    return MPI_SUCCESS;
}
FAKEMPI_EXPORT int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
    if (!info || n < 0 || n >= info->n || !key) return MPI_ERR_ARG;
    strcpy(key, info->key[n]);
    return MPI_SUCCESS;
}
/* MPI-4.0 MPI_Info_get_string: *buflen in, length of value + 1 out; buflen 0 is a query. */
FAKEMPI_EXPORT int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
    /* As strict as MPICH 4.0: value must not be NULL, even for a length query. */
    if (!info || !key || !buflen || !value || !flag) return MPI_ERR_ARG;
    *flag = 0;
    for (int i = 0; i < info->n; i++) {
        if (strcmp(info->key[i], key) != 0) continue;
        int need = (int)strlen(info->val[i]) + 1;
        if (value && *buflen > 0) {
            int k = need <= *buflen ? need - 1 : *buflen - 1;
            memcpy(value, info->val[i], (size_t)k);
            value[k] = '\0';
        }
        *buflen = need;
        *flag = 1;
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}
FAKEMPI_WEAK(Info_create)
FAKEMPI_WEAK(Info_free)
FAKEMPI_WEAK(Info_set)
FAKEMPI_WEAK(Info_get_nkeys)
FAKEMPI_WEAK(Info_get_nthkey)
FAKEMPI_WEAK(Info_get_string)
