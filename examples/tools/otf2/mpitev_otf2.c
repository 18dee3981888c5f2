/* mpitev_otf2: writes MPI_T event instances into an OTF2 trace (standard MPI_T API only).
 *
 * Mapping (docs/tool-writers-guide.md, "The OTF2 tracer"):
 *   - one OTF2 location per (rank, MPI_T source): location id rank * nsources + source,
 *     named after the source, in the location group "rank R" (one per process), so each
 *     location holds the instances of one source, in its timestamp order;
 *   - each event type is a region (role ARTIFICIAL, paradigm MEASUREMENT_SYSTEM) named
 *     after the type; each instance is an Enter immediately followed by a Leave of that
 *     region at the instance's timestamp, the Enter carrying the payload as attributes:
 *     one attribute per distinct (element name, type), OTF2 type from the element's MPI
 *     datatype (MPI_CHAR text: a string definition);
 *   - drops: an Enter/Leave of the region "MPI_T_events_dropped" on the source's location,
 *     with attributes dropped_count and dropped_event, timestamped when the dropped handler
 *     ran (never before the location's previous record);
 *   - timestamps: the sources' ticks (converted to the first source's ticks per second if
 *     a source has another rate); ClockProperties: that resolution, the earliest
 *     timestamp of all ranks as offset, the span of all ranks as length;
 *   - one-sided instances (the catalogue's window-bound events) are OTF2 RMA records on
 *     OTF2 RMA windows (otf2_rma.c);
 *   - bounded memory, as Score-P: the memory callbacks hand out the event chunks from a
 *     per-process pool (MPITEV_OTF2_MEMORY, default 16 MiB); when it is used up, the
 *     allocator returns NULL and OTF2 flushes the buffer asking for a chunk to disk and
 *     reuses its chunks (each location always gets one chunk). The pre-flush callback
 *     counts these flushes and allows them (OTF2_FLUSH); the post-flush callback gives the
 *     stop time of the BufferFlush record OTF2 writes;
 *   - definitions: regions and attributes come from the MPI_T tables, identical on every
 *     rank of one MPI (checked); payload strings are local per rank and unified at
 *     MPI_Finalize: rank 0 gathers every rank's strings, defines the global ones and each
 *     rank writes a string mapping table for its locations.
 * Archive: MPITEV_OTF2_DIR (default mpitev-otf2; .1, .2, ... appended if it exists),
 * anchor file <dir>/traces.otf2. Callbacks only record (tc_core.c); OTF2 records are
 * written in batches, when a callback runs at MPI_RESTRICTED or NONE once the rings hold a
 * quarter ring, and at MPI_Finalize. */
#define _POSIX_C_SOURCE 200809L
#include "otf2_tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "mpitev_otf2: MPI_T events into an OTF2 trace (standard MPI_T API only). Environment:\n"
    "  MPITEV_OTF2_DIR     archive directory (default mpitev-otf2; if it exists, .1, .2, ...\n"
    "                      is appended); the anchor file is <dir>/traces.otf2\n"
    "  MPITEV_OTF2_EVENTS  event type names or glob patterns, separated by comma, colon,\n"
    "                      semicolon or space (unset or empty: all types)\n"
    "  MPITEV_OTF2_CHUNK   OTF2 chunk size in bytes (default 1048576, at least 262144)\n"
    "  MPITEV_OTF2_MEMORY  bytes of event buffers per process, at least one chunk (default\n"
    "                      16777216); when they are full, OTF2 writes a buffer to disk\n"
    "  MPITEV_TOOL_RING    instances buffered per thread before they are written\n"
    "                      (default 16384)\n";

static struct tc_patterns select_patterns;
static char dir[1024];
static long chunk_size = 1 << 20, memory_bound = 16 << 20;
static long pool_chunks, pool_used, pool_peak; /* event chunks the process may hold, holds, held at most */

static OTF2_Archive *archive;
struct OTF2_CollectiveContext trace_coll;
static int have_comm;
static OTF2_EvtWriter **writers; /* per source */
static OTF2_TimeStamp *last_ts;  /* per source: last written */
static uint64_t *nevents;        /* per source: records written */
static OTF2_TimeStamp first_ts = UINT64_MAX, end_ts;
static uint64_t resolution = 1000000000;
static long flushes;
OTF2_AttributeList *trace_alist;

