/* SPDX-License-Identifier: MIT */
/*
 * Simulated user mappings: a vm_area_struct over a real host reservation,
 * populated page by page with host aliases of simulated RAM.
 */
#include <stdlib.h>

#include "internal.h"

static size_t vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

/* Clear ptes [first, first + n) of @vma, unmapping the present ones unless the reservation goes whole. */
static void ptes_clear(struct dmamap_machine *m, struct vm_area_struct *vma, size_t first, size_t n, bool unmap)
{
	struct dmamap_vma_private *priv = vma->dmamap;

	for (size_t i = first; i < first + n; i++) {
		if (priv->pte_prot[i]) {
			if (unmap)
				dm_host_unmap((void *)(vma->vm_start + (i << PAGE_SHIFT)), PAGE_SIZE);
			dm_host_unalias(m, priv->pte_pfn[i], priv->pte_prot[i]);
			priv->pte_prot[i] = 0;
			priv->pte_pfn[i] = 0;
		}
	}
}

static struct vm_area_struct *vma_of(struct dmamap_obj *o)
{
	struct dmamap_vma_private *priv = container_of(o, struct dmamap_vma_private, obj);

	return priv->vma;
}

/* The machine is going: its RAM with it, so no host alias of it may stay. */
static void vma_machine_gone(struct dmamap_obj *o)
{
	struct vm_area_struct *vma = vma_of(o);
	struct dmamap_machine *m = o->machine;

	dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
		      "user vma %#lx-%#lx still live at machine destroy; unmapped (destroy it to free it)",
		      vma->vm_start, vma->vm_end);
	pthread_mutex_lock(&m->obj_lock);
	ptes_clear(m, vma, 0, vma_pages(vma), true);
	pthread_mutex_unlock(&m->obj_lock);
}

static void vma_check(struct dmamap_obj *o, struct dm_check *c)
{
	struct vm_area_struct *vma = vma_of(o);
	struct dmamap_vma_private *priv = vma->dmamap;
	struct dmamap_machine *m = o->machine;

	pthread_mutex_lock(&m->obj_lock);
	for (size_t i = 0; i < vma_pages(vma); i++) {
		if (priv->pte_prot[i] && !dmamap_pfn_valid(m, priv->pte_pfn[i]))
			dm_check_fail(c, DMAMAP_CHECK_VMA, "vma %#lx: page %zu maps pfn %#lx, not RAM", vma->vm_start, i,
				      priv->pte_pfn[i]);
		else if (!priv->pte_prot[i] && priv->pte_pfn[i])
			dm_check_fail(c, DMAMAP_CHECK_VMA, "vma %#lx: page %zu is not present but keeps pfn %#lx",
				      vma->vm_start, i, priv->pte_pfn[i]);
	}
	pthread_mutex_unlock(&m->obj_lock);
}

static const struct dmamap_obj_ops vma_obj_ops = {
	.name = "vma",
	.machine_gone = vma_machine_gone,
	.check = vma_check,
};

DMAMAP_API struct vm_area_struct *dmamap_vma_create(struct dmamap_machine *m, size_t size)
{
	struct vm_area_struct *vma;
	struct dmamap_vma_private *priv;
	size_t pages;
	void *base;

	if (!m || !size || size & ~PAGE_MASK) {
		errno = EINVAL;
		return NULL;
	}
	pages = size >> PAGE_SHIFT;
	vma = dmamap_zalloc(m, sizeof(*vma));
	priv = dmamap_zalloc(m, sizeof(*priv));
	if (!vma || !priv)
		goto nomem;
	priv->pte_pfn = dmamap_allocarray(m, pages, sizeof(*priv->pte_pfn));
	priv->pte_prot = dmamap_allocarray(m, pages, sizeof(*priv->pte_prot));
	if (!priv->pte_pfn || !priv->pte_prot)
		goto nomem;
	base = dm_host_reserve(size, PAGE_SIZE);
	if (!base)
		goto nomem;
	priv->vma = vma;
	vma->vm_start = (unsigned long)base;
	vma->vm_end = vma->vm_start + size;
	vma->vm_pgoff = 0;
	vma->vm_page_prot = PAGE_SHARED;
	vma->vm_flags = VM_READ | VM_WRITE | VM_SHARED;
	vma->dmamap = priv;
	dmamap_obj_add(m, &priv->obj, &vma_obj_ops);
	dmamap_obj_own(&priv->obj, vma, DM_OBJ_VMA);
	return vma;

nomem:
	if (priv) {
		dmamap_free(priv->pte_pfn);
		dmamap_free(priv->pte_prot);
	}
	dmamap_free(priv);
	dmamap_free(vma);
	errno = ENOMEM;
	return NULL;
}

