/* Allocation-failure injection over a full scenario (issue 14): an MPI built on mpitev
 * (the adapter over the fake test mpi.h, as tests/fuzz/fuzz_api.c builds it) and its
 * tools, through the implementor's API and the standard MPI_T API:
 *  - declarations: sources (ordered, unordered), types with enums and categories (fresh
 *    ones for the runs that fail a declaration's allocation; fail_declarations does
 *    sources, which are few per process);
 *  - native registrations with hints, callbacks at every level, dropped handlers, hint
 *    changes, callback removal, frees with free callbacks;
 *  - the 18 standard entry points: queries (event and source info with their MPI_Info,
 *    categories), MPI_T_event_handle_alloc with several info keys (bound and unbound
 *    types), callbacks at every level with info, MPI_T_event_handle/callback_set_info and
 *    _get_info, dropped handlers set and reset, the instance accessors in callbacks,
 *    MPI_T_event_handle_free with free callbacks, the last MPI_T_finalize ending the
 *    rest, MPI_T re-initialised for a second tool session;
 *  - buffered and immediate raises on the ordered and unordered sources (with full-ring
 *    drops), drains, progress, finalize, and a second mpitev session.
 * Every allocation goes through the failing allocator (mpitev's, the adapter's scratch
 * memory, the fake MPI's MPI_Info objects). For every k the k-th allocation of the
 * scenario fails (once), then for every k every allocation from the k-th on. Each time:
 * every call succeeds or returns the out-of-memory code (a free always succeeds), each
 * registration's account is exact (delivered + reported dropped = raised, whenever a
 * dropped handler was set at every raise to it), free callbacks run exactly once per
 * free that gave one, nothing leaks (the allocator counts every block; the asan suite
 * adds LSan), and a clean run of the full scenario afterwards works exactly.
 *
 * FI_STRIDE=n in the environment (or argv[1]) tries every n-th k only: the full sweep
 * runs in the default and asan suites, a strided one under TSan and clang
 * (tests/faultinj/CMakeLists.txt). The number of failure points is printed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

static int fi_t_refcount;
#define MPITEV_ADAPTER_T_INITIALIZED() (fi_t_refcount > 0)
#define MPITEV_ADAPTER_NO_WEAK 1
static void *fa_malloc(size_t size);
static void fa_mfree(void *p);
#define MPITEV_ADAPTER_MALLOC(n) fa_malloc(n)
#define MPITEV_ADAPTER_FREE(p) fa_mfree(p)
#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

#include "../core/core_test.h"
#include "failalloc.h"
#include "fi_fakempi.h"

/* ---- The MPI's events: two sources for the process, four fresh types per run. ---- */
static mpitev_source src_o, src_u;
static const mpitev_enum_item items[] = { { "a", 0 }, { "b", 1 } };
static const mpitev_enum en = { "fk_pair_elements", 2, items };
enum { T_PAIR, T_COMM, T_MARK, T_FORCED, NT };
typedef struct fi_types {
    mpitev_type t[NT];
    char name[NT][32];
} fi_types;
static fi_types *ty;        /* this run's; every run's kept for the process (declared) */
static fi_types **all_types;
static size_t n_types, cap_types;
static struct fakempi_comm { int64_t id; } comm_obj = { 7 };
static MPI_Comm the_comm = &comm_obj;

static long nomem, bad;
/* A call with valid arguments: SUCCESS or NO_MEM, anything else is counted as bad. */
static int call(int rc) {
    if (rc == MPITEV_ERR_NO_MEM) nomem++;
    else if (rc != MPITEV_SUCCESS) bad++;
    return rc;
}
static int mcall(int rc) { /* the same for the standard API */
    if (rc == MPI_T_ERR_MEMORY) nomem++;
    else if (rc != MPI_SUCCESS) bad++;
    return rc;
}

