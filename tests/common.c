/* SPDX-License-Identifier: MIT */
#include "common.h"

#include <dmamap/testing.h>

#if defined(DMAMAP_VALGRIND) && DMAMAP_VALGRIND
#include <valgrind/valgrind.h>
#define DMAMAP_TESTS_MEMCHECK 1
#else
#define DMAMAP_TESTS_MEMCHECK 0
#endif

static void capture_fn(const struct dmamap_log_record *rec, void *ctx)
{
	struct capture *c = ctx;

	c->messages++;
	c->last_level = rec->level;
	c->last_kind = rec->kind;
	snprintf(c->last_device, sizeof(c->last_device), "%s", rec->device ? rec->device : "");
	snprintf(c->last_file, sizeof(c->last_file), "%s", rec->file ? rec->file : "");
	c->last_line = rec->line;
	snprintf(c->last, sizeof(c->last), "%s", rec->message);
	if (rec->kind != DMAMAP_REPORT_NONE) {
		struct captured *r = &c->rec_last;

		memset(r, 0, sizeof(*r));
		r->kind = rec->kind;
		r->category = rec->category;
		snprintf(r->device, sizeof(r->device), "%s", rec->device ? rec->device : "");
		snprintf(r->file, sizeof(r->file), "%s", rec->file ? rec->file : "");
		r->line = rec->line;
		snprintf(r->map_file, sizeof(r->map_file), "%s", rec->map_file ? rec->map_file : "");
		r->map_line = rec->map_line;
		r->bus_addr = rec->bus_addr;
		r->size = rec->size;
		r->direction = rec->direction;
		r->map_bus_addr = rec->map_bus_addr;
		r->map_size = rec->map_size;
		r->map_direction = rec->map_direction;
		snprintf(r->message, sizeof(r->message), "%s", rec->message);
		if (c->reports < CAPTURE_KEEP)
			c->rec[c->reports] = *r;
		c->reports++;
		if ((unsigned)rec->kind < DMAMAP_REPORT_KIND_NR) {
			c->by_kind[rec->kind]++;
			if (rec->category != rec->kind && (unsigned)rec->category < DMAMAP_REPORT_KIND_NR)
				c->by_kind[rec->category]++;
		}
	}
	if (getenv("DMAMAP_TEST_VERBOSE"))
		fprintf(stderr, "[captured %s] %s%s%s\n", dmamap_report_kind_name(rec->kind),
			rec->device ? rec->device : "", rec->device ? ": " : "", rec->message);
}

void capture_start(struct capture *c, struct dmamap_machine *m)
{
	memset(c, 0, sizeof(*c));
	dmamap_set_log_handler(m, capture_fn, c);
}

const struct captured *capture_find(const struct capture *c, enum dmamap_report_kind kind)
{
	for (unsigned long i = 0; i < c->reports && i < CAPTURE_KEEP; i++)
		if (c->rec[i].kind == kind || c->rec[i].category == kind)
			return &c->rec[i];
	return NULL;
}

void capture_stop(struct dmamap_machine *m)
{
	dmamap_set_log_handler(m, NULL, NULL);
}

struct dmamap_machine *test_machine(unsigned ram_mib, void (*tweak)(struct dmamap_machine_config *cfg))
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *m;

	dmamap_machine_config_init(&cfg);
	cfg.ram_size = (uint64_t)(ram_mib ? ram_mib : 16) << 20;
	cfg.consistent_size = 2u << 20;
	if (tweak)
		tweak(&cfg);
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	return m;
}

void assert_machine_consistent(struct dmamap_machine *m)
{
	struct dmamap_check_result res;
	int n = dmamap_machine_check(m, &res);

	for (unsigned i = 0; i < res.nr_findings; i++)
		print_error("machine check: %s: %s\n", dmamap_check_area_name(res.findings[i].area), res.findings[i].what);
	assert_int_equal(n, 0);
}

void test_machine_destroy(struct dmamap_machine *m)
{
	if (m)
		assert_machine_consistent(m);
	dmamap_machine_destroy(m);
}

unsigned long test_free_pages(struct dmamap_machine *m)
{
	struct dmamap_page_stats st;

	dmamap_page_stats(m, &st);
	return st.free_pages[DMAMAP_ZONE_DMA] + st.free_pages[DMAMAP_ZONE_NORMAL];
}

