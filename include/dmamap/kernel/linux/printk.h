/* SPDX-License-Identifier: MIT */
/*
 * <linux/printk.h> of Linux 6.x over libdmamap: pr_err(), pr_warn(),
 * pr_info(), pr_debug() and their relatives, with pr_fmt(), defined in
 * <dmamap/linux-api.h> (logged through the current machine's handler),
 * which every kernel header of the library brings.
 */
#ifndef _LINUX_PRINTK_H
#define _LINUX_PRINTK_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_PRINTK_H */
