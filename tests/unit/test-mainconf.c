/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "mainconf.h"

#define PATH "/etc/sriov-persist/sriov-persist.conf"

static void mainconf_donep(struct mainconf *c)
{
	mainconf_done(c);
}
#define _cleanup_mainconf_ _cleanup_(mainconf_donep)

/* Parses text over the defaults; it must give no diagnostics. */
static void parse_clean(struct mainconf *c, const char *text)
{
	struct diag_list d = {};

	assert_int_equal(mainconf_init(c), 0);
	assert_int_equal(mainconf_parse_string(c, PATH, text, &d), 0);
	for (size_t i = 0; i < d.n; i++)
		print_error("unexpected: %u: %s\n", d.items[i].line, d.items[i].msg);
	assert_int_equal(d.n, 0);
	diag_list_done(&d);
}

/* text must give exactly one diagnostic, at line, saying msg. */
static void expect_diag(const char *text, enum diag_level level, unsigned line, const char *msg)
{
	_cleanup_mainconf_ struct mainconf c = {};
	struct diag_list d = {};

	assert_int_equal(mainconf_init(&c), 0);
	assert_int_equal(mainconf_parse_string(&c, PATH, text, &d), 0);
	for (size_t i = 0; d.n != 1 && i < d.n; i++)
		print_error("got: %u: %s\n", d.items[i].line, d.items[i].msg);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].level, level);
	assert_string_equal(d.items[0].file, PATH);
	assert_int_equal(d.items[0].line, line);
	assert_string_equal(d.items[0].msg, msg);
	diag_list_done(&d);
}

static void expect_error(const char *text, unsigned line, const char *msg)
{
	expect_diag(text, DIAG_ERROR, line, msg);
}

static void assert_defaults(const struct mainconf *c)
{
	assert_int_equal(c->apply_timeout, 120 * USEC_PER_SEC);
	assert_int_equal(c->sysfs_write_timeout, 60 * USEC_PER_SEC);
	assert_int_equal(c->drift_mode, DRIFT_MODE_REPAIR);
	assert_int_equal(c->safety_scan, 0);
	assert_int_equal(c->disruption_policy, DISRUPTION_POLICY_DRAIN);
	assert_int_equal(c->kernel_arguments, KERNEL_ARGUMENTS_CHECK);
	assert_int_equal(c->reboot_policy, REBOOT_POLICY_COORDINATED);
	assert_int_equal(c->firmware_reset, 0);
	assert_int_equal(c->rdma_netns, RDMA_NETNS_KEEP);
	assert_int_equal(c->k8s_enabled, K8S_ENABLED_AUTO);
	assert_string_equal(c->kubeconfig, "/etc/sriov-persist/kubeconfig");
	assert_null(c->node_name);
	assert_int_equal(c->drain_timeout, 300 * USEC_PER_SEC);
	assert_int_equal(c->eviction_fallback, EVICTION_FALLBACK_DELETE);
	assert_int_equal(c->drain_pods, DRAIN_PODS_SRIOV);
	assert_string_equal(c->resource_prefix, "intel.com");
	assert_string_equal(c->device_plugin_namespace, "kube-system");
	assert_string_equal(c->device_plugin_selector, "app=sriovdp");
	assert_null(c->device_plugin_config);
	assert_int_equal(c->max_parallel_nodes, 1);
	assert_string_equal(c->lease_namespace, "sriov-persist");
	assert_int_equal(c->retry_max_delay, 300 * USEC_PER_SEC);
}

static void test_defaults(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};

	assert_int_equal(mainconf_init(&c), 0);
	assert_defaults(&c);
	mainconf_done(&c);
	assert_null(c.kubeconfig);
	mainconf_done(NULL);
}

