/* request.c -- request objects and the completion family (Wait, Test,
 * Waitall, Waitany, Testall), Cancel, Request_free, Get_count. */
#include "toympi_internal.h"

#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "progress.h"
#include "protocol.h"

static toympi_request_t **table; /* handle index -> request (0 unused) */
static int table_cap;
static int table_hint = 1;

void toympi_status_set_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->toympi_cancelled = 0;
    st->toympi_count = 0;
}

toympi_request_t *toympi_request_new(toympi_req_kind_t kind)
{
    static uint64_t next_ev_id = 1;
    toympi_request_t *r = toympi_calloc(1, sizeof *r);
    r->kind = kind;
    r->ev_id = next_ev_id++;
    toympi_status_set_empty(&r->status);
    return r;
}

static int take_slot(toympi_request_t *r, int i, MPI_Request *handle)
{
    table[i] = r;
    r->handle = i;
    table_hint = i + 1;
    *handle = (MPI_Request)(TOYMPI_KIND_REQUEST | (unsigned)i);
    return MPI_SUCCESS;
}

int toympi_request_publish(toympi_request_t *r, MPI_Request *handle)
{
    for (;;) {
        for (int i = table_hint; i < table_cap; i++)
            if (!table[i])
                return take_slot(r, i, handle);
        for (int i = 1; i < table_hint && i < table_cap; i++)
            if (!table[i])
                return take_slot(r, i, handle);
        int ncap = table_cap ? table_cap * 2 : 64;
        if (ncap > 0x00ffffff)
            return MPI_ERR_NO_MEM;
        table = toympi_realloc(table, (size_t)ncap * sizeof *table);
        memset(table + table_cap, 0, (size_t)(ncap - table_cap) * sizeof *table);
        table_hint = table_cap ? table_cap : 1;
        table_cap = ncap;
    }
}

toympi_request_t *toympi_request_lookup(MPI_Request h)
{
    if (TOYMPI_HANDLE_KIND(h) != TOYMPI_KIND_REQUEST)
        return NULL;
    int i = TOYMPI_HANDLE_INDEX(h);
    if (i <= 0 || i >= table_cap)
        return NULL;
    return table[i];
}

void toympi_request_release(toympi_request_t *r)
{
    if (r->handle > 0 && r->handle < table_cap && table[r->handle] == r) {
        table[r->handle] = NULL;
        if (r->handle < table_hint)
            table_hint = r->handle;
    }
    free(r);
}

/* A user request is freed: from MPI_Wait/Test/.../Request_free at API level (the API
 * source, nothing held: NONE), or, for a request MPI_Request_free detached while active,
 * when the engine completes it (the engine source, ASYNC_SIGNAL_SAFE). */
#define RAISE_REQUEST_FREE(r, source, cb_safety)                                           \
    TOYMPI_RAISE_API(toympi_request_free, (source), toympi_events_ctx_key((r)->context_id), \
                     (cb_safety), (r)->ev_id, toympi_ev_peer(r), toympi_ev_tag(r),           \
                     (r)->kind == TOYMPI_REQ_SEND)

/* Called by the engine (frame handlers, the eager send path, a receive's cancel). */
void toympi_request_complete(toympi_request_t *r)
{
    r->complete = 1;
    TOYMPI_RAISE_ENGINE(request_complete, r->context_id, TOYMPI_EV_REQUEST(r));
    if (r->user_freed) { /* called by the engine (frame handlers, eager send path) */
        /* The toy's one immediate delivery inside the engine (a registration that asked
         * for it): tool code there may not call MPI, whatever level it registered at. */
        toympi_g.tool_restricted++;
        RAISE_REQUEST_FREE(r, &toympi_events_src_engine, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        toympi_g.tool_restricted--;
        toympi_request_release(r);
    }
}

void toympi_request_wait(toympi_request_t *r)
{
    while (!r->complete)
        toympi_progress_poll(TOYMPI_PROGRESS_WAIT);
}

void toympi_request_finalize(void)
{
    free(table);
    table = NULL;
    table_cap = 0;
    table_hint = 1;
}

/* finish a completed request: copy status, free it, null the handle */
static int finish(MPI_Request *h, toympi_request_t *r, MPI_Status *status)
{
    int err = r->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE)
        *status = r->status;
    RAISE_REQUEST_FREE(r, &toympi_events_src_api, MPITEV_CB_REQUIRE_NONE); /* Wait/Test family */
    toympi_request_release(r);
    *h = MPI_REQUEST_NULL;
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* request_free buffered: delivered by the return */
    return err;
}

