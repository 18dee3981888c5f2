/*
 * mpi.h -- public header of toy_mpi, the small reference MPI implementation
 * shipped with mpitev (examples/toy_mpi).
 *
 * Names, constants and prototypes follow MPI-4.1 for the implemented subset.
 * Handles are MPICH-style integers (kind bits | index) so that invalid
 * handles can always be detected without dereferencing memory.
 *
 * Every MPI_X function also exists as PMPI_X (profiling interface); MPI_X is
 * a weak alias of the strong PMPI_X symbol in libtoympi.so.
 */
#ifndef TOYMPI_MPI_H
#define TOYMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#if defined(TOYMPI_BUILDING) && defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TOYMPI 1
#define MPI_VERSION 4
#define MPI_SUBVERSION 1

/* ---------------------------------------------------------------- types */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Info;
typedef int MPI_Errhandler;
typedef int MPI_Request;
typedef int MPI_Win;
typedef int MPI_Fint;
typedef intptr_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    /* implementation part */
    int toympi_cancelled;
    MPI_Count toympi_count; /* received bytes */
} MPI_Status;

/* ---------------------------------------------------------- handle values */
#define MPI_COMM_NULL  ((MPI_Comm)0x44000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000001)
#define MPI_COMM_SELF  ((MPI_Comm)0x44000002)

#define MPI_DATATYPE_NULL      ((MPI_Datatype)0x4c000000)
#define MPI_CHAR               ((MPI_Datatype)0x4c000001)
#define MPI_SIGNED_CHAR        ((MPI_Datatype)0x4c000002)
#define MPI_UNSIGNED_CHAR      ((MPI_Datatype)0x4c000003)
#define MPI_BYTE               ((MPI_Datatype)0x4c000004)
#define MPI_SHORT              ((MPI_Datatype)0x4c000005)
#define MPI_UNSIGNED_SHORT     ((MPI_Datatype)0x4c000006)
#define MPI_INT                ((MPI_Datatype)0x4c000007)
#define MPI_UNSIGNED           ((MPI_Datatype)0x4c000008)
#define MPI_LONG               ((MPI_Datatype)0x4c000009)
#define MPI_UNSIGNED_LONG      ((MPI_Datatype)0x4c00000a)
#define MPI_LONG_LONG          ((MPI_Datatype)0x4c00000b)
#define MPI_LONG_LONG_INT      MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c00000c)
#define MPI_FLOAT              ((MPI_Datatype)0x4c00000d)
#define MPI_DOUBLE             ((MPI_Datatype)0x4c00000e)
#define MPI_LONG_DOUBLE        ((MPI_Datatype)0x4c00000f)
#define MPI_WCHAR              ((MPI_Datatype)0x4c000010)
#define MPI_C_BOOL             ((MPI_Datatype)0x4c000011)
#define MPI_INT8_T             ((MPI_Datatype)0x4c000012)
#define MPI_INT16_T            ((MPI_Datatype)0x4c000013)
#define MPI_INT32_T            ((MPI_Datatype)0x4c000014)
#define MPI_INT64_T            ((MPI_Datatype)0x4c000015)
#define MPI_UINT8_T            ((MPI_Datatype)0x4c000016)
#define MPI_UINT16_T           ((MPI_Datatype)0x4c000017)
#define MPI_UINT32_T           ((MPI_Datatype)0x4c000018)
#define MPI_UINT64_T           ((MPI_Datatype)0x4c000019)
#define MPI_AINT               ((MPI_Datatype)0x4c00001a)
#define MPI_COUNT              ((MPI_Datatype)0x4c00001b)
#define MPI_OFFSET             ((MPI_Datatype)0x4c00001c)
#define MPI_PACKED             ((MPI_Datatype)0x4c00001d)
#define MPI_FLOAT_INT          ((MPI_Datatype)0x4c00001e)
#define MPI_DOUBLE_INT         ((MPI_Datatype)0x4c00001f)
#define MPI_LONG_INT           ((MPI_Datatype)0x4c000020)
#define MPI_2INT               ((MPI_Datatype)0x4c000021)
#define MPI_SHORT_INT          ((MPI_Datatype)0x4c000022)
#define MPI_LONG_DOUBLE_INT    ((MPI_Datatype)0x4c000023)

