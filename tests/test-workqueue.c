/* SPDX-License-Identifier: MIT */
/*
 * Workqueues of <linux/workqueue.h> as drivers use them: items run in a
 * worker thread in the order queued, a pending item queued once, the
 * delayed forms, flushes and cancels that wait for what they must, items
 * that free themselves, and the calls that would wait for ever reported, as
 * is memory freed while it holds items still pending.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/devm-helpers.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common.h"

struct job {
	struct work_struct work;
	struct delayed_work dwork;
	struct completion started, gate;
	atomic_int runs;
	bool gated;
	pthread_t thread; /* where it last ran */
};

static void job_fn(struct work_struct *work)
{
	struct job *j = container_of(work, struct job, work);

	j->thread = pthread_self();
	complete(&j->started);
	if (j->gated)
		wait_for_completion(&j->gate);
	msleep(1); /* process context: it may sleep */
	atomic_fetch_add(&j->runs, 1);
}

static void djob_fn(struct work_struct *work)
{
	struct job *j = container_of(to_delayed_work(work), struct job, dwork);

	atomic_fetch_add(&j->runs, 1);
}

static void job_init(struct job *j, bool gated)
{
	memset(j, 0, sizeof(*j));
	INIT_WORK(&j->work, job_fn);
	INIT_DELAYED_WORK(&j->dwork, djob_fn);
	init_completion(&j->started);
	init_completion(&j->gate);
	j->gated = gated;
}

static void test_work_runs_in_a_worker_once_per_queuing(void **state)
{
	struct current_fx *f = *state;
	struct job j;

	job_init(&j, true);
	assert_false(work_pending(&j.work));
	assert_true(schedule_work(&j.work));
	wait_for_completion(&j.started); /* running, held at the gate */
	assert_false(pthread_equal(j.thread, pthread_self()));
	assert_true(work_busy(&j.work));
	assert_false(work_pending(&j.work));
	/* queued again while it runs: once more; while pending: nothing */
	assert_true(schedule_work(&j.work));
	assert_true(work_pending(&j.work));
	assert_false(schedule_work(&j.work));
	assert_false(queue_work(system_wq, &j.work));
	complete(&j.gate);
	complete(&j.gate);
	assert_true(flush_work(&j.work));
	assert_int_equal(atomic_load(&j.runs), 2);
	assert_false(work_busy(&j.work));
	assert_false(flush_work(&j.work)); /* idle: nothing to wait for */
	assert_int_equal(f->c.reports, 0);
}

static int order[8];
static atomic_int n_order;

struct step {
	struct work_struct work;
	int id;
};

static void step_fn(struct work_struct *work)
{
	order[atomic_fetch_add(&n_order, 1)] = container_of(work, struct step, work)->id;
}

static atomic_int static_runs;

static void static_fn(struct work_struct *work)
{
	atomic_fetch_add(&static_runs, 1);
}

static DECLARE_WORK(static_work, static_fn);
static DECLARE_DELAYED_WORK(static_dwork, static_fn);

