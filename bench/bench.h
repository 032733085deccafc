/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the benchmark programs: clocks, sample statistics, a
 * streaming JSON writer, a plain-text table, gnuplot charts and progress
 * lines. Nothing here is part of the library.
 *
 * Timing follows BENCH.md: batches are timed with clock_gettime(); single
 * operations are sampled with the TSC (x86) calibrated against
 * clock_gettime() in the same run, the cost of reading it measured and taken
 * off each sample. Where there is no TSC, samples use clock_gettime().
 */
#ifndef DMAMAP_BENCH_H
#define DMAMAP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------ clocks */

/* Monotonic nanoseconds (clock_gettime). */
uint64_t bench_now_ns(void);

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t bench_ticks(void)
{
	uint64_t t;

	/* lfence keeps the read from moving across the operation timed */
	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}
#define BENCH_HAVE_TSC 1

/*
 * Wait until the stores before it have left the core (mfence): an
 * operation timed right after a preparation that wrote memory (a memset()
 * that dirties a buffer) then does not pay for draining that preparation's
 * stores, which the reference it is compared with never has to.
 */
static inline void bench_settle(void)
{
	_mm_mfence();
}
#else
static inline void bench_settle(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static inline uint64_t bench_ticks(void)
{
	return bench_now_ns();
}
#define BENCH_HAVE_TSC 0
#endif

/*
 * Calibrate the tick clock against clock_gettime (about @ms milliseconds)
 * and measure the cost of one tick read. Call once before converting.
 */
void bench_clock_calibrate(unsigned ms);
/* Nanoseconds per tick, and the overhead of a back-to-back pair of reads in ticks. */
double bench_ns_per_tick(void);
uint64_t bench_tick_overhead(void);
/* The counter's step: every difference of two reads is a multiple of it (1 on most hosts; tens on some VMs). */
uint64_t bench_tick_step(void);
/* Say on @f, when the step is coarse, how percentiles are read within it (nothing when it is 1). */
void bench_describe_clock_step(FILE *f);
/* A sample of @ticks (already a difference of two reads) in ns, overhead taken off, never negative. */
double bench_ticks_to_ns(uint64_t ticks);

/* ------------------------------------------------------------ samples */

struct bench_samples {
	uint64_t *v;     /* ticks */
	size_t n, cap;
	unsigned batch;  /* a sample is a batch's time over this many operations (1 after init) */
};

int bench_samples_init(struct bench_samples *s, size_t cap);
void bench_samples_free(struct bench_samples *s);
static inline void bench_sample(struct bench_samples *s, uint64_t ticks)
{
	if (s->n < s->cap)
		s->v[s->n++] = ticks;
}

struct bench_summary {
	size_t n;
	double median, p99, p999, max, mean; /* ns */
};

/* Sort @s and summarise it in ns (NaN everywhere when empty). */
void bench_summarise(struct bench_samples *s, struct bench_summary *out);
/* The p-quantile (0..1) of the sorted samples, in ns. */
double bench_quantile_ns(const struct bench_samples *sorted, double p);

/* ------------------------------------------------------------ JSON */

struct bench_json {
	FILE *f;
	int depth;
	bool first[16];  /* no element written yet at this depth */
};

int bench_json_open(struct bench_json *j, const char *path);
int bench_json_close(struct bench_json *j);   /* 0, or -1 if writing failed */
void bench_json_begin_object(struct bench_json *j, const char *key);  /* key NULL in arrays / at the top */
void bench_json_end_object(struct bench_json *j);
void bench_json_begin_array(struct bench_json *j, const char *key);
void bench_json_end_array(struct bench_json *j);
void bench_json_str(struct bench_json *j, const char *key, const char *val);
/* A number; NaN or infinite values are omitted (a key that does not apply). */
void bench_json_num(struct bench_json *j, const char *key, double val);
void bench_json_int(struct bench_json *j, const char *key, long long val);
void bench_json_bool(struct bench_json *j, const char *key, bool val);
/* {"cpu": ..., "cpus": ..., "kernel": ..., "ns_per_tick": ...} under "machine". */
void bench_json_machine(struct bench_json *j, const char *program);
/* Open @path and write the top object's start and "machine"; exit(2) with a message when it cannot be. */
void bench_json_start(struct bench_json *j, const char *path, const char *program);
/* End the top object and close; exit(2) with a message when writing failed. */
void bench_json_finish(struct bench_json *j, const char *path);

/* ------------------------------------------------------------ table */

/* Format a duration in ns with a unit (ns, µs, ms, s) into @buf; "-" for NaN. */
const char *bench_fmt_ns(char *buf, size_t len, double ns);
/* Format a ratio like "12.3x" ("-" for NaN). */
const char *bench_fmt_ratio(char *buf, size_t len, double r);

/* ------------------------------------------------------------ plots */

/* Whether gnuplot can be run. */
bool bench_have_gnuplot(void);
/*
 * Run gnuplot on @script (written to DIR/NAME.gp, output in @dir): 0 or -1.
 * The script sets its own terminal and output.
 */
int bench_gnuplot(const char *dir, const char *name, const char *script);
/* mkdir -p for one level; 0 or -1. */
int bench_mkdir(const char *dir);

/* ------------------------------------------------------------ progress */

/* Progress goes to stderr only when it is a terminal. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress_done(void);

/* ------------------------------------------------------------ random */

static inline uint64_t bench_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* DMAMAP_BENCH_H */
