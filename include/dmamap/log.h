/* SPDX-License-Identifier: MIT */
/*
 * Logging and reports.
 *
 * Everything the library says goes to a handler: one per machine, and a
 * process-wide one for messages that belong to no machine (the standalone IOVA
 * allocator, a machine that failed to be created, memory of no machine given
 * to a scatterlist or page call, a NULL device), except while a test
 * fixture's machine is current (<dmamap/testing.h>): its handler then takes
 * them, with its level and strict mode (they are still counted as no
 * machine's, dmamap_report_count(NULL)). The default handler prints
 * warnings and errors on stderr. A *report* is a message about misuse or a
 * simulated hardware fault: it is counted on its machine
 * (dmamap_report_count()), carries the caller's file:line when one is known,
 * and aborts the process only in strict mode.
 */
#ifndef DMAMAP_LOG_H
#define DMAMAP_LOG_H

#include <stdarg.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/* syslog-style levels: lower is more severe. */
enum dmamap_log_level {
	DMAMAP_LOG_ERR = 3,
	DMAMAP_LOG_WARN = 4,
	DMAMAP_LOG_INFO = 6,
	DMAMAP_LOG_DEBUG = 7,
};

/*
 * What a report is about. DMAMAP_REPORT_NONE marks a plain log message.
 *
 * The kinds up to DMAMAP_REPORT_API_MISUSE are *categories*; the kinds after
 * them are the fine-grained reports of the DMA-API checker (<dmamap/debug.h>),
 * each belonging to one category (dmamap_report_kind_category()). A report is
 * counted under its kind and under its category, so a test may ask for
 * "double unmap" or for "some misuse of the API" alike. Values never change:
 * new kinds are appended.
 */
enum dmamap_report_kind {
	DMAMAP_REPORT_NONE = 0,
	DMAMAP_REPORT_BAD_INPUT,      /* NULL device, zero size, bad direction, bad flags... */
	DMAMAP_REPORT_BAD_ADDRESS,    /* a pointer or address outside simulated RAM */
	DMAMAP_REPORT_PAGE_MISUSE,    /* double free, wrong order, freeing a page not allocated */
	DMAMAP_REPORT_DEVICE_FAULT,   /* the device touched memory it cannot or may not reach */
	DMAMAP_REPORT_IOMMU_FAULT,    /* an IOMMU translation or permission fault */
	DMAMAP_REPORT_IOVA_MISUSE,    /* freeing an IOVA range that is not allocated */
	DMAMAP_REPORT_LEAK,           /* something still outstanding at release/destroy */
	DMAMAP_REPORT_API_MISUSE,     /* a DMA API rule broken (wrong unmap, missing op...) */
	/* the checker's kinds; category in brackets */
	DMAMAP_REPORT_NOT_MAPPED,     /* [api-misuse] unmap, sync or free naming no live mapping of the device */
	DMAMAP_REPORT_DOUBLE_UNMAP,   /* [api-misuse] unmap or free of a mapping (or buffer) already released */
	DMAMAP_REPORT_SIZE_MISMATCH,  /* [api-misuse] unmap or free with a size other than the mapping's */
	DMAMAP_REPORT_DIR_MISMATCH,   /* [api-misuse] unmap with a direction other than the mapping's */
	DMAMAP_REPORT_KIND_MISMATCH,  /* [api-misuse] released by the wrong call (single/page/sg/coherent/pool) */
	DMAMAP_REPORT_SG_MISMATCH,    /* [api-misuse] sg unmap or sync with another nents or another list */
	DMAMAP_REPORT_SYNC_RANGE,     /* [api-misuse] sync of bytes outside the mapping */
	DMAMAP_REPORT_SYNC_DIRECTION, /* [api-misuse] sync in a direction the mapping forbids */
	DMAMAP_REPORT_UNCHECKED_ERROR, /* [api-misuse] a handle used without dma_mapping_error() asked first */
	DMAMAP_REPORT_ADDR_MISMATCH,  /* [api-misuse] coherent or pool free whose CPU address (or pool) is not the allocation's */
	DMAMAP_REPORT_MISSING_SYNC,   /* [api-misuse] a buffer the device wrote handed back to it with no sync_for_cpu between */
	DMAMAP_REPORT_DEV_CPU_OWNED,  /* [device-fault] the device touched a buffer the CPU owns (synced for the CPU) */
	DMAMAP_REPORT_DEV_WRITE_TO_DEVICE, /* [device-fault] the device wrote a DMA_TO_DEVICE mapping */
	DMAMAP_REPORT_DEV_READ_FROM_DEVICE, /* [device-fault] the device read a DMA_FROM_DEVICE mapping */
	DMAMAP_REPORT_DEV_UNMAPPED,   /* [device-fault] the device touched a bus address no live mapping of it covers */
	DMAMAP_REPORT_CPU_STORE,      /* [api-misuse] the CPU stored into a buffer while the device owned it */
	DMAMAP_REPORT_SHARED_CACHELINE, /* [api-misuse] a buffer the device writes shares an edge cache line with other data */
	DMAMAP_REPORT_OVERLAP,        /* [api-misuse] two live mappings of the same memory, one the device may write */
	DMAMAP_REPORT_FREE_MAPPED,    /* [page-misuse] pages (or an object) freed while still mapped for DMA */
	DMAMAP_REPORT_ATTR_MISMATCH,  /* [api-misuse] coherent free whose attributes are not those the buffer was made with */
	DMAMAP_REPORT_LOCK_MISUSE,    /* [api-misuse] a spinlock or mutex misused: unlocked when not held or by another
				       * thread, taken twice by one, never initialised, a lockdep assertion false, still
				       * held by a thread that ends (<dmamap/locking.h>) */
	DMAMAP_REPORT_SLEEP_IN_ATOMIC, /* [api-misuse] a call that may sleep made holding a spinlock or with interrupts
					* off: the kernel's "sleeping function called from invalid context" */
	DMAMAP_REPORT_REFCOUNT,       /* [api-misuse] a refcount_t (or kref) saturated: incremented from 0 (a use after
				       * free), decremented below 1, or past INT_MAX (<linux/refcount.h>) */
	DMAMAP_REPORT_LOCK_ORDER,     /* [api-misuse] locks taken in an order that can deadlock: a cycle of lock classes
				       * (A then B here, B then A before) or a lock taken inside another of its class,
				       * lockdep's "possible circular locking dependency" (<dmamap/locking.h>) */
	DMAMAP_REPORT_KIND_NR
};

