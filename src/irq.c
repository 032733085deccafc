/* SPDX-License-Identifier: MIT */
/*
 * Interrupt lines (<dmamap/irq.h>): per machine, a list of the lines used so
 * far, each with its handlers in request order, its disable depth, whether a
 * raise is pending, how many threads run its handlers now, and how many of
 * its thread functions are woken and not done (how many of those keep the
 * line masked, IRQF_ONESHOT). One host mutex per machine guards them all;
 * it is never held while a handler or a thread function runs. A handler's
 * record is freed only once no thread runs the line's handlers and its
 * thread function is not woken, so a raise may walk the list with the
 * mutex let go around each call.
 *
 * Thread functions. A handler that returns IRQ_WAKE_THREAD wakes its
 * action's thread function: the action is queued (once: a wake of one
 * already queued or running is the kernel's IRQTF_RUNTHREAD seen set, and
 * one that runs now runs once more) in a frame of the thread that raised
 * the line. Each delivery made outside hard interrupt context opens a
 * frame, on this thread's stack; a delivery nested in a handler queues in
 * the frame of the one it is nested in. Once its hard handlers are done and
 * the thread is out of hard interrupt context, the delivery runs its
 * frame's thread functions, each as a task of its own (dm_run_as_task()),
 * as if each action's interrupt thread ran at once; the tasklets the
 * handlers scheduled run before them (dm_softirq_irq_exit()). A wait for a line's
 * thread functions (free_irq(), synchronize_irq(), disable_irq()) runs
 * first those of the line queued in the waiting thread's own frames, which
 * it could not wait for, then waits for the others.
 */
#include <stdio.h>

#include "internal.h"

struct dm_irqs;
struct dm_irq_line;

struct dm_irq_action {
	struct dm_irq_action *next;
	irq_handler_t handler;
	irq_handler_t thread_fn;  /* its thread function, or NULL */
	void *dev_id;
	const char *name;
	unsigned long flags;      /* as requested, IRQF_ONESHOT added for IRQF_COND_ONESHOT on a oneshot line */
	struct dm_irq_line *on;   /* its line */
	struct device *managed;   /* the device of a devm_request_irq(), or NULL */
	const char *file;         /* where it was requested */
	int line;
	/* its thread function, under the machine's lock */
	bool woken;               /* a run is queued or under way, in one thread, until it is done */
	bool in_fn;               /* the thread function runs now */
	bool again;               /* woken again while it ran: it runs once more */
	struct dm_irq_action *queue_next; /* in the frame of the thread that will run it */
};

struct dm_irq_line {
	struct dm_irq_line *next;
	struct dmamap_machine *m;
	struct dm_irqs *s;
	unsigned int irq;
	unsigned int depth;    /* disables not yet undone */
	bool pending;          /* raised while off or masked */
	unsigned int running;  /* threads running its handlers now */
	unsigned int threads;  /* actions whose thread function is woken and not done */
	unsigned int oneshot;  /* of those, the IRQF_ONESHOT ones: the line is masked while there is one */
	struct dm_irq_action *actions;
};

struct dm_irqs {
	pthread_mutex_t lock;
	pthread_cond_t idle;   /* broadcast when a line's running or threads count drops */
	struct dm_irq_line *lines;
};

/*
 * The handlers (and thread functions) this thread runs now, innermost
 * last: synchronizing on one of their lines must not wait for them.
 */
#define DM_IRQ_NEST 16
struct dm_irq_run {
	const struct dm_irq_line *l;
	bool thread;           /* a thread function, not a handler */
};
static _Thread_local struct dm_irq_run irq_running[DM_IRQ_NEST];
static _Thread_local unsigned int irq_nest;

/* The thread functions a delivery woke, for this thread to run once out of hard interrupt context. */
struct dm_irq_frame {
	struct dm_irq_frame *outer;
	struct dm_irq_action *head, **tail;
	bool handled;          /* a thread function taken from it returned IRQ_HANDLED */
};
static _Thread_local struct dm_irq_frame *irq_frame;

/* What a delivery came to. */
struct dm_irq_outcome {
	bool claimed;          /* a handler or thread function handled it (or its judgement is deferred) */
	bool woke;             /* it woke a thread function */
};

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
		l->m = m;
		l->s = s;
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

