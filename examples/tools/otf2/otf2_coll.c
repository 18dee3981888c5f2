/* otf2_coll.c -- OTF2's collective callbacks over MPI (PMPI_* on the tracer's private
 * communicator, so the program's own traffic and events are not touched).
 *
 * Written here rather than taken from <otf2/OTF2_MPI_Collectives.h>: in OTF2 3.0 that
 * header's gatherv/scatterv callbacks fill only the displacements of ranks below the
 * root and leave the rest uninitialised (see examples/toy_mpi/tests/test_otf2.c). These
 * compute every displacement from the counts. */
#include "otf2_coll.h"

#include <stdlib.h>

static MPI_Datatype mpi_type(OTF2_Type t)
{
    switch (t) {
    case OTF2_TYPE_UINT8: return MPI_UINT8_T;
    case OTF2_TYPE_UINT16: return MPI_UINT16_T;
    case OTF2_TYPE_UINT32: return MPI_UINT32_T;
    case OTF2_TYPE_UINT64: return MPI_UINT64_T;
    case OTF2_TYPE_INT8: return MPI_INT8_T;
    case OTF2_TYPE_INT16: return MPI_INT16_T;
    case OTF2_TYPE_INT32: return MPI_INT32_T;
    case OTF2_TYPE_INT64: return MPI_INT64_T;
    case OTF2_TYPE_FLOAT: return MPI_FLOAT;
    case OTF2_TYPE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

#define OK(call) ((call) == MPI_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR)

static OTF2_CallbackCode get_size(void *ud, OTF2_CollectiveContext *c, uint32_t *size)
{
    (void)ud;
    *size = (uint32_t)c->size;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode get_rank(void *ud, OTF2_CollectiveContext *c, uint32_t *rank)
{
    (void)ud;
    *rank = (uint32_t)c->rank;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode barrier(void *ud, OTF2_CollectiveContext *c)
{
    (void)ud;
    return OK(PMPI_Barrier(c->comm));
}

static OTF2_CallbackCode bcast(void *ud, OTF2_CollectiveContext *c, void *data, uint32_t n, OTF2_Type t,
                               uint32_t root)
{
    (void)ud;
    return OK(PMPI_Bcast(data, (int)n, mpi_type(t), (int)root, c->comm));
}

static OTF2_CallbackCode gather(void *ud, OTF2_CollectiveContext *c, const void *in, void *out, uint32_t n,
                                OTF2_Type t, uint32_t root)
{
    (void)ud;
    return OK(PMPI_Gather(in, (int)n, mpi_type(t), out, (int)n, mpi_type(t), (int)root, c->comm));
}

static OTF2_CallbackCode scatter(void *ud, OTF2_CollectiveContext *c, const void *in, void *out, uint32_t n,
                                 OTF2_Type t, uint32_t root)
{
    (void)ud;
    return OK(PMPI_Scatter(in, (int)n, mpi_type(t), out, (int)n, mpi_type(t), (int)root, c->comm));
}

/* counts and displacements for the root (NULL elsewhere) */
static int vector(OTF2_CollectiveContext *c, const uint32_t *counts, uint32_t root, int **cnt, int **dsp)
{
    *cnt = *dsp = NULL;
    if ((uint32_t)c->rank != root)
        return 0;
    *cnt = malloc((size_t)c->size * sizeof **cnt);
    *dsp = malloc((size_t)c->size * sizeof **dsp);
    if (!*cnt || !*dsp) {
        free(*cnt), free(*dsp);
        return -1;
    }
    int d = 0;
    for (int i = 0; i < c->size; i++) {
        (*cnt)[i] = (int)counts[i];
        (*dsp)[i] = d;
        d += (int)counts[i];
    }
    return 0;
}

static OTF2_CallbackCode gatherv(void *ud, OTF2_CollectiveContext *c, const void *in, uint32_t n, void *out,
                                 const uint32_t *counts, OTF2_Type t, uint32_t root)
{
    (void)ud;
    int *cnt, *dsp;
    if (vector(c, counts, root, &cnt, &dsp) != 0)
        return OTF2_CALLBACK_ERROR;
    int rc = PMPI_Gatherv(in, (int)n, mpi_type(t), out, cnt, dsp, mpi_type(t), (int)root, c->comm);
    free(cnt), free(dsp);
    return OK(rc);
}

static OTF2_CallbackCode scatterv(void *ud, OTF2_CollectiveContext *c, const void *in, const uint32_t *counts,
                                  void *out, uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)ud;
    int *cnt, *dsp;
    if (vector(c, counts, root, &cnt, &dsp) != 0)
        return OTF2_CALLBACK_ERROR;
    int rc = PMPI_Scatterv(in, cnt, dsp, mpi_type(t), out, (int)n, mpi_type(t), (int)root, c->comm);
    free(cnt), free(dsp);
    return OK(rc);
}

const OTF2_CollectiveCallbacks otf2_coll_callbacks = {
    .otf2_release = NULL,
    .otf2_get_size = get_size,
    .otf2_get_rank = get_rank,
    .otf2_create_local_comm = NULL,
    .otf2_free_local_comm = NULL,
    .otf2_barrier = barrier,
    .otf2_bcast = bcast,
    .otf2_gather = gather,
    .otf2_gatherv = gatherv,
    .otf2_scatter = scatter,
    .otf2_scatterv = scatterv,
};
