/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the host says about a desired state beyond its driver's table. */

#include "desired-host.h"

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
int desired_check_iommu(const struct host_state *h, const struct pf_desired *d,
			struct diag_list *diags)
{
	_cleanup_free_ char *hint = NULL;

	if (h->iommu || d->kernel_arguments == KERNEL_ARGUMENTS_MANAGE)
		return 0;
	for (size_t i = 0; i < d->n_vfs; i++) {
		const struct vf_settings *v = &d->vfs[i];
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
