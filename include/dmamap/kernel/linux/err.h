/* SPDX-License-Identifier: MIT */
/* <linux/err.h> of Linux 6.x over libdmamap: ERR_PTR(), PTR_ERR(), IS_ERR(), IS_ERR_VALUE() and their relatives. */
#ifndef _LINUX_ERR_H
#define _LINUX_ERR_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/* IS_ERR_VALUE() - whether @x, an integer (an unsigned long address, an int return), holds a -errno. */
#define IS_ERR_VALUE(x) __builtin_expect((unsigned long)(x) >= (unsigned long)-MAX_ERRNO, 0)

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