#define MPI_OP_NULL ((MPI_Op)0x58000000)
#define MPI_MAX     ((MPI_Op)0x58000001)
#define MPI_MIN     ((MPI_Op)0x58000002)
#define MPI_SUM     ((MPI_Op)0x58000003)
#define MPI_PROD    ((MPI_Op)0x58000004)
#define MPI_LAND    ((MPI_Op)0x58000005)
#define MPI_BAND    ((MPI_Op)0x58000006)
#define MPI_LOR     ((MPI_Op)0x58000007)
#define MPI_BOR     ((MPI_Op)0x58000008)
#define MPI_LXOR    ((MPI_Op)0x58000009)
#define MPI_BXOR    ((MPI_Op)0x5800000a)
#define MPI_MINLOC  ((MPI_Op)0x5800000b)
#define MPI_MAXLOC  ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP   ((MPI_Op)0x5800000e)

#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x54000002)
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)0x54000003)

#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)
#define MPI_WIN_NULL ((MPI_Win)0x20000000)

/* ------------------------------------------------------------ constants */
#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL  (-1)
#define MPI_ROOT       (-3)
#define MPI_ANY_TAG    (-1)
#define MPI_UNDEFINED  (-32766)

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE        ((void *)-1)
#define MPI_BOTTOM          ((void *)0)

#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* one-sided communication (win.c): lock types and assertions (assertions are accepted;
 * only MPI_MODE_NOSUCCEED on MPI_Win_fence is used: it ends the access epoch) */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235
#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* predefined attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD) */
#define MPI_TAG_UB          0x64400001
#define MPI_HOST            0x64400003
#define MPI_IO              0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_KEYVAL_INVALID  0x24000000

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_INFO_KEY               255
#define MPI_MAX_INFO_VAL               1024
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* --------------------------------------------------------- error classes */
#define MPI_SUCCESS             0
#define MPI_ERR_BUFFER          1
#define MPI_ERR_COUNT           2
#define MPI_ERR_TYPE            3
#define MPI_ERR_TAG             4
#define MPI_ERR_COMM            5
#define MPI_ERR_RANK            6
#define MPI_ERR_ROOT            7
#define MPI_ERR_GROUP           8
#define MPI_ERR_OP              9
#define MPI_ERR_TOPOLOGY        10
#define MPI_ERR_DIMS            11
#define MPI_ERR_ARG             12
#define MPI_ERR_UNKNOWN         13
#define MPI_ERR_TRUNCATE        14
#define MPI_ERR_OTHER           15
#define MPI_ERR_INTERN          16
#define MPI_ERR_IN_STATUS       17
#define MPI_ERR_PENDING         18
#define MPI_ERR_REQUEST         19
#define MPI_ERR_KEYVAL          20
#define MPI_ERR_NO_MEM          21
#define MPI_ERR_INFO            22
#define MPI_ERR_INFO_KEY        23
#define MPI_ERR_INFO_VALUE      24
#define MPI_ERR_INFO_NOKEY      25
#define MPI_ERR_NOT_SAME        26
#define MPI_ERR_UNSUPPORTED_OPERATION 27
#define MPI_ERR_PROC_ABORTED    28
#define MPI_ERR_WIN             29
#define MPI_ERR_RMA_SYNC        30
#define MPI_ERR_LOCKTYPE        31
#define MPI_ERR_SIZE            32
#define MPI_ERR_DISP            33
/* MPI_T error codes (MPI-4.1 Table 16.x) */
#define MPI_T_ERR_MEMORY            40
#define MPI_T_ERR_NOT_INITIALIZED   41
#define MPI_T_ERR_CANNOT_INIT       42
#define MPI_T_ERR_NOT_ACCESSIBLE    43
#define MPI_T_ERR_INVALID_INDEX     44
#define MPI_T_ERR_INVALID_ITEM      45
#define MPI_T_ERR_INVALID_HANDLE    46
#define MPI_T_ERR_OUT_OF_HANDLES    47
#define MPI_T_ERR_OUT_OF_SESSIONS   48
#define MPI_T_ERR_INVALID_SESSION   49
#define MPI_T_ERR_CVAR_SET_NOT_NOW  50
#define MPI_T_ERR_CVAR_SET_NEVER    51
#define MPI_T_ERR_PVAR_NO_STARTSTOP 52
#define MPI_T_ERR_PVAR_NO_WRITE     53
#define MPI_T_ERR_PVAR_NO_ATOMIC    54
#define MPI_T_ERR_INVALID_NAME      55
#define MPI_T_ERR_INVALID           56
#define MPI_T_ERR_NOT_SUPPORTED     57
#define MPI_ERR_LASTCODE            63

