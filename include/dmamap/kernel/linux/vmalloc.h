/* SPDX-License-Identifier: MIT */
/*
 * <linux/vmalloc.h> of Linux 6.x over libdmamap: vmalloc(), vzalloc(),
 * __vmalloc(), vmalloc_user(), vmalloc_array(), vcalloc(), vfree(),
 * vfree_atomic(), vmap() and vunmap() of a page array, vmalloc_to_page(),
 * vmalloc_to_pfn(), the VM_* flags, and flush_kernel_vmap_range() and
 * invalidate_kernel_vmap_range() (which the kernel declares in
 * <asm/cacheflush.h>, reached through <linux/highmem.h>). See
 * <dmamap/vmalloc.h> for the model and the reports; is_vmalloc_addr() is
 * <linux/mm.h>'s, which this header brings.
 */
#ifndef _LINUX_VMALLOC_H
#define _LINUX_VMALLOC_H

#include <dmamap/linux-api.h>
#include <linux/cleanup.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <dmamap/vmalloc.h>

DMAMAP_BEGIN_DECLS

/**
 * flush_kernel_vmap_range() - write back the cache lines of a vmap alias before I/O through other mappings
 * @vaddr: the vmalloc or vmap address
 * @size: bytes
 *
 * Nothing to do, as on ARM with a PIPT or non-aliasing VIPT data cache (all
 * ARMv7 and later): the simulated cache is indexed by physical address, so
 * the alias and the linear map share their lines. Maintenance for a device
 * is the DMA API's (dma_map_page() of vmalloc_to_page()) all the same.
 */
static inline void flush_kernel_vmap_range(void *vaddr, int size)
{
	(void)vaddr;
	(void)size;
}

/**
 * invalidate_kernel_vmap_range() - drop a vmap alias's cache lines after I/O through other mappings
 * @vaddr: the vmalloc or vmap address
 * @size: bytes
 *
 * Nothing to do, for the reason flush_kernel_vmap_range() gives.
 */
static inline void invalidate_kernel_vmap_range(void *vaddr, int size)
{
	(void)vaddr;
	(void)size;
}

DMAMAP_END_DECLS

/* The free class of <linux/cleanup.h>: void *p __free(vfree) = vmalloc(...). */
DEFINE_FREE(vfree, void *, if (_T) dmamap_vfree_at(_T, NULL, 0))

#endif /* _LINUX_VMALLOC_H */
