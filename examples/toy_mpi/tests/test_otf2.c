/* test_otf2: OTF2's header-only MPI collective callbacks
 * (<otf2/OTF2_MPI_Collectives.h>) compiled unchanged against toy_mpi.
 *  1. every callback (size, rank, barrier, bcast, gather(v), scatter(v))
 *     called directly with checked results, for several OTF2 types/roots
 *  2. a real OTF2 archive written collectively by all ranks through
 *     OTF2_MPI_Archive_SetCollectiveCallbacks and read back with
 *     OTF2_MPI_Reader_SetCollectiveCallbacks.
 * Note: in OTF2 3.0 the gatherv/scatterv callbacks only fill the
 * displacements of ranks below the root (loop bound is the root's rank
 * instead of the size); the rest of the array is left uninitialized. We
 * pre-fill the displacements so the test exercises MPI, not that bug. */
#define _POSIX_C_SOURCE 200809L
#include <otf2/otf2.h>
#include <mpi.h>
#include <otf2/OTF2_MPI_Collectives.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "toympi_check.h"

static void prefill_displacements(OTF2_CollectiveContext *ctx, const uint32_t *counts)
{
    int d = 0;
    for (int i = 0; i < ctx->size; i++) {
        ctx->displacements[i] = d;
        d += (int)counts[i];
    }
}

