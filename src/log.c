/* SPDX-License-Identifier: MIT */
/* Log levels, handlers, reports and their counters. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static struct dmamap_logger global_logger = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.level = DMAMAP_LOG_DEBUG,
};

static const char *const kind_names[DMAMAP_REPORT_KIND_NR] = {
	[DMAMAP_REPORT_NONE] = "message",
	[DMAMAP_REPORT_BAD_INPUT] = "bad-input",
	[DMAMAP_REPORT_BAD_ADDRESS] = "bad-address",
	[DMAMAP_REPORT_PAGE_MISUSE] = "page-misuse",
	[DMAMAP_REPORT_DEVICE_FAULT] = "device-fault",
	[DMAMAP_REPORT_IOMMU_FAULT] = "iommu-fault",
	[DMAMAP_REPORT_IOVA_MISUSE] = "iova-misuse",
	[DMAMAP_REPORT_LEAK] = "leak",
	[DMAMAP_REPORT_API_MISUSE] = "api-misuse",
	[DMAMAP_REPORT_NOT_MAPPED] = "not-mapped",
	[DMAMAP_REPORT_DOUBLE_UNMAP] = "double-unmap",
	[DMAMAP_REPORT_SIZE_MISMATCH] = "size-mismatch",
	[DMAMAP_REPORT_DIR_MISMATCH] = "direction-mismatch",
	[DMAMAP_REPORT_KIND_MISMATCH] = "kind-mismatch",
	[DMAMAP_REPORT_SG_MISMATCH] = "sg-mismatch",
	[DMAMAP_REPORT_SYNC_RANGE] = "sync-out-of-range",
	[DMAMAP_REPORT_SYNC_DIRECTION] = "sync-direction",
	[DMAMAP_REPORT_UNCHECKED_ERROR] = "unchecked-mapping-error",
	[DMAMAP_REPORT_ADDR_MISMATCH] = "address-mismatch",
	[DMAMAP_REPORT_MISSING_SYNC] = "missing-sync-for-cpu",
	[DMAMAP_REPORT_DEV_CPU_OWNED] = "device-access-cpu-owned",
	[DMAMAP_REPORT_DEV_WRITE_TO_DEVICE] = "device-write-to-device",
	[DMAMAP_REPORT_DEV_READ_FROM_DEVICE] = "device-read-from-device",
	[DMAMAP_REPORT_DEV_UNMAPPED] = "device-access-unmapped",
	[DMAMAP_REPORT_CPU_STORE] = "cpu-store-device-owned",
	[DMAMAP_REPORT_SHARED_CACHELINE] = "shared-cache-line",
	[DMAMAP_REPORT_OVERLAP] = "overlapping-mappings",
	[DMAMAP_REPORT_FREE_MAPPED] = "free-while-mapped",
	[DMAMAP_REPORT_ATTR_MISMATCH] = "attrs-mismatch",
	[DMAMAP_REPORT_LOCK_MISUSE] = "lock-misuse",
	[DMAMAP_REPORT_SLEEP_IN_ATOMIC] = "sleep-in-atomic",
	[DMAMAP_REPORT_REFCOUNT] = "refcount-saturated",
	[DMAMAP_REPORT_LOCK_ORDER] = "lock-order",
};

/* The category of each fine-grained kind; categories (and NONE) map to themselves. */
static const enum dmamap_report_kind kind_category[DMAMAP_REPORT_KIND_NR] = {
	[DMAMAP_REPORT_NOT_MAPPED] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_DOUBLE_UNMAP] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_SIZE_MISMATCH] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_DIR_MISMATCH] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_KIND_MISMATCH] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_SG_MISMATCH] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_SYNC_RANGE] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_SYNC_DIRECTION] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_UNCHECKED_ERROR] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_ADDR_MISMATCH] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_MISSING_SYNC] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_DEV_CPU_OWNED] = DMAMAP_REPORT_DEVICE_FAULT,
	[DMAMAP_REPORT_DEV_WRITE_TO_DEVICE] = DMAMAP_REPORT_DEVICE_FAULT,
	[DMAMAP_REPORT_DEV_READ_FROM_DEVICE] = DMAMAP_REPORT_DEVICE_FAULT,
	[DMAMAP_REPORT_DEV_UNMAPPED] = DMAMAP_REPORT_DEVICE_FAULT,
	[DMAMAP_REPORT_CPU_STORE] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_SHARED_CACHELINE] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_OVERLAP] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_FREE_MAPPED] = DMAMAP_REPORT_PAGE_MISUSE,
	[DMAMAP_REPORT_ATTR_MISMATCH] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_LOCK_MISUSE] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_SLEEP_IN_ATOMIC] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_REFCOUNT] = DMAMAP_REPORT_API_MISUSE,
	[DMAMAP_REPORT_LOCK_ORDER] = DMAMAP_REPORT_API_MISUSE,
};

