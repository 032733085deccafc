/* SPDX-License-Identifier: MIT */
/*
 * "rbtree" and "rbtree+mag": the Linux IOVA allocator (drivers/iommu/iova.c),
 * written here from the algorithm's public description.
 *
 * rbtree: a red-black tree of the allocated ranges, with an anchor node at
 * the top of the space. An allocation walks down from a cached node (the
 * last range allocated, or the one above the last range freed above it),
 * looking below each range for a gap that holds the size-aligned request;
 * when it reaches the bottom it retries once from the top down to where it
 * started. A failure remembers its size, so larger-or-equal requests fail at
 * once until the next free. One lock. Ranges are placed top-down.
 *
 * rbtree+mag: the same behind per-CPU range caches (alloc_iova_fast): for
 * sizes up to 32 pages (rounded up to a power of two below 32, as Linux
 * does), each CPU keeps a loaded and a previous magazine of 127 ranges per
 * size, and a depot of up to 32 full magazines per size is shared. A cached
 * range stays allocated in the tree. When the tree cannot serve a request,
 * every cache is flushed back to it and the request retried once.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iova-impl.h"

/* ------------------------------------------------------------ red-black tree */

struct rnode {
	struct rnode *left, *right, *parent;
	bool red;
	uint64_t lo, hi;   /* pages [lo, hi] */
};

struct rtree {
	struct rnode *root;
};

static struct rnode *rb_first_of(struct rnode *n)
{
	while (n && n->left)
		n = n->left;
	return n;
}

static struct rnode *rb_last_of(struct rnode *n)
{
	while (n && n->right)
		n = n->right;
	return n;
}

static struct rnode *rb_next(struct rnode *n)
{
	if (n->right)
		return rb_first_of(n->right);
	while (n->parent && n == n->parent->right)
		n = n->parent;
	return n->parent;
}

static struct rnode *rb_prev(struct rnode *n)
{
	if (n->left)
		return rb_last_of(n->left);
	while (n->parent && n == n->parent->left)
		n = n->parent;
	return n->parent;
}

static void rotate(struct rtree *t, struct rnode *x, bool left)
{
	struct rnode *y = left ? x->right : x->left;
	struct rnode *mid = left ? y->left : y->right;

	if (left)
		x->right = mid;
	else
		x->left = mid;
	if (mid)
		mid->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		t->root = y;
	else if (x == x->parent->left)
		x->parent->left = y;
	else
		x->parent->right = y;
	if (left)
		y->left = x;
	else
		y->right = x;
	x->parent = y;
}

static void rb_insert(struct rtree *t, struct rnode *z)
{
	struct rnode *p = NULL, **link = &t->root;

	while (*link) {
		p = *link;
		link = z->lo < p->lo ? &p->left : &p->right;
	}
	z->parent = p;
	z->left = z->right = NULL;
	z->red = true;
	*link = z;

	while (z->parent && z->parent->red) {
		struct rnode *g = z->parent->parent;
		bool pleft = z->parent == g->left;
		struct rnode *u = pleft ? g->right : g->left;

		if (u && u->red) {
			z->parent->red = false;
			u->red = false;
			g->red = true;
			z = g;
			continue;
		}
		if (z == (pleft ? z->parent->right : z->parent->left)) {
			z = z->parent;
			rotate(t, z, pleft);
		}
		z->parent->red = false;
		g->red = true;
		rotate(t, g, !pleft);
	}
	t->root->red = false;
}

static void transplant(struct rtree *t, struct rnode *u, struct rnode *v)
{
	if (!u->parent)
		t->root = v;
	else if (u == u->parent->left)
		u->parent->left = v;
	else
		u->parent->right = v;
	if (v)
		v->parent = u->parent;
}

