/* SPDX-License-Identifier: MIT */
/*
 * <linux/sprintf.h> of Linux 6.x over libdmamap (the kernel moved its
 * formatting calls here from <linux/kernel.h> in 6.7; that header still
 * brings this one): scnprintf() and vscnprintf() of <dmamap/log.h>, in the
 * printk formats (%pad, %pe...), and kasprintf() and kvasprintf() of
 * <linux/slab.h>. snprintf(), vsnprintf() and sprintf() are the C
 * library's: they take printf's formats only.
 */
#ifndef _LINUX_SPRINTF_H
#define _LINUX_SPRINTF_H

#include <stdio.h>

#include <dmamap/linux-api.h>
#include <linux/slab.h>

#endif /* _LINUX_SPRINTF_H */
