/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fcntl.h>
#include <inttypes.h>
#include <systemd/sd-id128.h>
#include <time.h>

#include "cli-options.h"
#include "fileio.h"
#include "host-linux.h"
#include "host-sim.h"
#include "sriovctl.h"

static const struct {
	const char *name;
	int (*run)(struct ctl *c);
	int min_args, max_args;
	bool daemon; /* sriov-persistd answers it when it runs */
	/* it changes the host or waits for it to change: with --root, only
	 * on a simulated host (--host) */
	bool drives_host;
} verbs[] = {
	{ "status", verb_status, 0, 1, true, false },
	{ "plan", verb_plan, 0, 1, true, false },
	{ "apply", verb_apply, 0, 1, true, true },
	{ "check", verb_check, 0, INT16_MAX, false, false },
	{ "snapshot", verb_snapshot, 0, 0, false, false },
	{ "wait", verb_wait, 0, 0, false, true },
	{ "reset", verb_reset, 0, INT16_MAX, true, true },
	{ "cat", verb_cat, 0, 1, false, false },
	{ "metrics", verb_metrics, 0, 1, false, false },
	{ "import", verb_import, 1, 1, false, false },
	{ "compare", verb_compare, 1, 1, false, false },
	/* for the shell completion (--host FILE): not a command people call,
	 * so neither in --help nor in the manual */
	{ "__pfs", verb_list_pfs, 0, 0, false, false },
};

enum {
	ARG_MACHINE_ID = CLI_OPT_PROGRAM,
	ARG_JSON,
	ARG_TIMEOUT,
	ARG_STRICT,
	ARG_NO_COLOR,
	ARG_NO_PAGER,
	ARG_VERSION,
	ARG_K8S_NOTIFY,
	ARG_OUTPUT,
	ARG_OUTPUT_DIR,
	ARG_NODE,
};

static const struct cli_option own_options[] = {
	{ ARG_MACHINE_ID, "machine-id", "ID",
	  "with --host: the host's machine ID, for plan, status and check\n"
	  "of a snapshot (which leaves it out) with MACAddress=stable" },
	{ ARG_JSON, "json", NULL, "machine-readable output" },
	{ ARG_TIMEOUT, "timeout", "SEC", "wait: give up after SEC seconds (default 120)" },
	{ ARG_STRICT, "strict", NULL, "check: warnings count as errors (exit 1)" },
	{ ARG_NO_COLOR, "no-color", NULL, "no colors (also when NO_COLOR is set)" },
	{ ARG_NO_PAGER, "no-pager", NULL, "accepted for compatibility; output is never paged" },
	{ ARG_VERSION, "version", NULL, "the version" },
	{ ARG_K8S_NOTIFY, "k8s-notify", "FILE",
	  "check, apply, reset: the Kubernetes client asked about the credentials\n"
	  "(an absolute path; default " LIBEXECDIR "/sriov-persist/k8s-notify)",
	  CLI_CHECK_PROGRAM },
	{ ARG_OUTPUT, "output", "FILE",
	  "metrics: replace FILE with them (atomically) rather than print them" },
	{ ARG_OUTPUT_DIR, "output-dir", "DIR", "import: the directory the layout files go to" },
	{ ARG_NODE, "node", "NAME",
	  "compare: the node state of node NAME (default: the one named\n"
	  "for this host)" },
};

static const struct cli_program program = {
	.options = own_options,
	.n_options = ELEMENTSOF(own_options),
	.column = 27,
	.takes_root = true,
};

static void help(void)
{
	printf("Usage: sriovctl [OPTIONS] COMMAND [ARGS]\n"
	       "\n"
	       "Commands:\n"
	       "  status [PF] [--json]     PFs and VFs: desired vs actual, state, last error\n"
	       "  plan [PF] [--json]       what apply would do; exit 10 when changes are pending\n"
	       "  apply [PF]               apply the layouts now\n"
	       "  reset [PF...]            remove what sriov-persist created on PFs whose layout\n"
	       "                           was removed (disruptive; all such PFs when none named)\n"
	       "  cat [PF]                 the merged layout of a PF, each value with its file:line\n"
	       "  check [FILE...]          validate layout and main config files\n"
	       "  snapshot                 the host's SR-IOV state as JSON\n"
	       "  metrics [PF]             PF states and VF counters for Prometheus (text format)\n"
	       "  wait [--timeout SEC]     until every configured PF is applied (the boot gate)\n"
	       "  import --output-dir DIR FILE|-\n"
	       "                           sriov-network-operator policies as layout files\n"
	       "  compare [--node NAME] FILE|-\n"
	       "                           the operator's SriovNetworkNodeState against what\n"
	       "                           applying the layouts would leave; exit 1 on a difference\n"
	       "status, plan, apply and reset go through sriov-persistd when it runs (not with the\n"
	       "options that name a host, layouts or directories).\n"
	       "\n"
	       "Options:\n");
	cli_print_options(&program, stdout);
}