/* One message as the handler receives it. Strings live only during the call. */
struct dmamap_log_record {
	int level;                        /* enum dmamap_log_level */
	enum dmamap_report_kind kind;     /* DMAMAP_REPORT_NONE for a plain message */
	struct dmamap_machine *machine;   /* NULL when no machine is involved */
	const char *device;               /* device name, or NULL */
	const char *file;                 /* caller's source file, or NULL */
	int line;                         /* caller's source line, or 0 */
	const char *message;              /* formatted text, no trailing newline */
	/* what a report is about, for tests to assert on; zero when not applicable */
	enum dmamap_report_kind category; /* the category of @kind (@kind itself for a category) */
	dma_addr_t bus_addr;              /* the bus address the call or access named */
	size_t size;                      /* the size it named; 0: no address involved */
	int direction;                    /* the direction it named; DMA_NONE when none */
	const char *map_file;             /* where the mapping concerned was made, or NULL */
	int map_line;
	dma_addr_t map_bus_addr;          /* that mapping's bus address, size and direction */
	size_t map_size;                  /* 0: no mapping involved */
	int map_direction;                /* DMA_NONE when none */
};

typedef void (*dmamap_log_handler_t)(const struct dmamap_log_record *rec, void *ctx);

/**
 * dmamap_set_log_handler() - route a machine's messages to @fn
 * @m: the machine, or NULL for the process-wide handler (messages that belong
 *     to no machine, and machines that have no handler of their own)
 * @fn: the handler, or NULL to restore the default (stderr, warnings and up)
 * @ctx: passed to @fn unchanged; owned by the caller
 *
 * The handler may be called from any thread that uses the machine, with no
 * library lock held; it must not call back into the library for the same
 * machine's page allocator, cache or IOVA state. Takes effect at once.
 */
DMAMAP_API void dmamap_set_log_handler(struct dmamap_machine *m, dmamap_log_handler_t fn, void *ctx);

