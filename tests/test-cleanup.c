/* SPDX-License-Identifier: MIT */
/*
 * The scope-based forms of <linux/cleanup.h> as drivers of Linux 6.5 and
 * later write them: guard() and scoped_guard() of the spinlocks and the
 * mutex, seen by the lock checker as the explicit calls (held in the scope,
 * let go at its exit however it is left, a sleep under a guarded spinlock
 * reported at the sleep's line); __free() of kmalloc, kvmalloc and vmalloc
 * memory and of device-tree references, no_free_ptr() and return_ptr();
 * the scoped child-node walks, which leave no reference behind when left
 * early, where the plain walk left by a break leaks one (reported at unbind).
 */
#include <linux/cleanup.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/preempt.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include <pthread.h>

#include "common.h"
#include "of-ports.h"

/* ------------------------------------------------------------- helpers */

/* What another thread finds: whether it could take the lock (then let go at once). */
struct prober {
	spinlock_t *spin;
	raw_spinlock_t *raw;
	struct mutex *mutex;
	int got;
};

static void *prober_thread(void *arg)
{
	struct prober *p = arg;

	if (p->spin) {
		p->got = spin_trylock(p->spin);
		if (p->got)
			spin_unlock(p->spin);
	} else if (p->raw) {
		p->got = raw_spin_trylock(p->raw);
		if (p->got)
			raw_spin_unlock(p->raw);
	} else {
		p->got = mutex_trylock(p->mutex);
		if (p->got)
			mutex_unlock(p->mutex);
	}
	return NULL;
}

/* Whether a thread other than the caller can take the lock now. */
static bool free_elsewhere(spinlock_t *spin, raw_spinlock_t *raw, struct mutex *mutex)
{
	struct prober p = { spin, raw, mutex, 0 };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, prober_thread, &p), 0);
	pthread_join(t, NULL);
	return p.got;
}

#define SPIN_FREE(l) free_elsewhere((l), NULL, NULL)
#define RAW_FREE(l) free_elsewhere(NULL, (l), NULL)
#define MUTEX_FREE(m) free_elsewhere(NULL, NULL, (m))

/* A thread that holds @lock until told to let go. */
struct holder {
	spinlock_t *lock;
	struct mutex *mutex;
	int taken, release;
};

