/* SPDX-License-Identifier: MIT */
/*
 * Interrupt handlers of <linux/interrupt.h>, raised with dmamap_irq_raise():
 * the handlers of a line run in request order in hard interrupt context and
 * the raise counts who handled it; a line is shared only when every
 * request says so; a disabled line delivers its pending interrupt at the
 * enable; a handler that sleeps is reported; a managed handler goes at
 * unbind; an interrupt nobody handles, a free of a line not requested, a
 * handler that frees its own line and a handler left at machine destroy
 * are reported.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