/* The options that make sriovctl work here rather than ask the daemon, as
 * given: " --host FILE --config-dir DIR". */
static int note_local_option(struct ctl *c, int opt, const char *arg)
{
	char *all = strdup_printf("%s --%s %s", strempty(c->local_options),
				  cli_find(&program, opt)->name, arg);

	if (!all)
		return -ENOMEM;
	free(c->local_options);
	c->local_options = all;
	c->local = true;
	return 0;
}

/* Any number of seconds up to UINT32_MAX (136 years) is waited exactly:
 * wait polls at most an hour at a time. */
static int parse_timeout(struct ctl *c, const char *arg)
{
	uint32_t sec;
	int r;

	r = safe_atou32(arg, 10, &sec);
	if (r == -ERANGE) {
		fprintf(stderr, "--timeout=%s: at most %" PRIu32 " seconds\n", arg, UINT32_MAX);
		return -EXIT_USAGE;
	}
	if (r < 0) {
		fprintf(stderr, "--timeout=%s: must be a number of seconds\n", arg);
		return -EXIT_USAGE;
	}
	c->timeout = (usec_t)sec * USEC_PER_SEC;
	return 0;
}

static int parse_machine_id(struct ctl *c, const char *arg)
{
	sd_id128_t id;

	if (sd_id128_from_string(arg, &id) < 0 || sd_id128_is_null(id)) {
		fprintf(stderr, "--machine-id=%s: must be 32 hex digits, as in /etc/machine-id\n",
			arg);
		return -EXIT_USAGE;
	}
	memcpy(c->machine_id, id.bytes, sizeof(c->machine_id));
	c->has_machine_id = true;
	return 0;
}

struct parsed {
	struct cli_paths paths;
	const char *machine_id;
	bool no_color;
};

/* One of sriovctl's own options: 1 to go on, 0 to exit successfully,
 * -EXIT_USAGE on bad usage. */
static int parse_own_option(struct ctl *c, struct parsed *p, int opt, const char *arg)
{
	switch (opt) {
	case ARG_JSON:
		c->json = true;
		return 1;
	case ARG_NO_COLOR:
		p->no_color = true;
		return 1;
	case ARG_NO_PAGER:
		return 1;
	case ARG_STRICT:
		c->strict = true;
		return 1;
	case ARG_TIMEOUT:
		return parse_timeout(c, arg) < 0 ? -EXIT_USAGE : 1;
	case ARG_OUTPUT:
		c->output = arg;
		return 1;
	case ARG_MACHINE_ID:
		p->machine_id = arg;
		return 1;
	case ARG_K8S_NOTIFY:
		c->k8s_notify = arg;
		return 1;
	case ARG_OUTPUT_DIR:
		c->output_dir = arg;
		return 1;
	case ARG_NODE:
		c->node = arg;
		return 1;
	case CLI_OPT_HELP:
		help();
		return 0;
	case ARG_VERSION:
		printf("sriovctl %s\n", VERSION);
		return 0;
	default:
		return -EXIT_USAGE;
	}
}

/* What the options say together: 1 to go on, < 0 on bad usage. */
static int finish_options(struct ctl *c, const struct parsed *p)
{
	char why[CLI_ERROR_MAX];
	int r;

	/* the missing --host first: without it no machine ID is taken */
	if (p->machine_id && !p->paths.host) {
		fprintf(stderr, "--machine-id: only with --host; this machine's own is read\n");
		return -EXIT_USAGE;
	}
	if (p->machine_id && (r = parse_machine_id(c, p->machine_id)) < 0)
		return r;
	if (cli_paths_check(&p->paths, why) < 0) {
		fprintf(stderr, "%s\n", why);
		return -EXIT_USAGE;
	}
	c->host_path = p->paths.host;
	c->config_dir = p->paths.config_dir;
	c->main_config = p->paths.main_config;
	c->color = !p->no_color && isatty(STDOUT_FILENO);
	return 1;
}

