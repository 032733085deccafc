/* SPDX-License-Identifier: MIT */
/*
 * dmabounce: the ops set for devices that reach only part of RAM.
 *
 * What it promises
 *
 *   A streaming mapping whose buffer the device can reach (needs_bounce says
 *   no; by default: every byte at or below the DMA mask) is handed to
 *   arm_dma_ops unchanged, cache maintenance included. Any other mapping is
 *   bounced: the device is given a "safe" buffer from the device's coherent
 *   memory -- a block of the small pool, of the large pool, or, when the
 *   mapping is larger than a large block or the pool cannot serve it, a
 *   coherent allocation of its own -- and the data is copied between the
 *   safe buffer and the original through the CPU's view (the linear map):
 *
 *     map                 original -> safe, every direction (see below)
 *     sync_for_device     original -> safe for TO_DEVICE / BIDIRECTIONAL
 *     sync_for_cpu        safe -> original for FROM_DEVICE / BIDIRECTIONAL
 *     unmap               safe -> original for FROM_DEVICE / BIDIRECTIONAL
 *
 *   A sync copies as the direction it names asks: a bidirectional mapping
 *   may be synced with DMA_FROM_DEVICE for the CPU and DMA_TO_DEVICE for the
 *   device, as in the kernel, and is then copied one way only.
 *
 *   Copies into the original are CPU stores (dm_cpu_store): the lines become
 *   dirty in the cache, which is what the CPU then sees. The safe buffer is
 *   uncached (or snooped on a coherent device), so the device sees what is
 *   copied into it at once.
 *
 *   The map copies in for FROM_DEVICE too (as swiotlb does since Linux
 *   5.19): otherwise bytes the device does not write would be copied back
 *   from whatever an earlier mapping left in the safe buffer -- another
 *   buffer's data leaking into this one. With the copy they keep the
 *   original's values. DMA_ATTR_SKIP_CPU_SYNC skips the copy back at unmap
 *   (the driver syncs explicitly), as it skips cache maintenance.
 *
 *   A sync may name any address inside a mapping (patch 1): the offset is
 *   addr - safe_dma_addr and only [offset, offset + size) is copied.
 *
 *   A coherent allocation of a mapping's own is not given back at unmap but
 *   kept for the next large mapping (up to IDLE_MAX per device, each used
 *   for mappings of at least half its size), as the kernel's bounce buffers
 *   are reused: a stream of large mappings costs a copy each, not an
 *   allocation, a clear and a remap. The kept buffers go at unregister and
 *   at device release, and whenever the machine shrinks its caches (the
 *   fault sweep does, before counting). The map's copy in overwrites what an
 *   earlier mapping left in the bytes it maps.
 *
 * Where the kernel BUG()s, this reports and refuses, with nothing changed:
 *   - unmap with a size or direction other than the mapping's, or at an
 *     address inside a safe buffer that is not its start: reported
 *     (DMAMAP_REPORT_API_MISUSE), no copy, the mapping stays live so the
 *     driver can still unmap it correctly;
 *   - a sync whose direction differs from a one-way mapping's, or whose
 *     range runs past the end of the mapping: reported, no copy.
 *
 * Masks: set_dma_mask leaves the mask of a registered device alone and
 *   returns 0 (as the seed: the mask describes the bus, bouncing hides it).
 *   dma_supported keeps ARM's DMA-zone rule: it is what dma_set_coherent_mask
 *   checks, and the safe buffers themselves are coherent allocations, which
 *   a mask below the zone could not be served.
 *
 * Lookup
 *
 *   Live safe buffers are kept in an AVL tree keyed by safe_dma_addr (safe
 *   buffers never overlap on the bus, so the keys are unique). unmap looks a
 *   handle up exactly; a sync takes the floor -- the buffer with the greatest
 *   start <= addr -- and checks that addr lies inside it. Both are O(log n).
 *   The node is the safe_buffer itself: no allocation beyond it.
 *
 * Locking
 *
 *   One rwlock per device guards the tree, the live counts and high-water
 *   marks. map fills the safe buffer before inserting it and unmap removes it
 *   before copying back, so neither copies under the lock; a sync copies
 *   under the read lock, so that syncs run in parallel and a (buggy)
 *   concurrent unmap cannot free the buffer under it. The other counters are
 *   atomics. register/unregister must not race with mappings of the same
 *   device, as in the kernel.
 */
#include <stdio.h>

#include "internal.h"

enum safe_kind { SAFE_SMALL, SAFE_LARGE, SAFE_ALLOC, SAFE_KIND_NR };

static const char *const kind_name[SAFE_KIND_NR] = { "small pool", "large pool", "coherent allocation" };

