/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <assert.h>
#include <getopt.h>
#include <stddef.h>

#include "cli-options.h"
#include "mainconf.h"
#include "status.h"

#define NO_VALUE SIZE_MAX

static const struct {
	struct cli_option row;
	size_t value; /* offset of its value in struct cli_paths */
} shared[] = {
	{ { CLI_OPT_HOST, "host", "FILE",
	    "a simulated host (snapshot JSON) instead of this machine" },
	  offsetof(struct cli_paths, host) },
	{ { CLI_OPT_CONFIG_DIR, "config-dir", "DIR", "read layouts from DIR only", CLI_CHECK_DIR },
	  offsetof(struct cli_paths, config_dir) },
	{ { CLI_OPT_MAIN_CONFIG, "main-config", "FILE",
	    "the main configuration\n(default " MAINCONF_PATH_DEFAULT ")", CLI_CHECK_FILE },
	  offsetof(struct cli_paths, main_config) },
	{ { CLI_OPT_RUNTIME_DIR, "runtime-dir", "DIR",
	    "status records and locks\n(default " STATUS_RUNTIME_DIR ", FILE.run with --host)" },
	  offsetof(struct cli_paths, runtime_dir) },
	{ { CLI_OPT_STATE_DIR, "state-dir", "DIR",
	    "records of what was created and of pending reboots\n"
	    "(default " STATUS_STATE_DIR ", FILE.lib with --host)" },
	  offsetof(struct cli_paths, state_dir) },
	{ { CLI_OPT_ROOT, "root", "DIR",
	    "read the host's files under DIR: layouts, main\n"
	    "configuration, records, boot loader configuration,\n"
	    "machine ID; only apply and reset, with --host,\n"
	    "write there (their records)",
	    CLI_CHECK_DIR },
	  offsetof(struct cli_paths, root) },
	/* listed last in the help */
	{ { CLI_OPT_HELP, "help", NULL, "this text" }, NO_VALUE },
};

static bool shared_taken(const struct cli_program *p, size_t i)
{
	return shared[i].row.id != CLI_OPT_ROOT || p->takes_root;
}

/* The shared rows the program takes, then its own; NULL past the last. */
static const struct cli_option *row_at(const struct cli_program *p, size_t i)
{
	for (size_t k = 0; k < ELEMENTSOF(shared); k++) {
		if (!shared_taken(p, k))
			continue;
		if (i == 0)
			return &shared[k].row;
		i--;
	}
	return i < p->n_options ? &p->options[i] : NULL;
}

