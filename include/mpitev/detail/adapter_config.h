/* mpitev adapter detail: defaults of the configuration hooks (see mpitev/adapter.h).
 * Only standard names from the MPI's mpi.h are used, so a conforming mpi.h needs no
 * hook but MPITEV_ADAPTER_T_INITIALIZED. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_config.h is internal: include <mpitev/adapter.h> instead"
#endif

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifndef MPITEV_ADAPTER_EXPORT
#if defined(__GNUC__) && defined(__ELF__)
#define MPITEV_ADAPTER_EXPORT __attribute__((visibility("default")))
#else
#define MPITEV_ADAPTER_EXPORT
#endif
#endif

#ifndef MPITEV_ADAPTER_MALLOC
#define MPITEV_ADAPTER_MALLOC(n) malloc(n)
#endif
#ifndef MPITEV_ADAPTER_FREE
#define MPITEV_ADAPTER_FREE(p) free(p)
#endif

/* ---- Info objects: the standard calls, PMPI_ so a tool's MPI_Info_* wrappers do not
 * see the library's own bookkeeping (MPI-3.1 14.2). ---- */
#ifndef MPITEV_ADAPTER_INFO_CREATE
#define MPITEV_ADAPTER_INFO_CREATE(infop) PMPI_Info_create(infop)
#endif
#ifndef MPITEV_ADAPTER_INFO_SET
#define MPITEV_ADAPTER_INFO_SET(info, key, value) PMPI_Info_set((info), (key), (value))
#endif
#ifndef MPITEV_ADAPTER_INFO_GET_NKEYS
#define MPITEV_ADAPTER_INFO_GET_NKEYS(info, nkeysp) PMPI_Info_get_nkeys((info), (nkeysp))
#endif
#ifndef MPITEV_ADAPTER_INFO_GET_NTHKEY
#define MPITEV_ADAPTER_INFO_GET_NTHKEY(info, n, key) PMPI_Info_get_nthkey((info), (n), (key))
#endif
#ifndef MPITEV_ADAPTER_INFO_GET_STRING
#define MPITEV_ADAPTER_INFO_GET_STRING(info, key, buflenp, value, flagp) \
    PMPI_Info_get_string((info), (key), (buflenp), (value), (flagp))
#endif
#ifndef MPITEV_ADAPTER_INFO_FREE
#define MPITEV_ADAPTER_INFO_FREE(infop) PMPI_Info_free(infop)
#endif
#ifndef MPITEV_ADAPTER_INFO_IS_NULL
#define MPITEV_ADAPTER_INFO_IS_NULL(info) ((info) == MPI_INFO_NULL)
#endif
#ifndef MPI_MAX_INFO_KEY
#error "MPITEV_ADAPTER_IMPLEMENTATION: mpi.h lacks MPI_MAX_INFO_KEY"
#endif

/* ---- Handles. The core handle is 64 bits (slot index + generation); it travels inside
 * the MPI's handle type by value, never as a pointer to anything. ---- */
#if !defined(MPITEV_ADAPTER_REG_TO_MPI) || !defined(MPITEV_ADAPTER_REG_FROM_MPI)
#if !defined(UINTPTR_MAX) || UINTPTR_MAX < UINT64_MAX
#error "mpitev adapter: uintptr_t cannot carry the 64-bit registration handle; define MPITEV_ADAPTER_REG_TO_MPI/_FROM_MPI"
#endif
#endif
#ifndef MPITEV_ADAPTER_REG_TO_MPI
#define MPITEV_ADAPTER_REG_TO_MPI(bits) ((MPI_T_event_registration)(uintptr_t)(bits))
#endif
#ifndef MPITEV_ADAPTER_REG_FROM_MPI
#define MPITEV_ADAPTER_REG_FROM_MPI(h) ((uint64_t)(uintptr_t)(h))
#endif
/* Through uintptr_t: the MPI's instance type is unrelated to mpitev_instance, and the
 * const of the core's pointer is restored on the way back. */
#ifndef MPITEV_ADAPTER_INSTANCE_TO_MPI
#define MPITEV_ADAPTER_INSTANCE_TO_MPI(inst) ((MPI_T_event_instance)(uintptr_t)(inst))
#endif
#ifndef MPITEV_ADAPTER_INSTANCE_FROM_MPI
#define MPITEV_ADAPTER_INSTANCE_FROM_MPI(h) ((const mpitev_instance *)(uintptr_t)(h))
#endif

/* ---- Value maps (mpitev -> MPI). Functions, not tables: Open MPI style handles are
 * addresses, not constant expressions. ---- */
