/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* VirtualFunctions= resolved: "max", the count against sriov_totalvfs and
 * the firmware VF limit (one setting of a card, which
 * FirmwareVirtualFunctions=no on any of its ports forbids raising), and
 * with ExternallyManaged=yes the VFs another tool made beyond it. */

#include "desired-internal.h"
#include "match.h"
#include "pf-keys.h"

/* The FirmwareVirtualFunctions= of the layouts of port (the last file that
 * sets it, as they merge), or NULL when none does. */
static const struct src *port_firmware_vfs(const struct layout_set *set, const char *hostname,
					   const struct pf_state *port, enum firmware_vfs *ret)
{
	const struct layout_file *last = NULL;

	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (f && !f->masked && !layout_match_is_empty(&f->match) &&
		    pf_settings_has(&f->pf, PF_KEY_FIRMWARE_VFS) &&
		    layout_match_pf(&f->match, port, hostname))
			last = f;
	}
	if (!last)
		return NULL;
	*ret = last->pf.firmware_vfs;
	return &last->pf.src[PF_KEY_FIRMWARE_VFS];
}

/* NUM_OF_VFS is one setting of the card: FirmwareVirtualFunctions=no in the
 * layouts of another port of it forbids raising it for this one too, or
 * that port's limit would change against its layout. Where it says so, and
 * the port in *ret_port. */
static const struct src *card_forbids_raise(const struct desired_ctx *c,
					    const struct pf_state **ret_port)
{
	for (size_t i = 0; i < c->host->n_pfs; i++) {
		const struct pf_state *port = &c->host->pfs[i];
		enum firmware_vfs fw = FIRMWARE_VFS_AUTO;
		const struct src *at;

		if (streq(port->pci, c->pf->pci) || !pci_same_device(port->pci, c->pf->pci))
			continue;
		at = port_firmware_vfs(c->set, c->hostname, port, &fw);
		if (at && fw == FIRMWARE_VFS_NO) {
			*ret_port = port;
			return at;
		}
	}
	return NULL;
}

bool desired_reads_card(const struct layout_set *set)
{
	for (size_t i = 0; i < set->n_files; i++)
		if (set->files[i] && pf_settings_has(&set->files[i]->pf, PF_KEY_FIRMWARE_VFS) &&
		    set->files[i]->pf.firmware_vfs == FIRMWARE_VFS_NO)
			return true;
	return false;
}

/* ExternallyManaged=yes and more VFs than sriov_totalvfs: nothing is raised
 * for the PF, so it is held; where the firmware limit was raised already
 * (through another port of the card, or by hand) far enough, only until
 * the reboot that brings it, which the error says. */
static int externally_managed_over_limit(struct desired_ctx *c, uint32_t want, const char *val)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_VIRTUAL_FUNCTIONS];
	char other[256];
	const char *em = rules_at(at->file, &s->src[PF_KEY_EXTERNALLY_MANAGED], other);

	if (want <= (uint32_t)c->pf->firmware_total_vfs)
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs) "
			"until the next reboot, which brings the firmware VF limit of %d "
			"raised already: the PF is held until then (with "
			"ExternallyManaged=yes%s nothing is raised for it)",
			val, c->pf->total_vfs, c->pf->firmware_total_vfs, em);
	return hw_error(c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs), "
			"and with ExternallyManaged=yes%s the firmware limit is not raised",
			val, c->pf->total_vfs, em);
}

/* A count above sriov_totalvfs where the firmware VF limit can be raised:
 * whether the layouts and the card allow it, and how far. val is the
 * count as written. */
