/* SPDX-License-Identifier: MIT */
/*
 * <linux/log2.h> of Linux 6.x over libdmamap: is_power_of_2() and ilog2(),
 * defined in <dmamap/linux-api.h>, which every kernel header of the library
 * brings.
 */
#ifndef _LINUX_LOG2_H
#define _LINUX_LOG2_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_LOG2_H */
