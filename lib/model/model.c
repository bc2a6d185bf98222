/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <strings.h>

#include "model.h"

static const char *const eswitch_mode_table[_ESWITCH_MODE_MAX] = {
	[ESWITCH_MODE_LEGACY] = "legacy",
	[ESWITCH_MODE_SWITCHDEV] = "switchdev",
};

static const char *const link_type_table[_LINK_TYPE_MAX] = {
	[LINK_TYPE_ETHERNET] = "ethernet",
	[LINK_TYPE_INFINIBAND] = "infiniband",
};

static const char *const rdma_netns_mode_table[_RDMA_NETNS_MODE_MAX] = {
	[RDMA_NETNS_MODE_SHARED] = "shared",
	[RDMA_NETNS_MODE_EXCLUSIVE] = "exclusive",
};

static const char *const cpu_vendor_table[_CPU_VENDOR_MAX] = {
	[CPU_VENDOR_INTEL] = "intel",
	[CPU_VENDOR_AMD] = "amd",
	[CPU_VENDOR_ARM] = "arm",
};

DEFINE_STRING_TABLE(eswitch_mode, enum eswitch_mode, eswitch_mode_table)
static const char *const boot_loader_table[_BOOT_LOADER_MAX] = {
	[BOOT_LOADER_NONE] = "none",
	[BOOT_LOADER_GRUBBY] = "grubby",
	[BOOT_LOADER_GRUB] = "grub",
	[BOOT_LOADER_KERNEL_INSTALL] = "kernel-install",
};

DEFINE_STRING_TABLE(boot_loader, enum boot_loader, boot_loader_table)
DEFINE_STRING_TABLE(cpu_vendor, enum cpu_vendor, cpu_vendor_table)
DEFINE_STRING_TABLE(rdma_netns_mode, enum rdma_netns_mode, rdma_netns_mode_table)
DEFINE_STRING_TABLE(link_type, enum link_type, link_type_table)

static const char *const vf_stat_table[_VF_STAT_MAX] = {
	[VF_STAT_RX_PACKETS] = "rx_packets", [VF_STAT_TX_PACKETS] = "tx_packets",
	[VF_STAT_RX_BYTES] = "rx_bytes",     [VF_STAT_TX_BYTES] = "tx_bytes",
	[VF_STAT_BROADCAST] = "broadcast",   [VF_STAT_MULTICAST] = "multicast",
	[VF_STAT_RX_DROPPED] = "rx_dropped", [VF_STAT_TX_DROPPED] = "tx_dropped",
};

DEFINE_STRING_TABLE(vf_stat, enum vf_stat, vf_stat_table)

void vf_state_done(struct vf_state *vf)
{
	if (!vf)
		return;
	vf->name = mfree(vf->name);
	vf->unbound_from = mfree(vf->unbound_from);
	vf->representor = mfree(vf->representor);
	vf_attrs_done(&vf->attrs);
}

void pf_state_done(struct pf_state *pf)
{
	if (!pf)
		return;
	free(pf->name);
	strv_free(pf->altnames);
	free(pf->driver);
	free(pf->vf_driver);
	free(pf->firmware_error);
	for (size_t i = 0; i < pf->n_vfs; i++)
		vf_state_done(&pf->vfs[i]);
	free(pf->vfs);
	*pf = (struct pf_state){};
}

struct host_state *host_state_free(struct host_state *h)
{
	if (!h)
		return NULL;
	free(h->hostname);
	free(h->kernel_cmdline);
	strv_free(h->modules);
	strv_free(h->kernel_args_added);
	strv_free(h->boot_cmdlines);
	strv_free(h->boot_iommu_off);
	free(h->boot_config_error);
	for (size_t i = 0; i < h->n_pfs; i++)
		pf_state_done(&h->pfs[i]);
	free(h->pfs);
	free(h);
	return NULL;
}

/* strdup that keeps NULL as NULL; false on allocation failure. */
static bool strdup_null(const char *s, char **ret)
{
	*ret = NULL;
	if (!s)
		return true;
	*ret = strdup(s);
	return *ret != NULL;
}

