/* SPDX-License-Identifier: MIT */
/*
 * The simulated SoC: RAM, its CPU-cached view, the DMA zone, the coherent
 * remap region, and the registry of machines in the process.
 *
 * A machine is self-contained: several can live in one process, each with its
 * own RAM, caches, page allocator, devices and report counter. Kernel-style
 * calls that have no machine argument (alloc_pages(), phys_to_virt()...) act on
 * the *current* machine, which is created with defaults on first use.
 */
#ifndef DMAMAP_MACHINE_H
#define DMAMAP_MACHINE_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/*
 * What each option makes a driver bug show as, on this machine:
 *   outer_cache           an outer (PL310-like L2) level: maintenance of the
 *                         inner level only (dmac_* without outer_*), or in the
 *                         wrong order (dev->cpu must be outer then inner),
 *                         leaves stale or lost data, as on hardware
 *   speculative_prefetch  the CPU pulls invalidated lines back in at every
 *                         API call and device access (and the outer level
 *                         refills from RAM): a receive buffer read before
 *                         dma_sync_single_for_cpu()/unmap is stale, an
 *                         invalidate done only at map time is not enough
 *   coherent              caches snooped (arch_is_coherent()): no
 *                         maintenance is needed, so none of the above shows
 *   cache_line_size       the granule of every edge effect: a FROM_DEVICE
 *                         buffer sharing a line with other data loses bytes
 *   dma_zone_limit        RAM some devices cannot reach: what dmabounce is for
 *   kmalloc_packed        kmalloc objects sharing cache lines: the edge
 *                         effect above, for buffers from kmalloc
 * The default machine has an outer cache and speculative prefetch: a driver
 * correct on it is correct on the simpler ones.
 */
struct dmamap_machine_config {
	uint64_t ram_base;            /* default 0x40000000; page aligned */
	uint64_t ram_size;            /* default 256 MiB; page multiple, >= 1 MiB */
	uint64_t dma_zone_limit;      /* arm_dma_limit: GFP_DMA pages lie below it; 0 = none */
	unsigned cache_line_size;     /* default 32; a power of two from 16 to 256 */
	bool coherent;                /* arch_is_coherent(): caches snooped, no maintenance */
	bool outer_cache;             /* model an outer (L2) cache level; default on */
	bool speculative_prefetch;    /* the CPU may pull lines into cache at any time; default on */
	size_t consistent_size;       /* coherent remap region; default 16 MiB; page multiple */
	uint64_t seed;                /* all simulated randomness derives from it */
	bool kmalloc_packed;          /* kmalloc packs small objects 8-byte aligned, sharing cache
	                               * lines; default false: each object starts and ends on a
	                               * cache line (ARCH_DMA_MINALIGN), see <dmamap/slab.h> */
};

/**
 * dmamap_machine_config_init() - fill @cfg with the defaults
 * @cfg: caller-owned configuration to overwrite
 *
 * Defaults: the demanding ARMv7 machine (Cortex-A9 + PL310-like): 256 MiB of
 * RAM at 0x40000000, no DMA zone limit, 32-byte lines, non-coherent, an outer
 * cache and speculative prefetch (the meson options default_outer_cache and
 * default_speculative_prefetch can change these two at build time), 16 MiB
 * consistent region, seed 1, kmalloc objects cache-line aligned (not
 * packed). Clear outer_cache and speculative_prefetch for a simpler machine.
 */
DMAMAP_API void dmamap_machine_config_init(struct dmamap_machine_config *cfg);

/**
 * dmamap_machine_create() - build a simulated machine
 * @cfg: the configuration, or NULL for the defaults; copied, not kept
 *
 * Creates RAM (a memfd), the CPU's cached view of it, the page allocator, the
 * cache model and the consistent region, and registers the machine so that
 * its linear-map addresses resolve with virt_to_phys(). The first machine
 * created while there is no current machine becomes current.
 *
 * Return: the machine, or NULL with errno set: EINVAL for a configuration out
 * of range (unaligned base or size, RAM under 1 MiB, a line size that is not
 * a power of two between 16 and 256, a DMA zone limit that is unaligned or
 * outside RAM, a consistent size that is zero or unaligned, an address range
 * that overflows), ENOMEM (or the errno of memfd_create/mmap) when the host
 * cannot provide the memory.
 */
DMAMAP_API struct dmamap_machine *dmamap_machine_create(const struct dmamap_machine_config *cfg);

