/* mpitev detail: public constants, descriptor structs and callback types. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/types.h is internal: include <mpitev/mpitev.h> instead"
#endif
#ifndef MPITEV_DETAIL_TYPES_H
#define MPITEV_DETAIL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* ---- Return codes. Each maps to one MPI_T error class in the adapter. ---- */
enum {
    MPITEV_SUCCESS = 0,
    MPITEV_ERR_INVALID_INDEX = 1,   /* MPI_T_ERR_INVALID_INDEX */
    MPITEV_ERR_INVALID_HANDLE = 2,  /* MPI_T_ERR_INVALID_HANDLE: stale, random or NULL handle */
    MPITEV_ERR_INVALID_NAME = 3,    /* MPI_T_ERR_INVALID_NAME: unknown or duplicate name */
    MPITEV_ERR_INVALID_ARG = 4,     /* MPI_T_ERR_INVALID */
    MPITEV_ERR_NO_MEM = 5,          /* MPI_T_ERR_MEMORY */
    MPITEV_ERR_NOT_SUPPORTED = 6,   /* MPI_T_ERR_NOT_SUPPORTED */
    MPITEV_ERR_NOT_INITIALIZED = 7  /* MPI_T_ERR_NOT_INITIALIZED */
};

/* ---- Callback safety levels (MPI-4.1 Table 21), ascending. ---- */
enum {
    MPITEV_CB_REQUIRE_NONE = 0,
    MPITEV_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPITEV_CB_REQUIRE_THREAD_SAFE = 2,
    MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
};
#define MPITEV_CB_LEVELS 4

/* ---- Verbosity (MPI_T verbosity levels, ascending as the standard requires). ---- */
enum {
    MPITEV_VERBOSITY_USER_BASIC = 0,
    MPITEV_VERBOSITY_USER_DETAIL,
    MPITEV_VERBOSITY_USER_ALL,
    MPITEV_VERBOSITY_TUNER_BASIC,
    MPITEV_VERBOSITY_TUNER_DETAIL,
    MPITEV_VERBOSITY_TUNER_ALL,
    MPITEV_VERBOSITY_MPIDEV_BASIC,
    MPITEV_VERBOSITY_MPIDEV_DETAIL,
    MPITEV_VERBOSITY_MPIDEV_ALL
};

/* ---- Kinds of MPI object an event type binds to (MPI_T_BIND_*). ---- */
enum {
    MPITEV_BIND_NO_OBJECT = 0,
    MPITEV_BIND_MPI_COMM,
    MPITEV_BIND_MPI_DATATYPE,
    MPITEV_BIND_MPI_ERRHANDLER,
    MPITEV_BIND_MPI_FILE,
    MPITEV_BIND_MPI_GROUP,
    MPITEV_BIND_MPI_OP,
    MPITEV_BIND_MPI_REQUEST,
    MPITEV_BIND_MPI_WIN,
    MPITEV_BIND_MPI_MESSAGE,
    MPITEV_BIND_MPI_INFO,
    MPITEV_BIND_MPI_SESSION
};
#define MPITEV_BIND_KINDS 12

/* ---- Source ordering (MPI_T_source_order). ---- */
enum { MPITEV_SOURCE_ORDERED = 0, MPITEV_SOURCE_UNORDERED = 1 };

/* ---- Element datatypes. The adapter maps each to an MPI basic datatype. ---- */
typedef enum mpitev_dtype {
    MPITEV_DTYPE_INVALID = 0,
    MPITEV_INT8, MPITEV_INT16, MPITEV_INT32, MPITEV_INT64,         /* MPI_INT8_T ... */
    MPITEV_UINT8, MPITEV_UINT16, MPITEV_UINT32, MPITEV_UINT64,     /* MPI_UINT8_T ... */
    MPITEV_CHAR, MPITEV_SIGNED_CHAR, MPITEV_UNSIGNED_CHAR,         /* C char types */
    MPITEV_SHORT, MPITEV_UNSIGNED_SHORT,
    MPITEV_INT, MPITEV_UNSIGNED,
    MPITEV_LONG, MPITEV_UNSIGNED_LONG,
    MPITEV_LONG_LONG, MPITEV_UNSIGNED_LONG_LONG,
    MPITEV_FLOAT, MPITEV_DOUBLE,
    MPITEV_COUNT,     /* mpitev_count_t (int64_t): MPI_COUNT */
    MPITEV_OFFSET,    /* mpitev_offset_t (int64_t): MPI_OFFSET */
    MPITEV_AINT,      /* intptr_t: MPI_AINT */
    MPITEV_UINTPTR,   /* uintptr_t: pointer-sized unsigned (reported as MPI_AINT) */
    MPITEV_CHAR_ARRAY,/* char[count], NUL-padded text: MPI_CHAR, read copies all count bytes */
    MPITEV_DTYPE_COUNT_
} mpitev_dtype;

typedef int64_t mpitev_count_t;
typedef int64_t mpitev_offset_t;
#define MPITEV_COUNT_MAX INT64_MAX

/* One typed element of an event type. */
typedef struct mpitev_element {
    const char *name;     /* for documentation and tools; may be NULL */
    mpitev_dtype dtype;
    int count;            /* MPITEV_CHAR_ARRAY: number of chars (>0); others: 0 or 1 */
    long expect_offset;   /* offset the raise site's struct uses, or MPITEV_ANY_OFFSET */
} mpitev_element;
#define MPITEV_ANY_OFFSET (-1L)