/* Two configurations format alike exactly when every key is the same. */
static void test_format(void **state)
{
	_cleanup_mainconf_ struct mainconf a = {}, b = {}, c = {};
	_cleanup_free_ char *fa = NULL, *fb = NULL, *fc = NULL;

	parse_clean(&a, "[Kubernetes]\nEnabled=yes\n");
	parse_clean(&b, "[Kubernetes]\nEnabled=yes\n# a comment\n");
	parse_clean(&c, "[Kubernetes]\nEnabled=yes\nKubeconfig=/etc/other/kubeconfig\n");
	fa = mainconf_format(&a);
	fb = mainconf_format(&b);
	fc = mainconf_format(&c);
	assert_non_null(fa);
	assert_string_equal(fa, fb);
	assert_string_not_equal(fa, fc);
	assert_non_null(strstr(fc, "Kubernetes.Kubeconfig=/etc/other/kubeconfig\n"));
}

static void test_to_string(void **state)
{
	assert_string_equal(drift_mode_to_string(DRIFT_MODE_REPAIR), "repair");
	assert_string_equal(drift_mode_to_string(DRIFT_MODE_REPORT), "report");
	assert_null(drift_mode_to_string(_DRIFT_MODE_MAX));
	assert_null(drift_mode_to_string(_DRIFT_MODE_INVALID));
	assert_string_equal(disruption_policy_to_string(DISRUPTION_POLICY_IMMEDIATE), "immediate");
	assert_string_equal(disruption_policy_to_string(DISRUPTION_POLICY_DRAIN), "drain");
	assert_string_equal(disruption_policy_to_string(DISRUPTION_POLICY_NEVER), "never");
	assert_null(disruption_policy_to_string(_DISRUPTION_POLICY_MAX));
	assert_string_equal(reboot_policy_to_string(REBOOT_POLICY_NEVER), "never");
	assert_string_equal(reboot_policy_to_string(REBOOT_POLICY_COORDINATED), "coordinated");
	assert_string_equal(reboot_policy_to_string(REBOOT_POLICY_IMMEDIATE), "immediate");
	assert_null(reboot_policy_to_string(_REBOOT_POLICY_INVALID));
}

static void test_every_key(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};

	parse_clean(&c, "[Apply]\nTimeoutSec=1\nSysfsWriteTimeoutSec=31536000\n"
			"[Drift]\nMode=report\nSafetyScanSec=3600\n"
			"[Disruption]\nPolicy=never\n"
			"[Reboot]\nKernelArguments=manage\nPolicy=immediate\nFirmwareReset=on\n"
			"[RDMA]\nNetnsMode=exclusive\n"
			"[Kubernetes]\nEnabled=yes\nKubeconfig=/var/lib/sriov-persist/kc\n"
			"NodeName=worker-7.example.com\nDrainTimeoutSec=0\nEvictionFallback=fail\n"
			"DrainPods=all\nResourcePrefix=nvidia.com\nDevicePluginNamespace=sriov\n"
			"DevicePluginSelector=app=sriovdp,example.com/tier=net_1,empty=\n"
			"DevicePluginConfig=/etc/pcidp/config.json\nMaxParallelNodes=1000\n"
			"LeaseNamespace=leases-1\nRetryMaxDelaySec=1h\n");
	assert_int_equal(c.apply_timeout, 1 * USEC_PER_SEC);
	assert_int_equal(c.sysfs_write_timeout, 31536000 * USEC_PER_SEC);
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPORT);
	assert_int_equal(c.safety_scan, 3600 * USEC_PER_SEC);
	assert_int_equal(c.disruption_policy, DISRUPTION_POLICY_NEVER);
	assert_int_equal(c.kernel_arguments, KERNEL_ARGUMENTS_MANAGE);
	assert_int_equal(c.reboot_policy, REBOOT_POLICY_IMMEDIATE);
	assert_int_equal(c.firmware_reset, 1);
	assert_int_equal(c.rdma_netns, RDMA_NETNS_EXCLUSIVE);
	assert_int_equal(c.k8s_enabled, K8S_ENABLED_YES);
	assert_string_equal(c.kubeconfig, "/var/lib/sriov-persist/kc");
	assert_string_equal(c.node_name, "worker-7.example.com");
	assert_int_equal(c.drain_timeout, 0);
	assert_int_equal(c.eviction_fallback, EVICTION_FALLBACK_FAIL);
	assert_int_equal(c.drain_pods, DRAIN_PODS_ALL);
	assert_string_equal(c.resource_prefix, "nvidia.com");
	assert_string_equal(c.device_plugin_namespace, "sriov");
	assert_string_equal(c.device_plugin_selector, "app=sriovdp,example.com/tier=net_1,empty=");
	assert_string_equal(c.device_plugin_config, "/etc/pcidp/config.json");
	assert_int_equal(c.max_parallel_nodes, 1000);
	assert_string_equal(c.lease_namespace, "leases-1");
	assert_int_equal(c.retry_max_delay, 3600 * USEC_PER_SEC);
}

