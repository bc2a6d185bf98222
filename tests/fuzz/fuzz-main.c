/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Replays the given files through a fuzz target, so that every target runs
 * over its corpus in `make check` (under ASan+UBSan) without a fuzzing
 * engine. With clang, the same target links against libFuzzer instead:
 * clang -fsanitize=fuzzer,address, tests/fuzz/fuzz-X.c and the sources of
 * lib/, with -I for each of its folders (the Makefile's LIB_INCLUDES). */

#include <fcntl.h>

#include "util.h"

#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		_cleanup_free_ char *buf = NULL;
		size_t size;
		int r;

		/* the whole file: binary inputs (netlink messages) have NULs */
		r = read_file_at(AT_FDCWD, argv[i], 16 << 20, &buf, &size);
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-r));
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)buf, size);
	}
	printf("%s: %d input(s) replayed\n", argv[0], argc - 1);
	return 0;
}