static void new_types(void) {
    if (n_types == cap_types) {
        cap_types = cap_types ? 2 * cap_types : 256;
        all_types = (fi_types **)realloc(all_types, cap_types * sizeof *all_types);
        if (!all_types) abort();
    }
    ty = (fi_types *)calloc(1, sizeof *ty);
    if (!ty) abort();
    all_types[n_types] = ty;
    static const char *const base[NT] = { "fk_pair", "fk_comm", "fk_mark", "fk_forced" };
    for (int i = 0; i < NT; i++) snprintf(ty->name[i], sizeof ty->name[i], "%s_%zu", base[i], n_types);
    n_types++;
}
static int declared(int t) {
    int idx;
    return mpitev_type_index_of(&ty->t[t], &idx) == MPITEV_SUCCESS;
}
static void declare(void) {
    mpitev_source_desc so = src_desc("fk_ordered", MPITEV_SOURCE_ORDERED, NULL);
    so.buffer_capacity = 4; /* a full ring within the scenario */
    mpitev_source_desc su = src_desc("fk_unordered", MPITEV_SOURCE_UNORDERED, NULL);
    su.buffered_by_default = 1;
    (void)call(mpitev_source_declare(&src_o, &so));
    (void)call(mpitev_source_declare(&src_u, &su));
    mpitev_type_desc d[NT];
    d[T_PAIR] = pair_desc(ty->name[T_PAIR], MPITEV_BIND_NO_OBJECT);
    d[T_PAIR].category = "fk_cat";
    d[T_PAIR].enumtype = &en;
    d[T_COMM] = pair_desc(ty->name[T_COMM], MPITEV_BIND_MPI_COMM);
    d[T_COMM].category = "fk_cat";
    d[T_MARK] = (mpitev_type_desc){ .name = ty->name[T_MARK], .category = "fk_other" };
    d[T_FORCED] = pair_desc(ty->name[T_FORCED], MPITEV_BIND_NO_OBJECT);
    d[T_FORCED].flags = MPITEV_TYPE_ALWAYS_BUFFERED;
    for (int i = 0; i < NT; i++) (void)call(mpitev_type_declare(&ty->t[i], &d[i]));
}

/* ---- The model: one account per registration, native or standard. ---- */
typedef struct acct {
    int have, is_mpit, type;
    uint64_t bits;                  /* mpitev_reg.bits, or the MPI_T handle's value */
    int cb[4], listening;
    int has_dropped, exact, freed_with_cb, free_runs;
    long raised, delivered, dropped;
} acct;
enum { ROUNDS = 4, MB = 4, MB2 = MB + 6 * ROUNDS, CH0 = MB2 + 1, NCH = 32, NR = CH0 + NCH }; /* accounts */
static acct ac[NR];

static void on_ev(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s;
    ((acct *)u)->delivered++;
}
static acct *by_bits(uint64_t bits) {
    for (int i = 0; bits && i < NR; i++)
        if (ac[i].bits == bits) return &ac[i];
    return NULL;
}
/* A registration with no callback left gets its drops with NULL user data. */
static void on_drop(mpitev_count_t n, mpitev_reg r, int si, int s, void *u) {
    (void)si; (void)s;
    acct *a = u ? (acct *)u : by_bits(r.bits);
    if (a) a->dropped += n;
    else bad++;
}
static void on_free(mpitev_reg r, int s, void *u) {
    (void)r; (void)s;
    ((acct *)u)->free_runs++;
}
/* The tool's MPI_T callbacks: they read the instance as a tool does (no allocation). */
static void m_ev(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s, void *u) {
    (void)h; (void)s;
    acct *a = (acct *)u;
    a->delivered++;
    struct pair p;
    int src = -1;
    MPI_Count ts;
    if (PMPI_T_event_get_source(inst, &src) != MPI_SUCCESS || PMPI_T_event_get_timestamp(inst, &ts) != MPI_SUCCESS)
        bad++;
    if (a->type != T_MARK &&
        (PMPI_T_event_copy(inst, &p) != MPI_SUCCESS || PMPI_T_event_read(inst, 1, &p.b) != MPI_SUCCESS || p.b != 2))
        bad++;
}
static void m_drop(MPI_Count n, MPI_T_event_registration h, int si, MPI_T_cb_safety s, void *u) {
    (void)si; (void)s; (void)u;
    acct *a = by_bits((uint64_t)(uintptr_t)h);
    if (a) a->dropped += n;
    else bad++;
}
static void m_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *u) {
    (void)h; (void)s;
    ((acct *)u)->free_runs++;
}
static const MPI_T_cb_safety mlevel[4] = { MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED,
                                           MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE };

