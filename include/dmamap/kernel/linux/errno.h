/* SPDX-License-Identifier: MIT */
/*
 * <linux/errno.h> of Linux 6.x over libdmamap: the userspace errnos (the
 * system's <linux/errno.h>, which libc's <errno.h> includes) and the
 * kernel-internal ones drivers return: ERESTARTSYS (512, a sleep broken
 * by a signal, which the interruptible waits of <linux/wait.h> never
 * are here), EPROBE_DEFER (517, a resource the probe needs is not there
 * yet) and ENOTSUPP (524, the kernel's "not supported"; userspace has
 * EOPNOTSUPP). This header brings nothing else,
 * so libc's <errno.h> stays as it was.
 */
#ifndef DMAMAP_KERNEL_LINUX_ERRNO_H
#define DMAMAP_KERNEL_LINUX_ERRNO_H

#if defined(__has_include_next)
#if __has_include_next(<linux/errno.h>)
#include_next <linux/errno.h>
#endif
#endif
#include <errno.h>

#ifndef ERESTARTSYS
#define ERESTARTSYS 512 /* a sleep broken by a signal: the system call restarts */
#endif
#ifndef EPROBE_DEFER
#define EPROBE_DEFER 517 /* a resource the probe needs is not there yet: probe again later */
#endif
#ifndef ENOTSUPP
#define ENOTSUPP 524 /* operation not supported (the kernel's; userspace has EOPNOTSUPP) */
#endif

#endif /* DMAMAP_KERNEL_LINUX_ERRNO_H */
