/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Replays the given files through a fuzz target, so that every target runs
 * over its corpus in `make check` (under ASan+UBSan) without a fuzzing
 * engine. With clang, the same target links against libFuzzer instead:
 * clang -fsanitize=fuzzer,address, tests/fuzz/fuzz-X.c and the sources of
 * lib/, with -I for each of its folders (the Makefile's LIB_INCLUDES). */

#include "util.h"

#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		_cleanup_free_ char *buf = NULL;
		int r;

		r = read_file(argv[i], &buf);
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-r));
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)buf, strlen(buf));
	}
	printf("%s: %d input(s) replayed\n", argv[0], argc - 1);
	return 0;
}
