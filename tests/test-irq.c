/* SPDX-License-Identifier: MIT */
/*
 * Interrupt handlers of <linux/interrupt.h>, raised with dmamap_irq_raise():
 * the handlers of a line run in request order in hard interrupt context and
 * the raise counts who handled it; a line is shared only when every
 * request says so; a disabled line delivers its pending interrupt at the
 * enable; a handler that sleeps is reported; a managed handler goes at
 * unbind; an interrupt nobody handles, a free of a line not requested, a
 * handler that frees its own line and a handler left at machine destroy
 * are reported. Threaded handlers: the thread function runs after the
 * line's handlers when one woke it, in task context where it may sleep;
 * IRQF_ONESHOT keeps the line masked until it returns; the requests the
 * kernel refuses are refused; a thread function that frees or waits for
 * its own line, or returns with a lock held, is reported.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <pthread.h>
#include <unistd.h>

#include "common.h"


/* A device's state as its handler sees it: what it answers, and what it saw. */
struct chip {
	char name;
	irqreturn_t answer;
	int calls;
	int irq_seen;
	bool hardirq, irqs_off, atomic;
	char *order;  /* the log of calls, shared by the chips of a test */
};

static irqreturn_t chip_irq(int irq, void *data)
{
	struct chip *c = data;
	size_t n = strlen(c->order);

	c->order[n] = c->name;
	c->order[n + 1] = '\0';
	c->calls++;
	c->irq_seen = irq;
	c->hardirq = in_interrupt() && in_hardirq() && in_irq() && !in_task();
	c->irqs_off = irqs_disabled();
	c->atomic = in_atomic();
	return c->answer;
}

/* The handlers of a shared line run in request order, in hard interrupt context; the raise counts IRQ_HANDLED. */
static void test_handlers_in_order_and_counted(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct chip a = { 'a', IRQ_HANDLED, 0, 0, 0, 0, 0, order }, b = { 'b', IRQ_NONE, 0, 0, 0, 0, 0, order },
		    c = { 'c', IRQ_HANDLED, 0, 0, 0, 0, 0, order };

	assert_int_equal(request_irq(5, chip_irq, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(5, chip_irq, IRQF_SHARED | IRQF_TRIGGER_HIGH, "b", &b), 0);
	assert_int_equal(request_irq(5, chip_irq, IRQF_SHARED, "c", &c), 0);
	assert_int_equal(dmamap_irq_handlers(f->m, 5), 3);

	assert_int_equal(dmamap_irq_raise(f->m, 5), 2);
	assert_string_equal(order, "abc");
	assert_int_equal(a.irq_seen, 5);
	assert_true(a.hardirq && b.hardirq && c.hardirq);
	assert_true(a.irqs_off && b.irqs_off && c.irqs_off);
	assert_true(a.atomic);
	/* the thread is a task again */
	assert_false(in_interrupt());
	assert_true(in_task());
	assert_false(irqs_disabled());
	assert_false(in_atomic());

	/* the middle one goes: the others keep their order */
	assert_ptr_equal(free_irq(5, &b), "b");
	order[0] = '\0';
	assert_int_equal(dmamap_irq_raise(f->m, 5), 2);
	assert_string_equal(order, "ac");
	assert_int_equal(b.calls, 1);

	/* a line of another number runs none of them */
	assert_int_equal(request_irq(6, chip_irq, 0, "b6", &b), 0);
	order[0] = '\0';
	assert_int_equal(dmamap_irq_raise(f->m, 6), 0);
	assert_string_equal(order, "b");
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1); /* b said IRQ_NONE: nobody cared */
	f->c.reports = 0;

	free_irq(5, &a);
	free_irq(5, &c);
	free_irq(6, &b);
	assert_int_equal(dmamap_irq_handlers(f->m, 5), 0);
	assert_int_equal(f->c.reports, 0);
}

/* A line is shared only when every request on it says IRQF_SHARED: otherwise -EBUSY, nothing registered. */
static void test_exclusive_line_is_busy(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct chip a = { 'a', IRQ_HANDLED, 0, 0, 0, 0, 0, order }, b = { 'b', IRQ_HANDLED, 0, 0, 0, 0, 0, order };

	assert_int_equal(request_irq(7, chip_irq, 0, "a", &a), 0);
	assert_int_equal(request_irq(7, chip_irq, IRQF_SHARED, "b", &b), -EBUSY);
	assert_int_equal(request_irq(7, chip_irq, 0, "b", &b), -EBUSY);
	assert_int_equal(dmamap_irq_handlers(f->m, 7), 1);
	assert_int_equal(dmamap_irq_raise(f->m, 7), 1);
	assert_string_equal(order, "a");
	free_irq(7, &a);

	assert_int_equal(request_irq(7, chip_irq, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(7, chip_irq, 0, "b", &b), -EBUSY);
	assert_int_equal(request_irq(7, chip_irq, IRQF_SHARED, "b", &b), 0);
	assert_int_equal(dmamap_irq_handlers(f->m, 7), 2);
	free_irq(7, &a);
	free_irq(7, &b);
	/* not an error: a driver may try another line */
	assert_int_equal(f->c.reports, 0);

	/* a shared request with no dev_id, or no handler, is refused and reported */
	assert_int_equal(request_irq(7, chip_irq, IRQF_SHARED, "x", NULL), -EINVAL);
	assert_int_equal(request_irq(7, NULL, 0, "x", &a), -EINVAL);
	assert_int_equal(request_irq(DMAMAP_NR_IRQS, chip_irq, 0, "x", &a), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	f->c.reports = 0;
}

/* A raise on a disabled line waits for the enable that turns it on, and is delivered once. */
static void test_pending_delivered_at_enable(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct chip a = { 'a', IRQ_HANDLED, 0, 0, 0, 0, 0, order };

	assert_int_equal(request_irq(9, chip_irq, 0, "a", &a), 0);
	disable_irq(9);
	disable_irq_nosync(9);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 0);
	assert_int_equal(a.calls, 0);
	enable_irq(9);          /* still off: disables nest */
	assert_int_equal(a.calls, 0);
	enable_irq(9);
	assert_int_equal(a.calls, 1);
	assert_true(a.hardirq && a.irqs_off);
	assert_false(in_interrupt());
	assert_false(irqs_disabled());
	/* nothing left pending, the line is on */
	disable_irq(9);
	enable_irq(9);
	assert_int_equal(a.calls, 1);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 1);
	assert_int_equal(a.calls, 2);
	free_irq(9, &a);

	/* IRQF_NO_AUTOEN: requested off */
	assert_int_equal(request_irq(9, chip_irq, IRQF_NO_AUTOEN, "a", &a), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 0);
	assert_int_equal(a.calls, 2);
	enable_irq(9);
	assert_int_equal(a.calls, 3);
	free_irq(9, &a);
	assert_int_equal(f->c.reports, 0);

	/* one enable too many is reported */
	enable_irq(9);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "Unbalanced enable for IRQ 9"));
	f->c.reports = 0;
}

