/* SPDX-License-Identifier: MIT */
/* <linux/err.h> of Linux 6.x over libdmamap: ERR_PTR(), PTR_ERR(), IS_ERR() and their relatives. */
#ifndef _LINUX_ERR_H
#define _LINUX_ERR_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/** ERR_CAST() - an error pointer as a pointer of another type. */
static inline void *ERR_CAST(const void *ptr)
{
	return (void *)(uintptr_t)ptr;
}

/** PTR_ERR_OR_ZERO() - the -errno @ptr encodes, or 0 when it is a valid pointer. */
static inline int PTR_ERR_OR_ZERO(const void *ptr)
{
	return IS_ERR(ptr) ? (int)PTR_ERR(ptr) : 0;
}

DMAMAP_END_DECLS

#endif /* _LINUX_ERR_H */
