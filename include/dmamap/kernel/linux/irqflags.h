/* SPDX-License-Identifier: MIT */
/*
 * <linux/irqflags.h> of Linux 6.x over libdmamap (<dmamap/locking.h>): the
 * calling thread's interrupt state, which a test's thread has as a CPU has
 * its own: local_irq_save() and local_irq_restore() (@flags an unsigned
 * long lvalue, as the kernel checks), local_irq_disable(),
 * local_irq_enable(), irqs_disabled() and irqs_disabled_flags(). Turning
 * interrupts off excludes no other thread; it makes the thread one that may
 * not sleep.
 */
#ifndef _LINUX_IRQFLAGS_H
#define _LINUX_IRQFLAGS_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>

/*
 * DMAMAP_IRQFLAGS_CHECK() - in C, @flags must be an unsigned long, as the
 * kernel's typecheck() in local_irq_save() and spin_lock_irqsave() demands
 * (an int would lose the saved state on a 64-bit kernel).
 */
#ifdef __cplusplus
#define DMAMAP_IRQFLAGS_CHECK(flags) ((void)0)
#else
#define DMAMAP_IRQFLAGS_CHECK(flags)                                                                \
	((void)sizeof(struct {                                                                      \
		 _Static_assert(__builtin_types_compatible_p(__typeof__(flags), unsigned long),     \
				"the saved interrupt flags are an unsigned long, as the kernel's");  \
		 int dmamap_flags_check;                                                            \
	 }))
#endif

#define local_irq_save(flags)                                                                       \
	do {                                                                                        \
		DMAMAP_IRQFLAGS_CHECK(flags);                                                       \
		(flags) = dmamap_local_irq_save_at("local_irq_save", __FILE__, __LINE__);           \
	} while (0)
#define local_irq_restore(flags) dmamap_local_irq_restore(flags)
#define local_irq_disable() ((void)dmamap_local_irq_save_at("local_irq_disable", __FILE__, __LINE__))
#define local_irq_enable() dmamap_local_irq_restore(0)
#define irqs_disabled() dmamap_irqs_disabled()
#define irqs_disabled_flags(flags) (((flags) & DMAMAP_IRQFLAGS_OFF) != 0)
#define raw_local_irq_save(flags) local_irq_save(flags)
#define raw_local_irq_restore(flags) local_irq_restore(flags)

#endif /* _LINUX_IRQFLAGS_H */