static int sleeper_line;

static irqreturn_t sleeper_irq(int irq, void *data)
{
	void *p;

	(void)irq;
	p = kmalloc(64, GFP_ATOMIC); /* fine */
	kfree(p);
	sleeper_line = __LINE__ + 1;
	p = kmalloc(64, GFP_KERNEL); /* may sleep: reported */
	kfree(p);
	*(int *)data += 1;
	return IRQ_HANDLED;
}

/* A handler that allocates with GFP_KERNEL is reported as sleeping in atomic context, at its line. */
static void test_handler_that_sleeps_is_reported(void **state)
{
	struct current_fx *f = *state;
	const struct captured *r;
	int calls = 0;

	assert_int_equal(request_irq(12, sleeper_irq, 0, "sleeper", &calls), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 12), 1);
	assert_int_equal(calls, 1);
	assert_int_equal(f->c.reports, 1);
	r = capture_find(&f->c, DMAMAP_REPORT_SLEEP_IN_ATOMIC);
	assert_non_null(r);
	assert_int_equal(r->line, sleeper_line);
	assert_non_null(strstr(r->message, "interrupts off"));
	assert_non_null(strstr(r->message, "irq 12"));
	f->c.reports = 0;

	/* the same allocation outside the handler is no report */
	kfree(kmalloc(64, GFP_KERNEL));
	free_irq(12, &calls);
	assert_int_equal(f->c.reports, 0);
}

/* An interrupt no handler claims is reported: "nobody cared". */
static void test_nobody_cared_is_reported(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct chip a = { 'a', IRQ_NONE, 0, 0, 0, 0, 0, order };

	assert_int_equal(dmamap_irq_raise(f->m, 3), 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "irq 3: nobody cared"));

	assert_int_equal(request_irq(3, chip_irq, 0, "a", &a), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 3), 0);
	assert_int_equal(a.calls, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(f->c.rec_last.message, "irq 3: nobody cared"));

	a.answer = IRQ_HANDLED;
	assert_int_equal(dmamap_irq_raise(f->m, 3), 1);
	assert_int_equal(f->c.reports, 2);
	free_irq(3, &a);
	f->c.reports = 0;
}

/* A free of a handler never requested is reported, and frees nothing. */
static void test_free_of_unknown_is_reported(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct chip a = { 'a', IRQ_HANDLED, 0, 0, 0, 0, 0, order }, b = a;

	assert_null(free_irq(4, &a));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "Trying to free already-free IRQ 4"));

	assert_int_equal(request_irq(4, chip_irq, IRQF_SHARED, "a", &a), 0);
	assert_null(free_irq(4, &b));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_int_equal(dmamap_irq_handlers(f->m, 4), 1);
	assert_ptr_equal(free_irq(4, &a), "a");
	assert_null(free_irq(4, &a));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	f->c.reports = 0;
}

static irqreturn_t self_freeing_irq(int irq, void *data)
{
	(void)free_irq((unsigned int)irq, data);
	return IRQ_HANDLED;
}

/* A handler that frees its own line (the kernel would wait for itself for ever) is reported; nothing is freed. */
static void test_free_from_own_handler_is_refused(void **state)
{
	struct current_fx *f = *state;
	int cookie = 0;

	assert_int_equal(request_irq(8, self_freeing_irq, 0, "self", &cookie), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 8), 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "freed from one of its own handlers"));
	assert_int_equal(dmamap_irq_handlers(f->m, 8), 1);
	f->c.reports = 0;
	assert_ptr_equal(free_irq(8, &cookie), "self");
	assert_int_equal(f->c.reports, 0);
}

/* A handler left requested is reported at machine destroy, where it was requested. */
static void test_left_requested_is_a_leak(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	char order[16] = "";
	struct chip a = { 'a', IRQ_HANDLED, 0, 0, 0, 0, 0, order };
	struct capture c;
	int line;

	(void)state;
	capture_start(&c, m);
	dmamap_machine_set_current(m);
	line = __LINE__ + 1;
	assert_int_equal(request_irq(2, chip_irq, 0, "left", &a), 0);
	dmamap_machine_destroy(m);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(c.rec[0].line, line);
	assert_non_null(strstr(c.rec[0].message, "left"));
	dmamap_machine_set_current(NULL);
}

/* ---------------------------------------------------------- a driver */

struct irqdrv {
	int calls;
	struct device *dev;
};

static irqreturn_t irqdrv_irq(int irq, void *data)
{
	struct irqdrv *d = data;

	(void)irq;
	d->calls++;
	return IRQ_HANDLED;
}

static int irqdrv_probe(struct platform_device *pdev)
{
	struct irqdrv *d = devm_kzalloc(&pdev->dev, sizeof(*d), GFP_KERNEL);
	int ret;

	if (!d)
		return -ENOMEM;
	d->dev = &pdev->dev;
	ret = platform_get_irq(pdev, 0);
	if (ret < 0)
		return ret;
	ret = devm_request_irq(&pdev->dev, (unsigned int)ret, irqdrv_irq, 0, dev_name(&pdev->dev), d);
	if (ret)
		return ret;
	platform_set_drvdata(pdev, d);
	return 0;
}

static struct platform_driver irqdrv_driver = {
	.probe = irqdrv_probe,
	.driver = { .name = "irqdrv" },
};

/*
 * devm_request_irq() of the line the device's resources name: the handler
 * goes when the driver unbinds; devm_free_irq() frees it before.
 */
