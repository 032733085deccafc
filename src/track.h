/* SPDX-License-Identifier: MIT */
/*
 * Thin macros over valgrind's memcheck client requests, so that memcheck
 * knows which simulated memory is live: a freed page's CPU view is
 * inaccessible, a fresh one undefined. They compile to nothing unless the
 * library is built with the valgrind option.
 *
 * The library's own accesses to simulated memory (cache maintenance, the
 * device side) are the hardware's, not the driver's: they run inside
 * dmamap_track_quiet_begin/end so that only the driver's own use of dead or
 * uninitialised memory is reported.
 */
#ifndef DMAMAP_TRACK_H
#define DMAMAP_TRACK_H

#include <stdbool.h>
#include <stddef.h>

#if defined(DMAMAP_VALGRIND) && DMAMAP_VALGRIND
#include <valgrind/memcheck.h>
#define dmamap_track_noaccess(p, n) ((void)VALGRIND_MAKE_MEM_NOACCESS((p), (n)))
#define dmamap_track_undefined(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define dmamap_track_defined(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#define dmamap_track_quiet_begin() VALGRIND_DISABLE_ERROR_REPORTING
#define dmamap_track_quiet_end() VALGRIND_ENABLE_ERROR_REPORTING
#define dmamap_running_on_valgrind() (RUNNING_ON_VALGRIND != 0)
#else
#define dmamap_track_noaccess(p, n) ((void)(p), (void)(n))
#define dmamap_track_undefined(p, n) ((void)(p), (void)(n))
#define dmamap_track_defined(p, n) ((void)(p), (void)(n))
#define dmamap_track_quiet_begin() ((void)0)
#define dmamap_track_quiet_end() ((void)0)
#define dmamap_running_on_valgrind() 0
#endif

/*
 * AddressSanitizer's manual poisoning, when its runtime is in the process
 * (the symbols are weak: NULL without it). Ownership poisoning uses it on
 * the driver's view of the CPU plane (struct dmamap_machine: lin), which
 * is then a host mapping of its own, apart from the library's.
 */
void __asan_poison_memory_region(void const volatile *addr, size_t size) __attribute__((weak));
void __asan_unpoison_memory_region(void const volatile *addr, size_t size) __attribute__((weak));

static inline bool dmamap_asan_active(void)
{
	return __asan_poison_memory_region != NULL && __asan_unpoison_memory_region != NULL;
}

#endif /* DMAMAP_TRACK_H */