struct safe_buffer {
	struct safe_buffer *left, *right;
	int height;
	dma_addr_t safe_dma_addr;   /* the key */
	void *safe;                 /* CPU address of the safe buffer */
	size_t size;                /* bytes mapped */
	u8 *orig;                   /* linear-map address of the original */
	size_t bytes;               /* of the coherent allocation (SAFE_ALLOC): at least size */
	enum dma_data_direction direction;
	enum safe_kind kind;
};

struct dmabounce_pool {
	struct dma_pool *pool;
	unsigned long size;         /* block size asked for; 0: no pool */
};

#define IDLE_MAX 4

/* A coherent allocation kept for reuse after its mapping went. */
struct idle_buffer {
	void *safe;
	dma_addr_t dma;
	size_t bytes;
};

struct dmabounce_device_info {
	struct device *dev;
	struct dmamap_machine *m;
	int (*needs_bounce)(struct device *, dma_addr_t, size_t);
	struct dmabounce_pool small, large;

	pthread_rwlock_t lock;      /* the tree, live[] and high_water[] */
	struct safe_buffer *root;
	unsigned long live[SAFE_KIND_NR];
	unsigned long high_water[SAFE_KIND_NR];

	atomic_ulong map_calls, direct_maps, bounces[SAFE_KIND_NR];
	atomic_ulong bytes_to_device, bytes_from_device, failures;

	pthread_mutex_t idle_lock;  /* idle[] */
	struct idle_buffer idle[IDLE_MAX];
	unsigned nr_idle;
	struct dmamap_obj obj;      /* so that a shrink gives the idle buffers back */
};

/* ------------------------------------------------------------- the tree */

static int height(const struct safe_buffer *b)
{
	return b ? b->height : 0;
}

static void fix_height(struct safe_buffer *b)
{
	b->height = 1 + DM_MAX(height(b->left), height(b->right));
}

static struct safe_buffer *rotate_right(struct safe_buffer *y)
{
	struct safe_buffer *x = y->left;

	y->left = x->right;
	x->right = y;
	fix_height(y);
	fix_height(x);
	return x;
}

static struct safe_buffer *rotate_left(struct safe_buffer *x)
{
	struct safe_buffer *y = x->right;

	x->right = y->left;
	y->left = x;
	fix_height(x);
	fix_height(y);
	return y;
}

static struct safe_buffer *rebalance(struct safe_buffer *b)
{
	int bf;

	fix_height(b);
	bf = height(b->left) - height(b->right);
	if (bf > 1) {
		if (height(b->left->left) < height(b->left->right))
			b->left = rotate_left(b->left);
		return rotate_right(b);
	}
	if (bf < -1) {
		if (height(b->right->right) < height(b->right->left))
			b->right = rotate_right(b->right);
		return rotate_left(b);
	}
	return b;
}

static struct safe_buffer *tree_insert(struct safe_buffer *root, struct safe_buffer *b)
{
	if (!root) {
		b->left = b->right = NULL;
		b->height = 1;
		return b;
	}
	if (b->safe_dma_addr < root->safe_dma_addr)
		root->left = tree_insert(root->left, b);
	else
		root->right = tree_insert(root->right, b);
	return rebalance(root);
}

static struct safe_buffer *tree_remove_min(struct safe_buffer *root, struct safe_buffer **min)
{
	if (!root->left) {
		*min = root;
		return root->right;
	}
	root->left = tree_remove_min(root->left, min);
	return rebalance(root);
}

/* Unlink @b (which is in the tree). */
static struct safe_buffer *tree_remove(struct safe_buffer *root, const struct safe_buffer *b)
{
	struct safe_buffer *l, *r, *min;

	if (!root)
		return NULL;
	if (b->safe_dma_addr < root->safe_dma_addr) {
		root->left = tree_remove(root->left, b);
	} else if (b->safe_dma_addr > root->safe_dma_addr) {
		root->right = tree_remove(root->right, b);
	} else {
		l = root->left;
		r = root->right;
		if (!r)
			return l;
		r = tree_remove_min(r, &min);
		min->left = l;
		min->right = r;
		return rebalance(min);
	}
	return rebalance(root);
}

/* The live safe buffer with the greatest start <= @addr, or NULL. */
static struct safe_buffer *tree_floor(struct safe_buffer *n, dma_addr_t addr)
{
	struct safe_buffer *best = NULL;