DMAMAP_API void dmamap_vma_destroy(struct vm_area_struct *vma)
{
	struct dmamap_vma_private *priv;

	if (!vma || !dmamap_obj_owned(vma, "dmamap_vma_destroy", DM_OBJ_VMA, NULL, 0))
		return;
	priv = vma->dmamap;
	if (dmamap_obj_dead(&priv->obj)) {
		dmamap_obj_dead_report(&priv->obj, "dmamap_vma_destroy");
	} else {
		struct dmamap_machine *m = priv->obj.machine;

		pthread_mutex_lock(&m->obj_lock);
		ptes_clear(m, vma, 0, vma_pages(vma), false);
		pthread_mutex_unlock(&m->obj_lock);
	}
	dmamap_obj_del(&priv->obj);
	/* the reservation goes whole: the host aliases in it with it */
	dm_host_release((void *)vma->vm_start, vma->vm_end - vma->vm_start);
	priv->vma = NULL;
	dmamap_obj_disown(&priv->obj);
	dmamap_free(priv->pte_pfn);
	dmamap_free(priv->pte_prot);
	dmamap_free(priv);
	vma->dmamap = NULL;
	dmamap_free(vma);
}

/* Map frames [pfn, pfn + count) at @addr. Validates everything before touching anything. */
static int vma_map(struct vm_area_struct *vma, unsigned long addr, unsigned long pfn, size_t count, pgprot_t prot)
{
	struct dmamap_vma_private *priv = vma ? vma->dmamap : NULL;
	struct dmamap_machine *m;
	size_t first;
	int err;

	if (!priv || addr & ~PAGE_MASK || addr < vma->vm_start || addr >= vma->vm_end || !count ||
	    count > (vma->vm_end - addr) >> PAGE_SHIFT)
		return -EINVAL;
	m = priv->obj.machine;
	if (!m) {
		dmamap_obj_dead_report(&priv->obj, "remap_pfn_range");
		return -ENXIO;
	}
	if (!dmamap_pfn_valid(m, pfn) || !dmamap_pfn_valid(m, pfn + count - 1) ||
	    pgprot_memtype(prot) == DMAMAP_MT_NONE || pgprot_memtype(prot) >= DMAMAP_MT_NR)
		return -EINVAL;
	first = (addr - vma->vm_start) >> PAGE_SHIFT;
	pthread_mutex_lock(&m->obj_lock);
	for (size_t i = 0; i < count; i++) {
		if (priv->pte_prot[first + i]) {
			pthread_mutex_unlock(&m->obj_lock);
			return -EBUSY;
		}
	}
	if (dmamap_should_fail(m, DMAMAP_FAULT_REMAP)) {
		pthread_mutex_unlock(&m->obj_lock);
		return -ENOMEM;
	}
	err = dm_host_map(m, (void *)addr, pfn, count, prot);
	if (!err) {
		for (size_t i = 0; i < count; i++) {
			priv->pte_pfn[first + i] = pfn + i;
			priv->pte_prot[first + i] = (unsigned char)pgprot_val(prot);
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return err;
}

void dmamap_vma_zap(struct vm_area_struct *vma, unsigned long addr, size_t size)
{
	struct dmamap_vma_private *priv = vma->dmamap;
	struct dmamap_machine *m = priv->obj.machine;
	size_t first = (addr - vma->vm_start) >> PAGE_SHIFT, n = size >> PAGE_SHIFT;

	pthread_mutex_lock(&m->obj_lock);
	ptes_clear(m, vma, first, n, true);
	pthread_mutex_unlock(&m->obj_lock);
}

DMAMAP_API int remap_pfn_range(struct vm_area_struct *vma, unsigned long addr, unsigned long pfn, unsigned long size,
			       pgprot_t prot)
{
	if (!size || size & ~PAGE_MASK)
		return -EINVAL;
	return vma_map(vma, addr, pfn, size >> PAGE_SHIFT, prot);
}

DMAMAP_API int vm_insert_page(struct vm_area_struct *vma, unsigned long addr, struct page *page)
{
	if (!vma || !vma->dmamap || !page || dm_page_machine(page) != vma->dmamap->obj.machine ||
	    !(PageFlag(page, PG_head) || PageFlag(page, PG_tail)))
		return -EINVAL;
	return vma_map(vma, addr, page_to_pfn(page), 1, vma->vm_page_prot);
}

DMAMAP_API int dmamap_vma_pte(const struct vm_area_struct *vma, unsigned long addr, unsigned long *pfn, pgprot_t *prot)
{
	struct dmamap_vma_private *priv = vma ? vma->dmamap : NULL;
	size_t idx;
	int ret = 0;

	if (!priv || addr < vma->vm_start || addr >= vma->vm_end)
		return -EINVAL;
	if (dmamap_obj_dead(&priv->obj))
		return -ENOENT; /* unmapped with its machine */
	idx = (addr - vma->vm_start) >> PAGE_SHIFT;
	pthread_mutex_lock(&priv->obj.machine->obj_lock);
	if (!priv->pte_prot[idx]) {
		ret = -ENOENT;
	} else {
		if (pfn)
			*pfn = priv->pte_pfn[idx];
		if (prot)
			*prot = __pgprot(priv->pte_prot[idx]);
	}
	pthread_mutex_unlock(&priv->obj.machine->obj_lock);
	return ret;
}
