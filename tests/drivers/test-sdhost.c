/* SPDX-License-Identifier: MIT */
/*
 * The toy SD host's driver, with a card behind it and the block layer's part
 * played by the test, on the demanding machine: requests whose segments start
 * at unaligned addresses (their heads bounced through the coherent area) and
 * requests of whole pages (merged behind an IOMMU); every byte checked on
 * the card and in memory, and each broken variant caught.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/slab.h>

#include <dmamap/testing.h>

#include "toy-sdhost.h"

#define CARD_BLOCKS 256
#define ROUNDS 6
#define MAX_SEGS 4

/* The bytes of round @r: never zero, so a read that returns stale zeroes shows. */
static u8 pattern(unsigned r, size_t i)
{
	return (u8)((((i + 7919u * r) * 2654435761u) >> 13) | 0x80);
}

/* ------------------------------------------------------------ the controller and the card */

struct sdh_hw {
	struct device *dev;
	u32 regs[SDH_REGS_SIZE / 4];
	u8 card[CARD_BLOCKS * SDH_BLOCK_SIZE];
	unsigned long adma_errors;
};

static u32 hw_reg(const struct sdh_hw *hw, unsigned off)
{
	return le32_to_cpu(hw->regs[off / 4]);
}

/* Walk the descriptor table, moving the request's bytes between the card and memory. */
static void hw_run(struct sdh_hw *hw)
{
	u32 cmd = hw_reg(hw, SDH_CMD), status = SDH_STATUS_DONE;
	u64 da = hw_reg(hw, SDH_ADMA_LO) | (u64)hw_reg(hw, SDH_ADMA_HI) << 32;
	size_t pos = (size_t)hw_reg(hw, SDH_BLOCK) * SDH_BLOCK_SIZE;
	size_t total = (size_t)hw_reg(hw, SDH_BLKCNT) * SDH_BLOCK_SIZE, done = 0;

	if (!cmd)
		return;
	assert_true(pos + total <= sizeof(hw->card));
	for (unsigned n = 0; n <= 2 * SDH_MAX_SEGS; n++, da += sizeof(struct sdh_adma2_desc)) {
		struct sdh_adma2_desc d;
		u16 attr;
		u64 addr;
		size_t len;
		int err = 0;

		assert_int_equal(dmamap_dev_read(hw->dev, da, &d, sizeof(d)), 0);
		attr = le16_to_cpu(d.cmd);
		if (!(attr & ADMA2_VALID)) {
			status |= SDH_STATUS_ADMA_ERR;
			break;
		}
		if (attr & ADMA2_TRAN) {
			addr = le32_to_cpu(d.addr_lo) | (u64)le32_to_cpu(d.addr_hi) << 32;
			len = le16_to_cpu(d.len) ? le16_to_cpu(d.len) : 65536;
			if ((addr & ADMA2_MASK) || done + len > total)
				err = -EINVAL;
			else if (cmd == SDH_CMD_READ)
				err = dmamap_dev_write(hw->dev, addr, hw->card + pos + done, len);
			else
				err = dmamap_dev_read(hw->dev, addr, hw->card + pos + done, len);
			if (err) {
				status |= SDH_STATUS_ADMA_ERR;
				break;
			}
			done += len;
		}
		if (attr & ADMA2_END)
			break;
	}
	if (done != total)
		status |= SDH_STATUS_ADMA_ERR;
	hw->adma_errors += !!(status & SDH_STATUS_ADMA_ERR);
	hw->regs[SDH_CMD / 4] = 0;
	hw->regs[SDH_STATUS / 4] = cpu_to_le32(status);
}

/* ------------------------------------------------------------ the block layer's part */

/*
 * A request's memory: kmalloc'd buffers used from odd offsets (the heads of
 * the first and last segments are not 4-byte aligned), or whole pages.
 */
struct bio {
	struct scatterlist sg[MAX_SEGS];
	unsigned nsegs;
	void *mem[MAX_SEGS];
	struct page *pages[MAX_SEGS];
	u32 blocks;
};

static const struct {
	size_t alloc, offset, len;
} unaligned_layout[] = { { 800, 1, 701 }, { 512, 0, 512 }, { 400, 3, 323 } };

