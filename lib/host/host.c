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

int host_run(struct host *h, const char *pf, const struct action *a, usec_t timeout)
{
	h->error[0] = '\0';
	return h->ops->run(h, pf, a, timeout);
}

void host_begin(struct host *h, int lock_fd)
{
	h->lock_fd = lock_fd;
	if (h->ops->hold)
		(void)h->ops->hold(h, true);
}

int host_end(struct host *h)
{
	int r = 0;

	if (h->ops->hold) {
		h->error[0] = '\0';
		r = h->ops->hold(h, false);
	}
	h->lock_fd = -EBADF;
	return r;
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
