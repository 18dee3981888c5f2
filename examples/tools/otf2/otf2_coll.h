/* otf2_coll.h -- OTF2's collective callbacks over MPI, for the tracer (otf2_coll.c). */
#ifndef MPITEV_TOOLS_OTF2_COLL_H
#define MPITEV_TOOLS_OTF2_COLL_H

#include <mpi.h>
#include <otf2/otf2.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden) /* see tc.h */
#endif

/* OTF2 leaves this type to the user. */
struct OTF2_CollectiveContext {
    MPI_Comm comm;
    int rank, size;
};

extern const OTF2_CollectiveCallbacks otf2_coll_callbacks;

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
