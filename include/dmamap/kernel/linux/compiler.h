/* SPDX-License-Identifier: MIT */
/*
 * <linux/compiler.h> of Linux 6.x over libdmamap: READ_ONCE(), WRITE_ONCE(),
 * barrier(), likely(), unlikely() and the attributes drivers write (__iomem,
 * __force, __must_check, __maybe_unused, __packed, __aligned(), fallthrough),
 * defined in <dmamap/linux-api.h>, which every kernel header of the library
 * brings.
 */
#ifndef _LINUX_COMPILER_H
#define _LINUX_COMPILER_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_COMPILER_H */
