/* SPDX-License-Identifier: MIT */
/*
 * <linux/poison.h> of Linux 6.x over libdmamap: the values the kernel
 * writes into memory and links that must no longer be used, so that a use
 * after the fact faults or shows. LIST_POISON1 and LIST_POISON2 are what
 * list_del() and hlist_del() leave in an entry's links: addresses in the
 * host's first page, which is never mapped, so following a deleted entry's
 * link faults (SIGSEGV) at once, as it oopses in the kernel.
 * POISON_POINTER_DELTA is 0, as on 32-bit ARM.
 */
#ifndef _LINUX_POISON_H
#define _LINUX_POISON_H

#include <dmamap/linux-api.h>

#define POISON_POINTER_DELTA 0
#define LIST_POISON1 ((void *)(uintptr_t)(0x100 + POISON_POINTER_DELTA))
#define LIST_POISON2 ((void *)(uintptr_t)(0x122 + POISON_POINTER_DELTA))

/* The bytes slab debugging fills objects with: in use (not initialised), freed, and the last byte of a freed one. */
#define POISON_INUSE 0x5a
#define POISON_FREE 0x6b
#define POISON_END 0xa5

#endif /* _LINUX_POISON_H */
