/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Layouts -> the desired state of one PF: select, merge, resolve, check.
 * The result borrows the file names of its struct src entries from the
 * layout set, which must outlive it. */

#include <inttypes.h>
#include <stdarg.h>

#include "desired-host.h"
#include "desired.h"
#include "layout-rules.h"
#include "mac.h"
#include "match.h"
#include "pf-keys.h"

struct ctx {
	const struct host_state *host;
	const struct pf_state *pf;
	const struct driver_info *drv;
	const char *drv_name;
	struct diag_list *diags;
	struct rules_out out;		  /* the errors found here, each file:line once */
	size_t n_file_errors;		  /* the parser's, in the files that select the PF */
	const char *held_suffix;	  /* file_holds_all() of the file that holds it */
	const struct layout_file **files; /* those selecting the PF, in order */
	size_t n_files;
	/* sections may name VFs below this: VirtualFunctions when set (even
	 * with ExternallyManaged), UINT32_MAX when not set */
	uint32_t vf_bound;
	uint32_t *was_stable; /* per VF: vf_settings.stable before derivation */
	const struct layout_set *set;
	bool alone; /* building another PF's state for check_host_unique() */
	struct pf_desired *d;
};

static int build_pf(const struct layout_set *set, const struct host_state *host,
		    const struct pf_state *pf, bool alone, struct diag_list *diags,
		    struct pf_desired **ret);

/* One error per file:line: a section applied to many VFs reports its
 * problem once. Any error holds the PF (finish_held). */
#define hw_error(c, file, line, ...) rules_error(&(c)->out, (file), (line), __VA_ARGS__)

/* Which files select the PF, in set order.
 *
 * A file with errors still counts when its [Match] selects the PF, and then
 * holds it. When its [Match] does not select the PF, the file is left out:
 * the parser drops a [Match] value it rejects, which makes the remaining
 * match broader, never narrower, so a PF it does not select is one the
 * file clearly does not mean. A file that could not be read at all has an
 * empty [Match], which selects (and so holds) every PF. */