static void *holder_thread(void *arg)
{
	struct holder *h = arg;

	if (h->lock)
		spin_lock(h->lock);
	else
		mutex_lock(h->mutex);
	__atomic_store_n(&h->taken, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		udelay(20);
	if (h->lock)
		spin_unlock(h->lock);
	else
		mutex_unlock(h->mutex);
	return NULL;
}

static void holder_start(struct holder *h, pthread_t *t)
{
	assert_int_equal(pthread_create(t, NULL, holder_thread, h), 0);
	while (!__atomic_load_n(&h->taken, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void holder_stop(struct holder *h, pthread_t t)
{
	__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

/* The one report expected: @kind, at @line of this file, its message saying @words; then forgotten. */
static void assert_one_report(struct current_fx *f, enum dmamap_report_kind kind, int line, const char *words)
{
	if (f->c.reports != 1)
		fail_msg("%lu reports, expected one (last: %s)", f->c.reports, f->c.last);
	assert_int_equal(f->c.rec[0].kind, kind);
	assert_string_equal(f->c.rec[0].file, __FILE__);
	assert_int_equal(f->c.rec[0].line, line);
	if (words && !strstr(f->c.rec[0].message, words))
		fail_msg("the report says \"%s\", not \"%s\"", f->c.rec[0].message, words);
	capture_start(&f->c, f->m);
}

/* ---------------------------------------------------------------- guards */

static void test_guard_holds_to_the_end_of_the_scope(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	raw_spinlock_t r;
	struct mutex m;

	spin_lock_init(&l);
	raw_spin_lock_init(&r);
	mutex_init(&m);
	{
		guard(spinlock)(&l);
		assert_true(spin_is_locked(&l));
		assert_false(SPIN_FREE(&l));
		assert_true(in_atomic());
		assert_false(irqs_disabled());
	}
	assert_false(spin_is_locked(&l));
	assert_true(SPIN_FREE(&l));
	assert_false(in_atomic());
	{
		guard(spinlock_irqsave)(&l);
		assert_false(SPIN_FREE(&l));
		assert_true(irqs_disabled());
	}
	assert_true(SPIN_FREE(&l));
	assert_false(irqs_disabled());
	{
		guard(spinlock_irq)(&l);
		assert_false(SPIN_FREE(&l));
		assert_true(irqs_disabled());
	}
	assert_false(irqs_disabled());
	{
		guard(spinlock_bh)(&l);
		assert_false(SPIN_FREE(&l));
		assert_true(in_softirq());
	}
	assert_false(in_softirq());
	assert_true(SPIN_FREE(&l));
	{
		guard(raw_spinlock_irqsave)(&r);
		assert_true(raw_spin_is_locked(&r));
		assert_false(RAW_FREE(&r));
		assert_true(irqs_disabled());
	}
	assert_true(RAW_FREE(&r));
	assert_false(irqs_disabled());
	{
		guard(mutex)(&m);
		assert_true(mutex_is_locked(&m));
		assert_false(MUTEX_FREE(&m));
		assert_false(in_atomic());
		msleep(1); /* a mutex's holder may sleep */
	}
	assert_false(mutex_is_locked(&m));
	assert_true(MUTEX_FREE(&m));
	/* an irqsave guard inside code that had interrupts off already leaves them off */
	{
		unsigned long flags;

		local_irq_save(flags);
		{
			guard(spinlock_irqsave)(&l);
			assert_true(irqs_disabled());
		}
		assert_true(irqs_disabled());
		local_irq_restore(flags);
	}
	assert_false(irqs_disabled());
	assert_int_equal(f->c.reports, 0);
}

/* A guarded spinlock is one held: a sleep in its scope is reported at the sleep's line, naming the guard's. */
static void test_sleep_under_a_guard_is_reported(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	char taken[300];
	int line, at;

	spin_lock_init(&l);
	{
		guard(spinlock)(&l); at = __LINE__;
		msleep(1); line = __LINE__;
		snprintf(taken, sizeof(taken), "at %s:%d", __FILE__, at);
		assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 1);
		assert_non_null(strstr(f->c.rec[0].message, taken));
		assert_one_report(f, DMAMAP_REPORT_SLEEP_IN_ATOMIC, line, "msleep()");
	}
	/* out of the scope the thread may sleep again */
	msleep(1);
	scoped_guard(spinlock_irqsave, &l) {
		might_sleep(); line = __LINE__;
		assert_one_report(f, DMAMAP_REPORT_SLEEP_IN_ATOMIC, line, "might_sleep()");
	}
	might_sleep();
	assert_int_equal(f->c.reports, 0);
}

/* The unlock at the scope's exit names the guard's line: an unlock by hand in the scope leaves it one too many. */
static void test_guard_release_names_the_guard_line(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	struct mutex m;
	int line;

	spin_lock_init(&l);
	mutex_init(&m);
	{
		guard(spinlock)(&l); line = __LINE__;
		spin_unlock(&l);
	}
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "not held");
	{
		guard(mutex)(&m); line = __LINE__;
		mutex_unlock(&m);
	}
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "not held");
	assert_true(SPIN_FREE(&l));
	assert_true(MUTEX_FREE(&m));
}

/* Two guards taken in both orders: the lock order report names the second guard's line. */
static void test_guard_order_checked(void **state)
{
	struct current_fx *f = *state;
	spinlock_t a, b;
	int line;

	spin_lock_init(&a);
	spin_lock_init(&b);
	{
		guard(spinlock)(&a);
		guard(spinlock)(&b);
	}
	assert_int_equal(f->c.reports, 0);
	{
		guard(spinlock)(&b);
		guard(spinlock)(&a); line = __LINE__;
	}
	assert_one_report(f, DMAMAP_REPORT_LOCK_ORDER, line, "circular");
	assert_true(SPIN_FREE(&a));
	assert_true(SPIN_FREE(&b));
}

struct priv {
	spinlock_t lock;
	struct mutex mutex;
	int count;
};

/* A function that returns from the middle of a guarded scope, or of a scoped_guard(). */
static int bump(struct priv *p, int how)
{
	if (how == 0) {
		guard(mutex)(&p->mutex);
		if (p->count > 0)
			return -EBUSY;
		p->count++;
		return 0;
	}
	scoped_guard(spinlock_irqsave, &p->lock) {
		if (p->count > 0)
			return -EBUSY;
		p->count++;
	}
	return 0;
}

static void *guarded_thread(void *arg)
{
	struct priv *p = arg;

	guard(spinlock)(&p->lock);
	p->count++;
	return NULL;
}

/* However the scope is left (its end, return, break), the lock is let go and nothing is reported. */
static void test_scope_left_early_releases(void **state)
{
	struct current_fx *f = *state;
	struct priv p = { .count = 0 };
	pthread_t t;
	int i, n = 0;

	spin_lock_init(&p.lock);
	mutex_init(&p.mutex);
	assert_int_equal(bump(&p, 0), 0);
	assert_int_equal(bump(&p, 0), -EBUSY);
	assert_true(MUTEX_FREE(&p.mutex));
	assert_int_equal(bump(&p, 1), -EBUSY);
	assert_true(SPIN_FREE(&p.lock));
	assert_false(irqs_disabled());
	p.count = 0;
	assert_int_equal(bump(&p, 1), 0);
	assert_true(SPIN_FREE(&p.lock));

	/* a break leaves the scoped_guard, not the loop around it */
	for (i = 0; i < 3; i++) {
		scoped_guard(mutex, &p.mutex) {
			assert_false(MUTEX_FREE(&p.mutex));
			if (i == 1)
				break;
			n++;
		}
		assert_true(MUTEX_FREE(&p.mutex));
	}
	assert_int_equal(i, 3);
	assert_int_equal(n, 2);
	/* the statement runs once */
	n = 0;
	scoped_guard(spinlock, &p.lock)
		n++;
	assert_int_equal(n, 1);
	assert_true(SPIN_FREE(&p.lock));

	/* a thread whose start routine returns from a guarded scope ends holding nothing */
	assert_int_equal(pthread_create(&t, NULL, guarded_thread, &p), 0);
	pthread_join(t, NULL);
	assert_int_equal(p.count, 2);
	assert_true(SPIN_FREE(&p.lock));
	assert_int_equal(f->c.reports, 0);
}

/* An interrupt handler that takes its lock with a guard, or by hand and leaves it held when @p->count is 2. */
static irqreturn_t guarded_irq(int irq, void *arg)
{
	struct priv *p = arg;

	(void)irq;
	if (p->count == 2) {
		spin_lock(&p->lock);
		return IRQ_HANDLED;
	}
	guard(spinlock)(&p->lock);
	p->count++;
	return IRQ_HANDLED;
}

/* A handler returning from a guarded scope returns with no lock held; one that keeps it is reported. */
static void test_handler_returns_from_a_guard(void **state)
{
	struct current_fx *f = *state;
	struct priv p = { .count = 0 };

	spin_lock_init(&p.lock);
	assert_int_equal(request_irq(41, guarded_irq, 0, "guarded", &p), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 41), 1);
	assert_int_equal(dmamap_irq_raise(f->m, 41), 1);
	assert_int_equal(p.count, 2);
	assert_true(SPIN_FREE(&p.lock));
	assert_int_equal(f->c.reports, 0);
	/* the same handler keeping the lock: "returned with 1 lock held" */
	assert_int_equal(dmamap_irq_raise(f->m, 41), 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "returned with 1 lock held"));
	spin_unlock(&p.lock);
	free_irq(41, &p);
	capture_start(&f->c, f->m);
}