/* ------------------------------------------------------ MPI_T (tools) */
typedef struct toympi_t_enum_s *MPI_T_enum;
typedef struct toympi_t_event_registration_s *MPI_T_event_registration;
typedef struct toympi_t_event_instance_s *MPI_T_event_instance;

typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 0,
    MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;

#define MPI_T_ENUM_NULL ((MPI_T_enum)0)

#define MPI_T_VERBOSITY_USER_BASIC    0
#define MPI_T_VERBOSITY_USER_DETAIL   1
#define MPI_T_VERBOSITY_USER_ALL      2
#define MPI_T_VERBOSITY_TUNER_BASIC   3
#define MPI_T_VERBOSITY_TUNER_DETAIL  4
#define MPI_T_VERBOSITY_TUNER_ALL     5
#define MPI_T_VERBOSITY_MPIDEV_BASIC  6
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 7
#define MPI_T_VERBOSITY_MPIDEV_ALL    8

#define MPI_T_BIND_NO_OBJECT      0
#define MPI_T_BIND_MPI_COMM       1
#define MPI_T_BIND_MPI_DATATYPE   2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE       4
#define MPI_T_BIND_MPI_GROUP      5
#define MPI_T_BIND_MPI_OP         6
#define MPI_T_BIND_MPI_REQUEST    7
#define MPI_T_BIND_MPI_WIN        8
#define MPI_T_BIND_MPI_MESSAGE    9
#define MPI_T_BIND_MPI_INFO       10
#define MPI_T_BIND_MPI_SESSION    11

typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);

/* user functions */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);

/* -------------------------------------------------------------- prototypes
 * TOYMPI_PROTO(ret, name, args) declares both MPI_name and PMPI_name. */
#define TOYMPI_PROTO(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

