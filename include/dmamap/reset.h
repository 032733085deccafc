/* SPDX-License-Identifier: MIT */
/*
 * Reset lines of devices: the ones a board wires to a device, and the reset
 * controller framework's consumer calls drivers hold their hardware in reset
 * and let it out with (<linux/reset.h>, which brings this header).
 *
 * The test gives a device its reset lines before the driver binds, as its
 * device tree's "resets" and "reset-names" would, each with the state it
 * starts in:
 *
 *	dmamap_device_add_reset(&pdev->dev, "core", true);
 *	dmamap_device_add_reset(&pdev->dev, "bus", false);
 *
 * and the driver gets them by name (NULL: the first) with
 * reset_control_get_exclusive(), reset_control_get_shared(), their optional
 * and devm_ forms, the devm_ forms that deassert at once and assert again at
 * unbind (Linux 6.13), or devm_reset_control_array_get_*(), all of the
 * device's lines as one control. dmamap_device_reset_state() tells the test
 * whether a line is asserted, how often reset_control_reset() pulsed it, its
 * shared deassert count and its live handles.
 *
 * Exclusive and shared, as the kernel's: an exclusive control drives its
 * line directly and is the only one on it; shared controls count deasserts,
 * the line leaving reset at the first and going back at the assert that
 * matches the last. Each get gives a handle of its own (the kernel gives the
 * gets of a shared line one counted control); the count is the line's, and
 * goes when the line's last shared handle is put, the line staying as it is,
 * as the kernel frees its control. reset_control_reset() pulses a line once
 * for all its shared users until reset_control_rearm(). An exclusive control
 * got "released" (reset_control_get_exclusive_released()) drives its line
 * only between reset_control_acquire() and reset_control_release(), several
 * released controls taking turns on one line. A NULL control (an optional
 * line the board did not wire) does nothing and returns 0.
 *
 * Reported (DMAMAP_REPORT_API_MISUSE, the kernel's warnings), at the caller's
 * line, changing nothing: a get of a line another control holds in the other
 * mode, or an exclusive get of a line held at all (-EBUSY); a shared assert
 * with no deassert to match (-EINVAL); a shared assert or deassert of a line
 * pulsed and not rearmed, and a shared pulse of a line deasserted (-EINVAL); a
 * rearm with no pulse to undo (-EDOM); an assert, deassert, pulse or rearm
 * through an exclusive control not acquired (-EPERM); reset_control_status()
 * of an array (-EINVAL); reset_control_put() of a devm_ handle. A call on an
 * error pointer, or on a handle put already or never got, is
 * DMAMAP_REPORT_BAD_INPUT (-EINVAL, or ignored for the calls that return
 * nothing). When the driver unbinds (or the probe fails, or a plain device is
 * released), after its managed resources went, a handle it never put is a
 * DMAMAP_REPORT_LEAK at the line that got it, and is put. A line left
 * deasserted is no leak: the device goes on running, as after the kernel's
 * unbind, and the next driver finds it so.
 *
 * The gets, reset_control_put() and reset_control_acquire() take the reset
 * core's lock and may sleep (reported under a spinlock, as might_sleep()
 * is). Assert, deassert, reset, status, rearm and release are documented for
 * no context; they are not checked.
 */
#ifndef DMAMAP_RESET_H
#define DMAMAP_RESET_H

#include <stdbool.h>

#include <dmamap/types.h>
#include <dmamap/device.h>

DMAMAP_BEGIN_DECLS

/* A consumer's handle on a reset line, or on all of a device's (opaque). */
struct reset_control;

/**
 * dmamap_device_add_reset() - wire a reset line to @dev, as its board's device tree would
 * @dev: an initialised device with no driver bound
 * @id: its name in the device's "reset-names" (copied), or NULL for a line
 *      without a name (found by a NULL id when first)
 * @asserted: whether the line starts asserted (the device held in reset)
 *
 * The lines keep the order they were added in: a get with a NULL id finds
 * the first, an array get takes them all in that order. A line stays the
 * device's until its release.
 * Return: 0; -EINVAL for a device that is not initialised or a name the
 * device has already (several lines may have no name), -EBUSY while a
 * driver is bound, -ENOMEM. Each error but -ENOMEM is reported
 * (DMAMAP_REPORT_BAD_INPUT); on an error nothing changed.
 */
DMAMAP_API int dmamap_device_add_reset(struct device *dev, const char *id, bool asserted);

/* What dmamap_device_reset_state() tells of a reset line. */
struct dmamap_reset_state {
	bool asserted;               /* the device is held in reset */
	unsigned int pulses;         /* reset_control_reset() pulses it took */
	unsigned int deassert_count; /* the shared controls' deasserts not yet matched by an assert */
	unsigned int handles;        /* handles on it got and not yet put (an array's included) */
};

/**
 * dmamap_device_reset_state() - the state of @dev's reset line @id (NULL: the first)
 * @dev: the device
 * @id: the line's name, or NULL
 * @st: receives its state, counts and live handles
 *
 * Return: 0; -ENOENT when @dev has no such line; -EINVAL for a device that
 * is not initialised or a NULL @st (reported).
 */
DMAMAP_API int dmamap_device_reset_state(struct device *dev, const char *id, struct dmamap_reset_state *st);

/* How a get takes its line(s). */
#define DMAMAP_RESET_SHARED 0x1u     /* shared (deasserts counted); else exclusive */
#define DMAMAP_RESET_OPTIONAL 0x2u   /* NULL when the board did not wire it */
#define DMAMAP_RESET_RELEASED 0x4u   /* exclusive, not acquired (reset_control_get_exclusive_released()) */
#define DMAMAP_RESET_DEASSERTED 0x8u /* devm_ only: deasserted now, asserted again at unbind */

