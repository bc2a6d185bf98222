/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "snapshot.h"
#include "sriovctl.h"

int verb_snapshot(struct ctl *c)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_host_ struct host *h = NULL;
	_cleanup_free_ char *text = NULL;
	int r;

	if (ctl_open_host(c, &h) < 0)
		return EXIT_FAIL;
	r = host_read(h, &hs);
	if (r < 0) {
		fprintf(stderr, "Reading the host failed: %s%s%s\n", strerror(-r),
			h->error[0] ? ": " : "", h->error);
		return EXIT_FAIL;
	}
	/* The machine ID is confidential (machine-id(5)): a snapshot of the real
	 * host goes into bug reports, so it is left out; so is the boot ID,
	 * which would make two snapshots of one machine differ for nothing. */
	if (!c->host_path) {
		hs->has_machine_id = false;
		hs->boot_id[0] = '\0';
	}
	r = snapshot_format(hs, &text);
	if (r < 0) {
		fprintf(stderr, "Formatting the snapshot failed: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	fputs(text, stdout);
	return EXIT_OK;
}

int verb_list_pfs(struct ctl *c)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_host_ struct host *h = NULL;

	if (ctl_open_host(c, &h) < 0)
		return EXIT_FAIL;
	if (host_read(h, &hs) < 0)
		return EXIT_FAIL;
	for (size_t i = 0; i < hs->n_pfs; i++) {
		printf("%s\n", hs->pfs[i].pci);
		if (hs->pfs[i].name)
			printf("%s\n", hs->pfs[i].name);
	}
	return EXIT_OK;
}
