/* SPDX-License-Identifier: MIT */
/*
 * dmabounce: an ops set for devices that can reach only part of RAM
 * (SA-1111, IXP4xx-style DMA windows). Streaming mappings of buffers the
 * device cannot reach are bounced through "safe" buffers it can: data is
 * copied in before the device reads it and copied back after it writes.
 */
#ifndef DMAMAP_DMABOUNCE_H
#define DMAMAP_DMABOUNCE_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/**
 * dmabounce_register_dev() - make @dev bounce its streaming mappings
 * @dev: an initialised device
 * @small_buffer_size: block size of the small safe-buffer pool (0: no small pool)
 * @large_buffer_size: block size of the large pool, >= the small one (0: none)
 * @needs_bounce: decides per mapping (bus address of the original buffer,
 *                size); non-zero means bounce. NULL: bounce when any byte of
 *                the buffer lies beyond the device's DMA mask.
 *
 * Creates the pools (dma_pool, from the device's coherent memory) and
 * installs the dmabounce ops with set_dma_ops(). A mapping larger than the
 * large pool's blocks bounces through a coherent allocation of its own.
 * Return: 0; -EINVAL (bad device, large < small), -EBUSY (already
 * registered), -ENOMEM (nothing left registered).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmabounce_register_dev(struct device *dev, unsigned long small_buffer_size,
							 unsigned long large_buffer_size,
							 int (*needs_bounce)(struct device *, dma_addr_t, size_t));

/**
 * dmabounce_unregister_dev() - stop bouncing for @dev
 *
 * Refused while safe buffers are still mapped: reported
 * (DMAMAP_REPORT_API_MISUSE) and -EBUSY, nothing changed. Otherwise dumps the
 * statistics at debug level, frees the pools and restores the default ops.
 * Return: 0, -EBUSY, or -EINVAL for a device that is not registered.
 */
DMAMAP_API int dmabounce_unregister_dev(struct device *dev);

struct dmabounce_stats {
	unsigned long map_calls;            /* map_page calls (bounced or not) */
	unsigned long direct_maps;          /* mappings that did not need a bounce */
	unsigned long bounces_small;        /* bounced through the small pool */
	unsigned long bounces_large;        /* bounced through the large pool */
	unsigned long bounces_alloc;        /* bounced through a coherent allocation of their own */
	unsigned long bytes_to_device;      /* copied into safe buffers */
	unsigned long bytes_from_device;    /* copied back out of safe buffers */
	unsigned long live_buffers;         /* safe buffers mapped now */
	unsigned long high_water_small;     /* most small-pool buffers mapped at once */
	unsigned long high_water_large;
	unsigned long high_water_alloc;
	unsigned long failures;             /* mappings that failed (no safe buffer, beyond mask...) */
};

/**
 * dmabounce_get_stats() - read @dev's bounce counters
 * Return: 0, or -EINVAL when @dev is not registered (@st untouched).
 */
DMAMAP_API int dmabounce_get_stats(struct device *dev, struct dmabounce_stats *st);

DMAMAP_END_DECLS

#endif /* DMAMAP_DMABOUNCE_H */