static void test_queue_runs_in_order_and_flushes(void **state)
{
	struct current_fx *f = *state;
	struct workqueue_struct *wq = alloc_workqueue("acme-%d", WQ_MEM_RECLAIM | WQ_HIGHPRI, 1, 0);
	struct step s[8];

	assert_non_null(wq);
	atomic_store(&n_order, 0);
	for (int i = 0; i < 8; i++) {
		s[i].id = i;
		INIT_WORK(&s[i].work, step_fn);
		assert_true(queue_work(wq, &s[i].work));
	}
	flush_workqueue(wq);
	assert_int_equal(atomic_load(&n_order), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(order[i], i);
	destroy_workqueue(wq);

	/* items made by their static initialisers are ready to queue */
	atomic_store(&static_runs, 0);
	assert_true(schedule_work(&static_work));
	assert_true(schedule_delayed_work(&static_dwork, 0));
	flush_work(&static_work);
	flush_delayed_work(&static_dwork);
	assert_int_equal(atomic_load(&static_runs), 2);
	assert_int_equal(f->c.reports, 0);
}

static void test_delayed_work(void **state)
{
	struct current_fx *f = *state;
	struct job j;
	ktime_t t0;

	job_init(&j, false);
	/* not before its delay */
	assert_true(schedule_delayed_work(&j.dwork, msecs_to_jiffies(50)));
	assert_false(schedule_delayed_work(&j.dwork, 0));
	assert_true(delayed_work_pending(&j.dwork));
	msleep(10);
	assert_int_equal(atomic_load(&j.runs), 0);
	/* flush_work() does not wait for a delay to pass; flush_delayed_work() cuts it short */
	assert_false(flush_work(&j.dwork.work));
	assert_int_equal(atomic_load(&j.runs), 0);
	t0 = ktime_get();
	assert_true(flush_delayed_work(&j.dwork));
	assert_int_equal(atomic_load(&j.runs), 1);
	assert_false(delayed_work_pending(&j.dwork));

	/* a long delay, changed to none: it runs now */
	assert_true(queue_delayed_work(system_wq, &j.dwork, 100 * HZ));
	assert_true(mod_delayed_work(system_wq, &j.dwork, 0));
	assert_true(flush_work(&j.dwork.work) || atomic_load(&j.runs) == 2);
	assert_int_equal(atomic_load(&j.runs), 2);
	assert_true(ktime_ms_delta(ktime_get(), t0) < 50 * 1000);
	/* mod_delayed_work() of an idle item queues it */
	assert_false(mod_delayed_work(system_wq, &j.dwork, 0));
	assert_true(flush_delayed_work(&j.dwork) || atomic_load(&j.runs) == 3);
	assert_int_equal(atomic_load(&j.runs), 3);

	/* left alone, it runs once its delay has passed */
	t0 = ktime_get();
	assert_true(schedule_delayed_work(&j.dwork, msecs_to_jiffies(20)));
	for (int i = 0; i < 5000 && atomic_load(&j.runs) == 3; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&j.runs), 4);
	assert_true(ktime_us_delta(ktime_get(), t0) >= 20000);

	/* cancelled while it waits: it never runs */
	assert_true(schedule_delayed_work(&j.dwork, 100 * HZ));
	assert_true(cancel_delayed_work(&j.dwork));
	assert_false(cancel_delayed_work_sync(&j.dwork));
	assert_false(delayed_work_pending(&j.dwork));
	flush_scheduled_work();
	assert_int_equal(atomic_load(&j.runs), 4);
	assert_int_equal(f->c.reports, 0);
}

struct canceller {
	struct job *j;
	atomic_int returned;
	bool ret;
};

static void *cancel_thread(void *arg)
{
	struct canceller *c = arg;

	c->ret = cancel_work_sync(&c->j->work);
	atomic_store(&c->returned, 1);
	return NULL;
}

static void test_cancel_sync_waits_for_the_run_in_progress(void **state)
{
	struct current_fx *f = *state;
	struct canceller c = { 0 };
	struct job j;
	pthread_t t;

	job_init(&j, true);
	c.j = &j;
	assert_true(schedule_work(&j.work));
	wait_for_completion(&j.started);
	assert_int_equal(pthread_create(&t, NULL, cancel_thread, &c), 0);
	msleep(20);
	assert_int_equal(atomic_load(&c.returned), 0);
	/* no queuing while it is cancelled */
	assert_false(schedule_work(&j.work));
	complete(&j.gate);
	pthread_join(t, NULL);
	assert_false(c.ret); /* it ran, it was not pending */
	assert_int_equal(atomic_load(&j.runs), 1);
	assert_false(work_busy(&j.work));

	/* a pending item is taken off: true, and it never runs */
	j.gated = false;
	reinit_completion(&j.started);
	{
		struct job blocker;

		job_init(&blocker, true);
		assert_true(schedule_work(&blocker.work));
		wait_for_completion(&blocker.started);
		assert_true(schedule_work(&j.work)); /* behind the blocker */
		assert_true(cancel_work(&j.work));
		assert_false(cancel_work(&j.work));
		complete(&blocker.gate);
		assert_true(flush_work(&blocker.work));
	}
	flush_scheduled_work();
	assert_int_equal(atomic_load(&j.runs), 1);
	assert_int_equal(f->c.reports, 0);
}

struct self_freeing {
	struct work_struct work;
	atomic_int *done;
	char payload[100];
};

static void self_freeing_fn(struct work_struct *work)
{
	struct self_freeing *s = container_of(work, struct self_freeing, work);
	atomic_int *done = s->done;

	kfree(s);
	atomic_fetch_add(done, 1);
}

static void test_item_may_free_itself(void **state)
{
	struct current_fx *f = *state;
	atomic_int done = 0;

	for (int i = 0; i < 16; i++) {
		struct self_freeing *s = kzalloc(sizeof(*s), GFP_KERNEL);

		assert_non_null(s);
		s->done = &done;
		INIT_WORK(&s->work, self_freeing_fn);
		assert_true(schedule_work(&s->work));
	}
	flush_scheduled_work();
	assert_int_equal(atomic_load(&done), 16);
	assert_int_equal(f->c.reports, 0);
}

