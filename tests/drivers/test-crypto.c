/* SPDX-License-Identifier: MIT */
/*
 * The toy crypto engine's driver against a model of the engine, on the
 * demanding machine (outer cache, speculative prefetch), reaching memory
 * directly or through an IOMMU: every output byte checked, and each broken
 * variant caught.
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

#include "toy-crypto.h"

/*
 * A broken variant's reads of buffers the device still owns are the misuse
 * the test shows: ownership poisoning is off around them, so that neither
 * memcheck nor AddressSanitizer stops the run, and memcheck keeps quiet.
 */
#if defined(DMAMAP_VALGRIND) && DMAMAP_VALGRIND
#include <valgrind/valgrind.h>
#define memcheck_quiet() VALGRIND_DISABLE_ERROR_REPORTING
#define memcheck_loud() VALGRIND_ENABLE_ERROR_REPORTING
#else
#define memcheck_quiet() ((void)0)
#define memcheck_loud() ((void)0)
#endif

static void misuse_begin(struct dmamap_machine *m)
{
	assert_int_equal(dmamap_checker_poison(m, false), 0);
	memcheck_quiet();
}

static void misuse_end(struct dmamap_machine *m)
{
	memcheck_loud();
	assert_int_equal(dmamap_checker_poison(m, true), 0);
}

#define MAX_JOB (3 * PAGE_SIZE)
#define POISON 0x5a

/* The plaintext of job @seed. */
static void fill_pattern(u8 *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (u8)(((u32)i * 2654435761u + seed * 40503u) >> 13);
}

/* ------------------------------------------------------------ the engine */

struct tc_hw {
	struct device *dev;
	u32 regs[TC_REGS_SIZE / 4];
	u32 consumed;
	unsigned long faults;
};

static u32 hw_reg(const struct tc_hw *hw, unsigned off)
{
	return le32_to_cpu(hw->regs[off / 4]);
}

static void hw_set(struct tc_hw *hw, unsigned off, u32 v)
{
	hw->regs[off / 4] = cpu_to_le32(v);
}

/* Read a link table of @n entries at @addr and move @len bytes between it and @buf. */
static int hw_links(struct tc_hw *hw, u64 addr, unsigned n, u8 *buf, size_t len, bool to_memory)
{
	struct tc_link links[TC_MAX_LINKS];
	size_t done = 0;

	if (n == 0 || n > TC_MAX_LINKS || dmamap_dev_read(hw->dev, addr, links, n * sizeof(links[0])))
		return -EFAULT;
	for (unsigned i = 0; i < n && done < len; i++) {
		u64 a = le64_to_cpu(links[i].addr);
		size_t l = min_t(size_t, le32_to_cpu(links[i].len), len - done);
		int err = to_memory ? dmamap_dev_write(hw->dev, a, buf + done, l) : dmamap_dev_read(hw->dev, a, buf + done, l);

		if (err)
			return err;
		done += l;
	}
	return done == len ? 0 : -EFAULT;
}

/* Run every queued job, then raise the interrupt. */
static void hw_run(struct tc_hw *hw)
{
	u64 ring = hw_reg(hw, TC_RING_BASE_LO) | (u64)hw_reg(hw, TC_RING_BASE_HI) << 32;
	u32 size = hw_reg(hw, TC_RING_SIZE), head = hw_reg(hw, TC_RING_HEAD);
	static u8 data[MAX_JOB];

	if (!hw_reg(hw, TC_CTRL))
		return;
	while (hw->consumed != head) {
		struct tc_desc d;
		__le64 e;
		__le32 status = cpu_to_le32(TC_STATUS_FAULT);
		u64 desc;

		assert_int_equal(dmamap_dev_read(hw->dev, ring + (hw->consumed % size) * sizeof(e), &e, sizeof(e)), 0);
		desc = le64_to_cpu(e);
		assert_int_equal(dmamap_dev_read(hw->dev, desc, &d, sizeof(d)), 0);
		if ((le32_to_cpu(d.cmd) & 0xff) == TC_CMD_XOR && le32_to_cpu(d.len) <= MAX_JOB) {
			u32 cmd = le32_to_cpu(d.cmd), len = le32_to_cpu(d.len), key = le32_to_cpu(d.key);

			if (!hw_links(hw, le64_to_cpu(d.src), (cmd >> 8) & 0xff, data, len, false)) {
				for (u32 i = 0; i < len; i++)
					data[i] = tc_transform(data[i], key, i);
				if (!hw_links(hw, le64_to_cpu(d.dst), (cmd >> 16) & 0xff, data, len, true))
					status = cpu_to_le32(TC_STATUS_DONE);
			}
		}
		if (status != cpu_to_le32(TC_STATUS_DONE))
			hw->faults++;
		assert_int_equal(dmamap_dev_write(hw->dev, desc + offsetof(struct tc_desc, status), &status,
						  sizeof(status)),
				 0);
		hw->consumed++;
	}
	hw_set(hw, TC_RING_DONE, hw->consumed);
	hw_set(hw, TC_IRQ_STATUS, 1);
}

