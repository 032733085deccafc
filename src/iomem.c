/* SPDX-License-Identifier: MIT */
/*
 * Register windows (<dmamap/iomem.h>): per machine, the windows of its
 * platform devices, the mappings made of them and the regions requested,
 * each on a list guarded by one host mutex of the machine. A window belongs
 * to its platform device (an array of them hangs from the device, one per
 * resource); the machine's list only finds it by address. A mapping names
 * its window, and is forgotten (reported) when its window goes first.
 */
#include <stdio.h>

#include "internal.h"

struct dm_window {
	struct dm_window *next;      /* on the machine's list */
	struct platform_device *pdev;
	phys_addr_t start, end;
	u8 *mem;                     /* the byte at start */
	void *alloc;                 /* what to free */
	struct dmamap_machine *machine; /* NULL once off the machine's list (or not a window) */
};

struct dm_iomap {
	struct dm_iomap *next;
	struct dm_window *win;       /* NULL once the window went with its device */
	u8 *addr;                    /* what the map call returned */
	phys_addr_t phys;
	size_t size;
	struct device *managed;      /* the device of a devm_ mapping, or NULL */
	struct dmamap_machine *machine;
	const char *what;
	const char *file;
	int line;
};

struct dm_region {
	struct dm_region *next;
	struct resource res;         /* [start, end], the requester's name, IORESOURCE_MEM | IORESOURCE_BUSY */
	struct device *dev;          /* the device of a managed request, or NULL */
	struct dmamap_machine *machine;
	const char *what;            /* the call that requested it */
	const char *file;
	int line;
};

struct dm_iomem {
	pthread_mutex_t lock;
	struct dm_window *windows;
	struct dm_iomap *maps;       /* newest first */
	struct dm_region *regions;
};

/* @m's register state, made on first use when @make; NULL when there is none (or no memory). */
static struct dm_iomem *iomem_of(struct dmamap_machine *m, bool make)
{
	struct dm_iomem *s;

