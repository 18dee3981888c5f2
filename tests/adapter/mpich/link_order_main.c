/* The link-order test's program: one source, linked twice (adapter library before
 * -lmpich, and after) and run once more with the library preloaded. Tells which library
 * the program's MPI_T_event_get_num / PMPI_T_event_get_num / MPI_T_init_thread come
 * from, and what MPI_T_event_get_num answers, and checks both against argv[1]:
 *   "adapter": the adapter library's (LINK_ORDER_NUM_TYPES event types);
 *   "mpich":   MPICH's own (0 event types: MPICH 4.0.2 has no events).
 * Exit 0 when the expectation holds. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "link_order.h"

/* The shared object a function comes from (dladdr; a function pointer goes through memcpy
 * because ISO C has no conversion between function and object pointers). */
typedef void (*any_fn)(void); /* the generic function pointer type: casts to it do not warn */
static const char *origin(any_fn fn) {
    void *addr;
    Dl_info info;
    memcpy(&addr, &fn, sizeof addr);
    if (!dladdr(addr, &info) || !info.dli_fname) return "?";
    const char *slash = strrchr(info.dli_fname, '/');
    return slash ? slash + 1 : info.dli_fname;
}

static int failures;
static void expect_origin(const char *what, any_fn fn, const char *want) {
    const char *got = origin(fn);
    int ok = strstr(got, want) != NULL;
    printf("%-22s from %s%s\n", what, got, ok ? "" : "   <-- unexpected");
    failures += !ok;
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "adapter") && strcmp(argv[1], "mpich"))) {
        fprintf(stderr, "usage: %s adapter|mpich\n", argv[0]);
        return 2;
    }
    int want_adapter = strcmp(argv[1], "adapter") == 0;
    const char *lib = want_adapter ? "mpitev_link_order_adapter" : "libmpich";
    expect_origin("MPI_T_event_get_num", (any_fn)MPI_T_event_get_num, lib);
    expect_origin("PMPI_T_event_get_num", (any_fn)PMPI_T_event_get_num, lib);
    expect_origin("MPI_T_init_thread", (any_fn)MPI_T_init_thread, lib);

    /* Informational: with --as-needed an adapter library after -lmpich is not loaded. */
    void *h = dlopen("libmpitev_link_order_adapter.so", RTLD_LAZY | RTLD_NOLOAD);
    printf("adapter library loaded: %s\n", h ? "yes" : "no");
    if (h) dlclose(h);

    int provided, n = -1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_T_init_thread failed\n");
        return 1;
    }
    int rc = MPI_T_event_get_num(&n);
    int want_n = want_adapter ? LINK_ORDER_NUM_TYPES : 0;
    printf("MPI_T_event_get_num:   rc %d, %d event types (want %d: %s)\n", rc, n, want_n,
           want_adapter ? "the adapter's" : "MPICH's own stub");
    failures += rc != MPI_SUCCESS || n != want_n;
    MPI_T_finalize();
    if (failures) fprintf(stderr, "link order: %d unexpected result(s)\n", failures);
    return failures ? 1 : 0;
}
