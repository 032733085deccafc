/* SPDX-License-Identifier: MIT */
/*
 * The kernel's spinlocks, mutexes and completions over POSIX threads, each
 * thread's atomic context, and the lock order checker (the kernel's lockdep).
 *
 * A lock's state (held, owner, where taken) lives under its guard, a host
 * mutex held only for the few instructions that read or change it; a
 * waiter sleeps on the lock's condition variable. Reports are raised after
 * the guard is let go, so a handler may do anything, take the lock included.
 *
 * The atomic context is thread-local: the locks the thread holds, with
 * where it took the innermost DMAMAP_LOCKDEP_DEPTH, and its interrupt
 * state. Only the thread itself reads or changes it, with one exception
 * made safe by a hand-over: a mutex unlocked by another thread than its
 * holder is posted to the holder (foreign[]), which forgets it at its next
 * lock call or when it ends. A thread's owner token, a number never
 * reused, names it in the locks it holds, so that a lock held by a thread
 * that ended is nobody's. A thread that takes a lock registers
 * thread_ends() to run when it ends. dm_run_as_task() sets the context
 * aside for a call that runs as a task of its own (the thread function of
 * a threaded interrupt), and gives it back after.
 *
 * Lock order. Each lock has a class (struct ld_class), found in a hash of
 * its key (the init site, the DEFINE_*() site, a lock_class_key, or a name)
 * when the lock is initialised or first used, and cached in the lock. A
 * class and a subclass make a *node* (class * DMAMAP_LOCK_SUBCLASSES +
 * subclass) of the dependency graph; each held lock remembers its node. An
 * edge A -> B means B was taken (waited for) while A was held; edges are
 * only ever added, each looked up by its pair in an open-addressed hash and
 * chained from its source node for the walk. Taking B while holding A adds
 * A -> B (and T -> B for each trylocked T held above A): before the edge
 * goes in, a breadth-first walk from B looking for A tells whether it closes
 * a cycle; the shortest such path is what the report shows. An edge that
 * closes a cycle is added all the same, so that it is never reported
 * again. Everything of the graph lives in fixed tables under ld.lock; when
 * one is full, checking stops for good (ld_off), as the kernel's lockdep
 * turns itself off. ld_off, a class id cached in a lock and the class count
 * are read without ld.lock (atomically); nothing else is.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "internal.h"

/* ------------------------------------------------------------ held locks */

#define HELD_MAX DMAMAP_LOCKDEP_DEPTH

/* The call that took a lock, for reports: an index in how_names[]. */
enum how {
	HOW_SPIN = 0,        /* + an enum dmamap_spin_mode */
	HOW_SPIN_NESTED = 4, /* + mode */
	HOW_SPIN_TRY = 8,    /* + mode */
	HOW_MUTEX = 12,
	HOW_MUTEX_NESTED,
	HOW_MUTEX_TRY,
	HOW_NR
};

static const char *const how_names[HOW_NR] = {
	[HOW_SPIN + DMAMAP_SPIN_PLAIN] = "spin_lock",
	[HOW_SPIN + DMAMAP_SPIN_BH] = "spin_lock_bh",
	[HOW_SPIN + DMAMAP_SPIN_IRQ] = "spin_lock_irq",
	[HOW_SPIN + DMAMAP_SPIN_IRQSAVE] = "spin_lock_irqsave",
	[HOW_SPIN_NESTED + DMAMAP_SPIN_PLAIN] = "spin_lock_nested",
	[HOW_SPIN_NESTED + DMAMAP_SPIN_BH] = "spin_lock_bh_nested",
	[HOW_SPIN_NESTED + DMAMAP_SPIN_IRQ] = "spin_lock_irq_nested",
	[HOW_SPIN_NESTED + DMAMAP_SPIN_IRQSAVE] = "spin_lock_irqsave_nested",
	[HOW_SPIN_TRY + DMAMAP_SPIN_PLAIN] = "spin_trylock",
	[HOW_SPIN_TRY + DMAMAP_SPIN_BH] = "spin_trylock_bh",
	[HOW_SPIN_TRY + DMAMAP_SPIN_IRQ] = "spin_trylock_irq",
	[HOW_SPIN_TRY + DMAMAP_SPIN_IRQSAVE] = "spin_trylock_irqsave",
	[HOW_MUTEX] = "mutex_lock",
	[HOW_MUTEX_NESTED] = "mutex_lock_nested",
	[HOW_MUTEX_TRY] = "mutex_trylock",
};

#define HELD_SPIN 1u /* a spinlock; else a mutex */
#define HELD_TRY 2u  /* taken by a trylock */

/* A lock the thread holds, as it was taken. */
struct held {
	const struct dmamap_lock *lk;
	const char *file;     /* where it was taken */
	const char *name;     /* the lock's name then: the lock may be gone when a report names it */
	int line;
	unsigned short node;  /* its lock-order node; 0: its order is not checked */
	unsigned char how;    /* an enum how */
	unsigned char flags;  /* HELD_* */
};

struct dm_atomic {
	unsigned long token;          /* this thread as a lock's owner; 0 until it needs one */
	unsigned int spins;           /* spinlocks held */
	unsigned int depth;           /* locks held, spinlocks and mutexes */
	unsigned int nheld;           /* entries of held[] in use (the innermost HELD_MAX) */
	unsigned int foreign_seen;    /* foreign_gen when this thread last looked */
	bool exit_hook;               /* thread_ends() will run when the thread ends */
	bool irqs_off;
	const char *irq_how;          /* what turned them off, where */
	const char *irq_file;
	int irq_line;
	unsigned int hardirq;         /* hard interrupt handlers running (dmamap_irq_raise()), nested */
	unsigned int hardirq_irq;     /* the line of the innermost */
	unsigned int bh;              /* bottom-half disables (local_bh_disable(), spin_lock_bh()) not undone */
	const char *bh_file;          /* where the outermost local_bh_disable() was made, or NULL */
	int bh_line;
	unsigned int softirq;         /* tasklets running (tasklet.c), nested */
	bool softirq_raised;          /* tasklets are scheduled for this thread to run */
	struct held held[HELD_MAX];
};

static _Thread_local struct dm_atomic atomic_now DM_TLS_MODEL;

static atomic_ulong next_token;

/* This thread, as a lock's owner: a token of its own, never reused by another thread. */
static const void *self(void)
{
	struct dm_atomic *a = &atomic_now;

	if (!a->token)
		a->token = atomic_fetch_add_explicit(&next_token, 1, memory_order_relaxed) + 1;
	return (const void *)(uintptr_t)a->token;
}

unsigned long dm_thread_token(void)
{
	return (unsigned long)(uintptr_t)self();
}

static struct dmamap_machine *report_machine(void)
{
	return dmamap_machine_peek_current();
}

/* "'name' (0x...)" or "0x...": a lock as a report names it, from its name and address. */
static const char *name_at(const char *name, const void *lk, char *buf, size_t size)
{
	if (name)
		snprintf(buf, size, "'%s' (%p)", name, lk);
	else
		snprintf(buf, size, "%p", lk);
	return buf;
}

static const char *lock_name(const struct dmamap_lock *lk, char *buf, size_t size)
{
	return name_at(lk->name, (const void *)lk, buf, size);
}

/* " (taken at file:line)" or "". */
static const char *taken_at(const char *file, int line, char *buf, size_t size)
{
	if (file)
		snprintf(buf, size, " (taken at %s:%d)", file, line);
	else
		buf[0] = '\0';
	return buf;
}

/* "file:line", or "an unknown place" (see internal.h). */
const char *dm_site(const char *file, int line, char *buf, size_t size)
{
	if (file)
		snprintf(buf, size, "%s:%d", file, line);
	else
		snprintf(buf, size, "an unknown place");
	return buf;
}

/* Append to the string @buf of @size bytes, @*len long; what does not fit is cut. */
static void DMAMAP_PRINTF(4, 5) buf_add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size - 1 ? *len + (size_t)n : size - 1;
}