static void test_devm_irq_goes_at_unbind(void **state)
{
	static const struct resource res[] = { DEFINE_RES_MEM(0x40000000, 0x100), DEFINE_RES_IRQ(11) };
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create_res(f->m, "irqdrv", 0, res, ARRAY_SIZE(res));
	struct irqdrv *d;

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_platform_bind(pdev, &irqdrv_driver), 0);
	d = platform_get_drvdata(pdev);
	assert_int_equal(dmamap_irq_handlers(f->m, 11), 1);
	assert_int_equal(dmamap_irq_raise(f->m, 11), 1);
	assert_int_equal(d->calls, 1);
	/* the line is the driver's alone */
	assert_int_equal(request_irq(11, irqdrv_irq, 0, "other", d), -EBUSY);

	dmamap_platform_unbind(pdev);
	assert_int_equal(dmamap_irq_handlers(f->m, 11), 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_irq_raise(f->m, 11), 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	f->c.reports = 0;

	/* bound again, then freed by hand: nothing left for the unbind */
	assert_int_equal(dmamap_platform_bind(pdev, &irqdrv_driver), 0);
	d = platform_get_drvdata(pdev);
	assert_int_equal(dmamap_devres_count(&pdev->dev), 2);
	devm_free_irq(&pdev->dev, 11, d);
	assert_int_equal(dmamap_irq_handlers(f->m, 11), 0);
	assert_int_equal(dmamap_devres_count(&pdev->dev), 1);
	/* a second free is reported */
	devm_free_irq(&pdev->dev, 11, d);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(f->c.rec_last.message, "devm_free_irq"));
	f->c.reports = 0;
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);

	/* a device with no interrupt resource: the probe fails with -ENXIO, logged */
	pdev = dmamap_platform_device_create_res(f->m, "irqdrv", 1, res, 1);
	assert_false(IS_ERR(pdev));
	f->c.messages = 0;
	assert_int_equal(dmamap_platform_bind(pdev, &irqdrv_driver), -ENXIO);
	assert_int_equal(dmamap_irq_handlers(f->m, 11), 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/* A driver of a device behind a slow bus: its interrupt is handled in a thread function, under a mutex. */
struct busdrv {
	struct mutex lock;
	int thread_calls;
};

static irqreturn_t busdrv_thread(int irq, void *data)
{
	struct busdrv *d = data;

	(void)irq;
	mutex_lock(&d->lock);
	d->thread_calls++;
	mutex_unlock(&d->lock);
	return IRQ_HANDLED;
}

static int busdrv_probe(struct platform_device *pdev)
{
	struct busdrv *d = devm_kzalloc(&pdev->dev, sizeof(*d), GFP_KERNEL);
	int irq, ret;

	if (!d)
		return -ENOMEM;
	mutex_init(&d->lock);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	ret = devm_request_threaded_irq(&pdev->dev, (unsigned int)irq, NULL, busdrv_thread, IRQF_ONESHOT, NULL, d);
	if (ret)
		return ret;
	platform_set_drvdata(pdev, d);
	return 0;
}

static struct platform_driver busdrv_driver = {
	.probe = busdrv_probe,
	.driver = { .name = "busdrv" },
};

/* devm_request_threaded_irq(): the handler and its thread function go when the driver unbinds. */
static void test_devm_threaded_irq_goes_at_unbind(void **state)
{
	static const struct resource res[] = { DEFINE_RES_IRQ(32) };
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create_res(f->m, "busdrv", 0, res, ARRAY_SIZE(res));
	struct busdrv *d;

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_platform_bind(pdev, &busdrv_driver), 0);
	d = platform_get_drvdata(pdev);
	assert_int_equal(dmamap_irq_handlers(f->m, 32), 1);
	assert_int_equal(dmamap_irq_raise(f->m, 32), 1);
	assert_int_equal(d->thread_calls, 1);
	assert_int_equal(f->c.reports, 0);

	dmamap_platform_unbind(pdev);
	assert_int_equal(dmamap_irq_handlers(f->m, 32), 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_irq_raise(f->m, 32), 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	f->c.reports = 0;

	/* bound again, then freed by hand */
	assert_int_equal(dmamap_platform_bind(pdev, &busdrv_driver), 0);
	d = platform_get_drvdata(pdev);
	devm_free_irq(&pdev->dev, 32, d);
	assert_int_equal(dmamap_irq_handlers(f->m, 32), 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/* ---------------------------------------------------------- threads */

struct slow {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool inside, go;
	int done;
};

static irqreturn_t slow_irq(int irq, void *data)
{
	struct slow *s = data;

	(void)irq;
	pthread_mutex_lock(&s->lock);
	s->inside = true;
	pthread_cond_broadcast(&s->cond);
	while (!s->go)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	usleep(20000);
	s->done++;
	return IRQ_HANDLED;
}

static void *raiser(void *arg)
{
	struct current_fx *f = arg;

	dmamap_irq_raise(f->m, 14);
	return NULL;
}

/* free_irq() waits for the handler running in another thread to return. */
static void test_free_waits_for_running_handler(void **state)
{
	struct current_fx *f = *state;
	struct slow s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0 };
	pthread_t t;

	assert_int_equal(request_irq(14, slow_irq, 0, "slow", &s), 0);
	assert_int_equal(pthread_create(&t, NULL, raiser, f), 0);
	pthread_mutex_lock(&s.lock);
	while (!s.inside)
		pthread_cond_wait(&s.cond, &s.lock);
	s.go = true;
	pthread_cond_broadcast(&s.cond);
	pthread_mutex_unlock(&s.lock);
	free_irq(14, &s);
	assert_int_equal(s.done, 1);
	pthread_join(t, NULL);
	assert_int_equal(f->c.reports, 0);
}

/* ---------------------------------------------------------- threaded handlers */

/* A threaded device: what its handler and its thread function answer, and what the thread function saw. */
struct tchip {
	char name;                    /* its handler's letter in the log; its thread function logs it in capitals */
	irqreturn_t answer, thread_answer;
	int calls, thread_calls;
	bool thread_hardirq, thread_irqs_off, thread_atomic;
	char *order;
};

static void log_char(char *order, char c)
{
	size_t n = strlen(order);

	order[n] = c;
	order[n + 1] = '\0';
}

static irqreturn_t tchip_irq(int irq, void *data)
{
	struct tchip *c = data;

	(void)irq;
	log_char(c->order, c->name);
	c->calls++;
	return c->answer;
}

static irqreturn_t tchip_thread(int irq, void *data)
{
	struct tchip *c = data;

	(void)irq;
	log_char(c->order, (char)(c->name - 'a' + 'A'));
	c->thread_calls++;
	c->thread_hardirq = in_interrupt() || in_hardirq() || in_irq() || !in_task();
	c->thread_irqs_off = irqs_disabled();
	c->thread_atomic = in_atomic();
	return c->thread_answer;
}

/* The thread function runs after a handler returns IRQ_WAKE_THREAD, in task context; not after IRQ_HANDLED. */
static void test_thread_runs_after_wake_only(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct tchip a = { 'a', IRQ_WAKE_THREAD, IRQ_HANDLED, 0, 0, true, true, true, order };

	assert_int_equal(request_threaded_irq(20, tchip_irq, tchip_thread, 0, "a", &a), 0);
	assert_int_equal(dmamap_irq_handlers(f->m, 20), 1);
	assert_int_equal(dmamap_irq_raise(f->m, 20), 1);
	assert_string_equal(order, "aA");
	assert_int_equal(a.thread_calls, 1);
	assert_false(a.thread_hardirq);
	assert_false(a.thread_irqs_off);
	assert_false(a.thread_atomic);
	assert_false(in_interrupt());
	assert_false(irqs_disabled());
	assert_int_equal(f->c.reports, 0);

	/* handled in the handler: no thread */
	a.answer = IRQ_HANDLED;
	order[0] = '\0';
	assert_int_equal(dmamap_irq_raise(f->m, 20), 1);
	assert_string_equal(order, "a");
	assert_int_equal(a.thread_calls, 1);
	assert_int_equal(f->c.reports, 0);

	/* not this device's: no thread, and nobody cared */
	a.answer = IRQ_NONE;
	assert_int_equal(dmamap_irq_raise(f->m, 20), 0);
	assert_int_equal(a.thread_calls, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	f->c.reports = 0;

	/* woken, but the thread function found nothing either: nobody cared */
	a.answer = IRQ_WAKE_THREAD;
	a.thread_answer = IRQ_NONE;
	assert_int_equal(dmamap_irq_raise(f->m, 20), 1);
	assert_int_equal(a.thread_calls, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(f->c.rec_last.message, "irq 20: nobody cared"));
	assert_non_null(strstr(f->c.rec_last.message, "thread function"));
	f->c.reports = 0;

	assert_ptr_equal(free_irq(20, &a), "a");
	assert_int_equal(dmamap_irq_handlers(f->m, 20), 0);
	assert_int_equal(f->c.reports, 0);
}

/* With no handler the default one wakes the thread; request_any_context_irq() is a hard interrupt handler. */
static void test_default_primary_handler(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct tchip d = { 'd', IRQ_NONE, IRQ_HANDLED, 0, 0, true, true, true, order };
	struct tchip e = { 'e', IRQ_HANDLED, IRQ_HANDLED, 0, 0, false, false, false, order };

	assert_int_equal(request_threaded_irq(21, NULL, tchip_thread, IRQF_ONESHOT, "d", &d), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 21), 1);
	assert_string_equal(order, "D");
	assert_int_equal(d.thread_calls, 1);
	assert_false(d.thread_hardirq || d.thread_irqs_off || d.thread_atomic);
	assert_int_equal(dmamap_irq_raise(f->m, 21), 1);
	assert_int_equal(d.thread_calls, 2);
	free_irq(21, &d);

	order[0] = '\0';
	assert_int_equal(request_any_context_irq(21, tchip_irq, 0, "e", &e), IRQC_IS_HARDIRQ);
	assert_int_equal(dmamap_irq_raise(f->m, 21), 1);
	assert_string_equal(order, "e");
	free_irq(21, &e);
	assert_int_equal(f->c.reports, 0);
}

/* What the kernel refuses is refused, reported, and leaves nothing on the line. */
static void test_threaded_requests_refused(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct tchip a = { 'a', IRQ_WAKE_THREAD, IRQ_HANDLED, 0, 0, false, false, false, order };
	struct tchip b = a;

	b.name = 'b';
	/* neither a handler nor a thread function */
	assert_int_equal(request_threaded_irq(22, NULL, NULL, IRQF_ONESHOT, "x", &a), -EINVAL);
	assert_int_equal(dmamap_irq_handlers(f->m, 22), 0);
	/* the default handler on a line left unmasked */
	assert_int_equal(request_threaded_irq(22, NULL, tchip_thread, 0, "x", &a), -EINVAL);
	assert_int_equal(dmamap_irq_handlers(f->m, 22), 0);
	assert_non_null(strstr(f->c.rec_last.message, "handler=NULL and !ONESHOT"));
	/* shared with no dev_id */
	assert_int_equal(request_threaded_irq(22, tchip_irq, tchip_thread, IRQF_SHARED, "x", NULL), -EINVAL);
	assert_int_equal(dmamap_irq_handlers(f->m, 22), 0);
	/* a line out of range */
	assert_int_equal(request_threaded_irq(DMAMAP_NR_IRQS, tchip_irq, tchip_thread, 0, "x", &a), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	assert_int_equal(f->c.reports, 4);
	f->c.reports = 0;

	/* a shared line agrees on IRQF_ONESHOT: -EBUSY otherwise, not reported */
	assert_int_equal(request_threaded_irq(22, tchip_irq, tchip_thread, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_threaded_irq(22, NULL, tchip_thread, IRQF_SHARED | IRQF_ONESHOT, "b", &b), -EBUSY);
	assert_int_equal(dmamap_irq_handlers(f->m, 22), 1);
	free_irq(22, &a);
	assert_int_equal(request_threaded_irq(22, NULL, tchip_thread, IRQF_SHARED | IRQF_ONESHOT, "b", &b), 0);
	assert_int_equal(request_threaded_irq(22, tchip_irq, tchip_thread, IRQF_SHARED, "a", &a), -EBUSY);
	/* IRQF_COND_ONESHOT agrees, and request_irq() says it */
	assert_int_equal(request_threaded_irq(22, tchip_irq, tchip_thread, IRQF_SHARED | IRQF_COND_ONESHOT, "a", &a), 0);
	free_irq(22, &a);
	assert_int_equal(request_irq(22, tchip_irq, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(dmamap_irq_handlers(f->m, 22), 2);
	free_irq(22, &a);
	free_irq(22, &b);
	/* but IRQF_COND_ONESHOT alone does not make a line oneshot */
	assert_int_equal(request_irq(22, tchip_irq, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_threaded_irq(22, NULL, tchip_thread, IRQF_SHARED | IRQF_ONESHOT, "b", &b), -EBUSY);
	free_irq(22, &a);
	assert_int_equal(f->c.reports, 0);
}

/* A device whose thread function raises its own line again, once, and remembers what that did. */
struct again {
	struct dmamap_machine *m;
	int irq_calls, thread_calls;
	bool raise, disable, enable;
	int raised;              /* what the raise from the thread function returned */
	int irq_calls_then;      /* the handler's calls right after it */
	int irq_calls_enabled;   /* and right after an enable_irq() that follows it */
};

static irqreturn_t again_irq(int irq, void *data)
{
	struct again *g = data;

	(void)irq;
	g->irq_calls++;
	return IRQ_WAKE_THREAD;
}

static irqreturn_t again_thread(int irq, void *data)
{
	struct again *g = data;

	g->thread_calls++;
	if (g->disable)
		disable_irq_nosync((unsigned int)irq);
	if (g->raise) {
		g->raise = false;
		g->raised = dmamap_irq_raise(g->m, (unsigned int)irq);
		g->irq_calls_then = g->irq_calls;
		if (g->enable)
			enable_irq((unsigned int)irq);
		g->irq_calls_enabled = g->irq_calls;
	}
	return IRQ_HANDLED;
}

/*
 * IRQF_ONESHOT: the line stays masked until the thread function returns; a
 * raise meanwhile is pending, delivered right after (after the enable, on
 * a line also turned off). Without it, the raise runs the handler at once
 * and the thread function, woken while it runs, runs once more after.
 */
static void test_oneshot_masks_until_thread_returns(void **state)
{
	struct current_fx *f = *state;
	struct again g = { f->m, 0, 0, true, false, false, -1, -1, -1 };

	assert_int_equal(request_threaded_irq(23, again_irq, again_thread, IRQF_ONESHOT, "g", &g), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 23), 1);
	assert_int_equal(g.raised, 0);
	assert_int_equal(g.irq_calls_then, 1);
	assert_int_equal(g.irq_calls, 2);
	assert_int_equal(g.thread_calls, 2);
	/* unmasked again */
	assert_int_equal(dmamap_irq_raise(f->m, 23), 1);
	assert_int_equal(g.irq_calls, 3);
	assert_int_equal(g.thread_calls, 3);

	/* masked and turned off: the enable delivers it */
	g.raise = g.disable = true;
	assert_int_equal(dmamap_irq_raise(f->m, 23), 1);
	g.disable = false;
	assert_int_equal(g.raised, 0);
	assert_int_equal(g.irq_calls, 4);
	assert_int_equal(g.thread_calls, 4);
	enable_irq(23);
	assert_int_equal(g.irq_calls, 5);
	assert_int_equal(g.thread_calls, 5);

	/* turned off, raised, turned on again from the thread function: still masked until it returns */
	g.raise = g.disable = g.enable = true;
	assert_int_equal(dmamap_irq_raise(f->m, 23), 1);
	g.disable = g.enable = false;
	assert_int_equal(g.raised, 0);
	assert_int_equal(g.irq_calls_enabled, 6);
	assert_int_equal(g.irq_calls, 7);
	assert_int_equal(g.thread_calls, 7);
	free_irq(23, &g);

	/* not oneshot: the handler runs at once, the thread function once more after it returns */
	g = (struct again){ f->m, 0, 0, true, false, false, -1, -1, -1 };
	assert_int_equal(request_threaded_irq(24, again_irq, again_thread, 0, "g", &g), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 24), 1);
	assert_int_equal(g.raised, 1);
	assert_int_equal(g.irq_calls_then, 2);
	assert_int_equal(g.irq_calls, 2);
	assert_int_equal(g.thread_calls, 2);
	free_irq(24, &g);
	assert_int_equal(f->c.reports, 0);
}

/* A shared line with a threaded and a plain handler: both handlers first, then the thread function. */
static void test_shared_threaded_and_plain(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct tchip a = { 'a', IRQ_WAKE_THREAD, IRQ_HANDLED, 0, 0, false, false, false, order };
	struct tchip b = { 'b', IRQ_HANDLED, IRQ_HANDLED, 0, 0, false, false, false, order };

	assert_int_equal(request_threaded_irq(25, tchip_irq, tchip_thread, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(25, tchip_irq, IRQF_SHARED, "b", &b), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 25), 2);
	assert_string_equal(order, "abA");
	assert_int_equal(b.thread_calls, 0);

	/* the plain one handled it: the thread function's IRQ_NONE is no matter */
	a.thread_answer = IRQ_NONE;
	assert_int_equal(dmamap_irq_raise(f->m, 25), 2);
	assert_int_equal(f->c.reports, 0);
	/* neither did */
	b.answer = IRQ_NONE;
	assert_int_equal(dmamap_irq_raise(f->m, 25), 1);
	assert_int_equal(a.thread_calls, 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "irq 25: nobody cared"));
	f->c.reports = 0;
	/* the thread function did */
	a.thread_answer = IRQ_HANDLED;
	assert_int_equal(dmamap_irq_raise(f->m, 25), 1);
	assert_int_equal(f->c.reports, 0);

	/* the plain one goes: the threaded one stays */
	free_irq(25, &b);
	order[0] = '\0';
	assert_int_equal(dmamap_irq_raise(f->m, 25), 1);
	assert_string_equal(order, "aA");
	free_irq(25, &a);
	assert_int_equal(f->c.reports, 0);
}

/* A handler that raises another line: that line's thread function runs once the outer handler has returned. */
static char nested_order[16];

static irqreturn_t nesting_irq(int irq, void *data)
{
	(void)irq;
	log_char(nested_order, 'x');
	assert_int_equal(dmamap_irq_raise(data, 27), 1);
	log_char(nested_order, 'z');
	return IRQ_HANDLED;
}

static void test_nested_raise_wakes_after_handler(void **state)
{
	struct current_fx *f = *state;
	struct tchip y = { 'y', IRQ_WAKE_THREAD, IRQ_HANDLED, 0, 0, true, true, true, nested_order };

	nested_order[0] = '\0';
	assert_int_equal(request_irq(26, nesting_irq, 0, "x", f->m), 0);
	assert_int_equal(request_threaded_irq(27, tchip_irq, tchip_thread, 0, "y", &y), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 26), 1);
	assert_string_equal(nested_order, "xyzY");
	assert_false(y.thread_hardirq || y.thread_irqs_off || y.thread_atomic);
	free_irq(26, f->m);
	free_irq(27, &y);
	assert_int_equal(f->c.reports, 0);
}

/*
 * Two threaded lines, the second raised from a handler of the first, after
 * the first's threaded handler woke its thread function: that runs first,
 * and waits for the second line (synchronize_irq()) or frees its handler,
 * which runs the second's thread function then, as the kernel's wait would
 * see it done.
 */
struct pair {
	struct dmamap_machine *m;
	char order[16];
	bool free_second;
	int raising;             /* the raising handler's dev_id */
};

static irqreturn_t pair_first_irq(int irq, void *data)
{
	(void)irq;
	log_char(((struct pair *)data)->order, 'x');
	return IRQ_WAKE_THREAD;
}

static irqreturn_t pair_raising_irq(int irq, void *data)
{
	struct pair *p = container_of((int *)data, struct pair, raising);

	(void)irq;
	log_char(p->order, 'w');
	assert_int_equal(dmamap_irq_raise(p->m, 34), 1);
	return IRQ_HANDLED;
}

static irqreturn_t pair_second_irq(int irq, void *data)
{
	(void)irq;
	log_char(((struct pair *)data)->order, 'y');
	return IRQ_WAKE_THREAD;
}

static irqreturn_t pair_first_thread(int irq, void *data)
{
	struct pair *p = data;

	(void)irq;
	log_char(p->order, 'X');
	if (p->free_second)
		assert_ptr_equal(free_irq(34, p), "second");
	else
		synchronize_irq(34);
	log_char(p->order, 'z');
	return IRQ_HANDLED;
}

static irqreturn_t pair_second_thread(int irq, void *data)
{
	(void)irq;
	log_char(((struct pair *)data)->order, 'Y');
	return IRQ_HANDLED;
}

static void test_wait_runs_thread_fn_queued_here(void **state)
{
	struct current_fx *f = *state;
	struct pair p = { f->m, "", false, 0 };

	assert_int_equal(request_threaded_irq(33, pair_first_irq, pair_first_thread, IRQF_SHARED, "first", &p), 0);
	assert_int_equal(request_irq(33, pair_raising_irq, IRQF_SHARED, "raising", &p.raising), 0);
	assert_int_equal(request_threaded_irq(34, pair_second_irq, pair_second_thread, 0, "second", &p), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 33), 2);
	assert_string_equal(p.order, "xwyXYz");

	p.order[0] = '\0';
	p.free_second = true;
	assert_int_equal(dmamap_irq_raise(f->m, 33), 2);
	assert_string_equal(p.order, "xwyXYz");
	assert_int_equal(dmamap_irq_handlers(f->m, 34), 0);
	free_irq(33, &p);
	free_irq(33, &p.raising);
	assert_int_equal(f->c.reports, 0);
}

/* A device whose handler and thread function sleep (when told to). */
struct sleepy {
	struct mutex lock;
	bool irq_sleeps;
	int irq_line;
	int thread_calls;
};

static irqreturn_t sleepy_irq(int irq, void *data)
{
	struct sleepy *s = data;

	(void)irq;
	s->irq_line = __LINE__ + 2;
	if (s->irq_sleeps)
		might_sleep();
	return IRQ_WAKE_THREAD;
}

static irqreturn_t sleepy_thread(int irq, void *data)
{
	struct sleepy *s = data;
	void *p;

	(void)irq;
	mutex_lock(&s->lock);
	might_sleep();
	msleep(1);
	p = kmalloc(64, GFP_KERNEL);
	kfree(p);
	s->thread_calls++;
	mutex_unlock(&s->lock);
	return IRQ_HANDLED;
}

/*
 * A thread function may sleep; the handler may not. The thread function is
 * a task of its own: the spinlock the raising thread holds is not its.
 */
static void test_thread_may_sleep_handler_may_not(void **state)
{
	struct current_fx *f = *state;
	struct sleepy s = { .irq_sleeps = false };
	const struct captured *r;
	DEFINE_SPINLOCK(held);

	mutex_init(&s.lock);
	assert_int_equal(request_threaded_irq(28, sleepy_irq, sleepy_thread, IRQF_ONESHOT, "sleepy", &s), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 28), 1);
	assert_int_equal(s.thread_calls, 1);
	assert_int_equal(f->c.reports, 0);

	s.irq_sleeps = true;
	assert_int_equal(dmamap_irq_raise(f->m, 28), 1);
	assert_int_equal(s.thread_calls, 2);
	assert_int_equal(f->c.reports, 1);
	r = capture_find(&f->c, DMAMAP_REPORT_SLEEP_IN_ATOMIC);
	assert_non_null(r);
	assert_int_equal(r->line, s.irq_line);
	assert_non_null(strstr(r->message, "irq 28"));
	f->c.reports = 0;

	/* raised under a spinlock: still no report from the thread function */
	s.irq_sleeps = false;
	spin_lock(&held);
	assert_int_equal(dmamap_irq_raise(f->m, 28), 1);
	assert_true(in_atomic());
	spin_unlock(&held);
	assert_int_equal(s.thread_calls, 3);
	assert_int_equal(f->c.reports, 0);
	free_irq(28, &s);
	mutex_destroy(&s.lock);
}

/* Two mutexes: the test holds the first while it raises; the thread function takes the second. */
struct ordered {
	struct mutex outer, inner;
	int thread_calls;
};

static irqreturn_t ordered_thread(int irq, void *data)
{
	struct ordered *o = data;

	(void)irq;
	mutex_lock(&o->inner);
	o->thread_calls++;
	mutex_unlock(&o->inner);
	return IRQ_HANDLED;
}

/* Lock order: a lock the thread function takes is not taken under those the raising thread holds. */
static void test_thread_fn_lock_order_is_its_own(void **state)
{
	struct current_fx *f = *state;
	struct ordered o = { .thread_calls = 0 };

	mutex_init(&o.outer);
	mutex_init(&o.inner);
	assert_int_equal(request_threaded_irq(35, NULL, ordered_thread, IRQF_ONESHOT, "ordered", &o), 0);
	mutex_lock(&o.outer);
	assert_int_equal(dmamap_irq_raise(f->m, 35), 1);
	mutex_unlock(&o.outer);
	assert_int_equal(o.thread_calls, 1);
	/* the other order elsewhere closes no cycle */
	mutex_lock(&o.inner);
	mutex_lock(&o.outer);
	mutex_unlock(&o.outer);
	mutex_unlock(&o.inner);
	assert_int_equal(f->c.reports, 0);
	free_irq(35, &o);
	mutex_destroy(&o.outer);
	mutex_destroy(&o.inner);
}

static int left_line;

static irqreturn_t leaves_lock_thread(int irq, void *data)
{
	(void)irq;
	left_line = __LINE__ + 1;
	spin_lock((spinlock_t *)data);
	return IRQ_HANDLED;
}

static irqreturn_t leaves_irqs_off_thread(int irq, void *data)
{
	unsigned long flags;

	(void)irq;
	(void)data;
	left_line = __LINE__ + 1;
	local_irq_save(flags);
	(void)flags;
	return IRQ_HANDLED;
}

/* A thread function that returns with a spinlock held or interrupts off is reported; the raiser is not affected. */
static void test_thread_returning_atomic_is_reported(void **state)
{
	struct current_fx *f = *state;
	char at[32];
	DEFINE_SPINLOCK(lk);

	assert_int_equal(request_threaded_irq(29, NULL, leaves_lock_thread, IRQF_ONESHOT, "leaves", &lk), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 29), 1);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "thread function of leaves returned with 1 lock held"));
	snprintf(at, sizeof(at), ":%d", left_line);
	assert_non_null(strstr(f->c.rec_last.message, at));
	assert_false(in_atomic());
	assert_true(spin_is_locked(&lk));
	spin_unlock(&lk);
	free_irq(29, &lk);
	f->c.reports = 0;

	assert_int_equal(request_threaded_irq(29, NULL, leaves_irqs_off_thread, IRQF_ONESHOT, "leaves", &lk), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 29), 1);
	assert_int_equal(f->c.reports, 1);
	assert_non_null(strstr(f->c.rec_last.message, "returned with interrupts off since local_irq_save()"));
	snprintf(at, sizeof(at), ":%d", left_line);
	assert_non_null(strstr(f->c.rec_last.message, at));
	assert_false(irqs_disabled());
	free_irq(29, &lk);
	f->c.reports = 0;
}

