/* SPDX-License-Identifier: MIT */
/*
 * The DMA-API checker: the library's dma-debug.
 *
 * Every machine keeps a tracker of what its drivers have live: each streaming
 * mapping (dma_map_single(), dma_map_page(), every list mapped by
 * dma_map_sg()), coherent buffer (dma_alloc_attrs() and its forms) and
 * dma_pool block, with its device, bus address, CPU address, size,
 * direction, attributes, the file:line of the call that made it, and whether
 * dma_mapping_error() was asked about it. The DMA core consults it on every
 * call, in front of whatever ops set the device uses (arm_dma_ops,
 * dmabounce, the IOMMU mapper, a coherent device, ops a user installs), so
 * one set of checks covers them all. It is on by default and can be switched
 * off per machine, at run time.
 *
 * Each misuse is reported once, through the machine's log handler, with the
 * file:line of the call (struct dmamap_log_record.file/line) and of the
 * mapping concerned (map_file/map_line), the addresses, sizes and directions
 * involved, and a kind of its own (<dmamap/log.h>). What the call then does:
 *
 *   refused -- the ops are not called, nothing changes, the mapping stays as
 *   it was (so the right call still works later), because doing it would
 *   lose data or corrupt the library's state:
 *     DMAMAP_REPORT_NOT_MAPPED      unmap, sync or free of an address the
 *                                   device has no live mapping at (or one
 *                                   inside a mapping but not its start)
 *     DMAMAP_REPORT_DOUBLE_UNMAP    unmap or free of a mapping or buffer
 *                                   already released (the report names
 *                                   where); for a sync: NOT_MAPPED
 *     DMAMAP_REPORT_SIZE_MISMATCH   unmap or coherent free with another
 *                                   size: the ops would invalidate or free
 *                                   the wrong range
 *     DMAMAP_REPORT_DIR_MISMATCH    unmap with another direction: the ops
 *                                   would skip the invalidate or the copy
 *                                   back the device's data needs
 *     DMAMAP_REPORT_KIND_MISMATCH   a list segment unmapped alone, a coherent
 *                                   buffer or pool block unmapped, a
 *                                   streaming mapping freed, a pool block
 *                                   given to dma_free_coherent() or the
 *                                   library's own memory (a pool's page)
 *                                   freed by a driver
 *     DMAMAP_REPORT_SG_MISMATCH     an sg unmap or sync with another nents
 *                                   (pass dma_map_sg()'s nents, not its
 *                                   result) or another list
 *     DMAMAP_REPORT_SYNC_RANGE      a sync of bytes outside the mapping
 *     DMAMAP_REPORT_SYNC_DIRECTION  a sync naming a direction other than a
 *                                   one-way mapping's (a bidirectional
 *                                   mapping may be synced either way, as in
 *                                   the kernel; coherent memory any way)
 *     DMAMAP_REPORT_ADDR_MISMATCH   a coherent or pool free whose CPU address
 *                                   is not the buffer's, or a pool free to
 *                                   another pool
 *     DMAMAP_REPORT_FREE_MAPPED     free_pages(), __free_pages() (and their
 *                                   one-page forms) of pages still mapped for
 *                                   DMA: they stay allocated, so what the
 *                                   device still writes lands in no one
 *                                   else's memory
 *   performed -- reported, then done as asked, because the operation is
 *   safe as it stands:
 *     DMAMAP_REPORT_KIND_MISMATCH   dma_unmap_page() of a dma_map_single()
 *                                   mapping or the reverse (the same
 *                                   operation underneath)
 *     DMAMAP_REPORT_DIR_MISMATCH    dma_free_noncoherent() with another
 *                                   direction than dma_alloc_noncoherent()
 *                                   was given (the free does not use it)
 *     DMAMAP_REPORT_ATTR_MISMATCH   dma_free_attrs() and its forms
 *                                   (dma_free_coherent(),
 *                                   dma_free_writecombine(), Linux 6.x's
 *                                   dma_free_wc()...) naming attributes
 *                                   other than the allocation's among those
 *                                   that decide what the buffer is:
 *                                   DMA_ATTR_WRITE_COMBINE (the memory type
 *                                   of its kernel mapping),
 *                                   DMA_ATTR_NON_CONSISTENT (cached memory
 *                                   in the linear map, not a remapping),
 *                                   DMA_ATTR_NO_KERNEL_MAPPING (no kernel
 *                                   mapping: the address is a cookie) and
 *                                   DMA_ATTR_FORCE_CONTIGUOUS (behind an
 *                                   IOMMU, one contiguous block rather than
 *                                   pages). The kernel's free takes its path
 *                                   from them: it would unmap a kernel
 *                                   mapping that was never made, or give
 *                                   pages back to the wrong allocator. Here
 *                                   the buffer is freed as it was allocated
 *                                   (the ops get the allocation's attrs), so
 *                                   nothing leaks. DMA_ATTR_WRITE_BARRIER,
 *                                   DMA_ATTR_WEAK_ORDERING and
 *                                   DMA_ATTR_SKIP_CPU_SYNC only steer
 *                                   streaming mappings and may differ, as
 *                                   may the Linux 6.x hints the core never
 *                                   sees (DMA_ATTR_NO_WARN,
 *                                   DMA_ATTR_ALLOC_SINGLE_PAGES,
 *                                   DMA_ATTR_PRIVILEGED). dmam_free_coherent()
 *                                   and a managed buffer's release use its
 *                                   allocation's attrs: never reported.
 *                                   So is dma_mmap_attrs() (and
 *                                   dma_mmap_coherent(), dma_mmap_wc()...)
 *                                   naming another DMA_ATTR_WRITE_COMBINE or
 *                                   DMA_ATTR_NON_CONSISTENT than the
 *                                   allocation, which decide the user
 *                                   mapping's page protection (the kernel
 *                                   would map the memory with a second,
 *                                   conflicting memory type): the buffer is
 *                                   mapped as it was allocated
 *     DMAMAP_REPORT_UNCHECKED_ERROR a sync or unmap of a handle
 *                                   dma_mapping_error() was never asked
 *                                   about (once per mapping)
 *     DMAMAP_REPORT_CPU_STORE       the CPU stored into a buffer while the
 *                                   device owned it (between map or
 *                                   sync_for_device and unmap or
 *                                   sync_for_cpu), found from the cache
 *                                   model's dirty bytes when the CPU takes the
 *                                   buffer back (a buffer dirty already at
 *                                   the hand-over -- behind dmabounce, on a
 *                                   coherent device, mapped with
 *                                   DMA_ATTR_SKIP_CPU_SYNC -- against a copy
 *                                   of what the CPU saw then, up to 1 MiB and
 *                                   not for lists); says the first offset,
 *                                   how many bytes, and what they meet
 *     DMAMAP_REPORT_SHARED_CACHELINE a buffer the device may write whose
 *                                   first or last cache line also holds other
 *                                   data: at map time when that is another
 *                                   kmalloc object's (naming it and the
 *                                   buffer's bytes at risk); otherwise at
 *                                   unmap or sync_for_cpu when the CPU did
 *                                   store there and the line went back over
 *                                   the device's bytes (naming them)
 *     DMAMAP_REPORT_MISSING_SYNC    a sync_for_device handing back bytes
 *                                   the device wrote of which the CPU took
 *                                   none (no sync_for_cpu of any of them
 *                                   since): what the CPU read there was stale
 *     DMAMAP_REPORT_OVERLAP         a new mapping of memory another live
 *                                   mapping covers, where either lets the
 *                                   device write
 *     DMAMAP_REPORT_LEAK            at dmamap_device_release() (so at
 *                                   machine destroy too) every mapping, list,
 *                                   coherent buffer and pool block the
 *                                   driver still holds, one report each; at
 *                                   dma_pool_destroy(), each block still
 *                                   taken. The tracker then forgets them.
 *                                   Coherent buffers it never knew (made
 *                                   while it was off) are reported at
 *                                   release too, in one report.
 *
 * Who owns a streaming mapping is followed part by part: a partial sync
 * (dma_sync_single_range_for_cpu/for_device(), or a sync of less than the
 * mapping) gives the CPU or the device just those bytes, so a device access,
 * a CPU store or a hand-back is judged against the parts it touches. A
 * mapping split into more than 1024 separate parts (or whose parts the host
 * has no memory to follow) is no longer judged for ownership: the checker
 * logs a warning once and goes on with its other checks.
 *
 * A device behind an IOMMU that touches what the IOMMU does not map for it
 * (or writes what it maps read-only) gets the IOMMU's fault, one report
 * (DMAMAP_REPORT_IOMMU_FAULT), not a second from the checker: its message
 * names what the checker knows of the address (the live mapping there and
 * where it was made, or where the mapping that started there was released).
 * The IOMMU's IOTLB (<dmamap/iommu.h>) reports its own: a fault on a page
 * dma_iova_link() mapped and no dma_iova_sync() has covered names the link
 * (DMAMAP_REPORT_IOMMU_FAULT), and an access through a translation that
 * iommu_unmap_fast() left stale names the unmap (DMAMAP_REPORT_DEV_UNMAPPED).
 *
 * A refused call raises no second report from the ops behind it: with the
 * checker on, the ops never see it. The library's own allocations (a pool's
 * pages, dmabounce's safe buffers) are tracked too but are never the
 * driver's leaks.
 *
 * The checker's bookkeeping can fail like any host allocation
 * (DMAMAP_FAULT_CHECKER): the map or allocation then fails before the ops
 * run, with nothing changed.
 */
