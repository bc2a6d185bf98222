/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "apply.h"
#include "host.h"
#include "layout.h"
#include "mainconf.h"

/* Exit codes (PRODUCT.md). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_CHANGES = 10,
};

struct ctl {
	const char *host_path;	 /* --host: the simulated host */
	const char *config_dir;	 /* --config-dir */
	const char *main_config; /* --main-config */
	char *runtime_dir;	 /* status and locks */
	char *state_dir;	 /* what we created */
	bool json;
	bool strict;
	bool color;
	usec_t timeout; /* wait --timeout */
	char **args;	/* operands after the verb */
	int n_args;
};

/* The shared setup of the verbs; each prints its own error and returns
 * a negative errno on failure. */
int ctl_open_host(struct ctl *c, struct host **ret);
int ctl_load_layouts(struct ctl *c, struct layout_set **ret);
int ctl_load_mainconf(struct ctl *c, struct mainconf *ret);
/* Prints diagnostics to stderr, "file:line: message". */
void ctl_print_diags(const struct diag_list *l);
/* An ANSI color around s when colors are on; returns a static buffer. */
const char *ctl_paint(const struct ctl *c, const char *color, const char *s);
#define ANSI_RED "31"
#define ANSI_GREEN "32"
#define ANSI_YELLOW "33"
#define ANSI_BOLD "1"
const char *ctl_format_time(usec_t t, char *buf, size_t size);

int verb_check(struct ctl *c);
int verb_plan(struct ctl *c);
int verb_apply(struct ctl *c);
int verb_status(struct ctl *c);
int verb_snapshot(struct ctl *c);
int verb_wait(struct ctl *c);

/* Every PF of the host with its desired state and plan, for plan and status. */
struct pf_view {
	const struct pf_state *pf;
	struct pf_desired *desired; /* NULL: no layout selects it */
	struct plan *plan;	    /* NULL when unconfigured or held */
};

struct host_view {
	struct host_state *hs;
	struct layout_set *set;
	struct pf_view *pfs;
	size_t n_pfs;
	struct diag_list diags;
};

/* Reads the host and the layouts; only the PF named in c->args[0] when given. */
int ctl_host_view(struct ctl *c, struct host_view *ret);
void host_view_done(struct host_view *v);