_Thread_local struct dm_call dmamap_call_now DM_TLS_MODEL;

DMAMAP_API enum dmamap_report_kind dmamap_report_kind_category(enum dmamap_report_kind kind)
{
	if ((unsigned)kind >= DMAMAP_REPORT_KIND_NR)
		return DMAMAP_REPORT_NONE;
	return kind <= DMAMAP_REPORT_API_MISUSE ? kind : kind_category[kind];
}

void dmamap_logger_init(struct dmamap_logger *lg)
{
	pthread_mutex_init(&lg->lock, NULL);
	lg->fn = NULL;
	lg->ctx = NULL;
	lg->level = DMAMAP_LOG_DEBUG;
	lg->strict = false;
	atomic_init(&lg->reports, 0);
	for (unsigned i = 0; i < DMAMAP_REPORT_KIND_NR; i++)
		atomic_init(&lg->by_kind[i], 0);
}

void dmamap_logger_fini(struct dmamap_logger *lg)
{
	pthread_mutex_destroy(&lg->lock);
}

static struct dmamap_logger *logger_of(struct dmamap_machine *m)
{
	return m ? &m->log : &global_logger;
}

static void default_handler(const struct dmamap_log_record *rec)
{
	static const char *const lvl[] = { [DMAMAP_LOG_ERR] = "error", [DMAMAP_LOG_WARN] = "warning",
					   [DMAMAP_LOG_INFO] = "info", [DMAMAP_LOG_DEBUG] = "debug" };
	const char *l = (rec->level >= 0 && rec->level <= DMAMAP_LOG_DEBUG && lvl[rec->level]) ? lvl[rec->level] : "log";
	char where[300] = "";

	if (rec->level > DMAMAP_LOG_WARN)
		return;
	if (rec->file && rec->map_file)
		snprintf(where, sizeof(where), " (%s:%d; mapped at %s:%d)", rec->file, rec->line, rec->map_file,
			 rec->map_line);
	else if (rec->file)
		snprintf(where, sizeof(where), " (%s:%d)", rec->file, rec->line);
	else if (rec->map_file)
		snprintf(where, sizeof(where), " (mapped at %s:%d)", rec->map_file, rec->map_line);
	fprintf(stderr, "dmamap %s: %s%s%s%s\n", l, rec->device ? rec->device : "", rec->device ? ": " : "",
		rec->message, where);
}

struct orphan_sink {
	bool taken;
	dmamap_log_handler_t fn;
	void *ctx;
	int level;
	bool strict;
};

/* Where a message of no machine goes: a current test fixture's machine takes it. Registry lock held. */
static void adopt_orphan(struct dmamap_machine *m, void *arg)
{
	struct orphan_sink *s = arg;

	if (!atomic_load(&m->adopts_orphans))
		return;
	pthread_mutex_lock(&m->log.lock);
	if (m->log.fn) {
		s->taken = true;
		s->fn = m->log.fn;
		s->ctx = m->log.ctx;
		s->level = m->log.level;
		s->strict = m->log.strict;
	}
	pthread_mutex_unlock(&m->log.lock);
}

