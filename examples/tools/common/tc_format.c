/* tc_format.c -- decoding payload elements by their MPI datatype, and the small parsers
 * the tools use for their environment variables. */
#define _POSIX_C_SOURCE 200809L
#include "tc.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tc_elem_find(const struct tc_type *t, const char *name)
{
    for (int i = 0; i < t->num_elements; i++)
        if (strcmp(t->elem_names[i], name) == 0)
            return i;
    return -1;
}

static int is_unsigned(MPI_Datatype d)
{
    return d == MPI_UINT8_T || d == MPI_UINT16_T || d == MPI_UINT32_T || d == MPI_UINT64_T ||
           d == MPI_UNSIGNED || d == MPI_UNSIGNED_LONG || d == MPI_UNSIGNED_LONG_LONG ||
           d == MPI_UNSIGNED_SHORT || d == MPI_UNSIGNED_CHAR;
}

int tc_elem_kind(MPI_Datatype d, int size)
{
    if (d == MPI_CHAR)
        return TC_ELEM_TEXT;
    if (d == MPI_DOUBLE)
        return TC_ELEM_DOUBLE;
    if (d == MPI_FLOAT)
        return TC_ELEM_FLOAT;
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return TC_ELEM_OTHER;
    return is_unsigned(d) ? TC_ELEM_UINT : TC_ELEM_INT;
}

int tc_elem_is_float(const struct tc_type *t, int i)
{
    return t->kinds[i] == TC_ELEM_FLOAT || t->kinds[i] == TC_ELEM_DOUBLE;
}

int tc_elem_is_text(const struct tc_type *t, int i) { return t->kinds[i] == TC_ELEM_TEXT; }
int tc_elem_is_unsigned(const struct tc_type *t, int i) { return t->kinds[i] == TC_ELEM_UINT; }
int tc_elem_is_int(const struct tc_type *t, int i)
{
    return t->kinds[i] == TC_ELEM_INT || t->kinds[i] == TC_ELEM_UINT;
}

static int has(const struct tc_type *t, const struct tc_record *r, int i)
{
    return r->has_data && i >= 0 && i < t->num_elements && t->displs[i] + t->sizes[i] <= TC_DATA;
}

