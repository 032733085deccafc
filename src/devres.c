/* SPDX-License-Identifier: MIT */
/*
 * Managed resources: one record per devm_/dmam_ resource on a list hanging
 * from the device, newest first, guarded by the machine's obj_lock. Release
 * takes the whole list off under the lock and releases it outside, newest
 * first, as devres_release_all() does at the driver's unbind.
 */
#include <stdlib.h>

#include "internal.h"

enum dr_kind { DR_KMALLOC, DR_COHERENT, DR_POOL, DR_ACTION };

struct devres {
	struct devres *next;
	enum dr_kind kind;
	const char *file;
	int line;
	union {
		void *mem;
		struct {
			void *vaddr;
			dma_addr_t handle;
			size_t size;
			bool has_attrs;
			struct dma_attrs attrs;
		} coh;
		struct dma_pool *pool;
		struct {
			void (*fn)(void *);
			void *data;
		} act;
	} u;
};

bool dm_dev_ok(struct device *dev, const char *what, const char *file, int line)
{
	if (dm_dev_live(dev))
		return true;
	dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
			  dev ? "device not initialised" : "NULL device");
	return false;
}

static struct devres *record(struct device *dev, enum dr_kind kind, const char *file, int line)
{
	struct devres *r = dmamap_zalloc(dm_dev_machine(dev), sizeof(*r));

	if (r) {
		r->kind = kind;
		r->file = file;
		r->line = line;
	}
	return r;
}

static void push(struct device *dev, struct devres *r)
{
	struct dmamap_machine *m = dm_dev_machine(dev);

	pthread_mutex_lock(&m->obj_lock);
	r->next = dev->dmamap.devres;
	dev->dmamap.devres = r;
	pthread_mutex_unlock(&m->obj_lock);
}

typedef bool (*dr_match_t)(const struct devres *r, const void *key);

/* Take the newest record of @dev that @match accepts off its list; NULL if none. */
static struct devres *take(struct device *dev, dr_match_t match, const void *key)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct devres **pp, *r = NULL;

	pthread_mutex_lock(&m->obj_lock);
	for (pp = (struct devres **)&dev->dmamap.devres; *pp; pp = &(*pp)->next) {
		if (match(*pp, key)) {
			r = *pp;
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return r;
}

static void release(struct device *dev, struct devres *r)
{
	switch (r->kind) {
	case DR_KMALLOC:
		dm_deferred_freed(dm_dev_machine(dev), r->u.mem, ksize(r->u.mem), "device unbind (devm_kmalloc())",
				  r->file, r->line);
		dmamap_kmalloc_set_managed(r->u.mem, false);
		dmamap_kfree(r->u.mem, r->file, r->line);
		break;
	case DR_COHERENT:
		dmamap_free_attrs(dev, r->u.coh.size, r->u.coh.vaddr, r->u.coh.handle,
				  r->u.coh.has_attrs ? &r->u.coh.attrs : NULL, r->file, r->line);
		break;
	case DR_POOL:
		dmamap_dma_pool_destroy(r->u.pool, r->file, r->line);
		break;
	case DR_ACTION:
		r->u.act.fn(r->u.act.data);
		break;
	}
	dmamap_free(r);
}

void dmamap_devres_release_all(struct device *dev)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct devres *r;

	pthread_mutex_lock(&m->obj_lock);
	r = dev->dmamap.devres;
	dev->dmamap.devres = NULL;
	pthread_mutex_unlock(&m->obj_lock);
	while (r) {
		struct devres *next = r->next;

		release(dev, r);
		r = next;
	}
}

DMAMAP_API void dmamap_device_unbind(struct device *dev)
{
	if (dm_dev_ok(dev, "dmamap_device_unbind", NULL, 0)) {
		dmamap_devres_release_all(dev);
		dmamap_clk_unbind(dev);
		dmamap_reset_unbind(dev);
		dmamap_firmware_unbind(dev);
		dmamap_of_unbind(dev);
	}
}

DMAMAP_API unsigned long dmamap_devres_count(struct device *dev)
{
	struct dmamap_machine *m;
	unsigned long n = 0;

	if (!dm_dev_live(dev))
		return 0;
	m = dm_dev_machine(dev);
	pthread_mutex_lock(&m->obj_lock);
	for (struct devres *r = dev->dmamap.devres; r; r = r->next)
		n++;
	pthread_mutex_unlock(&m->obj_lock);
	return n;
}

