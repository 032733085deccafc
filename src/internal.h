/* SPDX-License-Identifier: MIT */
/*
 * What the modules of libdmamap share. Never installed.
 *
 * Modules, from the ground up (each may use only those before it):
 * log, host (registry, fault injection, host allocations), machine,
 * locking (the kernel's locks and completions, each thread's atomic
 * context), clock (ktime, jiffies, delays and sleeps on the host's clock),
 * page_alloc, cache, kmalloc (slab.c), pgtable/vma, vmalloc (whose lookups
 * kmalloc, scatterlist and the dma core ask about addresses), iova, device,
 * iommu, debug, dma core (with dma-api.c, the Linux 6.x entry points),
 * devres, arm ops, dmabounce, iommu mapper, platform,
 * check (the invariant checker and fault sweep, which ask every layer),
 * testing (the test kit of <dmamap/testing.h>, over the public API).
 */
#ifndef DMAMAP_INTERNAL_H
#define DMAMAP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

#include <dmamap/dmamap.h>

#include "track.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define DM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define BITS_PER_LONG (8 * sizeof(long))
#define DM_ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define DM_ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* ------------------------------------------------------------------ log */

struct dmamap_logger {
	pthread_mutex_t lock;           /* guards fn/ctx/level/strict */
	dmamap_log_handler_t fn;        /* NULL: default stderr handler */
	void *ctx;
	int level;
	bool strict;
	atomic_ulong reports;
	atomic_ulong by_kind[DMAMAP_REPORT_KIND_NR];
};

/*
 * The DMA API call this thread is in: the outermost one, set by the core's
 * wrappers (and the bus side) on entry. Every report raised below it, in an
 * ops set, the cache, the IOMMU or a pool, names that call's file:line; a
 * call made from within another (a pool growing through
 * dma_alloc_coherent(), dmabounce taking a safe buffer) is *nested*.
 */
struct dm_call {
	const char *file;              /* the outermost call's location */
	int line;
	int depth;                     /* calls this thread is in; 0: none */
	unsigned long reports;         /* reports raised on this thread, ever (see dm_reports_now()) */
	const char *free_call;         /* the driver's free an ops free serves (see dm_free_call()), or NULL */
};

#if defined(__PIC__) || defined(__pic__)
#define DM_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define DM_TLS_MODEL
#endif

extern _Thread_local struct dm_call dmamap_call_now DM_TLS_MODEL;

static inline int dm_call_begin(const char *file, int line)
{
	if (!dmamap_call_now.depth++) {
		dmamap_call_now.file = file;
		dmamap_call_now.line = line;
	}
	return 0;
}

static inline void dm_call_end(int *unused)
{
	(void)unused;
	dmamap_call_now.depth--;
}

/* Open a call context for the rest of the enclosing block, at @f:@l. */
#define DM_CALL_AT(f, l) int dm_call_ __attribute__((cleanup(dm_call_end), unused)) = dm_call_begin((f), (l))
/* The same at the caller's `file` and `line`, which must be in scope. */
#define DM_CALL() DM_CALL_AT(file, line)

/* Whether this thread is inside a DMA API call. */
static inline bool dm_in_call(void)
{
	return dmamap_call_now.depth > 0;
}

/*
 * The reports this thread has raised so far. An ops set refuses a release
 * (free, unmap) by reporting it and doing nothing: the core compares this
 * count around the op to learn whether the op released anything.
 */
static inline unsigned long dm_reports_now(void)
{
	return dmamap_call_now.reports;
}

/*
 * The name an ops set's free gives the call in its refusals: the driver's
 * call the core is serving (dma_free_attrs, dma_free_pages,
 * dma_free_noncoherent), whatever ops set it reaches, or @op when the ops
 * free is reached some other way.
 */
static inline const char *dm_free_call(const char *op)
{
	return dmamap_call_now.free_call ? dmamap_call_now.free_call : op;
}

/*
 * Set this thread's call context aside, for reports of what a driver left
 * that name the driver's own lines (a device's release runs in a context of
 * no line); dm_call_resume() puts it back.
 */
static inline int dm_call_suspend(void)
{
	int depth = dmamap_call_now.depth;

	dmamap_call_now.depth = 0;
	return depth;
}

static inline void dm_call_resume(int depth)
{
	dmamap_call_now.depth = depth;
}

/* Whether the call this thread is in was made from within another one (by the library itself). */
static inline bool dm_call_nested(void)
{
	return dmamap_call_now.depth > 1;
}

/* What a report says about addresses and mappings (struct dmamap_log_record's details). */
struct dm_detail {
	dma_addr_t bus;
	size_t size;
	int dir;
	const char *map_file;
	int map_line;
	dma_addr_t map_bus;
	size_t map_size;
	int map_dir;
};

void dmamap_logger_init(struct dmamap_logger *lg);
void dmamap_logger_fini(struct dmamap_logger *lg);

/*
 * Deliver a message. @m may be NULL (process-wide logger). A kind other than
 * DMAMAP_REPORT_NONE makes it a report: counted on @m, always delivered,
 * abort() in strict mode.
 */
/*
 * vsnprintf() with the kernel's printk formats (%pad, %pe, %pM, %*ph...,
 * printk.c): what drivers' messages are formatted with.
 */
int dmamap_kernel_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
/* @fmt formatted as printk does into host memory the caller frees, *@len its bytes with the NUL; NULL if none. */
char *dmamap_kernel_vasprintf_host(size_t *len, const char *fmt, va_list ap);

void dmamap_logv(struct dmamap_machine *m, int level, enum dmamap_report_kind kind, const char *devname,
		 const char *file, int line, const char *fmt, va_list ap) DMAMAP_PRINTF(7, 0);
void dmamap_logv_detail(struct dmamap_machine *m, int level, enum dmamap_report_kind kind, const char *devname,
			const char *file, int line, const struct dm_detail *d, const char *fmt, va_list ap)
	DMAMAP_PRINTF(8, 0);
/* A report with details, at the current call's file:line. */
void dmamap_report_detail(struct dmamap_machine *m, enum dmamap_report_kind kind, const char *devname,
			  const struct dm_detail *d, const char *fmt, ...) DMAMAP_PRINTF(5, 6);
void dmamap_log(struct dmamap_machine *m, int level, const char *devname, const char *fmt, ...) DMAMAP_PRINTF(4, 5);
void dmamap_report(struct dmamap_machine *m, enum dmamap_report_kind kind, const char *devname, const char *file,
		   int line, const char *fmt, ...) DMAMAP_PRINTF(6, 7);

/* struct device.dmamap.magic of an initialised device */
#define DM_DEVICE_MAGIC 0x646d6d6170646576UL

/* ------------------------------------------------------------- machine */

struct dmamap_rng {
	uint64_t state;
};