/* ------------------------------------------------------------ the requests */

struct job {
	struct tc_request req;
	struct sg_table src, dst;
	u8 *bufs[4];                 /* kmalloc'd pieces */
	struct page *pages[3];       /* or pages */
	size_t len;
	unsigned seed;
	int err;
	bool completed;
	u8 expect[MAX_JOB];
};

static void job_done(struct tc_request *req, int err)
{
	struct job *j = req->ctx;

	j->err = err;
	j->completed = true;
}

/* A table over kmalloc'd pieces of the given sizes (0-terminated). */
static void table_of_pieces(struct job *j, struct sg_table *t, const size_t *sizes, unsigned first_buf)
{
	unsigned n = 0;
	struct scatterlist *sg;

	while (sizes[n])
		n++;
	assert_int_equal(sg_alloc_table(t, n, GFP_KERNEL), 0);
	sg = t->sgl;
	for (unsigned i = 0; i < n; i++, sg = sg_next(sg)) {
		j->bufs[first_buf + i] = kmalloc(sizes[i], GFP_KERNEL);
		assert_non_null(j->bufs[first_buf + i]);
		sg_set_buf(sg, j->bufs[first_buf + i], (unsigned)sizes[i]);
	}
}

/*
 * Job @k: three shapes in turn. Out of place over kmalloc'd pieces, in place
 * over three scattered pages (the IOMMU merges some), and a single source
 * into two destination pieces.
 */
static void job_make(struct job *j, unsigned k)
{
	static const size_t dst_two[] = { 400, 600, 0 };
	size_t src_three[] = { 100 + k, 257, 64 * (k % 5 + 1), 0 };
	static const size_t src_one[] = { 1000, 0 };
	u8 in[MAX_JOB];

	memset(j, 0, sizeof(*j));
	j->seed = k;
	j->req.key = 0x9e3779b9u * (k + 1);
	j->req.complete = job_done;
	j->req.ctx = j;
	switch (k % 3) {
	case 0: {
		size_t whole[] = { src_three[0] + src_three[1] + src_three[2], 0 };

		table_of_pieces(j, &j->src, src_three, 0);
		table_of_pieces(j, &j->dst, whole, 3);
		j->len = whole[0];
		break;
	}
	case 1:
		/* the first page of each of three 2-page blocks: never physically consecutive */
		for (unsigned i = 0; i < 3; i++) {
			j->pages[i] = alloc_pages(GFP_KERNEL, 1);
			assert_non_null(j->pages[i]);
		}
		j->len = 2 * PAGE_SIZE + 500;
		assert_int_equal(sg_alloc_table_from_pages(&j->src, j->pages, 3, 13, j->len, GFP_KERNEL), 0);
		break;
	default:
		table_of_pieces(j, &j->src, src_one, 0);
		table_of_pieces(j, &j->dst, dst_two, 1);
		j->len = 1000;
		break;
	}
	j->req.src = &j->src;
	j->req.dst = j->src.sgl && j->dst.sgl ? &j->dst : &j->src;
	fill_pattern(in, j->len, j->seed);
	for (size_t i = 0; i < j->len; i++)
		j->expect[i] = tc_transform(in[i], j->req.key, i);
	assert_int_equal(sg_copy_from_buffer(j->src.sgl, j->src.orig_nents, in, j->len), j->len);
	if (j->req.dst != j->req.src) {
		/* the CPU leaves poison in the destination: a stale line would show it */
		memset(in, POISON, j->len);
		assert_int_equal(sg_copy_from_buffer(j->dst.sgl, j->dst.orig_nents, in, j->len), j->len);
	}
}

/* Whether every byte the CPU now sees in the destination is the engine's. */
static bool job_intact(struct job *j)
{
	u8 out[MAX_JOB];
	struct sg_table *t = j->req.dst;

	if (!j->completed || j->err)
		return false;
	assert_int_equal(sg_copy_to_buffer(t->sgl, t->orig_nents, out, j->len), j->len);
	return memcmp(out, j->expect, j->len) == 0;
}

