/* SPDX-License-Identifier: MIT */
/*
 * What every module may use, below the machine itself: the registry of
 * machines (and the current one), fault injection, the library's host
 * allocations, the registry of a machine's objects (pools, mappings, domains,
 * vmas that may outlive it), the invariant checker's findings and the record
 * of CPU stores. Nothing here builds or tears down a machine: machine.c
 * registers a machine once it is whole and unregisters it before taking it
 * apart, so the modules machine.c builds (page_alloc, cache, pgtable, vma)
 * reach these without depending on it.
 *
 * Locking: one process-wide rwlock guards the registry list and the current
 * machine; each machine's fault state and object list have their own mutex.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct dmamap_machine *registry;
static struct dmamap_machine *current_machine;

#if defined(DMAMAP_VALGRIND) && DMAMAP_VALGRIND
bool dmamap_on_valgrind;

/* At load, and again as a machine is made (a constructor of the program's may run first). */
void dmamap_track_init(void)
{
	/* written only under valgrind, so that threads making machines elsewhere never race on it */
	if (RUNNING_ON_VALGRIND && !dmamap_on_valgrind)
		dmamap_on_valgrind = true;
}

__attribute__((constructor)) static void detect_valgrind(void)
{
	dmamap_track_init();
}

void dmamap_track_request(enum dm_track_req what, const void *p, size_t n)
{
	switch (what) {
	case DM_TRACK_NOACCESS:
		(void)VALGRIND_MAKE_MEM_NOACCESS(p, n);
		break;
	case DM_TRACK_UNDEFINED:
		(void)VALGRIND_MAKE_MEM_UNDEFINED(p, n);
		break;
	case DM_TRACK_DEFINED:
		(void)VALGRIND_MAKE_MEM_DEFINED(p, n);
		break;
	case DM_TRACK_QUIET:
		VALGRIND_DISABLE_ERROR_REPORTING;
		break;
	case DM_TRACK_LOUD:
		VALGRIND_ENABLE_ERROR_REPORTING;
		break;
	}
}
#endif

/* ------------------------------------------------------------ registry */

void dmamap_registry_add(struct dmamap_machine *m)
{
	pthread_rwlock_wrlock(&registry_lock);
	m->reg_next = registry;
	registry = m;
	if (!current_machine)
		current_machine = m;
	pthread_rwlock_unlock(&registry_lock);
}

void dmamap_registry_remove(struct dmamap_machine *m)
{
	struct dmamap_machine **pp;

	pthread_rwlock_wrlock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->reg_next) {
		if (*pp == m) {
			*pp = m->reg_next;
			break;
		}
	}
	if (current_machine == m)
		current_machine = NULL;
	pthread_rwlock_unlock(&registry_lock);
}

struct dmamap_machine *dmamap_machine_peek_current(void)
{
	struct dmamap_machine *m;

	pthread_rwlock_rdlock(&registry_lock);
	m = current_machine;
	pthread_rwlock_unlock(&registry_lock);
	return m;
}

DMAMAP_API void dmamap_machine_set_current(struct dmamap_machine *m)
{
	pthread_rwlock_wrlock(&registry_lock);
	current_machine = m;
	pthread_rwlock_unlock(&registry_lock);
}

bool dmamap_registry_has(const struct dmamap_machine *m)
{
	const struct dmamap_machine *r;

	pthread_rwlock_rdlock(&registry_lock);
	for (r = registry; r && r != m; r = r->reg_next)
		;
	pthread_rwlock_unlock(&registry_lock);
	return r != NULL;
}

void dmamap_registry_with_current(void (*fn)(struct dmamap_machine *m, void *arg), void *arg)
{
	pthread_rwlock_rdlock(&registry_lock);
	if (current_machine)
		fn(current_machine, arg);
	pthread_rwlock_unlock(&registry_lock);
}

struct dmamap_machine *dmamap_registry_find(bool (*match)(struct dmamap_machine *m, const void *ctx), const void *ctx)
{
	struct dmamap_machine *m;

	pthread_rwlock_rdlock(&registry_lock);
	for (m = registry; m; m = m->reg_next)
		if (match(m, ctx))
			break;
	pthread_rwlock_unlock(&registry_lock);
	return m;
}

static bool linear_holds(struct dmamap_machine *m, const void *p)
{
	return dm_virt_in_linear(m, p);
}

struct dmamap_machine *dmamap_registry_lookup(const volatile void *p)
{
	return dmamap_registry_find(linear_holds, (const void *)p);
}