	while (n) {
		if (n->safe_dma_addr <= addr) {
			best = n;
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best;
}

/* The live safe buffer holding @addr, or NULL. Under the lock. */
static struct safe_buffer *find_containing(struct dmabounce_device_info *info, dma_addr_t addr)
{
	struct safe_buffer *b = tree_floor(info->root, addr);

	return b && addr - b->safe_dma_addr < b->size ? b : NULL;
}

/* --------------------------------------------------------------- helpers */

static struct dmabounce_device_info *info_of(struct device *dev)
{
	return dev->archdata.dmabounce;
}

/* Copy @len bytes of the original into the safe buffer at @off. */
static void copy_in(struct dmabounce_device_info *info, struct safe_buffer *b, size_t off, size_t len)
{
	u8 *dst = (u8 *)b->safe + off;

	/* a coherent device's safe memory is the cached linear map: store through it */
	if (dm_virt_in_linear(info->m, dst))
		dm_cpu_store(info->m, dst, b->orig + off, 0, len);
	else
		memcpy(dst, b->orig + off, len);
	/*
	 * The safe buffer is RAM, which the device will overwrite through
	 * another host mapping that memcheck cannot relate to this one: what
	 * it holds counts as defined, whatever the original held.
	 */
	dmamap_track_defined(dst, len);
	atomic_fetch_add(&info->bytes_to_device, len);
}

/* Copy @len bytes of the safe buffer at @off back into the original: CPU stores. */
static void copy_out(struct dmabounce_device_info *info, struct safe_buffer *b, size_t off, size_t len)
{
	dm_cpu_store(info->m, b->orig + off, (const u8 *)b->safe + off, 0, len);
	atomic_fetch_add(&info->bytes_from_device, len);
}

/* --------------------------------------------------------- safe buffers */

/* Take the smallest idle allocation fit for @b (of at least its size, at most twice). */
static bool idle_take(struct dmabounce_device_info *info, struct safe_buffer *b)
{
	size_t need = PAGE_ALIGN(b->size);
	unsigned best = IDLE_MAX;

	pthread_mutex_lock(&info->idle_lock);
	for (unsigned i = 0; i < info->nr_idle; i++)
		if (info->idle[i].bytes >= need && info->idle[i].bytes / 2 <= need &&
		    (best == IDLE_MAX || info->idle[i].bytes < info->idle[best].bytes))
			best = i;
	if (best < IDLE_MAX) {
		b->safe = info->idle[best].safe;
		b->safe_dma_addr = info->idle[best].dma;
		b->bytes = info->idle[best].bytes;
		info->idle[best] = info->idle[--info->nr_idle];
	}
	pthread_mutex_unlock(&info->idle_lock);
	return best < IDLE_MAX;
}

/* Keep @b's allocation for reuse; false when there is no room (the caller frees it). */
static bool idle_put(struct dmabounce_device_info *info, const struct safe_buffer *b)
{
	bool kept = false;

	pthread_mutex_lock(&info->idle_lock);
	if (info->nr_idle < IDLE_MAX) {
		info->idle[info->nr_idle++] = (struct idle_buffer){ b->safe, b->safe_dma_addr, b->bytes };
		kept = true;
	}
	pthread_mutex_unlock(&info->idle_lock);
	return kept;
}

/* Free every idle allocation: at unregister, release and shrink. */
static void idle_free_all(struct dmabounce_device_info *info)
{
	struct idle_buffer idle[IDLE_MAX];
	unsigned n;
	DM_CALL_AT(NULL, 0); /* the library's own allocations, freed by the library */

	pthread_mutex_lock(&info->idle_lock);
	n = info->nr_idle;
	memcpy(idle, info->idle, n * sizeof(idle[0]));
	info->nr_idle = 0;
	pthread_mutex_unlock(&info->idle_lock);
	for (unsigned i = 0; i < n; i++)
		dma_free_coherent(info->dev, idle[i].bytes, idle[i].safe, idle[i].dma);
}

static bool alloc_safe(struct dmabounce_device_info *info, struct safe_buffer *b)
{
	struct device *dev = info->dev;
	struct dmabounce_pool *pool = NULL;
	bool pool_failed = false;

	if (info->small.pool && b->size <= info->small.size) {
		pool = &info->small;
		b->kind = SAFE_SMALL;
	} else if (info->large.pool && b->size <= info->large.size) {
		pool = &info->large;
		b->kind = SAFE_LARGE;
	}
	/*
	 * The simulation has no atomic context: GFP_KERNEL lets a pool grow, and
	 * an allocation of its own come, from the page allocator (or the
	 * contiguous area), leaving the small atomic pool to drivers. A pool that
	 * cannot grow is not worth a warning: the coherent allocation follows.
	 */
	if (pool) {
		b->safe = dma_pool_alloc(pool->pool, GFP_KERNEL | __GFP_NOWARN, &b->safe_dma_addr);
		if (b->safe)
			return true;
		dmamap_log(info->m, DMAMAP_LOG_DEBUG, dev->dmamap.name,
			   "dmabounce: %s empty for %zu bytes: trying a coherent allocation", kind_name[b->kind],
			   b->size);
		pool_failed = true;
	}
	b->kind = SAFE_ALLOC;
	if (!idle_take(info, b)) {
		b->bytes = PAGE_ALIGN(b->size);
		b->safe = dma_alloc_coherent(dev, b->bytes, &b->safe_dma_addr, GFP_KERNEL);
		if (!b->safe)
			return false;
	}
	if (pool_failed)
		dm_fault_absorbed(info->m);
	return true;
}

static void free_safe(struct dmabounce_device_info *info, struct safe_buffer *b)
{
	switch (b->kind) {
	case SAFE_SMALL:
		dma_pool_free(info->small.pool, b->safe, b->safe_dma_addr);
		break;
	case SAFE_LARGE:
		dma_pool_free(info->large.pool, b->safe, b->safe_dma_addr);
		break;
	default:
		if (!idle_put(info, b))
			dma_free_coherent(info->dev, b->bytes, b->safe, b->safe_dma_addr);
		break;
	}
}

/* ----------------------------------------------------------- the ops set */

static dma_addr_t map_failed(struct dmabounce_device_info *info)
{
	atomic_fetch_add(&info->failures, 1);
	return DMA_MAPPING_ERROR;
}

static bool needs_bounce(struct dmabounce_device_info *info, dma_addr_t bus, size_t size)
{
	struct device *dev = info->dev;

	if (info->needs_bounce)
		return info->needs_bounce(dev, bus, size) != 0;
	return bus + size - 1 < bus || bus + size - 1 > dma_get_mask(dev);
}

static dma_addr_t dmabounce_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
				     enum dma_data_direction dir, struct dma_attrs *attrs)
{
	struct dmabounce_device_info *info = info_of(dev);
	struct dmamap_machine *m = dm_dev_machine(dev);
	dma_addr_t bus, ret;
	struct safe_buffer *b;
	u64 mask;