static int select_files(struct ctx *c, const struct layout_set *set)
{
	c->files = calloc(set->n_files ?: 1, sizeof(*c->files));
	if (!c->files)
		return -ENOMEM;
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!f || f->masked || !layout_match_pf(&f->match, c->pf, c->host->hostname))
			continue;
		c->files[c->n_files++] = f;
		/* a file that holds every PF (its [Match] is broken or could not
		 * be read) holds this one without selecting it: its error, not
		 * the list of files, names it */
		if (f->has_error && layout_match_is_empty(&f->match))
			continue;
		if (!set->dir_failed && strv_extend(&c->d->config_files, f->path) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* How many errors the parser reported for f (at least one: it has errors). */
static size_t file_errors(const struct layout_set *set, const struct layout_file *f)
{
	size_t n = 0;

	for (size_t i = 0; i < set->diags.n; i++)
		if (set->diags.items[i].level == DIAG_ERROR &&
		    streq_ptr(set->diags.items[i].file, f->path))
			n++;
	return n ?: 1;
}

/* Said after the reason of a PF held by f: a [Match] with an error, or a
 * file without one, holds every PF, and the PFs the file was not written
 * for say why (an unreadable file's own error says it). */
static const char *file_holds_all(const struct layout_file *f)
{
	if (!layout_match_is_empty(&f->match))
		return "";
	if (f->match.line)
		return " (a [Match] with an error holds every PF)";
	return f->no_match ? " (a file without a [Match] holds every PF)" : "";
}

/* The first error the parser reported for f, so that status and apply say
 * what to fix, not only where. */
static char *file_first_error(const struct layout_set *set, const struct layout_file *f)
{
	for (size_t i = 0; i < set->diags.n; i++) {
		const struct diag *d = &set->diags.items[i];

		if (d->level == DIAG_ERROR && streq_ptr(d->file, f->path))
			return diag_format(d);
	}
	return strdup_printf("%s: has errors", f->path);
}

/* Files with errors that select the PF hold it; the reason is the first
 * error of the first, counted with all others (finish_held()). */
static int hold_for_file_errors(struct ctx *c, const struct layout_set *set)
{
	for (size_t i = 0; i < c->n_files; i++) {
		if (!c->files[i]->has_error)
			continue;
		c->n_file_errors += file_errors(set, c->files[i]);
		if (c->d->held)
			continue;
		c->d->held = true;
		c->held_suffix = file_holds_all(c->files[i]);
		c->d->held_reason = file_first_error(set, c->files[i]);
		if (!c->d->held_reason)
			return -ENOMEM;
	}
	return 0;
}

/* The FirmwareVirtualFunctions= of the layouts of port (the last file that
 * sets it, as they merge), or NULL when none does. */
static const struct src *port_firmware_vfs(const struct layout_set *set,
					   const struct host_state *host,
					   const struct pf_state *port, enum firmware_vfs *ret)
{
	const struct layout_file *last = NULL;

	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (f && !f->masked && !layout_match_is_empty(&f->match) &&
		    pf_settings_has(&f->pf, PF_KEY_FIRMWARE_VFS) &&
		    layout_match_pf(&f->match, port, host->hostname))
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
static const struct src *card_forbids_raise(const struct ctx *c, const struct pf_state **ret_port)
{
	for (size_t i = 0; i < c->host->n_pfs; i++) {
		const struct pf_state *port = &c->host->pfs[i];
		enum firmware_vfs fw = FIRMWARE_VFS_AUTO;
		const struct src *at;

		if (streq(port->pci, c->pf->pci) || !pci_same_device(port->pci, c->pf->pci))
			continue;
		at = port_firmware_vfs(c->set, c->host, port, &fw);
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

static int check_vf_count(struct ctx *c, uint32_t want)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_VIRTUAL_FUNCTIONS];
	bool fw_auto = !pf_settings_has(s, PF_KEY_FIRMWARE_VFS) ||
		       s->firmware_vfs == FIRMWARE_VFS_AUTO;
	bool fw_possible = c->drv->firmware_vfs && c->pf->firmware_total_vfs >= 0;
	const struct pf_state *port = NULL;
	const struct src *no;
	char val[16], other[256];

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
	if (pf_settings_externally_managed(s))
		return hw_error(
			c, at->file, at->line,
			"VirtualFunctions=%s: the PF supports at most %u VFs (sriov_totalvfs), "
			"and with ExternallyManaged=yes%s the firmware limit is not raised",
			val, c->pf->total_vfs,
			rules_at(at->file, &s->src[PF_KEY_EXTERNALLY_MANAGED], other));
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

/* ExternallyManaged=yes: the other tool made more VFs than the layout
 * expects. The layout configures the VFs it covers and leaves the others;
 * nothing is created or destroyed. A warning at VirtualFunctions=. */
static int warn_extra_vfs(struct ctx *c)
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
static int resolve_num_vfs(struct ctx *c)
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

static int check_section(struct ctx *c, const struct layout_file *f, const struct vf_section *s)
{
	char bound[32];

	if (c->vf_bound == UINT32_MAX)
		return 0;
	if (c->d->pf.num_vfs_max)
		snprintf(bound, sizeof(bound), "max (%u)", c->vf_bound);
	else
		snprintf(bound, sizeof(bound), "%u", c->vf_bound);
	return rules_check_section(&c->out, f->path, s, c->vf_bound, bound,
				   &c->d->pf.src[PF_KEY_VIRTUAL_FUNCTIONS]);
}

/* Sections in file order, files in set order: a later one wins per key per
 * VF. A section naming VFs that do not exist (VirtualFunctions unset) is
 * simply not applied to them. */
static int merge_vfs(struct ctx *c)
{
	struct pf_desired *d = c->d;
	int r;

	/* With an impossible VirtualFunctions (held) the array is capped; with
	 * ExternallyManaged=yes it covers the VFs the layout expects, those the
	 * other tool has yet to make too, not those it made beyond them. */
	d->n_vfs = d->held || c->out.n_errors > 0 ?
			   (d->num_vfs < c->pf->total_vfs ? d->num_vfs : c->pf->total_vfs) :
		   pf_settings_externally_managed(&d->pf) ? c->vf_bound :
							    d->num_vfs;
	if (d->n_vfs == UINT32_MAX) /* ExternallyManaged=yes without a count */
		d->n_vfs = d->num_vfs;
	if (d->n_vfs > c->vf_bound)
		d->n_vfs = c->vf_bound;
	if (d->n_vfs > 0) {
		d->vfs = calloc(d->n_vfs, sizeof(*d->vfs));
		c->was_stable = calloc(d->n_vfs, sizeof(*c->was_stable));
		if (!d->vfs || !c->was_stable)
			return -ENOMEM;
	}

	for (size_t i = 0; i < c->n_files; i++) {
		const struct layout_file *f = c->files[i];

		for (size_t j = 0; j < f->n_vf_sections; j++) {
			const struct vf_section *s = &f->vf_sections[j];
			uint64_t first = s->first == VF_INDEX_ALL ? 0 : s->first;
			uint64_t last = s->first == VF_INDEX_ALL ? UINT32_MAX : s->last;

			r = check_section(c, f, s);
			if (r < 0)
				return r;
			for (uint64_t k = first; k <= last && k < d->n_vfs; k++) {
				r = vf_settings_merge(&d->vfs[k], &s->settings);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

/* The link type the layout wants, else the one the port has: VF keys are
 * checked against the port as the layout makes it. */
static bool wants_infiniband(const struct ctx *c)
{
	const struct pf_settings *s = &c->d->pf;

	return (pf_settings_has(s, PF_KEY_LINK_TYPE) ? s->link_type : c->pf->link_type) ==
	       LINK_TYPE_INFINIBAND;
}

/* Whether the PF identity a stable value is derived from is known: the
 * permanent MAC for MACs; for GUIDs the PCI address, as an InfiniBand PF
 * has no 6-byte permanent address. */
static bool stable_identity_known(const struct ctx *c, enum vf_key k)
{
	return k != VF_KEY_MAC || !mac_is_zero(&c->pf->permanent_mac);
}

static int derive_stable(const struct ctx *c, enum vf_key k, uint32_t i, struct vf_attrs *a)
{
	const uint8_t *id = c->host->machine_id;

	switch (k) {
	case VF_KEY_MAC:
		return mac_stable(id, &c->pf->permanent_mac, i, &a->mac);
	case VF_KEY_IB_NODE_GUID:
		return guid_stable(id, c->pf->pci, false, i, &a->ib_node_guid);
	case VF_KEY_IB_PORT_GUID:
		return guid_stable(id, c->pf->pci, true, i, &a->ib_port_guid);
	default:
		return -EINVAL;
	}
}

static int resolve_stable(struct ctx *c)
{
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		struct vf_settings *v = &c->d->vfs[i];

		for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
			const struct src *at = &v->src[k];
			int r;

			if (!vf_settings_is_stable(v, k))
				continue;
			c->was_stable[i] |= 1u << k;
			/* a key the port cannot set is check_vf_attrs()'s error */
			if (!(driver_vf_attrs(c->drv, wants_infiniband(c)) & (1u << k)))
				continue;
			/* without either input, every PF (or host) would derive the
			 * same values; a snapshot planned without its machine ID
			 * holds the PF as apply does, plan and apply agreeing */
			if (!c->host->has_machine_id || !stable_identity_known(c, k)) {
				r = hw_error(
					c, at->file, at->line, "%s=stable: the %s is unknown%s",
					vf_key_to_string(k),
					c->host->has_machine_id ? "PF's permanent MAC address" :
								  "machine ID",
					!c->host->has_machine_id && c->host->machine_id_option ?
						": this snapshot leaves it out (--machine-id "
						"gives it)" :
						"");
				if (r < 0)
					return r;
				continue;
			}
			r = derive_stable(c, k, (uint32_t)i, &v->attrs);
			if (r < 0)
				return r;
			v->stable &= ~(1u << k);
		}
	}
	return 0;
}

static int check_vf_attrs(struct ctx *c, size_t i)
{
	const struct vf_settings *v = &c->d->vfs[i];
	bool ib = wants_infiniband(c);

	/* first: a more precise message than "cannot set this" for drivers
	 * without any VLAN protocol attribute */
	if (vf_settings_has(v, VF_KEY_VLAN_PROTO) && v->attrs.vlan_proto == VLAN_PROTO_8021AD &&
	    !c->drv->vlan_8021ad) {
		int r = hw_error(c, v->src[VF_KEY_VLAN_PROTO].file, v->src[VF_KEY_VLAN_PROTO].line,
				 "VLANProtocol=802.1ad: the %s driver supports only 802.1Q",
				 c->drv_name);
		if (r < 0)
			return r;
	}
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		const struct src *at = &v->src[k];
		char val[VF_ATTR_STR_MAX];
		int r;

		if (!(VF_NETLINK_KEYS & (1u << k)) || !vf_settings_has(v, k) ||
		    (driver_vf_attrs(c->drv, ib) & (1u << k)) || vf_attrs_is_default(&v->attrs, k))
			continue;
		if (c->was_stable[i] & (1u << k))
			snprintf(val, sizeof(val), "stable");
		else
			vf_attrs_format(&v->attrs, k, VF_SPELLING_LAYOUT, val);
		if (!ib && (c->drv->ib_vf_attrs & (1u << k)))
			r = hw_error(
				c, at->file, at->line,
				"%s=%s: the port is ethernet; GUIDs are set on InfiniBand ports "
				"(LinkType=infiniband)",
				vf_key_to_string(k), val);
		else
			r = hw_error(c, at->file, at->line,
				     "%s=%s: the %s driver cannot set this on VFs%s",
				     vf_key_to_string(k), val, c->drv_name,
				     ib && c->drv->ib_vf_attrs ? " of an InfiniBand port" : "");
		if (r < 0)
			return r;
	}
	return 0;
}

/* VF netdevs take their frames through the PF: a VF MTU above the PF's
 * (as the layout sets it, else as it is) is refused by iavf and mlx5. */
static int check_vf_mtu(struct ctx *c, const struct vf_settings *v)
{
	const struct src *at = &v->src[VF_KEY_MTU];
	uint32_t pf_mtu = pf_settings_has(&c->d->pf, PF_KEY_MTU) ? c->d->pf.mtu : c->pf->mtu;
	int r;

	if (!vf_settings_has(v, VF_KEY_MTU))
		return 0;
	r = desired_check_mtu(&c->out, c->drv, c->drv_name, wants_infiniband(c), at, v->attrs.mtu);
	if (r != 0)
		return r < 0 ? r : 0;
	if (pf_mtu > 0 && v->attrs.mtu > pf_mtu && pf_settings_has(&c->d->pf, PF_KEY_MTU))
		return hw_error(c, at->file, at->line,
				"MTUBytes=%u: above the PF's MTUBytes=%u (%s:%u)", v->attrs.mtu,
				pf_mtu, c->d->pf.src[PF_KEY_MTU].file,
				c->d->pf.src[PF_KEY_MTU].line);
	if (pf_mtu > 0 && v->attrs.mtu > pf_mtu)
		return hw_error(c, at->file, at->line,
				"MTUBytes=%u: above the PF's MTU %u; set MTUBytes= in "
				"[PhysicalFunction]",
				v->attrs.mtu, pf_mtu);
	return 0;
}

/* A vendor's VF driver drives only the VFs whose device IDs its PCI table
 * lists: another vendor's (Driver=mlx5_core on an E810) never binds, so
 * the PF is held rather than left with VFs on no driver. The generic
 * drivers (vfio-pci, pci-stub ...) and drivers unknown to drivers.c are
 * left to the kernel. */
static int check_vf_driver(struct ctx *c, const struct vf_settings *v)
{
	const char *want = v->attrs.driver, *own = c->pf->vf_driver ?: c->drv->vf_driver;
	const struct src *at = &v->src[VF_KEY_DRIVER];

	if (!vf_settings_has(v, VF_KEY_DRIVER) || !want || !own || vf_driver_info_find(want) ||
	    !vf_driver_kernel_name(want) || !vf_driver_kernel_name(own) ||
	    module_name_equal(want, own))
		return 0;
	return hw_error(c, at->file, at->line,
			"Driver=%s: does not drive the VFs of %s (its VFs take %s, or a generic "
			"driver such as vfio-pci)",
			vf_settings_driver_written(v), c->drv_name, own);
}

/* What the files alone rule out (layout-rules.c), then what this PF's
 * driver cannot do; a VF without a network interface is the former's. */
static int check_vf_values(struct ctx *c, const struct vf_settings *v)
{
	const struct src *s = v->src;
	bool no_netdev = vf_settings_has(v, VF_KEY_DRIVER) && v->attrs.driver &&
			 !vf_driver_has_netdev(v->attrs.driver);
	int r;

	r = rules_check_vf(&c->out, v, c->files, c->n_files);
	if (r >= 0)
		r = desired_check_vf_module(&c->out, c->host, v) ?: check_vf_driver(c, v);
	if (r < 0 || no_netdev)
		return r;
	r = check_vf_mtu(c, v);
	if (r >= 0 && vf_settings_wants_rdma(v) && !c->drv->rdma_modules)
		r = hw_error(c, s[VF_KEY_RDMA].file, s[VF_KEY_RDMA].line,
			     "RDMA=yes: the %s driver has no RDMA support on VFs", c->drv_name);
	return r;
}

/* LinkType= changes only through the firmware of a VPI port (ConnectX
 * with LINK_TYPE_P<n>); anything else may only name the type it has. */
static int check_link_type(struct ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_LINK_TYPE];
	const char *want = link_type_to_string(s->link_type);

	if (!c->drv->firmware_link_type) {
		if (s->link_type == c->pf->link_type && s->link_type != LINK_TYPE_INFINIBAND)
			return 0;
		return hw_error(c, at->file, at->line,
				"LinkType=%s: the %s driver cannot change the link type", want,
				c->drv_name);
	}
	if (c->pf->has_firmware_link_type || s->link_type == c->pf->link_type)
		return 0;
	if (c->pf->firmware_error)
		return hw_error(c, at->file, at->line,
				"LinkType=%s: the firmware link type cannot be read: %s", want,
				c->pf->firmware_error);
	return hw_error(c, at->file, at->line,
			"LinkType=%s: the port is %s only (its firmware has no link type setting)",
			want, link_type_to_string(c->pf->link_type));
}

enum eswitch_mode pf_desired_eswitch_mode(const struct pf_desired *d, const struct pf_state *pf)
{
	return pf_settings_has(&d->pf, PF_KEY_ESWITCH_MODE) ? d->pf.eswitch_mode : pf->eswitch_mode;
}

/* HardwareTCOffload=yes on a PF that no file puts in switchdev mode: the
 * PF and the mode it is in are named. */
static int check_tc_offload(struct ctx *c, enum eswitch_mode mode)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_HW_TC_OFFLOAD];
	_cleanup_free_ char *pf = NULL;

	if (!pf_settings_has(s, PF_KEY_HW_TC_OFFLOAD) || !s->hw_tc_offload ||
	    pf_settings_has(s, PF_KEY_ESWITCH_MODE) || mode < 0 || mode == ESWITCH_MODE_SWITCHDEV)
		return rules_check_pf(&c->out, s, mode);
	pf = pf_describe(c->pf);
	if (!pf)
		return -ENOMEM;
	return hw_error(c, at->file, at->line,
			"HardwareTCOffload=yes: needs ESwitchMode=switchdev; %s is in %s mode and "
			"no file sets ESwitchMode=",
			pf, eswitch_mode_to_string(mode));
}

uint32_t pf_desired_num_vfs(const struct pf_desired *d, const struct pf_state *pf)
{
	const struct pf_settings *s = &d->pf;

	if (pf_settings_externally_managed(s) && pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS))
		return s->num_vfs_max ? pf->total_vfs : s->num_vfs;
	return d->num_vfs;
}

