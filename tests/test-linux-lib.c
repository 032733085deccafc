/* SPDX-License-Identifier: MIT */
/*
 * The kernel library headers a Linux 6.x driver keeps its state with:
 * <linux/list.h> (order after each operation, poisoned links after
 * list_del()), <linux/atomic.h> (return values at the boundaries),
 * <linux/refcount.h> and <linux/kref.h> (saturation, and the reports it
 * raises), <linux/module.h> and <linux/init.h> (what a module's boilerplate
 * leaves: nothing but its functions), <linux/platform_device.h> (probe and
 * remove in the kernel's order, the managed resources released at unbind
 * and after a failed probe, the resources a device is created with, the
 * register windows of its memory resources and the mappings of them, its
 * platform data).
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/kref.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/poison.h>
#include <linux/kernel.h>

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "platform-old-remove.h"


/* ---------------------------------------------------------------- lists */

struct item {
	char name;
	struct list_head node;
	struct hlist_node hnode;
};

/*
 * The names of the entries of @head front to back, checked against the walk
 * back to front (every prev link the mirror of a next link).
 */
static const char *order(const struct list_head *head)
{
	static char fwd[64];
	char back[64];
	size_t n = 0, k = 0;
	const struct list_head *p;

	for (p = head->next; p != head && n < sizeof(fwd) - 1; p = p->next) {
		assert_ptr_equal(p->next->prev, p);
		fwd[n++] = list_entry(p, struct item, node)->name;
	}
	fwd[n] = '\0';
	for (p = head->prev; p != head && k < sizeof(back) - 1; p = p->prev)
		back[k++] = list_entry(p, struct item, node)->name;
	assert_int_equal(k, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(back[i], fwd[n - 1 - i]);
	assert_int_equal(list_count_nodes(head), n);
	return fwd;
}

static void items_init(struct item *it, const char *names)
{
	for (size_t i = 0; names[i]; i++) {
		it[i].name = names[i];
		INIT_LIST_HEAD(&it[i].node);
		INIT_HLIST_NODE(&it[i].hnode);
	}
}

static LIST_HEAD(static_list);

static void test_list_order_after_each_operation(void **state)
{
	struct item it[8];
	struct item *a = &it[0], *b = &it[1], *c = &it[2], *d = &it[3], *e = &it[4];
	LIST_HEAD(h);

	(void)state;
	items_init(it, "abcdexy");
	assert_true(list_empty(&h));
	assert_true(list_empty(&static_list));
	assert_false(list_is_singular(&h));
	assert_string_equal(order(&h), "");
	assert_null(list_first_entry_or_null(&h, struct item, node));
	assert_null(list_last_entry_or_null(&h, struct item, node));

	list_add_tail(&a->node, &h);
	assert_true(list_is_singular(&h));
	assert_ptr_equal(list_first_entry_or_null(&h, struct item, node), a);
	list_add_tail(&b->node, &h);
	list_add_tail(&c->node, &h);
	assert_string_equal(order(&h), "abc");
	assert_false(list_is_singular(&h));
	list_add(&d->node, &h);
	assert_string_equal(order(&h), "dabc");
	assert_ptr_equal(list_first_entry(&h, struct item, node), d);
	assert_ptr_equal(list_last_entry(&h, struct item, node), c);
	assert_ptr_equal(list_next_entry(d, node), a);
	assert_ptr_equal(list_prev_entry(a, node), d);
	assert_ptr_equal(list_next_entry_circular(c, &h, node), d);
	assert_ptr_equal(list_prev_entry_circular(d, &h, node), c);
	assert_true(list_is_first(&d->node, &h));
	assert_true(list_is_last(&c->node, &h));
	assert_false(list_is_last(&b->node, &h));

	list_move(&c->node, &h);
	assert_string_equal(order(&h), "cdab");
	list_move_tail(&d->node, &h);
	assert_string_equal(order(&h), "cabd");
	list_add(&e->node, &a->node); /* after an entry: in the middle */
	assert_string_equal(order(&h), "caebd");
	list_add_tail(&it[5].node, &b->node); /* before an entry */
	assert_string_equal(order(&h), "caexbd");

	list_del(&a->node);
	assert_string_equal(order(&h), "cexbd");
	assert_ptr_equal(a->node.next, LIST_POISON1);
	assert_ptr_equal(a->node.prev, LIST_POISON2);
	list_del_init(&e->node);
	assert_string_equal(order(&h), "cxbd");
	assert_true(list_empty(&e->node));
	list_del_init(&e->node); /* again: nothing changes */
	assert_true(list_empty(&e->node));
	assert_string_equal(order(&h), "cxbd");

	list_replace(&it[5].node, &it[6].node);
	assert_string_equal(order(&h), "cybd");
	list_replace_init(&it[6].node, &it[5].node);
	assert_string_equal(order(&h), "cxbd");
	assert_true(list_empty(&it[6].node));
	list_rotate_left(&h);
	assert_string_equal(order(&h), "xbdc");
	list_move_tail(&it[5].node, &h);
	assert_string_equal(order(&h), "bdcx");
	assert_int_equal(list_count_nodes(&h), 4);

	while (!list_empty(&h))
		list_del_init(h.next);
	assert_string_equal(order(&h), "");
	list_rotate_left(&h); /* an empty list: nothing */
	assert_true(list_empty(&h));
}

static void test_list_splice_and_cut(void **state)
{
	struct item it[8];
	LIST_HEAD(h);
	LIST_HEAD(o);
	LIST_HEAD(cut);

	(void)state;
	items_init(it, "abcdxyz");
	list_add_tail(&it[0].node, &h);
	list_add_tail(&it[1].node, &h);
	list_add_tail(&it[4].node, &o);
	list_add_tail(&it[5].node, &o);

	list_splice_init(&o, &h);
	assert_string_equal(order(&h), "xyab");
	assert_true(list_empty(&o));
	list_splice(&o, &h); /* an empty list: nothing */
	list_splice_tail(&o, &h);
	assert_string_equal(order(&h), "xyab");

	list_add_tail(&it[2].node, &o);
	list_add_tail(&it[3].node, &o);
	list_splice_tail_init(&o, &h);
	assert_string_equal(order(&h), "xyabcd");
	assert_true(list_empty(&o));

	list_add(&it[6].node, &o);
	list_splice(&o, &h);
	assert_string_equal(order(&h), "zxyabcd");
	/* list_splice() left o's head stale: make it a list again before reuse */
	INIT_LIST_HEAD(&o);
	list_del(&it[6].node);
	list_add_tail(&it[6].node, &o);
	list_splice_tail(&o, &h);
	assert_string_equal(order(&h), "xyabcdz");

	/* the front of h up to and including 'a' moves to cut */
	list_cut_position(&cut, &h, &it[0].node);
	assert_string_equal(order(&cut), "xya");
	assert_string_equal(order(&h), "bcdz");
	list_cut_position(&cut, &h, &h); /* up to the head: cut made empty */
	assert_true(list_empty(&cut));
	assert_string_equal(order(&h), "bcdz");
}

static void test_list_iterators(void **state)
{
	struct item it[8], *pos, *n, *start = NULL;
	struct list_head *p, *q;
	char seen[16];
	size_t k;
	LIST_HEAD(h);

	(void)state;
	items_init(it, "abcdef");
	for (int i = 0; i < 6; i++)
		list_add_tail(&it[i].node, &h);

	k = 0;
	list_for_each(p, &h)
		seen[k++] = list_entry(p, struct item, node)->name;
	seen[k] = '\0';
	assert_string_equal(seen, "abcdef");
	assert_ptr_equal(p, &h);
	k = 0;
	list_for_each_prev(p, &h)
		seen[k++] = list_entry(p, struct item, node)->name;
	seen[k] = '\0';
	assert_string_equal(seen, "fedcba");

	k = 0;
	list_for_each_entry(pos, &h, node)
		seen[k++] = pos->name;
	seen[k] = '\0';
	assert_string_equal(seen, "abcdef");
	assert_true(list_entry_is_head(pos, &h, node));
	k = 0;
	list_for_each_entry_reverse(pos, &h, node)
		seen[k++] = pos->name;
	seen[k] = '\0';
	assert_string_equal(seen, "fedcba");

	/* continue after 'c', from 'c', backwards after 'c' */
	pos = &it[2];
	k = 0;
	list_for_each_entry_continue(pos, &h, node)
		seen[k++] = pos->name;
	seen[k] = '\0';
	assert_string_equal(seen, "def");
	pos = &it[2];
	k = 0;
	list_for_each_entry_from(pos, &h, node)
		seen[k++] = pos->name;
	seen[k] = '\0';
	assert_string_equal(seen, "cdef");
	pos = &it[2];
	k = 0;
	list_for_each_entry_continue_reverse(pos, &h, node)
		seen[k++] = pos->name;
	seen[k] = '\0';
	assert_string_equal(seen, "ba");
	/* list_prepare_entry(NULL): a continue walk from the head, the whole list */
	pos = list_prepare_entry(start, &h, node);
	k = 0;
	list_for_each_entry_continue(pos, &h, node)
		seen[k++] = pos->name;
	seen[k] = '\0';
	assert_string_equal(seen, "abcdef");

	/* delete while walking: the _safe forms */
	list_for_each_entry_safe(pos, n, &h, node)
		if (pos->name == 'b' || pos->name == 'e')
			list_del(&pos->node);
	assert_string_equal(order(&h), "acdf");
	list_for_each_entry_safe_reverse(pos, n, &h, node)
		if (pos->name == 'f')
			list_move(&pos->node, &h);
	assert_string_equal(order(&h), "facd");
	list_for_each_safe(p, q, &h)
		if (list_entry(p, struct item, node)->name == 'a')
			list_del_init(p);
	assert_string_equal(order(&h), "fcd");
	list_for_each_prev_safe(p, q, &h)
		if (list_entry(p, struct item, node)->name == 'c')
			list_move_tail(p, &h);
	assert_string_equal(order(&h), "fdc");
	pos = &it[3];
	list_for_each_entry_safe_from(pos, n, &h, node)
		list_del_init(&pos->node);
	assert_string_equal(order(&h), "f");
	list_for_each_entry_safe(pos, n, &h, node)
		list_del(&pos->node);
	assert_true(list_empty(&h));
	assert_ptr_equal(it[5].node.next, LIST_POISON1);
}

/*
 * A use after list_del() faults where it happens: a walk on from the deleted
 * entry, or a second list_del(), dies of SIGSEGV instead of corrupting the
 * list.
 */
static void fault_in_child(int what)
{
	struct item it[2];
	LIST_HEAD(h);
	pid_t pid;
	int status, null;

	items_init(it, "ab");
	list_add_tail(&it[0].node, &h);
	list_add_tail(&it[1].node, &h);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		volatile char sink = 0;

		/* the fault is the point: keep the tools' reports of it off the test's output */
		null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		/* die of the fault: neither CMocka's handler nor a sanitizer's catches it */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		/* through a pointer the compiler cannot follow: it would warn of the poisoned address */
		struct list_head *volatile e = &it[0].node;

		list_del(e);
		if (what == 0)
			sink = list_entry(e->next, struct item, node)->name;
		else
			list_del(e);
		(void)sink;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		fail_msg("a use after list_del() (case %d) did not fault", what);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static void test_list_del_poisons(void **state)
{
	struct item it[3];
	LIST_HEAD(h);

	(void)state;
	items_init(it, "abc");
	for (int i = 0; i < 3; i++)
		list_add_tail(&it[i].node, &h);
	list_del(&it[1].node);
	assert_ptr_equal(it[1].node.next, LIST_POISON1);
	assert_ptr_equal(it[1].node.prev, LIST_POISON2);
	assert_true((uintptr_t)LIST_POISON1 < 4096 && (uintptr_t)LIST_POISON2 < 4096);
	assert_string_equal(order(&h), "ac");
	fault_in_child(0);
	fault_in_child(1);
}

static void test_hlist(void **state)
{
	struct item it[5], *pos;
	struct hlist_node *p, *n;
	char seen[8];
	size_t k;
	HLIST_HEAD(h);
	struct hlist_head h2 = HLIST_HEAD_INIT;

	(void)state;
	items_init(it, "abcde");
	assert_true(hlist_empty(&h));
	assert_true(hlist_empty(&h2));
	assert_true(hlist_unhashed(&it[0].hnode));
	hlist_add_head(&it[0].hnode, &h);
	hlist_add_head(&it[1].hnode, &h);
	hlist_add_head(&it[2].hnode, &h);
	hlist_add_behind(&it[3].hnode, &it[2].hnode);
	hlist_add_before(&it[4].hnode, &it[0].hnode);
	assert_false(hlist_unhashed(&it[0].hnode));
	assert_int_equal(hlist_count_nodes(&h), 5);

	k = 0;
	hlist_for_each_entry(pos, &h, hnode) {
		assert_ptr_equal(*pos->hnode.pprev, &pos->hnode);
		seen[k++] = pos->name;
	}
	seen[k] = '\0';
	assert_string_equal(seen, "cdbea");
	assert_null(pos);

	hlist_del(&it[1].hnode);
	assert_ptr_equal(it[1].hnode.next, LIST_POISON1);
	assert_ptr_equal(it[1].hnode.pprev, LIST_POISON2);
	hlist_del_init(&it[2].hnode); /* the first: the head moves on */
	assert_true(hlist_unhashed(&it[2].hnode));
	hlist_del_init(&it[2].hnode); /* again: nothing */
	k = 0;
	hlist_for_each(p, &h)
		seen[k++] = hlist_entry(p, struct item, hnode)->name;
	seen[k] = '\0';
	assert_string_equal(seen, "dea");
	assert_null(hlist_entry_safe((struct hlist_node *)NULL, struct item, hnode));

	hlist_for_each_entry_safe(pos, n, &h, hnode)
		if (pos->name != 'e')
			hlist_del(&pos->hnode);
	assert_int_equal(hlist_count_nodes(&h), 1);
	assert_ptr_equal(h.first, &it[4].hnode);
	assert_ptr_equal(it[4].hnode.pprev, &h.first);
	hlist_for_each_safe(p, n, &h)
		hlist_del_init(p);
	assert_true(hlist_empty(&h));
	INIT_HLIST_HEAD(&h2);
	assert_true(hlist_empty(&h2));
}

/* ---------------------------------------------------------------- atomics */

static void test_atomic_return_values_at_boundaries(void **state)
{
	atomic_t a = ATOMIC_INIT(INT_MAX);
	int old;

	(void)state;
	/* arithmetic wraps, as the kernel's */
	assert_int_equal(atomic_inc_return(&a), INT_MIN);
	assert_int_equal(atomic_read(&a), INT_MIN);
	assert_int_equal(atomic_fetch_dec(&a), INT_MIN);
	assert_int_equal(atomic_read(&a), INT_MAX);
	assert_int_equal(atomic_fetch_add(2, &a), INT_MAX);
	assert_int_equal(atomic_read(&a), INT_MIN + 1);
	assert_int_equal(atomic_sub_return(2, &a), INT_MAX);
	assert_int_equal(atomic_add_return_relaxed(1, &a), INT_MIN);

	/* the _and_test calls: true exactly when the new value is 0 */
	atomic_set(&a, 1);
	assert_true(atomic_dec_and_test(&a));
	assert_int_equal(atomic_read(&a), 0);
	assert_false(atomic_dec_and_test(&a));
	assert_int_equal(atomic_read(&a), -1);
	assert_true(atomic_inc_and_test(&a));
	assert_false(atomic_inc_and_test(&a));
	atomic_set(&a, 5);
	assert_false(atomic_sub_and_test(4, &a));
	assert_true(atomic_sub_and_test(1, &a));
	assert_true(atomic_add_negative(-1, &a));
	assert_false(atomic_add_negative(1, &a));
	assert_int_equal(atomic_read(&a), 0);

	/* the conditional ones: the value before, and no change when refused */
	assert_false(atomic_inc_not_zero(&a));
	assert_int_equal(atomic_read(&a), 0);
	atomic_set(&a, 3);
	assert_true(atomic_inc_not_zero(&a));
	assert_int_equal(atomic_read(&a), 4);
	assert_false(atomic_add_unless(&a, 5, 4));
	assert_int_equal(atomic_read(&a), 4);
	assert_int_equal(atomic_fetch_add_unless(&a, 5, 7), 4);
	assert_int_equal(atomic_read(&a), 9);
	atomic_set(&a, 1);
	assert_int_equal(atomic_dec_if_positive(&a), 0);
	assert_int_equal(atomic_read(&a), 0);
	assert_int_equal(atomic_dec_if_positive(&a), -1);
	assert_int_equal(atomic_read(&a), 0);
	assert_true(atomic_dec_unless_positive(&a));
	assert_int_equal(atomic_read(&a), -1);
	assert_false(atomic_inc_unless_negative(&a));
	assert_int_equal(atomic_read(&a), -1);
	atomic_set(&a, 1);
	assert_false(atomic_dec_unless_positive(&a));
	assert_true(atomic_inc_unless_negative(&a));
	assert_int_equal(atomic_read(&a), 2);

	/* compare-exchange: the value before; stored only on a match */
	atomic_set(&a, 9);
	assert_int_equal(atomic_cmpxchg(&a, 8, 1), 9);
	assert_int_equal(atomic_read(&a), 9);
	assert_int_equal(atomic_cmpxchg(&a, 9, 1), 9);
	assert_int_equal(atomic_read(&a), 1);
	old = 5;
	assert_false(atomic_try_cmpxchg(&a, &old, 2));
	assert_int_equal(old, 1); /* the value it found */
	assert_int_equal(atomic_read(&a), 1);
	assert_true(atomic_try_cmpxchg_acquire(&a, &old, 2));
	assert_int_equal(atomic_read(&a), 2);
	assert_int_equal(atomic_xchg(&a, 7), 2);
	assert_int_equal(atomic_xchg_release(&a, 0xf0), 7);

	/* bit operations */
	assert_int_equal(atomic_fetch_or(0x0f, &a), 0xf0);
	assert_int_equal(atomic_fetch_andnot(0x0f, &a), 0xff);
	assert_int_equal(atomic_fetch_xor(0xff, &a), 0xf0);
	assert_int_equal(atomic_fetch_and(0x3, &a), 0x0f);
	assert_int_equal(atomic_read(&a), 3);
	atomic_or(0x10, &a);
	atomic_andnot(0x1, &a);
	atomic_xor(0x3, &a);
	atomic_and(0x11, &a);
	assert_int_equal(atomic_read_acquire(&a), 0x11);
	atomic_set_release(&a, 0);
	atomic_inc(&a);
	atomic_add(3, &a);
	atomic_sub(1, &a);
	atomic_dec(&a);
	assert_int_equal(atomic_read(&a), 2);
	assert_int_equal(atomic_fetch_inc_relaxed(&a), 2);
	assert_int_equal(atomic_dec_return_release(&a), 2);
	assert_int_equal(atomic_inc_return_acquire(&a), 3);
}

static void test_atomic64_and_long(void **state)
{
	atomic64_t b = ATOMIC64_INIT(S64_MAX);
	atomic_long_t c = ATOMIC_LONG_INIT(LONG_MAX);
	s64 o64 = 0;

	(void)state;
	assert_true(atomic64_inc_return(&b) == S64_MIN);
	assert_true(atomic64_fetch_sub(1, &b) == S64_MIN);
	assert_true(atomic64_read(&b) == S64_MAX);
	/* beyond 32 bits: nothing is cut to an int */
	atomic64_set(&b, 1LL << 40);
	assert_true(atomic64_add_return(1, &b) == (1LL << 40) + 1);
	assert_false(atomic64_try_cmpxchg(&b, &o64, 5));
	assert_true(o64 == (1LL << 40) + 1);
	assert_true(atomic64_cmpxchg(&b, o64, 1) == o64);
	assert_true(atomic64_dec_and_test(&b));
	assert_false(atomic64_inc_not_zero(&b));
	assert_true(atomic64_dec_if_positive(&b) == -1);
	assert_true(atomic64_read(&b) == 0);

	assert_true(atomic_long_add_return(1, &c) == LONG_MIN);
	assert_true(atomic_long_dec_return(&c) == LONG_MAX);
	assert_true(atomic_long_xchg(&c, 1) == LONG_MAX);
	assert_true(atomic_long_dec_and_test(&c));
	assert_true(atomic_long_fetch_add_unless(&c, 1, 0) == 0);
	assert_true(atomic_long_read(&c) == 0);
}

static void test_cmpxchg_on_plain_variables(void **state)
{
	unsigned long w = 10, ow = 3;
	int x = 1, y = 2, *p = &x, *op = &y;
	u8 small = 0xff;
	int wide = 0x101;

	(void)state;
	assert_int_equal(cmpxchg(&w, 3, 4), 10);
	assert_int_equal(w, 10);
	assert_int_equal(cmpxchg(&w, 10, 4), 10);
	assert_int_equal(w, 4);
	assert_false(try_cmpxchg(&w, &ow, 5));
	assert_int_equal(ow, 4);
	assert_true(try_cmpxchg_relaxed(&w, &ow, 5));
	assert_int_equal(w, 5);
	assert_int_equal(xchg(&w, 6), 5);
	assert_int_equal(xchg_acquire(&w, 7), 6);
	assert_int_equal(cmpxchg_release(&w, 7, 8), 7);
	assert_int_equal(smp_load_acquire(&w), 8);
	smp_store_release(&w, 9);
	assert_int_equal(w, 9);
	assert_false(try_cmpxchg(&p, &op, &y));
	assert_ptr_equal(op, &x);
	assert_true(try_cmpxchg(&p, &op, &y));
	assert_ptr_equal(p, &y);
	assert_ptr_equal(xchg(&p, NULL), &y);
	/* in the variable's own width: a u8 wraps at 8 bits */
	assert_int_equal(cmpxchg(&small, 0xff, wide), 0xff);
	assert_int_equal(small, 1);
}

#define HAMMER_THREADS 4

struct hammer {
	atomic_t count;
	atomic64_t sum;
	unsigned long plain_claims;
	atomic_t claimed;
	int rounds;
	pthread_barrier_t start;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;

	pthread_barrier_wait(&h->start);
	for (int i = 0; i < 10 * h->rounds; i++) {
		atomic_inc(&h->count);
		atomic64_add(i, &h->sum);
	}
	for (int i = 0; i < h->rounds; i++) {
		/* one thread of all claims the slot each round: the one whose cmpxchg found 0 */
		if (atomic_cmpxchg(&h->claimed, 2 * i, 2 * i + 1) == 2 * i) {
			h->plain_claims++;
			atomic_set_release(&h->claimed, 2 * i + 2);
		} else {
			while (atomic_read_acquire(&h->claimed) < 2 * i + 2)
				cpu_relax();
		}
	}
	return NULL;
}

/* Every increment counted, every round claimed once, across threads. */
static void test_atomic_across_threads(void **state)
{
	pthread_t t[HAMMER_THREADS];
	struct hammer h = { .count = ATOMIC_INIT(0), .sum = ATOMIC64_INIT(0), .claimed = ATOMIC_INIT(0) };

	(void)state;
	h.rounds = under_valgrind() ? 2000 : 50000;
	assert_int_equal(pthread_barrier_init(&h.start, NULL, HAMMER_THREADS), 0);
	for (int i = 0; i < HAMMER_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer_thread, &h), 0);
	for (int i = 0; i < HAMMER_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&h.start);
	assert_int_equal(atomic_read(&h.count), HAMMER_THREADS * 10 * h.rounds);
	assert_true(atomic64_read(&h.sum) == (s64)HAMMER_THREADS * 10 * h.rounds * (10 * h.rounds - 1) / 2);
	assert_int_equal(h.plain_claims, h.rounds);
	assert_int_equal(atomic_read(&h.claimed), 2 * h.rounds);
}

/* ------------------------------------------------------------ refcounts */

/* The last report captured is a refcount report at @line of this file, saying @why; the count of them is @n. */
static void assert_refcount_report(struct current_fx *f, unsigned long n, int line, const char *why)
{
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_REFCOUNT], n);
	assert_int_equal(dmamap_report_count_kind(f->m, DMAMAP_REPORT_REFCOUNT), n);
	assert_int_equal(f->c.reports, n);
	assert_int_equal(f->c.rec_last.kind, DMAMAP_REPORT_REFCOUNT);
	assert_int_equal(f->c.rec_last.category, DMAMAP_REPORT_API_MISUSE);
	assert_string_equal(f->c.rec_last.file, __FILE__);
	assert_int_equal(f->c.rec_last.line, line);
	if (!strstr(f->c.rec_last.message, why))
		fail_msg("report \"%s\" does not say \"%s\"", f->c.rec_last.message, why);
}

