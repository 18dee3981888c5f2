/* What the fake MPI library exposes to the adapter tests besides mpi.h: the events it
 * declares and ways to raise them, as a real MPI's internals would. */
#ifndef FAKEMPI_TEST_H
#define FAKEMPI_TEST_H

#include <stdint.h>
#include <mpi.h> /* the first on the include path: the fake's, or Open MPI's (adapter_openmpi) */
#include <mpitev/mpi_t_events.h>

#if defined(__GNUC__) && defined(__ELF__)
#define FAKEMPI_EXPORT __attribute__((visibility("default")))
#else
#define FAKEMPI_EXPORT
#endif

/* Payloads. fake_msg has no padding (extent 16); fake_comm_ev has 4 bytes of trailing
 * padding (C size 16, computable extent 12). */
struct fake_msg { int32_t peer; int32_t tag; int64_t bytes; };
struct fake_comm_ev { int64_t a; int32_t b; };
/* A char array between two scalars (fakempi_declare_text). */
struct fake_text { int32_t id; char text[6]; int16_t tail; };
/* Padding between elements: bytes 4..7 (fakempi_declare_padded). */
struct fake_padded { int32_t a; uint64_t b; uint64_t c; };

/* Event type indices in declaration order. */
enum { FAKE_EV_MSG = 0, FAKE_EV_COMM = 1, FAKE_EV_MARK = 2, FAKE_NUM_EVENTS = 3 };
/* Sources: 0 ordered with the monotonic clock, 1 unordered without a clock. */
enum { FAKE_SRC_MAIN = 0, FAKE_SRC_NOCLOCK = 1, FAKE_NUM_SOURCES = 2 };
/* The fake MPI's own categories (its numbering, not mpitev's). */
enum { FAKE_CAT_OTHER = 0, FAKE_CAT_P2P = 1, FAKE_CAT_CVARS = 2, FAKE_NUM_CATEGORIES = 3 };

FAKEMPI_EXPORT void fakempi_raise_msg(int src, int32_t peer, int32_t tag, int64_t bytes, int cb_safety);
FAKEMPI_EXPORT void fakempi_raise_comm(MPI_Comm comm, int64_t a, int32_t b);
FAKEMPI_EXPORT void fakempi_raise_mark(int cb_safety);
FAKEMPI_EXPORT int fakempi_progress(void);
/* Info objects of the fake MPI still alive (leak check) and failure injection. */
FAKEMPI_EXPORT int fakempi_info_live(void);
FAKEMPI_EXPORT void fakempi_info_fail_after(int n); /* n-th next Info_create/set fails; -1 never */
FAKEMPI_EXPORT MPI_T_enum fakempi_enum_of_comm_ev(void);
FAKEMPI_EXPORT int fakempi_drain(void); /* the main source's drain: callbacks run */
FAKEMPI_EXPORT int fakempi_declare_text(void); /* its type index, or -1 */
FAKEMPI_EXPORT void fakempi_raise_text(int32_t id, const char *text, int16_t tail);
FAKEMPI_EXPORT int fakempi_declare_padded(void); /* its type index, or -1 */
FAKEMPI_EXPORT void fakempi_raise_padded(const struct fake_padded *p);
/* A type bound to MPI_Op (its type index, or -1), raised on op. */
FAKEMPI_EXPORT int fakempi_declare_op_ev(void);
FAKEMPI_EXPORT void fakempi_raise_op(MPI_Op op, int32_t x);
/* Live objects, the ones the adapter's MPITEV_ADAPTER_IS_HANDLE hook knows: communicators
 * (pointers to objects of the fake; adopt: another handle, e.g. Open MPI's
 * MPI_COMM_WORLD) and operations (odd integers). */
FAKEMPI_EXPORT MPI_Comm fakempi_comm_create(void);
FAKEMPI_EXPORT void fakempi_comm_adopt(MPI_Comm comm);
FAKEMPI_EXPORT void fakempi_comm_free(MPI_Comm comm);
FAKEMPI_EXPORT MPI_Op fakempi_op_create(void);
FAKEMPI_EXPORT void fakempi_op_free(MPI_Op op);

#endif
