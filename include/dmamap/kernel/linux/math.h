/* SPDX-License-Identifier: MIT */
/*
 * <linux/math.h> of Linux 6.x over libdmamap: DIV_ROUND_UP(),
 * DIV_ROUND_UP_ULL(), round_up() and round_down() (to a power of two),
 * roundup() and rounddown() (to any multiple), defined in
 * <dmamap/linux-api.h>, which every kernel header of the library brings.
 */
#ifndef _LINUX_MATH_H
#define _LINUX_MATH_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_MATH_H */
