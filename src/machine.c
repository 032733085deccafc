/* SPDX-License-Identifier: MIT */
/*
 * The simulated SoC: configuration, memory planes, building and tearing down
 * a machine (registered in host.c once whole), the current machine made on
 * demand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

DMAMAP_API void dmamap_machine_config_init(struct dmamap_machine_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->ram_base = 0x40000000ULL;
	cfg->ram_size = (uint64_t)DMAMAP_DEFAULT_RAM_MIB << 20;
	cfg->dma_zone_limit = 0;
	cfg->cache_line_size = DMAMAP_DEFAULT_CACHE_LINE;
	cfg->coherent = false;
	cfg->outer_cache = DMAMAP_DEFAULT_OUTER_CACHE;
	cfg->speculative_prefetch = DMAMAP_DEFAULT_SPECULATIVE_PREFETCH;
	cfg->consistent_size = 16u << 20;
	cfg->seed = 1;
	cfg->kmalloc_packed = false;
}

static bool config_valid(const struct dmamap_machine_config *c)
{
	if (c->ram_base & ~PAGE_MASK || c->ram_size & ~PAGE_MASK || c->ram_size < (1u << 20))
		return false;
	/* page indexes are 32-bit in the free lists */
	if (c->ram_size >> PAGE_SHIFT >= DM_NO_PAGE)
		return false;
	if (c->ram_base + c->ram_size < c->ram_base || c->ram_base + c->ram_size - 1 > UINT64_MAX - PAGE_SIZE)
		return false;
	if (c->cache_line_size < 16 || c->cache_line_size > 256 || (c->cache_line_size & (c->cache_line_size - 1)))
		return false;
	if (c->dma_zone_limit && (c->dma_zone_limit < c->ram_base + PAGE_SIZE ||
				  c->dma_zone_limit > c->ram_base + c->ram_size || c->dma_zone_limit & ~PAGE_MASK))
		return false;
	if (!c->consistent_size || c->consistent_size & ~PAGE_MASK || c->consistent_size > (1ULL << 32))
		return false;
	return true;
}

static size_t stored_bytes(const struct dmamap_machine *m)
{
	return ((m->cfg.ram_size >> m->line_shift) / (8 * sizeof(long)) + 1) * sizeof(long);
}

/*
 * The arena: the shadow and outer planes, then room for what the modules
 * keep per page (struct pages, alias counts) and per line (nine bitmaps),
 * with some slack.
 */
/*
 * Two planes' copies of a byte are a plane's size apart plus this much, not
 * a power of two apart: the L1 data cache of some hosts (AMD's, whose way
 * predictor hashes linear address bits 12-27) cannot hold lines of two
 * addresses that differ only above those bits, so that every pass reading
 * two planes of 256 MiB or more at one offset missed it (a compare of 64 KiB
 * took 1.4x as long). Nine times 64 KiB: a multiple of any host's page
 * size.
 */
#define PLANE_STAGGER ((size_t)9 << 16)

static size_t arena_bytes(const struct dmamap_machine *m)
{
	size_t planes = m->cfg.outer_cache ? 2 * m->cfg.ram_size + PLANE_STAGGER : m->cfg.ram_size;
	size_t state = PAGE_ALIGN(m->nr_pages * (sizeof(struct page) + sizeof(u32))) + 9 * PAGE_ALIGN(stored_bytes(m));

	return planes + state + (64u << 10);
}

static unsigned long units(const struct dmamap_machine *m)
{
	return (unsigned long)(((m->cfg.ram_size >> m->line_shift) + DM_UNIT_LINES - 1) >> DM_UNIT_SHIFT);
}

/*
 * Whether a machine being destroyed zeroes what it wrote of its arena and
 * hands it on: not under memcheck, which should find a pointer kept into a
 * destroyed machine's state unaddressable, and not after much of it was
 * written: the pages kept, resident for as long as the arena waits, would be
 * many.
 */
#define RECYCLE_UNITS 128
#define RECYCLE_CHUNKS 256

static bool recycle_arena(const struct dmamap_machine *m)
{
	return !dmamap_running_on_valgrind() && __atomic_load_n(&m->units_nr, __ATOMIC_RELAXED) <= RECYCLE_UNITS &&
	       m->pa.nr_ready <= RECYCLE_CHUNKS;
}

