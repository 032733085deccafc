/* SPDX-License-Identifier: MIT */
/*
 * The bitmap IOVA allocator: the address-space allocator of an IOMMU mapping
 * (what arm_iommu_create_mapping(), __alloc_iova() and __free_iova() meant to
 * be), usable on its own.
 *
 * Model. The space [base, base + size) is cut into granules of
 * PAGE_SIZE << order bytes, one bit per granule in two bitmaps:
 *   used   the granule belongs to a live allocation
 *   head   the granule is the first of a live allocation
 * An allocation is a run of used granules starting at a head bit and ending
 * before the next head bit or the next free granule, so the two bitmaps alone
 * tell every allocation's exact boundaries: a free is accepted only when it
 * names one of them exactly. Granules past the end of the space, in the last
 * word, are marked used with a head bit: a permanent allocation nobody can
 * free, which ends the last real one.
 *
 * Placement is first fit from the lowest granule, the start aligned
 * (relative to base) to the allocation's own order in granules: a request of
 * n granules with 2^(k-1) < n <= 2^k starts at a multiple of 2^k, unless the
 * alignment cap (max_align_order pages) lowers it.
 *
 * Summaries. Searching the bitmaps would be linear; instead each 64-granule
 * word and each node of a 64-ary tree above the words keep a class: 0 when
 * nothing in it is free, else 1 + log2 of its largest free block of 2^t
 * granules aligned to 2^t (a wholly free word has class 7, a wholly free
 * node of 4096 granules 13, ...). A node's class is the larger of its
 * children's and 1 + log2 of (child size x its largest aligned group of
 * wholly free children): O(1) word operations on the children's classes.
 * Nodes keep their class in a byte. Words keep a 4-bit code of their largest
 * natural fit (word_code()): the fit itself up to 7, then ranges that start
 * at each power of two (8-9, 10-11, 12-15, 16-23, 24-31, 32-47, 48-63, a
 * wholly free word 15); codes grow with the fit and tell the class, and the
 * small fits exactly, so a search for 3, 5, 6, 7, 10 or 12 granules passes
 * over words that cannot hold them without reading their bits. 0.0625 + 0.002 bits per granule on top of the 2 of the
 * bitmaps.
 *
 * A request of n granules, 2^k <= n < 2^(k+1), needs a node of class >= k+1:
 * for n = 2^k such a node certainly holds a fit (its first aligned free
 * block), and class >= k+2 does for any n; a node of class k+1 may hold one
 * for n between powers (checked on its bits; at the first level above the
 * words, where most nodes of an aged space have the same class, a search for
 * such an n reads the nodes' exact fits instead, eight a compare). A search
 * descends to the level where n lives (a word for n <= 64, else the node
 * whose children the fit spans), finds in O(log64 N) steps of a few word
 * operations the first node of class >= k+1 (passing over the nodes whose
 * parent's fit is less than n unread), checks the bits there, and moves on
 * only past a node that promised but did not deliver. Requests whose
 * alignment is capped below their size search for the free runs that hold a
 * natural block of half their size, each checked in O(n/64). A free checks
 * its range in O(n/64) and updates the classes of the words it touched and,
 * when they change, their ancestors'. Each node also keeps its largest fit
 * exactly and its free prefix; an update moves up with a child's old and new
 * fit (a word's change that moves neither its fit nor its free prefix stops
 * there), and a node without a wholly free child follows from those two in
 * O(1) (its fit is its children's largest); so does a node with wholly free
 * children when the child neither was nor becomes one and follows none (its
 * fit stands), and one whose children were all wholly free when one goes, or
 * come back (the others' mask is known). Only a node whose largest child
 * shrank, or one with wholly free children where the change may end or start
 * a fit that spans them, reads its 64 children again (the highest class
 * first), and not even that one when its fit was a power of two that another
 * child of its class holds. The last word changed reaches its node only when
 * another word changes or something reads the nodes (a search past the search
 * start's node, a growth): a free that the next allocation undoes (one buffer
 * mapped and unmapped in turn) leaves the nodes untouched. Every search
 * starts at a granule below which all are occupied: raised by a one-granule
 * allocation (it takes the lowest free granule), lowered by a free below it.
 * A search for a fit within a word starts, among the first level's nodes, at
 * the lowest that may have the class it needs: a hint per class, lowered when
 * a node's class rises to it, raised by a search for a power of two (whose
 * class answers exactly) to the node it found.
 *
 * Growth. A space starts with bitmaps for its first DMAMAP_IOVA_INITIAL
 * granules (or all of it when smaller), as ARM's later mapping "extensions"
 * did; when a search fails inside that extent, the bitmaps double (up to the
 * whole space) and the search runs again. Granules beyond the extent are
 * free: the addresses given are those of a full-size bitmap.
 *
 * Caches (dmamap_iova_set_cache(), off by default). Each thread keeps, per
 * allocator, bins of recently freed ranges of 1..32 granules. A cached range
 * stays occupied in the bitmaps: its head granule has head = 1, used = 0, a
 * combination no live allocation or free granule has; its other granules
 * keep used = 1. Searches and summaries see used | head, which caching does
 * not change, so no summary moves; a free of a cached range finds used = 0
 * at its head and is refused as a double free; is_allocated() and the stats
 * answer as for a free range. A hit flips that one used bit with an atomic
 * read-modify-write and takes no allocator lock; so while caches are on, the
 * locked code changes used bits atomically too, every bitmap read is an
 * atomic load, and the bitmaps never grow (they cover the whole space) and
 * never move. Before an allocation fails, every thread's cache is emptied
 * into the bitmaps and the search runs again. A thread's miss passes over
 * the bitmap lines where other threads' last misses landed (the tree answers
 * a search from the next line on, once per such line): a hit writes its
 * range's word, and two threads writing one line would pass it between
 * their cores at every hit. The bitmaps start on a line boundary.
 *
 * Locking: one spin lock per allocator (iova_lock()) guards the bitmaps,
 * summaries and counters, and its list of thread caches. Each thread cache's
 * bins are claimed (a spin lock) by whoever else reads or empties them (the
 * allocator's lock first). Its own thread's hits take no locked instruction
 * for them where the process can use membarrier(): the thread marks the
 * cache busy, then looks for a claim (and leaves the bins alone if there is
 * one); a claimer claims, makes every thread of the process pass a full
 * barrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED), then waits for the cache not
 * to be busy: one of the two sees the other. Where membarrier() is missing
 * the thread claims its cache for each hit too. A thread exiting empties its
 * caches into their allocators (trying the allocator's lock while holding
 * its cache's claim, since the order is the other way round);
 * dmamap_iova_destroy() orphans the caches of threads still alive, which
 * free them when they next look or exit. Reports and log messages are
 * emitted after the allocator's lock is released.
 */
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/membarrier.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

#define WBITS 64u
#define FAN_SHIFT 6u
#define NOT_FOUND ULONG_MAX
#define MAX_LEVELS 10
/* Initial extent of a growing space, in granules (a multiple of 4096). */
#define DMAMAP_IOVA_INITIAL (1UL << 16)
#define L1_GRANULES (1UL << 12)
/* Classes of a first-level node with a hint (low1[]): those of fits within a word. */
#define L1_CLASSES 8u
#define CODE_FULL 15u /* the code of a wholly free word */
/*
 * The two bitmaps interleave word by word (used, head, used, head...): the
 * words a search, an allocation or a free reads of both share a cache line.
 * Word w of either bitmap is at index MW(w) of its pointer (head = used + 1).
 */
#define MW(w) (2 * (w))
/*
 * The bitmaps' lines, as the host's caches share them between cores: 128
 * bytes (two 64-byte lines, which an adjacent-line prefetcher pairs) hold
 * 8 words of each bitmap, LINE_GRANULES granules.
 */
#define LINE_BYTES 128u
#define LINE_SHIFT 9u
#define LINE_GRANULES (1UL << LINE_SHIFT)
_Static_assert(LINE_GRANULES == LINE_BYTES / (2 * sizeof(u64)) * WBITS, "a line holds LINE_GRANULES granules");

struct dmamap_iova {
	unsigned char lock;            /* iova_lock() */
	u8 pend_fit, pend_pre;         /* the pending word's largest fit and free prefix, as its node knows them */
	u8 pend_now;                   /* and its largest fit now */
	u8 dead;                       /* destroyed: every call through it is refused (see iova_bury()) */
	dma_addr_t base;
	size_t size;
	unsigned order;                /* granule order (pages) */
	unsigned gshift;               /* PAGE_SHIFT + order: log2 of the granule in bytes */
	unsigned max_align_order;      /* alignment cap, in pages (log2) */
	unsigned long bits;            /* granules in the space */
	unsigned long ext;             /* granules tracked by the bitmaps now (growth) */
	unsigned long low;             /* every granule below this one is occupied: searches start here */
	unsigned long pend;            /* a word whose change its node has not seen yet (NOT_FOUND: none) */
	u32 low1[L1_CLASSES];          /* [c]: no first-level node below this one has class c or more */
	unsigned long nwords;          /* 64-bit words per bitmap, for ext */
	u64 *used;                     /* 1: granule allocated; word w at used[MW(w)] (LINE_BYTES aligned) */
	void *used_mem;                /* what holds the bitmaps: used, moved up to LINE_BYTES */
	u64 *head;                     /* 1: first granule of an allocation; used + 1 */
	u64 *nib;                      /* word classes, 16 per u64 */
	unsigned nlev;                 /* node levels above the words (>= 1) */
	unsigned long nnodes[MAX_LEVELS + 1]; /* [k]: nodes at level k (k >= 1) */
	u8 *cls[MAX_LEVELS + 1];       /* [k]: node classes at level k */
	void *fx[MAX_LEVELS + 1];      /* [k]: node's largest natural fit, exact (see fit_get) */
	void *pre[MAX_LEVELS + 1];     /* [k]: node's free prefix, in granules */
	size_t meta_bytes;             /* bitmaps, classes and the struct */
	unsigned long used_granules;
	unsigned long allocations;
	unsigned long failures;
	unsigned long refused_frees;
	unsigned long grows, grow_failures;
	unsigned long fail_grow_next;  /* test hook: fail this many growths */
	bool caching;                  /* per-thread caches in front (dmamap_iova_set_cache()) */
	u64 id;                        /* unique, never reused: what a thread's cache names */
	union {
		struct iova_tcache *caches;    /* live: every thread's cache of this allocator */
		struct dmamap_iova *dead_next; /* destroyed: the next in the queue of destroyed allocators */
	};
	struct dmamap_obj obj;         /* owned by its pointer until destroyed: a second destroy is refused */
};

/* ------------------------------------------------------------ locking */

/*
 * The allocator's lock is a spin lock, as the kernel's IOVA domain lock: one
 * atomic exchange to take it and a store to release it, where a mutex pays
 * an atomic operation for each. A waiter gives its CPU away while it waits.
 */
static inline bool iova_trylock(struct dmamap_iova *a)
{
	return !__atomic_exchange_n(&a->lock, 1, __ATOMIC_ACQUIRE);
}

static inline void iova_lock(struct dmamap_iova *a)
{
	while (!iova_trylock(a))
		while (__atomic_load_n(&a->lock, __ATOMIC_RELAXED))
			sched_yield();
}