static irqreturn_t plain_irq(int irq, void *data)
{
	(void)irq;
	(void)data;
	return IRQ_HANDLED;
}

static int hard_left_line;

static irqreturn_t leaves_lock_irq(int irq, void *data)
{
	(void)irq;
	hard_left_line = __LINE__ + 1;
	spin_lock((spinlock_t *)data);
	return IRQ_HANDLED;
}

static irqreturn_t leaves_lock_irqsave_irq(int irq, void *data)
{
	unsigned long flags;

	(void)irq;
	hard_left_line = __LINE__ + 1;
	spin_lock_irqsave((spinlock_t *)data, flags);
	(void)flags;
	return IRQ_HANDLED;
}

static irqreturn_t leaves_irqs_off_irq(int irq, void *data)
{
	unsigned long flags;

	(void)irq;
	(void)data;
	local_irq_save(flags);
	(void)flags;
	return IRQ_HANDLED;
}

static irqreturn_t enables_irqs_irq(int irq, void *data)
{
	(void)irq;
	(void)data;
	local_irq_enable();
	return IRQ_HANDLED;
}

/*
 * A hard handler that returns with a spinlock it took still held is
 * reported, naming the handler and where it took the lock, as a thread
 * function is; the raiser gets its own state back (the lock stays locked),
 * and the handlers after it on the line run as the interrupted thread had
 * it. Interrupts a hard handler leaves off are not its fault: they are off
 * from its entry to its return, as in the kernel.
 */
