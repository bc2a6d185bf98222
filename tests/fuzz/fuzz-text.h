/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The fuzz input as a NUL-terminated string, for the text parsers. */

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return NULL;
	if (size > 0)
		memcpy(text, data, size);
	text[size] = '\0';
	return text;
}