static void test_product_example(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};

	/* the example of sriov-persist.conf(5), comments included: all defaults */
	parse_clean(&c, "# /etc/sriov-persist/sriov-persist.conf\n[Apply]\n# for one PF\n"
			"TimeoutSec=120\nSysfsWriteTimeoutSec=60\n[Drift]\n# repair | report\n"
			"Mode=repair\nSafetyScanSec=0\n[Disruption]\nPolicy=drain\n[Reboot]\n"
			"KernelArguments=check\nPolicy=coordinated\n[Kubernetes]\nEnabled=auto\n"
			"Kubeconfig=/etc/sriov-persist/kubeconfig\nNodeName=\nDrainTimeoutSec=300\n"
			"EvictionFallback=delete\nDrainPods=sriov\nResourcePrefix=intel.com\n"
			"DevicePluginNamespace=kube-system\nDevicePluginSelector=app=sriovdp\n"
			"DevicePluginConfig=\nMaxParallelNodes=1\nLeaseNamespace=sriov-persist\n");
	assert_defaults(&c);
}

static void test_enabled_spellings(void **state)
{
	static const struct {
		const char *s;
		enum k8s_enabled v;
	} cases[] = {
		{ "auto", K8S_ENABLED_AUTO }, { "yes", K8S_ENABLED_YES },
		{ "true", K8S_ENABLED_YES },  { "on", K8S_ENABLED_YES },
		{ "1", K8S_ENABLED_YES },     { "no", K8S_ENABLED_NO },
		{ "false", K8S_ENABLED_NO },  { "off", K8S_ENABLED_NO },
		{ "0", K8S_ENABLED_NO },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_mainconf_ struct mainconf c = {};
		_cleanup_free_ char *text = strdup_printf("[Kubernetes]\nEnabled=%s\n", cases[i].s);

		parse_clean(&c, text);
		assert_int_equal(c.k8s_enabled, cases[i].v);
	}
}

/* Where Enabled= was written, empty or not; a key no file sets is said as
 * such, with the files that were read. */
static void test_enabled_written_or_not(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};
	_cleanup_free_ char *unset = NULL, *none = NULL;

	(void)state;
	parse_clean(&c, "[Kubernetes]\nNodeName=node1\n");
	assert_int_equal(c.k8s_enabled_line, 0);
	assert_string_equal(c.k8s_enabled_value, "");
	unset = mainconf_not_set(&c, "Kubernetes", "Enabled");
	assert_string_equal(unset, "[Kubernetes] Enabled= is not set in any of: " PATH);
	c.disruption_policy = DISRUPTION_POLICY_DRAIN;
	assert_string_equal(mainconf_without_drain(&c),
			    "Kubernetes is not enabled ([Kubernetes] Enabled= is not set, and "
			    "auto, its default, found no credentials)");
	assert_int_equal(mainconf_parse_string(&c, "/x.conf.d/10.conf",
					       "[Kubernetes]\nEnabled=true\n"
					       "Enabled=\n",
					       NULL),
			 0);
	assert_string_equal(c.k8s_enabled_file, "/x.conf.d/10.conf");
	assert_int_equal(c.k8s_enabled_line, 3);
	assert_string_equal(c.k8s_enabled_value, "");
	assert_int_equal(c.k8s_enabled, K8S_ENABLED_AUTO);
	assert_string_equal(mainconf_without_drain(&c),
			    "Kubernetes is not enabled ([Kubernetes] Enabled= is empty, and auto, "
			    "its default, found no credentials)");
	mainconf_done(&c);
	assert_int_equal(mainconf_init(&c), 0);
	none = mainconf_not_set(&c, "Kubernetes", "Kubeconfig");
	assert_string_equal(
		none, "[Kubernetes] Kubeconfig= is not set: no main configuration file exists");
}

