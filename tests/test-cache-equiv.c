/* SPDX-License-Identifier: MIT */
/*
 * The cache model works a word of line bits and a run of bytes at a time;
 * its reference works one line at a time (dmamap_cache_set_line_by_line()).
 * Two machines, identical but for that switch, run the same long random
 * sequence of CPU stores, library stores, device writes and reads, stores
 * through uncached aliases (which come and go), maintenance by primitive and
 * by hook, clears and speculation; after every step both planes (what the
 * CPU sees, what RAM holds), every line state bit and every counter must be
 * the same on both.
 */
#include "common.h"
#include "internal.h"

#define ARENA_ORDER 4
#define ARENA (PAGE_SIZE << ARENA_ORDER)
/* the pages that may have an uncached alias: the last few, so that most lines keep their images below */
#define ALIASED_FROM (ARENA / PAGE_SIZE - 4)

struct pair {
	struct dmamap_machine *m[2];    /* [0] by range, [1] line by line */
	struct page *page[2];
	struct vm_area_struct *vma[2];  /* uncached aliases of the arena's pages, as many as are mapped */
	bool aliased[ARENA / PAGE_SIZE];
	phys_addr_t pa;
	u8 *va[2];
	struct dmamap_rng rng;
	unsigned long step;
	const char *what;
};

static unsigned long rnd(struct pair *p, unsigned long n)
{
	return (unsigned long)(dmamap_rng_next(&p->rng) % n);
}

/* A random range of the arena: mostly small and unaligned, sometimes page-sized or all of it. */
static void pick_range(struct pair *p, size_t *off, size_t *len)
{
	switch (rnd(p, 8)) {
	case 0:
		*off = 0;
		*len = ARENA;
		break;
	case 1:
		*off = rnd(p, ARENA / PAGE_SIZE) * PAGE_SIZE;
		*len = PAGE_SIZE * (1 + rnd(p, ARENA / PAGE_SIZE - *off / PAGE_SIZE));
		break;
	default:
		*off = rnd(p, ARENA - 1);
		*len = 1 + rnd(p, DM_MIN((size_t)3000, ARENA - *off));
		break;
	}
}

static void fill_random(struct pair *p, u8 *buf, size_t len)
{
	/* often a run of one value, so that stores of equal bytes happen */
	if (rnd(p, 3) == 0) {
		memset(buf, (int)rnd(p, 4), len);
		return;
	}
	for (size_t i = 0; i < len; i++)
		buf[i] = (u8)dmamap_rng_next(&p->rng);
}

static void compare(struct pair *p)
{
	struct dmamap_machine *a = p->m[0], *b = p->m[1];
	size_t off = (size_t)(p->pa - a->cfg.ram_base);
	unsigned long first = off >> a->line_shift, last = (off + ARENA - 1) >> a->line_shift;
	struct dmamap_cache_stats sa, sb;

	for (size_t i = 0; i < ARENA; i++) {
		if (a->cpu[off + i] != b->cpu[off + i] || a->ram[off + i] != b->ram[off + i])
			fail_msg("step %lu (%s): byte %#zx differs: cpu %#x / %#x, ram %#x / %#x", p->step, p->what, i,
				 a->cpu[off + i], b->cpu[off + i], a->ram[off + i], b->ram[off + i]);
	}
	for (unsigned long l = first; l <= last; l++) {
		unsigned long w = l / (8 * sizeof(long)), bit = 1UL << (l % (8 * sizeof(long)));

		if ((a->cache.inner_nonres[w] ^ b->cache.inner_nonres[w]) & bit ||
		    (a->cache.outer_res[w] ^ b->cache.outer_res[w]) & bit ||
		    (a->cache.outer_dirty[w] ^ b->cache.outer_dirty[w]) & bit ||
		    (a->cpu_stored[w] ^ b->cpu_stored[w]) & bit)
			fail_msg("step %lu (%s): state of line %lu differs", p->step, p->what, l - first);
	}
	for (unsigned long l = first; l <= last; l += 1 + rnd(p, 16)) {
		phys_addr_t at = a->cfg.ram_base + ((phys_addr_t)l << a->line_shift);

		for (int lvl = 0; lvl < DMAMAP_CACHE_LEVELS; lvl++)
			if (dmamap_cache_line_state(a, lvl, at) != dmamap_cache_line_state(b, lvl, at))
				fail_msg("step %lu (%s): line %lu reads as another state at level %d", p->step, p->what,
					 l - first, lvl);
	}
	dmamap_cache_get_stats(a, &sa);
	dmamap_cache_get_stats(b, &sb);
	if (memcmp(&sa, &sb, sizeof(sa)) != 0)
		fail_msg("step %lu (%s): counters differ (inner written back %lu / %lu, discarded %lu / %lu, "
			 "outer written back %lu / %lu, prefetched %lu / %lu)",
			 p->step, p->what, sa.level[0].lines_written_back, sb.level[0].lines_written_back,
			 sa.level[0].dirty_lines_discarded, sb.level[0].dirty_lines_discarded,
			 sa.level[1].lines_written_back, sb.level[1].lines_written_back, sa.lines_prefetched,
			 sb.lines_prefetched);
}