static void test_handler_returning_with_lock_is_reported(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "", at[32];
	struct chip b = { 'b', IRQ_HANDLED, 0, 0, 0, 0, 0, order };
	unsigned long flags;
	DEFINE_SPINLOCK(lk);
	DEFINE_SPINLOCK(mine);

	assert_int_equal(request_irq(37, leaves_lock_irq, IRQF_SHARED, "leaves", &lk), 0);
	assert_int_equal(request_irq(37, chip_irq, IRQF_SHARED, "b", &b), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 37), 2);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_int_equal(f->c.rec_last.kind, DMAMAP_REPORT_LOCK_MISUSE);
	assert_non_null(strstr(f->c.rec_last.message, "irq 37 handler leaves returned with 1 lock held: 'lk'"));
	assert_non_null(strstr(f->c.rec_last.message, "taken by spin_lock() at "));
	snprintf(at, sizeof(at), ":%d", hard_left_line);
	assert_non_null(strstr(f->c.rec_last.message, at));
	/* the next handler ran as in any interrupt, and the raiser is a task again, free to sleep */
	assert_true(b.hardirq && b.irqs_off && b.atomic);
	assert_false(in_atomic());
	assert_false(irqs_disabled());
	might_sleep();
	assert_int_equal(f->c.reports, 1);
	assert_true(spin_is_locked(&lk));
	spin_unlock(&lk);
	assert_int_equal(f->c.reports, 1);
	free_irq(37, &lk);
	free_irq(37, &b);
	f->c.reports = 0;

	/* taken with spin_lock_irqsave() by a raiser that holds a lock of its own, interrupts off */
	assert_int_equal(request_irq(37, leaves_lock_irqsave_irq, 0, "leaves", &lk), 0);
	spin_lock_irqsave(&mine, flags);
	assert_int_equal(dmamap_irq_raise(f->m, 37), 1);
	assert_int_equal(f->c.reports, 1);
	assert_non_null(strstr(f->c.rec_last.message, "irq 37 handler leaves returned with 1 lock held: 'lk'"));
	assert_non_null(strstr(f->c.rec_last.message, "taken by spin_lock_irqsave() at "));
	snprintf(at, sizeof(at), ":%d", hard_left_line);
	assert_non_null(strstr(f->c.rec_last.message, at));
	assert_null(strstr(f->c.rec_last.message, "'mine'"));
	/* the raiser's own lock and interrupt state, as it had them */
	assert_true(in_atomic());
	assert_true(irqs_disabled());
	assert_true(spin_is_locked(&mine));
	spin_unlock_irqrestore(&mine, flags);
	assert_false(in_atomic());
	assert_false(irqs_disabled());
	spin_unlock(&lk);
	assert_int_equal(f->c.reports, 1);
	free_irq(37, &lk);
	f->c.reports = 0;

	/* interrupts left off by a hard handler: as they were at its entry, not reported; the raiser's back on */
	assert_int_equal(request_irq(37, leaves_irqs_off_irq, 0, "irqs-off", &lk), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 37), 1);
	assert_false(irqs_disabled());
	free_irq(37, &lk);
	assert_int_equal(f->c.reports, 0);

	/* turned on, they are: as the kernel warns; the raiser's own state back */
	assert_int_equal(request_irq(37, enables_irqs_irq, 0, "irqs-on", &lk), 0);
	local_irq_save(flags);
	assert_int_equal(dmamap_irq_raise(f->m, 37), 1);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.rec_last.kind, DMAMAP_REPORT_LOCK_MISUSE);
	assert_non_null(strstr(f->c.rec_last.message, "irq 37 handler irqs-on enabled interrupts"));
	assert_true(irqs_disabled());
	local_irq_restore(flags);
	assert_false(irqs_disabled());
	free_irq(37, &lk);
	f->c.reports = 0;
}