static inline uint64_t dmamap_rng_next(struct dmamap_rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct dmamap_fault_state {
	pthread_mutex_t lock;
	struct dmamap_rng rng;
	unsigned long attempts[DMAMAP_FAULT_SITE_NR];
	unsigned long injected[DMAMAP_FAULT_SITE_NR];
	unsigned long fail_at[DMAMAP_FAULT_SITE_NR]; /* attempt number to fail; 0 none */
	unsigned long ppm[DMAMAP_FAULT_SITE_NR];
	atomic_bool armed;                           /* any site armed: fast path skip */
	atomic_ulong absorbed;                       /* failures the library recovered from by design */
};

/*
 * A failed allocation the library recovered from by design (dmabounce's pool
 * giving way to a coherent allocation): a fault sweep does not hold it
 * against the caller.
 */
void dm_fault_absorbed(struct dmamap_machine *m);

/* ---------------------------------------------------------- page_alloc */

#define DM_NO_PAGE 0xffffffffu

struct dmamap_zone_state {
	unsigned long start, end;                    /* page indexes [start, end) */
	unsigned int free_head[MAX_ORDER];
	unsigned int free_tail[MAX_ORDER];
	unsigned long nr_free[MAX_ORDER];            /* free blocks, the unseeded ones included */
	unsigned long free_pages;
	/*
	 * [start, seed_end) is still as the zone was created: free blocks of
	 * the zone's canonical decomposition into aligned power-of-two blocks,
	 * not yet put on the free lists (they logically sit at the lists'
	 * tails, highest address first); seed_nr counts them per order.
	 */
	unsigned long seed_end;
	unsigned long seed_nr[MAX_ORDER];
};

/* struct pages are set up DM_PAGE_CHUNK at a time, on first use */
#define DM_PAGE_CHUNK_SHIFT 6
#define DM_PAGE_CHUNK (1UL << DM_PAGE_CHUNK_SHIFT)

struct dmamap_page_alloc {
	pthread_spinlock_t lock;
	struct page *pages;                          /* one per page of RAM; zero until its chunk is ready */
	unsigned long nr_pages;
	unsigned long *ready;                        /* bitmap of chunks whose struct pages are set up */
	unsigned long nr_ready;                      /* chunks set up */
	struct dmamap_zone_state zones[DMAMAP_ZONE_NR];
	unsigned long allocations, frees, failures, injected_failures, refused_frees;
	unsigned long allocated_pages;               /* pages in allocated blocks now */
};

/* --------------------------------------------------------------- cache */

struct dmamap_spec_range {
	unsigned long first, last;                   /* line indexes, inclusive */
};

/* The vector instructions the cache model's range passes use: the best the host has. */
enum dmamap_cache_vec {
	DMAMAP_VEC_NONE,   /* portable passes: memcmp() and memcpy() */
	DMAMAP_VEC_AVX2,
	DMAMAP_VEC_AVX512,
};

struct dmamap_cache {
	pthread_mutex_t lock;                        /* all line state and the planes' coherence */
	const struct dmamap_cache_ops *_Atomic ops;  /* hook table */
	unsigned long nr_lines;
	/* per line bitmaps */
	unsigned long *inner_nonres;                 /* line not in the inner cache: cpu view mirrors below */
	unsigned long *outer_res;                    /* line held by the outer cache */
	unsigned long *outer_dirty;                  /* outer copy newer than RAM */
	unsigned long *outer_stale;                  /* RAM maybe newer than the outer copy */
	unsigned long *img;                          /* the line's image is in the shadow plane, not below */
	unsigned long *alias;                        /* the line's page has an uncached host alias */
	u32 *alias_pages;                            /* per page: its uncached host aliases */
	bool by_line;                                /* debug: every operation one line at a time */
	bool memcheck;                               /* running under memcheck (asked once, at init) */
	enum dmamap_cache_vec vec;                   /* the vector code range passes may use (cache.c) */
	unsigned long zero_first, zero_end;          /* lines known zero on every plane (a clear in progress) */
	/* speculation: the invalidated lines not yet pulled back (see cache.c) */
	struct dmamap_rng rng;
	unsigned prefetch_permille;
	unsigned long *spec_pending;                 /* per line: waiting in spec_runs; lazily made */
	struct dmamap_spec_range *spec_runs;         /* runs of pending lines, oldest first */
	size_t spec_nr, spec_cap;                    /* spec_nr: written under the lock, read without it too */
	unsigned long spec_points;                   /* stats.speculation_points, counted without the lock */
	struct dmamap_cache_stats stats;
};

/* ------------------------------------------------------------ pgtable */

struct dmamap_vmregion {
	unsigned long start, end;                    /* host addresses [start, end) */
	void *priv;                                  /* the owner's (pages array, etc.) */
	const void *caller;                          /* who allocated it, for leak reports */
	struct dmamap_vmregion *next;
};

/* An ARM section (1 MiB): the consistent region's alignment, and the most its regions align to. */
#define DM_SECTION_SHIFT 20
#define DM_SECTION_SIZE ((size_t)1 << DM_SECTION_SHIFT)

struct dmamap_consistent {
	pthread_mutex_t lock;
	u8 *base;                                    /* host range reserved for the region (m->cons_window) */
	size_t size;
	bool closing;                                /* the machine is going: its reservation goes whole */
	unsigned long *pte_pfn;                      /* per page: pfn */
	unsigned char *pte_prot;                     /* per page: pgprot low byte (memtype|flags), 0 = none */
	struct dmamap_vmregion *regions;             /* sorted by address */
	size_t used;
	unsigned long nr_regions, failures;
};

/* ------------------------------------------------------ machine objects */

/*
 * What a machine knows of the objects made on it that are not plain memory
 * (dma_pool, IOMMU domains and mappings, user vmas): each embeds a struct
 * dmamap_obj, registered at creation, unregistered when its owner frees it.
 * The machine calls back through the ops: when a device is released (the
 * object drops what it holds for that device), when the machine is destroyed
 * (the object reports itself as a leak and gives back what it holds of the
 * machine; its machine pointer then becomes NULL: a dead object, which every
 * later call refuses with a report, and whose free only frees its own host
 * memory), and for the invariant checker and the census of the fault sweep.
 */
struct dmamap_obj;
struct dm_check;
struct dm_census;

struct dmamap_obj_ops {
	const char *name;
	void (*device_gone)(struct dmamap_obj *o, struct device *dev);   /* optional; objs_lock held */
	void (*machine_gone)(struct dmamap_obj *o);                      /* required; no machine lock held */
	void (*check)(struct dmamap_obj *o, struct dm_check *c);         /* optional; objs_lock held */
	void (*census)(struct dmamap_obj *o, struct dm_census *cs);      /* optional; objs_lock held */
	/*
	 * Give back what the object keeps only as a cache (a pool's idle
	 * pages...), as under memory pressure: the fault sweep does so before
	 * each census, so that a cache that grew is not taken for a leak.
	 * Optional; objs_lock held.
	 */
	void (*shrink)(struct dmamap_obj *o);
};

struct dmamap_obj {
	const struct dmamap_obj_ops *ops;
	struct dmamap_machine *machine;              /* NULL once the machine is destroyed */
	struct dmamap_obj *prev, *next;
	const void *handle;                          /* what its owner holds it by, while owned */
	const char *kind;                            /* what it is, as owned() is asked for it */
	struct dmamap_obj *owned_next;               /* in the process-wide table of owned objects */
};

void dmamap_obj_add(struct dmamap_machine *m, struct dmamap_obj *o, const struct dmamap_obj_ops *ops);
/* Unregister @o (nothing for a dead object). */
void dmamap_obj_del(struct dmamap_obj *o);
/* Call @fn on every registered object of @m, newest first, with objs_lock held (@fn must not add or delete). */
void dmamap_obj_for_each(struct dmamap_machine *m, void (*fn)(struct dmamap_obj *o, void *arg), void *arg);

/* Whether the machine @o was made on has been destroyed. */
static inline bool dmamap_obj_dead(const struct dmamap_obj *o)
{
	return __atomic_load_n(&o->machine, __ATOMIC_ACQUIRE) == NULL;
}

/* Report (process-wide) a call on an object whose machine is gone; the call is refused. */
void dmamap_obj_dead_report(const struct dmamap_obj *o, const char *what);

/*
 * Objects their owner holds: every object the library hands out (an IOMMU
 * mapping or domain, a dma_pool, a vma) is entered, by the pointer its
 * owner holds, from its creation until its free call frees its host
 * memory, whatever becomes of its machine meanwhile. A free (or another
 * call that may come after one) first asks whether the pointer it was given
 * still names such an object, comparing pointers only, so that a second
 * free -- a machine destroyed in between or not -- is a report, not a read
 * of freed memory. Process-wide, under its own lock; a thread asking again
 * for the handle it found last takes no lock while nothing was disowned.
 * @kind: what the object is (the DM_OBJ_* names); an owned object of
 * another kind at the same address (the memory reused) does not count.
 */
#define DM_OBJ_DOMAIN "IOMMU domain"
#define DM_OBJ_MAPPING "IOMMU mapping"
#define DM_OBJ_POOL "dma_pool"
#define DM_OBJ_VMA "vma from dmamap_vma_create"
#define DM_OBJ_IOVA "IOVA allocator"
void dmamap_obj_own(struct dmamap_obj *o, const void *handle, const char *kind);
/* Take @o out: its host memory is about to be freed. */
void dmamap_obj_disown(struct dmamap_obj *o);
/*
 * Whether @handle names an owned object of kind @name. If not, @what of it
 * (at @file:@line, if known) is reported process-wide as naming no live
 * @name (DMAMAP_REPORT_BAD_INPUT) and must do nothing.
 */
bool dmamap_obj_owned(const void *handle, const char *what, const char *name, const char *file, int line);

/* ---------------------------------------------------- invariants, census */

/* The invariant checker's context: each module checks its own state and says what is wrong. */
struct dm_check {
	struct dmamap_machine *m;
	struct dmamap_check_result *res;
};

void dm_check_fail(struct dm_check *c, enum dmamap_check_area area, const char *fmt, ...) DMAMAP_PRINTF(3, 4);

/* Counts that every failed operation must leave as it found them (the fault sweep). */
enum dm_census_item {
	DM_CENSUS_PAGES,             /* pages in allocated blocks, but kmalloc's slabs (a cache) */
	DM_CENSUS_KMALLOC,           /* live kmalloc objects */
	DM_CENSUS_CONSISTENT,        /* consistent-region mappings */
	DM_CENSUS_CONSISTENT_BYTES,
	DM_CENSUS_OBJECTS,           /* registered objects (pools, domains, mappings, vmas) */
	DM_CENSUS_DEVICES,
	DM_CENSUS_ATOMIC_POOL,       /* atomic-pool pages in use */
	DM_CENSUS_CMA,               /* contiguous-area pages in use */
	DM_CENSUS_DECLARED,          /* declared-memory pages in use */
	DM_CENSUS_COHERENT_BUFS,     /* coherent buffers of pages (arm ops) */
	DM_CENSUS_IOMMU_BYTES,       /* bytes mapped in IOMMU domains */
	DM_CENSUS_IOMMU_TABLES,      /* IOMMU page-table pages */
	DM_CENSUS_IOMMU_ATTACHED,    /* devices attached to domains */
	DM_CENSUS_IOVA,              /* IOVA granules in use in mappings */
	DM_CENSUS_IOMMU_BUFFERS,     /* coherent buffers of IOMMU mappings */
	DM_CENSUS_POOL_BLOCKS,       /* dma_pool blocks in use */
	DM_CENSUS_POOL_PAGES,        /* dma_pool pages */
	DM_CENSUS_BOUNCED,           /* live bounced mappings */
	DM_CENSUS_STREAMING,         /* live streaming mappings, as the DMA-API checker counts them */
	DM_CENSUS_NR
};

struct dm_census {
	unsigned long v[DM_CENSUS_NR];
};

/* kmalloc's part of a census (slab.c): its live objects; its slab pages taken out of DM_CENSUS_PAGES. */
void dmamap_kmalloc_census(struct dmamap_machine *m, struct dm_census *cs);
/*
 * For the checker: whether [phys, phys + len) (within one page) holds bytes a
 * live kmalloc object other than the one holding @not_of was asked for (not
 * the slack after them): the first in *@at, the object's allocation site in
 * *@file:*@line.
 */
bool dmamap_kmalloc_data_at(struct dmamap_machine *m, phys_addr_t phys, size_t len, phys_addr_t not_of,
			    phys_addr_t *at, const char **file, int *line);

struct dmamap_vma_private {
	struct dmamap_obj obj;                       /* on the machine's object list */
	struct vm_area_struct *vma;                  /* back pointer: NULL once destroyed */
	unsigned long *pte_pfn;
	unsigned char *pte_prot;
};

enum dmamap_layer_slot {
	DMAMAP_LAYER_COHERENT,
	DMAMAP_LAYER_IRQ,
	DMAMAP_LAYER_IOMEM,
	DMAMAP_LAYER_FIRMWARE,
	DMAMAP_LAYER_NR
};

/* ------------------------------------------------------------ the machine */

struct dm_noncontig;

struct dmamap_machine {
	struct dmamap_machine_config cfg;
	struct dmamap_logger log;
	struct dmamap_fault_state fault;

	/*
	 * The memory planes, each ram_size bytes, indexed by physical offset:
	 *   ram     RAM itself (memfd): devices and uncached mappings see it
	 *   cpu     the CPU's view (memfd, so it can be aliased): for a line held
	 *           in the inner cache, the cached bytes; for one that is not, a
	 *           mirror of the level below. The library's hardware-side
	 *           accesses (cache maintenance, snooping) go through it.
	 *   lin     the linear map: the same bytes as cpu, where the driver sees
	 *           them (page_address()). With AddressSanitizer in the process it
	 *           is a second host mapping, so that ownership poisoning of the
	 *           driver's view leaves the hardware's accesses alone; otherwise
	 *           lin == cpu (memcheck tracks definedness per host address, so
	 *           the two must be one there).
	 *   shadow  for lines whose bit in cache.img is set, the line's image:
	 *           its bytes as last filled or written back (elsewhere the
	 *           level below holds the image); cpu != image on a line means
	 *           the CPU stored to it (dirty)
	 *   outer   the outer cache's copy of the lines it holds (outer_cache only)
	 * ram and cpu are one memfd (dm_plane_foff()), mapped into one host
	 * reservation (reserved bytes from ram on) that also holds the
	 * consistent region's window (cons_window); shadow, outer and the
	 * per-page and per-line state of every module share one anonymous
	 * mapping, the arena (dmamap_lazy_zalloc()): making a machine costs a
	 * few system calls, whatever its size.
	 */
	int mem_fd;
	u8 *ram, *cpu, *lin, *shadow, *outer;
	size_t reserved;
	u8 *cons_window;
	u8 *arena;
	size_t arena_size, arena_used;
	/*
	 * What the machine wrote of its arena, so that destroying it can zero
	 * that alone and hand the arena on (dmamap_arena_give()): a bit per unit
	 * of DM_UNIT_LINES lines whose line state, shadow or outer bytes may have
	 * changed (dm_lines_written()), units_nr of them; the struct pages are
	 * the chunks the page allocator set up. recycle: decided at destroy.
	 */
	unsigned long *units_written;
	unsigned long units_nr;
	bool recycle;
	unsigned long base_pfn, nr_pages;
	/*
	 * Lines the library itself stored to through the CPU view (zeroing,
	 * bounce copies): dirty even when the bytes stored equal the old ones,
	 * which comparing cpu with the image cannot see. Set atomically by
	 * dm_cpu_store(), cleared by the cache model under its lock.
	 */
	unsigned long *cpu_stored;
	unsigned line_shift;

	struct dmamap_page_alloc pa;
	struct dmamap_cache cache;
	struct dmamap_consistent cons;

	struct dmamap_kmalloc *_Atomic kmalloc;      /* kmalloc state, made on first use (slab.c) */
	struct dmamap_vmalloc *_Atomic vmalloc;      /* the vmalloc area, made on first use (vmalloc.c) */

	pthread_mutex_t obj_lock;                    /* device list, vma ptes, creation of the kmalloc state */
	struct device *devices;
	pthread_mutex_t objs_lock;                   /* the object list (taken before any object's lock) */
	struct dmamap_obj *objs;                     /* newest first */
	void (*release_device)(struct device *dev);  /* set by the platform */
	void (*destroy_hook)(struct dmamap_machine *m); /* later layers' machine-wide teardown */

	/* the live dma_alloc_noncontiguous() tables, newest first, under obj_lock (dma-api.c) */
	struct dm_noncontig *noncontig;

	/* layers above keep their machine-wide state here (enum dmamap_layer_slot) */
	void *layer[DMAMAP_LAYER_NR];

	/*
	 * The DMA-API checker (dma-debug.c): its tracker, made at the first
	 * device init; the run-time switch (zero, the default, means on); and
	 * the streaming mappings made while it was off and still live.
	 */
	struct dmamap_debug *_Atomic debug;
	atomic_bool checker_off;
	/* a test fixture's machine: while current, it hears what belongs to no machine (log.c) */
	atomic_bool adopts_orphans;
	atomic_bool poison_off;                      /* dmamap_checker_poison(m, false) */
	atomic_long checker_untracked;
	/*
	 * Set by the checker: true (after a report) when physical [phys,
	 * phys + len) is still mapped for DMA, so that freeing it must be
	 * refused. The page allocator (and any allocator below the checker)
	 * asks before it frees.
	 */
	bool (*dma_busy)(struct dmamap_machine *m, phys_addr_t phys, size_t len, const char *what);

	struct dmamap_machine *reg_next;             /* registry */
};


static inline phys_addr_t dm_ram_end(const struct dmamap_machine *m)
{
	return m->cfg.ram_base + m->cfg.ram_size;
}

/* [phys, phys+len) wholly in RAM (len > 0) */
/* @size rounded up to whole pages; 0 when that overflows (or for 0). */
static inline size_t dm_page_align_size(size_t size)
{
	return size > SIZE_MAX - (PAGE_SIZE - 1) ? 0 : (size_t)PAGE_ALIGN(size);
}

static inline bool dm_phys_in_ram(const struct dmamap_machine *m, phys_addr_t phys, size_t len)
{
	return len && phys >= m->cfg.ram_base && phys < dm_ram_end(m) && len <= dm_ram_end(m) - phys;
}

static inline bool dm_virt_in_linear(const struct dmamap_machine *m, const volatile void *p)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)m->lin;
	return a >= b && a - b < m->cfg.ram_size;
}

