/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "other-findings.h"

static const char *const other_manager_table[_OTHER_MANAGER_MAX] = {
	[OTHER_MANAGER_NETWORKMANAGER] = "NetworkManager",
	[OTHER_MANAGER_SYSTEMD_LINK] = "systemd .link",
	[OTHER_MANAGER_SRIOV_OPERATOR] = "sriov-network-operator",
};
DEFINE_STRING_TABLE_TO(other_manager, enum other_manager, other_manager_table)

static const char *const other_manager_key_table[_OTHER_MANAGER_MAX] = {
	[OTHER_MANAGER_NETWORKMANAGER] = "NetworkManager",
	[OTHER_MANAGER_SYSTEMD_LINK] = "systemd-udevd",
	[OTHER_MANAGER_SRIOV_OPERATOR] = "sriov-network-operator",
};
DEFINE_STRING_TABLE_TO(other_manager_key, enum other_manager, other_manager_key_table)

enum other_manager other_manager_key_from_string(const char *s)
{
	return (enum other_manager)string_table_lookup(other_manager_key_table, _OTHER_MANAGER_MAX,
						       s);
}

static const char *const other_certainty_table[_OTHER_CERTAINTY_MAX] = {
	[OTHER_CERTAINTY_MATCHES] = "matches",
	[OTHER_CERTAINTY_MAY_MATCH] = "may match",
};
DEFINE_STRING_TABLE_TO(other_certainty, enum other_certainty, other_certainty_table)

void pf_identity_from_state(const struct pf_state *pf, char id_path[static PF_ID_PATH_MAX],
			    struct pf_identity *ret)
{
	snprintf(id_path, PF_ID_PATH_MAX, "pci-%s", pf->pci);
	*ret = (struct pf_identity){
		.name = pf->name,
		.altnames = pf->altnames,
		.has_permanent_mac = !mac_is_zero(&pf->permanent_mac),
		.permanent_mac = pf->permanent_mac,
		.pci = pf->pci,
		.driver = pf->driver,
		.vendor = pf->vendor,
		.device = pf->device,
		.id_path = id_path,
		.iftype = pf->link_type == LINK_TYPE_INFINIBAND ? "infiniband" : "ether",
	};
}

static void other_finding_done(struct other_finding *f)
{
	free(f->path);
	free(f->setting);
	free(f->how);
}

static int other_findings_push(struct other_findings *l, struct other_finding *f)
{
	struct other_finding *items = realloc(l->items, sizeof(*items) * (l->n + 1));

	if (!items) {
		other_finding_done(f);
		return -ENOMEM;
	}
	l->items = items;
	l->items[l->n++] = *f;
	return 0;
}

static int other_finding_init(struct other_finding *f, const char *path, const char *setting,
			      const char *how)
{
	f->path = strdup(path);
	f->setting = strdup(setting);
	f->how = strdup(how ? how : "");
	if (!f->path || !f->setting || !f->how) {
		other_finding_done(f);
		return -ENOMEM;
	}
	return 0;
}

int other_findings_add(struct other_findings *l, enum other_manager m, enum other_certainty c,
		       const char *path, unsigned line, const char *setting, const char *how)
{
	struct other_finding f = { .manager = m, .certainty = c, .line = line };
	int r = other_finding_init(&f, path, setting, how);

	if (r < 0)
		return r;
	return other_findings_push(l, &f);
}

int other_findings_add_unreadable(struct other_findings *l, enum other_manager m, const char *path,
				  const char *why)
{
	_cleanup_free_ char *setting = strdup_printf("cannot read: %s", why);
	int r;

	if (!setting)
		return -ENOMEM;
	r = other_findings_add(l, m, OTHER_CERTAINTY_MAY_MATCH, path, 0, setting,
			       "what it sets cannot be told");
	if (r >= 0)
		l->items[l->n - 1].unreadable = true;
	return r;
}

int other_findings_copy(struct other_findings *dst, const struct other_findings *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct other_finding *s = &src->items[i];
		int r = other_findings_add(dst, s->manager, s->certainty, s->path, s->line,
					   s->setting, s->how);

		if (r < 0)
			return r;
		dst->items[dst->n - 1].unreadable = s->unreadable;
	}
	return 0;
}

void other_findings_done(struct other_findings *l)
{
	for (size_t i = 0; i < l->n; i++)
		other_finding_done(&l->items[i]);
	free(l->items);
	*l = (struct other_findings){};
}

char *other_finding_format(const struct other_finding *f)
{
	char line[16] = "";

	if (f->line > 0)
		snprintf(line, sizeof(line), ":%u", f->line);
	return strdup_printf("%s%s: %s (%s, %s%s%s)", f->path, line, f->setting,
			     other_manager_to_string(f->manager),
			     other_certainty_to_string(f->certainty), f->how[0] ? ": " : "",
			     f->how);
}
