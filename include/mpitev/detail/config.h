/* mpitev detail: option defaults, compiler helpers and versioned internal names. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/config.h is internal: include <mpitev/mpitev.h> instead"
#endif
#ifndef MPITEV_DETAIL_CONFIG_H
#define MPITEV_DETAIL_CONFIG_H

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "mpitev needs C11 (for <stdatomic.h>)"
#endif
#if defined(__STDC_NO_ATOMICS__)
#error "mpitev needs C11 atomics"
#endif

#ifndef MPITEV_MAX_SOURCES
#define MPITEV_MAX_SOURCES 64
#endif
#ifndef MPITEV_MAX_ELEMENTS
#define MPITEV_MAX_ELEMENTS 64
#endif
#ifndef MPITEV_MAX_DEPTH
#define MPITEV_MAX_DEPTH 2
#endif
#ifndef MPITEV_CACHE_LINE
#define MPITEV_CACHE_LINE 64
#endif

#ifndef MPITEV_API
#if defined(__GNUC__) && defined(__ELF__)
#define MPITEV_API extern __attribute__((visibility("hidden")))
#else
#define MPITEV_API extern
#endif
#endif

#if defined(__GNUC__)
#define MPITEV__LIKELY(x) __builtin_expect(!!(x), 1)
#define MPITEV__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MPITEV__COLD __attribute__((cold, noinline))
#define MPITEV__INLINE static inline __attribute__((always_inline))
#define MPITEV__NOINLINE __attribute__((noinline))
/* Hides x from the optimiser for one step: keeps a copy loop a loop (not a memcpy call). */
#define MPITEV__OPAQUE(x) __asm__("" : "+r"(x))
#define MPITEV__MAYBE_UNUSED __attribute__((unused))
#else
#define MPITEV__LIKELY(x) (x)
#define MPITEV__UNLIKELY(x) (x)
#define MPITEV__COLD
#define MPITEV__INLINE static inline
#define MPITEV__NOINLINE
#define MPITEV__OPAQUE(x) ((void)0)
#define MPITEV__MAYBE_UNUSED
#endif

/* ThreadSanitizer does not model atomic_thread_fence (gcc even rejects it under
 * -Werror=tsan); under TSan the fences become read-modify-writes on one shared word. */
#if defined(__SANITIZE_THREAD__)
#define MPITEV__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MPITEV__TSAN 1
#endif
#endif

/* Internal symbols that exist once per process carry the version in their name, so two
 * copies of mpitev of different versions vendored into one process never bind to each
 * other's registry. */
#define MPITEV__CAT2(a, b) a##b
#define MPITEV__CAT(a, b) MPITEV__CAT2(a, b)
#define MPITEV__NS(name) MPITEV__CAT(MPITEV__CAT(mpitev__v, MPITEV__CAT(MPITEV_VERSION_MAJOR, MPITEV__CAT(_, MPITEV_VERSION_MINOR))), MPITEV__CAT(_, name))

#define mpitev__raise MPITEV__NS(raise)
#define mpitev__raise_buffered MPITEV__NS(raise_buffered)
#define mpitev__state MPITEV__NS(state)

#endif /* MPITEV_DETAIL_CONFIG_H */
