/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-parser.h"
#include "desired-host.h"
#include "desired.h"
#include "layout-rules.h"
#include "layout-set.h"
#include "sriovctl.h"

/* A named file is the main configuration when it is called
 * sriov-persist.conf or sits in a sriov-persist.conf.d directory. */
static bool is_main_config(const char *path)
{
	_cleanup_free_ char *a = strdup(path), *b = strdup(path);

	if (!a || !b)
		return false;
	return streq(basename(a), "sriov-persist.conf") ||
	       streq(basename(dirname(b)), "sriov-persist.conf.d");
}

/* The named main configuration files, parsed over conf (which holds
 * --main-config's, when given): later files override earlier values. */
static int check_main_files(struct ctl *c, struct mainconf *conf, struct diag_list *diags,
			    unsigned *n_files)
{
	for (int i = 0; i < c->n_args; i++) {
		_cleanup_free_ char *text = NULL;
		int r;

		if (!is_main_config(c->args[i]))
			continue;
		(*n_files)++;
		/* as mainconf_load() reads it */
		r = conf_read_file(c->args[i], &text);
		if (r < 0)
			r = diag_add(diags, DIAG_ERROR, c->args[i], 0, "cannot read: %s",
				     conf_read_strerror(r));
		else
			r = mainconf_parse_string(conf, c->args[i], text, diags);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The main configuration k8s-notify is to read: --main-config, else the
 * named sriov-persist.conf (with its drop-ins, as k8s-notify reads it). */
static const char *named_main_file(const struct ctl *c)
{
	if (c->main_config)
		return c->main_config;
	for (int i = 0; i < c->n_args; i++) {
		const char *slash = strrchr(c->args[i], '/');

		if (streq(slash ? slash + 1 : c->args[i], "sriov-persist.conf"))
			return c->args[i];
	}
	return NULL;
}

static int load_named(struct ctl *c, struct layout_set **ret)
{
	_cleanup_strv_free_ char **layouts = calloc(1, sizeof(char *));
	int r;

	if (!layouts)
		return -ENOMEM;
	for (int i = 0; i < c->n_args; i++)
		if (!is_main_config(c->args[i]) && (r = strv_extend(&layouts, c->args[i])) < 0)
			return r;
	r = layout_set_load_context(c->root, c->config_dir, layouts, ret);
	if (r >= 0 && (r = layout_set_load_others(*ret, c->root)) < 0)
		*ret = layout_set_free(*ret);
	return r;
}

/* A PF a layout selects that has no driver bound: nothing of its layout
 * can be set now (plan says "cannot:"), which is no error of the files. */
static int warn_no_driver(const struct pf_state *pf, struct diag_list *diags)
{
	_cleanup_free_ char *who = NULL;

	if (pf->driver)
		return 0;
	who = pf_describe(pf);
	if (!who)
		return -ENOMEM;
	return diag_add(diags, DIAG_WARNING, NULL, 0,
			"%s: no driver is bound to the PF: its layout is applied when one binds",
			who);
}

/* What desired_build() said for each PF of the host, and which files
 * select it. */
struct pf_check {
	struct diag_list diags;
	struct pf_desired *d; /* NULL: no file selects the PF */
};

static bool pf_check_selected_by(const struct pf_check *p, const char *file)
{
	return p->d && strv_contains(p->d->config_files, file);
}

/* ", 0000:3b:00.1 (ens1f1)" for each PF that has error e, into *ret; NULL
 * when it is every PF that e's file selects, or the message names them:
 * an error of the merged values that holds only some of the PFs of its
 * file says which. */
static int held_pfs(const struct host_state *hs, const struct pf_check *pc, const struct diag *e,
		    char **ret)
{
	_cleanup_free_ char *list = NULL;
	bool some = false;

	*ret = NULL;
	for (size_t i = 0; i < hs->n_pfs; i++) {
		_cleanup_free_ char *who = NULL;
		char *l;

		if (!diag_list_has(&pc[i].diags, DIAG_ERROR, e->file, e->line, e->msg)) {
			some = some || pf_check_selected_by(&pc[i], e->file);
			continue;
		}
		if (strstr(e->msg, hs->pfs[i].pci))
			continue;
		who = pf_describe(&hs->pfs[i]);
		l = who ? strdup_printf("%s%s%s", list ?: "", list ? ", " : "", who) : NULL;
		if (!l)
			return -ENOMEM;
		free(list);
		list = l;
	}
	if (some && list)
		*ret = TAKE_PTR(list);
	return 0;
}

/* msg, an error of pf, with pf's own name ("0000:ca:00.0 (ens3f0np0)") made
 * "the PF", so that the same problem of several PFs reads alike; NULL when
 * msg does not name pf, or on ENOMEM (*ret_r). */
static char *msg_without_pf(const char *msg, const struct pf_state *pf, int *ret_r)
{
	_cleanup_free_ char *who = pf_describe(pf);
	const char *at = who ? strstr(msg, who) : NULL;
	char *s;

	*ret_r = who ? 0 : -ENOMEM;
	if (!at)
		return NULL;
	s = strdup_printf("%.*sthe PF%s", (int)(at - msg), msg, at + strlen(who));
	*ret_r = s ? 0 : -ENOMEM;
	return s;
}

/* Whether PF i has an error at file:line that reads norm once its own name
 * is "the PF". */
static int pf_has_named(const struct host_state *hs, const struct pf_check *pc, size_t i,
			const struct diag *e, const char *norm)
{
	for (size_t j = 0; j < pc[i].diags.n; j++) {
		const struct diag *o = &pc[i].diags.items[j];
		_cleanup_free_ char *n = NULL;
		int r;

		if (o->level != DIAG_ERROR || o->line != e->line || !streq_ptr(o->file, e->file))
			continue;
		n = msg_without_pf(o->msg, &hs->pfs[i], &r);
		if (r < 0)
			return r;
		if (streq_ptr(n, norm))
			return 1;
	}
	return 0;
}

/* An error of PF i that names it, which other PFs have too in their own
 * words: one error, "the PF", with every PF it holds ("(on 0000:ca:00.0
 * (ens3f0np0), 0000:ca:00.1 (ens3f1np1))"). 0 when no other PF has it. */
static int add_named_for_all(const struct host_state *hs, const struct pf_check *pc, size_t i,
			     const struct diag *e, struct diag_list *diags)
{
	_cleanup_strv_free_ char **on = NULL;
	_cleanup_free_ char *norm = NULL, *list = NULL;
	int r;

	norm = msg_without_pf(e->msg, &hs->pfs[i], &r);
	if (!norm)
		return r;
	for (size_t k = 0; k < hs->n_pfs; k++) {
		r = pf_has_named(hs, pc, k, e, norm);
		if (r > 0)
			r = strv_consume(&on, pf_describe(&hs->pfs[k]));
		if (r < 0)
			return r;
	}
	if (strv_length(on) < 2)
		return 0;
	list = strv_join(on, ", ");
	if (!list)
		return -ENOMEM;
	r = diag_add(diags, e->level, e->file, e->line, "%s (on %s)", norm, list);
	return r < 0 ? r : 1;
}

/* The diagnostics of every PF into diags, each once, an error with the PFs
 * it holds when it does not hold all of its file's, or when it names the
 * PF and several have it. */
static int merge_pf_diags(const struct host_state *hs, const struct pf_check *pc,
			  struct diag_list *diags)
{
	for (size_t i = 0; i < hs->n_pfs; i++)
		for (size_t j = 0; j < pc[i].diags.n; j++) {
			const struct diag *e = &pc[i].diags.items[j];
			_cleanup_free_ char *on = NULL;
			int r;

			r = e->level == DIAG_ERROR ? add_named_for_all(hs, pc, i, e, diags) : 0;
			if (r > 0)
				continue;
			if (r >= 0 && e->level == DIAG_ERROR)
				r = held_pfs(hs, pc, e, &on);
			if (r >= 0 && on)
				r = diag_add(diags, e->level, e->file, e->line, "%s (on %s)",
					     e->msg, on);
			else if (r >= 0)
				r = diag_add(diags, e->level, e->file, e->line, "%s", e->msg);
			if (r < 0)
				return r;
		}
	return 0;
}

static void pf_checks_free(struct pf_check *pc, size_t n)
{
	for (size_t i = 0; pc && i < n; i++) {
		diag_list_done(&pc[i].diags);
		pf_desired_free(pc[i].d);
	}
	free(pc);
}

static bool is_named_layout(const struct ctl *c, const char *path);

/* With named files, whether one of them selects the PF of d: a PF only
 * the context selects is not what check FILE asks about. */
static bool pf_of_named(const struct ctl *c, const struct pf_desired *d)
{
	if (c->n_args == 0)
		return true;
	for (size_t i = 0; d && d->config_files && d->config_files[i]; i++)
		if (is_named_layout(c, d->config_files[i]))
			return true;
	return false;
}

/* desired_build() on every PF (with named files, on those they select),
 * and a warning for a selected PF that no driver is bound to. */
static int check_pfs(const struct ctl *c, const struct layout_set *set, const struct host_state *hs,
		     struct diag_list *diags)
{
	struct pf_check *pc = calloc(hs->n_pfs ?: 1, sizeof(*pc));
	int r = pc ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < hs->n_pfs; i++) {
		r = desired_build(set, hs, &hs->pfs[i], &pc[i].diags, &pc[i].d);
		if (r >= 0 && !pf_of_named(c, pc[i].d)) {
			diag_list_done(&pc[i].diags);
			continue;
		}
		if (r >= 0 && pc[i].d)
			r = warn_no_driver(&hs->pfs[i], &pc[i].diags);
		if (r >= 0 && pc[i].d)
			r = desired_check_iommu(hs, &hs->pfs[i], pc[i].d->vfs, pc[i].d->n_vfs,
						pc[i].d->kernel_arguments, &pc[i].diags);
	}
	if (r >= 0)
		r = merge_pf_diags(hs, pc, diags);
	pf_checks_free(pc, hs->n_pfs);
	return r;
}

/* With --host, what the hardware cannot do, PF by PF, with the files that
 * select each (desired_build runs the rules of the files alone too); the
 * files that select no PF are said, and checked alone. 1 when the host
 * cannot be opened or read (said here): the files are then checked alone. */
static int check_hardware(struct ctl *c, const struct layout_set *set, struct diag_list *diags)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_free_ const struct layout_file **unselected = NULL;
	_cleanup_host_ struct host *h = NULL;
	size_t n_unselected = 0;
	int r;

	r = ctl_open_host(c, &h);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 1;
	r = host_read(h, &hs);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fprintf(stderr, "%s: reading the host failed: %s\n", c->host_path, strerror(-r));
		return 1;
	}
	ctl_host_options(c, hs);
	r = check_pfs(c, set, hs, diags);
	if (r >= 0)
		r = desired_unselected(set, hs, diags, &unselected, &n_unselected);
	if (r >= 0)
		r = desired_unmatched_globs(set, hs, diags);
	if (r < 0)
		return r;
	return layout_rules_check_files(unselected, n_unselected, diags);
}