/* Returns 1 to go on, 0 to exit successfully, -EXIT_USAGE on bad usage. */
static int parse_argv(struct ctl *c, int argc, char **argv)
{
	struct parsed p = { .no_color = getenv("NO_COLOR") != NULL };
	char why[CLI_ERROR_MAX];
	int opt, r;

	while ((opt = cli_next(&program, argc, argv)) >= 0) {
		if (cli_option_check(&program, opt, optarg, why) < 0) {
			fprintf(stderr, "%s\n", why);
			return -EXIT_USAGE;
		}
		if (!cli_paths_set(&p.paths, opt, optarg)) {
			r = parse_own_option(c, &p, opt, optarg);
			if (r <= 0)
				return r;
		} else if (note_local_option(c, opt, optarg) < 0) {
			fprintf(stderr, "Out of memory\n");
			return -EXIT_FAIL;
		}
	}
	r = finish_options(c, &p);
	if (r <= 0)
		return r;
	r = cli_paths_root(&p.paths, &c->root, &c->runtime_dir, &c->state_dir, why);
	if (r == -ENOMEM) {
		fprintf(stderr, "Out of memory\n");
		return -EXIT_FAIL;
	}
	if (r < 0) {
		fprintf(stderr, "%s\n", why);
		return -EXIT_USAGE;
	}
	c->args = argv + optind;
	c->n_args = argc - optind;
	return 1;
}

int main(int argc, char **argv)
{
	struct ctl c = { .timeout = 120 * USEC_PER_SEC };
	int r = EXIT_USAGE;

	r = parse_argv(&c, argc, argv);
	if (r <= 0)
		goto out;
	if (c.n_args == 0) {
		fprintf(stderr, "sriovctl: no command given; see sriovctl --help\n");
		r = -EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		if (!streq(verbs[i].name, c.args[0]))
			continue;
		c.args++;
		c.n_args--;
		if (c.n_args < verbs[i].min_args || c.n_args > verbs[i].max_args) {
			fprintf(stderr, "%s: wrong number of arguments\n", verbs[i].name);
			r = -EXIT_USAGE;
			goto out;
		}
		if (verbs[i].drives_host && c.root && !c.host_path) {
			fprintf(stderr,
				"%s: --root only with --host: the files under %s are not this "
				"machine's, and the hardware there cannot be driven from here\n",
				verbs[i].name, c.root);
			r = -EXIT_USAGE;
			goto out;
		}
		if (verbs[i].daemon && !c.local)
			c.bus = bus_client_open();
		r = -verbs[i].run(&c);
		goto out;
	}
	fprintf(stderr, "Unknown command '%s'; see sriovctl --help\n", c.args[0]);
	r = -EXIT_USAGE;
out:
	sd_bus_flush_close_unref(c.bus);
	free(c.runtime_dir);
	free(c.state_dir);
	free(c.root);
	free(c.local_options);
	return r < 0 ? -r : 0;
}

int ctl_open_host(struct ctl *c, struct host **ret)
{
	char error[HOST_ERROR_MAX];
	int r;

	if (!c->host_path) {
		const struct host_linux_options o = { .root = c->root, .vf_stats = c->vf_stats };

		r = host_linux_open(&o, ret);
		if (r == -EXDEV)
			fprintf(stderr, "--root=%s: /etc/machine-id %s; refusing it\n", c->root,
				root_strerror(r));
		else if (r < 0)
			fprintf(stderr, "Cannot open this host's sysfs and netlink: %s\n",
				strerror(-r));
		return r;
	}
	r = host_sim_open(c->host_path, ret, error);
	if (r >= 0 && c->root && (r = host_sim_set_root(*ret, c->root)) < 0)
		*ret = host_free(*ret);
	if (r < 0 && error[0])
		fprintf(stderr, "%s\n", error);
	else if (r < 0)
		fprintf(stderr, "%s: cannot open the simulated host: %s\n", c->host_path,
			read_strerror(r));
	return r;
}

const char *ctl_input_name(const char *path)
{
	return streq(path, "-") ? "<stdin>" : path;
}

#define INPUT_MAX (16u << 20)

int ctl_read_input(const char *path, char **ret)
{
	_cleanup_free_ char *text = NULL;
	size_t size = 0;
	int r;

	r = streq(path, "-") ? read_fd(STDIN_FILENO, INPUT_MAX, &text, &size) :
			       read_file_at(AT_FDCWD, path, INPUT_MAX, &text, &size);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", ctl_input_name(path),
			r == -EFBIG ? "larger than 16 MiB" : read_strerror(r));
		return r;
	}
	if (strlen(text) != size) {
		fprintf(stderr, "%s: has a NUL byte, not a YAML text\n", ctl_input_name(path));
		return -EINVAL;
	}
	*ret = TAKE_PTR(text);
	return 0;
}