static int vf_state_copy(const struct vf_state *src, struct vf_state *ret)
{
	struct vf_state c = *src;

	c.name = c.unbound_from = c.representor = NULL;
	c.attrs = (struct vf_attrs){};
	if (!strdup_null(src->name, &c.name) || !strdup_null(src->unbound_from, &c.unbound_from) ||
	    !strdup_null(src->representor, &c.representor) ||
	    vf_attrs_copy_all(&c.attrs, &src->attrs) < 0) {
		vf_state_done(&c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

static int pf_state_copy_strings(const struct pf_state *src, struct pf_state *c)
{
	if (!strdup_null(src->name, &c->name) || !strdup_null(src->driver, &c->driver) ||
	    !strdup_null(src->vf_driver, &c->vf_driver) ||
	    !strdup_null(src->firmware_error, &c->firmware_error))
		return -ENOMEM;
	if (src->altnames) {
		c->altnames = strv_copy(src->altnames);
		if (!c->altnames)
			return -ENOMEM;
	}
	return 0;
}

int pf_state_copy(const struct pf_state *src, struct pf_state *ret)
{
	struct pf_state c = *src;
	int r;

	c.name = c.driver = c.vf_driver = c.firmware_error = NULL;
	c.altnames = NULL;
	c.vfs = NULL;
	c.n_vfs = 0;

	r = pf_state_copy_strings(src, &c);
	if (r < 0)
		goto fail;
	if (src->n_vfs > 0) {
		c.vfs = calloc(src->n_vfs, sizeof(*c.vfs));
		if (!c.vfs) {
			r = -ENOMEM;
			goto fail;
		}
		for (; c.n_vfs < src->n_vfs; c.n_vfs++) {
			r = vf_state_copy(&src->vfs[c.n_vfs], &c.vfs[c.n_vfs]);
			if (r < 0)
				goto fail;
		}
	}
	*ret = c;
	return 0;
fail:
	pf_state_done(&c);
	return r;
}

/* The copy of src with every PF (only NULL) or the PF at PCI address only. */
static int copy_host(const struct host_state *src, const char *only, struct host_state **ret)
{
	_cleanup_host_state_ struct host_state *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	memcpy(c->machine_id, src->machine_id, sizeof(c->machine_id));
	c->has_machine_id = src->has_machine_id;
	c->machine_id_option = src->machine_id_option;
	memcpy(c->boot_id, src->boot_id, sizeof(c->boot_id));
	c->iommu = src->iommu;
	c->has_cpu_vendor = src->has_cpu_vendor;
	c->cpu_vendor = src->cpu_vendor;
	c->has_rdma_netns_mode = src->has_rdma_netns_mode;
	c->rdma_netns_mode = src->rdma_netns_mode;
	if (!strdup_null(src->hostname, &c->hostname) ||
	    !strdup_null(src->kernel_cmdline, &c->kernel_cmdline))
		return -ENOMEM;
	c->findable_modules = src->findable_modules;
	c->modules = strv_copy(src->modules);
	if (!c->modules)
		return -ENOMEM;
	c->boot_loader = src->boot_loader;
	c->boot_loader_from_snapshot = src->boot_loader_from_snapshot;
	if (src->kernel_args_added) {
		c->kernel_args_added = strv_copy(src->kernel_args_added);
		if (!c->kernel_args_added)
			return -ENOMEM;
	}
	if ((src->boot_cmdlines && !(c->boot_cmdlines = strv_copy(src->boot_cmdlines))) ||
	    (src->boot_iommu_off && !(c->boot_iommu_off = strv_copy(src->boot_iommu_off))) ||
	    !strdup_null(src->boot_config_error, &c->boot_config_error))
		return -ENOMEM;
	if (src->n_pfs > 0) {
		c->pfs = calloc(only ? 1 : src->n_pfs, sizeof(*c->pfs));
		if (!c->pfs)
			return -ENOMEM;
		for (size_t i = 0; i < src->n_pfs; i++) {
			if (only && !streq(src->pfs[i].pci, only))
				continue;
			r = pf_state_copy(&src->pfs[i], &c->pfs[c->n_pfs]);
			if (r < 0)
				return r;
			c->n_pfs++;
			if (only)
				break;
		}
	}
	*ret = TAKE_PTR(c);
	return 0;
}

int host_state_copy(const struct host_state *src, struct host_state **ret)
{
	return copy_host(src, NULL, ret);
}

int host_state_copy_pf(const struct host_state *src, const char *pci, struct host_state **ret)
{
	return copy_host(src, pci, ret);
}

struct pf_state *host_state_find_pf(const struct host_state *h, const char *pci)
{
	if (!h || !pci)
		return NULL;
	for (size_t i = 0; i < h->n_pfs; i++)
		if (streq(h->pfs[i].pci, pci))
			return &h->pfs[i];
	return NULL;
}

const struct pf_state *host_state_lookup_pf(const struct host_state *hs, const char *what)
{
	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *pf = &hs->pfs[i];

		/* PCI addresses without case, as [Match] compares them */
		if (strcasecmp(pf->pci, what) == 0 || streq_ptr(pf->name, what) ||
		    strv_contains(pf->altnames, what))
			return pf;
	}
	return NULL;
}

int pf_vf_pci_addr(const struct pf_state *pf, unsigned index, char buf[static PCI_ADDR_MAX])
{
	uint32_t domain, rid;
	uint64_t vf_rid;
	int r;

	r = pci_addr_parse(pf->pci, &domain, &rid);
	if (r < 0)
		return r;
	/* drivers/pci/iov.c: the routing ID may carry into the next bus
	 * numbers, but not past the last one of the domain. */
	vf_rid = (uint64_t)rid + pf->vf_offset + (uint64_t)index * pf->vf_stride;
	if (vf_rid > 0xffff)
		return -ERANGE;
	pci_addr_format(domain, (uint32_t)vf_rid, buf);
	return 0;
}

char *pf_names_describe(const char *pci, const char *name)
{
	return name ? strdup_printf("%s (%s)", pci, name) : strdup(pci);
}

char *pf_describe(const struct pf_state *pf)
{
	return pf_names_describe(pf->pci, pf->name);
}

bool kernel_cmdline_has(const char *cmdline, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t key = eq ? (size_t)(eq - arg) + 1 : strlen(arg), n = strlen(arg);
	bool has = false;

	for (const char *p = cmdline; p && *p;) {
		p += strspn(p, " \t\n");
		/* the kernel takes the last of a parameter given twice */
		if (*p && strncmp(p, arg, key) == 0)
			has = strncmp(p, arg, n) == 0 && strchr(" \t\n,", p[n]);
		p += strcspn(p, " \t\n");
	}
	return has;
}

int cpu_vendor_from_cpuinfo(const char *text)
{
	const char *p = strstr(text, "vendor_id"), *a = strstr(text, "\nCPU architecture");

	if (!p && a) {
		a += 1 + strcspn(a + 1, ":\n");
		return *a == ':' && strtoul(a + 1, NULL, 10) == 8 ? CPU_VENDOR_ARM : -ENOENT;
	}
	if (!p || !(p = strchr(p, ':')))
		return -ENOENT;
	p += strspn(p + 1, " \t") + 1;
	if (startswith(p, "GenuineIntel"))
		return CPU_VENDOR_INTEL;
	if (startswith(p, "AuthenticAMD") || startswith(p, "HygonGenuine"))
		return CPU_VENDOR_AMD;
	return -ENOENT;
}

bool kernel_args_all_added(const struct host_state *h, const char *args)
{
	_cleanup_strv_free_ char **words = NULL;

	if (strv_split(args, &words) < 0)
		return false;
	for (char **w = words; *w; w++)
		if (!strv_contains(h->kernel_args_added, *w))
			return false;
	return true;
}

bool kernel_args_all_configured(const struct host_state *h, const char *args)
{
	_cleanup_strv_free_ char **words = NULL;

	if (strv_length(h->boot_cmdlines) == 0 || strv_split(args, &words) < 0)
		return false;
	for (char **w = words; *w; w++)
		for (char **c = h->boot_cmdlines; *c; c++)
			if (!kernel_cmdline_has(*c, *w))
				return false;
	return true;
}

int kernel_args_unset(const struct host_state *h, const char *args, char **ret)
{
	_cleanup_strv_free_ char **words = NULL, **left = NULL;

	*ret = NULL;
	if (strv_split(args, &words) < 0)
		return -ENOMEM;
	for (char **w = words; *w; w++)
		if (!strv_contains(h->kernel_args_added, *w) &&
		    !kernel_args_all_configured(h, *w) && strv_extend(&left, *w) < 0)
			return -ENOMEM;
	if (left && !(*ret = strv_join(left, " ")))
		return -ENOMEM;
	return 0;
}

int iommu_args_missing(const struct host_state *h, char **ret)
{
	const char *want[] = { h->cpu_vendor == CPU_VENDOR_AMD ? "amd_iommu=on" : "intel_iommu=on",
			       "iommu=pt" };
	_cleanup_free_ char *s = NULL;

	*ret = NULL;
	if (!h->has_cpu_vendor || h->cpu_vendor == CPU_VENDOR_ARM ||
	    kernel_cmdline_has(h->kernel_cmdline, want[0]))
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		char *n;

		if (kernel_cmdline_has(h->kernel_cmdline, want[i]))
			continue;
		n = s ? strdup_printf("%s %s", s, want[i]) : strdup(want[i]);
		if (!n)
			return -ENOMEM;
		free(s);
		s = n;
	}
	*ret = TAKE_PTR(s);
	return 0;
}

/* Whether word and arg give one parameter: "intel_iommu=off", "intel_iommu=on". */
static bool same_parameter(const char *word, const char *arg)
{
	size_t n = strcspn(arg, "=");

	return strncmp(word, arg, n) == 0 && word[n] == '=';
}

/* Whether word, one that turns the IOMMU off, undoes arg: the same
 * parameter, or iommu=off, which turns off every IOMMU driver of x86. */
static bool undoes(const char *word, const char *arg)
{
	return same_parameter(word, arg) || kernel_cmdline_has(word, "iommu=off");
}

int kernel_args_contradicted(const struct host_state *h, const char *args, char **ret)
{
	_cleanup_strv_free_ char **words = NULL, **said = NULL;
	char **p = h->boot_iommu_off;

	*ret = NULL;
	if (!args || !p || strv_split(args, &words) < 0)
		return args && p ? -ENOMEM : 0;
	for (char **w = words; *w; w++)
		for (size_t i = 0; p[i] && p[i + 1]; i += 2)
			if (undoes(p[i + 1], *w) &&
			    strv_consume(&said,
					 strdup_printf("%s holds %s, which turns off what %s "
						       "turns on",
						       p[i], p[i + 1], *w)) < 0)
				return -ENOMEM;
	if (said && !(*ret = strv_join(said, "; ")))
		return -ENOMEM;
	return 0;
}
