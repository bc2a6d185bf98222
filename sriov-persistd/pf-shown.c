/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "pf-shown.h"
#include "host-error.h"
#include "json-util.h"
#include "layout-wants.h"

/* Whether the layout change that waits for the host changes what pci's
 * layouts want (on the host as read last); every PF when the layouts
 * before it are not known. */
static int layout_change_waits(struct manager *m, const char *pci)
{
	const struct pf_state *pf;

	if (!m->reload_waits || !m->hs || !(pf = host_state_find_pf(m->hs, pci)))
		return 0;
	if (!m->reload_from)
		return 1;
	return layouts_differ(m->reload_from, m->set, m->hs, pf);
}

/* The daemon's last error of e, without the command it names, which cannot
 * work while the host cannot be read (*buf: the caller frees it). */
static const char *last_error_now(const struct pf_entry *e, char **buf)
{
	const char *cmd = e->last_error ? strstr(e->last_error, "; sriovctl ") : NULL;

	*buf = NULL;
	if (!cmd)
		return e->last_error;
	*buf = strdup_printf("%.*s; %s", (int)(cmd - e->last_error), e->last_error,
			     HOST_ERROR_APPLY_WAITS);
	return *buf ?: e->last_error;
}

int manager_pf_shown(struct manager *m, const char *pci, const struct pf_entry *e,
		     const char **ret_state, const char **ret_reason, char **buf)
{
	int w = m->host_error ? layout_change_waits(m, pci) : 0;

	*buf = NULL;
	if (w < 0)
		return w;
	if (w) {
		*ret_state = "pending";
		*ret_reason = HOST_ERROR_WAITS "; then it is applied";
		return 1;
	}
	if (!e)
		return 0;
	*ret_state = pf_run_state_to_string(e->state);
	*ret_reason = m->host_error ? last_error_now(e, buf) : e->last_error;
	return 1;
}

char *manager_pf_published(struct manager *m, const struct pf_entry *e)
{
	_cleanup_free_ char *files = strv_join(e->config_files, "\n"), *buf = NULL;
	const char *state = NULL, *reason = NULL;

	if (manager_pf_shown(m, e->pci, e, &state, &reason, &buf) < 0)
		return NULL;
	return strdup_printf("%s|%s|%u|%u|%s|%s|%u", strempty(e->name), state, e->num_vfs,
			     e->desired_vfs, strempty(reason), strempty(files),
			     e->settings_changes);
}

int manager_pf_append_settings(sd_bus_message *reply, const struct key_settings *s, bool vfs)
{
	const struct key_setting *l = vfs ? s->vfs : s->pf;
	size_t n = vfs ? s->n_vfs : s->n_pf;
	int r = sd_bus_message_open_container(reply, 'a', vfs ? "(ussss)" : "(ssss)");

	for (size_t i = 0; r >= 0 && i < n; i++)
		r = vfs ? sd_bus_message_append(reply, "(ussss)", l[i].vf, l[i].key, l[i].now,
						l[i].wanted, l[i].source) :
			  sd_bus_message_append(reply, "(ssss)", l[i].key, l[i].now, l[i].wanted,
						l[i].source);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

int manager_status_as_checked(struct manager *m, struct json_object *doc)
{
	struct json_object *pfs;

	if (!json_object_object_get_ex(doc, "pfs", &pfs))
		return 0;
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *o = json_object_array_get_idx(pfs, i), *v;
		const char *pci, *state, *reason;
		_cleanup_free_ char *buf = NULL;
		const struct pf_entry *e;
		int r;

		if (!json_object_object_get_ex(o, "pci", &v) || !(pci = json_object_get_string(v)))
			continue;
		/* what sriovctl reset through the daemon says of the reset */
		e = manager_find_entry(m, pci);
		if (e && e->reset_without_drain &&
		    json_put_str(o, "reset_without_drain", e->reset_without_drain) < 0)
			return -ENOMEM;
		if (!m->host_error || (json_object_object_get_ex(o, "state", &v) &&
				       streq_ptr(json_object_get_string(v), "gone")))
			continue;
		r = manager_pf_shown(m, pci, e, &state, &reason, &buf);
		if (r < 0)
			return r;
		if (r > 0 &&
		    (json_put_str(o, "state", state) < 0 || json_put_str(o, "reason", reason) < 0))
			return -ENOMEM;
	}
	return 0;
}
