/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl compare: sriov-network-operator's SriovNetworkNodeState of this
 * node against what applying the layouts would leave on it, one line per
 * difference; another node's against what they would leave on it were this
 * host's PFs its own. The node state is lib/config/sno-node-state*.c's, the
 * comparison lib/plan/sno-compare*.c's; here are the choice of the node
 * state and the output. */

#include "sno-compare.h"
#include "sriovctl.h"
#include "strv.h"

/* The node name the Kubernetes integration uses ([Kubernetes] NodeName=),
 * else the host's name; the main configuration's errors are the view's to
 * say. Caller frees; NULL when there is neither. */
static char *compare_node_name(const struct ctl *c, const struct host_state *hs)
{
	struct diag_list diags = {};
	struct mainconf conf;
	char *name = NULL;

	if (mainconf_load_root(c->root, c->main_config, &conf, &diags) >= 0) {
		name = conf.node_name ? strdup(conf.node_name) : NULL;
		mainconf_done(&conf);
	}
	diag_list_done(&diags);
	return name ?: (hs->hostname ? strdup(hs->hostname) : NULL);
}

static int compare_parse(const char *path, struct sno_node_states *ret)
{
	_cleanup_(diag_list_done) struct diag_list diags = {};
	_cleanup_free_ char *text = NULL;
	size_t errors;

	if (ctl_read_input(path, &text) < 0)
		return -EIO;
	if (sno_node_states_parse(path, text, ret, &diags) < 0) {
		fprintf(stderr, "Out of memory\n");
		return -ENOMEM;
	}
	ctl_print_diags(&diags);
	errors = diag_count(&diags, DIAG_ERROR);
	if (errors == 0)
		return 0;
	fprintf(stderr, "%zu error%s: nothing compared\n", errors, errors == 1 ? "" : "s");
	sno_node_states_done(ret);
	return -EINVAL;
}

/* The node state compared, and *ret_as: NULL when it is this node's, else
 * its name, which the layouts' [Match] Host= are then matched against, as
 * if the PFs of this host were that node's (a snapshot of another node, or
 * one node standing for those of its hardware), said once. */
static int compare_select(const struct ctl *c, const char *path, const struct sno_node_states *s,
			  const struct host_state *hs, const struct sno_node_state **ret,
			  const char **ret_as)
{
	_cleanup_free_ char *why = NULL, *node = compare_node_name(c, hs);
	int r;

	r = sno_node_states_select(s, c->node, node, ret, &why);
	if (r == -ENOMEM)
		fprintf(stderr, "Out of memory\n");
	else if (r < 0)
		fprintf(stderr, "%s: %s; nothing compared\n", ctl_input_name(path), why);
	if (r < 0)
		return r;
	*ret_as = node && sno_node_name_is_host((*ret)->name, node) ? NULL : (*ret)->name;
	if (*ret_as)
		fprintf(stderr,
			"note: comparing node %s with the PFs of this host (%s): the layouts' "
			"[Match] Host= are matched against %s\n",
			*ret_as, node ?: "which has no name", *ret_as);
	return 0;
}

/* The fields compare does not judge, one line per reason. */
static void compare_print_unjudged(const char *path, const struct sno_node_state *ns)
{
	for (size_t i = 0; i < ns->n_unjudged; i++) {
		const char *why = ns->unjudged[i].why;
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = ns->unjudged[j].why != why;
		if (!first)
			continue;
		fprintf(stderr, "%s: not compared:", ctl_input_name(path));
		for (size_t j = i; j < ns->n_unjudged; j++)
			if (ns->unjudged[j].why == why)
				fprintf(stderr, "%s %s", j == i ? "" : ",", ns->unjudged[j].field);
		fprintf(stderr, ": %s\n", why);
	}
}

static int compare_print(const struct sno_comparison *cmp)
{
	size_t n = strv_length(cmp->lines);

	for (size_t i = 0; i < n; i++)
		printf("%s\n", cmp->lines[i]);
	if (n == 0)
		printf("no difference: applying the layouts leaves the node as the operator set "
		       "it\n");
	else if (cmp->unconverged > 0)
		printf("%zu difference(s), %zu of them where the operator had not converged\n", n,
		       cmp->unconverged);
	else
		printf("%zu difference(s)\n", n);
	return n == 0 ? EXIT_OK : EXIT_FAIL;
}

static int compare_view(struct ctl *c, const char *path, const struct sno_node_states *s,
			struct ctl_view *cv)
{
	_cleanup_(sno_comparison_done) struct sno_comparison cmp = {};
	const struct sno_node_state *ns;
	const char *as = NULL;

	ctl_print_diags(&cv->set->diags);
	if (compare_select(c, path, s, cv->hs, &ns, &as) < 0)
		return EXIT_FAIL;
	if (ctl_view_build(c, cv, as) < 0)
		return EXIT_FAIL;
	ctl_print_diags(&cv->v.diags);
	compare_print_unjudged(path, ns);
	fprintf(stderr,
		"node state %s: its status (what the node has) compared with what "
		"applying the layouts would leave\n",
		ns->name);
	if (sno_compare(ns, &cv->v, &cmp) < 0) {
		fprintf(stderr, "Out of memory\n");
		return EXIT_FAIL;
	}
	return compare_print(&cmp);
}

int verb_compare(struct ctl *c)
{
	_cleanup_(sno_node_states_done) struct sno_node_states s = {};
	const char *path = c->args[0];
	struct ctl_view cv;
	int r;

	if (compare_parse(path, &s) < 0)
		return EXIT_FAIL;
	/* every PF: the operand is the node state, not a PF to look at */
	c->n_args = 0;
	/* the view is built once the node is known: its name is what the
	 * layouts' Host= are matched against */
	if (ctl_host_read(c, &cv) < 0)
		return EXIT_FAIL;
	r = compare_view(c, path, &s, &cv);
	ctl_view_done(&cv);
	return r;
}
