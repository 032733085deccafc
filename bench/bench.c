/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ns_per_tick = 1.0;
static uint64_t tick_overhead;
static uint64_t tick_step = 1;

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void bench_clock_calibrate(unsigned ms)
{
	uint64_t t0, n0, t1, n1, d[1001];

	n0 = bench_now_ns();
	t0 = bench_ticks();
	do
		n1 = bench_now_ns();
	while (n1 - n0 < (uint64_t)ms * 1000000u);
	t1 = bench_ticks();
	ns_per_tick = BENCH_HAVE_TSC && t1 > t0 ? (double)(n1 - n0) / (double)(t1 - t0) : 1.0;

	/* The cost of the two reads that bracket a sample: their median difference. */
	for (unsigned i = 0; i < 1001; i++) {
		uint64_t a = bench_ticks();
		uint64_t b = bench_ticks();

		d[i] = b - a;
	}
	qsort(d, 1001, sizeof(d[0]), cmp_u64);
	tick_overhead = d[500];
	/*
	 * Some hosts (virtual machines) advance the counter in steps of many
	 * ticks: every difference is then a multiple of the step.
	 */
	tick_step = 0;
	for (unsigned i = 0; i < 1001; i++)
		tick_step = gcd_u64(tick_step, d[i]);
	if (!tick_step)
		tick_step = 1;
}

uint64_t bench_tick_step(void)
{
	return tick_step;
}

void bench_describe_clock_step(FILE *f)
{
	if (tick_step > 1)
		fprintf(f, "the TSC advances in steps of %llu ticks (%.3g ns): percentiles are read within a step, "
			"each sample spread over it\n",
			(unsigned long long)tick_step, (double)tick_step * ns_per_tick);
}

double bench_ns_per_tick(void)
{
	return ns_per_tick;
}

uint64_t bench_tick_overhead(void)
{
	return tick_overhead;
}

double bench_ticks_to_ns(uint64_t ticks)
{
	return ticks > tick_overhead ? (double)(ticks - tick_overhead) * ns_per_tick : 0.0;
}

int bench_samples_init(struct bench_samples *s, size_t cap)
{
	s->n = 0;
	s->cap = cap;
	s->batch = 1;
	s->v = malloc((cap ? cap : 1) * sizeof(*s->v));
	return s->v ? 0 : -ENOMEM;
}