void dmamap_logv_detail(struct dmamap_machine *m, int level, enum dmamap_report_kind kind, const char *devname,
			const char *file, int line, const struct dm_detail *d, const char *fmt, va_list ap)
{
	struct dmamap_logger *lg = logger_of(m);
	struct dmamap_log_record rec;
	enum dmamap_report_kind cat;
	dmamap_log_handler_t fn;
	void *ctx;
	int max_level;
	bool strict;
	char buf[1024];
	size_t n;

	if ((unsigned)kind >= DMAMAP_REPORT_KIND_NR)
		kind = DMAMAP_REPORT_API_MISUSE;
	cat = dmamap_report_kind_category(kind);
	if (kind != DMAMAP_REPORT_NONE) {
		dmamap_call_now.reports++;
		atomic_fetch_add(&lg->reports, 1);
		atomic_fetch_add(&lg->by_kind[kind], 1);
		if (cat != kind)
			atomic_fetch_add(&lg->by_kind[cat], 1);
	}
	/* Below an API call, what happens is the caller's doing: name its line. */
	if (dm_in_call()) {
		file = dmamap_call_now.file;
		line = dmamap_call_now.line;
	}

	pthread_mutex_lock(&lg->lock);
	fn = lg->fn;
	ctx = lg->ctx;
	max_level = lg->level;
	strict = lg->strict;
	pthread_mutex_unlock(&lg->lock);
	/* A machine without a handler of its own speaks through the process-wide one. */
	if (!fn && m) {
		pthread_mutex_lock(&global_logger.lock);
		fn = global_logger.fn;
		ctx = global_logger.ctx;
		pthread_mutex_unlock(&global_logger.lock);
	}
	if (!m) {
		struct orphan_sink s = { 0 };

		dmamap_registry_with_current(adopt_orphan, &s);
		if (s.taken) {
			fn = s.fn;
			ctx = s.ctx;
			max_level = s.level;
			strict = s.strict;
		}
	}

	if (kind == DMAMAP_REPORT_NONE && level > max_level)
		return;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';

	memset(&rec, 0, sizeof(rec));
	rec.level = level;
	rec.kind = kind;
	rec.category = cat;
	rec.machine = m;
	rec.device = devname;
	rec.file = file;
	rec.line = file ? line : 0;
	rec.message = buf;
	rec.direction = rec.map_direction = DMA_NONE;
	if (d) {
		rec.bus_addr = d->bus;
		rec.size = d->size;
		rec.direction = d->size ? d->dir : DMA_NONE;
		rec.map_file = d->map_file;
		rec.map_line = d->map_file ? d->map_line : 0;
		rec.map_bus_addr = d->map_bus;
		rec.map_size = d->map_size;
		rec.map_direction = d->map_size ? d->map_dir : DMA_NONE;
	}
	if (fn)
		fn(&rec, ctx);
	else
		default_handler(&rec);

	if (strict && kind != DMAMAP_REPORT_NONE) {
		fprintf(stderr, "dmamap: strict mode: aborting on %s report\n", kind_names[kind]);
		abort();
	}
}

void dmamap_logv(struct dmamap_machine *m, int level, enum dmamap_report_kind kind, const char *devname,
		 const char *file, int line, const char *fmt, va_list ap)
{
	dmamap_logv_detail(m, level, kind, devname, file, line, NULL, fmt, ap);
}

void dmamap_report_detail(struct dmamap_machine *m, enum dmamap_report_kind kind, const char *devname,
			  const struct dm_detail *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmamap_logv_detail(m, DMAMAP_LOG_ERR, kind, devname, NULL, 0, d, fmt, ap);
	va_end(ap);
}

void dmamap_log(struct dmamap_machine *m, int level, const char *devname, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmamap_logv(m, level, DMAMAP_REPORT_NONE, devname, NULL, 0, fmt, ap);
	va_end(ap);
}

void dmamap_report(struct dmamap_machine *m, enum dmamap_report_kind kind, const char *devname, const char *file,
		   int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmamap_logv(m, DMAMAP_LOG_ERR, kind, devname, file, line, fmt, ap);
	va_end(ap);
}

DMAMAP_API void dmamap_set_log_handler(struct dmamap_machine *m, dmamap_log_handler_t fn, void *ctx)
{
	struct dmamap_logger *lg = logger_of(m);

	pthread_mutex_lock(&lg->lock);
	lg->fn = fn;
	lg->ctx = fn ? ctx : NULL;
	pthread_mutex_unlock(&lg->lock);
}