/* Where the [Drift] Mode= in effect is set: the last file and line that
 * sets it; an empty value (the default again) and an invalid one set none. */
static void test_drift_mode_where(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};
	struct diag_list d = {};

	(void)state;
	parse_clean(&c, "[Apply]\nTimeoutSec=60\n");
	assert_int_equal(c.drift_mode_line, 0);
	assert_string_equal(c.drift_mode_file, "");
	assert_int_equal(
		mainconf_parse_string(&c, PATH, "# watch only\n[Drift]\nMode=report\n", NULL), 0);
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPORT);
	assert_string_equal(c.drift_mode_file, PATH);
	assert_int_equal(c.drift_mode_line, 3);
	assert_int_equal(
		mainconf_parse_string(&c, "/x.conf.d/10.conf", "[Drift]\nMode=bogus\n", &d), 0);
	assert_int_equal(d.n, 1);
	diag_list_done(&d);
	assert_string_equal(c.drift_mode_file, PATH);
	assert_int_equal(c.drift_mode_line, 3);
	assert_int_equal(mainconf_parse_string(&c, "/x.conf.d/20.conf", "[Drift]\n\nMode=\n", NULL),
			 0);
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPAIR);
	assert_string_equal(c.drift_mode_file, "");
	assert_int_equal(c.drift_mode_line, 0);
}

#define TS_EG "e.g. 90, 90s, 5min 30s"