/* [p, p + len) lies wholly in @m's linear map (len > 0): checked in integers, p + len is never formed. */
static inline bool dm_linear_range(const struct dmamap_machine *m, const volatile void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)m->lin;

	return len && a >= b && a - b < m->cfg.ram_size && len <= m->cfg.ram_size - (a - b);
}

static inline phys_addr_t dm_virt_to_phys(const struct dmamap_machine *m, const volatile void *p)
{
	return m->cfg.ram_base + ((uintptr_t)p - (uintptr_t)m->lin);
}

static inline void *dm_phys_to_virt(const struct dmamap_machine *m, phys_addr_t phys)
{
	return m->lin + (phys - m->cfg.ram_base);
}

/* The machine's cache hooks (dmamap_cache_get_ops() without its NULL check, called directly). */
static inline const struct dmamap_cache_ops *dm_cache_ops(struct dmamap_machine *m)
{
	return atomic_load(&m->cache.ops);
}

/*
 * A store by the CPU through the linear map, made by the library on a
 * driver's behalf (as the kernel's memset/memcpy would): the bytes land in the
 * CPU view and the lines become dirty. @src NULL stores @c.
 */
void dm_cpu_store(struct dmamap_machine *m, void *va, const void *src, int c, size_t len);

/*
 * Wait on @cond (@mutex held) until it is signalled or @end on the monotonic
 * clock (dmamap_ktime_ns()); a deadline already passed returns at once. The
 * condition variable counts in real time: the time left is converted.
 */
void dm_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, s64 end);

/* Fault injection: true when this attempt at @site must fail. */
bool dmamap_should_fail(struct dmamap_machine *m, enum dmamap_fault_site site);

/*
 * Zero-filled host memory for state kept per page or per line, for as long
 * as the machine lives: a page-aligned piece of the machine's arena (or an
 * anonymous mapping of its own when the arena is full), so that what is
 * never touched costs nothing (calloc may memset). NULL on failure; give it
 * back with dmamap_lazy_free() and the same size.
 */
void *dmamap_lazy_zalloc(struct dmamap_machine *m, size_t size);
void dmamap_lazy_free(struct dmamap_machine *m, void *p, size_t size);

/* Lines per unit of units_written: 512 bytes of each line bitmap. */
#define DM_UNIT_SHIFT 12
#define DM_UNIT_LINES (1UL << DM_UNIT_SHIFT)

/*
 * Lines [first, last] of @m: their state, shadow or outer bytes are about to
 * be written. Called by every path that writes them (any thread; cheap when
 * the units are marked already).
 */
