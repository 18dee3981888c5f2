/* op.c -- predefined reduction operators (MPI-4.1 §6.9.2) and user
 * operators (MPI_Op_create). Semantics: inout[i] = in[i] op inout[i]. */
#include "toympi_internal.h"

#include <stdbool.h>

#define MAX_USER_OPS 64
#define FIRST_USER_OP 16
static struct {
    MPI_User_function *fn; /* NULL: the slot is free */
    int commute;
    int busy;  /* reductions in progress with it (toympi_op_hold) */
    int freed; /* MPI_Op_free while busy: the handle is invalid, the slot still taken */
} user_ops[MAX_USER_OPS];

static bool is_int(toympi_kind_t k) { return k >= TK_I8 && k <= TK_U64; }
static bool is_float(toympi_kind_t k) { return k >= TK_FLOAT && k <= TK_LDOUBLE; }
static bool is_pair(toympi_kind_t k) { return k >= TK_FLOAT_INT && k <= TK_LDOUBLE_INT; }

/* The slot of a user operator still in use (freed but held included), or -1. */
static int user_slot(MPI_Op op)
{
    if (TOYMPI_HANDLE_KIND(op) != TOYMPI_KIND_OP)
        return -1;
    int i = TOYMPI_HANDLE_INDEX(op);
    return (i >= FIRST_USER_OP && i < MAX_USER_OPS && user_ops[i].fn) ? i : -1;
}

/* The slot of a valid user operator handle (not freed), or -1. */
static int user_index(MPI_Op op)
{
    int i = user_slot(op);
    return i >= 0 && !user_ops[i].freed ? i : -1;
}

void toympi_op_hold(MPI_Op op)
{
    int i = user_slot(op);
    if (i >= 0)
        user_ops[i].busy++;
}

void toympi_op_unhold(MPI_Op op)
{
    int i = user_slot(op);
    if (i >= 0 && --user_ops[i].busy == 0 && user_ops[i].freed) {
        user_ops[i].fn = NULL; /* released: the slot may be reused */
        user_ops[i].freed = 0;
    }
}

int toympi_op_check(MPI_Op op, MPI_Datatype dt)
{
    const toympi_datatype_t *t = toympi_datatype_get(dt);
    if (!t)
        return MPI_ERR_TYPE;
    if (user_index(op) >= 0)
        return MPI_SUCCESS;
    toympi_kind_t k = t->kind;
    bool ok;
    switch (op) {
    case MPI_MAX: case MPI_MIN: case MPI_SUM: case MPI_PROD:
        ok = is_int(k) || is_float(k);
        break;
    case MPI_LAND: case MPI_LOR: case MPI_LXOR:
        ok = is_int(k) || k == TK_BOOL;
        break;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR:
        ok = is_int(k) || k == TK_BYTE;
        break;
    case MPI_MAXLOC: case MPI_MINLOC:
        ok = is_pair(k);
        break;
    default:
        return MPI_ERR_OP; /* invalid handle, MPI_OP_NULL, REPLACE, NO_OP */
    }
    return ok ? MPI_SUCCESS : MPI_ERR_OP;
}

int toympi_op_commutative(MPI_Op op)
{
    int u = user_slot(op);
    return u >= 0 ? user_ops[u].commute : 1;
}

#define LOOP(T, EXPR)                                                                      \
    do {                                                                                   \
        const T *a_ = (const T *)in;                                                       \
        T *b_ = (T *)inout;                                                                \
        for (int i_ = 0; i_ < count; i_++) {                                               \
            T x = a_[i_], y = b_[i_];                                                      \
            b_[i_] = (T)(EXPR);                                                            \
        }                                                                                  \
    } while (0)

#define ARITH(T)                                                                           \
    do {                                                                                   \
        switch (op) {                                                                      \
        case MPI_MAX: LOOP(T, x > y ? x : y); break;                                       \
        case MPI_MIN: LOOP(T, x < y ? x : y); break;                                       \
        case MPI_SUM: LOOP(T, x + y); break;                                               \
        case MPI_PROD: LOOP(T, x * y); break;                                              \
        default: break;                                                                    \
        }                                                                                  \
    } while (0)