DMAMAP_API struct dmamap_machine *dmamap_machine_of(const volatile void *addr)
{
	return dmamap_registry_lookup(addr);
}

/* ---------------------------------------------------------- fault injection */

void dm_fault_absorbed(struct dmamap_machine *m)
{
	atomic_fetch_add(&m->fault.absorbed, 1);
}

DMAMAP_API int dmamap_fault_inject(struct dmamap_machine *m, enum dmamap_fault_site site, unsigned long nth,
				   unsigned long ppm)
{
	bool any = false;

	if (!m || (unsigned)site >= DMAMAP_FAULT_SITE_NR || ppm > 1000000)
		return -EINVAL;
	pthread_mutex_lock(&m->fault.lock);
	m->fault.fail_at[site] = nth ? m->fault.attempts[site] + nth : 0;
	m->fault.ppm[site] = ppm;
	for (unsigned i = 0; i < DMAMAP_FAULT_SITE_NR; i++)
		any |= m->fault.fail_at[i] || m->fault.ppm[i];
	atomic_store(&m->fault.armed, any);
	pthread_mutex_unlock(&m->fault.lock);
	return 0;
}

bool dmamap_should_fail(struct dmamap_machine *m, enum dmamap_fault_site site)
{
	bool fail = false;

	pthread_mutex_lock(&m->fault.lock);
	m->fault.attempts[site]++;
	if (atomic_load_explicit(&m->fault.armed, memory_order_relaxed)) {
		if (m->fault.fail_at[site] && m->fault.attempts[site] == m->fault.fail_at[site]) {
			m->fault.fail_at[site] = 0;
			fail = true;
		}
		if (!fail && m->fault.ppm[site] && dmamap_rng_next(&m->fault.rng) % 1000000 < m->fault.ppm[site])
			fail = true;
		if (fail)
			m->fault.injected[site]++;
	}
	pthread_mutex_unlock(&m->fault.lock);
	return fail;
}

/* @site's attempts or injected failures, read under the fault lock; 0 for bad arguments. */
static unsigned long fault_count(struct dmamap_machine *m, enum dmamap_fault_site site, bool injected)
{
	unsigned long n;

	if (!m || (unsigned)site >= DMAMAP_FAULT_SITE_NR)
		return 0;
	pthread_mutex_lock(&m->fault.lock);
	n = injected ? m->fault.injected[site] : m->fault.attempts[site];
	pthread_mutex_unlock(&m->fault.lock);
	return n;
}

DMAMAP_API unsigned long dmamap_fault_attempts(struct dmamap_machine *m, enum dmamap_fault_site site)
{
	return fault_count(m, site, false);
}

DMAMAP_API unsigned long dmamap_fault_injected(struct dmamap_machine *m, enum dmamap_fault_site site)
{
	return fault_count(m, site, true);
}

/* ---------------------------------------------------------- host allocations */

void *dmamap_zalloc(struct dmamap_machine *m, size_t size)
{
	if (m && dmamap_should_fail(m, DMAMAP_FAULT_HOST_ALLOC))
		return NULL;
	return calloc(1, size ? size : 1);
}