/* An element of a payload struct; the declaration fails with MPITEV_ERR_INVALID_ARG
 * when the library's computed displacement differs from the struct member's offset. */
#define MPITEV_ELEMENT_OF(S, member, dtype) \
    { #member, (dtype), 1, (long)offsetof(S, member) }
#define MPITEV_CHARS_OF(S, member) \
    { #member, MPITEV_CHAR_ARRAY, (int)sizeof(((S *)0)->member), (long)offsetof(S, member) }

/* Enumeration (MPI_T_enum) attached to an event type. */
typedef struct mpitev_enum_item {
    const char *name;
    int value;
} mpitev_enum_item;
typedef struct mpitev_enum {
    const char *name;
    int num_items;
    const mpitev_enum_item *items;
} mpitev_enum;

/* Type flags. */
enum {
    /* Raised from contexts where no tool code may run: always buffered (issue: buffers). */
    MPITEV_TYPE_ALWAYS_BUFFERED = 1u << 0
};

/* What an implementor declares. Everything it points to (strings, elements, enum) must
 * stay valid until the last mpitev_finalize; static const data is the usual choice. */
typedef struct mpitev_type_desc {
    const char *name;              /* unique among event types, non-empty */
    const char *desc;              /* may be NULL (reported as "") */
    int verbosity;                 /* MPITEV_VERBOSITY_* */
    int bind;                      /* MPITEV_BIND_* */
    const char *category;          /* may be NULL: no category */
    const mpitev_enum *enumtype;   /* may be NULL */
    int num_elements;              /* 0..MPITEV_MAX_ELEMENTS */
    const mpitev_element *elements;
    size_t payload_size;           /* 0, or sizeof the raise site's struct: checked
                                    * against the natural layout incl. trailing padding */
    unsigned flags;                /* MPITEV_TYPE_* */
} mpitev_type_desc;

/* A source's clock. now() must be callable from any context the source raises in. */
typedef struct mpitev_clock {
    int64_t (*now)(void *ctx);     /* NULL: no ad-hoc timestamps (NOT_SUPPORTED) */
    void *ctx;
    int64_t ticks_per_second;
    int64_t max_ticks;
} mpitev_clock;

typedef struct mpitev_source_desc {
    const char *name;              /* non-empty */
    const char *desc;              /* may be NULL */
    int ordering;                  /* MPITEV_SOURCE_ORDERED: one control flow raises */
    const mpitev_clock *clock;     /* NULL: the default monotonic clock (copied) */
    /* Buffered delivery (0 = library defaults); ABI grows only here, at the end. */
    uint32_t buffer_capacity;      /* records; rounded up to a power of two */
    uint32_t buffer_record_size;   /* largest payload in bytes a record holds */
    int buffered_by_default;       /* registrations of this source's raises buffer by default */
} mpitev_source_desc;

/* Registration handle: slot index and generation; a stale or random value is detected
 * by comparing the generation, never by dereferencing it. 0 is never valid. */
typedef struct mpitev_reg {
    uint64_t bits;
} mpitev_reg;
#define MPITEV_REG_NULL ((mpitev_reg){ 0 })

/* Info hints are key/value strings; the adapter turns them into MPI_Info. */
typedef struct mpitev_kv {
    const char *key;
    const char *value;
} mpitev_kv;
/* Visitor for hints; return non-zero to stop early. */
typedef int (*mpitev_kv_visit_fn)(const char *key, const char *value, void *ctx);

typedef struct mpitev_instance mpitev_instance;

/* An opaque function pointer the core stores next to each callback and hands back
 * untouched: the adapter keeps the tool's MPI_T callback there and registers a
 * trampoline, without allocating a closure. Native users pass NULL. */
typedef void (*mpitev_fnptr)(void);

typedef void (*mpitev_event_cb)(const mpitev_instance *instance, mpitev_reg reg,
                                int cb_safety, void *user_data, mpitev_fnptr ext);
typedef void (*mpitev_dropped_cb)(mpitev_count_t count, mpitev_reg reg, int source_index,
                                  int cb_safety, void *user_data, mpitev_fnptr ext);
typedef void (*mpitev_free_cb)(mpitev_reg reg, int cb_safety, void *user_data, mpitev_fnptr ext);

/* Allocator hooks (set before mpitev_init). alloc must return memory aligned to
 * `align` (a power of two, at most 4096); free receives the size and alignment given. */
typedef struct mpitev_allocator {
    void *(*alloc)(size_t size, size_t align, void *ctx);
    void (*free)(void *ptr, size_t size, size_t align, void *ctx);
    void *ctx;
} mpitev_allocator;

/* Read-only views returned by the query functions; valid until the last finalize. */
typedef struct mpitev_type_info {
    const char *name;
    const char *desc;              /* never NULL */
    int verbosity;
    int bind;
    const char *category;          /* NULL: none */
    const mpitev_enum *enumtype;   /* NULL: none */
    int num_elements;
    const mpitev_element *elements;
    const size_t *displacements;   /* ascending, first 0 */
    const size_t *sizes;           /* bytes of each element */
    size_t extent;                 /* bytes mpitev_instance_copy writes: the end of the
                                    * last element (no trailing struct padding) */
    unsigned flags;
} mpitev_type_info;

typedef struct mpitev_source_info {
    const char *name;
    const char *desc;              /* never NULL */
    int ordering;
    int64_t ticks_per_second;
    int64_t max_ticks;
    int has_now;                   /* ad-hoc timestamps supported */
} mpitev_source_info;

#endif /* MPITEV_DETAIL_TYPES_H */
