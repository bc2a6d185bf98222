/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "json-util.h"
#include "sriovctl.h"

/* What a PF's status is, from the layouts, the host and the last record. */
struct pf_report {
	const char *state; /* not-configured, held, failed, deferred, drifted, pending, applied */
	const char *color;
	const char *why;
	struct pf_status rec;
	bool has_rec;
};

static void report_pf(const struct ctl *c, const struct pf_view *pv, struct pf_report *ret)
{
	struct pf_report r = { .state = "applied", .color = ANSI_GREEN };

	r.has_rec = pf_status_read(c->runtime_dir, pv->pf->pci, &r.rec) >= 0;
	if (!pv->desired) {
		r.state = "not-configured";
		r.color = "0";
	} else if (pv->desired->held) {
		r.state = "held";
		r.color = ANSI_RED;
		r.why = pv->desired->held_reason;
	} else if (pv->plan->n_actions > 0) {
		bool ok = r.has_rec && r.rec.state == PF_STATUS_APPLIED;

		/* Drift: it was applied, and now the host differs again. */
		r.state = ok	     ? "drifted" :
			  !r.has_rec ? "pending" :
				       pf_status_state_to_string(r.rec.state);
		r.color = r.has_rec && r.rec.state == PF_STATUS_FAILED ? ANSI_RED : ANSI_YELLOW;
		r.why = ok ? NULL : r.has_rec ? r.rec.error : "not applied yet";
	}
	*ret = r;
}

static const char *vf_drift(const struct plan *p, uint32_t vf, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; p && i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];

		if (a->type >= ACTION_UNBIND_VF && a->vf == vf) {
			_cleanup_free_ char *d = action_describe(a);
			const char *s = d ? strchr(d, ':') : NULL;

			snprintf(buf, size, "differs:%s", s ? s + 1 : " yes");
			return buf;
		}
	}
	return "ok";
}

static void print_vfs(const struct pf_view *pv)
{
	const struct pf_state *pf = pv->pf;

	if (pf->n_vfs == 0)
		return;
	printf("    %-3s %-12s %-12s %-10s %-17s %4s %3s %-5s %-5s %-7s %5s  %s\n", "VF", "PCI",
	       "NAME", "DRIVER", "MAC", "VLAN", "QOS", "TRUST", "SPOOF", "LINK", "MTU", "LAYOUT");
	for (size_t i = 0; i < pf->n_vfs; i++) {
		const struct vf_state *vf = &pf->vfs[i];
		char mac[MAC_STR_MAX], buf[128];

		printf("    %-3u %-12s %-12s %-10s %-17s %4u %3u %-5s %-5s %-7s %5u  %s\n",
		       vf->index, vf->pci, vf->name ?: "-", vf->driver ?: "-",
		       mac_format(&vf->mac, mac), vf->vlan, vf->qos, vf->trust ? "on" : "off",
		       vf->spoofchk ? "on" : "off", link_state_to_string(vf->link_state), vf->mtu,
		       pv->desired ? vf_drift(pv->plan, vf->index, buf, sizeof(buf)) : "-");
	}
}

static void print_pf(const struct ctl *c, const struct pf_view *pv, const struct pf_report *r)
{
	const struct pf_state *pf = pv->pf;
	char desired[16] = "-", when[32], padded[20];

	if (pv->desired)
		snprintf(desired, sizeof(desired), "%u", pv->desired->num_vfs);
	snprintf(padded, sizeof(padded), "%-15s", r->state);
	printf("%-12s  %-15s %-10s %5u %5s %5u  %s %s\n", pf->pci, pf->name ?: "-",
	       pf->driver ?: "-", pf->num_vfs, desired, pf->total_vfs,
	       ctl_paint(c, r->color, padded),
	       r->has_rec ? ctl_format_time(r->rec.finished, when, sizeof(when)) : "-");
	if (r->why)
		printf("    %s\n", r->why);
	if (r->has_rec && r->rec.error && r->rec.state != PF_STATUS_APPLIED &&
	    r->why != r->rec.error)
		printf("    last apply: %s: %s\n", pf_status_state_to_string(r->rec.state),
		       r->rec.error);
	for (char **p = pv->plan ? pv->plan->reboot_reasons : NULL; p && *p; p++)
		printf("    %s %s\n", ctl_paint(c, ANSI_YELLOW, "pending reboot:"), *p);
	if (pv->desired)
		print_vfs(pv);
}

static struct json_object *vf_json(const struct vf_state *vf, const struct plan *p)
{
	struct json_object *o = json_object_new_object();
	char mac[MAC_STR_MAX], buf[128];

	json_object_object_add(o, "index", json_object_new_int64(vf->index));
	json_object_object_add(o, "pci", json_object_new_string(vf->pci));
	json_object_object_add(o, "name", vf->name ? json_object_new_string(vf->name) : NULL);
	json_object_object_add(o, "driver", vf->driver ? json_object_new_string(vf->driver) : NULL);
	json_object_object_add(o, "mac", json_object_new_string(mac_format(&vf->mac, mac)));
	json_object_object_add(o, "vlan", json_object_new_int64(vf->vlan));
	json_object_object_add(o, "qos", json_object_new_int64(vf->qos));
	json_object_object_add(o, "trust", json_object_new_boolean(vf->trust));
	json_object_object_add(o, "spoofchk", json_object_new_boolean(vf->spoofchk));
	json_object_object_add(o, "link_state",
			       json_object_new_string(link_state_to_string(vf->link_state)));
	json_object_object_add(o, "mtu", json_object_new_int64(vf->mtu));
	json_object_object_add(
		o, "layout",
		p ? json_object_new_string(vf_drift(p, vf->index, buf, sizeof(buf))) : NULL);
	return o;
}

