/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What making the VFs anew in step 4 costs the VFs that exist: why they are
 * made anew (their count changes, or the driver changes the eswitch mode
 * only without VFs), and what each loses: a value the host has that the
 * kernel does not give a new VF, which no layout sets, so that no action
 * sets it again (a VLAN or trust set by hand). Said, never kept silently. */

#include <stdio.h>

#include "plan-internal.h"

/* The value of key k a VF made anew in step 4 ends with when no layout sets
 * it: the kernel's default (vf_attrs_init()), on the kernel's VF driver
 * when the PF probes new VFs, with a network interface at the MTU its netdev
 * starts with on the port's link type as it runs (IPoIB's 4092 on
 * InfiniBand; a LinkType= change waits for the reboot). */
static void fresh_vf(const struct plan_ctx *c, struct vf_attrs *ret)
{
	vf_attrs_init(ret);
	ret->driver = (char *)(c->probe_on ? plan_default_vf_driver(c) : NULL);
	ret->mtu = vf_netdev_default_mtu(c->pf->link_type == LINK_TYPE_INFINIBAND);
}

/* Whether host VF vf loses key k when made anew as fresh: it has a value
 * the new VF will not have. A MAC the PF driver makes up for every new VF
 * (igb) cannot be told from one set by hand; RDMA is a device, not a
 * setting. */
static bool key_lost(const struct plan_ctx *c, const struct vf_state *vf,
		     const struct vf_attrs *fresh, enum vf_key k)
{
	if (k == VF_KEY_RDMA || !vf_attrs_host_has(&vf->attrs, k) ||
	    (k == VF_KEY_MAC && c->drv->vf_random_mac))
		return false;
	if (k == VF_KEY_DRIVER)
		return !fresh->driver || !module_name_equal(vf->attrs.driver, fresh->driver);
	return !vf_attrs_equal(&vf->attrs, fresh, k);
}

/* The keys VF i loses with its recreation that no layout sets. */
static uint32_t lost_keys(const struct plan_ctx *c, uint32_t i)
{
	const struct vf_settings *v = i < c->d->n_vfs ? &c->d->vfs[i] : NULL;
	struct vf_attrs fresh;
	uint32_t lost = 0;

	fresh_vf(c, &fresh);
	/* a layout that needs a network interface gets the VF one (plan-vf.c) */
	if (!fresh.driver && v && vf_settings_needs_netdev(v))
		fresh.driver = (char *)plan_default_vf_driver(c);
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (!(v && vf_settings_has(v, k)) && key_lost(c, &c->pf->vfs[i], &fresh, k))
			lost |= 1u << k;
	return lost;
}

/* ", without its vlan 33, trust on (no layout sets them)" into f: the keys
 * of vf, "their" for several VFs. */
static void describe_lost(FILE *f, const struct vf_state *vf, uint32_t keys, bool several)
{
	char buf[VF_ATTR_STR_MAX];
	const char *sep = several ? ", without their " : ", without its ";
	unsigned n = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!(keys & (1u << k)))
			continue;
		fprintf(f, "%s%s %s", sep, vf_key_to_label(k),
			vf_attrs_format_host(&vf->attrs, k, VF_SPELLING_STATUS, buf) ?: "-");
		sep = ", ";
		n++;
	}
	if (n > 0)
		fprintf(f, " (no layout sets %s)", n > 1 ? "them" : "it");
}

/* describe_lost() as a string; NULL on ENOMEM. */
static char *lost_string(const struct vf_state *vf, uint32_t keys, bool several)
{
	_cleanup_fclose_ FILE *f = NULL;
	char *buf = NULL;
	size_t size = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	describe_lost(f, vf, keys, several);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *plan_recreate_cause(const struct plan *p)
{
	for (size_t i = p->n_actions; i > 0; i--) {
		const struct action *a = &p->actions[i - 1];

		if (p->recreates_for_eswitch && a->type == ACTION_SET_ESWITCH_MODE)
			return strdup_printf(
				"by the eswitch change to %s",
				strna(eswitch_mode_to_string((enum eswitch_mode)a->value)));
		if (!p->recreates_for_eswitch && a->type == ACTION_SET_NUM_VFS)
			return strdup_printf("(VirtualFunctions=%u)", a->value);
	}
	return strdup("");
}

char *plan_vf_lost_describe(const struct plan *p, const struct vf_state *vf)
{
	return lost_string(vf, vf->index < p->n_lost ? p->lost[vf->index] : 0, false);
}

/* Whether VF j loses the same as VF i, in the same words. */
static bool same_loss(const struct plan_ctx *c, uint32_t i, uint32_t j)
{
	const uint32_t *lost = c->p->lost;
	_cleanup_free_ char *a = NULL, *b = NULL;

	if (lost[i] != lost[j])
		return false;
	a = lost_string(&c->pf->vfs[i], lost[i], false);
	b = lost_string(&c->pf->vfs[j], lost[j], false);
	return a && b && streq(a, b);
}

/* "VFs 0-1: recreated by the eswitch change to switchdev, without their
 * vlan 33 (no layout sets it)": the VFs from i on that lose what VF i
 * loses, marked done. */
static char *loss_sentence(const struct plan_ctx *c, uint32_t i, const char *cause, bool *done)
{
	_cleanup_free_ uint32_t *idx = calloc(c->p->n_lost, sizeof(uint32_t));
	_cleanup_free_ char *vfs = NULL, *lost = NULL;
	size_t n = 0;

	if (!idx)
		return NULL;
	for (uint32_t j = i; j < c->p->n_lost; j++)
		if (!done[j] && same_loss(c, i, j)) {
			done[j] = true;
			idx[n++] = j;
		}
	vfs = ranges_format(idx, n);
	lost = lost_string(&c->pf->vfs[i], c->p->lost[i], n > 1);
	if (!vfs || !lost)
		return NULL;
	return strdup_printf("VF%s %s: recreated %s%s", n > 1 ? "s" : "", vfs, cause, lost);
}

/* The sentences of what the VFs lose, among the notes and in dropped. */
static int note_losses(struct plan_ctx *c)
{
	_cleanup_free_ bool *done = calloc(c->p->n_lost, sizeof(bool));
	_cleanup_free_ char *cause = plan_recreate_cause(c->p);
	int r = 0;

	if (!done || !cause)
		return -ENOMEM;
	for (uint32_t i = 0; r >= 0 && i < c->p->n_lost; i++) {
		char *s;

		if (done[i] || !c->p->lost[i])
			continue;
		s = loss_sentence(c, i, cause, done);
		r = strv_consume(&c->p->notes, s);
		if (r >= 0)
			r = strv_extend(&c->p->dropped, s);
	}
	return r;
}

/* Once step 4 is planned: whether it makes the VFs that exist anew and
 * why, what each of them loses, and the sentences that say so. */
int plan_note_recreated(struct plan_ctx *c)
{
	uint32_t n = c->pf->n_vfs < c->target ? c->pf->n_vfs : c->target;

	c->p->recreates = c->fresh && c->pf->num_vfs > 0;
	if (!c->p->recreates)
		return 0;
	c->p->recreates_for_eswitch = c->switched && c->target == c->pf->num_vfs;
	if (n == 0)
		return 0;
	c->p->lost = calloc(n, sizeof(uint32_t));
	if (!c->p->lost)
		return -ENOMEM;
	c->p->n_lost = n;
	for (uint32_t i = 0; i < n; i++)
		c->p->lost[i] = lost_keys(c, i);
	return note_losses(c);
}
