/* SPDX-License-Identifier: MIT */
/*
 * <linux/firmware.h> of Linux 6.x over libdmamap (<dmamap/firmware.h>):
 * struct firmware, request_firmware(), firmware_request_nowarn(),
 * request_firmware_direct(), firmware_request_platform(),
 * request_firmware_into_buf(), request_firmware_nowait(),
 * release_firmware() and firmware_request_cache(), on the files a test
 * puts in its machine's firmware directory with dmamap_firmware_add().
 * Each call carries the caller's line to the reports. There is no
 * user-space fallback (request_firmware_direct() and request_firmware()
 * differ only in the log line of a failure), no firmware cache
 * (firmware_request_cache() does nothing and says 0), no built-in
 * firmware and no request_partial_firmware_into_buf().
 */
#ifndef _LINUX_FIRMWARE_H
#define _LINUX_FIRMWARE_H

#include <dmamap/linux-api.h>
#include <linux/gfp.h>
#include <linux/types.h>
#include <dmamap/firmware.h>

#define FW_ACTION_NOUEVENT 0
#define FW_ACTION_UEVENT 1

struct module;

/** request_firmware() - load the firmware file @name for @device into *@fw (see dmamap_request_firmware_at()). */
static inline int request_firmware(const struct firmware **fw, const char *name, struct device *device)
{
	return dmamap_request_firmware_at(fw, name, device, 0, NULL, 0, NULL, 0);
}

/** release_firmware() - give back an image a request gave; NULL is ignored. */
static inline void release_firmware(const struct firmware *fw)
{
	dmamap_release_firmware_at(fw, NULL, 0);
}

/** firmware_request_cache() - keep @name cached across suspend: nothing to do here; 0. */
static inline int firmware_request_cache(struct device *device, const char *name)
{
	(void)device;
	(void)name;
	return 0;
}

#define request_firmware(fw, name, dev) dmamap_request_firmware_at((fw), (name), (dev), 0, NULL, 0, __FILE__, __LINE__)
#define firmware_request_nowarn(fw, name, dev) \
	dmamap_request_firmware_at((fw), (name), (dev), DMAMAP_FW_NOWARN, NULL, 0, __FILE__, __LINE__)
#define request_firmware_direct(fw, name, dev) \
	dmamap_request_firmware_at((fw), (name), (dev), DMAMAP_FW_NOWARN, NULL, 0, __FILE__, __LINE__)
#define firmware_request_platform(fw, name, dev) \
	dmamap_request_firmware_at((fw), (name), (dev), 0, NULL, 0, __FILE__, __LINE__)
#define request_firmware_into_buf(fw, name, dev, buf, size) \
	dmamap_request_firmware_at((fw), (name), (dev), 0, (buf), (size), __FILE__, __LINE__)
/* @module and @gfp are accepted and ignored; @uevent too (there is no user-space helper). */
#define request_firmware_nowait(module, uevent, name, dev, gfp, context, cont) \
	((void)(module), (void)(gfp), \
	 dmamap_request_firmware_nowait_at((uevent), (name), (dev), (context), (cont), __FILE__, __LINE__))
#define release_firmware(fw) dmamap_release_firmware_at((fw), __FILE__, __LINE__)

#endif /* _LINUX_FIRMWARE_H */