static void unmap_planes(struct dmamap_machine *m)
{
	dmamap_lazy_free(m, m->cpu_stored, stored_bytes(m));
	if (m->lin && m->lin != m->cpu) {
		/* what a leaked mapping left poisoned must not outlive the mapping */
		if (dmamap_asan_active())
			__asan_unpoison_memory_region(m->lin, m->cfg.ram_size);
		munmap(m->lin, m->cfg.ram_size);
	}
	if (m->ram)
		munmap(m->ram, m->reserved);
	if (m->arena && m->recycle)
		dmamap_arena_give(m->arena, m->arena_size);
	else if (m->arena)
		munmap(m->arena, m->arena_size);
	free(m->units_written);
	if (m->mem_fd >= 0)
		dmamap_memfd_give(m->mem_fd, 2 * m->cfg.ram_size);
}

static int create_planes(struct dmamap_machine *m)
{
	size_t sz = m->cfg.ram_size;
	void *p;

	/* RAM and the CPU's view: one memfd, so that both can be aliased by host mappings */
	m->mem_fd = dmamap_memfd_take(2 * sz);
	if (m->mem_fd < 0) {
		m->mem_fd = memfd_create("dmamap-ram-and-cpu-view", MFD_CLOEXEC);
		if (m->mem_fd < 0)
			return -errno;
		if (ftruncate(m->mem_fd, (off_t)(2 * sz)) < 0) {
			int err = -errno;

			close(m->mem_fd);
			m->mem_fd = -1;
			return err;
		}
	}
	/*
	 * One reservation: the planes, PLANE_STAGGER apart, then the consistent
	 * region's window, on a section boundary and at least a page clear of
	 * the CPU view on either side (an overrun of a coherent buffer faults).
	 */
	m->reserved = 2 * sz + PLANE_STAGGER + m->cfg.consistent_size + 2 * DM_SECTION_SIZE;
	p = mmap(NULL, m->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	m->ram = p;
	m->cons_window = (u8 *)DM_ALIGN_UP((uintptr_t)p + 2 * sz + PLANE_STAGGER + PAGE_SIZE, DM_SECTION_SIZE);
	if (mmap(p, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->mem_fd, 0) == MAP_FAILED ||
	    mmap((u8 *)p + sz + PLANE_STAGGER, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->mem_fd,
		 dm_plane_foff(m, true, 0)) == MAP_FAILED)
		return -ENOMEM;
	m->cpu = m->ram + sz + PLANE_STAGGER;
	m->lin = m->cpu;
	if (dmamap_asan_active()) {
		p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, m->mem_fd, dm_plane_foff(m, true, 0));
		if (p == MAP_FAILED)
			return -ENOMEM;
		m->lin = p;
	}
	m->units_written = calloc(units(m) / BITS_PER_LONG + 1, sizeof(long));
	if (!m->units_written)
		return -ENOMEM;
	m->arena_size = arena_bytes(m);
	p = dmamap_arena_take(m->arena_size);
	if (!p)
		p = mmap(NULL, m->arena_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	m->arena = p;
	m->shadow = m->arena;
	if (m->cfg.outer_cache)
		m->outer = m->arena + sz + PLANE_STAGGER;
	m->arena_used = m->cfg.outer_cache ? 2 * sz + PLANE_STAGGER : sz;
	m->cpu_stored = dmamap_lazy_zalloc(m, stored_bytes(m));
	return m->cpu_stored ? 0 : -ENOMEM;
}

DMAMAP_API struct dmamap_machine *dmamap_machine_create(const struct dmamap_machine_config *cfg)
{
	struct dmamap_machine_config c;
	struct dmamap_machine *m;
	int err;

	dmamap_track_init();
	if (cfg)
		c = *cfg;
	else
		dmamap_machine_config_init(&c);
	if (!config_valid(&c)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "machine config refused: base %#llx size %#llx line %u zone limit %#llx consistent %#zx",
			      (unsigned long long)c.ram_base, (unsigned long long)c.ram_size, c.cache_line_size,
			      (unsigned long long)c.dma_zone_limit, c.consistent_size);
		errno = EINVAL;
		return NULL;
	}

	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->cfg = c;
	m->line_shift = (unsigned)__builtin_ctz(c.cache_line_size);
	m->mem_fd = -1;
	m->base_pfn = (unsigned long)(c.ram_base >> PAGE_SHIFT);
	m->nr_pages = (unsigned long)(c.ram_size >> PAGE_SHIFT);
	dmamap_logger_init(&m->log);
	pthread_mutex_init(&m->fault.lock, NULL);
	m->fault.rng.state = c.seed ^ 0x6661756c74ULL;
	atomic_init(&m->fault.armed, false);
	pthread_mutex_init(&m->obj_lock, NULL);
	pthread_mutex_init(&m->objs_lock, NULL);

	err = create_planes(m);
	if (err)
		goto fail_planes;
	err = dmamap_page_alloc_init(m);
	if (err)
		goto fail_planes;
	err = dmamap_cache_init(m);
	if (err)
		goto fail_pages;
	err = dmamap_consistent_init(m);
	if (err)
		goto fail_cache;

	dmamap_registry_add(m);
	return m;

fail_cache:
	dmamap_cache_fini(m);
fail_pages:
	dmamap_page_alloc_fini(m);
fail_planes:
	unmap_planes(m);
	pthread_mutex_destroy(&m->objs_lock);
	pthread_mutex_destroy(&m->obj_lock);
	pthread_mutex_destroy(&m->fault.lock);
	dmamap_logger_fini(&m->log);
	free(m);
	errno = -err;
	return NULL;
}