static bool lock_ok(struct dmamap_lock *lk, const char *how, const char *file, int line)
{
	if (lk)
		return true;
	dmamap_report(report_machine(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s: NULL lock", how);
	return false;
}

/* ------------------------------------------------------------ lock order */

#define LD_SUB DMAMAP_LOCK_SUBCLASSES
#define LD_CLASSES (DMAMAP_LOCKDEP_CLASSES + 1)   /* class ids 1..; 0 is none */
#define LD_NODES (LD_CLASSES * LD_SUB)
#define LD_EDGES DMAMAP_LOCKDEP_DEPENDENCIES      /* edge ids 1..; 0 is none */
#define LD_EDGE_BITS 14
#define LD_EDGE_SLOTS (1u << LD_EDGE_BITS)
#define LD_CLASS_SLOTS 2048u
#define LD_NOVALIDATE UINT_MAX                     /* a lock's dep_class: its order is never checked */

_Static_assert(LD_NODES - 1 <= USHRT_MAX, "a node fits a held lock's unsigned short");
_Static_assert(LD_EDGE_SLOTS >= 2 * LD_EDGES, "the edge hash stays at most half full");
_Static_assert(LD_CLASS_SLOTS >= 2 * LD_CLASSES, "the class hash stays at most half full");

/* What keys a lock class. */
enum origin {
	O_INIT,      /* spin_lock_init()/mutex_init() at file:line, with the lock's name */
	O_DEFINE,    /* DEFINE_SPINLOCK()/DEFINE_MUTEX() at file:line, with its name */
	O_NAME,      /* dmamap_lock_init() with no file: the name */
	O_KEY,       /* lockdep_set_class(): the key's address */
	O_FIRST_USE, /* a lock never initialised: its first lock call's file:line */
};

struct ld_class {
	const char *file;
	int line;
	const void *key;
	unsigned int origin;  /* an enum origin */
	char name[64];        /* a copy ("" when none) */
};

/* A dependency: @to was taken at file:line while @from, taken at from_file:from_line, was held. */
struct ld_edge {
	unsigned short from, to;
	unsigned int next;    /* the next edge out of @from; 0: none */
	const char *file;
	int line;
	const char *from_file;
	int from_line;
};

static struct {
	pthread_mutex_t lock;
	char off_why[128];
	unsigned int nclasses;  /* the last class id given; read without the lock atomically */
	unsigned int nedges;
	unsigned int gen;       /* the current walk's mark in seen[] */
	struct ld_class classes[LD_CLASSES];
	unsigned short class_slot[LD_CLASS_SLOTS];
	struct ld_edge edges[LD_EDGES + 1];
	unsigned int edge_slot[LD_EDGE_SLOTS];
	unsigned int first_out[LD_NODES];
	unsigned int seen[LD_NODES];
	unsigned int via[LD_NODES];  /* during a walk: the edge that reached the node */
	unsigned short queue[LD_NODES];
} ld = { .lock = PTHREAD_MUTEX_INITIALIZER };

static atomic_bool ld_off, ld_off_said;

DMAMAP_API bool dmamap_lockdep_enabled(void)
{
	return !atomic_load(&ld_off);
}

/* Turn lock order checking off for good, because of @why (ld.lock held); ld_say_off() then says it. */
static void ld_turn_off(const char *why)
{
	if (atomic_load(&ld_off))
		return;
	snprintf(ld.off_why, sizeof(ld.off_why), "%s", why);
	atomic_store(&ld_off, true);
}

/* Once checking is off, say why, once (ld.lock not held: a handler may take locks). */
static void ld_say_off(void)
{
	char why[sizeof(ld.off_why)];

	if (!atomic_load(&ld_off) || atomic_exchange(&ld_off_said, true))
		return;
	pthread_mutex_lock(&ld.lock);
	memcpy(why, ld.off_why, sizeof(why));
	pthread_mutex_unlock(&ld.lock);
	dmamap_log(report_machine(), DMAMAP_LOG_WARN, NULL,
		   "lockdep: %s: turning off the locking correctness validator; lock order is no longer checked, "
		   "the other lock checks go on",
		   why);
}

static unsigned int str_hash(unsigned int h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The id of the class keyed by these, made when there is none; 0 when the table is full (ld.lock held). */
static unsigned int class_find(unsigned int origin, const char *file, int line, const void *key, const char *name)
{
	char nm[sizeof(ld.classes[0].name)];
	const bool by_name = origin != O_KEY; /* a key's class is its key's, whatever the name */
	unsigned int h, i, id;
	struct ld_class *c;

	snprintf(nm, sizeof(nm), "%s", name ? name : "");
	h = str_hash(2166136261u ^ origin, file);
	if (by_name)
		h = str_hash(h, nm);
	h ^= (unsigned int)line * 0x9e3779b1u ^ (unsigned int)((uintptr_t)key >> 3) * 0x85ebca6bu;
	h ^= h >> 15;
	for (i = h & (LD_CLASS_SLOTS - 1);; i = (i + 1) & (LD_CLASS_SLOTS - 1)) {
		id = ld.class_slot[i];
		if (!id)
			break;
		c = &ld.classes[id];
		if (c->origin == origin && c->line == line && c->key == key && str_same(c->file, file) &&
		    (!by_name || !strcmp(c->name, nm)))
			return id;
	}
	if (ld.nclasses + 1 >= LD_CLASSES) {
		char why[96];

		snprintf(why, sizeof(why), "more than %u lock classes (DMAMAP_LOCKDEP_CLASSES)", DMAMAP_LOCKDEP_CLASSES);
		ld_turn_off(why);
		return 0;
	}
	id = ld.nclasses + 1;
	c = &ld.classes[id];
	c->file = file;
	c->line = line;
	c->key = key;
	c->origin = origin;
	memcpy(c->name, nm, sizeof(nm));
	ld.class_slot[i] = (unsigned short)id;
	__atomic_store_n(&ld.nclasses, id, __ATOMIC_RELEASE);
	return id;
}

/* Find (or make) a class for the lock; 0 when checking is off or just turned off. */
static unsigned int class_of(unsigned int origin, const char *file, int line, const void *key, const char *name)
{
	unsigned int c = 0;

	if (atomic_load(&ld_off))
		return 0;
	pthread_mutex_lock(&ld.lock);
	if (!atomic_load(&ld_off))
		c = class_find(origin, file, line, key, name);
	pthread_mutex_unlock(&ld.lock);
	ld_say_off();
	return c;
}

/* "'name'", "'name'/1" for a subclass, or what keyed a class of no name (ld.lock held). */
static const char *node_name(unsigned int node, char *buf, size_t size)
{
	const struct ld_class *c = &ld.classes[node / LD_SUB];
	unsigned int sub = node % LD_SUB;
	char s[16] = "";

	if (sub)
		snprintf(s, sizeof(s), "/%u", sub);
	if (c->name[0])
		snprintf(buf, size, "'%s'%s", c->name, s);
	else if (c->file)
		snprintf(buf, size, "the lock first used at %s:%d%s", c->file, c->line, s);
	else
		snprintf(buf, size, "a lock of key %p%s", c->key, s);
	return buf;
}

/* How a class is keyed, for a report (ld.lock held). */
static const char *class_origin(unsigned int node, char *buf, size_t size)
{
	const struct ld_class *c = &ld.classes[node / LD_SUB];

	switch (c->origin) {
	case O_INIT:
		snprintf(buf, size, "initialised at %s:%d", c->file, c->line);
		break;
	case O_DEFINE:
		snprintf(buf, size, "defined at %s:%d", c->file, c->line);
		break;
	case O_KEY:
		snprintf(buf, size, "the class '%s' of a lockdep_set_class() key, %p", c->name, c->key);
		break;
	case O_FIRST_USE:
		snprintf(buf, size, "never initialised, first used at %s:%d", c->file ? c->file : "?", c->line);
		break;
	default:
		snprintf(buf, size, "initialised with no file, named '%s'", c->name);
		break;
	}
	return buf;
}

/*
 * The lock-order node of @lk taken as @subclass (0: the lock's own
 * subclass), its class found first if it is not known yet (a lock of
 * DEFINE_*(), or one never initialised, whose class is its first lock call
 * at @file:@line). 0: its order is not checked.
 */
static unsigned int ld_node(struct dmamap_lock *lk, unsigned int subclass, const char *file, int line)
{
	unsigned int c;

	if (atomic_load_explicit(&ld_off, memory_order_relaxed))
		return 0;
	c = __atomic_load_n(&lk->dep_class, __ATOMIC_ACQUIRE);
	if (c == LD_NOVALIDATE)
		return 0;
	if (!c || c > __atomic_load_n(&ld.nclasses, __ATOMIC_ACQUIRE)) {
		const char *def_file, *name;
		int def_line;
		bool valid;

		pthread_mutex_lock(&lk->guard);
		valid = lk->magic == DMAMAP_LOCK_MAGIC || lk->magic == DMAMAP_LOCK_DEAD;
		def_file = valid ? lk->init_file : NULL;
		def_line = valid ? lk->init_line : 0;
		name = valid ? lk->name : NULL;
		pthread_mutex_unlock(&lk->guard);
		if (def_file)
			c = class_of(O_DEFINE, def_file, def_line, NULL, name);
		else if (file)
			c = class_of(O_FIRST_USE, file, line, NULL, name);
		else
			c = LD_NOVALIDATE;
		if (!c)
			return 0;
		__atomic_store_n(&lk->dep_class, c, __ATOMIC_RELEASE);
		if (c == LD_NOVALIDATE)
			return 0;
	}
	if (!subclass)
		subclass = __atomic_load_n(&lk->dep_subclass, __ATOMIC_RELAXED);
	if (subclass >= LD_SUB)
		subclass = 0;
	return c * LD_SUB + subclass;
}

/* The slot of edge @from -> @to in the hash, or the free slot where it goes (ld.lock held). */
static unsigned int *edge_slot(unsigned int from, unsigned int to)
{
	unsigned int i = ((from << 16 | to) * 0x9e3779b1u) >> (32 - LD_EDGE_BITS), e;

	for (;; i = (i + 1) & (LD_EDGE_SLOTS - 1)) {
		e = ld.edge_slot[i];
		if (!e || (ld.edges[e].from == from && ld.edges[e].to == to))
			return &ld.edge_slot[i];
	}
}

/* Record @from -> @to in the free @slot: @to taken at @file:@line holding @prev. False when the table is full. */
static bool edge_add(unsigned int *slot, unsigned int from, unsigned int to, const struct held *prev, const char *file,
		     int line)
{
	struct ld_edge *e;
	char why[96];

	if (ld.nedges >= LD_EDGES) {
		snprintf(why, sizeof(why), "more than %u lock dependencies (DMAMAP_LOCKDEP_DEPENDENCIES)",
			 DMAMAP_LOCKDEP_DEPENDENCIES);
		ld_turn_off(why);
		return false;
	}
	*slot = ++ld.nedges;
	e = &ld.edges[*slot];
	e->from = (unsigned short)from;
	e->to = (unsigned short)to;
	e->file = file;
	e->line = line;
	e->from_file = prev->file;
	e->from_line = prev->line;
	e->next = ld.first_out[from];
	ld.first_out[from] = *slot;
	return true;
}

/* Whether @dst is reachable from @src (@src != @dst); via[] then holds a shortest path back from @dst. */
static bool reaches(unsigned int src, unsigned int dst)
{
	unsigned int head = 0, tail = 0;

	if (++ld.gen == 0) {
		memset(ld.seen, 0, sizeof(ld.seen));
		ld.gen = 1;
	}
	ld.seen[src] = ld.gen;
	ld.queue[tail++] = (unsigned short)src;
	while (head < tail) {
		unsigned int n = ld.queue[head++];

		for (unsigned int e = ld.first_out[n]; e; e = ld.edges[e].next) {
			unsigned int t = ld.edges[e].to;

			if (ld.seen[t] == ld.gen)
				continue;
			ld.seen[t] = ld.gen;
			ld.via[t] = e;
			if (t == dst)
				return true;
			ld.queue[tail++] = (unsigned short)t;
		}
	}
	return false;
}

#define PATH_SHOWN 6 /* steps of an earlier order a report spells out */

/*
 * The report of @lk, taken by @how at @file:@line while this thread holds
 * @prev, closing a cycle: the path reaches() found from the lock's node
 * @node back to @prev's (ld.lock held).
 */
static void cycle_message(char *msg, size_t size, const struct dmamap_lock *lk, unsigned int node,
			  const struct held *prev, const char *how)
{
	unsigned int path[PATH_SHOWN], steps = 0, i;
	char a[160], b[160], s1[160], s2[160];
	size_t len = 0;

	/* the path, walked back from @prev: its length, then its first steps in order (no longer than the nodes) */
	for (unsigned int n = prev->node; n != node && steps < LD_NODES; n = ld.edges[ld.via[n]].from)
		steps++;
	i = steps;
	for (unsigned int n = prev->node; i > 0; n = ld.edges[ld.via[n]].from)
		if (--i < PATH_SHOWN)
			path[i] = ld.via[n];
	buf_add(msg, size, &len, "possible circular locking dependency detected: %s(%s) while holding %s%s, but", how,
		lock_name(lk, a, sizeof(a)), node_name(prev->node, b, sizeof(b)),
		taken_at(prev->file, prev->line, s1, sizeof(s1)));
	for (i = 0; i < steps && i < PATH_SHOWN; i++) {
		const struct ld_edge *e = &ld.edges[path[i]];

		buf_add(msg, size, &len, "%s %s was taken at %s while holding %s%s", i ? (i + 1 == steps ? ", and" : ",") : "",
			node_name(e->to, a, sizeof(a)), dm_site(e->file, e->line, s1, sizeof(s1)),
			node_name(e->from, b, sizeof(b)), taken_at(e->from_file, e->from_line, s2, sizeof(s2)));
	}
	if (steps > PATH_SHOWN)
		buf_add(msg, size, &len, ", and %u steps more", steps - PATH_SHOWN);
	buf_add(msg, size, &len, ": threads taking them in these orders at once deadlock");
}

/*
 * Check the acquisition of @lk as @node by @how at @file:@line against the
 * locks this thread holds, before it waits; record the dependencies it
 * makes. A cycle it closes, or a lock of its class already held, is
 * reported once the graph's lock is let go.
 */
static void ld_check(struct dm_atomic *a, const struct dmamap_lock *lk, unsigned int node, const char *how,
		     const char *file, int line)
{
	const struct held *prev[HELD_MAX], *same = NULL;
	unsigned int np = 0, *slot;
	char msg[1000];
	bool report = false;

	if (!node || !a->nheld)
		return;
	for (unsigned int i = a->nheld; i-- > 0;) {
		const struct held *h = &a->held[i];

		if (h->lk == lk)
			return; /* its own lock again: recursion, which take() reports */
		if (h->node == node && !same)
			same = h;
	}
	/* the dependencies: on the last lock waited for, and on the trylocked ones taken since */
	for (unsigned int i = a->nheld; i-- > 0;) {
		const struct held *h = &a->held[i];

		if (!h->node)
			continue;
		if (h->node != node)
			prev[np++] = h;
		if (!(h->flags & HELD_TRY))
			break;
	}

	pthread_mutex_lock(&ld.lock);
	if (same && !atomic_load(&ld_off)) {
		slot = edge_slot(node, node);
		if (!*slot && edge_add(slot, node, node, same, file, line)) {
			char x[160], y[160], t[160], o[160];

			snprintf(msg, sizeof(msg),
				 "possible recursive locking detected: %s(%s) while holding %s%s, a lock of the same class "
				 "(%s): two threads taking two such locks in opposite orders deadlock; if this nesting is on "
				 "purpose, take the inner lock with %s() and a subclass",
				 how, lock_name(lk, x, sizeof(x)), name_at(same->name, (const void *)same->lk, y, sizeof(y)),
				 taken_at(same->file, same->line, t, sizeof(t)), class_origin(node, o, sizeof(o)),
				 lk->kind == DMAMAP_LOCK_MUTEX ? "mutex_lock_nested" : "spin_lock_nested");
			report = true;
		}
	}
	for (unsigned int k = 0; k < np && !atomic_load(&ld_off); k++) {
		unsigned int from = prev[k]->node;

		slot = edge_slot(from, node);
		if (*slot)
			continue;
		if (reaches(node, from) && !report) {
			cycle_message(msg, sizeof(msg), lk, node, prev[k], how);
			report = true;
		}
		edge_add(slot, from, node, prev[k], file, line);
	}
	pthread_mutex_unlock(&ld.lock);
	ld_say_off();
	if (report)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_ORDER, NULL, file, line, "%s", msg);
}

/* ------------------------------------------------------ atomic context */

/* Mutexes unlocked by another thread than their holder, for the holder to forget (see the top). */
#define FOREIGN_MAX 32

static struct {
	pthread_mutex_t lock;
	unsigned int next; /* the slot taken when all are in use: the oldest is lost */
	struct {
		unsigned long owner; /* the holder's token; 0: a free slot */
		const struct dmamap_lock *lk;
	} r[FOREIGN_MAX];
} foreign = { .lock = PTHREAD_MUTEX_INITIALIZER };

static atomic_uint foreign_gen;

/* The mutex @lk, held by the thread @owner, was unlocked by another: tell @owner. */
static void foreign_post(const void *owner, const struct dmamap_lock *lk)
{
	unsigned int i;

	pthread_mutex_lock(&foreign.lock);
	for (i = 0; i < FOREIGN_MAX && foreign.r[i].owner; i++)
		;
	if (i == FOREIGN_MAX) {
		i = foreign.next;
		foreign.next = (foreign.next + 1) % FOREIGN_MAX;
	}
	foreign.r[i].owner = (unsigned long)(uintptr_t)owner;
	foreign.r[i].lk = lk;
	atomic_fetch_add(&foreign_gen, 1);
	pthread_mutex_unlock(&foreign.lock);
}

/* Forget the innermost record of @lk among the locks held; the count drops even when it was not recorded. */
static void held_remove(struct dm_atomic *a, const struct dmamap_lock *lk, bool spin)
{
	for (unsigned int i = a->nheld; i-- > 0;) {
		if (a->held[i].lk == lk) {
			if (a->held[i].flags & HELD_SPIN)
				a->spins--;
			memmove(&a->held[i], &a->held[i + 1], (a->nheld - i - 1) * sizeof(a->held[0]));
			a->nheld--;
			a->depth--;
			return;
		}
	}
	/* one of the outermost, beyond what held[] keeps */
	if (a->depth > a->nheld) {
		a->depth--;
		if (spin && a->spins)
			a->spins--;
	}
}

/* Forget the mutexes other threads unlocked for this one. */
static void foreign_collect(struct dm_atomic *a)
{
	if (atomic_load(&foreign_gen) == a->foreign_seen)
		return;
	pthread_mutex_lock(&foreign.lock);
	a->foreign_seen = atomic_load(&foreign_gen);
	for (unsigned int i = 0; i < FOREIGN_MAX; i++) {
		if (a->token && foreign.r[i].owner == a->token) {
			held_remove(a, foreign.r[i].lk, false);
			foreign.r[i].owner = 0;
		}
	}
	pthread_mutex_unlock(&foreign.lock);
}

/*
 * The locks of @a's held[] from @first on, outermost first, each with where
 * it was taken, then "@before taken before them" when @before is not 0:
 * appended to @buf (@size bytes, @*len long).
 */
static void held_range(const struct dm_atomic *a, unsigned int first, unsigned int before, char *buf, size_t size,
		       size_t *len)
{
	char n[160], t[160];

	for (unsigned int i = first; i < a->nheld; i++) {
		const struct held *h = &a->held[i];

		buf_add(buf, size, len, "%s%s taken by %s() at %s", i > first ? ", " : "",
			name_at(h->name, (const void *)h->lk, n, sizeof(n)), how_names[h->how],
			dm_site(h->file, h->line, t, sizeof(t)));
	}
	if (before)
		buf_add(buf, size, len, "%s%u taken before them", a->nheld > first ? ", and " : "", before);
}

/* The locks @a holds, outermost first, each with where it was taken: appended to @buf (@size bytes, @*len long). */
static void held_list(const struct dm_atomic *a, char *buf, size_t size, size_t *len)
{
	held_range(a, 0, a->depth - a->nheld, buf, size, len);
}

/* When a thread ends: the locks it still holds are reported (the kernel's "exiting with locks still held"). */
static void thread_ends(void *arg)
{
	struct dm_atomic *a = arg;
	const struct held *last;
	char list[700];
	size_t len = 0;

	foreign_collect(a);
	if (a->depth) {
		list[0] = '\0';
		held_list(a, list, sizeof(list), &len);
		last = a->nheld ? &a->held[a->nheld - 1] : NULL;
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, last ? last->file : NULL,
			      last ? last->line : 0,
			      "a thread is exiting with %u lock%s still held: %s; %s held: a thread that waits for %s "
			      "waits for ever",
			      a->depth, a->depth == 1 ? "" : "s", list, a->depth == 1 ? "it stays" : "they stay",
			      a->depth == 1 ? "it" : "one of them");
		a->depth = a->nheld = a->spins = 0;
	}
	/* a spin_lock_bh() left held was said above; a local_bh_disable() not undone is said here */
	if (a->bh && a->bh_file)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, a->bh_file, a->bh_line,
			      "a thread is exiting with bottom halves off since local_bh_disable() at %s:%d",
			      a->bh_file, a->bh_line);
	a->bh = 0;
	a->bh_file = NULL;
	/* the CPU outlives the task: the tasklets it scheduled run now, as that CPU's ksoftirqd would run them */
	if (a->softirq_raised) {
		a->irqs_off = false;
		a->hardirq = a->softirq = 0;
		dm_softirq_run();
	}
}