#define LOOKUP_ANY(fn, h, r)                                                               \
    toympi_request_t *r = toympi_request_lookup(h);                                        \
    if (!r)                                                                                \
        return toympi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, fn, "invalid request handle");
/* ... and not being completed by a call up the stack (busy_request) */
#define LOOKUP(fn, h, r)                                                                   \
    LOOKUP_ANY(fn, h, r)                                                                   \
    if (r->busy)                                                                           \
        return busy_request(fn);

/* A Wait/Test call completing a request runs tool code (the drains of its progress, the
 * request_free event) and keeps using the request after it. Tool code that completes
 * or frees that request meanwhile (a tool that interposes MPI_Isend knows the handle)
 * would free it under the call: refused, as MPI forbids two calls completing one request
 * at once. Returned to tool code directly, not raised on MPI_COMM_WORLD's handler (the
 * default would abort the application for its tool's mistake). MPI_Cancel is allowed:
 * the call in progress then completes the cancelled request. */
static int busy_request(const char *fn)
{
    if (toympi_g.in_tool)
        return MPI_ERR_REQUEST;
    return toympi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, fn,
                      "the request is being completed by a call in progress");
}

/* busy += delta for every request of an array (MPI_REQUEST_NULL skipped) */
static void mark_busy(int count, const MPI_Request reqs[], int delta)
{
    for (int i = 0; i < count; i++) {
        toympi_request_t *r = toympi_request_lookup(reqs[i]);
        if (r)
            r->busy += delta;
    }
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Wait");
    if (!request)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Wait", "NULL argument");
    if (*request == MPI_REQUEST_NULL) {
        if (status != MPI_STATUS_IGNORE)
            toympi_status_set_empty(status);
        return MPI_SUCCESS;
    }
    LOOKUP("MPI_Wait", *request, r)
    r->busy++; /* until released by finish */
    toympi_request_wait(r);
    MPI_Comm comm = r->comm;
    int err = finish(request, r, status);
    if (err != MPI_SUCCESS)
        return toympi_err(comm, err, "MPI_Wait", "request completed with an error");
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Test");
    if (!request || !flag)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test", "NULL argument");
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            toympi_status_set_empty(status);
        return MPI_SUCCESS;
    }
    LOOKUP("MPI_Test", *request, r)
    r->busy++; /* until released by finish, or the end of the test */
    if (!r->complete)
        toympi_progress_poll(TOYMPI_PROGRESS_TEST);
    *flag = r->complete;
    if (!r->complete) {
        r->busy--;
        return MPI_SUCCESS;
    }
    MPI_Comm comm = r->comm;
    int err = finish(request, r, status);
    if (err != MPI_SUCCESS)
        return toympi_err(comm, err, "MPI_Test", "request completed with an error");
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Test)

static int check_array(const char *fn, int count, MPI_Request reqs[])
{
    if (count < 0)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_COUNT, fn, "negative count");
    if (count > 0 && !reqs)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, fn, "NULL argument");
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        toympi_request_t *r = toympi_request_lookup(reqs[i]);
        if (!r)
            return toympi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, fn,
                              "invalid request handle at index %d", i);
        if (r->busy)
            return busy_request(fn);
    }
    return MPI_SUCCESS;
}

