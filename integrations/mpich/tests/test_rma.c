/* test_rma.c -- MPICH + mpitev's one-sided MPI_T events, checked the way a tool sees them:
 * the standard MPI_T API of MPICH's mpi.h only. Needs 2 or more ranks.
 *
 * usage: mpiexec -n N test_rma
 *
 * Two windows over MPI_COMM_WORLD, A (disp_unit 8) and B (disp_unit 1). A tool registers
 * win_create on MPI_COMM_WORLD before creating them, then every one-sided type and
 * win_free on each window, with one registration set per window. Each rank then targets
 * its right neighbour on both windows, with a put, a get and an accumulate under a fence
 * epoch, then again under an exclusive lock (A) or a shared lock (B), then a lock_all
 * epoch with a flush. Each window's registrations must see exactly that window's
 * operations (sizes and displacements differ between the windows, so one leaking into
 * the other shows), each *_complete with the op_id of its *_started, delivered after it,
 * within the synchronization call that completed it, the catalogue's op, lock type and
 * sync kind codes, target -1 for the _all forms; win_create bound to the communicator
 * (its key, comm_key 1, the local size), win_free bound to the window with the same
 * payload; delivered + dropped = raised; each free callback runs once. Recording:
 * integrations/common/mpit_record.h, as in the event tests. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_check.h"
#include "mpit_record.h"

enum { T_PUT_S, T_PUT_C, T_GET_S, T_GET_C, T_ACC_S, T_ACC_C, T_LOCK_A, T_LOCK_R, T_SYNC_B,
       T_SYNC_E, T_WIN_FREE, NT };
static const char *type_names[NT] = {"put_started",  "put_complete",        "get_started",
                                     "get_complete", "accumulate_started",  "accumulate_complete",
                                     "lock_acquired", "lock_released",      "sync_begin",
                                     "sync_end",     "win_free"};

struct winset {
    struct reg r[NT];
    int64_t key;
};

static void register_window(struct winset *ws, MPI_Win *win)
{
    for (int t = 0; t < NT; t++)
        reg_alloc(&ws->r[t], type_names[t], win, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
}

/* x was delivered inside one of the window's synchronization calls: after a sync_begin
 * and before the sync_end that follows it (a rank's calls on a window do not overlap) */
static int inside_sync(const struct winset *ws, const struct rec *x)
{
    const struct reg *b = &ws->r[T_SYNC_B], *e = &ws->r[T_SYNC_E];
    for (int i = 0; i < b->nrec && i < e->nrec; i++)
        if (b->rec[i].order < x->order && x->order < e->rec[i].order)
            return 1;
    return 0;
}

