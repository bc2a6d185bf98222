/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Rules over layout files alone. A message about values of several files
 * names the other file:line in parentheses, so that each place to change
 * is said (layout-rules-out.c). */

#include "layout-rules.h"
#include "drivers.h"
#include "pf-keys.h"

static void section_name(const struct vf_section *s, char buf[static 48])
{
	if (s->first == VF_INDEX_ALL)
		snprintf(buf, 48, "[VirtualFunction]");
	else if (s->first == s->last)
		snprintf(buf, 48, "[VirtualFunction %u]", s->first);
	else
		snprintf(buf, 48, "[VirtualFunction %u-%u]", s->first, s->last);
}

int rules_check_section(struct rules_out *o, const char *file, const struct vf_section *s,
			uint32_t bound, const char *bound_text, const struct src *bound_at)
{
	char name[48], out[48], other[256] = "", open[64];
	uint32_t from;

	if (s->first == VF_INDEX_ALL || s->last < bound)
		return 0;
	section_name(s, name);
	/* the part of the section that is out: "VFs 128-200", "VF 200" */
	from = s->first > bound ? s->first : bound;
	if (from == s->last)
		snprintf(out, sizeof(out), "VF %u is", from);
	else
		snprintf(out, sizeof(out), "VFs %u-%u are", from, s->last);
	if (bound_at->file && !streq_ptr(bound_at->file, file))
		snprintf(other, sizeof(other), " (%s:%u)", bound_at->file, bound_at->line);
	return rules_error(o, file, s->line, "%s: %s beyond VirtualFunctions=%s%s%s", name, out,
			   bound_text, other, rules_open(o, "VirtualFunctions", bound_at, open));
}

/* QualityOfService= without a VLANId= other than 0 (a VLANId= that was
 * rejected has its own error, the one to fix). */
static bool qos_without_vlan(const struct vf_settings *v)
{
	if (!vf_settings_has(v, VF_KEY_QOS) || v->attrs.qos == 0)
		return false;
	if (vf_settings_has(v, VF_KEY_VLAN))
		return v->attrs.vlan == 0;
	return !(v->rejected & (1u << VF_KEY_VLAN));
}

static bool same_src(const struct src *a, const struct src *b)
{
	return streq_ptr(a->file, b->file) && a->line == b->line;
}

/* Appends the run of VFs a..b (b UINT32_MAX: and every later one) to *s:
 * "0", "0-3", "4 and up", after ", ". */
static int run_append(char **s, uint32_t a, uint32_t b)
{
	const char *sep = *s ? ", " : "";
	char *t;

	if (b == UINT32_MAX)
		t = strdup_printf("%s%s%u and up", strempty(*s), sep, a);
	else if (b == a)
		t = strdup_printf("%s%s%u", strempty(*s), sep, a);
	else
		t = strdup_printf("%s%s%u-%u", strempty(*s), sep, a, b);
	if (!t)
		return -ENOMEM;
	free(*s);
	*s = t;
	return 0;
}

/* "VF 0", "VFs 0-3, 6", "every VF", "VFs 4 and up": the VFs of vfs
 * without a VLAN whose QualityOfService= is at the line of vfs[i]'s. NULL
 * on allocation failure. */
static char *qos_vfs(const struct vf_settings *vfs, const uint32_t *index, const uint32_t *last,
		     size_t n, size_t i)
{
	_cleanup_free_ char *s = NULL;
	uint32_t a = 0, b = 0;
	size_t runs = 0;

	for (size_t j = 0; j < n; j++) {
		uint32_t first = index ? index[j] : (uint32_t)j, to = last ? last[j] : first;

		if (!qos_without_vlan(&vfs[j]) ||
		    !same_src(&vfs[j].src[VF_KEY_QOS], &vfs[i].src[VF_KEY_QOS]))
			continue;
		if (runs > 0 && b != UINT32_MAX && first == b + 1) {
			b = to;
			continue;
		}
		if (runs > 0 && run_append(&s, a, b) < 0)
			return NULL;
		a = first;
		b = to;
		runs++;
	}
	if (run_append(&s, a, b) < 0)
		return NULL;
	if (runs == 1 && a == 0 && b == UINT32_MAX)
		return strdup("every VF");
	return strdup_printf("VF%s %s", runs == 1 && a == b ? "" : "s", s);
}