int64_t tc_elem_int(const struct tc_type *t, const struct tc_record *r, int i)
{
    if (!has(t, r, i) || !tc_elem_is_int(t, i))
        return 0;
    const unsigned char *p = r->data + t->displs[i];
    int u = t->kinds[i] == TC_ELEM_UINT;
    switch (t->sizes[i]) {
    case 1: return u ? (int64_t)*(const uint8_t *)p : (int64_t)*(const int8_t *)p;
    case 2: { int16_t v; memcpy(&v, p, 2); return u ? (int64_t)(uint16_t)v : v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return u ? (int64_t)(uint32_t)v : v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

double tc_elem_double(const struct tc_type *t, const struct tc_record *r, int i)
{
    if (!has(t, r, i))
        return 0;
    const unsigned char *p = r->data + t->displs[i];
    if (t->kinds[i] == TC_ELEM_DOUBLE) { double v; memcpy(&v, p, sizeof v); return v; }
    if (t->kinds[i] == TC_ELEM_FLOAT) { float v; memcpy(&v, p, sizeof v); return v; }
    if (tc_elem_is_unsigned(t, i) && t->sizes[i] == 8)
        return (double)(uint64_t)tc_elem_int(t, r, i);
    return (double)tc_elem_int(t, r, i);
}

int tc_elem_format(const struct tc_type *t, const struct tc_record *r, int i, char *buf, size_t len)
{
    if (!has(t, r, i))
        return snprintf(buf, len, "?");
    const unsigned char *p = r->data + t->displs[i];
    if (tc_elem_is_text(t, i)) {
        int n = 0;
        while (n < t->sizes[i] && p[n]) /* NUL-padded text */
            n++;
        return snprintf(buf, len, "\"%.*s\"", n, (const char *)p);
    }
    if (tc_elem_is_float(t, i))
        return snprintf(buf, len, "%g", tc_elem_double(t, r, i));
    if (!tc_elem_is_int(t, i))
        return snprintf(buf, len, "?");
    if (tc_elem_is_unsigned(t, i) && t->sizes[i] == 8)
        return snprintf(buf, len, "%llu", (unsigned long long)(uint64_t)tc_elem_int(t, r, i));
    return snprintf(buf, len, "%lld", (long long)tc_elem_int(t, r, i));
}

char *tc_put_int(char *p, long long v)
{
    char digits[20];
    int n = 0;
    unsigned long long u = (unsigned long long)v;
    if (v < 0) {
        *p++ = '-';
        u = 0 - u;
    }
    if (u < 10) { /* the usual depth, length, flag */
        *p = (char)('0' + u);
        return p + 1;
    }
    do
        digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

/* The n last decimal digits of u at p, two at a time. */
static void put_digits(char *p, uint32_t u, int n)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    for (; n >= 2; u /= 100) {
        n -= 2;
        memcpy(p + n, pairs + 2 * (u % 100), 2);
    }
    if (n)
        p[0] = (char)('0' + u % 10);
}

char *tc_put_fixed(char *p, double v, int decimals)
{
    static const uint32_t scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                     1000000000};
    if (decimals < 0 || decimals > 9 || !(v > -9e9 && v < 9e9)) /* and NaN */
        return p + snprintf(p, 32, "%.*f", decimals < 0 || decimals > 9 ? 9 : decimals, v);
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    long long whole = (long long)v;
    uint32_t frac = (uint32_t)((v - (double)whole) * scale[decimals] + 0.5);
    if (frac >= scale[decimals]) /* rounded up to the next unit */
        frac -= scale[decimals], whole++;
    p = tc_put_int(p, whole);
    if (decimals > 0) {
        *p++ = '.';
        put_digits(p, frac, decimals);
        p += decimals;
    }
    return p;
}

int tc_patterns_parse(const char *text, struct tc_patterns *out)
{
    out->n = 0;
    out->pat = NULL;
    if (!text)
        return 0;
    char *copy = strdup(text);
    if (!copy)
        return -1;
    size_t cap = strlen(text) / 2 + 1;
    out->pat = calloc(cap, sizeof *out->pat);
    if (!out->pat) {
        free(copy);
        return -1;
    }
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",:; \t\n", &save); tok; tok = strtok_r(NULL, ",:; \t\n", &save))
        out->pat[out->n++] = strdup(tok);
    free(copy);
    return 0;
}

int tc_patterns_match(const struct tc_patterns *p, const char *name)
{
    if (!p || p->n == 0)
        return 1;
    for (int i = 0; i < p->n; i++)
        if (p->pat[i] && fnmatch(p->pat[i], name, 0) == 0)
            return 1;
    return 0;
}

static const char *const verbosity_names[9] = {
    "user_basic", "user_detail", "user_all",   "tuner_basic", "tuner_detail",
    "tuner_all",  "mpidev_basic", "mpidev_detail", "mpidev_all"};

int tc_verbosity_parse(const char *text)
{
    if (!text || !*text)
        return 0;
    for (int i = 0; i < 9; i++)
        if (strcmp(text, verbosity_names[i]) == 0)
            return i + 1;
    char *end;
    long v = strtol(text, &end, 10);
    return *end == '\0' && v >= 1 && v <= 9 ? (int)v : 0;
}

int tc_verbosity_level(int v)
{
    /* The MPI_T_VERBOSITY_* constants' values are the MPI's choice: compare by name. */
    const int all[9] = {MPI_T_VERBOSITY_USER_BASIC,   MPI_T_VERBOSITY_USER_DETAIL,
                        MPI_T_VERBOSITY_USER_ALL,     MPI_T_VERBOSITY_TUNER_BASIC,
                        MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
                        MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL,
                        MPI_T_VERBOSITY_MPIDEV_ALL};
    for (int i = 0; i < 9; i++)
        if (all[i] == v)
            return i + 1;
    return 9;
}

long tc_env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x <= 0)
        return -1;
    return x;
}

void tc_path_for_rank(const char *pattern, int rank, char *out, size_t len)
{
    size_t o = 0;
    int had = 0;
    for (const char *p = pattern; *p && o + 1 < len; p++) {
        if (p[0] == '%' && p[1] == 'r') {
            o += (size_t)snprintf(out + o, len - o, "%d", rank);
            p++;
            had = 1;
        } else {
            out[o++] = *p;
        }
        if (o >= len)
            o = len - 1;
    }
    out[o] = '\0';
    if (!had && o < len)
        snprintf(out + o, len - o, ".%d", rank);
}
