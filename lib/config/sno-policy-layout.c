/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The layout file of each policy: its name from the priority (the file
 * order is the operator's order of applying policies), its text, and the
 * earlier files whose values it replaces. */

#include <stdio.h>

#include "sno-policy.h"
#include "string-util.h"
#include "strv.h"

/* Policy names are DNS subdomains (RFC 1123); these make a file name. */
#define SNO_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789.-"

static int sno_order_cmp(const void *a, const void *b)
{
	const struct sno_policy *x = *(struct sno_policy *const *)a;
	const struct sno_policy *y = *(struct sno_policy *const *)b;

	/* the operator applies the highest number first; the last applied wins */
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char *sno_file_name(const struct sno_policy *p)
{
	return strdup_printf("%02u-%s.conf", SNO_POLICY_PRIORITY_MAX - p->priority, p->name);
}

/* Whether the selectors of a and b can select one PF. */
static bool sno_disjoint(char *const *a, char *const *b)
{
	if (!a || !b)
		return false;
	for (size_t i = 0; a[i]; i++)
		if (strv_contains(b, a[i]))
			return false;
	return true;
}

static bool sno_may_overlap(const struct sno_policy *a, const struct sno_policy *b)
{
	if (a->vendor && b->vendor && !streq(a->vendor, b->vendor))
		return false;
	if (a->device && b->device && !streq(a->device, b->device))
		return false;
	return !sno_disjoint(a->pci, b->pci) && !sno_disjoint(a->pf_names, b->pf_names) &&
	       !sno_disjoint(a->hosts, b->hosts);
}

static unsigned sno_first(const struct sno_policy *p)
{
	return p->has_range ? p->vf_first : 0;
}

static unsigned sno_last(const struct sno_policy *p)
{
	return p->has_range ? p->vf_last : p->num_vfs - 1;
}

static unsigned sno_vf_mtu(const struct sno_policy *p)
{
	return p->vfio ? 0 : p->mtu;
}

static bool sno_set_differ(const char *a, const char *b)
{
	return a && b && !streq(a, b);
}

static bool sno_num_differ(unsigned a, unsigned b)
{
	return a && b && a != b;
}

/* Whether the later file b replaces a value of a on a PF both select. */
static bool sno_overrides(const struct sno_policy *a, const struct sno_policy *b)
{
	bool vfs = sno_first(a) <= sno_last(b) && sno_first(b) <= sno_last(a);

	if (!sno_may_overlap(a, b))
		return false;
	if (a->num_vfs != b->num_vfs || sno_num_differ(a->mtu, b->mtu) ||
	    sno_set_differ(a->link_type, b->link_type) ||
	    sno_set_differ(a->eswitch_mode, b->eswitch_mode) ||
	    a->externally_managed != b->externally_managed)
		return true;
	return vfs && (a->vfio != b->vfio || a->rdma != b->rdma ||
		       sno_num_differ(sno_vf_mtu(a), sno_vf_mtu(b)) ||
		       sno_set_differ(a->resource_name, b->resource_name));
}

static void sno_write_list(FILE *f, const char *key, char *const *l)
{
	_cleanup_free_ char *s = l ? strv_join(l, " ") : NULL;

	if (s)
		fprintf(f, "%s=%s\n", key, s);
}

/* An InfiniBand port's interface is renamed: Name= would not select it. */
static bool sno_name_by_pci(const struct sno_policy *p)
{
	return p->pci && streq_ptr(p->link_type, "infiniband");
}

static void sno_write_head(FILE *f, const char *source, const struct sno_policy *p)
{
	fprintf(f,
		"# Imported by sriovctl import from SriovNetworkNodePolicy %s (priority %u), %s:%u\n",
		p->name, p->priority, source, p->line);
	for (size_t i = 0; p->labels && p->labels[i]; i++)
		fprintf(f,
			"# nodeSelector %s: names no host; install this file only on the nodes "
			"that have the label\n",
			p->labels[i]);
	if (p->resource_name)
		fprintf(f,
			"# resourceName %s: the device plugin's prefix is [Kubernetes] "
			"ResourcePrefix= (sriov-persist.conf(5));\n# the operator's was its "
			"RESOURCE_PREFIX, openshift.io by default\n",
			p->resource_name);
	if (p->exclude_topology)
		fprintf(f,
			"# excludeTopology: true has no equivalent (the VFs' NUMA node is kept)\n");
	if (p->need_vhost_net)
		fprintf(f, "# needVhostNet: true has no equivalent (no /dev/vhost-net for pods)\n");
	/* as the import warning says (sno_policy_ib_names()) */
	if (p->pf_names && streq_ptr(p->link_type, "infiniband"))
		fprintf(f, "%s",
			sno_name_by_pci(p) ?
				"# pfNames: left out; the file matches by PCIAddress= "
				"(rootDevices), as Name= no longer selects a PF\n# once it is "
				"an InfiniBand port\n" :
				"# pfNames: a PF this file makes an InfiniBand port is renamed, "
				"and Name= then no longer\n# selects it; unless its ports are "
				"InfiniBand already, replace Name= with PCIAddress=\n");
}

static void sno_write_body(FILE *f, const struct sno_policy *p)
{
	fprintf(f, "\n[Match]\n");
	sno_write_list(f, "PCIAddress", p->pci);
	if (!sno_name_by_pci(p))
		sno_write_list(f, "Name", p->pf_names);
	if (p->vendor)
		fprintf(f, "Vendor=%s\n", p->vendor);
	if (p->device)
		fprintf(f, "Device=%s\n", p->device);
	sno_write_list(f, "Host", p->hosts);
	fprintf(f, "\n[PhysicalFunction]\nVirtualFunctions=%u\n", p->num_vfs);
	if (p->mtu)
		fprintf(f, "MTUBytes=%u\n", p->mtu);
	if (p->link_type)
		fprintf(f, "LinkType=%s\n", p->link_type);
	if (p->eswitch_mode)
		fprintf(f, "ESwitchMode=%s\n", p->eswitch_mode);
	fprintf(f, "ExternallyManaged=%s\n", p->externally_managed ? "yes" : "no");
	fprintf(f, "\n[VirtualFunction %u-%u]\nDriver=%s\n", sno_first(p), sno_last(p),
		p->vfio ? "vfio-pci" : "default");
	if (sno_vf_mtu(p))
		fprintf(f, "MTUBytes=%u\n", sno_vf_mtu(p));
	fprintf(f, "RDMA=%s\n", p->rdma ? "yes" : "no");
	if (p->resource_name)
		fprintf(f, "ResourceName=%s\n", p->resource_name);
}

/* A VF MTU of an earlier file stays on the VFs that a later policy puts on
 * vfio-pci (a later file cannot unset it), where a VF on vfio-pci can have
 * none: an error rather than files that hold the PF. */
static int sno_mtu_check(const char *source, struct sno_policy *const *order, size_t n,
			 struct diag_list *diags)
{
	int e = 0;

	for (size_t i = 0; e >= 0 && i < n; i++)
		for (size_t j = 0; e >= 0 && j < i; j++) {
			const struct sno_policy *a = order[j], *b = order[i];

			if (!b->vfio || !sno_vf_mtu(a) || !sno_may_overlap(a, b) ||
			    sno_first(a) > sno_last(b) || sno_first(b) > sno_last(a))
				continue;
			e = diag_add(
				diags, DIAG_ERROR, source, b->device_type_line,
				"policy %s: deviceType: vfio-pci for VFs %u-%u, to which policy "
				"%s (applied before it) gives mtu %u: its file's MTUBytes= "
				"would stay on them, and a VF on vfio-pci has no MTU; select "
				"the VFs of %s by a pfNames range that leaves these out",
				b->name, sno_first(b), sno_last(b), a->name, a->mtu, a->name);
		}
	return e;
}

static bool sno_vfs_meet(const struct sno_policy *a, const struct sno_policy *b)
{
	return sno_first(a) <= sno_last(b) && sno_first(b) <= sno_last(a);
}

/* Whether the operator's webhook refuses b's pfNames entry for name after
 * a's: both without a range, or both with ranges that meet (an entry
 * without a range never meets one with a range there). */
static bool sno_pf_clash(const struct sno_policy *a, const struct sno_policy *b, const char *name)
{
	bool plain_a = strv_contains(a->pf_plain_names, name);
	bool plain_b = strv_contains(b->pf_plain_names, name);

	if (plain_a || plain_b)
		return plain_a && plain_b;
	return sno_vfs_meet(a, b);
}

/* The line of the entry s in list l, whose entries' lines are lines; 0
 * when l lacks it. */
static unsigned sno_entry_line(char *const *l, const unsigned *lines, const char *s)
{
	for (size_t i = 0; l && l[i]; i++)
		if (streq(l[i], s))
			return lines[i];
	return 0;
}

/* What both select that the operator's webhook refuses to see in a
 * second policy: a root device, or a PF name (sno_pf_clash), and the line
 * of b's entry; NULL: none. */
static const char *sno_shared(const struct sno_policy *a, const struct sno_policy *b,
			      unsigned *ret_line)
{
	for (size_t k = 0; a->pci && a->pci[k]; k++)
		if (strv_contains(b->pci, a->pci[k])) {
			*ret_line = sno_entry_line(b->pci, b->pci_lines, a->pci[k]);
			return a->pci[k];
		}
	for (size_t k = 0; a->pf_names && a->pf_names[k]; k++)
		if (strv_contains(b->pf_names, a->pf_names[k]) &&
		    sno_pf_clash(a, b, a->pf_names[k])) {
			*ret_line = sno_entry_line(b->pf_names, b->pf_name_lines, a->pf_names[k]);
			return a->pf_names[k];
		}
	return NULL;
}

/* Two policies on one PF whose files would hold it: the later file's
 * VirtualFunctions= below the VFs the earlier one configures. The
 * operator refuses a second policy on a root device or on VFs of a PF
 * name; for others it keeps the later numVfs and drops the earlier VFs
 * beyond it, which layout files cannot express. */
static int sno_vfs_check(const char *source, struct sno_policy *const *order, size_t n,
			 struct diag_list *diags)
{
	int e = 0;

	for (size_t i = 0; e >= 0 && i < n; i++)
		for (size_t j = 0; e >= 0 && j < i; j++) {
			const struct sno_policy *a = order[j], *b = order[i];
			unsigned line = 0;
			const char *pf;

			if (!sno_may_overlap(a, b))
				continue;
			pf = sno_shared(a, b, &line);
			if (pf)
				e = diag_add(
					diags, DIAG_ERROR, source, line,
					"policy %s: nicSelector: %s is selected by policy %s "
					"too: the operator refuses two policies on one root "
					"device, or on the same VFs of one pfNames entry; merge "
					"the two, or give each a pfNames range of its own",
					b->name, pf, a->name);
			else if (sno_last(a) >= b->num_vfs)
				e = diag_add(
					diags, DIAG_ERROR, source, b->num_vfs_line,
					"policy %s: numVfs: %u, applied after policy %s that "
					"configures VFs %u-%u of a PF both may select: its "
					"file's VF section would be beyond VirtualFunctions=%u; "
					"give both the same numVfs",
					b->name, b->num_vfs, a->name, sno_first(a), sno_last(a),
					b->num_vfs);
		}
	return e;
}

/* The text of order[i]'s file; the earlier files it overrides named. */
static char *sno_layout_text(const char *source, struct sno_policy *const *order, size_t i,
			     char *const *names)
{
	char *text = NULL;
	size_t size = 0, n_over = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	sno_write_head(f, source, order[i]);
	for (size_t j = 0; j < i; j++)
		if (sno_overrides(order[j], order[i]))
			fprintf(f, "%s%s", n_over++ ? " " : "\n[Layout]\nOverrides=", names[j]);
	if (n_over)
		fprintf(f, "\n");
	sno_write_body(f, order[i]);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* A name that makes no file name, or two policies of one priority whose
 * file order is not their name order: an error in diags. */
static int sno_name_check(const char *source, struct sno_policy *const *order, size_t i,
			  char *const *names, const char *file, struct diag_list *diags)
{
	const struct sno_policy *p = order[i];

	if (p->name[strspn(p->name, SNO_NAME_CHARS)] != '\0')
		return diag_add(
			diags, DIAG_ERROR, source, p->name_line,
			"policy %s: metadata.name: not a Kubernetes object name (lower-case "
			"letters, digits, '-' and '.')",
			p->name);
	if (i > 0 && order[i - 1]->priority == p->priority && strcmp(names[i - 1], file) > 0)
		return diag_add(diags, DIAG_ERROR, source, p->priority_line ?: p->name_line,
				"policy %s: priority %u, as policy %s: the operator applies %s "
				"last, but its file %s would be read before %s; give one of them "
				"another priority or name",
				p->name, p->priority, order[i - 1]->name, p->name, file,
				names[i - 1]);
	return 0;
}

static int sno_names(const char *source, struct sno_policy *const *order, size_t n, char ***ret,
		     struct diag_list *diags)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t errors = diag_count(diags, DIAG_ERROR);

	for (size_t i = 0; i < n; i++) {
		char *file = sno_file_name(order[i]);

		if (!file || sno_name_check(source, order, i, names, file, diags) < 0 ||
		    strv_consume(&names, file) < 0)
			return -ENOMEM;
	}
	if (diag_count(diags, DIAG_ERROR) > errors)
		names = strv_free(names);
	*ret = TAKE_PTR(names);
	return 0;
}

int sno_policies_layouts(const char *source, const struct sno_policies *p, char ***ret_names,
			 char ***ret_texts, struct diag_list *diags)
{
	_cleanup_free_ struct sno_policy **order = calloc(p->n + 1, sizeof(*order));
	_cleanup_strv_free_ char **names = NULL, **texts = NULL;
	const char *src = streq(source, "-") ? "<stdin>" : source;
	size_t n = 0, errors = diag_count(diags, DIAG_ERROR);
	int e;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		if (!p->items[i].skipped)
			order[n++] = &p->items[i];
	qsort(order, n, sizeof(*order), sno_order_cmp);
	e = sno_names(src, order, n, &names, diags);
	if (e >= 0)
		e = sno_vfs_check(src, order, n, diags);
	if (e >= 0)
		e = sno_mtu_check(src, order, n, diags);
	if (e < 0)
		return e;
	if (diag_count(diags, DIAG_ERROR) > errors)
		names = strv_free(names); /* no files from conflicting policies */
	for (size_t i = 0; names && i < n; i++)
		if (strv_consume(&texts, sno_layout_text(src, order, i, names)) < 0)
			return -ENOMEM;
	*ret_names = TAKE_PTR(names);
	*ret_texts = TAKE_PTR(texts);
	return 0;
}
