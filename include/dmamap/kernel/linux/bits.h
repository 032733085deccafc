/* SPDX-License-Identifier: MIT */
/*
 * <linux/bits.h> of Linux 6.x over libdmamap: BIT(), BIT_ULL(), GENMASK() and
 * GENMASK_ULL(), defined in <dmamap/linux-api.h>, which every kernel header
 * of the library brings. A userspace <linux/bits.h> of the system (Linux
 * 6.10 and later have one) is included too, for what it defines.
 */
#ifndef DMAMAP_KERNEL_LINUX_BITS_H
#define DMAMAP_KERNEL_LINUX_BITS_H

#include <dmamap/linux-api.h>
#if defined(__has_include_next)
#if __has_include_next(<linux/bits.h>)
#include_next <linux/bits.h>
#endif
#endif

#endif /* DMAMAP_KERNEL_LINUX_BITS_H */