bool pf_desired_has_extra_vfs(const struct pf_desired *d, const struct pf_state *pf)
{
	const struct pf_settings *s = &d->pf;

	return pf_settings_externally_managed(s) && pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS) &&
	       pf->num_vfs > pf_desired_num_vfs(d, pf);
}

char *pf_desired_extra_vfs(const struct pf_desired *d, const struct pf_state *pf)
{
	uint32_t want = pf_desired_num_vfs(d, pf);

	if (pf->vfs_ours)
		return strdup_printf("%u VFs exist, %u expected; sriov-persist created them "
				     "before ExternallyManaged=yes (its record)",
				     pf->num_vfs, want);
	return strdup_printf("another tool made %u VFs, %u expected (ExternallyManaged=yes)",
			     pf->num_vfs, want);
}

static int check_pf_settings(struct ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = s->src;
	enum eswitch_mode mode = pf_desired_eswitch_mode(c->d, c->pf);
	int r = 0;

	/* 1 (the error was said) is no failure */
	if (pf_settings_has(s, PF_KEY_MTU) &&
	    desired_check_mtu(&c->out, c->drv, c->drv_name, wants_infiniband(c), &at[PF_KEY_MTU],
			      s->mtu) < 0)
		return -ENOMEM;
	if (r >= 0 && pf_settings_has(s, PF_KEY_ESWITCH_MODE) &&
	    s->eswitch_mode == ESWITCH_MODE_SWITCHDEV &&
	    (c->drv->switchdev == SWITCHDEV_NONE || !c->pf->has_eswitch))
		r = hw_error(c, at[PF_KEY_ESWITCH_MODE].file, at[PF_KEY_ESWITCH_MODE].line,
			     c->drv->switchdev == SWITCHDEV_NONE ?
				     "ESwitchMode=switchdev: the %s driver has no switchdev mode" :
				     "ESwitchMode=switchdev: the PF (%s) has no devlink eswitch",
			     c->drv_name);
	if (r >= 0)
		r = check_tc_offload(c, mode);
	if (r >= 0 && pf_settings_has(s, PF_KEY_HW_TC_OFFLOAD) &&
	    s->hw_tc_offload != c->pf->hw_tc_offload && c->pf->hw_tc_offload_fixed)
		r = c->pf->name ? hw_error(c, at[PF_KEY_HW_TC_OFFLOAD].file,
					   at[PF_KEY_HW_TC_OFFLOAD].line,
					   "HardwareTCOffload=%s: %s cannot change hw-tc-offload "
					   "(ethtool -k shows it [fixed])",
					   yes_no(s->hw_tc_offload), c->pf->name) :
				  hw_error(c, at[PF_KEY_HW_TC_OFFLOAD].file,
					   at[PF_KEY_HW_TC_OFFLOAD].line,
					   "HardwareTCOffload=%s: the PF has no network interface",
					   yes_no(s->hw_tc_offload));
	if (r >= 0 && pf_settings_has(s, PF_KEY_LINK_TYPE))
		r = check_link_type(c);
	return r;
}