DMAMAP_API void dmamap_set_log_level(struct dmamap_machine *m, int level)
{
	struct dmamap_logger *lg = logger_of(m);

	pthread_mutex_lock(&lg->lock);
	lg->level = level;
	pthread_mutex_unlock(&lg->lock);
}

DMAMAP_API void dmamap_set_strict(struct dmamap_machine *m, bool strict)
{
	struct dmamap_logger *lg = logger_of(m);

	pthread_mutex_lock(&lg->lock);
	lg->strict = strict;
	pthread_mutex_unlock(&lg->lock);
}

DMAMAP_API unsigned long dmamap_report_count(struct dmamap_machine *m)
{
	return atomic_load(&logger_of(m)->reports);
}

DMAMAP_API unsigned long dmamap_report_count_kind(struct dmamap_machine *m, enum dmamap_report_kind kind)
{
	if ((unsigned)kind >= DMAMAP_REPORT_KIND_NR)
		return 0;
	return atomic_load(&logger_of(m)->by_kind[kind]);
}

DMAMAP_API const char *dmamap_report_kind_name(enum dmamap_report_kind kind)
{
	if ((unsigned)kind >= DMAMAP_REPORT_KIND_NR)
		return "unknown";
	return kind_names[kind];
}

DMAMAP_API void dmamap_dev_printk(int level, const struct device *dev, const char *fmt, ...)
{
	bool live = dev && dev->dmamap.magic == DM_DEVICE_MAGIC;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	dmamap_kernel_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dmamap_log(live ? dev->dmamap.machine : NULL, level,
		   live ? dev->dmamap.name : (dev ? "(uninitialised device)" : NULL), "%s", msg);
}

DMAMAP_API void dmamap_printk(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	dmamap_kernel_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dmamap_log(dmamap_machine_peek_current(), level, NULL, "%s", msg);
}

DMAMAP_API void dmamap_warn_at(const char *file, int line, const char *fmt, ...)
{
	char msg[768];
	size_t n = 0;
	va_list ap;

	msg[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		dmamap_kernel_vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		n = strlen(msg);
		while (n && msg[n - 1] == '\n')
			msg[--n] = '\0';
	}
	dmamap_log(dmamap_machine_peek_current(), DMAMAP_LOG_WARN, NULL, "WARNING: at %s:%d%s%s", file ? file : "?",
		   line, n ? ": " : "", msg);
}

DMAMAP_API void dmamap_refcount_report_at(int what, const void *r, const char *file, int line)
{
	static const char *const why[] = {
		[DMAMAP_REFCOUNT_ADD_NOT_ZERO_OVF] = "saturated; leaking memory",
		[DMAMAP_REFCOUNT_ADD_OVF] = "saturated; leaking memory",
		[DMAMAP_REFCOUNT_ADD_UAF] = "addition on 0; use-after-free",
		[DMAMAP_REFCOUNT_SUB_UAF] = "underflow; use-after-free",
		[DMAMAP_REFCOUNT_DEC_LEAK] = "decrement hit 0; leaking memory",
	};

	dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_REFCOUNT, NULL, file, line, "refcount_t: %s (%p)",
		      (unsigned)what < ARRAY_SIZE(why) ? why[what] : "saturated", r);
}

/* Whether @m's messages reach a handler of the caller's (not the default one, which prints them). */
static bool custom_handler(struct dmamap_machine *m)
{
	struct dmamap_logger *lg = logger_of(m);
	bool set;

	pthread_mutex_lock(&lg->lock);
	set = lg->fn != NULL;
	pthread_mutex_unlock(&lg->lock);
	return set || (m && custom_handler(NULL));
}

DMAMAP_API void dmamap_bug_at(const char *file, int line)
{
	struct dmamap_machine *m = dmamap_machine_peek_current();

	dmamap_log(m, DMAMAP_LOG_ERR, NULL, "kernel BUG at %s:%d!", file ? file : "?", line);
	/* a handler may keep messages in memory that dies with the process: say it where it stays */
	if (custom_handler(m))
		fprintf(stderr, "dmamap error: kernel BUG at %s:%d!\n", file ? file : "?", line);
	fflush(stderr);
	abort();
}
