/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "sriovctl.h"

static void hex_id(const uint8_t id[static 16], char buf[static 33])
{
	for (size_t i = 0; i < 16; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}

/* An ID given on the command line wins over the snapshot's, as an option
 * wins over a file; said once, since apply takes the snapshot's own. */
static void note_replaced_machine_id(const struct ctl *c, const struct host_state *hs)
{
	char given[33], own[33];

	if (!hs->has_machine_id || memcmp(hs->machine_id, c->machine_id, 16) == 0)
		return;
	hex_id(c->machine_id, given);
	hex_id(hs->machine_id, own);
	fprintf(stderr,
		"note: --machine-id %s replaces the machine_id %s of %s; apply derives stable "
		"values from the snapshot's own\n",
		given, own, c->host_path);
}

void ctl_host_options(const struct ctl *c, struct host_state *hs)
{
	if (c->has_machine_id) {
		note_replaced_machine_id(c, hs);
		memcpy(hs->machine_id, c->machine_id, sizeof(hs->machine_id));
		hs->has_machine_id = true;
	}
	/* a snapshot of a real host (no machine ID in it), planned here */
	hs->machine_id_option = c->host_path && !hs->has_machine_id;
}

/* What the planner needs of the main configuration, so that plan and status
 * plan as apply does: with errors in it, apply holds every PF, and so do
 * they (its errors go to stderr, as check prints them). */
static int use_mainconf(struct ctl *c, struct layout_set *set)
{
	struct diag_list diags = {};
	struct mainconf conf;
	int r;

	r = mainconf_load_root(c->root, c->main_config, &conf, &diags);
	if (r < 0) {
		diag_list_done(&diags);
		return r == -ENOMEM ? r : 0; /* apply says why it cannot load it */
	}
	if (diag_count(&diags, DIAG_ERROR) == 0) {
		layout_set_use_mainconf(set, &conf);
		/* apply's reason of a drain that cannot run, without running
		 * k8s-notify (with --root, apply asks it nothing either) */
		r = apply_drain_cannot_run(&conf, c->root ? NULL : ctl_k8s_notify_path(c),
					   &set->drain_cannot_run);
	} else {
		_cleanup_free_ char *first = ctl_first_error(&diags);

		ctl_print_diags(&diags);
		c->main_broken = true;
		r = first ? layout_set_main_broken(set, first) : -ENOMEM;
	}
	mainconf_done(&conf);
	diag_list_done(&diags);
	return r < 0 ? r : 0;
}

int ctl_host_read(struct ctl *c, struct ctl_view *ret)
{
	_cleanup_host_ struct host *h = NULL;
	struct ctl_view cv = {};
	int r;

	r = ctl_open_host(c, &h);
	if (r < 0)
		return r;
	r = host_read(h, &cv.hs);
	if (r < 0) {
		fprintf(stderr, "Reading the host failed: %s%s%s\n", strerror(-r),
			h->error[0] ? ": " : "", h->error);
		return r;
	}
	ctl_host_options(c, cv.hs);
	/* VFs an apply killed mid-way left on no driver: planned as apply plans them */
	r = host_state_mark_created(c->state_dir, cv.hs);
	if (r >= 0)
		r = ctl_load_layouts(c, &cv.set);
	if (r >= 0)
		r = use_mainconf(c, cv.set);
	if (r < 0) {
		ctl_view_done(&cv);
		return r;
	}
	*ret = cv;
	return 0;
}

int ctl_view_build(const struct ctl *c, struct ctl_view *cv, const char *hostname)
{
	const char *only = c->n_args > 0 ? c->args[0] : NULL;
	int r;

	r = host_view_build_as(cv->hs, cv->set, hostname ?: cv->hs->hostname, only, &cv->v);
	if (r >= 0)
		cv->v.ctl_options = c->local_options;
	if (r == -ENXIO)
		fprintf(stderr, "No PF '%s' on this host\n", only);
	else if (r < 0)
		fprintf(stderr, "Planning failed: %s\n", strerror(-r));
	return r;
}

int ctl_host_view(struct ctl *c, struct ctl_view *ret)
{
	struct ctl_view cv;
	int r;

	r = ctl_host_read(c, &cv);
	if (r < 0)
		return r;
	r = ctl_view_build(c, &cv, NULL);
	if (r < 0) {
		ctl_view_done(&cv);
		return r;
	}
	*ret = cv;
	return 0;
}

void ctl_view_done(struct ctl_view *cv)
{
	host_view_done(&cv->v);
	layout_set_free(cv->set);
	host_state_free(cv->hs);
	*cv = (struct ctl_view){};
}

int ctl_view_document(struct ctl *c, ctl_document_fn build, const char *failed,
		      struct json_object **ret)
{
	struct ctl_view cv;
	int r;

	if (ctl_host_view(c, &cv) < 0)
		return -EIO;
	ctl_print_diags(&cv.set->diags);
	ctl_print_diags(&cv.v.diags);
	r = build(c, &cv.v, ret);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", failed, strerror(-r));
	ctl_view_done(&cv);
	return r;
}