	pthread_mutex_lock(&m->obj_lock);
	s = m->layer[DMAMAP_LAYER_IOMEM];
	if (!s && make) {
		s = dmamap_zalloc(m, sizeof(*s));
		if (s) {
			pthread_mutex_init(&s->lock, NULL);
			m->layer[DMAMAP_LAYER_IOMEM] = s;
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return s;
}

static bool overlaps(phys_addr_t s1, phys_addr_t e1, phys_addr_t s2, phys_addr_t e2)
{
	return s1 <= e2 && s2 <= e1;
}

/* A resource as the kernel's %pR prints it: "[mem 0x10000000-0x10000fff]", "[irq 17]"; "(null)" for NULL. */
static const char *res_str(char *buf, size_t n, const struct resource *r)
{
	unsigned long long s, e;

	if (!r)
		return "(null)";
	s = r->start;
	e = r->end;
	switch (r->flags & IORESOURCE_TYPE_BITS) {
	case IORESOURCE_MEM:
		snprintf(buf, n, "[mem 0x%08llx-0x%08llx]", s, e);
		break;
	case IORESOURCE_IO:
		snprintf(buf, n, "[io  0x%04llx-0x%04llx]", s, e);
		break;
	case IORESOURCE_IRQ:
	case IORESOURCE_DMA: {
		const char *type = (r->flags & IORESOURCE_TYPE_BITS) == IORESOURCE_IRQ ? "irq" : "dma";

		if (s == e)
			snprintf(buf, n, "[%s %llu]", type, s);
		else
			snprintf(buf, n, "[%s %llu-%llu]", type, s, e);
		break;
	}
	default:
		snprintf(buf, n, "[??? 0x%08llx-0x%08llx flags %#lx]", s, e, r->flags);
		break;
	}
	return buf;
}

static bool is_mem(const struct resource *r)
{
	return (r->flags & IORESOURCE_TYPE_BITS) == IORESOURCE_MEM;
}

/* ------------------------------------------------------------ the windows */

/* Free @n windows of @w (those allocated), and the array. */
static void windows_free_all(struct dm_window *w, u32 n)
{
	for (u32 i = 0; i < n; i++)
		dmamap_free(w[i].alloc);
	dmamap_free(w);
}

int dmamap_iomem_windows_add(struct dmamap_machine *m, struct platform_device *pdev, const char *devname,
			     const char *what)
{
	char a[80], b[80];
	const struct resource *res = pdev->resource;
	u32 n = pdev->num_resources, mems = 0;
	struct dm_window *w, *o;
	struct dm_iomem *s;

	for (u32 i = 0; i < n; i++) {
		if (!is_mem(&res[i]))
			continue;
		mems++;
		for (u32 j = 0; j < i; j++) {
			if (is_mem(&res[j]) && overlaps(res[i].start, res[i].end, res[j].start, res[j].end)) {
				dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
					      "%s: %s: failed to claim resource %u: %s overlaps resource %u %s", what,
					      devname, i, res_str(a, sizeof(a), &res[i]), j, res_str(b, sizeof(b), &res[j]));
				return -EBUSY;
			}
		}
	}
	if (!mems)
		return 0;
	s = iomem_of(m, true);
	w = s ? dmamap_allocarray(m, n, sizeof(*w)) : NULL;
	if (!w)
		return -ENOMEM;
	for (u32 i = 0; i < n; i++) {
		u64 size = res[i].end - res[i].start + 1;
		size_t lead = (size_t)(res[i].start & 7);

		if (!is_mem(&res[i]))
			continue;
		/* a window of the whole address space (its size wraps to 0) or too large for the host */
		w[i].alloc = size && size <= SIZE_MAX - 8 ? dmamap_zalloc(m, lead + (size_t)size) : NULL;
		if (!w[i].alloc) {
			windows_free_all(w, n);
			return -ENOMEM;
		}
		w[i].mem = (u8 *)w[i].alloc + lead;
		w[i].start = res[i].start;
		w[i].end = res[i].end;
		w[i].pdev = pdev;
	}

	pthread_mutex_lock(&s->lock);
	for (o = s->windows; o; o = o->next) {
		for (u32 i = 0; i < n; i++) {
			if (w[i].alloc && overlaps(w[i].start, w[i].end, o->start, o->end)) {
				struct resource other = { o->start, o->end, NULL, IORESOURCE_MEM, 0 };

				pthread_mutex_unlock(&s->lock);
				dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
					      "%s: %s: failed to claim resource %u: %s overlaps %s of %s", what, devname, i,
					      res_str(a, sizeof(a), &res[i]), res_str(b, sizeof(b), &other),
					      dev_name(&o->pdev->dev));
				windows_free_all(w, n);
				return -EBUSY;
			}
		}
	}
	for (u32 i = 0; i < n; i++) {
		if (!w[i].alloc)
			continue;
		w[i].machine = m;
		w[i].next = s->windows;
		s->windows = &w[i];
	}
	pthread_mutex_unlock(&s->lock);
	pdev->dmamap.windows = w;
	return 0;
}

void *dmamap_iomem_window(const struct platform_device *pdev, unsigned int res_index)
{
	const struct dm_window *w = pdev->dmamap.windows;

	return w && res_index < pdev->num_resources && w[res_index].alloc ? w[res_index].mem : NULL;
}

/* Whether @p is one of the @n windows at @w (compared as integers: @p may be of another array). */
static bool in_windows(const struct dm_window *p, const struct dm_window *w, u32 n)
{
	return (uintptr_t)p >= (uintptr_t)w && (uintptr_t)p < (uintptr_t)(w + n);
}

static void map_leak(struct dmamap_machine *m, const struct dm_iomap *r, const char *why)
{
	dmamap_report(m, DMAMAP_REPORT_LEAK, r->managed ? r->managed->dmamap.name : NULL, r->file, r->line,
		      "%s() mapping of %#zx bytes at phys %#llx still made %s; forgetting it", r->what, r->size,
		      (unsigned long long)r->phys, why);
}