static void test_invalid_values(void **state)
{
	static const struct {
		const char *section, *line, *msg;
	} cases[] = {
		{ "Apply", "TimeoutSec=0",
		  "TimeoutSec=0: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Apply", "TimeoutSec=2 fortnights",
		  "TimeoutSec=2 fortnights: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Apply", "TimeoutSec=500ms",
		  "TimeoutSec=500ms: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Apply", "TimeoutSec=366d",
		  "TimeoutSec=366d: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Apply", "TimeoutSec=min",
		  "TimeoutSec=min: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Apply", "SysfsWriteTimeoutSec=31536001",
		  "SysfsWriteTimeoutSec=31536001: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Apply", "SysfsWriteTimeoutSec=-5",
		  "SysfsWriteTimeoutSec=-5: must be a time span of 1..31536000 seconds, " TS_EG },
		{ "Drift", "Mode=fix", "Mode=fix: must be repair or report" },
		{ "Drift", "SafetyScanSec=1.5.5",
		  "SafetyScanSec=1.5.5: must be 0 (off) or a time span of 10..31536000 seconds, " TS_EG },
		{ "Drift", "SafetyScanSec=1ms",
		  "SafetyScanSec=1ms: must be 0 (off) or a time span of 10..31536000 seconds, " TS_EG },
		{ "Drift", "SafetyScanSec=9s",
		  "SafetyScanSec=9s: must be 0 (off) or a time span of 10..31536000 seconds, " TS_EG },
		{ "Kubernetes", "DrainTimeoutSec=500ms",
		  "DrainTimeoutSec=500ms: must be 0 (each pod asked once) or a time span of "
		  "1..31536000 seconds, " TS_EG },
		{ "Disruption", "Policy=drain # k8s",
		  "Policy=drain # k8s: a '#' after a value is part of the value; comments are whole "
		  "lines starting with '#' or ';' (the value must be immediate, drain or never)" },
		{ "Reboot", "KernelArguments=yes", "KernelArguments=yes: must be check or manage" },
		{ "Reboot", "Policy=drain",
		  "Policy=drain: must be never, coordinated or immediate" },
		{ "Reboot", "FirmwareReset=level3",
		  "FirmwareReset=level3: must be a boolean (yes/no/true/false/on/off/1/0)" },
		{ "Kubernetes", "Enabled=maybe",
		  "Enabled=maybe: must be auto or a boolean (yes/no/true/false/on/off/1/0)" },
		{ "Kubernetes", "Kubeconfig=kubeconfig",
		  "Kubeconfig=kubeconfig: must be an absolute path without '..' or control characters" },
		{ "Kubernetes", "Kubeconfig=/etc/../root/kc",
		  "Kubeconfig=/etc/../root/kc: must be an absolute path without '..' or control "
		  "characters" },
		{ "Kubernetes", "Kubeconfig=/etc/..",
		  "Kubeconfig=/etc/..: must be an absolute path without '..' or control characters" },
		{ "Kubernetes", "Kubeconfig=/etc/k\x01x",
		  "Kubeconfig=/etc/k\x01x: must be an absolute path without '..' or control "
		  "characters" },
		{ "Kubernetes", "NodeName=Worker-7",
		  "NodeName=Worker-7: must be a DNS subdomain (lower-case letters, digits, '-' and '.', "
		  "at most 253)" },
		{ "Kubernetes", "NodeName=-worker",
		  "NodeName=-worker: must be a DNS subdomain (lower-case letters, digits, '-' and '.', "
		  "at most 253)" },
		{ "Kubernetes", "NodeName=worker..x",
		  "NodeName=worker..x: must be a DNS subdomain (lower-case letters, digits, '-' and "
		  "'.', at most 253)" },
		{ "Kubernetes", "NodeName=worker.",
		  "NodeName=worker.: must be a DNS subdomain (lower-case letters, digits, '-' and '.', "
		  "at most 253)" },
		{ "Kubernetes", "NodeName=worker_7",
		  "NodeName=worker_7: must be a DNS subdomain (lower-case letters, digits, '-' and '.', "
		  "at most 253)" },
		{ "Kubernetes", "DrainTimeoutSec=x",
		  "DrainTimeoutSec=x: must be 0 (each pod asked once) or a time span of "
		  "1..31536000 seconds, " TS_EG },
		{ "Kubernetes", "EvictionFallback=force",
		  "EvictionFallback=force: must be delete, delete-now or fail" },
		{ "Kubernetes", "DrainPods=some", "DrainPods=some: must be sriov or all" },
		{ "Kubernetes", "ResourcePrefix=Intel.com",
		  "ResourcePrefix=Intel.com: must be a DNS subdomain (lower-case letters, digits, '-' "
		  "and '.', at most 253)" },
		{ "Kubernetes", "DevicePluginNamespace=kube.system",
		  "DevicePluginNamespace=kube.system: must be a DNS label (lower-case letters, digits "
		  "and '-', at most 63)" },
		{ "Kubernetes", "LeaseNamespace=kube-",
		  "LeaseNamespace=kube-: must be a DNS label (lower-case letters, digits and '-', at "
		  "most 63)" },
		{ "Kubernetes", "DevicePluginSelector=app",
		  "DevicePluginSelector=app: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginSelector=app=a b",
		  "DevicePluginSelector=app=a b: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginSelector==x",
		  "DevicePluginSelector==x: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginSelector=app=-x",
		  "DevicePluginSelector=app=-x: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginSelector=app=x,",
		  "DevicePluginSelector=app=x,: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginSelector=Example.com/app=x",
		  "DevicePluginSelector=Example.com/app=x: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginSelector=app!=x",
		  "DevicePluginSelector=app!=x: must be key=value labels, separated by ','" },
		{ "Kubernetes", "DevicePluginConfig=config.json",
		  "DevicePluginConfig=config.json: must be an absolute path without '..' or control "
		  "characters" },
		{ "Kubernetes", "MaxParallelNodes=0", "MaxParallelNodes=0: must be 1..1000" },
		{ "Kubernetes", "MaxParallelNodes=1001", "MaxParallelNodes=1001: must be 1..1000" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *text = NULL;

		text = strdup_printf("# x\n[%s]\n%s\n", cases[i].section, cases[i].line);
		expect_error(text, 3, cases[i].msg);
	}
}

static void test_lengths(void **state)
{
	char label[70], sub[300], text[400];

	/* a 63-character label is fine, 64 is not */
	memset(label, 'a', 63);
	label[63] = '\0';
	snprintf(text, sizeof(text), "[Kubernetes]\nLeaseNamespace=%s\n", label);
	{
		_cleanup_mainconf_ struct mainconf c = {};

		parse_clean(&c, text);
		assert_string_equal(c.lease_namespace, label);
	}
	strcat(label, "a");
	snprintf(text, sizeof(text), "[Kubernetes]\nLeaseNamespace=%s\n", label);
	expect_error(
		text, 2,
		"LeaseNamespace=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: "
		"must be a DNS label (lower-case letters, digits and '-', at most 63)");

	/* a 253-character subdomain is fine, 254 is not */
	memset(sub, 'a', 253);
	for (size_t i = 50; i < 253; i += 50)
		sub[i] = '.';
	sub[253] = '\0';
	snprintf(text, sizeof(text), "[Kubernetes]\nNodeName=%s\n", sub);
	{
		_cleanup_mainconf_ struct mainconf c = {};

		parse_clean(&c, text);
		assert_string_equal(c.node_name, sub);
	}
	strcat(sub, "a");
	snprintf(text, sizeof(text), "[Kubernetes]\nNodeName=%s\n", sub);
	{
		_cleanup_mainconf_ struct mainconf c = {};
		struct diag_list d = {};

		assert_int_equal(mainconf_init(&c), 0);
		assert_int_equal(mainconf_parse_string(&c, PATH, text, &d), 0);
		assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
		assert_null(c.node_name);
		diag_list_done(&d);
	}
}

/* Unknown keys and sections are errors, with the name likely meant; X-
 * names are the user's own. */
static void test_unknown_things(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};

	expect_diag("[Apply]\nTimeout=5\n", DIAG_ERROR, 2,
		    "unknown key 'Timeout' in [Apply]; did you mean 'TimeoutSec'?");
	expect_diag("[Kubernetes]\nMaxNodes=2\n", DIAG_ERROR, 2,
		    "unknown key 'MaxNodes' in [Kubernetes]; did you mean 'MaxParallelNodes'?");
	expect_diag("[Kubernetes]\nnode_name=worker-1\n", DIAG_ERROR, 2,
		    "unknown key 'node_name' in [Kubernetes]; did you mean 'NodeName'?");
	/* a key of two other sections names both */
	expect_diag("[Drift]\nPolicy=never\n", DIAG_ERROR, 2,
		    "unknown key 'Policy' in [Drift]; it belongs in [Disruption] or [Reboot]");
	expect_diag("[Reboot]\nPolicy=never\nMode=report\n", DIAG_ERROR, 3,
		    "unknown key 'Mode' in [Reboot]; it belongs in [Drift]");
	expect_diag("[Disruption]\nKernelArguments=check\n", DIAG_ERROR, 2,
		    "unknown key 'KernelArguments' in [Disruption]; it belongs in [Reboot]");
	/* no key of the section is near: the nearest of another, with where */
	expect_diag("[Drift]\nPolcy=never\n", DIAG_ERROR, 2,
		    "unknown key 'Polcy' in [Drift]; did you mean 'Policy' of [Disruption] or "
		    "[Reboot]?");
	expect_diag("[Apply]\nNodeNme=worker-1\n", DIAG_ERROR, 2,
		    "unknown key 'NodeNme' in [Apply]; did you mean 'NodeName' of [Kubernetes]?");
	/* a near key of the section wins over one of another */
	expect_diag("[Reboot]\nPolcy=never\n", DIAG_ERROR, 2,
		    "unknown key 'Polcy' in [Reboot]; did you mean 'Policy'?");
	expect_diag("[Drift]\nFoo=1\n", DIAG_ERROR, 2, "unknown key 'Foo' in [Drift]");
	expect_diag("[kubernetes]\nEnabled=yes\n", DIAG_ERROR, 1,
		    "unknown section [kubernetes]; sections are [Apply], [Drift], [Disruption], "
		    "[Reboot], [RDMA] and [Kubernetes]; did you mean 'Kubernetes'?");
	expect_diag("Mode=report\n", DIAG_ERROR, 1, "'Mode' outside of any section");
	expect_diag("[Apply]\nTimeoutSec: 5\n", DIAG_ERROR, 2,
		    "'TimeoutSec: 5': must be Key=value (not Key: value)");
	expect_diag("[Apply\n", DIAG_ERROR, 1, "invalid section header '[Apply': must be [Name]");
	parse_clean(&c, "X-Managed-By=ansible\n[X-Site]\nRack=4\n[Drift]\nX-Why=x\nMode=report\n");
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPORT);
}

