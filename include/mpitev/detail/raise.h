/* mpitev detail: the raise fast path.
 *
 * The enabled check and the slow path are split (LTTng-UST style): the check is one
 * relaxed load of the type's registration-set pointer and one branch predicted not
 * taken; everything else, including evaluating the object and the payload arguments,
 * happens only inside the branch: the source's clock read, then the out-of-line
 * mpitev__raise().
 *
 * Relaxed is enough for the check: a stale NULL only means the instance was raised
 * before the registration became visible (it is then not "raised while active"); a
 * stale non-NULL sends us to the slow path, which re-reads the set with acquire inside
 * its grace section.
 *
 * The clock is read at the raise site, inside the branch, and passed down: the clock is
 * the only call on the common path of an enabled raise, and making it from the raise
 * site (whose registers are already live across calls) leaves mpitev__raise a function
 * that saves no register on its buffered path. One read per raise, shared by the ring
 * record and every immediate delivery; mpitev__raise clamps it on ordered sources whose
 * clock is not monotonic by contract. A NULL source is tested here (free for the
 * usual constant address), not in mpitev__raise. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/raise.h is internal: include <mpitev/mpitev.h> instead"
#endif
#ifndef MPITEV_DETAIL_RAISE_H
#define MPITEV_DETAIL_RAISE_H

/* True when at least one registration with a callback exists for the type. Use it to
 * guard work that only prepares a payload. */
#define MPITEV_ENABLED(type) \
    MPITEV__UNLIKELY(atomic_load_explicit(&(type)->mpitev__regs, memory_order_relaxed) != NULL)

/* Raise one instance of `type` on `source`.
 *   type, source : mpitev_type *, mpitev_source * (addresses of static objects are best)
 *   object       : const void * key of the bound object (NULL for unbound types); matched
 *                  against the key each registration was allocated with
 *   cb_safety    : MPITEV_CB_REQUIRE_* that the raise site's context allows
 *   ...          : the payload, a const void * to the element data laid out as the
 *                  type's displacements (a struct checked with MPITEV_ELEMENT_OF), or
 *                  NULL for a type without elements. Variadic only so that a compound
 *                  literal with commas, &(struct s){ a, b }, can be written in place.
 * object, cb_safety and payload are evaluated only when someone listens. */
#define MPITEV_RAISE(type, source, object, cb_safety, ...)                            \
    do {                                                                              \
        if (MPITEV_ENABLED(type)) {                                                   \
            mpitev_source *mpitev__rs = (source);                                     \
            if (mpitev__rs) {                                                         \
                int64_t mpitev__rt = mpitev__raise_now(mpitev__rs);                   \
                mpitev__raise((type), mpitev__rs, (object), (cb_safety),              \
                              (__VA_ARGS__), mpitev__rt);                             \
            }                                                                         \
        }                                                                             \
    } while (0)

/* The timestamp of a raise on s (not NULL): its clock, or 0 without one. */
static inline int64_t mpitev__raise_now(const mpitev_source *s) {
    return s->mpitev__clock.now ? s->mpitev__clock.now(s->mpitev__clock.ctx) : 0;
}

#endif /* MPITEV_DETAIL_RAISE_H */
