/* tc_comms.c -- the tools follow every communicator: PMPI wrappers of the calls that
 * create or free one. A communicator-bound event type needs one MPI_T registration per
 * communicator (MPI-4.1 16.3.8.4), so a tool that wants all of a program's traffic
 * registers on each new communicator as it appears and frees those registrations when
 * it goes (tc_core.c: tc_comm_follow / tc_comm_unfollow).
 *
 * MPI_Comm_dup, MPI_Comm_split and MPI_Comm_free are in every MPI, including the toy
 * MPI these tools are tested on. The other constructors of MPI-4.1 (groups, split by
 * type, non-blocking dup, intercommunicators, topologies, dynamic processes, sessions)
 * are compiled unless TC_DUP_SPLIT_ONLY is defined (the toy MPI's mpi.h has none of
 * them); a ctest test compiles this file against MPICH's mpi.h so they stay correct.
 * Those MPI-4.0 added (MPI_Comm_idup_with_info, MPI_Comm_create_from_group,
 * MPI_Intercomm_create_from_groups) only where mpi.h says MPI_VERSION >= 4: an MPI-3.1
 * library (Open MPI 4.1) has none of them, and a program calling none needs no wrapper.
 *
 * A new communicator is followed after the call returns successfully, MPI_COMM_NULL
 * excepted (processes outside the group, MPI_UNDEFINED colors). A non-blocking dup's
 * new handle is valid for MPI_T registration at once: registering only matches the
 * instances the MPI raises for it later. Freeing unfollows after the MPI's free, so the
 * MPI's own "communicator freed" event is still delivered. */
#include "tc.h"

static int follow(int rc, const MPI_Comm *newcomm)
{
    if (rc == MPI_SUCCESS && newcomm)
        tc_comm_follow(*newcomm, NULL);
    return rc;
}

/* After the MPI's free (or disconnect) of old succeeded. */
static int unfollow(int rc, MPI_Comm old)
{
    if (rc == MPI_SUCCESS)
        tc_comm_unfollow(old);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    MPI_Comm old = comm ? *comm : MPI_COMM_NULL;
    return unfollow(PMPI_Comm_free(comm), old);
}

#if !defined(TC_DUP_SPLIT_ONLY)
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return follow(PMPI_Comm_idup(comm, newcomm, request), newcomm);
}

#if MPI_VERSION >= 4
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return follow(PMPI_Comm_idup_with_info(comm, info, newcomm, request), newcomm);
}
#endif

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

#if MPI_VERSION >= 4
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_create_from_group(group, stringtag, info, errhandler, newcomm), newcomm);
}
#endif

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                         int tag, MPI_Comm *newintercomm)
{
    return follow(PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm),
                  newintercomm);
}

#if MPI_VERSION >= 4
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                     int remote_leader, const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    return follow(PMPI_Intercomm_create_from_groups(local_group, local_leader, remote_group, remote_leader,
                                                    stringtag, info, errhandler, newintercomm),
                  newintercomm);
}
#endif

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    return follow(PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm);
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart)
{
    return follow(PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart), comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    return follow(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *comm_graph)
{
    return follow(PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    return follow(PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                         comm_dist_graph),
                  comm_dist_graph);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int destinations[],
                                   const int destweights[], MPI_Info info, int reorder,
                                   MPI_Comm *comm_dist_graph)
{
    return follow(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                                  destinations, destweights, info, reorder, comm_dist_graph),
                  comm_dist_graph);
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_accept(port_name, info, root, comm, newcomm), newcomm);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    return follow(PMPI_Comm_connect(port_name, info, root, comm, newcomm), newcomm);
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    return follow(PMPI_Comm_join(fd, intercomm), intercomm);
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                   MPI_Comm *intercomm, int array_of_errcodes[])
{
    return follow(PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes),
                  intercomm);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return follow(PMPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs,
                                           array_of_info, root, comm, intercomm, array_of_errcodes),
                  intercomm);
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    MPI_Comm old = comm ? *comm : MPI_COMM_NULL;
    return unfollow(PMPI_Comm_disconnect(comm), old);
}
#endif