/*
 * IRQF_SHARED with IRQF_NO_AUTOEN is refused by each request call, as the
 * kernel refuses it (a sharer requesting the line while it is still off
 * would wait for its interrupts for ever): reported, nothing registered,
 * the line free for a later request.
 */
static void test_shared_no_autoen_refused(void **state)
{
	static const struct resource res[] = { DEFINE_RES_IRQ(36) };
	const unsigned long both = IRQF_SHARED | IRQF_NO_AUTOEN;
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create_res(f->m, "sharer", 0, res, ARRAY_SIZE(res));
	char order[16] = "";
	struct chip a = { 'a', IRQ_HANDLED, 0, 0, 0, 0, 0, order };
	unsigned long devres;

	assert_false(IS_ERR(pdev));
	devres = dmamap_devres_count(&pdev->dev);
	assert_int_equal(request_irq(36, chip_irq, both, "a", &a), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(f->c.rec_last.message, "request_irq: irq 36 (a): IRQF_SHARED with IRQF_NO_AUTOEN"));
	assert_int_equal(dmamap_irq_handlers(f->m, 36), 0);
	assert_int_equal(request_threaded_irq(36, chip_irq, plain_irq, both | IRQF_ONESHOT, "a", &a), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_non_null(strstr(f->c.rec_last.message, "request_threaded_irq: irq 36 (a): IRQF_SHARED with IRQF_NO_AUTOEN"));
	assert_int_equal(dmamap_irq_handlers(f->m, 36), 0);
	assert_int_equal(devm_request_irq(&pdev->dev, 36, chip_irq, both | IRQF_TRIGGER_HIGH, "a", &a), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_non_null(strstr(f->c.rec_last.message, "devm_request_irq: irq 36 (a): IRQF_SHARED with IRQF_NO_AUTOEN"));
	assert_int_equal(devm_request_threaded_irq(&pdev->dev, 36, NULL, plain_irq, both | IRQF_ONESHOT, NULL, &a),
			 -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	assert_non_null(strstr(f->c.rec_last.message, "devm_request_threaded_irq: irq 36 (sharer.0): IRQF_SHARED with"));
	assert_string_equal(f->c.rec_last.device, "sharer.0");
	assert_int_equal(f->c.reports, 4);
	/* nothing registered: no handler, no managed record, a raise finds nobody */
	assert_int_equal(dmamap_irq_handlers(f->m, 36), 0);
	assert_int_equal(dmamap_devres_count(&pdev->dev), devres);
	assert_int_equal(dmamap_irq_raise(f->m, 36), 0);
	assert_int_equal(a.calls, 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "irq 36: nobody cared (no handler is requested on the line)"));
	f->c.reports = 0;

	/* the line is free: an exclusive request takes it, enabled */
	assert_int_equal(request_irq(36, chip_irq, 0, "a", &a), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 36), 1);
	assert_string_equal(order, "a");
	assert_ptr_equal(free_irq(36, &a), "a");
	/* each flag alone is fine */
	assert_int_equal(request_irq(36, chip_irq, IRQF_SHARED, "a", &a), 0);
	assert_ptr_equal(free_irq(36, &a), "a");
	assert_int_equal(request_irq(36, chip_irq, IRQF_NO_AUTOEN, "a", &a), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 36), 0);
	enable_irq(36);
	assert_int_equal(a.calls, 2);
	assert_ptr_equal(free_irq(36, &a), "a");
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

static irqreturn_t self_waiting_thread(int irq, void *data)
{
	unsigned int other = *(unsigned int *)data;

	assert_null(free_irq((unsigned int)irq, data));
	synchronize_irq((unsigned int)irq);
	disable_irq((unsigned int)irq);
	enable_irq((unsigned int)irq);
	if (other)
		assert_ptr_equal(free_irq(other, data), "other");
	return IRQ_HANDLED;
}

/*
 * A thread function that frees its own line is refused (the kernel's
 * free_irq() waits for the line's threads: for itself); one that waits for
 * its own line is reported. Another line it may free.
 */
static void test_free_from_thread_fn(void **state)
{
	struct current_fx *f = *state;
	unsigned int other = 0;

	assert_int_equal(request_threaded_irq(30, NULL, self_waiting_thread, IRQF_ONESHOT, "self", &other), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 30), 1);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 3);
	assert_non_null(strstr(f->c.rec[0].message, "free_irq: irq 30 freed from one of its own thread functions"));
	assert_non_null(strstr(f->c.rec[1].message, "synchronize_irq: irq 30 from one of its own thread functions"));
	assert_non_null(strstr(f->c.rec[2].message, "disable_irq: irq 30 from one of its own thread functions"));
	assert_int_equal(dmamap_irq_handlers(f->m, 30), 1);
	f->c.reports = 0;

	/* another line it frees */
	other = 31;
	assert_int_equal(request_irq(31, plain_irq, 0, "other", &other), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 30), 1);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(dmamap_irq_handlers(f->m, 31), 0);
	f->c.reports = 0;
	assert_ptr_equal(free_irq(30, &other), "self");
	assert_int_equal(f->c.reports, 0);
}

