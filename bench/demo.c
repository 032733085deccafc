/* SPDX-License-Identifier: MIT */
/*
 * dmamap-demo: a prototype driver's classic DMA mistakes, caught on a
 * simulated non-coherent ARM machine.
 *
 * A toy network device transmits a frame the CPU built and receives one into
 * a buffer the CPU then reads. Each path is run the right way and with a
 * mistake; for each, the demo prints what the CPU and the device really saw
 * (the first bytes) and every report the library raised, with the line of
 * this file that caused it. Exit status 0 when every mistake showed (stale
 * data or a report) and every right way worked without a report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmamap/dmamap.h>

#define FRAME 1500
#define MAX_SEEN 4

static int failures;

/* The reports raised since the last case began. */
static struct {
	unsigned n;
	char text[MAX_SEEN][240];
} seen;

static void keep_report(const struct dmamap_log_record *rec, void *ctx)
{
	(void)ctx;
	if (rec->kind == DMAMAP_REPORT_NONE)
		return;
	if (seen.n < MAX_SEEN)
		snprintf(seen.text[seen.n], sizeof(seen.text[0]), "[%s] %s:%d: %s", dmamap_report_kind_name(rec->kind),
			 rec->file ? rec->file : "?", rec->line, rec->message);
	seen.n++;
}

static void case_begin(void)
{
	seen.n = 0;
}

static void bytes(const char *who, const unsigned char *p)
{
	printf("      %-13s %02x %02x %02x %02x %02x %02x %02x %02x ...\n", who, p[0], p[1], p[2], p[3], p[4], p[5], p[6],
	       p[7]);
}

/*
 * One case: what the CPU and the device saw, the reports, and whether that
 * is what the hardware would do (a mistake must show as stale data or a
 * report; the right way as neither).
 */
static void verdict(const char *what, const unsigned char *cpu, const unsigned char *device, bool correct_data,
		    bool mistake)
{
	bool showed = !correct_data || seen.n;
	bool ok = mistake ? showed : (correct_data && !seen.n);

	printf("  %-62s %s\n", what, ok ? (mistake ? "caught" : "ok") : "UNEXPECTED");
	bytes("CPU view:", cpu);
	bytes("device view:", device);
	if (!seen.n)
		printf("      no report\n");
	for (unsigned i = 0; i < seen.n && i < MAX_SEEN; i++)
		printf("      report %s\n", seen.text[i]);
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

	case_begin();
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
		frame, wire, frame_ok(wire, map_it ? 1 : 4), !map_it);
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

	case_begin();
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
		buf, wire, good, !unmap_it);
	if (!unmap_it)
		dma_unmap_single(dev, bus, FRAME, DMA_FROM_DEVICE);
	free_pages((unsigned long)buf, 0);
}

/* Receive, unmapped with the wrong size: the checker refuses the unmap, and the CPU never gets the frame. */
static void receive_wrong_size(struct device *dev)
{
	unsigned char *buf = (unsigned char *)get_zeroed_page(GFP_KERNEL);
	unsigned char wire[FRAME];
	dma_addr_t bus;

	case_begin();
	bus = dma_map_single(dev, buf, FRAME, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, bus))
		failures++;
	fill_frame(wire, 6);
	if (dmamap_dev_write(dev, bus, wire, FRAME) != 0)
		failures++;
	dma_unmap_single(dev, bus, PAGE_SIZE, DMA_FROM_DEVICE); /* the mistake: not the mapped size */
	verdict("RX: dma_unmap_single with another size than the map's", buf, wire, frame_ok(buf, 6), true);
	dma_unmap_single(dev, bus, FRAME, DMA_FROM_DEVICE);
	free_pages((unsigned long)buf, 0);
}

/* A coherent descriptor ring needs no maintenance at all. */
static void descriptors(struct device *dev)
{
	dma_addr_t bus;
	unsigned char *ring = dma_alloc_coherent(dev, PAGE_SIZE, &bus, GFP_KERNEL);
	unsigned char dev_saw[64];

	case_begin();
	fill_frame(ring, 3);
	if (!ring || dmamap_dev_read(dev, bus, dev_saw, sizeof(dev_saw)) != 0)
		failures++;
	verdict("descriptors in dma_alloc_coherent memory, device reads", ring, dev_saw,
		ring && memcmp(dev_saw, ring, sizeof(dev_saw)) == 0, false);
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
	dmamap_set_log_handler(m, keep_report, NULL);

	printf("libdmamap %s demo: a toy NIC on a non-coherent ARM machine\n", DMAMAP_VERSION_STRING);
	printf("(64 MiB RAM, %u-byte lines, inner + outer cache, speculative prefetch)\n\n", cfg.cache_line_size);
	transmit(&dev, true);
	transmit(&dev, false);
	receive(&dev, true);
	receive(&dev, false);
	receive_wrong_size(&dev);
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
