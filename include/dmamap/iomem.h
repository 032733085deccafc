/* SPDX-License-Identifier: MIT */
/*
 * Register windows and their mappings: what ioremap(), iounmap(),
 * devm_ioremap(), devm_iounmap() and devm_ioremap_resource() of the Linux
 * 6.x headers are made of (<linux/io.h>, <linux/device.h>).
 *
 * Each IORESOURCE_MEM resource a platform device is created with
 * (dmamap_platform_device_create_res(), <dmamap/platform.h>) gets a
 * register window: host memory of the resource's size, zeroed, that the
 * device owns and that goes with it (dmamap_platform_device_destroy()). The
 * driver maps it with the kernel's calls, which return a pointer into the
 * window, and reads and writes it with the accessors of <linux/io.h>
 * (readl(), writel()...). The test plays the hardware on the same bytes,
 * reached with dmamap_platform_regs(): it reads what the driver wrote, sets
 * the status registers, then raises the device's interrupt
 * (dmamap_irq_raise()). A window is no RAM of the machine: the device's bus
 * accesses (dmamap_dev_read()...) never reach it and no cache holds it, as
 * the kernel maps registers uncached. Its host memory is allocated to the
 * byte (with the alignment of the resource's start up to 8 bytes), so
 * AddressSanitizer and memcheck see an access past the end of a window.
 *
 * The windows of a machine are found by physical address, as the kernel's
 * ioremap() maps whatever lies there: a mapping is of a range that lies
 * wholly in one window of a platform device of the machine (any device's,
 * whoever maps it). The windows of a machine never overlap (a device whose
 * memory resources would overlap another's is refused at its creation).
 *
 * The mappings:
 *  - ioremap() (and ioremap_wc(), ioremap_np(): the same window) maps on
 *    the current machine until iounmap();
 *  - devm_ioremap() maps on the device's machine until devm_iounmap() or
 *    until the driver unbinds (the device's managed resources, newest
 *    first);
 *  - devm_ioremap_resource() and the devm_platform_ioremap_resource() family
 *    (<dmamap/platform.h>) also request the region, as the kernel's
 *    devm_request_mem_region(): a request of any range that overlaps it
 *    fails with -EBUSY until the region is released, at the unbind of the
 *    driver that requested it. devm_iounmap() of such a mapping unmaps it
 *    and keeps the region, as in the kernel.
 * The regions: request_mem_region() and devm_request_mem_region() request
 * a range of physical addresses alone (nothing is mapped), as drivers that
 * map with ioremap() or devm_ioremap() do first; release_mem_region() and
 * devm_release_mem_region() give it back. A request fails (NULL, as the
 * kernel's) while any requested region overlaps it, and for any range of
 * RAM (the kernel's "System RAM" is busy). A region requested without a
 * device and left at the machine's destruction is reported as a leak with
 * the line that requested it.
 * Unmapping does not take the window away: it stays with its device, with
 * its bytes, and a pointer kept past the unmap still reaches it (where the
 * kernel would fault; not checked). When a device is destroyed, its windows
 * are freed even if still mapped: each ioremap() mapping left (the driver's
 * missing iounmap()) is reported as DMAMAP_REPORT_LEAK with the line that
 * made it, and forgotten; the driver's pointers then dangle, for
 * AddressSanitizer or memcheck to see what touches them. The mappings still
 * made at the machine's destruction are reported the same way.
 *
 * Each call is a macro of the kernel headers passing the caller's file and
 * line over the function below. Thread-safe: each machine's windows,
 * mappings and regions are guarded by a lock of its own.
 */
#ifndef DMAMAP_IOMEM_H
#define DMAMAP_IOMEM_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct device;
struct resource;

/**
 * dmamap_ioremap_at() - map @size bytes of a register window at physical @offset: ioremap()
 * @m: the machine, or NULL for the current one
 * @offset: the physical address of the first byte
 * @size: bytes, non-zero
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The range must lie wholly in one window of a platform device of @m. The
 * mapping is the caller's until dmamap_iounmap_at(); one left when its
 * window's device is destroyed is reported as a leak.
 * Return: the CPU address of @offset in the window; NULL for a @size of 0
 * (reported as DMAMAP_REPORT_BAD_INPUT), a range no window of @m holds
 * wholly (DMAMAP_REPORT_BAD_ADDRESS), no current machine, or no memory for
 * the record (DMAMAP_FAULT_HOST_ALLOC).
 */
