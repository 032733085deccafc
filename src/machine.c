/* SPDX-License-Identifier: MIT */
/*
 * The simulated SoC: configuration, memory planes, the registry of machines,
 * the current machine, fault injection and the library's host allocations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct dmamap_machine *registry;
static struct dmamap_machine *current_machine;

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
 * keep per page (struct pages) and per line (six bitmaps), with some slack.
 */
static size_t arena_bytes(const struct dmamap_machine *m)
{
	size_t planes = m->cfg.ram_size * (m->cfg.outer_cache ? 2 : 1);
	size_t state = PAGE_ALIGN(m->nr_pages * sizeof(struct page)) + 6 * PAGE_ALIGN(stored_bytes(m));

	return planes + state + (64u << 10);
}

static void unmap_planes(struct dmamap_machine *m)
{
	dmamap_lazy_free(m, m->cpu_stored, stored_bytes(m));
	if (m->ram)
		munmap(m->ram, 2 * m->cfg.ram_size);
	if (m->arena)
		munmap(m->arena, m->arena_size);
	if (m->mem_fd >= 0)
		close(m->mem_fd);
}

static int create_planes(struct dmamap_machine *m)
{
	size_t sz = m->cfg.ram_size;
	void *p;

	/* RAM and the CPU's view: one memfd, so that both can be aliased by host mappings */
	m->mem_fd = memfd_create("dmamap-ram-and-cpu-view", MFD_CLOEXEC);
	if (m->mem_fd < 0)
		return -errno;
	if (ftruncate(m->mem_fd, (off_t)(2 * sz)) < 0)
		return -errno;
	p = mmap(NULL, 2 * sz, PROT_READ | PROT_WRITE, MAP_SHARED, m->mem_fd, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	m->ram = p;
	m->cpu = m->ram + sz;
	m->arena_size = arena_bytes(m);
	p = mmap(NULL, m->arena_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	m->arena = p;
	m->shadow = m->arena;
	if (m->cfg.outer_cache)
		m->outer = m->arena + sz;
	m->arena_used = m->cfg.outer_cache ? 2 * sz : sz;
	m->cpu_stored = dmamap_lazy_zalloc(m, stored_bytes(m));
	return m->cpu_stored ? 0 : -ENOMEM;
}

DMAMAP_API struct dmamap_machine *dmamap_machine_create(const struct dmamap_machine_config *cfg)
{
	struct dmamap_machine_config c;
	struct dmamap_machine *m;
	int err;

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

	pthread_rwlock_wrlock(&registry_lock);
	m->reg_next = registry;
	registry = m;
	if (!current_machine)
		current_machine = m;
	pthread_rwlock_unlock(&registry_lock);
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

/* ------------------------------------------------------------- objects */

void dmamap_obj_add(struct dmamap_machine *m, struct dmamap_obj *o, const struct dmamap_obj_ops *ops)
{
	o->ops = ops;
	o->machine = m;
	o->prev = NULL;
	pthread_mutex_lock(&m->objs_lock);
	o->next = m->objs;
	if (m->objs)
		m->objs->prev = o;
	m->objs = o;
	pthread_mutex_unlock(&m->objs_lock);
}

void dmamap_obj_del(struct dmamap_obj *o)
{
	struct dmamap_machine *m = o->machine;

	if (!m)
		return;
	pthread_mutex_lock(&m->objs_lock);
	if (o->prev)
		o->prev->next = o->next;
	else
		m->objs = o->next;
	if (o->next)
		o->next->prev = o->prev;
	o->prev = o->next = NULL;
	pthread_mutex_unlock(&m->objs_lock);
}

void dmamap_obj_for_each(struct dmamap_machine *m, void (*fn)(struct dmamap_obj *o, void *arg), void *arg)
{
	pthread_mutex_lock(&m->objs_lock);
	for (struct dmamap_obj *o = m->objs; o; o = o->next)
		fn(o, arg);
	pthread_mutex_unlock(&m->objs_lock);
}

void dmamap_obj_dead_report(const struct dmamap_obj *o, const char *what)
{
	dmamap_report(NULL, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0,
		      "%s: the %s's machine has been destroyed; refused", what, o->ops ? o->ops->name : "object");
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

/* ------------------------------------------------------- the invariant checker */

void dm_check_fail(struct dm_check *c, enum dmamap_check_area area, const char *fmt, ...)
{
	struct dmamap_check_result *r = c->res;
	va_list ap;

	r->inconsistencies++;
	if ((unsigned)area < DMAMAP_CHECK_AREA_NR)
		r->by_area[area]++;
	if (r->nr_findings >= DMAMAP_CHECK_MAX_FINDINGS)
		return;
	r->findings[r->nr_findings].area = area;
	va_start(ap, fmt);
	vsnprintf(r->findings[r->nr_findings].what, sizeof(r->findings[0].what), fmt, ap);
	va_end(ap);
	r->nr_findings++;
}

DMAMAP_API void dmamap_machine_destroy(struct dmamap_machine *m)
{
	struct dmamap_machine **pp;

	if (!m)
		return;

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
	objs_gone(m);
	if (m->destroy_hook)
		m->destroy_hook(m);
	dmamap_kmalloc_fini(m);
	dmamap_consistent_fini(m);
	dmamap_page_alloc_fini(m);
	dmamap_cache_fini(m);

	pthread_rwlock_wrlock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->reg_next) {
		if (*pp == m) {
			*pp = m->reg_next;
			break;
		}
	}
	if (current_machine == m)
		current_machine = NULL;
	pthread_rwlock_unlock(&registry_lock);

	unmap_planes(m);
	pthread_mutex_destroy(&m->objs_lock);
	pthread_mutex_destroy(&m->obj_lock);
	pthread_mutex_destroy(&m->fault.lock);
	dmamap_logger_fini(&m->log);
	free(m);
}

DMAMAP_API struct dmamap_machine *dmamap_machine_current(void)
{
	struct dmamap_machine *m;

	pthread_rwlock_rdlock(&registry_lock);
	m = current_machine;
	pthread_rwlock_unlock(&registry_lock);
	if (m)
		return m;

	m = dmamap_machine_create(NULL);
	if (!m)
		return NULL;
	/* Another thread may have made its own current machine meanwhile: ours is current only if none is. */
	pthread_rwlock_wrlock(&registry_lock);
	if (!current_machine)
		current_machine = m;
	pthread_rwlock_unlock(&registry_lock);
	return m;
}

struct dmamap_machine *dmamap_machine_peek_current(void)
{
	struct dmamap_machine *m;

	pthread_rwlock_rdlock(&registry_lock);
	m = current_machine;
	pthread_rwlock_unlock(&registry_lock);
	return m;
}

DMAMAP_API void dmamap_machine_set_current(struct dmamap_machine *m)
{
	pthread_rwlock_wrlock(&registry_lock);
	current_machine = m;
	pthread_rwlock_unlock(&registry_lock);
}

DMAMAP_API void dmamap_machine_get_config(const struct dmamap_machine *m, struct dmamap_machine_config *cfg)
{
	if (m && cfg)
		*cfg = m->cfg;
}

struct dmamap_machine *dmamap_registry_find(bool (*match)(struct dmamap_machine *m, const void *ctx), const void *ctx)
{
	struct dmamap_machine *m;

	pthread_rwlock_rdlock(&registry_lock);
	for (m = registry; m; m = m->reg_next)
		if (match(m, ctx))
			break;
	pthread_rwlock_unlock(&registry_lock);
	return m;
}

static bool linear_holds(struct dmamap_machine *m, const void *p)
{
	return dm_virt_in_linear(m, p);
}

struct dmamap_machine *dmamap_registry_lookup(const volatile void *p)
{
	return dmamap_registry_find(linear_holds, (const void *)p);
}

DMAMAP_API struct dmamap_machine *dmamap_machine_of(const volatile void *addr)
{
	return dmamap_registry_lookup(addr);
}

void dm_cpu_store(struct dmamap_machine *m, void *va, const void *src, int c, size_t len)
{
	size_t off = (size_t)((u8 *)va - m->cpu);
	unsigned long first, last;

	if (!len)
		return;
	if (src)
		memmove(va, src, len);
	else
		memset(va, c, len);
	first = off >> m->line_shift;
	last = (off + len - 1) >> m->line_shift;
	for (unsigned long l = first; l <= last; l++)
		__atomic_fetch_or(&m->cpu_stored[l / (8 * sizeof(long))], 1UL << (l % (8 * sizeof(long))),
				  __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------- fault injection */

DMAMAP_API int dmamap_fault_inject(struct dmamap_machine *m, enum dmamap_fault_site site, unsigned long nth,
				   unsigned long ppm)
{
	bool any = false;

	if (!m || (unsigned)site >= DMAMAP_FAULT_SITE_NR || ppm > 1000000)
		return -EINVAL;
	pthread_mutex_lock(&m->fault.lock);
	m->fault.fail_at[site] = nth ? m->fault.attempts[site] + nth : 0;
	m->fault.ppm[site] = ppm;
	for (unsigned i = 0; i < DMAMAP_FAULT_SITE_NR; i++)
		any |= m->fault.fail_at[i] || m->fault.ppm[i];
	atomic_store(&m->fault.armed, any);
	pthread_mutex_unlock(&m->fault.lock);
	return 0;
}

bool dmamap_should_fail(struct dmamap_machine *m, enum dmamap_fault_site site)
{
	bool fail = false;

	pthread_mutex_lock(&m->fault.lock);
	m->fault.attempts[site]++;
	if (atomic_load_explicit(&m->fault.armed, memory_order_relaxed)) {
		if (m->fault.fail_at[site] && m->fault.attempts[site] == m->fault.fail_at[site]) {
			m->fault.fail_at[site] = 0;
			fail = true;
		}
		if (!fail && m->fault.ppm[site] && dmamap_rng_next(&m->fault.rng) % 1000000 < m->fault.ppm[site])
			fail = true;
		if (fail)
			m->fault.injected[site]++;
	}
	pthread_mutex_unlock(&m->fault.lock);
	return fail;
}

DMAMAP_API unsigned long dmamap_fault_attempts(struct dmamap_machine *m, enum dmamap_fault_site site)
{
	unsigned long n;

	if (!m || (unsigned)site >= DMAMAP_FAULT_SITE_NR)
		return 0;
	pthread_mutex_lock(&m->fault.lock);
	n = m->fault.attempts[site];
	pthread_mutex_unlock(&m->fault.lock);
	return n;
}

DMAMAP_API unsigned long dmamap_fault_injected(struct dmamap_machine *m, enum dmamap_fault_site site)
{
	unsigned long n;

	if (!m || (unsigned)site >= DMAMAP_FAULT_SITE_NR)
		return 0;
	pthread_mutex_lock(&m->fault.lock);
	n = m->fault.injected[site];
	pthread_mutex_unlock(&m->fault.lock);
	return n;
}

/* ---------------------------------------------------------- host allocations */

void *dmamap_zalloc(struct dmamap_machine *m, size_t size)
{
	if (m && dmamap_should_fail(m, DMAMAP_FAULT_HOST_ALLOC))
		return NULL;
	return calloc(1, size ? size : 1);
}

void *dmamap_allocarray(struct dmamap_machine *m, size_t n, size_t size)
{
	if (m && dmamap_should_fail(m, DMAMAP_FAULT_HOST_ALLOC))
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void dmamap_free(void *p)
{
	free(p);
}

void *dmamap_lazy_zalloc(struct dmamap_machine *m, size_t size)
{
	void *p;

	size = PAGE_ALIGN(size);
	if (size <= m->arena_size - m->arena_used) {
		p = m->arena + m->arena_used;
		m->arena_used += size;
		return p;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void dmamap_lazy_free(struct dmamap_machine *m, void *p, size_t size)
{
	/* the arena goes whole with the machine */
	if (p && !((u8 *)p >= m->arena && (u8 *)p < m->arena + m->arena_size))
		munmap(p, PAGE_ALIGN(size));
}