static pthread_key_t exit_key;
static bool exit_key_made;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void exit_key_make(void)
{
	exit_key_made = pthread_key_create(&exit_key, thread_ends) == 0;
}

/* thread_ends() will run when this thread ends. */
static void exit_hook_arm(struct dm_atomic *a)
{
	if (!a->exit_hook) {
		a->exit_hook = true;
		pthread_once(&exit_once, exit_key_make);
		if (exit_key_made)
			pthread_setspecific(exit_key, a);
	}
}

static void held_push(struct dm_atomic *a, const struct dmamap_lock *lk, unsigned int node, unsigned int how,
		      unsigned int flags, const char *file, int line)
{
	exit_hook_arm(a);
	if (flags & HELD_SPIN)
		a->spins++;
	a->depth++;
	if (a->nheld == HELD_MAX) {
		char why[96];

		memmove(&a->held[0], &a->held[1], (HELD_MAX - 1) * sizeof(a->held[0]));
		a->nheld--;
		/* the outermost lock is forgotten: what is taken under it can no longer be checked */
		snprintf(why, sizeof(why), "a thread holds more than %u locks (DMAMAP_LOCKDEP_DEPTH)", HELD_MAX);
		pthread_mutex_lock(&ld.lock);
		ld_turn_off(why);
		pthread_mutex_unlock(&ld.lock);
		ld_say_off();
	}
	a->held[a->nheld++] = (struct held){ lk, file, lk->name, line, (unsigned short)node, (unsigned char)how,
					     (unsigned char)flags };
}

