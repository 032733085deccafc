/* SPDX-License-Identifier: MIT */
/*
 * <linux/irqreturn.h> of Linux 6.x over libdmamap (<dmamap/irq.h>): what an
 * interrupt handler returns, irqreturn_t with IRQ_NONE, IRQ_HANDLED and
 * IRQ_WAKE_THREAD, and IRQ_RETVAL(). As in the kernel, irqreturn_t is an
 * enum irqreturn. IRQ_WAKE_THREAD runs the thread function of a handler
 * requested with request_threaded_irq() (<linux/interrupt.h>).
 */
#ifndef _LINUX_IRQRETURN_H
#define _LINUX_IRQRETURN_H

#include <dmamap/irq.h>

/* IRQ_RETVAL() - IRQ_HANDLED when @x is non-zero, else IRQ_NONE. */
#define IRQ_RETVAL(x) ((x) ? IRQ_HANDLED : IRQ_NONE)

#endif /* _LINUX_IRQRETURN_H */