/* A VF's rate above the PF's link speed, on a driver that refuses it
 * (drivers.c); while the speed is unknown (the link is down) nothing is
 * said. */
static int check_vf_rates(struct ctx *c, const struct vf_settings *v)
{
	static const enum vf_key keys[] = { VF_KEY_MIN_TX_RATE, VF_KEY_MAX_TX_RATE };

	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		enum vf_key k = keys[i];
		uint32_t rate = k == VF_KEY_MIN_TX_RATE ? v->attrs.min_tx_rate :
							  v->attrs.max_tx_rate;
		int r;

		if (!vf_settings_has(v, k) || !driver_refuses_rate(c->drv, k, rate, c->pf->speed))
			continue;
		r = hw_error(c, v->src[k].file, v->src[k].line,
			     "%s=%u: the %s driver refuses a VF rate above the PF's link speed, "
			     "%u Mb/s",
			     vf_key_to_string(k), rate, c->drv_name, c->pf->speed);
		if (r < 0)
			return r;
	}
	return 0;
}

/* VF i's minimum rate after the apply: the layouts' value, else the
 * host's while the VF is kept (a VF made anew has none). */
static uint32_t min_rate_after(const struct ctx *c, size_t i)
{
	const struct vf_settings *v = &c->d->vfs[i];

	if (vf_settings_has(v, VF_KEY_MIN_TX_RATE))
		return v->attrs.min_tx_rate;
	if (i < c->pf->n_vfs && c->d->num_vfs == c->pf->num_vfs)
		return c->pf->vfs[i].attrs.min_tx_rate;
	return 0;
}

