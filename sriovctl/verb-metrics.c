/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl metrics: the Prometheus text exposition format (metrics.h) of
 * the host, or of the PF named, from one read of the host and the records:
 * the view that status builds, its status document and the VFs' counters
 * of the same read. sriov-persistd, when it owns its name on the bus and
 * manages the host read here, adds what it counted (GetMetrics()); the host
 * is never read through it, as its documents carry no VF counters. Of a PF
 * the host read says drifted, that daemon is asked its state: one that came
 * back while it ran is pending there (daemon_pending()). */

#include <libgen.h>

#include "fileio.h"
#include "json-util.h"
#include "metrics.h"
#include "report.h"
#include "sriovctl.h"

static int print_output(const char *text)
{
	fputs(text, stdout);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
}

/* Through a temporary file in its directory renamed over it: node-exporter's
 * textfile collector never reads half a file. Readable by all, as the
 * collector runs as another user. */
static int write_output(const char *path, const char *text)
{
	_cleanup_free_ char *d = strdup(path), *b = strdup(path);
	int r;

	if (!d || !b) {
		fprintf(stderr, "Writing %s failed: %s\n", path, strerror(ENOMEM));
		return EXIT_FAIL;
	}
	r = write_file_atomic(dirname(d), basename(b), text, 0644);
	if (r < 0) {
		fprintf(stderr, "Writing %s failed: %s\n", path, strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Whether the daemon's document is of the host this run reads
 * (ctl_daemon_same_host()); says on stderr why not. */
static bool same_host(const struct ctl *c, struct json_object *doc)
{
	const char *theirs = json_object_get_string(doc_get(doc, "host"));

	if (ctl_daemon_same_host(c, doc))
		return true;
	fprintf(stderr, "sriov-persistd manages %s, not %s: its metrics are left out\n",
		theirs ?: "the host itself", c->host_path ?: "this host");
	return false;
}

/* The daemon's document; NULL when none runs or it did not answer (said on
 * stderr: its families are left out, and daemon_up is 0), or when it
 * manages another host than this run reads (ret_elsewhere: said on stderr,
 * and no daemon_up at all, as a daemon does run). With --root the files
 * are another node's: this machine's daemon is not asked, and nothing is
 * said of a daemon there (daemon_up 0 would claim that node has none). */
static struct json_object *ask_daemon(const struct ctl *c, bool *ret_elsewhere)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = c->root ? NULL : bus_client_open();
	_cleanup_json_ struct json_object *doc = NULL;

	*ret_elsewhere = !!c->root;
	if (bus && bus_client_metrics(bus, &doc) < 0)
		fprintf(stderr, "The metrics of sriov-persistd are left out\n");
	if (doc && !same_host(c, doc)) {
		*ret_elsewhere = true;
		return NULL;
	}
	return TAKE_PTR(doc);
}

/* Of each PF of doc (the status document) that the local view says
 * drifted, what sriov-persistd says of it when it says pending
 * (ctl_daemon_pf_state()): a PF that came back while the daemon ran, which
 * only the daemon knows (its apply unit applies it), as status through the
 * daemon and wait say it: its state and reason (LastError) put in doc.
 * Asked of a daemon that manages the host read here only, and of drifted
 * PFs only (2 s each at most). -ENOMEM. */
static int daemon_pending(struct json_object *doc)
{
	struct json_object *pfs = doc_get(doc, "pfs");

	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		const char *state = json_object_get_string(doc_get(pf, "state"));
		const char *pci = json_object_get_string(doc_get(pf, "pci"));
		_cleanup_free_ char *dstate = NULL, *derror = NULL;

		if (!pci || !streq_ptr(state, "drifted"))
			continue;
		if (ctl_daemon_pf_state(pci, &dstate, &derror) < 0)
			return -ENOMEM;
		if (!streq_ptr(dstate, "pending"))
			continue;
		if (json_put_str(pf, "state", "pending") < 0 ||
		    json_put_str(pf, "reason", derror && *derror ? derror : NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The PCI address of the PF asked for (the status document has it alone). */
static const char *only_pci(const struct ctl *c, struct json_object *doc)
{
	struct json_object *pfs = doc_get(doc, "pfs");

	if (c->n_args == 0 || json_object_array_length(pfs) != 1)
		return NULL;
	return json_object_get_string(doc_get(json_object_array_get_idx(pfs, 0), "pci"));
}

int verb_metrics(struct ctl *c)
{
	_cleanup_json_ struct json_object *daemon = NULL;
	_cleanup_json_ struct json_object *doc = NULL;
	_cleanup_free_ char *text = NULL;
	struct ctl_view cv;
	bool elsewhere = false;
	int r;

	c->vf_stats = true;
	if (ctl_host_view(c, &cv) < 0)
		return EXIT_FAIL;
	ctl_print_diags(&cv.set->diags);
	ctl_print_diags(&cv.v.diags);
	r = report_status_brief(&cv.v, c->runtime_dir, c->state_dir, c->n_args == 0, &doc);
	if (r >= 0)
		daemon = ask_daemon(c, &elsewhere);
	if (r >= 0 && daemon)
		r = daemon_pending(doc);
	if (r >= 0)
		r = metrics_format(&cv.v, doc, daemon, elsewhere, only_pci(c, doc), &text);
	ctl_view_done(&cv);
	if (r < 0) {
		fprintf(stderr, "Formatting the metrics failed: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	return c->output ? write_output(c->output, text) : print_output(text);
}