#define INTEGER(T)                                                                         \
    do {                                                                                   \
        switch (op) {                                                                      \
        case MPI_LAND: LOOP(T, x && y); break;                                             \
        case MPI_LOR: LOOP(T, x || y); break;                                              \
        case MPI_LXOR: LOOP(T, !x != !y); break;                                           \
        case MPI_BAND: LOOP(T, x & y); break;                                              \
        case MPI_BOR: LOOP(T, x | y); break;                                               \
        case MPI_BXOR: LOOP(T, x ^ y); break;                                              \
        default: ARITH(T); break;                                                          \
        }                                                                                  \
    } while (0)

#define PAIR(VT)                                                                           \
    do {                                                                                   \
        struct p_ { VT v; int i; };                                                        \
        const struct p_ *a_ = (const struct p_ *)in;                                       \
        struct p_ *b_ = (struct p_ *)inout;                                                \
        for (int i_ = 0; i_ < count; i_++) {                                               \
            struct p_ x = a_[i_], y = b_[i_];                                              \
            bool take_x = op == MPI_MAXLOC ? x.v > y.v : x.v < y.v;                        \
            if (take_x)                                                                    \
                b_[i_] = x;                                                                \
            else if (x.v == y.v && x.i < y.i)                                              \
                b_[i_].i = x.i;                                                            \
        }                                                                                  \
    } while (0)

void toympi_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count)
{
    int u = user_slot(op); /* held by the reduction: valid even if freed meanwhile */
    if (u >= 0) {
        MPI_Datatype d = dt;
        int n = count;
        user_ops[u].fn((void *)in, inout, &n, &d);
        return;
    }
    const toympi_datatype_t *t = toympi_datatype_get(dt);
    switch (t->kind) {
    case TK_I8: INTEGER(int8_t); break;
    case TK_I16: INTEGER(int16_t); break;
    case TK_I32: INTEGER(int32_t); break;
    case TK_I64: INTEGER(int64_t); break;
    case TK_U8: INTEGER(uint8_t); break;
    case TK_U16: INTEGER(uint16_t); break;
    case TK_U32: INTEGER(uint32_t); break;
    case TK_U64: INTEGER(uint64_t); break;
    case TK_BYTE: INTEGER(uint8_t); break;
    case TK_BOOL:
        switch (op) {
        case MPI_LAND: LOOP(_Bool, x && y); break;
        case MPI_LOR: LOOP(_Bool, x || y); break;
        case MPI_LXOR: LOOP(_Bool, x != y); break;
        default: break;
        }
        break;
    case TK_FLOAT: ARITH(float); break;
    case TK_DOUBLE: ARITH(double); break;
    case TK_LDOUBLE: ARITH(long double); break;
    case TK_FLOAT_INT: PAIR(float); break;
    case TK_DOUBLE_INT: PAIR(double); break;
    case TK_LONG_INT: PAIR(long); break;
    case TK_2INT: PAIR(int); break;
    case TK_SHORT_INT: PAIR(short); break;
    case TK_LDOUBLE_INT: PAIR(long double); break;
    default: break;
    }
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    if (!user_fn || !op)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Op_create", "NULL argument");
    for (int i = FIRST_USER_OP; i < MAX_USER_OPS; i++) {
        if (!user_ops[i].fn) {
            user_ops[i].fn = user_fn;
            user_ops[i].commute = commute;
            user_ops[i].busy = user_ops[i].freed = 0;
            *op = (MPI_Op)(TOYMPI_KIND_OP | (unsigned)i);
            return MPI_SUCCESS;
        }
    }
    return toympi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Op_create", "too many operators");
}
TOYMPI_WEAK(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    if (!op || user_index(*op) < 0)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_OP, "MPI_Op_free",
                          "not a user-defined operator");
    int i = user_index(*op);
    /* A reduction in progress uses it (tool code it runs called us): marked, released
     * at its end, as MPI-4.1 6.9.5 describes MPI_Op_free with operations pending. */
    if (user_ops[i].busy)
        user_ops[i].freed = 1;
    else
        user_ops[i].fn = NULL;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Op_free)