/* An item that queues another on its own queue, to be drained with it. */
struct chain {
	struct work_struct work;
	struct workqueue_struct *wq;
	struct completion gate; /* the first run waits for it */
	atomic_int runs;
	int left;
};

static void chain_fn(struct work_struct *work)
{
	struct chain *c = container_of(work, struct chain, work);

	if (atomic_fetch_add(&c->runs, 1) == 0)
		wait_for_completion(&c->gate);
	msleep(2); /* the runs take time: a flush that stopped at the first would see it */
	if (--c->left > 0)
		queue_work(c->wq, &c->work);
}

static void *open_gate(void *arg)
{
	msleep(20);
	complete(arg);
	return NULL;
}

static void test_destroy_drains_its_queue(void **state)
{
	struct current_fx *f = *state;
	struct chain c = { .left = 5 };
	pthread_t t;

	c.wq = alloc_ordered_workqueue("chain", 0);
	assert_non_null(c.wq);
	init_completion(&c.gate);
	INIT_WORK(&c.work, chain_fn);
	assert_true(queue_work(c.wq, &c.work));
	/* the drain starts while the first run waits: it waits for the four it queues in turn */
	assert_int_equal(pthread_create(&t, NULL, open_gate, &c.gate), 0);
	drain_workqueue(c.wq);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&c.runs), 5);
	c.left = 5;
	assert_true(queue_work(c.wq, &c.work));
	destroy_workqueue(c.wq);
	assert_int_equal(atomic_load(&c.runs), 10);
	assert_int_equal(f->c.reports, 0);
}

/* A driver's items set up with devm_*_autocancel(): cancelled, never run, when it unbinds; a run in progress waited for. */
static void test_devm_autocancel_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct device dev;
	struct job j, slow;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "autocancel"), 0);
	job_init(&j, false);
	job_init(&slow, true);
	assert_int_equal(devm_delayed_work_autocancel(&dev, &j.dwork, djob_fn), 0);
	assert_int_equal(devm_work_autocancel(&dev, &slow.work, job_fn), 0);
	assert_int_equal(dmamap_devres_count(&dev), 2);
	assert_true(schedule_delayed_work(&j.dwork, 100 * HZ));
	assert_true(schedule_work(&slow.work));
	wait_for_completion(&slow.started);
	/* the gate opens a little later: the unbind's cancel of the running item waits for it */
	{
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, open_gate, &slow.gate), 0);
		dmamap_device_unbind(&dev);
		pthread_join(t, NULL);
	}
	assert_int_equal(atomic_load(&slow.runs), 1);
	assert_false(work_busy(&slow.work));
	assert_false(delayed_work_pending(&j.dwork));
	assert_int_equal(dmamap_devres_count(&dev), 0);
	flush_scheduled_work();
	assert_int_equal(atomic_load(&j.runs), 0);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ misuse */

struct selfish {
	struct work_struct work;
	struct workqueue_struct *wq;
	bool flushed, cancelled;
};

static int selfish_line;

static void selfish_fn(struct work_struct *work)
{
	struct selfish *s = container_of(work, struct selfish, work);

	selfish_line = __LINE__ + 1;
	s->flushed = flush_work(work);
	s->cancelled = cancel_work_sync(work);
	flush_workqueue(s->wq);
}

static void test_waits_for_itself_reported(void **state)
{
	struct current_fx *f = *state;
	struct selfish s = { 0 };
	struct work_struct never;
	struct delayed_work late;
	int line;

	s.wq = create_singlethread_workqueue("selfish");
	assert_non_null(s.wq);
	INIT_WORK(&s.work, selfish_fn);
	assert_true(queue_work(s.wq, &s.work));
	flush_workqueue(s.wq);
	assert_false(s.flushed);
	assert_false(s.cancelled);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	assert_int_equal(f->c.rec[0].line, selfish_line);
	assert_non_null(strstr(f->c.rec[0].message, "flush_work from the item's own function"));
	assert_non_null(strstr(f->c.rec[1].message, "cancel_work_sync from the item's own function"));
	assert_non_null(strstr(f->c.rec[2].message, "flush_workqueue(selfish) from one of the queue's own"));

	/* never initialised: refused */
	memset(&never, 0, sizeof(never));
	line = __LINE__ + 1;
	assert_false(schedule_work(&never));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_false(cancel_work_sync(&never));
	assert_false(flush_work(&never));

	/* the system queue is nobody's to destroy */
	destroy_workqueue(system_wq);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 4);

	/* destroyed with a delayed item waiting: reported, dropped, never run */
	INIT_DELAYED_WORK(&late, djob_fn);
	assert_true(queue_delayed_work(s.wq, &late, 100 * HZ));
	line = __LINE__ + 1;
	destroy_workqueue(s.wq);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 5);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "still waits; dropped"));
	assert_false(delayed_work_pending(&late));
	f->c.reports = 0;
}