static void bio_init(struct bio *b, bool pages)
{
	size_t bytes = 0;

	memset(b, 0, sizeof(*b));
	if (pages) {
		b->nsegs = MAX_SEGS;
		sg_init_table(b->sg, b->nsegs);
		for (unsigned i = 0; i < b->nsegs; i++) {
			b->pages[i] = alloc_page(GFP_KERNEL);
			assert_non_null(b->pages[i]);
			sg_set_page(&b->sg[i], b->pages[i], PAGE_SIZE, 0);
			bytes += PAGE_SIZE;
		}
	} else {
		b->nsegs = ARRAY_SIZE(unaligned_layout);
		sg_init_table(b->sg, b->nsegs);
		for (unsigned i = 0; i < b->nsegs; i++) {
			b->mem[i] = kmalloc(unaligned_layout[i].alloc, GFP_KERNEL);
			assert_non_null(b->mem[i]);
			sg_set_buf(&b->sg[i], (u8 *)b->mem[i] + unaligned_layout[i].offset, unaligned_layout[i].len);
			bytes += unaligned_layout[i].len;
		}
	}
	assert_int_equal(bytes % SDH_BLOCK_SIZE, 0);
	b->blocks = (u32)(bytes / SDH_BLOCK_SIZE);
}

/* Fill the request's bytes with round @r's pattern, or zero them; or count those that match it. */
static unsigned bio_bytes(struct bio *b, unsigned r, int op)
{
	struct scatterlist *sg;
	size_t k = 0;
	unsigned match = 0;
	int i;

	for_each_sg(b->sg, sg, b->nsegs, i) {
		u8 *p = sg_virt(sg);

		for (unsigned j = 0; j < sg->length; j++, k++) {
			if (op > 0)
				p[j] = pattern(r, k);
			else if (op == 0)
				p[j] = 0;
			else
				match += p[j] == pattern(r, k);
		}
	}
	return match;
}

static void bio_free(struct bio *b)
{
	for (unsigned i = 0; i < b->nsegs; i++) {
		kfree(b->mem[i]);
		if (b->pages[i])
			__free_page(b->pages[i]);
	}
}

static int submit(struct sdh_host *host, struct sdh_hw *hw, struct bio *b, bool write, u32 block)
{
	struct sdh_request req = { .write = write, .block = block, .blocks = b->blocks, .sg = b->sg, .sg_len = b->nsegs };
	int err = sdh_request(host, &req);

	if (err)
		return err;
	hw_run(hw);
	assert_int_equal(sdh_irq(host), 1);
	return req.error;
}

/* ------------------------------------------------------------ a run */

struct run {
	enum sdh_bug bug;
	bool iommu;
	bool pages;                /* whole-page segments (else unaligned kmalloc ones) */
	unsigned reads_intact;     /* reads that returned every byte right */
	unsigned writes_intact;    /* writes whose every byte reached the card */
	unsigned failed;           /* requests that returned an error */
	struct dmamap_test t;
};

static void run_sdhost(struct run *r)
{
	struct dmamap_test_traits traits = { .name = "toy-sdhost", .iommu = r->iommu, .quiet = true };
	struct dmamap_test *t = &r->t;
	struct sdh_hw *hw = calloc(1, sizeof(*hw));
	struct sdh_host *host;

	assert_non_null(hw);
	assert_int_equal(dmamap_test_init(t, &traits), 0);
	hw->dev = &t->dev;
	assert_int_equal(sdh_probe(&t->dev, hw->regs, r->bug), 0);
	host = dev_get_drvdata(&t->dev);

	for (unsigned round = 0; round < ROUNDS; round++) {
		struct bio b;
		u32 block = round * 40;
		size_t bytes;
		bool ok = true;

		/* write the round's pattern, then check the card got every byte */
		bio_init(&b, r->pages);
		bytes = (size_t)b.blocks * SDH_BLOCK_SIZE;
		bio_bytes(&b, round, 1);
		if (submit(host, hw, &b, true, block))
			r->failed++;
		for (size_t k = 0; k < bytes; k++)
			ok &= hw->card[block * SDH_BLOCK_SIZE + k] == pattern(round, k);
		r->writes_intact += ok;
		bio_free(&b);

		/* read it back into zeroed memory, then check every byte the CPU sees */
		bio_init(&b, r->pages);
		bio_bytes(&b, round, 0);
		if (submit(host, hw, &b, false, block))
			r->failed++;
		r->reads_intact += bio_bytes(&b, round, -1) == bytes;
		bio_free(&b);
	}

	sdh_remove(&t->dev);
	dmamap_device_unbind(&t->dev);
	if (r->bug == SDH_CORRECT)
		dmamap_assert_no_outstanding_mappings(t);
	dmamap_test_fini(t);
	free(hw);
}