static void acct_new(int i, int type, int is_mpit) {
    memset(&ac[i], 0, sizeof ac[i]);
    ac[i].type = type;
    ac[i].is_mpit = is_mpit;
    ac[i].exact = 1;
}
static void listening(acct *a) { a->listening = a->cb[0] | a->cb[1] | a->cb[2] | a->cb[3]; }

/* Native registrations (the implementor's own tool code). */
static void reg(int i, int t, const char *mode) {
    mpitev_kv kv[] = { { MPITEV_HINT_BUFFERED, mode }, { "fk_hint", "x" } };
    mpitev_reg r;
    acct_new(i, t, 0);
    if (!declared(t)) return;
    if (call(mpitev_reg_alloc(tindex(&ty->t[t]), t == T_COMM ? (const void *)the_comm : NULL, kv, 2, &r)) ==
        MPITEV_SUCCESS) {
        ac[i].have = 1;
        ac[i].bits = r.bits;
    }
}
static mpitev_reg nreg(int i) { return (mpitev_reg){ ac[i].bits }; }
static void set_cb(int i, int level, int on) {
    if (!ac[i].have) return;
    mpitev_kv kv = { "fk_cb_hint", "y" };
    if (call(mpitev_reg_set_callback(nreg(i), level, on ? on_ev : NULL, &ac[i], &kv, on ? 1 : 0)) != MPITEV_SUCCESS)
        return; /* NO_MEM: nothing changed */
    ac[i].cb[level] = on;
    listening(&ac[i]);
}
static void set_drop(int i, int on) {
    if (!ac[i].have) return;
    if (call(mpitev_reg_set_dropped_handler(nreg(i), on ? on_drop : NULL)) != MPITEV_SUCCESS) return;
    if (!on && ac[i].raised > ac[i].delivered + ac[i].dropped) ac[i].exact = 0;
    ac[i].has_dropped = on;
}
static void free_reg(int i, int with_cb) {
    if (!ac[i].have) return;
    if (mpitev_reg_free(nreg(i), &ac[i], with_cb ? on_free : NULL) != MPITEV_SUCCESS) bad++;
    ac[i].have = ac[i].listening = 0;
    ac[i].freed_with_cb = with_cb;
}