/* Whether path is one of the layouts named on the command line. */
static bool is_named_layout(const struct ctl *c, const char *path)
{
	for (int i = 0; i < c->n_args; i++)
		if (!is_main_config(c->args[i]) && streq_ptr(path, c->args[i]))
			return true;
	return false;
}

/* With named files, the other files of the set are the layout directory's,
 * read as context: a diagnostic at one of them is reported only when it
 * names a named file ("(70-drop.conf:3)"). */
static bool diag_of_context(const struct ctl *c, const struct layout_set *set, const struct diag *d)
{
	bool context = false;

	if (c->n_args == 0 || !d->file || is_named_layout(c, d->file))
		return false;
	for (size_t i = 0; i < set->n_files; i++)
		context = context || streq(set->files[i]->path, d->file);
	for (int i = 0; context && i < c->n_args; i++) {
		_cleanup_free_ char *at = strdup_printf("%s:", layout_file_name(c->args[i]));

		if (!at || (is_named_layout(c, c->args[i]) && strstr(d->msg, at)))
			return false;
	}
	return context;
}

/* Removes from diags what diag_of_context() says is the context's. */
static void drop_context_diags(const struct ctl *c, const struct layout_set *set,
			       struct diag_list *diags)
{
	size_t k = 0;

	for (size_t i = 0; i < diags->n; i++) {
		struct diag *d = &diags->items[i];

		if (diag_of_context(c, set, d)) {
			free(d->file);
			free(d->msg);
		} else
			diags->items[k++] = *d;
	}
	diags->n = k;
}

