/* mpitev adapter detail: reading an event instance inside a callback (16.3.8.6, 16.3.8.7).
 * These are Table 22 functions: lock-free, no allocation, never "not accessible", so
 * they may run at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE (MPITEV_ADAPTER_T_INITIALIZED must
 * then be a plain load, as documented). */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_instance.h is internal: include <mpitev/adapter.h> instead"
#endif

MPITEV_ADAPTER_EXPORT int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer) {
    MPITEV__ADAPTER_CHECK_INIT();
    return mpitev__aerr(mpitev_instance_read(MPITEV_ADAPTER_INSTANCE_FROM_MPI(event_instance), element_index, buffer));
}

/* Writes each element at its displacement and nothing else: the buffer need only be as
 * large as the extent a tool can compute from MPI_T_event_get_info (last displacement plus
 * the size of the last datatype), 16.3.8.6. The core's mpitev_instance_copy writes the
 * C struct's size, trailing padding included, so it is used only when the two agree. */
MPITEV_ADAPTER_EXPORT int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer) {
    MPITEV__ADAPTER_CHECK_INIT();
    const mpitev_instance *inst = MPITEV_ADAPTER_INSTANCE_FROM_MPI(event_instance);
    int type_index, rc = mpitev_instance_type(inst, &type_index);
    if (rc) return mpitev__aerr(rc);
    if (!buffer) return MPI_T_ERR_INVALID;
    mpitev_type_info ti;
    rc = mpitev_type_get_info(type_index, &ti);
    if (rc) return mpitev__aerr(rc);
    size_t end = 0;
    for (int i = 0; i < ti.num_elements; i++)
        if (ti.displacements[i] + ti.sizes[i] > end) end = ti.displacements[i] + ti.sizes[i];
    if (end == ti.extent) return mpitev__aerr(mpitev_instance_copy(inst, buffer));
    for (int i = 0; i < ti.num_elements && !rc; i++)
        rc = mpitev_instance_read(inst, i, (unsigned char *)buffer + ti.displacements[i]);
    return mpitev__aerr(rc);
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp) {
    MPITEV__ADAPTER_CHECK_INIT();
    int64_t ts;
    int rc = mpitev_instance_timestamp(MPITEV_ADAPTER_INSTANCE_FROM_MPI(event_instance), &ts);
    if (rc) return mpitev__aerr(rc);
    if (!event_timestamp) return MPI_T_ERR_INVALID;
    *event_timestamp = (MPI_Count)ts;
    return MPI_SUCCESS;
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index) {
    MPITEV__ADAPTER_CHECK_INIT();
    return mpitev__aerr(mpitev_instance_source(MPITEV_ADAPTER_INSTANCE_FROM_MPI(event_instance), source_index));
}
