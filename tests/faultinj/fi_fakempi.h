/* The MPI side of the allocation-failure injection over the standard MPI_T API: what an
 * MPI built on the adapter (the fake test mpi.h of tests/adapter/fake_mpi) provides
 * besides it. Its MPI_Info objects allocate through the failing allocator too
 * (fa_malloc), so they run out of memory with everything else (MPI_ERR_NO_MEM, a failed
 * call creates nothing); MPI_T_init_thread / MPI_T_finalize are reference counted, one
 * mpitev_init / mpitev_finalize each, and the last MPI_T_finalize ends every
 * registration first (mpitev_adapter_t_finalize; docs/adapter-guide.md section 10).
 * Included once, by the test's adapter TU, after failalloc.h. */
#ifndef MPITEV_TEST_FI_FAKEMPI_H
#define MPITEV_TEST_FI_FAKEMPI_H

#include <string.h>

enum { FI_INFO_KEYS = 16 };
struct fakempi_info {
    int n;
    char *key[FI_INFO_KEYS], *val[FI_INFO_KEYS];
};
static int fi_info_live; /* info objects not freed: must be 0 after each run */

static char *fi_dup(const char *s) {
    char *d = (char *)fa_malloc(strlen(s) + 1);
    if (d) strcpy(d, s);
    return d;
}
int PMPI_Info_create(MPI_Info *info) {
    if (!info) return MPI_ERR_ARG;
    struct fakempi_info *i = (struct fakempi_info *)fa_malloc(sizeof *i);
    if (!i) return MPI_ERR_NO_MEM;
    memset(i, 0, sizeof *i);
    *info = i;
    fi_info_live++;
    return MPI_SUCCESS;
}
int PMPI_Info_free(MPI_Info *info) {
    if (!info || !*info) return MPI_ERR_ARG;
    for (int i = 0; i < (*info)->n; i++) {
        fa_mfree((*info)->key[i]);
        fa_mfree((*info)->val[i]);
    }
    fa_mfree(*info);
    *info = MPI_INFO_NULL;
    fi_info_live--;
    return MPI_SUCCESS;
}
int PMPI_Info_set(MPI_Info info, const char *key, const char *value) {
    if (!info || !key || !value || !key[0]) return MPI_ERR_INFO_KEY;
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->key[i], key) == 0) {
            char *v = fi_dup(value);
            if (!v) return MPI_ERR_NO_MEM;
            fa_mfree(info->val[i]);
            info->val[i] = v;
            return MPI_SUCCESS;
        }
    if (info->n == FI_INFO_KEYS) return MPI_ERR_NO_MEM;
    char *k = fi_dup(key), *v = fi_dup(value);
    if (!k || !v) {
        fa_mfree(k);
        fa_mfree(v);
        return MPI_ERR_NO_MEM;
    }
    info->key[info->n] = k;
    info->val[info->n] = v;
    info->n++;
    return MPI_SUCCESS;
}
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
    if (!info || !nkeys) return MPI_ERR_ARG;
    *nkeys = info->n;
    return MPI_SUCCESS;
}
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
    if (!info || n < 0 || n >= info->n || !key) return MPI_ERR_ARG;
    strcpy(key, info->key[n]);
    return MPI_SUCCESS;
}
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
    if (!info || !key || !buflen || !value || !flag) return MPI_ERR_ARG;
    *flag = 0;
    for (int i = 0; i < info->n; i++) {
        if (strcmp(info->key[i], key) != 0) continue;
        int need = (int)strlen(info->val[i]) + 1;
        if (*buflen > 0) {
            int k = need <= *buflen ? need - 1 : *buflen - 1;
            memcpy(value, info->val[i], (size_t)k);
            value[k] = '\0';
        }
        *buflen = need;
        *flag = 1;
    }
    return MPI_SUCCESS;
}

/* A tool's info with the given pairs (NULL-terminated key, value list); MPI_INFO_NULL
 * when memory runs out (the tool then goes on without hints, which changes no count). */
static MPI_Info fi_info(const char *const *kv) {
    MPI_Info info;
    if (PMPI_Info_create(&info) != MPI_SUCCESS) return MPI_INFO_NULL;
    for (; kv[0]; kv += 2) (void)PMPI_Info_set(info, kv[0], kv[1]);
    return info;
}
static void fi_info_free(MPI_Info *info) {
    if (*info != MPI_INFO_NULL) (void)PMPI_Info_free(info);
}

/* MPI_T's reference count (the hook MPITEV_ADAPTER_T_INITIALIZED reads it). The MPI's
 * own mpitev reference (its "MPI_Init") is taken by the scenario. */
int PMPI_T_init_thread(int required, int *provided) {
    if (provided) *provided = required;
    if (mpitev_init() != MPITEV_SUCCESS) return MPI_T_ERR_MEMORY;
    fi_t_refcount++;
    return MPI_SUCCESS;
}
int PMPI_T_finalize(void) {
    if (fi_t_refcount == 0) return MPI_T_ERR_NOT_INITIALIZED;
    int rc = MPI_SUCCESS;
    if (fi_t_refcount == 1) rc = mpitev_adapter_t_finalize(MPITEV_CB_REQUIRE_NONE);
    fi_t_refcount--;
    if (mpitev_finalize() != MPITEV_SUCCESS && rc == MPI_SUCCESS) rc = MPI_T_ERR_NOT_INITIALIZED;
    return rc;
}

#endif