/* ---------------------------------------------------------------- memory */

DMAMAP_API void *dmamap_devm_kmalloc(struct device *dev, size_t size, gfp_t gfp, const char *file, int line)
{
	struct devres *r;
	void *p;

	if (!dm_dev_ok(dev, "devm_kmalloc", file, line))
		return NULL;
	p = dmamap_kmalloc(dm_dev_machine(dev), size, gfp, file, line);
	if (ZERO_OR_NULL_PTR(p))
		return p;
	r = record(dev, DR_KMALLOC, file, line);
	if (!r) {
		dmamap_kfree(p, file, line);
		return NULL;
	}
	r->u.mem = p;
	dmamap_kmalloc_set_managed(p, true);
	push(dev, r);
	return p;
}

DMAMAP_API void *dmamap_devm_kmalloc_array(struct device *dev, size_t n, size_t size, gfp_t gfp, const char *file,
					   int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return dmamap_devm_kmalloc(dev, bytes, gfp, file, line);
}

DMAMAP_API void *dmamap_devm_kmemdup(struct device *dev, const void *src, size_t len, gfp_t gfp, const char *file,
				     int line)
{
	void *p;

	if (!src && len) {
		dmamap_report(dev ? dm_dev_machine(dev) : NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "devm_kmemdup: NULL source");
		return NULL;
	}
	p = dmamap_devm_kmalloc(dev, len, gfp & ~__GFP_ZERO, file, line);
	if (!ZERO_OR_NULL_PTR(p))
		dm_cpu_store(dm_dev_machine(dev), p, src, 0, len);
	return p;
}

DMAMAP_API char *dmamap_devm_kstrdup(struct device *dev, const char *s, gfp_t gfp, const char *file, int line)
{
	if (!s)
		return NULL;
	return (char *)dmamap_devm_kmemdup(dev, s, strlen(s) + 1, gfp, file, line);
}

DMAMAP_API char *dmamap_devm_kvasprintf(struct device *dev, gfp_t gfp, const char *file, int line, const char *fmt,
					va_list ap)
{
	char *tmp, *p;
	size_t len;

	if (!fmt) {
		dmamap_report(dev ? dm_dev_machine(dev) : NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "devm_kasprintf: NULL format");
		return NULL;
	}
	tmp = dmamap_kernel_vasprintf_host(&len, fmt, ap);
	if (!tmp)
		return NULL;
	p = (char *)dmamap_devm_kmemdup(dev, tmp, len, gfp, file, line);
	free(tmp);
	return p;
}

DMAMAP_API char *dmamap_devm_kasprintf(struct device *dev, gfp_t gfp, const char *file, int line, const char *fmt,
				       ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = dmamap_devm_kvasprintf(dev, gfp, file, line, fmt, ap);
	va_end(ap);
	return p;
}

static bool match_mem(const struct devres *r, const void *key)
{
	return r->kind == DR_KMALLOC && r->u.mem == key;
}

/* Whether @dev holds @p as devm_kmalloc() memory. */
static bool holds_mem(struct device *dev, const void *p)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	bool held = false;

	pthread_mutex_lock(&m->obj_lock);
	for (const struct devres *r = dev->dmamap.devres; r && !held; r = r->next)
		held = match_mem(r, p);
	pthread_mutex_unlock(&m->obj_lock);
	return held;
}

DMAMAP_API void dmamap_devm_kfree(struct device *dev, const void *p, const char *file, int line)
{
	struct devres *r;

	if (ZERO_OR_NULL_PTR(p) || !dm_dev_ok(dev, "devm_kfree", file, line))
		return;
	if (!holds_mem(dev, p)) {
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, file, line,
			      "devm_kfree(%p): not memory this device holds from devm_kmalloc (plain kmalloc memory "
			      "goes back with kfree)", p);
		return;
	}
	/* a free refused (the memory still mapped for DMA) leaves it the device's, in its place */
	if (!dmamap_kfree_managed(p, "devm_kfree", file, line))
		return;
	r = take(dev, match_mem, p);
	dmamap_free(r);
}