/* what one window's registrations must have seen at one rank (origin: itself) */
static void check_window(struct winset *ws, const char *name, int target, int64_t disp_bytes,
                         int put_bytes, int get_bytes, int acc_bytes, int lock_code, int acc_op2,
                         int size)
{
    (void)name;
    struct reg *r = ws->r;
    for (int t = 0; t < NT; t++) {
        if (r[t].dropped)
            fprintf(stderr, "[rank %d] %s %s: %ld dropped\n", my_rank, name, type_names[t],
                    r[t].dropped);
        CHECK_EQ(r[t].dropped, 0);
        CHECK_EQ(r[t].delivered, r[t].nrec);
    }
    /* three epochs, each with a put, a get and an accumulate */
    const int pairs[3][3] = {{T_PUT_S, T_PUT_C, put_bytes}, {T_GET_S, T_GET_C, get_bytes},
                             {T_ACC_S, T_ACC_C, acc_bytes}};
    for (int p = 0; p < 3; p++) {
        struct reg *st = &r[pairs[p][0]], *cp = &r[pairs[p][1]];
        CHECK_EQ(st->nrec, 3);
        CHECK_EQ(cp->nrec, 3);
        for (int i = 0; i < st->nrec && i < 3; i++) {
            const struct rec *x = &st->rec[i];
            CHECK_EQ(x->v[F_TARGET], target);
            CHECK_EQ(x->v[F_BYTES], pairs[p][2]);
            CHECK_EQ(x->v[F_DISP], disp_bytes);
            CHECK(x->v[F_OPID] > 0);
            int want_op = pairs[p][0] == T_ACC_S ? (i == 1 ? acc_op2 : 1 /* MPI_SUM */) : 0;
            CHECK_EQ(x->v[F_OP], want_op);
            const struct rec *c = first_where(cp, F_OPID, x->v[F_OPID]);
            CHECK(c != NULL);
            if (c) {
                CHECK(c->order > x->order);
                CHECK_EQ(c->v[F_TARGET], target);
                CHECK_EQ(c->v[F_BYTES], pairs[p][2]);
                CHECK_EQ(c->v[F_DISP], disp_bytes);
                CHECK_EQ(c->v[F_OP], want_op);
                CHECK(inside_sync(ws, c)); /* within the synchronization that completed it */
            }
        }
    }
    /* syncs: fence, fence, lock, unlock, lock_all, flush, unlock_all */
    static const int kinds[7] = {1, 1, 2, 3, 4, 6, 5};
    CHECK_EQ(r[T_SYNC_B].nrec, 7);
    CHECK_EQ(r[T_SYNC_E].nrec, 7);
    for (int i = 0; i < 7 && i < r[T_SYNC_B].nrec && i < r[T_SYNC_E].nrec; i++) {
        const struct rec *b = &r[T_SYNC_B].rec[i], *e = &r[T_SYNC_E].rec[i];
        CHECK_EQ(b->v[F_KIND], kinds[i]);
        CHECK_EQ(e->v[F_KIND], kinds[i]);
        int t = (kinds[i] == 2 || kinds[i] == 3 || kinds[i] == 6) ? target : -1;
        CHECK_EQ(b->v[F_TARGET], t);
        CHECK_EQ(e->v[F_TARGET], t);
        CHECK(b->order < e->order);
    }
    /* locks: the one on target, then lock_all (-1, shared) */
    CHECK_EQ(r[T_LOCK_A].nrec, 2);
    CHECK_EQ(r[T_LOCK_R].nrec, 2);
    if (r[T_LOCK_A].nrec == 2 && r[T_LOCK_R].nrec == 2) {
        CHECK_EQ(r[T_LOCK_A].rec[0].v[F_TARGET], target);
        CHECK_EQ(r[T_LOCK_A].rec[0].v[F_LOCK], lock_code);
        CHECK_EQ(r[T_LOCK_R].rec[0].v[F_TARGET], target);
        CHECK_EQ(r[T_LOCK_R].rec[0].v[F_LOCK], lock_code);
        CHECK_EQ(r[T_LOCK_A].rec[1].v[F_TARGET], -1);
        CHECK_EQ(r[T_LOCK_A].rec[1].v[F_LOCK], 2);
        CHECK_EQ(r[T_LOCK_R].rec[1].v[F_TARGET], -1);
        CHECK(r[T_LOCK_A].rec[0].order < r[T_LOCK_R].rec[0].order);
    }
    (void)size;
}