/* Standard-API registrations (a tool). */
static MPI_T_event_registration mh(int i) { return (MPI_T_event_registration)(uintptr_t)ac[i].bits; }
static void m_alloc(int i, int t, const char *const *kv) {
    acct_new(i, t, 1);
    int idx;
    if (!declared(t) || PMPI_T_event_get_index(ty->name[t], &idx) != MPI_SUCCESS) return;
    MPI_Info info = fi_info(kv);
    MPI_T_event_registration h;
    if (mcall(PMPI_T_event_handle_alloc(idx, t == T_COMM ? (void *)&the_comm : NULL, info, &h)) == MPI_SUCCESS) {
        ac[i].have = 1;
        ac[i].bits = (uint64_t)(uintptr_t)h;
    }
    fi_info_free(&info);
}
static void m_reent(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s, void *u);
static void m_cb_fn(int i, int level, MPI_T_event_cb_function *fn, const char *const *kv) {
    if (!ac[i].have) return;
    MPI_Info info = kv ? fi_info(kv) : MPI_INFO_NULL;
    int rc = mcall(PMPI_T_event_register_callback(mh(i), mlevel[level], info, &ac[i], fn));
    fi_info_free(&info);
    if (rc != MPI_SUCCESS) return;
    ac[i].cb[level] = fn != NULL;
    listening(&ac[i]);
}
static void m_cb(int i, int level, int on, const char *const *kv) { m_cb_fn(i, level, on ? m_ev : NULL, kv); }
static void m_drop_set(int i, int on) {
    if (!ac[i].have) return;
    if (mcall(PMPI_T_event_set_dropped_handler(mh(i), on ? m_drop : NULL)) != MPI_SUCCESS) return;
    if (!on && ac[i].raised > ac[i].delivered + ac[i].dropped) ac[i].exact = 0;
    ac[i].has_dropped = on;
}
static void m_free_reg(int i, int with_cb) {
    if (!ac[i].have) return;
    if (PMPI_T_event_handle_free(mh(i), &ac[i], with_cb ? m_free : NULL) != MPI_SUCCESS) bad++;
    ac[i].have = ac[i].listening = 0;
    ac[i].freed_with_cb = with_cb;
}
static void m_infos(int i) { /* hints set and read back, on the handle and a callback */
    if (!ac[i].have) return;
    static const char *const kv[] = { "fk_h1", "1", "fk_h2", "2", NULL };
    MPI_Info info = fi_info(kv), out = MPI_INFO_NULL;
    (void)mcall(PMPI_T_event_handle_set_info(mh(i), info));
    (void)mcall(PMPI_T_event_callback_set_info(mh(i), MPI_T_CB_REQUIRE_NONE, info));
    fi_info_free(&info);
    if (mcall(PMPI_T_event_handle_get_info(mh(i), &out)) == MPI_SUCCESS) fi_info_free(&out);
    if (mcall(PMPI_T_event_callback_get_info(mh(i), MPI_T_CB_REQUIRE_NONE, &out)) == MPI_SUCCESS) fi_info_free(&out);
}
/* A tool whose callback calls back into MPI_T where it may (MPI_T_CB_REQUIRE_NONE): it
 * allocates a registration with hints, gives it a callback and a dropped handler, sets
 * and reads its hints, frees it with a free callback, and on its second delivery frees
 * itself. Allocation failures then happen inside deliveries and drains. */
static int ch_next;
static void m_reent(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s, void *u) {
    static const char *const kv[] = { "mpitev_buffered", "true", "fk_in_cb", "1", NULL };
    acct *a = (acct *)u;
    m_ev(inst, h, s, u);
    if (s != MPI_T_CB_REQUIRE_NONE || ch_next == CH0 + NCH) return;
    int j = ch_next++;
    m_alloc(j, T_MARK, kv);
    m_cb(j, 0, 1, kv);
    m_drop_set(j, 1);
    m_infos(j);
    m_free_reg(j, 1);
    if (a->delivered == 2 && a->have) {
        /* A raise up the stack may skip it now (no longer active), uncounted. */
        a->exact = 0;
        m_free_reg((int)(a - ac), 1);
    }
}