void *dmamap_allocarray(struct dmamap_machine *m, size_t n, size_t size)
{
	if (m && dmamap_should_fail(m, DMAMAP_FAULT_HOST_ALLOC))
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void dmamap_free(void *p)
{
	free(p);
}

void *dmamap_lazy_zalloc(struct dmamap_machine *m, size_t size)
{
	void *p;

	size = PAGE_ALIGN(size);
	if (size <= m->arena_size - m->arena_used) {
		p = m->arena + m->arena_used;
		m->arena_used += size;
		return p;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void dmamap_lazy_free(struct dmamap_machine *m, void *p, size_t size)
{
	/* the arena goes whole with the machine */
	if (p && !((u8 *)p >= m->arena && (u8 *)p < m->arena + m->arena_size))
		munmap(p, PAGE_ALIGN(size));
}

/* -------------------------------------------------------- spare arenas */

/*
 * A destroyed machine's arena, zeroed again where the machine wrote it,
 * serves the next machine of the same arena size: its host pages stay
 * mapped, so a suite that makes a machine per test (a fuzzer, one per
 * input) finds the pages its state needs there instead of faulting them in
 * one by one, which costs 10-30 µs a page on some virtual machines. The
 * newest few are kept; an older one goes back to the host.
 */
#define SPARE_ARENAS 4

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	u8 *p;
	size_t size;
} spare[SPARE_ARENAS];
static unsigned spare_nr;

u8 *dmamap_arena_take(size_t size)
{
	u8 *p = NULL;

	pthread_mutex_lock(&spare_lock);
	for (unsigned i = spare_nr; i-- > 0;) {
		if (spare[i].size == size) {
			p = spare[i].p;
			memmove(&spare[i], &spare[i + 1], (spare_nr - i - 1) * sizeof(spare[0]));
			spare_nr--;
			break;
		}
	}
	pthread_mutex_unlock(&spare_lock);
	return p;
}

void dmamap_arena_give(u8 *arena, size_t size)
{
	u8 *old = NULL;
	size_t old_size = 0;

	pthread_mutex_lock(&spare_lock);
	if (spare_nr == SPARE_ARENAS) {
		old = spare[0].p;
		old_size = spare[0].size;
		memmove(&spare[0], &spare[1], (SPARE_ARENAS - 1) * sizeof(spare[0]));
		spare_nr--;
	}
	spare[spare_nr].p = arena;
	spare[spare_nr].size = size;
	spare_nr++;
	pthread_mutex_unlock(&spare_lock);
	if (old)
		munmap(old, old_size);
}

/* -------------------------------------------------------- spare memfds */

/*
 * A destroyed machine's RAM file, every page punched out of it, serves the
 * next machine of the same size: making and closing a memfd costs about
 * five times emptying one. A file kept is shared with every process forked
 * since, so only the process that kept it takes it back.
 */
#define SPARE_MEMFDS 4

static struct {
	int fd;
	size_t size;
	pid_t pid;
} spare_fd[SPARE_MEMFDS];
static unsigned spare_fd_nr;

int dmamap_memfd_take(size_t size)
{
	pid_t pid = getpid();
	int fd = -1;

	pthread_mutex_lock(&spare_lock);
	for (unsigned i = spare_fd_nr; i-- > 0;) {
		if (spare_fd[i].size == size && spare_fd[i].pid == pid) {
			fd = spare_fd[i].fd;
			memmove(&spare_fd[i], &spare_fd[i + 1], (spare_fd_nr - i - 1) * sizeof(spare_fd[0]));
			spare_fd_nr--;
			break;
		}
	}
	pthread_mutex_unlock(&spare_lock);
	return fd;
}

void dmamap_memfd_give(int fd, size_t size)
{
	int old = -1;

	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)size)) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&spare_lock);
	if (spare_fd_nr == SPARE_MEMFDS) {
		old = spare_fd[0].fd;
		memmove(&spare_fd[0], &spare_fd[1], (SPARE_MEMFDS - 1) * sizeof(spare_fd[0]));
		spare_fd_nr--;
	}
	spare_fd[spare_fd_nr].fd = fd;
	spare_fd[spare_fd_nr].size = size;
	spare_fd[spare_fd_nr].pid = getpid();
	spare_fd_nr++;
	pthread_mutex_unlock(&spare_lock);
	if (old >= 0)
		close(old);
}

/* ------------------------------------------------------------- objects */

void dmamap_obj_add(struct dmamap_machine *m, struct dmamap_obj *o, const struct dmamap_obj_ops *ops)
{
	o->ops = ops;
	o->machine = m;
	o->prev = NULL;
	pthread_mutex_lock(&m->objs_lock);
	o->next = m->objs;
	if (m->objs)
		m->objs->prev = o;
	m->objs = o;
	pthread_mutex_unlock(&m->objs_lock);
}

void dmamap_obj_del(struct dmamap_obj *o)
{
	struct dmamap_machine *m = o->machine;

	if (!m)
		return;
	pthread_mutex_lock(&m->objs_lock);
	if (o->prev)
		o->prev->next = o->next;
	else
		m->objs = o->next;
	if (o->next)
		o->next->prev = o->prev;
	o->prev = o->next = NULL;
	pthread_mutex_unlock(&m->objs_lock);
}

void dmamap_obj_for_each(struct dmamap_machine *m, void (*fn)(struct dmamap_obj *o, void *arg), void *arg)
{
	pthread_mutex_lock(&m->objs_lock);
	for (struct dmamap_obj *o = m->objs; o; o = o->next)
		fn(o, arg);
	pthread_mutex_unlock(&m->objs_lock);
}

void dmamap_obj_dead_report(const struct dmamap_obj *o, const char *what)
{
	dmamap_report(NULL, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0,
		      "%s: the %s's machine has been destroyed; refused", what, o->ops ? o->ops->name : "object");
}

