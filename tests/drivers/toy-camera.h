/* SPDX-License-Identifier: MIT */
/*
 * A toy camera driver written against the kernel DMA API only: frame buffers
 * built from scattered pages, described by sg tables and mapped with
 * dma_map_sg, handed back and forth with the sg syncs. The same code runs on
 * a device that addresses RAM directly and on one behind an IOMMU.
 */
#ifndef TOY_CAMERA_H
#define TOY_CAMERA_H

#include <dmamap/dmamap.h>

#define CAM_FRAMES 3
#define CAM_FRAME_BYTES (300u * 1024u)

struct toy_frame {
	struct page **pages;
	unsigned npages;
	struct sg_table sgt;  /* sgt.nents: DMA segments after mapping */
};

struct toy_camera {
	struct device *dev;
	enum dma_data_direction dir; /* DMA_FROM_DEVICE; anything else is a bug */
	struct toy_frame frame[CAM_FRAMES];
};

int toy_camera_open(struct toy_camera *cam, struct device *dev, enum dma_data_direction dir);
void toy_camera_close(struct toy_camera *cam);
/* The CPU's copy of frame @i after the device filled it. */
int toy_camera_read_frame(struct toy_camera *cam, unsigned i, void *out);

#endif
