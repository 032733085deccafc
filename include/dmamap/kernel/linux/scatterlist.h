/* SPDX-License-Identifier: MIT */
/*
 * <linux/scatterlist.h> of Linux 6.x over libdmamap: struct scatterlist and
 * struct sg_table, sg_init_table(), sg_set_buf(), sg_alloc_table(),
 * sg_alloc_table_from_pages(), sg_nents_for_len(), for_each_sg(),
 * for_each_sgtable_sg(), sg_dma_address(), sg_copy_from_buffer(),
 * sg_pcopy_from_buffer(), sg_pcopy_to_buffer(), sg_zero_buffer(), the
 * mapping iterator (sg_miter_start(), sg_miter_next(), sg_miter_skip(),
 * sg_miter_stop()) that hands the CPU a list's data a page at a time, the
 * page iterators (for_each_sg_page(), for_each_sgtable_dma_page(),
 * sg_page_iter_page(), sg_page_iter_dma_address()...), sg_init_marker(),
 * lists of fresh pages (sgl_alloc_order(), sgl_alloc(), sgl_free_n_order(),
 * sgl_free_order(), sgl_free()), append tables (struct sg_append_table,
 * sg_alloc_append_table_from_pages(), sg_free_append_table())...
 */
#ifndef _LINUX_SCATTERLIST_H
#define _LINUX_SCATTERLIST_H

#include <dmamap/linux-api.h>
#include <linux/mm.h>
#include <dmamap/scatterlist.h>

#endif /* _LINUX_SCATTERLIST_H */