static inline void dm_lines_written(struct dmamap_machine *m, unsigned long first, unsigned long last)
{
	for (unsigned long u = first >> DM_UNIT_SHIFT; u <= last >> DM_UNIT_SHIFT; u++) {
		unsigned long *w = &m->units_written[u / BITS_PER_LONG], bit = 1UL << (u % BITS_PER_LONG);

		if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit) && !(__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit))
			__atomic_fetch_add(&m->units_nr, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Arenas of destroyed machines, zeroed again, kept for the next machines of
 * the same size (host.c): take one (NULL when none fits), or give one back
 * (kept, or unmapped when enough are kept).
 */
u8 *dmamap_arena_take(size_t size);
void dmamap_arena_give(u8 *arena, size_t size);

/*
 * The RAM files (memfds) of destroyed machines, emptied, kept for the next
 * machines of the same size in the same process (host.c): take one (-1 when
 * none fits), or give one back (emptied and kept, or closed). The caller
 * has unmapped it everywhere.
 */
int dmamap_memfd_take(size_t size);
void dmamap_memfd_give(int fd, size_t size);

/* The file offset in m->mem_fd of byte @off of the cpu plane (@cpu) or of the ram plane. */
static inline off_t dm_plane_foff(const struct dmamap_machine *m, bool cpu, size_t off)
{
	return (off_t)((cpu ? m->cfg.ram_size : 0) + off);
}

/* Host allocations for the library's own bookkeeping: fail under DMAMAP_FAULT_HOST_ALLOC. */
void *dmamap_zalloc(struct dmamap_machine *m, size_t size);
void *dmamap_allocarray(struct dmamap_machine *m, size_t n, size_t size);
void dmamap_free(void *p);

/* Registry (host.c): enter a machine once whole (current if none is), take it out before teardown. */
void dmamap_registry_add(struct dmamap_machine *m);
void dmamap_registry_remove(struct dmamap_machine *m);
/* Registry: the machine whose linear map holds @p, NULL if none. */
struct dmamap_machine *dmamap_registry_lookup(const volatile void *p);
/* Registry: the first machine for which @match(m, @ctx) is true, NULL if none. */
struct dmamap_machine *dmamap_registry_find(bool (*match)(struct dmamap_machine *m, const void *ctx), const void *ctx);
/* Registry: whether @m is a live machine (compares the pointer, never reads through it). */
bool dmamap_registry_has(const struct dmamap_machine *m);
/* Registry: call @fn(current machine, @arg) under the registry's lock, if a machine is current. */
void dmamap_registry_with_current(void (*fn)(struct dmamap_machine *m, void *arg), void *arg);
/* The current machine, or NULL when there is none (never creates one). */
struct dmamap_machine *dmamap_machine_peek_current(void);

/* ------------------------------------------------------------ locking */

/*
 * might_sleep(): @what, a call that may sleep, was made at @file:@line; when
 * this thread holds a spinlock or has its interrupts off, report it
 * (DMAMAP_REPORT_SLEEP_IN_ATOMIC) on @m (NULL: the current machine, if any).
 * Only the outermost call says it: below a DMA API call (dm_in_call()) the
 * library's own allocations are that call's, checked at its entry.
 */
void dm_might_sleep(struct dmamap_machine *m, const char *what, const char *file, int line);

/*
 * The thread enters the handler of line @irq (dmamap_irq_raise()): in hard
 * interrupt context until the matching dm_hardirq_exit(), given what the
 * enter returned (the outer handler's line, for nested ones).
 */
unsigned int dm_hardirq_enter(unsigned int irq);
void dm_hardirq_exit(unsigned int outer);

/*
 * Call @fn(@arg) as a task of its own would run it (the thread function of
 * a threaded interrupt, irq.c): this thread's atomic context -- the locks
 * it holds as lockdep and might_sleep() see them, its interrupt state, its
 * hard interrupt nesting -- is set aside for the call, so that @fn starts
 * as a kernel thread starts: no lock held, interrupts on, in task context.
 * What @fn leaves behind (locks still held, interrupts still off) is
 * described in @left (@size bytes; the empty string when nothing), then
 * forgotten, and the caller's context comes back. A lock @fn left held
 * stays locked, by this thread.
 */
void dm_run_as_task(void (*fn)(void *arg), void *arg, char *left, size_t size);

/*
 * A mark of the locks this thread holds, taken by dm_held_mark() before a
 * call that runs in the thread's own atomic context (a hard interrupt
 * handler, irq.c) and must give it back as it found it.
 * dm_held_since() describes in @left (@size bytes; the empty string when
 * none) the locks taken since @mark and still held, each with where it was
 * taken, then forgets them: lockdep and might_sleep() see the locks of
 * @mark again. A lock forgotten so stays locked, by this thread.
 */
struct dm_held_mark {
	unsigned int depth, spins;
};
void dm_held_mark(struct dm_held_mark *mark);
void dm_held_since(const struct dm_held_mark *mark, char *left, size_t size);

/* "file:line" in @buf (@size bytes), or "an unknown place" when @file is NULL: @buf. */
const char *dm_site(const char *file, int line, char *buf, size_t size);

/* This thread's number, never another thread's (its owner token as a lock holder): the "CPU" a tasklet is scheduled on. */
unsigned long dm_thread_token(void);

/*
 * Softirqs (tasklet.c). dm_softirq_raise(): this thread has tasklets
 * scheduled; locking.c then calls dm_softirq_run() at its next point where
 * softirqs may run (no spinlock held, interrupts and bottom halves on, no
 * handler or tasklet running), and irq.c calls dm_softirq_irq_exit() when a
 * delivery's hard handlers are done (the kernel's irq_exit(): they run
 * unless the thread has bottom halves off or runs a tasklet).
 * dm_softirq_run() runs this thread's scheduled tasklets until none is left
 * (the disabled ones stay scheduled), then dm_softirq_settled() says so.
 */
void dm_softirq_raise(void);
void dm_softirq_settled(void);
void dm_softirq_run(void);
void dm_softirq_irq_exit(void);
/* local_irq_restore() of @flags that is no point where tasklets run: the end of a hard interrupt, under irq.c's lock. */
void dm_irq_state_restore(unsigned long flags);
/* A point where this thread may run its scheduled tasklets, if it may now (tasklet.c, after a schedule or enable). */
void dm_softirq_point(void);

/*
 * Around a tasklet's function: dm_softirq_enter() puts the thread in
 * softirq context with interrupts on; dm_softirq_exit() describes in @left
 * (@size bytes; empty when nothing) what the function left (interrupts
 * off, bottom halves off) and gives the thread back its state of @mark.
 */
struct dm_softirq_mark {
	bool irqs_off;
	unsigned int bh;
};
void dm_softirq_enter(struct dm_softirq_mark *mark);
void dm_softirq_exit(const struct dm_softirq_mark *mark, char *left, size_t size);

/*
 * tasklet.c: call @fn(@arg), the driver's code, in this thread's softirq
 * context (a tasklet's or a BH work item's run), and report as
 * DMAMAP_REPORT_LOCK_MISUSE at @file:@line on @m what it left behind
 * (locks, interrupts or bottom halves off), "@who returned with ...".
 */
void dm_softirq_call(void (*fn)(void *arg), void *arg, struct dmamap_machine *m, const char *file, int line,
		     const char *who);

/*
 * workqueue.c: run one BH work item this thread has pending on a BH queue
 * of priority @hi (system_bh_highpri_wq's, else system_bh_wq's), in
 * softirq context; false when it has none. tasklet.c's dm_softirq_run()
 * calls it (no lock held) at each step of a softirq pass.
 */
bool dm_bh_work_run_one(bool hi);

/*
 * Memory [@p, @p + @n) of machine @m is about to be freed by @what at
 * @file:@line (no lock held): every work item pending in it (workqueue.c)
 * and every tasklet scheduled in it (tasklet.c) is reported and taken off
 * its list, as the kernel's debugobjects reports the free of an active
 * object and cancels it. A load and a branch when nothing is pending.
 */
void dm_work_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what, const char *file, int line);
void dm_tasklet_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what, const char *file,
		      int line);

extern unsigned long dm_wq_listed, dm_tl_listed; /* items pending, tasklets scheduled: dm_deferred_listed() */

/* Whether any work item is pending or any tasklet scheduled, in any machine (a hint: read without a lock). */
static inline bool dm_deferred_listed(void)
{
	return (__atomic_load_n(&dm_wq_listed, __ATOMIC_RELAXED) | __atomic_load_n(&dm_tl_listed, __ATOMIC_RELAXED)) != 0;
}

static inline void dm_deferred_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what,
				     const char *file, int line)
{
	dm_work_freed(m, p, n, what, file, line);
	dm_tasklet_freed(m, p, n, what, file, line);
}

/*
 * locking.c: memory [@p, @p + @n) of machine @m is about to be freed by
 * @what at @file:@line (no library lock held): each lock in it that this
 * thread holds is reported, as lockdep's "held lock freed!" (the kernel's
 * debug_check_no_locks_freed() checks the freeing task's locks only). The
 * locks stay held. dm_thread_holds_locks(): whether this thread holds any.
 */
bool dm_thread_holds_locks(void);
void dm_locks_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what, const char *file, int line);

/* Whether a free must look at the bytes it frees: dm_deferred_listed() or dm_thread_holds_locks(). */
static inline bool dm_free_watched(void)
{
	return dm_deferred_listed() || dm_thread_holds_locks();
}