/* The same offset within one of the pages that may have an uncached alias. */
static size_t aliasable(size_t off)
{
	return (ALIASED_FROM + off / PAGE_SIZE % (ARENA / PAGE_SIZE - ALIASED_FROM)) * PAGE_SIZE + off % PAGE_SIZE;
}

/* Give page @pg of the arena an uncached alias on machine @i, or take it away (@on). */
static void alias_page(struct pair *p, int i, size_t pg, bool on)
{
	unsigned long addr = p->vma[i]->vm_start + pg * PAGE_SIZE;

	if (on && !p->aliased[pg])
		assert_int_equal(remap_pfn_range(p->vma[i], addr, page_to_pfn(p->page[i]) + pg, PAGE_SIZE,
						 pgprot_noncached(PAGE_KERNEL)),
				 0);
	else if (!on && p->aliased[pg])
		dmamap_vma_zap(p->vma[i], addr, PAGE_SIZE);
	if (i == 1)
		p->aliased[pg] = on;
}

/* One random step, done identically on both machines. */
static void step(struct pair *p)
{
	u8 buf[3000], got[2][3000];
	size_t off, len;
	unsigned op = (unsigned)rnd(p, 18);
	int dir = (int)rnd(p, 3);
	int lvl = (int)rnd(p, 2);

	pick_range(p, &off, &len);
	for (int i = 0; i < 2; i++) {
		struct dmamap_machine *m = p->m[i];
		const struct dmamap_cache_ops *ops = dmamap_cache_get_ops(m);
		phys_addr_t at = p->pa + off;
		size_t n = DM_MIN(len, sizeof(buf));

		if (i == 0 && (op <= 4 || op == 16))
			fill_random(p, buf, n);
		switch (op) {
		case 0:
		case 1:
			p->what = "CPU store";
			memcpy(p->va[i] + off, buf, n);
			break;
		case 2:
			p->what = "library store";
			dm_cpu_store(m, p->va[i] + off, buf, 0, n);
			break;
		case 3:
			p->what = "device write";
			dmamap_mem_dev_write(m, at, buf, n, false);
			break;
		case 4:
			/* through an uncached alias of the page, mapped first if it is not */
			p->what = "uncached store";
			off = aliasable(off);
			n = DM_MIN(n, PAGE_SIZE - off % PAGE_SIZE);
			alias_page(p, i, off / PAGE_SIZE, true);
			memcpy((u8 *)p->vma[i]->vm_start + off, buf, n);
			break;
		case 5:
			p->what = "snooping device write";
			dmamap_mem_dev_fill(m, at, (int)(p->step & 0xff), n, true);
			break;
		case 6:
			p->what = "device read";
			dmamap_mem_dev_read(m, at, got[i], n, false);
			if (i == 1 && memcmp(got[0], got[1], n) != 0)
				fail_msg("step %lu: the device reads other bytes", p->step);
			break;
		case 7:
			p->what = "clean primitive";
			dmamap_cache_clean(m, lvl, at, len);
			break;
		case 8:
			p->what = "invalidate primitive";
			dmamap_cache_inv(m, lvl, at, len);
			break;
		case 9:
			p->what = "flush primitive";
			dmamap_cache_flush(m, lvl, at, len);
			break;
		case 10:
			p->what = "dmac_map_area + outer";
			ops->dmac_map_area(m, p->va[i] + off, len, dir);
			if (dir == DMA_FROM_DEVICE)
				ops->outer_inv_range(m, at, at + len);
			else
				ops->outer_clean_range(m, at, at + len);
			break;
		case 11:
			p->what = "outer + dmac_unmap_area";
			if (dir != DMA_TO_DEVICE)
				ops->outer_inv_range(m, at, at + len);
			ops->dmac_unmap_area(m, p->va[i] + off, len, dir);
			break;
		case 12:
			p->what = "flush hooks";
			ops->dmac_flush_range(m, p->va[i] + off, p->va[i] + off + len);
			ops->outer_flush_range(m, at, at + len);
			break;
		case 13:
			p->what = "clear";
			dmamap_clear_buffer(m, p->pa + (off & PAGE_MASK),
						DM_MIN(PAGE_ALIGN(len), ARENA - (off & PAGE_MASK)));
			break;
		case 14:
			p->what = "speculation";
			dmamap_cache_speculate(m);
			break;
		case 16:
			/*
			 * A device write over lines the CPU holds: rare in a random
			 * mix, where most lines were invalidated last, and the one
			 * write that must set the lines' images aside.
			 */
			p->what = "CPU store, clean, device write";
			memcpy(p->va[i] + off, buf, n);
			dmamap_cache_clean(m, DMAMAP_CACHE_INNER, at, n);
			dmamap_mem_dev_fill(m, at + n / 4, (int)(p->step & 0xff), n / 2 + 1, false);
			break;
		case 15:
			p->what = "alias mapped or unmapped";
			off = aliasable(off);
			alias_page(p, i, off / PAGE_SIZE, !p->aliased[off / PAGE_SIZE]);
			break;
		default:
			p->what = "prefetch rate";
			assert_int_equal(dmamap_cache_set_prefetch_rate(m, p->step % 3 ? 1000 : (unsigned)(p->step % 1000)), 0);
			break;
		}
	}
	compare(p);
}

