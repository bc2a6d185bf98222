/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The pure core end to end: a random layout, parsed, merged into the
 * desired state of every PF of a fixture host with every driver of the
 * table (tests/fixtures/hosts/mixed.json, or $SRIOV_FUZZ_HOST), each also
 * as an InfiniBand port, planned and described. Whatever the layout says, the planner must neither crash
 * nor plan for a held PF, and every plan must describe itself. */

#include "fuzz-text.h"
#include "host-view.h"
#include "plan.h"
#include "snapshot.h"

static struct host_state *fixture(void)
{
	static struct host_state *host;
	_cleanup_free_ char *text = NULL, *error = NULL;
	const char *path = getenv("SRIOV_FUZZ_HOST") ?: "tests/fixtures/hosts/mixed.json";

	if (host)
		return host;
	if (read_file(path, &text) < 0 || snapshot_parse(text, &host, &error) < 0) {
		fprintf(stderr, "fuzz-plan: %s: %s\n", path, strna(error));
		abort(); /* a target without its host would test nothing */
	}
	return host;
}

static void plan_pf(const struct layout_set *set, const struct host_state *host,
		    const struct pf_state *pf)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	struct diag_list diags = {};

	if (desired_build(set, host, pf, &diags, &d) >= 0 && d && !d->held &&
	    plan_build(d, pf, host, &p) >= 0)
		for (size_t i = 0; i < p->n_actions; i++) {
			free(action_describe(&p->actions[i]));
			free(action_describe_drift(&p->actions[i], pf));
		}
	if (d && d->held && !d->held_reason)
		abort(); /* a held PF says why */
	diag_list_done(&diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size);
	struct host_state *host = fixture();
	struct layout_set set = {};
	struct layout_file *f = NULL;

	if (!text || layout_parse_string("fuzz.conf", text, &set.diags, &f) < 0)
		return 0;
	set.files = &f;
	set.n_files = 1;
	for (size_t i = 0; i < host->n_pfs; i++) {
		/* and each port as an InfiniBand one, where IPoIB sets other keys */
		struct pf_state ib = host->pfs[i];

		ib.link_type = LINK_TYPE_INFINIBAND;
		plan_pf(&set, host, &host->pfs[i]);
		plan_pf(&set, host, &ib);
	}
	layout_file_free(f);
	diag_list_done(&set.diags);
	return 0;
}
