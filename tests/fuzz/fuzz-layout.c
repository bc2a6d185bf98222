/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Layout files come from /etc, /run and /usr/lib, and sriovctl check takes
 * any file: the parser, and the rules of the files alone after it, must
 * survive every byte sequence. */

#include "layout-rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL;
	struct layout_file *f = NULL;
	struct diag_list diags = {};

	text = malloc(size + 1);
	if (!text)
		return 0;
	if (size > 0)
		memcpy(text, data, size);
	text[size] = '\0';
	if (layout_parse_string("fuzz.conf", text, &diags, &f) >= 0) {
		/* the rules of the files alone, on the file and on it merged with
		 * itself (the same [Match]: one group) */
		const struct layout_file *two[] = { f, f };

		(void)layout_rules_check_files(two, 1, &diags);
		(void)layout_rules_check_files(two, 2, &diags);
		/* every diagnostic must format */
		for (size_t i = 0; i < diags.n; i++)
			free(diag_format(&diags.items[i]));
		layout_file_free(f);
	}
	diag_list_done(&diags);
	return 0;
}
