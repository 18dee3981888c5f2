/* tc_wins.c -- the tools follow every window as they follow communicators: PMPI
 * wrappers of the calls that create or free one. A window-bound event type (the
 * catalogue's one-sided events, win_free) needs one MPI_T registration per window
 * (MPI-4.1 16.3.8.4), so the tool registers each selected MPI_WIN-bound type on each new
 * window and frees those registrations when the window goes (tc_core.c: tc_win_follow /
 * tc_win_unfollow). The catalogue's win_create is bound to the communicator the window
 * is created over, so it reaches the tool through that communicator's registration.
 *
 * MPI_Win_create, MPI_Win_allocate and MPI_Win_free are wrapped unless TC_NO_WIN is
 * defined (an mpi.h without windows). MPI_Win_allocate_shared, MPI_Win_create_dynamic and
 * the large-count forms (_c) are wrapped unless TC_WIN_BASIC_ONLY is defined (the toy
 * MPI has none of them), the large-count forms only where mpi.h says MPI_VERSION >= 4
 * (MPI-4.0 added them; Open MPI 4.1 is MPI-3.1); a ctest test compiles this file
 * against MPICH's mpi.h.
 *
 * A new window is followed after the call returns successfully; its members' ranks in
 * MPI_COMM_WORLD come from the groups (MPI_Comm_group, MPI_Group_translate_ranks). Under
 * TC_WIN_BASIC_ONLY (no groups either), a window over as many processes as
 * MPI_COMM_WORLD is taken to have world rank i as its rank i, and any other window's
 * members are not known (tc.h, struct tc_win). Freeing unfollows after the MPI's free,
 * so the MPI's win_free event is still delivered. */
#include "tc.h"

#include <stdlib.h>

#if !defined(TC_NO_WIN)

#if !defined(TC_WIN_BASIC_ONLY)
static int *members(MPI_Comm comm, int n)
{
    MPI_Group g, world_group;
    int *ranks = malloc((size_t)n * sizeof *ranks), *world = malloc((size_t)n * sizeof *world);
    if (!ranks || !world || PMPI_Comm_group(comm, &g) != MPI_SUCCESS) {
        free(ranks), free(world);
        return NULL;
    }
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int k = 0; k < n; k++)
        ranks[k] = k;
    if (PMPI_Group_translate_ranks(g, n, ranks, world_group, world) != MPI_SUCCESS) {
        free(world);
        world = NULL;
    }
    PMPI_Group_free(&g);
    PMPI_Group_free(&world_group);
    free(ranks);
    return world;
}
#else
static int *members(MPI_Comm comm, int n)
{
    int world_size = 0;
    (void)comm;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int *world = n == world_size ? malloc((size_t)n * sizeof *world) : NULL;
    for (int k = 0; world && k < n; k++)
        world[k] = k;
    return world;
}
#endif

static int follow(int rc, const MPI_Win *win, MPI_Comm comm, long long bytes)
{
    int n = 0;
    if (rc != MPI_SUCCESS || !win || *win == MPI_WIN_NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
        return rc;
    int *world = members(comm, n);
    tc_win_follow(*win, comm, bytes, world);
    free(world);
    return rc;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return follow(PMPI_Win_create(base, size, disp_unit, info, comm, win), win, comm, (long long)size);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return follow(PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win), win, comm, (long long)size);
}

int MPI_Win_free(MPI_Win *win)
{
    MPI_Win old = win ? *win : MPI_WIN_NULL;
    int rc = PMPI_Win_free(win);
    if (rc == MPI_SUCCESS && old != MPI_WIN_NULL)
        tc_win_unfollow(old);
    return rc;
}

#if !defined(TC_WIN_BASIC_ONLY)
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win)
{
    return follow(PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win), win, comm,
                  (long long)size);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return follow(PMPI_Win_create_dynamic(info, comm, win), win, comm, 0);
}

/* The large-count forms are MPI-4.0's (not in an MPI-3.1 mpi.h: Open MPI 4.1). */
#if MPI_VERSION >= 4
int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return follow(PMPI_Win_create_c(base, size, disp_unit, info, comm, win), win, comm, (long long)size);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                       MPI_Win *win)
{
    return follow(PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win), win, comm, (long long)size);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                              MPI_Win *win)
{
    return follow(PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win), win, comm,
                  (long long)size);
}
#endif
#endif

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int tc_wins_not_built;
#endif