static const char *action_name(const struct dm_irq_action *a)
{
	return a->name ? a->name : "(unnamed)";
}

static const char *action_dev(const struct dm_irq_action *a)
{
	return a->managed ? a->managed->dmamap.name : NULL;
}

static void run_push(const struct dm_irq_line *l, bool thread)
{
	if (irq_nest < DM_IRQ_NEST)
		irq_running[irq_nest] = (struct dm_irq_run){ l, thread };
	irq_nest++;
}

static void run_pop(void)
{
	irq_nest--;
}

/* Whether this thread runs a handler or a thread function of @l now (only a thread function when @thread). */
static bool running_here(const struct dm_irq_line *l, bool thread)
{
	for (unsigned int i = 0; i < irq_nest && i < DM_IRQ_NEST; i++)
		if (irq_running[i].l == l && (irq_running[i].thread || !thread))
			return true;
	return false;
}

/* Wait, under s->lock, until no other thread runs @l's handlers or has a thread function of it woken. */
static void wait_idle(struct dm_irqs *s, struct dm_irq_line *l)
{
	unsigned int hard = 0, threads = 0;

	for (unsigned int i = 0; i < irq_nest && i < DM_IRQ_NEST; i++)
		if (irq_running[i].l == l)
			*(irq_running[i].thread ? &threads : &hard) += 1;
	for (const struct dm_irq_frame *f = irq_frame; f; f = f->outer)
		for (const struct dm_irq_action *a = f->head; a; a = a->queue_next)
			threads += a->on == l;
	while (l->running > hard || l->threads > threads)
		pthread_cond_wait(&s->idle, &s->lock);
}

/* Take the first thread function of @l queued in this thread's frames out of its frame: it, and *@from its frame; or NULL. */
static struct dm_irq_action *frame_take(const struct dm_irq_line *l, struct dm_irq_frame **from)
{
	for (struct dm_irq_frame *f = irq_frame; f; f = f->outer) {
		for (struct dm_irq_action **pp = &f->head; *pp; pp = &(*pp)->queue_next) {
			struct dm_irq_action *a = *pp;

			if (a->on == l) {
				*pp = a->queue_next;
				if (!*pp)
					f->tail = pp;
				*from = f;
				return a;
			}
		}
	}
	return NULL;
}

/* Whether the raise pending on @l is to be delivered now: the line is on, unmasked, and has handlers. */
static bool deliverable(const struct dm_irq_line *l)
{
	return l->pending && !l->depth && !l->oneshot && l->actions;
}

/* The kernel's "nobody cared", for an interrupt of line @irq that no handler claimed. */
static void nobody_cared(struct dmamap_machine *m, unsigned int irq, const char *why)
{
	dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0, "irq %u: nobody cared (%s)", irq, why);
}

static void nobody_cared_after(struct dmamap_machine *m, unsigned int irq, const struct dm_irq_outcome *o)
{
	if (!o->claimed)
		nobody_cared(m, irq, o->woke ? "each thread function woken returned IRQ_NONE"
					     : "every handler returned IRQ_NONE");
}

static int deliver(struct dm_irqs *s, struct dm_irq_line *l, struct dm_irq_outcome *out);

/* Deliver the raise pending on @l if it now can be (s->lock held, let go meanwhile). */
static void settle(struct dm_irqs *s, struct dm_irq_line *l, struct dm_irq_outcome *out)
{
	*out = (struct dm_irq_outcome){ true, false };
	if (deliverable(l)) {
		l->pending = false;
		l->running++;
		(void)deliver(s, l, out);
	}
}

/* ------------------------------------------------------------ thread functions */

/* The primary handler of a thread function requested with none: it wakes the thread, as the kernel's default one. */
static irqreturn_t default_primary(int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	return IRQ_WAKE_THREAD;
}

/*
 * A handler of @a returned IRQ_WAKE_THREAD (s->lock held): queue a run of
 * its thread function in this thread's frame. Whether it was queued; false
 * when it was woken already (a run queued elsewhere will do; one under way
 * runs once more).
 */
