/* libFuzzer target: the input is a program of operations on the standard MPI_T event API
 * (the adapter over the fake test MPI's mpi.h) and on the implementor side (raise,
 * drain, progress, declarations, init/finalize), with allocation failures injected
 * through mpitev_set_allocator. Tool callbacks read further operations from the same
 * input and run them re-entrantly (alloc, free of themselves and others, hints, dropped
 * handlers, raises, drains, MPI_T_finalize/MPI_T_init_thread pairs).
 *
 * It checks as it goes (any violation aborts, so libFuzzer reports it):
 *  - every call returns MPI_SUCCESS or an MPI_T error class, and a call whose arguments
 *    are valid returns MPI_SUCCESS or MPI_T_ERR_MEMORY;
 *  - no delivery or drop report reaches a registration after the tool freed it (or
 *    after mpitev freed it); user data is the tool's;
 *  - a free callback runs exactly once per successful free that gave one, never for
 *    others, and after it: delivered + dropped == raised for a registration whose
 *    dropped handler was set at every raise to it (otherwise <=);
 *  - after the last finalize of each input the same per registration, and every block
 *    the registrations took is back (the failing allocator counts them).
 * "Raised to" a registration is computed by a model: an instance of type t raised while
 * the registration has a callback, its object matching for a bound type.
 *
 * Built as a libFuzzer target with clang (-fsanitize=fuzzer), and with any compiler as a
 * replayer (FUZZ_STANDALONE: main runs the files named on the command line), so the
 * committed corpus runs in every CI suite. The opcodes are stable: make_seeds.py writes
 * the seed corpus with the same numbers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

/* ---- The fake MPI's MPI_T state: the tool's reference count (the MPI holds its own
 * mpitev reference while "MPI is initialised", as the toy does). ---- */
static int fz_t_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (fz_t_refcount > 0)
#define MPITEV_ADAPTER_NO_WEAK 1
#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

#include "../faultinj/failalloc.h"

static void fz_fail(const char *what, long a, long b) {
    fprintf(stderr, "fuzz_api: violation: %s (%ld, %ld)\n", what, a, b);
    abort();
}
#define CHECK(cond, a, b) do { if (!(cond)) fz_fail(#cond, (long)(a), (long)(b)); } while (0)

/* FUZZ_TRACE=1 (replayer only): each operation, its decoded arguments and outcome. */
#ifdef FUZZ_STANDALONE
#include <stdarg.h>
static void fz_trace(const char *fmt, ...) {
    static int on = -1;
    if (on < 0) on = getenv("FUZZ_TRACE") != NULL;
    if (!on) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}
#define TRACE(...) fz_trace(__VA_ARGS__)
#else
#define TRACE(...) ((void)0)
#endif

/* ---- The input. ---- */
static const uint8_t *in_p;
static size_t in_n, in_i;
static unsigned fz_byte(void) { return in_i < in_n ? in_p[in_i++] : 0u; }
static int fz_more(void) { return in_i < in_n; }
static int fz_int(void) { /* a small signed int, sometimes extreme */
    unsigned b = fz_byte();
    if (b == 0xff) return -1 - (int)(fz_byte() * 1000003u % 2147483647u);
    if (b == 0xfe) return (int)(fz_byte() * 1000003u % 2147483647u);
    return (int)(b % 16) - 3;
}

/* ---- A minimal MPI_Info (the adapter converts through it); can fail on command. ---- */
struct fakempi_info { int n; char *key[16]; char *val[16]; };
static int info_live, info_fail;
static char *fz_dup(const char *s) { char *d = malloc(strlen(s) + 1); if (d) strcpy(d, s); return d; }
int PMPI_Info_create(MPI_Info *info) {
    if (!info) return MPI_ERR_ARG;
    if (info_fail) return MPI_ERR_NO_MEM;
    *info = calloc(1, sizeof **info);
    if (!*info) return MPI_ERR_NO_MEM;
    info_live++;
    return MPI_SUCCESS;
}
int PMPI_Info_free(MPI_Info *info) {
    if (!info || !*info) return MPI_ERR_ARG;
    for (int i = 0; i < (*info)->n; i++) { free((*info)->key[i]); free((*info)->val[i]); }
    free(*info);
    *info = MPI_INFO_NULL;
    info_live--;
    return MPI_SUCCESS;
}
int PMPI_Info_set(MPI_Info info, const char *key, const char *value) {
    if (!info || !key || !value || !key[0]) return MPI_ERR_INFO_KEY;
    if (info_fail) return MPI_ERR_NO_MEM;
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->key[i], key) == 0) {
            char *v = fz_dup(value);
            if (!v) return MPI_ERR_NO_MEM;
            free(info->val[i]);
            info->val[i] = v;
            return MPI_SUCCESS;
        }
    if (info->n == 16) return MPI_ERR_NO_MEM;
    info->key[info->n] = fz_dup(key);
    info->val[info->n] = fz_dup(value);
    info->n++;
    return MPI_SUCCESS;
}
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
    if (!info || !nkeys) return MPI_ERR_ARG;
    *nkeys = info->n;
    return MPI_SUCCESS;
}
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
    if (!info || n < 0 || n >= info->n || !key) return MPI_ERR_ARG;
    strcpy(key, info->key[n]);
    return MPI_SUCCESS;
}
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
    if (!info || !key || !buflen || !value || !flag) return MPI_ERR_ARG;
    *flag = 0;
    for (int i = 0; i < info->n; i++) {
        if (strcmp(info->key[i], key) != 0) continue;
        int need = (int)strlen(info->val[i]) + 1;
        if (*buflen > 0) {
            int k = need <= *buflen ? need - 1 : *buflen - 1;
            memcpy(value, info->val[i], (size_t)k);
            value[k] = '\0';
        }
        *buflen = need;
        *flag = 1;
    }
    return MPI_SUCCESS;
}