#ifndef DMAMAP_DEBUG_H
#define DMAMAP_DEBUG_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/**
 * dmamap_checker_enable() - switch the DMA-API checker of @m on or off
 * @m: the machine
 * @on: true to track and check, false to stop
 *
 * Switching off forgets everything tracked so far: later releases of what
 * was made while it was on are not checked. Switching on is refused while
 * any mapping, coherent buffer or pool block the checker does not know is
 * still live: one made while it was off, or one that was live when it was
 * switched off (the library's own included, such as a dma_pool's pages or
 * dmabounce's kept safe buffers), as counted by the calls that made and
 * released them meanwhile, since the checker would refuse their release. A
 * release the library refuses (reported, nothing changed: a free with
 * another size, a double dma_pool_free(), an unmap of a handle the ops set
 * has no mapping at) releases nothing and counts nothing; ops a user
 * installs are taken to have released what they were given.
 * Neither switch may race with DMA API calls on @m from other threads.
 * Return: 0 (also when the checker already was as asked); -EINVAL for a NULL
 * machine; -EBUSY when switching on is refused (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_checker_enable(struct dmamap_machine *m, bool on);

/**
 * dmamap_checker_enabled() - whether the checker of @m is on
 * @m: the machine
 *
 * Return: true when on (the default for every new machine); false when it was
 * switched off, or for a NULL machine.
 */
DMAMAP_API bool dmamap_checker_enabled(struct dmamap_machine *m);

/**
 * dmamap_checker_poison() - switch ownership poisoning of @m on or off
 * @m: the machine
 * @on: true (the default for every new machine) to poison, false to stop
 *
 * While the checker is on and the process runs under valgrind's memcheck or
 * with AddressSanitizer, the bytes of a DMA_FROM_DEVICE or DMA_BIDIRECTIONAL
 * buffer the device owns (from map or sync_for_device to unmap or
 * sync_for_cpu; not on a coherent device, nor a bounced mapping) are made
 * inaccessible to the driver, so that a read or write of one is reported by
 * the tool at the driver's line, with a stack (ASan then stops the process;
 * it poisons 8-byte granules, so a buffer's first and last few bytes may stay
 * accessible). Switching off makes every byte poisoned now accessible again
 * at once, for a test that misuses a buffer on purpose to see what the
 * simulated hardware or the checker does with it; switching on poisons again
 * the buffers the device owns then. Outside both tools, it only records the
 * setting. May not race with DMA API calls on @m from other threads.
 * Return: 0 (also when poisoning already was as asked); -EINVAL for a NULL
 * machine.
 */
DMAMAP_API int dmamap_checker_poison(struct dmamap_machine *m, bool on);

/* What the checker tracks on one machine right now, and since it was created. */
struct dmamap_checker_stats {
	unsigned long live_single;   /* dma_map_single() mappings not yet unmapped */
	unsigned long live_page;     /* dma_map_page() mappings */
	unsigned long live_sg;       /* dma_map_sg() lists */
	unsigned long live_coherent; /* dma_alloc_attrs() buffers drivers hold (the library's own not counted) */
	unsigned long live_pool;     /* dma_pool_alloc() blocks drivers hold */
	unsigned long tracked;       /* mappings and buffers ever tracked, the library's own included */
	unsigned long untracked_live; /* live mappings and buffers the checker does not know (made, or live, while off) */
};

/**
 * dmamap_checker_stats() - read what the checker of @m tracks
 * @m: the machine
 * @st: caller-owned, overwritten (zeroed for a NULL machine)
 *
 * A driver that released everything leaves every live_* count at 0.
 */
DMAMAP_API void dmamap_checker_stats(struct dmamap_machine *m, struct dmamap_checker_stats *st);

DMAMAP_END_DECLS

#endif /* DMAMAP_DEBUG_H */