/*
 * Machine destroy: every object still registered reports itself and gives
 * back what it holds of the machine, newest first; then it is dead. Its host
 * memory stays the owner's, to free with the object's own free call.
 */
static void objs_gone(struct dmamap_machine *m)
{
	struct dmamap_obj *o;

	for (;;) {
		pthread_mutex_lock(&m->objs_lock);
		o = m->objs;
		if (o) {
			m->objs = o->next;
			if (o->next)
				o->next->prev = NULL;
			o->prev = o->next = NULL;
		}
		pthread_mutex_unlock(&m->objs_lock);
		if (!o)
			break;
		o->ops->machine_gone(o);
		__atomic_store_n(&o->machine, NULL, __ATOMIC_RELEASE);
	}
}

DMAMAP_API void dmamap_machine_destroy(struct dmamap_machine *m)
{
	if (!m)
		return;
	if (!dmamap_registry_has(m)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "dmamap_machine_destroy: %p is no live machine (destroyed already?): nothing done", (void *)m);
		return;
	}

	/* Devices first: releasing one reports what its driver left mapped. */
	for (;;) {
		struct device *dev;

		pthread_mutex_lock(&m->obj_lock);
		dev = m->devices;
		pthread_mutex_unlock(&m->obj_lock);
		if (!dev)
			break;
		dmamap_report(m, DMAMAP_REPORT_LEAK, dev->dmamap.name, NULL, 0,
			      "device still initialised at machine destroy; releasing it");
		m->release_device(dev);
	}
	dmamap_firmware_machine_fini(m);
	dmamap_of_machine_fini(m);
	dmamap_tasklet_machine_fini(m);
	dmamap_irq_machine_fini(m);
	dmamap_iomem_machine_fini(m);
	objs_gone(m);
	/* what is left of the consistent region goes with the reservation */
	m->cons.closing = true;
	if (m->destroy_hook)
		m->destroy_hook(m);
	dmamap_vmalloc_fini(m);
	dmamap_kmalloc_fini(m);
	dmamap_consistent_fini(m);
	m->recycle = recycle_arena(m);
	dmamap_page_alloc_fini(m);
	dmamap_cache_fini(m);

	dmamap_registry_remove(m);

	unmap_planes(m);
	pthread_mutex_destroy(&m->objs_lock);
	pthread_mutex_destroy(&m->obj_lock);
	pthread_mutex_destroy(&m->fault.lock);
	dmamap_logger_fini(&m->log);
	free(m);
}

DMAMAP_API struct dmamap_machine *dmamap_machine_current(void)
{
	struct dmamap_machine *m = dmamap_machine_peek_current();

	if (m)
		return m;
	/* made current by its registration, unless another thread made its own meanwhile */
	return dmamap_machine_create(NULL);
}

DMAMAP_API void dmamap_machine_get_config(const struct dmamap_machine *m, struct dmamap_machine_config *cfg)
{
	if (m && cfg)
		*cfg = m->cfg;
}
