/* mpitev adapter detail: MPI_Info <-> the core's key/value hints.
 *
 * The core takes hints as arrays of (key, value) strings and hands them back through a
 * visitor that runs under the registry mutex. The adapter therefore never calls the MPI
 * (MPI_Info_*) from inside a visitor: it copies the pairs out first and builds the
 * MPI_Info afterwards, so an MPI whose info code raises events or takes its own locks
 * cannot deadlock against the registry. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/adapter_info.h is internal: include <mpitev/adapter.h> instead"
#endif

/* An owned list of pairs; strings and array come from MPITEV_ADAPTER_MALLOC. */
typedef struct mpitev__adapter_kvs {
    int n, cap;
    mpitev_kv *kv;
    int failed; /* out of memory while collecting */
} mpitev__adapter_kvs;

static void mpitev__adapter_kvs_free(mpitev__adapter_kvs *l) {
    for (int i = 0; i < l->n; i++) {
        MPITEV_ADAPTER_FREE((void *)(uintptr_t)l->kv[i].key);
        MPITEV_ADAPTER_FREE((void *)(uintptr_t)l->kv[i].value);
    }
    MPITEV_ADAPTER_FREE(l->kv);
    l->kv = NULL;
    l->n = l->cap = 0;
}

static char *mpitev__adapter_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)MPITEV_ADAPTER_MALLOC(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Append a pair taking ownership of key and value (freed here on failure). */
static int mpitev__adapter_kvs_push(mpitev__adapter_kvs *l, char *key, char *value) {
    if (!key || !value) goto fail;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        mpitev_kv *nkv = (mpitev_kv *)MPITEV_ADAPTER_MALLOC(sizeof(mpitev_kv) * (size_t)cap);
        if (!nkv) goto fail;
        if (l->n) memcpy(nkv, l->kv, sizeof(mpitev_kv) * (size_t)l->n);
        MPITEV_ADAPTER_FREE(l->kv);
        l->kv = nkv;
        l->cap = cap;
    }
    l->kv[l->n].key = key;
    l->kv[l->n].value = value;
    l->n++;
    return MPI_SUCCESS;
fail:
    MPITEV_ADAPTER_FREE(key);
    MPITEV_ADAPTER_FREE(value);
    l->failed = 1;
    return MPI_T_ERR_MEMORY;
}

/* Visitor for mpitev_reg_get_info / _callback_get_info: copies only (mutex held). */
static int mpitev__adapter_collect(const char *key, const char *value, void *ctx) {
    mpitev__adapter_kvs *l = (mpitev__adapter_kvs *)ctx;
    return mpitev__adapter_kvs_push(l, mpitev__adapter_strdup(key), mpitev__adapter_strdup(value)) != MPI_SUCCESS;
}

/* Read the tool's MPI_Info into pairs. MPI_INFO_NULL is "no hints". */
static int mpitev__adapter_info_read(MPI_Info info, mpitev__adapter_kvs *out) {
    out->n = out->cap = out->failed = 0;
    out->kv = NULL;
    if (MPITEV_ADAPTER_INFO_IS_NULL(info)) return MPI_SUCCESS;
    int nkeys = 0;
    if (MPITEV_ADAPTER_INFO_GET_NKEYS(info, &nkeys) != MPI_SUCCESS || nkeys < 0) return MPI_T_ERR_INVALID;
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        char probe[1];
        int buflen = 1, flag = 0;
        key[0] = '\0';
        if (MPITEV_ADAPTER_INFO_GET_NTHKEY(info, i, key) != MPI_SUCCESS) goto bad;
        key[MPI_MAX_INFO_KEY] = '\0';
        /* MPI-4 MPI_Info_get_string returns the value's length plus one in buflen. Asked with
         * a 1-byte buffer, not NULL: MPICH 4.0 rejects a NULL value even when buflen is 0. */
        if (MPITEV_ADAPTER_INFO_GET_STRING(info, key, &buflen, probe, &flag) != MPI_SUCCESS) goto bad;
        if (!flag) continue; /* deleted concurrently: nothing to pass */
        if (buflen < 1) goto bad;
        char *value = (char *)MPITEV_ADAPTER_MALLOC((size_t)buflen);
        if (!value) goto nomem;
        int len2 = buflen;
        if (MPITEV_ADAPTER_INFO_GET_STRING(info, key, &len2, value, &flag) != MPI_SUCCESS || !flag) {
            MPITEV_ADAPTER_FREE(value);
            goto bad;
        }
        value[buflen - 1] = '\0';
        if (mpitev__adapter_kvs_push(out, mpitev__adapter_strdup(key), value) != MPI_SUCCESS) goto nomem;
    }
    return MPI_SUCCESS;
bad:
    mpitev__adapter_kvs_free(out);
    return MPI_T_ERR_INVALID;
nomem:
    mpitev__adapter_kvs_free(out);
    return MPI_T_ERR_MEMORY;
}

/* A new MPI_Info holding the pairs (possibly none: "a newly created info object that
 * contains no key/value pair"). */
static int mpitev__adapter_info_make(const mpitev_kv *kv, int n, MPI_Info *info) {
    MPI_Info i;
    if (MPITEV_ADAPTER_INFO_CREATE(&i) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
    for (int k = 0; k < n; k++)
        if (MPITEV_ADAPTER_INFO_SET(i, kv[k].key, kv[k].value) != MPI_SUCCESS) {
            (void)MPITEV_ADAPTER_INFO_FREE(&i); /* a failed call returns no object */
            return MPI_T_ERR_MEMORY;
        }
    *info = i;
    return MPI_SUCCESS;
}