/* ---- The MPI's events. ---- */
struct fz_pair { int32_t a; int64_t b; };
struct fz_big { int64_t v[5]; };
static const mpitev_element pair_el[] = { MPITEV_ELEMENT_OF(struct fz_pair, a, MPITEV_DTYPE_INT32),
                                          MPITEV_ELEMENT_OF(struct fz_pair, b, MPITEV_DTYPE_INT64) };
static const mpitev_element big_el[] = {
    MPITEV_ELEMENT_OF(struct fz_big, v[0], MPITEV_DTYPE_INT64), MPITEV_ELEMENT_OF(struct fz_big, v[1], MPITEV_DTYPE_INT64),
    MPITEV_ELEMENT_OF(struct fz_big, v[2], MPITEV_DTYPE_INT64), MPITEV_ELEMENT_OF(struct fz_big, v[3], MPITEV_DTYPE_INT64),
    MPITEV_ELEMENT_OF(struct fz_big, v[4], MPITEV_DTYPE_INT64) };
static const mpitev_enum_item comm_items[] = { { "created", 0 }, { "freed", 1 } };
static const mpitev_enum comm_enum = { "fz_comm_state", 2, comm_items };
enum { NT = 5, NS = 3 };
static mpitev_type types[NT];
static mpitev_source sources[NS];
static const mpitev_type_desc type_desc[NT] = {
    { .name = "fz_pair", .desc = "pair", .category = "fz_p2p", .num_elements = 2, .elements = pair_el,
      .payload_size = sizeof(struct fz_pair) },
    { .name = "fz_comm", .bind = MPITEV_BIND_MPI_COMM, .category = "fz_p2p", .enumtype = &comm_enum,
      .num_elements = 2, .elements = pair_el, .payload_size = sizeof(struct fz_pair) },
    { .name = "fz_mark", .category = "fz_other" },
    { .name = "fz_big", .num_elements = 5, .elements = big_el, .payload_size = sizeof(struct fz_big) },
    { .name = "fz_forced", .num_elements = 2, .elements = pair_el, .payload_size = sizeof(struct fz_pair),
      .flags = MPITEV_TYPE_ALWAYS_BUFFERED },
};
static const mpitev_clock no_clock = { NULL, NULL, 1000, 1000000, NULL };
static const mpitev_source_desc source_desc[NS] = {
    { .name = "fz_ordered", .ordering = MPITEV_SOURCE_ORDERED, .buffer_capacity = 8 },
    { .name = "fz_unordered", .ordering = MPITEV_SOURCE_UNORDERED, .buffer_capacity = 8, .buffered_by_default = 1 },
    { .name = "fz_tiny", .ordering = MPITEV_SOURCE_ORDERED, .clock = &no_clock, .buffer_capacity = 2,
      .buffer_record_size = 8 },
};
struct fakempi_comm { int64_t id, pad; }; /* read as a handle when passed by value */
static struct fakempi_comm comms[2] = { { 1, 0 }, { 2, 0 } };

/* fz_unordered is on the TSC clock where there is one: its rate is measured lazily, at
 * the first source query (mpitev_clock.rate); the same clock at every declaration. */
static void fz_declare(void) {
    for (int i = 0; i < NS; i++) {
        mpitev_source_desc d = source_desc[i];
        if (i == 1 && mpitev_clock_tsc()) d.clock = mpitev_clock_tsc();
        CHECK(mpitev_source_declare(&sources[i], &d) == MPITEV_SUCCESS, i, 0);
    }
    for (int i = 0; i < NT; i++) CHECK(mpitev_type_declare(&types[i], &type_desc[i]) == MPITEV_SUCCESS, i, 0);
}

/* ---- The model of the tool's registrations. ---- */
enum { MAXR = 48 };
typedef struct mreg {
    MPI_T_event_registration h;
    int used, type, obj;          /* obj: comm index for the bound type */
    int state;                    /* 0 live, 1 freed by the tool, 2 freed by mpitev */
    int has_cb[4];
    int has_dropped, exact;
    int free_cb_expected, free_cb_runs, free_cb_optional;
    long raised, delivered, dropped;
} mreg;
static mreg regs[MAXR];
static int nregs;
static int depth;                 /* callback nesting of the fuzzer's own ops */
static int in_final;              /* inside the last mpitev_finalize */
static int mpi_ref;               /* the MPI's own mpitev references (0 or 1) */

/* Would an mpitev_finalize now be the last one (nobody else holds a reference)? */
static int fz_last_ref(void) { return mpi_ref + fz_t_refcount <= 1; }

static mreg *by_handle(MPI_T_event_registration h) {
    for (int i = 0; i < nregs; i++)
        if (regs[i].used && regs[i].h == h) return &regs[i];
    return NULL;
}
static int listening(const mreg *r) {
    return r->state == 0 && (r->has_cb[0] | r->has_cb[1] | r->has_cb[2] | r->has_cb[3]);
}

static int is_mpit_rc(int rc) { return rc == MPI_SUCCESS || (rc >= MPI_T_ERR_MEMORY && rc <= MPI_T_ERR_NOT_SUPPORTED) || rc == 111; }
#define RC(expr) fz_rc((expr), __LINE__)
static int fz_rc(int rc, int line) {
    if (!is_mpit_rc(rc)) fz_fail("unexpected return code", rc, line);
    return rc;
}
/* For calls with valid arguments while the tool's MPI_T is initialised. */
static int fz_t_finalizing;
static void valid_rc(int rc, int line) {
    /* While the last MPI_T_finalize ends every registration (tool code runs inside it),
     * a handle the model thinks live may just have been freed by mpitev. */
    if (fz_t_finalizing) return;
    if (rc != MPI_SUCCESS && rc != MPI_T_ERR_MEMORY) fz_fail("valid call failed", rc, line);
}

