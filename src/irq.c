/* SPDX-License-Identifier: MIT */
/*
 * Interrupt lines (<dmamap/irq.h>): per machine, a list of the lines used so
 * far, each with its handlers in request order, its disable depth, whether a
 * raise is pending, and how many threads run its handlers now. One host
 * mutex per machine guards them all; it is never held while a handler runs.
 * A handler's record is freed only once no thread runs the line's handlers,
 * so a raise may walk the list with the mutex let go around each call.
 */
#include <stdio.h>

#include "internal.h"

struct dm_irq_action {
	struct dm_irq_action *next;
	irq_handler_t handler;
	void *dev_id;
	const char *name;
	unsigned long flags;
	struct device *managed; /* the device of a devm_request_irq(), or NULL */
	const char *file;       /* where it was requested */
	int line;
};

struct dm_irq_line {
	struct dm_irq_line *next;
	unsigned int irq;
	unsigned int depth;    /* disables not yet undone */
	bool pending;          /* raised while off */
	unsigned int running;  /* threads running its handlers now */
	struct dm_irq_action *actions;
};

struct dm_irqs {
	pthread_mutex_t lock;
	pthread_cond_t idle;   /* broadcast when a line's running count drops */
	struct dm_irq_line *lines;
};

/* The lines this thread runs the handlers of, innermost last: synchronizing on one of them must not wait. */
#define DM_IRQ_NEST 16
static _Thread_local const struct dm_irq_line *irq_running[DM_IRQ_NEST];
static _Thread_local unsigned int irq_nest;

static struct dmamap_machine *machine_or_current(struct dmamap_machine *m)
{
	return m ? m : dmamap_machine_current();
}

/* @m's interrupt state, made on first use; NULL when memory cannot be had. */
static struct dm_irqs *irqs_of(struct dmamap_machine *m)
{
	struct dm_irqs *s;

	pthread_mutex_lock(&m->obj_lock);
	s = m->layer[DMAMAP_LAYER_IRQ];
	if (!s) {
		s = dmamap_zalloc(m, sizeof(*s));
		if (s) {
			pthread_mutex_init(&s->lock, NULL);
			pthread_cond_init(&s->idle, NULL);
			m->layer[DMAMAP_LAYER_IRQ] = s;
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return s;
}

/* The line @irq of @s, made when @make (NULL when it is not, or memory lacks). Called under s->lock. */
static struct dm_irq_line *line_of(struct dmamap_machine *m, struct dm_irqs *s, unsigned int irq, bool make)
{
	struct dm_irq_line *l;

	for (l = s->lines; l; l = l->next)
		if (l->irq == irq)
			return l;
	if (!make)
		return NULL;
	l = dmamap_zalloc(m, sizeof(*l));
	if (l) {
		l->irq = irq;
		l->next = s->lines;
		s->lines = l;
	}
	return l;
}

static bool irq_ok(struct dmamap_machine *m, unsigned int irq, const char *what, const char *file, int line)
{
	if (irq < DMAMAP_NR_IRQS)
		return true;
	dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s: irq %u out of range (the machine has %u)",
		      what, irq, DMAMAP_NR_IRQS);
	return false;
}

/* Wait, under s->lock, until no other thread runs @l's handlers. */
static void wait_idle(struct dm_irqs *s, struct dm_irq_line *l)
{
	unsigned int mine = 0;

	for (unsigned int i = 0; i < irq_nest && i < DM_IRQ_NEST; i++)
		mine += irq_running[i] == l;
	while (l->running > mine)
		pthread_cond_wait(&s->idle, &s->lock);
}

/* ------------------------------------------------------------ requests */

static int request(struct dmamap_machine *m, unsigned int irq, irq_handler_t handler, unsigned long flags,
		   const char *name, void *dev_id, struct device *managed, struct dm_irq_action **out,
		   const char *what, const char *file, int line)
{
	struct dm_irq_action *a, **pp;
	struct dm_irq_line *l;
	struct dm_irqs *s;

	if (!m)
		return -ENOMEM;
	if (!irq_ok(m, irq, what, file, line))
		return -EINVAL;
	if (!handler || ((flags & DMAMAP_IRQF_SHARED) && !dev_id)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, managed ? managed->dmamap.name : NULL, file, line,
			      "%s: irq %u: %s", what, irq,
			      !handler ? "NULL handler" : "IRQF_SHARED with a NULL dev_id");
		return -EINVAL;
	}
	s = irqs_of(m);
	a = s ? dmamap_zalloc(m, sizeof(*a)) : NULL;
	if (!a)
		return -ENOMEM;
	a->handler = handler;
	a->dev_id = dev_id;
	a->name = name;
	a->flags = flags;
	a->managed = managed;
	a->file = file;
	a->line = line;

	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, true);
	if (!l) {
		pthread_mutex_unlock(&s->lock);
		dmamap_free(a);
		return -ENOMEM;
	}
	if (l->actions && (!(flags & DMAMAP_IRQF_SHARED) || !(l->actions->flags & DMAMAP_IRQF_SHARED))) {
		pthread_mutex_unlock(&s->lock);
		dmamap_free(a);
		return -EBUSY;
	}
	if (!l->actions) {
		l->depth = (flags & DMAMAP_IRQF_NO_AUTOEN) ? 1 : 0;
		l->pending = false;
	}
	for (pp = &l->actions; *pp; pp = &(*pp)->next)
		;
	*pp = a;
	pthread_mutex_unlock(&s->lock);
	if (out)
		*out = a;
	return 0;
}

