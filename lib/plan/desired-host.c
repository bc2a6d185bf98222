/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the host says about a desired state beyond its driver's table. */

#include "desired-host.h"
#include "suggest.h"

/* What turns the IOMMU on: the kernel arguments the command line lacks,
 * else the firmware setup. */
static char *iommu_hint(const struct host_state *h)
{
	_cleanup_free_ char *args = NULL;

	if (!h->has_cpu_vendor)
		return strdup("add intel_iommu=on (or amd_iommu=on) iommu=pt to the kernel command "
			      "line and reboot, or set [Reboot] KernelArguments=manage");
	if (iommu_args_missing(h, &args) < 0)
		return NULL;
	if (args)
		return strdup_printf("add %s to the kernel command line and reboot, or set "
				     "[Reboot] KernelArguments=manage",
				     args);
	return strdup("turn the IOMMU on in the firmware setup (VT-d, AMD-Vi) and reboot");
}

/* Driver=vfio-pci while the IOMMU is off: apply leaves the VFs on the
 * driver they have and ends degraded (plan's "cannot:"). Not with
 * KernelArguments=manage: plan adds the arguments, and a reboot is pending. */
int desired_check_iommu(const struct host_state *h, const struct vf_settings *vfs, size_t n_vfs,
			enum kernel_arguments kernel_arguments, struct diag_list *diags)
{
	_cleanup_free_ char *hint = NULL;

	if (h->iommu || kernel_arguments == KERNEL_ARGUMENTS_MANAGE)
		return 0;
	for (size_t i = 0; i < n_vfs; i++) {
		const struct vf_settings *v = &vfs[i];
		const struct src *at = &v->src[VF_KEY_DRIVER];
		int r;

		if (!vf_settings_has(v, VF_KEY_DRIVER) || !vf_driver_needs_iommu(v->attrs.driver))
			continue;
		if (!hint && !(hint = iommu_hint(h)))
			return -ENOMEM;
		r = diag_add(diags, DIAG_WARNING, at->file, at->line,
			     "Driver=%s: the IOMMU is off on this host, so the VFs keep their "
			     "driver and the PF ends degraded: %s",
			     v->attrs.driver, hint);
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
	uint32_t max = driver_max_mtu(drv, infiniband);
	int r;

	if (mtu >= drv->min_mtu && mtu <= max)
		return 0;
	if (infiniband && max < drv->max_mtu)
		r = rules_error(out, at->file, at->line,
				"MTUBytes=%u: IPoIB on an InfiniBand port allows %u..%u (datagram "
				"mode: the 4096-byte IB MTU less the 4-byte IPoIB header)",
				mtu, drv->min_mtu, max);
	else
		r = rules_error(out, at->file, at->line, "MTUBytes=%u: the %s driver allows %u..%u",
				mtu, drv_name, drv->min_mtu, max);
	return r < 0 ? r : 1;
}

int desired_host_warnings(const struct pf_state *pf, const struct driver_info *drv,
			  const struct pf_settings *s, const struct vf_settings *vfs, size_t n_vfs,
			  struct diag_list *diags)
{
	if (!drv->vf_mac_needs_pf_up || pf->up ||
	    (pf_settings_has(s, PF_KEY_LINK_UP) && s->link_up))
		return 0;
	for (size_t i = 0; i < n_vfs; i++) {
		const struct src *at = &vfs[i].src[VF_KEY_MAC];

		if (vf_settings_has(&vfs[i], VF_KEY_MAC))
			return diag_add(
				diags, DIAG_WARNING, at->file, at->line,
				"MACAddress=: the PF is down and no file sets LinkUp=yes: "
				"%s asks the PF for its MAC as it probes, and makes one up "
				"while the PF is down; set LinkUp=yes in [PhysicalFunction]",
				drv->vf_driver);
	}
	return 0;
}