static void test_refcount_counts(void **state)
{
	struct current_fx *f = *state;
	refcount_t r = REFCOUNT_INIT(1);
	int old = -7;
	DEFINE_SPINLOCK(lock);
	DEFINE_MUTEX(mtx);

	refcount_inc(&r);
	refcount_add(3, &r);
	assert_int_equal(refcount_read(&r), 5);
	__refcount_inc(&r, &old);
	assert_int_equal(old, 5);
	refcount_dec(&r);
	assert_false(refcount_sub_and_test(3, &r));
	assert_int_equal(refcount_read(&r), 2);
	assert_false(refcount_dec_if_one(&r));
	assert_true(refcount_dec_not_one(&r));
	assert_int_equal(refcount_read(&r), 1);
	assert_false(refcount_dec_not_one(&r)); /* the last: left to the caller */
	assert_int_equal(refcount_read(&r), 1);
	assert_true(refcount_inc_not_zero(&r));
	assert_true(refcount_add_not_zero(2, &r));
	assert_true(__refcount_inc_not_zero(&r, &old));
	assert_int_equal(old, 4);
	refcount_set(&r, 1);
	assert_true(refcount_dec_if_one(&r));
	assert_int_equal(refcount_read(&r), 0);
	/* 0: the object is going; no reference is taken, and that is no misuse */
	assert_false(refcount_inc_not_zero(&r));
	assert_false(refcount_add_not_zero(4, &r));
	assert_int_equal(refcount_read(&r), 0);
	refcount_set(&r, 1);
	assert_true(refcount_dec_and_test(&r));
	assert_int_equal(refcount_read(&r), 0);

	/* the last reference dropped holding the lock */
	refcount_set(&r, 2);
	assert_false(refcount_dec_and_lock(&r, &lock));
	assert_false(spin_is_locked(&lock));
	assert_true(refcount_dec_and_lock(&r, &lock));
	assert_true(spin_is_locked(&lock));
	spin_unlock(&lock);
	refcount_set(&r, 2);
	assert_false(refcount_dec_and_mutex_lock(&r, &mtx));
	assert_false(mutex_is_locked(&mtx));
	assert_true(refcount_dec_and_mutex_lock(&r, &mtx));
	assert_true(mutex_is_locked(&mtx));
	mutex_unlock(&mtx);
	assert_int_equal(f->c.reports, 0);
}

