/* mpitev adapter detail: registration handles (16.3.8.4) and dropped handlers (16.3.8.5).
 *
 * The tool's MPI_T callback is not wrapped in an allocated closure: the adapter registers
 * one trampoline per callback kind and passes the tool's function as the core's opaque
 * `ext` pointer, which the core stores next to user_data and hands back untouched. The
 * trampoline converts the core's arguments to the MPI's types and calls it. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_handle.h is internal: include <mpitev/adapter.h> instead"
#endif

static void mpitev__adapter_event_tramp(const mpitev_instance *inst, mpitev_reg reg, int cb_safety,
                                        void *user_data, mpitev_fnptr ext) {
    MPI_T_event_cb_function *fn = (MPI_T_event_cb_function *)ext;
    fn(MPITEV_ADAPTER_INSTANCE_TO_MPI(inst), MPITEV_ADAPTER_REG_TO_MPI(reg.bits),
       mpitev__adapter_safety_out(cb_safety), user_data);
}

static void mpitev__adapter_dropped_tramp(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety,
                                          void *user_data, mpitev_fnptr ext) {
    MPI_T_event_dropped_cb_function *fn = (MPI_T_event_dropped_cb_function *)ext;
    fn((MPI_Count)count, MPITEV_ADAPTER_REG_TO_MPI(reg.bits), source_index,
       mpitev__adapter_safety_out(cb_safety), user_data);
}

static void mpitev__adapter_free_tramp(mpitev_reg reg, int cb_safety, void *user_data, mpitev_fnptr ext) {
    MPI_T_event_free_cb_function *fn = (MPI_T_event_free_cb_function *)ext;
    fn(MPITEV_ADAPTER_REG_TO_MPI(reg.bits), mpitev__adapter_safety_out(cb_safety), user_data);
}

/* Initialised and the handle is current (the core re-checks under its mutex; this early
 * check makes a bad handle win over a bad info or safety argument). */
#define MPITEV__ADAPTER_CHECK_REG(h)                                               \
    do {                                                                           \
        MPITEV__ADAPTER_CHECK_INIT();                                              \
        if (!mpitev_reg_is_valid(mpitev__adapter_reg(h))) return MPI_T_ERR_INVALID_HANDLE; \
    } while (0)

MPITEV_ADAPTER_EXPORT int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                                   MPI_T_event_registration *event_registration) {
    MPITEV__ADAPTER_CHECK_INIT();
    mpitev_type_info ti;
    int rc = mpitev_type_get_info(event_index, &ti);
    if (rc) return mpitev__aerr(rc);
    if (!event_registration) return MPI_T_ERR_INVALID;
    const void *key = NULL;
    if (ti.bind != MPITEV_BIND_NO_OBJECT) { /* else obj_handle is ignored, as 16.3.8.4 says */
        if (!obj_handle) return MPI_T_ERR_INVALID;
        rc = MPITEV_ADAPTER_OBJECT_KEY(ti.bind, obj_handle, &key);
        if (rc != MPI_SUCCESS) return rc;
    }
    mpitev__adapter_kvs kvs;
    rc = mpitev__adapter_info_read(info, &kvs);
    if (rc) return rc;
    mpitev_reg reg;
    rc = mpitev_reg_alloc(event_index, key, kvs.kv, kvs.n, &reg);
    mpitev__adapter_kvs_free(&kvs);
    if (rc) return mpitev__aerr(rc);
    *event_registration = MPITEV_ADAPTER_REG_TO_MPI(reg.bits);
    return MPI_SUCCESS;
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
    MPITEV__ADAPTER_CHECK_REG(event_registration);
    mpitev__adapter_kvs kvs;
    int rc = mpitev__adapter_info_read(info, &kvs);
    if (rc) return rc;
    rc = mpitev_reg_set_info(mpitev__adapter_reg(event_registration), kvs.kv, kvs.n);
    mpitev__adapter_kvs_free(&kvs);
    return mpitev__aerr(rc);
}

/* Copy the pairs out under the core's mutex, build the MPI_Info outside it. */
static int mpitev__adapter_info_used(MPI_T_event_registration h, int cb_level, MPI_Info *info_used) {
    mpitev__adapter_kvs kvs = { 0, 0, NULL, 0 };
    mpitev_reg reg = mpitev__adapter_reg(h);
    int rc = cb_level < 0 ? mpitev_reg_get_info(reg, mpitev__adapter_collect, &kvs)
                          : mpitev_reg_callback_get_info(reg, cb_level, mpitev__adapter_collect, &kvs);
    if (!rc && kvs.failed) rc = MPITEV_ERR_NO_MEM;
    rc = rc ? mpitev__aerr(rc) : mpitev__adapter_info_make(kvs.kv, kvs.n, info_used);
    mpitev__adapter_kvs_free(&kvs);
    return rc;
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                                      MPI_Info *info_used) {
    MPITEV__ADAPTER_CHECK_REG(event_registration);
    if (!info_used) return MPI_T_ERR_INVALID;
    return mpitev__adapter_info_used(event_registration, -1, info_used);
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                                        MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                                        MPI_T_event_cb_function event_cb_function) {
    MPITEV__ADAPTER_CHECK_REG(event_registration);
    int level = mpitev__adapter_safety_in(cb_safety);
    if (level < 0) return MPI_T_ERR_INVALID;
    mpitev__adapter_kvs kvs;
    int rc = mpitev__adapter_info_read(info, &kvs);
    if (rc) return rc;
    /* NULL removes the callback of that level (and its hints). */
    rc = mpitev_reg_set_callback(mpitev__adapter_reg(event_registration), level,
                                 event_cb_function ? mpitev__adapter_event_tramp : NULL, user_data,
                                 (mpitev_fnptr)event_cb_function, kvs.kv, kvs.n);
    mpitev__adapter_kvs_free(&kvs);
    return mpitev__aerr(rc);
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                                        MPI_T_cb_safety cb_safety, MPI_Info info) {
    MPITEV__ADAPTER_CHECK_REG(event_registration);
    int level = mpitev__adapter_safety_in(cb_safety);
    if (level < 0) return MPI_T_ERR_INVALID;
    mpitev__adapter_kvs kvs;
    int rc = mpitev__adapter_info_read(info, &kvs);
    if (rc) return rc;
    rc = mpitev_reg_callback_set_info(mpitev__adapter_reg(event_registration), level, kvs.kv, kvs.n);
    mpitev__adapter_kvs_free(&kvs);
    return mpitev__aerr(rc);
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                                        MPI_T_cb_safety cb_safety, MPI_Info *info_used) {
    MPITEV__ADAPTER_CHECK_REG(event_registration);
    int level = mpitev__adapter_safety_in(cb_safety);
    if (level < 0 || !info_used) return MPI_T_ERR_INVALID;
    return mpitev__adapter_info_used(event_registration, level, info_used);
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                                                  MPI_T_event_free_cb_function free_cb_function) {
    MPITEV__ADAPTER_CHECK_INIT();
    return mpitev__aerr(mpitev_reg_free(mpitev__adapter_reg(event_registration), user_data,
                                        free_cb_function ? mpitev__adapter_free_tramp : NULL,
                                        (mpitev_fnptr)free_cb_function));
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                                          MPI_T_event_dropped_cb_function dropped_cb_function) {
    MPITEV__ADAPTER_CHECK_INIT();
    return mpitev__aerr(mpitev_reg_set_dropped_handler(mpitev__adapter_reg(event_registration),
                                                       dropped_cb_function ? mpitev__adapter_dropped_tramp : NULL,
                                                       (mpitev_fnptr)dropped_cb_function));
}
