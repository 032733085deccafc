/* SPDX-License-Identifier: MIT */
/*
 * A driver that reads its receive buffer while the device owns it ("read"),
 * or only after the unmap ("correct"): run by test-poison under a tool
 * (valgrind's memcheck, or built with AddressSanitizer) that should report
 * the first at the line it prints.
 */
#include <stdio.h>
#include <string.h>

#include <dmamap/dmamap.h>

int main(int argc, char **argv)
{
	struct dmamap_machine *m = dmamap_machine_create(NULL);
	bool misuse = argc > 1 && strcmp(argv[1], "read") == 0;
	static u8 frame[256];
	struct device dev;
	struct page *pg;
	volatile u8 *buf;
	dma_addr_t h;
	int got = 0;

	memset(&dev, 0, sizeof(dev));

	if (!m || dmamap_device_init(&dev, m, "rxdev"))
		return 2;
	pg = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 0);
	if (!pg)
		return 2;
	buf = page_address(pg);
	h = dma_map_single(&dev, (void *)buf, sizeof(frame), DMA_FROM_DEVICE);
	if (dma_mapping_error(&dev, h))
		return 2;
	memset(frame, 0x5a, sizeof(frame));
	if (dmamap_dev_write(&dev, h, frame, sizeof(frame)))
		return 2;
	if (misuse) {
		printf("read at line %d\n", __LINE__ + 2);
		fflush(stdout); /* ASan ends the process at the read */
		got = buf[10];
	}
	dma_unmap_single(&dev, h, sizeof(frame), DMA_FROM_DEVICE);
	got += buf[11];
	printf("got %d\n", got);
	dmamap_free_pages(pg, 0);
	dmamap_device_release(&dev);
	dmamap_machine_destroy(m);
	return 0;
}
