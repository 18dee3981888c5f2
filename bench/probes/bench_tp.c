/* The LTTng-UST probe provider (the probe callbacks lttng generates). */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "bench_tp.h"