static void test_refcount_saturates_and_reports(void **state)
{
	struct current_fx *f = *state;
	refcount_t r = REFCOUNT_INIT(1);
	unsigned long n = 0;
	int line;

	assert_true(refcount_dec_and_test(&r));
	/* a reference taken on a released object: saturated, reported */
	refcount_inc(&r); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "addition on 0; use-after-free");
	/* saturated it stays, whatever follows, and quiet */
	refcount_inc(&r);
	assert_false(refcount_dec_and_test(&r));
	refcount_dec(&r);
	assert_true(refcount_inc_not_zero(&r));
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_int_equal(f->c.reports, n);

	/* past INT_MAX */
	refcount_set(&r, REFCOUNT_MAX);
	refcount_inc(&r); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "saturated; leaking memory");
	refcount_set(&r, REFCOUNT_MAX - 1);
	refcount_add(2, &r); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "saturated; leaking memory");
	refcount_set(&r, REFCOUNT_MAX);
	assert_true(refcount_inc_not_zero(&r)); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "saturated; leaking memory");
	refcount_set(&r, REFCOUNT_MAX - 1);
	refcount_inc(&r); /* INT_MAX itself is a count */
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_MAX);
	assert_int_equal(f->c.reports, n);

	/* one put too many */
	refcount_set(&r, 0);
	assert_false(refcount_dec_and_test(&r)); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "underflow; use-after-free");
	refcount_set(&r, 1);
	assert_false(refcount_sub_and_test(2, &r)); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "underflow; use-after-free");

	/* refcount_dec() of the last reference: nothing would release the object */
	refcount_set(&r, 1);
	refcount_dec(&r); line = __LINE__;
	assert_int_equal(refcount_read(&r), (unsigned int)REFCOUNT_SATURATED);
	assert_refcount_report(f, ++n, line, "decrement hit 0; leaking memory");

	/* refcount_dec_not_one() of 0: reported, left at 0, as the kernel's */
	refcount_set(&r, 0);
	assert_true(refcount_dec_not_one(&r)); line = __LINE__;
	assert_int_equal(refcount_read(&r), 0);
	assert_refcount_report(f, ++n, line, "underflow; use-after-free");
}

struct obj {
	struct kref ref;
	int released;
	struct mutex *lock;
};

static void obj_release(struct kref *kref)
{
	container_of(kref, struct obj, ref)->released++;
}

static void obj_release_unlock(struct kref *kref)
{
	struct obj *o = container_of(kref, struct obj, ref);

	o->released++;
	mutex_unlock(o->lock);
}

static void test_kref_releases_once(void **state)
{
	struct current_fx *f = *state;
	struct obj o = { KREF_INIT(1), 0, NULL };
	DEFINE_MUTEX(mtx);
	int line;

	kref_get(&o.ref);
	assert_int_equal(kref_read(&o.ref), 2);
	assert_int_equal(kref_put(&o.ref, obj_release), 0);
	assert_int_equal(o.released, 0);
	assert_int_equal(kref_put(&o.ref, obj_release), 1);
	assert_int_equal(o.released, 1);
	/* a lookup that finds the object on its way out takes no reference */
	assert_int_equal(kref_get_unless_zero(&o.ref), 0);
	assert_int_equal(kref_read(&o.ref), 0);
	assert_int_equal(f->c.reports, 0);
	/* one put too many: reported, never a second release */
	assert_int_equal(kref_put(&o.ref, obj_release), 0); line = __LINE__;
	assert_int_equal(o.released, 1);
	assert_refcount_report(f, 1, line, "underflow; use-after-free");
	/* and a get after the release */
	kref_init(&o.ref);
	assert_int_equal(kref_put(&o.ref, obj_release), 1);
	kref_get(&o.ref); line = __LINE__;
	assert_refcount_report(f, 2, line, "addition on 0; use-after-free");
	assert_int_equal(kref_put(&o.ref, obj_release), 0);
	assert_int_equal(o.released, 2);

	/* the last put under the lock, which release drops */
	o.lock = &mtx;
	kref_init(&o.ref);
	kref_get(&o.ref);
	assert_int_equal(kref_put_mutex(&o.ref, obj_release_unlock, &mtx), 0);
	assert_false(mutex_is_locked(&mtx));
	assert_int_equal(kref_put_mutex(&o.ref, obj_release_unlock, &mtx), 1);
	assert_int_equal(o.released, 3);
	assert_false(mutex_is_locked(&mtx));
	assert_int_equal(f->c.reports, 2);
}

/* --------------------------------------------------------------- modules */

static int toy_param = 3;
module_param(toy_param, int, 0644);
MODULE_PARM_DESC(toy_param, "what toy_mod_init() returns");
static int toy_loaded;

static int __init toy_mod_init(void)
{
	toy_loaded++;
	return toy_param;
}

static void __exit toy_mod_exit(void)
{
	toy_loaded--;
}