int rules_check_qos(struct rules_out *o, const struct vf_settings *vfs, const uint32_t *index,
		    const uint32_t *last, size_t n, size_t i)
{
	const struct vf_settings *v = &vfs[i];
	const struct src *at = &v->src[VF_KEY_QOS];
	_cleanup_free_ char *which = NULL;
	char buf[256], open[64];

	if (!qos_without_vlan(v) || rules_said_at(o, at->file, at->line))
		return 0;
	which = qos_vfs(vfs, index, last, n, i);
	if (!which)
		return -ENOMEM;
	return rules_error(o, at->file, at->line,
			   "%s: QualityOfService=%u needs a VLANId= other than 0%s%s", which,
			   v->attrs.qos,
			   rules_elsewhere(at->file, &v->src[VF_KEY_VLAN], "VLANId", "0", buf),
			   rules_open(o, "VLANId", &v->src[VF_KEY_VLAN], open));
}

/* MTUBytes= and RDMA=yes on a VF whose driver has no network interface. */
static int check_no_netdev(struct rules_out *o, const struct vf_settings *v)
{
	const struct src *drv = &v->src[VF_KEY_DRIVER], *at;
	char buf[256], open[64];
	int r = 0;

	if (!vf_settings_has(v, VF_KEY_DRIVER) || !v->attrs.driver ||
	    vf_driver_has_netdev(v->attrs.driver))
		return 0;
	if (vf_settings_has(v, VF_KEY_MTU)) {
		at = &v->src[VF_KEY_MTU];
		r = rules_error(o, at->file, at->line,
				"MTUBytes=%u: a VF bound to %s has no network interface%s%s",
				v->attrs.mtu, v->attrs.driver,
				rules_elsewhere(at->file, drv, "Driver",
						vf_settings_driver_written(v), buf),
				rules_open(o, "Driver", drv, open));
	}
	if (r >= 0 && vf_settings_wants_rdma(v)) {
		at = &v->src[VF_KEY_RDMA];
		r = rules_error(o, at->file, at->line,
				"RDMA=yes: a VF bound to %s has no RDMA device%s%s",
				v->attrs.driver,
				rules_elsewhere(at->file, drv, "Driver",
						vf_settings_driver_written(v), buf),
				rules_open(o, "Driver", drv, open));
	}
	return r;
}

/* Where path is among files (n when it is not). */
static size_t file_index(const struct layout_file *const *files, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (files[i] && streq_ptr(files[i]->path, path))
			return i;
	return n;
}

/* Both in one file: one error at MinTxRateMbps=, in the words of the
 * parser, which says it for a section (the same text is one diagnostic).
 * From two files: at the line of the later one (files in merge order),
 * which made the conflict, naming the other place. */
static int check_rates(struct rules_out *o, const struct vf_settings *v,
		       const struct layout_file *const *files, size_t n)
{
	const struct src *min = &v->src[VF_KEY_MIN_TX_RATE], *max = &v->src[VF_KEY_MAX_TX_RATE];
	char open[64];

	if (!vf_settings_has(v, VF_KEY_MIN_TX_RATE) || !vf_settings_has(v, VF_KEY_MAX_TX_RATE) ||
	    v->attrs.max_tx_rate == 0 || v->attrs.max_tx_rate >= v->attrs.min_tx_rate)
		return 0;
	if (streq_ptr(min->file, max->file))
		return rules_error(o, min->file, min->line,
				   "MinTxRateMbps=%u: must not exceed MaxTxRateMbps=%u (line %u)%s",
				   v->attrs.min_tx_rate, v->attrs.max_tx_rate, max->line,
				   rules_open(o, "MaxTxRateMbps", max, open));
	if (file_index(files, n, min->file) > file_index(files, n, max->file))
		return rules_error(o, min->file, min->line,
				   "MinTxRateMbps=%u: must not exceed MaxTxRateMbps=%u (%s:%u)%s",
				   v->attrs.min_tx_rate, v->attrs.max_tx_rate, strna(max->file),
				   max->line, rules_open(o, "MaxTxRateMbps", max, open));
	return rules_error(o, max->file, max->line,
			   "MaxTxRateMbps=%u: below MinTxRateMbps=%u (%s:%u)%s",
			   v->attrs.max_tx_rate, v->attrs.min_tx_rate, strna(min->file), min->line,
			   rules_open(o, "MinTxRateMbps", min, open));
}

