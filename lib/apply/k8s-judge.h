/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether k8s-notify takes the Kubernetes credentials, in its own words:
 * its "credentials" verb, which reads them as every run does and sends no
 * request. Which kubeconfig it reads, whether that holds a token (a YAML
 * question: the current-context's user) and what it then refuses is
 * k8s-notify's alone: the main package does not link libyaml, and a guess
 * at its rules would pass what it refuses. */

#include "mainconf.h"

#define K8S_NOTIFY_DEFAULT LIBEXECDIR "/sriov-persist/k8s-notify"

struct k8s_judgement {
	char *error;	/* its refusal in its words; NULL when it takes them */
	bool retryable; /* it says running again may cure it */
	bool not_installed;
};

/* With Kubernetes enabled in conf, runs "k8s_notify --main-config
 * main_config credentials" (main_config NULL: its default) and keeps its
 * error; a k8s_notify that is not there is an error too. Nothing with
 * Kubernetes off. -ENOMEM only; k8s_judgement_done() it. */
int k8s_judge(const char *k8s_notify, const char *main_config, const struct mainconf *conf,
	      struct k8s_judgement *ret);
void k8s_judgement_done(struct k8s_judgement *j);
/* Why k8s-notify at path cannot run (k8s_judge()'s words, of a path that
 * is not executable); NULL: out of memory. */
char *k8s_not_installed(const char *path);

/* For apply_options.drain_refusal (userdata: a struct k8s_drain_judge):
 * k8s_judge() once, at the first PF that waits for a drain. A refusal that
 * k8s-notify says running again may cure is none: the drain may run then. */
struct k8s_drain_judge {
	const char *k8s_notify;
	const char *main_config;
	const struct mainconf *conf;
	bool judged;
	struct k8s_judgement judgement;
	char *refusal;
};
int k8s_drain_refusal(void *userdata, const char **ret);
void k8s_drain_judge_done(struct k8s_drain_judge *d);
