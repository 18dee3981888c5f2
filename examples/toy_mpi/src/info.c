/* info.c -- MPI_Info objects: ordered (key, value) string lists. Usable
 * before MPI_Init and after MPI_Finalize (as MPI-4 allows). */
#include "toympi_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int in_use;
    int n, cap;
    char **keys, **vals;
} info_t;

static info_t *infos; /* index 0 = MPI_INFO_NULL */
static int infos_cap;

static info_t *info_get(MPI_Info h)
{
    if (TOYMPI_HANDLE_KIND(h) != TOYMPI_KIND_INFO)
        return NULL;
    int i = TOYMPI_HANDLE_INDEX(h);
    if (i <= 0 || i >= infos_cap || !infos[i].in_use)
        return NULL;
    return &infos[i];
}

static int find(const info_t *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (strcmp(in->keys[i], key) == 0)
            return i;
    return -1;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = toympi_malloc(n);
    memcpy(d, s, n);
    return d;
}

#define ERR(code, fn, msg) toympi_err(MPI_COMM_NULL, code, fn, "%s", msg)

static int check_key(const char *fn, const char *key)
{
    if (!key || !*key || strlen(key) > MPI_MAX_INFO_KEY)
        return ERR(MPI_ERR_INFO_KEY, fn, "invalid key");
    return MPI_SUCCESS;
}

#define GET(fn, h, in)                                                                     \
    info_t *in = info_get(h);                                                              \
    if (!in)                                                                               \
        return ERR(MPI_ERR_INFO, fn, "invalid info handle");

static int info_new(MPI_Info *info)
{
    int i;
    for (i = 1; i < infos_cap && infos[i].in_use; i++)
        ;
    if (i >= infos_cap) {
        int ncap = infos_cap ? infos_cap * 2 : 16;
        infos = toympi_realloc(infos, (size_t)ncap * sizeof *infos);
        memset(infos + infos_cap, 0, (size_t)(ncap - infos_cap) * sizeof *infos);
        infos_cap = ncap;
    }
    infos[i] = (info_t){.in_use = 1};
    *info = (MPI_Info)(TOYMPI_KIND_INFO | (unsigned)i);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return ERR(MPI_ERR_ARG, "MPI_Info_create", "info is NULL");
    return info_new(info);
}
TOYMPI_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    GET("MPI_Info_set", info, in)
    int rc = check_key("MPI_Info_set", key);
    if (rc)
        return rc;
    if (!value || strlen(value) > MPI_MAX_INFO_VAL)
        return ERR(MPI_ERR_INFO_VALUE, "MPI_Info_set", "invalid value");
    int i = find(in, key);
    if (i >= 0) {
        free(in->vals[i]);
        in->vals[i] = xstrdup(value);
        return MPI_SUCCESS;
    }
    if (in->n == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 8;
        in->keys = toympi_realloc(in->keys, (size_t)in->cap * sizeof(char *));
        in->vals = toympi_realloc(in->vals, (size_t)in->cap * sizeof(char *));
    }
    in->keys[in->n] = xstrdup(key);
    in->vals[in->n] = xstrdup(value);
    in->n++;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_set)

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    GET("MPI_Info_get_string", info, in)
    int rc = check_key("MPI_Info_get_string", key);
    if (rc)
        return rc;
    if (!buflen || !flag || *buflen < 0 || (*buflen > 0 && !value))
        return ERR(MPI_ERR_ARG, "MPI_Info_get_string", "invalid argument");
    int i = find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    size_t len = strlen(in->vals[i]);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, in->vals[i], n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_get_string)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    GET("MPI_Info_get", info, in)
    int rc = check_key("MPI_Info_get", key);
    if (rc)
        return rc;
    if (!flag || !value || valuelen < 0)
        return ERR(MPI_ERR_ARG, "MPI_Info_get", "invalid argument");
    int i = find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    size_t len = strlen(in->vals[i]);
    size_t n = len < (size_t)valuelen ? len : (size_t)valuelen;
    memcpy(value, in->vals[i], n);
    value[n] = '\0';
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    GET("MPI_Info_get_valuelen", info, in)
    int rc = check_key("MPI_Info_get_valuelen", key);
    if (rc)
        return rc;
    if (!valuelen || !flag)
        return ERR(MPI_ERR_ARG, "MPI_Info_get_valuelen", "NULL argument");
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(in->vals[i]);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_get_valuelen)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    GET("MPI_Info_delete", info, in)
    int rc = check_key("MPI_Info_delete", key);
    if (rc)
        return rc;
    int i = find(in, key);
    if (i < 0)
        return ERR(MPI_ERR_INFO_NOKEY, "MPI_Info_delete", "key not defined");
    free(in->keys[i]);
    free(in->vals[i]);
    memmove(in->keys + i, in->keys + i + 1, (size_t)(in->n - i - 1) * sizeof(char *));
    memmove(in->vals + i, in->vals + i + 1, (size_t)(in->n - i - 1) * sizeof(char *));
    in->n--;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_delete)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    GET("MPI_Info_get_nkeys", info, in)
    if (!nkeys)
        return ERR(MPI_ERR_ARG, "MPI_Info_get_nkeys", "nkeys is NULL");
    *nkeys = in->n;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    GET("MPI_Info_get_nthkey", info, in)
    if (!key)
        return ERR(MPI_ERR_ARG, "MPI_Info_get_nthkey", "key is NULL");
    if (n < 0 || n >= in->n)
        return ERR(MPI_ERR_ARG, "MPI_Info_get_nthkey", "n out of range");
    strcpy(key, in->keys[n]);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_get_nthkey)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    GET("MPI_Info_dup", info, in)
    (void)in;
    if (!newinfo)
        return ERR(MPI_ERR_ARG, "MPI_Info_dup", "newinfo is NULL");
    MPI_Info h;
    info_new(&h); /* may move the table: look the source up again */
    info_t *src = info_get(info);
    for (int i = 0; i < src->n; i++)
        PMPI_Info_set(h, src->keys[i], src->vals[i]);
    *newinfo = h;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_dup)

static void info_clear(info_t *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->keys[i]);
        free(in->vals[i]);
    }
    free(in->keys);
    free(in->vals);
    *in = (info_t){0};
}

int PMPI_Info_free(MPI_Info *info)
{
    if (!info)
        return ERR(MPI_ERR_ARG, "MPI_Info_free", "info is NULL");
    GET("MPI_Info_free", *info, in)
    info_clear(in);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Info_free)

void toympi_info_finalize(void)
{
    for (int i = 1; i < infos_cap; i++)
        if (infos[i].in_use)
            info_clear(&infos[i]);
    free(infos);
    infos = NULL;
    infos_cap = 0;
}