int rules_check_vf(struct rules_out *o, const struct vf_settings *v,
		   const struct layout_file *const *files, size_t n)
{
	int r;

	r = check_no_netdev(o, v);
	if (r >= 0)
		r = check_rates(o, v, files, n);
	return r;
}

/* SharedWith= leaves the VF count to the other manager: sriov-persist
 * must then never write it, which is what ExternallyManaged=yes says. */
static int check_shared_with(struct rules_out *o, const struct pf_settings *s)
{
	const struct src *at = &s->src[PF_KEY_SHARED_WITH];
	const char *who = other_manager_key_to_string(s->shared_with);
	char open[64];

	if (!pf_settings_has(s, PF_KEY_SHARED_WITH) || pf_settings_externally_managed(s))
		return 0;
	return rules_error(o, at->file, at->line,
			   "SharedWith=%s: needs ExternallyManaged=yes, so that sriov-persist "
			   "leaves the VF count to %s and configures only the VFs it makes%s",
			   who, who,
			   rules_open(o, "ExternallyManaged", &s->src[PF_KEY_EXTERNALLY_MANAGED],
				      open));
}

static int check_hw_tc_offload(struct rules_out *o, const struct pf_settings *s,
			       enum eswitch_mode mode)
{
	const struct src *at = &s->src[PF_KEY_HW_TC_OFFLOAD];
	const struct src *esw = &s->src[PF_KEY_ESWITCH_MODE];
	char buf[256], open[64];

	if (!pf_settings_has(s, PF_KEY_HW_TC_OFFLOAD) || !s->hw_tc_offload ||
	    mode == ESWITCH_MODE_SWITCHDEV)
		return 0;
	if (mode < 0)
		return diag_add(o->diags, DIAG_WARNING, at->file, at->line,
				"HardwareTCOffload=yes: needs ESwitchMode=switchdev, which no "
				"file sets: only a PF already in switchdev mode takes it");
	if (!pf_settings_has(s, PF_KEY_ESWITCH_MODE))
		buf[0] = '\0';
	else if (streq_ptr(at->file, esw->file))
		snprintf(buf, sizeof(buf), " (ESwitchMode=%s at line %u)",
			 eswitch_mode_to_string(s->eswitch_mode), esw->line);
	else
		rules_elsewhere(at->file, esw, "ESwitchMode",
				eswitch_mode_to_string(s->eswitch_mode), buf);
	return rules_error(o, at->file, at->line,
			   "HardwareTCOffload=yes: needs ESwitchMode=switchdev%s%s", buf,
			   rules_open(o, "ESwitchMode", esw, open));
}

int rules_check_pf(struct rules_out *o, const struct pf_settings *s, enum eswitch_mode mode)
{
	int r = check_shared_with(o, s);

	return r < 0 ? r : check_hw_tc_offload(o, s, mode);
}

/* vfs[j] has the same literal value of k as an earlier VF. */
static int check_unique_one(struct rules_out *o, enum vf_key k, const struct vf_settings *vfs,
			    const uint32_t *index, const uint32_t *was_stable, size_t j)
{
	const struct vf_settings *b = &vfs[j];

	for (size_t i = 0; i < j; i++) {
		const struct vf_settings *a = &vfs[i];
		bool stable_i = was_stable && (was_stable[i] & (1u << k));
		bool stable_j = was_stable && (was_stable[j] & (1u << k));
		size_t at = stable_j && !stable_i ? i : j, other = at == i ? j : i;
		const struct src *s = &vfs[at].src[k], *os = &vfs[other].src[k];
		char val[VF_ATTR_STR_MAX], where[256] = "", open[64];
		int r;

		if (!vf_settings_has(a, k) || vf_settings_is_stable(a, k) ||
		    !vf_attrs_equal(&a->attrs, &b->attrs, k))
			continue;
		/* the other VF's place too: its file:line, or its line in this file */
		if (os->file && !streq_ptr(os->file, s->file))
			snprintf(where, sizeof(where), " (VF %u's at %s:%u)",
				 index ? index[other] : (uint32_t)other, os->file, os->line);
		else if (os->file && os->line != s->line)
			snprintf(where, sizeof(where), " (VF %u's at line %u)",
				 index ? index[other] : (uint32_t)other, os->line);
		/* a later file may change either VF's value */
		if (!*rules_open(o, vf_key_to_string(k), s, open))
			rules_open(o, vf_key_to_string(k), os, open);
		r = rules_error(o, s->file, s->line,
				"%s=%s: VF %u and VF %u would have the same %s%s%s",
				vf_key_to_string(k),
				(stable_i && at == i) || (stable_j && at == j) ?
					"stable" :
					vf_attrs_format(&b->attrs, k, VF_SPELLING_LAYOUT, val),
				index ? index[i] : (uint32_t)i, index ? index[j] : (uint32_t)j,
				k == VF_KEY_MAC ? "address" : "GUID", where, open);
		if (r < 0)
			return r;
	}
	return 0;
}

