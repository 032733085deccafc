/* SPDX-License-Identifier: MIT */
/* The toy camera driver: kernel DMA API only, nothing simulator-specific. */
#include <stdlib.h>
#include <string.h>

#include "toy-camera.h"

static void frame_free(struct toy_frame *f)
{
	if (f->sgt.sgl)
		sg_free_table(&f->sgt);
	for (unsigned i = 0; f->pages && i < f->npages; i++)
		if (f->pages[i])
			__free_page(f->pages[i]);
	free(f->pages);
	memset(f, 0, sizeof(*f));
}

static int frame_alloc(struct toy_camera *cam, struct toy_frame *f)
{
	struct page **spacers;
	int n;

	f->npages = PAGE_ALIGN(CAM_FRAME_BYTES) >> PAGE_SHIFT;
	f->pages = calloc(f->npages, sizeof(*f->pages));
	spacers = calloc(f->npages, sizeof(*spacers));
	if (!f->pages || !spacers) {
		free(spacers);
		free(f->pages);
		f->pages = NULL;
		return -ENOMEM;
	}
	/* every other page is someone else's, as in a long-running system: the frame is scattered */
	for (unsigned i = 0; i < f->npages; i++) {
		f->pages[i] = alloc_page(GFP_KERNEL);
		spacers[i] = alloc_page(GFP_KERNEL);
	}
	for (unsigned i = 0; i < f->npages; i++)
		if (spacers[i])
			__free_page(spacers[i]);
	free(spacers);
	for (unsigned i = 0; i < f->npages; i++)
		if (!f->pages[i])
			goto fail;
	if (sg_alloc_table_from_pages(&f->sgt, f->pages, f->npages, 0, CAM_FRAME_BYTES, GFP_KERNEL))
		goto fail;
	n = dma_map_sg(cam->dev, f->sgt.sgl, (int)f->sgt.orig_nents, cam->dir);
	if (!n) {
		sg_free_table(&f->sgt);
		goto fail;
	}
	f->sgt.nents = (unsigned)n;
	return 0;

fail:
	frame_free(f);
	return -ENOMEM;
}

int toy_camera_open(struct toy_camera *cam, struct device *dev, enum dma_data_direction dir)
{
	memset(cam, 0, sizeof(*cam));
	cam->dev = dev;
	cam->dir = dir;
	/* the capture engine takes segments of any length */
	if (dma_set_max_seg_size(dev, CAM_FRAME_BYTES))
		return -EIO;
	for (unsigned i = 0; i < CAM_FRAMES; i++) {
		if (frame_alloc(cam, &cam->frame[i])) {
			toy_camera_close(cam);
			return -ENOMEM;
		}
	}
	return 0;
}

void toy_camera_close(struct toy_camera *cam)
{
	for (unsigned i = 0; i < CAM_FRAMES; i++) {
		struct toy_frame *f = &cam->frame[i];

		if (f->sgt.nents)
			dma_unmap_sg(cam->dev, f->sgt.sgl, (int)f->sgt.orig_nents, cam->dir);
		frame_free(f);
	}
}

int toy_camera_read_frame(struct toy_camera *cam, unsigned i, void *out)
{
	struct toy_frame *f = &cam->frame[i];

	dma_sync_sg_for_cpu(cam->dev, f->sgt.sgl, (int)f->sgt.orig_nents, cam->dir);
	if (sg_copy_to_buffer(f->sgt.sgl, f->sgt.orig_nents, out, CAM_FRAME_BYTES) != CAM_FRAME_BYTES)
		return -EIO;
	dma_sync_sg_for_device(cam->dev, f->sgt.sgl, (int)f->sgt.orig_nents, cam->dir);
	return 0;
}
