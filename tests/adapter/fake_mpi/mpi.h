/* A fake "test MPI" header for the adapter tests. It makes type choices different from
 * MPICH on purpose, so the adapter is seen to rely only on names:
 *   - MPI_Datatype: int handles with arbitrary values; MPI_Comm: a struct pointer;
 *   - MPI_Info: a pointer to a struct, MPI_INFO_NULL is NULL;
 *   - MPI_T_cb_safety, verbosity and bind constants numbered from odd bases;
 *   - error classes with their own values; MPI_Count is long long.
 * Only what the adapter and the tests use is here. */
#ifndef FAKEMPI_MPI_H
#define FAKEMPI_MPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 4
#define MPI_SUBVERSION 1

typedef int MPI_Datatype;
typedef struct fakempi_comm *MPI_Comm;
typedef struct fakempi_info *MPI_Info;
typedef int MPI_Errhandler;
typedef int MPI_Op;
typedef int MPI_Request;
typedef intptr_t MPI_Aint;
typedef long long MPI_Count;

#define MPI_SUCCESS 0
#define MPI_ERR_ARG 12
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_NO_MEM 21
#define MPI_T_ERR_MEMORY 101
#define MPI_T_ERR_NOT_INITIALIZED 102
#define MPI_T_ERR_CANNOT_INIT 103
#define MPI_T_ERR_INVALID_INDEX 104
#define MPI_T_ERR_INVALID_ITEM 105
#define MPI_T_ERR_INVALID_HANDLE 106
#define MPI_T_ERR_INVALID_NAME 107
#define MPI_T_ERR_INVALID 108
#define MPI_T_ERR_NOT_ACCESSIBLE 109
#define MPI_T_ERR_NOT_SUPPORTED 110

#define MPI_DATATYPE_NULL ((MPI_Datatype)7000)
#define MPI_CHAR ((MPI_Datatype)7001)
#define MPI_SIGNED_CHAR ((MPI_Datatype)7002)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)7003)
#define MPI_SHORT ((MPI_Datatype)7004)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)7005)
#define MPI_INT ((MPI_Datatype)7006)
#define MPI_UNSIGNED ((MPI_Datatype)7007)
#define MPI_LONG ((MPI_Datatype)7008)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)7009)
#define MPI_LONG_LONG ((MPI_Datatype)7010)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)7011)
#define MPI_FLOAT ((MPI_Datatype)7012)
#define MPI_DOUBLE ((MPI_Datatype)7013)
#define MPI_INT8_T ((MPI_Datatype)7014)
#define MPI_INT16_T ((MPI_Datatype)7015)
#define MPI_INT32_T ((MPI_Datatype)7016)
#define MPI_INT64_T ((MPI_Datatype)7017)
#define MPI_UINT8_T ((MPI_Datatype)7018)
#define MPI_UINT16_T ((MPI_Datatype)7019)
#define MPI_UINT32_T ((MPI_Datatype)7020)
#define MPI_UINT64_T ((MPI_Datatype)7021)
#define MPI_AINT ((MPI_Datatype)7022)
#define MPI_COUNT ((MPI_Datatype)7023)
#define MPI_OFFSET ((MPI_Datatype)7024)

#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* ---- MPI_T ---- */
typedef struct fakempi_enum *MPI_T_enum;
typedef struct fakempi_event_registration *MPI_T_event_registration;
typedef struct fakempi_event_instance *MPI_T_event_instance;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)

typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 40,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED,
    MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;

typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 5, MPI_T_SOURCE_UNORDERED = 6 } MPI_T_source_order;

#define MPI_T_VERBOSITY_USER_BASIC 221
#define MPI_T_VERBOSITY_USER_DETAIL 222
#define MPI_T_VERBOSITY_USER_ALL 223
#define MPI_T_VERBOSITY_TUNER_BASIC 224
#define MPI_T_VERBOSITY_TUNER_DETAIL 225
#define MPI_T_VERBOSITY_TUNER_ALL 226
#define MPI_T_VERBOSITY_MPIDEV_BASIC 227
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 228
#define MPI_T_VERBOSITY_MPIDEV_ALL 229