int cli_next(const struct cli_program *p, int argc, char **argv)
{
	struct option longopts[CLI_OPTIONS_MAX + 1] = {};
	char shortopts[2 * CLI_OPTIONS_MAX + 1] = "", *s = shortopts;
	const struct cli_option *o;
	size_t n = 0;

	assert(ELEMENTSOF(shared) + p->n_options <= CLI_OPTIONS_MAX);
	for (size_t i = 0; (o = row_at(p, i)); i++) {
		longopts[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						 NULL, o->id };
		if (o->id < 0x100) {
			*s++ = (char)o->id;
			if (o->arg)
				*s++ = ':';
		}
	}
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

const struct cli_option *cli_find(const struct cli_program *p, int id)
{
	const struct cli_option *o;

	for (size_t i = 0; (o = row_at(p, i)); i++)
		if (o->id == id)
			return o;
	return NULL;
}

static const char **value_of(const struct cli_paths *paths, size_t i)
{
	return (const char **)((char *)paths + shared[i].value);
}

bool cli_paths_set(struct cli_paths *paths, int id, const char *arg)
{
	for (size_t i = 0; i < ELEMENTSOF(shared); i++)
		if (shared[i].row.id == id && shared[i].value != NO_VALUE) {
			*value_of(paths, i) = arg;
			return true;
		}
	return false;
}

/* What is wrong with value for row o; NULL when nothing is (or it was not
 * given). */
static const char *value_problem(const struct cli_option *o, const char *value)
{
	switch (o->check) {
	case CLI_CHECK_NONE:
		return NULL;
	case CLI_CHECK_DIR:
	case CLI_CHECK_FILE:
		return path_option_problem(value, o->check == CLI_CHECK_DIR);
	case CLI_CHECK_PROGRAM:
		return value && value[0] != '/' ? "must be an absolute path (the program to run)" :
						  NULL;
	}
	return NULL;
}

static int say_problem(const struct cli_option *o, const char *value,
		       char why[static CLI_ERROR_MAX])
{
	const char *problem = value_problem(o, value);

	if (!problem)
		return 0;
	snprintf(why, CLI_ERROR_MAX, "--%s=%s: %s", o->name, value, problem);
	return -EINVAL;
}

int cli_paths_check(const struct cli_paths *paths, char why[static CLI_ERROR_MAX])
{
	for (size_t i = 0; i < ELEMENTSOF(shared); i++) {
		int r;

		if (shared[i].row.check == CLI_CHECK_NONE)
			continue; /* and maybe no value at all: --help */
		r = say_problem(&shared[i].row, *value_of(paths, i), why);
		if (r < 0)
			return r;
	}
	return 0;
}

int cli_option_check(const struct cli_program *p, int id, const char *value,
		     char why[static CLI_ERROR_MAX])
{
	for (size_t i = 0; i < p->n_options; i++)
		if (p->options[i].id == id)
			return say_problem(&p->options[i], value, why);
	return 0;
}

/* The directories named, else the defaults (under root when it is set). */
static int dirs_under(const struct cli_paths *paths, const char *root, char **runtime_dir,
		      char **state_dir)
{
	if ((paths->runtime_dir && free_and_strdup(runtime_dir, paths->runtime_dir) < 0) ||
	    (paths->state_dir && free_and_strdup(state_dir, paths->state_dir) < 0))
		return -ENOMEM;
	return status_default_dirs(paths->host, root, runtime_dir, state_dir);
}

int cli_paths_dirs(const struct cli_paths *paths, char **runtime_dir, char **state_dir)
{
	return dirs_under(paths, NULL, runtime_dir, state_dir);
}

int cli_paths_root(const struct cli_paths *paths, char **ret_root, char **runtime_dir,
		   char **state_dir, char why[static CLI_ERROR_MAX])
{
	_cleanup_free_ char *root = NULL;
	int r;

	if (paths->root) {
		r = root_canonicalize(paths->root, &root);
		if (r < 0) {
			snprintf(why, CLI_ERROR_MAX, "--root=%s: %s", paths->root, strerror(-r));
			return r == -ENOMEM ? r : -EINVAL;
		}
	}
	/* --root=/ is the host itself, as systemctl takes it */
	if (!root || streq(root, "/")) {
		*ret_root = NULL;
		return cli_paths_dirs(paths, runtime_dir, state_dir);
	}
	r = dirs_under(paths, root, runtime_dir, state_dir);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		snprintf(why, CLI_ERROR_MAX, "--root=%s: %s %s; refusing it", paths->root,
			 *runtime_dir ? STATUS_STATE_DIR : STATUS_RUNTIME_DIR, root_strerror(r));
		return -EINVAL;
	}
	*ret_root = TAKE_PTR(root);
	return 0;
}

static void print_row(const struct cli_option *o, unsigned column, FILE *f)
{
	char label[64];
	const char *line = o->help;
	int n;

	if (o->id < 0x100)
		n = snprintf(label, sizeof(label), "-%c, --%s", o->id, o->name);
	else
		n = snprintf(label, sizeof(label), "--%s%s%s", o->name, o->arg ? " " : "",
			     strempty(o->arg));
	/* a label too long for the column has its text on the next line */
	if (n + 3 > (int)column)
		fprintf(f, "  %s\n%*s", label, (int)column, "");
	else
		fprintf(f, "  %-*s", (int)column - 2, label);
	for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - line), line, (int)column, "");
	fprintf(f, "%s\n", line);
}

void cli_print_options(const struct cli_program *p, FILE *f)
{
	const struct cli_option *o;

	for (size_t i = 0; (o = row_at(p, i)); i++)
		if (o->id != CLI_OPT_HELP)
			print_row(o, p->column, f);
	for (size_t i = 0; i < ELEMENTSOF(shared); i++)
		if (shared[i].row.id == CLI_OPT_HELP)
			print_row(&shared[i].row, p->column, f);
}