static bool wake_thread(struct dm_irq_action *a)
{
	struct dm_irq_line *l = a->on;

	if (a->woken) {
		if (a->in_fn)
			a->again = true;
		return false;
	}
	a->woken = true;
	a->again = false;
	l->threads++;
	if (a->flags & DMAMAP_IRQF_ONESHOT)
		l->oneshot++;
	a->queue_next = NULL;
	*irq_frame->tail = a;
	irq_frame->tail = &a->queue_next;
	return true;
}

struct thread_call {
	irq_handler_t fn;
	int irq;
	void *dev_id;
	irqreturn_t ret;
};

static void thread_call(void *arg)
{
	struct thread_call *c = arg;

	c->ret = c->fn(c->irq, c->dev_id);
}

/*
 * Run the thread function of @a, woken and out of any frame, until it is
 * not woken again (s->lock held, let go around each call); then it is done,
 * and may be freed once s->lock is let go. Whether a run returned
 * IRQ_HANDLED.
 */
static bool thread_run(struct dm_irqs *s, struct dm_irq_action *a)
{
	struct dm_irq_line *l = a->on;
	int call_depth = dmamap_call_now.depth;
	bool handled = false;

	do {
		struct thread_call c = { a->thread_fn, (int)l->irq, a->dev_id, IRQ_NONE };
		char left[600];

		a->again = false;
		a->in_fn = true;
		run_push(l, true);
		pthread_mutex_unlock(&s->lock);
		/* the thread function is the driver's code, whatever library call runs it */
		dmamap_call_now.depth = 0;
		dm_run_as_task(thread_call, &c, left, sizeof(left));
		if (left[0])
			dmamap_report(l->m, DMAMAP_REPORT_LOCK_MISUSE, action_dev(a), NULL, 0,
				      "irq %u thread function of %s returned with %s", l->irq, action_name(a), left);
		dmamap_call_now.depth = call_depth;
		pthread_mutex_lock(&s->lock);
		run_pop();
		a->in_fn = false;
		handled |= c.ret == IRQ_HANDLED;
	} while (a->again);
	a->woken = false;
	l->threads--;
	if (a->flags & DMAMAP_IRQF_ONESHOT)
		l->oneshot--;
	pthread_cond_broadcast(&s->idle);
	return handled;
}

/*
 * Run the thread functions queued in @f, in the order they were woken (no
 * machine lock held). A line a oneshot thread function kept masked
 * delivers its pending raise once the last is done. Whether one returned
 * IRQ_HANDLED.
 */
static bool frame_run(struct dm_irq_frame *f)
{
	struct dm_irq_action *a;

	while ((a = f->head)) {
		struct dm_irq_line *l = a->on;
		struct dm_irqs *s = l->s;
		struct dm_irq_outcome o;

		f->head = a->queue_next;
		if (!f->head)
			f->tail = &f->head;
		pthread_mutex_lock(&s->lock);
		if (thread_run(s, a))
			f->handled = true;
		settle(s, l, &o);
		pthread_mutex_unlock(&s->lock);
		nobody_cared_after(l->m, l->irq, &o);
	}
	return f->handled;
}

/*
 * Run now the thread functions of @l this thread has queued (s->lock held,
 * let go meanwhile): a wait for the line's thread functions, which the
 * kernel's free_irq(), synchronize_irq() and disable_irq() make, could not
 * wait for them.
 */
static void run_queued(struct dm_irqs *s, struct dm_irq_line *l)
{
	struct dm_irq_frame *f;
	struct dm_irq_action *a;

	while ((a = frame_take(l, &f)))
		if (thread_run(s, a))
			f->handled = true;
}

/* ------------------------------------------------------------ requests */

/* A request, as the calls give it. */
struct irq_request {
	irq_handler_t handler;
	irq_handler_t thread_fn;
	unsigned long flags;
	const char *name;
	void *dev_id;
	struct device *managed;
	const char *what;      /* the kernel call, for reports */
	bool threaded;         /* a request_threaded_irq() form */
};

static void report_bad(struct dmamap_machine *m, unsigned int irq, const struct irq_request *r, const char *why,
		       const char *file, int line)
{
	dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, r->managed ? r->managed->dmamap.name : NULL, file, line,
		      "%s: irq %u (%s): %s", r->what, irq, r->name ? r->name : "(unnamed)", why);
}