/**
 * dmamap_machine_destroy() - tear a machine down
 * @m: the machine; NULL is ignored
 *
 * Every device still initialised on @m, every page still allocated, every
 * consistent-region mapping and user vma still present is reported as a leak
 * (DMAMAP_REPORT_LEAK) and then freed. Destroying the current machine leaves
 * no current machine. The caller must ensure no other thread uses @m. A
 * pointer that is no live machine (one destroyed already, unless a new
 * machine took its place) is reported (DMAMAP_REPORT_BAD_INPUT, process-wide)
 * and nothing is done.
 *
 * RAM, the CPU's view and the consistent region go back to the host at once.
 * The host memory that held the machine's internal state (struct pages, line
 * state, the cache's copies) is zeroed where the machine wrote it and kept
 * for the next machine of the same size, unless much of it was written or
 * the process runs under memcheck (the four most recently destroyed are
 * kept, process-wide): a machine made after another then finds those pages
 * there instead of faulting them in. So a struct page of a destroyed machine
 * may read as one of a later machine; like every pointer into a destroyed
 * machine, it must not be used.
 */
DMAMAP_API void dmamap_machine_destroy(struct dmamap_machine *m);

/**
 * dmamap_machine_current() - the machine kernel-style calls act on
 *
 * Return: the current machine; when there is none, a machine with the default
 * configuration is created, made current, and returned (NULL only if that
 * creation fails, errno set). A machine created this way is owned by the
 * caller like any other and is destroyed with dmamap_machine_destroy().
 */
DMAMAP_API struct dmamap_machine *dmamap_machine_current(void);

/**
 * dmamap_machine_set_current() - make @m the current machine
 * @m: a live machine, or NULL for none
 */
DMAMAP_API void dmamap_machine_set_current(struct dmamap_machine *m);

/**
 * dmamap_machine_get_config() - the configuration @m was created with
 * @m: the machine
 * @cfg: caller-owned; receives a copy with every default filled in
 */
DMAMAP_API void dmamap_machine_get_config(const struct dmamap_machine *m, struct dmamap_machine_config *cfg);

/**
 * dmamap_machine_of() - the machine whose linear map (CPU view) holds @addr
 * @addr: any host pointer
 *
 * Return: the machine, or NULL when @addr lies in no machine's linear map
 * (consistent-region and user-vma addresses are not linear-map addresses).
 */
DMAMAP_API struct dmamap_machine *dmamap_machine_of(const volatile void *addr);

/*
 * Fault injection. Each site counts its attempts; a site fails either the
 * nth attempt from when it was armed, or each attempt with a probability drawn
 * from the machine's seeded generator, or both.
 */
enum dmamap_fault_site {
	DMAMAP_FAULT_PAGE_ALLOC,     /* the buddy page allocator */
	DMAMAP_FAULT_HOST_ALLOC,     /* the library's own bookkeeping (host malloc) */
	DMAMAP_FAULT_REMAP,          /* consistent-region and vma remapping */
	DMAMAP_FAULT_IOVA,           /* IOVA allocation in an IOMMU mapping */
	DMAMAP_FAULT_POOL,           /* dma_pool and safe-buffer pools */
	DMAMAP_FAULT_IOMMU_PGTABLE,  /* IOMMU page-table pages */
	DMAMAP_FAULT_CHECKER,        /* the DMA-API checker's bookkeeping: a call it cannot track fails */
	DMAMAP_FAULT_KMALLOC,        /* each kmalloc-family allocation (<dmamap/slab.h>) */
	DMAMAP_FAULT_SITE_NR
};

/**
 * dmamap_fault_inject() - arm fault injection at one site
 * @m: the machine
 * @site: where to fail
 * @nth: fail the nth attempt from now (1 = the next one), once; 0 = no such failure
 * @ppm: also fail each attempt with probability @ppm / 1,000,000; 0 = never
 *
 * Re-arming replaces the previous setting; nth = 0 and ppm = 0 disarms.
 * Return: 0, or -EINVAL for a bad site or ppm > 1,000,000 (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_fault_inject(struct dmamap_machine *m, enum dmamap_fault_site site,
						      unsigned long nth, unsigned long ppm);

/**
 * dmamap_fault_attempts() - attempts seen at @site since the machine was created
 * @m: the machine
 * @site: the site
 *
 * Return: the count (0 for a bad site). Useful to size a loop that fails each
 * step of an operation in turn.
 */
DMAMAP_API unsigned long dmamap_fault_attempts(struct dmamap_machine *m, enum dmamap_fault_site site);

/**
 * dmamap_fault_injected() - failures injected at @site so far
 * @m: the machine
 * @site: the site
 *
 * Return: the count (0 for a bad site).
 */
DMAMAP_API unsigned long dmamap_fault_injected(struct dmamap_machine *m, enum dmamap_fault_site site);

DMAMAP_END_DECLS

#endif /* DMAMAP_MACHINE_H */
