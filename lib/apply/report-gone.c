/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>

#include "apply.h"
#include "json-util.h"
#include "report-gone.h"

char *report_gone_reason(const struct pf_status *st)
{
	char when[FORMAT_RFC3339_MAX];

	return strdup_printf("recorded %s at %s with %" PRIu32 " VFs, no longer on the host",
			     strna(pf_status_state_to_string(st->state)),
			     format_rfc3339(when, st->finished), st->num_vfs);
}

int report_gone_each(const struct host_state *hs, const char *runtime_dir,
		     int (*fn)(const struct pf_status *st, void *userdata), void *userdata)
{
	_cleanup_strv_free_ char **pcis = NULL;
	int r;

	r = pf_status_list(runtime_dir, &pcis);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (char **p = pcis; r >= 0 && *p; p++) {
		struct pf_status st;

		if (host_state_find_pf(hs, *p) || pf_status_read(runtime_dir, *p, &st) < 0)
			continue;
		r = fn(&st, userdata);
		pf_status_done(&st);
	}
	return r < 0 ? r : 0;
}

static int add_gone(const struct pf_status *st, void *userdata)
{
	struct json_object *arr = userdata, *o = json_object_new_object();
	_cleanup_free_ char *why = report_gone_reason(st);

	if (json_append(arr, o) < 0 || !why || json_put_str(o, "pci", st->pci) < 0 ||
	    json_put_str(o, "name", st->name) < 0 || json_put_bool(o, "configured", true) < 0 ||
	    json_put_bool(o, "gone", true) < 0 || json_put_str(o, "reason", why) < 0 ||
	    json_put(o, "actions", json_object_new_array()) < 0)
		return -ENOMEM;
	return 0;
}

int report_plan_add_gone(struct json_object *doc, const struct host_state *hs,
			 const char *runtime_dir)
{
	struct json_object *arr;

	if (!json_object_object_get_ex(doc, "pfs", &arr))
		return -EINVAL;
	return report_gone_each(hs, runtime_dir, add_gone, arr);
}

struct forget_ctx {
	const char *runtime_dir;
	const char *what;
	usec_t timeout;
	char *said;
};

static int forget_one(const struct pf_status *st, void *userdata)
{
	struct forget_ctx *f = userdata;
	_cleanup_free_ char *who = NULL, *why = NULL;
	_cleanup_close_ int lock = -EBADF;
	int r;

	if (f->said || (!streq(st->pci, f->what) && !streq_ptr(st->name, f->what)))
		return 0;
	who = pf_names_describe(st->pci, st->name);
	why = report_gone_reason(st);
	if (!who || !why)
		return -ENOMEM;
	lock = pf_lock(f->runtime_dir, st->pci, f->timeout);
	r = lock < 0 ? lock : pf_status_remove(f->runtime_dir, st->pci);
	if (r < 0)
		return r;
	f->said = strdup_printf("%s: %s", who, why);
	return f->said ? 0 : -ENOMEM;
}

int report_gone_forget(const struct host_state *hs, const char *runtime_dir, const char *what,
		       usec_t timeout, char **ret_said)
{
	struct forget_ctx f = { .runtime_dir = runtime_dir, .what = what, .timeout = timeout };
	int r = report_gone_each(hs, runtime_dir, forget_one, &f);

	if (r < 0) {
		free(f.said);
		return r;
	}
	if (!f.said)
		return 0;
	*ret_said = f.said;
	return 1;
}
