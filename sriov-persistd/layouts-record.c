/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <syslog.h>

#include "apply.h"
#include "layout-wants.h"
#include "layouts-record.h"

/* The signature of what the layouts of m say of pf now; NULL on ENOMEM. */
static char *signature_now(const struct manager *m, const struct pf_state *pf)
{
	_cleanup_free_ char *wants = layout_wants(m->set, m->hs, pf);

	return wants ? layout_wants_signature(wants) : NULL;
}

bool layouts_record_changed(const struct manager *m, const struct pf_state *pf,
			    const struct pf_status *rec)
{
	_cleanup_free_ char *sig = NULL;

	if (!rec->layouts)
		return false;
	sig = signature_now(m, pf);
	return sig && !streq(sig, rec->layouts);
}

void layouts_record_at_rest(struct manager *m, const struct pf_state *pf)
{
	_cleanup_free_ char *sig = NULL;
	_cleanup_close_ int lock = -EBADF;
	struct pf_status st;
	int r;

	if (pf_status_read(m->runtime_dir, pf->pci, &st) < 0)
		return;
	if (st.state == PF_STATUS_APPLIED && layouts_record_changed(m, pf, &st))
		sig = signature_now(m, pf);
	pf_status_done(&st);
	if (!sig || (lock = pf_lock(m->runtime_dir, pf->pci, 0)) < 0)
		return;
	if (pf_status_read(m->runtime_dir, pf->pci, &st) < 0)
		return;
	if (st.state == PF_STATUS_APPLIED && st.layouts && !streq(sig, st.layouts)) {
		free(st.layouts);
		st.layouts = TAKE_PTR(sig);
		r = pf_status_write(m->runtime_dir, &st);
		if (r < 0)
			log_pf(LOG_WARNING, pf->pci, "%s: writing its status record failed: %s",
			       pf->pci, strerror(-r));
	}
	pf_status_done(&st);
}
