/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl plan: the plan document (report.h), built here or by
 * sriov-persistd, as JSON or as text rendered from it. Exit 1 when a PF is
 * held or cannot get all of its layout on this host (also when a PF applied
 * in this boot is gone from it, or when the daemon cannot read the host: its
 * plan is then of the host as read last), 10 when there are changes. */

#include "json-util.h"
#include "report-gone.h"
#include "report.h"
#include "sriovctl.h"

/* A PF the plan has nothing to run for, or held, gone, unconfigured: its
 * one line said; false when it has a plan to show. */
static bool print_pf_without_plan(const struct ctl *c, struct json_object *pf, const char *who)
{
	if (doc_bool(pf, "gone")) {
		printf("%s: %s: %s\n", who, ctl_paint(c, ANSI_YELLOW, "gone"),
		       strna(doc_str(pf, "reason")));
		printf("  \"sriovctl%s reset %s\" drops its status record\n",
		       strempty(c->local_options), strna(doc_str(pf, "pci")));
		return true;
	}
	if (!doc_bool(pf, "configured")) {
		printf("%s: unconfigured (no layout selects it)\n", who);
		return true;
	}
	if (doc_bool(pf, "held")) {
		printf("%s: %s: %s\n", who, ctl_paint(c, ANSI_RED, "held"),
		       strna(doc_str(pf, "held_reason")));
		doc_print_files(pf, "  ");
		return true;
	}
	return false;
}

/* "  <prefix> <each string of the list key>", painted. */
static void print_list(const struct ctl *c, struct json_object *pf, const char *key, size_t from,
		       const char *color, const char *prefix)
{
	for (size_t i = from; i < doc_len(pf, key); i++) {
		const char *s = strna(json_object_get_string(doc_idx(pf, key, i)));

		if (prefix)
			printf("  %s %s\n", ctl_paint(c, color, prefix), s);
		else
			printf("  %s\n", ctl_paint(c, color, s));
	}
}

/* Whether the array of strings key of o has s. */
static bool has_string(struct json_object *o, const char *key, const char *s)
{
	for (size_t i = 0; s && i < doc_len(o, key); i++)
		if (streq_ptr(json_object_get_string(doc_idx(o, key, i)), s))
			return true;
	return false;
}

/* What the firmware already holds for the next reboot, "reboot needed:",
 * and what only an apply would set there (reboot_planned), "reboot needed
 * after its apply:", as status says of a PF not applied yet. */
static void print_reboots(const struct ctl *c, struct json_object *pf)
{
	for (int planned = 0; planned <= 1; planned++)
		for (size_t i = 0; i < doc_len(pf, "reboot_reasons"); i++) {
			const char *s = json_object_get_string(doc_idx(pf, "reboot_reasons", i));

			if (has_string(pf, "reboot_planned", s) != planned)
				continue;
			printf("  %s %s\n",
			       ctl_paint(c, ANSI_YELLOW,
					 planned ? "reboot needed after its apply:" :
						   "reboot needed:"),
			       strna(s));
		}
}

static void print_pf(const struct ctl *c, struct json_object *pf)
{
	_cleanup_free_ char *who = doc_pf_describe(pf);
	size_t n = doc_len(pf, "actions");

	if (print_pf_without_plan(c, pf, strna(who)))
		return;
	if (n == 0 && doc_len(pf, "waiting") > 0)
		printf("%s: %s\n", strna(who),
		       ctl_paint(c, ANSI_YELLOW,
				 strna(json_object_get_string(doc_idx(pf, "waiting", 0)))));
	else if (n == 0 && doc_len(pf, "unmet") > 0)
		printf("%s: %s\n", strna(who), ctl_paint(c, ANSI_YELLOW, "nothing it can do now"));
	else if (n == 0)
		printf("%s: %s\n", strna(who), ctl_paint(c, ANSI_GREEN, "nothing to do"));
	else
		printf("%s: %zu action(s)%s\n", strna(who), n,
		       doc_bool(pf, "disruptive") ? ", disruptive" : ", all live");
	doc_print_files(pf, "  ");
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = doc_idx(pf, "actions", i);

		printf("  %-10s %s\n", doc_bool(a, "disruptive") ? "disruptive" : "live",
		       strna(doc_str(a, "description")));
	}
	print_list(c, pf, "waiting", n == 0 ? 1 : 0, ANSI_YELLOW, NULL);
	for (size_t i = 0; i < doc_len(pf, "notes"); i++)
		printf("  note: %s\n", strna(json_object_get_string(doc_idx(pf, "notes", i))));
	print_list(c, pf, "unmet", 0, ANSI_YELLOW, "cannot:");
	print_reboots(c, pf);
}

static int plan_document(const struct ctl *c, const struct host_view *v, struct json_object **ret)
{
	int r = report_plan(v, c->runtime_dir, ret);

	/* a PF named is looked for on the host; the whole plan says those gone */
	if (r >= 0 && c->n_args == 0)
		r = report_plan_add_gone(*ret, v->hs, c->runtime_dir);
	return r;
}

/* "changes" says whether any PF of the document has actions. */
static bool any_changes(struct json_object *doc)
{
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++)
		if (doc_len(doc_idx(doc, "pfs", i), "actions") > 0)
			return true;
	return false;
}

static int ask_daemon(struct ctl *c, struct json_object **ret)
{
	_cleanup_json_ struct json_object *doc = NULL;
	int r;

	r = bus_client_document(c->bus, "Plan", c->n_args > 0 ? c->args[0] : NULL, &doc);
	if (r < 0)
		return r;
	/* "changes" of the whole document: again for the one PF left */
	if (c->n_args > 0 &&
	    json_object_object_add(doc, "changes", json_object_new_boolean(any_changes(doc))) < 0) {
		fprintf(stderr, "Out of memory\n");
		return -ENOMEM;
	}
	*ret = TAKE_PTR(doc);
	return 0;
}

int verb_plan(struct ctl *c)
{
	_cleanup_json_ struct json_object *doc = NULL;
	bool failing = false;

	if ((c->bus ? ask_daemon(c, &doc) :
		      ctl_view_document(c, plan_document, "Planning failed", &doc)) < 0)
		return EXIT_FAIL;
	if (c->json)
		ctl_print_json(doc);
	/* the plan is of the host as the daemon read it last: no gate passes on
	 * it, and the text says so above its rows, as status does, so that they
	 * are not taken for the plan of the host as it is */
	if (doc_get(doc, "host_error"))
		ctl_print_host_error(c, c->json ? stderr : stdout,
				     "sriov-persistd: ", doc_get(doc, "host_error"));
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++) {
		if (!c->json)
			print_pf(c, doc_idx(doc, "pfs", i));
		failing |= doc_bool(doc_idx(doc, "pfs", i), "held") ||
			   doc_bool(doc_idx(doc, "pfs", i), "gone") ||
			   doc_len(doc_idx(doc, "pfs", i), "unmet") > 0;
	}
	if (failing || c->main_broken || doc_get(doc, "host_error"))
		return EXIT_FAIL;
	return any_changes(doc) ? EXIT_CHANGES : EXIT_OK;
}
