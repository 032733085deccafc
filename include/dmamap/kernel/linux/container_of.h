/* SPDX-License-Identifier: MIT */
/*
 * <linux/container_of.h> of Linux 6.x over libdmamap: container_of(),
 * defined in <dmamap/linux-api.h>, which every kernel header of the library
 * brings.
 */
#ifndef _LINUX_CONTAINER_OF_H
#define _LINUX_CONTAINER_OF_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_CONTAINER_OF_H */
