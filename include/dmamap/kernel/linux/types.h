/* SPDX-License-Identifier: MIT */
/*
 * <linux/types.h> of Linux 6.x over libdmamap: what the kernel's gives a
 * driver's header that declares its descriptors and state: u8 to u64, s8 to
 * s64, bool, size_t, dma_addr_t, phys_addr_t, gfp_t (<dmamap/types.h>), the
 * __le and __be types of the system's userspace <linux/types.h>, which
 * comes first (or the library's own when the system has none), the list
 * links struct list_head, struct hlist_head and struct hlist_node, and the
 * counters atomic_t and atomic64_t, which a driver's header embeds in its
 * structures (the calls on them are in <linux/list.h> and <linux/atomic.h>).
 *
 * Userspace headers include <linux/types.h> too (libc's <sys/mount.h>
 * through <linux/mount.h>): this one brings nothing of either DMA API, so a
 * file of the 2012 API (<dmamap/dmamap.h>) that includes them still builds.
 * The kernel basics (ARRAY_SIZE(), min()...) come with <linux/kernel.h> and
 * every other header of the library.
 */
#ifndef DMAMAP_KERNEL_LINUX_TYPES_H
#define DMAMAP_KERNEL_LINUX_TYPES_H

#if defined(__has_include_next)
#if __has_include_next(<linux/types.h>)
#include_next <linux/types.h>
#endif
#endif
#include <dmamap/types.h>

/* No userspace <linux/types.h> (its guard is _LINUX_TYPES_H): the byte-order types of the library's own. */
#if !defined(_LINUX_TYPES_H) && !defined(DMAMAP_HAVE_LE_TYPES)
#define DMAMAP_HAVE_LE_TYPES 1
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
#endif

/*
 * struct list_head - the links of a circular doubly linked list: a list's
 * head, or an entry embedded in a structure on it. struct hlist_head and
 * struct hlist_node - a list whose head is a single pointer (hash buckets);
 * @pprev points at the pointer that points at the node.
 */
#ifndef DMAMAP_HAVE_LIST_HEAD
#define DMAMAP_HAVE_LIST_HEAD 1
struct list_head {
	struct list_head *next, *prev;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};
#endif

/* atomic_t, atomic64_t - an int and an s64 changed only by the calls of <linux/atomic.h>. */
#ifndef DMAMAP_HAVE_ATOMIC_T
#define DMAMAP_HAVE_ATOMIC_T 1
typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;
#endif

#endif /* DMAMAP_KERNEL_LINUX_TYPES_H */
