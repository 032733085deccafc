/* SPDX-License-Identifier: MIT */
/*
 * <linux/kconfig.h> of Linux 6.x over libdmamap: IS_ENABLED(), IS_BUILTIN(),
 * IS_MODULE() and IS_REACHABLE(), defined in <dmamap/linux-api.h> (see there
 * how an option counts as set), which every kernel header of the library
 * brings, as the kernel's build brings this header into every file.
 */
#ifndef _LINUX_KCONFIG_H
#define _LINUX_KCONFIG_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_KCONFIG_H */
