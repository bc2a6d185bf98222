/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <syslog.h>

#include "host-error.h"
#include "manager-summary.h"
#include "report-gone.h"

void manager_host_read(struct manager *m, int r)
{
	const char *waits = manager_reload_waits_why(m);
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
		"Reading the host failed: %s; the daemon shows what it read last%s%s, until it "
		"can be read",
		error, waits ? " and " : "", strempty(waits));
	free(m->host_error);
	m->host_error = TAKE_PTR(error);
	m->host_error_at = now_realtime();
	manager_update_summary(m, false);
}

const char *manager_reload_waits_why(const struct manager *m)
{
	if (!m->reload_waits)
		return NULL;
	return m->reload_changes ? HOST_ERROR_WAITS : HOST_ERROR_RELOAD_WAITS;
}

/* Whether r, from a call's read of the host, is the failure m->host_error
 * keeps ("<strerror>: <details>"): a read that works clears it. */
static bool is_host_error(const struct manager *m, int r)
{
	const char *e = strerror(-r);

	return m->host_error && strncmp(m->host_error, e, strlen(e)) == 0;
}

int manager_host_error_set(const struct manager *m, sd_bus_error *error, const char *doing, int r)
{
	const char *waits = manager_reload_waits_why(m), *sep = waits ? "; " : "";

	if (!is_host_error(m, r))
		return sd_bus_error_set_errnof(error, -r, "%s failed: %s", doing, strerror(-r));
	if (streq(doing, "Reading the host"))
		return sd_bus_error_set_errnof(error, -r, "Reading the host failed: %s%s%s",
					       m->host_error, sep, strempty(waits));
	return sd_bus_error_set_errnof(error, -r, "%s failed: reading the host failed: %s%s%s",
				       doing, m->host_error, sep, strempty(waits));
}

int manager_plan_add(const struct manager *m, struct json_object *doc)
{
	int r = report_plan_add_gone(doc, m->hs, m->runtime_dir);
	struct json_object *e;

	if (r < 0 || !m->host_error)
		return r; /* a host read as it is now: the document sriovctl plan makes */
	/* the PFs are as read last: a plan that must not pass for one of the host now */
	e = manager_host_error_json(m);
	if (!e || json_object_object_add(doc, "host_error", e) < 0) {
		json_object_put(e);
		return -ENOMEM;
	}
	return 0;
}