/*
 * A point where the thread may run the tasklets it has scheduled: it holds
 * no spinlock, has interrupts and bottom halves on, and runs no handler or
 * tasklet (the kernel's local_bh_enable(), or ksoftirqd once the thread
 * may be preempted).
 */
static void softirq_point(const struct dm_atomic *a)
{
	if (a->softirq_raised && !a->spins && !a->irqs_off && !a->bh && !a->softirq && !a->hardirq)
		dm_softirq_run();
}

void dm_softirq_point(void)
{
	softirq_point(&atomic_now);
}

/* One bottom-half disable undone: local_bh_enable(), spin_unlock_bh(). */
static void bh_undo(struct dm_atomic *a)
{
	if (a->bh && !--a->bh) {
		a->bh_file = NULL;
		a->bh_line = 0;
	}
	softirq_point(a);
}

DMAMAP_API unsigned long dmamap_local_irq_save_at(const char *how, const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;
	unsigned long flags = a->irqs_off ? DMAMAP_IRQFLAGS_OFF : 0;

	if (!a->irqs_off) {
		a->irqs_off = true;
		a->irq_how = how;
		a->irq_file = file;
		a->irq_line = line;
	}
	return flags;
}

DMAMAP_API void dmamap_local_irq_restore(unsigned long flags)
{
	atomic_now.irqs_off = (flags & DMAMAP_IRQFLAGS_OFF) != 0;
	softirq_point(&atomic_now);
}

void dm_irq_state_restore(unsigned long flags)
{
	atomic_now.irqs_off = (flags & DMAMAP_IRQFLAGS_OFF) != 0;
}

DMAMAP_API bool dmamap_irqs_disabled(void)
{
	return atomic_now.irqs_off;
}

DMAMAP_API bool dmamap_in_atomic(void)
{
	const struct dm_atomic *a = &atomic_now;

	return a->spins > 0 || a->hardirq > 0 || a->bh > 0 || a->softirq > 0;
}

