/* SPDX-License-Identifier: MIT */
/*
 * The CPU cache model and its maintenance hooks.
 *
 * The CPU sees RAM through its linear map (page_address()), a plane of its own:
 * stores land in the (simulated) inner cache and reach RAM only through
 * maintenance. The device reads and writes RAM itself. An optional outer (L2)
 * level sits between the two. State is kept per cache line and level:
 * invalid, clean or dirty. A dirty line is one whose CPU-view bytes differ
 * from what was last filled or written back, so a store is noticed without
 * being intercepted, and cleaning a clean line never overwrites newer data
 * below it.
 *
 * Maintenance goes through a replaceable table of hooks per machine, with the
 * kernel's names and ARMv7 semantics by default:
 *   dmac_map_area(kaddr, size, dir)    cpu->dev, inner: FROM_DEVICE invalidates
 *                                      (partial edge lines are cleaned and
 *                                      invalidated), anything else cleans
 *   dmac_unmap_area(kaddr, size, dir)  dev->cpu, inner: invalidates unless TO_DEVICE
 *   dmac_flush_range(start, end)       inner clean + invalidate
 *   outer_clean_range/outer_inv_range/outer_flush_range(pstart, pend)
 *                                      the same on the outer level, by physical
 *                                      address; no-ops without an outer cache
 * The kernel's order is inner then outer for cpu->dev, outer then inner for
 * dev->cpu; with an outer cache the wrong order is observable.
 *
 * With speculative_prefetch, every library call (and every hook) is a point
 * where the CPU may pull invalidated lines back into the cache from the level
 * below, as a prefetching ARMv7 core does.
 */
#ifndef DMAMAP_CACHE_H
#define DMAMAP_CACHE_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

enum dmamap_cache_level {
	DMAMAP_CACHE_INNER = 0,
	DMAMAP_CACHE_OUTER = 1,
	DMAMAP_CACHE_LEVELS
};

enum dmamap_line_state {
	DMAMAP_LINE_INVALID = 0,
	DMAMAP_LINE_CLEAN,
	DMAMAP_LINE_DIRTY,
};

/*
 * The maintenance hooks of one machine. Every member must be set; the machine
 * is passed first so that one table can serve several machines. Inner hooks
 * take linear-map addresses, outer hooks physical [start, end) ranges.
 */
struct dmamap_cache_ops {
	void (*dmac_map_area)(struct dmamap_machine *m, const void *kaddr, size_t size, int dir);
	void (*dmac_unmap_area)(struct dmamap_machine *m, const void *kaddr, size_t size, int dir);
	void (*dmac_flush_range)(struct dmamap_machine *m, const void *start, const void *end);
	void (*outer_clean_range)(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end);
	void (*outer_inv_range)(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end);
	void (*outer_flush_range)(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end);
};

/* The default (ARMv7 + L2x0-style) hooks, built from the primitives below. */
DMAMAP_API extern const struct dmamap_cache_ops dmamap_default_cache_ops;

/**
 * dmamap_cache_set_ops() - install a hook table on @m
 * @m: the machine
 * @ops: the table, or NULL for dmamap_default_cache_ops; must stay valid while
 *       installed (the caller owns it)
 *
 * Return: 0, or -EINVAL when a member of @ops is NULL (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_cache_set_ops(struct dmamap_machine *m, const struct dmamap_cache_ops *ops);

/** dmamap_cache_get_ops() - the table installed on @m. */
DMAMAP_API const struct dmamap_cache_ops *dmamap_cache_get_ops(struct dmamap_machine *m);

/*
 * The kernel's calls, through the hook table of the machine that owns the
 * address (inner) or of the current machine (outer). An inner range that is
 * not wholly in one machine's linear map is reported and ignored.
 */
/** dmac_map_area() - cpu->dev inner maintenance of a linear-map range, through its machine's hooks. */
DMAMAP_API void dmac_map_area(const void *kaddr, size_t size, int dir);
/** dmac_unmap_area() - dev->cpu inner maintenance of a linear-map range, through its machine's hooks. */
DMAMAP_API void dmac_unmap_area(const void *kaddr, size_t size, int dir);
/** dmac_flush_range() - clean and invalidate [start, end) of the linear map at the inner level. */
DMAMAP_API void dmac_flush_range(const void *start, const void *end);
/** outer_clean_range() - clean physical [start, end) at the current machine's outer level. */
DMAMAP_API void outer_clean_range(phys_addr_t start, phys_addr_t end);
/** outer_inv_range() - invalidate physical [start, end) at the outer level (partial edge lines are cleaned first). */
DMAMAP_API void outer_inv_range(phys_addr_t start, phys_addr_t end);
/** outer_flush_range() - clean and invalidate physical [start, end) at the outer level. */
DMAMAP_API void outer_flush_range(phys_addr_t start, phys_addr_t end);

