/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Reading a PF again under its lock, before its plan and after it: the read
 * back must plan to nothing, or the apply failed. */

#include "apply-internal.h"

/* Whether a layout sets what desired_build() compares across the PFs
 * read: a literal MAC address or GUID, which must not be on a VF of
 * another PF too, or a ResourceName=, whose VFs on every PF must be of
 * one kind (with a network interface or without). */
static bool set_is_host_wide(const struct layout_set *set)
{
	for (size_t i = 0; i < set->n_files; i++)
		for (size_t j = 0; set->files[i] && j < set->files[i]->n_vf_sections; j++) {
			const struct vf_settings *v = &set->files[i]->vf_sections[j].settings;

			if (vf_settings_has(v, VF_KEY_RESOURCE_NAME))
				return true;
			for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
				if (vf_key_is_unique(k) && vf_settings_has(v, k) &&
				    !vf_settings_is_stable(v, k))
					return true;
		}
	return false;
}

/* Reads the PF at pci again: only it, unless a layout sets what the other
 * PFs are compared with (set_is_host_wide()), or says
 * FirmwareVirtualFunctions=no, which holds the other ports of its card. */
int apply_read_pf(struct pf_run *run, const char *pci, struct host_state **ret_hs,
		  const struct pf_state **ret_pf)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	struct pf_state *pf;
	int r;

	r = set_is_host_wide(run->set) || desired_reads_card(run->set) ?
		    host_read(run->host, &hs) :
		    host_read_pf(run->host, pci, &hs);
	if (r < 0)
		return r;
	pf = host_state_find_pf(hs, pci);
	if (!pf)
		return -ENODEV;
	r = pf_created_mark(run->opts->state_dir, pf);
	if (r < 0)
		return r;
	*ret_pf = pf;
	*ret_hs = TAKE_PTR(hs);
	return 0;
}

/* How long a read back looks again for RDMA devices that come after their
 * driver (RDMA=yes), within the apply's own time-out. */
#define RDMA_WAIT (10 * USEC_PER_SEC)
#define RDMA_POLL (200 * USEC_PER_MSEC)

/* After executing, the host must be in the desired state d: read the PF
 * back and plan again. *ret_back: the plan of the read back; what it still
 * has to do the driver did not report, and its unmet needs (an RDMA device
 * that never came) are the PF's. */
int apply_verify(struct pf_run *run, const char *pci, const struct pf_desired *d,
		 struct plan **ret_back)
{
	usec_t until = now_monotonic() + RDMA_WAIT;
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	const struct pf_state *pf;
	int r;

	if (until > run->deadline)
		until = run->deadline;
	for (;;) {
		r = apply_read_pf(run, pci, &hs, &pf);
		if (r >= 0)
			r = plan_build(d, pf, hs, &p);
		if (r < 0 || p->n_actions > 0 || p->n_no_rdma == 0 || !run->host->rdma_async ||
		    now_monotonic() >= until)
			break;
		usleep((useconds_t)RDMA_POLL);
		hs = host_state_free(hs);
		p = plan_free(p);
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return apply_set_outcome(run->res, PF_STATUS_FAILED,
					 strdup_printf("reading back failed: %s", strerror(-r)));
	run->res->status.num_vfs = pf->num_vfs;
	host_state_free(run->res->read_back);
	run->res->read_back = TAKE_PTR(hs);
	*ret_back = TAKE_PTR(p);
	return 0;
}

int apply_differs(struct pf_run *run, const struct plan *back)
{
	_cleanup_free_ char *what = action_describe(&back->actions[0]);

	return apply_set_outcome(
		run->res, PF_STATUS_FAILED,
		strdup_printf(
			"read back differs from the layout: %zu action(s) still needed, first: %s",
			back->n_actions, strna(what)));
}