module_init(toy_mod_init);
module_exit(toy_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a module in a test");

/* The boilerplate runs nothing: the test calls init and exit, and sets parameters by assignment. */
static void test_module_init_is_the_tests_to_call(void **state)
{
	(void)state;
	assert_int_equal(toy_loaded, 0);
	assert_int_equal(toy_mod_init(), 3);
	toy_param = -19;
	assert_int_equal(toy_mod_init(), -19);
	assert_int_equal(toy_loaded, 2);
	toy_mod_exit();
	toy_mod_exit();
	assert_int_equal(toy_loaded, 0);
	assert_string_equal(KBUILD_MODNAME, "dmamap_module");
	assert_null(THIS_MODULE);
	assert_true(try_module_get(THIS_MODULE));
	module_put(THIS_MODULE);
}

/* ------------------------------------------------------ platform devices */

/* Pages free on @m, counting those kmalloc keeps in its slabs as free (they hold no live object then). */
static unsigned long pages_free(struct dmamap_machine *m)
{
	struct dmamap_kmalloc_stats ks;

	dmamap_kmalloc_stats(m, &ks);
	return test_free_pages(m) + ks.slab_pages;
}

/* No kmalloc object live on @m. */
static unsigned long kmalloc_live(struct dmamap_machine *m)
{
	struct dmamap_kmalloc_stats ks;

	dmamap_kmalloc_stats(m, &ks);
	return ks.live_objects;
}

struct toyp {
	u8 *ring;
	dma_addr_t ring_dma;
	struct platform_device *pdev;
};

static char events[64];

static void event(char c)
{
	size_t n = strlen(events);

	if (n < sizeof(events) - 1) {
		events[n] = c;
		events[n + 1] = '\0';
	}
}

static void action_a(void *data)
{
	(void)data;
	event('A');
}

static void action_b(void *data)
{
	struct toyp *t = data;

	/* managed resources go newest first: the ring, taken before, is still there */
	assert_non_null(t->ring);
	event('B');
}

static int toyp_probe(struct platform_device *pdev)
{
	struct toyp *t = devm_kzalloc(&pdev->dev, sizeof(*t), GFP_KERNEL);
	int ret;

	event('p');
	if (!t)
		return -ENOMEM;
	ret = devm_add_action_or_reset(&pdev->dev, action_a, t);
	if (ret)
		return ret;
	t->ring = dmam_alloc_coherent(&pdev->dev, 2 * PAGE_SIZE, &t->ring_dma, GFP_KERNEL);
	if (!t->ring)
		return -ENOMEM;
	ret = devm_add_action_or_reset(&pdev->dev, action_b, t);
	if (ret)
		return ret;
	t->pdev = pdev;
	platform_set_drvdata(pdev, t);
	return 0;
}

static void toyp_remove(struct platform_device *pdev)
{
	struct toyp *t = platform_get_drvdata(pdev);

	/* the driver's data and its managed resources are all there during remove */
	assert_non_null(t);
	assert_ptr_equal(t->pdev, pdev);
	assert_ptr_equal(to_platform_device(&pdev->dev), pdev);
	t->ring[0] = 1;
	event('r');
}

static int toyp_probe_fails(struct platform_device *pdev)
{
	int ret = toyp_probe(pdev);

	return ret ? ret : -EIO;
}

static const struct platform_device_id toyp_ids[] = {
	{ "toyp", 1 },
	{ "toyp-v2", 2 },
	{ "", 0 },
};

static struct platform_driver toyp_driver = {
	.probe = toyp_probe,
	.remove = toyp_remove,
	.driver = { .name = "toyp", .owner = THIS_MODULE },
	.id_table = toyp_ids,
};

static struct platform_driver toyp_failing_driver = {
	.probe = toyp_probe_fails,
	.remove_new = toyp_remove,
	.driver = { .name = "toyp-failing" },
};

/* Probe, remove, then the managed resources newest first, then the driver data: the kernel's order. */
static void test_platform_probe_remove_order(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toyp", 0), *p2;
	unsigned long free0 = pages_free(f->m); /* after the machine's first device took its pools */
	struct toyp *t;

	assert_false(IS_ERR(pdev));
	assert_string_equal(dev_name(&pdev->dev), "toyp.0");
	assert_string_equal(pdev->name, "toyp");
	assert_int_equal(pdev->id, 0);
	assert_ptr_equal(dmamap_dev_machine(&pdev->dev), f->m);
	assert_true(*pdev->dev.dma_mask == DMA_BIT_MASK(32));
	events[0] = '\0';

	assert_int_equal(dmamap_platform_bind(pdev, &toyp_driver), 0);
	assert_string_equal(events, "p");
	t = platform_get_drvdata(pdev);
	assert_non_null(t);
	assert_non_null(t->ring);
	assert_ptr_equal(platform_get_device_id(pdev), &toyp_ids[0]);
	assert_int_equal(platform_get_device_id(pdev)->driver_data, 1);
	assert_true(pages_free(f->m) < free0);
	/* bound twice: refused, nothing called */
	assert_int_equal(dmamap_platform_bind(pdev, &toyp_driver), -EBUSY);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_string_equal(events, "p");

	dmamap_platform_unbind(pdev);
	assert_string_equal(events, "prBA");
	assert_null(platform_get_drvdata(pdev));
	assert_null(platform_get_device_id(pdev));
	assert_int_equal(pages_free(f->m), free0);
	assert_int_equal(kmalloc_live(f->m), 0);

	/* bound again, and destroyed bound: remove runs, then the resources go */
	events[0] = '\0';
	assert_int_equal(dmamap_platform_bind(pdev, &toyp_driver), 0);
	dmamap_platform_device_destroy(pdev);
	assert_string_equal(events, "prBA");
	assert_int_equal(pages_free(f->m), free0);
	assert_int_equal(kmalloc_live(f->m), 0);

	/* names as the kernel's: no id, an automatic one; an id_table entry of another name */
	pdev = dmamap_platform_device_create(NULL, "toyp-v2", PLATFORM_DEVID_NONE);
	p2 = dmamap_platform_device_create(f->m, "toyp", PLATFORM_DEVID_AUTO);
	assert_false(IS_ERR(pdev));
	assert_false(IS_ERR(p2));
	assert_ptr_equal(dmamap_dev_machine(&pdev->dev), f->m); /* the current machine */
	assert_string_equal(dev_name(&pdev->dev), "toyp-v2");
	assert_true(p2->id_auto);
	assert_non_null(strstr(dev_name(&p2->dev), ".auto"));
	assert_int_equal(dmamap_platform_bind(pdev, &toyp_driver), 0);
	assert_int_equal(platform_get_device_id(pdev)->driver_data, 2);
	dmamap_platform_device_destroy(p2);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(pages_free(f->m), free0);
	assert_int_equal(kmalloc_live(f->m), 0);
}

/* A failed probe: its managed resources released, the device left unbound, the kernel's message logged. */
static void test_platform_failed_probe_unwinds(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toyp", 3);
	unsigned long free0 = pages_free(f->m); /* after the machine's first device took its pools */
	struct capture g;
	char want[128];

	assert_false(IS_ERR(pdev));
	events[0] = '\0';
	assert_int_equal(dmamap_platform_bind(pdev, &toyp_failing_driver), -EIO);
	assert_string_equal(events, "pBA");
	assert_null(platform_get_drvdata(pdev));
	assert_int_equal(pages_free(f->m), free0);
	assert_int_equal(kmalloc_live(f->m), 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	snprintf(want, sizeof(want), "probe with driver toyp-failing failed with error %d", -EIO);
	if (!strstr(f->c.last, want))
		fail_msg("no \"%s\" in the last message: %s", want, f->c.last);
	assert_string_equal(f->c.last_device, "toyp.3");

	/* unbound: unbinding it is refused; another driver binds */
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(dmamap_platform_bind(pdev, &toyp_driver), 0);
	assert_string_equal(events, "pBAp");
	dmamap_platform_device_destroy(pdev);
	assert_string_equal(events, "pBAprBA");
	assert_int_equal(pages_free(f->m), free0);
	assert_int_equal(kmalloc_live(f->m), 0);

	/* refused arguments */
	assert_int_equal(PTR_ERR(dmamap_platform_device_create(f->m, "a-name-longer-than-19", 0)), -EINVAL);
	assert_int_equal(PTR_ERR(dmamap_platform_device_create(f->m, NULL, 0)), -EINVAL);
	assert_int_equal(PTR_ERR(dmamap_platform_device_create(f->m, "x", -3)), -EINVAL);
	capture_start(&g, NULL); /* a NULL device belongs to no machine */
	assert_int_equal(dmamap_platform_bind(NULL, &toyp_driver), -EINVAL);
	dmamap_platform_device_destroy(NULL); /* ignored, as kfree(NULL) */
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(g.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	f->c.reports = 0;
}

/* The int-returning .remove of kernels before 6.11, and their .remove_new, from a file in that layout. */
static void test_platform_remove_before_6_11(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "old", 0);

	assert_false(IS_ERR(pdev));
	old_remove_calls = 0;
	old_remove_result = 0;
	assert_int_equal(dmamap_platform_bind(pdev, &old_int_remove_driver), 0);
	assert_non_null(platform_get_drvdata(pdev));
	dmamap_platform_unbind(pdev);
	assert_int_equal(old_remove_calls, 1);
	assert_null(platform_get_drvdata(pdev));
	assert_int_equal(f->c.reports, 0);

	/* a non-zero return is reported and ignored: the driver is unbound all the same */
	old_remove_result = -EBUSY;
	assert_int_equal(dmamap_platform_bind(pdev, &old_int_remove_driver), 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(old_remove_calls, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "remove callback returned a non-zero value"));
	assert_null(platform_get_drvdata(pdev));

	assert_int_equal(dmamap_platform_bind(pdev, &old_remove_new_driver), 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(old_remove_calls, 102);
	f->c.reports = 0;
}

/* Resources given at creation: found by type and index, by name; the interrupt lines; what is missing. */
static void test_platform_resources(void **state)
{
	static const char dma_name[] = "dma";
	const struct resource res[] = {
		DEFINE_RES_MEM(0x10000000, 0x1000),
		DEFINE_RES_IRQ(17),
		DEFINE_RES_MEM_NAMED(0x10002000, 0x100, dma_name),
		DEFINE_RES_IRQ_NAMED(18, "err"),
		DEFINE_RES_IRQ(0),
		DEFINE_RES_IRQ_NAMED(0, "zero"),
	};
	const struct resource backwards[] = { { 0x2000, 0x1fff, NULL, IORESOURCE_MEM, 0 } };
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create_res(f->m, "res", 0, res, 4);
	struct platform_device *bare = dmamap_platform_device_create(f->m, "bare", 0);
	struct resource *r;

	assert_false(IS_ERR(pdev));
	assert_false(IS_ERR(bare));
	assert_int_equal(pdev->num_resources, 4);
	assert_ptr_not_equal(pdev->resource, res); /* the device's own copy */

	r = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	assert_non_null(r);
	assert_int_equal(r->start, 0x10000000);
	assert_int_equal(r->end, 0x10000fff);
	assert_int_equal(resource_size(r), 0x1000);
	r = platform_get_resource(pdev, IORESOURCE_MEM, 1);
	assert_non_null(r);
	assert_int_equal(r->start, 0x10002000);
	assert_int_equal(resource_type(r), IORESOURCE_MEM);
	assert_null(platform_get_resource(pdev, IORESOURCE_MEM, 2));
	assert_ptr_equal(platform_get_resource_byname(pdev, IORESOURCE_MEM, "dma"), r);
	assert_null(platform_get_resource_byname(pdev, IORESOURCE_IRQ, "dma"));
	assert_int_equal(platform_get_resource_byname(pdev, IORESOURCE_IRQ, "err")->start, 18);

	assert_int_equal(platform_irq_count(pdev), 2);
	assert_int_equal(platform_get_irq(pdev, 0), 17);
	assert_int_equal(platform_get_irq(pdev, 1), 18);
	assert_int_equal(f->c.messages, 0);
	assert_int_equal(platform_get_irq_optional(pdev, 2), -ENXIO);
	assert_int_equal(f->c.messages, 0);
	assert_int_equal(platform_get_irq(pdev, 2), -ENXIO);
	assert_int_equal(f->c.messages, 1);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	assert_non_null(strstr(f->c.last, "IRQ index 2 not found"));
	/* by name: an interrupt's name only */
	assert_int_equal(platform_get_irq_byname(pdev, "err"), 18);
	assert_int_equal(platform_get_irq_byname_optional(pdev, "err"), 18);
	assert_int_equal(platform_get_irq_byname_optional(pdev, "dma"), -ENXIO);
	assert_int_equal(platform_get_irq_byname_optional(pdev, NULL), -ENXIO);
	assert_int_equal(f->c.messages, 1);
	assert_int_equal(platform_get_irq_byname(pdev, "dma"), -ENXIO);
	assert_int_equal(f->c.messages, 2);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	assert_non_null(strstr(f->c.last, "error -ENXIO: IRQ dma not found"));
	{
		struct capture g;

		capture_start(&g, NULL); /* a NULL device belongs to no machine */
		assert_int_equal(platform_get_irq_byname(NULL, "err"), -EINVAL);
		capture_stop(NULL);
		assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	}

	assert_null(platform_get_resource(bare, IORESOURCE_MEM, 0));
	assert_int_equal(platform_irq_count(bare), 0);
	assert_int_equal(platform_get_irq_optional(bare, 0), -ENXIO);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(bare);
	dmamap_platform_device_destroy(pdev);

	/* line 0 is no interrupt, as in the kernel */
	pdev = dmamap_platform_device_create_res(f->m, "res", 1, res + 4, 2);
	assert_false(IS_ERR(pdev));
	assert_int_equal(platform_get_irq(pdev, 0), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(platform_get_irq_byname(pdev, "zero"), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_non_null(strstr(f->c.last, "platform_get_irq_byname: 0 is an invalid IRQ number"));
	dmamap_platform_device_destroy(pdev);

	/* refused: no array, a resource that ends before it starts */
	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "res", 2, NULL, 1), ERR_PTR(-EINVAL));
	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "res", 2, backwards, 1), ERR_PTR(-EINVAL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	f->c.reports = 0;
}


/* ------------------------------------------------------ register windows */

#define REGS_BASE 0x10000000u
#define REGS_SIZE 0x1000u
#define REG_ID 0x00
#define REG_CTRL 0x04
#define REG_STATUS 0x08   /* set by the hardware; the driver writes back what it saw (write 1 to clear) */
#define REG_LAST (REGS_SIZE - 4)
#define FIFO_BASE (REGS_BASE + 0x2000u)
#define FIFO_SIZE 0x100u
#define REGS_IRQ 21

static const struct resource regs_res[] = {
	DEFINE_RES_MEM(REGS_BASE, REGS_SIZE),
	DEFINE_RES_IRQ_NAMED(REGS_IRQ, "done"),
	DEFINE_RES_MEM_NAMED(FIFO_BASE, FIFO_SIZE, "fifo"),
};

/* The last message logged (a report or not) holds @text at @level. */
static void assert_logged(const struct capture *c, int level, const char *text)
{
	if (!strstr(c->last, text))
		fail_msg("no \"%s\" in the last message: %s", text, c->last);
	assert_int_equal(c->last_level, level);
}

static struct platform_device *regs_device(struct current_fx *f, const char *name)
{
	struct platform_device *pdev = dmamap_platform_device_create_res(f->m, name, 0, regs_res, ARRAY_SIZE(regs_res));

	assert_false(IS_ERR(pdev));
	return pdev;
}

struct regdrv {
	u8 __iomem *base, *fifo;
	struct resource *res;
	u32 status_seen;
};

static irqreturn_t regdrv_irq(int irq, void *data)
{
	struct regdrv *d = data;
	u32 st = readl(d->base + REG_STATUS);

	(void)irq;
	if (!st)
		return IRQ_NONE;
	d->status_seen = st;
	writel(st, d->base + REG_STATUS);
	return IRQ_HANDLED;
}

/* A probe as drivers write it: the windows by index and by name, the ID register, the interrupt, then start. */
static int regdrv_probe(struct platform_device *pdev)
{
	struct regdrv *d = devm_kzalloc(&pdev->dev, sizeof(*d), GFP_KERNEL);
	int irq, ret;

	if (!d)
		return -ENOMEM;
	d->base = devm_platform_get_and_ioremap_resource(pdev, 0, &d->res);
	if (IS_ERR(d->base))
		return PTR_ERR(d->base);
	d->fifo = devm_platform_ioremap_resource_byname(pdev, "fifo");
	if (IS_ERR(d->fifo))
		return PTR_ERR(d->fifo);
	if (readl(d->base + REG_ID) != 0x5eed)
		return -ENODEV;
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	ret = devm_request_irq(&pdev->dev, irq, regdrv_irq, 0, NULL, d);
	if (ret)
		return ret;
	platform_set_drvdata(pdev, d);
	writel(1, d->base + REG_CTRL);
	writel(0xa5a5a5a5, d->base + REG_LAST); /* the window's last word */
	writeb(0x5a, d->fifo + FIFO_SIZE - 1);  /* and the other's last byte */
	return 0;
}

static void regdrv_remove(struct platform_device *pdev)
{
	struct regdrv *d = platform_get_drvdata(pdev);

	writel(0, d->base + REG_CTRL);
}

static struct platform_driver regdrv_driver = {
	.probe = regdrv_probe,
	.remove = regdrv_remove,
	.driver = { .name = "regdrv" },
};

/*
 * The windows of a device's memory resources, zeroed, found by index and
 * by name; the driver maps them at probe and they are the test's bytes: an
 * ID register set before the probe, what the driver wrote, a status
 * register raised with the interrupt. The mappings and their regions go at
 * unbind, the windows stay with their bytes until the device goes.
 */
static void test_platform_register_windows(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	struct platform_device *irqonly = dmamap_platform_device_create_res(f->m, "irqonly", 0, regs_res + 1, 1);
	u32 *regs = dmamap_platform_regs(pdev, 0);
	u8 *fifo = dmamap_platform_regs_byname(pdev, "fifo");
	struct regdrv *d;

	assert_false(IS_ERR(irqonly));
	assert_non_null(regs);
	assert_non_null(fifo);
	assert_ptr_equal(dmamap_platform_regs(pdev, 1), fifo);
	assert_ptr_not_equal(regs, fifo);
	for (unsigned i = 0; i < REGS_SIZE / 4; i++)
		assert_int_equal(regs[i], 0);
	for (unsigned i = 0; i < FIFO_SIZE; i++)
		assert_int_equal(fifo[i], 0);
	assert_int_equal(f->c.reports, 0);

	/* the hardware's identification, before the probe reads it */
	regs[REG_ID / 4] = cpu_to_le32(0x5eed);
	assert_int_equal(dmamap_platform_bind(pdev, &regdrv_driver), 0);
	d = platform_get_drvdata(pdev);
	assert_ptr_equal(d->base, regs);
	assert_ptr_equal(d->fifo, fifo);
	assert_ptr_equal(d->res, &pdev->resource[0]);
	assert_int_equal(le32_to_cpu(regs[REG_CTRL / 4]), 1);
	assert_int_equal(le32_to_cpu(regs[REG_LAST / 4]), 0xa5a5a5a5);
	assert_int_equal(fifo[FIFO_SIZE - 1], 0x5a);
	/* the state, a region and a mapping for each window, the handler */
	assert_int_equal(dmamap_devres_count(&pdev->dev), 6);

	/* the hardware finished something: the status, then the interrupt */
	regs[REG_STATUS / 4] = cpu_to_le32(0x4);
	assert_int_equal(dmamap_irq_raise(f->m, REGS_IRQ), 1);
	assert_int_equal(d->status_seen, 0x4);
	assert_int_equal(le32_to_cpu(regs[REG_STATUS / 4]), 0x4); /* the driver's acknowledgement */

	dmamap_platform_unbind(pdev);
	assert_int_equal(dmamap_devres_count(&pdev->dev), 0);
	assert_int_equal(le32_to_cpu(regs[REG_CTRL / 4]), 0); /* remove() stopped it */
	assert_int_equal(le32_to_cpu(regs[REG_LAST / 4]), 0xa5a5a5a5);
	assert_ptr_equal(dmamap_platform_regs(pdev, 0), regs);
	/* the regions went with the driver: it binds again */
	assert_int_equal(dmamap_platform_bind(pdev, &regdrv_driver), 0);
	assert_int_equal(f->c.reports, 0);

	/* a window the device does not have */
	assert_null(dmamap_platform_regs(pdev, 2));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(f->c.rec_last.message, "no memory resource 2"));
	assert_null(dmamap_platform_regs_byname(pdev, "done")); /* an interrupt's name */
	assert_null(dmamap_platform_regs_byname(pdev, NULL));
	assert_null(dmamap_platform_regs(irqonly, 0));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	dmamap_platform_device_destroy(irqonly);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(kmalloc_live(f->m), 0);
	assert_int_equal(f->c.reports, 4);
	f->c.reports = 0;
}

/*
 * devm_ioremap_resource() refusing, as the kernel's: no resource, one of
 * another type, a region requested already (kept past devm_iounmap(), until
 * the unbind), one no window holds; each logged, nothing left behind.
 */
static void test_devm_ioremap_resource_refusals(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	struct device *dev = &pdev->dev;
	u8 *regs = dmamap_platform_regs(pdev, 0);
	const struct resource sub = DEFINE_RES_MEM(REGS_BASE + 0x800, 0x10);
	const struct resource outside = DEFINE_RES_MEM(0x20000000, 0x100);
	const struct resource across = DEFINE_RES_MEM(REGS_BASE + 0xf00, 0x200);
	const struct resource backwards = { REGS_BASE + 0x10, REGS_BASE + 0xf, NULL, IORESOURCE_MEM, 0 };
	struct capture g;
	void __iomem *p;

	assert_ptr_equal(devm_ioremap_resource(dev, NULL), ERR_PTR(-EINVAL));
	assert_logged(&f->c, DMAMAP_LOG_ERR, "invalid resource (null)");
	assert_ptr_equal(devm_ioremap_resource(dev, &pdev->resource[1]), ERR_PTR(-EINVAL));
	assert_logged(&f->c, DMAMAP_LOG_ERR, "invalid resource [irq 21]");
	assert_string_equal(f->c.last_device, "regs.0");
	assert_int_equal(dmamap_devres_count(dev), 0);
	assert_int_equal(f->c.reports, 0);

	p = devm_ioremap_resource(dev, &pdev->resource[0]);
	assert_ptr_equal(p, regs);
	assert_int_equal(dmamap_devres_count(dev), 2);
	/* the region is requested: the resource again, or a part of it, is busy */
	assert_ptr_equal(devm_ioremap_resource(dev, &pdev->resource[0]), ERR_PTR(-EBUSY));
	assert_logged(&f->c, DMAMAP_LOG_ERR, "can't request region for resource [mem 0x10000000-0x10000fff]");
	assert_ptr_equal(devm_ioremap_resource(dev, &sub), ERR_PTR(-EBUSY));
	assert_int_equal(dmamap_devres_count(dev), 2);
	/* unmapped, the region stays requested until the driver unbinds */
	devm_iounmap(dev, p);
	assert_int_equal(dmamap_devres_count(dev), 1);
	assert_ptr_equal(devm_ioremap_resource(dev, &sub), ERR_PTR(-EBUSY));
	dmamap_device_unbind(dev);
	assert_int_equal(dmamap_devres_count(dev), 0);
	/* a range of the window, described by a resource of the driver's own */
	assert_ptr_equal(devm_ioremap_resource(dev, &sub), regs + 0x800);
	assert_int_equal(f->c.reports, 0);

	/* no window holds it, or not wholly: nothing mapped, nothing requested */
	assert_ptr_equal(devm_ioremap_resource(dev, &outside), ERR_PTR(-ENOMEM));
	assert_logged(&f->c, DMAMAP_LOG_ERR, "ioremap failed for resource [mem 0x20000000-0x200000ff]");
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_ptr_equal(devm_ioremap_resource(dev, &across), ERR_PTR(-ENOMEM));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 2);
	assert_ptr_equal(devm_ioremap_resource(dev, &backwards), ERR_PTR(-EBUSY));
	assert_int_equal(dmamap_devres_count(dev), 2);
	/* the last byte of the window, requested on its own: the failures above requested nothing */
	{
		const struct resource last = DEFINE_RES_MEM(REGS_BASE + REGS_SIZE - 1, 1);

		assert_ptr_equal(devm_ioremap_resource(dev, &last), regs + REGS_SIZE - 1);
	}
	capture_start(&g, NULL); /* a NULL device belongs to no machine */
	assert_ptr_equal(devm_ioremap_resource(NULL, &sub), ERR_PTR(-EINVAL));
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.reports, 2);
	dmamap_device_unbind(dev);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 2);
	f->c.reports = 0;
}

