/* SPDX-License-Identifier: MIT */
/*
 * <linux/array_size.h> of Linux 6.x over libdmamap: ARRAY_SIZE(), defined in
 * <dmamap/linux-api.h>, which every kernel header of the library brings.
 */
#ifndef _LINUX_ARRAY_SIZE_H
#define _LINUX_ARRAY_SIZE_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_ARRAY_SIZE_H */