void dmamap_iomem_windows_free(struct platform_device *pdev)
{
	struct dm_window *w = pdev->dmamap.windows;
	struct dm_iomap *gone = NULL, **pp;
	struct dmamap_machine *m = NULL;
	struct dm_iomem *s = NULL;
	u32 n = pdev->num_resources;

	if (!w)
		return;
	pdev->dmamap.windows = NULL;
	for (u32 i = 0; i < n && !m; i++)
		m = w[i].machine;
	s = m ? iomem_of(m, false) : NULL;
	if (s) {
		struct dm_window **wp;
		char why[96];

		snprintf(why, sizeof(why), "when the register window of %s went with its device", dev_name(&pdev->dev));
		pthread_mutex_lock(&s->lock);
		for (wp = &s->windows; *wp;) {
			if (in_windows(*wp, w, n))
				*wp = (*wp)->next;
			else
				wp = &(*wp)->next;
		}
		for (pp = &s->maps; *pp;) {
			struct dm_iomap *r = *pp;

			if (!r->win || !in_windows(r->win, w, n)) {
				pp = &r->next;
				continue;
			}
			if (r->managed) {
				/* another device's: its driver unbinds later, and its record goes then */
				map_leak(m, r, why);
				r->win = NULL;
				pp = &r->next;
				continue;
			}
			*pp = r->next;
			r->next = gone;
			gone = r;
		}
		pthread_mutex_unlock(&s->lock);
		while (gone) {
			struct dm_iomap *r = gone;

			gone = r->next;
			map_leak(m, r, why);
			dmamap_free(r);
		}
	}
	windows_free_all(w, n);
}

void dmamap_iomem_machine_fini(struct dmamap_machine *m)
{
	struct dm_iomem *s = m->layer[DMAMAP_LAYER_IOMEM];

	if (!s)
		return;
	m->layer[DMAMAP_LAYER_IOMEM] = NULL;
	/* the windows stay their devices' */
	for (struct dm_window *w = s->windows; w; w = w->next)
		w->machine = NULL;
	while (s->maps) {
		struct dm_iomap *r = s->maps;

		s->maps = r->next;
		map_leak(m, r, "at machine destroy");
		dmamap_free(r);
	}
	while (s->regions) {
		struct dm_region *g = s->regions;
		char rs[80];

		s->regions = g->next;
		if (!g->dev)
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, g->file, g->line,
				      "%s() region %s still requested at machine destroy; forgetting it", g->what,
				      res_str(rs, sizeof(rs), &g->res));
		dmamap_free(g);
	}
	pthread_mutex_destroy(&s->lock);
	dmamap_free(s);
}

/* ----------------------------------------------------------- the mappings */

/* The window of @s that holds [phys, phys + size) wholly, or NULL. Called under s->lock. */
static struct dm_window *window_at(struct dm_iomem *s, phys_addr_t phys, phys_addr_t size)
{
	phys_addr_t last = phys + size - 1;

	if (!size || last < phys)
		return NULL;
	for (struct dm_window *w = s->windows; w; w = w->next)
		if (phys >= w->start && last <= w->end)
			return w;
	return NULL;
}

/* Fill @r as the mapping of [phys, phys + size) in @w and put it on @s's list. Called under s->lock. */
static void map_link(struct dm_iomem *s, struct dm_iomap *r, struct dm_window *w, phys_addr_t phys,
		     phys_addr_t size)
{
	r->win = w;
	r->addr = w->mem + (phys - w->start);
	r->phys = phys;
	r->size = (size_t)size;
	r->next = s->maps;
	s->maps = r;
}

static void no_window(struct dmamap_machine *m, struct device *dev, const char *what, phys_addr_t phys,
		      phys_addr_t size, const char *file, int line)
{
	dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, dev ? dev->dmamap.name : NULL, file, line,
		      "%s: no register window holds phys %#llx+%#llx: the windows are a platform device's memory "
		      "resources, given at its creation", what, (unsigned long long)phys, (unsigned long long)size);
}

