/* SPDX-License-Identifier: MIT */
/*
 * Workqueues (<dmamap/workqueue.h>): one worker thread a queue, one lock
 * for every queue and item. A worker never touches an item after its
 * function returned (the function may have freed it): what a flush or a
 * cancel waits on is the worker's record of the item it runs, compared by
 * address only.
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
	struct dmamap_wq *next;        /* every queue of the process */
};

static pthread_mutex_t wq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wq_done = PTHREAD_COND_INITIALIZER; /* a run ended, or an item left a list */
static struct dmamap_wq *all_queues, *system_queue;
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
	all_queues = system_queue = NULL;
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

/* Append @w to @q's run list. Under wq_lock. */
static void run_append(struct dmamap_wq *q, struct dmamap_work *w)
{
	w->next = NULL;
	w->due = 0;
	w->run_seq = q->next_run_seq++;
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
	w->pending = false;
	pthread_cond_broadcast(&wq_done);
}

/* Whether a run of @w up to its queuing @upto is in progress on a queue. Under wq_lock. */
static bool running(const struct dmamap_work *w, unsigned long upto)
{
	for (const struct dmamap_wq *q = all_queues; q; q = q->next)
		if (q->current == w && q->current_queued <= upto)
			return true;
	return false;
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
			w->pending = false;
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

/* A new queue named @name with its worker; under wq_lock. NULL when the host cannot make it. */
static struct dmamap_wq *wq_new(const char *name)
{
	struct dmamap_wq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	snprintf(q->name, sizeof(q->name), "%s", name ? name : "(unnamed)");
	pthread_cond_init(&q->wake, NULL);
	if (pthread_create(&q->thread, NULL, worker, q)) {
		pthread_cond_destroy(&q->wake);
		free(q);
		return NULL;
	}
	q->next = all_queues;
	all_queues = q;
	return q;
}

DMAMAP_API struct dmamap_wq *dmamap_wq_alloc(const char *name)
{
	struct dmamap_wq *q;

	pthread_once(&atfork_once, atfork_register);
	pthread_mutex_lock(&wq_lock);
	q = wq_new(name);
	pthread_mutex_unlock(&wq_lock);
	return q;
}

DMAMAP_API struct dmamap_wq *dmamap_wq_system(void)
{
	struct dmamap_wq *q;

	pthread_once(&atfork_once, atfork_register);
	pthread_mutex_lock(&wq_lock);
	if (!system_queue)
		system_queue = wq_new("events");
	q = system_queue;
	pthread_mutex_unlock(&wq_lock);
	return q;
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
	if (wq == system_queue) {
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
	w->pending = true;
	w->wq = q;
	w->file = file;
	w->line = line;
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

DMAMAP_API bool dmamap_queue_work_at(struct dmamap_wq *wq, struct dmamap_work *w, unsigned long delay,
				     const char *file, int line)
{
	if (!work_ok(w, delay ? "queue_delayed_work" : "queue_work", file, line))
		return false;
	if (!wq)
		wq = dmamap_wq_system();
	if (!wq)
		return false;
	pthread_mutex_lock(&wq_lock);
	if (w->pending || w->cancelling) {
		pthread_mutex_unlock(&wq_lock);
		return false;
	}
	w->queued++;
	enqueue(wq, w, delay, file, line);
	pthread_mutex_unlock(&wq_lock);
	return true;
}

DMAMAP_API bool dmamap_mod_delayed_work_at(struct dmamap_wq *wq, struct dmamap_work *w, unsigned long delay,
					   const char *file, int line)
{
	bool was;

	if (!work_ok(w, "mod_delayed_work", file, line))
		return false;
	if (!wq)
		wq = dmamap_wq_system();
	if (!wq)
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
	pthread_mutex_unlock(&wq_lock);
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
		w->pending = true;
		run_append(w->wq, w);
	}
	target = w->queued;
	/* the pending queuing, once on the run list, or a run of one up to it */
	while ((w->pending && !w->due && w->queued == target) || running(w, target)) {
		waited = true;
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

		while ((wq->head && wq->head->run_seq < upto) || (wq->current && wq->current_run_seq < upto))
			wait_change(&wq_done, 0);
	} while (drain && (wq->head || wq->current));
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
