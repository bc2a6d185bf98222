/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriov-persist.conf and its drop-ins: root's files, but sriovctl check and
 * every program read them, and a typo must be a diagnostic, never a crash. */

#include "fuzz-text.h"
#include "mainconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size);
	struct diag_list diags = {};
	struct mainconf c, d;

	if (!text || mainconf_init(&c) < 0)
		return 0;
	if (mainconf_parse_string(&c, "fuzz.conf", text, &diags) >= 0) {
		for (size_t i = 0; i < diags.n; i++)
			free(diag_format(&diags.items[i]));
		/* what was parsed compares with itself and with the defaults */
		if (!mainconf_equal(&c, &c))
			abort();
		if (mainconf_init(&d) >= 0) {
			(void)mainconf_equal(&c, &d);
			mainconf_done(&d);
		}
		(void)mainconf_kubernetes_enabled(&c);
	}
	diag_list_done(&diags);
	mainconf_done(&c);
	return 0;
}
