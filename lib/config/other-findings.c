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

static const char *const other_manager_count_table[_OTHER_MANAGER_MAX] = {
	[OTHER_MANAGER_NETWORKMANAGER] = "sriov.total-vfs",
	[OTHER_MANAGER_SYSTEMD_LINK] = "SR-IOVVirtualFunctions",
	[OTHER_MANAGER_SRIOV_OPERATOR] = "numvfs",
};

const char *other_manager_count_key(enum other_manager m)
{
	return m >= 0 && m < _OTHER_MANAGER_MAX ? other_manager_count_table[m] : NULL;
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

int other_vf_set(struct other_vf *v, enum vf_key k, const char *written, unsigned line,
		 const char *value)
{
	const char *why;
	int r = vf_attrs_parse(&v->attrs, k, value, &why);

	if (r == -ENOMEM)
		return r;
	v->set |= 1u << k;
	if (r < 0)
		v->unreadable |= 1u << k;
	else
		v->unreadable &= ~(1u << k);
	v->line[k] = line;
	return free_and_strdup(&v->written[k], written);
}

int other_vf_copy(struct other_vf *dst, const struct other_vf *src)
{
	int r;

	*dst = *src;
	dst->path = NULL;
	memset(dst->written, 0, sizeof(dst->written));
	r = vf_attrs_copy_all(&dst->attrs, &src->attrs);
	if (r < 0) {
		dst->attrs = (struct vf_attrs){};
		other_vf_done(dst);
		return r;
	}
	dst->path = src->path ? strdup(src->path) : NULL;
	for (size_t k = 0; k < _VF_KEY_MAX; k++)
		dst->written[k] = src->written[k] ? strdup(src->written[k]) : NULL;
	for (size_t k = 0; k < _VF_KEY_MAX; k++)
		if (src->written[k] && !dst->written[k])
			r = -ENOMEM;
	if (r < 0 || (src->path && !dst->path)) {
		other_vf_done(dst);
		return -ENOMEM;
	}
	return 0;
}

void other_vf_done(struct other_vf *v)
{
	vf_attrs_done(&v->attrs);
	free(v->path);
	for (size_t k = 0; k < _VF_KEY_MAX; k++)
		free(v->written[k]);
	*v = (struct other_vf){};
}

static void other_finding_done(struct other_finding *f)
{
	free(f->path);
	free(f->setting);
	free(f->how);
	for (size_t i = 0; i < f->n_vfs; i++)
		other_vf_done(&f->vfs[i]);
	free(f->vfs);
}

int other_finding_set_count(struct other_finding *f, const char *count)
{
	f->has_count = count != NULL;
	f->count_bad = count && safe_atou32(count, 10, &f->count) < 0;
	return 0;
}

int other_finding_add_vfs(struct other_finding *f, const struct other_vf *vfs, size_t n)
{
	struct other_vf *items;

	if (n == 0)
		return 0;
	items = realloc(f->vfs, sizeof(*items) * (f->n_vfs + n));
	if (!items)
		return -ENOMEM;
	f->vfs = items;
	for (size_t i = 0; i < n; i++) {
		int r = other_vf_copy(&f->vfs[f->n_vfs], &vfs[i]);

		if (r < 0)
			return r;
		f->n_vfs++;
	}
	return 0;
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
	return other_findings_add_unreadable_at(l, m, path, 0, why);
}

int other_findings_add_unreadable_at(struct other_findings *l, enum other_manager m,
				     const char *path, unsigned line, const char *why)
{
	_cleanup_free_ char *setting = strdup_printf("cannot read: %s", why);
	int r;

	if (!setting)
		return -ENOMEM;
	r = other_findings_add(l, m, OTHER_CERTAINTY_MAY_MATCH, path, line, setting,
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

		struct other_finding *d;

		if (r < 0)
			return r;
		d = &dst->items[dst->n - 1];
		d->unreadable = s->unreadable;
		d->has_count = s->has_count;
		d->count_bad = s->count_bad;
		d->count_implied = s->count_implied;
		d->count = s->count;
		r = other_finding_add_vfs(d, s->vfs, s->n_vfs);
		if (r < 0)
			return r;
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