DMAMAP_API bool dmamap_in_softirq(void)
{
	return atomic_now.bh > 0 || atomic_now.softirq > 0;
}

DMAMAP_API bool dmamap_in_serving_softirq(void)
{
	return atomic_now.softirq > 0;
}

DMAMAP_API void dmamap_local_bh_disable_at(const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;

	exit_hook_arm(a);
	if (!a->bh++) {
		a->bh_file = file;
		a->bh_line = line;
	}
}

DMAMAP_API void dmamap_local_bh_enable_at(const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;

	if (!a->bh) {
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "local_bh_enable(): bottom halves are not disabled; nothing done");
		return;
	}
	bh_undo(a);
}

void dm_softirq_raise(void)
{
	exit_hook_arm(&atomic_now);
	atomic_now.softirq_raised = true;
}

void dm_softirq_settled(void)
{
	atomic_now.softirq_raised = false;
}

void dm_softirq_irq_exit(void)
{
	const struct dm_atomic *a = &atomic_now;

	/* the kernel's irq_exit(): softirqs run unless the interrupt came in one, or with bottom halves off */
	if (a->softirq_raised && !a->hardirq && !a->bh && !a->softirq)
		dm_softirq_run();
}

void dm_softirq_enter(struct dm_softirq_mark *mark)
{
	struct dm_atomic *a = &atomic_now;

	mark->irqs_off = a->irqs_off;
	mark->bh = a->bh;
	a->softirq++;
	a->irqs_off = false;
}

void dm_softirq_exit(const struct dm_softirq_mark *mark, char *left, size_t size)
{
	struct dm_atomic *a = &atomic_now;
	char where[160];
	size_t len = 0;

	left[0] = '\0';
	if (a->irqs_off)
		buf_add(left, size, &len, "interrupts off since %s() at %s", a->irq_how ? a->irq_how : "local_irq_save",
			dm_site(a->irq_file, a->irq_line, where, sizeof(where)));
	if (a->bh > mark->bh)
		buf_add(left, size, &len, "%sbottom halves off (%u local_bh_disable() not undone)", len ? "; " : "",
			a->bh - mark->bh);
	a->bh = mark->bh;
	a->irqs_off = mark->irqs_off;
	a->softirq--;
}

DMAMAP_API bool dmamap_in_hardirq(void)
{
	return atomic_now.hardirq > 0;
}

unsigned int dm_hardirq_enter(unsigned int irq)
{
	unsigned int outer = atomic_now.hardirq_irq;

	atomic_now.hardirq++;
	atomic_now.hardirq_irq = irq;
	return outer;
}

void dm_hardirq_exit(unsigned int outer)
{
	atomic_now.hardirq--;
	atomic_now.hardirq_irq = outer;
}

void dm_run_as_task(void (*fn)(void *arg), void *arg, char *left, size_t size)
{
	struct dm_atomic *a = &atomic_now;
	struct dm_atomic saved;
	char where[160];
	size_t len = 0;

	foreign_collect(a);
	saved = *a;
	a->spins = a->depth = a->nheld = 0;
	a->irqs_off = false;
	a->irq_how = a->irq_file = NULL;
	a->irq_line = 0;
	a->hardirq = a->hardirq_irq = 0;
	a->bh = a->softirq = 0;
	a->bh_file = NULL;
	a->bh_line = 0;

	fn(arg);

	foreign_collect(a);
	left[0] = '\0';
	if (a->depth) {
		buf_add(left, size, &len, "%u lock%s held: ", a->depth, a->depth == 1 ? "" : "s");
		held_list(a, left, size, &len);
	}
	if (a->irqs_off)
		buf_add(left, size, &len, "%sinterrupts off since %s() at %s", len ? "; " : "",
			a->irq_how ? a->irq_how : "local_irq_save", dm_site(a->irq_file, a->irq_line, where, sizeof(where)));
	if (a->bh)
		buf_add(left, size, &len, "%sbottom halves off since %s", len ? "; " : "",
			a->bh_file ? dm_site(a->bh_file, a->bh_line, where, sizeof(where)) : "spin_lock_bh()");
	/* what the task made of this thread's own (its owner token, its exit hook, tasklets it left scheduled) stays */
	saved.token = a->token;
	saved.exit_hook = a->exit_hook;
	saved.softirq_raised |= a->softirq_raised;
	*a = saved;
}

void dm_held_mark(struct dm_held_mark *mark)
{
	struct dm_atomic *a = &atomic_now;

	foreign_collect(a);
	mark->depth = a->depth;
	mark->spins = a->spins;
}

void dm_held_since(const struct dm_held_mark *mark, char *left, size_t size)
{
	struct dm_atomic *a = &atomic_now;
	unsigned int extra, first;
	size_t len = 0;

	foreign_collect(a);
	left[0] = '\0';
	if (a->depth <= mark->depth)
		return;
	/* the innermost ones; those held[] no longer keeps are only counted */
	extra = a->depth - mark->depth;
	first = a->nheld > extra ? a->nheld - extra : 0;
	buf_add(left, size, &len, "%u lock%s held: ", extra, extra == 1 ? "" : "s");
	held_range(a, first, extra - (a->nheld - first), left, size, &len);
	a->nheld = first;
	a->depth = mark->depth;
	a->spins = mark->spins;
}

DMAMAP_API void dmamap_irqs_assert_at(bool off, const char *file, int line)
{
	if (atomic_now.irqs_off == off)
		return;
	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "lockdep_assert_irqs_%s() failed: interrupts are %s", off ? "disabled" : "enabled",
		      off ? "on" : "off");
}

/* The report of a call that may sleep made where it may not (CONFIG_DEBUG_ATOMIC_SLEEP's). */
void dm_might_sleep(struct dmamap_machine *m, const char *what, const char *file, int line)
{
	const struct dm_atomic *a = &atomic_now;
	const struct held *h = NULL;
	char held[300] = "", irqs[200] = "", hard[64] = "", bh[200] = "";

	if ((!a->spins && !a->irqs_off && !a->bh && !a->softirq) || dm_in_call())
		return;
	for (unsigned int i = a->nheld; i-- > 0 && a->spins;) {
		if (a->held[i].flags & HELD_SPIN) {
			h = &a->held[i];
			break;
		}
	}
	if (h) {
		char at[200] = "";

		if (h->file)
			snprintf(at, sizeof(at), " at %s:%d", h->file, h->line);
		snprintf(held, sizeof(held), " with %u spinlock%s held, the last taken by %s()%s", a->spins,
			 a->spins == 1 ? "" : "s", how_names[h->how], at);
	} else if (a->spins) {
		snprintf(held, sizeof(held), " with %u spinlock%s held", a->spins, a->spins == 1 ? "" : "s");
	}
	if (a->irqs_off) {
		if (a->irq_file)
			snprintf(irqs, sizeof(irqs), "%s interrupts off since %s() at %s:%d", a->spins ? ";" : " with",
				 a->irq_how, a->irq_file, a->irq_line);
		else
			snprintf(irqs, sizeof(irqs), "%s interrupts off", a->spins ? ";" : " with");
	}
	if (a->hardirq)
		snprintf(hard, sizeof(hard), ", in the handler of irq %u", a->hardirq_irq);
	else if (a->softirq)
		snprintf(hard, sizeof(hard), ", in a tasklet (softirq context)");
	if (a->bh && a->bh_file)
		snprintf(bh, sizeof(bh), "%s bottom halves off since local_bh_disable() at %s:%d",
			 a->spins || a->irqs_off ? ";" : " with", a->bh_file, a->bh_line);
	else if (a->bh && !a->spins)
		snprintf(bh, sizeof(bh), "%s bottom halves off", a->irqs_off ? ";" : " with");
	dmamap_report(m ? m : report_machine(), DMAMAP_REPORT_SLEEP_IN_ATOMIC, NULL, file, line,
		      "BUG: sleeping function called from invalid context: %s()%s%s%s%s", what, held, irqs, bh, hard);
}

DMAMAP_API void dmamap_might_sleep_at(const char *what, const char *file, int line)
{
	dm_might_sleep(NULL, what ? what : "might_sleep", file, line);
}

/* ---------------------------------------------------------------- locks */

