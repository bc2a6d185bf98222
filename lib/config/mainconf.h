/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The main configuration, sriov-persist.conf(5). */

#include <limits.h>

#include "diag.h"

#define MAINCONF_PATH_DEFAULT "/etc/sriov-persist/sriov-persist.conf"

enum drift_mode {
	DRIFT_MODE_REPAIR,
	DRIFT_MODE_REPORT,
	_DRIFT_MODE_MAX,
	_DRIFT_MODE_INVALID = -EINVAL,
};

enum disruption_policy {
	DISRUPTION_POLICY_IMMEDIATE,
	DISRUPTION_POLICY_DRAIN,
	DISRUPTION_POLICY_NEVER,
	_DISRUPTION_POLICY_MAX,
	_DISRUPTION_POLICY_INVALID = -EINVAL,
};

/* [Reboot] KernelArguments=: check (say which IOMMU arguments are missing),
 * or manage (add them through the boot loader's tool; a reboot then). */
enum kernel_arguments {
	KERNEL_ARGUMENTS_CHECK,
	KERNEL_ARGUMENTS_MANAGE,
	_KERNEL_ARGUMENTS_MAX,
	_KERNEL_ARGUMENTS_INVALID = -EINVAL,
};

enum reboot_policy {
	REBOOT_POLICY_NEVER,
	REBOOT_POLICY_COORDINATED,
	REBOOT_POLICY_IMMEDIATE,
	_REBOOT_POLICY_MAX,
	_REBOOT_POLICY_INVALID = -EINVAL,
};

/* [RDMA] NetnsMode=: keep (leave the kernel's), or the mode to set. */
enum rdma_netns {
	RDMA_NETNS_KEEP,
	RDMA_NETNS_SHARED,
	RDMA_NETNS_EXCLUSIVE,
	_RDMA_NETNS_MAX,
	_RDMA_NETNS_INVALID = -EINVAL,
};

enum k8s_enabled {
	K8S_ENABLED_AUTO,
	K8S_ENABLED_YES,
	K8S_ENABLED_NO,
	_K8S_ENABLED_MAX,
	_K8S_ENABLED_INVALID = -EINVAL,
};

enum eviction_fallback {
	EVICTION_FALLBACK_DELETE,
	EVICTION_FALLBACK_DELETE_NOW,
	EVICTION_FALLBACK_FAIL,
	_EVICTION_FALLBACK_MAX,
	_EVICTION_FALLBACK_INVALID = -EINVAL,
};

enum drain_pods {
	DRAIN_PODS_SRIOV,
	DRAIN_PODS_ALL,
	_DRAIN_PODS_MAX,
	_DRAIN_PODS_INVALID = -EINVAL,
};

struct mainconf {
	/* [Apply] */
	usec_t apply_timeout;	    /* TimeoutSec=120 */
	usec_t sysfs_write_timeout; /* SysfsWriteTimeoutSec=60 */
	/* [Drift] */
	enum drift_mode drift_mode; /* repair */
	usec_t safety_scan;	    /* SafetyScanSec=0 */
	/* [Disruption] */
	enum disruption_policy disruption_policy; /* drain */
	/* [Reboot] */
	enum kernel_arguments kernel_arguments; /* check */
	enum reboot_policy reboot_policy;	/* coordinated */
	/* a pending reboot for ConnectX firmware settings only is done by a
	 * firmware reset of the cards (mstfwreset level 3) where they offer
	 * one; an int as the enum keys are (0 = no) */
	int firmware_reset;
	/* [RDMA] */
	enum rdma_netns rdma_netns; /* keep */
	/* [Kubernetes] */
	enum k8s_enabled k8s_enabled;		  /* auto */
	char *kubeconfig;			  /* /etc/sriov-persist/kubeconfig */
	char *node_name;			  /* NULL = hostname */
	usec_t drain_timeout;			  /* 300 s */
	enum eviction_fallback eviction_fallback; /* delete */
	enum drain_pods drain_pods;		  /* sriov */
	char *resource_prefix;			  /* intel.com */
	char *device_plugin_namespace;		  /* kube-system */
	char *device_plugin_selector;		  /* app=sriovdp */
	char *device_plugin_config;		  /* NULL = not written */
	uint32_t max_parallel_nodes;		  /* 1 */
	char *lease_namespace;			  /* sriov-persist */
	usec_t retry_max_delay;			  /* 300 s: the backoff's cap */
	/* Not a key: with Enabled=auto, whether mainconf_load found
	 * credentials (the Kubeconfig= file or the in-cluster token) */
	bool k8s_credentials;
	/* Not a key: the file, line and value of the last [Kubernetes]
	 * Enabled= written (an empty value makes it the default again); "",
	 * 0 and "" when none is written */
	char k8s_enabled_file[PATH_MAX];
	unsigned k8s_enabled_line;
	char k8s_enabled_value[16];
	/* Not a key: the file and line of a Kubeconfig= set by hand; "" and 0
	 * when none sets it (or an empty value makes it the default again) */
	char kubeconfig_file[PATH_MAX];
	unsigned kubeconfig_line;
	/* Not a key: the file and line of the [Drift] Mode= in effect; "" and 0
	 * when none is written (or an empty value makes it the default again) */
	char drift_mode_file[PATH_MAX];
	unsigned drift_mode_line;
	/* Not a key: the file and line of the [Disruption] Policy= in effect,
	 * the same way */
	char disruption_policy_file[PATH_MAX];
	unsigned disruption_policy_line;
	/* Not a key: the files parsed, in order (none when no file exists) */
	char **files;
};