/* The vector code the range machine's passes use; the host's best when negative. */
static int vec_level = -1;

static void run(void (*tweak)(struct dmamap_machine_config *cfg), unsigned line, unsigned long steps)
{
	struct pair p = { .rng = { 0x5eed + line } };

	for (int i = 0; i < 2; i++) {
		struct dmamap_machine_config cfg;

		dmamap_machine_config_init(&cfg);
		cfg.ram_size = 4u << 20;
		cfg.cache_line_size = line;
		cfg.seed = 7;
		/* simple unless the test says otherwise, whatever the build's default machine */
		cfg.outer_cache = false;
		cfg.speculative_prefetch = false;
		if (tweak)
			tweak(&cfg);
		p.m[i] = dmamap_machine_create(&cfg);
		assert_non_null(p.m[i]);
		assert_int_equal(dmamap_cache_set_line_by_line(p.m[i], i == 1), 0);
		if (vec_level >= 0)
			p.m[i]->cache.vec = (enum dmamap_cache_vec)vec_level;
		p.page[i] = dmamap_alloc_pages(p.m[i], GFP_KERNEL | __GFP_ZERO, ARENA_ORDER);
		assert_non_null(p.page[i]);
		p.va[i] = page_address(p.page[i]);
		p.vma[i] = dmamap_vma_create(p.m[i], ARENA);
		assert_non_null(p.vma[i]);
	}
	p.pa = page_to_phys(p.page[0]);
	assert_int_equal(page_to_phys(p.page[1]), p.pa);
	if (under_valgrind())
		steps /= 20;
	for (p.step = 0; p.step < steps; p.step++)
		step(&p);
	for (int i = 0; i < 2; i++) {
		dmamap_vma_destroy(p.vma[i]);
		dmamap_free_pages(p.page[i], ARENA_ORDER);
		dmamap_machine_destroy(p.m[i]);
	}
}

static void outer(struct dmamap_machine_config *cfg)
{
	cfg->outer_cache = true;
}

static void spec(struct dmamap_machine_config *cfg)
{
	cfg->speculative_prefetch = true;
}

static void demanding(struct dmamap_machine_config *cfg)
{
	cfg->outer_cache = true;
	cfg->speculative_prefetch = true;
}

static void test_simple_machine(void **state)
{
	(void)state;
	run(NULL, 32, 4000);
}

static void test_outer_cache(void **state)
{
	(void)state;
	run(outer, 32, 4000);
}

static void test_speculation(void **state)
{
	(void)state;
	run(spec, 32, 4000);
}

static void test_demanding_machine(void **state)
{
	(void)state;
	run(demanding, 32, 6000);
}

static void test_other_line_sizes(void **state)
{
	(void)state;
	run(demanding, 16, 2000);
	run(demanding, 64, 2000);
	run(outer, 128, 2000);
	run(demanding, 256, 2000);
}

static void passes_at(enum dmamap_cache_vec level)
{
	vec_level = (int)level;
	run(demanding, 32, 4000);
	run(demanding, 16, 1000);
	run(outer, 64, 1000);
	run(NULL, 16, 1000);
	vec_level = -1;
}

/* The passes of a host without vector code. */
static void test_portable_passes(void **state)
{
	(void)state;
	passes_at(DMAMAP_VEC_NONE);
}

/* The passes of a host with AVX2 but not AVX-512, on any host that has AVX2. */
static void test_avx2_passes(void **state)
{
	(void)state;
#if defined(__x86_64__) && defined(__GNUC__)
	if (!__builtin_cpu_supports("avx2") || under_valgrind())
		skip();
	passes_at(DMAMAP_VEC_AVX2);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple_machine),
		cmocka_unit_test(test_outer_cache),
		cmocka_unit_test(test_speculation),
		cmocka_unit_test(test_demanding_machine),
		cmocka_unit_test(test_other_line_sizes),
		cmocka_unit_test(test_portable_passes),
		cmocka_unit_test(test_avx2_passes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