static inline void iova_unlock(struct dmamap_iova *a)
{
	__atomic_store_n(&a->lock, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ word operations */

#define NIB_H 0x8888888888888888ULL
#define NIB_L 0x1111111111111111ULL
#define BYTE_H 0x8080808080808080ULL
#define BYTE_L 0x0101010101010101ULL

static const u64 align_mask[7] = {
	~0ULL, 0x5555555555555555ULL, 0x1111111111111111ULL, 0x0101010101010101ULL,
	0x0001000100010001ULL, 0x0000000100000001ULL, 0x1ULL,
};

static inline unsigned ctz64(u64 x)
{
	return (unsigned)__builtin_ctzll(x);
}

static inline unsigned ceil_log2(unsigned long x)
{
	return x <= 1 ? 0 : (unsigned)(64 - __builtin_clzll((unsigned long long)(x - 1)));
}

static inline unsigned floor_log2(unsigned long x)
{
	return (unsigned)(63 - __builtin_clzll((unsigned long long)x));
}

/* Bit i set when bits i .. i + n - 1 of @x are all set (n >= 1; none past bit 63). */
static inline u64 runs_of(u64 x, unsigned n)
{
	u64 res = ~0ULL, piece = x;
	unsigned len = 0, p = 1;

	for (;;) {
		if (n & p) {
			res &= piece >> len;
			len += p;
		}
		p <<= 1;
		if (p > n)
			break;
		piece &= piece >> (p >> 1);
	}
	return res;
}

/* 1 + log2 of the largest block of 2^t set bits aligned to 2^t in @f; 0 when f = 0. */
static unsigned block_class(u64 f)
{
	u64 r2, r4, r8, r16, r32;

	if (!f)
		return 0;
	if (f == ~0ULL)
		return 7;
	r2 = f & (f >> 1) & align_mask[1];
	if (!r2)
		return 1;
	r4 = r2 & (r2 >> 2) & align_mask[2];
	if (!r4)
		return 2;
	r8 = r4 & (r4 >> 4) & align_mask[3];
	if (!r8)
		return 3;
	r16 = r8 & (r8 >> 8) & align_mask[4];
	if (!r16)
		return 4;
	r32 = r16 & (r16 >> 16) & align_mask[5];
	return r32 ? 6 : 5;
}

/* The class (0..7) of a word whose occupied granules are @occ. */
static inline unsigned word_class(u64 occ)
{
	return block_class(~occ);
}

/*
 * The code of a word whose largest natural fit is @fit (see "Summaries"):
 * the fit itself below 8, then ranges that start at each power of two, so
 * that a code tells the class: 8-9, 10-11, 12-15, 16-23, 24-31, 32-47,
 * 48-63, and 15 for a wholly free word.
 */
static inline unsigned code_of_fit(unsigned long fit)
{
	static const u8 code[WBITS + 1] = {
		0,  1,  2,  3,  4,  5,  6,  7,  8,  8,  9,  9,  10, 10, 10, 10, 11, 11, 11, 11, 11, 11,
		11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
		13, 13, 13, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 15,
	};

	return code[fit];
}

/* The least code of a word that holds @n (1..64) granules naturally aligned. */
static inline unsigned code_min(unsigned long n)
{
	return code_of_fit(n);
}

/* The class (0..7) a word code tells. */
static inline unsigned class_of_code(unsigned code)
{
	static const u8 cls[16] = { 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6, 6, 7 };

	return cls[code];
}

/* Nibbles of @x that are >= c (1 <= c <= 15): bit 4i+3 set. */
static inline u64 nib_ge(u64 x, unsigned c)
{
	if (c <= 8)
		return (((x | NIB_H) - (u64)c * NIB_L) | x) & NIB_H;
	/* 8 or more, with the low three bits at least c - 8 */
	return x & (((x & ~NIB_H) | NIB_H) - (u64)(c - 8) * NIB_L) & NIB_H;
}

/* Bytes of @x that are >= c (1 <= c <= 128): bit 8i+7 set. */
static inline u64 byte_ge(u64 x, unsigned c)
{
	return (((x | BYTE_H) - (u64)c * BYTE_L) | x) & BYTE_H;
}

#ifndef __SSE2__
/* 16-bit lanes of @x that are >= n (1 <= n <= 0x8000): bit 16i+15 set. */
static inline u64 u16_ge(u64 x, unsigned long n)
{
	return (((x | 0x8000800080008000ULL) - (u64)n * 0x0001000100010001ULL) | x) & 0x8000800080008000ULL;
}

/* Gather bits 4i+3 of @m into bits 0..15. */
static inline u64 gather_nib(u64 m)
{
	u64 x = (m >> 3) & NIB_L;

	x = (x | x >> 3) & 0x0303030303030303ULL;
	x = (x | x >> 6) & 0x000F000F000F000FULL;
	x = (x | x >> 12) & 0x000000FF000000FFULL;
	x = (x | x >> 24) & 0xFFFFULL;
	return x;
}

/* Gather bits 8i+7 of @m into bits 0..7. */
static inline u64 gather_byte(u64 m)
{
	return (((m >> 7) & BYTE_L) * 0x0102040810204080ULL) >> 56;
}
#endif

/* ------------------------------------------------------------ state access */

/* A bitmap word; cache hits change used bits without the lock (see "Caches"). */
static inline u64 ld(const u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline u64 occ_word(const struct dmamap_iova *a, unsigned long w)
{
	return ld(&a->used[MW(w)]) | ld(&a->head[MW(w)]);
}

static inline bool bit_test(const u64 *map, unsigned long i)
{
	return (ld(&map[MW(i / WBITS)]) >> (i % WBITS)) & 1u;
}

static inline unsigned nib_get(const struct dmamap_iova *a, unsigned long w)
{
	return (unsigned)(a->nib[w / 16] >> (4 * (w % 16))) & 15u;
}

static inline void nib_set(struct dmamap_iova *a, unsigned long w, unsigned v)
{
	unsigned sh = 4 * (unsigned)(w % 16);

	a->nib[w / 16] = (a->nib[w / 16] & ~(15ULL << sh)) | ((u64)v << sh);
}

/* log2 of the size, in granules, of a node at level k (words are level 0). */
static inline unsigned level_shift(unsigned k)
{
	return FAN_SHIFT * (k + 1);
}

static inline unsigned full_class(unsigned k)
{
	return level_shift(k) + 1;
}

/*
 * A node's fit and prefix are counts up to its size: 16 bits for the nodes
 * of 4096 granules, 32 while the size is at most 2^30 granules, 64 above.
 */
static inline size_t val_size(unsigned k)
{
	return k == 1 ? sizeof(u16) : level_shift(k) <= 30 ? sizeof(u32) : sizeof(unsigned long);
}

static inline unsigned long val_get(void *const *arr, unsigned k, unsigned long i)
{
	if (k == 1)
		return ((const u16 *)arr[k])[i];
	return val_size(k) == sizeof(u32) ? ((const u32 *)arr[k])[i] : ((const unsigned long *)arr[k])[i];
}

static inline void val_set(void **arr, unsigned k, unsigned long i, unsigned long v)
{
	if (k == 1)
		((u16 *)arr[k])[i] = (u16)v;
	else if (val_size(k) == sizeof(u32))
		((u32 *)arr[k])[i] = (u32)v;
	else
		((unsigned long *)arr[k])[i] = v;
}

static inline unsigned node_class(const struct dmamap_iova *a, unsigned k, unsigned long i)
{
	if (k == 0)
		return i < a->nwords ? class_of_code(nib_get(a, i)) : 0;
	return i < a->nnodes[k] ? a->cls[k][i] : 0;
}

/* Eight class bytes of level @k from node @i on (zero past the end: the arrays are padded). */
static inline u64 load8(const struct dmamap_iova *a, unsigned k, unsigned long i)
{
	u64 x;

	memcpy(&x, a->cls[k] + i, sizeof(x));
	return x;
}

/*
 * First-level nodes q..q+7 (q a multiple of 8) that hold a fit of @n
 * granules, by their exact fits: two bits a node, node j's at bits 2j and
 * 2j+1. (The fits of the first level are below 2^15; the array is padded
 * to whole groups of 64.)
 */
static inline u64 fits_ge8(const struct dmamap_iova *a, unsigned long q, unsigned long n)
{
	const u16 *fx = (const u16 *)a->fx[1] + q;
#ifdef __SSE2__
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)fx);

	return (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi16(x, _mm_set1_epi16((short)(n - 1))));
#else
	u64 m = 0, x;

	for (unsigned h = 0; h < 2; h++) {
		memcpy(&x, fx + 4 * h, sizeof(x));
		x = u16_ge(x, n);
		for (unsigned j = 0; j < 4; j++)
			m |= ((x >> (16 * j + 15)) & 1) * (3ULL << (2 * (4 * h + j)));
	}
	return m;
#endif
}

/* Bit c set when child c of node @i at level @k (>= 1) is wholly free. */
static u64 full_children(const struct dmamap_iova *a, unsigned k, unsigned long i)
{
	u64 mask = 0;

	if (k == 1) {
#ifdef __SSE2__
		/* byte j of a node's codes holds words 2j (low nibble) and 2j + 1: interleave the two compares */
		const __m128i low = _mm_set1_epi8(0x0F), high = _mm_set1_epi8((char)0xF0);

		for (unsigned h = 0; h < 2; h++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(a->nib + i * 4 + 2 * h));
			__m128i l = _mm_cmpeq_epi8(_mm_and_si128(v, low), low), u = _mm_cmpeq_epi8(_mm_and_si128(v, high), high);

			mask |= (u64)(unsigned)_mm_movemask_epi8(_mm_unpacklo_epi8(l, u)) << (32 * h);
			mask |= (u64)(unsigned)_mm_movemask_epi8(_mm_unpackhi_epi8(l, u)) << (32 * h + 16);
		}
#else
		for (unsigned q = 0; q < 4; q++)
			mask |= gather_nib(nib_ge(a->nib[i * 4 + q], CODE_FULL)) << (16 * q);
#endif
	} else {
		unsigned fc = full_class(k - 1);
#ifdef __SSE2__
		const u8 *p = a->cls[k - 1] + i * 64;
		__m128i v = _mm_set1_epi8((char)fc);

		for (unsigned q = 0; q < 4; q++)
			mask |= (u64)(unsigned)_mm_movemask_epi8(
					_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * q)), v))
				<< (16 * q);
#else
		for (unsigned q = 0; q < 8; q++)
			mask |= gather_byte(byte_ge(load8(a, k - 1, i * 64 + q * 8), fc)) << (8 * q);
#endif
	}
	return mask;
}

/* The largest n (0..64) that fits, naturally aligned, in a word whose occupied granules are @occ and class is @c. */
static unsigned word_fit_c(u64 occ, unsigned c)
{
	u64 f = ~occ, z;
	unsigned lane;

	if (c <= 1)
		return c;
	if (c == 7)
		return WBITS;
	/*
	 * The fit is in [2^(c-1), 2^c) and, above 2^(c-1), aligned to 2^c: the
	 * longest free prefix of a 2^c-granule lane, if above 2^(c-1). No lane is wholly free, so
	 * adding 1 at each lane's start carries within the lane, to its first
	 * occupied granule; fold the lanes onto the first and take the highest.
	 */
	lane = 1u << c;
	z = ~f & (f + align_mask[c]);
	if (c <= 5)
		z |= z >> 32;
	if (c <= 4)
		z |= z >> 16;
	if (c <= 3)
		z |= z >> 8;
	if (c <= 2)
		z |= z >> 4;
	lane = floor_log2(z & (lane == WBITS ? ~0ULL : (1ULL << lane) - 1));
	/* a block of 2^(c-1) fits at its own alignment in any case */
	return DM_MAX(lane, 1u << (c - 1));
}

/* The code of a word whose occupied granules are @occ. */
static inline unsigned word_code(u64 occ)
{
	return code_of_fit(word_fit_c(occ, word_class(occ)));
}

/* The largest natural fit of a word of code @code whose occupied granules are @occ. */
static inline unsigned long fit_of_code(u64 occ, unsigned code)
{
	return code < 8 ? code : word_fit_c(occ, class_of_code(code));
}