int main(int argc, char **argv)
{
    int provided;
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    if (size < 2) {
        fprintf(stderr, "test_rma: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int target = (rank + 1) % size;

    static struct reg created;
    MPI_Comm world = MPI_COMM_WORLD;
    reg_alloc(&created, "win_create", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);

    static int64_t bufA[64], bufB[64];
    MPI_Win A, B;
    MPI_Win_create(bufA, sizeof bufA, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &A);
    MPI_Win_create(bufB, 200, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &B);

    static struct winset wa, wb;
    register_window(&wa, &A);
    register_window(&wb, &B);
    MPI_Barrier(MPI_COMM_WORLD);

    int64_t one[2] = {1, 2}, got[2];
    int32_t i3 = 3, g5[2];
    char c3[3] = "ab", c5[5];
    /* epoch 1: fence. A: disp 1 (8 bytes from the base), B: disp 5 */
    MPI_Win_fence(0, A);
    MPI_Win_fence(0, B);
    MPI_Put(one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, A);
    MPI_Get(got, 2, MPI_INT64_T, target, 1, 2, MPI_INT64_T, A);
    MPI_Accumulate(one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, MPI_SUM, A);
    MPI_Put(c3, 3, MPI_CHAR, target, 5, 3, MPI_CHAR, B);
    MPI_Get(c5, 5, MPI_CHAR, target, 5, 5, MPI_CHAR, B);
    MPI_Accumulate(&i3, 1, MPI_INT32_T, target, 5, 1, MPI_INT32_T, MPI_SUM, B);
    MPI_Win_fence(0, A);
    MPI_Win_fence(0, B);
    /* epoch 2: A exclusive, B shared; the accumulates MPI_REPLACE (A), MPI_MAX (B) */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, A);
    MPI_Put(one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, A);
    MPI_Get(got, 2, MPI_INT64_T, target, 1, 2, MPI_INT64_T, A);
    MPI_Accumulate(one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, MPI_REPLACE, A);
    MPI_Win_unlock(target, A);
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, B);
    MPI_Put(c3, 3, MPI_CHAR, target, 5, 3, MPI_CHAR, B);
    MPI_Get(c5, 5, MPI_CHAR, target, 5, 5, MPI_CHAR, B);
    MPI_Accumulate(&i3, 1, MPI_INT32_T, target, 5, 1, MPI_INT32_T, MPI_MAX, B);
    MPI_Win_unlock(target, B);
    /* epoch 3: lock_all, completed by a flush of target */
    MPI_Win_lock_all(0, A);
    MPI_Put(one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, A);
    MPI_Get(got, 2, MPI_INT64_T, target, 1, 2, MPI_INT64_T, A);
    MPI_Accumulate(one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, MPI_SUM, A);
    MPI_Win_flush(target, A);
    MPI_Win_unlock_all(A);
    MPI_Win_lock_all(0, B);
    MPI_Put(c3, 3, MPI_CHAR, target, 5, 3, MPI_CHAR, B);
    MPI_Get(c5, 5, MPI_CHAR, target, 5, 5, MPI_CHAR, B);
    MPI_Accumulate(&i3, 1, MPI_INT32_T, target, 5, 1, MPI_INT32_T, MPI_SUM, B);
    MPI_Win_flush(target, B);
    MPI_Win_unlock_all(B);
    (void)g5;

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&A);
    MPI_Win_free(&B);

    /* win_create: both windows, over MPI_COMM_WORLD (key 1), distinct keys, local sizes */
    CHECK_EQ(created.nrec, 2);
    if (created.nrec == 2) {
        wa.key = created.rec[0].v[F_KEY];
        wb.key = created.rec[1].v[F_KEY];
        CHECK(wa.key >= 16 && wb.key >= 16 && wa.key != wb.key);
        CHECK_EQ(created.rec[0].v[F_COMM_KEY], 1);
        CHECK_EQ(created.rec[0].v[F_BYTES], (int64_t)sizeof bufA);
        CHECK_EQ(created.rec[1].v[F_BYTES], 200);
        CHECK_EQ(created.rec[0].v[F_RANK], rank);
        CHECK_EQ(created.rec[0].v[F_SIZE], size);
    }
    /* win_free: bound to each window, its own key */
    CHECK_EQ(wa.r[T_WIN_FREE].nrec, 1);
    CHECK_EQ(wb.r[T_WIN_FREE].nrec, 1);
    if (wa.r[T_WIN_FREE].nrec == 1 && wb.r[T_WIN_FREE].nrec == 1) {
        CHECK_EQ(wa.r[T_WIN_FREE].rec[0].v[F_KEY], wa.key);
        CHECK_EQ(wb.r[T_WIN_FREE].rec[0].v[F_KEY], wb.key);
        CHECK_EQ(wa.r[T_WIN_FREE].rec[0].v[F_BYTES], (int64_t)sizeof bufA);
    }
    /* each window's own operations only: A 8/16/8 bytes at 8, B 3/5/4 bytes at 5 */
    check_window(&wa, "A", target, 8, 8, 16, 8, 1 /* exclusive */, 13 /* MPI_REPLACE */, size);
    check_window(&wb, "B", target, 5, 3, 5, 4, 2 /* shared */, 3 /* MPI_MAX */, size);

    reg_free_all(wa.r, NT);
    reg_free_all(wb.r, NT);
    reg_free_all(&created, 1);
    int mine = failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T_OK(MPI_T_finalize());
    MPI_Finalize();
    if (rank == 0)
        printf("test_rma (%d ranks): %s\n", size, total ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