static const MPI_T_cb_safety levels[4] = { MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED,
                                           MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE };

static void run_ops(int budget);

/* Accounting at the end of a registration (free callback, or the last finalize). */
static void check_account(const mreg *r) {
#ifdef FUZZ_STANDALONE
    if (getenv("FUZZ_TRACE"))
        fprintf(stderr, "reg %d: raised %ld delivered %ld dropped %ld exact %d\n", (int)(r - regs), r->raised,
                r->delivered, r->dropped, r->exact);
#endif
    CHECK(r->delivered + r->dropped <= r->raised, r->delivered + r->dropped, r->raised);
    if (r->exact) CHECK(r->delivered + r->dropped == r->raised, r->delivered + r->dropped, r->raised);
}

/* ---- Tool callbacks. ---- */
static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s, void *ud) {
    mreg *r = by_handle(h);
    CHECK(r != NULL && ud == r, 0, 0);
    CHECK(r->state == 0, r->state, 0); /* never after the free */
    CHECK(s >= MPI_T_CB_REQUIRE_NONE && s <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, s, 0);
    r->delivered++;
    TRACE("  event -> reg %d at level %d (depth %d)\n", (int)(r - regs), (int)s, depth);
    unsigned char buf[256];
    MPI_Count ts;
    int src = -1;
    /* While the tool's MPI_T is initialised the accessors work (after its last
     * MPI_T_finalize they return MPI_T_ERR_NOT_INITIALIZED: issue 14, item 3). */
    int rc = RC(MPI_T_event_get_source(inst, &src));
    if (fz_t_refcount > 0) CHECK(rc == MPI_SUCCESS && src >= 0 && src < NS, rc, src);
    rc = RC(MPI_T_event_get_timestamp(inst, &ts));
    if (fz_t_refcount > 0) CHECK(rc == MPI_SUCCESS || (rc == MPI_T_ERR_NOT_SUPPORTED && src == 2), rc, src);
    (void)RC(MPI_T_event_copy(inst, buf));
    (void)RC(MPI_T_event_read(inst, fz_int(), buf));
    (void)RC(MPI_T_event_read(inst, 0, NULL));
    /* A random instance handle (0x1000, or a value made from this delivery's count, not
     * from the input, so every committed input keeps its meaning) is refused, never read. */
    uint64_t junk = r->delivered % 2 ? 0x1000u : 0x9e3779b97f4a7c15ull * (uint64_t)r->delivered ^ (uint64_t)(r - regs);
    if ((MPI_T_event_instance)(uintptr_t)junk != inst) {
        rc = RC(MPI_T_event_read((MPI_T_event_instance)(uintptr_t)junk, 0, buf));
        CHECK(rc == MPI_T_ERR_INVALID_HANDLE || (fz_t_refcount == 0 && rc == MPI_T_ERR_NOT_INITIALIZED), rc, 0);
    }
    if (depth < 3) { depth++; run_ops((int)(fz_byte() % 4)); depth--; }
}
static void on_dropped(MPI_Count n, MPI_T_event_registration h, int si, MPI_T_cb_safety s, void *ud) {
    mreg *r = by_handle(h);
    CHECK(r != NULL && (ud == NULL || ud == r), 0, 0);
    CHECK(r->free_cb_runs == 0, r->state, r->free_cb_runs); /* never after free_cb */
    CHECK(n > 0 && si >= 0 && si < NS, n, si);
    (void)s;
    /* Drops are reported at the free too, also when mpitev itself frees (the last
     * MPI_T_finalize): from here on the registration is gone for the model as well. */
    mpitev_reg nr = { (uint64_t)(uintptr_t)h };
    if (r->state == 0 && mpitev_reg_check(nr) != MPITEV_SUCCESS) r->state = 2;
    r->dropped += n;
    TRACE("  dropped %lld on source %d -> reg %d (state %d)\n", (long long)n, si, (int)(r - regs), r->state);
    if (depth < 3) { depth++; run_ops((int)(fz_byte() % 3)); depth--; }
}
static void on_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *ud) {
    mreg *r = (mreg *)ud;
    (void)s;
    CHECK(r >= regs && r < regs + MAXR && r->h == h, 0, 0);
    CHECK(r->state == 1 && r->free_cb_expected, r->state, r->free_cb_expected);
    CHECK(r->free_cb_runs == 0, r->free_cb_runs, 0); /* exactly once */
    r->free_cb_runs++;
    TRACE("  free callback of reg %d\n", (int)(r - regs));
    check_account(r);
    if (depth < 3) { depth++; run_ops((int)(fz_byte() % 3)); depth--; }
}

/* ---- Operations. ---- */
enum {
    OP_EVENT_GET_NUM, OP_EVENT_GET_INFO, OP_EVENT_GET_INDEX, OP_SOURCE_QUERY, OP_ALLOC, OP_FREE,
    OP_REGISTER, OP_SET_INFO, OP_GET_INFO, OP_SET_DROPPED, OP_RAISE, OP_DRAIN, OP_PROGRESS,
    OP_T_CYCLE, OP_FAIL, OP_FULL_CYCLE, OP_NATIVE_QUERY, OP_BAD_DECLARE, OP_RAISE_BURST, OP_CATEGORY,
    OP_MPI_CYCLE, OP_COUNT,
    /* Not in the modulo (it would change what every committed input means): one byte
     * value of its own. */
    OP_RAISE_RUN = OP_COUNT, OP_BYTE_RAISE_RUN = 0xfb
};