/* environment */
TOYMPI_PROTO(int, Init, (int *argc, char ***argv))
TOYMPI_PROTO(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
TOYMPI_PROTO(int, Initialized, (int *flag))
TOYMPI_PROTO(int, Finalize, (void))
TOYMPI_PROTO(int, Finalized, (int *flag))
TOYMPI_PROTO(int, Query_thread, (int *provided))
TOYMPI_PROTO(int, Is_thread_main, (int *flag))
TOYMPI_PROTO(int, Abort, (MPI_Comm comm, int errorcode))
TOYMPI_PROTO(double, Wtime, (void))
TOYMPI_PROTO(double, Wtick, (void))
TOYMPI_PROTO(int, Get_version, (int *version, int *subversion))
TOYMPI_PROTO(int, Get_library_version, (char *version, int *resultlen))
TOYMPI_PROTO(int, Get_processor_name, (char *name, int *resultlen))

/* errors */
TOYMPI_PROTO(int, Error_string, (int errorcode, char *string, int *resultlen))
TOYMPI_PROTO(int, Error_class, (int errorcode, int *errorclass))
TOYMPI_PROTO(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
TOYMPI_PROTO(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
TOYMPI_PROTO(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *fn,
                                           MPI_Errhandler *errhandler))
TOYMPI_PROTO(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
TOYMPI_PROTO(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* communicators */
TOYMPI_PROTO(int, Comm_size, (MPI_Comm comm, int *size))
TOYMPI_PROTO(int, Comm_rank, (MPI_Comm comm, int *rank))
TOYMPI_PROTO(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
TOYMPI_PROTO(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
TOYMPI_PROTO(int, Comm_free, (MPI_Comm *comm))
TOYMPI_PROTO(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
TOYMPI_PROTO(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
TOYMPI_PROTO(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
TOYMPI_PROTO(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val,
                                  int *flag))

/* datatypes */
TOYMPI_PROTO(int, Type_size, (MPI_Datatype datatype, int *size))
TOYMPI_PROTO(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
TOYMPI_PROTO(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
TOYMPI_PROTO(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
TOYMPI_PROTO(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
TOYMPI_PROTO(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))

/* point-to-point */
TOYMPI_PROTO(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm))
TOYMPI_PROTO(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm))
TOYMPI_PROTO(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status))
TOYMPI_PROTO(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request))
TOYMPI_PROTO(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm, MPI_Request *request))
TOYMPI_PROTO(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request))
TOYMPI_PROTO(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                             MPI_Status *status))
TOYMPI_PROTO(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
TOYMPI_PROTO(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
TOYMPI_PROTO(int, Wait, (MPI_Request *request, MPI_Status *status))
TOYMPI_PROTO(int, Waitall, (int count, MPI_Request array_of_requests[],
                            MPI_Status array_of_statuses[]))
TOYMPI_PROTO(int, Waitany, (int count, MPI_Request array_of_requests[], int *index,
                            MPI_Status *status))
TOYMPI_PROTO(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
TOYMPI_PROTO(int, Testall, (int count, MPI_Request array_of_requests[], int *flag,
                            MPI_Status array_of_statuses[]))
TOYMPI_PROTO(int, Cancel, (MPI_Request *request))
TOYMPI_PROTO(int, Request_free, (MPI_Request *request))
TOYMPI_PROTO(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* collectives */
TOYMPI_PROTO(int, Barrier, (MPI_Comm comm))
TOYMPI_PROTO(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root,
                          MPI_Comm comm))
TOYMPI_PROTO(int, Reduce, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
TOYMPI_PROTO(int, Allreduce, (const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
TOYMPI_PROTO(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm))
TOYMPI_PROTO(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm))
TOYMPI_PROTO(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm))
TOYMPI_PROTO(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm))
TOYMPI_PROTO(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm))
TOYMPI_PROTO(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm))
TOYMPI_PROTO(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
TOYMPI_PROTO(int, Op_free, (MPI_Op *op))

/* one-sided communication (windows) */
TOYMPI_PROTO(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win *win))
TOYMPI_PROTO(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win))
TOYMPI_PROTO(int, Win_free, (MPI_Win *win))
TOYMPI_PROTO(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
TOYMPI_PROTO(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
TOYMPI_PROTO(int, Win_create_errhandler, (MPI_Win_errhandler_function *fn,
                                          MPI_Errhandler *errhandler))
TOYMPI_PROTO(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win))
TOYMPI_PROTO(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win))
TOYMPI_PROTO(int, Accumulate, (const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
TOYMPI_PROTO(int, Win_fence, (int assert, MPI_Win win))
TOYMPI_PROTO(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
TOYMPI_PROTO(int, Win_unlock, (int rank, MPI_Win win))
TOYMPI_PROTO(int, Win_lock_all, (int assert, MPI_Win win))
TOYMPI_PROTO(int, Win_unlock_all, (MPI_Win win))
TOYMPI_PROTO(int, Win_flush, (int rank, MPI_Win win))
TOYMPI_PROTO(int, Win_flush_all, (MPI_Win win))

/* info */
TOYMPI_PROTO(int, Info_create, (MPI_Info *info))
TOYMPI_PROTO(int, Info_set, (MPI_Info info, const char *key, const char *value))
TOYMPI_PROTO(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value,
                                    int *flag))
TOYMPI_PROTO(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value,
                             int *flag))
TOYMPI_PROTO(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen,
                                      int *flag))
TOYMPI_PROTO(int, Info_delete, (MPI_Info info, const char *key))
TOYMPI_PROTO(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
TOYMPI_PROTO(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
TOYMPI_PROTO(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
TOYMPI_PROTO(int, Info_free, (MPI_Info *info))

/* MPI_T: tool information interface (MPI-4.1 chapter 15/16) */
TOYMPI_PROTO(int, T_init_thread, (int required, int *provided))
TOYMPI_PROTO(int, T_finalize, (void))
TOYMPI_PROTO(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
TOYMPI_PROTO(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name,
                                    int *name_len))
TOYMPI_PROTO(int, T_category_get_num, (int *num_cat))
TOYMPI_PROTO(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc,
                                        int *desc_len, int *num_cvars, int *num_pvars,
                                        int *num_categories))
TOYMPI_PROTO(int, T_category_get_index, (const char *name, int *cat_index))
TOYMPI_PROTO(int, T_category_get_num_events, (int cat_index, int *num_events))
TOYMPI_PROTO(int, T_category_get_events, (int cat_index, int len, int indices[]))
TOYMPI_PROTO(int, T_source_get_num, (int *num_sources))
TOYMPI_PROTO(int, T_source_get_info, (int source_index, char *name, int *name_len, char *desc,
                                      int *desc_len, MPI_T_source_order *ordering,
                                      MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                                      MPI_Info *info))
TOYMPI_PROTO(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp))
TOYMPI_PROTO(int, T_event_get_num, (int *num_events))
TOYMPI_PROTO(int, T_event_get_info, (int event_index, char *name, int *name_len,
                                     int *verbosity, MPI_Datatype array_of_datatypes[],
                                     MPI_Aint array_of_displacements[], int *num_elements,
                                     MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                                     int *desc_len, int *bind))
TOYMPI_PROTO(int, T_event_get_index, (const char *name, int *event_index))
TOYMPI_PROTO(int, T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info,
                                         MPI_T_event_registration *event_registration))
TOYMPI_PROTO(int, T_event_handle_set_info, (MPI_T_event_registration event_registration,
                                            MPI_Info info))
TOYMPI_PROTO(int, T_event_handle_get_info, (MPI_T_event_registration event_registration,
                                            MPI_Info *info_used))
TOYMPI_PROTO(int, T_event_register_callback, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info info,
                                              void *user_data,
                                              MPI_T_event_cb_function event_cb_function))
TOYMPI_PROTO(int, T_event_callback_set_info, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info info))
TOYMPI_PROTO(int, T_event_callback_get_info, (MPI_T_event_registration event_registration,
                                              MPI_T_cb_safety cb_safety, MPI_Info *info_used))
TOYMPI_PROTO(int, T_event_handle_free, (MPI_T_event_registration event_registration,
                                        void *user_data,
                                        MPI_T_event_free_cb_function free_cb_function))
TOYMPI_PROTO(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration,
                                                MPI_T_event_dropped_cb_function dropped_cb_function))
TOYMPI_PROTO(int, T_event_read, (MPI_T_event_instance event_instance, int element_index,
                                  void *buffer))
TOYMPI_PROTO(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer))
TOYMPI_PROTO(int, T_event_get_timestamp, (MPI_T_event_instance event_instance,
                                          MPI_Count *event_timestamp))
TOYMPI_PROTO(int, T_event_get_source, (MPI_T_event_instance event_instance,
                                       int *source_index))

#undef TOYMPI_PROTO

#ifdef __cplusplus
}
#endif

#if defined(TOYMPI_BUILDING) && defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* TOYMPI_MPI_H */