/* Free granules at the start of node @i at level @k (0: a word); none past the extent. */
static inline unsigned long prefix_of(const struct dmamap_iova *a, unsigned k, unsigned long i)
{
	if (k == 0) {
		u64 o;

		if (i >= a->nwords)
			return 0;
		o = occ_word(a, i);
		return o ? ctz64(o) : WBITS;
	}
	return i < a->nnodes[k] ? val_get(a->pre, k, i) : 0;
}

/* The largest code among the words of first-level node @i, at most @most (a code the node may hold). */
static inline unsigned top_code(const struct dmamap_iova *a, unsigned long i, unsigned most)
{
	const u64 *nw = a->nib + i * 4;
#ifdef __SSE2__
	/* the nibbles spread to bytes, then the largest of the 64 */
	const __m128i lo = _mm_set1_epi8(0x0f);
	__m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)nw);
	__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(nw + 2));
	__m128i m = _mm_max_epu8(_mm_max_epu8(_mm_and_si128(v0, lo), _mm_and_si128(_mm_srli_epi16(v0, 4), lo)),
				 _mm_max_epu8(_mm_and_si128(v1, lo), _mm_and_si128(_mm_srli_epi16(v1, 4), lo)));

	(void)most;
	m = _mm_max_epu8(m, _mm_srli_si128(m, 8));
	m = _mm_max_epu8(m, _mm_srli_si128(m, 4));
	m = _mm_max_epu8(m, _mm_srli_si128(m, 2));
	m = _mm_max_epu8(m, _mm_srli_si128(m, 1));
	return (unsigned)_mm_cvtsi128_si32(m) & 0xffu;
#else
	unsigned top = 0;

	/* a binary search over 0..@most */
	for (unsigned step = 8; step; step >>= 1)
		if (top + step <= most && (nib_ge(nw[0], top + step) | nib_ge(nw[1], top + step) |
					   nib_ge(nw[2], top + step) | nib_ge(nw[3], top + step)))
			top += step;
	return top;
#endif
}

struct node_state {
	unsigned long fit;             /* largest naturally aligned fit */
	unsigned long pre;             /* free granules at the start */
	unsigned cls;                  /* 1 + floor(log2 fit), 0 if none */
};

/*
 * The largest fit of node @i at level @k (>= 1) whose wholly free children
 * are @full (neither none nor all): the largest aligned group of 2^J wholly
 * free children, extended into the next one where its 2^(J+1) group starts
 * there.
 */
static inline __attribute__((always_inline)) unsigned long spanning_fit(const struct dmamap_iova *a, unsigned k,
									  unsigned long i, u64 full)
{
	unsigned cs = level_shift(k - 1), J = block_class(full) - 1;
	u64 cand = runs_of(full, 1u << J) & align_mask[J + 1];
	unsigned long best = 1UL << (cs + J);

	for (; cand; cand &= cand - 1) {
		unsigned s = ctz64(cand), l = ctz64(~full >> s);
		unsigned long v = ((unsigned long)l << cs) + prefix_of(a, k - 1, (i << FAN_SHIFT) + s + l);

		if (v > best)
			best = v;
	}
	return best;
}

/* spanning_fit(), not inlined: for the updates that need it seldom. */
static __attribute__((noinline)) unsigned long spanning_fit_of(const struct dmamap_iova *a, unsigned k, unsigned long i,
								u64 full)
{
	return spanning_fit(a, k, i, full);
}

/* Node @i at level @k (>= 1), from its children. */
static struct node_state compute_node(const struct dmamap_iova *a, unsigned k, unsigned long i)
{
	unsigned cs = level_shift(k - 1);
	unsigned long first = i << FAN_SHIFT, best = 0;
	unsigned top1 = k == 1 ? top_code(a, i, CODE_FULL) : 0; /* a first-level node: its largest word code */
	u64 full = k == 1 && top1 < CODE_FULL ? 0 : full_children(a, k, i);
	unsigned lead = full == ~0ULL ? 64 : ctz64(~full);
	struct node_state st;

	st.pre = ((unsigned long)lead << cs) + (lead < 64 ? prefix_of(a, k - 1, first + lead) : 0);
	if (full == ~0ULL) {
		best = 1UL << level_shift(k);
	} else if (full) {
		best = spanning_fit(a, k, i, full);
	} else if (k == 1) {
		/*
		 * The largest word code (no word is wholly free): below 8 it is the
		 * fit; above, the exact fit of the words that have it.
		 */
		const u64 *nw = a->nib + i * 4;
		unsigned top = top1;

		if (top < 8)
			best = top;
		for (unsigned q = 0; top >= 8 && q < 4; q++) {
			for (u64 m = nib_ge(nw[q], top); m; m &= m - 1) {
				unsigned long w = (i * 4 + q) * 16 + ctz64(m) / 4;
				unsigned long v = word_fit_c(occ_word(a, w), class_of_code(top));

				if (v > best)
					best = v;
			}
		}
	} else {
		/* only the children of the highest class can hold the largest fit (padding bytes are 0) */
		const u8 *cc = a->cls[k - 1] + first;
		u8 top = 0;

		for (unsigned c = 0; c < 64; c++)
			top = cc[c] > top ? cc[c] : top;
		for (unsigned q = 0; top && q < 8; q++)
			for (u64 m = byte_ge(load8(a, k - 1, first + q * 8), top); m; m &= m - 1) {
				unsigned long v = val_get(a->fx, k - 1, first + q * 8 + ctz64(m) / 8);

				if (v > best)
					best = v;
			}
	}
	st.fit = best;
	st.cls = best ? floor_log2(best) + 1 : 0;
	return st;
}

/* Whether a child of node @i at level @k (>= 1) has class @cls (>= 1) or more. */
static inline bool any_child_ge(const struct dmamap_iova *a, unsigned k, unsigned long i, unsigned cls)
{
	u64 m = 0;

	if (k == 1) {
		for (unsigned q = 0; q < 4; q++)
			m |= nib_ge(a->nib[i * 4 + q], code_min(1UL << (cls - 1)));
	} else {
		/* 16 class bytes a compare (generic vectors: SSE2 on x86-64) */
		typedef u8 v16 __attribute__((vector_size(16)));
		const u8 *p = a->cls[k - 1] + (i << FAN_SHIFT);
		v16 x, any = { 0 };

		for (unsigned q = 0; q < 4; q++) {
			memcpy(&x, p + 16 * q, sizeof(x));
			any |= (v16)(x >= (u8)cls);
		}
		u64 half[2];

		memcpy(half, &any, sizeof(half));
		m = half[0] | half[1];
	}
	return m != 0;
}

/* Children of node @i at level @k (>= 1) in the extent: 64 but at its end. */
static inline unsigned real_children(const struct dmamap_iova *a, unsigned k, unsigned long i)
{
	unsigned long cnt = k == 1 ? a->nwords : a->nnodes[k - 1];

	return (unsigned)DM_MIN(cnt - (i << FAN_SHIFT), 64UL);
}

/* Whether the first @m children of node @i at level @k (>= 1) are wholly free. */
static inline bool all_children_free(const struct dmamap_iova *a, unsigned k, unsigned long i, unsigned m)
{
	if (k == 1) {
		const u64 *nw = a->nib + i * 4;

		for (unsigned q = 0; q < 4 && 16 * q < m; q++) {
			u64 want = m >= 16 * (q + 1) ? ~0ULL : (1ULL << (4 * (m - 16 * q))) - 1;

			if ((nw[q] & want) != want)
				return false;
		}
		return true;
	}
	u64 fc = (u64)full_class(k - 1) * BYTE_L;

	for (unsigned q = 0; q < 8 && 8 * q < m; q++) {
		u64 want = m >= 8 * (q + 1) ? ~0ULL : (1ULL << (8 * (m - 8 * q))) - 1;

		if ((load8(a, k - 1, (i << FAN_SHIFT) + q * 8) ^ fc) & want)
			return false;
	}
	return true;
}

/*
 * Whether a change of child @c (local index) of node @p at level @k, from
 * class @old to @cls, can change the node: it can when the child held or
 * reaches the node's class, was or becomes wholly free, lies within the
 * node's free prefix, or follows a wholly free child (it may end a fit that
 * spans them).
 */
static inline __attribute__((always_inline)) bool child_matters(const struct dmamap_iova *a, unsigned k, unsigned long p,
								unsigned c, unsigned old, unsigned cls)
{
	unsigned pc = a->cls[k][p], fc = full_class(k - 1);
	unsigned long first = p << FAN_SHIFT;

	return old >= pc || cls >= pc || old == fc || cls == fc ||
	       c <= (val_get(a->pre, k, p) >> level_shift(k - 1)) || (c && node_class(a, k - 1, first + c - 1) == fc);
}

/*
 * Child @c of node @i at level @k (>= 1) changed its largest fit from *@fo
 * to *@fn: update the node. Returns whether its parent must follow, with
 * *@fo and *@fn the node's own old and new fit. Without a wholly free child
 * before or after (the node's fit and @fn below a child's size) no fit spans
 * children: the node's fit is its children's largest and its free prefix its
 * first child's, so it follows from @fo and @fn unless the child held the
 * largest fit and lost it; only then are the children read again. (Inlined
 * with a constant @k for the levels every update visits.)
 */
static inline __attribute__((always_inline)) bool update_node(struct dmamap_iova *a, unsigned k, unsigned long i,
							      unsigned c, unsigned long *fo, unsigned long *fn)
{
	unsigned long fit = val_get(a->fx, k, i), pre = val_get(a->pre, k, i), size = 1UL << level_shift(k - 1);
	unsigned old = a->cls[k][i], m;
	struct node_state st;

	if (k == 1 && fit < 8 && *fn < fit && *fo >= fit) {
		/*
		 * The word that held the largest fit lost it, and word codes below 8
		 * are exact fits: the largest code left, at most the old fit.
		 */
		unsigned t = top_code(a, i, (unsigned)fit);

		st.fit = t;
		st.pre = c ? pre : prefix_of(a, 0, i << FAN_SHIFT);
		st.cls = t ? floor_log2(t) + 1 : 0;
	} else if (fit < size && *fn < size && *fn < fit && *fo >= fit && !(fit & (fit - 1))) {
		/*
		 * The child held the largest fit, 2^(old - 1), the least of its
		 * class, and lost it: another child of the class still holds as
		 * much; if none does and that fit was one granule, none is left.
		 */
		if (any_child_ge(a, k, i, old)) {
			st.fit = fit;
			st.pre = c ? pre : prefix_of(a, k - 1, i << FAN_SHIFT);
			st.cls = old;
		} else if (fit == 1) {
			st.fit = st.pre = 0;
			st.cls = 0;
		} else {
			st = compute_node(a, k, i);
		}
	} else if (fit < size && *fn < size && (*fn >= fit || *fo < fit)) {
		st.fit = DM_MAX(fit, *fn);
		st.pre = c ? pre : prefix_of(a, k - 1, i << FAN_SHIFT);
		st.cls = st.fit ? floor_log2(st.fit) + 1 : 0;
	} else if (*fn < size && *fo == size && fit > size &&
		   fit == (unsigned long)(m = real_children(a, k, i)) << level_shift(k - 1)) {
		/*
		 * A node whose children were all wholly free (its fit their span)
		 * loses one: the others still are, which tells the fit without
		 * reading them (of 64, the half without c, or the run from the
		 * node's start into c); the free prefix reaches into c.
		 */
		st.pre = ((unsigned long)c << level_shift(k - 1)) + prefix_of(a, k - 1, (i << FAN_SHIFT) + c);
		if (m == 64)
			st.fit = DM_MAX(size << (FAN_SHIFT - 1), c >= 32 ? st.pre : 0);
		else
			st.fit = spanning_fit_of(a, k, i, ((1ULL << m) - 1) & ~(1ULL << c));
		st.cls = floor_log2(st.fit) + 1;
	} else if (*fn == size && *fo < size && all_children_free(a, k, i, m = real_children(a, k, i))) {
		st.fit = st.pre = (unsigned long)m << level_shift(k - 1);
		st.cls = floor_log2(st.fit) + 1;
	} else if (fit >= size && *fo < size && *fn < size &&
		   (!c || node_class(a, k - 1, (i << FAN_SHIFT) + c - 1) != full_class(k - 1))) {
		/*
		 * The node's fit spans wholly free children; this child was not one
		 * and is not one, nor does it follow one (no spanning fit reaches
		 * into it): the fit stands, and the free prefix moves only when the
		 * child is the first not wholly free.
		 */
		unsigned cs = level_shift(k - 1);

		st.fit = fit;
		st.cls = old;
		st.pre = c == pre >> cs ? ((unsigned long)c << cs) + prefix_of(a, k - 1, (i << FAN_SHIFT) + c) : pre;
	} else {
		st = compute_node(a, k, i);
	}
	if (st.fit == fit && st.pre == pre && st.cls == old)
		return false;
	if (k == 1)
		for (unsigned x = old + 1; x <= st.cls && x < L1_CLASSES; x++)
			a->low1[x] = (u32)DM_MIN(a->low1[x], i);
	a->cls[k][i] = (u8)st.cls;
	val_set(a->fx, k, i, st.fit);
	val_set(a->pre, k, i, st.pre);
	if (k == a->nlev || !child_matters(a, k + 1, i >> FAN_SHIFT, (unsigned)(i & 63), old, st.cls))
		return false;
	*fo = fit;
	*fn = st.fit;
	return true;
}