DMAMAP_API void dmamap_lock_init_at(struct dmamap_lock *lk, unsigned int kind, const char *name, const char *file,
				    int line)
{
	unsigned int c;

	if (!lock_ok(lk, kind == DMAMAP_LOCK_MUTEX ? "mutex_init" : "spin_lock_init", file, line))
		return;
	if (file)
		c = class_of(O_INIT, file, line, NULL, name);
	else if (name)
		c = class_of(O_NAME, NULL, 0, NULL, name);
	else
		c = LD_NOVALIDATE;
	pthread_mutex_init(&lk->guard, NULL);
	pthread_cond_init(&lk->released, NULL);
	lk->magic = DMAMAP_LOCK_MAGIC;
	lk->kind = kind;
	lk->name = name;
	lk->held = 0;
	lk->owner = NULL;
	lk->file = NULL;
	lk->line = 0;
	lk->init_file = file;
	lk->init_line = line;
	__atomic_store_n(&lk->dep_class, c, __ATOMIC_RELEASE);
	__atomic_store_n(&lk->dep_subclass, 0u, __ATOMIC_RELAXED);
}

DMAMAP_API void dmamap_lock_init(struct dmamap_lock *lk, unsigned int kind, const char *name)
{
	dmamap_lock_init_at(lk, kind, name, NULL, 0);
}

DMAMAP_API void dmamap_lock_set_class(struct dmamap_lock *lk, const void *key, const char *name,
				      unsigned int subclass)
{
	char n[160];

	if (!lock_ok(lk, key ? "lockdep_set_class" : "lockdep_set_subclass", NULL, 0))
		return;
	if (subclass >= LD_SUB) {
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, NULL, 0,
			      "%s(%s, subclass %u): a lock class has %u subclasses, 0 to %u; nothing changed",
			      key ? "lockdep_set_class_and_subclass" : "lockdep_set_subclass", lock_name(lk, n, sizeof(n)),
			      subclass, LD_SUB, LD_SUB - 1);
		return;
	}
	if (key)
		__atomic_store_n(&lk->dep_class, class_of(O_KEY, NULL, 0, key, name ? name : lk->name), __ATOMIC_RELEASE);
	__atomic_store_n(&lk->dep_subclass, subclass, __ATOMIC_RELAXED);
}

DMAMAP_API void dmamap_lock_set_novalidate(struct dmamap_lock *lk)
{
	if (!lock_ok(lk, "lockdep_set_novalidate_class", NULL, 0))
		return;
	__atomic_store_n(&lk->dep_class, LD_NOVALIDATE, __ATOMIC_RELEASE);
}

/* What the guard saw; reported once it is let go. */
enum verdict {
	V_OK = 0,
	V_UNINIT,      /* never initialised: now it is */
	V_DESTROYED,   /* used after mutex_destroy(): live again */
};

/* Check the lock's magic (guard held): a lock of zeroed memory works once said. */
static enum verdict magic_check(struct dmamap_lock *lk, unsigned int kind)
{
	enum verdict v;

	if (lk->magic == DMAMAP_LOCK_MAGIC)
		return V_OK;
	v = lk->magic == DMAMAP_LOCK_DEAD ? V_DESTROYED : V_UNINIT;
	lk->magic = DMAMAP_LOCK_MAGIC;
	if (v == V_UNINIT) {
		lk->kind = kind;
		lk->held = 0;
		lk->owner = NULL;
		lk->file = NULL;
		lk->init_file = NULL;
	}
	return v;
}

static void magic_report(struct dmamap_lock *lk, unsigned int kind, enum verdict v, const char *how,
			 const char *file, int line)
{
	bool mutex = kind == DMAMAP_LOCK_MUTEX;
	char n[160];

	if (v == V_UNINIT)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s was never initialised (%s or %s missing); initialised now", how,
			      lock_name(lk, n, sizeof(n)), mutex ? "mutex" : "spinlock",
			      mutex ? "mutex_init()" : "spin_lock_init()", mutex ? "DEFINE_MUTEX()" : "DEFINE_SPINLOCK()");
	else if (v == V_DESTROYED)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the mutex was destroyed by mutex_destroy(); used all the same", how,
			      lock_name(lk, n, sizeof(n)));
}

enum take_result { TAKEN, BUSY, RECURSION };

/* Take @lk for this thread; wait for it when @wait. Where it was taken goes in @at_file/@at_line on RECURSION. */
static enum take_result take(struct dmamap_lock *lk, unsigned int kind, bool wait, const char *how, const char *file,
			     int line, const char **at_file, int *at_line)
{
	enum take_result r = TAKEN;
	enum verdict v;

	pthread_mutex_lock(&lk->guard);
	v = magic_check(lk, kind);
	if (lk->held && lk->owner == self()) {
		r = RECURSION;
		*at_file = lk->file;
		*at_line = lk->line;
	} else if (lk->held && !wait) {
		r = BUSY;
	} else {
		while (lk->held)
			pthread_cond_wait(&lk->released, &lk->guard);
		lk->held = 1;
		lk->owner = self();
		lk->file = file;
		lk->line = line;
	}
	pthread_mutex_unlock(&lk->guard);
	magic_report(lk, kind, v, how, file, line);
	return r;
}

enum release_result { RELEASED, RELEASED_FOREIGN, NOT_HELD, REFUSED_FOREIGN };

/* Let go of @lk; one held by another thread only when @foreign_ok. Where it was taken in @at_file/@at_line. */
static enum release_result release(struct dmamap_lock *lk, unsigned int kind, bool foreign_ok, const char *how,
				   const char *file, int line, const char **at_file, int *at_line)
{
	enum release_result r;
	enum verdict v;

	pthread_mutex_lock(&lk->guard);
	v = magic_check(lk, kind);
	*at_file = lk->file;
	*at_line = lk->line;
	if (!lk->held) {
		r = NOT_HELD;
	} else if (lk->owner != self() && !foreign_ok) {
		r = REFUSED_FOREIGN;
	} else {
		r = lk->owner == self() ? RELEASED : RELEASED_FOREIGN;
		/* before the lock is free: its holder forgets it before it can take it again */
		if (r == RELEASED_FOREIGN)
			foreign_post(lk->owner, lk);
		lk->held = 0;
		lk->owner = NULL;
		lk->file = NULL;
		lk->line = 0;
		pthread_cond_signal(&lk->released);
	}
	pthread_mutex_unlock(&lk->guard);
	magic_report(lk, kind, v, how, file, line);
	return r;
}

static void report_recursion(struct dmamap_lock *lk, const char *how, const char *file, int line,
			     const char *at_file, int at_line)
{
	char n[160], t[160];

	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "%s(%s): this thread already holds it%s: recursion, a deadlock on a kernel; not taken again", how,
		      lock_name(lk, n, sizeof(n)), taken_at(at_file, at_line, t, sizeof(t)));
}

static void report_release(struct dmamap_lock *lk, enum release_result r, const char *how, const char *file, int line,
			   const char *at_file, int at_line)
{
	const char *what = strncmp(how, "mutex", 5) ? "spinlock" : "mutex";
	char n[160], t[160];

	if (r == NOT_HELD)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s is not held; nothing done", how, lock_name(lk, n, sizeof(n)), what);
	else if (r == REFUSED_FOREIGN)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s is held by another thread%s; refused, it stays that thread's", how,
			      lock_name(lk, n, sizeof(n)), what, taken_at(at_file, at_line, t, sizeof(t)));
	else if (r == RELEASED_FOREIGN)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s was locked by another thread%s; unlocked all the same, as the kernel does",
			      how, lock_name(lk, n, sizeof(n)), what, taken_at(at_file, at_line, t, sizeof(t)));
}

static const char *const spin_unlock_how[] = {
	[DMAMAP_SPIN_PLAIN] = "spin_unlock",
	[DMAMAP_SPIN_BH] = "spin_unlock_bh",
	[DMAMAP_SPIN_IRQ] = "spin_unlock_irq",
	[DMAMAP_SPIN_IRQSAVE] = "spin_unlock_irqrestore",
};

static int spin_mode(int mode)
{
	return mode >= DMAMAP_SPIN_PLAIN && mode <= DMAMAP_SPIN_IRQSAVE ? mode : DMAMAP_SPIN_PLAIN;
}

