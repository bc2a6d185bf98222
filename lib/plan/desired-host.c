/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the host says about a desired state beyond its driver's table. */

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "desired-host.h"
#include "iommu-remedy.h"
#include "strv.h"
#include "suggest.h"

/* Driver=vfio-pci while the IOMMU is off: apply leaves the VFs pf has on
 * the driver they have, the VFs it creates on the kernel's VF driver, as
 * autoprobe binds them, and ends degraded (plan's "cannot:"). Not when
 * KernelArguments=manage adds the arguments: a reboot is pending then. */
int desired_check_iommu(const struct host_state *h, const struct pf_state *pf,
			const struct vf_settings *vfs, size_t n_vfs,
			enum kernel_arguments kernel_arguments, struct diag_list *diags)
{
	const struct driver_info *drv = driver_info_get(pf->driver);
	const char *vf_driver = pf->vf_driver ?: drv ? drv->vf_driver : NULL;
	_cleanup_free_ char *hint = NULL;
	int r;

	if (h->iommu)
		return 0;
	r = iommu_remedy(h, kernel_arguments, &hint);
	if (r < 0 || !hint)
		return r;
	for (size_t i = 0; i < n_vfs; i++) {
		const struct vf_settings *v = &vfs[i];
		const struct src *at = &v->src[VF_KEY_DRIVER];

		if (!vf_settings_has(v, VF_KEY_DRIVER) || !vf_driver_needs_iommu(v->attrs.driver))
			continue;
		r = diag_add(diags, DIAG_WARNING, at->file, at->line,
			     "Driver=%s: the IOMMU is off on this host, so no VF is bound to it: "
			     "the VFs the PF has keep their driver, those the apply creates stay "
			     "as the kernel makes them (on %s%s where VF autoprobe is on), and the "
			     "PF ends degraded: %s",
			     v->attrs.driver, vf_driver ?: "the kernel's VF driver",
			     vf_driver ? ", the kernel's VF driver," : "", hint);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Findable, or loaded already (as modprobe, which then has nothing to do). */
static bool module_findable(const struct host_state *h, const char *name)
{
	for (const char *const *m = h->findable_modules; *m; m++)
		if (module_name_equal(*m, name))
			return true;
	for (char **m = h->modules; *m; m++)
		if (module_name_equal(*m, name))
			return true;
	return false;
}

/* The findable module nearest to name, each spelling of one module ('-'
 * or '_') counted once, as "; did you mean 'iavf'?" in buf. */
static char *module_hint(const struct host_state *h, const char *name, char *buf, size_t size)
{
	struct suggest sg = suggest_init(name);

	for (const char *const *m = h->findable_modules; *m; m++) {
		bool seen = false;

		for (const char *const *o = h->findable_modules; o < m; o++)
			seen = seen || module_name_equal(*o, *m);
		if (!seen)
			suggest_consider(&sg, *m);
	}
	return suggest_hint(&sg, buf, size);
}

int desired_check_vf_module(struct rules_out *out, const struct host_state *h,
			    const struct vf_settings *v)
{
	const struct src *at = &v->src[VF_KEY_DRIVER];
	char hint[128];

	if (!h->findable_modules || !vf_settings_has(v, VF_KEY_DRIVER) || !v->attrs.driver ||
	    module_findable(h, v->attrs.driver))
		return 0;
	return rules_error(out, at->file, at->line,
			   "Driver=%s: no module of that name on this host%s", v->attrs.driver,
			   module_hint(h, v->attrs.driver, hint, sizeof(hint)));
}

int desired_check_mtu(struct rules_out *out, const struct driver_info *drv, const char *drv_name,
		      bool infiniband, const struct src *at, uint32_t mtu)
{
	/* what a layout can use: none below the layout's least */
	uint32_t min = drv->min_mtu > LAYOUT_MTU_MIN ? drv->min_mtu : LAYOUT_MTU_MIN;
	uint32_t max = driver_max_mtu(drv, infiniband);
	int r;

	if (mtu >= drv->min_mtu && mtu <= max)
		return 0;
	if (infiniband && max < drv->max_mtu)
		r = rules_error(out, at->file, at->line,
				"MTUBytes=%u: IPoIB on an InfiniBand port allows %u..%u (datagram "
				"mode: the 4096-byte IB MTU less the 4-byte IPoIB header)",
				mtu, min, max);
	else
		r = rules_error(out, at->file, at->line, "MTUBytes=%u: the %s driver allows %u..%u",
				mtu, drv_name, min, max);
	return r < 0 ? r : 1;
}

int desired_host_warnings(const struct pf_state *pf, const struct driver_info *drv,
			  const struct pf_settings *s, const struct vf_settings *vfs, size_t n_vfs,
			  const uint32_t *was_stable, struct diag_list *diags)
{
	char val[VF_ATTR_STR_MAX];

	if (!drv->vf_mac_needs_pf_up || pf->up ||
	    (pf_settings_has(s, PF_KEY_LINK_UP) && s->link_up))
		return 0;
	for (size_t i = 0; i < n_vfs; i++) {
		const struct src *at = &vfs[i].src[VF_KEY_MAC];

		if (!vf_settings_has(&vfs[i], VF_KEY_MAC))
			continue;
		if (was_stable && (was_stable[i] & (1u << VF_KEY_MAC)))
			snprintf(val, sizeof(val), "stable");
		else
			vf_attrs_format(&vfs[i].attrs, VF_KEY_MAC, VF_SPELLING_LAYOUT, val);
		return diag_add(diags, DIAG_WARNING, at->file, at->line,
				"MACAddress=%s: PF %s (%s) is down and no file sets LinkUp=yes: "
				"%s asks the PF for its MAC as it probes, and makes one up "
				"while the PF is down; set LinkUp=yes in [PhysicalFunction]",
				val, pf->pci, strna(pf->name), drv->vf_driver);
	}
	return 0;
}

/* The [Match] key index of Name=. */
static size_t match_name_key(void)
{
	size_t i = 0;

	while (strcmp(layout_match_key_name(i), "Name") != 0)
		i++;
	return i;
}

/* An error at the Name= line of f, whose PF's interface LinkType= renames. */
static int error_name_renamed(struct rules_out *out, const struct layout_file *f,
			      const struct pf_state *pf, enum link_type to)
{
	_cleanup_free_ char *globs = strv_join(f->match.name, " ");

	if (!globs)
		return -ENOMEM;
	if (to == LINK_TYPE_INFINIBAND)
		return rules_error(
			out, f->path, f->match.key_line[match_name_key()],
			"Name=%s: LinkType=infiniband renames the interface of %s at "
			"the reboot it needs (the kernel names an InfiniBand port anew), "
			"so this file would select no PF after it; match by "
			"PCIAddress=%s instead",
			globs, pf->pci, pf->pci);
	/* unlike the IPoIB name (ipoib_name()), the Ethernet name depends on
	 * what udev finds then: a slot or onboard index, whether the device
	 * is multi-function, the port's name (ens2f0np0, enp26s0np0, eno1np0) */
	return rules_error(out, f->path, f->match.key_line[match_name_key()],
			   "Name=%s: LinkType=ethernet renames the interface %s of %s at the "
			   "reboot it needs, to a name this host cannot know yet (udev names an "
			   "Ethernet port by its slot, onboard index or PCI path, as it finds them "
			   "then), so this file would select no PF after it; match by "
			   "PCIAddress=%s instead",
			   globs, strna(pf->name), pf->pci, pf->pci);
}

/* The IPoIB name the kernel and udev give the InfiniBand port at pci: "ib"
 * and the port's PCI path name ("ibp65s0f0" at 0000:41:00.0, "ibP1p65s0f0"
 * in domain 1); false when pci is no PCI address. */
static bool ipoib_name(const char *pci, char *buf, size_t size)
{
	unsigned domain, bus, slot, func;
	char domain_part[16] = "";

	if (sscanf(pci, "%x:%x:%x.%x", &domain, &bus, &slot, &func) != 4)
		return false;
	if (domain > 0)
		snprintf(domain_part, sizeof(domain_part), "P%u", domain);
	snprintf(buf, size, "ib%sp%us%uf%u", domain_part, bus, slot, func);
	return true;
}

/* Whether pf's interface is renamed at the reboot that a change of its
 * link type to `to` needs: drv changes it in the firmware, and the port is
 * another type now. */
static bool renames(const struct pf_state *pf, const struct driver_info *drv, enum link_type to)
{
	return drv && drv->firmware_link_type && pf->has_firmware_link_type && to != pf->link_type;
}

bool desired_names_renamed(const char *glob, const struct pf_state *pf,
			   const struct driver_info *drv, enum link_type to)
{
	char after[64];

	return renames(pf, drv, to) && to == LINK_TYPE_INFINIBAND &&
	       ipoib_name(pf->pci, after, sizeof(after)) && fnmatch(glob, after, 0) == 0;
}

/* Whether a glob of Name= (names) selects the port under the name it gets
 * at the reboot into link type to. */
static bool names_the_renamed(char *const *names, const struct pf_state *pf,
			      const struct driver_info *drv, enum link_type to)
{
	for (char *const *g = names; *g; g++)
		if (desired_names_renamed(*g, pf, drv, to))
			return true;
	return false;
}

int desired_check_renamed(struct rules_out *out, const struct pf_state *pf,
			  const struct driver_info *drv, const struct pf_settings *s,
			  const struct layout_file *const *files, size_t n_files)
{
	if (!pf_settings_has(s, PF_KEY_LINK_TYPE) || !renames(pf, drv, s->link_type))
		return 0;
	for (size_t i = 0; i < n_files; i++) {
		int r = 0;

		if (files[i]->match.name && files[i]->match.name[0] &&
		    !names_the_renamed(files[i]->match.name, pf, drv, s->link_type))
			r = error_name_renamed(out, files[i], pf, s->link_type);
		if (r < 0)
			return r;
	}
	return 0;
}
