/* test_coll: every collective with result checks, on MPI_COMM_WORLD and on
 * a split communicator, with every root, several datatypes and all
 * predefined reduction operators; MPI_IN_PLACE; large (rendezvous) sizes;
 * collectives interleaved with user messages using the same tags. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toympi_check.h"

static void test_barrier(MPI_Comm comm)
{
    for (int i = 0; i < 5; i++)
        MPI_OK(MPI_Barrier(comm));
}

static void test_bcast(MPI_Comm comm, int rank, int size)
{
    for (int root = 0; root < size; root++) {
        int n = 3000 + root; /* > eager limit in bytes */
        double *d = malloc((size_t)n * sizeof *d);
        for (int i = 0; i < n; i++)
            d[i] = rank == root ? i * 0.5 + root : -1;
        MPI_OK(MPI_Bcast(d, n, MPI_DOUBLE, root, comm));
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= d[i] == i * 0.5 + root;
        CHECK(ok);
        free(d);
        char s[16] = "";
        if (rank == root)
            strcpy(s, "hello");
        MPI_OK(MPI_Bcast(s, 6, MPI_CHAR, root, comm));
        CHECK(strcmp(s, "hello") == 0);
    }
}

static void test_reduce_ops(MPI_Comm comm, int rank, int size)
{
    int root = size - 1;
    /* integers: all arithmetic, logical and bitwise operators */
    int v[3] = {rank + 1, rank % 2, 1 << rank}, r[3];
    struct {
        MPI_Op op;
        int expect[3];
    } cases[10];
    int sum = 0, prod = 1, mx = size, mn = 1, bor = 0, bxor = 0, ones = 0;
    for (int i = 0; i < size; i++) {
        sum += i + 1;
        prod *= i + 1;
        bor |= 1 << i;
        bxor ^= 1 << i;
        ones += i % 2;
    }
    int land_mid = size == 1 ? 0 : 0; /* rank 0 contributes 0 */
    cases[0].op = MPI_SUM, cases[0].expect[0] = sum;
    cases[1].op = MPI_PROD, cases[1].expect[0] = prod;
    cases[2].op = MPI_MAX, cases[2].expect[0] = mx;
    cases[3].op = MPI_MIN, cases[3].expect[0] = mn;
    cases[4].op = MPI_LAND, cases[4].expect[1] = land_mid;
    cases[5].op = MPI_LOR, cases[5].expect[1] = ones > 0;
    cases[6].op = MPI_LXOR, cases[6].expect[1] = ones % 2;
    cases[7].op = MPI_BOR, cases[7].expect[2] = bor;
    cases[8].op = MPI_BXOR, cases[8].expect[2] = bxor;
    cases[9].op = MPI_BAND, cases[9].expect[2] = size == 1 ? 1 : 0;
    for (int k = 0; k < 10; k++) {
        memset(r, 0x55, sizeof r);
        MPI_OK(MPI_Reduce(v, r, 3, MPI_INT, cases[k].op, root, comm));
        int col = k < 4 ? 0 : k < 7 ? 1 : 2;
        if (rank == root)
            CHECK_EQ_INT(r[col], cases[k].expect[col]);
        MPI_OK(MPI_Allreduce(v, r, 3, MPI_INT, cases[k].op, comm));
        CHECK_EQ_INT(r[col], cases[k].expect[col]);
    }
    /* other types */
    double d = rank + 0.25, dr;
    MPI_OK(MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE, MPI_SUM, comm));
    CHECK(dr == size * (size - 1) / 2.0 + 0.25 * size);
    float f = (float)rank, fr;
    MPI_OK(MPI_Allreduce(&f, &fr, 1, MPI_FLOAT, MPI_MAX, comm));
    CHECK(fr == (float)(size - 1));
    long double ld = rank, ldr;
    MPI_OK(MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE, MPI_MIN, comm));
    CHECK(ldr == 0.0L);
    int64_t big = (int64_t)1 << 40, bigr;
    MPI_OK(MPI_Allreduce(&big, &bigr, 1, MPI_INT64_T, MPI_SUM, comm));
    CHECK(bigr == ((int64_t)1 << 40) * size);
    unsigned char uc = (unsigned char)(1u << rank), ucr;
    MPI_OK(MPI_Allreduce(&uc, &ucr, 1, MPI_UNSIGNED_CHAR, MPI_BOR, comm));
    CHECK_EQ_INT(ucr, (1u << size) - 1);
    uint16_t u16 = 2, u16r;
    MPI_OK(MPI_Allreduce(&u16, &u16r, 1, MPI_UINT16_T, MPI_PROD, comm));
    CHECK_EQ_INT(u16r, 1u << size);
    bool b = rank == 0, br;
    MPI_OK(MPI_Allreduce(&b, &br, 1, MPI_C_BOOL, MPI_LOR, comm));
    CHECK(br == true);
    MPI_OK(MPI_Allreduce(&b, &br, 1, MPI_C_BOOL, MPI_LAND, comm));
    CHECK(br == (size == 1));
    unsigned char by = 0xf0 | (unsigned char)rank, byr;
    MPI_OK(MPI_Allreduce(&by, &byr, 1, MPI_BYTE, MPI_BAND, comm));
    CHECK_EQ_INT(byr, 0xf0);
    long long ll = -rank, llr;
    MPI_OK(MPI_Allreduce(&ll, &llr, 1, MPI_LONG_LONG, MPI_MIN, comm));
    CHECK_EQ_INT(llr, -(size - 1));
    unsigned long ul = (unsigned long)rank, ulr;
    MPI_OK(MPI_Allreduce(&ul, &ulr, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm));
    CHECK_EQ_INT(ulr, size - 1);
    short sh = 1, shr;
    MPI_OK(MPI_Allreduce(&sh, &shr, 1, MPI_SHORT, MPI_SUM, comm));
    CHECK_EQ_INT(shr, size);
    /* MAXLOC / MINLOC */
    struct { double v; int i; } dl = {(double)((rank * 7) % size), rank}, dlr;
    MPI_OK(MPI_Allreduce(&dl, &dlr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
    CHECK(dlr.v == (double)(size - 1));
    struct { int v; int i; } il = {rank == size - 1 ? -5 : 3, rank}, ilr;
    MPI_OK(MPI_Allreduce(&il, &ilr, 1, MPI_2INT, MPI_MINLOC, comm));
    CHECK_EQ_INT(ilr.v, size == 1 ? -5 : -5);
    CHECK_EQ_INT(ilr.i, size - 1);
    struct { int v; int i; } tie = {7, rank}, tier;
    MPI_OK(MPI_Allreduce(&tie, &tier, 1, MPI_2INT, MPI_MAXLOC, comm));
    CHECK_EQ_INT(tier.i, 0); /* ties pick the lowest index */
    struct { float v; int i; } fl = {(float)rank, rank}, flr;
    MPI_OK(MPI_Allreduce(&fl, &flr, 1, MPI_FLOAT_INT, MPI_MINLOC, comm));
    CHECK_EQ_INT(flr.i, 0);
    /* MPI_IN_PLACE */
    int ip[2] = {rank, 1};
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, ip, 2, MPI_INT, MPI_SUM, comm));
    CHECK_EQ_INT(ip[0], size * (size - 1) / 2);
    CHECK_EQ_INT(ip[1], size);
    int rp[1] = {rank + 1};
    if (rank == 0)
        MPI_OK(MPI_Reduce(MPI_IN_PLACE, rp, 1, MPI_INT, MPI_MAX, 0, comm));
    else
        MPI_OK(MPI_Reduce(rp, NULL, 1, MPI_INT, MPI_MAX, 0, comm));
    if (rank == 0)
        CHECK_EQ_INT(rp[0], size);
    /* large reduction (rendezvous path) */
    int n = 10000;
    int *a = malloc((size_t)n * sizeof *a), *ar = malloc((size_t)n * sizeof *ar);
    for (int i = 0; i < n; i++)
        a[i] = i + rank;
    MPI_OK(MPI_Allreduce(a, ar, n, MPI_INT, MPI_SUM, comm));
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= ar[i] == i * size + size * (size - 1) / 2;
    CHECK(ok);
    free(a);
    free(ar);
}

