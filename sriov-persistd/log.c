/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Logging: to the journal with the PF as a field when systemd connected
 * stderr to it, plain lines on stderr otherwise (tests, a terminal). */

#include <stdarg.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

#include "log.h"

bool log_debug_enabled;

void log_pf(int priority, const char *pci, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	if (priority >= LOG_DEBUG && !log_debug_enabled)
		return;
	va_start(ap, fmt);
	msg = strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return;
	if (getenv("JOURNAL_STREAM"))
		sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", priority,
				"SYSLOG_IDENTIFIER=sriov-persistd", pci ? "SRIOV_PF=%s" : NULL, pci,
				NULL);
	else
		fprintf(stderr, "sriov-persistd: %s\n", msg);
}