int rules_check_unique(struct rules_out *o, const struct vf_settings *vfs, const uint32_t *index,
		       const uint32_t *was_stable, size_t n)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!vf_key_is_unique(k))
			continue;
		for (size_t j = 1; j < n; j++) {
			int r;

			if (!vf_settings_has(&vfs[j], k) || vf_settings_is_stable(&vfs[j], k))
				continue;
			r = check_unique_one(o, k, vfs, index, was_stable, j);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- one ResourceName= for VFs of different kinds ---- */

/* One ResourceName= given to VFs of different kinds. The device plugin's
 * configuration (dpconfig.c) makes one resourceList entry of a name, a
 * selector for each driver and RDMA= under it, and the plugin makes one
 * pool of every device any selector matches: a pod asking for the
 * resource gets whichever VF is free. A VF without a network interface
 * (vfio-pci) where a pod expects one, or the reverse, is unusable to it:
 * an error. VFs with a network interface that differ only in RDMA= all
 * work as interfaces, but a pod may get one without the RDMA device it
 * asked for: a warning. */

enum vf_use {
	VF_USE_NO_NETDEV,
	VF_USE_NETDEV,
	VF_USE_RDMA,
};

/* A Driver= left unset or "default" is the kernel's VF driver, which has a
 * network interface; the files cannot tell more. */
static enum vf_use vf_use(const struct vf_settings *v)
{
	if (vf_settings_has(v, VF_KEY_DRIVER) && v->attrs.driver &&
	    !vf_driver_has_netdev(v->attrs.driver))
		return VF_USE_NO_NETDEV;
	return vf_settings_wants_rdma(v) ? VF_USE_RDMA : VF_USE_NETDEV;
}

/* What makes v's kind, with where the files say it: "Driver=vfio-pci at
 * 50-e810.conf:8", "iavf, RDMA=yes at 50-e810.conf:12" (Driver= unset: the
 * PF's VF driver, "the kernel's VF driver" without a host). */
static const char *kind_text(const char *vf_driver, const struct vf_settings *v,
			     char buf[static 512])
{
	const struct src *drv = &v->src[VF_KEY_DRIVER], *rdma = &v->src[VF_KEY_RDMA];
	int n;

	if (vf_settings_has(v, VF_KEY_DRIVER) && v->attrs.driver)
		n = snprintf(buf, 512, "Driver=%s at %s:%u", vf_settings_driver_written(v),
			     strna(drv->file), drv->line);
	else
		n = snprintf(buf, 512, "%s", vf_driver ?: "the kernel's VF driver");
	if (vf_settings_wants_rdma(v) && n > 0 && n < 512)
		snprintf(buf + n, 512 - (size_t)n, ", RDMA=yes at %s:%u", strna(rdma->file),
			 rdma->line);
	return buf;
}

/* "; its ResourceName= at file:line" for there when it is not here */
static const char *resource_at(const struct src *here, const struct src *there,
			       char buf[static 256])
{
	buf[0] = '\0';
	if (!streq_ptr(here->file, there->file) || here->line != there->line)
		snprintf(buf, 256, "; its ResourceName= at %s:%u", strna(there->file), there->line);
	return buf;
}

static bool same_resource(const struct vf_settings *a, const struct vf_settings *b)
{
	return vf_settings_has(a, VF_KEY_RESOURCE_NAME) &&
	       vf_settings_has(b, VF_KEY_RESOURCE_NAME) &&
	       streq_ptr(a->attrs.resource_name, b->attrs.resource_name);
}

/* b (vb: "VF 8", "VF 0 of 0000:3b:00.1") shares a's (va, whose PF's VF
 * driver is a_driver) ResourceName= and is of another kind: said at b's
 * ResourceName= line, naming the lines that make each kind. */
static int report_mixed(struct rules_out *o, const struct vf_settings *a, const char *va,
			const char *a_driver, const struct vf_settings *b, const char *vb)
{
	const struct src *at = &b->src[VF_KEY_RESOURCE_NAME],
			 *other = &a->src[VF_KEY_RESOURCE_NAME];
	bool interfaces = vf_use(a) != VF_USE_NO_NETDEV && vf_use(b) != VF_USE_NO_NETDEV;
	char kb[512], ka[512], where[256], open[64];

	kind_text(o->vf_driver, b, kb);
	kind_text(a_driver, a, ka);
	resource_at(at, other, where);
	if (interfaces)
		return diag_add(o->diags, DIAG_WARNING, at->file, at->line,
				"ResourceName=%s: %s (%s) and %s (%s%s) are one device "
				"plugin resource, and a pod that asks for it may get a VF "
				"without an RDMA device; give each kind its own ResourceName=",
				b->attrs.resource_name, vb, kb, va, ka, where);
	return rules_error(o, at->file, at->line,
			   "ResourceName=%s: %s (%s) and %s (%s%s) would be one device "
			   "plugin resource, and a pod that asks for it gets either a VF with a "
			   "network interface or one without; give each kind its own "
			   "ResourceName=%s",
			   b->attrs.resource_name, vb, kb, va, ka, where,
			   rules_open(o, "ResourceName", at, open));
}

int rules_check_resource_across(struct rules_out *o, const struct vf_settings *a, const char *va,
				const char *a_driver, const struct vf_settings *b, const char *vb)
{
	int r;

	if (!same_resource(a, b) || vf_use(a) == vf_use(b))
		return 0;
	r = report_mixed(o, a, va, a_driver, b, vb);
	return r < 0 ? r : 1;
}

/* The first VF of vfs[0..j) of another kind with vfs[j]'s ResourceName=,
 * or j when none. */
static size_t other_kind(const struct vf_settings *vfs, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if (same_resource(&vfs[i], &vfs[j]) && vf_use(&vfs[i]) != vf_use(&vfs[j]))
			return i;
	return j;
}

/* Whether a VF before j with the same ResourceName= line was reported. */
static bool line_reported(const struct vf_settings *vfs, const bool *reported, size_t j)
{
	const struct src *at = &vfs[j].src[VF_KEY_RESOURCE_NAME];

	for (size_t i = 0; i < j; i++)
		if (reported[i] && streq_ptr(vfs[i].src[VF_KEY_RESOURCE_NAME].file, at->file) &&
		    vfs[i].src[VF_KEY_RESOURCE_NAME].line == at->line)
			return true;
	return false;
}

int rules_check_resources(struct rules_out *o, const struct vf_settings *vfs, const uint32_t *index,
			  size_t n)
{
	_cleanup_free_ bool *reported = calloc(n ?: 1, sizeof(*reported));

	if (!reported)
		return -ENOMEM;
	for (size_t j = 1; j < n; j++) {
		size_t i = other_kind(vfs, j);
		char va[32], vb[32];
		int r;

		if (i == j || line_reported(vfs, reported, j))
			continue;
		snprintf(va, sizeof(va), "VF %u", index ? index[i] : (uint32_t)i);
		snprintf(vb, sizeof(vb), "VF %u", index ? index[j] : (uint32_t)j);
		r = report_mixed(o, &vfs[i], va, o->vf_driver, &vfs[j], vb);
		if (r < 0)
			return r;
		reported[j] = true;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether a ranged section of files names VF vf. */
static bool named(const struct layout_file *const *files, size_t n, uint32_t vf)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < files[i]->n_vf_sections; j++) {
			const struct vf_section *s = &files[i]->vf_sections[j];

			if (s->first != VF_INDEX_ALL && s->first <= vf && vf <= s->last)
				return true;
		}
	return false;
}

/* The VFs that stand for all: the first VF of each run that the same
 * sections cover (0, and where a ranged section starts or ends), below
 * bound or named by a ranged section. Their merged settings are those of
 * every VF of their run. A section beyond bound is an error of its own,
 * and what it sets is checked all the same: fixing the count must not
 * bring up errors that were there all along. */
static size_t representatives(const struct layout_file *const *files, size_t n, uint32_t bound,
			      uint32_t *ret)
{
	size_t m = 0, k = 0;

	ret[m++] = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < files[i]->n_vf_sections; j++) {
			const struct vf_section *s = &files[i]->vf_sections[j];

			if (s->first == VF_INDEX_ALL)
				continue;
			ret[m++] = s->first;
			ret[m++] = s->last + 1;
		}
	qsort(ret, m, sizeof(*ret), cmp_u32);
	for (size_t i = 0; i < m; i++)
		if ((ret[i] < bound || named(files, n, ret[i])) && (k == 0 || ret[k - 1] != ret[i]))
			ret[k++] = ret[i];
	return k;
}