/* non-commutative user op: string concatenation order must be rank order */
static void concat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] * 10 + b[i];
}

static void test_user_op(MPI_Comm comm, int rank, int size)
{
    MPI_Op op;
    MPI_OK(MPI_Op_create(concat_op, 0, &op));
    int v = rank + 1, r = 0, expect = 0;
    for (int i = 0; i < size; i++)
        expect = expect * 10 + i + 1;
    MPI_OK(MPI_Allreduce(&v, &r, 1, MPI_INT, op, comm));
    CHECK_EQ_INT(r, expect);
    MPI_OK(MPI_Op_free(&op));
    CHECK_EQ_INT(op, MPI_OP_NULL);
}

static void test_gather_scatter(MPI_Comm comm, int rank, int size)
{
    for (int root = 0; root < size; root++) {
        /* Gather */
        int mine[2] = {rank, rank * rank};
        int *all = malloc(sizeof(int) * 2 * (size_t)size);
        memset(all, 0xff, sizeof(int) * 2 * (size_t)size);
        MPI_OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, comm));
        if (rank == root)
            for (int i = 0; i < size; i++) {
                CHECK_EQ_INT(all[2 * i], i);
                CHECK_EQ_INT(all[2 * i + 1], i * i);
            }
        /* Gather in place */
        if (rank == root) {
            all[2 * root] = 100 + root;
            all[2 * root + 1] = 0;
            MPI_OK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, root, comm));
            CHECK_EQ_INT(all[2 * root], 100 + root);
        } else {
            MPI_OK(MPI_Gather(mine, 2, MPI_INT, NULL, 0, MPI_INT, root, comm));
        }
        /* Scatter */
        int *src = malloc(sizeof(int) * 3 * (size_t)size);
        for (int i = 0; i < 3 * size; i++)
            src[i] = i * 11 + root;
        int got[3] = {-1, -1, -1};
        MPI_OK(MPI_Scatter(src, 3, MPI_INT, got, 3, MPI_INT, root, comm));
        for (int j = 0; j < 3; j++)
            CHECK_EQ_INT(got[j], (3 * rank + j) * 11 + root);
        /* Gatherv: rank i contributes i+1 elements */
        int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
        int total = 0;
        for (int i = 0; i < size; i++) {
            counts[i] = i + 1;
            displs[i] = total + i; /* leave a gap of one element */
            total += i + 1 + i;
        }
        long *vals = malloc(sizeof(long) * (size_t)(rank + 1));
        for (int j = 0; j <= rank; j++)
            vals[j] = 1000L * rank + j;
        long *gv = malloc(sizeof(long) * (size_t)(total + 1));
        for (int i = 0; i <= total; i++)
            gv[i] = -7;
        MPI_OK(MPI_Gatherv(vals, rank + 1, MPI_LONG, gv, counts, displs, MPI_LONG, root, comm));
        if (rank == root) {
            for (int i = 0; i < size; i++) {
                for (int j = 0; j <= i; j++)
                    CHECK_EQ_INT(gv[displs[i] + j], 1000L * i + j);
                if (i > 0)
                    CHECK_EQ_INT(gv[displs[i] - 1], -7); /* gap untouched */
            }
        }
        /* Scatterv back */
        long *sv = malloc(sizeof(long) * (size_t)(rank + 1));
        MPI_OK(MPI_Scatterv(gv, counts, displs, MPI_LONG, sv, rank + 1, MPI_LONG, root, comm));
        for (int j = 0; j <= rank; j++)
            CHECK_EQ_INT(sv[j], 1000L * rank + j);
        free(all);
        free(src);
        free(counts);
        free(displs);
        free(vals);
        free(gv);
        free(sv);
    }
}