static void job_free(struct job *j)
{
	for (unsigned i = 0; i < 4; i++)
		kfree(j->bufs[i]);
	for (unsigned i = 0; i < 3; i++)
		if (j->pages[i])
			__free_pages(j->pages[i], 1);
	sg_free_table(&j->src);
	if (j->dst.sgl)
		sg_free_table(&j->dst);
}

/* ------------------------------------------------------------ a run */

/* How many captured reports of @kind name a line of the driver. */
static unsigned driver_reports(const struct dmamap_test *t, enum dmamap_report_kind kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nr_kept; i++)
		n += t->kept[i].kind == kind && strstr(t->kept[i].file, "toy-crypto.c") && t->kept[i].line > 0;
	return n;
}

static unsigned long pages_free(struct dmamap_machine *m)
{
	struct dmamap_page_stats st;

	dmamap_page_stats(m, &st);
	return st.free_pages[DMAMAP_ZONE_DMA] + st.free_pages[DMAMAP_ZONE_NORMAL];
}

struct run {
	enum tc_bug bug;
	bool iommu;
	unsigned jobs;
	unsigned intact;
	struct dmamap_test t;      /* the fixture: its captured reports stay readable after the run */
};

static void run_engine(struct run *r)
{
	struct dmamap_test_traits traits = { .name = "toy-crypto", .iommu = r->iommu, .quiet = true };
	struct dmamap_test *t = &r->t;
	struct dmamap_kmalloc_stats ks;
	struct tc_hw hw = { 0 };
	unsigned long free_before;
	static struct job jobs[TC_RING];
	unsigned done = 0;

	assert_int_equal(dmamap_test_init(t, &traits), 0);
	free_before = pages_free(t->machine);
	hw.dev = &t->dev;
	assert_int_equal(tc_probe(&t->dev, hw.regs, r->bug), 0);

	while (done < r->jobs) {
		struct tc_engine *tc = dev_get_drvdata(&t->dev);
		unsigned batch = min_t(unsigned, r->jobs - done, TC_RING);

		for (unsigned i = 0; i < batch; i++) {
			job_make(&jobs[i], done + i);
			assert_int_equal(tc_encrypt(tc, &jobs[i].req), 0);
		}
		hw_run(&hw);
		assert_int_equal(tc_irq(tc), batch);
		for (unsigned i = 0; i < batch; i++) {
			if (r->bug != TC_CORRECT)
				misuse_begin(t->machine);
			r->intact += job_intact(&jobs[i]);
			if (r->bug != TC_CORRECT)
				misuse_end(t->machine);
			job_free(&jobs[i]);
		}
		done += batch;
	}
	tc_remove(&t->dev);
	if (r->bug == TC_CORRECT)
		dmamap_assert_no_outstanding_mappings(t);
	dmamap_device_unbind(&t->dev);
	dmamap_kmalloc_stats(t->machine, &ks);
	assert_int_equal(ks.live_objects, 0);
	if (r->bug == TC_CORRECT) {
		/* everything went back: pages (but what kmalloc's quarantine holds) */
		assert_int_equal(pages_free(t->machine) + ks.slab_pages, free_before);
		assert_int_equal(hw.faults, 0);
	}
	dmamap_test_fini(t);
}

/* ------------------------------------------------------------ the tests */

static void test_correct_driver_direct(void **state)
{
	struct run r = { .bug = TC_CORRECT, .jobs = 48 };

	(void)state;
	run_engine(&r);
	assert_int_equal(r.intact, 48);
	assert_int_equal(r.t.reports, 0);
}

static void test_correct_driver_behind_iommu(void **state)
{
	struct run r = { .bug = TC_CORRECT, .iommu = true, .jobs = 48 };

	(void)state;
	run_engine(&r);
	assert_int_equal(r.intact, 48);
	assert_int_equal(r.t.reports, 0);
}

/*
 * The destination mapped DMA_TO_DEVICE: the map only cleans, so the CPU keeps
 * the poison it wrote in its cache and never sees what the engine wrote.
 */
static void test_destination_mapped_to_device(void **state)
{
	struct run r = { .bug = TC_DST_TO_DEVICE, .jobs = 24 };

	(void)state;
	run_engine(&r);
	/* the in-place jobs (a third) map BIDIRECTIONAL and stay right; the others lose their output */
	assert_int_equal(r.intact, 8);
	/* the API calls pair up; the engine's writes into the DMA_TO_DEVICE mappings do not: one per destination piece */
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_DIR_MISMATCH], 0);
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_DEV_WRITE_TO_DEVICE], 24);
	assert_int_equal(r.t.reports, 24);
	{
		const struct dmamap_test_report *w =
			dmamap_test_find_report(&r.t, DMAMAP_REPORT_DEV_WRITE_TO_DEVICE, "test-crypto.c", 0);

		/* named at the engine model's write, and at the driver's map */
		assert_non_null(w);
		assert_non_null(strstr(w->map_file, "toy-crypto.c"));
	}
}