	if (!info)
		return arm_dma_ops.map_page(dev, page, offset, size, dir, attrs);
	atomic_fetch_add(&info->map_calls, 1);

	bus = dm_phys_to_dma(dev, page_to_phys(page) + offset);
	if (!needs_bounce(info, bus, size)) {
		ret = arm_dma_ops.map_page(dev, page, offset, size, dir, attrs);
		if (ret == DMA_MAPPING_ERROR)
			return map_failed(info);
		atomic_fetch_add(&info->direct_maps, 1);
		return ret;
	}

	b = dmamap_zalloc(m, sizeof(*b));
	if (!b) {
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name, "dmabounce: no memory to track a %zu-byte bounce",
			   size);
		return map_failed(info);
	}
	b->size = size;
	b->direction = dir;
	b->orig = (u8 *)page_address(page) + offset;
	if (!alloc_safe(info, b)) {
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name,
			   "dmabounce: no safe buffer for %zu bytes at bus %#llx", size, (unsigned long long)bus);
		dmamap_free(b);
		return map_failed(info);
	}
	mask = dma_get_mask(dev);
	if (b->safe_dma_addr + size - 1 < b->safe_dma_addr || b->safe_dma_addr + size - 1 > mask) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dmabounce: safe buffer (%s) at bus %#llx+%#zx is itself beyond the DMA mask %#llx "
			      "(coherent mask %#llx is wider than the streaming mask?)",
			      kind_name[b->kind], (unsigned long long)b->safe_dma_addr, size, (unsigned long long)mask,
			      (unsigned long long)dev->coherent_dma_mask);
		free_safe(info, b);
		dmamap_free(b);
		return map_failed(info);
	}

	copy_in(info, b, 0, size);

	pthread_rwlock_wrlock(&info->lock);
	info->root = tree_insert(info->root, b);
	if (++info->live[b->kind] > info->high_water[b->kind])
		info->high_water[b->kind] = info->live[b->kind];
	atomic_fetch_add(&info->bounces[b->kind], 1);
	pthread_rwlock_unlock(&info->lock);

	dmamap_log(m, DMAMAP_LOG_DEBUG, dev->dmamap.name, "dmabounce: %s %#zx bytes at bus %#llx -> safe %#llx (%s)",
		   dmamap_dir_name((int)dir), size, (unsigned long long)bus, (unsigned long long)b->safe_dma_addr,
		   kind_name[b->kind]);
	return b->safe_dma_addr;
}

static void dmabounce_unmap_page(struct device *dev, dma_addr_t handle, size_t size, enum dma_data_direction dir,
				 struct dma_attrs *attrs)
{
	struct dmabounce_device_info *info = info_of(dev);
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct safe_buffer *b;
	const char *why = NULL;

