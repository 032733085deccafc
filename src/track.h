/* SPDX-License-Identifier: MIT */
/*
 * Thin macros over valgrind's memcheck client requests, so that memcheck
 * knows which simulated memory is live: a freed page's CPU view is
 * inaccessible, a fresh one undefined. They compile to nothing unless the
 * library is built with the valgrind option, and cost a load and a branch
 * when the process is not under valgrind.
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
/*
 * RUNNING_ON_VALGRIND, read once as the library loads (a process cannot
 * come under valgrind later), and the requests made out of line: a client
 * request inline costs a handful of serialised instructions and a stack
 * frame even natively, which a cache operation on a line would notice;
 * these cost a load and a branch there.
 */
extern bool dmamap_on_valgrind;
enum dm_track_req { DM_TRACK_NOACCESS, DM_TRACK_UNDEFINED, DM_TRACK_DEFINED, DM_TRACK_QUIET, DM_TRACK_LOUD };
void dmamap_track_init(void);
void dmamap_track_request(enum dm_track_req what, const void *p, size_t n);
#define DM_TRACK(what, p, n) ((void)(dmamap_on_valgrind ? dmamap_track_request((what), (p), (n)) : (void)0))
#define dmamap_track_noaccess(p, n) DM_TRACK(DM_TRACK_NOACCESS, (p), (n))
#define dmamap_track_undefined(p, n) DM_TRACK(DM_TRACK_UNDEFINED, (p), (n))
#define dmamap_track_defined(p, n) DM_TRACK(DM_TRACK_DEFINED, (p), (n))
#define dmamap_track_quiet_begin() DM_TRACK(DM_TRACK_QUIET, NULL, 0)
#define dmamap_track_quiet_end() DM_TRACK(DM_TRACK_LOUD, NULL, 0)
#define dmamap_running_on_valgrind() dmamap_on_valgrind
#else
#define dmamap_track_noaccess(p, n) ((void)(p), (void)(n))
#define dmamap_track_undefined(p, n) ((void)(p), (void)(n))
#define dmamap_track_defined(p, n) ((void)(p), (void)(n))
#define dmamap_track_quiet_begin() ((void)0)
#define dmamap_track_quiet_end() ((void)0)
#define dmamap_running_on_valgrind() 0
#define dmamap_track_init() ((void)0)
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