static MPI_T_event_registration pick_handle(void) {
    unsigned b = fz_byte();
    if (b < 200 && nregs > 0) return regs[b % nregs].h; /* live or stale */
    if (b < 220) return (MPI_T_event_registration)NULL;
    uintptr_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | fz_byte();
    return (MPI_T_event_registration)v;
}

static MPI_Info make_info(void) {
    unsigned b = fz_byte() % 6;
    if (b == 0) return MPI_INFO_NULL;
    MPI_Info info;
    if (PMPI_Info_create(&info) != MPI_SUCCESS) return MPI_INFO_NULL;
    static const char *const vals[] = { "true", "false", "default", "1", "0", "bogus" };
    for (unsigned i = 0; i < b; i++) {
        unsigned k = fz_byte();
        if (k % 3 == 0) (void)PMPI_Info_set(info, "mpitev_buffered", vals[k / 3 % 6]);
        else {
            char key[8];
            snprintf(key, sizeof key, "k%u", k % 7);
            (void)PMPI_Info_set(info, key, vals[k % 6]);
        }
    }
    return info;
}

static void op_event_get_info(void) {
    int idx = fz_int();
    char name[16], desc[16];
    int name_len = fz_int(), desc_len = fz_int(), verb, bind, num = fz_int();
    MPI_Datatype dt[8];
    MPI_Aint disp[8];
    MPI_T_enum en;
    MPI_Info info = MPI_INFO_NULL;
    unsigned m = fz_byte();
    if (num > 8) num = 8;
    int rc = RC(MPI_T_event_get_info(idx, (m & 1) ? name : NULL, (m & 2) ? &name_len : NULL, (m & 4) ? &verb : NULL,
                                     (m & 8) ? dt : NULL, (m & 8) ? disp : NULL, (m & 16) ? &num : NULL,
                                     (m & 32) ? &en : NULL, (m & 64) ? &info : NULL, (m & 128) ? desc : NULL,
                                     (m & 128) ? &desc_len : NULL, (m & 1) ? &bind : NULL));
    if (rc == MPI_SUCCESS && (m & 64) && info != MPI_INFO_NULL) PMPI_Info_free(&info);
}

static void op_source_query(void) {
    int idx = fz_int();
    unsigned m = fz_byte();
    char name[16], desc[16];
    int name_len = fz_int(), desc_len = fz_int(), n;
    MPI_T_source_order ord;
    MPI_Count tps, maxt, ts;
    MPI_Info info = MPI_INFO_NULL;
    (void)RC(MPI_T_source_get_num((m & 1) ? &n : NULL));
    int rc = RC(MPI_T_source_get_info(idx, (m & 2) ? name : NULL, (m & 4) ? &name_len : NULL, (m & 8) ? desc : NULL,
                                      (m & 16) ? &desc_len : NULL, (m & 32) ? &ord : NULL, &tps, &maxt,
                                      (m & 64) ? &info : NULL));
    if (rc == MPI_SUCCESS && (m & 64) && info != MPI_INFO_NULL) PMPI_Info_free(&info);
    (void)RC(MPI_T_source_get_timestamp(idx, (m & 128) ? &ts : NULL));
}

static void op_alloc(void) {
    int t = fz_int();
    unsigned m = fz_byte();
    int obj = (int)(m >> 4) % 2;
    MPI_Comm comm = &comms[obj];
    MPI_Info info = make_info();
    MPI_T_event_registration h;
    int valid = t >= 0 && t < NT && !(m & 1) && !(m & 2) && fz_t_refcount > 0;
    /* m & 4: the communicator passed by value, as tools written for an MPI whose
     * MPI_Comm is a pointer do (issue 14, item 1): an error or a registration that never
     * matches, never a crash. */
    void *obj_handle = (m & 1) ? NULL : (m & 4) ? (void *)comm : (void *)&comm;
    int rc = RC(MPI_T_event_handle_alloc(t, obj_handle, info, (m & 2) ? NULL : &h));
    TRACE("alloc type %d m %#x: rc %d -> reg %d\n", t, m, rc, rc == MPI_SUCCESS && nregs < MAXR ? nregs : -1);
    if (m & 4) valid = 0;
    if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
    if (valid && !info_fail) valid_rc(rc, __LINE__);
    if (rc != MPI_SUCCESS) return;
    CHECK(t >= 0 && t < NT && !(m & 2), t, m);
    CHECK(by_handle(h) == NULL, 0, 0); /* handles are never reused while known */
    if (nregs == MAXR) { /* the model is full (entries are user data: never moved) */
        (void)RC(MPI_T_event_handle_free(h, NULL, NULL));
        return;
    }
    mreg *r = &regs[nregs++];
    memset(r, 0, sizeof *r);
    r->h = h;
    r->used = 1;
    r->type = t;
    r->obj = (m & 4) && t == 1 ? 2 : obj; /* 2: matches no raise */
    r->exact = 1;
}

static void op_free(void) {
    MPI_T_event_registration h = pick_handle();
    unsigned m = fz_byte();
    mreg *r = by_handle(h);
    int live = r && r->state == 0;
    /* The free callback may run inside the call (the grace period may already be over):
     * the model takes the free first and undoes it if the call fails. */
    if (live) { r->state = 1; r->free_cb_expected = (m & 1) != 0; }
    int rc = RC(MPI_T_event_handle_free(h, r, (m & 1) ? on_free : NULL));
    TRACE("free reg %d%s: rc %d\n", r ? (int)(r - regs) : -1, (m & 1) ? " with callback" : "", rc);
    if (live && fz_t_refcount > 0 && !fz_t_finalizing) CHECK(rc == MPI_SUCCESS, rc, 0); /* a free never fails */
    if (!live) CHECK(rc != MPI_SUCCESS, rc, 0);
    if (rc != MPI_SUCCESS) {
        if (live) { r->state = 0; r->free_cb_expected = 0; CHECK(r->free_cb_runs == 0, 0, 0); }
        return;
    }
    /* Freed by tool code while a raise may be delivering: that raise skips it without
     * counting (no longer active), though the model counted it. */
    if (depth > 0) r->exact = 0;
}