static int cond_guarded(struct mutex *m)
{
	scoped_cond_guard(mutex_intr, return -EINTR, m) {
		assert_false(MUTEX_FREE(m));
		return 1;
	}
	return 0;
}

/* The _try guards: the statement runs holding the lock when it was free, is skipped when it was not. */
static void test_try_guards(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	struct mutex m;
	struct holder h = { 0 };
	pthread_t t;
	int ran = 0;

	spin_lock_init(&l);
	mutex_init(&m);
	scoped_guard(spinlock_try, &l) {
		assert_false(SPIN_FREE(&l));
		ran++;
	}
	scoped_guard(spinlock_irqsave_try, &l) {
		assert_true(irqs_disabled());
		ran++;
	}
	scoped_guard(mutex_try, &m) {
		assert_false(MUTEX_FREE(&m));
		ran++;
	}
	assert_int_equal(ran, 3);
	assert_true(SPIN_FREE(&l));
	assert_true(MUTEX_FREE(&m));
	assert_false(irqs_disabled());

	h.lock = &l;
	holder_start(&h, &t);
	scoped_guard(spinlock_try, &l)
		ran++;
	scoped_guard(spinlock_irqsave_try, &l)
		ran++;
	assert_false(irqs_disabled()); /* a failed _irqsave trylock leaves interrupts as they were */
	holder_stop(&h, t);
	memset(&h, 0, sizeof(h));
	h.mutex = &m;
	holder_start(&h, &t);
	scoped_guard(mutex_try, &m)
		ran++;
	holder_stop(&h, t);
	assert_int_equal(ran, 3);

	/* mutex_intr: never interrupted here, the statement runs */
	assert_int_equal(cond_guarded(&m), 1);
	assert_true(MUTEX_FREE(&m));
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------- __free() */

static unsigned long kmalloc_live(struct current_fx *f)
{
	struct dmamap_kmalloc_stats st;

	dmamap_kmalloc_stats(f->m, &st);
	return st.live_objects;
}

static void *made(size_t size)
{
	void *buf __free(kfree) = kzalloc(size, GFP_KERNEL);

	if (!buf)
		return NULL;
	return_ptr(buf);
}

static int made_then_failed(size_t size)
{
	void *buf __free(kfree) = kzalloc(size, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	return -EIO; /* freed on the way out */
}

static void test_free_kfree(void **state)
{
	struct current_fx *f = *state;
	unsigned long live = kmalloc_live(f);
	void *kept;

	{
		void *buf __free(kfree) = kmalloc(64, GFP_KERNEL);

		assert_non_null(buf);
		assert_int_equal(kmalloc_live(f), live + 1);
	}
	assert_int_equal(kmalloc_live(f), live);
	assert_int_equal(made_then_failed(32), -EIO);
	assert_int_equal(kmalloc_live(f), live);

	/* no_free_ptr(): the caller owns it, the variable is left NULL */
	{
		u8 *buf __free(kfree) = kmalloc(64, GFP_KERNEL);

		kept = no_free_ptr(buf);
		assert_null(buf);
	}
	assert_int_equal(kmalloc_live(f), live + 1);
	kfree(kept);
	assert_int_equal(kmalloc_live(f), live);

	/* return_ptr(): returned, not freed */
	kept = made(128);
	assert_non_null(kept);
	assert_int_equal(kmalloc_live(f), live + 1);
	kfree(kept);
	assert_int_equal(kmalloc_live(f), live);

	/* NULL and an error pointer are left alone */
	{
		void *none __free(kfree) = NULL;
		void *err __free(kfree) = ERR_PTR(-ENOMEM);

		(void)none;
		(void)err;
	}
	assert_int_equal(f->c.reports, 0);
}

static void test_free_kvfree_vfree(void **state)
{
	struct current_fx *f = *state;
	struct dmamap_vmalloc_stats vs;
	unsigned long live = kmalloc_live(f), areas;

	dmamap_vmalloc_stats(f->m, &vs);
	areas = vs.live_areas;
	{
		void *a __free(kvfree) = kvmalloc(256, GFP_KERNEL);
		void *v __free(vfree) = vmalloc(3 * PAGE_SIZE);

		assert_non_null(a);
		assert_non_null(v);
		assert_int_equal(kmalloc_live(f), live + 1);
		dmamap_vmalloc_stats(f->m, &vs);
		assert_int_equal(vs.live_areas, areas + 1);
	}
	assert_int_equal(kmalloc_live(f), live);
	dmamap_vmalloc_stats(f->m, &vs);
	assert_int_equal(vs.live_areas, areas);
	{
		void *v __free(vfree) = NULL;

		(void)v;
	}
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------ device-tree references */

static const struct property_entry props[] = {
	PROPERTY_ENTRY_STRING("compatible", "acme,dma"),
	{ }
};

/* A platform device of @f's machine with children port@0, port@1 (disabled) and port@2. */
static struct platform_device *with_ports(struct current_fx *f, struct device_node **ports)
{
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "acme-dma", 0);

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "dma-controller@10000000", props), 0);
	add_ports(pdev->dev.of_node, ports);
	return pdev;
}