static int request(struct dmamap_machine *m, unsigned int irq, const struct irq_request *r, struct dm_irq_action **out,
		   const char *file, int line)
{
	unsigned long flags = r->flags;
	struct dm_irq_action *a, **pp;
	const char *bad = NULL;
	struct dm_irq_line *l;
	struct dm_irqs *s;

	if (!m)
		return -ENOMEM;
	if (!irq_ok(m, irq, r->what, file, line))
		return -EINVAL;
	if ((flags & DMAMAP_IRQF_SHARED) && !r->dev_id)
		bad = "IRQF_SHARED with a NULL dev_id";
	/* a sharer requesting the line while it is still off would wait for its interrupts for ever */
	else if ((flags & DMAMAP_IRQF_SHARED) && (flags & DMAMAP_IRQF_NO_AUTOEN))
		bad = "IRQF_SHARED with IRQF_NO_AUTOEN: a shared line cannot be requested disabled";
	else if (!r->handler && !r->thread_fn)
		bad = r->threaded ? "NULL handler and NULL thread_fn" : "NULL handler";
	if (bad) {
		report_bad(m, irq, r, bad, file, line);
		return -EINVAL;
	}
	s = irqs_of(m);
	a = s ? dmamap_zalloc(m, sizeof(*a)) : NULL;
	if (!a)
		return -ENOMEM;
	a->handler = r->handler ? r->handler : default_primary;
	a->thread_fn = r->thread_fn;
	a->dev_id = r->dev_id;
	a->name = r->name;
	a->managed = r->managed;
	a->file = file;
	a->line = line;

	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, true);
	if (!l) {
		pthread_mutex_unlock(&s->lock);
		dmamap_free(a);
		return -ENOMEM;
	}
	if (l->actions) {
		const struct dm_irq_action *old = l->actions;
		bool busy = !(flags & DMAMAP_IRQF_SHARED) || !(old->flags & DMAMAP_IRQF_SHARED);

		/* every action of a line agrees on IRQF_ONESHOT; IRQF_COND_ONESHOT agrees to it */
		if ((old->flags & DMAMAP_IRQF_ONESHOT) && (flags & DMAMAP_IRQF_COND_ONESHOT))
			flags |= DMAMAP_IRQF_ONESHOT;
		else if ((old->flags ^ flags) & DMAMAP_IRQF_ONESHOT)
			busy = true;
		if (busy) {
			pthread_mutex_unlock(&s->lock);
			dmamap_free(a);
			return -EBUSY;
		}
	}
	/* the default primary handler wakes the thread and returns: only a masked line keeps a level interrupt quiet */
	if (!r->handler && !(flags & DMAMAP_IRQF_ONESHOT)) {
		pthread_mutex_unlock(&s->lock);
		dmamap_free(a);
		report_bad(m, irq, r, "Threaded irq requested with handler=NULL and !ONESHOT", file, line);
		return -EINVAL;
	}
	if (!l->actions) {
		l->depth = (flags & DMAMAP_IRQF_NO_AUTOEN) ? 1 : 0;
		l->pending = false;
	}
	a->flags = flags;
	a->on = l;
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
	const struct irq_request r = { handler, NULL, flags | DMAMAP_IRQF_COND_ONESHOT, name, dev_id, NULL,
				       "request_irq", false };

	return request(machine_or_current(m), irq, &r, NULL, file, line);
}

DMAMAP_API int dmamap_request_threaded_irq_at(struct dmamap_machine *m, unsigned int irq, irq_handler_t handler,
					      irq_handler_t thread_fn, unsigned long flags, const char *name,
					      void *dev_id, const char *file, int line)
{
	const struct irq_request r = { handler, thread_fn, flags, name, dev_id, NULL, "request_threaded_irq", true };

	return request(machine_or_current(m), irq, &r, NULL, file, line);
}

/* Which of a line's handlers a free means: the one of @dev_id (of @managed, when @only_managed), or @exact. */
struct irq_match {
	void *dev_id;
	bool only_managed;
	struct device *managed;
	const struct dm_irq_action *exact;
};