/* complete all (already finished) requests of an array */
static int finish_all(const char *fn, int count, MPI_Request reqs[], MPI_Status statuses[])
{
    int any_err = 0;
    MPI_Comm err_comm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (reqs[i] == MPI_REQUEST_NULL) {
            if (st != MPI_STATUS_IGNORE)
                toympi_status_set_empty(st);
            continue;
        }
        toympi_request_t *r = toympi_request_lookup(reqs[i]);
        MPI_Comm comm = r->comm;
        if (finish(&reqs[i], r, st) != MPI_SUCCESS && !any_err) {
            any_err = 1;
            err_comm = comm;
        }
    }
    if (any_err)
        return toympi_err(err_comm, MPI_ERR_IN_STATUS, fn, "a request completed with an error");
    return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    TOYMPI_CHECK_INIT("MPI_Waitall");
    int rc = check_array("MPI_Waitall", count, array_of_requests);
    if (rc)
        return rc;
    mark_busy(count, array_of_requests, 1); /* each until released by finish_all */
    for (int i = 0; i < count; i++)
        if (array_of_requests[i] != MPI_REQUEST_NULL)
            toympi_request_wait(toympi_request_lookup(array_of_requests[i]));
    return finish_all("MPI_Waitall", count, array_of_requests, array_of_statuses);
}
TOYMPI_WEAK(Waitall)

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    TOYMPI_CHECK_INIT("MPI_Testall");
    int rc = check_array("MPI_Testall", count, array_of_requests);
    if (rc)
        return rc;
    if (!flag)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    mark_busy(count, array_of_requests, 1);
    toympi_progress_poll(TOYMPI_PROGRESS_TEST);
    *flag = 1;
    for (int i = 0; i < count; i++)
        if (array_of_requests[i] != MPI_REQUEST_NULL &&
            !toympi_request_lookup(array_of_requests[i])->complete)
            *flag = 0;
    if (!*flag) {
        mark_busy(count, array_of_requests, -1);
        return MPI_SUCCESS;
    }
    return finish_all("MPI_Testall", count, array_of_requests, array_of_statuses);
}
TOYMPI_WEAK(Testall)

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Waitany");
    int rc = check_array("MPI_Waitany", count, array_of_requests);
    if (rc)
        return rc;
    if (!index)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Waitany", "NULL argument");
    mark_busy(count, array_of_requests, 1); /* the one finished is released, the others unmarked */
    for (;;) {
        int active = 0;
        for (int i = 0; i < count; i++) {
            if (array_of_requests[i] == MPI_REQUEST_NULL)
                continue;
            active = 1;
            toympi_request_t *r = toympi_request_lookup(array_of_requests[i]);
            if (r->complete) {
                MPI_Comm comm = r->comm;
                *index = i;
                int err = finish(&array_of_requests[i], r, status);
                mark_busy(count, array_of_requests, -1);
                if (err)
                    return toympi_err(comm, err, "MPI_Waitany", "request completed with an error");
                return MPI_SUCCESS;
            }
        }
        if (!active) {
            *index = MPI_UNDEFINED;
            if (status != MPI_STATUS_IGNORE)
                toympi_status_set_empty(status);
            return MPI_SUCCESS;
        }
        toympi_progress_poll(TOYMPI_PROGRESS_WAIT);
    }
}
TOYMPI_WEAK(Waitany)

int PMPI_Cancel(MPI_Request *request)
{
    TOYMPI_CHECK_INIT("MPI_Cancel");
    if (!request)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Cancel", "NULL argument");
    LOOKUP_ANY("MPI_Cancel", *request, r) /* busy too: the call completing it sees it cancelled */
    int cancelled = 0;
    if (r->kind == TOYMPI_REQ_RECV && !r->complete)
        cancelled = toympi_proto_cancel_recv(r);
    /* sends are never cancelled (allowed: the cancel "fails" and the send
     * completes normally; MPI_Test_cancelled reports false) */
    /* API exit: the engine's posted_remove is delivered before the cancel event; tool
     * code in both may not complete r under us */
    r->busy++;
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    TOYMPI_RAISE_API(request_cancel, &toympi_events_src_api, toympi_events_ctx_key(r->context_id),
                     MPITEV_CB_REQUIRE_NONE, r->ev_id, toympi_ev_peer(r), toympi_ev_tag(r),
                     r->kind == TOYMPI_REQ_SEND, cancelled); /* API exit, nothing held */
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* the cancel buffered: delivered by the return */
    r->busy--;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Cancel)

int PMPI_Request_free(MPI_Request *request)
{
    TOYMPI_CHECK_INIT("MPI_Request_free");
    if (!request)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Request_free", "NULL argument");
    LOOKUP("MPI_Request_free", *request, r)
    if (r->complete) {
        RAISE_REQUEST_FREE(r, &toympi_events_src_api, MPITEV_CB_REQUIRE_NONE);
        toympi_request_release(r);
    } else {
        /* still active: detach the handle, release on completion */
        table[r->handle] = NULL;
        r->handle = 0;
        r->user_freed = 1;
    }
    *request = MPI_REQUEST_NULL;
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* request_free buffered: delivered by the return */
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Request_free)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "NULL argument");
    *flag = status->toympi_cancelled;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Test_cancelled)

static int get_count(const char *fn, const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    if (!status || !count)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, fn, "NULL argument");
    const toympi_datatype_t *t = toympi_datatype_get(datatype);
    if (!t)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    MPI_Count bytes = status->toympi_count;
    if (bytes % (MPI_Count)t->size != 0 || bytes / (MPI_Count)t->size > 0x7fffffff)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / (MPI_Count)t->size);
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_count("MPI_Get_count", status, datatype, count);
}
TOYMPI_WEAK(Get_count)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_count("MPI_Get_elements", status, datatype, count);
}
TOYMPI_WEAK(Get_elements)