/* ------------------------------------------------------------ freed while pending */

/* A driver's private data holding its work items (the delayed one first: its item starts the object). */
struct boxed {
	struct delayed_work dwork;
	struct work_struct work;
};

static atomic_int boxed_runs;

static void boxed_fn(struct work_struct *work)
{
	(void)work;
	atomic_fetch_add(&boxed_runs, 1);
}

static struct boxed *boxed_new(void)
{
	struct boxed *b = kzalloc(sizeof(*b), GFP_KERNEL);

	assert_non_null(b);
	INIT_WORK(&b->work, boxed_fn);
	INIT_DELAYED_WORK(&b->dwork, boxed_fn);
	return b;
}

/* Whether @msg names @file's line @line and the queue @q, as "file:line (queue q)". */
static bool names_site(const char *msg, int line, const char *q)
{
	char want[160];

	snprintf(want, sizeof(want), "test-workqueue.c:%d (queue %s)", line, q);
	return strstr(msg, want) != NULL;
}

/*
 * kfree() of memory holding work items still pending (one waiting behind a
 * busy worker, one waiting for its delay) is reported at the kfree, naming
 * each item's queuing and the cancel that was missing, and the items are
 * cancelled: their functions never run on the freed memory. An item of
 * other memory on the same queue, and an item that already ran, are left
 * alone.
 */
static void test_free_of_pending_work_reported(void **state)
{
	struct current_fx *f = *state;
	struct workqueue_struct *q = alloc_ordered_workqueue("blocked", 0);
	struct boxed *b = boxed_new(), *other = boxed_new(), *done = boxed_new();
	int qline, dline, line;
	struct job busy;

	assert_non_null(q);
	atomic_store(&boxed_runs, 0);
	assert_true(queue_work(q, &done->work));
	flush_workqueue(q);
	assert_int_equal(atomic_load(&boxed_runs), 1);
	job_init(&busy, true);
	assert_true(queue_work(q, &busy.work));
	wait_for_completion(&busy.started); /* the worker is held: what is queued now waits */
	qline = __LINE__ + 1;
	assert_true(queue_work(q, &b->work));
	dline = __LINE__ + 1;
	assert_true(queue_delayed_work(q, &b->dwork, 100 * HZ));
	assert_true(queue_work(q, &other->work));
	kfree(done); /* ran already: nothing to say */
	assert_int_equal(f->c.reports, 0);
	line = __LINE__ + 1;
	kfree(b);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_int_equal(f->c.rec[0].line, line);
	assert_int_equal(f->c.rec[1].line, line);
	assert_non_null(strstr(f->c.rec[0].message, "kfree: the memory at"));
	assert_non_null(strstr(f->c.rec[0].message, "freed while a work item in it"));
	assert_true(names_site(f->c.rec[0].message, qline, "blocked"));
	assert_non_null(strstr(f->c.rec[0].message, "cancel_work_sync() or cancel_delayed_work_sync() missing?); cancelled"));
	assert_non_null(strstr(f->c.rec[1].message, "freed while a delayed work item in it"));
	assert_true(names_site(f->c.rec[1].message, dline, "blocked"));
	assert_non_null(strstr(f->c.rec[1].message, "(cancel_delayed_work_sync() missing?); cancelled"));
	/* the worker goes on: only the other memory's item runs */
	complete(&busy.gate);
	flush_workqueue(q);
	assert_int_equal(atomic_load(&busy.runs), 1);
	assert_int_equal(atomic_load(&boxed_runs), 2);
	assert_false(work_pending(&other->work));
	/* the delayed item is gone too: the queue's destroy finds nothing waiting */
	destroy_workqueue(q);
	assert_int_equal(f->c.reports, 2);
	kfree(other);
	f->c.reports = 0;
}

/*
 * A free is judged on its own bytes: an item in the object right after the
 * freed one stays queued and runs; an item cancelled before the free, or
 * whose delay has passed and that has run, costs nothing.
 */
