/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* /etc/default/grub and its drop-ins are read without a shell: every byte
 * sequence either gives the two variables or says which line and why, and a
 * refused file leaves what was read before it as it was. */

#include "fuzz-text.h"
#include "grub-default.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size), *why = NULL, *cmdline = NULL;
	struct grub_default g = { .cmdline_linux = strdup("ro") };
	unsigned line = 0;
	int r;

	if (!text || !g.cmdline_linux) {
		grub_default_done(&g);
		return 0;
	}
	r = grub_default_feed(&g, text, &line, &why);
	if (r == -EBADMSG &&
	    (!why || line == 0 || !streq(g.cmdline_linux, "ro") || g.cmdline_default))
		abort();
	if (r >= 0 && why)
		abort();
	cmdline = grub_default_cmdline(&g);
	if (!cmdline)
		abort();
	grub_default_done(&g);
	return 0;
}
