/* hello: the smallest complete use of mpitev, both sides in one program.
 * The "MPI" side declares a source and an event type and raises instances; the "tool"
 * side registers a callback and a dropped handler, reads the instances, and frees the
 * registration. The toy MPI in examples/toy_mpi is the full-size reference. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <inttypes.h>
#include <stdio.h>

/* ---- MPI side ---- */
struct msg_sent {
    int32_t peer;
    int32_t tag;
    int64_t bytes;
};
static const mpitev_element msg_sent_elements[] = {
    MPITEV_ELEMENT_OF(struct msg_sent, peer, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg_sent, tag, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg_sent, bytes, MPITEV_DTYPE_INT64),
};
static mpitev_type ev_msg_sent;
static mpitev_source src_main;

static int declare_events(void) {
    int rc = mpitev_source_declare(&src_main, &(mpitev_source_desc){
        .name = "hello_main", .desc = "the program's only thread", .ordering = MPITEV_SOURCE_ORDERED });
    if (rc) return rc;
    return mpitev_type_declare(&ev_msg_sent, &(mpitev_type_desc){
        .name = "hello_msg_sent", .desc = "a message left for a peer",
        .verbosity = MPITEV_VERBOSITY_USER_BASIC, .bind = MPITEV_BIND_NO_OBJECT,
        .elements = msg_sent_elements, .num_elements = 3, .payload_size = sizeof(struct msg_sent) });
}

static void send_messages(int n) {
    for (int i = 0; i < n; i++)
        MPITEV_RAISE(&ev_msg_sent, &src_main, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE,
                     &(struct msg_sent){ i % 4, 100 + i, 1024 * (i + 1) });
}

/* ---- Tool side ---- */
static void on_msg_sent(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *user_data) {
    (void)reg; int32_t peer = 0, tag = 0;
    int64_t bytes = 0, ts = 0;
    mpitev_instance_read(inst, 0, &peer);
    mpitev_instance_read(inst, 1, &tag);
    mpitev_instance_read(inst, 2, &bytes);
    mpitev_instance_timestamp(inst, &ts);
    ++*(int *)user_data;
    printf("  [t=%" PRId64 " ns, safety %d] msg_sent peer=%d tag=%d bytes=%" PRId64 "\n", ts, cb_safety, peer,
           tag, bytes);
}

static void on_free(mpitev_reg reg, int cb_safety, void *user_data) {
    (void)reg; (void)cb_safety; printf("registration freed after %d instances\n", *(int *)user_data);
}

int main(void) {
    if (mpitev_init() || declare_events()) return 1;
    send_messages(3); /* nobody listens: one load and one branch each, payload not built */

    int idx, seen = 0;
    mpitev_reg reg;
    if (mpitev_type_get_index("hello_msg_sent", &idx) || mpitev_reg_alloc(idx, NULL, NULL, 0, &reg) ||
        mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_THREAD_SAFE, on_msg_sent, &seen, NULL, 0))
        return 1;
    printf("tool attached to event %d\n", idx);
    send_messages(4);
    mpitev_reg_free(reg, &seen, on_free);
    send_messages(2); /* nobody listens again */
    mpitev_finalize();
    return seen == 4 ? 0 : 1;
}
