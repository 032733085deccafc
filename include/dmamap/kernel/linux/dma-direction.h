/* SPDX-License-Identifier: MIT */
/* <linux/dma-direction.h> of Linux 6.x over libdmamap: enum dma_data_direction and valid_dma_direction(). */
#ifndef _LINUX_DMA_DIRECTION_H
#define _LINUX_DMA_DIRECTION_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>

#endif /* _LINUX_DMA_DIRECTION_H */
