/* comm.c -- communicators: MPI_COMM_WORLD/MPI_COMM_SELF, dup, split, free,
 * compare, names, predefined attributes.
 *
 * Context ids: every communicator owns a pair (2k, 2k+1); 2k carries user
 * point-to-point traffic, 2k+1 the internal collective traffic, so the two
 * can never match each other. A new pair is agreed on by an allreduce(BAND)
 * of the bitmaps of free pairs over the parent communicator (MPICH style);
 * the lowest pair free everywhere wins. */
#include "toympi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "progress.h"

#define CTX_PAIRS (TOYMPI_MAX_CONTEXTS / 2)
#define CTX_WORDS (CTX_PAIRS / 64)

static toympi_comm_t **comms; /* index -> comm; 0 = MPI_COMM_NULL */
static int comms_cap;
static uint64_t ctx_used[CTX_WORDS];
static uint64_t next_ev_key = TOYMPI_EV_KEY_SELF + 1; /* 1, 2: the predefined ones */

static void ctx_mark(uint32_t ctx, int used)
{
    uint32_t pair = ctx / 2;
    if (used)
        ctx_used[pair / 64] |= (uint64_t)1 << (pair % 64);
    else
        ctx_used[pair / 64] &= ~((uint64_t)1 << (pair % 64));
}

toympi_comm_t *toympi_comm_get(MPI_Comm comm)
{
    if (TOYMPI_HANDLE_KIND(comm) != TOYMPI_KIND_COMM)
        return NULL;
    int i = TOYMPI_HANDLE_INDEX(comm);
    if (i <= 0 || i >= comms_cap || !comms[i])
        return NULL;
    /* Freed but kept by an operation in progress: not usable through its handle. In its
     * comm_free event it is still complete, and queries through the handle work. */
    if (comms[i]->freed && !comms[i]->releasing)
        return NULL;
    return comms[i];
}

MPI_Comm toympi_comm_handle(const toympi_comm_t *c)
{
    return (MPI_Comm)(TOYMPI_KIND_COMM | (unsigned)c->index);
}

static toympi_comm_t *comm_new(int fixed_index, uint32_t ctx, int rank, int size)
{
    int idx = fixed_index;
    if (idx == 0) {
        for (idx = 3; idx < comms_cap && comms[idx]; idx++)
            ;
    }
    if (idx >= comms_cap) {
        int ncap = comms_cap ? comms_cap * 2 : 16;
        while (ncap <= idx)
            ncap *= 2;
        comms = toympi_realloc(comms, (size_t)ncap * sizeof *comms);
        memset(comms + comms_cap, 0, (size_t)(ncap - comms_cap) * sizeof *comms);
        comms_cap = ncap;
    }
    toympi_comm_t *c = toympi_calloc(1, sizeof *c);
    c->index = idx;
    c->context_id = ctx;
    c->rank = rank;
    c->size = size;
    c->world_ranks = toympi_calloc((size_t)size, sizeof(int));
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->ev_key = idx == 1 ? TOYMPI_EV_KEY_WORLD : idx == 2 ? TOYMPI_EV_KEY_SELF : next_ev_key++;
    c->refs = 1; /* the handle's */
    comms[idx] = c;
    ctx_mark(ctx, 1);
    toympi_events_ctx_bind(ctx, c);
    return c;
}

/* The payload of comm_create and comm_free (MPITEV_CATALOG_L_COMM). */
#define COMM_EVENT_PAYLOAD(c) (c)->ev_key, (c)->ev_parent_key, (c)->rank, (c)->size

/* cb_safety: of the comm_free event (events.h). Its callbacks see the communicator
 * complete (slot, context id and handle still taken); an operation they start on it
 * holds and unholds it without releasing it again (releasing). */
static void comm_delete(toympi_comm_t *c, int cb_safety)
{
    c->releasing = 1;
    TOYMPI_RAISE_API(comm_free, &toympi_events_src_api, TOYMPI_EV_KEY(c), cb_safety,
                     COMM_EVENT_PAYLOAD(c));
    ctx_mark(c->context_id, 0);
    toympi_events_ctx_bind(c->context_id, NULL);
    toympi_errhandler_unref(c->errhandler);
    comms[c->index] = NULL;
    free(c->world_ranks);
    free(c);
}

void toympi_comm_hold(toympi_comm_t *c)
{
    c->refs++;
}

void toympi_comm_unhold(toympi_comm_t *c)
{
    if (--c->refs == 0 && !c->releasing)
        comm_delete(c, toympi_events_level()); /* NONE at API exit, MPI_RESTRICTED in teardown */
}

