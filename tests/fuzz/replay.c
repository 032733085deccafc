/* SPDX-License-Identifier: MIT */
/*
 * Without libFuzzer: run a harness once over each file named on the command
 * line, or over every file of each directory named (the seed corpus), so that
 * the corpus replays as an ordinary test with any compiler. Under valgrind
 * (DMAMAP_UNDER_VALGRIND set, as the valgrind test setup does) one input in
 * 16 of each directory runs: every input there would take a quarter hour.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "cannot read %s\n", path);
		if (f)
			fclose(f);
		return 1;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s\n", path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned runs = 0, stride = getenv("DMAMAP_UNDER_VALGRIND") ? 16 : 1;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			runs++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "cannot open %s\n", argv[i]);
			return 1;
		}
		for (unsigned seen = 0; (e = readdir(d)); ) {
			char path[4096];

			if (e->d_name[0] == '.' || seen++ % stride)
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			bad |= run_file(path);
			runs++;
		}
		closedir(d);
	}
	printf("%u inputs run\n", runs);
	return bad || runs == 0;
}