int ctl_load_layouts(struct ctl *c, struct layout_set **ret)
{
	int r;

	r = layout_set_load_root(c->root, c->config_dir, ret);
	if (r >= 0) {
		r = layout_set_load_others(*ret, c->root);
		if (r < 0)
			*ret = layout_set_free(*ret);
	}
	if (r < 0)
		fprintf(stderr, "Loading layouts failed: %s\n", strerror(-r));
	return r;
}

char *ctl_first_error(const struct diag_list *diags)
{
	for (size_t i = 0; i < diags->n; i++)
		if (diags->items[i].level == DIAG_ERROR)
			return diag_format(&diags->items[i]);
	return NULL;
}

int ctl_load_mainconf(struct ctl *c, struct mainconf *ret, char **ret_first_error)
{
	struct diag_list diags = {};
	int r;

	r = mainconf_load_root(c->root, c->main_config, ret, &diags);
	ctl_print_diags(&diags);
	if (r >= 0 && diag_count(&diags, DIAG_ERROR) > 0) {
		fprintf(stderr, "The main configuration has errors; fix them first\n");
		if (ret_first_error) {
			*ret_first_error = ctl_first_error(&diags);
			r = *ret_first_error ? 0 : -ENOMEM;
		} else
			r = -EINVAL;
		if (r < 0)
			mainconf_done(ret);
	} else if (r < 0) {
		fprintf(stderr, "Loading the main configuration failed: %s\n", strerror(-r));
	}
	diag_list_done(&diags);
	return r;
}

int ctl_load_all(struct ctl *c, struct host **ret_host, struct layout_set **ret_set,
		 struct mainconf *ret_conf, bool hold_on_errors)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	_cleanup_free_ char *first = NULL;
	int r;

	r = ctl_open_host(c, &h);
	if (r >= 0)
		r = ctl_load_layouts(c, &set);
	if (r < 0)
		return r;
	ctl_print_diags(&set->diags);
	r = ctl_load_mainconf(c, ret_conf, hold_on_errors ? &first : NULL);
	if (r < 0)
		return r;
	layout_set_use_mainconf(set, ret_conf);
	c->main_broken = first != NULL;
	if (first && layout_set_main_broken(set, first) < 0) {
		mainconf_done(ret_conf);
		return -ENOMEM;
	}
	*ret_host = TAKE_PTR(h);
	*ret_set = TAKE_PTR(set);
	return 0;
}

void ctl_print_diags(const struct diag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		_cleanup_free_ char *s = diag_format(&l->items[i]);

		fprintf(stderr, "%s\n", s ?: "(out of memory)");
	}
}

void ctl_on_action(const struct pf_state *pf, const struct action *a, int r, const char *detail,
		   void *userdata)
{
	static char last[PCI_ADDR_MAX];
	const struct ctl_run *x = userdata;
	const struct ctl *c = x->c;
	_cleanup_free_ char *d = action_describe(a);

	if (!streq(last, pf->pci)) {
		_cleanup_free_ char *who = pf_describe(pf);

		printf("%s: %s\n", strna(who), c->acting);
		snprintf(last, sizeof(last), "%s", pf->pci);
	}
	if (r >= 0)
		printf("  %s %s\n", ctl_paint(c, ANSI_GREEN, "done"), strna(d));
	else
		printf("  %s %s: %s%s%s\n", ctl_paint(c, ANSI_RED, "FAIL"), strna(d), strerror(-r),
		       detail && *detail ? ": " : "", strempty(detail));
	fflush(stdout);
}

const char *ctl_paint(const struct ctl *c, const char *color, const char *s)
{
	static char buf[4][256];
	static unsigned k;

	if (!c->color)
		return s;
	k = (k + 1) % ELEMENTSOF(buf);
	snprintf(buf[k], sizeof(buf[k]), "\033[%sm%s\033[0m", color, s);
	return buf[k];
}

const char *ctl_format_time(usec_t t, char *buf, size_t size)
{
	time_t sec = (time_t)(t / USEC_PER_SEC);
	struct tm tm;

	if (t == 0 || !localtime_r(&sec, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, size, "-");
	return buf;
}
