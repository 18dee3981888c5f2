/* mpitev adapter detail: the MPI_ names (profiling interface, MPI-3.1 14.2 and 14.3.10).
 *
 * The PMPI_T_ functions are the strong definitions; each MPI_T_ name is a weak alias of
 * its PMPI_T_ twin (a weak alias, as MPI-3.1 Example 14.2 does with #pragma weak), so a tool that defines
 * its own MPI_T_event_get_num wins at link time and reaches ours as PMPI_T_event_get_num.
 * With MPITEV_ADAPTER_NO_WEAK the MPI_T_ names are strong forwarding functions instead. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_profiling.h is internal: include <mpitev/adapter.h> instead"
#endif

/* X(name, parameter list, argument list) for every function of 16.3.8. */
#define MPITEV__ADAPTER_FUNCTIONS(X)                                                                  \
    X(source_get_num, (int *num_sources), (num_sources))                                              \
    X(source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len,       \
                        MPI_T_source_order *ordering, MPI_Count *ticks_per_second,                    \
                        MPI_Count *max_ticks, MPI_Info *info),                                        \
      (source_index, name, name_len, desc, desc_len, ordering, ticks_per_second, max_ticks, info))    \
    X(source_get_timestamp, (int source_index, MPI_Count *timestamp), (source_index, timestamp))      \
    X(event_get_num, (int *num_events), (num_events))                                                 \
    X(event_get_info, (int event_index, char *name, int *name_len, int *verbosity,                    \
                       MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],          \
                       int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,           \
                       int *desc_len, int *bind),                                                     \
      (event_index, name, name_len, verbosity, array_of_datatypes, array_of_displacements,            \
       num_elements, enumtype, info, desc, desc_len, bind))                                           \
    X(event_get_index, (const char *name, int *event_index), (name, event_index))                     \
    X(event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info,                          \
                           MPI_T_event_registration *event_registration),                             \
      (event_index, obj_handle, info, event_registration))                                            \
    X(event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info),            \
      (event_registration, info))                                                                     \
    X(event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used),      \
      (event_registration, info_used))                                                                \
    X(event_register_callback, (MPI_T_event_registration event_registration,                          \
                                MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,            \
                                MPI_T_event_cb_function event_cb_function),                           \
      (event_registration, cb_safety, info, user_data, event_cb_function))                            \
    X(event_callback_set_info, (MPI_T_event_registration event_registration,                          \
                                MPI_T_cb_safety cb_safety, MPI_Info info),                            \
      (event_registration, cb_safety, info))                                                          \
    X(event_callback_get_info, (MPI_T_event_registration event_registration,                          \
                                MPI_T_cb_safety cb_safety, MPI_Info *info_used),                      \
      (event_registration, cb_safety, info_used))                                                     \
    X(event_handle_free, (MPI_T_event_registration event_registration, void *user_data,               \
                          MPI_T_event_free_cb_function free_cb_function),                             \
      (event_registration, user_data, free_cb_function))                                              \
    X(event_set_dropped_handler, (MPI_T_event_registration event_registration,                        \
                                  MPI_T_event_dropped_cb_function dropped_cb_function),               \
      (event_registration, dropped_cb_function))                                                      \
    X(event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer),             \
      (event_instance, element_index, buffer))                                                        \
    X(event_copy, (MPI_T_event_instance event_instance, void *buffer), (event_instance, buffer))      \
    X(event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp),         \
      (event_instance, event_timestamp))                                                              \
    X(event_get_source, (MPI_T_event_instance event_instance, int *source_index),                     \
      (event_instance, source_index))

#if defined(MPITEV_ADAPTER_NO_WEAK)
#define MPITEV__ADAPTER_MPI_NAME(name, params, args) \
    MPITEV_ADAPTER_EXPORT int MPI_T_##name params { return PMPI_T_##name args; }
MPITEV__ADAPTER_FUNCTIONS(MPITEV__ADAPTER_MPI_NAME)
#elif defined(__GNUC__)
/* The alias attribute rather than #pragma weak: clang does not merge a #pragma weak alias
 * with an mpi.h prototype carrying attributes (MPICH's visibility) and then reports every
 * call as ambiguous. */
#define MPITEV__ADAPTER_MPI_NAME(name, params, args) \
    MPITEV_ADAPTER_EXPORT int MPI_T_##name params __attribute__((weak, alias("PMPI_T_" #name)));
MPITEV__ADAPTER_FUNCTIONS(MPITEV__ADAPTER_MPI_NAME)
#else
#define MPITEV__ADAPTER_PRAGMA(x) _Pragma(#x)
#define MPITEV__ADAPTER_MPI_NAME(name, params, args) MPITEV__ADAPTER_PRAGMA(weak MPI_T_##name = PMPI_T_##name)
MPITEV__ADAPTER_FUNCTIONS(MPITEV__ADAPTER_MPI_NAME)
#endif
#undef MPITEV__ADAPTER_MPI_NAME
