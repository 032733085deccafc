/* SPDX-License-Identifier: MIT */
/*
 * <linux/bug.h> of Linux 6.x over libdmamap: WARN_ON(), WARN_ON_ONCE(),
 * WARN(), WARN_ONCE(), BUG(), BUG_ON() and BUILD_BUG_ON(), defined in
 * <dmamap/linux-api.h> (see there what each logs), which every kernel
 * header of the library brings.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_BUG_H */