static void op_register(void) {
    MPI_T_event_registration h = pick_handle();
    unsigned m = fz_byte();
    int lv = (int)(m % 5); /* 4: an invalid level */
    MPI_T_cb_safety s = lv < 4 ? levels[lv] : (MPI_T_cb_safety)(m & 0x80 ? 7 : 39);
    MPI_Info info = make_info();
    mreg *r = by_handle(h);
    int rc = RC(MPI_T_event_register_callback(h, s, info, r, (m & 8) ? NULL : on_event));
    TRACE("register reg %d level %d %s: rc %d\n", r ? (int)(r - regs) : -1, lv, (m & 8) ? "remove" : "set", rc);
    if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
    if (r && r->state == 0 && lv < 4 && fz_t_refcount > 0 && !info_fail) valid_rc(rc, __LINE__);
    if (rc == MPI_SUCCESS) {
        CHECK(r && r->state == 0 && lv < 4, lv, 0);
        r->has_cb[lv] = !(m & 8);
        if (depth > 0) r->exact = 0; /* as for a free: a raise in progress may skip it */
    }
}

static void op_set_info(void) {
    MPI_T_event_registration h = pick_handle();
    unsigned m = fz_byte();
    MPI_Info info = make_info();
    if (m & 1) (void)RC(MPI_T_event_handle_set_info(h, info));
    else (void)RC(MPI_T_event_callback_set_info(h, levels[m / 2 % 4], info));
    if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
}

static void op_get_info(void) {
    MPI_T_event_registration h = pick_handle();
    unsigned m = fz_byte();
    MPI_Info info = MPI_INFO_NULL;
    int rc = (m & 1) ? RC(MPI_T_event_handle_get_info(h, (m & 2) ? NULL : &info))
                     : RC(MPI_T_event_callback_get_info(h, (m & 4) ? (MPI_T_cb_safety)3 : levels[m / 8 % 4],
                                                        (m & 2) ? NULL : &info));
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) PMPI_Info_free(&info);
}

static void op_set_dropped(void) {
    MPI_T_event_registration h = pick_handle();
    unsigned m = fz_byte();
    mreg *r = by_handle(h);
    int rc = RC(MPI_T_event_set_dropped_handler(h, (m & 1) ? NULL : on_dropped));
    TRACE("dropped handler of reg %d %s: rc %d\n", r ? (int)(r - regs) : -1, (m & 1) ? "off" : "on", rc);
    if (r && r->state == 0 && fz_t_refcount > 0) valid_rc(rc, __LINE__);
    if (rc != MPI_SUCCESS) return;
    CHECK(r && r->state == 0, 0, 0);
    if (m & 1) {
        if (r->raised > r->delivered + r->dropped) r->exact = 0; /* unreported drops forgotten */
        r->has_dropped = 0;
    } else {
        r->has_dropped = 1;
    }
}

/* Raise one instance; the model counts it for every registration listening. */
static void fz_resync(void);
static void fz_count_raise(int t, int s, int obj, int lv);
#define FZ_RAISE_ONE(RAISE, t, s, obj, lv)                                          \
    do {                                                                            \
        fz_count_raise(t, s, obj, lv);                                              \
        const void *key = MPITEV_ADAPTER_HANDLE_AS_KEY(&comms[obj]);                \
        int cbs = lv; /* the mpitev level of the raise site */                      \
        struct fz_pair p = { 1, 2 };                                                \
        struct fz_big b = { { 1, 2, 3, 4, 5 } };                                    \
        switch (t) {                                                                \
        case 0: RAISE(&types[0], &sources[s], NULL, cbs, &p); break;                \
        case 1: RAISE(&types[1], &sources[s], key, cbs, &p); break;                 \
        case 2: RAISE(&types[2], &sources[s], NULL, cbs, NULL); break;              \
        case 3: RAISE(&types[3], &sources[s], NULL, cbs, &b); break;                \
        default: RAISE(&types[4], &sources[s], NULL, cbs, &p); break;               \
        }                                                                           \
    } while (0)
static void fz_raise(int t, int s, int obj, int lv) { FZ_RAISE_ONE(MPITEV_RAISE, t, s, obj, lv); }
static void fz_count_raise(int t, int s, int obj, int lv) {
    (void)s, (void)lv; /* (traced) */
    /* While the last MPI_T_finalize ends every registration, tool code it runs (a drop
     * report, a free callback) may raise after mpitev freed registrations the model still
     * thinks live (nothing tells the tool about a free without callback): not raised to
     * them. Found by the long runs (corpus: reentry_raise_in_free_all). */
    if (fz_t_finalizing) fz_resync();
    TRACE("raise type %d source %d obj %d level %d, counted for regs", t, s, obj, lv);
    for (int i = 0; i < nregs; i++) {
        mreg *r = &regs[i];
        if (!r->used || r->type != t || !listening(r)) continue;
        if (t == 1 && r->obj != obj) continue;
        TRACE(" %d", i);
        r->raised++;
        if (!r->has_dropped) r->exact = 0; /* a drop now would not be counted */
    }
    TRACE("\n");
}
static void op_raise(void) {
    unsigned m = fz_byte();
    fz_raise((int)(m % NT), (int)(m / NT % NS), (int)(m / 15 % 2), (int)(fz_byte() % 4));
}
static void op_raise_burst(void) {
    unsigned m = fz_byte(), n = fz_byte() % 24;
    for (unsigned i = 0; i < n; i++) fz_raise((int)(m % NT), (int)(m / NT % NS), 0, (int)((m >> 5) % 4));
}
/* A run of up to 15 raises on one source, of any type, object and level (each one byte:
 * type, object, level), as an MPI raises several events in one call. Tool callbacks the
 * raises run (immediate delivery) run further operations, as for any raise. (The
 * opcode and its bytes are those of the raise sections' operation, which issue 39
 * removed: the corpus keeps its meaning.) */
