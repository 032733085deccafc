/* SPDX-License-Identifier: MIT */
/*
 * The kernel library headers a Linux 6.x driver keeps its state with:
 * <linux/list.h> (order after each operation, poisoned links after
 * list_del()), <linux/atomic.h> (return values at the boundaries),
 * <linux/refcount.h> and <linux/kref.h> (saturation, and the reports it
 * raises), <linux/module.h> and <linux/init.h> (what a module's boilerplate
 * leaves: nothing but its functions), <linux/platform_device.h> (probe and
 * remove in the kernel's order, the managed resources released at unbind
 * and after a failed probe, the resources a device is created with).
 */
#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/init.h>
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

	assert_null(platform_get_resource(bare, IORESOURCE_MEM, 0));
	assert_int_equal(platform_irq_count(bare), 0);
	assert_int_equal(platform_get_irq_optional(bare, 0), -ENXIO);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(bare);
	dmamap_platform_device_destroy(pdev);

	/* line 0 is no interrupt, as in the kernel */
	pdev = dmamap_platform_device_create_res(f->m, "res", 1, res + 4, 1);
	assert_false(IS_ERR(pdev));
	assert_int_equal(platform_get_irq(pdev, 0), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	dmamap_platform_device_destroy(pdev);

	/* refused: no array, a resource that ends before it starts */
	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "res", 2, NULL, 1), ERR_PTR(-EINVAL));
	assert_ptr_equal(dmamap_platform_device_create_res(f->m, "res", 2, backwards, 1), ERR_PTR(-EINVAL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