/* Whether a request of [start, start + n) on the current machine is refused (busy); one granted is given back. */
static bool region_busy_now(phys_addr_t start, phys_addr_t n)
{
	struct resource *r = request_mem_region(start, n, "probe");

	if (r)
		release_mem_region(start, n);
	return !r;
}

/*
 * request_mem_region() and release_mem_region(): a region of any range
 * but RAM, with the resource the kernel returns; busy while any requested
 * region overlaps it, to the byte on either side; released by its bounds
 * alone, a release of other bounds refused and reported, nothing changed.
 */
static void test_mem_regions(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	struct dmamap_machine_config cfg;
	phys_addr_t ram, ram_end;
	struct resource *r;

	dmamap_machine_get_config(f->m, &cfg);
	ram = cfg.ram_base;
	ram_end = ram + cfg.ram_size;

	r = request_mem_region(REGS_BASE + 0x100, 0x100, "mydrv");
	assert_non_null(r);
	assert_int_equal(r->start, REGS_BASE + 0x100);
	assert_int_equal(r->end, REGS_BASE + 0x1ff);
	assert_string_equal(r->name, "mydrv");
	assert_int_equal(r->flags, IORESOURCE_MEM | IORESOURCE_BUSY);
	assert_int_equal(resource_size(r), 0x100);
	/* the bytes on either side are free, the first and the last are not */
	assert_false(region_busy_now(REGS_BASE, 0x100));
	assert_false(region_busy_now(REGS_BASE + 0x200, 0x100));
	assert_true(region_busy_now(REGS_BASE + 0xff, 2));
	assert_true(region_busy_now(REGS_BASE + 0x1ff, 1));
	assert_true(region_busy_now(REGS_BASE, REGS_SIZE));
	/* a mapping that requests the window is refused too */
	assert_ptr_equal(devm_ioremap_resource(&pdev->dev, &pdev->resource[0]), ERR_PTR(-EBUSY));
	assert_int_equal(dmamap_devres_count(&pdev->dev), 0);
	/* RAM is busy, to its first and last byte; past it, and outside any window, a region may be had */
	assert_true(region_busy_now(ram, PAGE_SIZE));
	assert_true(region_busy_now(ram_end - 1, 1));
	assert_true(region_busy_now(ram - 1, 2));
	assert_false(region_busy_now(ram_end, PAGE_SIZE));
	assert_false(region_busy_now(ram - PAGE_SIZE, PAGE_SIZE));
	/* empty and wrapping ranges are refused, as the kernel's */
	assert_null(request_mem_region(REGS_BASE + 0x800, 0, "none"));
	assert_null(request_mem_region(~(phys_addr_t)0 - 0xf, 0x20, "wraps"));
	assert_int_equal(f->c.reports, 0);

	/* released by other bounds: refused, reported, the region still there */
	release_mem_region(REGS_BASE + 0x100, 0x80);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.last, "release_mem_region(0x10000100, 0x80): no region requested with "
					  "request_mem_region() is with these bounds; nothing released"));
	assert_int_equal(f->c.rec_last.line, __LINE__ - 4);
	assert_true(region_busy_now(REGS_BASE + 0x100, 1));
	release_mem_region(REGS_BASE + 0x101, 0xff);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_true(region_busy_now(REGS_BASE + 0x1ff, 1));

	release_mem_region(REGS_BASE + 0x100, 0x100);
	assert_false(region_busy_now(REGS_BASE, REGS_SIZE));
	/* released twice: the second finds nothing */
	release_mem_region(REGS_BASE + 0x100, 0x100);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	assert_int_equal(f->c.reports, 3);

	/* no current machine: refused, reported, and the machine's regions untouched */
	{
		struct capture g;

		assert_non_null(request_mem_region(REGS_BASE, 0x10, "kept"));
		capture_start(&g, NULL);
		dmamap_machine_set_current(NULL);
		assert_null(request_mem_region(REGS_BASE + 0x10, 0x10, "none"));
		release_mem_region(REGS_BASE, 0x10);
		dmamap_machine_set_current(f->m);
		capture_stop(NULL);
		assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
		assert_non_null(strstr(g.last, "release_mem_region(0x10000000, 0x10): no current machine"));
		assert_true(region_busy_now(REGS_BASE, 1));
		assert_false(region_busy_now(REGS_BASE + 0x10, 0x10));
		release_mem_region(REGS_BASE, 0x10);
	}
	assert_int_equal(f->c.reports, 3);
	f->c.reports = 0;
	dmamap_platform_device_destroy(pdev);
}

