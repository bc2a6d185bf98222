/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mstconfig's output is another program's text: the query parser and the
 * helpers for set's output and error lines must survive every byte
 * sequence, and what the parser accepts must be well-formed. */

#include "fuzz-text.h"
#include "mstconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size), *why = NULL, *line = NULL;
	struct mst_config c = {};
	uint32_t v;

	if (!text)
		return 0;
	if (mstconfig_parse_query(text, &c, &why) >= 0) {
		if (c.n > ELEMENTSOF(c.params))
			abort();
		for (size_t i = 0; i < c.n; i++)
			if (strnlen(c.params[i].name, MST_NAME_MAX) == MST_NAME_MAX ||
			    !mst_config_get(&c, c.params[i].name, &v))
				abort();
	} else if (!why)
		abort();
	(void)mstconfig_set_done(text);
	line = mstconfig_error_line(text, text);
	if (!line)
		abort();
	return 0;
}
