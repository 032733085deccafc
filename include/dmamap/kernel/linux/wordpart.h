/* SPDX-License-Identifier: MIT */
/*
 * <linux/wordpart.h> of Linux 6.x over libdmamap (6.11 moved these names here
 * from <linux/kernel.h>): upper_32_bits(), lower_32_bits(), upper_16_bits()
 * and lower_16_bits(), defined in <dmamap/linux-api.h>, which every kernel
 * header of the library brings.
 */
#ifndef _LINUX_WORDPART_H
#define _LINUX_WORDPART_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_WORDPART_H */
