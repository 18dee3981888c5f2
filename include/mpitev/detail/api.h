/* mpitev detail: the public functions. Concurrency contract per function is in
 * docs/design.md ("Who may race with whom"); the short form is given here. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/api.h is internal: include <mpitev/mpitev.h> instead"
#endif
#ifndef MPITEV_DETAIL_API_H
#define MPITEV_DETAIL_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Lifecycle. Not concurrent with anything else of mpitev. ---- */
/* Replace the allocator. Only while not initialised (else MPITEV_ERR_NOT_SUPPORTED);
 * NULL restores malloc/free. */
MPITEV_API int mpitev_set_allocator(const mpitev_allocator *allocator);
/* Reference counted: the first call creates the registry, the matching last
 * mpitev_finalize destroys it (pending free callbacks run, live registrations go). */
MPITEV_API int mpitev_init(void);
MPITEV_API int mpitev_finalize(void);
MPITEV_API int mpitev_initialized(void);

/* ---- Declarations (implementor side). Safe concurrently with raises, queries and
 * registrations; the storage passed must stay valid and in place until finalize. ---- */
MPITEV_API int mpitev_source_declare(mpitev_source *source, const mpitev_source_desc *desc);
MPITEV_API int mpitev_type_declare(mpitev_type *type, const mpitev_type_desc *desc);
/* Index of a declared type or source (-1 if not declared). */
MPITEV_API int mpitev_type_index(const mpitev_type *type);
MPITEV_API int mpitev_source_index(const mpitev_source *source);

/* ---- Queries (tool side). Lock-free; safe concurrently with everything but finalize. */
MPITEV_API int mpitev_type_get_num(int *num_types);
MPITEV_API int mpitev_type_get_info(int type_index, mpitev_type_info *info);
MPITEV_API int mpitev_type_get_index(const char *name, int *type_index);
MPITEV_API int mpitev_source_get_num(int *num_sources);
MPITEV_API int mpitev_source_get_info(int source_index, mpitev_source_info *info);
MPITEV_API int mpitev_source_get_timestamp(int source_index, int64_t *timestamp);
/* The default clock (CLOCK_MONOTONIC, nanoseconds), to copy or wrap in a source desc. */
MPITEV_API const mpitev_clock *mpitev_clock_monotonic(void);
/* x86-64 invariant TSC (rdtsc), ticks_per_second calibrated against CLOCK_MONOTONIC on
 * the first call (20 ms); NULL where unavailable. Pass it as mpitev_source_desc.clock. */
MPITEV_API const mpitev_clock *mpitev_clock_tsc(void);
/* Categories named by event types, in first-declared order (the adapter builds
 * MPI_T_category_get_num_events/_get_events for an MPI from these). */
MPITEV_API int mpitev_category_get_num(int *num_categories);
MPITEV_API int mpitev_category_get_name(int category_index, const char **name);
MPITEV_API int mpitev_category_get_events(int category_index, int len, int indices[], int *num_events);

/* ---- Registrations (tool side). Each may race with raises on any thread and with other
 * registration calls; writers serialise on one registry mutex, raises never take it. ---- */
/* object: the key the raise site passes for the bound object (ignored, may be NULL,
 * for MPITEV_BIND_NO_OBJECT types). info: n key/value hints (n may be 0). */
MPITEV_API int mpitev_reg_alloc(int type_index, const void *object, const mpitev_kv *info,
                                int ninfo, mpitev_reg *reg);
MPITEV_API int mpitev_reg_set_info(mpitev_reg reg, const mpitev_kv *info, int ninfo);
MPITEV_API int mpitev_reg_get_info(mpitev_reg reg, mpitev_kv_visit_fn visit, void *ctx);
/* Set (fn != NULL) or remove (fn == NULL) the callback for safety level cb_safety. */
MPITEV_API int mpitev_reg_set_callback(mpitev_reg reg, int cb_safety, mpitev_event_cb fn,
                                       void *user_data, mpitev_fnptr ext,
                                       const mpitev_kv *info, int ninfo);
MPITEV_API int mpitev_reg_callback_set_info(mpitev_reg reg, int cb_safety,
                                            const mpitev_kv *info, int ninfo);
MPITEV_API int mpitev_reg_callback_get_info(mpitev_reg reg, int cb_safety,
                                            mpitev_kv_visit_fn visit, void *ctx);
/* NULL stops recording drops (and forgets unreported ones). */
MPITEV_API int mpitev_reg_set_dropped_handler(mpitev_reg reg, mpitev_dropped_cb fn,
                                              mpitev_fnptr ext);
/* Starts deallocation: the handle is invalid on return. free_cb (may be NULL) runs once,
 * when no further instance for reg can be delivered: at once when no raise is in flight,
 * else from a later mpitev_progress() / drain / registry call, or at finalize. */
MPITEV_API int mpitev_reg_free(mpitev_reg reg, void *user_data, mpitev_free_cb free_cb,
                               mpitev_fnptr ext);
MPITEV_API int mpitev_reg_get_type(mpitev_reg reg, int *type_index);
MPITEV_API int mpitev_reg_is_valid(mpitev_reg reg);

/* Runs deferred work whose time has come (free callbacks after their grace period),
 * calling tool code at safety level cb_safety. The MPI progress engine calls this (or
 * mpitev_source_drain, which includes it). Returns the number of free callbacks run. */
MPITEV_API int mpitev_progress(int cb_safety);

/* ---- Buffered delivery (docs/buffers.md). ---- */
/* Called by the MPI progress engine: delivers up to max buffered records of source
 * (max < 0: until the buffer is empty; MPITEV_DRAIN_ALL) in raise order, calling tool
 * code at safety level cb_safety, then runs the deferred work of mpitev_progress.
 * Returns the number of callbacks run (>= 0), or -MPITEV_ERR_* (NOT_INITIALIZED;
 * INVALID_ARG: NULL or undeclared source, bad cb_safety). Lock-free against raises into
 * the same source; one drainer at a time per source: a concurrent or nested drain of
 * the same source returns 0 at once. A record is one instance for up to
 * MPITEV_BUFFER_REGS_PER_RECORD registrations (default 4). */
MPITEV_API int mpitev_source_drain(mpitev_source *source, int max, int cb_safety);
#define MPITEV_DRAIN_ALL (-1)

/* ---- Inside a callback (Table 22 functions: never "not accessible"). ---- */
MPITEV_API int mpitev_instance_read(const mpitev_instance *instance, int element_index, void *buffer);
MPITEV_API int mpitev_instance_copy(const mpitev_instance *instance, void *buffer);
MPITEV_API int mpitev_instance_timestamp(const mpitev_instance *instance, int64_t *timestamp);
MPITEV_API int mpitev_instance_source(const mpitev_instance *instance, int *source_index);
MPITEV_API int mpitev_instance_type(const mpitev_instance *instance, int *type_index);

/* ---- The raise slow path (called by MPITEV_RAISE only; ts: the source's clock read
 * at the raise site, see raise.h). ---- */
MPITEV_API void mpitev__raise(mpitev_type *type, mpitev_source *source, const void *object,
                              int cb_safety, const void *payload, int64_t ts);

#ifdef __cplusplus
}
#endif

#endif /* MPITEV_DETAIL_API_H */
