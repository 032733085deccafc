/* SPDX-License-Identifier: MIT */
/*
 * <linux/build_bug.h> of Linux 6.x over libdmamap: BUILD_BUG_ON(),
 * BUILD_BUG_ON_MSG(), BUILD_BUG_ON_ZERO() and, in C, the kernel's
 * static_assert() (its message optional), defined in <dmamap/linux-api.h>,
 * which every kernel header of the library brings.
 */
#ifndef _LINUX_BUILD_BUG_H
#define _LINUX_BUILD_BUG_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_BUILD_BUG_H */