static void op_raise_run(void) {
    unsigned m = fz_byte(), n = m / NS % 16;
    int s = (int)(m % NS);
    TRACE("raise run on source %d: %u raises\n", s, n);
    for (unsigned i = 0; i < n; i++) {
        unsigned r = fz_byte();
        fz_raise((int)(r % NT), s, (int)(r / NT % 2), (int)(r / (2 * NT) % 4));
    }
}

static unsigned due_polls; /* the paced drain's due polls in this input */
static void op_drain(void) {
    unsigned m = fz_byte();
    int max = (m & 0x80) ? MPITEV_DRAIN_ALL : (int)(m % 5);
    int lv = (int)(m / 8 % 5);
    int n;
    /* All records, no count wanted, a valid level: one of the progress engine's forms
     * instead, picked by the next byte (MPITEV_DRAIN, or a paced drain as an MPI may
     * write it: the due check, then mpitev_source_drain at every fourth due poll, whose
     * polls leave records for a later drain: the accounts must still balance). */
    unsigned form = (m & 0xC0) == 0xC0 && lv < 4 ? fz_byte() % 3 : 0;
    TRACE("drain source %u max %d level %d form %u\n", m % NS, max, lv, form);
    if (form == 1) {
        MPITEV_DRAIN(&sources[m % NS], MPITEV_DRAIN_ALL, lv);
        return;
    }
    if (form == 2) {
        if (MPITEV_DRAIN_DUE(&sources[m % NS]) && due_polls++ % 4 == 0)
            (void)mpitev_source_drain(&sources[m % NS], MPITEV_DRAIN_ALL, lv, NULL);
        return;
    }
    int rc = mpitev_source_drain(&sources[m % NS], max, lv < 4 ? lv : 9, (m & 0x40) ? NULL : &n);
    CHECK(rc == MPITEV_SUCCESS || rc == MPITEV_ERR_NOT_INITIALIZED || (rc == MPITEV_ERR_INVALID_ARG && lv == 4), rc, lv);
}

/* What the model learns from mpitev after something may have freed registrations on its
 * own (the last finalize): a handle that is no longer valid was freed. */
static void fz_resync(void) {
    for (int i = 0; i < nregs; i++) {
        mreg *r = &regs[i];
        if (!r->used || r->state != 0) continue;
        mpitev_reg nr = { (uint64_t)(uintptr_t)r->h };
        if (mpitev_reg_check(nr) != MPITEV_SUCCESS) r->state = 2;
    }
}

/* The fake MPI's MPI_T_init_thread / MPI_T_finalize: reference counted, each calling
 * mpitev_init / mpitev_finalize as the toy MPI does; the last MPI_T_finalize first ends
 * every registration while MPI_T is still initialised (docs/adapter-guide.md, section
 * 10). Tool code it runs may call MPI_T_finalize again: refused while finalizing. */
int PMPI_T_init_thread(int required, int *provided) {
    if (provided) *provided = required;
    fz_t_refcount++;
    TRACE("MPI_T_init_thread: tool refcount %d, MPI %d (depth %d)\n", fz_t_refcount, mpi_ref, depth);
    return mpitev_init() == MPITEV_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
}
static void fz_t_left(void);
static void fz_t_held_back(void);
int PMPI_T_finalize(void) {
    if (fz_t_refcount == 0 || fz_t_finalizing) return MPI_T_ERR_NOT_INITIALIZED;
    int last = fz_last_ref(), was = in_final;
    TRACE("MPI_T_finalize: tool refcount %d, MPI %d, last %d (depth %d)\n", fz_t_refcount, mpi_ref, last, depth);
    if (fz_t_refcount == 1) {
        /* Ending every registration from inside tool code: a raise or drain up the
         * stack may have counted an instance for a registration that is gone before its
         * delivery (skipped, as after any free during a raise), and what it holds back is
         * finished later, unreported (adapter guide, 10): no exact account then. */
        if (depth > 0) fz_t_held_back();
        fz_t_finalizing = 1;
        (void)mpitev_adapter_t_finalize(mpi_ref ? MPITEV_CB_REQUIRE_NONE : MPITEV_CB_REQUIRE_MPI_RESTRICTED);
        fz_t_finalizing = 0;
    }
    fz_t_refcount--;
    if (fz_t_refcount == 0) fz_t_left();
    if (last) in_final = 1; /* its drain runs tool code: see op_t_cycle */
    int rc = mpitev_finalize() == MPITEV_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
    in_final = was;
    return rc;
}

/* The tool's last MPI_T_finalize has returned (or is returning): every registration was
 * ended while MPI_T was initialised; what a callback held back (a free whose callback
 * is still pending) is not reported to a tool that has left. */