	if (!info) {
		arm_dma_ops.unmap_page(dev, handle, size, dir, attrs);
		return;
	}
	pthread_rwlock_wrlock(&info->lock);
	b = find_containing(info, handle);
	if (!b) {
		pthread_rwlock_unlock(&info->lock);
		arm_dma_ops.unmap_page(dev, handle, size, dir, attrs); /* a direct mapping */
		return;
	}
	if (b->safe_dma_addr != handle)
		why = "is inside a bounced mapping, not its start";
	else if (b->size != size)
		why = "has a size other than the mapping's";
	else if (b->direction != dir)
		why = "has a direction other than the mapping's";
	if (why) {
		dma_addr_t start = b->safe_dma_addr;
		size_t msize = b->size;
		enum dma_data_direction mdir = b->direction;

		pthread_rwlock_unlock(&info->lock);
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dma_unmap of %#llx+%#zx (%s) %s: the bounced mapping is %#llx+%#zx (%s); not unmapped",
			      (unsigned long long)handle, size, dmamap_dir_name((int)dir), why, (unsigned long long)start, msize,
			      dmamap_dir_name((int)mdir));
		return;
	}
	info->root = tree_remove(info->root, b);
	info->live[b->kind]--;
	pthread_rwlock_unlock(&info->lock);

	if ((dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL) && !dma_get_attr(DMA_ATTR_SKIP_CPU_SYNC, attrs))
		copy_out(info, b, 0, size);
	free_safe(info, b);
	dmamap_free(b);
}

/*
 * A sync of a bounced mapping: with the read lock held, find the safe buffer
 * holding @addr and check the range and direction (the mapping's, or either
 * for a bidirectional mapping, as in the kernel). Return it (lock still
 * held), NULL with the lock dropped when @addr is not bounced, or ERR_PTR
 * after a report (lock dropped).
 */
static struct safe_buffer *sync_lookup(struct dmabounce_device_info *info, dma_addr_t addr, size_t size,
				       enum dma_data_direction dir, const char *what, size_t *off)
{
	struct device *dev = info->dev;
	struct safe_buffer *b;
	const char *why = NULL;

	pthread_rwlock_rdlock(&info->lock);
	b = find_containing(info, addr);
	if (!b) {
		pthread_rwlock_unlock(&info->lock);
		return NULL;
	}
	*off = (size_t)(addr - b->safe_dma_addr);
	if (size > b->size - *off)
		why = "runs past the end of the bounced mapping";
	else if (dir != b->direction && b->direction != DMA_BIDIRECTIONAL)
		why = "has a direction other than the mapping's";
	if (why) {
		dma_addr_t start = b->safe_dma_addr;
		size_t msize = b->size;
		enum dma_data_direction mdir = b->direction;

		pthread_rwlock_unlock(&info->lock);
		dmamap_report(info->m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "%s of %#llx+%#zx (%s) %s: the mapping is %#llx+%#zx (%s); nothing copied", what,
			      (unsigned long long)addr, size, dmamap_dir_name((int)dir), why, (unsigned long long)start, msize,
			      dmamap_dir_name((int)mdir));
		return ERR_PTR(-EINVAL);
	}
	return b;
}

/*
 * A sync copies the synced range only, back out for the CPU, in for the
 * device, as its own direction asks (a bidirectional mapping synced with
 * DMA_FROM_DEVICE for the CPU is copied out, never in).
 */
static void sync_single(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir, bool for_cpu)
{
	struct dmabounce_device_info *info = info_of(dev);
	struct safe_buffer *b;
	size_t off = 0;

	if (info) {
		b = sync_lookup(info, addr, size, dir, for_cpu ? "dma_sync_single_for_cpu" : "dma_sync_single_for_device",
				&off);
		if (IS_ERR(b))
			return;
		if (b) {
			if (for_cpu && (dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL))
				copy_out(info, b, off, size);
			else if (!for_cpu && (dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL))
				copy_in(info, b, off, size);
			pthread_rwlock_unlock(&info->lock);
			return;
		}
	}
	if (for_cpu)
		arm_dma_ops.sync_single_for_cpu(dev, addr, size, dir);
	else
		arm_dma_ops.sync_single_for_device(dev, addr, size, dir);
}

static void dmabounce_sync_for_cpu(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	sync_single(dev, addr, size, dir, true);
}

static void dmabounce_sync_for_device(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	sync_single(dev, addr, size, dir, false);
}

/* The bus limit is what bouncing hides: a registered device keeps its mask. */
static int dmabounce_set_mask(struct device *dev, u64 mask)
{
	if (info_of(dev))
		return 0;
	return arm_dma_ops.set_dma_mask(dev, mask);
}

static void *dmabounce_alloc(struct device *dev, size_t size, dma_addr_t *handle, gfp_t gfp, struct dma_attrs *attrs)
{
	return arm_dma_ops.alloc(dev, size, handle, gfp, attrs);
}

