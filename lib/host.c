/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdarg.h>
#include <strings.h>

#include "host.h"

int host_read(struct host *h, struct host_state **ret)
{
	h->error[0] = '\0';
	return h->ops->read(h, ret);
}

int host_read_pf(struct host *h, const char *pci, struct host_state **ret)
{
	h->error[0] = '\0';
	return h->ops->read_pf(h, pci, ret);
}

struct host *host_free(struct host *h)
{
	if (h)
		h->ops->free(h);
	return NULL;
}

void host_set_error(struct host *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->error, sizeof(h->error), fmt, ap);
	va_end(ap);
}

const struct pf_state *host_state_lookup_pf(const struct host_state *hs, const char *what)
{
	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *pf = &hs->pfs[i];

		/* PCI addresses without case, as [Match] compares them */
		if (strcasecmp(pf->pci, what) == 0 || streq_ptr(pf->name, what) ||
		    strv_contains(pf->altnames, what))
			return pf;
	}
	return NULL;
}
