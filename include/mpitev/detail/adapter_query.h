/* mpitev adapter detail: the query functions (16.3.8.1 event sources, 16.3.8.3 event
 * types) and the category helpers. All lock-free in the core. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_query.h is internal: include <mpitev/adapter.h> instead"
#endif

/* The hints a new registration of type_index starts with, as the core sets them: asked of
 * the core with a throw-away registration (no callback, so never listed for raises), so
 * MPI_T_event_get_info stays exact whatever defaults the core adds (today the delivery
 * mode, "mpitev_buffered"). */
static int mpitev__adapter_type_defaults(int type_index, MPI_Info *info) {
    mpitev__adapter_kvs kvs = { 0, 0, NULL, 0 };
    mpitev_reg reg;
    int rc = mpitev_reg_alloc(type_index, NULL, NULL, 0, &reg);
    if (rc) return mpitev__aerr(rc);
    rc = mpitev_reg_get_info(reg, mpitev__adapter_collect, &kvs);
    mpitev_reg_free(reg, NULL, NULL, NULL);
    if (!rc && kvs.failed) rc = MPITEV_ERR_NO_MEM;
    rc = rc ? mpitev__aerr(rc) : mpitev__adapter_info_make(kvs.kv, kvs.n, info);
    mpitev__adapter_kvs_free(&kvs);
    return rc;
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_get_num(int *num_events) {
    MPITEV__ADAPTER_CHECK_INIT();
    if (!num_events) return MPI_T_ERR_INVALID;
    return mpitev__aerr(mpitev_type_get_num(num_events));
}

MPITEV_ADAPTER_EXPORT int PMPI_T_event_get_index(const char *name, int *event_index) {
    MPITEV__ADAPTER_CHECK_INIT();
    if (!name || !event_index) return MPI_T_ERR_INVALID;
    return mpitev__aerr(mpitev_type_get_index(name, event_index));
}

/* Every OUT/INOUT argument may be NULL and is then ignored (16.3.8.3). num_elements NULL
 * also ignores both arrays; otherwise min(*num_elements, N) entries are written and
 * *num_elements becomes N. Nothing is written unless the call succeeds. */
MPITEV_ADAPTER_EXPORT int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                                               MPI_Datatype array_of_datatypes[],
                                               MPI_Aint array_of_displacements[], int *num_elements,
                                               MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                                               int *desc_len, int *bind) {
    MPITEV__ADAPTER_CHECK_INIT();
    mpitev_type_info ti;
    int rc = mpitev_type_get_info(event_index, &ti);
    if (rc) return mpitev__aerr(rc);
    if ((num_elements && *num_elements < 0) || !mpitev__adapter_str_ok(name, name_len) ||
        !mpitev__adapter_str_ok(desc, desc_len))
        return MPI_T_ERR_INVALID;
    if (info) {
        rc = mpitev__adapter_type_defaults(event_index, info);
        if (rc) return rc;
    }
    mpitev__adapter_str(ti.name, name, name_len);
    if (verbosity) *verbosity = MPITEV_ADAPTER_VERBOSITY(ti.verbosity);
    if (num_elements) {
        int k = *num_elements < ti.num_elements ? *num_elements : ti.num_elements;
        for (int i = 0; i < k; i++) {
            if (array_of_datatypes) array_of_datatypes[i] = MPITEV_ADAPTER_DATATYPE(ti.elements[i].dtype);
            if (array_of_displacements) array_of_displacements[i] = (MPI_Aint)ti.displacements[i];
        }
        *num_elements = ti.num_elements;
    }
    if (enumtype) *enumtype = ti.enumtype ? MPITEV_ADAPTER_ENUM(ti.enumtype) : MPI_T_ENUM_NULL;
    mpitev__adapter_str(ti.desc, desc, desc_len); /* "" -> desc[0] = '\0', *desc_len = 1 */
    if (bind) *bind = MPITEV_ADAPTER_BIND(ti.bind);
    return MPI_SUCCESS;
}

MPITEV_ADAPTER_EXPORT int PMPI_T_source_get_num(int *num_sources) {
    MPITEV__ADAPTER_CHECK_INIT();
    if (!num_sources) return MPI_T_ERR_INVALID;
    return mpitev__aerr(mpitev_source_get_num(num_sources));
}

/* As for event types, NULL OUT arguments are ignored (the standard says so for info; the
 * adapter extends it to all of them, as MPI_T_event_get_info does). The info object is
 * new and empty: sources have no hints (yet). */
MPITEV_ADAPTER_EXPORT int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                                                int *desc_len, MPI_T_source_order *ordering,
                                                MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                                                MPI_Info *info) {
    MPITEV__ADAPTER_CHECK_INIT();
    mpitev_source_info si;
    int rc = mpitev_source_get_info(source_index, &si);
    if (rc) return mpitev__aerr(rc);
    if (!mpitev__adapter_str_ok(name, name_len) || !mpitev__adapter_str_ok(desc, desc_len))
        return MPI_T_ERR_INVALID;
    if (info) {
        rc = mpitev__adapter_info_make(NULL, 0, info);
        if (rc) return rc;
    }
    mpitev__adapter_str(si.name, name, name_len);
    mpitev__adapter_str(si.desc, desc, desc_len);
    if (ordering) *ordering = si.ordering == MPITEV_SOURCE_ORDERED ? MPI_T_SOURCE_ORDERED : MPI_T_SOURCE_UNORDERED;
    if (ticks_per_second) *ticks_per_second = (MPI_Count)si.ticks_per_second;
    if (max_ticks) *max_ticks = (MPI_Count)si.max_ticks;
    return MPI_SUCCESS;
}

/* Table 22: never MPI_T_ERR_NOT_ACCESSIBLE; the core call is lock-free. */
MPITEV_ADAPTER_EXPORT int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp) {
    MPITEV__ADAPTER_CHECK_INIT();
    int64_t ts;
    int rc = mpitev_source_get_timestamp(source_index, timestamp ? &ts : NULL);
    if (rc == MPITEV_ERR_INVALID_ARG && !timestamp) return MPI_T_ERR_INVALID;
    if (rc) return mpitev__aerr(rc);
    *timestamp = (MPI_Count)ts;
    return MPI_SUCCESS;
}

/* ---- Category helpers (declared in mpitev/adapter.h). ---- */
static int mpitev__adapter_category_find(const char *name, int *index) {
    int n = 0;
    *index = -1;
    if (!name) return MPITEV_SUCCESS;
    int rc = mpitev_category_get_num(&n);
    for (int i = 0; !rc && i < n; i++) {
        const char *c = NULL;
        rc = mpitev_category_get_name(i, &c);
        if (!rc && c && strcmp(c, name) == 0) { *index = i; break; }
    }
    return rc;
}

MPITEV_API int mpitev_adapter_category_events(const char *category_name, int len, int indices[], int *num_events) {
    MPITEV__ADAPTER_CHECK_INIT();
    if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
    int ci, rc = mpitev__adapter_category_find(category_name, &ci);
    if (rc) return mpitev__aerr(rc);
    if (ci < 0) {
        if (num_events) *num_events = 0;
        return MPI_SUCCESS;
    }
    return mpitev__aerr(mpitev_category_get_events(ci, len, indices, num_events));
}

MPITEV_API int mpitev_adapter_category_num_events(const char *category_name, int *num_events) {
    if (!num_events) {
        MPITEV__ADAPTER_CHECK_INIT();
        return MPI_T_ERR_INVALID;
    }
    return mpitev_adapter_category_events(category_name, 0, NULL, num_events);
}
