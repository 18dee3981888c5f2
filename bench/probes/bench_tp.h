/* The LTTng-UST tracepoint provider of bench_probes (one event, two integer fields, as
 * the mpitev and SDT probes of the comparison carry). Read twice by lttng's macros. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER mpitev_bench
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(BENCH_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_H
#include <lttng/tracepoint.h>
TRACEPOINT_EVENT(mpitev_bench, msg, TP_ARGS(int, a, long, b),
                 TP_FIELDS(ctf_integer(int, a, a) ctf_integer(long, b, b)))
#endif

#include <lttng/tracepoint-event.h>