void bench_samples_free(struct bench_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

double bench_quantile_ns(const struct bench_samples *sorted, double p)
{
	size_t i, lo, hi;
	double v, r, step;

	if (!sorted->n)
		return NAN;
	i = (size_t)(p * (double)(sorted->n - 1) + 0.5);
	if (i >= sorted->n)
		i = sorted->n - 1;
	step = (double)tick_step / (double)(sorted->batch ? sorted->batch : 1);
	if (step <= 1)
		return bench_ticks_to_ns(sorted->v[i]);
	/*
	 * A coarse clock: a sample of v ticks stands for a time anywhere in
	 * (v - step/2, v + step/2). Spread the samples of each value evenly
	 * over that interval (the median of grouped data) and read the
	 * quantile there, which a coarse clock would otherwise round to a step.
	 */
	for (lo = i; lo > 0 && sorted->v[lo - 1] == sorted->v[i]; lo--)
		;
	for (hi = i + 1; hi < sorted->n && sorted->v[hi] == sorted->v[i]; hi++)
		;
	r = p * (double)sorted->n;
	r = r < (double)lo ? (double)lo : r > (double)hi ? (double)hi : r;
	v = (double)sorted->v[i] + step * ((r - (double)lo) / (double)(hi - lo) - 0.5);
	v -= (double)tick_overhead;
	return v > 0 ? v * ns_per_tick : 0.0;
}

void bench_summarise(struct bench_samples *s, struct bench_summary *out)
{
	double sum = 0;

	out->n = s->n;
	if (!s->n) {
		out->median = out->p99 = out->p999 = out->max = out->mean = NAN;
		return;
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	for (size_t i = 0; i < s->n; i++)
		sum += bench_ticks_to_ns(s->v[i]);
	out->median = bench_quantile_ns(s, 0.5);
	out->p99 = bench_quantile_ns(s, 0.99);
	out->p999 = bench_quantile_ns(s, 0.999);
	out->max = bench_ticks_to_ns(s->v[s->n - 1]);
	out->mean = sum / (double)s->n;
}

/* ------------------------------------------------------------ JSON */

int bench_json_open(struct bench_json *j, const char *path)
{
	memset(j, 0, sizeof(*j));
	j->f = fopen(path, "w");
	if (!j->f)
		return -1;
	j->first[0] = true;
	return 0;
}

int bench_json_close(struct bench_json *j)
{
	int err = 0;

	if (!j->f)
		return -1;
	fputc('\n', j->f);
	if (ferror(j->f))
		err = -1;
	if (fclose(j->f))
		err = -1;
	j->f = NULL;
	return err;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_key(struct bench_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		json_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct bench_json *j, const char *key, char c)
{
	if (j->depth > 0 || !j->first[0])
		json_key(j, key);
	else
		j->first[0] = false;
	fputc(c, j->f);
	if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct bench_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void bench_json_begin_object(struct bench_json *j, const char *key)
{
	json_open(j, key, '{');
}

void bench_json_end_object(struct bench_json *j)
{
	json_close(j, '}');
}

void bench_json_begin_array(struct bench_json *j, const char *key)
{
	json_open(j, key, '[');
}

void bench_json_end_array(struct bench_json *j)
{
	json_close(j, ']');
}

void bench_json_str(struct bench_json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_string(j->f, val);
}

void bench_json_num(struct bench_json *j, const char *key, double val)
{
	if (!isfinite(val))
		return;
	json_key(j, key);
	if (val == floor(val) && fabs(val) < 1e15)
		fprintf(j->f, "%.0f", val);
	else
		fprintf(j->f, "%.6g", val);
}

void bench_json_int(struct bench_json *j, const char *key, long long val)
{
	json_key(j, key);
	fprintf(j->f, "%lld", val);
}

void bench_json_bool(struct bench_json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			colon += 2;
			colon[strcspn(colon, "\n")] = 0;
			snprintf(buf, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

void bench_json_machine(struct bench_json *j, const char *program)
{
	struct utsname u;
	char cpu[256];

	cpu_model(cpu, sizeof(cpu));
	bench_json_begin_object(j, "machine");
	bench_json_str(j, "program", program);
	bench_json_str(j, "cpu", cpu);
	bench_json_int(j, "cpus", sysconf(_SC_NPROCESSORS_ONLN));
	if (!uname(&u)) {
		bench_json_str(j, "kernel", u.release);
		bench_json_str(j, "arch", u.machine);
	}
	bench_json_bool(j, "tsc", BENCH_HAVE_TSC);
	bench_json_num(j, "ns_per_tick", bench_ns_per_tick());
	bench_json_num(j, "tick_step", (double)bench_tick_step());
	bench_json_int(j, "tick_overhead", (long long)bench_tick_overhead());
	bench_json_end_object(j);
}

void bench_json_start(struct bench_json *j, const char *path, const char *program)
{
	if (bench_json_open(j, path)) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	bench_json_begin_object(j, NULL);
	bench_json_machine(j, program);
}

void bench_json_finish(struct bench_json *j, const char *path)
{
	bench_json_end_object(j);
	if (bench_json_close(j)) {
		fprintf(stderr, "writing %s failed\n", path);
		exit(2);
	}
}

/* ------------------------------------------------------------ table */

const char *bench_fmt_ns(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g µs", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
	return buf;
}

const char *bench_fmt_ratio(char *buf, size_t len, double r)
{
	if (!isfinite(r))
		snprintf(buf, len, "-");
	else if (r >= 100)
		snprintf(buf, len, "%.0fx", r);
	else
		snprintf(buf, len, "%.3gx", r);
	return buf;
}

/* ------------------------------------------------------------ plots */

bool bench_have_gnuplot(void)
{
	return system("gnuplot --version >/dev/null 2>&1") == 0;
}

int bench_mkdir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return -1;
	return 0;
}

int bench_gnuplot(const char *dir, const char *name, const char *script)
{
	char path[4096], cmd[8300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(script, f);
	if (fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot '%s.gp' >/dev/null 2>&1", dir, name);
	return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ progress */

static int progress_on = -1;
static bool progress_shown;

void bench_progress(const char *fmt, ...)
{
	va_list ap;

	if (progress_on < 0)
		progress_on = isatty(STDERR_FILENO);
	if (!progress_on)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_shown = true;
}

void bench_progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		progress_shown = false;
	}
}
