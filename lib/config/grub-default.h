/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel command line that update-grub (grub-mkconfig) gives the next
 * boot, from /etc/default/grub and then each *.cfg of /etc/default/grub.d:
 * grub-mkconfig sources them with sh, and /etc/grub.d/10_linux boots the
 * default entry with "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}".
 * No shell is ever run here: the files are read as the plain assignments
 * that Debian's and Ubuntu's files are, and anything that only a shell could
 * tell the outcome of makes the files ambiguous. Pure. */

#include "macro.h"

#define GRUB_DEFAULT_FILE "/etc/default/grub"
#define GRUB_DEFAULT_DROPIN_DIR "/etc/default/grub.d"

struct grub_default {
	/* GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT as the shell
	 * would have them after the files read so far; NULL while unset */
	char *cmdline_linux;
	char *cmdline_default;
};

void grub_default_done(struct grub_default *g);

/* One file's text, sourced after those fed before it. On a line that is not
 * a comment or a plain assignment, or an assignment of one of the two
 * variables with anything beyond quotes and $GRUB_CMDLINE_LINUX(_DEFAULT)
 * in it: -EBADMSG, *ret_line and *ret_why (caller frees) saying what, and g
 * as it was before the file. -ENOMEM. */
int grub_default_feed(struct grub_default *g, const char *text, unsigned *ret_line, char **ret_why);

/* The default entry's command line: "LINUX DEFAULT"; caller frees. */
char *grub_default_cmdline(const struct grub_default *g);