static struct dm_irq_action **find(struct dm_irq_line *l, const struct irq_match *w)
{
	for (struct dm_irq_action **pp = &l->actions; *pp; pp = &(*pp)->next) {
		const struct dm_irq_action *a = *pp;

		if (w->exact ? a == w->exact : a->dev_id == w->dev_id && (!w->only_managed || a->managed == w->managed))
			return pp;
	}
	return NULL;
}

/*
 * Take the handler @w means off line @l (s->lock held, let go meanwhile),
 * once no other thread runs the line's handlers or has a thread function of
 * it woken; the runs of the line's thread functions this thread has queued
 * are made first (the kernel's interrupt thread runs once more before it
 * stops). Then a raise the line kept pending is delivered, if it now can
 * be. The record taken, or NULL.
 */
static struct dm_irq_action *detach(struct dm_irqs *s, struct dm_irq_line *l, const struct irq_match *w,
				    struct dm_irq_outcome *o)
{
	struct dm_irq_action **pp, *a;

	*o = (struct dm_irq_outcome){ true, false };
	run_queued(s, l);
	pp = find(l, w);
	if (!pp)
		return NULL;
	a = *pp;
	*pp = a->next;
	wait_idle(s, l);
	settle(s, l, o);
	return a;
}

enum own { OWN_NONE, OWN_HANDLER, OWN_THREAD };

/*
 * Take the handler of @dev_id (and, when @only_managed, of @managed) off
 * line @irq of @m. From a handler or a thread function of that line,
 * nothing is taken (the kernel would wait for itself for ever): NULL,
 * *@own set.
 */
static struct dm_irq_action *unlink_action(struct dmamap_machine *m, unsigned int irq, void *dev_id,
					   bool only_managed, struct device *managed, enum own *own)
{
	const struct irq_match w = { dev_id, only_managed, managed, NULL };
	struct dm_irqs *s = m->layer[DMAMAP_LAYER_IRQ];
	struct dm_irq_action *a = NULL;
	struct dm_irq_outcome o = { true, false };
	struct dm_irq_line *l;

	*own = OWN_NONE;
	if (!s)
		return NULL;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	if (l && running_here(l, false)) {
		*own = running_here(l, true) ? OWN_THREAD : OWN_HANDLER;
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	if (l)
		a = detach(s, l, &w, &o);
	pthread_mutex_unlock(&s->lock);
	nobody_cared_after(m, irq, &o);
	return a;
}

/* The managed record's release: free the handler as free_irq() would. */
static void devm_irq_release(void *data)
{
	struct dm_irq_action *a = data;
	const struct irq_match w = { NULL, false, NULL, a };
	struct dm_irq_line *l = a->on;
	struct dm_irqs *s = l->s;
	struct dm_irq_outcome o;

	pthread_mutex_lock(&s->lock);
	(void)detach(s, l, &w, &o);
	pthread_mutex_unlock(&s->lock);
	nobody_cared_after(l->m, l->irq, &o);
	dmamap_free(a);
}

static void report_own(struct dmamap_machine *m, const char *dev, const char *what, unsigned int irq, enum own own,
		       const char *file, int line)
{
	dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, dev, file, line,
		      "%s: irq %u freed from one of its own %s: the kernel would wait for %s for ever; nothing freed", what,
		      irq, own == OWN_THREAD ? "thread functions" : "handlers",
		      own == OWN_THREAD ? "the thread functions of the line" : "the handler");
}

DMAMAP_API const void *dmamap_free_irq_at(struct dmamap_machine *m, unsigned int irq, void *dev_id, const char *file,
					  int line)
{
	struct dm_irq_action *a;
	const char *name;
	enum own own;

	m = machine_or_current(m);
	if (!m || !irq_ok(m, irq, "free_irq", file, line))
		return NULL;
	a = unlink_action(m, irq, dev_id, false, NULL, &own);
	if (own) {
		report_own(m, NULL, "free_irq", irq, own, file, line);
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

static int devm_request(struct device *dev, unsigned int irq, struct irq_request *r, const char *file, int line)
{
	struct dm_irq_action *a;
	int ret;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s: %s", r->what,
			      dev ? "device not initialised" : "NULL device");
		return -EINVAL;
	}
	r->managed = dev;
	if (!r->name)
		r->name = dev->dmamap.name;
	ret = request(dm_dev_machine(dev), irq, r, &a, file, line);
	if (ret)
		return ret;
	ret = dmamap_devm_add_action(dev, devm_irq_release, a, false, file, line);
	if (ret) {
		devm_irq_release(a);
		return ret;
	}
	return 0;
}