/* Map [phys, phys + size) of @m: the record, on the list; NULL after a report (or with no memory). */
static struct dm_iomap *map(struct dmamap_machine *m, phys_addr_t phys, phys_addr_t size, struct device *managed,
			    const char *what, const char *file, int line)
{
	struct dm_window *w = NULL;
	struct dm_iomap *r;
	struct dm_iomem *s;

	if (!size) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, managed ? managed->dmamap.name : NULL, file, line,
			      "%s: a mapping of 0 bytes at phys %#llx", what, (unsigned long long)phys);
		return NULL;
	}
	r = dmamap_zalloc(m, sizeof(*r));
	if (!r)
		return NULL;
	r->managed = managed;
	r->machine = m;
	r->what = what;
	r->file = file;
	r->line = line;
	s = iomem_of(m, false);
	if (s) {
		pthread_mutex_lock(&s->lock);
		w = window_at(s, phys, size);
		if (w)
			map_link(s, r, w, phys, size);
		pthread_mutex_unlock(&s->lock);
	}
	if (!w) {
		dmamap_free(r);
		no_window(m, managed, what, phys, size, file, line);
		return NULL;
	}
	return r;
}

/* Take @r off its machine's list, if it is still there. */
static void map_unlink(struct dm_iomap *r)
{
	struct dm_iomem *s = iomem_of(r->machine, false);

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (struct dm_iomap **pp = &s->maps; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
}

/* The managed record's release: the mapping undone, as iounmap() would. */
static void iomap_release(void *data)
{
	map_unlink(data);
	dmamap_free(data);
}

/*
 * Take off @s's list the newest mapping that starts at @addr: one of
 * @managed (devm_iounmap()), or any (iounmap()) when @managed is NULL. NULL
 * when none does.
 */
static struct dm_iomap *take_map(struct dm_iomem *s, const volatile void *addr, struct device *managed)
{
	struct dm_iomap *r = NULL;

	pthread_mutex_lock(&s->lock);
	for (struct dm_iomap **pp = &s->maps; *pp; pp = &(*pp)->next) {
		if ((const volatile void *)(*pp)->addr == addr && (!managed || (*pp)->managed == managed)) {
			r = *pp;
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

static void unmap(struct dmamap_machine *m, const volatile void *addr, const char *what, const char *file, int line)
{
	struct dm_iomem *s = iomem_of(m, false);
	struct dm_iomap *r = s ? take_map(s, addr, NULL) : NULL;

	if (!r) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, file, line,
			      "%s: Trying to vunmap() nonexistent vm area (%p): no mapping holds it", what,
			      (const void *)addr);
		return;
	}
	if (r->managed) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, r->managed->dmamap.name, file, line,
			      "%s(%p): the mapping %s() made at %s:%d is managed: devm_iounmap() undoes it", what,
			      (const void *)addr, r->what, r->file ? r->file : "?", r->line);
		devm_remove_action(r->managed, iomap_release, r);
	}
	dmamap_free(r);
}

DMAMAP_API void *dmamap_ioremap_at(struct dmamap_machine *m, phys_addr_t offset, size_t size, const char *file,
				   int line)
{
	struct dm_iomap *r;

	if (!m)
		m = dmamap_machine_peek_current();
	if (!m) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "ioremap(%#llx, %#zx): no current machine, so no register window", (unsigned long long)offset,
			      size);
		return NULL;
	}
	r = map(m, offset, size, NULL, "ioremap", file, line);
	return r ? r->addr : NULL;
}

DMAMAP_API void dmamap_iounmap_at(struct dmamap_machine *m, const volatile void *addr, const char *file, int line)
{
	if (!addr)
		return;
	if (!m)
		m = dmamap_machine_peek_current();
	if (!m) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "iounmap(%p): no current machine, so no mapping", (const void *)addr);
		return;
	}
	unmap(m, addr, "iounmap", file, line);
}

