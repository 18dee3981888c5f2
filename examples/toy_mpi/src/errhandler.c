/* errhandler.c -- error classes, error strings and communicator error
 * handlers (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT and
 * user handlers created with MPI_Comm_create_errhandler). */
#include "toympi_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int code;
    const char *name;
    const char *text;
} error_table[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduction operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in status"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid key value"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "invalid info key"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "invalid info value"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "info key not defined"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "arguments differ between processes"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION",
     "operation not supported by toy_mpi"},
    {MPI_ERR_PROC_ABORTED, "MPI_ERR_PROC_ABORTED", "peer process aborted"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size argument"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement argument"},
    {MPI_T_ERR_MEMORY, "MPI_T_ERR_MEMORY", "out of memory (MPI_T)"},
    {MPI_T_ERR_NOT_INITIALIZED, "MPI_T_ERR_NOT_INITIALIZED", "MPI_T not initialized"},
    {MPI_T_ERR_CANNOT_INIT, "MPI_T_ERR_CANNOT_INIT", "MPI_T cannot be initialized"},
    {MPI_T_ERR_NOT_ACCESSIBLE, "MPI_T_ERR_NOT_ACCESSIBLE", "MPI_T function not accessible now"},
    {MPI_T_ERR_INVALID_INDEX, "MPI_T_ERR_INVALID_INDEX", "invalid index"},
    {MPI_T_ERR_INVALID_ITEM, "MPI_T_ERR_INVALID_ITEM", "invalid item index"},
    {MPI_T_ERR_INVALID_HANDLE, "MPI_T_ERR_INVALID_HANDLE", "invalid handle"},
    {MPI_T_ERR_OUT_OF_HANDLES, "MPI_T_ERR_OUT_OF_HANDLES", "no more handles"},
    {MPI_T_ERR_OUT_OF_SESSIONS, "MPI_T_ERR_OUT_OF_SESSIONS", "no more sessions"},
    {MPI_T_ERR_INVALID_SESSION, "MPI_T_ERR_INVALID_SESSION", "invalid session"},
    {MPI_T_ERR_CVAR_SET_NOT_NOW, "MPI_T_ERR_CVAR_SET_NOT_NOW", "cvar cannot be set now"},
    {MPI_T_ERR_CVAR_SET_NEVER, "MPI_T_ERR_CVAR_SET_NEVER", "cvar cannot be set"},
    {MPI_T_ERR_PVAR_NO_STARTSTOP, "MPI_T_ERR_PVAR_NO_STARTSTOP", "pvar cannot be started"},
    {MPI_T_ERR_PVAR_NO_WRITE, "MPI_T_ERR_PVAR_NO_WRITE", "pvar cannot be written"},
    {MPI_T_ERR_PVAR_NO_ATOMIC, "MPI_T_ERR_PVAR_NO_ATOMIC", "pvar not atomic"},
    {MPI_T_ERR_INVALID_NAME, "MPI_T_ERR_INVALID_NAME", "invalid name"},
    {MPI_T_ERR_INVALID, "MPI_T_ERR_INVALID", "invalid use of the MPI_T interface"},
    {MPI_T_ERR_NOT_SUPPORTED, "MPI_T_ERR_NOT_SUPPORTED", "not supported"},
};

static int error_lookup(int code)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == code)
            return (int)i;
    return -1;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return MPI_ERR_ARG;
    int i = error_lookup(errorcode);
    if (i < 0) {
        snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
        *resultlen = (int)strlen(string);
        return MPI_ERR_ARG;
    }
    snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", error_table[i].name, error_table[i].text);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass)
        return MPI_ERR_ARG;
    if (error_lookup(errorcode) < 0)
        return MPI_ERR_ARG;
    *errorclass = errorcode; /* every code is its own class */
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Error_class)

/* ---------------------------------------------------------- handlers */
#define MAX_USER_EH 64
#define FIRST_USER_EH 4
static struct {
    MPI_Comm_errhandler_function *fn;
    int refs; /* user handle + communicators using it */
} user_eh[MAX_USER_EH];

int toympi_errhandler_valid(MPI_Errhandler eh)
{
    if (TOYMPI_HANDLE_KIND(eh) != TOYMPI_KIND_ERRHANDLER)
        return 0;
    int i = TOYMPI_HANDLE_INDEX(eh);
    if (i >= 1 && i < FIRST_USER_EH)
        return 1;
    return i >= FIRST_USER_EH && i < MAX_USER_EH && user_eh[i].fn != NULL;
}

void toympi_errhandler_ref(MPI_Errhandler eh)
{
    int i = TOYMPI_HANDLE_INDEX(eh);
    if (i >= FIRST_USER_EH && i < MAX_USER_EH)
        user_eh[i].refs++;
}

