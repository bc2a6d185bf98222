/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mstfwreset's output is another program's text: the query parser and the
 * reading of reset's outcome must survive every byte sequence, and what the
 * parser accepts must be well-formed. */

#include "fuzz-text.h"
#include "mlxfwreset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size), *why = NULL;
	struct mlxfwreset_query q = {};

	if (!text)
		return 0;
	if (mlxfwreset_parse_query(text, &q, &why) >= 0) {
		if (q.listed == 0 || (q.supported & ~q.listed) || q.default_level >= 8 ||
		    (q.default_level >= 0 && !(q.listed & (1u << q.default_level))))
			abort();
	} else if (!why)
		abort();
	(void)mlxfwreset_reset_done(text);
	return 0;
}
