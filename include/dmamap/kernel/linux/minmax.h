/* SPDX-License-Identifier: MIT */
/*
 * <linux/minmax.h> of Linux 6.x over libdmamap: min(), max(), min3(), max3(),
 * min_t(), max_t(), min_not_zero(), clamp(), clamp_t(), clamp_val() and
 * swap(), defined in <dmamap/linux-api.h> (each argument evaluated once but
 * swap()'s), which every kernel header of the library brings.
 */
#ifndef _LINUX_MINMAX_H
#define _LINUX_MINMAX_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_MINMAX_H */
