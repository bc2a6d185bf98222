/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* SharedWith=: the other manager the layouts leave the VF count to, and
 * what its file sets against what the layouts set. Its count against
 * VirtualFunctions=: fewer VFs would never bring those the layout
 * configures (sriovctl wait would wait for them at every boot), an error
 * that holds the PF; more are left to it, as ExternallyManaged=yes leaves
 * the VFs beyond the count, a warning. Its VF values against the layout's
 * for the same VF: a value both set differently is undone by each in turn,
 * an error that holds the PF; a value only one of them sets is no
 * conflict. */

#include "desired-internal.h"
#include "pf-keys.h"

static const char *shared_pf(const struct desired_ctx *c)
{
	return c->pf->name ?: c->pf->pci;
}

/* "sriov.total-vfs=2", "SR-IOVVirtualFunctions=2", "numvfs: 2"; a count
 * the file implies as the finding says it */
static void count_text(const struct other_finding *f, char buf[static 160])
{
	const char *key = other_manager_count_key(f->manager);

	if (f->count_implied)
		snprintf(buf, 160, "%s", f->setting);
	else
		snprintf(buf, 160, f->manager == OTHER_MANAGER_SRIOV_OPERATOR ? "%s: %u" : "%s=%u",
			 key, f->count);
}

static void vf_range(uint32_t from, uint32_t to, char buf[static 32])
{
	if (from == to)
		snprintf(buf, 32, "VF %u", from);
	else
		snprintf(buf, 32, "VFs %u-%u", from, to);
}

static int shared_count(struct desired_ctx *c, const struct other_finding *f)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_VIRTUAL_FUNCTIONS];
	const char *who = other_manager_to_string(f->manager);
	char have[160], want[32], where[256], range[32];

	if (!f->has_count || c->vf_bound == UINT32_MAX)
		return 0;
	if (s->num_vfs_max)
		snprintf(want, sizeof(want), "max (%u)", c->vf_bound);
	else
		snprintf(want, sizeof(want), "%u", c->vf_bound);
	rules_at(f->path, at, where);
	if (f->count_bad)
		return hw_error(c, f->path, f->line,
				"%s: not a number, so whether %s makes the VFs that "
				"VirtualFunctions=%s%s expects of %s is unknown; sriov-persist "
				"leaves the PF alone until it is one",
				f->setting, who, want, where, shared_pf(c));
	count_text(f, have);
	if (f->count < c->vf_bound) {
		vf_range(f->count, c->vf_bound - 1, range);
		return hw_error(c, f->path, f->line,
				"%s: %s makes %u VFs of %s, which SharedWith=%s leaves to it, "
				"but VirtualFunctions=%s%s expects %u: %s would never appear and "
				"sriovctl wait would wait for them at every boot; sriov-persist "
				"leaves the PF alone until the two counts agree",
				have, who, f->count, shared_pf(c),
				other_manager_key_to_string(f->manager), want, where, c->vf_bound,
				range);
	}
	if (f->count == c->vf_bound || c->alone)
		return 0;
	vf_range(c->vf_bound, f->count - 1, range);
	return diag_add(c->diags, DIAG_WARNING, f->path, f->line,
			"%s: %s makes %u VFs of %s, more than VirtualFunctions=%s%s: the "
			"layout configures the first %u and leaves %s to %s "
			"(ExternallyManaged=yes)",
			have, who, f->count, shared_pf(c), want, where, c->vf_bound, range, who);
}

/* Key k as the other manager sets it against the layout's: appended to
 * *list ("vf.0 trust=true against Trust=no (50.conf:9)"). */
static int conflict_add(char **list, const struct other_vf *v, enum vf_key k,
			const struct vf_settings *mine)
{
	char val[VF_ATTR_STR_MAX], where[256];
	char *more;

	rules_at(v->path, &mine->src[k], where);
	more = strdup_printf("%s%s%s%s against %s=%s%s", *list ?: "", *list ? "; " : "",
			     v->written[k],
			     v->unreadable & (1u << k) ? " (which cannot be read)" : "",
			     vf_key_to_string(k),
			     vf_attrs_format(&mine->attrs, k, VF_SPELLING_LAYOUT, val), where);
	if (!more)
		return -ENOMEM;
	free(*list);
	*list = more;
	return 0;
}

static int shared_vf(struct desired_ctx *c, const struct other_finding *f, const struct other_vf *v)
{
	const struct vf_settings *mine;
	_cleanup_free_ char *list = NULL;
	unsigned line = 0;

	if (v->index >= c->d->n_vfs || !c->d->vfs)
		return 0;
	mine = &c->d->vfs[v->index];
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		int r;

		if (!(v->set & (1u << k)) || !vf_settings_has(mine, k) ||
		    (!(v->unreadable & (1u << k)) && vf_attrs_equal(&v->attrs, &mine->attrs, k)))
			continue;
		r = conflict_add(&list, v, k, mine);
		if (r < 0)
			return r;
		line = line ?: v->line[k];
	}
	if (!list)
		return 0;
	return hw_error(c, v->path, line,
			"%s sets VF %u of %s otherwise than the layout: %s; each would undo the "
			"other's value: sriov-persist leaves the PF alone until they agree or "
			"one of them no longer sets it",
			other_manager_to_string(f->manager), v->index, shared_pf(c), list);
}

int desired_check_shared(struct desired_ctx *c, const struct other_finding *f)
{
	int r = shared_count(c, f);

	for (size_t i = 0; r >= 0 && i < f->n_vfs; i++)
		r = shared_vf(c, f, &f->vfs[i]);
	return r;
}