DMAMAP_API int dmamap_request_irq_at(struct dmamap_machine *m, unsigned int irq, irq_handler_t handler,
				     unsigned long flags, const char *name, void *dev_id, const char *file, int line)
{
	return request(machine_or_current(m), irq, handler, flags, name, dev_id, NULL, NULL, "request_irq", file,
		       line);
}

/* Whether this thread runs the handlers of @l now. */
static bool running_here(const struct dm_irq_line *l)
{
	for (unsigned int i = 0; i < irq_nest && i < DM_IRQ_NEST; i++)
		if (irq_running[i] == l)
			return true;
	return false;
}

/*
 * Take the handler of @dev_id (and, when @managed, of that device) off line
 * @irq, once no other thread runs the line's handlers: the record, or NULL.
 * From a handler of that line, nothing is taken (the kernel would wait for
 * itself for ever): NULL, *@own set.
 */
static struct dm_irq_action *unlink_action(struct dmamap_machine *m, unsigned int irq, void *dev_id,
					   bool only_managed, struct device *managed, bool *own)
{
	struct dm_irqs *s = m->layer[DMAMAP_LAYER_IRQ];
	struct dm_irq_action *a = NULL, **pp;
	struct dm_irq_line *l;

	*own = false;
	if (!s)
		return NULL;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	if (l && running_here(l)) {
		pthread_mutex_unlock(&s->lock);
		*own = true;
		return NULL;
	}
	for (pp = l ? &l->actions : NULL; pp && *pp; pp = &(*pp)->next) {
		if ((*pp)->dev_id == dev_id && (!only_managed || (*pp)->managed == managed)) {
			a = *pp;
			*pp = a->next;
			break;
		}
	}
	if (a)
		wait_idle(s, l);
	pthread_mutex_unlock(&s->lock);
	return a;
}

/* The managed record's release: free the handler as free_irq() would. */
static void devm_irq_release(void *data)
{
	struct dm_irq_action *a = data;
	struct dmamap_machine *m = dm_dev_machine(a->managed);
	struct dm_irqs *s = m->layer[DMAMAP_LAYER_IRQ];
	struct dm_irq_action **pp;
	struct dm_irq_line *l;
	bool found = false;

	pthread_mutex_lock(&s->lock);
	for (l = s->lines; l && !found; l = l->next) {
		for (pp = &l->actions; *pp; pp = &(*pp)->next) {
			if (*pp == a) {
				*pp = a->next;
				wait_idle(s, l);
				found = true;
				break;
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	dmamap_free(a);
}

DMAMAP_API const void *dmamap_free_irq_at(struct dmamap_machine *m, unsigned int irq, void *dev_id, const char *file,
					  int line)
{
	struct dm_irq_action *a;
	const char *name;
	bool own;

	m = machine_or_current(m);
	if (!m || !irq_ok(m, irq, "free_irq", file, line))
		return NULL;
	a = unlink_action(m, irq, dev_id, false, NULL, &own);
	if (own) {
		dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "free_irq: irq %u freed from one of its own handlers: the kernel would wait for the handler "
			      "for ever; nothing freed", irq);
		return NULL;
	}
	if (!a) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, file, line, "free_irq: Trying to free already-free IRQ %u",
			      irq);
		return NULL;
	}
	name = a->name;
	if (a->managed) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, a->managed->dmamap.name, file, line,
			      "free_irq: irq %u was requested with devm_request_irq() at %s:%d: devm_free_irq() frees it",
			      irq, a->file ? a->file : "?", a->line);
		devm_remove_action(a->managed, devm_irq_release, a);
	}
	dmamap_free(a);
	return name;
}

