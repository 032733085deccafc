/* SPDX-License-Identifier: MIT */
/*
 * Simulated user mappings: a vm_area_struct over a real host reservation,
 * populated page by page with host aliases of simulated RAM.
 */
#include <stdlib.h>

#include "internal.h"

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
	priv->machine = m;
	vma->vm_start = (unsigned long)base;
	vma->vm_end = vma->vm_start + size;
	vma->vm_pgoff = 0;
	vma->vm_page_prot = PAGE_SHARED;
	vma->vm_flags = VM_READ | VM_WRITE | VM_SHARED;
	vma->dmamap = priv;

	pthread_mutex_lock(&m->obj_lock);
	priv->next = m->vmas;
	if (m->vmas)
		m->vmas->dmamap->prev = vma;
	m->vmas = vma;
	pthread_mutex_unlock(&m->obj_lock);
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

static void vma_teardown(struct vm_area_struct *vma)
{
	struct dmamap_vma_private *priv = vma->dmamap;

	dm_host_release((void *)vma->vm_start, vma->vm_end - vma->vm_start);
	dmamap_free(priv->pte_pfn);
	dmamap_free(priv->pte_prot);
	dmamap_free(priv);
	dmamap_free(vma);
}

DMAMAP_API void dmamap_vma_destroy(struct vm_area_struct *vma)
{
	struct dmamap_vma_private *priv;
	struct dmamap_machine *m;

	if (!vma)
		return;
	priv = vma->dmamap;
	if (!priv) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "dmamap_vma_destroy(%p): not a vma made by dmamap_vma_create", (void *)vma);
		return;
	}
	m = priv->machine;
	pthread_mutex_lock(&m->obj_lock);
	if (priv->prev)
		priv->prev->dmamap->next = priv->next;
	else
		m->vmas = priv->next;
	if (priv->next)
		priv->next->dmamap->prev = priv->prev;
	pthread_mutex_unlock(&m->obj_lock);
	vma_teardown(vma);
}

void dmamap_vmas_fini(struct dmamap_machine *m)
{
	unsigned long n = 0;

	pthread_mutex_lock(&m->obj_lock);
	while (m->vmas) {
		struct vm_area_struct *vma = m->vmas;

		m->vmas = vma->dmamap->next;
		vma_teardown(vma);
		n++;
	}
	pthread_mutex_unlock(&m->obj_lock);
	if (n)
		dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0, "%lu user vmas still live at machine destroy", n);
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
	m = priv->machine;
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
	struct dmamap_machine *m = priv->machine;
	size_t first = (addr - vma->vm_start) >> PAGE_SHIFT, n = size >> PAGE_SHIFT;

	pthread_mutex_lock(&m->obj_lock);
	for (size_t i = first; i < first + n; i++) {
		if (priv->pte_prot[i]) {
			dm_host_unmap((void *)(vma->vm_start + (i << PAGE_SHIFT)), PAGE_SIZE);
			priv->pte_prot[i] = 0;
			priv->pte_pfn[i] = 0;
		}
	}
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
	if (!vma || !vma->dmamap || !page || dm_page_machine(page) != vma->dmamap->machine ||
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
	idx = (addr - vma->vm_start) >> PAGE_SHIFT;
	pthread_mutex_lock(&priv->machine->obj_lock);
	if (!priv->pte_prot[idx]) {
		ret = -ENOENT;
	} else {
		if (pfn)
			*pfn = priv->pte_pfn[idx];
		if (prot)
			*prot = __pgprot(priv->pte_prot[idx]);
	}
	pthread_mutex_unlock(&priv->machine->obj_lock);
	return ret;
}
