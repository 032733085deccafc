/* SPDX-License-Identifier: MIT */
/*
 * <linux/kernel.h> of Linux 6.x over libdmamap: the names a driver expects
 * from it, as far as the library has them: ARRAY_SIZE(), container_of(),
 * upper_32_bits() and lower_32_bits(), ALIGN() and the rest of
 * <linux/align.h>, DIV_ROUND_UP() and the rest of <linux/math.h>, min() and
 * the rest of <linux/minmax.h>, is_power_of_2() and ilog2(), the kernel's
 * U32_MAX and other limits, pr_err() and its relatives, READ_ONCE() and
 * WRITE_ONCE(), scnprintf() and the rest of <linux/sprintf.h>, might_sleep()
 * and in_atomic() of <linux/preempt.h>, and <linux/types.h>, <linux/bits.h>, <linux/bitops.h>,
 * <linux/bug.h> and <linux/errno.h> (all but <linux/bitops.h> from
 * <dmamap/linux-api.h>). The system's userspace
 * <linux/kernel.h> (struct sysinfo, which libc's <sys/sysinfo.h> takes from
 * it) comes first when there is one.
 */
#ifndef DMAMAP_KERNEL_LINUX_KERNEL_H
#define DMAMAP_KERNEL_LINUX_KERNEL_H

#if defined(__has_include_next)
#if __has_include_next(<linux/kernel.h>)
#include_next <linux/kernel.h>
#endif
#endif
#include <dmamap/linux-api.h>
#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sprintf.h>
#include <linux/types.h>

#endif /* DMAMAP_KERNEL_LINUX_KERNEL_H */
