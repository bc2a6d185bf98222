/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Kernel arguments on the real host. The units that apply layouts may not
 * write /boot or /etc (ProtectSystem=strict), nor see the disks that
 * update-grub probes (PrivateDevices=yes): the change runs in a unit of its
 * own, sriov-persist-kernel-arguments@.service, started through systemctl
 * (an argument vector, bounded like any tool), which does it with
 * boot-loader.c and writes the record read back here. */

#include "boot-loader.h"
#include "host-linux-internal.h"
#include "run-tool.h"

#define SYSTEMCTL "/usr/bin/systemctl"
/* the unit's own TimeoutStartSec=, and a little more */
#define UNIT_TIMEOUT (330 * USEC_PER_SEC)

int hl_read_boot_loader(struct host_linux *hl, struct host_state *s)
{
	enum boot_loader recorded;
	int r;

	s->boot_loader = boot_loader_detect(hl->root);
	r = kernel_args_record_read(hl->root, &recorded, &s->kernel_args_added);
	if (r == -ENOMEM)
		return r;
	r = boot_loader_cmdlines(hl->root, s->boot_loader, &s->boot_cmdlines, &s->boot_iommu_off,
				 &s->boot_config_error);
	return r == -ENOMEM ? r : 0;
}

int hl_set_kernel_arguments(struct host_linux *hl, bool add, const char *args)
{
	_cleanup_strv_free_ char **want = NULL, **added = NULL;
	_cleanup_free_ char *unit =
		strdup_printf("sriov-persist-kernel-arguments@%s.service", add ? "add" : "remove");
	char *argv[] = { SYSTEMCTL, "--no-ask-password", "start", unit, NULL };
	enum boot_loader bl;
	struct tool_run t = {};
	int r;

	if (!unit || strv_split(args ?: "", &want) < 0)
		return -ENOMEM;
	r = tool_run(argv, UNIT_TIMEOUT, 64u << 10, &t);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || t.exit_status != 0) {
		if (r < 0)
			host_set_error(&hl->host, "%s start %s: %s", SYSTEMCTL, unit, strerror(-r));
		else
			host_set_error(&hl->host, "%s failed: journalctl -u %s says why", unit,
				       unit);
		tool_run_done(&t);
		return r < 0 ? r : -EIO;
	}
	tool_run_done(&t);
	/* read back: the record is what the unit did */
	r = kernel_args_record_read("", &bl, &added);
	if (r == -ENOMEM)
		return r;
	for (char **w = want; *w; w++)
		if (strv_contains(r >= 0 ? added : NULL, *w) != add) {
			host_set_error(&hl->host, "%s finished, but %s says %s is %s", unit,
				       KERNEL_ARGS_RECORD, *w, add ? "not added" : "still added");
			return -EIO;
		}
	return 0;
}