#define OWNED_BUCKETS 1024

static pthread_mutex_t owned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dmamap_obj *owned[OWNED_BUCKETS];
/*
 * Bumped by every disown: a handle this thread found owned while it read
 * the same value is owned still, and needs no lookup (calls that check a
 * domain, a pool or a mapping on every use take no lock for that).
 */
static unsigned long owned_gen;
static _Thread_local const void *owned_seen DM_TLS_MODEL;
static _Thread_local const char *owned_seen_kind DM_TLS_MODEL;
static _Thread_local unsigned long owned_seen_gen DM_TLS_MODEL;

static unsigned long owned_bucket(const void *handle)
{
	return (unsigned long)((((u64)(uintptr_t)handle >> 4) * 0x9e3779b97f4a7c15ULL) >> 54) & (OWNED_BUCKETS - 1);
}

void dmamap_obj_own(struct dmamap_obj *o, const void *handle, const char *kind)
{
	unsigned long b = owned_bucket(handle);

	o->handle = handle;
	o->kind = kind;
	pthread_mutex_lock(&owned_lock);
	o->owned_next = owned[b];
	owned[b] = o;
	pthread_mutex_unlock(&owned_lock);
}

void dmamap_obj_disown(struct dmamap_obj *o)
{
	struct dmamap_obj **pp;

	pthread_mutex_lock(&owned_lock);
	for (pp = &owned[owned_bucket(o->handle)]; *pp && *pp != o; pp = &(*pp)->owned_next)
		;
	if (*pp)
		*pp = o->owned_next;
	/* before the object's memory can go: a thread that sees the old value used it before */
	__atomic_store_n(&owned_gen, owned_gen + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&owned_lock);
	o->owned_next = NULL;
}

bool dmamap_obj_owned(const void *handle, const char *what, const char *name, const char *file, int line)
{
	const struct dmamap_obj *o;
	unsigned long gen;

	if (handle && handle == owned_seen && name == owned_seen_kind &&
	    __atomic_load_n(&owned_gen, __ATOMIC_ACQUIRE) == owned_seen_gen)
		return true;
	pthread_mutex_lock(&owned_lock);
	gen = owned_gen;
	for (o = owned[owned_bucket(handle)]; o && (o->handle != handle || strcmp(o->kind, name)); o = o->owned_next)
		;
	pthread_mutex_unlock(&owned_lock);
	if (!o) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "%s(%p): no live %s (freed already?): nothing done", what, handle, name);
		return false;
	}
	owned_seen = handle;
	owned_seen_kind = name;
	owned_seen_gen = gen;
	return true;
}

/* ------------------------------------------------- invariant-checker findings */

void dm_check_fail(struct dm_check *c, enum dmamap_check_area area, const char *fmt, ...)
{
	struct dmamap_check_result *r = c->res;
	va_list ap;

	r->inconsistencies++;
	if ((unsigned)area < DMAMAP_CHECK_AREA_NR)
		r->by_area[area]++;
	if (r->nr_findings >= DMAMAP_CHECK_MAX_FINDINGS)
		return;
	r->findings[r->nr_findings].area = area;
	va_start(ap, fmt);
	vsnprintf(r->findings[r->nr_findings].what, sizeof(r->findings[0].what), fmt, ap);
	va_end(ap);
	r->nr_findings++;
}

/* ----------------------------------------------------------- CPU stores */

void dm_cpu_store(struct dmamap_machine *m, void *va, const void *src, int c, size_t len)
{
	size_t off = (size_t)((u8 *)va - m->lin);
	unsigned long first, last;

	if (!len)
		return;
	if (src)
		memmove(va, src, len);
	else
		memset(va, c, len);
	first = off >> m->line_shift;
	last = (off + len - 1) >> m->line_shift;
	dm_lines_written(m, first, last);
	/* one atomic OR per word of line bits */
	for (unsigned long w = first / BITS_PER_LONG, lw = last / BITS_PER_LONG; w <= lw; w++) {
		unsigned long mask = ~0UL;

		if (w == first / BITS_PER_LONG)
			mask &= ~0UL << (first % BITS_PER_LONG);
		if (w == lw)
			mask &= ~0UL >> (BITS_PER_LONG - 1 - last % BITS_PER_LONG);
		__atomic_fetch_or(&m->cpu_stored[w], mask, __ATOMIC_RELAXED);
	}
}