static size_t count_sections(const struct layout_file *const *files, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += files[i]->n_vf_sections;
	return c;
}

static int merge_vf(const struct layout_file *const *files, size_t n, uint32_t vf,
		    struct vf_settings *ret)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < files[i]->n_vf_sections; j++) {
			const struct vf_section *s = &files[i]->vf_sections[j];
			int r;

			if (s->first != VF_INDEX_ALL && (vf < s->first || vf > s->last))
				continue;
			r = vf_settings_merge(ret, &s->settings);
			if (r < 0)
				return r;
		}
	return 0;
}

/* The last VF of the run that index[i] (of m) stands for: the VF before
 * the next run, below bound while it is; beyond bound, the end of the
 * ranged sections that name it; UINT32_MAX: every VF from index[i] on. */
static uint32_t run_last(const struct layout_file *const *files, size_t n, const uint32_t *index,
			 size_t m, size_t i, uint32_t bound)
{
	uint32_t last = i + 1 < m ? index[i + 1] - 1 : UINT32_MAX, named = 0;

	if (index[i] < bound)
		return bound != UINT32_MAX && last >= bound ? bound - 1 : last;
	for (size_t f = 0; f < n; f++)
		for (size_t j = 0; j < files[f]->n_vf_sections; j++) {
			const struct vf_section *s = &files[f]->vf_sections[j];

			if (s->first != VF_INDEX_ALL && s->first <= index[i] &&
			    index[i] <= s->last && s->last > named)
				named = s->last;
		}
	return named < last ? named : last;
}