/**
 * dmamap_set_log_level() - the least severe level delivered to the handler
 * @m: the machine, or NULL for messages that belong to no machine (machines
 *     keep their own level; they do not inherit this one)
 * @level: an enum dmamap_log_level; messages above it are dropped
 *
 * Reports are always delivered and counted whatever the level. The default is
 * DMAMAP_LOG_DEBUG: the handler sees everything, and the default handler
 * itself prints only warnings and errors.
 */
DMAMAP_API void dmamap_set_log_level(struct dmamap_machine *m, int level);

/**
 * dmamap_set_strict() - abort the process on the first report
 * @m: the machine, or NULL for reports that belong to no machine (machines
 *     keep their own setting; they do not inherit this one)
 * @strict: true to abort() after delivering any report
 *
 * Off by default: a report is delivered, counted, and the call that raised it
 * returns its error.
 */
DMAMAP_API void dmamap_set_strict(struct dmamap_machine *m, bool strict);

/**
 * dmamap_report_count() - how many reports have been raised on @m so far
 * @m: the machine, or NULL for reports that belonged to no machine
 *
 * Return: the total since the machine was created. Never reset.
 */
DMAMAP_API unsigned long dmamap_report_count(struct dmamap_machine *m);

/**
 * dmamap_report_count_kind() - reports of one kind raised on @m so far
 * @m: the machine, or NULL for reports that belonged to no machine
 * @kind: the kind to count; a category counts every report of its kinds too
 *
 * Return: the count, or 0 for a kind out of range.
 */
DMAMAP_API unsigned long dmamap_report_count_kind(struct dmamap_machine *m, enum dmamap_report_kind kind);

/**
 * dmamap_report_kind_category() - the category a report kind belongs to
 * @kind: a kind
 *
 * Return: the category (DMAMAP_REPORT_BAD_INPUT to DMAMAP_REPORT_API_MISUSE),
 * @kind itself when it is a category or DMAMAP_REPORT_NONE, and
 * DMAMAP_REPORT_NONE for a kind out of range.
 */
DMAMAP_API enum dmamap_report_kind dmamap_report_kind_category(enum dmamap_report_kind kind);

/**
 * dmamap_report_kind_name() - a short constant name for @kind ("bad-input"...)
 * @kind: the kind
 *
 * Return: a static string; "unknown" for a kind out of range.
 */
DMAMAP_API const char *dmamap_report_kind_name(enum dmamap_report_kind kind);

/**
 * dmamap_dev_printk() - log a message on behalf of @dev
 * @level: an enum dmamap_log_level
 * @dev: the device (its name prefixes the message, its machine's handler
 *       receives it); NULL logs through the process-wide handler
 * @fmt: printf format, with the kernel's printk extensions: %pad (a
 *       dma_addr_t *), %pa (a phys_addr_t *), %pe (an ERR_PTR(): -ENOMEM),
 *       %pM/%pMR/%pm (a MAC address), %*ph/%*phC/%*phD/%*phN (bytes in hex),
 *       %pI4; any other letters after %p print the pointer alone
 *
 * What dev_err(), dev_warn(), dev_info() and dev_dbg() expand to.
 */
DMAMAP_API void dmamap_dev_printk(int level, const struct device *dev, const char *fmt, ...)
	DMAMAP_PRINTF(3, 4);

/**
 * dmamap_printk() - what pr_err(), pr_warn(), pr_info() and pr_debug() of the Linux 6.x headers log
 * @level: an enum dmamap_log_level
 * @fmt: printf format, with the printk extensions of dmamap_dev_printk()
 *
 * A plain message (not a report) through the current machine's handler, or
 * the process-wide one when no machine is current (none is created).
 */
DMAMAP_API void dmamap_printk(int level, const char *fmt, ...) DMAMAP_PRINTF(2, 3);

/**
 * dmamap_warn_at() - what a triggered WARN_ON() of the Linux 6.x headers logs
 * @file: the WARN_ON()'s source file
 * @line: its line
 * @fmt: printf format of WARN()'s message (with the printk extensions of
 *       dmamap_dev_printk()), or NULL for none
 *
 * Logs "WARNING: at @file:@line", followed by ": " and the message when
 * there is one, as a plain message (not a report) at DMAMAP_LOG_WARN through
 * the current machine's handler, or the process-wide one when no machine is
 * current (none is created).
 */
