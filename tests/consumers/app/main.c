/* Consumer check: declares, registers, raises once; exits 0 only if it was delivered
 * and the version macros agree with what the build system found. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

static mpitev_type ev;
static mpitev_source src;
static int seen;
static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; seen++;
}
int main(void) {
    mpitev_reg r;
    if (MPITEV_VERSION_MAJOR != 0 || mpitev_init()) return 1;
    /* Ordered, stated: one thread raises (an omitted .ordering would be unordered). */
    if (mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "s", .ordering = MPITEV_SOURCE_ORDERED })) return 2;
    if (mpitev_type_declare(&ev, &(mpitev_type_desc){ .name = "consumer_ev" })) return 3;
    if (mpitev_reg_alloc(0, NULL, NULL, 0, &r) || mpitev_reg_set_callback(r, 0, cb, NULL, NULL, 0)) return 4;
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, NULL);
    mpitev_finalize();
    return seen == 1 ? 0 : 5;
}