static void test_allgather_alltoall(MPI_Comm comm, int rank, int size)
{
    double mine[2] = {rank * 1.5, -rank};
    double *all = malloc(sizeof(double) * 2 * (size_t)size);
    MPI_OK(MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, comm));
    for (int i = 0; i < size; i++)
        CHECK(all[2 * i] == i * 1.5 && all[2 * i + 1] == -i);
    for (int i = 0; i < 2 * size; i++)
        all[i] = i / 2 == rank ? 9.0 + rank : 0;
    MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_DOUBLE, comm));
    for (int i = 0; i < size; i++)
        CHECK(all[2 * i] == 9.0 + i);
    free(all);
    /* large allgather (rendezvous) */
    int n = 5000;
    int *big = malloc(sizeof(int) * (size_t)n * (size_t)size), *bm = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        bm[i] = rank * n + i;
    MPI_OK(MPI_Allgather(bm, n, MPI_INT, big, n, MPI_INT, comm));
    int ok = 1;
    for (int i = 0; i < n * size; i++)
        ok &= big[i] == i;
    CHECK(ok);
    free(big);
    free(bm);
    int *s = malloc(sizeof(int) * (size_t)size), *r = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        s[i] = rank * 100 + i;
    MPI_OK(MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, comm));
    for (int i = 0; i < size; i++)
        CHECK_EQ_INT(r[i], i * 100 + rank);
    free(s);
    free(r);
}

/* user point-to-point traffic with the tags the collectives use internally
 * must never be consumed by a collective */
static void test_isolation(MPI_Comm comm, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Request rq[8];
    int out[4] = {rank, rank + 1, rank + 2, rank + 3}, in[4] = {-1, -1, -1, -1};
    for (int t = 0; t < 4; t++)
        MPI_OK(MPI_Isend(&out[t], 1, MPI_INT, right, t + 1, comm, &rq[t]));
    MPI_OK(MPI_Barrier(comm));
    int x = rank == 0 ? 123 : 0;
    MPI_OK(MPI_Bcast(&x, 1, MPI_INT, 0, comm));
    CHECK_EQ_INT(x, 123);
    for (int t = 0; t < 4; t++)
        MPI_OK(MPI_Irecv(&in[t], 1, MPI_INT, left, t + 1, comm, &rq[4 + t]));
    MPI_OK(MPI_Waitall(8, rq, MPI_STATUSES_IGNORE));
    for (int t = 0; t < 4; t++)
        CHECK_EQ_INT(in[t], left + t);
}

static void run_all(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    test_barrier(comm);
    test_bcast(comm, rank, size);
    test_reduce_ops(comm, rank, size);
    test_user_op(comm, rank, size);
    test_gather_scatter(comm, rank, size);
    test_allgather_alltoall(comm, rank, size);
    test_isolation(comm, rank, size);
}

int main(int argc, char **argv)
{
    int rank = check_init(&argc, &argv);
    run_all(MPI_COMM_WORLD);
    /* again on a split communicator with reversed rank order */
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
    run_all(half);
    MPI_OK(MPI_Comm_free(&half));
    run_all(MPI_COMM_SELF);
    return check_finish("test_coll");
}