/* attributes: one per distinct (element name, OTF2 type) */
struct attr {
    char name[TC_ELEM_NAME];
    OTF2_Type type;
};
static struct attr *attrs;
static int nattrs;
static int *attr_of; /* [type * TC_MAX_ELEMS + element] */
static int attr_dropped_count, attr_dropped_event;

/* local strings (payload text, dropped type names) */
static char **lstr;
static uint32_t nlstr, lstr_cap;

static int bad(const char *var, const char *value)
{
    fprintf(stderr, "mpitev_otf2: invalid %s='%s'; the tracer is not attached.\n%s", var, value ? value : "",
            usage);
    return -1;
}

static int configure(void)
{
    const char *d = getenv("MPITEV_OTF2_DIR");
    const char *ev = getenv("MPITEV_OTF2_EVENTS");
    snprintf(dir, sizeof dir, "%s", d && *d ? d : "mpitev-otf2");
    if (ev && *ev && tc_patterns_parse(ev, &select_patterns) != 0)
        return bad("MPITEV_OTF2_EVENTS", ev);
    if ((chunk_size = tc_env_long("MPITEV_OTF2_CHUNK", 1 << 20)) < 256 * 1024)
        return bad("MPITEV_OTF2_CHUNK", getenv("MPITEV_OTF2_CHUNK"));
    if ((memory_bound = tc_env_long("MPITEV_OTF2_MEMORY", 16 << 20)) < chunk_size)
        return bad("MPITEV_OTF2_MEMORY (less than one chunk)", getenv("MPITEV_OTF2_MEMORY"));
    pool_chunks = memory_bound / chunk_size;
    if (tc_env_long("MPITEV_TOOL_RING", 1) < 0)
        return bad("MPITEV_TOOL_RING", getenv("MPITEV_TOOL_RING"));
    return 0;
}

static int select_type(const struct tc_type *t) { return tc_patterns_match(&select_patterns, t->name); }

static OTF2_Type otf2_type(const struct tc_type *t, int i)
{
    if (tc_elem_is_text(t, i))
        return OTF2_TYPE_STRING;
    if (t->kinds[i] == TC_ELEM_DOUBLE)
        return OTF2_TYPE_DOUBLE;
    if (t->kinds[i] == TC_ELEM_FLOAT)
        return OTF2_TYPE_FLOAT;
    int u = tc_elem_is_unsigned(t, i);
    switch (t->sizes[i]) {
    case 1: return u ? OTF2_TYPE_UINT8 : OTF2_TYPE_INT8;
    case 2: return u ? OTF2_TYPE_UINT16 : OTF2_TYPE_INT16;
    case 4: return u ? OTF2_TYPE_UINT32 : OTF2_TYPE_INT32;
    case 8: return u ? OTF2_TYPE_UINT64 : OTF2_TYPE_INT64;
    default: return OTF2_TYPE_NONE;
    }
}

static int attr_id(const char *name, OTF2_Type type)
{
    for (int a = 0; a < nattrs; a++)
        if (attrs[a].type == type && strcmp(attrs[a].name, name) == 0)
            return a;
    struct attr *n = realloc(attrs, (size_t)(nattrs + 1) * sizeof *n);
    if (!n)
        return -1;
    attrs = n;
    snprintf(attrs[nattrs].name, sizeof attrs[nattrs].name, "%s", name);
    attrs[nattrs].type = type;
    return nattrs++;
}

static uint32_t local_string(const char *s)
{
    for (uint32_t i = 0; i < nlstr; i++)
        if (strcmp(lstr[i], s) == 0)
            return i;
    if (nlstr == lstr_cap) {
        uint32_t cap = lstr_cap ? 2 * lstr_cap : 32;
        char **n = realloc(lstr, cap * sizeof *n);
        if (!n)
            return OTF2_UNDEFINED_STRING;
        lstr = n, lstr_cap = cap;
    }
    lstr[nlstr] = strdup(s);
    return lstr[nlstr] ? nlstr++ : OTF2_UNDEFINED_STRING;
}