DMAMAP_API void *dmamap_ioremap_at(struct dmamap_machine *m, phys_addr_t offset, size_t size, const char *file,
				   int line);

/**
 * dmamap_iounmap_at() - undo a mapping of machine @m: iounmap()
 * @m: the machine, or NULL for the current one
 * @addr: what the map call returned; NULL is ignored
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The newest mapping of @m that starts at @addr is undone; its window
 * stays. The kernel's iounmap() takes any address of the mapping's first
 * page, each mapping being an area of its own; here mappings of a window
 * share its bytes, so only the address returned names one, and a second
 * iounmap() of it is caught even while another mapping covers it. One
 * made by devm_ioremap() is undone all the same, its managed record
 * forgotten, and reported (DMAMAP_REPORT_API_MISUSE:
 * devm_iounmap() undoes it). An address of no mapping is reported as
 * DMAMAP_REPORT_API_MISUSE ("Trying to vunmap() nonexistent vm area", as
 * the kernel warns) and nothing changes.
 */
DMAMAP_API void dmamap_iounmap_at(struct dmamap_machine *m, const volatile void *addr, const char *file, int line);

/**
 * dmamap_devm_ioremap_at() - dmamap_ioremap_at() on @dev's machine, undone when the driver unbinds: devm_ioremap()
 * @dev: an initialised device
 * @offset: the physical address of the first byte
 * @size: bytes, non-zero
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The region is not requested (devm_ioremap_resource() does that). The
 * mapping is one of @dev's managed resources until devm_iounmap().
 * Return: the CPU address; NULL, as the kernel's, for what
 * dmamap_ioremap_at() refuses (reported the same way), a NULL or
 * uninitialised @dev (DMAMAP_REPORT_BAD_INPUT), or no memory for the
 * records.
 */
DMAMAP_API void *dmamap_devm_ioremap_at(struct device *dev, phys_addr_t offset, phys_addr_t size, const char *file,
					int line);

/**
 * dmamap_devm_iounmap_at() - undo now a mapping of @dev's managed resources: devm_iounmap()
 * @dev: the device that made it
 * @addr: what devm_ioremap() (or devm_ioremap_resource()...) returned
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The mapping is undone and forgotten by @dev; a region
 * devm_ioremap_resource() requested with it stays requested until the
 * driver unbinds, as in the kernel. An @addr that is no managed mapping of
 * @dev is reported as DMAMAP_REPORT_API_MISUSE (the kernel's WARN_ON), then
 * unmapped as dmamap_iounmap_at() does, as the kernel's iounmap() follows
 * its warning.
 */
DMAMAP_API void dmamap_devm_iounmap_at(struct device *dev, const volatile void *addr, const char *file, int line);

/**
 * dmamap_devm_ioremap_resource_at() - request and map the memory resource @res for @dev: devm_ioremap_resource()
 * @dev: an initialised device
 * @res: an IORESOURCE_MEM resource: one of a platform device's, or any that
 *       describes a range of a window (a copy with another start or end...)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Requests the region [@res->start, @res->end] and maps it, both managed
 * resources of @dev, released when the driver unbinds (the mapping first).
 * A failure leaves nothing requested or mapped and is logged on @dev at
 * DMAMAP_LOG_ERR with the kernel's message (its resource printed as %pR
 * prints it: "[mem 0x10000000-0x10000fff]"), as dev_err_probe() logs it.
 * Return: the CPU address of @res->start in its window; ERR_PTR(-EINVAL)
 * for a NULL @res or one of another type ("invalid resource", not reported:
 * the kernel lets a driver pass what platform_get_resource() found, NULL
 * included) or a NULL or uninitialised @dev (DMAMAP_REPORT_BAD_INPUT);
 * ERR_PTR(-EBUSY) when a requested region overlaps it, or it ends before it
 * starts ("can't request region for resource"); ERR_PTR(-ENOMEM) when no
 * window of @dev's machine holds it wholly ("ioremap failed for resource",
 * and reported as DMAMAP_REPORT_BAD_ADDRESS), or when memory for the records
 * cannot be had.
 */
