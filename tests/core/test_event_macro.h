/* The events of test_event_macro.c and test_event_macro_b.c, spelled once in a header
 * both TUs include, as an MPI's events header would be. */
#ifndef TEST_EVENT_MACRO_H
#define TEST_EVENT_MACRO_H

#include <mpitev/mpitev.h>

/* API v0.1 datatype names (v0.2: MPITEV_DTYPE_INT32, MPITEV_DTYPE_COUNT, ...). */
#define TEV_MSG_FIELDS(X)                    \
    X(int32_t, context_id, MPITEV_DTYPE_INT32)     \
    X(int32_t, source, MPITEV_DTYPE_INT32)         \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT)
/* Holes between members and trailing padding: the displacements come from the struct
 * and the core checks them against its own layout. */
#define TEV_MIXED_FIELDS(X)                  \
    X(uint8_t, flag, MPITEV_DTYPE_UINT8)           \
    X(double, ratio, MPITEV_DTYPE_DOUBLE)          \
    X(int16_t, small, MPITEV_DTYPE_INT16)          \
    X(uintptr_t, addr, MPITEV_DTYPE_UINTPTR)       \
    X(int8_t, last, MPITEV_DTYPE_INT8)

MPITEV_EVENT_TYPE(tev_msg, TEV_MSG_FIELDS)
MPITEV_EVENT_TYPE(tev_mixed, TEV_MIXED_FIELDS)
MPITEV_EVENT_TYPE_EMPTY(tev_empty)
/* Only ever declared under a taken name (declaration errors). */
MPITEV_EVENT_TYPE_EMPTY(tev_dup)

/* Raises from the second TU (test_event_macro_b.c), which defines tev_mixed. */
void b_raise_msg(mpitev_source *s, const void *object, int32_t context_id, int32_t source, mpitev_count_t bytes);
void b_raise_mixed(mpitev_source *s, const struct tev_mixed_payload *p);
void b_raise_empty(mpitev_source *s);

#endif