/* dm_deferred_freed() and dm_locks_freed(): what a free of kmalloc or vmalloc memory checks. */
static inline void dm_memory_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what,
				   const char *file, int line)
{
	dm_deferred_freed(m, p, n, what, file, line);
	dm_locks_freed(m, p, n, what, file, line);
}

/* tasklet.c: the tasklets still scheduled for @m, reported and forgotten (machine destroy). */
void dmamap_tasklet_machine_fini(struct dmamap_machine *m);

/* irq.c: the handlers still requested on @m, reported as leaks and freed (machine destroy). */
void dmamap_irq_machine_fini(struct dmamap_machine *m);

/*
 * iomem.c: the register windows of platform devices. Give @pdev, about to be
 * made on @m, a window for each of its IORESOURCE_MEM resources: 0; -EBUSY
 * (reported as @what's refusal) when one overlaps another window of @m or of
 * @pdev; -ENOMEM. The windows go with dmamap_iomem_windows_free(), which
 * reports (and forgets) the mappings still made of them.
 */
int dmamap_iomem_windows_add(struct dmamap_machine *m, struct platform_device *pdev, const char *devname,
			     const char *what);
void dmamap_iomem_windows_free(struct platform_device *pdev);
/* The window of @pdev's resource @res_index (an IORESOURCE_MEM one), or NULL. */
void *dmamap_iomem_window(const struct platform_device *pdev, unsigned int res_index);
/* iomem.c: the mappings still made on @m, reported as leaks and forgotten; the windows left to their devices. */
void dmamap_iomem_machine_fini(struct dmamap_machine *m);

/* An allocation with @gfp: it may sleep when @gfp allows blocking (GFP_KERNEL, not GFP_ATOMIC). */
static inline void dm_might_alloc(struct dmamap_machine *m, gfp_t gfp, const char *what, const char *file, int line)
{
	if (gfpflags_allow_blocking(gfp))
		dm_might_sleep(m, what, file, line);
}

/* ------------------------------------------------------ page_alloc API */

int dmamap_page_alloc_init(struct dmamap_machine *m);
void dmamap_page_alloc_fini(struct dmamap_machine *m);

/*
 * Take the free pages [first, first + count) (page indexes) out of the
 * allocator, as alloc_contig_range() does for CMA: each becomes an allocated
 * order-0 page. Return 0, or -EBUSY when a page of the range is not free
 * (nothing taken).
 */
int dmamap_alloc_contig(struct dmamap_machine *m, unsigned long first, unsigned long count);
void dmamap_page_alloc_check(struct dmamap_machine *m, struct dm_check *c);
/* Pages in allocated blocks now. */
unsigned long dmamap_page_alloc_allocated(struct dmamap_machine *m);

/*
 * Set up the struct pages of page @idx's chunk if they are not yet: every
 * struct page a caller is given must have been through this. The _locked
 * form is for callers holding pa.lock.
 */
void dmamap_page_chunk_init(struct dmamap_machine *m, unsigned long idx, bool locked);

static inline bool dm_page_chunk_ready(const struct dmamap_machine *m, unsigned long idx)
{
	unsigned long c = idx >> DM_PAGE_CHUNK_SHIFT, bits = 8 * sizeof(long);

	return (__atomic_load_n(&m->pa.ready[c / bits], __ATOMIC_ACQUIRE) >> (c % bits)) & 1UL;
}

/* The struct page of page index @idx (< nr_pages), set up. */
static inline struct page *dm_page(struct dmamap_machine *m, unsigned long idx)
{
	if (unlikely(!dm_page_chunk_ready(m, idx)))
		dmamap_page_chunk_init(m, idx, false);
	return &m->pa.pages[idx];
}

/* The machine of a struct page not yet set up (reached by pointer arithmetic), setting it up; NULL if none. */
struct dmamap_machine *dmamap_page_machine_slow(const struct page *page);

/* The machine of @page (any struct page of any machine), or NULL when it is none. */
static inline struct dmamap_machine *dm_page_machine(const struct page *page)
{
	if (likely(page->dmamap_machine))
		return page->dmamap_machine;
	return dmamap_page_machine_slow(page);
}
/*
 * dmamap_alloc_pages() for the library's own callers: the same, but for the
 * might-sleep check, which their own entry made (or which their context
 * needs not).
 */
struct page *dm_alloc_pages(struct dmamap_machine *m, gfp_t gfp, unsigned order);

/* The gfp bits the page allocator and kmalloc understand. */
#define DM_GFP_KNOWN (__GFP_DMA | __GFP_HIGHMEM | __GFP_WAIT | __GFP_HIGH | __GFP_IO | __GFP_FS | __GFP_COLD | \
		      __GFP_NOWARN | __GFP_ZERO)

/*
 * Mark an allocated block as kmalloc's (PG_slab on each page) or clear the
 * mark. The page allocator refuses to free a marked block: only kfree() may.
 */
void dmamap_page_set_slab(struct page *page, unsigned order, bool on);

static inline unsigned long dm_page_index(const struct page *page)
{
	return (unsigned long)(page - dm_page_machine(page)->pa.pages);
}

/* --------------------------------------------------------- cache API */

int dmamap_cache_init(struct dmamap_machine *m);
void dmamap_cache_fini(struct dmamap_machine *m);

/*
 * The device side of memory, for the platform: read or write [phys, phys+len)
 * (wholly in RAM) as a non-snooping or snooping bus master.
 */
void dmamap_mem_dev_read(struct dmamap_machine *m, phys_addr_t phys, void *dst, size_t len, bool snoop);
void dmamap_mem_dev_write(struct dmamap_machine *m, phys_addr_t phys, const void *src, size_t len, bool snoop);
void dmamap_mem_dev_fill(struct dmamap_machine *m, phys_addr_t phys, int c, size_t len, bool snoop);

/*
 * For the checker: how many bytes of [phys, phys + len) (wholly in RAM) the
 * CPU stored to since their line was last filled or written back (the cpu
 * plane and the line's image differ), and the offset of the first in
 * *@first. Byte-exact: neighbours sharing the edge lines do not count. A
 * clean range costs one memcmp per run of lines whose image is in one plane.
 */
size_t dmamap_cache_cpu_stores(struct dmamap_machine *m, phys_addr_t phys, size_t len, size_t *first);

/*
 * For the checker, where a buffer is already dirty when the device takes it
 * (so dmamap_cache_cpu_stores() cannot tell later stores from earlier
 * ones): the CPU's view of [phys, phys + len) (wholly in RAM) copied to
 * @dst, and later, how many of its bytes differ from such a copy @ref, the
 * offset of the first in *@first.
 */
void dmamap_cache_cpu_view(struct dmamap_machine *m, phys_addr_t phys, size_t len, u8 *dst);
size_t dmamap_cache_cpu_changed(struct dmamap_machine *m, phys_addr_t phys, size_t len, const u8 *ref, size_t *first);

/*
 * Frames [pfn, pfn + count) gained (@on) or lost an uncached host alias (a
 * mapping of RAM itself): while a page has one, its lines keep their image
 * in the shadow plane, since stores through the alias change RAM unseen.
 * Counted per page; the caller pairs every gain with one loss.
 */
void dmamap_cache_alias(struct dmamap_machine *m, unsigned long pfn, size_t count, bool on);

/*
 * What zeroing [phys, phys + size) through the linear map and then flushing
 * it with the default dmac_flush_range and outer_flush_range hooks does
 * (__dma_clear_buffer), state, counters and speculation included, without
 * moving the zeroes line by line: the planes are zeroed wholesale. Return
 * false, having done nothing, when the machine's hooks are not the defaults,
 * it works line by line, or the range is not whole pages of RAM: the caller
 * then stores and flushes through the hooks.
 */
bool dmamap_cache_clear_flush(struct dmamap_machine *m, phys_addr_t phys, size_t size);
/*
 * Zero a linear-map range through the cache and push the zeroes to RAM
 * (__dma_clear_buffer): wholesale when dmamap_cache_clear_flush() can, else
 * stored and flushed through the machine's hooks.
 */
void dmamap_clear_buffer(struct dmamap_machine *m, phys_addr_t phys, size_t size);

/* ---------------------------------------------------------- kmalloc API */

/* Report every object still allocated, free the slabs: at machine destroy. */
void dmamap_kmalloc_fini(struct dmamap_machine *m);

/* --------------------------------------------------------- pgtable API */

int dmamap_consistent_init(struct dmamap_machine *m);
void dmamap_consistent_fini(struct dmamap_machine *m);
void dmamap_consistent_check(struct dmamap_machine *m, struct dm_check *c);

/*
 * Reserve a region of @size bytes (page multiple) in the consistent region,
 * aligned to the smallest power of two >= size, at most 1 MiB (a section).
 * Return: the region (unmapped), or NULL when full or on injected failure
 * (DMAMAP_FAULT_REMAP).
 */
struct dmamap_vmregion *dmamap_vmregion_alloc(struct dmamap_machine *m, size_t size, const void *caller);
/* The live region whose range holds @addr, or NULL. */
struct dmamap_vmregion *dmamap_vmregion_find(struct dmamap_machine *m, const void *addr);
/*
 * Map @count pages at page @first of region @r: pages[i] if @pages, else the
 * frames @pfn + i. Return 0 or -ENOMEM (injected or host failure; nothing
 * mapped), -EINVAL (bad range or frames).
 */