/* A tool's queries: every event and source of this run, with their info objects. */
static void m_queries(void) {
    int n = -1, idx;
    (void)mcall(PMPI_T_event_get_num(&n));
    for (int t = 0; t < NT; t++) {
        if (!declared(t) || mcall(PMPI_T_event_get_index(ty->name[t], &idx)) != MPI_SUCCESS) continue;
        char name[40], desc[40];
        int nlen = sizeof name, dlen = sizeof desc, verb, bind, num = 4;
        MPI_Datatype dt[4];
        MPI_Aint disp[4];
        MPI_T_enum e;
        MPI_Info info = MPI_INFO_NULL;
        if (mcall(PMPI_T_event_get_info(idx, name, &nlen, &verb, dt, disp, &num, &e, &info, desc, &dlen, &bind)) ==
            MPI_SUCCESS)
            fi_info_free(&info);
    }
    (void)mcall(PMPI_T_source_get_num(&n));
    for (int s = 0; s < 2; s++) {
        char name[40];
        int nlen = sizeof name;
        MPI_T_source_order ord;
        MPI_Count tps, maxt, ts;
        MPI_Info info = MPI_INFO_NULL;
        if (mcall(PMPI_T_source_get_info(sindex(s ? &src_u : &src_o), name, &nlen, NULL, NULL, &ord, &tps, &maxt,
                                         &info)) == MPI_SUCCESS)
            fi_info_free(&info);
        (void)mcall(PMPI_T_source_get_timestamp(sindex(s ? &src_u : &src_o), &ts));
    }
    int ind[4];
    (void)mcall(mpitev_adapter_category_num_events("fk_cat", &n));
    (void)mcall(mpitev_adapter_category_events("fk_other", 4, ind, &n));
}

/* Raise one instance of type t on s; the model counts it for the listening registrations
 * of its type (bound ones: the object matches; the scenario's are all on the_comm). */
static void raise1(int t, mpitev_source *s, int level) {
    if (!declared(t)) return;
    for (int i = 0; i < NR; i++) {
        if (!ac[i].have || !ac[i].listening || ac[i].type != t) continue;
        ac[i].raised++;
        if (!ac[i].has_dropped) ac[i].exact = 0;
    }
    struct pair p = { 1, 2 };
    if (t == T_MARK) MPITEV_RAISE(&ty->t[t], s, NULL, level, NULL);
    else MPITEV_RAISE(&ty->t[t], s, t == T_COMM ? MPITEV_ADAPTER_HANDLE_AS_KEY(the_comm) : NULL, level, &p);
}
static void drain(mpitev_source *s, int max) {
    int rc = mpitev_source_drain(s, max, MPITEV_CB_REQUIRE_NONE, NULL);
    if (rc != MPITEV_SUCCESS) bad++;
}
/* What mpitev freed on its own (the last MPI_T_finalize ends every registration). */
static void resync(void) {
    for (int i = 0; i < NR; i++)
        if (ac[i].have && mpitev_reg_check((mpitev_reg){ ac[i].bits }) != MPITEV_SUCCESS) ac[i].have = ac[i].listening = 0;
}
static long check_accounts(int from, int to) {
    long viol = 0;
    for (int i = from; i < to; i++) {
        acct *a = &ac[i];
        if (a->delivered + a->dropped > a->raised) viol++;
        if (a->exact && a->delivered + a->dropped != a->raised) viol++;
        if (a->free_runs != (a->freed_with_cb ? 1 : 0)) viol++;
        if (getenv("FK_TRACE"))
            fprintf(stderr, "reg %d%s: raised %ld delivered %ld dropped %ld exact %d free %d/%d\n", i,
                    a->is_mpit ? " (MPI_T)" : "", a->raised, a->delivered, a->dropped, a->exact, a->free_runs,
                    a->freed_with_cb);
    }
    return viol;
}