/* ice: the minimum rates of all VFs together within the link speed. The
 * error is at the layout line whose rate takes the sum above it. */
static int check_min_rate_sum(struct ctx *c)
{
	const struct vf_settings *last = NULL;
	uint64_t sum = 0, total = 0;

	for (size_t i = 0; i < c->d->n_vfs; i++)
		total += min_rate_after(c, i);
	if (!driver_refuses_min_rate_sum(c->drv, total, c->pf->speed))
		return 0;
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		const struct vf_settings *v = &c->d->vfs[i];

		sum += min_rate_after(c, i);
		if (!vf_settings_has(v, VF_KEY_MIN_TX_RATE) || v->attrs.min_tx_rate == 0)
			continue;
		last = v;
		if (sum > c->pf->speed)
			break;
	}
	if (!last) /* the host's own rates: no layout line to blame */
		return 0;
	return hw_error(c, last->src[VF_KEY_MIN_TX_RATE].file, last->src[VF_KEY_MIN_TX_RATE].line,
			"MinTxRateMbps=%u: the VFs' minimum rates would add up to %" PRIu64
			" Mb/s, above the PF's link speed, %u Mb/s, which the %s driver refuses",
			last->attrs.min_tx_rate, total, c->pf->speed, c->drv_name);
}

static int check_all(struct ctx *c)
{
	int r;

	r = check_pf_settings(c);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		r = check_vf_attrs(c, i);
		if (r < 0)
			return r;
		r = check_vf_values(c, &c->d->vfs[i]);
		if (r >= 0)
			r = check_vf_rates(c, &c->d->vfs[i]);
		if (r < 0)
			return r;
	}
	r = check_min_rate_sum(c);
	if (r < 0)
		return r;
	r = rules_check_unique(&c->out, c->d->vfs, NULL, c->was_stable, c->d->n_vfs);
	if (r < 0)
		return r;
	/* the VFs the layouts want and the host lacks yet (VirtualFunctions=
	 * on a PF without VFs, ExternallyManaged=yes, sections beyond the VFs
	 * there are): what the files alone rule out holds the PF now, as
	 * check without a host says */
	return rules_check_vfs(&c->out, c->files, c->n_files, c->vf_bound);
}