static int check_firmware_raise(struct desired_ctx *c, uint32_t want, const char *val)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_VIRTUAL_FUNCTIONS];
	bool fw_auto = !pf_settings_has(s, PF_KEY_FIRMWARE_VFS) ||
		       s->firmware_vfs == FIRMWARE_VFS_AUTO;
	const struct pf_state *port = NULL;
	const struct src *no;
	char other[256];

	if (pf_settings_externally_managed(s))
		return externally_managed_over_limit(c, want, val);
	if (!fw_auto)
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs), "
			"and FirmwareVirtualFunctions=no%s forbids raising the firmware limit",
			val, c->pf->total_vfs,
			rules_at(at->file, &s->src[PF_KEY_FIRMWARE_VFS], other));
	if (want > c->drv->firmware_max_vfs)
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the firmware VF limit can be raised to at most %u",
			val, c->drv->firmware_max_vfs);
	if (want > (uint32_t)c->pf->firmware_total_vfs && (no = card_forbids_raise(c, &port)))
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs), and "
			"the firmware limit, one setting of this card, may not be raised: "
			"FirmwareVirtualFunctions=no%s for its port %s",
			val, c->pf->total_vfs, rules_at(at->file, no, other), port->pci);
	return 0; /* the planner raises the firmware limit: a reboot */
}

static int check_vf_count(struct desired_ctx *c, uint32_t want)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_VIRTUAL_FUNCTIONS];
	bool fw_possible = c->drv->firmware_vfs && c->pf->firmware_total_vfs >= 0;
	char val[16];

	if (want <= c->pf->total_vfs)
		return 0;
	if (s->num_vfs_max)
		snprintf(val, sizeof(val), "max");
	else
		snprintf(val, sizeof(val), "%u", want);
	if (!fw_possible && c->drv->firmware_vfs && c->pf->firmware_error)
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs), "
			"and its firmware VF limit cannot be read: %s",
			val, c->pf->total_vfs, c->pf->firmware_error);
	if (!fw_possible)
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs)", val,
			c->pf->total_vfs);
	return check_firmware_raise(c, want, val);
}

/* ExternallyManaged=yes: the other tool made more VFs than the layout
 * expects. The layout configures the VFs it covers and leaves the others;
 * nothing is created or destroyed. A warning at VirtualFunctions=. */
static int warn_extra_vfs(struct desired_ctx *c)
{
	const struct src *at = &c->d->pf.src[PF_KEY_VIRTUAL_FUNCTIONS];
	_cleanup_free_ char *why = NULL;
	const char *after = c->pf->vfs_ours ? " (ExternallyManaged=yes never destroys VFs; "
					      "sriovctl reset after removing the layout does)" :
					      "";

	if (c->alone)
		return 0;
	why = pf_desired_extra_vfs(c->d, c->pf);
	if (!why)
		return -ENOMEM;
	if (c->pf->num_vfs - c->vf_bound == 1)
		return diag_add(c->diags, DIAG_WARNING, at->file, at->line,
				"VirtualFunctions=%u: %s: VF %u is left as it is%s", c->vf_bound,
				why, c->vf_bound, after);
	return diag_add(c->diags, DIAG_WARNING, at->file, at->line,
			"VirtualFunctions=%u: %s: VFs %u-%u are left as they are%s", c->vf_bound,
			why, c->vf_bound, c->pf->num_vfs - 1, after);
}

/* VirtualFunctions: a number or "max"; unset or ExternallyManaged=yes keep
 * the VFs that exist. With ExternallyManaged=yes a VirtualFunctions value
 * is what the external manager is expected to create: it bounds the
 * sections, but no VF is ever created or destroyed. */
int desired_resolve_num_vfs(struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	uint32_t want;
	int r;

	c->vf_bound = UINT32_MAX;
	c->d->num_vfs = c->pf->num_vfs;
	if (!pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS))
		return 0;
	want = s->num_vfs_max ? c->pf->total_vfs : s->num_vfs;
	r = check_vf_count(c, want);
	if (r < 0)
		return r;
	c->vf_bound = want;
	if (!pf_settings_externally_managed(s))
		c->d->num_vfs = want;
	else if (c->pf->num_vfs > want)
		return warn_extra_vfs(c);
	return 0;
}