DMAMAP_API void *dmamap_devm_krealloc(struct device *dev, void *p, size_t new_size, gfp_t gfp, const char *file,
				      int line)
{
	DM_CALL(); /* what the checker says of the old object names this call */
	struct dmamap_machine *m;
	void *n;

	if (!dm_dev_ok(dev, "devm_krealloc", file, line))
		return NULL;
	if (ZERO_OR_NULL_PTR(p))
		return dmamap_devm_kmalloc(dev, new_size, gfp, file, line);
	m = dm_dev_machine(dev);
	if (!holds_mem(dev, p)) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, file, line,
			      "devm_krealloc(%p): not memory this device holds from devm_kmalloc (plain kmalloc memory "
			      "is resized with krealloc); refused, nothing changed", p);
		return NULL;
	}
	if (!new_size) {
		dmamap_devm_kfree(dev, p, file, line);
		return ZERO_SIZE_PTR;
	}
	n = dmamap_krealloc_managed(p, new_size, gfp, file, line);
	if (!n)
		return NULL;
	/* the record stays where it was among the device's resources: the release order does not change */
	pthread_mutex_lock(&m->obj_lock);
	for (struct devres *r = dev->dmamap.devres; r; r = r->next) {
		if (match_mem(r, p)) {
			r->u.mem = n;
			r->file = file;
			r->line = line;
			break;
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return n;
}

DMAMAP_API void *dmamap_devm_krealloc_array(struct device *dev, void *p, size_t new_n, size_t new_size, gfp_t gfp,
					    const char *file, int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(new_n, new_size, &bytes))
		return NULL;
	return dmamap_devm_krealloc(dev, p, bytes, gfp, file, line);
}

DMAMAP_API void *dmamap_devm_kmemdup_array(struct device *dev, const void *src, size_t n, size_t size, gfp_t gfp,
					   const char *file, int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return dmamap_devm_kmemdup(dev, src, bytes, gfp, file, line);
}

/* -------------------------------------------------------------- coherent */

DMAMAP_API void *dmamap_dmam_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
					 const struct dma_attrs *attrs, const char *file, int line)
{
	struct dma_attrs a = attrs ? *attrs : (struct dma_attrs)__DMA_ATTRS_INIT;
	struct devres *r;
	void *p;

	if (!dm_dev_ok(dev, "dmam_alloc_coherent", file, line)) {
		if (dma_handle)
			*dma_handle = DMA_MAPPING_ERROR;
		return NULL;
	}
	p = dmamap_alloc_attrs(dev, size, dma_handle, gfp, attrs ? &a : NULL, file, line);
	if (!p)
		return NULL;
	r = record(dev, DR_COHERENT, file, line);
	if (!r) {
		dmamap_free_attrs(dev, size, p, *dma_handle, attrs ? &a : NULL, file, line);
		*dma_handle = DMA_MAPPING_ERROR;
		return NULL;
	}
	r->u.coh.vaddr = p;
	r->u.coh.handle = *dma_handle;
	r->u.coh.size = size;
	r->u.coh.has_attrs = attrs != NULL;
	r->u.coh.attrs = a;
	push(dev, r);
	return p;
}

static bool match_coherent(const struct devres *r, const void *key)
{
	return r->kind == DR_COHERENT && r->u.coh.vaddr == key;
}

bool dmamap_devres_holds_coherent(struct device *dev, const void *vaddr)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	bool held = false;

	pthread_mutex_lock(&m->obj_lock);
	for (const struct devres *r = dev->dmamap.devres; r && !held; r = r->next)
		held = match_coherent(r, vaddr);
	pthread_mutex_unlock(&m->obj_lock);
	return held;
}

DMAMAP_API void dmamap_dmam_free_coherent(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle,
					  const char *file, int line)
{
	struct devres *r;

	if (!dm_dev_ok(dev, "dmam_free_coherent", file, line))
		return;
	r = take(dev, match_coherent, vaddr);
	if (r && (r->u.coh.size != size || r->u.coh.handle != dma_handle)) {
		size_t was = r->u.coh.size;
		dma_addr_t handle = r->u.coh.handle;

		push(dev, r); /* keep it managed: it goes at release */
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, file, line,
			      "dmam_free_coherent(%p, size %#zx, handle %#llx): allocated with size %#zx, handle %#llx",
			      vaddr, size, (unsigned long long)dma_handle, was, (unsigned long long)handle);
		return;
	}
	if (!r) {
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, file, line,
			      "dmam_free_coherent(%p): not a buffer this device holds from dmam_alloc_coherent", vaddr);
		return;
	}
	dmamap_free_attrs(dev, size, vaddr, dma_handle, r->u.coh.has_attrs ? &r->u.coh.attrs : NULL, file, line);
	dmamap_free(r);
}