static void fz_t_left(void) {
#ifdef FUZZ_STANDALONE
    if (getenv("FUZZ_TRACE")) fprintf(stderr, "tool left at depth %d (byte %zu)\n", depth, in_i);
#endif
    for (int i = 0; i < nregs; i++) {
        mreg *r = &regs[i];
        /* Called from tool code (a callback up the stack still runs): the frames up the
         * stack finish their work later, unreported to the tool (adapter guide, 10). */
        if (depth > 0 && r->used) {
            r->exact = 0;
            if (r->free_cb_expected && !r->free_cb_runs) r->free_cb_optional = 1;
        }
        if (r->used && r->state == 1 && r->free_cb_expected && !r->free_cb_runs) {
            r->free_cb_optional = 1;
            r->exact = 0;
        }
    }
}

static void fz_t_held_back(void) {
    for (int i = 0; i < nregs; i++) {
        mreg *r = &regs[i];
        if (!r->used) continue;
        r->exact = 0;
        if (r->free_cb_expected && !r->free_cb_runs) r->free_cb_optional = 1;
    }
}

static void fz_t_init(void) {
    int prov;
    CHECK(PMPI_T_init_thread(0, &prov) == MPI_SUCCESS, 0, 0);
}
static void fz_t_finalize(void) { (void)PMPI_T_finalize(); }

/* The last finalize of everything: the MPI's reference and the tool's. */
static void fz_full_finalize(void) {
    in_final = 1;
    while (fz_t_refcount > 0) CHECK(PMPI_T_finalize() == MPI_SUCCESS, fz_t_refcount, 0);
    if (mpi_ref) { mpi_ref = 0; CHECK(mpitev_finalize() == MPITEV_SUCCESS, 0, 0); }
    in_final = 0;
    int f = 1;
    mpitev_initialized(&f);
    CHECK(f == 0, f, 0);
    for (int i = 0; i < nregs; i++) {
        mreg *r = &regs[i];
        if (!r->used) continue;
        if (r->state == 0) r->state = 2; /* freed by finalize, without callback */
        if (r->state == 1 && !r->free_cb_optional)
            CHECK(r->free_cb_runs == (r->free_cb_expected ? 1 : 0), r->free_cb_runs, r->free_cb_expected);
        /* A registration the tool still held when finalize freed it: its leftover drops
         * were reported by that free; the same account holds. */
        check_account(r);
    }
}
static void fz_mpi_init(void) {
    CHECK(mpitev_init() == MPITEV_SUCCESS, 0, 0);
    mpi_ref = 1;
    fz_declare(); /* equal re-declaration: a no-op that allocates nothing */
}


static void op_t_cycle(void) {
    unsigned m = fz_byte();
    if (in_final) return;
    if (m & 1) { /* a finalize/init pair */
        fz_t_finalize();
        fz_resync();
        fz_t_init();
    } else if ((m & 2) && fz_t_refcount < 4) {
        fz_t_init();
    } else if ((m & 4) && fz_t_refcount > 0) {
        /* The tool's last MPI_T_finalize while MPI goes on (issue 14, item 3): its
         * registrations may then get callbacks in which MPI_T calls fail. */
        while (fz_t_refcount > 0 && !(depth > 0 && fz_last_ref()) && PMPI_T_finalize() == MPI_SUCCESS) continue;
        fz_resync();
    } else if (fz_t_refcount > 1) {
        fz_t_finalize();
    }
}

/* MPI_Finalize / MPI_Init at top level: the MPI's own reference. With the tool's
 * MPI_T still initialised, mpitev stays up; else this is the last finalize. */
static void op_mpi_cycle(void) {
    if (depth > 0 || in_final) return;
    TRACE("MPI_%s (tool refcount %d)\n", mpi_ref ? "Finalize" : "Init", fz_t_refcount);
    if (mpi_ref) {
        int last = fz_last_ref();
        if (last) in_final = 1;
        mpi_ref = 0;
        CHECK(mpitev_finalize() == MPITEV_SUCCESS, 0, 0);
        in_final = 0;
        if (last) { /* as after the full cycle */
            for (int i = 0; i < nregs; i++) {
                mreg *r = &regs[i];
                if (r->used && r->state == 0) r->state = 2;
                if (r->used && r->state == 1 && !r->free_cb_optional)
                    CHECK(r->free_cb_runs == (r->free_cb_expected ? 1 : 0), r->free_cb_runs, r->free_cb_expected);
            }
        }
        fz_resync();
    } else {
        fz_mpi_init();
    }
}

static void op_fail(void) {
    unsigned m = fz_byte();
    switch (m % 5) {
    case 0: fa_ok(); info_fail = 0; break;
    case 1: fa_fail_nth((long)(fz_byte() % 8)); break;
    case 2: fa_fail_from_now(); break;
    case 3: info_fail = !info_fail; break;
    default: fa_ok(); break;
    }
}

static void op_full_cycle(void) {
    if (depth > 0 || in_final) return; /* only the MPI's own control flow finalizes */
    fz_full_finalize();
    fz_mpi_init();
    fz_t_init();
}

static int visit_nothing(const char *k, const char *v, void *ctx) { (void)k; (void)v; return ++*(int *)ctx > 3; }
static void op_native_query(void) {
    unsigned m = fz_byte();
    int idx = fz_int(), n;
    mpitev_type_info ti;
    mpitev_source_info si;
    const char *name;
    int ind[4];
    int64_t ts;
    int cnt = 0;
    switch (m % 8) {
    case 0: (void)mpitev_type_get_info(idx, (m & 8) ? NULL : &ti); break;
    case 1: (void)mpitev_source_get_info(idx, (m & 8) ? NULL : &si); break;
    case 2: (void)mpitev_category_get_name(idx, (m & 8) ? NULL : &name); break;
    case 3: { /* len: the array's size at most (a larger one would be the caller's overflow) */
        int len = fz_int();
        (void)mpitev_category_get_events(idx, len > 4 ? 4 : len, (m & 8) ? NULL : ind, (m & 16) ? NULL : &n);
        break;
    }
    case 4: (void)mpitev_type_get_default_info(idx, (m & 8) ? NULL : visit_nothing, &cnt); break;
    case 5: (void)mpitev_source_get_timestamp(idx, (m & 8) ? NULL : &ts); break;
    case 6: (void)mpitev_type_get_index((m & 8) ? NULL : (m & 16) ? "fz_comm" : "nope", &n); break;
    default: {
        mpitev_reg nr = { (uint64_t)(uintptr_t)pick_handle() };
        (void)mpitev_reg_get_type(nr, (m & 8) ? NULL : &n);
        (void)mpitev_reg_check(nr);
    }
    }
}