DMAMAP_API void dmamap_warn_at(const char *file, int line, const char *fmt, ...) DMAMAP_PRINTF(3, 4);

/**
 * dmamap_bug_at() - what BUG() of the Linux 6.x headers does: log, then abort()
 * @file: the BUG()'s source file
 * @line: its line
 *
 * Logs "kernel BUG at @file:@line!" at DMAMAP_LOG_ERR, as dmamap_warn_at()
 * does (and, when a handler of the caller's receives it, on stderr too: a
 * handler that keeps messages in memory dies with the process), then calls
 * abort(): the test ends there, as the kernel's oops ends the driver. Never
 * returns.
 */
DMAMAP_API void dmamap_bug_at(const char *file, int line) __attribute__((noreturn));

/* What a refcount_t of the Linux 6.x headers found wrong when it saturated (the kernel's enum refcount_saturation_type). */
enum dmamap_refcount_saturation {
	DMAMAP_REFCOUNT_ADD_NOT_ZERO_OVF, /* refcount_inc_not_zero() past INT_MAX */
	DMAMAP_REFCOUNT_ADD_OVF,          /* refcount_inc() past INT_MAX */
	DMAMAP_REFCOUNT_ADD_UAF,          /* refcount_inc() of 0: the object was already released */
	DMAMAP_REFCOUNT_SUB_UAF,          /* refcount_dec_and_test() below 0 */
	DMAMAP_REFCOUNT_DEC_LEAK,         /* refcount_dec() to 0, where nothing releases the object */
};

/**
 * dmamap_refcount_report_at() - report the refcount_t at @r saturated at @file:@line
 * @what: an enum dmamap_refcount_saturation
 * @r: the counter (named in the message only)
 * @file: the refcount_*() or kref_*() call's source file, or NULL
 * @line: its line
 *
 * What <linux/refcount.h> calls where the kernel's refcount_warn_saturate()
 * warns: a DMAMAP_REPORT_REFCOUNT report ("refcount_t: addition on 0;
 * use-after-free"...) on the current machine, or process-wide when no
 * machine is current (none is created). The header has already set the
 * counter to REFCOUNT_SATURATED.
 */
DMAMAP_API void dmamap_refcount_report_at(int what, const void *r, const char *file, int line);

/**
 * vscnprintf() - format @fmt and @ap into @buf of @size bytes, as the kernel's
 * @buf: the caller's buffer (may be NULL when @size is 0)
 * @size: bytes at @buf, the NUL included
 * @fmt: printf format, with the printk extensions of dmamap_dev_printk() (%pad, %pe...)
 * @ap: its arguments
 *
 * Unlike vsnprintf(), the count is what was written, so a caller appending
 * piece after piece (pos += scnprintf(buf + pos, size - pos, ...)) never
 * runs past the end: the output is cut to @size - 1 bytes and always
 * terminated when @size is not 0. @buf is the caller's; nothing is allocated.
 * Return: the bytes written to @buf, the NUL not counted: at most @size - 1,
 * and 0 for a @size of 0 (nothing written) or a NULL @fmt (reported as
 * DMAMAP_REPORT_BAD_INPUT on the current machine, when there is one; @buf
 * then holds an empty string).
 */
DMAMAP_API int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap) DMAMAP_PRINTF(3, 0);

/** scnprintf() - vscnprintf() of the arguments after @fmt: the bytes written to @buf, at most @size - 1. */
DMAMAP_API int scnprintf(char *buf, size_t size, const char *fmt, ...) DMAMAP_PRINTF(3, 4);

#define dev_err(dev, ...) dmamap_dev_printk(DMAMAP_LOG_ERR, (dev), __VA_ARGS__)
#define dev_warn(dev, ...) dmamap_dev_printk(DMAMAP_LOG_WARN, (dev), __VA_ARGS__)
#define dev_info(dev, ...) dmamap_dev_printk(DMAMAP_LOG_INFO, (dev), __VA_ARGS__)
#define dev_dbg(dev, ...) dmamap_dev_printk(DMAMAP_LOG_DEBUG, (dev), __VA_ARGS__)

DMAMAP_END_DECLS

#endif /* DMAMAP_LOG_H */
