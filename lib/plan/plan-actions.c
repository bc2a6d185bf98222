/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What every step of the planner does: append an action (one that waits
 * for a reboot marked so) or a reboot reason to the plan. */

#include "plan-internal.h"

struct action *plan_add_action(struct plan *p, enum action_type type, bool disruptive)
{
	struct action *a = realloc(p->actions, sizeof(*a) * (p->n_actions + 1));

	if (!a)
		return NULL;
	p->actions = a;
	a = &p->actions[p->n_actions++];
	*a = (struct action){ .type = type, .disruptive = disruptive };
	return a;
}

int plan_add_value(struct plan *p, enum action_type type, bool disruptive, uint32_t value)
{
	struct action *a = plan_add_action(p, type, disruptive);

	if (!a)
		return -ENOMEM;
	a->value = value;
	return 0;
}

int plan_add_vf(struct plan *p, enum action_type type, bool disruptive, uint32_t vf, uint32_t value,
		const char *str)
{
	struct action *a = plan_add_action(p, type, disruptive);

	if (!a)
		return -ENOMEM;
	a->vf = vf;
	a->value = value;
	if (str) {
		a->str = strdup(str);
		if (!a->str)
			return -ENOMEM;
	}
	return 0;
}

int plan_add_reason(struct plan *p, char *reason)
{
	if (!reason)
		return -ENOMEM;
	return strv_consume(&p->reboot_reasons, reason);
}

int plan_add_planned_reason(struct plan *p, char *reason)
{
	if (!reason || strv_consume(&p->reboot_planned, strdup(reason)) < 0) {
		free(reason);
		return -ENOMEM;
	}
	return strv_consume(&p->reboot_reasons, reason);
}

int plan_add_reboot(struct plan *p, enum action_type type, uint32_t value)
{
	int r = plan_add_value(p, type, true, value);

	if (r >= 0)
		p->actions[p->n_actions - 1].needs_reboot = true;
	return r;
}