/* The layout files checked: not a directory that could not be listed
 * (the set keeps it as a file with an error, its message says why); a
 * refused file (a link out of --root, one others may write) is one; with
 * named files, those alone. */
static size_t count_layout_files(const struct ctl *c, const struct layout_set *set)
{
	size_t n = 0;

	if (c->n_args == 0)
		return set->dir_failed ? 0 : set->n_files;
	for (int i = 0; i < c->n_args; i++)
		n += !is_main_config(c->args[i]);
	return n;
}

/* The default main configuration (under --root), when neither it nor its
 * drop-in directory exists: its defaults are used, no file is checked. */
static bool main_config_absent(const struct ctl *c)
{
	_cleanup_free_ char *path = NULL, *dir = NULL;

	if (c->main_config)
		path = strdup(c->main_config);
	else if (path_under_root(c->root, MAINCONF_PATH_DEFAULT, &path) < 0)
		return false;
	dir = path ? strdup_printf("%s.d", path) : NULL;
	return dir && access(path, F_OK) < 0 && errno == ENOENT && access(dir, F_OK) < 0 &&
	       errno == ENOENT;
}

static bool main_config_named(const struct ctl *c)
{
	for (int i = 0; i < c->n_args; i++)
		if (is_main_config(c->args[i]))
			return true;
	return false;
}

