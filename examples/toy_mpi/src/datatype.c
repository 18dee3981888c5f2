/* datatype.c -- predefined (basic and pair) datatypes. Derived datatypes
 * are not implemented; all datatypes are contiguous with extent == size. */
#include "toympi_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };

#define SIGNED_KIND(T) (sizeof(T) == 1 ? TK_I8 : sizeof(T) == 2 ? TK_I16 : sizeof(T) == 4 ? TK_I32 : TK_I64)
#define UNSIGNED_KIND(T) (sizeof(T) == 1 ? TK_U8 : sizeof(T) == 2 ? TK_U16 : sizeof(T) == 4 ? TK_U32 : TK_U64)

static toympi_datatype_t types[0x24];
static bool types_ready;

static void setup(void)
{
#define T(h, nm, sz, k) types[TOYMPI_HANDLE_INDEX(h)] = (toympi_datatype_t){nm, sz, k}
    T(MPI_CHAR, "MPI_CHAR", sizeof(char), TK_CHAR);
    T(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, TK_I8);
    T(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, TK_U8);
    T(MPI_BYTE, "MPI_BYTE", 1, TK_BYTE);
    T(MPI_SHORT, "MPI_SHORT", sizeof(short), SIGNED_KIND(short));
    T(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(short), UNSIGNED_KIND(short));
    T(MPI_INT, "MPI_INT", sizeof(int), SIGNED_KIND(int));
    T(MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned), UNSIGNED_KIND(unsigned));
    T(MPI_LONG, "MPI_LONG", sizeof(long), SIGNED_KIND(long));
    T(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long), UNSIGNED_KIND(long));
    T(MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), SIGNED_KIND(long long));
    T(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(long long),
      UNSIGNED_KIND(long long));
    T(MPI_FLOAT, "MPI_FLOAT", sizeof(float), TK_FLOAT);
    T(MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), TK_DOUBLE);
    T(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), TK_LDOUBLE);
    T(MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), TK_CHAR);
    T(MPI_C_BOOL, "MPI_C_BOOL", sizeof(_Bool), TK_BOOL);
    T(MPI_INT8_T, "MPI_INT8_T", 1, TK_I8);
    T(MPI_INT16_T, "MPI_INT16_T", 2, TK_I16);
    T(MPI_INT32_T, "MPI_INT32_T", 4, TK_I32);
    T(MPI_INT64_T, "MPI_INT64_T", 8, TK_I64);
    T(MPI_UINT8_T, "MPI_UINT8_T", 1, TK_U8);
    T(MPI_UINT16_T, "MPI_UINT16_T", 2, TK_U16);
    T(MPI_UINT32_T, "MPI_UINT32_T", 4, TK_U32);
    T(MPI_UINT64_T, "MPI_UINT64_T", 8, TK_U64);
    T(MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), SIGNED_KIND(MPI_Aint));
    T(MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count), SIGNED_KIND(MPI_Count));
    T(MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset), SIGNED_KIND(MPI_Offset));
    T(MPI_PACKED, "MPI_PACKED", 1, TK_PACKED);
    T(MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(struct float_int), TK_FLOAT_INT);
    T(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(struct double_int), TK_DOUBLE_INT);
    T(MPI_LONG_INT, "MPI_LONG_INT", sizeof(struct long_int), TK_LONG_INT);
    T(MPI_2INT, "MPI_2INT", sizeof(struct two_int), TK_2INT);
    T(MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(struct short_int), TK_SHORT_INT);
    T(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(struct ldouble_int), TK_LDOUBLE_INT);
#undef T
    types_ready = true;
}

const toympi_datatype_t *toympi_datatype_get(MPI_Datatype dt)
{
    if (!types_ready)
        setup();
    if (TOYMPI_HANDLE_KIND(dt) != TOYMPI_KIND_DATATYPE)
        return NULL;
    int i = TOYMPI_HANDLE_INDEX(dt);
    if (i <= 0 || i >= (int)(sizeof types / sizeof types[0]) || !types[i].name)
        return NULL;
    return &types[i];
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const toympi_datatype_t *t = toympi_datatype_get(datatype);
    if (!t)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Type_size", "invalid datatype");
    if (!size)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
    *size = (int)t->size;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    const toympi_datatype_t *t = toympi_datatype_get(datatype);
    if (!t)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Type_size_x", "invalid datatype");
    if (!size)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_size_x", "size is NULL");
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Type_size_x)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    const toympi_datatype_t *t = toympi_datatype_get(datatype);
    if (!t)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Type_get_extent", "invalid datatype");
    if (!lb || !extent)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_get_extent", "NULL argument");
    *lb = 0;
    *extent = (MPI_Aint)t->size;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Type_get_extent)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const toympi_datatype_t *t = toympi_datatype_get(datatype);
    if (!t)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Type_get_name", "invalid datatype");
    if (!type_name || !resultlen)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Type_get_name", "NULL argument");
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->name);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Type_get_name)
