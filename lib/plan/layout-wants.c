/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>

#include "desired.h"
#include "key-settings.h"
#include "layout-wants.h"

char *layout_wants(const struct layout_set *set, const struct host_state *hs,
		   const struct pf_state *pf)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	_cleanup_(key_settings_done) struct key_settings ks = {};
	struct diag_list ignored = {};
	_cleanup_free_ char *s = NULL;
	int r;

	r = desired_build(set, hs, pf, &ignored, &d);
	diag_list_done(&ignored);
	if (r >= 0)
		r = key_settings_build(pf, d, &ks);
	if (r < 0)
		return NULL;
	if (!d)
		return strdup("none");
	s = strdup_printf("%s %u %d %d|", d->held ? "held" : "selected", d->num_vfs,
			  (int)d->rdma_netns, (int)d->kernel_arguments);
	for (size_t i = 0; s && i < ks.n_pf + ks.n_vfs; i++) {
		const struct key_setting *k = i < ks.n_pf ? &ks.pf[i] : &ks.vfs[i - ks.n_pf];
		char *more = strdup_printf("%s%u %s=%s\n", s, k->vf, k->key, k->wanted);

		free(s);
		s = more;
	}
	return TAKE_PTR(s);
}

char *layout_wants_signature(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		h ^= *c;
		h *= UINT64_C(1099511628211);
	}
	return strdup_printf("%016" PRIx64, h);
}
