/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The command-line options of sriovctl, udev-helper and sriov-persistd as
 * rows, as wireguard-tools' wg.c keeps each verb with its help: a row names
 * the option, its argument and its help text, and says how its value is
 * checked. The options the three share (a simulated host, the layouts, the
 * main configuration, the directories, --help) are one table here; each
 * program adds the rows of its own options. getopt_long's table and the
 * options part of --help are made from the rows. */

#include <stdio.h>

#include "util.h"

enum cli_check {
	CLI_CHECK_NONE,
	CLI_CHECK_DIR,	/* an existing directory */
	CLI_CHECK_FILE, /* an existing regular file */
	/* a program to run: an absolute path, as systemd takes ExecStart=
	 * (one relative to wherever the command was started would run
	 * another program from another directory); it may be missing, which
	 * is said when it is to run */
	CLI_CHECK_PROGRAM,
};

/* The ids of the shared rows; a program numbers its own from CLI_OPT_PROGRAM. */
enum {
	CLI_OPT_HELP = 'h',
	CLI_OPT_HOST = 0x100,
	CLI_OPT_CONFIG_DIR,
	CLI_OPT_MAIN_CONFIG,
	CLI_OPT_RUNTIME_DIR,
	CLI_OPT_STATE_DIR,
	CLI_OPT_ROOT,
	CLI_OPT_PROGRAM = 0x200,
};

struct cli_option {
	int id;		  /* what cli_next() returns for it */
	const char *name; /* "config-dir", given as --config-dir */
	const char *arg;  /* its argument in the help ("DIR"); NULL: it takes none */
	const char *help; /* lines, '\n' between them */
	enum cli_check check;
};

/* The values of the shared options, NULL when not given (argv's strings). */
struct cli_paths {
	const char *host;	 /* --host: a simulated host */
	const char *config_dir;	 /* --config-dir: the only layout directory */
	const char *main_config; /* --main-config */
	const char *runtime_dir; /* --runtime-dir */
	const char *state_dir;	 /* --state-dir */
	/* --root: the host's files under this directory (only for programs
	 * with takes_root); as given, cli_paths_root() makes it canonical */
	const char *root;
};

struct cli_program {
	const struct cli_option *options; /* its own rows, listed after the shared ones */
	size_t n_options;
	unsigned column; /* where the help texts start */
	/* it takes --root (sriovctl); for the others the row does not exist:
	 * the daemon and udev's helper work on the host they run on */
	bool takes_root;
};

#define CLI_OPTIONS_MAX 32
#define CLI_ERROR_MAX 512

/* getopt_long over the shared rows and the program's: the id of the next
 * option (its value in optarg), '?' after getopt_long's message, -1 at the
 * end of the options. */
int cli_next(const struct cli_program *p, int argc, char **argv);

/* The row of an option; NULL when there is none. */
const struct cli_option *cli_find(const struct cli_program *p, int id);

/* Keeps the value of a shared option; false when id is not one. */
bool cli_paths_set(struct cli_paths *paths, int id, const char *arg);

/* The first shared option whose value fails its row's check, said as
 * "--config-dir=DIR: does not exist" in why: -EINVAL; 0 when all pass.
 * A layout directory or main configuration that is not there is a
 * mistake, never an empty configuration: without layouts, apply would undo
 * what they made. sriovctl and sriov-persistd check before any work;
 * udev-helper does not (what it cannot read holds the PF, and its status
 * record says why). */
int cli_paths_check(const struct cli_paths *paths, char why[static CLI_ERROR_MAX]);

/* The value of one of the program's own options against its row's
 * check, said as "--k8s-notify=bin/k8s-notify: must be an absolute path"
 * in why: -EINVAL; 0 when it passes (or the row checks nothing). Each
 * program calls it for every option of its own as it parses them. */
int cli_option_check(const struct cli_program *p, int id, const char *value,
		     char why[static CLI_ERROR_MAX]);

/* The runtime and state directories (the options' values, else those of
 * status_default_dirs()), allocated. -ENOMEM. */
int cli_paths_dirs(const struct cli_paths *paths, char **runtime_dir, char **state_dir);

/* --root: every file the program reads or writes on the host, as the host
 * names it (/etc/sriov-persist/..., /run/sriov-persist, /etc/machine-id,
 * and the other tools' files), is read under the canonical root that this
 * returns in *ret_root (NULL without --root, or with --root=/, the host
 * itself) with path_under_root()
 * (fs-util.h): lib/ takes the root as a parameter next to the host path
 * (layout_set_load_root(), mainconf_load_root(), conf_files_list_root()).
 * Paths named by other options are taken as given. The runtime and state
 * directories are the defaults under root unless named. Errors are said in
 * why ("--root=DIR: /run/sriov-persist leads out of the root directory"):
 * -EINVAL; -ENOMEM. */
int cli_paths_root(const struct cli_paths *paths, char **ret_root, char **runtime_dir,
		   char **state_dir, char why[static CLI_ERROR_MAX]);

/* The lines of the options, shared rows first, then the program's, then
 * -h, --help. */
void cli_print_options(const struct cli_program *p, FILE *f);