static void test_callbacks(int rank, int size)
{
    OTF2_CollectiveCallbacks cb;
    otf2_mpi_get_collectives(&cb);
    OTF2_CollectiveContext *ctx = otf2_mpi_create_context(MPI_COMM_WORLD, true);
    CHECK(ctx != NULL);
    if (!ctx)
        return;
    uint32_t v;
    CHECK_EQ_INT(cb.otf2_get_size(NULL, ctx, &v), OTF2_CALLBACK_SUCCESS);
    CHECK_EQ_INT(v, size);
    CHECK_EQ_INT(cb.otf2_get_rank(NULL, ctx, &v), OTF2_CALLBACK_SUCCESS);
    CHECK_EQ_INT(v, rank);
    CHECK_EQ_INT(cb.otf2_barrier(NULL, ctx), OTF2_CALLBACK_SUCCESS);
    for (int root = 0; root < size; root++) {
        /* bcast of every integer/floating type */
        uint64_t u64[3] = {0};
        int8_t i8[2] = {0};
        double d[2] = {0};
        if (rank == root) {
            u64[0] = 1ull << 60, u64[2] = 77;
            i8[0] = -5, i8[1] = 120;
            d[0] = 3.25, d[1] = -1e300;
        }
        CHECK_EQ_INT(cb.otf2_bcast(NULL, ctx, u64, 3, OTF2_TYPE_UINT64, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        CHECK_EQ_INT(cb.otf2_bcast(NULL, ctx, i8, 2, OTF2_TYPE_INT8, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        CHECK_EQ_INT(cb.otf2_bcast(NULL, ctx, d, 2, OTF2_TYPE_DOUBLE, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        CHECK(u64[0] == 1ull << 60 && u64[2] == 77);
        CHECK(i8[0] == -5 && i8[1] == 120);
        CHECK(d[0] == 3.25 && d[1] == -1e300);
        /* gather */
        int32_t mine[2] = {rank, -rank}, *all = calloc(2 * (size_t)size, sizeof *all);
        CHECK_EQ_INT(cb.otf2_gather(NULL, ctx, mine, all, 2, OTF2_TYPE_INT32, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        if (rank == root)
            for (int i = 0; i < size; i++)
                CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
        /* scatter */
        uint16_t *src = calloc((size_t)size, sizeof *src), got = 0;
        for (int i = 0; i < size; i++)
            src[i] = (uint16_t)(1000 + i);
        CHECK_EQ_INT(cb.otf2_scatter(NULL, ctx, src, &got, 1, OTF2_TYPE_UINT16, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        CHECK_EQ_INT(got, 1000 + rank);
        /* gatherv / scatterv: rank i has i+1 elements */
        uint32_t *counts = calloc((size_t)size, sizeof *counts), total = 0;
        for (int i = 0; i < size; i++)
            total += counts[i] = (uint32_t)i + 1;
        float *fv = calloc((size_t)rank + 1, sizeof *fv), *fall = calloc(total, sizeof *fall);
        for (int j = 0; j <= rank; j++)
            fv[j] = (float)(rank * 10 + j);
        prefill_displacements(ctx, counts);
        CHECK_EQ_INT(cb.otf2_gatherv(NULL, ctx, fv, (uint32_t)rank + 1, fall, counts,
                                     OTF2_TYPE_FLOAT, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        if (rank == root) {
            int k = 0;
            for (int i = 0; i < size; i++)
                for (int j = 0; j <= i; j++)
                    CHECK(fall[k++] == (float)(i * 10 + j));
        }
        memset(fv, 0, ((size_t)rank + 1) * sizeof *fv);
        prefill_displacements(ctx, counts);
        CHECK_EQ_INT(cb.otf2_scatterv(NULL, ctx, fall, counts, fv, (uint32_t)rank + 1,
                                      OTF2_TYPE_FLOAT, (uint32_t)root),
                     OTF2_CALLBACK_SUCCESS);
        for (int j = 0; j <= rank; j++)
            CHECK(fv[j] == (float)(rank * 10 + j));
        free(all);
        free(src);
        free(counts);
        free(fv);
        free(fall);
    }
    otf2_mpi_destroy_context(ctx);
}

static OTF2_TimeStamp now_ts(void)
{
    return (OTF2_TimeStamp)(MPI_Wtime() * 1e9);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return now_ts();
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
                                              .otf2_post_flush = post_flush};

static void test_archive(int rank, int size)
{
    char dir[256] = "";
    if (rank == 0) {
        snprintf(dir, sizeof dir, "/tmp/toympi_otf2_XXXXXX");
        CHECK(mkdtemp(dir) != NULL);
    }
    MPI_OK(MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
    char path[300];
    snprintf(path, sizeof path, "%s/trace", dir);

    OTF2_Archive *ar = OTF2_Archive_Open(path, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    CHECK(ar != NULL);
    if (!ar)
        return;
    CHECK_EQ_INT(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL), OTF2_SUCCESS);
    CHECK_EQ_INT(OTF2_MPI_Archive_SetCollectiveCallbacks(ar, MPI_COMM_WORLD, MPI_COMM_NULL),
                 OTF2_SUCCESS);
    CHECK_EQ_INT(OTF2_Archive_OpenEvtFiles(ar), OTF2_SUCCESS);
    OTF2_TimeStamp t0 = now_ts();
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)rank);
    CHECK(ew != NULL);
    OTF2_EvtWriter_Enter(ew, NULL, now_ts(), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    OTF2_EvtWriter_Leave(ew, NULL, now_ts(), 0);
    OTF2_TimeStamp t1 = now_ts();
    CHECK_EQ_INT(OTF2_Archive_CloseEvtWriter(ar, ew), OTF2_SUCCESS);
    CHECK_EQ_INT(OTF2_Archive_CloseEvtFiles(ar), OTF2_SUCCESS);
    CHECK_EQ_INT(OTF2_Archive_OpenDefFiles(ar), OTF2_SUCCESS);
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)rank);
    CHECK_EQ_INT(OTF2_Archive_CloseDefWriter(ar, dw), OTF2_SUCCESS);
    CHECK_EQ_INT(OTF2_Archive_CloseDefFiles(ar), OTF2_SUCCESS);

    uint64_t start, end;
    MPI_OK(MPI_Reduce(&t0, &start, 1, OTF2_MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce(&t1, &end, 1, OTF2_MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
        OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, start, end - start + 1,
                                                  OTF2_UNDEFINED_TIMESTAMP);
        OTF2_GlobalDefWriter_WriteString(gw, 0, "");
        OTF2_GlobalDefWriter_WriteString(gw, 1, "main");
        OTF2_GlobalDefWriter_WriteString(gw, 2, "node");
        OTF2_GlobalDefWriter_WriteString(gw, 3, "rank");
        OTF2_GlobalDefWriter_WriteRegion(gw, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
        OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
        for (int r = 0; r < size; r++) {
            OTF2_GlobalDefWriter_WriteLocationGroup(gw, (OTF2_LocationGroupRef)r, 3,
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                    OTF2_UNDEFINED_LOCATION_GROUP);
            OTF2_GlobalDefWriter_WriteLocation(gw, (OTF2_LocationRef)r, 3,
                                               OTF2_LOCATION_TYPE_CPU_THREAD, 2,
                                               (OTF2_LocationGroupRef)r);
        }
        CHECK_EQ_INT(OTF2_Archive_CloseGlobalDefWriter(ar, gw), OTF2_SUCCESS);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(OTF2_Archive_Close(ar), OTF2_SUCCESS);
    /* the master writes the anchor file while closing: wait for it */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* read back collectively */
    char anchor[320];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    CHECK(rd != NULL);
    if (rd) {
        CHECK_EQ_INT(OTF2_MPI_Reader_SetCollectiveCallbacks(rd, MPI_COMM_WORLD), OTF2_SUCCESS);
        uint64_t nloc = 0;
        CHECK_EQ_INT(OTF2_Reader_GetNumberOfLocations(rd, &nloc), OTF2_SUCCESS);
        CHECK_EQ_INT(nloc, size);
        CHECK_EQ_INT(OTF2_Reader_Close(rd), OTF2_SUCCESS);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK_EQ_INT(system(cmd), 0);
    }
}

int main(int argc, char **argv)
{
    int rank = check_init(&argc, &argv), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_callbacks(rank, size);
    test_archive(rank, size);
    return check_finish("test_otf2");
}