/* ---------------------------------------------------------------- OTF2 callbacks */
struct chunks {
    void **p;
    long n, cap;
};

static void *mem_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer, uint64_t size)
{
    (void)ud, (void)loc;
    struct chunks *c = *per_buffer;
    if (!c && !(c = *per_buffer = calloc(1, sizeof *c)))
        return NULL;
    /* Bounded memory for event buffers: NULL makes OTF2 flush this buffer and reuse its
     * chunks. A buffer without chunks always gets one, so a flush always frees one. */
    if (ft == OTF2_FILETYPE_EVENTS && c->n > 0 && pool_used >= pool_chunks)
        return NULL;
    if (c->n == c->cap) {
        long cap = c->cap ? 2 * c->cap : 8;
        void **n = realloc(c->p, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        c->p = n, c->cap = cap;
    }
    void *m = malloc(size);
    if (m)
        c->p[c->n++] = m;
    if (m && ft == OTF2_FILETYPE_EVENTS && ++pool_used > pool_peak)
        pool_peak = pool_used;
    return m;
}

static void mem_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer, bool final)
{
    (void)ud, (void)loc;
    struct chunks *c = *per_buffer;
    if (!c)
        return;
    if (ft == OTF2_FILETYPE_EVENTS)
        pool_used -= c->n;
    for (long i = 0; i < c->n; i++)
        free(c->p[i]);
    c->n = 0;
    if (final) {
        free(c->p);
        free(c);
        *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = {mem_alloc, mem_free_all};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)ud, (void)loc, (void)caller;
    if (ft == OTF2_FILETYPE_EVENTS && !final)
        flushes++;
    return OTF2_FLUSH;
}

/* The stop time of the BufferFlush record OTF2 writes (OTF2 stamps the record itself
 * with the next event's time, so the location stays in time order): now, on the clock of
 * the location's source. */
static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft;
    int n = tc_num_sources();
    MPI_Count now;
    if (loc == OTF2_UNDEFINED_LOCATION || n <= 0)
        return end_ts;
    int s = (int)(loc % (uint64_t)n);
    if (MPI_T_source_get_timestamp(s, &now) != MPI_SUCCESS)
        return last_ts[s];
    OTF2_TimeStamp t = (OTF2_TimeStamp)now;
    const struct tc_source *src = &tc_sources()[s];
    if (src->ticks_per_second > 0 && (uint64_t)src->ticks_per_second != resolution)
        t = (OTF2_TimeStamp)((double)now * (double)resolution / (double)src->ticks_per_second);
    return t;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* ---------------------------------------------------------------- lifecycle */
/* One attribute per distinct (element name, OTF2 type), and the two of drops. */
static void define_attributes(void)
{
    for (int t = 0; t < tc_num_types(); t++) {
        const struct tc_type *ty = &tc_types()[t];
        for (int i = 0; i < ty->num_elements; i++)
            attr_of[t * TC_MAX_ELEMS + i] = attr_id(ty->elem_names[i], otf2_type(ty, i));
    }
    attr_dropped_count = attr_id("dropped_count", OTF2_TYPE_UINT64);
    attr_dropped_event = attr_id("dropped_event", OTF2_TYPE_STRING);
}

