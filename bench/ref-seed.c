/* SPDX-License-Identifier: MIT */
/*
 * "seed": the IOVA allocator of the 2011 ARM IOMMU mapper, its defects fixed.
 * One bitmap (a bit per page), one lock; an allocation searches linearly,
 * a word at a time, from bit 0 for the first free run aligned to the
 * allocation's own size; a free clears the bits it names (the seed had no
 * check). The baseline every user of that code has.
 */
#include <pthread.h>
#include <stdlib.h>

#include "iova-impl.h"

struct seed {
	pthread_mutex_t lock;
	uint64_t bits;
	uint64_t *map;
};

static void *seed_create(uint64_t pages)
{
	struct seed *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->bits = pages;
	s->map = calloc((pages + 63) / 64, sizeof(uint64_t));
	if (!s->map) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

static void seed_destroy(void *p)
{
	struct seed *s = p;

	pthread_mutex_destroy(&s->lock);
	free(s->map);
	free(s);
}

/* First index in [from, end) whose bit equals @set; @end if none. */
static uint64_t find_next(const uint64_t *map, uint64_t from, uint64_t end, int set)
{
	uint64_t w, word, flip = set ? 0 : ~0ULL;

	if (from >= end)
		return end;
	w = from / 64;
	word = (map[w] ^ flip) & (~0ULL << (from % 64));
	for (;;) {
		if (word) {
			uint64_t i = w * 64 + (uint64_t)__builtin_ctzll(word);
			return i < end ? i : end;
		}
		if (++w * 64 >= end)
			return end;
		word = map[w] ^ flip;
	}
}

static void assign(uint64_t *map, uint64_t start, uint64_t n, int set)
{
	for (uint64_t i = start; i < start + n;) {
		uint64_t w = i / 64, b = i % 64, take = 64 - b < start + n - i ? 64 - b : start + n - i;
		uint64_t m = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << b;

		map[w] = set ? map[w] | m : map[w] & ~m;
		i += take;
	}
}

static uint64_t seed_alloc(void *p, uint64_t n)
{
	struct seed *s = p;
	uint64_t align = 1ULL << iova_bench_align_order(n), start = 0, busy;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		start = find_next(s->map, start, s->bits, 0);
		start = (start + align - 1) & ~(align - 1);
		if (start >= s->bits || n > s->bits - start) {
			start = IOVA_BENCH_FAIL;
			break;
		}
		busy = find_next(s->map, start, start + n, 1);
		if (busy == start + n) {
			assign(s->map, start, n, 1);
			break;
		}
		start = busy + 1;
	}
	pthread_mutex_unlock(&s->lock);
	return start;
}

static void seed_free(void *p, uint64_t first, uint64_t n)
{
	struct seed *s = p;

	pthread_mutex_lock(&s->lock);
	assign(s->map, first, n, 0);
	pthread_mutex_unlock(&s->lock);
}

static int seed_place(void *p, uint64_t first, uint64_t n)
{
	struct seed *s = p;

	if (first + n > s->bits)
		return -1;
	for (uint64_t i = first; i < first + n; i++)
		if (s->map[i / 64] >> (i % 64) & 1)
			return -1;
	assign(s->map, first, n, 1);
	return 0;
}

static size_t seed_metadata(void *p)
{
	struct seed *s = p;

	return sizeof(*s) + (size_t)((s->bits + 63) / 64) * 8;
}

const struct iova_impl iova_impl_seed = {
	.name = "seed",
	.what = "the 2011 mapper's bitmap: linear first fit from bit 0, one lock",
	.create = seed_create,
	.destroy = seed_destroy,
	.alloc = seed_alloc,
	.free = seed_free,
	.metadata_bytes = seed_metadata,
	.place = seed_place,
};