/* Fills in the defaults above. -ENOMEM. */
int mainconf_init(struct mainconf *c);
void mainconf_done(struct mainconf *c);
/* The i-th key of the language and its section; NULL past the last. */
const char *mainconf_key_name(size_t i, const char **ret_section);
/* Every key has the same value in a and b. */
bool mainconf_equal(const struct mainconf *a, const struct mainconf *b) _pure_;
/* Every key as "Section.Key=value" lines, to tell one configuration from
 * another (not for people); NULL on ENOMEM. */
char *mainconf_format(const struct mainconf *c);
/* Parses one file over c (later files override earlier values). Errors and
 * warnings go to diags with file:line; 0 even when the text has errors. */
int mainconf_parse_string(struct mainconf *c, const char *path, const char *text,
			  struct diag_list *diags);
/* path (MAINCONF_PATH_DEFAULT when NULL), then the "<path>.d" drop-ins ending in .conf, in lexical
 * order. A missing main file is fine (defaults). */
int mainconf_load(const char *path, struct mainconf *ret, struct diag_list *diags);
/* The same under root (--root DIR; NULL: the host itself): without path,
 * the default and its drop-ins under root (path_under_root()); a path
 * given is read as it is. A default that leads out of root is an error. */
int mainconf_load_root(const char *root, const char *path, struct mainconf *ret,
		       struct diag_list *diags);

/* -EPERM (or -EBADFD: not a regular file) when k8s-notify would refuse the
 * Kubeconfig= file, and why, with the chmod that fixes it, in buf (at least
 * SECRET_REFUSAL_MAX); 0 when it would not, or Kubernetes is off; -ENOENT
 * and other errors of stat() as they are. */
int mainconf_credentials_refusal(const struct mainconf *c, char *buf, size_t size);

/* Decides k8s_credentials (Enabled=auto) from the files there are now, as
 * mainconf_load() does; for a configuration parsed from named files. */
void mainconf_find_credentials(struct mainconf *c);
/* Why [Disruption] Policy=drain makes disruptive changes without a drain
 * ("Kubernetes is not enabled (...)"), or NULL when it does not. */
const char *mainconf_without_drain(const struct mainconf *c) _pure_;
/* Why [Disruption] Policy=never holds a disruptive change, with where it
 * is set and what lifts it: "disruptive changes held by [Disruption]
 * Policy=never in FILE:LINE; set Policy=drain or immediate there to let them run, ...",
 * into buf (truncated to size). */
void mainconf_never_reason(const struct mainconf *c, char *buf, size_t size);
/* "[Section] Key= is not set in any of: FILES" (the files parsed), or
 * that no main configuration file exists: for a message about a key that
 * no file sets, which has no file:line to name. NULL on ENOMEM. */
char *mainconf_not_set(const struct mainconf *c, const char *section, const char *key);
/* Enabled=auto found no credentials although a Kubeconfig= set by hand
 * (kubeconfig_line) names a file: the user meant Kubernetes, and the file
 * is missing or unreadable. */
bool mainconf_kubeconfig_missing(const struct mainconf *c) _pure_;
/* [Kubernetes] Enabled=yes, or auto and mainconf_load found credentials
 * (k8s_credentials) or a Kubeconfig= is set by hand (kubeconfig_line, so
 * that a path that names nothing holds disruptive changes rather than
 * making them without a drain): decided once, when the configuration
 * loads. */
bool mainconf_kubernetes_enabled(const struct mainconf *c);

const char *drift_mode_to_string(enum drift_mode m) _pure_;
const char *disruption_policy_to_string(enum disruption_policy p) _pure_;
const char *reboot_policy_to_string(enum reboot_policy p) _pure_;
