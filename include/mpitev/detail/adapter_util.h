/* mpitev adapter detail: error codes, callback safety levels, the string convention and
 * handle conversion shared by every entry point. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_util.h is internal: include <mpitev/adapter.h> instead"
#endif

MPITEV_API int mpitev_adapter_error(int rc) {
    switch (rc) {
    case MPITEV_SUCCESS: return MPI_SUCCESS;
    case MPITEV_ERR_INVALID_INDEX: return MPI_T_ERR_INVALID_INDEX;
    case MPITEV_ERR_INVALID_HANDLE: return MPI_T_ERR_INVALID_HANDLE;
    case MPITEV_ERR_INVALID_NAME: return MPI_T_ERR_INVALID_NAME;
    case MPITEV_ERR_NO_MEM: return MPI_T_ERR_MEMORY;
#ifdef MPI_T_ERR_NOT_SUPPORTED
    case MPITEV_ERR_NOT_SUPPORTED: return MPI_T_ERR_NOT_SUPPORTED;
#endif
    case MPITEV_ERR_NOT_INITIALIZED: return MPI_T_ERR_NOT_INITIALIZED;
    default: return MPI_T_ERR_INVALID;
    }
}
#define mpitev__aerr(rc) mpitev_adapter_error(rc)

/* Every entry point starts here: MPI_T's own state (the MPI's), then the core's. */
#define MPITEV__ADAPTER_CHECK_INIT()                                              \
    do {                                                                          \
        if (!(MPITEV_ADAPTER_T_INITIALIZED()) || !mpitev_initialized())           \
            return MPI_T_ERR_NOT_INITIALIZED;                                     \
    } while (0)

/* MPI_T_cb_safety <-> MPITEV_CB_REQUIRE_*: same order (Table 21), values compared by name
 * since an MPI may number them its own way. -1: not a safety level. */
static int mpitev__adapter_safety_in(MPI_T_cb_safety s) {
    if (s == MPI_T_CB_REQUIRE_NONE) return MPITEV_CB_REQUIRE_NONE;
    if (s == MPI_T_CB_REQUIRE_MPI_RESTRICTED) return MPITEV_CB_REQUIRE_MPI_RESTRICTED;
    if (s == MPI_T_CB_REQUIRE_THREAD_SAFE) return MPITEV_CB_REQUIRE_THREAD_SAFE;
    if (s == MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE) return MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
    return -1;
}
static MPI_T_cb_safety mpitev__adapter_safety_out(int s) {
    switch (s) {
    case MPITEV_CB_REQUIRE_NONE: return MPI_T_CB_REQUIRE_NONE;
    case MPITEV_CB_REQUIRE_MPI_RESTRICTED: return MPI_T_CB_REQUIRE_MPI_RESTRICTED;
    case MPITEV_CB_REQUIRE_THREAD_SAFE: return MPI_T_CB_REQUIRE_THREAD_SAFE;
    default: return MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE; /* the safe assumption */
    }
}

static mpitev_reg mpitev__adapter_reg(MPI_T_event_registration h) {
    mpitev_reg r;
    r.bits = MPITEV_ADAPTER_REG_FROM_MPI(h);
    return r;
}

/* Check a string OUT pair before anything is written: a negative buffer length with a
 * buffer to fill is a bad argument (the convention only defines n >= 0). */
static int mpitev__adapter_str_ok(const char *buf, const int *len) {
    return !(len && buf && *len < 0);
}

/* MPI-3.1 14.3.3: len NULL -> nothing returned (buf ignored); buf NULL or *len == 0 -> only
 * the length; else at most *len - 1 characters and a null terminator. On return *len is
 * the string's length plus one in every case, truncated or not, as the text says
 * ("the length of the string plus one ... is returned"). */
static void mpitev__adapter_str(const char *s, char *buf, int *len) {
    if (!len) return;
    if (!s) s = "";
    size_t n = strlen(s);
    if (n > (size_t)INT_MAX - 1) n = (size_t)INT_MAX - 1;
    if (buf && *len > 0) {
        size_t k = n < (size_t)(*len - 1) ? n : (size_t)(*len - 1);
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    *len = (int)n + 1;
}