/* ------------------------------------------------------------ the tests */

/* Every request succeeded, every byte arrived on the card and back in memory, and nothing was reported. */
static void assert_all_arrived(struct run *r)
{
	assert_int_equal(r->failed, 0);
	assert_int_equal(r->writes_intact, ROUNDS);
	assert_int_equal(r->reads_intact, ROUNDS);
	dmamap_assert_no_reports(&r->t);
}

static void test_correct_driver_unaligned_segments(void **state)
{
	struct run r = { .bug = SDH_CORRECT };

	(void)state;
	run_sdhost(&r);
	assert_all_arrived(&r);
}

static void test_correct_driver_page_segments(void **state)
{
	struct run r = { .bug = SDH_CORRECT, .pages = true };

	(void)state;
	run_sdhost(&r);
	assert_all_arrived(&r);
}

static void test_correct_driver_behind_an_iommu(void **state)
{
	struct run unaligned = { .bug = SDH_CORRECT, .iommu = true };
	struct run pages = { .bug = SDH_CORRECT, .iommu = true, .pages = true };

	(void)state;
	run_sdhost(&unaligned);
	assert_all_arrived(&unaligned);
	run_sdhost(&pages);
	assert_all_arrived(&pages);
}

/*
 * A driver that never unmaps: the data arrives (it syncs for the CPU), but every
 * mapping is listed at release, and its memory cannot be freed meanwhile.
 */
static void test_driver_never_unmaps(void **state)
{
	struct run r = { .bug = SDH_NO_UNMAP };
	const struct dmamap_test_report *rep;

	(void)state;
	run_sdhost(&r);
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.reads_intact, ROUNDS);
	/*
	 * a write and a read each round, each left mapped; the kfree() of each of
	 * their 3 segments' buffers is refused while mapped, so the buffers leak too
	 */
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_FREE_MAPPED], 2 * ROUNDS * 3);
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_LEAK], 2 * ROUNDS + 2 * ROUNDS * 3);
	assert_int_equal(r.t.reports, 2 * ROUNDS + 2 * 2 * ROUNDS * 3);
	rep = dmamap_test_find_report(&r.t, DMAMAP_REPORT_LEAK, NULL, 0);
	assert_non_null(rep);
	/* each names the driver's dma_map_sg() line */
	assert_non_null(strstr(rep->map_file, "toy-sdhost.c"));
	assert_true(rep->map_line > 0);
	assert_non_null(strstr(rep->message, "dma_map_sg"));
	rep = dmamap_test_find_report(&r.t, DMAMAP_REPORT_FREE_MAPPED, "test-sdhost.c", 0);
	assert_non_null(rep);
	assert_non_null(strstr(rep->map_file, "toy-sdhost.c"));
}

/*
 * Reads mapped DMA_TO_DEVICE: the controller's writes into them are reported
 * (naming the driver's map line), and the CPU never sees the data: only the
 * bounced heads, copied by the CPU, arrive.
 */
static void test_driver_maps_reads_to_device(void **state)
{
	struct run r = { .bug = SDH_READ_AS_TO_DEVICE };
	const struct dmamap_test_report *rep;

	(void)state;
	run_sdhost(&r);
	assert_int_equal(r.writes_intact, ROUNDS);
	assert_int_equal(r.reads_intact, 0);
	/* three segments a read, each written by the controller */
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_DEV_WRITE_TO_DEVICE], 3 * ROUNDS);
	assert_int_equal(r.t.reports, 3 * ROUNDS);
	rep = dmamap_test_find_report(&r.t, DMAMAP_REPORT_DEV_WRITE_TO_DEVICE, NULL, 0);
	assert_non_null(rep);
	assert_non_null(strstr(rep->map_file, "toy-sdhost.c"));
	assert_int_equal(rep->direction, DMA_TO_DEVICE);
}

/*
 * dma_unmap_sg() given what dma_map_sg() returned: harmless where every
 * segment maps alone, refused behind an IOMMU that merges the pages into one
 * (each refusal names the driver's unmap line; the mappings stay live, so the
 * pages cannot be freed, until release lists them).
 */