/* " (VF 1 of 0000:3b:00.1's at 60-b.conf:6)": where the other PF's VF
 * has the value, when that is another line than here. Returns buf. */
static const char *unique_elsewhere(const struct src *here, const struct src *there, size_t vf,
				    const char *pci, char buf[static 512])
{
	buf[0] = '\0';
	if (!there->file || (streq_ptr(here->file, there->file) && here->line == there->line))
		return buf;
	if (streq_ptr(here->file, there->file))
		snprintf(buf, 512, " (VF %zu of %s's at line %u)", vf, pci, there->line);
	else
		snprintf(buf, 512, " (VF %zu of %s's at %s:%u)", vf, pci, there->file, there->line);
	return buf;
}

/* VF i of this PF and VF j of the other PF o with the same literal k. */
static int unique_pair(struct ctx *c, enum vf_key k, size_t i, const struct pf_desired *o, size_t j)
{
	const struct vf_settings *a = &c->d->vfs[i], *b = &o->vfs[j];
	bool first = strcmp(c->d->pci, o->pci) < 0;
	char val[VF_ATTR_STR_MAX], where[512];

	if (!vf_settings_has(a, k) || !vf_settings_has(b, k) || (c->was_stable[i] & (1u << k)) ||
	    !vf_attrs_equal(&a->attrs, &b->attrs, k))
		return 0;
	return rules_error(&c->out, a->src[k].file, a->src[k].line,
			   "%s=%s: VF %u of %s and VF %u of %s would have the same %s%s",
			   vf_key_to_string(k),
			   vf_attrs_format(&a->attrs, k, VF_SPELLING_LAYOUT, val),
			   (unsigned)(first ? i : j), first ? c->d->pci : o->pci,
			   (unsigned)(first ? j : i), first ? o->pci : c->d->pci,
			   k == VF_KEY_MAC ? "address" : "GUID",
			   unique_elsewhere(&a->src[k], &b->src[k], j, o->pci, where));
}

static int unique_against(struct ctx *c, const struct pf_desired *o)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!vf_key_is_unique(k))
			continue;
		for (size_t i = 0; i < c->d->n_vfs; i++)
			for (size_t j = 0; j < o->n_vfs; j++) {
				int r = unique_pair(c, k, i, o, j);

				if (r < 0)
					return r;
			}
	}
	return 0;
}

