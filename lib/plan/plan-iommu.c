/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* VFs that want vfio-pci on a host whose IOMMU is off: noted as the VF
 * steps meet them, then step 9 (KernelArguments=manage: the IOMMU kernel
 * arguments added, a reboot) or an unmet need that says what to do, by the
 * CPU's vendor. */

#include <assert.h>

#include "iommu-remedy.h"
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

/* [Reboot] KernelArguments=manage, which acts here (iommu_remedy() gave none):
 * the IOMMU arguments that the boot loader's configuration lacks added
 * through its tool, and a reboot is pending; or they were added already, or
 * the configuration has them, and the reboot is pending without an edit. */
static int plan_kernel_arguments(struct plan_ctx *c, const char *vfs)
{
	_cleanup_free_ char *args = NULL, *unset = NULL;
	bool many = c->no_iommu_count > 1;
	struct action *a;
	int r;

	r = iommu_args_missing(c->host, &args);
	if (r >= 0)
		r = kernel_args_unset(c->host, args, &unset);
	if (r < 0)
		return r;
	assert(args);
	if (!unset)
		return plan_add_reason(
			c->p, strdup_printf("kernel arguments %s %s: the IOMMU that VF%s %s "
					    "want%s for vfio-pci is on after a reboot",
					    args,
					    kernel_args_all_added(c->host, args) ?
						    "were added to the boot loader" :
						    "are in the boot loader's configuration",
					    many ? "s" : "", vfs, many ? "" : "s"));
	r = plan_add_value(c->p, ACTION_SET_KERNEL_ARGUMENTS, false, 1);
	if (r < 0)
		return r;
	a = &c->p->actions[c->p->n_actions - 1];
	a->needs_reboot = true;
	a->str = TAKE_PTR(unset);
	return plan_add_planned_reason(
		c->p, strdup_printf("kernel arguments %s take effect after a reboot: "
				    "VF%s %s want%s vfio-pci, which needs the IOMMU",
				    args, many ? "s" : "", vfs, many ? "" : "s"));
}

/* VFs that want vfio-pci without an IOMMU: with KernelArguments=manage, when
 * it acts, the arguments are added and a reboot is pending; otherwise an
 * unmet need that says what to do (iommu_remedy(), as check says it). */
int plan_add_no_iommu_reason(struct plan_ctx *c)
{
	_cleanup_free_ char *vfs = NULL, *remedy = NULL;
	bool many = c->no_iommu_count > 1;
	int r;

	if (!c->no_iommu)
		return 0;
	vfs = c->no_iommu_open ? strdup_printf("%s-%u", c->no_iommu, c->no_iommu_last) :
				 strdup(c->no_iommu);
	if (!vfs)
		return -ENOMEM;
	r = iommu_remedy(c->host, c->d->kernel_arguments, &remedy);
	if (r < 0)
		return r;
	if (!remedy)
		return plan_kernel_arguments(c, vfs);
	return strv_consume(&c->p->unmet,
			    strdup_printf("VF%s %s want%s vfio-pci but the IOMMU is "
					  "off: %s",
					  many ? "s" : "", vfs, many ? "" : "s", remedy));
}
