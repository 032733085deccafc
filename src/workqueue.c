/* SPDX-License-Identifier: MIT */
/*
 * Workqueues (<dmamap/workqueue.h>): one worker thread a queue, one lock
 * for every queue and item. A worker never touches an item after its
 * function returned (the function may have freed it): what a flush or a
 * cancel waits on is the worker's record of the item it runs, compared by
 * address only.
 *
 * A BH queue (WQ_BH) has no worker: each item queued on it names the
 * thread that runs it (w->cpu, the queuing thread's dm_thread_token()),
 * which runs it in its softirq pass (tasklet.c's dm_softirq_run(), through
 * dm_bh_work_run_one()) at the points where a tasklet it scheduled at the
 * same moment would run. A run in progress is a struct bh_run on the
 * running thread's stack, on bh_runs: an item queued again while it runs
 * is queued on the running thread, which runs it after, never two runs of
 * it at once (the kernel queues it on the pool where it runs).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

struct dmamap_wq {
	char name[32];
	pthread_t thread;
	pthread_cond_t wake;           /* new work, a stop, or the list's first delay to come */
	struct dmamap_work *head, *tail; /* the run list, oldest first */
	struct dmamap_work *delayed;   /* items waiting for their delay */
	struct dmamap_work *current;   /* the item whose function runs now (compared, never read) */
	unsigned long current_queued;  /* its queuing that runs */
	unsigned long current_run_seq; /* its place in the run list */
	unsigned long next_run_seq;
	bool stopping;
	bool bh, hi;                   /* a BH queue (no worker), of high priority */
	struct dmamap_wq *next;        /* every queue of the process */
};

/* A BH item's run in progress, on its thread's stack. */
struct bh_run {
	struct bh_run *next;
	const struct dmamap_work *w; /* compared, never read */
	const struct dmamap_wq *q;
	unsigned long queued, run_seq, cpu;
};

static pthread_mutex_t wq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wq_done = PTHREAD_COND_INITIALIZER; /* a run ended, or an item left a list */
static struct dmamap_wq *all_queues, *system_queue, *system_bh[2];
static struct bh_run *bh_runs; /* every BH run in progress */
unsigned long dm_wq_listed; /* items pending on any queue (written under wq_lock, read without) */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static _Thread_local struct dmamap_wq *my_queue DM_TLS_MODEL; /* the queue this thread works for */
static _Thread_local struct dmamap_work *my_work DM_TLS_MODEL; /* the item it runs now */

/* Reports name no device: the current machine's, if any. */
#define report(kind, file, line, ...) \
	dmamap_report(dmamap_machine_peek_current(), (kind), NULL, (file), (line), __VA_ARGS__)

static void atfork_prepare(void)
{
	pthread_mutex_lock(&wq_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&wq_lock);
}

/* A forked child has none of the workers: its queues are made afresh when used. */
static void atfork_child(void)
{
	all_queues = system_queue = system_bh[0] = system_bh[1] = NULL;
	bh_runs = NULL;
	my_queue = NULL;
	my_work = NULL;
	pthread_mutex_unlock(&wq_lock);
}

