/* SPDX-License-Identifier: MIT */
/*
 * Shared by the fuzz harnesses: reading the input as a stream of numbers
 * (past its end every read gives 0), the check that stops the run with a
 * message, and silencing the reports the harnesses provoke on purpose.
 */
#ifndef DMAMAP_FUZZ_H
#define DMAMAP_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <dmamap/dmamap.h>

struct fuzz_input {
	const uint8_t *data;
	size_t len;
};

static inline uint64_t fuzz_bytes(struct fuzz_input *in, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++) {
		v = v << 8;
		if (in->len) {
			v |= *in->data++;
			in->len--;
		}
	}
	return v;
}

static inline uint8_t fuzz_u8(struct fuzz_input *in) { return (uint8_t)fuzz_bytes(in, 1); }
static inline uint16_t fuzz_u16(struct fuzz_input *in) { return (uint16_t)fuzz_bytes(in, 2); }
static inline uint32_t fuzz_u32(struct fuzz_input *in) { return (uint32_t)fuzz_bytes(in, 4); }
static inline uint64_t fuzz_u64(struct fuzz_input *in) { return fuzz_bytes(in, 8); }
static inline bool fuzz_bool(struct fuzz_input *in) { return fuzz_u8(in) & 1; }

#define FUZZ_CHECK(cond, ...)                                                          \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			abort();                                                       \
		}                                                                      \
	} while (0)

static void fuzz_drop_report(const struct dmamap_log_record *rec, void *ctx)
{
	(void)rec;
	(void)ctx;
}

/* Reports the harness provokes are expected: keep them off stderr. */
static inline void fuzz_quiet(void)
{
	if (!getenv("DMAMAP_FUZZ_VERBOSE"))
		dmamap_set_log_handler(NULL, fuzz_drop_report, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#endif /* DMAMAP_FUZZ_H */