/* "N layout file(s) and the main configuration checked: N error(s)" */
static void print_summary(const struct ctl *c, const struct layout_set *set, unsigned n_main,
			  size_t errors, size_t warnings)
{
	bool defaults = n_main > 0 && !main_config_named(c) && main_config_absent(c);
	size_t n = count_layout_files(c, set), context = c->n_args > 0 ? set->n_files - n : 0;

	printf("%zu layout file(s)%s checked%s", n,
	       n_main > 0 && !defaults ? " and the main configuration" : "",
	       defaults ? " (no main configuration: defaults)" : "");
	if (context > 0)
		printf(" (with the %zu other layout file(s) of %s as context)", context,
		       c->config_dir   ?:
			       c->root ? "the layout directories under --root" :
					 "the layout directories");
	printf(": %zu error(s)", errors);
	if (warnings > 0)
		printf(", %zu warning(s)%s", warnings, c->strict ? " (--strict: errors)" : "");
	printf("\n");
}

/* Directories without a layout file: likely the wrong --config-dir, or
 * layouts not installed yet. Not for a directory that could not be read
 * (its error says why) nor for named files. */
static int warn_no_layouts(const struct ctl *c, const struct layout_set *set,
			   struct diag_list *diags)
{
	_cleanup_free_ char *dirs = NULL;

	if (c->n_args > 0 || set->n_files > 0)
		return 0;
	if (c->config_dir)
		dirs = strdup(c->config_dir);
	else
		dirs = strv_join((char *const *)layout_dirs_default, ", ");
	if (!dirs)
		return -ENOMEM;
	if (c->root && !c->config_dir)
		return diag_add(diags, DIAG_WARNING, NULL, 0,
				"no layout files (*.conf) in %s under %s", dirs, c->root);
	return diag_add(diags, DIAG_WARNING, NULL, 0, "no layout files (*.conf) in %s", dirs);
}