DMAMAP_API void *dmamap_devm_ioremap_at(struct device *dev, phys_addr_t offset, phys_addr_t size, const char *file,
					int line)
{
	struct dm_iomap *r;

	if (!dm_dev_ok(dev, "devm_ioremap", file, line))
		return NULL;
	r = map(dm_dev_machine(dev), offset, size, dev, "devm_ioremap", file, line);
	if (!r)
		return NULL;
	if (dmamap_devm_add_action(dev, iomap_release, r, false, file, line)) {
		iomap_release(r);
		return NULL;
	}
	return r->addr;
}

DMAMAP_API void dmamap_devm_iounmap_at(struct device *dev, const volatile void *addr, const char *file, int line)
{
	struct dm_iomap *r = NULL;
	struct dm_iomem *s;

	if (!dm_dev_ok(dev, "devm_iounmap", file, line))
		return;
	s = iomem_of(dm_dev_machine(dev), false);
	if (s && addr)
		r = take_map(s, addr, dev);
	if (r) {
		devm_remove_action(dev, iomap_release, r);
		dmamap_free(r);
		return;
	}
	dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, file, line,
		      "devm_iounmap(%p): no mapping the device made with devm_ioremap() or devm_ioremap_resource() "
		      "starts there", (const void *)addr);
	if (addr)
		unmap(dm_dev_machine(dev), addr, "devm_iounmap", file, line);
}

/* ------------------------------------------------------------ the regions */

/* The managed record's release: the region given back, as release_mem_region() would. */
static void region_release(void *data)
{
	struct dm_region *g = data;
	struct dm_iomem *s = iomem_of(g->machine, false);

	if (s) {
		pthread_mutex_lock(&s->lock);
		for (struct dm_region **pp = &s->regions; *pp; pp = &(*pp)->next) {
			if (*pp == g) {
				*pp = g->next;
				break;
			}
		}
		pthread_mutex_unlock(&s->lock);
	}
	dmamap_free(g);
}

/* Whether a region of @s, or @m's RAM, overlaps [start, end]. Lock held. */
static bool region_busy(struct dmamap_machine *m, struct dm_iomem *s, phys_addr_t start, phys_addr_t end)
{
	for (struct dm_region *o = s->regions; o; o = o->next)
		if (overlaps(o->res.start, o->res.end, start, end))
			return true;
	/* RAM is a busy region of the kernel's resource tree ("System RAM") */
	return overlaps(m->cfg.ram_base, m->cfg.ram_base + m->cfg.ram_size - 1, start, end);
}

static void region_fill(struct dm_region *g, struct dmamap_machine *m, struct device *dev, phys_addr_t start,
			phys_addr_t end, const char *name, const char *what, const char *file, int line)
{
	g->res.start = start;
	g->res.end = end;
	g->res.name = name;
	g->res.flags = IORESOURCE_MEM | IORESOURCE_BUSY;
	g->dev = dev;
	g->machine = m;
	g->what = what;
	g->file = file;
	g->line = line;
}

/*
 * Request [start, start + n) of @m for @dev (NULL: not managed): the
 * region's resource, or NULL when the range is empty or wraps, is busy, or
 * no memory can be had for the record.
 */
static struct resource *request_region(struct dmamap_machine *m, struct device *dev, phys_addr_t start,
				       phys_addr_t n, const char *name, const char *what, const char *file, int line)
{
	struct dm_iomem *s;
	struct dm_region *g;
	bool busy;

	/* the kernel's: an empty or wrapping range conflicts with the root of the tree */
	if (!n || start + n - 1 < start)
		return NULL;
	s = iomem_of(m, true);
	g = s ? dmamap_zalloc(m, sizeof(*g)) : NULL;
	if (!g)
		return NULL;
	region_fill(g, m, dev, start, start + n - 1, name, what, file, line);
	pthread_mutex_lock(&s->lock);
	busy = region_busy(m, s, g->res.start, g->res.end);
	if (!busy) {
		g->next = s->regions;
		s->regions = g;
	}
	pthread_mutex_unlock(&s->lock);
	if (busy) {
		dmamap_free(g);
		return NULL;
	}
	if (dev && dmamap_devm_add_action(dev, region_release, g, false, file, line)) {
		region_release(g);
		return NULL;
	}
	return &g->res;
}