/**
 * dmamap_reset_control_get_at() - reset_control_get_exclusive() and its shared, optional and released forms
 * @dev: the consumer
 * @id: the line's name, or NULL for the line at @index
 * @index: with a NULL @id, which of the device's lines (0: the first)
 * @flags: DMAMAP_RESET_* flags but DMAMAP_RESET_DEASSERTED
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The caller owns the handle and gives it back with reset_control_put().
 * May sleep.
 * Return: the handle; NULL for an optional line not wired; ERR_PTR(-ENOENT)
 * for no such line, ERR_PTR(-EBUSY) for a line held (reported),
 * ERR_PTR(-EINVAL) for a device that is not initialised or bad flags
 * (reported), ERR_PTR(-ENOMEM).
 */
DMAMAP_API struct reset_control *dmamap_reset_control_get_at(struct device *dev, const char *id, unsigned int index,
							     unsigned int flags, const char *file, int line);

/**
 * dmamap_devm_reset_control_get_at() - devm_reset_control_get_exclusive() and its other forms
 * @dev: the consumer
 * @id: the line's name, or NULL for the line at @index
 * @index: with a NULL @id, which of the device's lines
 * @flags: DMAMAP_RESET_* flags
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As dmamap_reset_control_get_at(), the handle the device's until it
 * unbinds, when it is put (asserted first with DMAMAP_RESET_DEASSERTED, whose
 * deassert is made here). May sleep.
 * Return: the handle, NULL for an optional line not wired; the errors of
 * dmamap_reset_control_get_at() or of the deassert (nothing kept then).
 */
DMAMAP_API struct reset_control *dmamap_devm_reset_control_get_at(struct device *dev, const char *id,
								  unsigned int index, unsigned int flags,
								  const char *file, int line);

/**
 * dmamap_devm_reset_control_array_get_at() - devm_reset_control_array_get_*(): all of @dev's lines as one control
 * @dev: the consumer
 * @flags: DMAMAP_RESET_SHARED, DMAMAP_RESET_OPTIONAL, DMAMAP_RESET_RELEASED
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Each line is got as a get of @flags would get it; the control asserts,
 * deasserts, pulses, rearms, acquires and releases them in the board's
 * order, and undoes those done when one fails. It is put at unbind.
 * Return: the control; NULL for an optional array of a device with no line,
 * ERR_PTR(-ENOENT) for a device with none; the error of a line's get, with
 * nothing kept.
 */
DMAMAP_API struct reset_control *dmamap_devm_reset_control_array_get_at(struct device *dev, unsigned int flags,
									const char *file, int line);

/**
 * dmamap_reset_control_put_at() - reset_control_put(): give back a handle of a get
 *
 * NULL and error pointers are ignored, as the kernel's. A devm_ handle is
 * refused (the device puts it at unbind), as is one already put. A shared
 * handle's deasserts stay on the line while another shared handle holds
 * it, and go with the last. May sleep.
 */
DMAMAP_API void dmamap_reset_control_put_at(struct reset_control *rstc, const char *file, int line);

/**
 * dmamap_reset_control_assert_at() - reset_control_assert(): hold the device in reset
 *
 * An exclusive control asserts its line; a shared one takes back one
 * deassert, the line asserted when none is left.
 * Return: 0 (also for NULL); -EINVAL, -EPERM as the header's comment says.
 */
DMAMAP_API int dmamap_reset_control_assert_at(struct reset_control *rstc, const char *file, int line);

/**
 * dmamap_reset_control_deassert_at() - reset_control_deassert(): let the device out of reset
 *
 * An exclusive control deasserts its line; a shared one counts a deassert,
 * the line deasserted from the first.
 * Return: 0 (also for NULL); -EINVAL, -EPERM as the header's comment says.
 */
DMAMAP_API int dmamap_reset_control_deassert_at(struct reset_control *rstc, const char *file, int line);

/**
 * dmamap_reset_control_reset_at() - reset_control_reset(): pulse the line (assert, then deassert)
 *
 * The line is deasserted after the pulse. A shared line is pulsed once, by
 * its first reset, until a reset_control_rearm().
 * Return: 0 (also for NULL); -EINVAL, -EPERM as the header's comment says.
 */
DMAMAP_API int dmamap_reset_control_reset_at(struct reset_control *rstc, const char *file, int line);

/**
 * dmamap_reset_control_rearm_at() - reset_control_rearm(): let a shared line be pulsed again
 *
 * Return: 0 (also for NULL, and for an acquired exclusive control: nothing
 * to do); -EINVAL, -EDOM, -EPERM as the header's comment says.
 */
DMAMAP_API int dmamap_reset_control_rearm_at(struct reset_control *rstc, const char *file, int line);

/**
 * dmamap_reset_control_status_at() - reset_control_status(): whether the line is asserted
 *
 * Return: 1 when asserted, 0 when not (also for NULL); -EINVAL for an array
 * or a handle that is no live one (reported).
 */
DMAMAP_API int dmamap_reset_control_status_at(struct reset_control *rstc, const char *file, int line);

/**
 * dmamap_reset_control_acquire_at() - reset_control_acquire(): take a released exclusive control's line
 *
 * May sleep.
 * Return: 0 (also for NULL, a shared control, or one acquired already);
 * -EBUSY while another control of the line holds it (not reported: the
 * caller waits its turn); -EINVAL for a handle that is no live one.
 */
DMAMAP_API int dmamap_reset_control_acquire_at(struct reset_control *rstc, const char *file, int line);

/** dmamap_reset_control_release_at() - reset_control_release(): give an acquired line back (NULL: nothing). */
DMAMAP_API void dmamap_reset_control_release_at(struct reset_control *rstc, const char *file, int line);

DMAMAP_END_DECLS

#endif /* DMAMAP_RESET_H */