DMAMAP_API void *dmamap_devm_ioremap_resource_at(struct device *dev, const struct resource *res, const char *file,
						 int line);

/**
 * dmamap_request_mem_region_at() - request the physical range [@start, @start + @n): request_mem_region()
 * @m: the machine, or NULL for the current one
 * @start: the first physical address
 * @n: bytes
 * @name: the requester's name, kept (not copied) in the resource returned
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The region is the caller's until dmamap_release_mem_region_at() with the
 * same bounds; one left when @m is destroyed is reported as a leak. Nothing
 * is mapped, and the range need not lie in a register window.
 * Return: the region's resource (@start, the last byte, @name, flags
 * IORESOURCE_MEM | IORESOURCE_BUSY), the library's, valid until the region
 * is released; NULL when @n is 0 or the range wraps, when a requested
 * region or @m's RAM overlaps it (nothing reported, as the kernel's), when
 * there is no current machine (DMAMAP_REPORT_BAD_INPUT), or when memory
 * for the record cannot be had (DMAMAP_FAULT_HOST_ALLOC).
 */
DMAMAP_API struct resource *dmamap_request_mem_region_at(struct dmamap_machine *m, phys_addr_t start,
							 phys_addr_t n, const char *name, const char *file,
							 int line);

/**
 * dmamap_release_mem_region_at() - give back a region request_mem_region() requested: release_mem_region()
 * @m: the machine, or NULL for the current one
 * @start: the region's first physical address, as requested
 * @n: its size in bytes, as requested
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The bounds must be those of a region requested with
 * dmamap_request_mem_region_at(); its resource is freed. Otherwise nothing
 * changes and the call is reported as DMAMAP_REPORT_API_MISUSE at
 * @file:@line, saying who requested a region of those bounds if a device
 * did (whose devm_release_mem_region() or unbind releases it), or that none
 * is requested (the kernel warns "Trying to free nonexistent resource").
 */
DMAMAP_API void dmamap_release_mem_region_at(struct dmamap_machine *m, phys_addr_t start, phys_addr_t n,
					     const char *file, int line);

/**
 * dmamap_devm_request_mem_region_at() - request a physical range for @dev until it unbinds: devm_request_mem_region()
 * @dev: an initialised device
 * @start: the first physical address
 * @n: bytes
 * @name: the requester's name, kept (not copied) in the resource returned
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * dmamap_request_mem_region_at() on @dev's machine, the region a managed
 * resource of @dev: released when the driver unbinds, or by
 * dmamap_devm_release_mem_region_at().
 * Return: the region's resource; NULL as dmamap_request_mem_region_at()
 * fails, for a NULL or uninitialised @dev (DMAMAP_REPORT_BAD_INPUT), or
 * when memory for the managed record cannot be had (nothing is left
 * requested).
 */
DMAMAP_API struct resource *dmamap_devm_request_mem_region_at(struct device *dev, phys_addr_t start,
							      phys_addr_t n, const char *name, const char *file,
							      int line);

/**
 * dmamap_devm_release_mem_region_at() - give back a region @dev requested: devm_release_mem_region()
 * @dev: an initialised device
 * @start: the region's first physical address, as requested
 * @n: its size in bytes, as requested
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The bounds must be those of a region @dev requested with
 * dmamap_devm_request_mem_region_at() or dmamap_devm_ioremap_resource_at()
 * (and their kernel names); it is released now and its managed record
 * forgotten. Otherwise nothing changes and the call is reported as
 * DMAMAP_REPORT_API_MISUSE at @file:@line; so is a NULL or uninitialised
 * @dev (DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API void dmamap_devm_release_mem_region_at(struct device *dev, phys_addr_t start, phys_addr_t n,
						  const char *file, int line);

DMAMAP_END_DECLS

#endif /* DMAMAP_IOMEM_H */
