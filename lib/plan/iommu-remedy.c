/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "iommu-remedy.h"
#include "strv.h"

#define NO_LOADER_WHY                                                              \
	"found no boot loader tool to add them with (grubby; kernel-install with " \
	"/etc/kernel/cmdline; update-grub with /etc/default/grub and /boot/grub/grub.cfg)"
/* --root with --host: the tool is the one the snapshot names, never looked for */
#define NO_SNAPSHOT_LOADER_WHY                                                                 \
	"has no boot loader tool to add them with: the snapshot names none (\"boot_loader\": " \
	"grubby, kernel-install or grub; --root reads the files of the tool it names)"

/* Where the boot loader's configuration turns off what a word of args
 * turns on, for the words it does not end up giving the next boot: also
 * those sriovctl added, whose reboot is pending (someone may have put an
 * "off" in after them). An "off" that a later "on" overrules is not one. */
static int manage_contradicted(const struct host_state *h, const char *args, char **ret)
{
	_cleanup_strv_free_ char **words = NULL, **left = NULL;
	_cleanup_free_ char *s = NULL;

	*ret = NULL;
	if (!args)
		return 0;
	if (strv_split(args, &words) < 0)
		return -ENOMEM;
	for (char **w = words; *w; w++)
		if (!kernel_args_all_configured(h, *w) && strv_extend(&left, *w) < 0)
			return -ENOMEM;
	if (left && !(s = strv_join(left, " ")))
		return -ENOMEM;
	return kernel_args_contradicted(h, s, ret);
}

/* Whether KernelArguments=manage turns the IOMMU on here: the CPU's vendor
 * says which arguments, the command line lacks them, and a boot loader tool
 * is found to add them with, whose configuration could be read (or they
 * were added already, or the configuration has them), and nothing in that
 * configuration turns them off again. -ENOMEM. */
static int iommu_manage_acts(const struct host_state *h)
{
	_cleanup_free_ char *args = NULL, *unset = NULL, *against = NULL;
	int r;

	r = iommu_args_missing(h, &args);
	if (r < 0 || !args)
		return r;
	r = kernel_args_unset(h, args, &unset);
	if (r >= 0)
		r = manage_contradicted(h, args, &against);
	if (r < 0)
		return r;
	if (against)
		return 0;
	return !unset || (h->boot_loader != BOOT_LOADER_NONE && !h->boot_config_error);
}

/* Why KernelArguments=manage, which does not act (iommu_manage_acts()),
 * cannot add the arguments: the CPU's vendor is not known, or no boot
 * loader tool is found. NULL in *ret when only the firmware setup can help
 * (the remedy says so). */
static int manage_why_not(const struct host_state *h, char **ret)
{
	_cleanup_free_ char *args = NULL, *against = NULL;
	bool no_loader = h->boot_loader == BOOT_LOADER_NONE;
	const char *no_loader_why = h->boot_loader_from_snapshot ? NO_SNAPSHOT_LOADER_WHY :
								   NO_LOADER_WHY;
	int r;

	*ret = NULL; /* with the vendor known, what it lacks is the tool */
	if (!h->has_cpu_vendor)
		*ret = strdup_printf("KernelArguments=manage cannot tell which of them this CPU "
				     "takes%s%s",
				     no_loader ? ", and " : "", no_loader ? no_loader_why : "");
	else if ((r = iommu_args_missing(h, &args)) < 0 ||
		 (r = manage_contradicted(h, args, &against)) < 0)
		return r;
	else if (args && !no_loader && h->boot_config_error)
		*ret = strdup_printf("KernelArguments=manage leaves the boot loader's "
				     "configuration as it is: %s",
				     h->boot_config_error);
	else if (args && !no_loader && against)
		*ret = strdup_printf("KernelArguments=manage leaves the boot loader's "
				     "configuration as it is: %s; remove it, and the IOMMU is on "
				     "after the next apply and a reboot",
				     against);
	else if (args)
		*ret = strdup_printf("KernelArguments=manage %s", no_loader_why);
	else
		return 0;
	return *ret ? 0 : -ENOMEM;
}

/* The arguments to add by hand, or the firmware setting. */
static char *remedy_by_vendor(const struct host_state *h)
{
	_cleanup_free_ char *args = NULL;
	bool amd = h->cpu_vendor == CPU_VENDOR_AMD;
	const char *arg = amd ? "amd_iommu=on" : "intel_iommu=on";

	if (h->has_cpu_vendor && h->cpu_vendor == CPU_VENDOR_ARM)
		return strdup("the IOMMU of an arm64 host is its SMMU, which the kernel uses "
			      "whenever the firmware describes it (no kernel argument turns it "
			      "on): turn on the SMMU in the firmware setup and reboot");
	if (!h->has_cpu_vendor)
		return strdup(
			"the CPU's vendor is not known: add intel_iommu=on iommu=pt (Intel) "
			"or amd_iommu=on iommu=pt (AMD) to the kernel command line and reboot");
	if (kernel_cmdline_has(h->kernel_cmdline, arg))
		return strdup_printf("the kernel command line has %s: turn on %s in the firmware "
				     "setup and reboot",
				     arg, amd ? "the IOMMU (AMD-Vi)" : "VT-d");
	if (iommu_args_missing(h, &args) < 0 || !args)
		return NULL;
	return strdup_printf("add %s to the kernel command line and reboot", args);
}

int iommu_remedy(const struct host_state *h, enum kernel_arguments kernel_arguments, char **ret)
{
	_cleanup_free_ char *remedy = NULL, *why = NULL;
	bool manage = kernel_arguments == KERNEL_ARGUMENTS_MANAGE;
	int acts, r;

	*ret = NULL;
	acts = iommu_manage_acts(h);
	if (acts < 0 || (manage && acts))
		return acts < 0 ? acts : 0;
	if (manage && (r = manage_why_not(h, &why)) < 0)
		return r;
	remedy = remedy_by_vendor(h);
	if (!remedy)
		return -ENOMEM;
	if (why)
		*ret = strdup_printf("%s; %s", remedy, why);
	else if (!manage && acts)
		*ret = strdup_printf("%s, or set [Reboot] KernelArguments=manage", remedy);
	else
		*ret = TAKE_PTR(remedy);
	return *ret ? 0 : -ENOMEM;
}
