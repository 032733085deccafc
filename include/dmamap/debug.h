/* SPDX-License-Identifier: MIT */
/*
 * The DMA-API checker: the library's dma-debug.
 *
 * Every machine keeps a tracker of what its drivers have live: each streaming
 * mapping (dma_map_single(), dma_map_page(), every list mapped by
 * dma_map_sg()), with its device, bus address, CPU address, size, direction,
 * attributes, the file:line of the call that made it, whether
 * dma_mapping_error() was asked about it, and who owns it now (the CPU or
 * the device). The DMA core consults it on every call. It is on by default
 * and can be switched off per machine, at run time.
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
 * Switching off forgets everything tracked so far: later unmaps of mappings
 * made while it was on are not checked. Switching on is refused while
 * streaming mappings made with the checker off are still live (as counted by
 * the map and unmap calls made meanwhile), since the checker would not know
 * them and would refuse their unmaps. Neither switch may race with DMA API
 * calls on @m from other threads.
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

/* What the checker tracks on one machine right now, and since it was created. */
struct dmamap_checker_stats {
	unsigned long live_single;   /* dma_map_single() mappings not yet unmapped */
	unsigned long live_page;     /* dma_map_page() mappings */
	unsigned long live_sg;       /* dma_map_sg() lists */
	unsigned long tracked;       /* mappings ever tracked */
	unsigned long untracked_live; /* mappings made with the checker off and still live */
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
