/* SPDX-License-Identifier: MIT */
/*
 * Firmware files and their loading: what <linux/firmware.h> of the Linux
 * 6.x headers is made of.
 *
 * Each machine has a firmware directory of its own, empty at creation: a
 * test puts files in it with dmamap_firmware_add() (the bytes are copied)
 * and takes them out with dmamap_firmware_remove(); nothing is read from
 * the host's /lib/firmware. A driver loads one by name as the kernel's
 * does, with request_firmware() and its siblings, on the machine of its
 * device (the current machine, dmamap_machine_current(), when the device is
 * NULL).
 *
 * A loaded image is the driver's copy, as the kernel's: removing or
 * replacing the file later changes nothing of it. Its data is read-only
 * (the kernel maps firmware images PAGE_KERNEL_RO): a driver that writes
 * into it faults. It lives until release_firmware(); one a driver still
 * holds when its device unbinds (or, for a plain device, is released) is
 * reported as a leak at the line of its request, and released. A
 * request_firmware_nowait() whose callback has not run when the driver's
 * device unbinds is reported (its callback would run after the driver's
 * remove, on freed driver data) and cancelled.
 *
 * Every call is thread-safe. The requests may sleep (reported from atomic
 * context, as the kernel's might_sleep() warns); release_firmware() and
 * request_firmware_nowait() do not.
 */
#ifndef DMAMAP_FIRMWARE_H
#define DMAMAP_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct device;
struct dmamap_machine;

/* A loaded firmware image: @size bytes at @data (the kernel's layout). */
struct firmware {
	size_t size;
	const u8 *data;
	void *priv; /* the library's */
};

/* How a request behaves: the kernel's request_firmware() siblings. */
enum {
	DMAMAP_FW_NOWARN = 1u << 0, /* firmware_request_nowarn(), request_firmware_direct(): no log line on failure */
};

/**
 * dmamap_firmware_add() - put a firmware file in @m's firmware directory
 * @m: the machine
 * @name: its name, as drivers ask for it ("acme/dsp-v2.bin"); not empty
 * @data: its bytes, copied (the caller keeps its buffer); NULL only with @size 0
 * @size: bytes; 0 makes an empty file, which a request fails on (-EINVAL),
 *        as the kernel's loader refuses an empty file
 *
 * Return: 0; -EINVAL for a NULL machine, a NULL or empty name, or NULL
 * @data with a size; -EEXIST when a file of that name is there already
 * (remove it first); -ENOMEM. The errors other than -ENOMEM are reported
 * (DMAMAP_REPORT_BAD_INPUT); on error nothing changes.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_firmware_add(struct dmamap_machine *m, const char *name, const void *data,
						     size_t size);

/**
 * dmamap_firmware_remove() - take the firmware file @name out of @m's directory
 * @m: the machine
 * @name: its name
 *
 * Images already loaded from it stay as they are.
 * Return: 0, or -ENOENT when @m has no such file (or @m or @name is NULL).
 */
DMAMAP_API int dmamap_firmware_remove(struct dmamap_machine *m, const char *name);

/**
 * dmamap_firmware_loaded() - how many firmware images loaded on @m are not released yet
 * @m: the machine
 *
 * Counts the images of every device of @m (and of none) that
 * request_firmware() and its siblings gave and release_firmware() has not
 * taken back; a request_firmware_nowait() image counts from the moment its
 * callback gets it.
 * Return: the count; 0 for a NULL machine.
 */
DMAMAP_API unsigned long dmamap_firmware_loaded(struct dmamap_machine *m);

/**
 * dmamap_request_firmware_at() - request_firmware() and its synchronous siblings: load the file @name
 * @fw: receives the image, or NULL on failure
 * @name: the file's name
 * @dev: the device asking (its machine's directory is read); NULL: the current machine's
 * @flags: DMAMAP_FW_* (0 for request_firmware())
 * @buf: NULL, or request_firmware_into_buf()'s buffer: the bytes are copied
 *       into it (stores of the CPU, through its cache for simulated memory)
 *       and the image's data is @buf
 * @size: @buf's size in bytes
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The image (struct firmware and, without @buf, a read-only copy of the
 * file) is the caller's until release_firmware(). A missing file is logged
 * at DMAMAP_LOG_WARN as the kernel logs it ("Direct firmware load for NAME
 * failed with error -2"), unless DMAMAP_FW_NOWARN.
 * Return: 0; -ENOENT (no such file), -EINVAL (an empty file; a NULL or
 * empty @name, reported), -EFBIG (the file is larger than @buf), -ENOMEM.
 * A NULL @fw, or a @buf of size 0, is reported (DMAMAP_REPORT_BAD_INPUT)
 * and -EINVAL returned. On error *@fw is NULL and nothing is held.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_request_firmware_at(const struct firmware **fw, const char *name,
							    struct device *dev, unsigned int flags, void *buf,
							    size_t size, const char *file, int line);

/**
 * dmamap_request_firmware_nowait_at() - request_firmware_nowait(): load @name in the background
 * @uevent: the kernel's (accepted, ignored: there is no user-space helper)
 * @name: the file's name (copied)
 * @dev: the device asking; NULL: the current machine's
 * @context: handed to @cont
 * @cont: called once, in a worker thread of the system workqueue (process
 *        context), with the image (the callee's, to release) or NULL on
 *        failure, and @context
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: 0 when the request is queued; -EINVAL for a NULL @cont or a NULL
 * or empty @name (reported: DMAMAP_REPORT_BAD_INPUT), -ENOMEM. A request
 * still queued when @dev unbinds (or is released) is reported
 * (DMAMAP_REPORT_API_MISUSE) and cancelled: @cont never runs.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_request_firmware_nowait_at(bool uevent, const char *name,
								   struct device *dev, void *context,
								   void (*cont)(const struct firmware *fw,
										void *context),
								   const char *file, int line);

/**
 * dmamap_release_firmware_at() - release_firmware(): give back a loaded image; NULL is ignored
 * @fw: what a request gave
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Frees the image (a request_firmware_into_buf() buffer stays the
 * caller's). A pointer that is no image held now (released already, or
 * never loaded) is reported (DMAMAP_REPORT_BAD_INPUT) and nothing is done:
 * it is compared, never read through.
 */
DMAMAP_API void dmamap_release_firmware_at(const struct firmware *fw, const char *file, int line);

DMAMAP_END_DECLS

#endif /* DMAMAP_FIRMWARE_H */
