/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* VFs that want vfio-pci on a host whose IOMMU is off: noted as the VF
 * steps meet them, then step 9 (KernelArguments=manage: the IOMMU kernel
 * arguments added, a reboot) or an unmet need that says what to do, by the
 * CPU's vendor. */

#include "plan-internal.h"

/* VFs that want vfio-pci on a host without IOMMU, as ranges: "0-3, 5". */
int plan_note_no_iommu(struct plan_ctx *c, uint32_t i)
{
	char *s;

	c->no_iommu_count++;
	if (c->no_iommu && c->no_iommu_last + 1 == i) {
		c->no_iommu_last = i;
		c->no_iommu_open = true;
		return 0;
	}
	if (!c->no_iommu)
		s = strdup_printf("%u", i);
	else if (c->no_iommu_open)
		s = strdup_printf("%s-%u, %u", c->no_iommu, c->no_iommu_last, i);
	else
		s = strdup_printf("%s, %u", c->no_iommu, i);
	if (!s)
		return -ENOMEM;
	free(c->no_iommu);
	c->no_iommu = s;
	c->no_iommu_last = i;
	c->no_iommu_open = false;
	return 0;
}

/* What to do about an IOMMU that is off, by the CPU's vendor: the kernel
 * arguments to add, or, where they are there already, the firmware
 * setting that keeps it off. */
static char *iommu_remedy(const struct host_state *h)
{
	const char *arg, *firmware;

	if (!h->has_cpu_vendor)
		return strdup("add intel_iommu=on (or amd_iommu=on) iommu=pt to the kernel command "
			      "line and reboot");
	arg = h->cpu_vendor == CPU_VENDOR_AMD ? "amd_iommu=on" : "intel_iommu=on";
	firmware = h->cpu_vendor == CPU_VENDOR_AMD ? "the IOMMU (AMD-Vi)" : "VT-d";
	if (kernel_cmdline_has(h->kernel_cmdline, arg))
		return strdup_printf("the kernel command line has %s: turn on %s in the firmware "
				     "setup and reboot",
				     arg, firmware);
	return strdup_printf("add %s iommu=pt to the kernel command line and reboot", arg);
}

/* [Reboot] KernelArguments=manage: add the IOMMU arguments through the boot
 * loader's tool, and wait for a reboot. 1 when planned so (or added
 * already), 0 when the arguments cannot help or cannot be added: *ret_why
 * then says why, when there is more to say than the remedy. */
static int plan_kernel_arguments(struct plan_ctx *c, const char *vfs, char **ret_why)
{
	_cleanup_free_ char *args = NULL;
	bool many = c->no_iommu_count > 1;
	int r;

	*ret_why = NULL;
	r = iommu_args_missing(c->host, &args);
	if (r < 0 || !args)
		return r;
	if (kernel_args_all_added(c->host, args))
		return plan_add_reason(c->p,
				  strdup_printf("kernel arguments %s were added to the boot loader: "
						"the IOMMU that VF%s %s want%s for vfio-pci is on "
						"after a reboot",
						args, many ? "s" : "", vfs, many ? "" : "s")) ?:
		       1;
	if (c->host->boot_loader == BOOT_LOADER_NONE) {
		*ret_why = strdup(KERNEL_ARGS_NO_LOADER_WHY);
		return *ret_why ? 0 : -ENOMEM;
	}
	r = plan_add_value(c->p, ACTION_SET_KERNEL_ARGUMENTS, false, 1);
	if (r < 0)
		return r;
	c->p->actions[c->p->n_actions - 1].needs_reboot = true;
	c->p->actions[c->p->n_actions - 1].str = strdup(args);
	if (!c->p->actions[c->p->n_actions - 1].str)
		return -ENOMEM;
	return plan_add_reason(c->p, strdup_printf("kernel arguments %s take effect after a reboot: "
					      "VF%s %s want%s vfio-pci, which needs the IOMMU",
					      args, many ? "s" : "", vfs, many ? "" : "s")) ?:
	       1;
}

/* VFs that want vfio-pci without an IOMMU: with KernelArguments=manage the
 * arguments are added and a reboot is pending; otherwise (or when that
 * cannot help) an unmet need that says what to do. */
int plan_add_no_iommu_reason(struct plan_ctx *c)
{
	_cleanup_free_ char *vfs = NULL, *remedy = NULL, *why = NULL;
	bool many = c->no_iommu_count > 1;
	int r;

	if (!c->no_iommu)
		return 0;
	vfs = c->no_iommu_open ? strdup_printf("%s-%u", c->no_iommu, c->no_iommu_last) :
				 strdup(c->no_iommu);
	if (!vfs)
		return -ENOMEM;
	if (c->d->kernel_arguments == KERNEL_ARGUMENTS_MANAGE) {
		r = plan_kernel_arguments(c, vfs, &why);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	remedy = iommu_remedy(c->host);
	if (!remedy)
		return -ENOMEM;
	return strv_consume(&c->p->unmet, strdup_printf("VF%s %s want%s vfio-pci but the IOMMU is "
							"off: %s%s%s",
							many ? "s" : "", vfs, many ? "" : "s",
							remedy, why ? "; " : "", strempty(why)));
}