#define MPI_T_BIND_NO_OBJECT 9700
#define MPI_T_BIND_MPI_COMM 9701
#define MPI_T_BIND_MPI_DATATYPE 9702
#define MPI_T_BIND_MPI_ERRHANDLER 9703
#define MPI_T_BIND_MPI_FILE 9704
#define MPI_T_BIND_MPI_GROUP 9705
#define MPI_T_BIND_MPI_OP 9706
#define MPI_T_BIND_MPI_REQUEST 9707
#define MPI_T_BIND_MPI_WIN 9708
#define MPI_T_BIND_MPI_MESSAGE 9709
#define MPI_T_BIND_MPI_INFO 9710
#define MPI_T_BIND_MPI_SESSION 9711

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void *user_data);

#define FAKEMPI_PROTO(name, args) int MPI_##name args; int PMPI_##name args;
FAKEMPI_PROTO(Info_create, (MPI_Info *info))
FAKEMPI_PROTO(Info_free, (MPI_Info *info))
FAKEMPI_PROTO(Info_set, (MPI_Info info, const char *key, const char *value))
FAKEMPI_PROTO(Info_get_nkeys, (MPI_Info info, int *nkeys))
FAKEMPI_PROTO(Info_get_nthkey, (MPI_Info info, int n, char *key))
FAKEMPI_PROTO(Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
FAKEMPI_PROTO(Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
FAKEMPI_PROTO(Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
FAKEMPI_PROTO(T_init_thread, (int required, int *provided))
FAKEMPI_PROTO(T_finalize, (void))
FAKEMPI_PROTO(T_source_get_num, (int *num_sources))
FAKEMPI_PROTO(T_source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len,
                                  MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                                  MPI_Count *max_ticks, MPI_Info *info))
FAKEMPI_PROTO(T_source_get_timestamp, (int source_index, MPI_Count *timestamp))
FAKEMPI_PROTO(T_event_get_num, (int *num_events))
FAKEMPI_PROTO(T_event_get_info, (int event_index, char *name, int *name_len, int *verbosity,
                                 MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                                 int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                                 int *desc_len, int *bind))
FAKEMPI_PROTO(T_event_get_index, (const char *name, int *event_index))
FAKEMPI_PROTO(T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info,
                                     MPI_T_event_registration *event_registration))
FAKEMPI_PROTO(T_event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info))
FAKEMPI_PROTO(T_event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used))
FAKEMPI_PROTO(T_event_register_callback, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          MPI_Info info, void *user_data,
                                          MPI_T_event_cb_function event_cb_function))
FAKEMPI_PROTO(T_event_callback_set_info, (MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, MPI_Info info))
FAKEMPI_PROTO(T_event_callback_get_info, (MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, MPI_Info *info_used))
FAKEMPI_PROTO(T_event_handle_free, (MPI_T_event_registration event_registration, void *user_data,
                                    MPI_T_event_free_cb_function free_cb_function))
FAKEMPI_PROTO(T_event_set_dropped_handler, (MPI_T_event_registration event_registration,
                                            MPI_T_event_dropped_cb_function dropped_cb_function))
FAKEMPI_PROTO(T_event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer))
FAKEMPI_PROTO(T_event_copy, (MPI_T_event_instance event_instance, void *buffer))
FAKEMPI_PROTO(T_event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp))
FAKEMPI_PROTO(T_event_get_source, (MPI_T_event_instance event_instance, int *source_index))
FAKEMPI_PROTO(T_category_get_num_events, (int cat_index, int *num_events))
FAKEMPI_PROTO(T_category_get_events, (int cat_index, int len, int indices[]))
#undef FAKEMPI_PROTO

#ifdef __cplusplus
}
#endif
#endif /* FAKEMPI_MPI_H */
