/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the firmware of a PF that no layout selects holds for the next reboot
 * because an apply of it set it (the raised VF limit, the link type), as its
 * status record carries it: the pending reboot reasons of status, metrics
 * and the daemon. */

#include "plan.h"
#include "report.h"
#include "status.h"

/* The firmware's reasons that rec carries, with the time of the apply that
 * set them, "firmware VF limit raised to 16, waiting for a reboot (set by
 * the apply of 2026-12-07T12:09:56Z; no layout asks for it now)"; those it
 * does not carry (another port's raise of the card) go. */
static int firmware_set_when(char **reasons, const struct pf_status *rec, const struct pf_state *pf,
			     char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	char when[FORMAT_RFC3339_MAX];

	if (!l)
		return -ENOMEM;
	for (char **p = reasons; *p; p++) {
		usec_t t = 0;

		if (startswith(*p, "firmware VF limit"))
			t = rec->firmware.set;
		else if (startswith(*p, "link type") && pf_status_link_pending(rec, pf))
			t = rec->firmware.link_set;
		if (t &&
		    strv_consume(&l, strdup_printf("%s (set by the apply of %s; no layout asks "
						   "for it now)",
						   *p, format_rfc3339(when, t))) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

int report_unselected_reboot_reasons(const struct pf_status *rec, const struct pf_state *pf,
				     char ***ret)
{
	_cleanup_strv_free_ char **host = NULL;

	*ret = NULL;
	if (!rec || !pf_status_firmware_pending(rec, pf))
		return 0;
	if (plan_host_reboot_reasons(pf, &host) < 0 || firmware_set_when(host, rec, pf, ret) < 0)
		return -ENOMEM;
	return 0;
}
