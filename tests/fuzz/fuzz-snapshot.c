/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* snapshot_parse() on arbitrary input; whatever it accepts must format to a
 * text that parses again and formats to the same text. */

#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *format_or_die(const struct host_state *h)
{
	char *text = NULL;

	if (snapshot_format(h, &text) < 0)
		abort();
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = malloc(size + 1), *out = NULL, *out2 = NULL, *error = NULL;
	_cleanup_host_state_ struct host_state *h = NULL, *h2 = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (snapshot_parse(text, &h, &error) < 0)
		return 0;
	out = format_or_die(h);
	if (snapshot_parse(out, &h2, NULL) < 0)
		abort();
	out2 = format_or_die(h2);
	if (!streq(out, out2))
		abort();
	return 0;
}