/* Time spans as systemd writes them. */
static void test_eviction_fallback(void **state)
{
	static const struct {
		const char *value;
		enum eviction_fallback want;
	} t[] = {
		{ "delete", EVICTION_FALLBACK_DELETE },
		{ "delete-now", EVICTION_FALLBACK_DELETE_NOW },
		{ "fail", EVICTION_FALLBACK_FAIL },
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		_cleanup_mainconf_ struct mainconf c = {};
		_cleanup_free_ char *text =
			strdup_printf("[Kubernetes]\nEvictionFallback=%s\n", t[i].value);

		assert_non_null(text);
		parse_clean(&c, text);
		assert_int_equal(c.eviction_fallback, t[i].want);
	}
}

static void test_time_spans(void **state)
{
	static const struct {
		const char *text;
		usec_t usec;
	} cases[] = {
		{ "90", 90 * USEC_PER_SEC },	     { "5min", 300 * USEC_PER_SEC },
		{ "1h 30min", 5400 * USEC_PER_SEC }, { "1h30m", 5400 * USEC_PER_SEC },
		{ "2 min 5 s", 125 * USEC_PER_SEC }, { "1.5s", 1500 * USEC_PER_MSEC },
		{ "1500ms", 1500 * USEC_PER_MSEC },  { "1d", 86400 * USEC_PER_SEC },
		{ "1w", 604800 * USEC_PER_SEC },     { "3 seconds", 3 * USEC_PER_SEC },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_mainconf_ struct mainconf c = {};
		char text[64];

		snprintf(text, sizeof(text), "[Kubernetes]\nDrainTimeoutSec=%s\n", cases[i].text);
		parse_clean(&c, text);
		assert_int_equal(c.drain_timeout, cases[i].usec);
	}
	static const char *const bad[] = { "", "s", "5 parsecs", "-1s", "1..5", "5min x" };
	usec_t t;

	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_int_equal(parse_timespan(bad[i], &t), -EINVAL);
	assert_int_equal(parse_timespan("99999999999999999999", &t), -ERANGE);
	assert_int_equal(parse_timespan("999999999999w", &t), -ERANGE);
}