/*
 * Take out of @m's regions the one of [start, start + n) that @dev
 * requested (NULL: an unmanaged one): it, or NULL with *@other set to one
 * of those bounds requested otherwise (managed when @dev is NULL, by
 * another device or unmanaged when not), if any. A managed one is left on
 * the list, for its devres release to take out.
 */
static struct dm_region *region_find(struct dmamap_machine *m, struct device *dev, phys_addr_t start,
				     phys_addr_t n, struct dm_region *other)
{
	struct dm_iomem *s = iomem_of(m, false);
	struct dm_region *found = NULL;

	other->what = NULL;
	if (!s || !n || start + n - 1 < start)
		return NULL;
	pthread_mutex_lock(&s->lock);
	for (struct dm_region **pp = &s->regions; *pp; pp = &(*pp)->next) {
		struct dm_region *g = *pp;

		if (g->res.start != start || g->res.end != start + n - 1)
			continue;
		if (g->dev != dev) {
			*other = *g;
			continue;
		}
		found = g;
		if (!dev)
			*pp = g->next;
		break;
	}
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* Why a release of [start, start + n) found nothing to release, at @file:@line. */
static void release_refused(struct dmamap_machine *m, struct device *dev, const char *what, phys_addr_t start,
			    phys_addr_t n, const struct dm_region *other, const char *file, int line)
{
	char why[160];

	if (other->what && other->dev)
		snprintf(why, sizeof(why), "%s() of %s requested it at %s:%d; %s", other->what,
			 dev_name(other->dev), other->file ? other->file : "?", other->line,
			 dev ? "that device releases it" : "devm_release_mem_region() or the unbind releases it");
	else if (other->what)
		snprintf(why, sizeof(why), "%s() requested it at %s:%d, not for a device; release_mem_region() releases it",
			 other->what, other->file ? other->file : "?", other->line);
	else
		snprintf(why, sizeof(why), "no region %s with these bounds",
			 dev ? "the device requested is" : "requested with request_mem_region() is");
	dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev ? dev->dmamap.name : NULL, file, line,
		      "%s(%#llx, %#llx): %s; nothing released", what, (unsigned long long)start, (unsigned long long)n,
		      why);
}

/* @m, or the current machine when NULL; NULL (reported, as @what of the range) when there is none. */
static struct dmamap_machine *region_machine(struct dmamap_machine *m, const char *what, phys_addr_t start,
					     phys_addr_t n, const char *file, int line)
{
	if (!m)
		m = dmamap_machine_peek_current();
	if (!m)
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s(%#llx, %#llx): no current machine",
			      what, (unsigned long long)start, (unsigned long long)n);
	return m;
}

DMAMAP_API struct resource *dmamap_request_mem_region_at(struct dmamap_machine *m, phys_addr_t start,
							 phys_addr_t n, const char *name, const char *file,
							 int line)
{
	m = region_machine(m, "request_mem_region", start, n, file, line);
	return m ? request_region(m, NULL, start, n, name, "request_mem_region", file, line) : NULL;
}

DMAMAP_API void dmamap_release_mem_region_at(struct dmamap_machine *m, phys_addr_t start, phys_addr_t n,
					     const char *file, int line)
{
	struct dm_region other, *g;

	m = region_machine(m, "release_mem_region", start, n, file, line);
	if (!m)
		return;
	g = region_find(m, NULL, start, n, &other);
	if (g)
		dmamap_free(g);
	else
		release_refused(m, NULL, "release_mem_region", start, n, &other, file, line);
}