static void test_free_next_to_pending_work_silent(void **state)
{
	struct current_fx *f = *state;
	struct boxed *a = boxed_new(), *b = boxed_new();

	atomic_store(&boxed_runs, 0);
	/* two objects of one size class, the second in the slot after the first: its item at the first's end */
	assert_ptr_equal((char *)b, (char *)a + ksize(a));
	assert_ptr_equal(&b->dwork.work, b);
	assert_true(schedule_delayed_work(&b->dwork, 100 * HZ));
	assert_true(schedule_delayed_work(&a->dwork, 100 * HZ));
	assert_true(cancel_delayed_work_sync(&a->dwork));
	kfree(a);
	assert_int_equal(f->c.reports, 0);
	assert_true(delayed_work_pending(&b->dwork));
	assert_true(flush_delayed_work(&b->dwork));
	assert_int_equal(atomic_load(&boxed_runs), 1);
	kfree(b);
	assert_int_equal(f->c.reports, 0);
}

/*
 * A driver whose remove() forgets cancel_delayed_work_sync(): the unbind's
 * release of its devm_kzalloc() memory is reported at the allocation's
 * line, and the item never runs.
 */
static void test_unbind_frees_pending_work_reported(void **state)
{
	struct current_fx *f = *state;
	struct device dev;
	struct boxed *priv;
	int line;

	atomic_store(&boxed_runs, 0);
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "forgetful"), 0);
	line = __LINE__ + 1;
	priv = devm_kzalloc(&dev, sizeof(*priv), GFP_KERNEL);
	assert_non_null(priv);
	INIT_DELAYED_WORK(&priv->dwork, boxed_fn);
	assert_true(schedule_delayed_work(&priv->dwork, 100 * HZ));
	dmamap_device_unbind(&dev);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->c.rec[0].line, line);
	assert_non_null(strstr(f->c.rec[0].message, "device unbind (devm_kmalloc()): the memory at"));
	assert_non_null(strstr(f->c.rec[0].message, "(cancel_delayed_work_sync() missing?)"));
	flush_scheduled_work();
	assert_int_equal(atomic_load(&boxed_runs), 0);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
}

/* vfree() of an area holding a pending item: reported as vfree's, cancelled. */
static void test_vfree_of_pending_work_reported(void **state)
{
	struct current_fx *f = *state;
	struct boxed *v = vzalloc(2 * PAGE_SIZE);
	int line;

	atomic_store(&boxed_runs, 0);
	assert_non_null(v);
	/* the item in the area's last page */
	v = (struct boxed *)((char *)v + 2 * PAGE_SIZE - sizeof(*v));
	INIT_DELAYED_WORK(&v->dwork, boxed_fn);
	assert_true(schedule_delayed_work(&v->dwork, 100 * HZ));
	line = __LINE__ + 1;
	vfree((char *)v - (2 * PAGE_SIZE - sizeof(*v)));
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.rec[0].line, line);
	assert_non_null(strstr(f->c.rec[0].message, "vfree: the memory at"));
	flush_scheduled_work();
	assert_int_equal(atomic_load(&boxed_runs), 0);
	f->c.reports = 0;
}

/*
 * free_pages() of a block holding a pending item: reported as free_pages's
 * and cancelled, as the page allocator's free checks what it frees. A free
 * refused for its order frees nothing and leaves the item pending.
 */
static void test_free_pages_of_pending_work_reported(void **state)
{
	struct current_fx *f = *state;
	unsigned long addr = __get_free_page(GFP_KERNEL);
	struct boxed *b = (struct boxed *)addr;
	int line;

	atomic_store(&boxed_runs, 0);
	assert_true(addr != 0);
	INIT_DELAYED_WORK(&b->dwork, boxed_fn);
	assert_true(schedule_delayed_work(&b->dwork, 100 * HZ));
	line = __LINE__ + 1;
	free_pages(addr, 1);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	assert_int_equal(f->c.rec[0].line, line);
	assert_true(delayed_work_pending(&b->dwork));
	line = __LINE__ + 1;
	free_page(addr);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->c.rec[1].line, line);
	assert_non_null(strstr(f->c.rec[1].message, "free_pages: the memory at"));
	assert_non_null(strstr(f->c.rec[1].message, "(cancel_delayed_work_sync() missing?); cancelled"));
	flush_scheduled_work();
	assert_int_equal(atomic_load(&boxed_runs), 0);
	f->c.reports = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_work_runs_in_a_worker_once_per_queuing, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_queue_runs_in_order_and_flushes, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_delayed_work, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_cancel_sync_waits_for_the_run_in_progress, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_item_may_free_itself, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_drains_its_queue, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_autocancel_at_unbind, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_waits_for_itself_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_of_pending_work_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_next_to_pending_work_silent, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_unbind_frees_pending_work_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_vfree_of_pending_work_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_pages_of_pending_work_reported, current_fx_setup,
						current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