DMAMAP_API int dmamap_devm_request_irq_at(struct device *dev, unsigned int irq, irq_handler_t handler,
					  unsigned long flags, const char *name, void *dev_id, const char *file, int line)
{
	struct dmamap_machine *m;
	struct dm_irq_action *a;
	int ret;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "devm_request_irq: %s",
			      dev ? "device not initialised" : "NULL device");
		return -EINVAL;
	}
	m = dm_dev_machine(dev);
	ret = request(m, irq, handler, flags, name ? name : dev->dmamap.name, dev_id, dev, &a, "devm_request_irq",
		      file, line);
	if (ret)
		return ret;
	ret = dmamap_devm_add_action(dev, devm_irq_release, a, false, file, line);
	if (ret) {
		devm_irq_release(a);
		return ret;
	}
	return 0;
}

DMAMAP_API void dmamap_devm_free_irq_at(struct device *dev, unsigned int irq, void *dev_id, const char *file,
					int line)
{
	struct dmamap_machine *m;
	struct dm_irq_action *a;
	bool own;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "devm_free_irq: %s",
			      dev ? "device not initialised" : "NULL device");
		return;
	}
	m = dm_dev_machine(dev);
	if (!irq_ok(m, irq, "devm_free_irq", file, line))
		return;
	a = unlink_action(m, irq, dev_id, true, dev, &own);
	if (own) {
		dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, dev->dmamap.name, file, line,
			      "devm_free_irq: irq %u freed from one of its own handlers: the kernel would wait for the "
			      "handler for ever; nothing freed", irq);
		return;
	}
	if (!a) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, file, line,
			      "devm_free_irq: the device requested no irq %u with this dev_id", irq);
		return;
	}
	devm_remove_action(dev, devm_irq_release, a);
	dmamap_free(a);
}

/* ------------------------------------------------------------ delivery */

/*
 * Run the handlers of @l in this thread, in hard interrupt context. Called
 * under s->lock with l->running already counted for this thread; returns
 * under it, the count dropped, with *@claimed false when no handler
 * claimed the interrupt.
 */
static int deliver(struct dmamap_machine *m, struct dm_irqs *s, struct dm_irq_line *l, bool *claimed_out)
{
	unsigned int irq = l->irq, outer, call_depth;
	unsigned long flags;
	int handled = 0, claimed = 0;

	if (irq_nest < DM_IRQ_NEST)
		irq_running[irq_nest] = l;
	irq_nest++;
	/* the handlers are the driver's code, whatever library call delivers to them */
	call_depth = dmamap_call_now.depth;
	dmamap_call_now.depth = 0;
	flags = dmamap_local_irq_save_at("the interrupt", NULL, 0);
	outer = dm_hardirq_enter(irq);
	for (struct dm_irq_action *a = l->actions; a; a = a->next) {
		irq_handler_t fn = a->handler;
		void *dev_id = a->dev_id;
		irqreturn_t ret;

		pthread_mutex_unlock(&s->lock);
		ret = fn((int)irq, dev_id);
		if (!dmamap_irqs_disabled()) {
			dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, a->managed ? a->managed->dmamap.name : NULL, NULL, 0,
				      "irq %u handler %s enabled interrupts", irq, a->name ? a->name : "(unnamed)");
			(void)dmamap_local_irq_save_at("the interrupt", NULL, 0);
		}
		if (ret & IRQ_WAKE_THREAD)
			dmamap_report(m, DMAMAP_REPORT_API_MISUSE, a->managed ? a->managed->dmamap.name : NULL, NULL, 0,
				      "irq %u handler %s returned IRQ_WAKE_THREAD but no thread function available", irq,
				      a->name ? a->name : "(unnamed)");
		if (ret & (IRQ_HANDLED | IRQ_WAKE_THREAD))
			handled++;
		claimed |= (int)ret;
		pthread_mutex_lock(&s->lock);
	}
	dm_hardirq_exit(outer);
	dmamap_local_irq_restore(flags);
	dmamap_call_now.depth = call_depth;
	irq_nest--;
	l->running--;
	pthread_cond_broadcast(&s->idle);
	*claimed_out = claimed != 0;
	return handled;
}

