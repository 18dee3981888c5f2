/* mpit.c -- MPI tool information interface.
 *
 * MPI_T_init_thread / MPI_T_finalize are reference counted and independent of
 * MPI_Init/MPI_Finalize (MPI-4.1 §15.3.4). The 18 event and source functions of §16.3.8
 * come from the mpitev adapter, instantiated in this translation unit (the one TU that
 * has MPITEV_IMPLEMENTATION and MPITEV_ADAPTER_IMPLEMENTATION); what the toy writes
 * itself is its MPI_T reference count, the object-key hook and the category functions
 * (the enum functions and the string convention are the adapter's helpers). The toy has
 * no control or performance variables.
 *
 * Conventions (the adapter's, docs/adapter-guide.md section 8, kept for these too):
 * MPI_T_ERR_NOT_INITIALIZED first, then index/handle errors, then other arguments;
 * strings follow MPI-3.1 §14.3.3 (mpitev_adapter_string); nothing is written on
 * failure. */
#include "toympi_internal.h"

#include <string.h>

#include "events.h"
#include "win.h"

static int mpit_refcount;

/* ------------------------------------------------------------- init / finalize */
int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    /* Events must be visible before MPI_Init: whichever of MPI_T_init_thread and
     * MPI_Init comes first initialises mpitev and declares (events.c). */
    int rc = toympi_events_init();
    if (rc == MPITEV_ERR_NO_MEM)
        return MPI_T_ERR_MEMORY;
    if (rc)
        return MPI_T_ERR_CANNOT_INIT;
    mpit_refcount++;
    *provided = required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED : required;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(T_init_thread)

/* ------------------------------------------------------------- the adapter */
#define MPITEV_ADAPTER_T_INITIALIZED() (mpit_refcount > 0)

/* Object key for MPI_T_event_handle_alloc: a communicator's or a window's ev_key, the key
 * every raise site passes (events.h, win.h). The predefined communicators have fixed
 * keys, so a tool may register on them before MPI_Init and after MPI_Finalize.
 *
 * obj_handle should point to the MPI_Comm (16.3.8.4), but tools written for an MPI whose
 * MPI_Comm is a pointer pass the handle itself (MPI_COMM_WORLD, not &MPI_COMM_WORLD),
 * and C lets them. Dereferencing such a value crashes. The toy's handle values are
 * recognisable by their encoding (kind byte, TOYMPI_HANDLE_KIND, in a value below 2^32),
 * and on the 64-bit platforms the toy runs on no object a tool points to lives at those
 * addresses (the kind bytes put them between 448 MiB and 1.4 GiB, below every
 * position-independent executable, heap, stack and mapping): such a value is taken as
 * the handle itself. Anything else is a pointer, dereferenced only when it can point to
 * an MPI_Comm (outside the first page, aligned). docs/adapter-guide.md section 11 gives
 * this rule to every implementor with integer handles. */
static int toympi_is_handle_value(uintptr_t v)
{
    if (v > 0xffffffffu)
        return 0;
    unsigned k = TOYMPI_HANDLE_KIND((unsigned)v);
    return k == TOYMPI_KIND_COMM || k == TOYMPI_KIND_DATATYPE || k == TOYMPI_KIND_OP ||
           k == TOYMPI_KIND_ERRHANDLER || k == TOYMPI_KIND_INFO || k == TOYMPI_KIND_REQUEST ||
           k == TOYMPI_KIND_WIN;
}

/* A communicator's key; h is any handle value. */
static int toympi_comm_event_key(MPI_Comm h, const void **key)
{
    if (h == MPI_COMM_WORLD) {
        *key = (const void *)(uintptr_t)TOYMPI_EV_KEY_WORLD;
        return MPI_SUCCESS;
    }
    if (h == MPI_COMM_SELF) {
        *key = (const void *)(uintptr_t)TOYMPI_EV_KEY_SELF;
        return MPI_SUCCESS;
    }
    const toympi_comm_t *c = toympi_comm_get(h);
    if (!c)
        return MPI_T_ERR_INVALID_HANDLE; /* MPI_COMM_NULL, freed, or not a communicator */
    *key = TOYMPI_EV_KEY(c);
    return MPI_SUCCESS;
}

/* The toy's types bind to MPI_Comm or to MPI_Win (the one-sided family and win_free: a
 * window's ev_key, win.c). Both handles are int, so the same rule reads either. */