#ifndef MPITEV_ADAPTER_DATATYPE
static MPI_Datatype mpitev__adapter_datatype(mpitev_dtype t) {
    switch (t) {
    case MPITEV_INT8: return MPI_INT8_T;
    case MPITEV_INT16: return MPI_INT16_T;
    case MPITEV_INT32: return MPI_INT32_T;
    case MPITEV_INT64: return MPI_INT64_T;
    case MPITEV_UINT8: return MPI_UINT8_T;
    case MPITEV_UINT16: return MPI_UINT16_T;
    case MPITEV_UINT32: return MPI_UINT32_T;
    case MPITEV_UINT64: return MPI_UINT64_T;
    case MPITEV_CHAR: return MPI_CHAR;
    case MPITEV_SIGNED_CHAR: return MPI_SIGNED_CHAR;
    case MPITEV_UNSIGNED_CHAR: return MPI_UNSIGNED_CHAR;
    case MPITEV_SHORT: return MPI_SHORT;
    case MPITEV_UNSIGNED_SHORT: return MPI_UNSIGNED_SHORT;
    case MPITEV_INT: return MPI_INT;
    case MPITEV_UNSIGNED: return MPI_UNSIGNED;
    case MPITEV_LONG: return MPI_LONG;
    case MPITEV_UNSIGNED_LONG: return MPI_UNSIGNED_LONG;
    case MPITEV_LONG_LONG: return MPI_LONG_LONG;
    case MPITEV_UNSIGNED_LONG_LONG: return MPI_UNSIGNED_LONG_LONG;
    case MPITEV_FLOAT: return MPI_FLOAT;
    case MPITEV_DOUBLE: return MPI_DOUBLE;
    case MPITEV_COUNT: return MPI_COUNT;
    case MPITEV_OFFSET: return MPI_OFFSET;
    case MPITEV_AINT: return MPI_AINT;
    case MPITEV_UINTPTR: return MPI_AINT;    /* pointer-sized; no unsigned MPI_AINT exists */
    case MPITEV_CHAR_ARRAY: return MPI_CHAR; /* one element of count chars (core contract) */
    default: return MPI_DATATYPE_NULL;
    }
}
#define MPITEV_ADAPTER_DATATYPE(t) mpitev__adapter_datatype(t)
#endif

#ifndef MPITEV_ADAPTER_ENUM
#define MPITEV_ADAPTER_ENUM(e) ((void)(e), MPI_T_ENUM_NULL)
#endif

#ifndef MPITEV_ADAPTER_VERBOSITY
static int mpitev__adapter_verbosity(int v) {
    switch (v) {
    case MPITEV_VERBOSITY_USER_BASIC: return MPI_T_VERBOSITY_USER_BASIC;
    case MPITEV_VERBOSITY_USER_DETAIL: return MPI_T_VERBOSITY_USER_DETAIL;
    case MPITEV_VERBOSITY_USER_ALL: return MPI_T_VERBOSITY_USER_ALL;
    case MPITEV_VERBOSITY_TUNER_BASIC: return MPI_T_VERBOSITY_TUNER_BASIC;
    case MPITEV_VERBOSITY_TUNER_DETAIL: return MPI_T_VERBOSITY_TUNER_DETAIL;
    case MPITEV_VERBOSITY_TUNER_ALL: return MPI_T_VERBOSITY_TUNER_ALL;
    case MPITEV_VERBOSITY_MPIDEV_BASIC: return MPI_T_VERBOSITY_MPIDEV_BASIC;
    case MPITEV_VERBOSITY_MPIDEV_DETAIL: return MPI_T_VERBOSITY_MPIDEV_DETAIL;
    default: return MPI_T_VERBOSITY_MPIDEV_ALL;
    }
}
#define MPITEV_ADAPTER_VERBOSITY(v) mpitev__adapter_verbosity(v)
#endif

#ifndef MPITEV_ADAPTER_BIND
static int mpitev__adapter_bind(int b) {
    switch (b) {
    case MPITEV_BIND_MPI_COMM: return MPI_T_BIND_MPI_COMM;
    case MPITEV_BIND_MPI_DATATYPE: return MPI_T_BIND_MPI_DATATYPE;
    case MPITEV_BIND_MPI_ERRHANDLER: return MPI_T_BIND_MPI_ERRHANDLER;
    case MPITEV_BIND_MPI_FILE: return MPI_T_BIND_MPI_FILE;
    case MPITEV_BIND_MPI_GROUP: return MPI_T_BIND_MPI_GROUP;
    case MPITEV_BIND_MPI_OP: return MPI_T_BIND_MPI_OP;
    case MPITEV_BIND_MPI_REQUEST: return MPI_T_BIND_MPI_REQUEST;
    case MPITEV_BIND_MPI_WIN: return MPI_T_BIND_MPI_WIN;
    case MPITEV_BIND_MPI_MESSAGE: return MPI_T_BIND_MPI_MESSAGE;
    case MPITEV_BIND_MPI_INFO: return MPI_T_BIND_MPI_INFO;
#if defined(MPI_T_BIND_MPI_SESSION) || defined(MPITEV_ADAPTER_HAVE_BIND_SESSION)
    case MPITEV_BIND_MPI_SESSION: return MPI_T_BIND_MPI_SESSION;
#endif
    default: return MPI_T_BIND_NO_OBJECT;
    }
}
#define MPITEV_ADAPTER_BIND(b) mpitev__adapter_bind(b)
#endif

/* ---- Object keys: by default the handle's value, for the handle types every mpi.h has. */
#ifndef MPITEV_ADAPTER_OBJECT_KEY
static int mpitev__adapter_object_key(int bind, void *obj_handle, const void **key) {
    switch (bind) {
    case MPITEV_BIND_MPI_COMM: *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Comm, obj_handle); return MPI_SUCCESS;
    case MPITEV_BIND_MPI_DATATYPE: *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Datatype, obj_handle); return MPI_SUCCESS;
    case MPITEV_BIND_MPI_ERRHANDLER: *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Errhandler, obj_handle); return MPI_SUCCESS;
    case MPITEV_BIND_MPI_OP: *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Op, obj_handle); return MPI_SUCCESS;
    case MPITEV_BIND_MPI_REQUEST: *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Request, obj_handle); return MPI_SUCCESS;
    case MPITEV_BIND_MPI_INFO: *key = MPITEV_ADAPTER_HANDLE_KEY(MPI_Info, obj_handle); return MPI_SUCCESS;
    default: return MPI_T_ERR_INVALID; /* define MPITEV_ADAPTER_OBJECT_KEY for the others */
    }
}
#define MPITEV_ADAPTER_OBJECT_KEY(bind, obj_handle, keyp) mpitev__adapter_object_key((bind), (obj_handle), (keyp))
#endif