/* Whether some VF of this PF has a literal (not "stable") unique key. */
static bool has_literal_unique(const struct ctx *c)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		for (size_t i = 0; vf_key_is_unique(k) && i < c->d->n_vfs; i++)
			if (vf_settings_has(&c->d->vfs[i], k) && !(c->was_stable[i] & (1u << k)))
				return true;
	return false;
}

/* A literal MAC address or GUID is unique on the whole host: the same one
 * on VFs of two PFs is an error of both. The other PFs' states are built
 * from the same host read (alone: without this check, diagnostics dropped),
 * and only when this PF has a literal: the common case builds no other PF;
 * a host read of one PF only has no other PF to compare with. */
static int check_host_unique(struct ctx *c)
{
	if (!has_literal_unique(c))
		return 0;
	for (size_t p = 0; p < c->host->n_pfs; p++) {
		_cleanup_pf_desired_ struct pf_desired *o = NULL;
		struct diag_list ignored = {};
		const struct pf_state *other = &c->host->pfs[p];
		int r;

		if (streq(other->pci, c->pf->pci))
			continue;
		r = build_pf(c->set, c->host, other, true, &ignored, &o);
		diag_list_done(&ignored);
		if (r >= 0 && o)
			r = unique_against(c, o);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Any error found here holds the PF. The first error says why (a file's
 * own before those found here), with how many more there are of both. */
static int finish_held(struct ctx *c)
{
	size_t n = c->n_file_errors + c->out.n_errors;
	_cleanup_free_ char *first = NULL, *more = NULL;

	if (n == 0)
		return 0;
	c->d->held = true;
	first = c->d->held_reason ?: TAKE_PTR(c->out.first);
	c->d->held_reason = NULL;
	if (!first)
		return -ENOMEM;
	if (n > 1)
		more = strdup_printf(" (and %zu more error%s)", n - 1, n == 2 ? "" : "s");
	if (n > 1 && !more)
		return -ENOMEM;
	c->d->held_reason =
		strdup_printf("%s%s%s", first, strempty(more), strempty(c->held_suffix));
	return c->d->held_reason ? 0 : -ENOMEM;
}

static int build(struct ctx *c, const struct layout_set *set)
{
	size_t kept = 0;
	int r;

	r = hold_for_file_errors(c, set);
	if (r < 0)
		return r;
	/* a file with errors holds the PF, and what parsed of it still takes
	 * part, so that every bad line is reported at once (a rejected value
	 * is as if unset). Not so a file whose [Match] is broken: it holds
	 * every PF without meaning them, and what it sets would make errors
	 * of other files that are right. */
	for (size_t i = 0; i < c->n_files; i++)
		if (!layout_match_is_empty(&c->files[i]->match))
			c->files[kept++] = c->files[i];
	c->n_files = kept;
	r = rules_check_overrides(c->diags, c->files, c->n_files);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_files; i++)
		pf_settings_merge(&c->d->pf, &c->files[i]->pf);
	r = resolve_num_vfs(c);
	if (r < 0)
		return r;
	r = merge_vfs(c);
	if (r < 0)
		return r;
	r = resolve_stable(c);
	if (r < 0)
		return r;
	r = check_all(c);
	if (r >= 0 && !c->alone)
		r = check_host_unique(c);
	if (r >= 0 && !c->alone)
		r = desired_host_warnings(c->pf, c->drv, &c->d->pf, c->d->vfs, c->d->n_vfs,
					  c->diags);
	if (r >= 0 && !c->alone)
		r = desired_rename_warnings(c->pf, c->drv, &c->d->pf, c->files, c->n_files,
					    c->diags);
	if (r < 0)
		return r;
	return finish_held(c);
}

static int build_pf(const struct layout_set *set, const struct host_state *host,
		    const struct pf_state *pf, bool alone, struct diag_list *diags,
		    struct pf_desired **ret)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	struct ctx c = {
		.set = set,
		.alone = alone,
		.host = host,
		.pf = pf,
		.drv = driver_info_get(pf->driver),
		.drv_name = pf->driver ?: "PF's",
		.diags = diags,
		.out = { .diags = diags, .known = &set->diags },
	};
	bool selected;
	int r;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	snprintf(d->pci, sizeof(d->pci), "%s", pf->pci);
	d->rdma_netns = set->rdma_netns;
	d->kernel_arguments = set->kernel_arguments;
	c.d = d;

	r = select_files(&c, set);
	selected = r >= 0 && c.n_files > 0;
	if (selected)
		r = build(&c, set);
	if (r >= 0 && selected && set->main_error && !d->held) {
		d->held = true;
		d->held_reason = strdup(set->main_error);
		if (!d->held_reason)
			r = -ENOMEM;
	}
	free(c.files);
	free(c.was_stable);
	rules_out_done(&c.out);
	if (r < 0)
		return r;
	*ret = selected ? TAKE_PTR(d) : NULL;
	return 0;
}