static struct json_object *pf_json(const struct pf_view *pv, const struct pf_report *r)
{
	struct json_object *o = json_object_new_object(), *vfs = json_object_new_array();
	struct json_object *reasons = json_object_new_array();
	const struct pf_state *pf = pv->pf;

	json_object_object_add(o, "pci", json_object_new_string(pf->pci));
	json_object_object_add(o, "name", pf->name ? json_object_new_string(pf->name) : NULL);
	json_object_object_add(o, "driver", pf->driver ? json_object_new_string(pf->driver) : NULL);
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "reason", r->why ? json_object_new_string(r->why) : NULL);
	json_object_object_add(o, "num_vfs", json_object_new_int64(pf->num_vfs));
	json_object_object_add(o, "total_vfs", json_object_new_int64(pf->total_vfs));
	json_object_object_add(o, "desired_num_vfs",
			       pv->desired ? json_object_new_int64(pv->desired->num_vfs) : NULL);
	json_object_object_add(o, "pending_actions",
			       json_object_new_int64(pv->plan ? (int64_t)pv->plan->n_actions : 0));
	for (char **p = pv->plan ? pv->plan->reboot_reasons : NULL; p && *p; p++)
		json_object_array_add(reasons, json_object_new_string(*p));
	json_object_object_add(o, "pending_reboot_reasons", reasons);
	if (r->has_rec) {
		struct json_object *last = json_object_new_object();

		json_object_object_add(
			last, "state",
			json_object_new_string(pf_status_state_to_string(r->rec.state)));
		json_object_object_add(last, "error",
				       r->rec.error ? json_object_new_string(r->rec.error) : NULL);
		json_object_object_add(last, "finished_usec",
				       json_object_new_uint64(r->rec.finished));
		json_object_object_add(last, "actions", json_object_new_int64(r->rec.n_actions));
		json_object_object_add(last, "started_usec",
				       json_object_new_uint64(r->rec.started));
		json_object_object_add(last, "host_usec", json_object_new_uint64(r->rec.host_usec));
		json_object_object_add(o, "last_apply", last);
	} else {
		json_object_object_add(o, "last_apply", NULL);
	}
	for (size_t i = 0; i < pf->n_vfs; i++)
		json_object_array_add(vfs, vf_json(&pf->vfs[i], pv->plan));
	json_object_object_add(o, "vfs", vfs);
	return o;
}

/* PFs that were applied here and are gone (unplugged, driver unbound). */
static void print_gone(const struct ctl *c, const struct host_view *v, struct json_object *arr)
{
	_cleanup_strv_free_ char **pcis = NULL;

	if (c->n_args > 0 || pf_status_list(c->runtime_dir, &pcis) < 0)
		return;
	for (char **p = pcis; *p; p++) {
		struct pf_status st;
		char when[32];

		if (host_state_find_pf(v->hs, *p) || pf_status_read(c->runtime_dir, *p, &st) < 0)
			continue;
		if (arr) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "pci", json_object_new_string(*p));
			json_object_object_add(o, "name",
					       st.name ? json_object_new_string(st.name) : NULL);
			json_object_object_add(o, "state", json_object_new_string("gone"));
			json_object_array_add(arr, o);
		} else {
			printf("%-12s  %-15s %-10s %5s %5s %5s  %s %s\n", *p, st.name ?: "-", "-",
			       "-", "-", "-", ctl_paint(c, ANSI_YELLOW, "gone           "),
			       ctl_format_time(st.finished, when, sizeof(when)));
		}
		pf_status_done(&st);
	}
}

int verb_status(struct ctl *c)
{
	_cleanup_json_ struct json_object *arr = NULL;
	struct host_view v;

	if (ctl_host_view(c, &v) < 0)
		return EXIT_FAIL;
	ctl_print_diags(&v.set->diags);
	ctl_print_diags(&v.diags);
	if (c->json)
		arr = json_object_new_array();
	else
		printf("%-12s  %-15s %-10s %5s %5s %5s  %-15s %s\n", "PF", "NAME", "DRIVER", "VFS",
		       "WANT", "MAX", "STATE", "LAST APPLY");
	for (size_t i = 0; i < v.n_pfs; i++) {
		struct pf_report r;

		report_pf(c, &v.pfs[i], &r);
		if (c->json)
			json_object_array_add(arr, pf_json(&v.pfs[i], &r));
		else
			print_pf(c, &v.pfs[i], &r);
		if (r.has_rec)
			pf_status_done(&r.rec);
	}
	print_gone(c, &v, arr);
	if (c->json) {
		_cleanup_json_ struct json_object *o = json_object_new_object();

		json_object_object_add(o, "pfs", json_object_get(arr));
		printf("%s\n", json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	host_view_done(&v);
	return EXIT_OK;
}