/* A subclass a _nested call may take; a larger one is reported, and the acquisition is not checked. */
static bool subclass_ok(struct dmamap_lock *lk, unsigned int subclass, const char *how, const char *file, int line)
{
	char n[160];

	if (subclass < LD_SUB)
		return true;
	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "%s(%s, %u): a lock class has %u subclasses, 0 to %u; this acquisition's lock order is not checked",
		      how, lock_name(lk, n, sizeof(n)), subclass, LD_SUB, LD_SUB - 1);
	return false;
}

/* Before taking @lk: its lock-order node, and, unless @trylock, the check of its order (before any wait). */
static unsigned int before_take(struct dm_atomic *a, struct dmamap_lock *lk, unsigned int subclass, bool trylock,
				const char *how, const char *file, int line)
{
	unsigned int node;

	foreign_collect(a);
	node = ld_node(lk, subclass, file, line);
	if (!trylock)
		ld_check(a, lk, node, how, file, line);
	return node;
}

static unsigned long spin_lock_as(struct dmamap_lock *lk, int mode, unsigned int subclass, bool nested,
				  const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;
	unsigned int how_i = (nested ? HOW_SPIN_NESTED : HOW_SPIN) + (unsigned int)spin_mode(mode);
	const char *how = how_names[how_i];
	unsigned long flags = 0;
	const char *at_file = NULL;
	unsigned int node = 0;
	int at_line = 0;

	if (!lock_ok(lk, how, file, line))
		return 0;
	mode = spin_mode(mode);
	if (mode == DMAMAP_SPIN_IRQ || mode == DMAMAP_SPIN_IRQSAVE)
		flags = dmamap_local_irq_save_at(how, file, line);
	else if (mode == DMAMAP_SPIN_BH)
		a->bh++;
	if (subclass_ok(lk, subclass, how, file, line))
		node = before_take(a, lk, subclass, false, how, file, line);
	if (take(lk, DMAMAP_LOCK_SPIN, true, how, file, line, &at_file, &at_line) == RECURSION)
		report_recursion(lk, how, file, line, at_file, at_line);
	else
		held_push(a, lk, node, how_i, HELD_SPIN, file, line);
	return mode == DMAMAP_SPIN_IRQSAVE ? flags : 0;
}

DMAMAP_API unsigned long dmamap_spin_lock_at(struct dmamap_lock *lk, int mode, const char *file, int line)
{
	return spin_lock_as(lk, mode, 0, false, file, line);
}

DMAMAP_API unsigned long dmamap_spin_lock_nested_at(struct dmamap_lock *lk, int mode, unsigned int subclass,
						    const char *file, int line)
{
	return spin_lock_as(lk, mode, subclass, true, file, line);
}

DMAMAP_API int dmamap_spin_trylock_at(struct dmamap_lock *lk, int mode, unsigned long *flags, const char *file,
				      int line)
{
	struct dm_atomic *a = &atomic_now;
	unsigned int how_i = HOW_SPIN_TRY + (unsigned int)spin_mode(mode);
	const char *how = how_names[how_i];
	unsigned long saved = 0;
	const char *at_file = NULL;
	unsigned int node;
	int at_line = 0;

	if (!lock_ok(lk, how, file, line))
		return 0;
	mode = spin_mode(mode);
	if (mode == DMAMAP_SPIN_IRQ || mode == DMAMAP_SPIN_IRQSAVE)
		saved = dmamap_local_irq_save_at(how, file, line);
	else if (mode == DMAMAP_SPIN_BH)
		a->bh++;
	if (flags)
		*flags = saved;
	node = before_take(a, lk, 0, true, how, file, line);
	if (take(lk, DMAMAP_LOCK_SPIN, false, how, file, line, &at_file, &at_line) == TAKEN) {
		held_push(a, lk, node, how_i, HELD_SPIN | HELD_TRY, file, line);
		return 1;
	}
	if (mode == DMAMAP_SPIN_IRQ || mode == DMAMAP_SPIN_IRQSAVE)
		dmamap_local_irq_restore(saved);
	else if (mode == DMAMAP_SPIN_BH)
		bh_undo(a);
	return 0;
}

DMAMAP_API void dmamap_spin_unlock_at(struct dmamap_lock *lk, int mode, unsigned long flags, const char *file,
				      int line)
{
	const char *how = spin_unlock_how[spin_mode(mode)];
	const char *at_file = NULL;
	int at_line = 0;
	enum release_result r;

	if (!lock_ok(lk, how, file, line))
		return;
	mode = spin_mode(mode);
	r = release(lk, DMAMAP_LOCK_SPIN, false, how, file, line, &at_file, &at_line);
	if (r != RELEASED) {
		report_release(lk, r, how, file, line, at_file, at_line);
		return;
	}
	held_remove(&atomic_now, lk, true);
	if (mode == DMAMAP_SPIN_IRQ)
		dmamap_local_irq_restore(0);
	else if (mode == DMAMAP_SPIN_IRQSAVE)
		dmamap_local_irq_restore(flags);
	else if (mode == DMAMAP_SPIN_BH)
		bh_undo(&atomic_now);
	else
		softirq_point(&atomic_now);
}

static void mutex_lock_as(struct dmamap_lock *lk, unsigned int subclass, bool nested, const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;
	unsigned int how_i = nested ? HOW_MUTEX_NESTED : HOW_MUTEX;
	const char *how = how_names[how_i];
	const char *at_file = NULL;
	unsigned int node = 0;
	int at_line = 0;

	if (!lock_ok(lk, how, file, line))
		return;
	dm_might_sleep(NULL, how, file, line);
	if (subclass_ok(lk, subclass, how, file, line))
		node = before_take(a, lk, subclass, false, how, file, line);
	if (take(lk, DMAMAP_LOCK_MUTEX, true, how, file, line, &at_file, &at_line) == RECURSION)
		report_recursion(lk, how, file, line, at_file, at_line);
	else
		held_push(a, lk, node, how_i, 0, file, line);
}

DMAMAP_API void dmamap_mutex_lock_at(struct dmamap_lock *lk, const char *file, int line)
{
	mutex_lock_as(lk, 0, false, file, line);
}

DMAMAP_API void dmamap_mutex_lock_nested_at(struct dmamap_lock *lk, unsigned int subclass, const char *file,
					    int line)
{
	mutex_lock_as(lk, subclass, true, file, line);
}

DMAMAP_API int dmamap_mutex_trylock_at(struct dmamap_lock *lk, const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;
	const char *at_file = NULL;
	unsigned int node;
	int at_line = 0;

	if (!lock_ok(lk, "mutex_trylock", file, line))
		return 0;
	node = before_take(a, lk, 0, true, "mutex_trylock", file, line);
	if (take(lk, DMAMAP_LOCK_MUTEX, false, "mutex_trylock", file, line, &at_file, &at_line) != TAKEN)
		return 0;
	held_push(a, lk, node, HOW_MUTEX_TRY, HELD_TRY, file, line);
	return 1;
}

DMAMAP_API void dmamap_mutex_unlock_at(struct dmamap_lock *lk, const char *file, int line)
{
	const char *at_file = NULL;
	int at_line = 0;
	enum release_result r;

	if (!lock_ok(lk, "mutex_unlock", file, line))
		return;
	r = release(lk, DMAMAP_LOCK_MUTEX, true, "mutex_unlock", file, line, &at_file, &at_line);
	if (r == RELEASED)
		held_remove(&atomic_now, lk, false);
	else
		report_release(lk, r, "mutex_unlock", file, line, at_file, at_line);
}

DMAMAP_API void dmamap_mutex_destroy_at(struct dmamap_lock *lk, const char *file, int line)
{
	const char *at_file;
	int at_line;
	bool held;
	char n[160], t[160];

	if (!lock_ok(lk, "mutex_destroy", file, line))
		return;
	pthread_mutex_lock(&lk->guard);
	held = lk->held;
	at_file = lk->file;
	at_line = lk->line;
	if (!held)
		lk->magic = DMAMAP_LOCK_DEAD;
	pthread_mutex_unlock(&lk->guard);
	if (held)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "mutex_destroy(%s): the mutex is held%s", lock_name(lk, n, sizeof(n)),
			      taken_at(at_file, at_line, t, sizeof(t)));
}

DMAMAP_API bool dmamap_lock_is_locked(struct dmamap_lock *lk)
{
	bool held;

	if (!lk)
		return false;
	pthread_mutex_lock(&lk->guard);
	held = lk->held;
	pthread_mutex_unlock(&lk->guard);
	return held;
}