int desired_build(const struct layout_set *set, const struct host_state *host,
		  const struct pf_state *pf, struct diag_list *diags, struct pf_desired **ret)
{
	return build_pf(set, host, pf, false, diags, ret);
}

static bool match_selects_any(const struct layout_match *m, const struct host_state *host)
{
	for (size_t i = 0; i < host->n_pfs; i++)
		if (layout_match_pf(m, &host->pfs[i], host->hostname))
			return true;
	return false;
}

static bool selects_any(const struct layout_file *f, const struct host_state *host)
{
	return match_selects_any(&f->match, host);
}

/* The line of the first [Match] key that alone selects no PF of host, else
 * (the keys select PFs, not together) of the header. */
static unsigned unselected_line(const struct layout_match *m, const struct host_state *host)
{
	for (size_t i = 0; i < LAYOUT_MATCH_KEYS; i++) {
		struct layout_match one = { .line = m->line };
		char **list = *layout_match_list((struct layout_match *)m, i);

		*layout_match_list(&one, i) = list;
		if (list && !match_selects_any(&one, host))
			return m->key_line[i] ?: m->line;
	}
	return m->line;
}

static int warn_unselected(const struct layout_file *f, const struct host_state *host,
			   struct diag_list *diags)
{
	_cleanup_free_ char *what = layout_match_describe(&f->match);
	char name[128] = "";

	if (!what)
		return -ENOMEM;
	if (f->match.host && !layout_match_pf(&(struct layout_match){ .host = f->match.host },
					      &(struct pf_state){}, host->hostname))
		snprintf(name, sizeof(name), " (its name is %s)", strna(host->hostname));
	return diag_add(diags, DIAG_WARNING, f->path, unselected_line(&f->match, host),
			"[Match] %s selects no PF on this host%s", what, name);
}

int desired_unselected(const struct layout_set *set, const struct host_state *host,
		       struct diag_list *diags, const struct layout_file ***ret_files,
		       size_t *ret_n)
{
	_cleanup_free_ const struct layout_file **files = calloc(set->n_files ?: 1, sizeof(*files));
	size_t n = 0;

	if (!files)
		return -ENOMEM;
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];
		int r;

		/* a file without a usable [Match] holds every PF: its error says so */
		if (!f || f->masked || layout_match_is_empty(&f->match) || selects_any(f, host))
			continue;
		r = warn_unselected(f, host, diags);
		if (r < 0)
			return r;
		files[n++] = f;
	}
	if (ret_files)
		*ret_files = TAKE_PTR(files);
	if (ret_n)
		*ret_n = n;
	return 0;
}

/* Of key i of f (with two globs or more), each glob that selects no PF
 * of host where the file with only that glob for the key would select none. */
static int warn_globs(const struct layout_file *f, size_t i, const struct host_state *host,
		      struct diag_list *diags)
{
	char **list = *layout_match_list((struct layout_match *)&f->match, i);

	for (size_t g = 0; list && list[0] && list[1] && list[g]; g++) {
		struct layout_match one = f->match;
		char *only[] = { list[g], NULL };
		int r;

		*layout_match_list(&one, i) = only;
		if (match_selects_any(&one, host))
			continue;
		r = diag_add(diags, DIAG_WARNING, f->path, f->match.key_line[i],
			     "[Match] %s=%s selects no PF on this host (the file's other %s= "
			     "globs do)",
			     layout_match_key_name(i), list[g], layout_match_key_name(i));
		if (r < 0)
			return r;
	}
	return 0;
}

int desired_unmatched_globs(const struct layout_set *set, const struct host_state *host,
			    struct diag_list *diags)
{
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!f || f->masked || f->has_error || !selects_any(f, host))
			continue;
		for (size_t k = 0; k < LAYOUT_MATCH_KEYS; k++) {
			const char *key = layout_match_key_name(k);
			int r;

			if (!streq(key, "Name") && !streq(key, "PCIAddress"))
				continue;
			r = warn_globs(f, k, host, diags);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

struct pf_desired *pf_desired_free(struct pf_desired *d)
{
	if (!d)
		return NULL;
	strv_free(d->config_files);
	free(d->held_reason);
	for (size_t i = 0; i < d->n_vfs; i++)
		vf_settings_done(&d->vfs[i]);
	free(d->vfs);
	free(d);
	return NULL;
}

bool pf_desired_needs_iommu(const struct pf_desired *d)
{
	for (size_t i = 0; d && !d->held && i < d->num_vfs && i < d->n_vfs; i++)
		if (vf_settings_has(&d->vfs[i], VF_KEY_DRIVER) && d->vfs[i].attrs.driver &&
		    vf_driver_needs_iommu(d->vfs[i].attrs.driver))
			return true;
	return false;
}