/* The archive directory: rank 0 picks a fresh name, everyone uses it. */
static void pick_dir(int rank)
{
    if (rank == 0) {
        char base[1024];
        struct stat st;
        snprintf(base, sizeof base, "%s", dir);
        for (int k = 1; stat(dir, &st) == 0 && k < 1000; k++)
            snprintf(dir, sizeof dir, "%.1000s.%d", base, k);
    }
    PMPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static OTF2_Archive *open_archive(int rank)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, (uint64_t)chunk_size,
                                        4 * (uint64_t)chunk_size, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        fprintf(stderr, "mpitev_otf2: rank %d: cannot create the archive in %s\n", rank, dir);
        return NULL;
    }
    if (OTF2_Archive_SetMemoryCallbacks(a, &memory_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetCollectiveCallbacks(a, &otf2_coll_callbacks, NULL, &trace_coll, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(a) != OTF2_SUCCESS) {
        fprintf(stderr, "mpitev_otf2: rank %d: cannot set up the archive in %s\n", rank, dir);
        OTF2_Archive_Close(a);
        return NULL;
    }
    return a;
}

static void start(int rank, int size)
{
    int ns = tc_num_sources();
    writers = calloc((size_t)(ns ? ns : 1), sizeof *writers);
    last_ts = calloc((size_t)(ns ? ns : 1), sizeof *last_ts);
    nevents = calloc((size_t)(ns ? ns : 1), sizeof *nevents);
    attr_of = malloc((size_t)tc_num_types() * TC_MAX_ELEMS * sizeof *attr_of);
    if (!writers || !last_ts || !nevents || !attr_of || rma_start() != 0)
        return;
    if (ns > 0 && tc_sources()[0].ticks_per_second > 0)
        resolution = (uint64_t)tc_sources()[0].ticks_per_second;
    define_attributes();
    pick_dir(rank);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &trace_coll.comm) != MPI_SUCCESS) /* private: not followed */
        return;
    have_comm = 1;
    trace_coll.rank = rank, trace_coll.size = size;
    if (!(archive = open_archive(rank)))
        return;
    for (int s = 0; s < ns; s++)
        writers[s] = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)rank * (uint64_t)ns + (uint64_t)s);
    trace_alist = OTF2_AttributeList_New();
}

OTF2_EvtWriter *trace_writer(int source)
{
    return archive && writers && source >= 0 && source < tc_num_sources() ? writers[source] : NULL;
}

OTF2_TimeStamp trace_time_on(int location, int clock, MPI_Count ts)
{
    const struct tc_source *s = &tc_sources()[clock];
    uint64_t t = (uint64_t)ts;
    if (s->ticks_per_second > 0 && (uint64_t)s->ticks_per_second != resolution)
        t = (uint64_t)((double)ts * (double)resolution / (double)s->ticks_per_second);
    if (t < last_ts[location]) /* unordered source, or a drop noticed late */
        t = last_ts[location];
    return t;
}

OTF2_TimeStamp trace_time(int source, MPI_Count ts) { return trace_time_on(source, source, ts); }

void trace_wrote(int source, OTF2_TimeStamp ts, int n)
{
    last_ts[source] = ts;
    nevents[source] += (uint64_t)n;
    if (ts < first_ts)
        first_ts = ts;
    if (ts > end_ts)
        end_ts = ts;
}

/* Element i of r as attribute a: text as a local string; a number as it is in the
 * payload, copied into OTF2's value union (every member starts at its first byte, and
 * otf2_type gave the attribute the member of the element's datatype and size). */
static void add_attribute(const struct tc_type *t, const struct tc_record *r, int i, int a)
{
    OTF2_AttributeValue v;
    if (attrs[a].type == OTF2_TYPE_STRING) {
        char text[TC_DATA + 4];
        tc_elem_format(t, r, i, text, sizeof text);
        size_t n = strlen(text); /* drop the quotes the formatter adds */
        if (n >= 2 && text[0] == '"') {
            text[n - 1] = '\0';
            memmove(text, text + 1, n - 1);
        }
        v.stringRef = local_string(text);
    } else if (attrs[a].type != OTF2_TYPE_NONE && t->sizes[i] <= (int)sizeof v) {
        memset(&v, 0, sizeof v);
        memcpy(&v, r->data + t->displs[i], (size_t)t->sizes[i]);
    } else {
        return;
    }
    OTF2_AttributeList_AddAttribute(trace_alist, (OTF2_AttributeRef)a, attrs[a].type, v);
}

void trace_attributes(const struct tc_record *r)
{
    const struct tc_type *t = &tc_types()[r->type];
    if (!r->has_data)
        return;
    for (int i = 0; i < t->num_elements; i++)
        if (attr_of[r->type * TC_MAX_ELEMS + i] >= 0)
            add_attribute(t, r, i, attr_of[r->type * TC_MAX_ELEMS + i]);
}