/* How the probe below walks the children, and what it found. */
static struct {
	enum { PLAIN_BREAK, SCOPED_BREAK, SCOPED_RETURN, SCOPED_ALL, AVAILABLE_BREAK, DEVICE_BREAK, FWNODE_RETURN,
	       FREE_NODE, FREE_NODE_KEPT } how;
	int line;
	u32 found;
} walk;

/* The reg of @dev's first child with reg @want, by a scoped walk left by return. */
static int find_port(struct device *dev, u32 want)
{
	for_each_child_of_node_scoped(dev->of_node, child) {
		u32 reg;

		if (!of_property_read_u32(child, "reg", &reg) && reg == want)
			return (int)reg;
	}
	return -ENODEV;
}

static int fwnode_find_port(struct fwnode_handle *parent, u32 want)
{
	fwnode_for_each_available_child_node_scoped(parent, child) {
		u32 reg;

		if (!fwnode_property_read_u32(child, "reg", &reg) && reg == want)
			return (int)reg;
	}
	return -ENODEV;
}

static struct device_node *kept_node;

static int ports_probe(struct platform_device *pdev)
{
	struct device_node *np = pdev->dev.of_node, *plain;
	u32 reg = 0;

	walk.found = 99;
	switch (walk.how) {
	case PLAIN_BREAK:
		walk.line = __LINE__ + 1;
		for_each_child_of_node(np, plain)
			if (!of_property_read_u32(plain, "reg", &reg) && reg == 1)
				break;
		walk.found = reg;
		break;
	case SCOPED_BREAK:
		for_each_child_of_node_scoped(np, child)
			if (!of_property_read_u32(child, "reg", &reg) && reg == 1)
				break;
		walk.found = reg;
		break;
	case SCOPED_RETURN:
		walk.found = (u32)find_port(&pdev->dev, 1);
		break;
	case SCOPED_ALL:
		for_each_child_of_node_scoped(np, child)
			reg++;
		walk.found = reg;
		break;
	case AVAILABLE_BREAK:
		for_each_available_child_of_node_scoped(np, child)
			if (!of_property_read_u32(child, "reg", &reg) && reg == 2)
				break;
		walk.found = reg;
		break;
	case DEVICE_BREAK:
		device_for_each_child_node_scoped(&pdev->dev, child)
			if (!fwnode_property_read_u32(child, "reg", &reg))
				break;
		walk.found = reg;
		break;
	case FWNODE_RETURN:
		walk.found = (u32)fwnode_find_port(dev_fwnode(&pdev->dev), 2);
		break;
	case FREE_NODE: {
		struct device_node *port __free(device_node) = of_get_child_by_name(np, "port");

		if (port && !of_property_read_u32(port, "reg", &reg))
			walk.found = reg;
		break;
	}
	case FREE_NODE_KEPT: {
		struct device_node *port __free(device_node) = NULL;

		walk.line = __LINE__ + 1;
		port = of_get_child_by_name(np, "port");
		kept_node = no_free_ptr(port);
		walk.found = 0;
		break;
	}
	}
	return 0;
}