/*
 * devm_request_mem_region() and devm_release_mem_region(): the region a
 * managed resource, gone at the unbind or by its bounds; release_mem_region()
 * of it refused with who requested it; devm_release_mem_region() of the
 * region devm_ioremap_resource() requested releases it and keeps the mapping.
 */
static void test_devm_mem_regions(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	struct device *dev = &pdev->dev;
	struct resource *r;
	void __iomem *p;
	struct capture g;

	r = devm_request_mem_region(dev, REGS_BASE, REGS_SIZE, dev_name(dev));
	assert_non_null(r);
	assert_int_equal(r->flags, IORESOURCE_MEM | IORESOURCE_BUSY);
	assert_int_equal(dmamap_devres_count(dev), 1);
	assert_null(devm_request_mem_region(dev, REGS_BASE + REGS_SIZE - 1, 1, "again"));
	assert_int_equal(dmamap_devres_count(dev), 1);
	/* not the plain release's to give back */
	release_mem_region(REGS_BASE, REGS_SIZE);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.last, "devm_request_mem_region() of regs.0 requested it at"));
	assert_true(region_busy_now(REGS_BASE, 1));
	devm_release_mem_region(dev, REGS_BASE, REGS_SIZE);
	assert_int_equal(dmamap_devres_count(dev), 0);
	assert_false(region_busy_now(REGS_BASE, REGS_SIZE));
	devm_release_mem_region(dev, REGS_BASE, REGS_SIZE);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(f->c.last, "no region the device requested is with these bounds"));

	/* a region requested without a device is not the device's to give back */
	assert_non_null(request_mem_region(FIFO_BASE, FIFO_SIZE, "plain"));
	devm_release_mem_region(dev, FIFO_BASE, FIFO_SIZE);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	assert_non_null(strstr(f->c.last, "request_mem_region() requested it at"));
	release_mem_region(FIFO_BASE, FIFO_SIZE);

	/* the unbind gives it back */
	assert_non_null(devm_request_mem_region(dev, REGS_BASE, 0x10, "x"));
	dmamap_device_unbind(dev);
	assert_int_equal(dmamap_devres_count(dev), 0);
	assert_false(region_busy_now(REGS_BASE, 0x10));

	/* the region of devm_ioremap_resource(), released by its bounds: the mapping stays */
	p = devm_ioremap_resource(dev, &pdev->resource[0]);
	assert_ptr_equal(p, dmamap_platform_regs(pdev, 0));
	assert_int_equal(dmamap_devres_count(dev), 2);
	devm_release_mem_region(dev, REGS_BASE, REGS_SIZE);
	assert_int_equal(dmamap_devres_count(dev), 1);
	assert_false(region_busy_now(REGS_BASE, REGS_SIZE));
	dmamap_device_unbind(dev);

	/* no memory for the region's record, or for the managed one: nothing requested */
	for (unsigned nth = 1; nth <= 2; nth++) {
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		assert_null(devm_request_mem_region(dev, REGS_BASE, 0x10, "x"));
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		assert_int_equal(dmamap_devres_count(dev), 0);
		assert_false(region_busy_now(REGS_BASE, 0x10));
	}

	capture_start(&g, NULL); /* a NULL device belongs to no machine */
	assert_null(devm_request_mem_region(NULL, REGS_BASE, 0x10, "x"));
	devm_release_mem_region(NULL, REGS_BASE, 0x10);
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_int_equal(f->c.reports, 3);
	f->c.reports = 0;
	dmamap_platform_device_destroy(pdev);
}

/*
 * The other names of the mappings (ioremap_uc(), ioremap_wt(),
 * ioremap_cache(), devm_ioremap_uc(), devm_ioremap_np(),
 * devm_platform_ioremap_resource_wc()): the same window, the same managed
 * records and region; and the bitmaps of kmalloc() memory and
 * devm_kstrdup_const(), counted as the memory they are.
 */