/*
 * Primitives: one level, a physical range, whole lines (a range is widened to
 * the lines it touches). They neither speculate nor go through the hook
 * table: they are what hooks are built from. A range not wholly in RAM is
 * reported (DMAMAP_REPORT_BAD_ADDRESS) and ignored; a level the machine does
 * not have makes them no-ops.
 *   clean: write dirty lines down one level; they stay, clean
 *   inv:   drop lines, dirty data included; the CPU will refetch from below
 *   flush: clean, then inv
 */
/** dmamap_cache_clean() - write the dirty lines of [start, start + size) at @lvl down one level. */
DMAMAP_API void dmamap_cache_clean(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start, size_t size);
/** dmamap_cache_inv() - drop the lines of [start, start + size) at @lvl, dirty data included. */
DMAMAP_API void dmamap_cache_inv(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start, size_t size);
/** dmamap_cache_flush() - dmamap_cache_clean() then dmamap_cache_inv() of the range at @lvl. */
DMAMAP_API void dmamap_cache_flush(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start, size_t size);

/**
 * dmamap_cache_line_state() - the state of the line holding @phys at @lvl
 * @m: the machine
 * @lvl: the level
 * @phys: any physical address in RAM
 *
 * Return: the state; DMAMAP_LINE_INVALID for a level the machine lacks or an
 * address outside RAM.
 */
DMAMAP_API enum dmamap_line_state dmamap_cache_line_state(struct dmamap_machine *m, enum dmamap_cache_level lvl,
							  phys_addr_t phys);

/**
 * dmamap_cache_speculate() - a point where the CPU may prefetch
 * @m: the machine
 *
 * With speculative_prefetch, each invalidated line still tracked is pulled
 * back into the cache (from the outer level when it holds the line, else from
 * RAM) with the machine's prefetch rate. Every DMA API call and every
 * default hook does this on entry; a test may call it to model the CPU
 * running between two events. No-op without speculative_prefetch.
 */
DMAMAP_API void dmamap_cache_speculate(struct dmamap_machine *m);

/**
 * dmamap_cache_set_prefetch_rate() - how eagerly speculation pulls lines in
 * @m: the machine
 * @permille: the chance, per tracked line and speculation point, in 1/1000;
 *            1000 (the default) pulls every line at every point, the
 *            deterministic worst case
 *
 * Return: 0, or -EINVAL above 1000 (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_cache_set_prefetch_rate(struct dmamap_machine *m, unsigned permille);

/**
 * dmamap_cache_set_line_by_line() - work one line at a time, for cross-checking
 * @m: the machine
 * @on: true to run every maintenance operation, speculation and device
 *      write one cache line at a time through the model's reference code;
 *      false (the default) to work a word of line bits and a run of bytes
 *      at a time
 *
 * Both give the same bytes, line states and counters; line by line is
 * slower by an order of magnitude. A debugging aid for the model itself.
 * Return: 0, or -EINVAL for a NULL machine.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_cache_set_line_by_line(struct dmamap_machine *m, bool on);

/* Counters of one level (lines are of the machine's line size). */
struct dmamap_cache_level_stats {
	unsigned long clean_ops;           /* clean primitives run */
	unsigned long inv_ops;             /* invalidate primitives run */
	unsigned long flush_ops;           /* flush primitives run */
	unsigned long lines_cleaned;       /* lines covered by clean (and flush) */
	unsigned long lines_invalidated;   /* lines covered by invalidate (and flush) */
	unsigned long lines_written_back;  /* dirty lines written to the level below */
	unsigned long dirty_lines_discarded; /* dirty lines dropped by an invalidate */
};

struct dmamap_cache_stats {
	struct dmamap_cache_level_stats level[DMAMAP_CACHE_LEVELS];
	unsigned long speculation_points;  /* dmamap_cache_speculate() calls that could act (threads
					    * speculating at the same instant may count once) */
	unsigned long lines_prefetched;    /* lines pulled in by speculation */
	unsigned long device_bytes_read;   /* bytes the device read from memory */
	unsigned long device_bytes_written;
};

/**
 * dmamap_cache_get_stats() - read @m's cache counters
 * @m: the machine
 * @st: caller-owned, overwritten
 */
DMAMAP_API void dmamap_cache_get_stats(struct dmamap_machine *m, struct dmamap_cache_stats *st);

/** dmamap_cache_reset_stats() - zero @m's cache counters. */
DMAMAP_API void dmamap_cache_reset_stats(struct dmamap_machine *m);

DMAMAP_END_DECLS

#endif /* DMAMAP_CACHE_H */