DMAMAP_API struct resource *dmamap_devm_request_mem_region_at(struct device *dev, phys_addr_t start,
							      phys_addr_t n, const char *name, const char *file,
							      int line)
{
	if (!dm_dev_ok(dev, "devm_request_mem_region", file, line))
		return NULL;
	return request_region(dm_dev_machine(dev), dev, start, n, name, "devm_request_mem_region", file, line);
}

DMAMAP_API void dmamap_devm_release_mem_region_at(struct device *dev, phys_addr_t start, phys_addr_t n,
						  const char *file, int line)
{
	struct dm_region other, *g;

	if (!dm_dev_ok(dev, "devm_release_mem_region", file, line))
		return;
	g = region_find(dm_dev_machine(dev), dev, start, n, &other);
	if (g)
		devm_release_action(dev, region_release, g);
	else
		release_refused(dm_dev_machine(dev), dev, "devm_release_mem_region", start, n, &other, file, line);
}

DMAMAP_API void *dmamap_devm_ioremap_resource_at(struct device *dev, const struct resource *res, const char *file,
						 int line)
{
	struct dmamap_machine *m;
	struct dm_region *g = NULL;
	struct dm_iomap *r = NULL;
	struct dm_window *w = NULL;
	bool busy = false;
	struct dm_iomem *s;
	char rs[80];

	if (!dm_dev_ok(dev, "devm_ioremap_resource", file, line))
		return ERR_PTR(-EINVAL);
	if (!res || !is_mem(res)) {
		dmamap_dev_printk(DMAMAP_LOG_ERR, dev, "invalid resource %s\n", res_str(rs, sizeof(rs), res));
		return ERR_PTR(-EINVAL);
	}
	m = dm_dev_machine(dev);
	if (res->end < res->start) {
		dmamap_dev_printk(DMAMAP_LOG_ERR, dev, "can't request region for resource %s\n",
				  res_str(rs, sizeof(rs), res));
		return ERR_PTR(-EBUSY);
	}
	s = iomem_of(m, true);
	g = s ? dmamap_zalloc(m, sizeof(*g)) : NULL;
	r = g ? dmamap_zalloc(m, sizeof(*r)) : NULL;
	if (!r) {
		dmamap_free(g);
		return ERR_PTR(-ENOMEM);
	}
	pthread_mutex_lock(&s->lock);
	busy = region_busy(m, s, res->start, res->end);
	w = busy ? NULL : window_at(s, res->start, res->end - res->start + 1);
	if (w) {
		region_fill(g, m, dev, res->start, res->end, res->name, "devm_ioremap_resource", file, line);
		g->next = s->regions;
		s->regions = g;
		r->managed = dev;
		r->machine = m;
		r->what = "devm_ioremap_resource";
		r->file = file;
		r->line = line;
		map_link(s, r, w, res->start, res->end - res->start + 1);
	}
	pthread_mutex_unlock(&s->lock);
	if (!w) {
		dmamap_free(r);
		dmamap_free(g);
		if (busy) {
			dmamap_dev_printk(DMAMAP_LOG_ERR, dev, "can't request region for resource %s\n",
					  res_str(rs, sizeof(rs), res));
			return ERR_PTR(-EBUSY);
		}
		no_window(m, dev, "devm_ioremap_resource", res->start, res->end - res->start + 1, file, line);
		dmamap_dev_printk(DMAMAP_LOG_ERR, dev, "ioremap failed for resource %s\n", res_str(rs, sizeof(rs), res));
		return ERR_PTR(-ENOMEM);
	}
	/* as the kernel's: the region, then the mapping, released newest first */
	if (dmamap_devm_add_action(dev, region_release, g, false, file, line)) {
		iomap_release(r);
		region_release(g);
		return ERR_PTR(-ENOMEM);
	}
	if (dmamap_devm_add_action(dev, iomap_release, r, false, file, line)) {
		iomap_release(r);
		devm_release_action(dev, region_release, g);
		return ERR_PTR(-ENOMEM);
	}
	return r->addr;
}
