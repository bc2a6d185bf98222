/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl import reads YAML from anyone's cluster: the policy reader and
 * the layout writer must survive every byte sequence, and a layout file
 * is written only when no error was said. */

#include <assert.h>
#include <string.h>

#include "sno-policy.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), **names = NULL, **texts = NULL;
	struct sno_policies p = {};
	struct diag_list diags = {};

	if (!text)
		return 0;
	if (sno_policies_parse("f", text, &p, &diags) == 0 &&
	    sno_policies_layouts("f", &p, &names, &texts, &diags) == 0) {
		assert(strv_length(names) == strv_length(texts));
		for (size_t i = 0; names && names[i]; i++)
			assert(!strchr(names[i], '/') && strstr(texts[i], "\n[Match]\n"));
	}
	strv_free(names);
	strv_free(texts);
	sno_policies_done(&p);
	diag_list_done(&diags);
	free(text);
	return 0;
}