static irqreturn_t wake_irq(int irq, void *data)
{
	(void)irq;
	(void)data;
	return IRQ_WAKE_THREAD;
}

static void *raiser_of(void *arg)
{
	struct current_fx *f = arg;

	dmamap_irq_raise(f->m, 15);
	return NULL;
}

/* Wait until the thread function of @s is inside, then let it go. */
static void slow_let_go(struct slow *s)
{
	pthread_mutex_lock(&s->lock);
	while (!s->inside)
		pthread_cond_wait(&s->cond, &s->lock);
	s->go = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* synchronize_irq() and free_irq() wait for the thread function running in another thread. */
static void test_free_waits_for_running_thread_fn(void **state)
{
	struct current_fx *f = *state;
	struct slow s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0 };
	pthread_t t;

	assert_int_equal(request_threaded_irq(15, wake_irq, slow_irq, 0, "slow", &s), 0);
	assert_int_equal(pthread_create(&t, NULL, raiser_of, f), 0);
	slow_let_go(&s);
	synchronize_irq(15);
	assert_int_equal(s.done, 1);
	pthread_join(t, NULL);

	s.inside = s.go = false;
	assert_int_equal(pthread_create(&t, NULL, raiser_of, f), 0);
	slow_let_go(&s);
	assert_ptr_equal(free_irq(15, &s), "slow");
	assert_int_equal(s.done, 2);
	pthread_join(t, NULL);
	assert_int_equal(f->c.reports, 0);
}

