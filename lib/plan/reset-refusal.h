/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Why reset refuses a PF that a layout selects, naming the files: a PF
 * selected only by files that are refused (an error, a broken or missing
 * [Match]) is held by files that may mean it, not by a layout that does,
 * and the operator must fix or remove those. Pure. */

#include "layout-set.h"
#include "model.h"

/* "a layout selects it (conf.d/50-e810.conf): reset removes only what a
 * removed layout left; change or remove the layout instead", or when every
 * file that selects pf is refused "conf.d/50-e810.conf is refused and may
 * select it (conf.d/50-e810.conf:1: unknown section ...); fix or remove it
 * first". NULL when no file selects pf, or on ENOMEM (check
 * reset_refusal_only_refused() first to tell them apart; whether a file
 * selects pf, which reset then leaves alone, is layout_set_selects()).
 * Caller frees. */
char *reset_refusal(const struct layout_set *set, const struct host_state *host,
		    const struct pf_state *pf);
/* Whether files select pf and every one of them is refused. */
bool reset_refusal_only_refused(const struct layout_set *set, const struct host_state *host,
				const struct pf_state *pf) _pure_;