/* The kernel's "nobody cared", for an interrupt of line @irq that no handler claimed. */
static void nobody_cared(struct dmamap_machine *m, unsigned int irq, bool had_handlers)
{
	dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0, "irq %u: nobody cared (%s)", irq,
		      had_handlers ? "every handler returned IRQ_NONE" : "no handler is requested on the line");
}

DMAMAP_API int dmamap_irq_raise(struct dmamap_machine *m, unsigned int irq)
{
	struct dm_irq_line *l;
	struct dm_irqs *s;
	bool claimed;
	int n;

	m = machine_or_current(m);
	if (!m)
		return -ENOMEM;
	if (!irq_ok(m, irq, "dmamap_irq_raise", NULL, 0))
		return -EINVAL;
	s = irqs_of(m);
	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	if (l && l->actions && l->depth) {
		l->pending = true;
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	if (!l || !l->actions) {
		pthread_mutex_unlock(&s->lock);
		nobody_cared(m, irq, false);
		return 0;
	}
	l->running++;
	n = deliver(m, s, l, &claimed);
	pthread_mutex_unlock(&s->lock);
	if (!claimed)
		nobody_cared(m, irq, true);
	return n;
}

DMAMAP_API void dmamap_irq_disable_at(struct dmamap_machine *m, unsigned int irq, bool sync, const char *file,
				      int line)
{
	struct dm_irq_line *l;
	struct dm_irqs *s;

	m = machine_or_current(m);
	if (!m || !irq_ok(m, irq, sync ? "disable_irq" : "disable_irq_nosync", file, line))
		return;
	if (sync)
		dm_might_sleep(m, "disable_irq", file, line);
	s = irqs_of(m);
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, true);
	if (l) {
		l->depth++;
		if (sync)
			wait_idle(s, l);
	}
	pthread_mutex_unlock(&s->lock);
}

DMAMAP_API void dmamap_irq_enable_at(struct dmamap_machine *m, unsigned int irq, const char *file, int line)
{
	struct dm_irq_line *l;
	struct dm_irqs *s;
	bool claimed = true;

	m = machine_or_current(m);
	if (!m || !irq_ok(m, irq, "enable_irq", file, line))
		return;
	s = irqs_of(m);
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	if (!l || !l->depth) {
		pthread_mutex_unlock(&s->lock);
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, file, line, "enable_irq: Unbalanced enable for IRQ %u",
			      irq);
		return;
	}
	if (!--l->depth && l->pending && l->actions) {
		l->pending = false;
		l->running++;
		(void)deliver(m, s, l, &claimed);
	}
	pthread_mutex_unlock(&s->lock);
	if (!claimed)
		nobody_cared(m, irq, true);
}

DMAMAP_API void dmamap_irq_synchronize_at(struct dmamap_machine *m, unsigned int irq, const char *file, int line)
{
	struct dm_irq_line *l;
	struct dm_irqs *s;

	m = machine_or_current(m);
	if (!m || !irq_ok(m, irq, "synchronize_irq", file, line))
		return;
	dm_might_sleep(m, "synchronize_irq", file, line);
	s = m->layer[DMAMAP_LAYER_IRQ];
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	if (l)
		wait_idle(s, l);
	pthread_mutex_unlock(&s->lock);
}

DMAMAP_API unsigned int dmamap_irq_handlers(struct dmamap_machine *m, unsigned int irq)
{
	struct dm_irq_line *l;
	struct dm_irqs *s;
	unsigned int n = 0;

	m = machine_or_current(m);
	if (!m || irq >= DMAMAP_NR_IRQS)
		return 0;
	s = m->layer[DMAMAP_LAYER_IRQ];
	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	for (struct dm_irq_action *a = l ? l->actions : NULL; a; a = a->next)
		n++;
	pthread_mutex_unlock(&s->lock);
	return n;
}

void dmamap_irq_machine_fini(struct dmamap_machine *m)
{
	struct dm_irqs *s = m->layer[DMAMAP_LAYER_IRQ];

	if (!s)
		return;
	m->layer[DMAMAP_LAYER_IRQ] = NULL;
	while (s->lines) {
		struct dm_irq_line *l = s->lines;

		s->lines = l->next;
		while (l->actions) {
			struct dm_irq_action *a = l->actions;

			l->actions = a->next;
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, a->file, a->line,
				      "irq %u: handler %s still requested at machine destroy; freeing it", l->irq,
				      a->name ? a->name : "(unnamed)");
			dmamap_free(a);
		}
		dmamap_free(l);
	}
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->lock);
	dmamap_free(s);
}