/* A raise from another thread while a oneshot thread function runs is pending: its thread delivers it after. */
static void test_oneshot_raise_from_other_thread(void **state)
{
	struct current_fx *f = *state;
	struct slow s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0 };
	pthread_t t;

	assert_int_equal(request_threaded_irq(15, NULL, slow_irq, IRQF_ONESHOT, "slow", &s), 0);
	assert_int_equal(pthread_create(&t, NULL, raiser_of, f), 0);
	pthread_mutex_lock(&s.lock);
	while (!s.inside)
		pthread_cond_wait(&s.cond, &s.lock);
	pthread_mutex_unlock(&s.lock);
	/* masked: nothing runs here */
	assert_int_equal(dmamap_irq_raise(f->m, 15), 0);
	assert_int_equal(s.done, 0);
	slow_let_go(&s);
	pthread_join(t, NULL);
	/* the raiser's thread ran it twice: the pending raise after the first */
	assert_int_equal(s.done, 2);
	free_irq(15, &s);
	assert_int_equal(f->c.reports, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handlers_in_order_and_counted, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_line_is_busy, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_pending_delivered_at_enable, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_handler_that_sleeps_is_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_nobody_cared_is_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_of_unknown_is_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_from_own_handler_is_refused, current_fx_setup, current_fx_teardown),
		cmocka_unit_test(test_left_requested_is_a_leak),
		cmocka_unit_test_setup_teardown(test_devm_irq_goes_at_unbind, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_waits_for_running_handler, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_runs_after_wake_only, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_default_primary_handler, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_threaded_requests_refused, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_oneshot_masks_until_thread_returns, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_shared_threaded_and_plain, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_nested_raise_wakes_after_handler, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_wait_runs_thread_fn_queued_here, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_may_sleep_handler_may_not, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_fn_lock_order_is_its_own, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_returning_atomic_is_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_handler_returning_with_lock_is_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_shared_no_autoen_refused, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_from_thread_fn, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_threaded_irq_goes_at_unbind, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_waits_for_running_thread_fn, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_oneshot_raise_from_other_thread, current_fx_setup, current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