/*
 * Child @c of node @i at level @k (>= 1) changed its largest fit from @fo to
 * @fn: update the node and, while it changes and matters, its ancestors.
 */
static void propagate(struct dmamap_iova *a, unsigned k, unsigned long i, unsigned c, unsigned long fo,
		      unsigned long fn)
{
	if (k == 1) {
		if (!update_node(a, 1, i, c, &fo, &fn))
			return;
		k++, c = (unsigned)(i & 63), i >>= FAN_SHIFT;
	}
	if (k == 2) {
		if (!update_node(a, 2, i, c, &fo, &fn))
			return;
		k++, c = (unsigned)(i & 63), i >>= FAN_SHIFT;
	}
	for (; update_node(a, k, i, c, &fo, &fn); k++, c = (unsigned)(i & 63), i >>= FAN_SHIFT)
		;
}

/* Set the codes of words [w0, w1) to @v. */
static void nib_fill(struct dmamap_iova *a, unsigned long w0, unsigned long w1, unsigned v)
{
	const u64 all = (u64)v * NIB_L;

	for (unsigned long q = w0 / 16; q <= (w1 - 1) / 16; q++) {
		unsigned lo = q == w0 / 16 ? (unsigned)(w0 % 16) : 0, hi = q == (w1 - 1) / 16 ? (unsigned)((w1 - 1) % 16) : 15;
		u64 m = (~0ULL >> (4 * (15 - hi))) & (~0ULL << (4 * lo));

		a->nib[q] = (a->nib[q] & ~m) | (all & m);
	}
}

/*
 * The granules [first, first + count), which span words, were all taken
 * (@set) or all given back: refresh the words' classes and, where it can
 * matter, their ancestors'. The words the range covers whole become
 * wholly occupied or wholly free, which always matters to their node.
 */
static void refresh(struct dmamap_iova *a, unsigned long first, unsigned long count, bool set)
{
	unsigned long w0 = first / WBITS, w1 = (first + count - 1) / WBITS;
	unsigned long i0 = w0 + (first % WBITS != 0), i1 = w1 + ((first + count) % WBITS == 0); /* the whole words */

	if (i0 < i1)
		nib_fill(a, i0, i1, set ? 0 : CODE_FULL);
	for (unsigned long n = w0 >> FAN_SHIFT; n <= w1 >> FAN_SHIFT; n++) {
		unsigned long lo = DM_MAX(w0, n << FAN_SHIFT), hi = DM_MIN(w1, (n << FAN_SHIFT) + 63);
		bool matters = lo < i1 && hi >= i0;

		for (unsigned long w = lo; w <= hi; w++) {
			unsigned old, c;

			if (w >= i0 && w < i1) {
				w = DM_MIN(hi, i1 - 1);
				continue;
			}
			old = nib_get(a, w);
			c = word_code(occ_word(a, w));

			if (c != old)
				nib_set(a, w, c);
			matters = matters ||
				  child_matters(a, 1, n, (unsigned)(w & 63), class_of_code(old), class_of_code(c));
		}
		/* fits of the size of a word: the node reads its children again */
		if (matters)
			propagate(a, 1, n, 0, WBITS, WBITS);
	}
}

/*
 * Whether word @c (local index) of node @p, whose largest fit went from @fo
 * to @fn, can change the node: as child_matters(), but with the node's exact
 * fit where that compares classes (a word that holds less than the node's
 * largest fit before and after cannot change it).
 */
static inline bool word_matters(const struct dmamap_iova *a, unsigned long p, unsigned c, unsigned long fo,
				unsigned long fn)
{
	unsigned long fit = val_get(a->fx, 1, p);

	return fo >= fit || fn > fit || fo == WBITS || fn == WBITS ||
	       c <= (val_get(a->pre, 1, p) >> level_shift(0)) ||
	       (c && nib_get(a, (p << FAN_SHIFT) + c - 1) == CODE_FULL);
}

/*
 * Word @w changed from occupied granules @old_occ to @new_occ: refresh its
 * class and, where it can matter, its ancestors'. A node sees of a word only
 * its largest fit (its code) and its free prefix: when neither moved, the
 * node cannot change.
 */
static inline void refresh_word(struct dmamap_iova *a, unsigned long w, u64 old_occ, u64 new_occ)
{
	unsigned old = nib_get(a, w), cls = word_class(new_occ);
	unsigned long fit = word_fit_c(new_occ, cls), fo, pre = new_occ ? ctz64(new_occ) : WBITS;
	unsigned c = code_of_fit(fit);

	if (c != old)
		nib_set(a, w, c);
	if (a->pend == w) {
		/* changed again before its node saw it: back where the node knows it, nothing is left to do */
		if (fit == a->pend_fit && pre == a->pend_pre)
			a->pend = NOT_FOUND;
		a->pend_now = (u8)fit;
		return;
	}
	fo = fit_of_code(old_occ, old);
	if (fit == fo && pre == (old_occ ? ctz64(old_occ) : WBITS))
		return;
	a->pend = w;
	a->pend_now = (u8)fit;
	a->pend_fit = (u8)fo;
	a->pend_pre = (u8)(old_occ ? ctz64(old_occ) : WBITS);
}

/*
 * Bring the pending word's change to its node and, where it matters, its
 * ancestors. Lock held; before any other word changes and before anything
 * reads the nodes.
 */
static inline void settle_slow(struct dmamap_iova *a)
{
	unsigned long w = a->pend;

	a->pend = NOT_FOUND;
	if (word_matters(a, w >> FAN_SHIFT, (unsigned)(w & 63), a->pend_fit, a->pend_now))
		propagate(a, 1, w >> FAN_SHIFT, (unsigned)(w & 63), a->pend_fit, a->pend_now);
}

static inline void settle(struct dmamap_iova *a)
{
	if (a->pend != NOT_FOUND)
		settle_slow(a);
}

/* ------------------------------------------------------------ searches */

static unsigned long find_node(struct dmamap_iova *a, unsigned k, unsigned long n, unsigned long from);

/* find_node() without the first level's hints. */
static unsigned long scan_nodes(struct dmamap_iova *a, unsigned k, unsigned long n, unsigned long from)
{
	unsigned c = floor_log2(n) + 1;
	unsigned long cnt = a->nnodes[k];
	bool exact = k == 1 && (n & (n - 1));

	while (from < cnt) {
		unsigned long group = from >> FAN_SHIFT, end = DM_MIN((group + 1) << FAN_SHIFT, cnt);

		/* no node holds more than its parent: a group whose parent does not hold n is passed unread */
		if (k < a->nlev && val_get(a->fx, k + 1, group) < n)
			end = from;
		/*
		 * Level 1, n not a power of two: the exact fits, 8 a step
		 * (fits_ge8()). A class c node may or may not hold n, and most nodes
		 * of an aged space are of class c: taken one by one, they cost more
		 * than these compares. (For a power of two the classes are exact, and
		 * 8 a load.)
		 */
		for (unsigned long q = from & ~7UL; exact && q < end; q += 8) {
			u64 m = fits_ge8(a, q, n);

			if (q < from)
				m &= ~0ULL << (2 * (from - q));
			if (m) {
				unsigned long i = q + ctz64(m) / 2;

				return i < cnt ? i : NOT_FOUND;
			}
		}
		for (unsigned long q = from & ~7UL; !exact && q < end; q += 8) {
			u64 m = byte_ge(load8(a, k, q), c);

			if (q < from)
				m &= ~0ULL << (8 * (from - q));
			for (; m; m &= m - 1) {
				unsigned long i = q + ctz64(m) / 8;

				if (i >= cnt)
					return NOT_FOUND;
				/* a higher class certainly holds n; the same class may */
				if (a->cls[k][i] > c || val_get(a->fx, k, i) >= n)
					return i;
			}
		}
		if (k == a->nlev)
			return NOT_FOUND;
		/* nothing left in this group: the next parent that holds a fit (then one of its children does) */
		group = find_node(a, k + 1, n, group + 1);
		if (group == NOT_FOUND)
			return NOT_FOUND;
		from = group << FAN_SHIFT;
	}
	return NOT_FOUND;
}

/*
 * First node >= @from at level @k (>= 1) where @n granules fit; NOT_FOUND if
 * none. At the first level the search starts at the lowest node that may
 * have the class @n needs (low1[]); a search for a power of two, which the
 * classes answer exactly, moves that start up to what it found.
 */
static unsigned long find_node(struct dmamap_iova *a, unsigned k, unsigned long n, unsigned long from)
{
	unsigned c = floor_log2(n) + 1;
	unsigned long r;
	bool learn;

	if (k != 1 || c >= L1_CLASSES || a->nnodes[1] > UINT32_MAX)
		return scan_nodes(a, k, n, from);
	learn = !(n & (n - 1)) && from <= a->low1[c];
	r = scan_nodes(a, 1, n, DM_MAX(from, (unsigned long)a->low1[c]));
	if (learn)
		a->low1[c] = (u32)(r == NOT_FOUND ? a->nnodes[1] : r);
	return r;
}

/*
 * Natural fit of @n granules aligned to 2^@lg (n <= 2^lg) at or above granule
 * @from, inside the extent; NOT_FOUND if none.
 */
static unsigned long find_natural(struct dmamap_iova *a, unsigned long n, unsigned lg, unsigned long from)
{
	if (n <= WBITS) {
		unsigned long node = from >> 12;

		/* the node of the search start, when its largest fit holds n, needs no search */
		if (node >= a->nnodes[1] || val_get(a->fx, 1, node) < n)
			node = find_node(a, 1, n, node);
		for (; node != NOT_FOUND; node = find_node(a, 1, n, node + 1)) {
			unsigned long w0 = node << FAN_SHIFT;

			if (w0 < from / WBITS)
				w0 = from / WBITS;
			for (unsigned long q = w0 / 16; q < (node + 1) * 4; q++) {
				u64 m = nib_ge(a->nib[q], code_min(n));

				if (q == w0 / 16)
					m &= ~0ULL << (4 * (w0 % 16));
				for (; m; m &= m - 1) {
					unsigned long w = q * 16 + ctz64(m) / 4;
					u64 fits = runs_of(~occ_word(a, w), (unsigned)n) & align_mask[lg];

					if (w == from / WBITS)
						fits &= ~0ULL << (from % WBITS);
					if (fits)
						return w * WBITS + ctz64(fits);
				}
			}
		}
		return NOT_FOUND;
	}

	/* spanning children of a node at level L: 6L < lg <= 6L + 6 */
	unsigned L = (lg + FAN_SHIFT - 1) / FAN_SHIFT - 1;
	unsigned cs = level_shift(L - 1);               /* log2 of a child, in granules */
	unsigned long mfull = n >> cs, r = n & ((1UL << cs) - 1);

	for (unsigned long node = find_node(a, L, n, from >> level_shift(L)); node != NOT_FOUND;
	     node = find_node(a, L, n, node + 1)) {
		u64 cand = runs_of(full_children(a, L, node), (unsigned)mfull) & align_mask[lg - cs];

		if (node == from >> level_shift(L)) {
			unsigned long skip = (from - (node << level_shift(L)) + (1UL << cs) - 1) >> cs;

			cand &= skip >= 64 ? 0 : ~0ULL << skip;
		}
		for (; cand; cand &= cand - 1) {
			unsigned s = ctz64(cand);

			if (!r || prefix_of(a, L - 1, (node << FAN_SHIFT) + s + mfull) >= r)
				return ((node << FAN_SHIFT) + s) << cs;
		}
	}
	return NOT_FOUND;
}