static void test_override_and_reset(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {};
	struct diag_list d = {};

	parse_clean(&c, "[Drift]\nMode=report\n[Kubernetes]\nKubeconfig=/x\nNodeName=n1\n"
			"DevicePluginConfig=/y\n[Disruption]\nPolicy=immediate\n");
	/* a second text overrides; an empty value is the default again; a bad value keeps
	 * what was there */
	assert_int_equal(
		mainconf_parse_string(&c, "/second.conf",
				      "[Drift]\nMode=\n[Kubernetes]\nKubeconfig=\n"
				      "NodeName=\nDevicePluginConfig=\nMaxParallelNodes=3\n"
				      "[Disruption]\nPolicy=sometimes\n",
				      &d),
		0);
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPAIR);
	assert_string_equal(c.kubeconfig, "/etc/sriov-persist/kubeconfig");
	assert_null(c.node_name);
	assert_null(c.device_plugin_config);
	assert_int_equal(c.max_parallel_nodes, 3);
	assert_int_equal(c.disruption_policy, DISRUPTION_POLICY_IMMEDIATE);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.items[0].file, "/second.conf");
	assert_int_equal(d.items[0].line, 9);
	/* the same key twice: the last wins */
	assert_int_equal(
		mainconf_parse_string(&c, PATH, "[Apply]\nTimeoutSec=5\nTimeoutSec=7\n", NULL), 0);
	assert_int_equal(c.apply_timeout, 7 * USEC_PER_SEC);
	diag_list_done(&d);
}

