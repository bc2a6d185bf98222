/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <syslog.h>

#include "host-error.h"
#include "manager-summary.h"

void manager_host_read(struct manager *m, int r)
{
	_cleanup_free_ char *error = NULL;

	if (r >= 0) {
		if (!m->host_error)
			return;
		log_msg(LOG_NOTICE, "Reading the host works again (it failed: %s)", m->host_error);
		m->host_error = mfree(m->host_error);
		m->host_error_at = 0;
		manager_update_summary(m, false);
		return;
	}
	error = strdup_printf("%s%s%s", strerror(-r), m->host->error[0] ? ": " : "",
			      m->host->error);
	if (!error || streq_ptr(error, m->host_error))
		return; /* said once; the time is that of the first such failure */
	log_msg(LOG_ERR,
		"Reading the host failed: %s; the daemon shows what it read last%s, until it "
		"can be read",
		error,
		m->reload_waits ? " and the layout change waits until the host can be read" : "");
	free(m->host_error);
	m->host_error = TAKE_PTR(error);
	m->host_error_at = now_realtime();
	manager_update_summary(m, false);
}