static void test_driver_unmaps_the_mapped_count(void **state)
{
	struct run direct = { .bug = SDH_UNMAP_MAPPED_COUNT, .pages = true };
	struct run iommu = { .bug = SDH_UNMAP_MAPPED_COUNT, .iommu = true, .pages = true };

	(void)state;
	run_sdhost(&direct);
	assert_int_equal(direct.reads_intact, ROUNDS);
	dmamap_assert_no_reports(&direct.t);

	run_sdhost(&iommu);
	assert_int_equal(iommu.writes_intact, ROUNDS);
	assert_int_equal(iommu.reads_intact, ROUNDS);
	assert_int_equal(iommu.t.by_kind[DMAMAP_REPORT_SG_MISMATCH], 2 * ROUNDS);
	dmamap_assert_reported(&iommu.t, DMAMAP_REPORT_SG_MISMATCH, "toy-sdhost.c", 0);
	/* the block layer's frees of the still-mapped pages are refused, page by page */
	assert_int_equal(iommu.t.by_kind[DMAMAP_REPORT_FREE_MAPPED], 2 * ROUNDS * MAX_SEGS);
	/*
	 * the mappings are listed at release, their IOVA space still held at the
	 * IOMMU mapping's release, and the pages kept at machine destroy
	 */
	assert_int_equal(iommu.t.by_kind[DMAMAP_REPORT_LEAK], 2 * ROUNDS + 2);
	assert_int_equal(iommu.t.reports, 2 * ROUNDS + 2 * ROUNDS * MAX_SEGS + 2 * ROUNDS + 2);
}

/*
 * Probe, one read of unaligned segments, remove and unbind, with each
 * allocation and mapping on the way failed in turn: every failure surfaces
 * and nothing is left behind.
 */
static int probe_and_read(struct dmamap_test *t, void *ctx)
{
	struct sdh_hw *hw = ctx;
	struct sdh_request req = { .block = 8 };
	struct scatterlist sg[ARRAY_SIZE(unaligned_layout)];
	void *mem[ARRAY_SIZE(unaligned_layout)] = { NULL };
	size_t bytes = 0;
	int err;

	memset(hw, 0, sizeof(*hw));
	hw->dev = &t->dev;
	err = sdh_probe(&t->dev, hw->regs, SDH_CORRECT);
	if (err)
		goto unbind;
	sg_init_table(sg, ARRAY_SIZE(sg));
	for (unsigned i = 0; i < ARRAY_SIZE(sg); i++) {
		mem[i] = kzalloc(unaligned_layout[i].alloc, GFP_KERNEL);
		if (!mem[i]) {
			err = -ENOMEM;
			goto out;
		}
		sg_set_buf(&sg[i], (u8 *)mem[i] + unaligned_layout[i].offset, unaligned_layout[i].len);
		bytes += unaligned_layout[i].len;
	}
	req.blocks = (u32)(bytes / SDH_BLOCK_SIZE);
	req.sg = sg;
	req.sg_len = ARRAY_SIZE(sg);
	err = sdh_request(dev_get_drvdata(&t->dev), &req);
	if (!err) {
		hw_run(hw);
		err = sdh_irq(dev_get_drvdata(&t->dev)) == 1 ? req.error : -EIO;
	}
out:
	for (unsigned i = 0; i < ARRAY_SIZE(mem); i++)
		kfree(mem[i]);
	sdh_remove(&t->dev);
unbind:
	dmamap_device_unbind(&t->dev);
	return err;
}

static void test_every_failure_unwinds(void **state)
{
	struct dmamap_test_traits direct = { .name = "toy-sdhost", .quiet = true };
	struct dmamap_test_traits iommu = { .name = "toy-sdhost", .iommu = true, .quiet = true };
	struct sdh_hw *hw = calloc(1, sizeof(*hw));

	(void)state;
	assert_non_null(hw);
	dmamap_assert_fault_sweep_clean(&direct, probe_and_read, NULL, hw);
	dmamap_assert_fault_sweep_clean(&iommu, probe_and_read, NULL, hw);
	free(hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_driver_unaligned_segments),
		cmocka_unit_test(test_correct_driver_page_segments),
		cmocka_unit_test(test_correct_driver_behind_an_iommu),
		cmocka_unit_test(test_driver_never_unmaps),
		cmocka_unit_test(test_driver_maps_reads_to_device),
		cmocka_unit_test(test_driver_unmaps_the_mapped_count),
		cmocka_unit_test(test_every_failure_unwinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
