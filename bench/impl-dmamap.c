/* SPDX-License-Identifier: MIT */
/*
 * "dmamap": the library's own allocator, through its public API (what the
 * IOMMU mapper uses); "dmamap+mag": the same with per-thread caches on
 * (dmamap_iova_set_cache()).
 */
#include <dmamap/dmamap.h>

#include "iova-impl.h"

static void *dm_create(uint64_t pages)
{
	/* Base 0 is a valid address; addresses are pages << PAGE_SHIFT. */
	return dmamap_iova_create(0, (size_t)(pages << PAGE_SHIFT), 0);
}

static void *dm_create_mag(uint64_t pages)
{
	struct dmamap_iova *a = dm_create(pages);

	if (a && dmamap_iova_set_cache(a, true)) {
		dmamap_iova_destroy(a);
		a = NULL;
	}
	return a;
}

static void dm_destroy(void *a)
{
	dmamap_iova_destroy(a);
}

static uint64_t dm_alloc(void *a, uint64_t n)
{
	dma_addr_t addr = dmamap_iova_alloc(a, (size_t)(n << PAGE_SHIFT));

	return addr == DMA_MAPPING_ERROR ? IOVA_BENCH_FAIL : addr >> PAGE_SHIFT;
}

static void dm_free(void *a, uint64_t first, uint64_t n)
{
	dmamap_iova_free(a, first << PAGE_SHIFT, (size_t)(n << PAGE_SHIFT));
}

static size_t dm_metadata(void *a)
{
	struct dmamap_iova_stats st;

	dmamap_iova_stats(a, &st);
	return st.metadata_bytes;
}

const struct iova_impl iova_impl_dmamap = {
	.name = "dmamap",
	.what = "this library's allocator (dmamap_iova_*), what the IOMMU mapper uses",
	.create = dm_create,
	.destroy = dm_destroy,
	.alloc = dm_alloc,
	.free = dm_free,
	.metadata_bytes = dm_metadata,
};

const struct iova_impl iova_impl_dmamap_mag = {
	.name = "dmamap+mag",
	.what = "the same with per-thread caches of 16 ranges per size up to 32 pages (dmamap_iova_set_cache)",
	.create = dm_create_mag,
	.destroy = dm_destroy,
	.alloc = dm_alloc,
	.free = dm_free,
	.metadata_bytes = dm_metadata,
};