int dmamap_vmregion_map(struct dmamap_machine *m, struct dmamap_vmregion *r, size_t first, struct page *const *pages,
			unsigned long pfn, size_t count, pgprot_t prot);
/* Unmap every page and release the region. */
void dmamap_vmregion_free(struct dmamap_machine *m, struct dmamap_vmregion *r);

/* ---------------------------------------------------------- vmalloc API */

/* Report every vmalloc area and vmap mapping still live, free them, release the area: at machine destroy. */
void dmamap_vmalloc_fini(struct dmamap_machine *m);
/* The live machine whose vmalloc area holds @p (mapped or not), or NULL. */
struct dmamap_machine *dm_vmalloc_machine(const void *p);
/*
 * dm_vmalloc_machine(), and what @p is there written into @buf (@n bytes)
 * for a report: "0x10 bytes into the 8192-byte vmalloc area at 0x... made
 * at f.c:12", or "in no live vmalloc area".
 */
struct dmamap_machine *dm_vmalloc_describe(const void *p, char *buf, size_t n);

/* Unmap the pages of @vma in [addr, addr + size) (page aligned, inside the vma): what zap_page_range does. */
void dmamap_vma_zap(struct vm_area_struct *vma, unsigned long addr, size_t size);

/*
 * Host aliases: map @count frames from @pfn at host address @addr (inside a
 * reservation) as memory type @prot would see them; undo with dm_host_unmap(),
 * which restores the inaccessible reservation. 0 or -ENOMEM. An alias of RAM
 * itself (any type but cached) is counted by the cache model: the owner
 * tells it of each page's end with dm_host_unalias(), given the pte's
 * protection byte, whether or not it calls dm_host_unmap().
 */
int dm_host_map(struct dmamap_machine *m, void *addr, unsigned long pfn, size_t count, pgprot_t prot);
void dm_host_unmap(void *addr, size_t len);
void dm_host_unalias(struct dmamap_machine *m, unsigned long pfn, unsigned char prot);
/* Reserve @len bytes of inaccessible host address space aligned to @align (a power of two); NULL on failure. */
void *dm_host_reserve(size_t len, size_t align);
void dm_host_release(void *p, size_t len);

/* ------------------------------------------------------------ dma core */

/*
 * The sg operations of patch 3, built on any ops set's map_page/unmap_page/
 * sync_single_*: what an ops set without its own sg code plugs in.
 * map_sg unwinds what it mapped when an entry fails, and returns 0.
 */
int dmamap_generic_map_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			  struct dma_attrs *attrs);
void dmamap_generic_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			     struct dma_attrs *attrs);
void dmamap_generic_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents,
				    enum dma_data_direction dir);
void dmamap_generic_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents,
				       enum dma_data_direction dir);

/* The kernel name of a direction, for messages. */
static inline const char *dmamap_dir_name(int dir)
{
	switch (dir) {
	case DMA_BIDIRECTIONAL:
		return "DMA_BIDIRECTIONAL";
	case DMA_TO_DEVICE:
		return "DMA_TO_DEVICE";
	case DMA_FROM_DEVICE:
		return "DMA_FROM_DEVICE";
	case DMA_NONE:
		return "DMA_NONE";
	default:
		return "an invalid direction";
	}
}

/*
 * The Linux 6.x DMA_ATTR_* bits @attrs as the core's @a (dma-api.c): the
 * core's attrs pointer (NULL when none apply) through @out and true, or
 * false after reporting unknown bits as @what's at @file:@line.
 */
struct dma_attrs;
bool dmamap_lx_attrs(struct device *dev, unsigned long attrs, struct dma_attrs *a, struct dma_attrs **out,
		     const char *what, const char *file, int line);

/* A refused call of @dev: reported against its machine, or process-wide when @dev is NULL or not initialised. */
void dmamap_dev_report(struct device *dev, enum dmamap_report_kind kind, const char *file, int line, const char *fmt,
		       ...) DMAMAP_PRINTF(5, 6);

/* What a driver left on of @dev's clocks reported, turned off and put (clk.c): at its unbind. */
/* What @dev's driver left of firmware (images held, background requests not started): reported and undone. */
void dmamap_firmware_unbind(struct device *dev);
/* At @m's destroy, its devices released: what is left of firmware reported and undone, the directory freed. */
void dmamap_firmware_machine_fini(struct dmamap_machine *m);
void dmamap_clk_unbind(struct device *dev);
/* dmamap_clk_unbind(), then @dev's clocks freed: at its release. */
void dmamap_clk_release(struct device *dev);
/* The reset controls a driver never put of @dev reported and put (reset.c): at its unbind. */
void dmamap_reset_unbind(struct device *dev);
/* dmamap_reset_unbind(), then @dev's reset lines freed: at its release. */
void dmamap_reset_release(struct device *dev);

/* Free the device-tree node dmamap_device_set_of_node() gave @dev, if any (of.c). */
void dmamap_of_node_free(struct device *dev);
/* References to device-tree nodes @dev's driver took and never put, reported and dropped (of.c): at unbind. */
void dmamap_of_unbind(struct device *dev);
/* What of_reserved_mem_device_init() gave @dev forgotten, then its node freed (of.c): at its release. */
void dmamap_of_release(struct device *dev);
/* The machine's own device-tree nodes freed, references still held reported (of.c): at its destroy. */
void dmamap_of_machine_fini(struct dmamap_machine *m);

/*
 * pm.c: the driver core's runtime PM around a driver's binding, as the
 * kernel's really_probe() and __device_release_driver() do it; each does
 * nothing for a device that never made a runtime PM call. After a probe that
 * succeeded: pm_request_idle(). Before remove(): pm_runtime_get_sync(), then
 * pm_runtime_put_sync(). After the managed resources of an unbind or a failed
 * probe went: what the driver left reported and undone, then
 * pm_runtime_reinit(). At the device's teardown: the same reports, and the
 * state freed. None of the core's own doings is reported.
 */
void dmamap_pm_probed(struct device *dev);
void dmamap_pm_unbinding(struct device *dev);
void dmamap_pm_unbound(struct device *dev);
void dmamap_pm_release(struct device *dev);

/* The machine of an initialised device (no checks). */
static inline struct dmamap_machine *dm_dev_machine(const struct device *dev)
{
	return dev->dmamap.machine;
}

static inline bool dm_dev_live(const struct device *dev)
{
	return dev && dev->dmamap.magic == DM_DEVICE_MAGIC;
}

/*
 * Whether @dev is an initialised device, for a call @what of the driver's
 * at @file:@line that needs one; if not, reported as bad input ("NULL
 * device", "device not initialised").
 */
bool dm_dev_ok(struct device *dev, const char *what, const char *file, int line);

/* Bus <-> physical for a device without an IOMMU (ARM's pfn_to_dma/dma_to_pfn). */
static inline dma_addr_t dm_phys_to_dma(const struct device *dev, phys_addr_t phys)
{
	return phys - ((phys_addr_t)dev->dma_pfn_offset << PAGE_SHIFT);
}

static inline phys_addr_t dm_dma_to_phys(const struct device *dev, dma_addr_t addr)
{
	return addr + ((phys_addr_t)dev->dma_pfn_offset << PAGE_SHIFT);
}

/* Whether the device snoops the CPU caches (no maintenance needed). */
static inline bool dm_dev_coherent(const struct device *dev)
{
	return dev->dma_coherent || dev->dmamap.machine->cfg.coherent;
}

/*
 * dma_sync_single_for_cpu() (@for_cpu) or _for_device() made by the driver's
 * call @what (a 6.x sync built on them, dma_sync_sgtable_for_cpu of a
 * dma_alloc_noncontiguous() table): every report of the sync names @what.
 */
void dm_sync_single_as(struct device *dev, dma_addr_t addr, size_t size, int dir, bool for_cpu, const char *what,
		       const char *file, int line);

/*
 * @dev is being released: forget its dma_alloc_noncontiguous() tables (the
 * blocks behind them are the checker's and the ops' to report and free).
 */
void dmamap_noncontig_device_gone(struct device *dev);

/*
 * dmamap_free_attrs() made by the driver's call @what (dma_free_attrs, or a
 * 6.x free built on it, dma_free_noncoherent or dma_free_pages): every
 * report of the free names @what.
 */
void dm_free_attrs_as(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle, struct dma_attrs *attrs,
		      const char *what, const char *file, int line);

/* The machine-wide DMA-zone rule behind dma_supported(). */
bool dmamap_mask_covers_zone(struct device *dev, u64 mask);
/* Whether @mask reaches every byte of RAM on the device's bus. */
bool dmamap_mask_covers_ram(struct device *dev, u64 mask);

/*
 * Where coherent memory comes from (coherent.c). The machine-wide state
 * (contiguous area, atomic pool) lives in m->layer[DMAMAP_LAYER_COHERENT].
 */
enum dmamap_coherent_source {
	DM_SRC_DECLARED,
	DM_SRC_CONTIGUOUS,
	DM_SRC_ATOMIC_POOL,
	DM_SRC_PAGES,
	DM_SRC_FAILED,
};

