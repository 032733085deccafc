/* SPDX-License-Identifier: MIT */
/*
 * dmamap-demo: a prototype driver's classic DMA mistakes, caught on a
 * simulated non-coherent ARM machine.
 *
 * A toy network device transmits a frame the CPU built and receives one into
 * a buffer the CPU then reads. Each path is run the right way and with one
 * mistake; the simulated hardware shows what the device and the CPU really
 * see. Exit status 0 when every mistake was visible and every right way
 * worked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmamap/dmamap.h>

#define FRAME 1500

static int failures;

static void verdict(const char *what, bool correct_data, bool expect_correct)
{
	bool ok = correct_data == expect_correct;

	printf("  %-58s %-14s %s\n", what, correct_data ? "correct data" : "STALE data",
	       ok ? (expect_correct ? "ok" : "caught") : "UNEXPECTED");
	if (!ok)
		failures++;
}

static void fill_frame(unsigned char *p, unsigned seed)
{
	for (int i = 0; i < FRAME; i++)
		p[i] = (unsigned char)(i * 7 + seed);
}

static bool frame_ok(const unsigned char *p, unsigned seed)
{
	for (int i = 0; i < FRAME; i++)
		if (p[i] != (unsigned char)(i * 7 + seed))
			return false;
	return true;
}

/* Transmit: the CPU builds a frame, the device reads it. */
static void transmit(struct device *dev, bool map_it)
{
	unsigned char *frame = (unsigned char *)__get_free_pages(GFP_KERNEL, 0);
	unsigned char wire[FRAME];
	dma_addr_t bus;

	fill_frame(frame, map_it ? 1 : 4);
	if (map_it) {
		bus = dma_map_single(dev, frame, FRAME, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, bus))
			failures++;
	} else {
		bus = virt_to_phys(frame); /* the bug: handing the device a bus address with no map */
	}
	if (dmamap_dev_read(dev, bus, wire, FRAME) != 0)
		failures++;
	verdict(map_it ? "TX: dma_map_single(DMA_TO_DEVICE), device reads"
		       : "TX: no dma_map_single (bus = virt_to_phys), device reads",
		frame_ok(wire, map_it ? 1 : 4), map_it);
	if (map_it)
		dma_unmap_single(dev, bus, FRAME, DMA_TO_DEVICE);
	free_pages((unsigned long)frame, 0);
}

/* Receive: the device writes a frame, the CPU reads it. */
static void receive(struct device *dev, bool unmap_it)
{
	unsigned char *buf = (unsigned char *)get_zeroed_page(GFP_KERNEL);
	unsigned char wire[FRAME];
	dma_addr_t bus;
	bool good;

	bus = dma_map_single(dev, buf, FRAME, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, bus))
		failures++;
	fill_frame(wire, unmap_it ? 2 : 5);
	if (dmamap_dev_write(dev, bus, wire, FRAME) != 0)
		failures++;
	if (unmap_it)
		dma_unmap_single(dev, bus, FRAME, DMA_FROM_DEVICE);
	good = frame_ok(buf, unmap_it ? 2 : 5); /* the CPU reads the frame */
	verdict(unmap_it ? "RX: device writes, dma_unmap_single, CPU reads"
			 : "RX: device writes, CPU reads before dma_unmap_single",
		good, unmap_it);
	if (!unmap_it)
		dma_unmap_single(dev, bus, FRAME, DMA_FROM_DEVICE);
	free_pages((unsigned long)buf, 0);
}

/* A coherent descriptor ring needs no maintenance at all. */
static void descriptors(struct device *dev)
{
	dma_addr_t bus;
	unsigned char *ring = dma_alloc_coherent(dev, PAGE_SIZE, &bus, GFP_KERNEL);
	unsigned char seen[64];

	fill_frame(ring, 3);
	if (!ring || dmamap_dev_read(dev, bus, seen, sizeof(seen)) != 0)
		failures++;
	verdict("descriptors in dma_alloc_coherent memory, device reads", ring && memcmp(seen, ring, sizeof(seen)) == 0,
		true);
	dma_free_coherent(dev, PAGE_SIZE, ring, bus);
}

int main(void)
{
	struct dmamap_machine_config cfg;
	struct dmamap_cache_stats st;
	struct dmamap_machine *m;
	struct device dev = { 0 };

	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 64u << 20;
	cfg.outer_cache = true;
	cfg.speculative_prefetch = true;
	m = dmamap_machine_create(&cfg);
	if (!m || dmamap_device_init(&dev, m, "toy-eth")) {
		fprintf(stderr, "dmamap-demo: cannot create the simulated machine\n");
		return 2;
	}
	dmamap_set_log_level(m, DMAMAP_LOG_WARN);

	printf("libdmamap %s demo: a toy NIC on a non-coherent ARM machine\n", DMAMAP_VERSION_STRING);
	printf("(64 MiB RAM, %u-byte lines, inner + outer cache, speculative prefetch)\n\n", cfg.cache_line_size);
	transmit(&dev, true);
	transmit(&dev, false);
	receive(&dev, true);
	receive(&dev, false);
	descriptors(&dev);

	dmamap_cache_get_stats(m, &st);
	printf("\ncache maintenance: inner %lu lines cleaned, %lu invalidated; outer %lu cleaned, %lu invalidated;"
	       " %lu lines prefetched\n",
	       st.level[DMAMAP_CACHE_INNER].lines_cleaned, st.level[DMAMAP_CACHE_INNER].lines_invalidated,
	       st.level[DMAMAP_CACHE_OUTER].lines_cleaned, st.level[DMAMAP_CACHE_OUTER].lines_invalidated,
	       st.lines_prefetched);
	printf("%s\n", failures ? "the simulation did NOT behave as the hardware would" : "every mistake was caught");

	dmamap_device_release(&dev);
	dmamap_machine_destroy(m);
	return failures ? 1 : 0;
}