static void dmabounce_free(struct device *dev, size_t size, void *cpu_addr, dma_addr_t handle,
			   struct dma_attrs *attrs)
{
	arm_dma_ops.free(dev, size, cpu_addr, handle, attrs);
}

static int dmabounce_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
			  size_t size, struct dma_attrs *attrs)
{
	return arm_dma_ops.mmap(dev, vma, cpu_addr, dma_addr, size, attrs);
}

static int dmabounce_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
				 size_t size, struct dma_attrs *attrs)
{
	return arm_dma_ops.get_sgtable(dev, sgt, cpu_addr, dma_addr, size, attrs);
}

static const struct dma_map_ops dmabounce_ops = {
	.alloc = dmabounce_alloc,
	.free = dmabounce_free,
	.mmap = dmabounce_mmap,
	.get_sgtable = dmabounce_get_sgtable,
	.map_page = dmabounce_map_page,
	.unmap_page = dmabounce_unmap_page,
	.map_sg = dmamap_generic_map_sg,
	.unmap_sg = dmamap_generic_unmap_sg,
	.sync_single_for_cpu = dmabounce_sync_for_cpu,
	.sync_single_for_device = dmabounce_sync_for_device,
	.sync_sg_for_cpu = dmamap_generic_sync_sg_for_cpu,
	.sync_sg_for_device = dmamap_generic_sync_sg_for_device,
	.dma_supported = NULL, /* the DMA-zone rule, as for arm_dma_ops */
	.set_dma_mask = dmabounce_set_mask,
};

/* ---------------------------------------------------- register/unregister */

static int init_pool(struct dmabounce_device_info *info, struct dmabounce_pool *pool, const char *name,
		     unsigned long size)
{
	pool->size = size;
	if (!size)
		return 0;
	/* cache-line aligned: no two safe buffers share a line */
	pool->pool = dma_pool_create(name, info->dev, size, info->m->cfg.cache_line_size, 0);
	return pool->pool ? 0 : -ENOMEM;
}

static void bounce_shrink(struct dmamap_obj *o)
{
	dmamap_dmabounce_shrink(container_of(o, struct dmabounce_device_info, obj)->dev);
}

/* The machine goes before the device is released only if the device outlives it: nothing is left to free. */
static void bounce_machine_gone(struct dmamap_obj *o)
{
	struct dmabounce_device_info *info = container_of(o, struct dmabounce_device_info, obj);

	pthread_mutex_lock(&info->idle_lock);
	info->nr_idle = 0;
	pthread_mutex_unlock(&info->idle_lock);
}

static const struct dmamap_obj_ops bounce_obj_ops = {
	.name = "dmabounce safe buffers",
	.machine_gone = bounce_machine_gone,
	.shrink = bounce_shrink,
};

static void info_destroy(struct dmabounce_device_info *info)
{
	idle_free_all(info);
	dmamap_obj_del(&info->obj);
	dma_pool_destroy(info->small.pool);
	dma_pool_destroy(info->large.pool);
	pthread_mutex_destroy(&info->idle_lock);
	pthread_rwlock_destroy(&info->lock);
	dmamap_free(info);
}

DMAMAP_API int dmabounce_register_dev(struct device *dev, unsigned long small_buffer_size,
				      unsigned long large_buffer_size,
				      int (*needs_bounce_fn)(struct device *, dma_addr_t, size_t))
{
	struct dmabounce_device_info *info, *expected = NULL;
	struct dmamap_machine *m;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dmabounce_register_dev: %s", dev ? "device not initialised" : "NULL device");
		return -EINVAL;
	}
	m = dm_dev_machine(dev);
	if (large_buffer_size && large_buffer_size < small_buffer_size) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0,
			      "dmabounce_register_dev: large buffer size %lu is smaller than the small one %lu",
			      large_buffer_size, small_buffer_size);
		return -EINVAL;
	}
	if (info_of(dev)) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dmabounce_register_dev: device already registered");
		return -EBUSY;
	}
	if (dev->archdata.dma_ops && dev->archdata.dma_ops != &arm_dma_ops) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dmabounce_register_dev: device already has an ops set of its own (IOMMU mapping?)");
		return -EBUSY;
	}

	info = dmamap_zalloc(m, sizeof(*info));
	if (!info)
		return -ENOMEM;
	if (pthread_rwlock_init(&info->lock, NULL)) {
		dmamap_free(info);
		return -ENOMEM;
	}
	if (pthread_mutex_init(&info->idle_lock, NULL)) {
		pthread_rwlock_destroy(&info->lock);
		dmamap_free(info);
		return -ENOMEM;
	}
	dmamap_obj_add(m, &info->obj, &bounce_obj_ops);
	info->dev = dev;
	info->m = m;
	info->needs_bounce = needs_bounce_fn;
	if (init_pool(info, &info->small, "small_dmabounce_pool", small_buffer_size) ||
	    init_pool(info, &info->large, "large_dmabounce_pool", large_buffer_size)) {
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name, "dmabounce: cannot create the safe-buffer pools");
		info_destroy(info);
		return -ENOMEM;
	}
	if (!__atomic_compare_exchange_n(&dev->archdata.dmabounce, &expected, info, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		info_destroy(info);
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dmabounce_register_dev: device already registered");
		return -EBUSY;
	}
	set_dma_ops(dev, &dmabounce_ops);
	dmamap_log(m, DMAMAP_LOG_INFO, dev->dmamap.name, "dmabounce: registered device (small %lu, large %lu)",
		   small_buffer_size, large_buffer_size);
	return 0;
}