/* ----------------------------------------------------------------- pools */

DMAMAP_API struct dma_pool *dmamap_dmam_pool_create(const char *name, struct device *dev, size_t size, size_t align,
						    size_t boundary, const char *file, int line)
{
	struct dma_pool *pool;
	struct devres *r;

	if (!dm_dev_ok(dev, "dmam_pool_create", file, line))
		return NULL;
	pool = dmamap_dma_pool_create(name, dev, size, align, boundary, file, line);
	if (!pool)
		return NULL;
	r = record(dev, DR_POOL, file, line);
	if (!r) {
		dmamap_dma_pool_destroy(pool, file, line);
		return NULL;
	}
	r->u.pool = pool;
	push(dev, r);
	return pool;
}

static bool match_pool(const struct devres *r, const void *key)
{
	return r->kind == DR_POOL && r->u.pool == key;
}

bool dmamap_devres_holds_pool(struct device *dev, const struct dma_pool *pool)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	bool held = false;

	pthread_mutex_lock(&m->obj_lock);
	for (const struct devres *r = dev->dmamap.devres; r && !held; r = r->next)
		held = match_pool(r, pool);
	pthread_mutex_unlock(&m->obj_lock);
	return held;
}

DMAMAP_API void dmamap_dmam_pool_destroy(struct dma_pool *pool, const char *file, int line)
{
	struct device *dev;
	struct devres *r;

	if (!pool || !dmamap_obj_owned(pool, "dmam_pool_destroy", DM_OBJ_POOL, file, line))
		return;
	dev = dmamap_dma_pool_device(pool);
	r = dm_dev_live(dev) ? take(dev, match_pool, pool) : NULL;
	if (!r) {
		dmamap_report(dm_dev_live(dev) ? dm_dev_machine(dev) : NULL, DMAMAP_REPORT_API_MISUSE,
			      dm_dev_live(dev) ? dev->dmamap.name : NULL, file, line,
			      "dmam_pool_destroy(%p): not a pool from dmam_pool_create (use dma_pool_destroy)",
			      (void *)pool);
		return;
	}
	dmamap_dma_pool_destroy(pool, file, line);
	dmamap_free(r);
}

/* --------------------------------------------------------------- actions */

DMAMAP_API int dmamap_devm_add_action(struct device *dev, void (*action)(void *), void *data, bool or_reset,
				      const char *file, int line)
{
	struct devres *r;

	if (!dm_dev_ok(dev, or_reset ? "devm_add_action_or_reset" : "devm_add_action", file, line))
		return -EINVAL;
	if (!action) {
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, file, line,
			      "devm_add_action: NULL action");
		return -EINVAL;
	}
	r = record(dev, DR_ACTION, file, line);
	if (!r) {
		if (or_reset)
			action(data);
		return -ENOMEM;
	}
	r->u.act.fn = action;
	r->u.act.data = data;
	push(dev, r);
	return 0;
}

struct action_key {
	void (*fn)(void *);
	void *data;
};

static bool match_action(const struct devres *r, const void *key)
{
	const struct action_key *k = key;

	return r->kind == DR_ACTION && r->u.act.fn == k->fn && r->u.act.data == k->data;
}

/* Take the action off @dev's list; NULL (reported) when it does not hold it. */
static struct devres *take_action(struct device *dev, void (*action)(void *), void *data, const char *what)
{
	struct action_key key = { action, data };
	struct devres *r;

	if (!dm_dev_ok(dev, what, NULL, 0))
		return NULL;
	r = take(dev, match_action, &key);
	if (!r)
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "%s: the device holds no such action", what);
	return r;
}

DMAMAP_API void devm_remove_action(struct device *dev, void (*action)(void *), void *data)
{
	dmamap_free(take_action(dev, action, data, "devm_remove_action"));
}

DMAMAP_API void devm_release_action(struct device *dev, void (*action)(void *), void *data)
{
	struct devres *r = take_action(dev, action, data, "devm_release_action");

	if (r)
		release(dev, r);
}