/* The implementor's own registrations (0-3), raises, drains; left alive: 2 and 3. */
static void native_part(void) {
    reg(0, T_PAIR, "true"); /* buffered */
    set_drop(0, 1);
    set_cb(0, MPITEV_CB_REQUIRE_NONE, 1);
    set_cb(0, MPITEV_CB_REQUIRE_THREAD_SAFE, 1);
    reg(1, T_PAIR, "false"); /* immediate */
    set_drop(1, 1);
    set_cb(1, MPITEV_CB_REQUIRE_MPI_RESTRICTED, 1);
    reg(2, T_COMM, "default"); /* bound; follows the source */
    set_drop(2, 1);
    set_cb(2, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 1);
    reg(3, T_MARK, "true");
    set_drop(3, 1);
    set_cb(3, MPITEV_CB_REQUIRE_NONE, 1);
    if (ac[0].have) {
        mpitev_kv more[] = { { "m1", "1" }, { "m2", "2" }, { "m3", "3" } };
        (void)call(mpitev_reg_set_info(nreg(0), more, 3));
        (void)call(mpitev_reg_callback_set_info(nreg(0), MPITEV_CB_REQUIRE_NONE, more, 3));
    }
    for (int i = 0; i < 6; i++) raise1(T_PAIR, &src_o, i % 4); /* 4 fit the ring: drops */
    raise1(T_COMM, &src_u, MPITEV_CB_REQUIRE_NONE);
    raise1(T_MARK, &src_o, MPITEV_CB_REQUIRE_NONE);
    drain(&src_o, 2);
    set_cb(0, MPITEV_CB_REQUIRE_THREAD_SAFE, 0);
    raise1(T_PAIR, &src_o, MPITEV_CB_REQUIRE_THREAD_SAFE); /* 0: no safe callback now */
    free_reg(1, 1);
    set_drop(3, 0);
    set_drop(3, 1);
    raise1(T_PAIR, &src_u, MPITEV_CB_REQUIRE_NONE);
    drain(&src_o, MPITEV_DRAIN_ALL);
    drain(&src_u, MPITEV_DRAIN_ALL);
    raise1(T_PAIR, &src_o, MPITEV_CB_REQUIRE_NONE);
    free_reg(0, 1);
    set_cb(3, MPITEV_CB_REQUIRE_NONE, 0);
    raise1(T_MARK, &src_o, MPITEV_CB_REQUIRE_NONE);
    (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
}

/* A tool through the standard API (registrations from `base`), `rounds` times over. */
static void mpit_part(int base, int rounds) {
    static const char *const kv_buf[] = { "mpitev_buffered", "true", "fk_k1", "a", "fk_k2", "b", "fk_k3", "c", NULL };
    static const char *const kv_imm[] = { "mpitev_buffered", "false", "fk_k1", "a", NULL };
    static const char *const kv_def[] = { "mpitev_buffered", "default", NULL };
    static const char *const kv_cb[] = { "fk_cb1", "x", "fk_cb2", "y", NULL };
    static const char *const kv_none[] = { NULL };
    m_queries();
    ch_next = CH0;
    for (int r = 0; r < rounds; r++) {
        int b = base + 6 * r;
        m_alloc(b, T_PAIR, kv_buf);
        m_drop_set(b, 1);
        m_cb(b, 0, 1, kv_cb);
        m_cb(b, 2, 1, NULL);
        m_alloc(b + 1, T_COMM, kv_imm);
        m_drop_set(b + 1, 1);
        m_cb(b + 1, 1, 1, kv_cb);
        m_alloc(b + 2, T_MARK, kv_none);
        m_drop_set(b + 2, 1);
        m_cb(b + 2, 3, 1, NULL);
        m_alloc(b + 3, T_FORCED, kv_def);
        m_drop_set(b + 3, 1);
        m_cb(b + 3, 0, 1, NULL);
        m_alloc(b + 4, T_PAIR, kv_imm); /* no dropped handler: an inexact account */
        m_cb(b + 4, 0, 1, NULL);
        m_alloc(b + 5, T_PAIR, r % 2 ? kv_imm : kv_buf); /* calls MPI_T from its callback */
        m_drop_set(b + 5, 1);
        m_cb_fn(b + 5, 0, m_reent, NULL);
        m_infos(b);
        for (int i = 0; i < 6; i++) raise1(T_PAIR, &src_o, i % 4);
        raise1(T_COMM, &src_u, MPITEV_CB_REQUIRE_MPI_RESTRICTED);
        raise1(T_MARK, &src_o, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        for (int i = 0; i < 3; i++) raise1(T_FORCED, &src_u, MPITEV_CB_REQUIRE_NONE);
        drain(&src_o, 2);
        m_cb(b, 2, 0, NULL); /* remove one callback */
        raise1(T_PAIR, &src_o, MPITEV_CB_REQUIRE_THREAD_SAFE);
        m_free_reg(b + 1, 1);
        m_drop_set(b + 2, 0);
        m_drop_set(b + 2, 1);
        raise1(T_PAIR, &src_u, MPITEV_CB_REQUIRE_NONE);
        drain(&src_o, MPITEV_DRAIN_ALL);
        drain(&src_u, MPITEV_DRAIN_ALL);
        (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        raise1(T_PAIR, &src_o, MPITEV_CB_REQUIRE_NONE);
        m_free_reg(b, 1);
        m_free_reg(b + 4, 0);
        m_cb(b + 3, 0, 0, NULL); /* its last callback */
        raise1(T_FORCED, &src_o, MPITEV_CB_REQUIRE_NONE);
    }
}

/* The scenario; returns the number of accounting or callback-rule violations. */
static long decl_points; /* allocation attempts of its first declare() (fresh types: 2 each) */
static long scenario(void) {
    long viol = 0;
    int prov;
    OK(mpitev_init()); /* the MPI's own reference ("MPI_Init") */
    long d0 = fa.attempts;
    declare();
    decl_points = fa.attempts - d0;
    native_part();
    /* A tool session through MPI_T, while the MPI's registrations 2 and 3 live. */
    if (mcall(PMPI_T_init_thread(0, &prov)) == MPI_SUCCESS) {
        mpit_part(MB, ROUNDS);
        if (PMPI_T_finalize() != MPI_SUCCESS) bad++; /* the last: ends every registration */
        resync();
    }
    /* MPI_T again: a second tool session, one registration left to the last finalize. */
    if (mcall(PMPI_T_init_thread(0, &prov)) == MPI_SUCCESS) {
        static const char *const kv[] = { "mpitev_buffered", "true", "fk_again", "1", NULL };
        m_alloc(MB2, T_PAIR, kv);
        m_drop_set(MB2, 1);
        m_cb(MB2, 0, 1, kv);
        raise1(T_PAIR, &src_o, MPITEV_CB_REQUIRE_NONE);
        raise1(T_PAIR, &src_u, MPITEV_CB_REQUIRE_THREAD_SAFE);
        drain(&src_o, MPITEV_DRAIN_ALL);
        if (PMPI_T_finalize() != MPI_SUCCESS) bad++;
        resync();
    }
    OK(mpitev_finalize()); /* the last ("MPI_Finalize") */
    viol += check_accounts(0, MB2 + 1);
    /* A second mpitev session: declarations are there (or declared now), everything works. */
    OK(mpitev_init());
    declare();
    reg(0, T_PAIR, "true");
    set_drop(0, 1);
    set_cb(0, MPITEV_CB_REQUIRE_NONE, 1);
    raise1(T_PAIR, &src_o, MPITEV_CB_REQUIRE_NONE);
    drain(&src_o, MPITEV_DRAIN_ALL);
    OK(mpitev_finalize());
    viol += check_accounts(0, 1);
    return viol;
}

static long stride = 1;

static void fail_every_k(void **state) {
    (void)state;
    /* Clean runs first: the first declares the process's sources, the second (fresh
     * types) counts the allocation points of the scenario, those of its declarations
     * first (decl_points). */
    long points = 0, tried = 0;
    for (int warm = 0; warm < 2; warm++) {
        new_types();
        long a0 = fa.attempts, v = scenario();
        assert_int_equal(v, 0);
        assert_int_equal(bad, 0);
        assert_int_equal(nomem, 0);
        points = fa.attempts - a0;
    }
    const long dp = decl_points;
    assert_int_equal(dp, 2 * NT);
    assert_int_equal(fi_info_live, 0);
    for (int mode = 0; mode < 2; mode++) {
        /* strided: the two modes try different k */
        for (long k = stride > 1 ? mode * (stride / 2) : 0; k <= points; k += stride) {
            /* Failing a declaration needs undeclared types: fresh ones. Past the
             * declarations the run keeps the last ones (declared), which fails the same
             * allocation one declaration-count earlier, and keeps the number of types
             * (that some calls walk) small. */
            long live0 = fa.live; /* everything declared, nothing else alive */
            int fresh = k < dp;
            long kk = fresh ? k : k - dp;
            nomem = bad = 0;
            if (fresh) new_types();
            if (mode == 0) fa_fail_nth(kk);
            else fa_fail_from_attempt = fa.attempts + kk; /* the kk-th and every later one */
            long viol = scenario();
            fa_fail_from_attempt = -1;
            fa_ok();
            tried++;
            if (viol || bad)
                fail_msg("mode %d, allocation %ld failing: %ld accounting violations, %ld bad codes", mode, k, viol, bad);
            /* A clean run: the library is usable (the types the failed run left
             * undeclared are declared now), and nothing but the run's types is kept. */
            nomem = 0;
            long again = scenario();
            if (again || bad || nomem) fail_msg("after allocation %ld failed: not usable (%ld, %ld, %ld)", k, again, bad, nomem);
            for (int t = 0; t < NT; t++)
                if (!declared(t)) fail_msg("type %d not declared by the clean run", t);
            long leak = fa.live - live0 - (fresh ? 2 * NT : 0); /* a type keeps its two layout arrays */
            if (leak) fail_msg("leak of %ld blocks when allocation %ld fails (mode %d)", leak, k, mode);
            if (fi_info_live != 0) fail_msg("%d MPI_Info objects leaked when allocation %ld fails", fi_info_live, k);
        }
    }
    assert_int_equal(fa.errors, 0);
    printf("fail_every_k: %ld allocation points in the scenario; %ld runs with a failure (stride %ld), each followed by a "
           "clean run\n", points, tried, stride);
}

/* Declaring sources fails too (a process has few: MPITEV_MAX_SOURCES, so a sweep of its
 * own over fresh ones): NO_MEM having declared nothing, then declared on a retry. */
static void fail_declarations(void **state) {
    (void)state;
    static mpitev_source s[24];
    static char names[24][24];
    OK(mpitev_init());
    int n = 0;
    for (int mode = 0; mode < 2; mode++)
        for (long k = 0; k < 4 && n < 24; k++, n++) {
            snprintf(names[n], sizeof names[n], "fk_decl_%d", n);
            mpitev_source_desc d = src_desc(names[n], n % 2 ? MPITEV_SOURCE_UNORDERED : MPITEV_SOURCE_ORDERED, NULL);
            d.buffer_capacity = 8;
            long live = fa.live;
            if (mode == 0) fa_fail_nth(k);
            else fa_fail_from_now();
            int rc = mpitev_source_declare(&s[n], &d);
            fa_ok();
            assert_true(rc == MPITEV_SUCCESS || rc == MPITEV_ERR_NO_MEM);
            int idx;
            if (rc == MPITEV_ERR_NO_MEM) {
                assert_int_equal(fa.live, live); /* nothing kept */
                assert_int_not_equal(mpitev_source_index_of(&s[n], &idx), MPITEV_SUCCESS);
                OK(mpitev_source_declare(&s[n], &d));
            }
            OK(mpitev_source_index_of(&s[n], &idx));
        }
    OK(mpitev_finalize());
    assert_int_equal(fa.errors, 0);
}

int main(int argc, char **argv) {
    const char *st = argc > 1 ? argv[1] : getenv("FI_STRIDE");
    if (st && atol(st) > 0) stride = atol(st);
    if (fa_install() != MPITEV_SUCCESS) return 1;
    const struct CMUnitTest tests[] = { cmocka_unit_test(fail_every_k), cmocka_unit_test(fail_declarations) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