static void log_stats(struct dmabounce_device_info *info)
{
	dmamap_log(info->m, DMAMAP_LOG_DEBUG, info->dev->dmamap.name,
		   "dmabounce: %lu maps (%lu direct), bounced %lu small / %lu large / %lu alloc, "
		   "high water %lu / %lu / %lu, %lu bytes to device, %lu from device, %lu failures",
		   atomic_load(&info->map_calls), atomic_load(&info->direct_maps),
		   atomic_load(&info->bounces[SAFE_SMALL]), atomic_load(&info->bounces[SAFE_LARGE]),
		   atomic_load(&info->bounces[SAFE_ALLOC]), info->high_water[SAFE_SMALL],
		   info->high_water[SAFE_LARGE], info->high_water[SAFE_ALLOC], atomic_load(&info->bytes_to_device),
		   atomic_load(&info->bytes_from_device), atomic_load(&info->failures));
}

/* Unhook @info from the device: restore the default ops if ours are installed. */
static void detach(struct device *dev)
{
	dev->archdata.dmabounce = NULL;
	if (dev->archdata.dma_ops == &dmabounce_ops)
		set_dma_ops(dev, NULL);
}

DMAMAP_API int dmabounce_unregister_dev(struct device *dev)
{
	struct dmabounce_device_info *info;
	unsigned long live;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dmabounce_unregister_dev: %s", dev ? "device not initialised" : "NULL device");
		return -EINVAL;
	}
	info = info_of(dev);
	if (!info) {
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dmabounce_unregister_dev: device not registered");
		return -EINVAL;
	}
	pthread_rwlock_wrlock(&info->lock);
	live = info->live[SAFE_SMALL] + info->live[SAFE_LARGE] + info->live[SAFE_ALLOC];
	if (live) {
		pthread_rwlock_unlock(&info->lock);
		dmamap_report(info->m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dmabounce_unregister_dev: %lu safe buffer%s still mapped", live, live == 1 ? "" : "s");
		return -EBUSY;
	}
	detach(dev);
	pthread_rwlock_unlock(&info->lock);

	log_stats(info);
	info_destroy(info);
	return 0;
}

DMAMAP_API int dmabounce_get_stats(struct device *dev, struct dmabounce_stats *st)
{
	struct dmabounce_device_info *info;

	if (!dm_dev_live(dev) || !st || !(info = info_of(dev)))
		return -EINVAL;
	pthread_rwlock_rdlock(&info->lock);
	st->map_calls = atomic_load(&info->map_calls);
	st->direct_maps = atomic_load(&info->direct_maps);
	st->bounces_small = atomic_load(&info->bounces[SAFE_SMALL]);
	st->bounces_large = atomic_load(&info->bounces[SAFE_LARGE]);
	st->bounces_alloc = atomic_load(&info->bounces[SAFE_ALLOC]);
	st->bytes_to_device = atomic_load(&info->bytes_to_device);
	st->bytes_from_device = atomic_load(&info->bytes_from_device);
	st->live_buffers = info->live[SAFE_SMALL] + info->live[SAFE_LARGE] + info->live[SAFE_ALLOC];
	st->high_water_small = info->high_water[SAFE_SMALL];
	st->high_water_large = info->high_water[SAFE_LARGE];
	st->high_water_alloc = info->high_water[SAFE_ALLOC];
	st->failures = atomic_load(&info->failures);
	pthread_rwlock_unlock(&info->lock);
	return 0;
}

/* --------------------------------------------------------------- platform */

static void release_tree(struct dmabounce_device_info *info, struct safe_buffer *b)
{
	if (!b)
		return;
	release_tree(info, b->left);
	release_tree(info, b->right);
	free_safe(info, b);
	dmamap_free(b);
}

/*
 * For dmamap_device_release(), while the device is still initialised:
 * unregister whatever is left. Safe buffers still mapped are reported
 * (DMAMAP_REPORT_LEAK) and freed without copying back.
 */