static int toympi_event_key(int bind, void *obj_handle, const void **key)
{
    if (bind != MPITEV_BIND_MPI_COMM && bind != MPITEV_BIND_MPI_WIN)
        return MPI_T_ERR_INVALID;
    uintptr_t v = (uintptr_t)obj_handle;
    int h;
    if (toympi_is_handle_value(v))
        h = (int)(unsigned)v; /* the handle passed by value */
    else if (v < 4096 || v % _Alignof(int) != 0)
        return MPI_T_ERR_INVALID_HANDLE; /* cannot point to a handle */
    else
        h = *(const int *)obj_handle;
    if (bind == MPITEV_BIND_MPI_WIN)
        return toympi_win_event_key(h, key); /* MPI_WIN_NULL, freed, or not a window */
    return toympi_comm_event_key(h, key);
}
#define MPITEV_ADAPTER_OBJECT_KEY(b, h, k) toympi_event_key((b), (h), (k))

#define MPITEV_IMPLEMENTATION
#define MPITEV_ADAPTER_IMPLEMENTATION
#include <mpitev/adapter.h>

/* The last MPI_T_finalize ends every registration while tools may still use MPI_T
 * (mpitev_adapter_t_finalize: what is buffered is delivered, drops are reported, pending
 * free callbacks run, at the level where MPI_T_finalize was called), then drops the
 * reference: no tool code is ever called into a finalized MPI_T. A call made by tool code
 * that this last call runs is one too many (the last reference is being dropped):
 * MPI_T_ERR_NOT_INITIALIZED. */
static int mpit_finalizing;

int PMPI_T_finalize(void)
{
    if (mpit_refcount == 0 || mpit_finalizing)
        return MPI_T_ERR_NOT_INITIALIZED;
    if (mpit_refcount == 1) {
        mpit_finalizing = 1;
        toympi_g.in_tool++; /* the tool code it runs is inside the library */
        (void)mpitev_adapter_t_finalize(toympi_events_level());
        toympi_g.in_tool--;
        mpit_finalizing = 0;
    }
    mpit_refcount--;
    toympi_events_finalize();
    return MPI_SUCCESS;
}
TOYMPI_WEAK(T_finalize)

#define T_CHECK_INIT()                                                                     \
    do {                                                                                   \
        if (mpit_refcount == 0)                                                            \
            return MPI_T_ERR_NOT_INITIALIZED;                                              \
    } while (0)

/* ------------------------------------------------------------- enums (§14.3.5)
 * The toy's only enums are its event types' element-name enums, which the adapter owns
 * (handles, names, items); an MPI with enums of its own would try those after
 * MPI_T_ERR_INVALID_INDEX. */
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    T_CHECK_INIT();
    return mpitev_adapter_enum_get_info(enumtype, num, name, name_len);
}
TOYMPI_WEAK(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    T_CHECK_INIT();
    return mpitev_adapter_enum_get_item(enumtype, index, value, name, name_len);
}
TOYMPI_WEAK(T_enum_get_item)

/* ------------------------------------------------------------- categories (§14.3.8) */
int PMPI_T_category_get_num(int *num_cat)
{
    T_CHECK_INIT();
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = toympi_events_num_categories();
    return MPI_SUCCESS;
}
TOYMPI_WEAK(T_category_get_num)

/* NULL OUT arguments are ignored, as the standard says for this function. */
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    T_CHECK_INIT();
    const toympi_category_t *c = toympi_events_category(cat_index);
    if (!c)
        return MPI_T_ERR_INVALID_INDEX;
    int rc = mpitev_adapter_string_check(name, name_len);
    if (rc == MPI_SUCCESS)
        rc = mpitev_adapter_string_check(desc, desc_len);
    if (rc != MPI_SUCCESS)
        return rc;
    mpitev_adapter_string(c->name, name, name_len);
    mpitev_adapter_string(c->desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = 0;
    if (num_pvars)
        *num_pvars = 0;
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    T_CHECK_INIT();
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < toympi_events_num_categories(); i++) {
        if (strcmp(toympi_events_category(i)->name, name) == 0) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}
TOYMPI_WEAK(T_category_get_index)

/* The event types of a category come from mpitev by category name (the adapter's
 * helpers), so a type declared later (a component loaded late) shows up by itself. */
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    T_CHECK_INIT();
    const toympi_category_t *c = toympi_events_category(cat_index);
    if (!c)
        return MPI_T_ERR_INVALID_INDEX;
    return mpitev_adapter_category_num_events(c->name, num_events);
}
TOYMPI_WEAK(T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    T_CHECK_INIT();
    const toympi_category_t *c = toympi_events_category(cat_index);
    if (!c)
        return MPI_T_ERR_INVALID_INDEX;
    return mpitev_adapter_category_events(c->name, len, indices, NULL);
}
TOYMPI_WEAK(T_category_get_events)