int toympi_comm_init_world(void)
{
    toympi_comm_t *w = comm_new(1, 0, toympi_g.world_rank, toympi_g.world_size);
    for (int i = 0; i < w->size; i++)
        w->world_ranks[i] = i;
    strcpy(w->name, "MPI_COMM_WORLD");
    toympi_comm_t *s = comm_new(2, 2, 0, 1);
    s->world_ranks[0] = toympi_g.world_rank;
    strcpy(s->name, "MPI_COMM_SELF");
    /* inside MPI_Init: MPI is not usable yet, so a callback may not call it */
    TOYMPI_RAISE_API(comm_create, &toympi_events_src_api, TOYMPI_EV_KEY(w),
                     MPITEV_CB_REQUIRE_MPI_RESTRICTED, COMM_EVENT_PAYLOAD(w));
    TOYMPI_RAISE_API(comm_create, &toympi_events_src_api, TOYMPI_EV_KEY(s),
                     MPITEV_CB_REQUIRE_MPI_RESTRICTED, COMM_EVENT_PAYLOAD(s));
    return MPI_SUCCESS;
}

void toympi_comm_finalize(void)
{
    for (int i = 1; i < comms_cap; i++)
        if (comms[i]) /* inside MPI_Finalize: MPI is no longer usable */
            comm_delete(comms[i], MPITEV_CB_REQUIRE_MPI_RESTRICTED);
    free(comms);
    comms = NULL;
    comms_cap = 0;
}

/* collective over parent: agree on a fresh context id pair */
static int alloc_context(const toympi_comm_t *parent, uint32_t *ctx)
{
    uint64_t mine[CTX_WORDS], common[CTX_WORDS];
    for (int i = 0; i < CTX_WORDS; i++)
        mine[i] = ~ctx_used[i];
    int rc = toympi_allreduce_impl(parent, mine, common, CTX_WORDS, MPI_UINT64_T, MPI_BAND);
    if (rc)
        return rc;
    for (int i = 0; i < CTX_WORDS; i++) {
        if (common[i]) {
            int bit = __builtin_ctzll(common[i]);
            *ctx = (uint32_t)(i * 64 + bit) * 2;
            return MPI_SUCCESS;
        }
    }
    return MPI_ERR_INTERN;
}

#define CHECK_COMM(fn, comm, c)                                                            \
    TOYMPI_CHECK_INIT(fn);                                                                 \
    toympi_comm_t *c = toympi_comm_get(comm);                                              \
    if (!c)                                                                                \
        return toympi_err(comm, MPI_ERR_COMM, fn, "invalid communicator");

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    CHECK_COMM("MPI_Comm_size", comm, c)
    if (!size)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    CHECK_COMM("MPI_Comm_rank", comm, c)
    if (!rank)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_rank)

/* The end of MPI_Comm_dup/_split on parent: the engine's events, then comm_create
 * (complete, nothing held: NONE), bound to the parent, the communicator a tool could
 * have registered on (the new one has no registration yet). Its callbacks may call MPI,
 * even free the new communicator: the handle is stored first and nothing is read after. */
static void publish_new(uint64_t parent_key, toympi_comm_t *n, MPI_Comm *newcomm)
{
    *newcomm = toympi_comm_handle(n);
    n->ev_parent_key = parent_key; /* the parent may be gone: tool code may have freed it */
    toympi_comm_hold(n);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    TOYMPI_RAISE_API(comm_create, &toympi_events_src_api, (const void *)(uintptr_t)parent_key,
                     MPITEV_CB_REQUIRE_NONE, COMM_EVENT_PAYLOAD(n));
    toympi_comm_unhold(n);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* comm_create (and a comm_free) buffered */
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    CHECK_COMM("MPI_Comm_dup", comm, c)
    if (!newcomm)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_dup", "newcomm is NULL");
    uint32_t ctx;
    toympi_comm_hold(c); /* the allreduce's drains run tool code, which may free comm */
    int rc = alloc_context(c, &ctx);
    if (rc) {
        rc = toympi_err(comm, rc, "MPI_Comm_dup", "no free context id");
        toympi_comm_unhold(c);
        return rc;
    }
    toympi_comm_t *n = comm_new(0, ctx, c->rank, c->size);
    const uint64_t parent_key = c->ev_key;
    memcpy(n->world_ranks, c->world_ranks, (size_t)c->size * sizeof(int));
    n->errhandler = c->errhandler;
    toympi_errhandler_ref(n->errhandler);
    toympi_comm_unhold(c);
    publish_new(parent_key, n, newcomm);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_dup)

struct split_entry {
    int color, key, rank;
};

