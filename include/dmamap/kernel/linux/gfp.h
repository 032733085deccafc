/* SPDX-License-Identifier: MIT */
/*
 * <linux/gfp.h> of Linux 6.x over libdmamap: the allocation flags and the
 * page allocator of the current machine (alloc_pages(), __get_free_pages(),
 * free_pages()...).
 *
 * The flags the simulated page allocator acts on keep their meaning
 * (__GFP_DMA, __GFP_ZERO, __GFP_NOWARN, blocking or not). Reclaim and retry
 * hints change nothing on a machine that never reclaims, and are 0 here;
 * __GFP_DMA32 is 0 too, as on ARM, which has no ZONE_DMA32.
 */
#ifndef _LINUX_GFP_H
#define _LINUX_GFP_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>
#include <dmamap/page.h>

#define __GFP_DIRECT_RECLAIM __GFP_WAIT
#define __GFP_KSWAPD_RECLAIM 0u
#define __GFP_RECLAIM __GFP_DIRECT_RECLAIM
#define __GFP_DMA32 0u
#define __GFP_MOVABLE 0u
#define __GFP_RETRY_MAYFAIL 0u
#define __GFP_NORETRY 0u
#define __GFP_NOFAIL 0u
#define __GFP_COMP 0u
#define __GFP_ACCOUNT 0u
#define __GFP_NOMEMALLOC 0u
#define __GFP_MEMALLOC 0u
#define __GFP_NOLOCKDEP 0u
#define GFP_DMA32 __GFP_DMA32
#define GFP_NOFS (__GFP_RECLAIM | __GFP_IO)
#define GFP_USER (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_HIGHUSER GFP_USER
#define GFP_KERNEL_ACCOUNT GFP_KERNEL

#endif /* _LINUX_GFP_H */
