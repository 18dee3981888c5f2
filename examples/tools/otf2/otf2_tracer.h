/* otf2_tracer.h -- what the tracer's two files share: mpitev_otf2.c (the archive, memory
 * and flush callbacks, generic instances as regions with attributes, definitions) and
 * otf2_rma.c (one-sided instances as OTF2 RMA records, windows and their definitions). */
#ifndef MPITEV_TOOLS_OTF2_TRACER_H
#define MPITEV_TOOLS_OTF2_TRACER_H

#include "../common/tc.h"
#include "otf2_coll.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden) /* see tc.h */
#endif

/* ---- mpitev_otf2.c */
extern OTF2_AttributeList *trace_alist;
extern struct OTF2_CollectiveContext trace_coll; /* private duplicate of MPI_COMM_WORLD */
/* The writer of a source's location (NULL: none). */
OTF2_EvtWriter *trace_writer(int source);
/* A source's timestamp on the trace's clock, never before the location's last record;
 * _on: a timestamp of source clock for the location of source location. */
OTF2_TimeStamp trace_time(int source, MPI_Count ts);
OTF2_TimeStamp trace_time_on(int location, int clock, MPI_Count ts);
/* n records were written on the source's location at ts. */
void trace_wrote(int source, OTF2_TimeStamp ts, int n);
/* Adds the record's elements to trace_alist (the next record written takes them). */
void trace_attributes(const struct tc_record *r);

/* ---- otf2_rma.c */
/* At start: which types are the catalogue's one-sided events, and their elements. */
int rma_start(void);
/* Writes r as RMA records if it is a one-sided instance on a window; 0 if not (the
 * caller writes it as a region). */
int rma_process(const struct tc_record *r);
/* TC_REC_WIN_CREATED / _FREED: RmaWinCreate / RmaWinDestroy on every location of the
 * process. */
void rma_window_record(const struct tc_record *r);
/* At finalize, before the event writers close: leaves synchronization regions still open. */
void rma_close(void);
/* Collective over trace_coll: rank 0 learns every rank's windows and which are the same
 * window; each rank learns the global id of each of its windows. */
void rma_unify(int rank, int size);
/* The mapping of this rank's window ids to the global ones, into a location's local
 * definitions. */
void rma_write_mapping(OTF2_DefWriter *d);
/* Rank 0: the sync regions (ids first_region, first_region + 1, ...), and the windows
 * with their groups and communicators; strings from *next_string on. nsources: locations
 * per rank (rank r is represented by location r * nsources). */
void rma_write_global_defs(OTF2_GlobalDefWriter *g, uint32_t *next_string, OTF2_RegionRef first_region, int size,
                           int nsources);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