static void rb_erase(struct rtree *t, struct rnode *z)
{
	struct rnode *x, *xp, *y = z;
	bool y_red = y->red;

	if (!z->left) {
		x = z->right;
		xp = z->parent;
		transplant(t, z, z->right);
	} else if (!z->right) {
		x = z->left;
		xp = z->parent;
		transplant(t, z, z->left);
	} else {
		y = rb_first_of(z->right);
		y_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xp = y;
		} else {
			xp = y->parent;
			transplant(t, y, y->right);
			y->right = z->right;
			y->right->parent = y;
		}
		transplant(t, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	if (y_red)
		return;
	while (x != t->root && (!x || !x->red)) {
		bool xleft = x == xp->left;
		struct rnode *w = xleft ? xp->right : xp->left;

		if (w->red) {
			w->red = false;
			xp->red = true;
			rotate(t, xp, xleft);
			w = xleft ? xp->right : xp->left;
		}
		if ((!w->left || !w->left->red) && (!w->right || !w->right->red)) {
			w->red = true;
			x = xp;
			xp = x->parent;
			continue;
		}
		if (xleft ? (!w->right || !w->right->red) : (!w->left || !w->left->red)) {
			struct rnode *c = xleft ? w->left : w->right;

			c->red = false;
			w->red = true;
			rotate(t, w, !xleft);
			w = xleft ? xp->right : xp->left;
		}
		w->red = xp->red;
		xp->red = false;
		if (xleft ? w->right : w->left)
			(xleft ? w->right : w->left)->red = false;
		rotate(t, xp, xleft);
		x = t->root;
		break;
	}
	if (x)
		x->red = false;
}

static struct rnode *rb_find(struct rtree *t, uint64_t lo)
{
	struct rnode *n = t->root;

	while (n && n->lo != lo)
		n = lo < n->lo ? n->left : n->right;
	return n;
}

/* ------------------------------------------------------------ node pool (a slab) */

#define POOL_CHUNK 4096

struct pool_chunk {
	struct pool_chunk *next;
	struct rnode nodes[POOL_CHUNK];
};

struct pool {
	struct pool_chunk *chunks;
	struct rnode *free;
	size_t nchunks;
};

static struct rnode *pool_get(struct pool *p)
{
	struct rnode *n = p->free;

	if (!n) {
		struct pool_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = p->chunks;
		p->chunks = c;
		p->nchunks++;
		for (size_t i = 0; i < POOL_CHUNK; i++) {
			c->nodes[i].parent = p->free;
			p->free = &c->nodes[i];
		}
		n = p->free;
	}
	p->free = n->parent;
	return n;
}

static void pool_put(struct pool *p, struct rnode *n)
{
	n->parent = p->free;
	p->free = n;
}

static void pool_fini(struct pool *p)
{
	while (p->chunks) {
		struct pool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
}

/* ------------------------------------------------------------ the tree allocator */

struct rbt {
	pthread_mutex_t lock;
	struct rtree tree;
	struct pool pool;
	uint64_t pages;
	struct rnode anchor;        /* [pages, pages]: the top of the space */
	struct rnode *cached;       /* where the next search starts */
	uint64_t max_alloc_size;    /* a request this large failed since the last free */
};

static int rbt_init(struct rbt *r, uint64_t pages)
{
	memset(r, 0, sizeof(*r));
	if (pthread_mutex_init(&r->lock, NULL))
		return -1;
	r->pages = pages;
	r->anchor.lo = r->anchor.hi = pages;
	rb_insert(&r->tree, &r->anchor);
	r->cached = &r->anchor;
	r->max_alloc_size = pages + 1;
	return 0;
}

static void rbt_fini(struct rbt *r)
{
	pool_fini(&r->pool);
	pthread_mutex_destroy(&r->lock);
}

/* Lock held. */
static uint64_t rbt_alloc_locked(struct rbt *r, uint64_t n)
{
	uint64_t mask = ~((1ULL << iova_bench_align_order(n)) - 1);
	uint64_t limit = r->pages, low = 0, high = limit, cand = 0, retry_hi;
	struct rnode *curr, *prev = NULL, *node;

	if (n >= r->max_alloc_size)
		return IOVA_BENCH_FAIL;
	curr = r->cached;
	retry_hi = curr->hi;
	for (bool second = false;; second = true) {
		/* Walk down from curr while the candidate overlaps the range below. */
		do {
			if (curr->lo < high)
				high = curr->lo;
			cand = high >= n ? (high - n) & mask : 0;
			prev = curr;
			curr = rb_prev(curr);
		} while (curr && high >= n && cand <= curr->hi && cand >= low);
		if (high >= n && cand >= low)
			break;
		if (second || retry_hi >= limit) {
			r->max_alloc_size = n;
			return IOVA_BENCH_FAIL;
		}
		/* Once more, from the top down to where the first pass started. */
		high = limit;
		low = retry_hi + 1;
		curr = &r->anchor;
	}
	(void)prev;
	node = pool_get(&r->pool);
	if (!node)
		return IOVA_BENCH_FAIL;
	node->lo = cand;
	node->hi = cand + n - 1;
	rb_insert(&r->tree, node);
	r->cached = node;
	return cand;
}

/* Lock held. */
static void rbt_free_locked(struct rbt *r, uint64_t first)
{
	struct rnode *node = rb_find(&r->tree, first);

	if (!node || node == &r->anchor)
		return;
	if (node->lo >= r->cached->lo)
		r->cached = rb_next(node);
	r->max_alloc_size = r->pages + 1;
	rb_erase(&r->tree, node);
	pool_put(&r->pool, node);
}

/* Insert [first, first + n) if it overlaps nothing. Lock held. */
static int rbt_place_locked(struct rbt *r, uint64_t first, uint64_t n)
{
	struct rnode *x = r->tree.root, *below = NULL, *above = NULL, *node;

	if (!n || first + n > r->pages)
		return -1;
	while (x) {
		if (x->lo <= first) {
			below = x;
			x = x->right;
		} else {
			above = x;
			x = x->left;
		}
	}
	if ((below && below->hi >= first) || (above && above->lo < first + n))
		return -1;
	node = pool_get(&r->pool);
	if (!node)
		return -1;
	node->lo = first;
	node->hi = first + n - 1;
	rb_insert(&r->tree, node);
	return 0;
}

static void *rbtree_create(uint64_t pages)
{
	struct rbt *r = malloc(sizeof(*r));

	if (r && rbt_init(r, pages)) {
		free(r);
		r = NULL;
	}
	return r;
}

static void rbtree_destroy(void *p)
{
	rbt_fini(p);
	free(p);
}

static uint64_t rbtree_alloc(void *p, uint64_t n)
{
	struct rbt *r = p;
	uint64_t first;

	pthread_mutex_lock(&r->lock);
	first = rbt_alloc_locked(r, n);
	pthread_mutex_unlock(&r->lock);
	return first;
}

static void rbtree_free(void *p, uint64_t first, uint64_t n)
{
	struct rbt *r = p;

	(void)n;
	pthread_mutex_lock(&r->lock);
	rbt_free_locked(r, first);
	pthread_mutex_unlock(&r->lock);
}

static int rbtree_place(void *p, uint64_t first, uint64_t n)
{
	struct rbt *r = p;
	int err;

	pthread_mutex_lock(&r->lock);
	err = rbt_place_locked(r, first, n);
	pthread_mutex_unlock(&r->lock);
	return err;
}

static size_t rbt_metadata(struct rbt *r)
{
	return sizeof(*r) + r->pool.nchunks * sizeof(struct pool_chunk);
}

static size_t rbtree_metadata(void *p)
{
	struct rbt *r = p;
	size_t b;

	pthread_mutex_lock(&r->lock);
	b = rbt_metadata(r);
	pthread_mutex_unlock(&r->lock);
	return b;
}

const struct iova_impl iova_impl_rbtree = {
	.name = "rbtree",
	.what = "Linux iova.c: red-black tree of ranges, top-down from a cached node",
	.create = rbtree_create,
	.destroy = rbtree_destroy,
	.alloc = rbtree_alloc,
	.free = rbtree_free,
	.metadata_bytes = rbtree_metadata,
	.place = rbtree_place,
};

/* ------------------------------------------------------------ magazines */

#define MAG_SIZE 127
#define MAG_ORDERS 6          /* sizes 1..32 pages */
#define MAX_DEPOT 32
#define MAX_CPUS 64

struct mag {
	unsigned long n;
	uint64_t pfn[MAG_SIZE];
};

struct cpu_cache {
	pthread_mutex_t lock;
	struct mag *loaded[MAG_ORDERS], *prev[MAG_ORDERS];
} __attribute__((aligned(64)));

struct rbmag {
	struct rbt rbt;
	pthread_mutex_t depot_lock;
	struct mag *depot[MAG_ORDERS][MAX_DEPOT];
	unsigned depot_n[MAG_ORDERS];
	unsigned ncpus;
	size_t mags;                /* magazines allocated now */
	struct cpu_cache *cpu;
};

static struct mag *mag_new(struct rbmag *m)
{
	struct mag *g = malloc(sizeof(*g));

	if (g) {
		g->n = 0;
		__atomic_add_fetch(&m->mags, 1, __ATOMIC_RELAXED);
	}
	return g;
}

static void mag_del(struct rbmag *m, struct mag *g)
{
	if (g) {
		free(g);
		__atomic_sub_fetch(&m->mags, 1, __ATOMIC_RELAXED);
	}
}

/* Give every range of @g back to the tree; @g is left empty. */
static void mag_flush(struct rbmag *m, struct mag *g)
{
	if (!g || !g->n)
		return;
	pthread_mutex_lock(&m->rbt.lock);
	while (g->n)
		rbt_free_locked(&m->rbt, g->pfn[--g->n]);
	pthread_mutex_unlock(&m->rbt.lock);
}

static void *rbmag_create(uint64_t pages)
{
	struct rbmag *m = calloc(1, sizeof(*m));
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (!m)
		return NULL;
	m->ncpus = n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : (unsigned)n;
	m->cpu = aligned_alloc(64, m->ncpus * sizeof(*m->cpu));
	if (!m->cpu || rbt_init(&m->rbt, pages)) {
		free(m->cpu);
		free(m);
		return NULL;
	}
	memset(m->cpu, 0, m->ncpus * sizeof(*m->cpu));
	pthread_mutex_init(&m->depot_lock, NULL);
	for (unsigned c = 0; c < m->ncpus; c++) {
		pthread_mutex_init(&m->cpu[c].lock, NULL);
		for (unsigned o = 0; o < MAG_ORDERS; o++) {
			m->cpu[c].loaded[o] = mag_new(m);
			m->cpu[c].prev[o] = mag_new(m);
		}
	}
	return m;
}

static void rbmag_destroy(void *p)
{
	struct rbmag *m = p;

	for (unsigned c = 0; c < m->ncpus; c++) {
		for (unsigned o = 0; o < MAG_ORDERS; o++) {
			mag_del(m, m->cpu[c].loaded[o]);
			mag_del(m, m->cpu[c].prev[o]);
		}
		pthread_mutex_destroy(&m->cpu[c].lock);
	}
	for (unsigned o = 0; o < MAG_ORDERS; o++)
		for (unsigned i = 0; i < m->depot_n[o]; i++)
			mag_del(m, m->depot[o][i]);
	pthread_mutex_destroy(&m->depot_lock);
	rbt_fini(&m->rbt);
	free(m->cpu);
	free(m);
}

static struct cpu_cache *this_cpu(struct rbmag *m)
{
	int c = sched_getcpu();

	return &m->cpu[c < 0 ? 0 : (unsigned)c % m->ncpus];
}

/* Linux rounds cached sizes up to a power of two below 32 pages. */
static uint64_t fast_size(uint64_t n)
{
	uint64_t p = 1;

	if (n >= 32)
		return n;
	while (p < n)
		p <<= 1;
	return p;
}

static int fast_order(uint64_t n)
{
	int o = 0;

	if (n & (n - 1))
		return -1;
	while ((1ULL << o) < n)
		o++;
	return o < MAG_ORDERS ? o : -1;
}

static bool cache_get(struct rbmag *m, int o, uint64_t *pfn)
{
	struct cpu_cache *cc = this_cpu(m);
	bool hit = false;

	pthread_mutex_lock(&cc->lock);
	if (cc->loaded[o]->n) {
		hit = true;
	} else if (cc->prev[o]->n) {
		struct mag *t = cc->loaded[o];

		cc->loaded[o] = cc->prev[o];
		cc->prev[o] = t;
		hit = true;
	} else {
		pthread_mutex_lock(&m->depot_lock);
		if (m->depot_n[o]) {
			mag_del(m, cc->loaded[o]);
			cc->loaded[o] = m->depot[o][--m->depot_n[o]];
			hit = true;
		}
		pthread_mutex_unlock(&m->depot_lock);
	}
	if (hit)
		*pfn = cc->loaded[o]->pfn[--cc->loaded[o]->n];
	pthread_mutex_unlock(&cc->lock);
	return hit;
}

static bool cache_put(struct rbmag *m, int o, uint64_t pfn)
{
	struct cpu_cache *cc = this_cpu(m);
	struct mag *spill = NULL;
	bool done = true;

	pthread_mutex_lock(&cc->lock);
	if (cc->loaded[o]->n < MAG_SIZE) {
		/* room */
	} else if (cc->prev[o]->n < MAG_SIZE) {
		struct mag *t = cc->loaded[o];

		cc->loaded[o] = cc->prev[o];
		cc->prev[o] = t;
	} else {
		struct mag *fresh = mag_new(m);

		if (fresh) {
			pthread_mutex_lock(&m->depot_lock);
			if (m->depot_n[o] < MAX_DEPOT)
				m->depot[o][m->depot_n[o]++] = cc->loaded[o];
			else
				spill = cc->loaded[o];
			pthread_mutex_unlock(&m->depot_lock);
			cc->loaded[o] = fresh;
		} else {
			done = false;
		}
	}
	if (done)
		cc->loaded[o]->pfn[cc->loaded[o]->n++] = pfn;
	pthread_mutex_unlock(&cc->lock);
	if (spill) {
		mag_flush(m, spill);
		mag_del(m, spill);
	}
	return done;
}

static void flush_all(struct rbmag *m)
{
	for (unsigned c = 0; c < m->ncpus; c++) {
		pthread_mutex_lock(&m->cpu[c].lock);
		for (unsigned o = 0; o < MAG_ORDERS; o++) {
			mag_flush(m, m->cpu[c].loaded[o]);
			mag_flush(m, m->cpu[c].prev[o]);
		}
		pthread_mutex_unlock(&m->cpu[c].lock);
	}
	pthread_mutex_lock(&m->depot_lock);
	for (unsigned o = 0; o < MAG_ORDERS; o++) {
		while (m->depot_n[o]) {
			struct mag *g = m->depot[o][--m->depot_n[o]];

			mag_flush(m, g);
			mag_del(m, g);
		}
	}
	pthread_mutex_unlock(&m->depot_lock);
}

static uint64_t rbmag_alloc(void *p, uint64_t n)
{
	struct rbmag *m = p;
	uint64_t size = fast_size(n), pfn;
	int o = fast_order(size);

	if (o >= 0 && cache_get(m, o, &pfn))
		return pfn;
	pfn = rbtree_alloc(&m->rbt, size);
	if (pfn == IOVA_BENCH_FAIL) {
		flush_all(m);
		pfn = rbtree_alloc(&m->rbt, size);
	}
	return pfn;
}

static void rbmag_free(void *p, uint64_t first, uint64_t n)
{
	struct rbmag *m = p;
	int o = fast_order(fast_size(n));

	if (o >= 0 && cache_put(m, o, first))
		return;
	rbtree_free(&m->rbt, first, n);
}

/* As it would have been allocated: the size rounded as the fast path rounds it. */
static int rbmag_place(void *p, uint64_t first, uint64_t n)
{
	struct rbmag *m = p;

	return rbtree_place(&m->rbt, first, fast_size(n));
}

static size_t rbmag_metadata(void *p)
{
	struct rbmag *m = p;

	return rbtree_metadata(&m->rbt) + sizeof(*m) - sizeof(m->rbt) + m->ncpus * sizeof(*m->cpu) +
	       __atomic_load_n(&m->mags, __ATOMIC_RELAXED) * sizeof(struct mag);
}

const struct iova_impl iova_impl_rbtree_mag = {
	.name = "rbtree+mag",
	.what = "the same behind per-CPU magazines of 127 ranges (sizes <= 32 pages) and a depot",
	.create = rbmag_create,
	.destroy = rbmag_destroy,
	.alloc = rbmag_alloc,
	.free = rbmag_free,
	.metadata_bytes = rbmag_metadata,
	.place = rbmag_place,
};