int dmamap_coherent_machine_init(struct dmamap_machine *m);
void dmamap_coherent_machine_fini(struct dmamap_machine *m);
void dmamap_coherent_count(struct dmamap_machine *m, enum dmamap_coherent_source src);
/* Contiguous area: @count pages aligned to 2^@align_order pages; NULL when none or full. */
struct page *dmamap_cma_alloc(struct dmamap_machine *m, unsigned long count, unsigned align_order);
/* Give pages back to the contiguous area; false when they are not from it (a bad release inside it is reported). */
bool dmamap_cma_release(struct dmamap_machine *m, struct page *page, unsigned long count);
/*
 * Coherent buffers made of pages (page allocator or contiguous area): what
 * their free must match. _add records one (0, or -ENOMEM); _take checks a
 * free, mmap or sgtable of @count pages at @phys against the record --
 * the reason it does not match, or NULL (the record removed when @remove:
 * only one of two racing frees gets it); _release hands the device's
 * leftovers to @free_fn at its release and frees its atomic-pool
 * allocations, reported (by the DMA-API checker when it is on, else here).
 */
int dmamap_coherent_buf_add(struct device *dev, struct page *page, unsigned long count, const void *cpu_addr);
const char *dmamap_coherent_buf_take(struct device *dev, phys_addr_t phys, unsigned long count, const void *cpu_addr,
				     bool remove);
void dmamap_coherent_buf_release(struct device *dev,
				 void (*free_fn)(struct device *dev, struct page *page, unsigned long count, void *cpu_addr));
/* Atomic pool: zeroed, uncached memory without remapping. */
void *dmamap_atomic_pool_alloc(struct device *dev, size_t size, struct page **page);
bool dmamap_atomic_pool_contains(struct dmamap_machine *m, const void *va);
/*
 * Check @size bytes (page aligned) at @va, handle @handle of @dev, against
 * the pool's allocation there: NULL, or why it is not one (the caller reports
 * it). @remove: the size must be the allocation's and it is freed.
 */
const char *dmamap_atomic_pool_take(struct device *dev, const void *va, size_t size, dma_addr_t handle, bool remove);
/*
 * An attribute bit of the library's own, beyond the kernel's DMA_ATTR_*: the
 * allocation must not come from the device's declared memory, which has no
 * linear mapping (dma_alloc_pages(), whose kernel form never takes it).
 */
#define DM_ATTR_NO_DECLARED 24
static inline bool dm_attr_no_declared(const struct dma_attrs *attrs)
{
	return attrs && ((attrs->flags >> DM_ATTR_NO_DECLARED) & 1UL);
}

/*
 * A device's declared memory: alloc returns true when it served the request
 * (*ret set); release/mmap/get_sgtable return true when @vaddr belongs to it
 * (a release or get_sgtable that does not name one live allocation with its
 * handle is reported and refused). Sizes are page aligned. The mmap maps
 * with @prot, what the ops chose from the attrs (as the kernel's
 * dma_mmap_from_dev_coherent() takes the vma's protection as its caller
 * set it).
 */
bool dmamap_declared_alloc(struct device *dev, size_t size, dma_addr_t *handle, void **ret);
bool dmamap_declared_release(struct device *dev, void *vaddr, size_t size, dma_addr_t handle);
bool dmamap_declared_mmap(struct device *dev, struct vm_area_struct *vma, void *vaddr, size_t size, pgprot_t prot,
			  int *ret);
bool dmamap_declared_get_sgtable(struct device *dev, struct sg_table *sgt, void *vaddr, dma_addr_t handle,
				 size_t size, int *ret);
/* Whether bus [@addr, @addr + @len) lies in @dev's declared memory (no IOMMU): true with *@phys its start. */
bool dmamap_declared_bus_to_phys(struct device *dev, dma_addr_t addr, size_t len, phys_addr_t *phys);

/* ARM cache maintenance for a buffer at @phys (arm-dma.c), through the machine's hooks. */
void dmamap_arm_cpu_to_dev(struct dmamap_machine *m, phys_addr_t phys, size_t size, int dir);
void dmamap_arm_dev_to_cpu(struct dmamap_machine *m, phys_addr_t phys, size_t size, int dir);
/* Device release: the arm coherent buffers the driver left, reported and freed. */
void dmamap_arm_release_buffers(struct device *dev);

/* Invariants and counts of the dma core's own state (check.c gathers them). */
void dmamap_coherent_check(struct dmamap_machine *m, struct dm_check *c);
void dmamap_coherent_census(struct dmamap_machine *m, struct dm_census *cs);
void dmamap_declared_check(struct device *dev, struct dm_check *c);
void dmamap_declared_census(struct device *dev, struct dm_census *cs);
/* Whether [vaddr, dma) is a block of @pool that is handed out now. */
bool dmamap_dma_pool_block_live(struct dma_pool *pool, const void *vaddr, dma_addr_t dma);

/* The device a dma_pool was made for (dmapool.c). */
struct device *dmamap_dma_pool_device(const struct dma_pool *pool);

/* -------------------------------------------------------------- devres */

/* Release every managed resource of @dev, newest first: the driver's unbind. */
void dmamap_devres_release_all(struct device *dev);
/* Whether live @dev holds @pool as a managed resource (dmam_pool_create(), not yet released). */
bool dmamap_devres_holds_pool(struct device *dev, const struct dma_pool *pool);
/*
 * Free the device's managed kmalloc object at @p for its call @what
 * (devm_kfree()): false, reported, when it cannot go (still mapped for
 * DMA), the object then left as it was, managed.
 */
bool dmamap_kfree_managed(const void *p, const char *what, const char *file, int line);
/* Mark the live kmalloc object at @p as a device's managed memory (kfree() and krealloc() refuse it), or not. */
void dmamap_kmalloc_set_managed(const void *p, bool managed);
/*
 * devm_krealloc()'s kmalloc part: resize @p, a live object its device's
 * devres holds, keeping it managed. @p itself when its slot holds @size
 * (non-zero) bytes, else a new managed object on the same machine with the
 * old contents as the CPU sees them, @p freed. NULL, with @p as it was and
 * still managed, when no memory can be had, @gfp has unknown bits or @size
 * is above KMALLOC_MAX_SIZE (reported), or @p's slot is still mapped for
 * DMA (reported by the checker, as a kfree() of it would be).
 */
void *dmamap_krealloc_managed(const void *p, size_t size, gfp_t gfp, const char *file, int line);
/* Whether live @dev holds the coherent buffer at @vaddr as a managed resource (dmam_alloc_coherent()). */
bool dmamap_devres_holds_coherent(struct device *dev, const void *vaddr);

/* ---------------------------------------------------------------- iova */

/* Whether [addr, addr + size) is exactly one live allocation of @a (what a free would accept). */
bool dmamap_iova_owns(struct dmamap_iova *a, dma_addr_t addr, size_t size);
/*
 * Test hook: the next @n growths of @a's bitmaps (on demand, or to the whole
 * space in dmamap_iova_set_cache()) fail as if host memory ran out.
 */
void dmamap_iova_fail_next_grows(struct dmamap_iova *a, unsigned long n);
/* Make @a's bitmaps cover its whole space now (no growth later): 0 or -ENOMEM. */
int dmamap_iova_grow_all(struct dmamap_iova *a);
/* dmamap_iova_destroy(), its leaks reported through machine @m's log (NULL: the process-wide log). */
void dmamap_iova_destroy_in(struct dmamap_iova *a, struct dmamap_machine *m);
/*
 * Test hook: how many word classes and node summaries differ from a
 * recomputation from the bitmaps, plus 1 when a granule below the search
 * start is free (0 when all is consistent).
 */
unsigned long dmamap_iova_check_summaries(struct dmamap_iova *a);
/*
 * Test hook: thread caches' hits claim the cache as where membarrier() is
 * missing (@on), or not where it is there (!@on). Only while no thread is in
 * a cache operation.
 */
void dmamap_iova_claiming_hits(bool on);

/* ----------------------------------------------------------- dmabounce */

/*
 * Forced teardown at device release: live safe buffers are reported as a
 * leak and freed without copying back; the pools go; default ops return.
 */
void dmamap_dmabounce_release(struct device *dev);
void dmamap_dmabounce_check(struct device *dev, struct dm_check *c);
void dmamap_dmabounce_census(struct device *dev, struct dm_census *cs);
/* Give back the coherent safe buffers kept for reuse (what a shrink of the machine does). */
void dmamap_dmabounce_shrink(struct device *dev);

/* -------------------------------------------------------------- iommu */

/*
 * The device side of an IOMMU (iommu.c): translate @iova for an access of
 * @dev. On success *phys is the physical address and *len the bytes from
 * there that stay contiguous and mapped with the needed permission (at least
 * 1, up to the end of the entry or of what the IOTLB holds apart). On a
 * fault the handler is called, the fault recorded and reported, and -EFAULT
 * returned. A stale IOTLB entry translates as it did, reported unless
 * @quiet (an access translated a second time, to move its bytes).
 */
int dmamap_iommu_translate(struct iommu_domain *domain, struct device *dev, unsigned long iova, bool write, bool quiet,
			   phys_addr_t *phys, size_t *len);