static void atfork_register(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

DMAMAP_API void dmamap_work_init(struct dmamap_work *w, work_func_t func)
{
	memset(w, 0, sizeof(*w));
	w->func = func;
	w->magic = DMAMAP_WORK_MAGIC;
}

/* Mark @w pending or not, and count it. Under wq_lock. */
static void set_pending(struct dmamap_work *w, bool on)
{
	if (w->pending == on)
		return;
	w->pending = on;
	__atomic_store_n(&dm_wq_listed, on ? dm_wq_listed + 1 : dm_wq_listed - 1, __ATOMIC_RELAXED);
}

/* Append @w to @q's run list. Under wq_lock. */
static void run_append(struct dmamap_wq *q, struct dmamap_work *w)
{
	w->next = NULL;
	w->due = 0;
	if (q->bh) {
		/* one count for every BH queue: a thread runs its BH items in the order queued */
		static unsigned long bh_seq;

		w->run_seq = bh_seq++;
		q->next_run_seq = bh_seq;
	} else {
		w->run_seq = q->next_run_seq++;
	}
	if (q->tail)
		q->tail->next = w;
	else
		q->head = w;
	q->tail = w;
	pthread_cond_signal(&q->wake);
}

/* Take pending @w off its queue's list. Under wq_lock. */
static void work_unlink(struct dmamap_work *w)
{
	struct dmamap_wq *q = w->wq;
	struct dmamap_work **pp = w->due ? &q->delayed : &q->head, *prev = NULL;

	while (*pp && *pp != w) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (!*pp)
		return;
	*pp = w->next;
	if (!w->due && q->tail == w)
		q->tail = prev;
	w->next = NULL;
	set_pending(w, false);
	pthread_cond_broadcast(&wq_done);
}

/* Whether a run of @w up to its queuing @upto is in progress on a queue. Under wq_lock. */
static bool running(const struct dmamap_work *w, unsigned long upto)
{
	for (const struct dmamap_wq *q = all_queues; q; q = q->next)
		if (q->current == w && q->current_queued <= upto)
			return true;
	for (const struct bh_run *r = bh_runs; r; r = r->next)
		if (r->w == w && r->queued <= upto)
			return true;
	return false;
}

/* The BH run of @w in progress, or NULL. Under wq_lock. */
static const struct bh_run *bh_running(const struct dmamap_work *w)
{
	for (const struct bh_run *r = bh_runs; r; r = r->next)
		if (r->w == w)
			return r;
	return NULL;
}

/* Whether @q has an item on its run list, or one running, placed before @upto. Under wq_lock. */
static bool busy_before(const struct dmamap_wq *q, unsigned long upto)
{
	if ((q->head && q->head->run_seq < upto) || (q->current && q->current_run_seq < upto))
		return true;
	for (const struct bh_run *r = bh_runs; r; r = r->next)
		if (r->q == q && r->run_seq < upto)
			return true;
	return false;
}

/* Whether @q has a BH item pending on this thread. Under wq_lock. */
static bool bh_pending_here(const struct dmamap_wq *q)
{
	const unsigned long me = dm_thread_token();

	for (const struct dmamap_work *w = q->head; w; w = w->next)
		if (w->cpu == me)
			return true;
	return false;
}

/* Calls @arg's function with its item (a BH item's run), for dm_softirq_call(). */
static void bh_invoke(void *arg)
{
	const struct dmamap_work *copy = arg;

	copy->func((struct work_struct *)copy->next);
}

bool dm_bh_work_run_one(bool hi)
{
	const unsigned long me = dm_thread_token();
	struct dmamap_wq *q = NULL, *saved_queue = my_queue;
	struct dmamap_work *w = NULL, *saved_work = my_work;
	struct dmamap_work copy;
	struct bh_run r;
	char who[200], at[160];

	pthread_mutex_lock(&wq_lock);
	/* this thread's oldest: BH queues take their places in the run lists from one count */
	for (struct dmamap_wq *c = all_queues; c; c = c->next) {
		if (!c->bh || c->hi != hi)
			continue;
		for (struct dmamap_work *i = c->head; i; i = i->next) {
			if (i->cpu != me)
				continue;
			if (!w || i->run_seq < w->run_seq) {
				w = i;
				q = c;
			}
			break;
		}
	}
	if (!w) {
		pthread_mutex_unlock(&wq_lock);
		return false;
	}
	work_unlink(w);
	r = (struct bh_run){ bh_runs, w, q, w->queued, w->run_seq, me };
	bh_runs = &r;
	copy = *w;
	copy.next = w; /* the item the function is called with */
	pthread_mutex_unlock(&wq_lock);
	my_queue = q;
	my_work = w;
	snprintf(who, sizeof(who), "BH work item (queue %s) queued at %s", q->name,
		 dm_site(copy.file, copy.line, at, sizeof(at)));
	dm_softirq_call(bh_invoke, &copy, dmamap_machine_peek_current(), copy.file, copy.line, who);
	my_work = saved_work;
	my_queue = saved_queue;
	pthread_mutex_lock(&wq_lock);
	for (struct bh_run **pp = &bh_runs; *pp; pp = &(*pp)->next) {
		if (*pp == &r) {
			*pp = r.next;
			break;
		}
	}
	pthread_cond_broadcast(&wq_done);
	pthread_mutex_unlock(&wq_lock);
	return true;
}

/* Sleep on @cond (wq_lock held) until a change, or @end on the monotonic clock (0: no end). */
static void wait_change(pthread_cond_t *cond, s64 end)
{
	if (end)
		dm_cond_wait_until(cond, &wq_lock, end);
	else
		pthread_cond_wait(cond, &wq_lock);
}

static void *worker(void *arg)
{
	struct dmamap_wq *q = arg;

	my_queue = q;
	pthread_mutex_lock(&wq_lock);
	for (;;) {
		s64 now = dmamap_ktime_ns(), earliest = 0;
		struct dmamap_work *w;
		work_func_t func;

		for (struct dmamap_work **pp = &q->delayed; *pp;) {
			w = *pp;
			if (w->due <= now) {
				*pp = w->next;
				run_append(q, w);
			} else {
				if (!earliest || w->due < earliest)
					earliest = w->due;
				pp = &w->next;
			}
		}
		w = q->head;
		if (w) {
			q->head = w->next;
			if (!q->head)
				q->tail = NULL;
			w->next = NULL;
			set_pending(w, false);
			q->current = w;
			q->current_queued = w->queued;
			q->current_run_seq = w->run_seq;
			func = w->func;
			pthread_mutex_unlock(&wq_lock);
			my_work = w;
			func((struct work_struct *)w);
			my_work = NULL;
			pthread_mutex_lock(&wq_lock);
			q->current = NULL;
			pthread_cond_broadcast(&wq_done);
			continue;
		}
		if (q->stopping)
			break;
		wait_change(&q->wake, earliest);
	}
	pthread_mutex_unlock(&wq_lock);
	return NULL;
}

/*
 * A new queue named @name with its worker, or a BH queue (@bh, of high
 * priority if @hi) with none; under wq_lock. NULL when the host cannot
 * make it.
 */
static struct dmamap_wq *wq_new(const char *name, bool bh, bool hi)
{
	struct dmamap_wq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	snprintf(q->name, sizeof(q->name), "%s", name ? name : "(unnamed)");
	pthread_cond_init(&q->wake, NULL);
	q->bh = bh;
	q->hi = bh && hi;
	if (!bh && pthread_create(&q->thread, NULL, worker, q)) {
		pthread_cond_destroy(&q->wake);
		free(q);
		return NULL;
	}
	q->next = all_queues;
	all_queues = q;
	return q;
}

/* A new queue (wq_new()'s), or the one in *@shared, made at first use when @shared is given. */
static struct dmamap_wq *wq_get(struct dmamap_wq **shared, const char *name, bool bh, bool hi)
{
	struct dmamap_wq *q;

	pthread_once(&atfork_once, atfork_register);
	pthread_mutex_lock(&wq_lock);
	if (!shared) {
		q = wq_new(name, bh, hi);
	} else {
		if (!*shared)
			*shared = wq_new(name, bh, hi);
		q = *shared;
	}
	pthread_mutex_unlock(&wq_lock);
	return q;
}

DMAMAP_API struct dmamap_wq *dmamap_wq_alloc(const char *name)
{
	return wq_get(NULL, name, false, false);
}

DMAMAP_API struct dmamap_wq *dmamap_wq_alloc_bh(const char *name, bool highpri)
{
	return wq_get(NULL, name, true, highpri);
}

DMAMAP_API struct dmamap_wq *dmamap_wq_system(void)
{
	return wq_get(&system_queue, "events", false, false);
}

DMAMAP_API struct dmamap_wq *dmamap_wq_system_bh(bool highpri)
{
	return wq_get(&system_bh[highpri], highpri ? "events_bh_highpri" : "events_bh", true, highpri);
}

/* Whether @q, a queue of the process, may be waited for by this thread; reported as @what if not. */
static bool wq_waitable(struct dmamap_wq *q, const char *what, const char *file, int line)
{
	if (my_queue != q)
		return true;
	report(DMAMAP_REPORT_API_MISUSE, file, line,
	       "%s(%s) from one of the queue's own work items: it would wait for itself for ever; refused", what,
	       q->name);
	return false;
}

DMAMAP_API void dmamap_wq_destroy_at(struct dmamap_wq *wq, const char *file, int line)
{
	struct dmamap_work *w;

	if (!wq)
		return;
	if (wq == system_queue || wq == system_bh[0] || wq == system_bh[1]) {
		report(DMAMAP_REPORT_API_MISUSE, file, line, "%s(%s): the system queue is not the driver's; refused",
		       "destroy_workqueue", wq->name);
		return;
	}
	if (!wq_waitable(wq, "destroy_workqueue", file, line))
		return;
	dmamap_flush_wq_at(wq, true, file, line);
	pthread_mutex_lock(&wq_lock);
	while ((w = wq->delayed)) {
		const char *wfile = w->file;
		int wline = w->line;

		work_unlink(w);
		pthread_mutex_unlock(&wq_lock);
		report(DMAMAP_REPORT_API_MISUSE, file, line,
		       "destroy_workqueue(%s): a delayed work item queued at %s:%d still waits; dropped", wq->name,
		       wfile ? wfile : "?", wline);
		pthread_mutex_lock(&wq_lock);
	}
	wq->stopping = true;
	pthread_cond_signal(&wq->wake);
	for (struct dmamap_wq **pp = &all_queues; *pp; pp = &(*pp)->next) {
		if (*pp == wq) {
			*pp = wq->next;
			break;
		}
	}
	pthread_mutex_unlock(&wq_lock);
	if (!wq->bh)
		pthread_join(wq->thread, NULL);
	pthread_cond_destroy(&wq->wake);
	free(wq);
}

/* Whether @w was initialised; reported as @what's if not. */
static bool work_ok(struct dmamap_work *w, const char *what, const char *file, int line)
{
	if (w && w->magic == DMAMAP_WORK_MAGIC)
		return true;
	report(DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
	       w ? "a work item never initialised (INIT_WORK())" : "NULL work item");
	return false;
}

/* Put idle @w on @q, to run after @delay jiffies. Under wq_lock. */
static void enqueue(struct dmamap_wq *q, struct dmamap_work *w, unsigned long delay, const char *file, int line)
{
	set_pending(w, true);
	w->wq = q;
	w->file = file;
	w->line = line;
	if (q->bh) {
		const struct bh_run *r = bh_running(w);

		/* queued again while it runs: after that run, in its thread */
		w->cpu = r ? r->cpu : dm_thread_token();
	}
	if (!delay) {
		run_append(q, w);
		return;
	}
	w->due = dmamap_wait_deadline(delay);
	if (!w->due)
		w->due = LLONG_MAX;
	w->next = q->delayed;
	q->delayed = w;
	pthread_cond_signal(&q->wake);
}

/*
 * Whether @w, queued on @q with @delay, may be; a delayed item on a BH
 * queue is refused (reported as @what's): not provided here.
 */
static bool delay_ok(const struct dmamap_wq *q, unsigned long delay, const char *what, const char *file, int line)
{
	if (!q->bh || !delay)
		return true;
	report(DMAMAP_REPORT_API_MISUSE, file, line,
	       "%s(%s) with a delay: delayed work on a BH workqueue is not provided here; not queued", what, q->name);
	return false;
}

/* After @w's queuing on @q: a BH item queued on this thread runs at its next softirq point, which may be now. */
static void queued_bh(const struct dmamap_wq *q, unsigned long cpu)
{
	if (q->bh && cpu == dm_thread_token()) {
		dm_softirq_raise();
		dm_softirq_point();
	}
}

DMAMAP_API bool dmamap_queue_work_at(struct dmamap_wq *wq, struct dmamap_work *w, unsigned long delay,
				     const char *file, int line)
{
	const char *what = delay ? "queue_delayed_work" : "queue_work";
	unsigned long cpu;

	if (!work_ok(w, what, file, line))
		return false;
	if (!wq)
		wq = dmamap_wq_system();
	if (!wq || !delay_ok(wq, delay, what, file, line))
		return false;
	pthread_mutex_lock(&wq_lock);
	if (w->pending || w->cancelling) {
		pthread_mutex_unlock(&wq_lock);
		return false;
	}
	w->queued++;
	enqueue(wq, w, delay, file, line);
	cpu = w->cpu;
	pthread_mutex_unlock(&wq_lock);
	queued_bh(wq, cpu);
	return true;
}

DMAMAP_API bool dmamap_mod_delayed_work_at(struct dmamap_wq *wq, struct dmamap_work *w, unsigned long delay,
					   const char *file, int line)
{
	unsigned long cpu;
	bool was;

	if (!work_ok(w, "mod_delayed_work", file, line))
		return false;
	if (!wq)
		wq = dmamap_wq_system();
	if (!wq || !delay_ok(wq, delay, "mod_delayed_work", file, line))
		return false;
	pthread_mutex_lock(&wq_lock);
	if (w->cancelling) {
		pthread_mutex_unlock(&wq_lock);
		return false;
	}
	was = w->pending;
	if (was)
		work_unlink(w);
	else
		w->queued++;
	enqueue(wq, w, delay, file, line);
	cpu = w->cpu;
	pthread_mutex_unlock(&wq_lock);
	queued_bh(wq, cpu);
	return was;
}

DMAMAP_API bool dmamap_cancel_work_at(struct dmamap_work *w, bool sync, const char *file, int line)
{
	bool was;

	if (!w || w->magic != DMAMAP_WORK_MAGIC)
		return false; /* never initialised: never queued */
	if (sync && my_work == w) {
		report(DMAMAP_REPORT_API_MISUSE, file, line,
		       "cancel_work_sync from the item's own function (queue %s): it would wait for itself for ever; "
		       "cancelled without waiting", my_queue->name);
		sync = false;
	}
	pthread_mutex_lock(&wq_lock);
	was = w->pending;
	if (was)
		work_unlink(w);
	if (sync) {
		w->cancelling = true;
		while (running(w, ULONG_MAX))
			wait_change(&wq_done, 0);
		w->cancelling = false;
	}
	pthread_mutex_unlock(&wq_lock);
	return was;
}

DMAMAP_API bool dmamap_flush_work_at(struct dmamap_work *w, bool now, const char *file, int line)
{
	unsigned long target;
	bool waited = false;

	if (!w || w->magic != DMAMAP_WORK_MAGIC)
		return false;
	if (my_work == w) {
		report(DMAMAP_REPORT_API_MISUSE, file, line,
		       "flush_work from the item's own function (queue %s): it would wait for itself for ever; refused",
		       my_queue->name);
		return false;
	}
	dmamap_might_sleep_at(now ? "flush_delayed_work" : "flush_work", file, line);
	pthread_mutex_lock(&wq_lock);
	if (now && w->pending && w->due) {
		work_unlink(w);
		set_pending(w, true);
		run_append(w->wq, w);
	}
	target = w->queued;
	/* the pending queuing, once on the run list, or a run of one up to it */
	while ((w->pending && !w->due && w->queued == target) || running(w, target)) {
		waited = true;
		if (w->pending && w->wq->bh && w->cpu == dm_thread_token()) {
			/* this thread's own BH item: its softirq work runs now, as local_bh_enable() would run it */
			pthread_mutex_unlock(&wq_lock);
			dm_softirq_run();
			pthread_mutex_lock(&wq_lock);
			continue;
		}
		wait_change(&wq_done, 0);
	}
	pthread_mutex_unlock(&wq_lock);
	return waited;
}

DMAMAP_API void dmamap_flush_wq_at(struct dmamap_wq *wq, bool drain, const char *file, int line)
{
	if (!wq)
		wq = dmamap_wq_system();
	if (!wq || !wq_waitable(wq, drain ? "drain_workqueue" : "flush_workqueue", file, line))
		return;
	dmamap_might_sleep_at(drain ? "drain_workqueue" : "flush_workqueue", file, line);
	pthread_mutex_lock(&wq_lock);
	do {
		unsigned long upto = wq->next_run_seq;

		while (busy_before(wq, upto)) {
			if (bh_pending_here(wq)) {
				/* this thread's own BH items: its softirq work runs now */
				pthread_mutex_unlock(&wq_lock);
				dm_softirq_run();
				pthread_mutex_lock(&wq_lock);
				continue;
			}
			wait_change(&wq_done, 0);
		}
	} while (drain && busy_before(wq, ULONG_MAX));
	pthread_mutex_unlock(&wq_lock);
}

DMAMAP_API bool dmamap_work_pending(struct dmamap_work *w)
{
	bool pending;

	pthread_mutex_lock(&wq_lock);
	pending = w->pending;
	pthread_mutex_unlock(&wq_lock);
	return pending;
}

DMAMAP_API bool dmamap_work_busy(struct dmamap_work *w)
{
	bool busy;

	pthread_mutex_lock(&wq_lock);
	busy = w->pending || running(w, ULONG_MAX);
	pthread_mutex_unlock(&wq_lock);
	return busy;
}

/* The first item pending on any queue that lies in [@a, @a + @n), and its queue; NULL: none. Under wq_lock. */
static struct dmamap_work *pending_in(uintptr_t a, size_t n, struct dmamap_wq **qp)
{
	for (struct dmamap_wq *q = all_queues; q; q = q->next) {
		for (int l = 0; l < 2; l++) {
			for (struct dmamap_work *w = l ? q->delayed : q->head; w; w = w->next) {
				if ((uintptr_t)w - a < n) {
					*qp = q;
					return w;
				}
			}
		}
	}
	return NULL;
}

void dm_work_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what, const char *file, int line)
{
	char name[sizeof(((struct dmamap_wq *)0)->name)], at[160];
	struct dmamap_work *w;
	struct dmamap_wq *q;
	const char *wfile;
	int wline;
	bool delayed;

	if (!__atomic_load_n(&dm_wq_listed, __ATOMIC_RELAXED))
		return;
	for (;;) {
		pthread_mutex_lock(&wq_lock);
		w = pending_in((uintptr_t)p, n, &q);
		if (!w) {
			pthread_mutex_unlock(&wq_lock);
			return;
		}
		wfile = w->file;
		wline = w->line;
		delayed = w->due != 0;
		memcpy(name, q->name, sizeof(name));
		work_unlink(w);
		pthread_mutex_unlock(&wq_lock);
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, file, line,
			      "%s: the memory at %p is freed while a %swork item in it, queued at %s (queue %s), has not "
			      "run: its function would run on freed memory (%s missing?); cancelled",
			      what, p, delayed ? "delayed " : "", dm_site(wfile, wline, at, sizeof(at)), name,
			      delayed ? "cancel_delayed_work_sync()" : "cancel_work_sync() or cancel_delayed_work_sync()");
	}
}