DMAMAP_API void dmamap_lock_assert_at(struct dmamap_lock *lk, int what, const char *file, int line)
{
	static const char *const how[] = {
		[DMAMAP_ASSERT_LOCKED] = "assert_spin_locked",
		[DMAMAP_ASSERT_HELD] = "lockdep_assert_held",
		[DMAMAP_ASSERT_NOT_HELD] = "lockdep_assert_not_held",
	};
	const char *at_file;
	int at_line;
	bool held, mine, ok;
	char n[160], t[160];

	if (what < DMAMAP_ASSERT_LOCKED || what > DMAMAP_ASSERT_NOT_HELD)
		what = DMAMAP_ASSERT_HELD;
	if (!lock_ok(lk, how[what], file, line))
		return;
	pthread_mutex_lock(&lk->guard);
	held = lk->held;
	mine = held && lk->owner == self();
	at_file = lk->file;
	at_line = lk->line;
	pthread_mutex_unlock(&lk->guard);
	ok = what == DMAMAP_ASSERT_LOCKED ? held : what == DMAMAP_ASSERT_HELD ? mine : !mine;
	if (ok)
		return;
	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line, "%s(%s) failed: %s%s", how[what],
		      lock_name(lk, n, sizeof(n)),
		      !held ? "nobody holds it" : mine ? "this thread holds it" : "another thread holds it",
		      held ? taken_at(at_file, at_line, t, sizeof(t)) : "");
}

/* ---------------------------------------------------------- completions */

#define NSEC_PER_JIFFY (1000000000ll / DMAMAP_HZ)

/* The monotonic clock in ns, as mono_ns() reads it (clock.c comes after this module). */
static s64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (s64)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

DMAMAP_API void dmamap_completion_init(struct dmamap_completion *c)
{
	if (!c) {
		dmamap_report(report_machine(), DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "init_completion: NULL completion");
		return;
	}
	pthread_mutex_init(&c->guard, NULL);
	pthread_cond_init(&c->wake, NULL);
	c->done = 0;
}

DMAMAP_API void dmamap_completion_reinit(struct dmamap_completion *c)
{
	pthread_mutex_lock(&c->guard);
	c->done = 0;
	pthread_mutex_unlock(&c->guard);
}

DMAMAP_API void dmamap_complete(struct dmamap_completion *c)
{
	pthread_mutex_lock(&c->guard);
	if (c->done != UINT_MAX)
		c->done++;
	/* every waiter rechecks: one consumes it, the others sleep again */
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->guard);
}

DMAMAP_API void dmamap_complete_all(struct dmamap_completion *c)
{
	pthread_mutex_lock(&c->guard);
	c->done = UINT_MAX;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->guard);
}

void dm_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, s64 end)
{
	struct timespec now, abs;
	s64 left = end - mono_ns(), ns;

	if (left <= 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	ns = (s64)now.tv_nsec + left % 1000000000ll;
	abs.tv_sec = now.tv_sec + (time_t)(left / 1000000000ll) + (time_t)(ns / 1000000000ll);
	abs.tv_nsec = (long)(ns % 1000000000ll);
	pthread_cond_timedwait(cond, mutex, &abs);
}

DMAMAP_API unsigned long dmamap_completion_wait_at(struct dmamap_completion *c, unsigned long timeout,
						   const char *how, const char *file, int line)
{
	bool forever = timeout >= (unsigned long)LONG_MAX;
	s64 end = 0, left;
	unsigned long ret;

	dm_might_sleep(NULL, how ? how : "wait_for_completion", file, line);
	if (!forever)
		end = mono_ns() +
		      (timeout > (unsigned long)(INT64_MAX / 4 / NSEC_PER_JIFFY) ? INT64_MAX / 4
										: (s64)timeout * NSEC_PER_JIFFY);
	pthread_mutex_lock(&c->guard);
	while (!c->done) {
		if (forever) {
			pthread_cond_wait(&c->wake, &c->guard);
			continue;
		}
		if (mono_ns() >= end)
			break;
		dm_cond_wait_until(&c->wake, &c->guard, end);
	}
	if (!c->done) {
		pthread_mutex_unlock(&c->guard);
		return 0;
	}
	if (c->done != UINT_MAX)
		c->done--;
	pthread_mutex_unlock(&c->guard);
	if (forever)
		return (unsigned long)LONG_MAX;
	left = end - mono_ns();
	ret = left > 0 ? (unsigned long)((left + NSEC_PER_JIFFY - 1) / NSEC_PER_JIFFY) : 0;
	return ret ? ret : 1;
}

DMAMAP_API bool dmamap_completion_try_wait(struct dmamap_completion *c)
{
	bool got;

	pthread_mutex_lock(&c->guard);
	got = c->done != 0;
	if (c->done && c->done != UINT_MAX)
		c->done--;
	pthread_mutex_unlock(&c->guard);
	return got;
}

DMAMAP_API bool dmamap_completion_done(struct dmamap_completion *c)
{
	bool done;

	pthread_mutex_lock(&c->guard);
	done = c->done != 0;
	pthread_mutex_unlock(&c->guard);
	return done;
}

/* ------------------------------------------------------------ wait queues */

DMAMAP_API void dmamap_waitqueue_init(struct dmamap_waitqueue *wq)
{
	pthread_mutex_init(&wq->guard, NULL);
	pthread_cond_init(&wq->wake, NULL);
	wq->wakes = 0;
	wq->sleepers = 0;
}

DMAMAP_API void dmamap_wake_up(struct dmamap_waitqueue *wq)
{
	pthread_mutex_lock(&wq->guard);
	wq->wakes++;
	pthread_cond_broadcast(&wq->wake);
	pthread_mutex_unlock(&wq->guard);
}

DMAMAP_API bool dmamap_waitqueue_active(struct dmamap_waitqueue *wq)
{
	bool active;

	pthread_mutex_lock(&wq->guard);
	active = wq->sleepers != 0;
	pthread_mutex_unlock(&wq->guard);
	return active;
}

DMAMAP_API unsigned long dmamap_waitqueue_ticket(struct dmamap_waitqueue *wq)
{
	unsigned long t;

	pthread_mutex_lock(&wq->guard);
	t = wq->wakes;
	pthread_mutex_unlock(&wq->guard);
	return t;
}

DMAMAP_API s64 dmamap_wait_deadline(unsigned long timeout)
{
	if (timeout >= (unsigned long)LONG_MAX)
		return 0;
	return mono_ns() + (timeout > (unsigned long)(INT64_MAX / 4 / NSEC_PER_JIFFY) ? INT64_MAX / 4
										 : (s64)timeout * NSEC_PER_JIFFY);
}

DMAMAP_API long dmamap_wait_left(s64 end)
{
	s64 left;

	if (!end)
		return LONG_MAX;
	left = end - mono_ns();
	return left > 0 ? (long)((left + NSEC_PER_JIFFY - 1) / NSEC_PER_JIFFY) : 1;
}

DMAMAP_API bool dmamap_waitqueue_sleep(struct dmamap_waitqueue *wq, unsigned long ticket, s64 end)
{
	bool woken;

	pthread_mutex_lock(&wq->guard);
	wq->sleepers++;
	while (wq->wakes == ticket) {
		if (!end) {
			pthread_cond_wait(&wq->wake, &wq->guard);
			continue;
		}
		if (mono_ns() >= end)
			break;
		dm_cond_wait_until(&wq->wake, &wq->guard, end);
	}
	woken = wq->wakes != ticket;
	wq->sleepers--;
	pthread_mutex_unlock(&wq->guard);
	return woken;
}

bool dm_thread_holds_locks(void)
{
	return atomic_now.depth != 0;
}

void dm_locks_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what, const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;
	char name[160], at[160];

	if (!a->depth)
		return;
	foreign_collect(a);
	for (unsigned int i = 0; i < a->nheld; i++) {
		const struct held *h = &a->held[i];

		if ((uintptr_t)h->lk - (uintptr_t)p >= n)
			continue;
		dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s: the memory at %p is freed while this thread holds the lock %s in it, taken by %s() at "
			      "%s: held lock freed (its unlock would write freed memory)",
			      what, p, name_at(h->name, (const void *)h->lk, name, sizeof(name)), how_names[h->how],
			      dm_site(h->file, h->line, at, sizeof(at)));
	}
}
