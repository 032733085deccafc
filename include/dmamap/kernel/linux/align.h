/* SPDX-License-Identifier: MIT */
/*
 * <linux/align.h> of Linux 6.x over libdmamap: ALIGN(), ALIGN_DOWN(),
 * PTR_ALIGN(), PTR_ALIGN_DOWN() and IS_ALIGNED(), to a power of two, defined
 * in <dmamap/linux-api.h>, which every kernel header of the library brings.
 */
#ifndef _LINUX_ALIGN_H
#define _LINUX_ALIGN_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_ALIGN_H */
