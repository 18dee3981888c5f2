/* test_comm: communicator management and isolation.
 *  - dup/split produce communicators whose messages never cross-match,
 *    even with identical (source, tag) on every communicator
 *  - split color/key ordering, MPI_UNDEFINED, compare, names, free
 *  - MPI_COMM_SELF, MPI_Comm_get_attr(MPI_TAG_UB) */
#include <string.h>

#include "toympi_check.h"

int main(int argc, char **argv)
{
    int rank = check_init(&argc, &argv), size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup1, dup2;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup1));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup2));
    CHECK(dup1 != MPI_COMM_WORLD && dup2 != dup1);
    int res;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup1, &res));
    CHECK_EQ_INT(res, MPI_CONGRUENT);
    MPI_OK(MPI_Comm_compare(dup1, dup1, &res));
    CHECK_EQ_INT(res, MPI_IDENT);
    int r, s;
    MPI_OK(MPI_Comm_rank(dup1, &r));
    MPI_OK(MPI_Comm_size(dup1, &s));
    CHECK_EQ_INT(r, rank);
    CHECK_EQ_INT(s, size);

    /* same source and tag on three communicators: each receive must get
     * the message of its own communicator, whatever the posting order */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Comm comms[3] = {MPI_COMM_WORLD, dup1, dup2};
    MPI_Request rq[6];
    int out[3], in[3] = {-1, -1, -1};
    for (int k = 0; k < 3; k++) {
        out[k] = 1000 * k + rank;
        MPI_OK(MPI_Isend(&out[k], 1, MPI_INT, right, 5, comms[k], &rq[k]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* messages are now unexpected */
    for (int k = 2; k >= 0; k--)
        MPI_OK(MPI_Irecv(&in[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[k], &rq[3 + k]));
    MPI_OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++)
        CHECK_EQ_INT(in[k], 1000 * k + left);
    /* posted first, then sent */
    for (int k = 0; k < 3; k++)
        MPI_OK(MPI_Irecv(&in[k], 1, MPI_INT, left, 6, comms[k], &rq[3 + k]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 2; k >= 0; k--)
        MPI_OK(MPI_Isend(&out[k], 1, MPI_INT, right, 6, comms[k], &rq[k]));
    MPI_OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++)
        CHECK_EQ_INT(in[k], 1000 * k + left);
    /* Iprobe on dup2 must not see a message sent on dup1 */
    if (size > 1) {
        if (rank == 0)
            MPI_OK(MPI_Send(&rank, 1, MPI_INT, 1, 9, dup1));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            int flag = 1, v = -1;
            MPI_OK(MPI_Iprobe(0, 9, dup2, &flag, MPI_STATUS_IGNORE));
            CHECK_EQ_INT(flag, 0);
            MPI_OK(MPI_Iprobe(0, 9, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK_EQ_INT(flag, 0);
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 9, dup1, MPI_STATUS_IGNORE));
            CHECK_EQ_INT(v, 0);
        }
    }

    /* split: even/odd, ordered by descending world rank */
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    int hr, hs;
    MPI_OK(MPI_Comm_rank(half, &hr));
    MPI_OK(MPI_Comm_size(half, &hs));
    int expect_size = (size + (rank % 2 == 0)) / 2;
    CHECK_EQ_INT(hs, expect_size);
    /* highest world rank of my color gets half-rank 0 */
    int members_above = 0;
    for (int i = rank + 1; i < size; i++)
        members_above += (i % 2 == rank % 2);
    CHECK_EQ_INT(hr, members_above);
    /* half-rank 0 broadcasts its world rank */
    int wr = rank;
    MPI_OK(MPI_Bcast(&wr, 1, MPI_INT, 0, half));
    int highest = rank;
    while (highest + 2 < size)
        highest += 2;
    CHECK_EQ_INT(wr, highest);
    /* messages on half use half ranks; same tag as on world */
    if (hs > 1) {
        int hright = (hr + 1) % hs, hleft = (hr - 1 + hs) % hs, v = -1;
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, hright, 5, &v, 1, MPI_INT, hleft, 5, half, &st));
        CHECK_EQ_INT(st.MPI_SOURCE, hleft);
        CHECK_EQ_INT(v % 2, rank % 2);
    }
    MPI_OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &res));
    CHECK(size == 1 ? res == MPI_CONGRUENT : res == MPI_UNEQUAL);

    /* MPI_UNDEFINED color */
    MPI_Comm none;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none));
    if (rank == 0) {
        CHECK(none != MPI_COMM_NULL);
        MPI_OK(MPI_Comm_size(none, &s));
        CHECK_EQ_INT(s, 1);
        MPI_OK(MPI_Comm_free(&none));
    } else {
        CHECK_EQ_INT(none, MPI_COMM_NULL);
    }

    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
    MPI_OK(MPI_Comm_set_name(dup1, "my dup"));
    MPI_OK(MPI_Comm_get_name(dup1, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6);

    /* self */
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &s));
    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &r));
    CHECK(s == 1 && r == 0);

    int *tag_ub, flag;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767);

    /* many dup/free cycles reuse context ids */
    for (int i = 0; i < 300; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_dup(half, &c));
        MPI_OK(MPI_Comm_free(&c));
        CHECK_EQ_INT(c, MPI_COMM_NULL);
    }
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_free(&dup1));
    MPI_OK(MPI_Comm_free(&dup2));
    CHECK_EQ_INT(dup1, MPI_COMM_NULL);
    return check_finish("test_comm");
}