/* An instance (or a drop) as a zero-length region: Enter with its elements, Leave. */
static void write_region(const struct tc_record *r)
{
    const struct tc_type *t = &tc_types()[r->type];
    OTF2_EvtWriter *w = writers[r->source];
    OTF2_TimeStamp ts = trace_time(r->source, r->timestamp);
    OTF2_RegionRef region = (OTF2_RegionRef)r->type;
    if (r->kind == TC_REC_DROPPED) {
        region = (OTF2_RegionRef)tc_num_types();
        OTF2_AttributeValue v;
        v.uint64 = (uint64_t)r->count;
        OTF2_AttributeList_AddAttribute(trace_alist, (OTF2_AttributeRef)attr_dropped_count, OTF2_TYPE_UINT64, v);
        v.stringRef = local_string(t->name);
        OTF2_AttributeList_AddAttribute(trace_alist, (OTF2_AttributeRef)attr_dropped_event, OTF2_TYPE_STRING, v);
    } else {
        trace_attributes(r);
    }
    OTF2_EvtWriter_Enter(w, trace_alist, ts, region);
    OTF2_EvtWriter_Leave(w, NULL, ts, region);
    trace_wrote(r->source, ts, 2);
}

static void process(const struct tc_record *r)
{
    if (!trace_alist || !trace_writer(r->source))
        return;
    if (r->kind == TC_REC_WIN_CREATED || r->kind == TC_REC_WIN_FREED)
        rma_window_record(r);
    else if (r->kind == TC_REC_DROPPED || !rma_process(r))
        write_region(r);
}

/* ---------------------------------------------------------------- finalize */
/* Rank 0 gathers the ranks' local strings and returns, on every rank, the global id of
 * each local string; on rank 0 also the global table (after the `fixed` strings). */
static uint64_t *unify_strings(int rank, int size, char ***global, uint32_t *nglobal, uint32_t fixed)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < nlstr; i++)
        bytes += strlen(lstr[i]) + 1;
    char *mine = malloc(bytes ? bytes : 1);
    size_t o = 0;
    for (uint32_t i = 0; mine && i < nlstr; i++) {
        size_t n = strlen(lstr[i]) + 1;
        memcpy(mine + o, lstr[i], n);
        o += n;
    }
    int my[2] = {(int)bytes, (int)nlstr}, *all = rank == 0 ? calloc((size_t)size * 2, sizeof(int)) : NULL;
    PMPI_Gather(my, 2, MPI_INT, all, 2, MPI_INT, 0, trace_coll.comm);
    int *cnt = NULL, *dsp = NULL, *mcnt = NULL, *mdsp = NULL;
    char *text = NULL;
    uint64_t *maps = NULL, *mymap = calloc(nlstr ? nlstr : 1, sizeof *mymap);
    if (rank == 0) {
        cnt = calloc((size_t)size, sizeof *cnt), dsp = calloc((size_t)size, sizeof *dsp);
        mcnt = calloc((size_t)size, sizeof *mcnt), mdsp = calloc((size_t)size, sizeof *mdsp);
        int total = 0, mtotal = 0;
        for (int r = 0; r < size; r++) {
            cnt[r] = all[2 * r], dsp[r] = total, total += cnt[r];
            mcnt[r] = all[2 * r + 1], mdsp[r] = mtotal, mtotal += mcnt[r];
        }
        text = malloc((size_t)(total ? total : 1));
        maps = calloc((size_t)(mtotal ? mtotal : 1), sizeof *maps);
    }
    PMPI_Gatherv(mine, (int)bytes, MPI_CHAR, text, cnt, dsp, MPI_CHAR, 0, trace_coll.comm);
    if (rank == 0) {
        char **g = NULL;
        uint32_t n = 0;
        for (int r = 0; r < size; r++) {
            const char *p = text + dsp[r];
            for (int k = 0; k < mcnt[r]; k++, p += strlen(p) + 1) {
                uint32_t j = 0;
                while (j < n && strcmp(g[j], p) != 0)
                    j++;
                if (j == n) {
                    g = realloc(g, (n + 1) * sizeof *g);
                    g[n++] = strdup(p);
                }
                maps[mdsp[r] + k] = fixed + j;
            }
        }
        *global = g, *nglobal = n;
    }
    PMPI_Scatterv(maps, mcnt, mdsp, MPI_UINT64_T, mymap, (int)nlstr, MPI_UINT64_T, 0, trace_coll.comm);
    free(mine), free(all), free(cnt), free(dsp), free(mcnt), free(mdsp), free(text), free(maps);
    return mymap;
}

