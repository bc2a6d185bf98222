/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriov-persistd: keeps the SR-IOV layouts in place while the system runs.
 * Notices drift through udev and rtnetlink events, applies layout changes,
 * tracks pending reboots, and offers all of it on the system bus. */

#include <signal.h>
#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "cli-options.h"
#include "counters.h"
#include "events.h"
#include "k8s.h"
#include "manager-bus.h"
#include "manager-check.h"
#include "schedule.h"
#include "status.h"

#define K8S_NOTIFY LIBEXECDIR "/sriov-persist/k8s-notify"

enum {
	ARG_K8S_NOTIFY = CLI_OPT_PROGRAM,
	ARG_DEBUG,
	ARG_VERSION,
};

static const struct cli_option own_options[] = {
	{ ARG_K8S_NOTIFY, "k8s-notify", "PATH",
	  "the Kubernetes client, an absolute path\n(default " K8S_NOTIFY ")", CLI_CHECK_PROGRAM },
	{ ARG_DEBUG, "debug", NULL, "log every action" },
	{ ARG_VERSION, "version", NULL, "print the version" },
};

static const struct cli_program program = {
	.options = own_options,
	.n_options = ELEMENTSOF(own_options),
	.column = 22,
};

static void help(void)
{
	printf("Usage: sriov-persistd [OPTIONS]\n\n"
	       "Keeps SR-IOV layouts in place: drift, live changes, pending reboots, D-Bus API.\n\n");
	cli_print_options(&program, stdout);
}

/* 1 = run, 0 = exit 0 (help, version), -EINVAL = usage error. */
static int parse_option(struct manager *m, struct cli_paths *paths, int opt, const char *arg)
{
	if (cli_paths_set(paths, opt, arg))
		return 1;
	switch (opt) {
	case CLI_OPT_HELP:
		help();
		return 0;
	case ARG_K8S_NOTIFY:
		m->k8s_notify = arg;
		return 1;
	case ARG_DEBUG:
		log_debug_enabled = true;
		return 1;
	case ARG_VERSION:
		printf("sriov-persistd %s\n", VERSION);
		return 0;
	default:
		return -EINVAL;
	}
}

/* 1 = run, 0 = exit 0 (help), -EINVAL = usage error. */
static int parse_argv(int argc, char **argv, struct manager *m)
{
	struct cli_paths paths = {};
	char why[CLI_ERROR_MAX];
	int opt, r;

	m->k8s_notify = K8S_NOTIFY;
	while ((opt = cli_next(&program, argc, argv)) >= 0) {
		if (cli_option_check(&program, opt, optarg, why) < 0) {
			fprintf(stderr, "%s\n", why);
			return -EINVAL;
		}
		r = parse_option(m, &paths, opt, optarg);
		if (r <= 0)
			return r;
	}
	if (optind < argc) {
		fprintf(stderr, "sriov-persistd takes no operands\n");
		return -EINVAL;
	}
	if (cli_paths_check(&paths, why) < 0) {
		fprintf(stderr, "%s\n", why);
		return -EINVAL;
	}
	m->host_path = paths.host;
	m->config_dir = paths.config_dir;
	m->main_config = paths.main_config;
	return cli_paths_dirs(&paths, &m->runtime_dir, &m->state_dir) < 0 ? -ENOMEM : 1;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	manager_mark_reload(userdata);
	return 0;
}

static int setup_signals(struct manager *m)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD); /* k8s-notify children, through sd-event */
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	/* no handler: the loop exits */
	r = sd_event_add_signal(m->event, NULL, SIGTERM, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGINT, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
	if (r >= 0)
		r = sd_event_set_watchdog(m->event, true);
	return r;
}

/* The modules in the order they start: each observer registers before the
 * first change it must hear of (the bus before the PFs appear on it). */
static int start(struct manager *m)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	int r;

	r = manager_open_host(m);
	if (r < 0)
		return r;
	r = schedule_new(m);
	if (r >= 0)
		r = k8s_new(m);
	if (r >= 0)
		r = counters_new(m);
	if (r < 0)
		return r;
	r = manager_load_config(m);
	if (r < 0) {
		log_msg(LOG_ERR, "Loading the configuration failed: %s", strerror(-r));
		return r;
	}
	r = host_read(m->host, &hs);
	if (r < 0) {
		log_msg(LOG_ERR, "Reading the host failed: %s%s%s", strerror(-r),
			m->host->error[0] ? ": " : "", m->host->error);
		return r;
	}
	manager_load_reboot(m);
	r = manager_bus_start(m);
	if (r >= 0)
		r = manager_update_cache(m, TAKE_PTR(hs), NULL);
	if (r < 0)
		return r;
	manager_log_unselected(m);
	manager_load_given_up(m);
	r = manager_events_start(m);
	if (r < 0)
		return r;
	k8s_load(m);
	r = manager_check_dirty(m);
	if (r < 0)
		return r;
	/* after the first check: what a crash or the reboot left to finish */
	k8s_start(m);
	return 0;
}

/* The modules' own states first, the core last. */
static struct manager *stop(struct manager *m)
{
	if (!m)
		return NULL;
	m->events = manager_events_free(m->events);
	m->k8s = k8s_free(m->k8s);
	manager_bus_stop(m);
	m->schedule = schedule_free(m->schedule);
	m->counters = counters_free(m->counters);
	return manager_free(m);
}

static inline void stopp(struct manager **m)
{
	stop(*m);
}

int main(int argc, char **argv)
{
	_cleanup_(stopp) struct manager *m = NULL;
	int r;

	r = manager_new(&m);
	if (r < 0) {
		fprintf(stderr, "sriov-persistd: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	r = parse_argv(argc, argv, m);
	if (r <= 0)
		return r == 0 ? EXIT_SUCCESS : 2;
	r = setup_signals(m);
	if (r < 0) {
		log_msg(LOG_ERR, "Setting up the event loop failed: %s", strerror(-r));
		return EXIT_FAILURE;
	}
	r = start(m);
	if (r < 0) {
		(void)sd_notifyf(false, "STATUS=Failed to start: %s\nERRNO=%d", strerror(-r), -r);
		return EXIT_FAILURE;
	}
	(void)sd_notify(false, "READY=1");
	log_msg(LOG_INFO, "Watching %zu PF(s)%s%s", m->n_pfs, m->host_path ? " of " : "",
		strempty(m->host_path));
	r = sd_event_loop(m->event);
	(void)sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
	/* a failed write or removal is logged by manager_save_given_up() itself */
	if (manager_save_given_up(m) == -ENOMEM)
		log_msg(LOG_WARNING, "Saving what failed for the next start failed: %s",
			strerror(ENOMEM));
	if (r < 0) {
		log_msg(LOG_ERR, "Event loop failed: %s", strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