static struct platform_driver ports_driver = {
	.probe = ports_probe,
	.driver = { .name = "acme-dma" },
};

/* Bind the driver to walk as @how, then unbind: it found @found, and @leaks references were reported left. */
static void bind_walk(struct current_fx *f, struct platform_device *pdev, int how, u32 found, unsigned long leaks)
{
	unsigned long before = f->c.by_kind[DMAMAP_REPORT_LEAK];

	walk.how = how;
	assert_int_equal(dmamap_platform_bind(pdev, &ports_driver), 0);
	assert_int_equal(walk.found, found);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK] - before, leaks);
	if (leaks) {
		assert_int_equal(f->c.rec_last.line, walk.line);
		assert_non_null(strstr(f->c.rec_last.message, "never put"));
	}
}

/* The scoped walks give back the child's reference however they are left; the plain walk left by break does not. */
static void test_scoped_walks_leave_no_reference(void **state)
{
	struct current_fx *f = *state;
	struct device_node *ports[3];
	struct platform_device *pdev = with_ports(f, ports);

	bind_walk(f, pdev, PLAIN_BREAK, 1, 1);
	assert_non_null(strstr(f->c.rec_last.message, "port@1"));
	bind_walk(f, pdev, SCOPED_BREAK, 1, 0);
	bind_walk(f, pdev, SCOPED_RETURN, 1, 0);
	bind_walk(f, pdev, SCOPED_ALL, 3, 0);
	bind_walk(f, pdev, AVAILABLE_BREAK, 2, 0);
	bind_walk(f, pdev, DEVICE_BREAK, 0, 0);
	bind_walk(f, pdev, FWNODE_RETURN, 2, 0);
	bind_walk(f, pdev, FREE_NODE, 0, 0);
	/* no_free_ptr() keeps the reference: the probe's own to give back */
	bind_walk(f, pdev, FREE_NODE_KEPT, 0, 1);
	assert_ptr_equal(kept_node, ports[0]);
	assert_int_equal(f->c.reports, 2);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 2);
	capture_start(&f->c, f->m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_guard_holds_to_the_end_of_the_scope, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_under_a_guard_is_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_guard_release_names_the_guard_line, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_guard_order_checked, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_scope_left_early_releases, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_handler_returns_from_a_guard, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_try_guards, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_kfree, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_kvfree_vfree, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_scoped_walks_leave_no_reference, current_fx_setup,
						current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