static int split_cmp(const void *a, const void *b)
{
    const struct split_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* MPI_Comm_split's work, with the parent held by the caller. */
static int split(toympi_comm_t *c, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    uint32_t ctx;
    int rc = alloc_context(c, &ctx);
    if (rc)
        return toympi_err(comm, rc, "MPI_Comm_split", "no free context id");
    int mine[2] = {color, key};
    int *all = toympi_malloc((size_t)c->size * 2 * sizeof(int));
    rc = toympi_allgather_impl(c, mine, all, sizeof mine);
    if (rc) {
        free(all);
        return toympi_err(comm, rc, "MPI_Comm_split", "allgather failed");
    }
    if (color == MPI_UNDEFINED) {
        free(all);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    struct split_entry *e = toympi_malloc((size_t)c->size * sizeof *e);
    int n = 0;
    for (int i = 0; i < c->size; i++)
        if (all[2 * i] == color)
            e[n++] = (struct split_entry){all[2 * i], all[2 * i + 1], i};
    qsort(e, (size_t)n, sizeof *e, split_cmp);
    int myrank = 0;
    for (int i = 0; i < n; i++)
        if (e[i].rank == c->rank)
            myrank = i;
    toympi_comm_t *nc = comm_new(0, ctx, myrank, n);
    for (int i = 0; i < n; i++)
        nc->world_ranks[i] = c->world_ranks[e[i].rank];
    nc->errhandler = c->errhandler;
    toympi_errhandler_ref(nc->errhandler);
    free(e);
    free(all);
    publish_new(c->ev_key, nc, newcomm);
    return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    CHECK_COMM("MPI_Comm_split", comm, c)
    if (!newcomm)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_split", "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_split", "invalid color %d", color);
    toympi_comm_hold(c); /* tool code runs in the collectives below: it may free comm */
    int rc = split(c, comm, color, key, newcomm);
    toympi_comm_unhold(c);
    return rc;
}
TOYMPI_WEAK(Comm_split)

int PMPI_Comm_free(MPI_Comm *comm)
{
    TOYMPI_CHECK_INIT("MPI_Comm_free");
    if (!comm)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_free", "comm is NULL");
    toympi_comm_t *c = toympi_comm_get(*comm);
    if (!c)
        return toympi_err(*comm, MPI_ERR_COMM, "MPI_Comm_free", "invalid communicator");
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return toympi_err(*comm, MPI_ERR_COMM, "MPI_Comm_free",
                          "cannot free a predefined communicator");
    if (c->freed) /* again, from its own comm_free event */
        return toympi_err(*comm, MPI_ERR_COMM, "MPI_Comm_free", "communicator already freed");
    /* Marked at once (the handle is invalid); released now, or when the operations in
     * progress on it end (tool code inside one of them called us): MPI-4.1 6.4.3. */
    c->freed = 1;
    *comm = MPI_COMM_NULL;
    toympi_comm_unhold(c); /* API entry: the comm is still intact; its comm_free at NONE */
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* comm_free buffered: delivered by the return */
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_free)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    TOYMPI_CHECK_INIT("MPI_Comm_compare");
    toympi_comm_t *a = toympi_comm_get(comm1), *b = toympi_comm_get(comm2);
    if (!a || !b)
        return toympi_err(a ? comm2 : comm1, MPI_ERR_COMM, "MPI_Comm_compare",
                          "invalid communicator");
    if (!result)
        return toympi_err(comm1, MPI_ERR_ARG, "MPI_Comm_compare", "result is NULL");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1, same_set = 1;
    for (int i = 0; i < a->size; i++) {
        if (a->world_ranks[i] != b->world_ranks[i])
            same_order = 0;
        int found = 0;
        for (int j = 0; j < b->size && !found; j++)
            found = a->world_ranks[i] == b->world_ranks[j];
        same_set &= found;
    }
    *result = same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_compare)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    CHECK_COMM("MPI_Comm_set_name", comm, c)
    if (!comm_name)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    CHECK_COMM("MPI_Comm_get_name", comm, c)
    if (!comm_name || !resultlen)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "NULL argument");
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_get_name)

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static int tag_ub = 0x7fffffff, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0;
    CHECK_COMM("MPI_Comm_get_attr", comm, c)
    (void)c;
    if (!attribute_val || !flag)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr", "NULL argument");
    int *val;
    switch (comm_keyval) {
    case MPI_TAG_UB: val = &tag_ub; break;
    case MPI_HOST: val = &host; break;
    case MPI_IO: val = &io; break;
    case MPI_WTIME_IS_GLOBAL: val = &wtime_global; break;
    default:
        return toympi_err(comm, MPI_ERR_KEYVAL, "MPI_Comm_get_attr",
                          "unknown key value %d (user attributes are not supported)",
                          comm_keyval);
    }
    *(int **)attribute_val = val;
    *flag = 1;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_get_attr)