static uint64_t names_hash(void)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over type and source names */
    for (int t = 0; t < tc_num_types(); t++)
        for (const char *p = tc_types()[t].name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (int s = 0; s < tc_num_sources(); s++)
        for (const char *p = tc_sources()[s].name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

static void write_global_defs(int size, char **gstr, uint32_t ngstr, const uint64_t *counts)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
    int nt = tc_num_types(), ns = tc_num_sources();
    OTF2_TimeStamp lo = first_ts, hi = end_ts;
    uint64_t span = lo <= hi ? hi - lo + 1 : 1;
    OTF2_GlobalDefWriter_WriteClockProperties(g, resolution, lo == UINT64_MAX ? 0 : lo, span,
                                              OTF2_UNDEFINED_TIMESTAMP);
    /* fixed strings: 0 "", then type names, attribute names, source names, fixed words */
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(g, s++, "");
    uint32_t s_types = s;
    for (int t = 0; t < nt; t++)
        OTF2_GlobalDefWriter_WriteString(g, s++, tc_types()[t].name);
    OTF2_GlobalDefWriter_WriteString(g, s++, "MPI_T_events_dropped");
    uint32_t s_attrs = s;
    for (int a = 0; a < nattrs; a++)
        OTF2_GlobalDefWriter_WriteString(g, s++, attrs[a].name);
    uint32_t s_sources = s;
    for (int k = 0; k < ns; k++)
        OTF2_GlobalDefWriter_WriteString(g, s++, tc_sources()[k].name);
    uint32_t s_machine = s;
    OTF2_GlobalDefWriter_WriteString(g, s++, "machine");
    OTF2_GlobalDefWriter_WriteString(g, s++, "node");
    uint32_t s_ranks = s;
    for (int r = 0; r < size; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, s++, name);
    }
    for (uint32_t k = 0; k < ngstr; k++) /* unified payload strings, see unify_strings */
        OTF2_GlobalDefWriter_WriteString(g, s++, gstr[k]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_machine + 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < size; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, s_ranks + (uint32_t)r,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
        for (int k = 0; k < ns; k++)
            OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r * (uint64_t)ns + (uint64_t)k,
                                               s_sources + (uint32_t)k, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               counts[r * ns + k], (OTF2_LocationGroupRef)r);
    }
    for (int t = 0; t <= nt; t++)
        OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)t, s_types + (uint32_t)t, s_types + (uint32_t)t, 0,
                                         OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    for (int a = 0; a < nattrs; a++)
        OTF2_GlobalDefWriter_WriteAttribute(g, (OTF2_AttributeRef)a, s_attrs + (uint32_t)a, 0, attrs[a].type);
    /* the synchronization regions, windows and their groups (strings after the payload's) */
    rma_write_global_defs(g, &s, (OTF2_RegionRef)nt + 1, size, ns);
    OTF2_Archive_CloseGlobalDefWriter(archive, g);
}

static uint32_t fixed_strings(int size)
{
    return 1 + (uint32_t)tc_num_types() + 1 + (uint32_t)nattrs + (uint32_t)tc_num_sources() + 2 + (uint32_t)size;
}

/* Local definitions: each location maps its payload strings and windows to the global ones. */
static void write_local_defs(int rank, const uint64_t *map)
{
    int ns = tc_num_sources();
    OTF2_Archive_OpenDefFiles(archive);
    for (int k = 0; k < ns; k++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)rank * (uint64_t)ns + (uint64_t)k);
        if (!d)
            continue;
        OTF2_IdMap *m = map && nlstr > 0 ? OTF2_IdMap_CreateFromUint64Array(nlstr, map, false) : NULL;
        if (m) {
            OTF2_DefWriter_WriteMappingTable(d, OTF2_MAPPING_STRING, m);
            OTF2_IdMap_Free(m);
        }
        rma_write_mapping(d);
        OTF2_Archive_CloseDefWriter(archive, d);
    }
    OTF2_Archive_CloseDefFiles(archive);
}