void dmamap_dmabounce_release(struct device *dev)
{
	struct dmabounce_device_info *info;
	unsigned long live;
	DM_CALL_AT(NULL, 0); /* the safe buffers are the library's to free */

	if (!dm_dev_live(dev) || !(info = info_of(dev)))
		return;
	pthread_rwlock_wrlock(&info->lock);
	live = info->live[SAFE_SMALL] + info->live[SAFE_LARGE] + info->live[SAFE_ALLOC];
	detach(dev);
	pthread_rwlock_unlock(&info->lock);
	if (live)
		dmamap_report(info->m, DMAMAP_REPORT_LEAK, dev->dmamap.name, NULL, 0,
			      "dmabounce: %lu bounced mapping%s still live at device release", live,
			      live == 1 ? "" : "s");
	release_tree(info, info->root);
	info->root = NULL;
	log_stats(info);
	info_destroy(info);
}

/* ------------------------------------------------------------- invariants */

struct bounce_walk {
	struct dmabounce_device_info *info;
	struct dm_check *c;
	const struct safe_buffer *prev;
	unsigned long count[SAFE_KIND_NR];
	bool bad;
};

/* In order: keys increasing, buffers disjoint, heights right, each pool buffer a live block of its pool. */
static int walk_tree(struct bounce_walk *w, const struct safe_buffer *b)
{
	const char *name = w->info->dev->dmamap.name;
	int hl, hr;

	if (!b || w->bad)
		return 0;
	hl = walk_tree(w, b->left);
	if (w->prev && (w->prev->safe_dma_addr >= b->safe_dma_addr ||
			b->safe_dma_addr - w->prev->safe_dma_addr < w->prev->size)) {
		dm_check_fail(w->c, DMAMAP_CHECK_DMABOUNCE, "%s: safe buffers at %#llx and %#llx are out of order or overlap",
			      name, (unsigned long long)w->prev->safe_dma_addr, (unsigned long long)b->safe_dma_addr);
		w->bad = true;
	}
	w->prev = b;
	if ((unsigned)b->kind >= SAFE_KIND_NR) {
		dm_check_fail(w->c, DMAMAP_CHECK_DMABOUNCE, "%s: safe buffer at %#llx has no kind", name,
			      (unsigned long long)b->safe_dma_addr);
		w->bad = true;
		return 0;
	}
	w->count[b->kind]++;
	if (b->kind != SAFE_ALLOC) {
		struct dmabounce_pool *pool = b->kind == SAFE_SMALL ? &w->info->small : &w->info->large;

		if (!pool->pool || b->size > pool->size || !dmamap_dma_pool_block_live(pool->pool, b->safe, b->safe_dma_addr))
			dm_check_fail(w->c, DMAMAP_CHECK_DMABOUNCE,
				      "%s: safe buffer %#llx+%#zx is not a block in use of the %s", name,
				      (unsigned long long)b->safe_dma_addr, b->size, kind_name[b->kind]);
	}
	hr = walk_tree(w, b->right);
	if (!w->bad && (b->height != 1 + DM_MAX(hl, hr) || hl - hr > 1 || hr - hl > 1)) {
		dm_check_fail(w->c, DMAMAP_CHECK_DMABOUNCE, "%s: the safe-buffer tree is unbalanced at %#llx", name,
			      (unsigned long long)b->safe_dma_addr);
		w->bad = true;
	}
	return b->height;
}

void dmamap_dmabounce_check(struct device *dev, struct dm_check *c)
{
	struct dmabounce_device_info *info = info_of(dev);
	struct bounce_walk w = { .info = info, .c = c };

	if (!info)
		return;
	pthread_rwlock_rdlock(&info->lock);
	walk_tree(&w, info->root);
	for (unsigned k = 0; k < SAFE_KIND_NR && !w.bad; k++)
		if (w.count[k] != info->live[k])
			dm_check_fail(c, DMAMAP_CHECK_DMABOUNCE, "%s: %lu safe buffers from the %s in the tree, %lu counted",
				      dev->dmamap.name, w.count[k], kind_name[k], info->live[k]);
	pthread_rwlock_unlock(&info->lock);
}

void dmamap_dmabounce_shrink(struct device *dev)
{
	struct dmabounce_device_info *info = info_of(dev);

	if (info)
		idle_free_all(info);
}

void dmamap_dmabounce_census(struct device *dev, struct dm_census *cs)
{
	struct dmabounce_device_info *info = info_of(dev);

	if (!info)
		return;
	pthread_rwlock_rdlock(&info->lock);
	cs->v[DM_CENSUS_BOUNCED] += info->live[SAFE_SMALL] + info->live[SAFE_LARGE] + info->live[SAFE_ALLOC];
	pthread_rwlock_unlock(&info->lock);
}