DMAMAP_API int dmamap_devm_request_irq_at(struct device *dev, unsigned int irq, irq_handler_t handler,
					  unsigned long flags, const char *name, void *dev_id, const char *file, int line)
{
	struct irq_request r = { handler, NULL, flags | DMAMAP_IRQF_COND_ONESHOT, name, dev_id, NULL,
				 "devm_request_irq", false };

	return devm_request(dev, irq, &r, file, line);
}

DMAMAP_API int dmamap_devm_request_threaded_irq_at(struct device *dev, unsigned int irq, irq_handler_t handler,
						   irq_handler_t thread_fn, unsigned long flags, const char *name,
						   void *dev_id, const char *file, int line)
{
	struct irq_request r = { handler, thread_fn, flags, name, dev_id, NULL, "devm_request_threaded_irq", true };

	return devm_request(dev, irq, &r, file, line);
}

DMAMAP_API void dmamap_devm_free_irq_at(struct device *dev, unsigned int irq, void *dev_id, const char *file,
					int line)
{
	struct dmamap_machine *m;
	struct dm_irq_action *a;
	enum own own;

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
		report_own(m, dev->dmamap.name, "devm_free_irq", irq, own, file, line);
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
 * Run the handlers of @l in this thread, in hard interrupt context, then,
 * when this is the outermost delivery of the thread's hard interrupt
 * context, the thread functions they woke (and those nested deliveries
 * woke), each as a task of its own. Called under s->lock with l->running
 * already counted for this thread; returns under it, the count dropped,
 * with what the delivery came to in *@out. Returns how many handlers
 * returned IRQ_HANDLED or IRQ_WAKE_THREAD.
 */
static int deliver(struct dm_irqs *s, struct dm_irq_line *l, struct dm_irq_outcome *out)
{
	struct dmamap_machine *m = l->m;
	unsigned int irq = l->irq, outer, call_depth;
	struct dm_irq_frame frame, *own = NULL;
	struct dm_irq_outcome o = { false, false };
	unsigned long flags;
	int handled = 0;

	if (!dmamap_in_hardirq() || !irq_frame) {
		frame.outer = irq_frame;
		frame.head = NULL;
		frame.tail = &frame.head;
		frame.handled = false;
		irq_frame = own = &frame;
	}
	run_push(l, false);
	/* the handlers are the driver's code, whatever library call delivers to them */
	call_depth = dmamap_call_now.depth;
	dmamap_call_now.depth = 0;
	flags = dmamap_local_irq_save_at("the interrupt", NULL, 0);
	outer = dm_hardirq_enter(irq);
	for (struct dm_irq_action *a = l->actions; a; a = a->next) {
		irq_handler_t fn = a->handler;
		void *dev_id = a->dev_id;
		struct dm_held_mark held;
		char left[600];
		irqreturn_t ret;

		pthread_mutex_unlock(&s->lock);
		dm_held_mark(&held);
		ret = fn((int)irq, dev_id);
		/* what it took it gives back: the interrupted thread's locks are those it held before */
		dm_held_since(&held, left, sizeof(left));
		if (left[0])
			dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, action_dev(a), NULL, 0,
				      "irq %u handler %s returned with %s", irq, action_name(a), left);
		if (!dmamap_irqs_disabled()) {
			dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, action_dev(a), NULL, 0,
				      "irq %u handler %s enabled interrupts", irq, action_name(a));
			(void)dmamap_local_irq_save_at("the interrupt", NULL, 0);
		}
		if ((ret & IRQ_WAKE_THREAD) && !a->thread_fn)
			dmamap_report(m, DMAMAP_REPORT_API_MISUSE, action_dev(a), NULL, 0,
				      "irq %u handler %s returned IRQ_WAKE_THREAD but no thread function available", irq,
				      action_name(a));
		pthread_mutex_lock(&s->lock);
		if (ret & (IRQ_HANDLED | IRQ_WAKE_THREAD))
			handled++;
		if (ret & IRQ_HANDLED)
			o.claimed = true;
		if (ret & IRQ_WAKE_THREAD) {
			if (!a->thread_fn)
				o.claimed = true;
			/* a run already woken, or one for an outer delivery, is judged there, as the kernel defers it */
			else if (!wake_thread(a) || !own)
				o.claimed = true;
			o.woke = true;
		}
	}
	dm_hardirq_exit(outer);
	/* not under s->lock: the tasklets run at the irq_exit() below */
	dm_irq_state_restore(flags);
	dmamap_call_now.depth = call_depth;
	run_pop();
	l->running--;
	pthread_cond_broadcast(&s->idle);
	if (own) {
		pthread_mutex_unlock(&s->lock);
		/* the kernel's irq_exit(): the tasklets the handlers scheduled run before the thread functions */
		dm_softirq_irq_exit();
		if (frame_run(own))
			o.claimed = true;
		irq_frame = own->outer;
		pthread_mutex_lock(&s->lock);
	}
	*out = o;
	return handled;
}