/* ---- mainconf_load ---- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_load_dropins(void **state)
{
	char root[] = "/tmp/test-mainconf-XXXXXX", main_path[128], dir[160], p[200];
	_cleanup_mainconf_ struct mainconf c = {};
	struct diag_list d = {};

	assert_non_null(mkdtemp(root));
	snprintf(main_path, sizeof(main_path), "%s/sriov-persist.conf", root);
	snprintf(dir, sizeof(dir), "%s.d", main_path);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(main_path, "[Apply]\nTimeoutSec=10\n[Drift]\nMode=report\n");
	snprintf(p, sizeof(p), "%s/20-b.conf", dir);
	write_file(p, "[Apply]\nTimeoutSec=30\n[Kubernetes]\nDrainPods=all\nMaxParallelNodes=x\n");
	snprintf(p, sizeof(p), "%s/10-a.conf", dir);
	write_file(
		p,
		"[Apply]\nTimeoutSec=20\nSysfsWriteTimeoutSec=5\n[Kubernetes]\nDrainPods=sriov\n");
	snprintf(p, sizeof(p), "%s/30-ignored.txt", dir);
	write_file(p, "[Apply]\nTimeoutSec=99\n");
	snprintf(p, sizeof(p), "%s/.40-hidden.conf", dir);
	write_file(p, "[Apply]\nTimeoutSec=98\n");

	assert_int_equal(mainconf_load(main_path, &c, &d), 0);
	assert_int_equal(c.apply_timeout, 30 * USEC_PER_SEC);
	assert_int_equal(c.sysfs_write_timeout, 5 * USEC_PER_SEC);
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPORT);
	assert_int_equal(c.drain_pods, DRAIN_PODS_ALL);
	assert_int_equal(c.max_parallel_nodes, 1);
	assert_int_equal(d.n, 1);
	snprintf(p, sizeof(p), "%s/20-b.conf", dir);
	assert_string_equal(d.items[0].file, p);
	assert_int_equal(d.items[0].line, 5);
	assert_string_equal(d.items[0].msg, "MaxParallelNodes=x: must be 1..1000");
	mainconf_done(&c);
	diag_list_done(&d);

	/* the main file may be missing; its drop-ins still count */
	unlink(main_path);
	assert_int_equal(mainconf_load(main_path, &c, &d), 0);
	assert_int_equal(c.apply_timeout, 30 * USEC_PER_SEC);
	assert_int_equal(c.drift_mode, DRIFT_MODE_REPAIR);
	assert_int_equal(d.n, 1);
	mainconf_done(&c);
	diag_list_done(&d);

	/* an unreadable main file is an error, and the defaults stand */
	assert_int_equal(mkdir(main_path, 0755), 0);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(mainconf_load(main_path, &c, &d), 0);
	assert_defaults(&c);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].level, DIAG_ERROR);
	assert_string_equal(d.items[0].file, main_path);
	assert_int_equal(d.items[0].line, 0);
	assert_string_equal(d.items[0].msg, "cannot read: Is a directory");
	diag_list_done(&d);

	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_load_missing(void **state)
{
	_cleanup_mainconf_ struct mainconf c = {}, e = {};
	struct diag_list d = {};

	assert_int_equal(mainconf_load("/nonexistent/sriov-persist.conf", &c, &d), 0);
	assert_int_equal(d.n, 0);
	assert_defaults(&c);
	/* whatever this machine has: loading the default path works */
	assert_int_equal(mainconf_load(NULL, &e, NULL), 0);
	assert_non_null(e.resource_prefix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_to_string),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_product_example),
		cmocka_unit_test(test_drift_mode_where),
		cmocka_unit_test(test_enabled_spellings),
		cmocka_unit_test(test_enabled_written_or_not),
		cmocka_unit_test(test_invalid_values),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_unknown_things),
		cmocka_unit_test(test_eviction_fallback),
		cmocka_unit_test(test_time_spans),
		cmocka_unit_test(test_override_and_reset),
		cmocka_unit_test(test_load_dropins),
		cmocka_unit_test(test_load_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