static void test_mapping_aliases_and_managed_bitmaps(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	struct device *dev = &pdev->dev;
	u8 *regs = dmamap_platform_regs(pdev, 0);
	void __iomem *p[3];
	unsigned long *b;
	const char *name = "regs-ctrl", *copy;

	p[0] = ioremap_uc(REGS_BASE, 4);
	p[1] = ioremap_wt(REGS_BASE + 4, 4);
	p[2] = ioremap_cache(REGS_BASE + REGS_SIZE - 4, 4);
	assert_ptr_equal(p[0], regs);
	assert_ptr_equal(p[1], regs + 4);
	assert_ptr_equal(p[2], regs + REGS_SIZE - 4);
	for (int i = 0; i < 3; i++)
		iounmap(p[i]);
	assert_null(ioremap_cache(REGS_BASE + REGS_SIZE - 4, 8)); /* past the window */
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_ptr_equal(devm_ioremap_uc(dev, REGS_BASE, 0x10), regs);
	assert_ptr_equal(devm_ioremap_np(dev, REGS_BASE + 0x10, 0x10), regs + 0x10);
	assert_int_equal(dmamap_devres_count(dev), 2);
	assert_ptr_equal(devm_platform_ioremap_resource_wc(pdev, 0), regs);
	assert_int_equal(dmamap_devres_count(dev), 4); /* its region and its mapping */
	assert_ptr_equal(devm_platform_ioremap_resource_wc(pdev, 0), ERR_PTR(-EBUSY));
	assert_ptr_equal(devm_ioremap_resource_wc(dev, &pdev->resource[0]), ERR_PTR(-EBUSY));
	assert_ptr_equal(devm_ioremap_resource_wc(dev, &pdev->resource[2]), dmamap_platform_regs(pdev, 1));
	assert_int_equal(dmamap_devres_count(dev), 6);

	b = bitmap_zalloc(130, GFP_KERNEL);
	assert_non_null(b);
	assert_int_equal(kmalloc_live(f->m), 1);
	assert_int_equal(b[0] | b[1] | b[2], 0);
	bitmap_set(b, 64, 66);
	assert_int_equal(bitmap_weight(b, 130), 66);
	bitmap_free(b);
	b = bitmap_alloc(1, GFP_KERNEL);
	assert_non_null(b);
	bitmap_free(b);
	bitmap_free(NULL);
	assert_int_equal(kmalloc_live(f->m), 0);

	b = devm_bitmap_zalloc(dev, 65, GFP_KERNEL);
	assert_non_null(b);
	assert_int_equal(b[0] | b[1], 0);
	assert_non_null(devm_bitmap_alloc(dev, 8, GFP_KERNEL));
	copy = devm_kstrdup_const(dev, name, GFP_KERNEL);
	assert_ptr_not_equal(copy, name);
	assert_string_equal(copy, name);
	assert_int_equal(dmamap_devres_count(dev), 9);
	devm_kfree(dev, copy);
	assert_int_equal(dmamap_devres_count(dev), 8);
	dmamap_device_unbind(dev);
	assert_int_equal(dmamap_devres_count(dev), 0);
	assert_int_equal(kmalloc_live(f->m), 0);
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
	dmamap_platform_device_destroy(pdev);
}

/* A region request_mem_region() left at the machine's destruction: a leak, at the line that requested it. */
static void test_mem_region_left_at_destroy(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct capture c;
	int line;
	(void)state;

	line = __LINE__ + 1;
	assert_non_null(dmamap_request_mem_region_at(m, 0x30000000, 0x1000, "left", __FILE__, __LINE__));
	assert_non_null(dmamap_request_mem_region_at(m, 0x30001000, 0x1000, "given back", __FILE__, __LINE__));
	dmamap_release_mem_region_at(m, 0x30001000, 0x1000, __FILE__, __LINE__);
	capture_start(&c, m);
	test_machine_destroy(m);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(c.rec_last.line, line);
	assert_non_null(strstr(c.last, "request_mem_region() region [mem 0x30000000-0x30000fff] still requested at "
				       "machine destroy"));
	capture_stop(NULL);
}

/* The devm_platform_ioremap_resource() family: by index, with the resource, by name; what each refuses. */
static void test_devm_platform_ioremap_lookups(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	u8 *regs = dmamap_platform_regs(pdev, 0), *fifo = dmamap_platform_regs(pdev, 1);
	struct resource *r = (struct resource *)&r;
	struct capture g;

	assert_ptr_equal(devm_platform_ioremap_resource(pdev, 1), fifo);
	assert_ptr_equal(devm_platform_ioremap_resource(pdev, 2), ERR_PTR(-EINVAL));
	assert_logged(&f->c, DMAMAP_LOG_ERR, "invalid resource (null)");
	assert_ptr_equal(devm_platform_get_and_ioremap_resource(pdev, 2, &r), ERR_PTR(-EINVAL));
	assert_null(r);
	assert_ptr_equal(devm_platform_get_and_ioremap_resource(pdev, 0, &r), regs);
	assert_ptr_equal(r, &pdev->resource[0]);
	assert_int_equal(dmamap_devres_count(&pdev->dev), 4);
	/* the name of a window mapped already, a name no window has, an interrupt's name */
	assert_ptr_equal(devm_platform_ioremap_resource_byname(pdev, "fifo"), ERR_PTR(-EBUSY));
	assert_ptr_equal(devm_platform_ioremap_resource_byname(pdev, "nope"), ERR_PTR(-EINVAL));
	assert_ptr_equal(devm_platform_ioremap_resource_byname(pdev, "done"), ERR_PTR(-EINVAL));
	assert_logged(&f->c, DMAMAP_LOG_ERR, "invalid resource (null)");
	assert_ptr_equal(devm_platform_ioremap_resource_byname(pdev, NULL), ERR_PTR(-EINVAL));
	assert_int_equal(dmamap_devres_count(&pdev->dev), 4);
	assert_int_equal(f->c.reports, 0);
	dmamap_device_unbind(&pdev->dev);
	assert_ptr_equal(devm_platform_ioremap_resource_byname(pdev, "fifo"), fifo);

	capture_start(&g, NULL); /* a NULL device belongs to no machine */
	assert_ptr_equal(devm_platform_ioremap_resource(NULL, 0), ERR_PTR(-EINVAL));
	r = (struct resource *)&r;
	assert_ptr_equal(devm_platform_get_and_ioremap_resource(NULL, 0, &r), ERR_PTR(-EINVAL));
	assert_null(r);
	assert_ptr_equal(devm_platform_ioremap_resource_byname(NULL, "fifo"), ERR_PTR(-EINVAL));
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_int_equal(g.reports, 3);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/*
 * ioremap() on the current machine: any range a window holds wholly, to its
 * last byte; iounmap() of what it returned, once; what neither takes,
 * reported.
 */
static void test_ioremap_and_iounmap(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	u8 *regs = dmamap_platform_regs(pdev, 0);
	void __iomem *p, *q, *wc, *np, *d;
	struct capture g;

	p = ioremap(REGS_BASE + 0x10, 0x20);
	assert_ptr_equal(p, regs + 0x10);
	writel(7, p);
	assert_int_equal(le32_to_cpu(*(u32 *)(regs + 0x10)), 7);
	q = ioremap(REGS_BASE + REGS_SIZE - 1, 1);
	assert_ptr_equal(q, regs + REGS_SIZE - 1);
	writeb(0x77, q);
	assert_int_equal(regs[REGS_SIZE - 1], 0x77);
	wc = ioremap_wc(REGS_BASE, 4);
	np = ioremap_np(FIFO_BASE, FIFO_SIZE);
	assert_ptr_equal(wc, regs);
	assert_ptr_equal(np, dmamap_platform_regs(pdev, 1));
	assert_int_equal(f->c.reports, 0);

	/* one byte past the window, one before it, between the windows, nothing at all */
	assert_null(ioremap(REGS_BASE + REGS_SIZE - 1, 2));
	assert_null(ioremap(REGS_BASE - 1, 1));
	assert_null(ioremap(REGS_BASE + REGS_SIZE, 4));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 3);
	assert_non_null(strstr(f->c.rec_last.message, "no register window"));
	assert_null(ioremap(REGS_BASE, 0));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);

	iounmap(p);
	iounmap(np);
	assert_int_equal(f->c.reports, 4);
	iounmap(p); /* once only */
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "nonexistent vm area"));
	iounmap(NULL);
	/* only the address returned names a mapping: not another in it, though @wc covers it */
	iounmap(regs + 0x2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	iounmap(wc);
	iounmap(q);
	assert_int_equal(f->c.reports, 6);

	/* a managed mapping undone by iounmap(): reported, undone all the same, forgotten by the device */
	d = devm_ioremap(&pdev->dev, REGS_BASE, 0x10);
	assert_ptr_equal(d, regs);
	assert_int_equal(dmamap_devres_count(&pdev->dev), 1);
	iounmap(d);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	assert_non_null(strstr(f->c.rec_last.message, "devm_iounmap() undoes it"));
	assert_int_equal(dmamap_devres_count(&pdev->dev), 0);

	/* no current machine, no window */
	capture_start(&g, NULL);
	dmamap_machine_set_current(NULL);
	assert_null(ioremap(REGS_BASE, 4));
	dmamap_machine_set_current(f->m);
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.reports, 7);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 7);
	f->c.reports = 0;
}

/* devm_ioremap(): managed, no region requested, undone by devm_iounmap() or at unbind; what it refuses. */
static void test_devm_ioremap_and_devm_iounmap(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs");
	struct device *dev = &pdev->dev, zd = { 0 };
	u8 *regs = dmamap_platform_regs(pdev, 0);
	void __iomem *a, *b;
	struct capture g;

	a = devm_ioremap(dev, REGS_BASE + 0x100, 0x100);
	assert_ptr_equal(a, regs + 0x100);
	b = devm_ioremap_wc(dev, REGS_BASE, REGS_SIZE);
	assert_ptr_equal(b, regs);
	assert_int_equal(dmamap_devres_count(dev), 2);
	/* no region was requested */
	assert_ptr_equal(devm_ioremap_resource(dev, &pdev->resource[0]), regs);
	assert_int_equal(dmamap_devres_count(dev), 4);
	devm_iounmap(dev, a);
	assert_int_equal(dmamap_devres_count(dev), 3);
	assert_int_equal(f->c.reports, 0);
	/* twice: the kernel's WARN_ON, then iounmap() finds nothing either */
	devm_iounmap(dev, a);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_int_equal(dmamap_devres_count(dev), 3);

	assert_null(devm_ioremap(dev, 0x20000000, 4));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_null(devm_ioremap(dev, REGS_BASE, 0));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	capture_start(&g, NULL); /* no machine's devices */
	assert_null(devm_ioremap(NULL, REGS_BASE, 4));
	assert_null(devm_ioremap(&zd, REGS_BASE, 4));
	devm_iounmap(&zd, b);
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_int_equal(dmamap_devres_count(dev), 3);

	/* the driver's unbind undoes the rest */
	dmamap_device_unbind(dev);
	assert_int_equal(dmamap_devres_count(dev), 0);
	iounmap(b);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	assert_int_equal(f->c.reports, 5);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 5);
	f->c.reports = 0;
}