void simple_machine(struct dmamap_machine_config *cfg)
{
	cfg->outer_cache = false;
	cfg->speculative_prefetch = false;
}

static unsigned char pattern_byte(size_t i, unsigned seed)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + 0x9e37u;
	return (unsigned char)(x >> 13);
}

void fill_pattern(void *p, size_t len, unsigned seed)
{
	unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = pattern_byte(i, seed);
}

int check_pattern(const void *p, size_t len, unsigned seed)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != pattern_byte(i, seed))
			return (int)i + 1;
	return 0;
}

void misuse_begin(struct dmamap_machine *m)
{
	assert_int_equal(dmamap_checker_poison(m, false), 0);
#if DMAMAP_TESTS_MEMCHECK
	VALGRIND_DISABLE_ERROR_REPORTING;
#endif
}

void misuse_end(struct dmamap_machine *m)
{
#if DMAMAP_TESTS_MEMCHECK
	VALGRIND_ENABLE_ERROR_REPORTING;
#endif
	assert_int_equal(dmamap_checker_poison(m, true), 0);
}

int under_valgrind(void)
{
	return getenv("DMAMAP_UNDER_VALGRIND") != NULL;
}

unsigned long sweep_sites(void)
{
	unsigned long all = (1UL << DMAMAP_FAULT_SITE_NR) - 1;

	return under_valgrind() ? all & ~(1UL << DMAMAP_FAULT_PAGE_ALLOC | 1UL << DMAMAP_FAULT_POOL) : all;
}

int site_swept(enum dmamap_fault_site site)
{
	return (sweep_sites() >> site) & 1;
}

void assert_sweep_clean(const struct dmamap_fault_sweep *sw, struct dmamap_fault_sweep_result *r)
{
	int n = dmamap_fault_sweep(sw, r);

	for (unsigned i = 0; i < r->nr_recorded; i++)
		print_error("fault sweep: site %d, attempt %lu, returned %d, problems %#x: %s\n", (int)r->recorded[i].site,
			    r->recorded[i].nth, r->recorded[i].ret, r->recorded[i].problems, r->recorded[i].detail);
	assert_int_equal(n, 0);
	assert_int_equal(r->bad_runs, 0);
}

void sg_synced_one_way(struct dmamap_test *t, u8 *buf, const u8 *data, const u8 *reply)
{
	struct scatterlist sg[2];

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf + 64, 200);
	sg_set_buf(&sg[1], buf + PAGE_SIZE + 300, 100);
	assert_int_equal(dma_map_sg(&t->dev, sg, 2, DMA_BIDIRECTIONAL), 2);
	assert_int_equal(dmamap_dev_write(&t->dev, sg_dma_address(&sg[0]), data, 200), 0);
	assert_int_equal(dmamap_dev_write(&t->dev, sg_dma_address(&sg[1]), data + 200, 100), 0);
	dma_sync_sg_for_cpu(&t->dev, sg, 2, DMA_FROM_DEVICE);
	assert_memory_equal(buf + 64, data, 200);
	assert_memory_equal(buf + PAGE_SIZE + 300, data + 200, 100);
	memcpy(buf + 64, reply, 200);
	memcpy(buf + PAGE_SIZE + 300, reply + 200, 100);
	dma_sync_sg_for_device(&t->dev, sg, 2, DMA_TO_DEVICE);
	dmamap_assert_device_sees(t, sg_dma_address(&sg[0]), reply, 200);
	dmamap_assert_device_sees(t, sg_dma_address(&sg[1]), reply + 200, 100);
	dma_unmap_sg(&t->dev, sg, 2, DMA_BIDIRECTIONAL);
	dmamap_assert_no_reports(t);
}

int current_fx_setup(void **state)
{
	struct current_fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->m = test_machine(16, NULL);
	dmamap_machine_set_current(f->m);
	capture_start(&f->c, f->m);
	*state = f;
	return 0;
}

int current_fx_teardown(void **state)
{
	struct current_fx *f = *state;
	int ret = 0;

	capture_start(&f->c, f->m);
	test_machine_destroy(f->m);
	if (f->c.reports) {
		fprintf(stderr, "teardown: %lu reports (last: %s)\n", f->c.reports, f->c.last);
		ret = -1;
	}
	free(f);
	return ret;
}
