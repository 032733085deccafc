/* SPDX-License-Identifier: MIT */
/*
 * <linux/stddef.h> of Linux 6.x over libdmamap: the system's userspace header
 * of that name first (which other userspace linux/ headers include), then
 * C's <stddef.h> (offsetof(), NULL, size_t) and the kernel's sizeof_field()
 * and offsetofend(). Like <linux/types.h>, it brings nothing of either DMA
 * API, so the libc headers that reach it build in a file of either.
 */
#ifndef DMAMAP_KERNEL_LINUX_STDDEF_H
#define DMAMAP_KERNEL_LINUX_STDDEF_H

#if defined(__has_include_next)
#if __has_include_next(<linux/stddef.h>)
#include_next <linux/stddef.h>
#endif
#endif
#include <stddef.h>

#ifndef sizeof_field
/* sizeof_field() - the size of @MEMBER of struct @TYPE. */
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#endif
#ifndef offsetofend
/* offsetofend() - the offset of the first byte after @MEMBER of struct @TYPE. */
#define offsetofend(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof_field(TYPE, MEMBER))
#endif

#endif /* DMAMAP_KERNEL_LINUX_STDDEF_H */