/*
 * The windows go with their device, mapped or not: an ioremap() left is a
 * leak at its line, as is another device's managed mapping; the range is
 * free for a new device then. A machine destroyed under a live device
 * reports the same, and the device is destroyed after it.
 */
static void test_windows_go_with_their_device(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = regs_device(f, "regs"), *other, *late;
	struct dmamap_machine *m2;
	struct capture g;
	u32 *regs;
	int line;

	line = __LINE__ + 1;
	assert_non_null(ioremap(REGS_BASE + 0x40, 8));
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.file, "test-linux-lib.c"));
	assert_non_null(strstr(f->c.rec_last.message, "ioremap() mapping of 0x8 bytes at phys 0x10000040"));
	assert_null(ioremap(REGS_BASE + 0x40, 8));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);

	/* the range is free again; the new window is zeroed */
	pdev = regs_device(f, "regs");
	regs = dmamap_platform_regs(pdev, 0);
	assert_int_equal(regs[0x40 / 4], 0);
	/* another device maps it, managed: reported when the window goes, forgotten at its own unbind */
	other = dmamap_platform_device_create(f->m, "other", 0);
	assert_false(IS_ERR(other));
	assert_ptr_equal(devm_ioremap(&other->dev, REGS_BASE, 4), regs);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_string_equal(f->c.rec_last.device, "other.0");
	assert_int_equal(dmamap_devres_count(&other->dev), 1);
	dmamap_platform_device_destroy(other);
	assert_int_equal(f->c.reports, 3);
	f->c.reports = 0;

	/* the machine goes first: the mapping left is reported, the window stays the device's */
	m2 = test_machine(16, NULL);
	capture_start(&g, m2);
	late = dmamap_platform_device_create_res(m2, "late", 0, regs_res, ARRAY_SIZE(regs_res));
	assert_false(IS_ERR(late));
	assert_non_null(dmamap_ioremap_at(m2, FIFO_BASE, 4, NULL, 0));
	dmamap_machine_destroy(m2);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_LEAK], 2); /* the device still there, the mapping */
	assert_int_equal(g.reports, 2);
	assert_int_equal(*(u32 *)dmamap_platform_regs(late, 1), 0);
	dmamap_platform_device_destroy(late);
}

/* Windows never overlap: a device whose memory resources would is refused, nothing made; adjacent ones are fine. */
static void test_overlapping_windows_refused(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *a = regs_device(f, "a"), *b;
	const struct resource over[] = { DEFINE_RES_MEM(REGS_BASE + REGS_SIZE - 4, 8) };
	const struct resource next[] = { DEFINE_RES_MEM(REGS_BASE + REGS_SIZE, 8) };
	const struct resource own[] = { DEFINE_RES_MEM(0x20000000, 0x100), DEFINE_RES_IRQ(3),
					DEFINE_RES_MEM(0x200000ff, 0x10) };
	const struct resource empty[] = { DEFINE_RES_MEM(0x30000000, 0) };
	const struct resource inside[] = { DEFINE_RES_MEM(REGS_BASE + 0x100, 0x10) };

	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "b", 0, over, 1), ERR_PTR(-EBUSY));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(f->c.rec_last.message, "failed to claim resource 0: [mem 0x10000ffc-0x10001003]"));
	assert_non_null(strstr(f->c.rec_last.message, "a.0"));
	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "c", 0, own, 3), ERR_PTR(-EBUSY));
	assert_non_null(strstr(f->c.rec_last.message, "failed to claim resource 2"));
	/* a resource of no bytes ends before it starts */
	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "d", 0, empty, 1), ERR_PTR(-EINVAL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_null(ioremap(0x20000000, 4)); /* the refused device left no window */
	assert_int_equal(f->c.reports, 4);

	b = dmamap_platform_device_create_res(f->m, "b", 0, next, 1);
	assert_false(IS_ERR(b));
	assert_ptr_equal(ioremap(REGS_BASE + REGS_SIZE, 8), dmamap_platform_regs(b, 0));
	iounmap(dmamap_platform_regs(b, 0));
	dmamap_platform_device_destroy(a);
	/* a's range is free now */
	a = dmamap_platform_device_create_res(f->m, "b", 1, inside, 1);
	assert_false(IS_ERR(a));
	dmamap_platform_device_destroy(a);
	dmamap_platform_device_destroy(b);
	assert_int_equal(f->c.reports, 4);
	f->c.reports = 0;
}

/* Each allocation failed in turn: creating a device with windows, then mapping one, fails with -ENOMEM and leaves nothing. */
static void test_windows_without_memory(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = ERR_PTR(-ENOMEM);
	void __iomem *p = ERR_PTR(-ENOMEM);
	unsigned long nth;

	for (nth = 1; IS_ERR(pdev) && nth < 64; nth++) {
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		pdev = dmamap_platform_device_create_res(f->m, "regs", 0, regs_res, ARRAY_SIZE(regs_res));
		if (IS_ERR(pdev)) {
			assert_int_equal(PTR_ERR(pdev), -ENOMEM);
			assert_null(ioremap(REGS_BASE, 4)); /* no window left behind */
		}
	}
	assert_false(IS_ERR(pdev));
	assert_true(nth > 4); /* the device, the windows' array, each window */
	for (nth = 1; IS_ERR(p) && nth < 64; nth++) {
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		p = devm_ioremap_resource(&pdev->dev, &pdev->resource[0]);
		if (IS_ERR(p)) {
			assert_int_equal(PTR_ERR(p), -ENOMEM);
			assert_int_equal(dmamap_devres_count(&pdev->dev), 0);
		}
	}
	assert_ptr_equal(p, dmamap_platform_regs(pdev, 0));
	assert_true(nth > 3); /* the region, the mapping, their two managed records */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], (long)f->c.reports);
	f->c.reports = 0;
}


/* ------------------------------------------------------------ platform data */

struct pdrv_pdata {
	int channels;
	char label[8];
};

static int pdrv_channels;

static int pdrv_probe(struct platform_device *pdev)
{
	const struct pdrv_pdata *pd = dev_get_platdata(&pdev->dev);

	if (!pd)
		return -EINVAL;
	pdrv_channels = pd->channels;
	return 0;
}

static struct platform_driver pdrv_driver = {
	.probe = pdrv_probe,
	.driver = { .name = "pdrv" },
};

/*
 * platform_device_add_data(): a copy the driver reads with
 * dev_get_platdata(), replaced, taken away, refused while a driver is
 * bound; the copy goes with the device, a pointer of the test's own is left
 * alone.
 */
static void test_platform_data(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "pdrv", 0);
	struct pdrv_pdata src = { 3, "abc" }, other = { 5, "xyz" };
	const struct pdrv_pdata *pd;
	struct capture g;

	assert_false(IS_ERR(pdev));
	assert_null(dev_get_platdata(&pdev->dev));
	assert_int_equal(dmamap_platform_bind(pdev, &pdrv_driver), -EINVAL); /* no platform data: the probe refuses */

	assert_int_equal(platform_device_add_data(pdev, &src, sizeof(src)), 0);
	pd = dev_get_platdata(&pdev->dev);
	assert_non_null(pd);
	assert_ptr_not_equal(pd, &src);
	assert_ptr_equal(pd, pdev->dev.platform_data);
	assert_memory_equal(pd, &src, sizeof(src));
	src.channels = 9; /* a copy: the board's struct need not live on */
	assert_int_equal(pd->channels, 3);
	assert_int_equal(dmamap_platform_bind(pdev, &pdrv_driver), 0);
	assert_int_equal(pdrv_channels, 3);
	assert_int_equal(f->c.reports, 0);

	/* the board's data, given while the driver is bound: refused, unchanged */
	assert_int_equal(platform_device_add_data(pdev, &other, sizeof(other)), -EBUSY);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_ptr_equal(dev_get_platdata(&pdev->dev), pd);
	dmamap_platform_unbind(pdev);

	/* replaced (the old copy freed), without memory (nothing changed), taken away, of no bytes */
	assert_int_equal(platform_device_add_data(pdev, &other, sizeof(other)), 0);
	pd = dev_get_platdata(&pdev->dev);
	assert_int_equal(pd->channels, 5);
	assert_string_equal(pd->label, "xyz");
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(platform_device_add_data(pdev, &src, sizeof(src)), -ENOMEM);
	assert_ptr_equal(dev_get_platdata(&pdev->dev), pd);
	assert_int_equal(platform_device_add_data(pdev, NULL, sizeof(src)), 0);
	assert_null(dev_get_platdata(&pdev->dev));
	assert_int_equal(platform_device_add_data(pdev, &src, 0), 0);
	assert_ptr_equal(dev_get_platdata(&pdev->dev), ZERO_SIZE_PTR);
	assert_int_equal(platform_device_add_data(pdev, &src, sizeof(src)), 0);
	dmamap_platform_device_destroy(pdev); /* the copy goes with it */

	/* the test's own pointer, as a board file's static platform_device has it: read, never freed */
	pdev = dmamap_platform_device_create(f->m, "pdrv", 1);
	assert_false(IS_ERR(pdev));
	pdev->dev.platform_data = &other;
	assert_int_equal(dmamap_platform_bind(pdev, &pdrv_driver), 0);
	assert_int_equal(pdrv_channels, 5);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(other.channels, 5);

	capture_start(&g, NULL); /* a NULL device belongs to no machine */
	assert_int_equal(platform_device_add_data(NULL, &src, sizeof(src)), -EINVAL);
	capture_stop(NULL);
	assert_int_equal(g.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_order_after_each_operation),
		cmocka_unit_test(test_list_splice_and_cut),
		cmocka_unit_test(test_list_iterators),
		cmocka_unit_test(test_list_del_poisons),
		cmocka_unit_test(test_hlist),
		cmocka_unit_test(test_atomic_return_values_at_boundaries),
		cmocka_unit_test(test_atomic64_and_long),
		cmocka_unit_test(test_cmpxchg_on_plain_variables),
		cmocka_unit_test(test_atomic_across_threads),
		cmocka_unit_test_setup_teardown(test_refcount_counts, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_refcount_saturates_and_reports, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_kref_releases_once, current_fx_setup, current_fx_teardown),
		cmocka_unit_test(test_module_init_is_the_tests_to_call),
		cmocka_unit_test_setup_teardown(test_platform_probe_remove_order, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_platform_failed_probe_unwinds, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_platform_remove_before_6_11, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_platform_resources, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_platform_register_windows, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_ioremap_resource_refusals, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_platform_ioremap_lookups, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_mem_regions, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_mem_regions, current_fx_setup, current_fx_teardown),
		cmocka_unit_test(test_mem_region_left_at_destroy),
		cmocka_unit_test_setup_teardown(test_mapping_aliases_and_managed_bitmaps, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_ioremap_and_iounmap, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_ioremap_and_devm_iounmap, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_windows_go_with_their_device, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_overlapping_windows_refused, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_windows_without_memory, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_platform_data, current_fx_setup, current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