DMAMAP_API int dmamap_irq_raise(struct dmamap_machine *m, unsigned int irq)
{
	struct dm_irq_outcome o;
	struct dm_irq_line *l;
	struct dm_irqs *s;
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
	if (l && l->actions && (l->depth || l->oneshot)) {
		l->pending = true;
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	if (!l || !l->actions) {
		pthread_mutex_unlock(&s->lock);
		nobody_cared(m, irq, "no handler is requested on the line");
		return 0;
	}
	l->running++;
	n = deliver(s, l, &o);
	pthread_mutex_unlock(&s->lock);
	nobody_cared_after(m, irq, &o);
	return n;
}

/* A wait for the line's handlers from one of its own thread functions: the kernel would wait for itself. */
static void report_self_wait(struct dmamap_machine *m, const char *what, unsigned int irq, const char *file, int line)
{
	dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "%s: irq %u from one of its own thread functions: the kernel would wait for that thread function "
		      "for ever; not waited for", what, irq);
}

DMAMAP_API void dmamap_irq_disable_at(struct dmamap_machine *m, unsigned int irq, bool sync, const char *file,
				      int line)
{
	struct dm_irq_line *l;
	struct dm_irqs *s;
	bool self = false;

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
		if (sync) {
			self = running_here(l, true);
			run_queued(s, l);
			wait_idle(s, l);
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (self)
		report_self_wait(m, "disable_irq", irq, file, line);
}

DMAMAP_API void dmamap_irq_enable_at(struct dmamap_machine *m, unsigned int irq, const char *file, int line)
{
	struct dm_irq_outcome o = { true, false };
	struct dm_irq_line *l;
	struct dm_irqs *s;

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
	if (!--l->depth)
		settle(s, l, &o);
	pthread_mutex_unlock(&s->lock);
	nobody_cared_after(m, irq, &o);
}

DMAMAP_API void dmamap_irq_synchronize_at(struct dmamap_machine *m, unsigned int irq, const char *file, int line)
{
	struct dm_irq_outcome o = { true, false };
	struct dm_irq_line *l;
	struct dm_irqs *s;
	bool self = false;

	m = machine_or_current(m);
	if (!m || !irq_ok(m, irq, "synchronize_irq", file, line))
		return;
	dm_might_sleep(m, "synchronize_irq", file, line);
	s = m->layer[DMAMAP_LAYER_IRQ];
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	l = line_of(m, s, irq, false);
	if (l) {
		self = running_here(l, true);
		run_queued(s, l);
		wait_idle(s, l);
		settle(s, l, &o);
	}
	pthread_mutex_unlock(&s->lock);
	if (self)
		report_self_wait(m, "synchronize_irq", irq, file, line);
	nobody_cared_after(m, irq, &o);
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
				      action_name(a));
			dmamap_free(a);
		}
		dmamap_free(l);
	}
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->lock);
	dmamap_free(s);
}