/* First occupied granule in [from, end) (end <= ext), or @end. */
static unsigned long next_occupied(const struct dmamap_iova *a, unsigned long from, unsigned long end)
{
	while (from < end) {
		unsigned long w = from / WBITS;
		u64 o = occ_word(a, w) & (~0ULL << (from % WBITS));

		if (o) {
			unsigned long i = w * WBITS + ctz64(o);

			return i < end ? i : end;
		}
		from = (w + 1) * WBITS;
	}
	return end;
}

/* Last occupied granule in [floor, before), or @floor - 1 (as unsigned: floor may be 0). */
static unsigned long prev_occupied(const struct dmamap_iova *a, unsigned long floor, unsigned long before)
{
	while (before > floor) {
		unsigned long w = (before - 1) / WBITS;
		unsigned top = (unsigned)((before - 1) % WBITS);
		u64 o = occ_word(a, w) & (top == 63 ? ~0ULL : ((1ULL << (top + 1)) - 1));

		if (o) {
			unsigned long i = w * WBITS + 63 - (unsigned)__builtin_clzll(o);

			return i >= floor ? i : floor - 1;
		}
		before = w * WBITS;
	}
	return floor - 1;
}

/*
 * First fit of @n granules aligned to 2^@lg where 2^lg < n's natural
 * alignment: such a fit holds a natural block of 2^b granules with
 * 2^(b+1) - 1 <= n; walk those blocks' free runs in address order.
 */
static unsigned long find_capped(struct dmamap_iova *a, unsigned long n, unsigned lg)
{
	unsigned b = (unsigned)(63 - __builtin_clzll((unsigned long long)n + 1)) - 1;
	unsigned long align = 1UL << lg, from = a->low;

	for (;;) {
		unsigned long p = find_natural(a, 1UL << b, b, from), rs, s, u;

		if (p == NOT_FOUND)
			return NOT_FOUND;
		rs = prev_occupied(a, from, p) + 1;
		s = DM_ALIGN_UP(rs, align);
		if (s >= a->ext || n > a->ext - s)
			return NOT_FOUND;
		u = next_occupied(a, s, s + n);
		if (u == s + n)
			return s;
		from = u + 1;
	}
}

/* ------------------------------------------------------------ structure */

static void free_maps(struct dmamap_iova *a)
{
	free(a->used_mem);
	free(a->nib);
	for (unsigned k = 1; k <= a->nlev; k++) {
		free(a->cls[k]);
		free(a->fx[k]);
		free(a->pre[k]);
	}
}

/* Allocate (or grow to) the arrays for an extent of @ext granules; 0 or -ENOMEM (nothing changed). */
static int resize(struct dmamap_iova *a, unsigned long ext)
{
	unsigned long nwords = (ext + WBITS - 1) / WBITS, old = a->nwords;
	/* nibble words: whole nodes of 64 words (4 u64 each) */
	unsigned long nnibw = DM_ALIGN_UP(nwords, 64UL) / 16, oldnib = DM_ALIGN_UP(old, 64UL) / 16;
	unsigned long nn[MAX_LEVELS + 1] = { 0 };
	u8 *cls[MAX_LEVELS + 1] = { 0 };
	void *fx[MAX_LEVELS + 1] = { 0 }, *pre[MAX_LEVELS + 1] = { 0 };
	unsigned nlev = 0;
	u64 *used, *head, *nib;
	void *used_mem;
	size_t meta = sizeof(*a);

	/* the nodes are made again below, but the first level's hints must see a class that rose */
	settle(a);

	for (unsigned long n = nwords; nlev == 0 || n > 1;) {
		n = (n + 63) >> FAN_SHIFT;
		nn[++nlev] = n;
		if (nlev == MAX_LEVELS)
			break;
	}
	/* bytes: the last level's group is read 8 at a time by nothing; exact sizes suffice */
	/* calloc() keeps a large bitmap's pages untouched until used; the line alignment is by hand */
	used_mem = calloc(nwords * 2 * sizeof(u64) + LINE_BYTES, 1);
	used = used_mem ? (u64 *)DM_ALIGN_UP((uintptr_t)used_mem, (uintptr_t)LINE_BYTES) : NULL;
	nib = calloc(nnibw, sizeof(u64));
	bool ok = used && nib;
	for (unsigned k = 1; ok && k <= nlev; k++) {
		/* whole groups of 64 (read 8 at a time), plus the 8 a read may pass the end by */
		cls[k] = calloc(DM_ALIGN_UP(nn[k], 64UL) + 8, 1);
		/* level 1's fits too: find_node() may read them 4 at a time */
		fx[k] = calloc(k == 1 ? DM_ALIGN_UP(nn[k], 64UL) + 4 : nn[k], val_size(k));
		pre[k] = calloc(nn[k], val_size(k));
		ok = cls[k] && fx[k] && pre[k];
		meta += DM_ALIGN_UP(nn[k], 64UL) + 8 + ((k == 1 ? DM_ALIGN_UP(nn[k], 64UL) + 4 : nn[k]) + nn[k]) * val_size(k);
	}
	if (!ok) {
		free(used_mem);
		free(nib);
		for (unsigned k = 1; k <= nlev; k++) {
			free(cls[k]);
			free(fx[k]);
			free(pre[k]);
		}
		return -ENOMEM;
	}
	head = used + 1;
	if (old) {
		memcpy(used, a->used, 2 * old * sizeof(u64)); /* both bitmaps */
		memcpy(nib, a->nib, oldnib * sizeof(u64));
	}
	/* the padding past the space's end: a permanent allocation */
	if (ext == a->bits && a->bits % WBITS) {
		u64 pad = ~0ULL << (a->bits % WBITS);

		used[MW(nwords - 1)] |= pad;
		head[MW(nwords - 1)] |= pad & -pad;
	}
	free_maps(a);
	a->used_mem = used_mem;
	a->used = used;
	a->head = head;
	a->nib = nib;
	a->ext = ext;
	a->nwords = nwords;
	a->nlev = nlev;
	for (unsigned k = 0; k <= MAX_LEVELS; k++) {
		a->nnodes[k] = nn[k];
		a->cls[k] = cls[k];
		a->fx[k] = fx[k];
		a->pre[k] = pre[k];
	}
	a->meta_bytes = meta + nwords * 2 * sizeof(u64) + LINE_BYTES + nnibw * sizeof(u64);
	/* new words are free: classes of every new word, then every node from scratch */
	for (unsigned long w = old ? old - 1 : 0; w < nwords; w++)
		nib_set(a, w, word_code(occ_word(a, w)));
	for (unsigned k = 1; k <= nlev; k++)
		for (unsigned long i = 0; i < nn[k]; i++) {
			struct node_state st = compute_node(a, k, i);

			a->cls[k][i] = (u8)st.cls;
			val_set(a->fx, k, i, st.fit);
			val_set(a->pre, k, i, st.pre);
		}
	/* low1[] holds: the old nodes keep their classes, and no hint is above the old node count */
	return 0;
}

/* Double the extent (at most the whole space). 0, or -ENOMEM / -ENOSPC (already whole). */
static int grow(struct dmamap_iova *a)
{
	unsigned long ext;

	if (a->ext == a->bits)
		return -ENOSPC;
	if (a->fail_grow_next) {
		a->fail_grow_next--;
		a->grow_failures++;
		return -ENOMEM;
	}
	ext = a->ext > a->bits / 2 ? a->bits : 2 * a->ext;
	if (resize(a, ext)) {
		a->grow_failures++;
		return -ENOMEM;
	}
	a->grows++;
	return 0;
}

/* Grow the extent to the whole space at once (caches need it). 0, or -ENOMEM (nothing changed but grow_failures). */
static int grow_whole(struct dmamap_iova *a)
{
	if (a->fail_grow_next)
		a->fail_grow_next--;
	else if (!resize(a, a->bits))
		return 0;
	a->grow_failures++;
	return -ENOMEM;
}

/* ------------------------------------------------------------ helpers */

/* Granules needed for @size bytes: ceil(size / granule), without overflow. */
static inline unsigned long granules_for(const struct dmamap_iova *a, size_t size)
{
	u64 gmask = ((u64)1 << a->gshift) - 1;

	return (unsigned long)(((u64)size >> a->gshift) + (((u64)size & gmask) != 0));
}

/*
 * Set (@set) or clear the bits @m of @map[w]: an atomic read-modify-write
 * while cache hits may change other bits of the word without the lock.
 */