static void op_bad_declare(void) {
    unsigned m = fz_byte();
    static mpitev_type t_extra;
    static mpitev_source s_extra;
    mpitev_type_desc td = type_desc[m % NT];
    mpitev_source_desc sd = source_desc[m % NS];
    switch (m / 8 % 4) { /* something invalid in each: the call must fail */
    case 0: td.name = NULL; sd.name = NULL; break;
    case 1: td.num_elements = -1; sd.buffer_capacity = 1u << 30; break;
    case 2: td.payload_size = 3; sd.name = ""; break;
    default: /* same name, another descriptor: an existing object or a new one */
        td.desc = "another description";
        sd.buffer_record_size = 1u << 20;
        break;
    }
    int rc = (m & 4) ? mpitev_source_declare((m & 2) ? &sources[m % NS] : &s_extra, &sd)
                     : mpitev_type_declare((m & 2) ? &types[m % NT] : &t_extra, &td);
    CHECK(rc != MPITEV_SUCCESS, rc, m);
}

static void op_category(void) {
    int n, ind[4];
    (void)mpitev_adapter_category_num_events((fz_byte() & 1) ? "fz_p2p" : NULL, &n);
    (void)mpitev_adapter_category_events("fz_p2p", fz_int() % 5, ind, NULL);
}

static void run_ops(int budget) {
    for (int k = 0; k < budget && fz_more(); k++) {
        unsigned op = fz_byte();
        op = op == OP_BYTE_RAISE_RUN ? (unsigned)OP_RAISE_RUN : op % OP_COUNT;
#ifdef FUZZ_STANDALONE
        if (getenv("FUZZ_TRACE")) fprintf(stderr, "op %u at byte %zu, depth %d\n", op, in_i - 1, depth);
#endif
        /* Every operation may run anywhere, inside the last finalize too (its drains,
         * drop reports and free callbacks run tool code): issue 14, items 5-7. */
        switch (op) {
        case OP_EVENT_GET_NUM: { int n; (void)RC(MPI_T_event_get_num((fz_byte() & 1) ? NULL : &n)); break; }
        case OP_EVENT_GET_INFO: op_event_get_info(); break;
        case OP_EVENT_GET_INDEX: { int n; static const char *const nm[] = { "fz_pair", "fz_comm", "x", "" };
            unsigned b = fz_byte(); (void)RC(MPI_T_event_get_index((b & 4) ? NULL : nm[b % 4], (b & 8) ? NULL : &n)); break; }
        case OP_SOURCE_QUERY: op_source_query(); break;
        case OP_ALLOC: op_alloc(); break;
        case OP_FREE: op_free(); break;
        case OP_REGISTER: op_register(); break;
        case OP_SET_INFO: op_set_info(); break;
        case OP_GET_INFO: op_get_info(); break;
        case OP_SET_DROPPED: op_set_dropped(); break;
        case OP_RAISE: op_raise(); break;
        case OP_DRAIN: op_drain(); break;
        case OP_PROGRESS: { int n; TRACE("progress\n"); (void)mpitev_progress((int)(fz_byte() % 4), &n); break; }
        case OP_T_CYCLE: op_t_cycle(); break;
        case OP_FAIL: op_fail(); break;
        case OP_FULL_CYCLE: op_full_cycle(); break;
        case OP_NATIVE_QUERY: op_native_query(); break;
        case OP_BAD_DECLARE: op_bad_declare(); break;
        case OP_RAISE_BURST: op_raise_burst(); break;
        case OP_CATEGORY: op_category(); break;
        case OP_RAISE_RUN: op_raise_run(); break;
        default: op_mpi_cycle(); break;
        }
    }
}

static long live_decl = -1; /* blocks the declarations keep for the process */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int once;
    if (!once) {
        once = 1;
        if (fa_install() != MPITEV_SUCCESS) abort();
    }
    in_p = data;
    in_n = size;
    in_i = 0;
    nregs = 0;
    depth = 0;
    info_fail = 0;
    due_polls = 0;
    fa_ok();
    fz_mpi_init();
    if (live_decl < 0) live_decl = fa.live;
    fz_t_init();
    run_ops(1 << 30);
    fz_full_finalize();
    fa_ok();
    info_fail = 0;
    CHECK(fa.errors == 0, fa.errors, 0);
    CHECK(fa.live == live_decl, fa.live, live_decl); /* nothing leaked */
    CHECK(info_live == 0, info_live, 0);
    return 0;
}

#ifdef FUZZ_STANDALONE
/* Replayer: run each file named on the command line (directories: each file in them). */
#include <dirent.h>
static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 1;
}
int main(int argc, char **argv) {
    int n = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) { n += run_file(argv[i]); continue; }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            n += run_file(p);
        }
        closedir(d);
    }
    printf("fuzz_api: %d inputs replayed, no violation\n", n);
    return n > 0 ? 0 : 1;
}
#endif