/* With named files: --main-config (and its drop-ins) when given, then the
 * named main configuration files over it, then the named layouts, which
 * the main configuration's settings are given to (KernelArguments=manage:
 * an IOMMU that is off is a reboot, not a warning). */
static int load_named_all(struct ctl *c, struct layout_set **ret, struct diag_list *diags,
			  unsigned *n_main)
{
	struct mainconf conf;
	int r;

	if (c->main_config) {
		*n_main = 1;
		r = mainconf_load(c->main_config, &conf, diags);
	} else
		r = mainconf_init(&conf);
	if (r < 0)
		return r;
	r = check_main_files(c, &conf, diags, n_main);
	mainconf_find_credentials(&conf);
	if (r >= 0 && *n_main > 0)
		r = ctl_check_credentials(c, named_main_file(c), &conf, diags);
	if (r >= 0)
		r = load_named(c, ret);
	if (r >= 0)
		layout_set_use_mainconf(*ret, &conf);
	mainconf_done(&conf);
	return r;
}

/* The main configuration and the layouts, into *ret and diags. Failures
 * other than an allocation failure are said by ctl_load_layouts(). */
static int load_all(struct ctl *c, struct layout_set **ret, struct diag_list *diags,
		    unsigned *n_main)
{
	struct mainconf conf;
	int r;

	if (c->n_args > 0)
		return load_named_all(c, ret, diags, n_main);
	*n_main = 1;
	r = mainconf_load_root(c->root, c->main_config, &conf, diags);
	if (r < 0)
		return r;
	r = ctl_check_credentials(c, c->main_config, &conf, diags);
	if (r < 0) {
		mainconf_done(&conf);
		return r;
	}
	r = ctl_load_layouts(c, ret);
	if (r >= 0) /* KernelArguments=manage: an IOMMU that is off is a reboot */
		layout_set_use_mainconf(*ret, &conf);
	mainconf_done(&conf);
	return r < 0 ? 1 : 0;
}

/* 1: the host could not be read (said), the files are checked alone. */
static int check_rules(struct ctl *c, struct layout_set *set, struct diag_list *diags)
{
	int r = 0;

	if (c->host_path)
		r = check_hardware(c, set, diags);
	if (r == 1)
		fprintf(stderr, "The files are checked without the host.\n");
	if (r >= 0 && (!c->host_path || r == 1)) {
		int k = layout_rules_check_set(set, diags);

		if (k < 0)
			r = k;
	}
	return r;
}

int verb_check(struct ctl *c)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	struct diag_list diags = {};
	unsigned n_main = 0;
	size_t errors, warnings;
	bool no_host = false;
	int r;

	r = load_all(c, &set, &diags, &n_main);
	if (r == 1) { /* ctl_load_layouts() said why */
		ctl_print_diags(&diags);
		diag_list_done(&diags);
		return EXIT_FAIL;
	}
	if (r >= 0)
		r = diag_list_move(&diags, &set->diags);
	if (r >= 0)
		r = warn_no_layouts(c, set, &diags);
	if (r >= 0)
		r = check_rules(c, set, &diags);
	no_host = r == 1;
	if (r < 0) {
		fprintf(stderr, "Checking failed: %s\n", strerror(-r));
		diag_list_done(&diags);
		return EXIT_FAIL;
	}
	drop_context_diags(c, set, &diags);
	if (diag_list_sort_by_line(&diags) < 0) {
		fprintf(stderr, "Checking failed: %s\n", strerror(ENOMEM));
		diag_list_done(&diags);
		return EXIT_FAIL;
	}
	ctl_print_diags(&diags);
	/* a host that cannot be read is an error of the check (said above) */
	errors = diag_count(&diags, DIAG_ERROR) + no_host;
	warnings = diag_count(&diags, DIAG_WARNING);
	diag_list_done(&diags);
	print_summary(c, set, n_main, errors, warnings);
	return errors > 0 || (c->strict && warnings > 0) ? EXIT_FAIL : EXIT_OK;
}