static inline void word_assign(const struct dmamap_iova *a, u64 *p, u64 m, bool set)
{
	if (a->caching) {
		if (set)
			__atomic_fetch_or(p, m, __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(p, ~m, __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(p, set ? ld(p) | m : ld(p) & ~m, __ATOMIC_RELAXED);
	}
}

/*
 * Set (@set) or clear head bit @g. Cache hits flip used bits only, so the
 * locked code, the one writer of head bits, needs no read-modify-write for
 * them even while caches are on. Lock held.
 */
static inline void head_assign(const struct dmamap_iova *a, unsigned long g, bool set)
{
	u64 *p = &a->head[MW(g / WBITS)], m = 1ULL << (g % WBITS);

	__atomic_store_n(p, set ? ld(p) | m : ld(p) & ~m, __ATOMIC_RELAXED);
}

/* Set (@set) or clear bits [start, start + count) of @map, count > 0. */
static void bits_assign(const struct dmamap_iova *a, u64 *map, unsigned long start, unsigned long count, bool set)
{
	unsigned long end = start + count;
	unsigned long w = start / WBITS, last = (end - 1) / WBITS;
	u64 first_mask = ~0ULL << (start % WBITS);
	u64 last_mask = ~0ULL >> (WBITS - 1 - (end - 1) % WBITS);

	if (w == last) {
		word_assign(a, &map[MW(w)], first_mask & last_mask, set);
		return;
	}
	word_assign(a, &map[MW(w)], first_mask, set);
	/* words wholly inside the range: no other allocation's bit is there */
	for (w++; w < last; w++)
		__atomic_store_n(&map[MW(w)], set ? ~0ULL : 0, __ATOMIC_RELAXED);
	word_assign(a, &map[MW(last)], last_mask, set);
}

/*
 * Whether granules [first + 1, first + count) are the body of the allocation
 * headed at @first and granule first + count ends it. Lock held; first has
 * its head bit set.
 */
static bool is_exact(const struct dmamap_iova *a, unsigned long first, unsigned long count)
{
	unsigned long end = first + count, i = first + 1;

	/* granules past the extent are free (and have no bits yet): no allocation reaches them */
	if (end > a->ext)
		return false;
	while (i < end) {
		unsigned long w = i / WBITS;
		unsigned long stop = DM_MIN(end, (w + 1) * WBITS);
		u64 m = (~0ULL << (i % WBITS)) & (stop % WBITS ? (1ULL << (stop % WBITS)) - 1 : ~0ULL);

		if ((ld(&a->used[MW(w)]) & m) != m || (ld(&a->head[MW(w)]) & m))
			return false;
		i = stop;
	}
	/* the next granule: free, the head of another, or past the space (or the extent: free) */
	return end >= a->ext || !bit_test(a->used, end) || bit_test(a->head, end);
}

/*
 * Whether [first, first + count) is exactly one live allocation: its head
 * and used bits at @first, and is_exact(). When the range and the granule
 * after it lie in one word, from two loads. Lock held, or a hit's reading
 * (see tc_free()); first < a->ext.
 */
static inline bool live_exact(const struct dmamap_iova *a, unsigned long first, unsigned long count)
{
	unsigned s = (unsigned)(first % WBITS);

	if (s + count < WBITS) {
		u64 used = ld(&a->used[MW(first / WBITS)]), head = ld(&a->head[MW(first / WBITS)]);
		u64 m = ((1ULL << count) - 1) << s, next = 1ULL << (s + count);

		return (used & m) == m && (head & m) == 1ULL << s && (!(used & next) || (head & next));
	}
	return bit_test(a->head, first) && bit_test(a->used, first) && is_exact(a, first, count);
}

/* Length of the allocation headed at @first (for messages). */
static unsigned long allocation_length(const struct dmamap_iova *a, unsigned long first)
{
	unsigned long i = first + 1;

	while (i < a->ext && bit_test(a->used, i) && !bit_test(a->head, i))
		i++;
	return i - first;
}

/* log2 of the alignment, in granules, of an allocation of @size bytes (non-zero). */
static unsigned align_order_for(const struct dmamap_iova *a, size_t size)
{
	unsigned o = (unsigned)get_order(size), cap = __atomic_load_n(&a->max_align_order, __ATOMIC_RELAXED);

	if (o > cap)
		o = cap;
	return o > a->order ? o - a->order : 0;
}

/* The bits of granules [first, first + count) in their word, when they lie in one; else 0. */
static inline u64 word_mask(unsigned long first, unsigned long count)
{
	unsigned s = (unsigned)(first % WBITS);

	if (s + count > WBITS)
		return 0;
	return (count == WBITS ? ~0ULL : (1ULL << count) - 1) << s;
}

/* Mark [first, first + count) a live allocation (its head first: see tc_free()). Lock held. */
static void mark_locked(struct dmamap_iova *a, unsigned long first, unsigned long count)
{
	unsigned long w = first / WBITS;
	u64 old_occ, m = word_mask(first, count);

	if (a->pend != w || !m)
		settle(a);
	old_occ = occ_word(a, w);
	head_assign(a, first, true);
	if (m) {
		word_assign(a, &a->used[MW(w)], m, true);
		refresh_word(a, w, old_occ, old_occ | m);
	} else {
		bits_assign(a, a->used, first, count, true);
		refresh(a, first, count, true);
	}
	if (first == a->low)
		a->low = first + count;
	a->used_granules += count;
	a->allocations++;
}

/* Free the allocation [first, first + count) (live or cached). Lock held. */
static void release_locked(struct dmamap_iova *a, unsigned long first, unsigned long count)
{
	unsigned long w = first / WBITS;
	u64 old_occ, m = word_mask(first, count);

	if (a->pend != w || !m)
		settle(a);
	old_occ = occ_word(a, w);
	if (m) {
		word_assign(a, &a->used[MW(w)], m, false);
		head_assign(a, first, false);
		refresh_word(a, w, old_occ, old_occ & ~m);
	} else {
		bits_assign(a, a->used, first, count, false);
		head_assign(a, first, false);
		refresh(a, first, count, false);
	}
	if (first < a->low)
		a->low = first;
	a->used_granules -= count;
	a->allocations--;
}

/* ------------------------------------------------------------ caches */

#define TC_MAX 32u   /* cached sizes: 1 .. TC_MAX granules */
#define TC_SLOTS 16u /* ranges per size and thread */

/*
 * One thread's cache of one allocator. The bins and counts change only in
 * the thread's hits (between tc_enter() and tc_leave()) and under @claim
 * (flushes by others under the allocator's lock: lock order allocator, then
 * claim; the thread's exit); @owner is cleared under @claim when the
 * allocator goes; @next/@listed under the allocator's lock; @tnext only by
 * the thread. Two references: the thread's and the allocator's.
 */
struct iova_tcache {
	unsigned char claim;           /* held by whoever else reads or changes the bins */
	unsigned char busy;            /* the thread is in a hit (with membarrier()) */
	const char *thread;            /* the thread's tc_self */
	bool listed;                   /* on owner->caches */
	int refs;
	u64 id;                        /* the owner's id */
	struct dmamap_iova *owner;     /* NULL once the allocator is destroyed */
	struct iova_tcache *next, **pprev; /* owner->caches */
	struct iova_tcache *tnext;     /* the thread's caches */
	unsigned long home;            /* the bitmap line of the thread's last miss (NOT_FOUND: none); lock */
	unsigned char n[TC_MAX];       /* [count - 1]: ranges cached */
	u32 slot[TC_MAX][TC_SLOTS];    /* [count - 1]: their first granules (caching needs bits <= 2^32) */
};

static pthread_key_t tc_key;
static pthread_once_t tc_once = PTHREAD_ONCE_INIT;
static bool tc_key_ok;
static u64 tc_next_id = 1;
/* initial-exec: one load from the thread pointer, where the default model calls __tls_get_addr */
#define TC_TLS _Thread_local __attribute__((tls_model("initial-exec")))
static TC_TLS struct iova_tcache *tc_last; /* the cache used last */
static TC_TLS struct iova_tcache *tc_list; /* every cache of this thread */
static TC_TLS char tc_self;                /* its address tells the thread */

/* Hits take no locked instruction for the bins: the process is registered for expedited membarrier(). */
static bool tc_fast;

static void tc_membarrier_init(void)
{
#if defined(__linux__) && defined(SYS_membarrier)
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	tc_fast = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		  syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#endif
}

static void tc_key_init(void);

void dmamap_iova_claiming_hits(bool on)
{
	pthread_once(&tc_once, tc_key_init);
	if (on)
		tc_fast = false;
	else
		tc_membarrier_init();
}

/* Every thread of the process passes a full memory barrier. */
static void tc_membarrier(void)
{
#if defined(__linux__) && defined(SYS_membarrier)
	(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
#endif
}

static inline void tc_claim_one(struct iova_tcache *c)
{
	while (__atomic_exchange_n(&c->claim, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static inline void tc_release(struct iova_tcache *c)
{
	__atomic_store_n(&c->claim, 0, __ATOMIC_RELEASE);
}

/*
 * Claim the bins of @c and of the caches after it on its ->next list (all of
 * them when @all). The calling thread's own cache needs no barrier: it is in
 * no hit.
 */
static void tc_claim(struct iova_tcache *c, bool all)
{
	bool others = false;

	for (struct iova_tcache *d = c; d; d = all ? d->next : NULL) {
		tc_claim_one(d);
		others |= d->thread != &tc_self;
	}
	if (!tc_fast || !others)
		return;
	tc_membarrier();
	for (struct iova_tcache *d = c; d; d = all ? d->next : NULL)
		while (__atomic_load_n(&d->busy, __ATOMIC_ACQUIRE))
			sched_yield();
}

/* The thread starts a hit on its cache @c; false (nothing changed) while another thread claims it. */
static inline bool tc_enter(struct iova_tcache *c)
{
	if (!tc_fast) {
		tc_claim_one(c);
		return true;
	}
	__atomic_store_n(&c->busy, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (likely(!__atomic_load_n(&c->claim, __ATOMIC_ACQUIRE)))
		return true;
	__atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
	return false;
}

static inline void tc_leave(struct iova_tcache *c)
{
	if (tc_fast)
		__atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
	else
		tc_release(c);
}

static void tc_put(struct iova_tcache *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(c);
}

/* Ranges and granules in @c's bins. Claimed. */
static void tc_count(const struct iova_tcache *c, unsigned long *ranges, unsigned long *granules)
{
	*ranges = *granules = 0;
	for (unsigned k = 0; k < TC_MAX; k++) {
		*ranges += c->n[k];
		*granules += (unsigned long)c->n[k] * (k + 1);
	}
}

/* Give every range of @c back to the bitmaps. @a's lock held, @c claimed. Return: ranges given back. */
static unsigned long tc_drain_locked(struct dmamap_iova *a, struct iova_tcache *c)
{
	unsigned long n = 0;

	for (unsigned k = 0; k < TC_MAX; k++) {
		for (unsigned i = 0; i < c->n[k]; i++)
			release_locked(a, c->slot[k][i], k + 1);
		n += c->n[k];
		c->n[k] = 0;
	}
	return n;
}

/* Empty every thread's cache of @a into the bitmaps. Lock held. Return: ranges given back. */
static unsigned long tc_flush_all(struct dmamap_iova *a)
{
	unsigned long n = 0;

	tc_claim(a->caches, true);
	for (struct iova_tcache *c = a->caches; c; c = c->next) {
		n += tc_drain_locked(a, c);
		tc_release(c);
	}
	return n;
}

/* Thread exit: each cache's ranges go back to its allocator, if it still exists. */
static void tc_thread_exit(void *v)
{
	struct iova_tcache *c = v, *next;

	for (; c; c = next) {
		next = c->tnext;
		for (;;) {
			struct dmamap_iova *o;

			/* the thread's own cache, and it is in no hit: the claim alone */
			tc_claim_one(c);
			o = c->owner;
			if (!o) {
				tc_release(c);
				break;
			}
			/* the allocator's lock comes before the claim: only try it */
			if (iova_trylock(o)) {
				tc_drain_locked(o, c);
				if (c->listed) {
					*c->pprev = c->next;
					if (c->next)
						c->next->pprev = c->pprev;
					c->listed = false;
					__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL); /* the allocator's */
				}
				__atomic_store_n(&c->owner, NULL, __ATOMIC_RELEASE);
				iova_unlock(o);
				tc_release(c);
				break;
			}
			tc_release(c);
			sched_yield();
		}
		tc_put(c);
	}
	tc_list = NULL;
	tc_last = NULL;
}

static void tc_key_init(void)
{
	tc_key_ok = pthread_key_create(&tc_key, tc_thread_exit) == 0;
	tc_membarrier_init();
}

/* This thread's cache of allocator @id, dropping those of destroyed allocators on the way; NULL if none. */
static struct iova_tcache *tc_walk(u64 id)
{
	struct iova_tcache **pp = &tc_list, *c, *found = NULL;
	bool dropped = false;

	while ((c = *pp)) {
		if (c->id == id) {
			found = c;
			pp = &c->tnext;
		} else if (!__atomic_load_n(&c->owner, __ATOMIC_ACQUIRE)) {
			*pp = c->tnext;
			if (tc_last == c)
				tc_last = NULL;
			tc_put(c);
			dropped = true;
		} else {
			pp = &c->tnext;
		}
	}
	if (dropped)
		(void)pthread_setspecific(tc_key, tc_list);
	return found;
}

/* tc_get() past the cache used last: found on the thread's list, or made when @create; NULL if none (or no memory). */
static __attribute__((noinline)) struct iova_tcache *tc_find(struct dmamap_iova *a, bool create)
{
	struct iova_tcache *c = tc_walk(a->id);

	if (c || !create) {
		if (c)
			tc_last = c;
		return c;
	}
	pthread_once(&tc_once, tc_key_init);
	c = tc_key_ok ? calloc(1, sizeof(*c)) : NULL;
	if (!c)
		return NULL;
	c->id = a->id;
	c->owner = a;
	c->thread = &tc_self;
	c->home = NOT_FOUND;
	c->refs = 2;
	c->tnext = tc_list;
	if (pthread_setspecific(tc_key, c)) {
		free(c);
		return NULL;
	}
	tc_list = c;
	tc_last = c;
	iova_lock(a);
	c->next = a->caches;
	c->pprev = &a->caches;
	if (a->caches)
		a->caches->pprev = &c->next;
	a->caches = c;
	c->listed = true;
	iova_unlock(a);
	return c;
}

/* This thread's cache of @a (the one used last, most often), made when @create; NULL if none. */
static inline struct iova_tcache *tc_get(struct dmamap_iova *a, bool create)
{
	struct iova_tcache *c = tc_last;

	return c && c->id == a->id ? c : tc_find(a, create);
}

/* A hit in this thread's cache @c: a cached range of @count granules, live again; NOT_FOUND on a miss. */
static unsigned long tc_alloc(struct dmamap_iova *a, struct iova_tcache *c, unsigned long count)
{
	unsigned long first = NOT_FOUND;

	if (!tc_enter(c))
		return NOT_FOUND;
	if (c->n[count - 1]) {
		first = c->slot[count - 1][--c->n[count - 1]];
		__atomic_fetch_or(&a->used[MW(first / WBITS)], 1ULL << (first % WBITS), __ATOMIC_RELAXED);
	}
	tc_leave(c);
	return first;
}

/*
 * tc_free() of @first into @c's full bin of @count granules, entered: the
 * older half of the bin goes back to the bitmaps, and the cache is left.
 */
static __attribute__((noinline)) void tc_spill(struct dmamap_iova *a, struct iova_tcache *c, unsigned long count,
					       unsigned long first)
{
	u32 spill[TC_SLOTS / 2];
	const unsigned nspill = TC_SLOTS / 2;

	memcpy(spill, c->slot[count - 1], sizeof(spill));
	memmove(c->slot[count - 1], c->slot[count - 1] + nspill, (TC_SLOTS - nspill) * sizeof(spill[0]));
	c->n[count - 1] = (unsigned char)(TC_SLOTS - nspill);
	c->slot[count - 1][c->n[count - 1]++] = (u32)first;
	tc_leave(c);
	iova_lock(a);
	for (unsigned i = 0; i < nspill; i++)
		release_locked(a, spill[i], count);
	iova_unlock(a);
}

/*
 * A free into this thread's cache, without the allocator's lock; false when
 * the range does not qualify (or is not exactly a live allocation, or a
 * racing free took it first): the locked path then frees or refuses it.
 * The range stays occupied in the bitmaps, its head granule marked cached
 * (head set, used clear), so the summaries do not change. Bits of the words
 * read here may change under the lock meanwhile, but never those of this
 * live range, and a neighbour's head bit is set before and cleared after its
 * used bits, so the granule after the range reads as a boundary throughout.
 */
static bool tc_free(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	u64 off = addr - a->base, bit;
	unsigned long first, count;
	struct iova_tcache *c;

	if (!size || addr < a->base || off >= (u64)a->size || (off & (((u64)1 << a->gshift) - 1)))
		return false;
	count = granules_for(a, size);
	first = (unsigned long)(off >> a->gshift);
	/* a range placed under a lower alignment cap than today's goes back to the bitmaps */
	if (count > TC_MAX || (count > 1 && (first & ((1UL << align_order_for(a, size)) - 1))))
		return false;
	if (!live_exact(a, first, count))
		return false;
	c = tc_get(a, true);
	if (!c || !tc_enter(c))
		return false;
	bit = 1ULL << (first % WBITS);
	if (!(__atomic_fetch_and(&a->used[MW(first / WBITS)], ~bit, __ATOMIC_RELAXED) & bit)) {
		tc_leave(c);
		return false;
	}
	if (unlikely(c->n[count - 1] == TC_SLOTS)) {
		tc_spill(a, c, count, first);
		return true;
	}
	c->slot[count - 1][c->n[count - 1]++] = (u32)first;
	tc_leave(c);
	return true;
}

/* Ranges and granules held in @a's caches (claimed in turn). Lock held. */
static void tc_totals(struct dmamap_iova *a, unsigned long *ranges, unsigned long *granules, size_t *bytes)
{
	*ranges = *granules = 0;
	*bytes = 0;
	tc_claim(a->caches, true);
	for (struct iova_tcache *c = a->caches; c; c = c->next) {
		unsigned long r, g;

		tc_count(c, &r, &g);
		tc_release(c);
		*ranges += r;
		*granules += g;
		*bytes += sizeof(*c);
	}
}

/* ------------------------------------------------------------ public API */

/*
 * Destroyed allocators. An allocator's struct never goes back to the heap:
 * its destroy frees the bitmaps, marks it dead and queues it here, and a
 * creation reuses the oldest only once IOVA_QUARANTINE others wait behind
 * it. A call through the pointer of a destroyed allocator so reads memory
 * that is still an allocator's, finds it dead and is refused, until that
 * many creations have followed (as a sanitizer's quarantine delays reuse).
 */
#define IOVA_QUARANTINE 256
static pthread_mutex_t dead_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dmamap_iova *dead_head, *dead_tail;
static unsigned long dead_count;

/* A zeroed struct for a new allocator: the oldest dead one past the quarantine, or a new one; NULL if none. */
static struct dmamap_iova *iova_struct_get(void)
{
	struct dmamap_iova *a = NULL;

	pthread_mutex_lock(&dead_lock);
	if (dead_count > IOVA_QUARANTINE) {
		a = dead_head;
		dead_head = a->dead_next;
		dead_count--;
	}
	pthread_mutex_unlock(&dead_lock);
	if (!a)
		return calloc(1, sizeof(*a));
	memset(a, 0, sizeof(*a));
	return a;
}

/* Mark @a (its bitmaps freed) dead and queue it; only its base and size, for reports, stay meaningful. */
static void iova_bury(struct dmamap_iova *a)
{
	a->used = a->head = a->nib = NULL;
	a->used_mem = NULL;
	a->nlev = 0;
	a->ext = a->nwords = 0;
	a->dead_next = NULL;
	__atomic_store_n(&a->dead, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&dead_lock);
	if (dead_head)
		dead_tail->dead_next = a;
	else
		dead_head = a;
	dead_tail = a;
	dead_count++;
	pthread_mutex_unlock(&dead_lock);
}

static __attribute__((noinline, cold)) void iova_dead_report(const struct dmamap_iova *a, const char *what)
{
	dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
		      "%s(%p): the " DM_OBJ_IOVA " of %#llx+%#zx was destroyed: nothing done", what, (const void *)a,
		      (unsigned long long)a->base, a->size);
}

/* Whether @a was destroyed; if so @what, which must then do nothing, is reported. */
static inline bool iova_dead(const struct dmamap_iova *a, const char *what)
{
	if (likely(!__atomic_load_n(&a->dead, __ATOMIC_ACQUIRE)))
		return false;
	iova_dead_report(a, what);
	return true;
}

DMAMAP_API struct dmamap_iova *dmamap_iova_create(dma_addr_t base, size_t size, unsigned order)
{
	struct dmamap_iova *a;
	unsigned long bits, ext;
	u64 granule, gmask;

	if (order > 20 || size == 0) {
		errno = EINVAL;
		return NULL;
	}
	granule = (u64)PAGE_SIZE << order;
	gmask = granule - 1;
	if ((base & gmask) || ((u64)size & gmask) || (u64)size - 1 > UINT64_MAX - base) {
		errno = EINVAL;
		return NULL;
	}
#if SIZE_MAX > ULONG_MAX
	if ((u64)size / granule > ULONG_MAX) {
		errno = EINVAL;
		return NULL;
	}
#endif
	bits = (unsigned long)((u64)size / granule);
	ext = bits > DMAMAP_IOVA_INITIAL ? DMAMAP_IOVA_INITIAL : bits;
	/* a bitmap of 2^58 granules or more could not be addressed */
	if (bits > (ULONG_MAX >> 6)) {
		errno = ENOMEM;
		return NULL;
	}

	a = iova_struct_get();
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	a->base = base;
	a->size = size;
	a->order = order;
	a->gshift = PAGE_SHIFT + order;
	a->max_align_order = DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER;
	a->bits = bits;
	a->id = __atomic_fetch_add(&tc_next_id, 1, __ATOMIC_RELAXED);
	a->pend = NOT_FOUND;
	if (resize(a, ext)) {
		free_maps(a);
		iova_bury(a);
		errno = ENOMEM;
		return NULL;
	}
	dmamap_obj_own(&a->obj, a, DM_OBJ_IOVA);
	return a;
}

void dmamap_iova_destroy_in(struct dmamap_iova *a, struct dmamap_machine *m)
{
	struct iova_tcache *list, *next;
	unsigned long live, granules;

	if (!a)
		return;
	/*
	 * The caller owns @a: nobody else may be using it now, but threads that
	 * used it may be exiting: their caches are taken off the list first, then
	 * orphaned one by one (each thread frees its own when it next looks, or
	 * exits; this thread's at once). Cached ranges are not leaks.
	 */
	iova_lock(a);
	list = a->caches;
	a->caches = NULL;
	for (struct iova_tcache *c = list; c; c = c->next)
		c->listed = false;
	iova_unlock(a);
	tc_claim(list, true);
	for (struct iova_tcache *c = list; c; c = next) {
		unsigned long r, g;

		next = c->next;
		tc_count(c, &r, &g);
		a->allocations -= r;
		a->used_granules -= g;
		__atomic_store_n(&c->owner, NULL, __ATOMIC_RELEASE);
		tc_release(c);
		tc_put(c);
	}
	(void)tc_walk(0);
	iova_lock(a);
	live = a->allocations;
	granules = a->used_granules;
	iova_unlock(a);
	if (live)
		dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
			      "iova space %#llx+%#zx destroyed with %lu allocation%s (%lu granule%s) outstanding",
			      (unsigned long long)a->base, a->size, live, live == 1 ? "" : "s", granules,
			      granules == 1 ? "" : "s");
	dmamap_obj_disown(&a->obj);
	free_maps(a);
	iova_bury(a);
}

DMAMAP_API void dmamap_iova_destroy(struct dmamap_iova *a)
{
	/* a pointer destroyed already is compared, never read through */
	if (a && !dmamap_obj_owned(a, "dmamap_iova_destroy", DM_OBJ_IOVA, NULL, 0))
		return;
	dmamap_iova_destroy_in(a, NULL);
}

/* First fit of @count granules aligned to 2^@lg, growing the bitmaps as needed; NOT_FOUND if none. Lock held. */
static unsigned long search_locked(struct dmamap_iova *a, unsigned long count, unsigned lg)
{
	unsigned long first;

	if (count > a->bits)
		return NOT_FOUND;
	/*
	 * One granule: often in the word of the search start (a free below it
	 * just moved it there), else in the next words of its node, which the
	 * word codes tell (code 0: no free granule) 16 at a time, else in the
	 * next nodes of its group, which their classes tell 8 at a time; the
	 * start moves past the wholly occupied ones.
	 */
	if (count == 1 && a->low < a->ext) {
		unsigned long w = a->low / WBITS, end = DM_MIN((w | 63) + 1, a->nwords), node;
		u64 f = ~occ_word(a, w) & (~0ULL << (a->low % WBITS));

		if (f) {
			a->low = w * WBITS + ctz64(f);
			return a->low;
		}
		for (unsigned long x = w + 1; x < end; x = (x / 16 + 1) * 16) {
			u64 m = nib_ge(a->nib[x / 16], 1) & (~0ULL << (4 * (x % 16)));

			if (m && x / 16 * 16 + ctz64(m) / 4 < end) {
				w = x / 16 * 16 + ctz64(m) / 4;
				a->low = w * WBITS + ctz64(~occ_word(a, w));
				return a->low;
			}
			a->low = DM_MIN((x / 16 + 1) * 16 * WBITS, a->ext);
		}
		settle(a);
		node = w >> FAN_SHIFT;
		for (unsigned long q = (node + 1) & ~7UL; q < DM_MIN((node | 63) + 1, a->nnodes[1]); q += 8) {
			u64 m = byte_ge(load8(a, 1, q), 1) & (q <= node ? ~0ULL << (8 * (node + 1 - q)) : ~0ULL);

			if (m) {
				node = q + ctz64(m) / 8;
				if (node >= a->nnodes[1])
					break;
				for (unsigned long x = node * 4; x < node * 4 + 4; x++) {
					m = nib_ge(a->nib[x], 1);
					w = x * 16 + ctz64(m | (1ULL << 63)) / 4;
					if (m && w < a->nwords) {
						a->low = w * WBITS + ctz64(~occ_word(a, w));
						return a->low;
					}
				}
				break;
			}
		}
	}
	settle(a);
	for (;;) {
		first = lg >= ceil_log2(count) ? find_natural(a, count, ceil_log2(count), a->low)
					       : find_capped(a, count, lg);
		/* one granule goes to the lowest free one: the search start moves up to it */
		if (first != NOT_FOUND && count == 1)
			a->low = first;
		if (first != NOT_FOUND || grow(a))
			return first;
	}
}

/*
 * A miss of thread cache @self (caches on) found @first: the first fit
 * outside the bitmap lines where other threads' misses last placed a range,
 * or @first when there is none. A thread's hits and frees write the bitmap
 * words of its own ranges; kept a line apart, two threads' ranges never make
 * their cores pass a line back and forth. Lock held.
 */
static unsigned long apart_locked(struct dmamap_iova *a, struct iova_tcache *self, unsigned long first,
				  unsigned long count, unsigned lg)
{
	unsigned long at = first;
	unsigned k = ceil_log2(count);

	/* a capped alignment searches differently; such ranges are rare in a cache */
	if ((a->caches != self || self->next) && lg >= k) {
		settle(a);
		for (;;) {
			unsigned long line = at >> LINE_SHIFT, next = (line + 1) << LINE_SHIFT;
			const struct iova_tcache *d = a->caches;

			while (d && (d == self || d->home != line))
				d = d->next;
			if (!d)
				break;
			at = next < a->ext ? find_natural(a, count, k, next) : NOT_FOUND;
			if (at == NOT_FOUND) {
				at = first;
				break;
			}
		}
	}
	self->home = at >> LINE_SHIFT;
	return at;
}

/* dmamap_iova_alloc() past the caches; @c: the thread's cache when caches are on and the size is cached. */
static dma_addr_t alloc_locked(struct dmamap_iova *a, unsigned long count, size_t size, struct iova_tcache *c)
{
	unsigned lg = align_order_for(a, size);
	unsigned long first;

	iova_lock(a);
	first = search_locked(a, count, lg);
	if (first == NOT_FOUND && a->caching && tc_flush_all(a))
		first = search_locked(a, count, lg);
	if (first == NOT_FOUND) {
		/* Not a misuse: the caller sees the error and the stats count it. */
		a->failures++;
		iova_unlock(a);
		return DMA_MAPPING_ERROR;
	}
	if (c && a->caching)
		first = apart_locked(a, c, first, count, lg);
	mark_locked(a, first, count);
	iova_unlock(a);

	return a->base + ((dma_addr_t)first << a->gshift);
}

DMAMAP_API dma_addr_t dmamap_iova_alloc(struct dmamap_iova *a, size_t size)
{
	struct iova_tcache *c = NULL;
	unsigned long count, first;

	if (!a || iova_dead(a, "dmamap_iova_alloc") || size == 0)
		return DMA_MAPPING_ERROR;
	count = granules_for(a, size);
	if (count <= TC_MAX && __atomic_load_n(&a->caching, __ATOMIC_RELAXED)) {
		c = tc_get(a, true);
		first = c ? tc_alloc(a, c, count) : NOT_FOUND;
		if (first != NOT_FOUND)
			return a->base + ((dma_addr_t)first << a->gshift);
	}
	return alloc_locked(a, count, size, c);
}

/*
 * Why [addr, addr + size) is not exactly one live allocation, or NULL when it
 * is. first and count receive its granules, len the length of the allocation
 * found at addr (0 if none). Lock held.
 */
static const char *free_refusal(const struct dmamap_iova *a, dma_addr_t addr, size_t size, unsigned long *first,
				unsigned long *count, unsigned long *len)
{
	u64 off = addr - a->base;

	*count = granules_for(a, size);
	*first = (unsigned long)(off >> a->gshift);
	*len = 0;
	if (addr < a->base || off >= (u64)a->size)
		return "outside the space";
	if (off & (((u64)1 << a->gshift) - 1))
		return "not granule aligned";
	if (*count == 0)
		return "zero size";
	if (*first < a->ext && live_exact(a, *first, *count))
		return NULL;
	if (*first >= a->ext || !bit_test(a->head, *first))
		return *first < a->ext && bit_test(a->used, *first) ? "inside an allocation, not at its start"
								      : "not allocated";
	if (!bit_test(a->used, *first))
		return "not allocated (freed, held in a cache)";
	if (!is_exact(a, *first, *count)) {
		*len = allocation_length(a, *first);
		return "size does not match the allocation";
	}
	return NULL;
}

bool dmamap_iova_owns(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	unsigned long first, count, len;
	const char *why;

	iova_lock(a);
	why = free_refusal(a, addr, size, &first, &count, &len);
	iova_unlock(a);
	return why == NULL;
}

/* dmamap_iova_free() past the caches: the free, or its refusal and report. */
static void free_locked(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	unsigned long first, count, len = 0;
	const char *why;

	iova_lock(a);
	why = free_refusal(a, addr, size, &first, &count, &len);
	if (why) {
		a->refused_frees++;
		iova_unlock(a);
		if (len)
			dmamap_report(NULL, DMAMAP_REPORT_IOVA_MISUSE, NULL, NULL, 0,
				      "iova free of %#llx+%#zx refused: %s (it has %lu granule%s, the free names %lu)",
				      (unsigned long long)addr, size, why, len, len == 1 ? "" : "s", count);
		else
			dmamap_report(NULL, DMAMAP_REPORT_IOVA_MISUSE, NULL, NULL, 0,
				      "iova free of %#llx+%#zx refused: %s (space %#llx+%#zx)",
				      (unsigned long long)addr, size, why, (unsigned long long)a->base, a->size);
		return;
	}

	release_locked(a, first, count);
	iova_unlock(a);
}

DMAMAP_API void dmamap_iova_free(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	if (!a) {
		dmamap_report(NULL, DMAMAP_REPORT_IOVA_MISUSE, NULL, NULL, 0,
			      "iova free of %#llx+%#zx on a NULL allocator", (unsigned long long)addr, size);
		return;
	}
	if (iova_dead(a, "dmamap_iova_free"))
		return;
	if (__atomic_load_n(&a->caching, __ATOMIC_RELAXED) && tc_free(a, addr, size))
		return;
	free_locked(a, addr, size);
}

DMAMAP_API int dmamap_iova_set_max_align(struct dmamap_iova *a, unsigned order)
{
	if (!a || iova_dead(a, "dmamap_iova_set_max_align") || order > 30)
		return -EINVAL;
	iova_lock(a);
	__atomic_store_n(&a->max_align_order, order, __ATOMIC_RELAXED);
	/* cached ranges were placed under the old cap */
	if (a->caching)
		tc_flush_all(a);
	iova_unlock(a);
	return 0;
}

DMAMAP_API int dmamap_iova_set_cache(struct dmamap_iova *a, bool on)
{
	int err = 0;

	if (!a || iova_dead(a, "dmamap_iova_set_cache") || (on && a->bits > (1UL << 31) * 2))
		return -EINVAL;
	iova_lock(a);
	if (on && a->ext < a->bits)
		err = grow_whole(a);
	if (!err) {
		if (!on)
			tc_flush_all(a);
		__atomic_store_n(&a->caching, on, __ATOMIC_RELEASE);
	}
	iova_unlock(a);
	return err;
}

DMAMAP_API void dmamap_iova_stats(struct dmamap_iova *a, struct dmamap_iova_stats *st)
{
	size_t cache_bytes;

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!a || iova_dead(a, "dmamap_iova_stats"))
		return;
	iova_lock(a);
	tc_totals(a, &st->cached, &st->cached_granules, &cache_bytes);
	st->base = a->base;
	st->size = a->size;
	st->order = a->order;
	st->granules = a->bits;
	st->used_granules = a->used_granules - st->cached_granules;
	st->allocations = a->allocations - st->cached;
	st->failures = a->failures;
	st->refused_frees = a->refused_frees;
	st->metadata_bytes = a->meta_bytes + cache_bytes;
	st->tracked_granules = a->ext;
	st->grows = a->grows;
	st->grow_failures = a->grow_failures;
	st->metadata_bits_per_page = (double)st->metadata_bytes * 8 / ((double)a->bits * (double)(1UL << a->order));
	iova_unlock(a);
}

DMAMAP_API bool dmamap_iova_is_allocated(struct dmamap_iova *a, dma_addr_t addr)
{
	bool ret;
	unsigned long g;

	if (!a || iova_dead(a, "dmamap_iova_is_allocated") || addr < a->base || addr - a->base >= (u64)a->size)
		return false;
	g = (unsigned long)((addr - a->base) >> a->gshift);
	iova_lock(a);
	ret = g < a->ext && (bit_test(a->used, g) || bit_test(a->head, g));
	/* a cached range is free to its users: its head's used bit is clear */
	if (ret && a->caching) {
		/* cached ranges have at most TC_MAX granules: look that far back for the head */
		unsigned long h = g;

		while (h > 0 && g - h < TC_MAX - 1 && !bit_test(a->head, h))
			h--;
		ret = !bit_test(a->head, h) || bit_test(a->used, h);
	}
	iova_unlock(a);
	return ret;
}

void dmamap_iova_fail_next_grows(struct dmamap_iova *a, unsigned long n)
{
	iova_lock(a);
	a->fail_grow_next = n;
	iova_unlock(a);
}

int dmamap_iova_grow_all(struct dmamap_iova *a)
{
	int err = 0;

	iova_lock(a);
	if (a->ext < a->bits)
		err = resize(a, a->bits);
	iova_unlock(a);
	return err;
}

/* The first free granule below @end, or @end. */
static unsigned long first_free_below(const struct dmamap_iova *a, unsigned long end)
{
	for (unsigned long i = 0; i < end; i += WBITS) {
		u64 f = ~occ_word(a, i / WBITS);

		if (f)
			return DM_MIN(i + ctz64(f), end);
	}
	return end;
}

unsigned long dmamap_iova_check_summaries(struct dmamap_iova *a)
{
	unsigned long stale = 0;

	iova_lock(a);
	settle(a);
	/* the search start: nothing below it is free */
	stale += a->low > a->bits || first_free_below(a, DM_MIN(a->low, a->ext)) < DM_MIN(a->low, a->ext);
	for (unsigned long w = 0; w < a->nwords; w++)
		stale += nib_get(a, w) != word_code(occ_word(a, w));
	/* the first level's hints: no node below one has its class */
	for (unsigned c = 1; c < L1_CLASSES; c++)
		for (unsigned long i = 0; i < DM_MIN((unsigned long)a->low1[c], a->nnodes[1]); i++)
			stale += a->cls[1][i] >= c;
	for (unsigned k = 1; k <= a->nlev; k++)
		for (unsigned long i = 0; i < a->nnodes[k]; i++) {
			struct node_state st = compute_node(a, k, i);

			stale += st.cls != a->cls[k][i] || st.fit != val_get(a->fx, k, i) ||
				 st.pre != val_get(a->pre, k, i);
		}
	iova_unlock(a);
	return stale;
}