struct dmamap_machine *dmamap_iommu_machine(const struct iommu_domain *domain);
/* A domain for a mapper's own use: not on the machine's object list (its mapping is). */
struct iommu_domain *dmamap_iommu_domain_create(struct dmamap_machine *m);
/* A mapper's domain, when its machine goes: tables freed, dead (dmamap_iommu_domain_destroy() frees the rest). */
void dmamap_iommu_domain_kill(struct iommu_domain *domain);
/* Free a mapper's domain, as iommu_domain_free() frees one of iommu_domain_alloc() (which refuses this one). */
void dmamap_iommu_domain_destroy(struct iommu_domain *domain);
void dmamap_iommu_domain_check(struct iommu_domain *domain, struct dm_check *c);
void dmamap_iommu_domain_census(struct iommu_domain *domain, struct dm_census *cs);
/* Free the domain's empty tables (kept after unmap as a cache): what a shrink under memory pressure gives back. */
void dmamap_iommu_domain_shrink(struct iommu_domain *domain);
/*
 * iommu_map() and iommu_unmap() of a domain the caller holds for as long as
 * it uses it (the mapper's own): the same, without the lookup of the
 * pointer in the table of owned objects that the public calls make first.
 */
int dmamap_iommu_map_held(struct iommu_domain *domain, unsigned long iova, phys_addr_t paddr, size_t size, int prot);
size_t dmamap_iommu_unmap_held(struct iommu_domain *domain, unsigned long iova, size_t size);
/*
 * An IOMMU permission bit the hardware ignores, kept in the entry for the
 * mapper: its coherent buffers carry it, its streaming mappings do not.
 * iommu_map() refuses it; dmamap_iommu_map_tagged() is dmamap_iommu_map_held()
 * allowing it.
 */
#define DM_IOMMU_TAG (1 << 2)
int dmamap_iommu_map_tagged(struct iommu_domain *domain, unsigned long iova, phys_addr_t paddr, size_t size, int prot);
/*
 * dmamap_iommu_map_held() for dma_iova_link() at @file:@line: the pages stay
 * out of the IOTLB, so a device access there faults, until
 * dmamap_iommu_sync_map() of them (dma_iova_sync()), an unmap, or an IOTLB
 * invalidate over them. -ENOMEM also when their record cannot be had.
 */
int dmamap_iommu_map_unsynced(struct iommu_domain *domain, unsigned long iova, phys_addr_t paddr, size_t size,
			      int prot, const char *file, int line);
/* The IOMMU's iotlb_sync_map over [iova, iova + size): the pages mapped there become usable. */
void dmamap_iommu_sync_map(struct iommu_domain *domain, unsigned long iova, size_t size);
/*
 * What @iova translates to: 0, *pa and *prot (IOMMU_READ/WRITE, DM_IOMMU_TAG;
 * @prot may be NULL), or -ENOENT when unmapped (physical address 0 is valid).
 */
int dmamap_iommu_lookup(struct iommu_domain *domain, u64 iova, phys_addr_t *pa, int *prot);
/* Call @fn on every leaf (iova, bytes, physical address) of @domain, with its lock held. */
void dmamap_iommu_for_each_leaf(struct iommu_domain *domain,
				void (*fn)(void *arg, u64 iova, u64 size, phys_addr_t pa), void *arg);

/* -------------------------------------------------------------- debug */

/*
 * The DMA-API checker (dma-debug.c). The core brackets each DMA operation
 * with these calls while the checker is on; a record (struct dm_map) is
 * prepared before a map (NULL: no memory, the map fails) and completed after.
 */
struct dm_map;

static inline bool dmamap_debug_on(struct dmamap_machine *m)
{
	return !atomic_load_explicit(&m->checker_off, memory_order_relaxed);
}

int dmamap_debug_machine_init(struct dmamap_machine *m);
void dmamap_debug_machine_fini(struct dmamap_machine *m);
/* Forget what @dev still has tracked (device release). */
void dmamap_debug_device_release(struct device *dev);
/* A streaming mapping made (+1) or released (-1) while the checker is off. */
void dmamap_debug_untracked(struct dmamap_machine *m, long delta);

/* Report what @dev still has mapped, and forget it (device release, before the layers' teardown). */
void dmamap_debug_device_leaks(struct device *dev);
/*
 * A dma_alloc_noncoherent() or dma_alloc_pages() buffer at @cpu/@handle:
 * note its direction and the calls that made it (@what) and free it (@pair),
 * which the reports about it name (@freeing false); or report a release
 * (@what: its call's name, @pair unused) naming another direction.
 */
void dmamap_debug_noncoherent(struct device *dev, const void *cpu, dma_addr_t handle, int dir, bool freeing,
			      const char *what, const char *pair);
/* The device leaves its IOMMU mapping: what its driver still has live through it is reported and forgotten. */
void dmamap_debug_detach_leaks(struct device *dev);

struct dm_map *dmamap_debug_map_prepare(struct device *dev, unsigned long offset, size_t size);
void dmamap_debug_map_done(struct dm_map *map, struct device *dev, bool page_call, phys_addr_t phys, size_t size,
			   int dir, struct dma_attrs *attrs, dma_addr_t addr, bool failed, const char *file, int line);
/* dma_mapping_error() was asked about @addr. */
void dmamap_debug_mapping_error(struct device *dev, dma_addr_t addr);
/*
 * Before an unmap (or sync): check it against the record. false: refused
 * (reported), the operation must not run. true: run it, then
 * dmamap_debug_put(*hold) (*hold may be NULL).
 */
bool dmamap_debug_unmap(struct device *dev, bool page_call, dma_addr_t addr, size_t size, int dir, const char *file,
			int line, struct dm_map **hold);
/* @what: the driver's call, for the reports (dma_sync_single_for_cpu, or a 6.x sync built on it) */
bool dmamap_debug_sync(struct device *dev, dma_addr_t addr, size_t size, int dir, bool for_cpu, const char *what,
		       const char *file, int line, struct dm_map **hold);
struct dm_map *dmamap_debug_map_sg_prepare(struct device *dev, struct scatterlist *sg, int nents);
void dmamap_debug_map_sg_done(struct dm_map *map, struct device *dev, struct scatterlist *sg, int nents, int mapped,
			      int dir, struct dma_attrs *attrs, const char *file, int line);
bool dmamap_debug_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, int dir, const char *file, int line,
			   struct dm_map **hold);
bool dmamap_debug_sync_sg(struct device *dev, struct scatterlist *sg, int nents, int dir, bool for_cpu,
			  const char *file, int line, struct dm_map **hold);
/* The device is about to read (or write) bus [addr, addr + len): check it against what @dev has mapped. */
void dmamap_debug_dev_access(struct device *dev, dma_addr_t addr, size_t len, bool write);
/* ... and has written it (@src, or @c repeated when @src is NULL): no CPU store there. */
void dmamap_debug_dev_wrote(struct device *dev, dma_addr_t addr, const void *src, int c, size_t len);
/*
 * The IOMMU refused @dev's access at @iova: write into @buf what the checker
 * knows of that address (the mapping there and where it was made, or the
 * release of the mapping that started there); "" when it knows nothing.
 */
void dmamap_debug_fault_cause(struct device *dev, dma_addr_t iova, char *buf, size_t n);
/* Coherent buffers (dma_alloc_attrs) and pool blocks, as the streaming calls above. */
struct dm_map *dmamap_debug_alloc_prepare(struct device *dev, size_t size);
void dmamap_debug_alloc_done(struct dm_map *map, struct device *dev, size_t size, const void *cpu, dma_addr_t handle,
			     struct dma_attrs *attrs, const char *file, int line);
/*
 * A coherent free by the driver's call @what (dma_free_attrs, or a 6.x free
 * built on it): as a pool free, and when *@attrs (NULL: none) differs from
 * the allocation's attrs in one that decides what the buffer is (reported),
 * *@attrs is pointed at @made, filled with the allocation's, for the ops.
 */
bool dmamap_debug_free(struct device *dev, size_t size, const void *cpu, dma_addr_t handle, struct dma_attrs **attrs,
		       struct dma_attrs *made, const char *what, const char *file, int line, struct dm_map **hold);
/*
 * dma_mmap_attrs()/dma_get_sgtable() of (@cpu, @handle, @size): false when
 * it names no live buffer (reported). With @attrs (dma_mmap_attrs()), when
 * *@attrs (NULL: none) differs from the allocation's in one that decides the
 * user mapping's protection (reported), *@attrs is pointed at @made, filled
 * with the allocation's, for the ops.
 */
bool dmamap_debug_buffer_use(struct device *dev, const void *cpu, dma_addr_t handle, size_t size,
			     struct dma_attrs **attrs, struct dma_attrs *made, const char *what);
struct dm_map *dmamap_debug_pool_prepare(struct device *dev, size_t size);
void dmamap_debug_pool_alloc_done(struct dm_map *map, struct device *dev, struct dma_pool *pool, size_t size,
				  const void *cpu, dma_addr_t handle, const char *file, int line);
bool dmamap_debug_pool_free(struct device *dev, struct dma_pool *pool, size_t size, const void *cpu,
			    dma_addr_t handle, const char *file, int line, struct dm_map **hold);
/* Report the blocks of @pool its driver still holds, and forget them (dma_pool_destroy). */
void dmamap_debug_pool_destroy(struct device *dev, struct dma_pool *pool);
/* A sync's operation is done: the device's new part is watched for CPU stores; the record let go. */
void dmamap_debug_sync_done(struct dm_map *map, struct device *dev, bool for_cpu);
/* The operation is done: let go of the record a check handed out; NULL is ignored. */
void dmamap_debug_put(struct dm_map *map, struct device *dev);

#endif /* DMAMAP_INTERNAL_H */