/* Every rank's view of the time span, tables and counts, for rank 0's definitions. */
static uint64_t *agree(int rank, int size)
{
    int ns = tc_num_sources();
    uint64_t h = names_hash(), hmin, hmax;
    PMPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, trace_coll.comm);
    PMPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, trace_coll.comm);
    if (rank == 0 && hmin != hmax)
        fprintf(stderr, "mpitev_otf2: ranks have different MPI_T event tables: region and attribute "
                        "definitions follow rank 0's\n");
    OTF2_TimeStamp lo, hi;
    PMPI_Allreduce(&first_ts, &lo, 1, MPI_UINT64_T, MPI_MIN, trace_coll.comm);
    PMPI_Allreduce(&end_ts, &hi, 1, MPI_UINT64_T, MPI_MAX, trace_coll.comm);
    first_ts = lo, end_ts = hi;
    uint64_t *counts = rank == 0 ? calloc((size_t)size * (size_t)(ns ? ns : 1), sizeof *counts) : NULL;
    PMPI_Gather(nevents, ns, MPI_UINT64_T, counts, ns, MPI_UINT64_T, 0, trace_coll.comm);
    return counts;
}

static void summary(int rank, int size, const uint64_t *counts)
{
    int ns = tc_num_sources();
    long drops = 0, all_drops = 0, all_flushes = 0, peak = 0;
    for (int t = 0; t < tc_num_types(); t++)
        drops += atomic_load(&tc_types()[t].dropped);
    PMPI_Reduce(&flushes, &all_flushes, 1, MPI_LONG, MPI_SUM, 0, trace_coll.comm);
    PMPI_Reduce(&drops, &all_drops, 1, MPI_LONG, MPI_SUM, 0, trace_coll.comm);
    PMPI_Reduce(&pool_peak, &peak, 1, MPI_LONG, MPI_MAX, 0, trace_coll.comm);
    if (rank != 0 || !counts)
        return;
    uint64_t total = 0;
    for (int i = 0; i < size * ns; i++)
        total += counts[i];
    fprintf(stderr,
            "mpitev_otf2: trace in %s/traces.otf2: %d locations, %llu records, %ld instances reported "
            "dropped, %ld buffer flushes, event buffers at most %ld KiB per process (bound %ld KiB)\n",
            dir, size * ns, (unsigned long long)total, all_drops, all_flushes, peak * (chunk_size / 1024),
            (pool_chunks > ns ? pool_chunks : ns) * (chunk_size / 1024));
}

static void finish(int rank, int size)
{
    if (!archive) {
        if (have_comm)
            PMPI_Comm_free(&trace_coll.comm);
        return;
    }
    rma_close();
    for (int k = 0; k < tc_num_sources(); k++)
        if (writers[k])
            OTF2_Archive_CloseEvtWriter(archive, writers[k]);
    OTF2_Archive_CloseEvtFiles(archive);
    uint64_t *counts = agree(rank, size);
    char **gstr = NULL;
    uint32_t ngstr = 0;
    uint64_t *map = unify_strings(rank, size, &gstr, &ngstr, fixed_strings(size));
    rma_unify(rank, size);
    write_local_defs(rank, map);
    if (rank == 0)
        write_global_defs(size, gstr, ngstr, counts);
    summary(rank, size, counts);
    if (trace_alist)
        OTF2_AttributeList_Delete(trace_alist);
    if (OTF2_Archive_Close(archive) != OTF2_SUCCESS)
        fprintf(stderr, "mpitev_otf2: rank %d: closing the archive failed\n", rank);
    archive = NULL;
    for (uint32_t k = 0; k < ngstr; k++)
        free(gstr[k]);
    free(gstr), free(map), free(counts);
    PMPI_Comm_free(&trace_coll.comm);
}

const struct tc_tool tc_tool = {
    .name = "mpitev_otf2",
    .configure = configure,
    .select = select_type,
    .start = start,
    .process = process,
    .finish = finish,
};