void rules_vfs_done(struct rules_vfs *v)
{
	for (size_t i = 0; v->vfs && i < v->n; i++)
		vf_settings_done(&v->vfs[i]);
	v->vfs = mfree(v->vfs);
	v->index = mfree(v->index);
	v->last = mfree(v->last);
	v->n = 0;
}

int rules_vfs_build(const struct layout_file *const *files, size_t n, uint32_t bound,
		    struct rules_vfs *ret)
{
	size_t max = 2 * count_sections(files, n) + 1;
	struct rules_vfs v = {
		.vfs = calloc(max, sizeof(*v.vfs)),
		.index = calloc(max, sizeof(*v.index)),
		.last = calloc(max, sizeof(*v.last)),
	};
	int r = v.vfs && v.index && v.last ? 0 : -ENOMEM;

	v.n = r < 0 ? 0 : representatives(files, n, bound, v.index);
	for (size_t i = 0; r >= 0 && i < v.n; i++) {
		v.last[i] = run_last(files, n, v.index, v.n, i, bound);
		r = merge_vf(files, n, v.index[i], &v.vfs[i]);
	}
	if (r < 0) {
		rules_vfs_done(&v);
		return r;
	}
	*ret = v;
	return 0;
}

uint32_t rules_vfs_bound(const struct layout_file *const *files, size_t n, struct pf_settings *pf)
{
	for (size_t i = 0; i < n; i++)
		pf_settings_merge(pf, &files[i]->pf);
	/* "max" is known only with the PF */
	if (pf_settings_has(pf, PF_KEY_VIRTUAL_FUNCTIONS) && !pf->num_vfs_max)
		return pf->num_vfs;
	return UINT32_MAX;
}

int rules_check_vfs(struct rules_out *o, const struct layout_file *const *files, size_t n,
		    uint32_t bound)
{
	_cleanup_(rules_vfs_done) struct rules_vfs v = {};
	int r = rules_vfs_build(files, n, bound, &v);

	for (size_t i = 0; r >= 0 && i < v.n; i++) {
		r = rules_check_qos(o, v.vfs, v.index, v.last, v.n, i);
		if (r >= 0)
			r = rules_check_vf(o, &v.vfs[i], files, n);
		if (r >= 0 && o->vf_hook)
			r = o->vf_hook(o->vf_hook_data, v.index[i], &v.vfs[i]);
	}
	if (r >= 0)
		r = rules_check_unique(o, v.vfs, v.index, NULL, v.n);
	if (r >= 0)
		r = rules_check_resources(o, v.vfs, v.index, v.n);
	return r;
}