void toympi_errhandler_unref(MPI_Errhandler eh)
{
    int i = TOYMPI_HANDLE_INDEX(eh);
    if (i >= FIRST_USER_EH && i < MAX_USER_EH && user_eh[i].refs > 0 && --user_eh[i].refs == 0)
        user_eh[i].fn = NULL;
}

static int invoke(MPI_Comm comm, int code, const char *func, const char *msg)
{
    /* outside MPI_Init..MPI_Finalize (Info, Error_string, Type_size, ...
     * may be called there) there is no communicator: errors are returned */
    if (!toympi_g.initialized || toympi_g.finalized)
        return code;
    toympi_comm_t *c = toympi_comm_get(comm);
    if (!c) {
        comm = MPI_COMM_WORLD; /* errors without a valid communicator */
        c = toympi_comm_get(comm);
    }
    MPI_Errhandler eh = c ? c->errhandler : MPI_ERRORS_ARE_FATAL;
    return toympi_errhandler_call(eh, comm, code, func, msg);
}

int toympi_errhandler_call(MPI_Errhandler eh, int handle, int code, const char *func,
                           const char *msg)
{
    if (eh == MPI_ERRORS_RETURN)
        return code;
    int i = TOYMPI_HANDLE_INDEX(eh);
    if (i >= FIRST_USER_EH && i < MAX_USER_EH && user_eh[i].fn) {
        int ec = code;
        int h = handle; /* an MPI_Comm or an MPI_Win: both are int handles */
        user_eh[i].fn(&h, &ec);
        return code;
    }
    /* MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: report and abort the job */
    char es[MPI_MAX_ERROR_STRING];
    int len;
    PMPI_Error_string(code, es, &len);
    fprintf(stderr, "toympi: rank %d: fatal error in %s: %s: %s\n", toympi_g.world_rank, func,
            es, msg);
    toympi_abort_job(code, "MPI_ERRORS_ARE_FATAL");
}

int toympi_err(MPI_Comm comm, int code, const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return invoke(comm, code, func, msg);
}

_Noreturn void toympi_not_initialized(const char *func)
{
    fprintf(stderr, "toympi: %s called %s MPI_Init\n", func,
            toympi_g.finalized ? "after MPI_Finalize, not before" : "before");
    toympi_abort_job(MPI_ERR_OTHER, "not initialized");
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    TOYMPI_CHECK_INIT("MPI_Comm_set_errhandler");
    toympi_comm_t *c = toympi_comm_get(comm);
    if (!c)
        return toympi_err(comm, MPI_ERR_COMM, "MPI_Comm_set_errhandler", "invalid communicator");
    if (!toympi_errhandler_valid(errhandler))
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "invalid error handler");
    toympi_errhandler_ref(errhandler);
    toympi_errhandler_unref(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    TOYMPI_CHECK_INIT("MPI_Comm_get_errhandler");
    toympi_comm_t *c = toympi_comm_get(comm);
    if (!c)
        return toympi_err(comm, MPI_ERR_COMM, "MPI_Comm_get_errhandler", "invalid communicator");
    if (!errhandler)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler", "errhandler is NULL");
    toympi_errhandler_ref(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_get_errhandler)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    if (!fn || !errhandler)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_create_errhandler",
                          "NULL argument");
    for (int i = FIRST_USER_EH; i < MAX_USER_EH; i++) {
        if (!user_eh[i].fn) {
            user_eh[i].fn = fn;
            user_eh[i].refs = 1;
            *errhandler = (MPI_Errhandler)(TOYMPI_KIND_ERRHANDLER | (unsigned)i);
            return MPI_SUCCESS;
        }
    }
    return toympi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler",
                      "too many error handlers");
}
TOYMPI_WEAK(Comm_create_errhandler)

/* Window handlers live in the same table: MPI_Win, like MPI_Comm, is an int handle, so
 * the two function types take the same arguments (toympi_errhandler_call). */
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    if (!fn || !errhandler)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Win_create_errhandler",
                          "NULL argument");
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}
TOYMPI_WEAK(Win_create_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    TOYMPI_CHECK_INIT("MPI_Comm_call_errhandler");
    if (!toympi_comm_get(comm))
        return toympi_err(comm, MPI_ERR_COMM, "MPI_Comm_call_errhandler", "invalid communicator");
    toympi_err(comm, errorcode, "MPI_Comm_call_errhandler", "user-raised error");
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Comm_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !toympi_errhandler_valid(*errhandler))
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
                          "invalid error handler");
    toympi_errhandler_unref(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Errhandler_free)
