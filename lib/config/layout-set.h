/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The layouts that apply: every *.conf file of the three directories
 * (sriov-persist.layout(5)), parsed, with their diagnostics. */

#include "layout.h"
#include "mainconf.h"
#include "other-managers.h"

/* The three directories, highest priority first. */
extern const char *const layout_dirs_default[];

/* All layouts, in lexical order of their file names. */
struct layout_set {
	struct layout_file **files;
	size_t n_files;
	struct diag_list diags;
	/* [RDMA] NetnsMode= of the main configuration, which the planner needs
	 * too: copied in by layout_set_use_mainconf(); keep until then */
	enum rdma_netns rdma_netns;
	/* [Reboot] KernelArguments=, the same way */
	enum kernel_arguments kernel_arguments;
	/* [Disruption] Policy=drain without Kubernetes: why a disruptive plan
	 * runs without a drain (a static string), the same way; NULL: it does
	 * not */
	const char *without_drain;
	/* [Disruption] Policy= ("immediate", "drain", "never"), the same way,
	 * and whether it lets a disruptive plan run now (immediate, or drain
	 * without Kubernetes); NULL: no main configuration was given */
	const char *disruption_policy;
	bool disruption_runs;
	/* [Drift] Mode=report, the same way: where it is set ("FILE:LINE"),
	 * for the reason of a drifted PF the daemon leaves as it is; "": Mode=
	 * is repair */
	char drift_report_at[PATH_MAX + 16];
	/* [Disruption] Policy=never, the same way: why it holds a disruptive
	 * change (mainconf_never_reason()); "": another policy */
	char disruption_never[PATH_MAX + 256];
	/* where that Policy=never is set ("FILE:LINE", "the main
	 * configuration" when no line sets it); "": another policy */
	char disruption_never_at[PATH_MAX + 32];
	/* [Disruption] Policy=drain with Kubernetes enabled, where the drain
	 * cannot run (apply_drain_cannot_run()): why an apply defers a
	 * disruptive plan, set by the caller, freed with the set; NULL: it
	 * can, or nobody looked */
	char *drain_cannot_run;
	/* the main configuration's first error ("file:line: message"), for
	 * those that plan what apply would do: apply holds every PF then */
	char *main_error;
	/* files[0] stands for a layout directory that could not be listed or
	 * is refused: it holds every PF, but is no file of theirs */
	bool dir_failed;
	/* the other SR-IOV managers' files (layout_set_load_others()); NULL:
	 * not looked for */
	struct other_configs *others;
};

/* Copies what the planner needs from the main configuration into s. */
void layout_set_use_mainconf(struct layout_set *s, const struct mainconf *c);
/* The main configuration has errors, the first being error: every PF a
 * layout selects is held, as apply holds it. -ENOMEM. */
int layout_set_main_broken(struct layout_set *s, const char *error);

/* Loads every layout from dirs (layout_dirs_default when NULL). */
int layout_set_load(const char *const *dirs, struct layout_set **ret);
/* From dir alone (--config-dir), or from layout_dirs_default when NULL. */
int layout_set_load_dir(const char *dir, struct layout_set **ret);
/* The same under root (--root DIR; NULL: the host itself): the three
 * directories taken under root (conf_files_list_root()); dir, when given,
 * as it is. */
int layout_set_load_root(const char *root, const char *dir, struct layout_set **ret);
/* Reads the other SR-IOV managers' files under root (NULL: the host
 * itself) into s->others, replacing what was read before: a PF a layout
 * selects that one of them configures is held (desired_build()). -ENOMEM. */
int layout_set_load_others(struct layout_set *s, const char *root);
/* Loads the given files (sriovctl check FILE...), in the order given. */
int layout_set_load_files(char *const *paths, struct layout_set **ret);
/* The named files (sriovctl check FILE...) with the layout directory as
 * context: the files of dir (--config-dir), or of the three directories
 * under root, that no named file replaces by name, and the named ones, in
 * the order of their names, as the set they would be on the host. A
 * directory that cannot be read or trusted, or a link out of root, adds
 * nothing. */
int layout_set_load_context(const char *root, const char *dir, char *const *named,
			    struct layout_set **ret);
struct layout_set *layout_set_free(struct layout_set *s);
static inline void layout_set_freep(struct layout_set **s)
{
	layout_set_free(*s);
}
#define _cleanup_layout_set_ _cleanup_(layout_set_freep)
