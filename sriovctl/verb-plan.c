/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "json-util.h"
#include "sriovctl.h"

static struct json_object *strv_json(char *const *l)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; l && l[i]; i++)
		json_object_array_add(a, json_object_new_string(l[i]));
	return a;
}

static struct json_object *action_json(const struct action *a)
{
	_cleanup_free_ char *d = action_describe(a);
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "action", json_object_new_string(action_type_to_string(a->type)));
	json_object_object_add(o, "description", json_object_new_string(strna(d)));
	json_object_object_add(o, "disruptive", json_object_new_boolean(a->disruptive));
	json_object_object_add(o, "needs_reboot", json_object_new_boolean(a->needs_reboot));
	if (a->type >= ACTION_UNBIND_VF)
		json_object_object_add(o, "vf", json_object_new_int64(a->vf));
	return o;
}

static struct json_object *pf_json(const struct pf_view *pv)
{
	struct json_object *o = json_object_new_object(), *acts = json_object_new_array();
	const struct pf_desired *d = pv->desired;

	json_object_object_add(o, "pci", json_object_new_string(pv->pf->pci));
	json_object_object_add(o, "name",
			       pv->pf->name ? json_object_new_string(pv->pf->name) : NULL);
	json_object_object_add(o, "configured", json_object_new_boolean(d != NULL));
	json_object_object_add(o, "held", json_object_new_boolean(d && d->held));
	json_object_object_add(o, "held_reason",
			       d && d->held ? json_object_new_string(strna(d->held_reason)) : NULL);
	json_object_object_add(o, "disruptive",
			       json_object_new_boolean(pv->plan && plan_is_disruptive(pv->plan)));
	for (size_t i = 0; pv->plan && i < pv->plan->n_actions; i++)
		json_object_array_add(acts, action_json(&pv->plan->actions[i]));
	json_object_object_add(o, "actions", acts);
	json_object_object_add(o, "reboot_reasons",
			       strv_json(pv->plan ? pv->plan->reboot_reasons : NULL));
	json_object_object_add(o, "config_files", strv_json(d ? d->config_files : NULL));
	return o;
}

static void print_pf(const struct ctl *c, const struct pf_view *pv)
{
	_cleanup_free_ char *who = pf_describe(pv->pf);
	const struct plan *p = pv->plan;

	if (!pv->desired) {
		printf("%s: not configured (no layout selects it)\n", strna(who));
		return;
	}
	if (pv->desired->held) {
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_RED, "held"),
		       strna(pv->desired->held_reason));
		return;
	}
	if (p->n_actions == 0)
		printf("%s: %s\n", strna(who), ctl_paint(c, ANSI_GREEN, "nothing to do"));
	else
		printf("%s: %zu action(s)%s\n", strna(who), p->n_actions,
		       plan_is_disruptive(p) ? ", disruptive" : ", all live");
	for (size_t i = 0; i < p->n_actions; i++) {
		_cleanup_free_ char *d = action_describe(&p->actions[i]);

		printf("  %-10s %s\n", p->actions[i].disruptive ? "disruptive" : "live", strna(d));
	}
	for (char **r = p->reboot_reasons; r && *r; r++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "reboot needed:"), *r);
}

int verb_plan(struct ctl *c)
{
	struct host_view v;
	bool changes = false, held = false;

	if (ctl_host_view(c, &v) < 0)
		return EXIT_FAIL;
	ctl_print_diags(&v.set->diags);
	ctl_print_diags(&v.diags);
	for (size_t i = 0; i < v.n_pfs; i++) {
		const struct pf_view *pv = &v.pfs[i];

		held |= pv->desired && pv->desired->held;
		changes |= pv->plan && pv->plan->n_actions > 0;
	}
	if (c->json) {
		_cleanup_json_ struct json_object *o = json_object_new_object();
		struct json_object *a = json_object_new_array();

		for (size_t i = 0; i < v.n_pfs; i++)
			json_object_array_add(a, pf_json(&v.pfs[i]));
		json_object_object_add(o, "pfs", a);
		json_object_object_add(o, "changes", json_object_new_boolean(changes));
		printf("%s\n", json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		for (size_t i = 0; i < v.n_pfs; i++)
			print_pf(c, &v.pfs[i]);
	}
	host_view_done(&v);
	if (held)
		return EXIT_FAIL;
	return changes ? EXIT_CHANGES : EXIT_OK;
}