/*
 * Unmapping with the mapped count instead of orig_nents: harmless while
 * every entry is its own segment (direct), caught when the IOMMU merges.
 */
static void test_unmap_with_mapped_count(void **state)
{
	struct run direct = { .bug = TC_UNMAP_WITH_NENTS, .jobs = 24 };
	struct run iommu = { .bug = TC_UNMAP_WITH_NENTS, .iommu = true, .jobs = 24 };

	(void)state;
	run_engine(&direct);
	assert_int_equal(direct.intact, 24);
	assert_int_equal(direct.t.reports, 0);
	run_engine(&iommu);
	/*
	 * Each in-place job's three pages merge into one IOVA segment: its unmap
	 * is refused at the driver's line, the mapping stays, and the CPU never
	 * gets the data back (reported again as a leak at release).
	 */
	assert_int_equal(iommu.intact, 16);
	assert_int_equal(iommu.t.by_kind[DMAMAP_REPORT_SG_MISMATCH], 8);
	assert_int_equal(driver_reports(&iommu.t, DMAMAP_REPORT_SG_MISMATCH), 8);
	assert_true(iommu.t.by_kind[DMAMAP_REPORT_LEAK] >= 8);
}

/* A descriptor never given back: the pool's destruction at remove lists each, with the line that took it. */
static void test_leaked_descriptors(void **state)
{
	struct run r = { .bug = TC_LEAK_DESCRIPTOR, .jobs = 12 };

	(void)state;
	run_engine(&r);
	assert_int_equal(r.intact, 12);
	assert_int_equal(r.t.reports, 12);
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_LEAK], 12);
	assert_int_equal(driver_reports(&r.t, DMAMAP_REPORT_LEAK), 12);
}

/*
 * Probe, one out-of-place job, remove and unbind, with each allocation and
 * mapping on the way failed in turn: every failure surfaces and unwinds.
 */
static int probe_and_encrypt(struct dmamap_test *t, void *ctx)
{
	struct tc_hw *hw = ctx;
	struct scatterlist s, d;
	struct sg_table src = { .sgl = &s, .nents = 1, .orig_nents = 1 };
	struct sg_table dst = { .sgl = &d, .nents = 1, .orig_nents = 1 };
	struct job *j = calloc(1, sizeof(*j));
	u8 *in = NULL, *out = NULL;
	struct tc_engine *tc;
	int err;

	assert_non_null(j);
	memset(hw, 0, sizeof(*hw));
	hw->dev = &t->dev;
	err = tc_probe(&t->dev, hw->regs, TC_CORRECT);
	if (err)
		goto unbind;
	tc = dev_get_drvdata(&t->dev);
	in = kmalloc(300, GFP_KERNEL);
	out = kmalloc(300, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto remove;
	}
	memset(in, 0x3c, 300);
	sg_init_one(&s, in, 300);
	sg_init_one(&d, out, 300);
	j->req.src = &src;
	j->req.dst = &dst;
	j->req.key = 7;
	j->req.complete = job_done;
	j->req.ctx = j;
	err = tc_encrypt(tc, &j->req);
	if (!err) {
		hw_run(hw);
		err = tc_irq(tc) == 1 ? j->err : -EIO;
	}
remove:
	kfree(out);
	kfree(in);
	tc_remove(&t->dev);
unbind:
	dmamap_device_unbind(&t->dev);
	free(j);
	return err;
}

static void test_every_failure_unwinds(void **state)
{
	struct dmamap_test_traits direct = { .name = "toy-crypto", .quiet = true };
	struct dmamap_test_traits iommu = { .name = "toy-crypto", .iommu = true, .quiet = true };
	struct tc_hw hw;

	(void)state;
	dmamap_assert_fault_sweep_clean(&direct, probe_and_encrypt, NULL, &hw);
	dmamap_assert_fault_sweep_clean(&iommu, probe_and_encrypt, NULL, &hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_driver_direct),
		cmocka_unit_test(test_correct_driver_behind_iommu),
		cmocka_unit_test(test_destination_mapped_to_device),
		cmocka_unit_test(test_unmap_with_mapped_count),
		cmocka_unit_test(test_leaked_descriptors),
		cmocka_unit_test(test_every_failure_unwinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
