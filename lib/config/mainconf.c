/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <stddef.h>
#include <unistd.h>

#include "conf-files.h"
#include "conf-parser.h"
#include "mainconf.h"
#include "suggest.h"

#define SEC_MAX 31536000u /* a year */

static const char *const drift_mode_names[_DRIFT_MODE_MAX] = {
	[DRIFT_MODE_REPAIR] = "repair",
	[DRIFT_MODE_REPORT] = "report",
};
static const char *const disruption_policy_names[_DISRUPTION_POLICY_MAX] = {
	[DISRUPTION_POLICY_IMMEDIATE] = "immediate",
	[DISRUPTION_POLICY_DRAIN] = "drain",
	[DISRUPTION_POLICY_NEVER] = "never",
};
static const char *const kernel_arguments_names[_KERNEL_ARGUMENTS_MAX] = {
	[KERNEL_ARGUMENTS_CHECK] = "check",
	[KERNEL_ARGUMENTS_MANAGE] = "manage",
};
static const char *const reboot_policy_names[_REBOOT_POLICY_MAX] = {
	[REBOOT_POLICY_NEVER] = "never",
	[REBOOT_POLICY_COORDINATED] = "coordinated",
	[REBOOT_POLICY_IMMEDIATE] = "immediate",
};
static const char *const firmware_reset_names[2] = { "no", "yes" };
static const char *const rdma_netns_names[_RDMA_NETNS_MAX] = {
	[RDMA_NETNS_KEEP] = "keep",
	[RDMA_NETNS_SHARED] = "shared",
	[RDMA_NETNS_EXCLUSIVE] = "exclusive",
};
static const char *const k8s_enabled_names[_K8S_ENABLED_MAX] = {
	[K8S_ENABLED_AUTO] = "auto",
	[K8S_ENABLED_YES] = "yes",
	[K8S_ENABLED_NO] = "no",
};
static const char *const eviction_fallback_names[_EVICTION_FALLBACK_MAX] = {
	[EVICTION_FALLBACK_DELETE] = "delete",
	[EVICTION_FALLBACK_DELETE_NOW] = "delete-now",
	[EVICTION_FALLBACK_FAIL] = "fail",
};
static const char *const drain_pods_names[_DRAIN_PODS_MAX] = {
	[DRAIN_PODS_SRIOV] = "sriov",
	[DRAIN_PODS_ALL] = "all",
};

_Static_assert(sizeof(enum drift_mode) == sizeof(int), "enums are stored as int");

DEFINE_STRING_TABLE_TO(drift_mode, enum drift_mode, drift_mode_names)

DEFINE_STRING_TABLE_TO(disruption_policy, enum disruption_policy, disruption_policy_names)

DEFINE_STRING_TABLE_TO(reboot_policy, enum reboot_policy, reboot_policy_names)

/* ---- string checks: each returns NULL when fine, else what is allowed ---- */

/* RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63. */
static bool dns_label_ok(const char *s, size_t n)
{
	if (n == 0 || n > 63 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

static bool dns_subdomain_ok(const char *s, size_t n)
{
	size_t start = 0;

	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!dns_label_ok(s + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

static const char *check_dns_subdomain(const char *s)
{
	if (dns_subdomain_ok(s, strlen(s)))
		return NULL;
	return "must be a DNS subdomain (lower-case letters, digits, '-' and '.', at most 253)";
}

static const char *check_dns_label(const char *s)
{
	if (dns_label_ok(s, strlen(s)))
		return NULL;
	return "must be a DNS label (lower-case letters, digits and '-', at most 63)";
}

static const char *check_path(const char *s)
{
	static const char why[] = "must be an absolute path without '..' or control characters";
	size_t n = strlen(s);

	if (s[0] != '/' || n >= 4096 || string_has_control_chars(s))
		return why;
	for (const char *p = s; (p = strstr(p, "..")); p += 2)
		if (p[-1] == '/' && (p[2] == '/' || p[2] == '\0'))
			return why;
	return NULL;
}

/* A label name or value: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63. */
static bool label_part_ok(const char *s, size_t n)
{
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	if (n == 0 || n > 63 || !strchr(alnum, s[0]) || !strchr(alnum, s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr(alnum, s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/* key=value: key is [prefix/]name, prefix a DNS subdomain; value may be empty. */
static bool label_selector_term_ok(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n), *slash;
	size_t kn;

	if (!eq)
		return false;
	kn = (size_t)(eq - s);
	slash = memchr(s, '/', kn);
	if (slash && !dns_subdomain_ok(s, (size_t)(slash - s)))
		return false;
	if (slash && !label_part_ok(slash + 1, kn - (size_t)(slash - s) - 1))
		return false;
	if (!slash && !label_part_ok(s, kn))
		return false;
	return n - kn - 1 == 0 || label_part_ok(eq + 1, n - kn - 1);
}

static const char *check_label_selector(const char *s)
{
	const char *p = s;

	for (;;) {
		size_t n = strcspn(p, ",");

		if (!label_selector_term_ok(p, n))
			return "must be key=value labels, separated by ','";
		if (p[n] == '\0')
			return NULL;
		p += n + 1;
	}
}

/* ---- the keys ---- */

enum mc_type {
	MC_SECONDS, /* usec_t, written in whole seconds */
	MC_UINT32,
	MC_ENUM,   /* int, from names */
	MC_STRING, /* char *, checked by check; empty = the default */
};

struct mc_key {
	const char *section;
	const char *key;
	enum mc_type type;
	size_t offset;
	uint32_t min, max; /* MC_SECONDS, MC_UINT32 */
	/* MC_SECONDS: what 0 means where it is allowed besides min..max */
	const char *zero;
	uint32_t def;		  /* MC_SECONDS, MC_UINT32, MC_ENUM */
	const char *const *names; /* MC_ENUM */
	size_t n_names;
	bool booleans;			     /* MC_ENUM: a boolean means "yes" or "no" */
	const char *why;		     /* MC_ENUM */
	const char *def_str;		     /* MC_STRING, NULL = unset */
	const char *(*check)(const char *s); /* MC_STRING */
};

#define FIELD(f) offsetof(struct mainconf, f)
#define NAMES(t) .names = t##_names, .n_names = ELEMENTSOF(t##_names)

static const struct mc_key mc_keys[] = {
	{ "Apply", "TimeoutSec", MC_SECONDS, FIELD(apply_timeout), .min = 1, .max = SEC_MAX,
	  .def = 120 },
	{ "Apply", "SysfsWriteTimeoutSec", MC_SECONDS, FIELD(sysfs_write_timeout), .min = 1,
	  .max = SEC_MAX, .def = 60 },
	{ "Drift", "Mode", MC_ENUM, FIELD(drift_mode), NAMES(drift_mode), .def = DRIFT_MODE_REPAIR,
	  .why = "must be repair or report" },
	/* a scan reads every PF: a few a minute at most */
	{ "Drift", "SafetyScanSec", MC_SECONDS, FIELD(safety_scan), .min = 10, .max = SEC_MAX,
	  .zero = "off", .def = 0 },
	{ "Disruption", "Policy", MC_ENUM, FIELD(disruption_policy), NAMES(disruption_policy),
	  .def = DISRUPTION_POLICY_DRAIN, .why = "must be immediate, drain or never" },
	{ "Reboot", "KernelArguments", MC_ENUM, FIELD(kernel_arguments), NAMES(kernel_arguments),
	  .def = KERNEL_ARGUMENTS_CHECK, .why = "must be check or manage" },
	{ "Reboot", "Policy", MC_ENUM, FIELD(reboot_policy), NAMES(reboot_policy),
	  .def = REBOOT_POLICY_COORDINATED, .why = "must be never, coordinated or immediate" },
	{ "Reboot", "FirmwareReset", MC_ENUM, FIELD(firmware_reset), NAMES(firmware_reset),
	  .booleans = true, .def = 0, .why = "must be a boolean (yes/no/true/false/on/off/1/0)" },
	{ "RDMA", "NetnsMode", MC_ENUM, FIELD(rdma_netns), NAMES(rdma_netns),
	  .def = RDMA_NETNS_KEEP, .why = "must be keep, shared or exclusive" },
	{ "Kubernetes", "Enabled", MC_ENUM, FIELD(k8s_enabled), NAMES(k8s_enabled),
	  .booleans = true, .def = K8S_ENABLED_AUTO,
	  .why = "must be auto or a boolean (yes/no/true/false/on/off/1/0)" },
	{ "Kubernetes", "Kubeconfig", MC_STRING, FIELD(kubeconfig),
	  .def_str = "/etc/sriov-persist/kubeconfig", .check = check_path },
	{ "Kubernetes", "NodeName", MC_STRING, FIELD(node_name), .check = check_dns_subdomain },
	{ "Kubernetes", "DrainTimeoutSec", MC_SECONDS, FIELD(drain_timeout), .min = 1,
	  .max = SEC_MAX, .zero = "each pod asked once", .def = 300 },
	{ "Kubernetes", "EvictionFallback", MC_ENUM, FIELD(eviction_fallback),
	  NAMES(eviction_fallback), .def = EVICTION_FALLBACK_DELETE,
	  .why = "must be delete, delete-now or fail" },
	{ "Kubernetes", "DrainPods", MC_ENUM, FIELD(drain_pods), NAMES(drain_pods),
	  .def = DRAIN_PODS_SRIOV, .why = "must be sriov or all" },
	{ "Kubernetes", "ResourcePrefix", MC_STRING, FIELD(resource_prefix), .def_str = "intel.com",
	  .check = check_dns_subdomain },
	{ "Kubernetes", "DevicePluginNamespace", MC_STRING, FIELD(device_plugin_namespace),
	  .def_str = "kube-system", .check = check_dns_label },
	{ "Kubernetes", "DevicePluginSelector", MC_STRING, FIELD(device_plugin_selector),
	  .def_str = "app=sriovdp", .check = check_label_selector },
	{ "Kubernetes", "DevicePluginConfig", MC_STRING, FIELD(device_plugin_config),
	  .check = check_path },
	{ "Kubernetes", "MaxParallelNodes", MC_UINT32, FIELD(max_parallel_nodes), .min = 1,
	  .max = 1000, .def = 1 },
	{ "Kubernetes", "LeaseNamespace", MC_STRING, FIELD(lease_namespace),
	  .def_str = "sriov-persist", .check = check_dns_label },
	{ "Kubernetes", "RetryMaxDelaySec", MC_SECONDS, FIELD(retry_max_delay), .min = 1,
	  .max = 86400, .def = 300 },
};

static void *mc_field(struct mainconf *c, const struct mc_key *k)
{
	return (char *)c + k->offset;
}

static int mc_set_default(struct mainconf *c, const struct mc_key *k)
{
	void *f = mc_field(c, k);

	switch (k->type) {
	case MC_SECONDS:
		*(usec_t *)f = k->def * USEC_PER_SEC;
		return 0;
	case MC_UINT32:
		*(uint32_t *)f = k->def;
		return 0;
	case MC_ENUM:
		*(int *)f = (int)k->def;
		return 0;
	case MC_STRING:
		return free_and_strdup(f, k->def_str);
	}
	return 0;
}

int mainconf_init(struct mainconf *c)
{
	*c = (struct mainconf){};
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++)
		if (mc_set_default(c, &mc_keys[i]) < 0) {
			mainconf_done(c);
			return -ENOMEM;
		}
	return 0;
}

const char *mainconf_key_name(size_t i, const char **ret_section)
{
	if (i >= ELEMENTSOF(mc_keys))
		return NULL;
	if (ret_section)
		*ret_section = mc_keys[i].section;
	return mc_keys[i].key;
}

bool mainconf_equal(const struct mainconf *a, const struct mainconf *b)
{
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++) {
		const void *x = (const char *)a + mc_keys[i].offset;
		const void *y = (const char *)b + mc_keys[i].offset;

		switch (mc_keys[i].type) {
		case MC_SECONDS:
			if (*(const usec_t *)x != *(const usec_t *)y)
				return false;
			break;
		case MC_UINT32:
			if (*(const uint32_t *)x != *(const uint32_t *)y)
				return false;
			break;
		case MC_ENUM:
			if (*(const int *)x != *(const int *)y)
				return false;
			break;
		case MC_STRING:
			if (!streq_ptr(*(char *const *)x, *(char *const *)y))
				return false;
			break;
		}
	}
	return true;
}

char *mainconf_format(const struct mainconf *c)
{
	_cleanup_free_ char *out = strdup("");

	for (size_t i = 0; out && i < ELEMENTSOF(mc_keys); i++) {
		const void *x = (const char *)c + mc_keys[i].offset;
		_cleanup_free_ char *prev = TAKE_PTR(out);

		switch (mc_keys[i].type) {
		case MC_SECONDS:
			out = strdup_printf("%s%s.%s=%" PRIu64 "\n", prev, mc_keys[i].section,
					    mc_keys[i].key, (uint64_t) * (const usec_t *)x);
			break;
		case MC_UINT32:
			out = strdup_printf("%s%s.%s=%" PRIu32 "\n", prev, mc_keys[i].section,
					    mc_keys[i].key, *(const uint32_t *)x);
			break;
		case MC_ENUM:
			out = strdup_printf("%s%s.%s=%d\n", prev, mc_keys[i].section,
					    mc_keys[i].key, *(const int *)x);
			break;
		case MC_STRING:
			out = strdup_printf("%s%s.%s=%s\n", prev, mc_keys[i].section,
					    mc_keys[i].key, strempty(*(char *const *)x));
			break;
		}
	}
	return TAKE_PTR(out);
}

void mainconf_done(struct mainconf *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++)
		if (mc_keys[i].type == MC_STRING)
			free(*(char **)mc_field(c, &mc_keys[i]));
	strv_free(c->files);
	*c = (struct mainconf){};
}

/* ---- parsing ---- */

struct mc_parser {
	struct mainconf *conf;
	const char *path;
	struct diag_list *diags;
	const char *section; /* from mc_keys; NULL before the first header or when ignored */
	bool in_section;
};

#define mc_error(p, line, ...) diag_add((p)->diags, DIAG_ERROR, (p)->path, (line), __VA_ARGS__)

static int mc_parse_enum(const struct mc_key *k, const char *v)
{
	int i = string_table_lookup(k->names, k->n_names, v), b;

	if (i >= 0 || !k->booleans)
		return i;
	b = parse_boolean(v);
	if (b < 0)
		return -EINVAL;
	return string_table_lookup(k->names, k->n_names, b ? "yes" : "no");
}

static int mc_value_error(struct mc_parser *p, unsigned line, const struct mc_key *k, const char *v,
			  const char *why)
{
	_cleanup_free_ char *msg = conf_value_error(k->key, v, why);

	return msg ? mc_error(p, line, "%s", msg) : -ENOMEM;
}

static int mc_assign(struct mc_parser *p, const struct mc_key *k, const char *v, unsigned line)
{
	void *f = mc_field(p->conf, k);
	const char *why;
	char buf[160];
	uint32_t u;
	usec_t t;
	int i;

	if (v[0] == '\0')
		return mc_set_default(p->conf, k);
	switch (k->type) {
	case MC_SECONDS:
		if (parse_timespan(v, &t) >= 0 &&
		    ((t == 0 && k->zero) ||
		     (t >= k->min * USEC_PER_SEC && t <= k->max * USEC_PER_SEC))) {
			*(usec_t *)f = t;
			return 0;
		}
		snprintf(buf, sizeof(buf),
			 "must be %s%s%sa time span of %u..%u seconds, e.g. 90, 90s, 5min 30s",
			 k->zero ? "0 (" : "", strempty(k->zero), k->zero ? ") or " : "", k->min,
			 k->max);
		return mc_value_error(p, line, k, v, buf);
	case MC_UINT32:
		if (safe_atou32(v, 10, &u) >= 0 && u >= k->min && u <= k->max) {
			*(uint32_t *)f = u;
			return 0;
		}
		snprintf(buf, sizeof(buf), "must be %u..%u", k->min, k->max);
		return mc_value_error(p, line, k, v, buf);
	case MC_ENUM:
		i = mc_parse_enum(k, v);
		if (i < 0)
			return mc_value_error(p, line, k, v, k->why);
		*(int *)f = i;
		return 0;
	case MC_STRING:
		why = k->check(v);
		if (why)
			return mc_value_error(p, line, k, v, why);
		return free_and_strdup(f, v);
	}
	return 0;
}

/* Keys and sections named "X-..." are the user's own annotations. */
static bool mc_is_extension(const char *name)
{
	return name[0] == 'X' && name[1] == '-';
}

static int mc_on_section(void *userdata, const char *name, unsigned line)
{
	struct mc_parser *p = userdata;
	struct suggest sg;
	char hint[96];

	p->in_section = true;
	p->section = NULL;
	if (!name || mc_is_extension(name)) /* invalid (already reported), or the user's own */
		return 0;
	sg = suggest_init(name);
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++) {
		if (streq(mc_keys[i].section, name)) {
			p->section = mc_keys[i].section;
			return 0;
		}
		suggest_consider(&sg, mc_keys[i].section);
	}
	return mc_error(p, line,
			"unknown section [%s]; sections are [Apply], [Drift], [Disruption], "
			"[Reboot], [RDMA] and [Kubernetes]%s",
			name, suggest_hint(&sg, hint, sizeof(hint)));
}

/* The sections but except that have key: "[Disruption]", "[Disruption] or
 * [Reboot]"; "" when none has it. */
static const char *mc_key_sections(const char *key, const char *except, char *buf, size_t size)
{
	size_t count = 0, n = 0;

	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++)
		count += !streq(mc_keys[i].section, except) && streq(mc_keys[i].key, key);
	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++)
		if (!streq(mc_keys[i].section, except) && streq(mc_keys[i].key, key))
			suggest_where_add(buf, size, n++, count, mc_keys[i].section);
	return buf;
}

/* "unknown key 'K' in [S]", with the sections the key belongs in, or the
 * nearest key of the section, or when none of it is near, the nearest key
 * of another section with its sections ("did you mean 'Policy' of
 * [Disruption] or [Reboot]?" for Polcy= in [Drift]). */
static int mc_unknown_key(struct mc_parser *p, const char *key, unsigned line)
{
	struct suggest sg = suggest_init(key), other = suggest_init(key);
	char home[128], hint[192];

	if (mc_key_sections(key, p->section, home, sizeof(home))[0])
		return mc_error(p, line, "unknown key '%s' in [%s]; it belongs in %s", key,
				p->section, home);
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++)
		suggest_consider(streq(mc_keys[i].section, p->section) ? &sg : &other,
				 mc_keys[i].key);
	if (!suggest_near(&sg) && other.best)
		return mc_error(
			p, line, "unknown key '%s' in [%s]%s", key, p->section,
			suggest_hint_of(&other,
					mc_key_sections(other.best, p->section, home, sizeof(home)),
					hint, sizeof(hint)));
	return mc_error(p, line, "unknown key '%s' in [%s]%s", key, p->section,
			suggest_hint(&sg, hint, sizeof(hint)));
}

/* mc_assign(), and where the [Kubernetes] Enabled= and Kubeconfig= in
 * effect are, for a later error about Kubernetes being enabled, and the
 * [Drift] Mode=, for the reason of a drift it leaves. */
static int mc_assign_at(struct mc_parser *p, const struct mc_key *k, const char *v, unsigned line)
{
	struct mainconf *c = p->conf;

	if (mc_field(c, k) == (void *)&c->k8s_enabled &&
	    (v[0] == '\0' || mc_parse_enum(k, v) >= 0)) {
		snprintf(c->k8s_enabled_file, sizeof(c->k8s_enabled_file), "%s", strempty(p->path));
		snprintf(c->k8s_enabled_value, sizeof(c->k8s_enabled_value), "%s", v);
		c->k8s_enabled_line = line;
	}
	if (mc_field(c, k) == (void *)&c->kubeconfig && (v[0] == '\0' || !k->check(v))) {
		snprintf(c->kubeconfig_file, sizeof(c->kubeconfig_file), "%s",
			 v[0] ? strempty(p->path) : "");
		c->kubeconfig_line = v[0] ? line : 0;
	}
	if (mc_field(c, k) == (void *)&c->disruption_policy &&
	    (v[0] == '\0' || mc_parse_enum(k, v) >= 0)) {
		snprintf(c->disruption_policy_file, sizeof(c->disruption_policy_file), "%s",
			 v[0] ? strempty(p->path) : "");
		c->disruption_policy_line = v[0] ? line : 0;
	}
	if (mc_field(c, k) == (void *)&c->drift_mode &&
	    (v[0] == '\0' || mc_parse_enum(k, v) >= 0)) {
		snprintf(c->drift_mode_file, sizeof(c->drift_mode_file), "%s",
			 v[0] ? strempty(p->path) : "");
		c->drift_mode_line = v[0] ? line : 0;
	}
	return mc_assign(p, k, v, line);
}

static int mc_on_assignment(void *userdata, const char *key, const char *value, unsigned line)
{
	struct mc_parser *p = userdata;

	if (mc_is_extension(key))
		return 0;
	if (!p->in_section)
		return mc_error(p, line, "'%s' outside of any section", key);
	if (!p->section)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(mc_keys); i++)
		if (streq(mc_keys[i].section, p->section) && streq(mc_keys[i].key, key))
			return mc_assign_at(p, &mc_keys[i], value, line);
	return mc_unknown_key(p, key, line);
}

static const struct conf_parser_ops mc_ops = {
	.section = mc_on_section,
	.assignment = mc_on_assignment,
};

int mainconf_parse_string(struct mainconf *c, const char *path, const char *text,
			  struct diag_list *diags)
{
	struct diag_list local = {};
	struct mc_parser p = { .conf = c, .path = path, .diags = diags ?: &local };
	int r = 0;

	if (path && !strv_contains(c->files, path))
		r = strv_extend(&c->files, path);
	if (r >= 0)
		r = conf_parse_text(path, text, &mc_ops, &p, p.diags);
	diag_list_done(&local);
	return r;
}

/* A file that does not exist is fine: the main file is optional, and a
 * drop-in may vanish between listing and reading. */
static int mainconf_load_one(struct mainconf *c, const char *path, struct diag_list *diags)
{
	_cleanup_free_ char *text = NULL;
	char unsafe[CONF_UNSAFE_MAX];
	int r;

	r = conf_read_trusted_file(path, &text, unsafe);
	if (r == -ENOENT || r == -ENOMEM)
		return r == -ENOMEM ? r : 0;
	if (r == -EPERM)
		return diag_add(diags, DIAG_ERROR, path, 0, "%s", unsafe);
	if (r < 0)
		return diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s",
				conf_read_strerror(r));
	return mainconf_parse_string(c, path, text, diags);
}

/* path as the host names it, read under root (NULL: the host itself). */
static int mainconf_load_all(struct mainconf *c, const char *root, const char *path,
			     struct diag_list *diags)
{
	struct conf_files_failure fail;
	_cleanup_strv_free_ char **dropins = NULL;
	_cleanup_free_ char *dir = NULL, *main = NULL;
	int r;

	r = path_under_root(root, path, &main);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		_cleanup_free_ char *said = strdup_printf("%s%s", strempty(root), path);

		return said ? diag_add(diags, DIAG_ERROR, said, 0, "%s; refusing it",
				       root_strerror(r)) :
			      -ENOMEM;
	}
	r = mainconf_load_one(c, main, diags);
	if (r < 0)
		return r;
	dir = strdup_printf("%s.d", path);
	if (!dir)
		return -ENOMEM;
	r = conf_files_list_root(root, (const char *const[]){ dir, NULL }, "conf", &dropins, &fail);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return diag_add(diags, DIAG_ERROR, dir, 0, "%s", fail.why);
	for (size_t i = 0; dropins[i]; i++) {
		r = mainconf_load_one(c, dropins[i], diags);
		if (r < 0)
			return r;
	}
	return 0;
}

#define SERVICE_ACCOUNT_TOKEN "/var/run/secrets/kubernetes.io/serviceaccount/token"

/* The Kubeconfig= file, or the in-cluster service-account token. */
static bool kubernetes_credentials(const struct mainconf *c)
{
	return (c->kubeconfig && access(c->kubeconfig, R_OK) == 0) ||
	       (getenv("KUBERNETES_SERVICE_HOST") && access(SERVICE_ACCOUNT_TOKEN, R_OK) == 0);
}

void mainconf_find_credentials(struct mainconf *c)
{
	c->k8s_credentials = c->k8s_enabled == K8S_ENABLED_AUTO && kubernetes_credentials(c);
}

int mainconf_load(const char *path, struct mainconf *ret, struct diag_list *diags)
{
	return mainconf_load_root(NULL, path, ret, diags);
}

int mainconf_load_root(const char *root, const char *path, struct mainconf *ret,
		       struct diag_list *diags)
{
	struct diag_list local = {};
	struct mainconf c;
	int r;

	r = mainconf_init(&c);
	if (r < 0)
		return r;
	/* a file named on the command line is taken as given */
	r = mainconf_load_all(&c, path ? NULL : root, path ?: MAINCONF_PATH_DEFAULT,
			      diags ?: &local);
	diag_list_done(&local);
	if (r < 0) {
		mainconf_done(&c);
		return r;
	}
	mainconf_find_credentials(&c);
	*ret = c;
	return 0;
}

const char *mainconf_without_drain(const struct mainconf *c)
{
	if (c->disruption_policy != DISRUPTION_POLICY_DRAIN || mainconf_kubernetes_enabled(c))
		return NULL;
	if (c->k8s_enabled == K8S_ENABLED_NO)
		return "Kubernetes is not enabled ([Kubernetes] Enabled=no)";
	/* never a key that no file sets */
	if (c->k8s_enabled_line == 0)
		return "Kubernetes is not enabled ([Kubernetes] Enabled= is not set, and auto, "
		       "its default, found no credentials)";
	if (c->k8s_enabled_value[0] == '\0')
		return "Kubernetes is not enabled ([Kubernetes] Enabled= is empty, and auto, its "
		       "default, found no credentials)";
	return "Kubernetes is not enabled ([Kubernetes] Enabled=auto found no credentials)";
}

void mainconf_never_reason(const struct mainconf *c, char *buf, size_t size)
{
	char at[PATH_MAX + 32] = " in the main configuration";

	if (c->disruption_policy_line > 0)
		snprintf(at, sizeof(at), " in %s:%u", c->disruption_policy_file,
			 c->disruption_policy_line);
	snprintf(buf, size,
		 "disruptive changes held by [Disruption] Policy=never%s; set Policy=drain or "
		 "immediate there to let them run, or make the change by hand",
		 at);
}

char *mainconf_not_set(const struct mainconf *c, const char *section, const char *key)
{
	_cleanup_free_ char *files = NULL;

	if (!c->files || !c->files[0])
		return strdup_printf("[%s] %s= is not set: no main configuration file exists",
				     section, key);
	files = strv_join(c->files, ", ");
	return files ? strdup_printf("[%s] %s= is not set in any of: %s", section, key, files) :
		       NULL;
}

bool mainconf_kubeconfig_missing(const struct mainconf *c)
{
	return c->k8s_enabled == K8S_ENABLED_AUTO && !c->k8s_credentials && c->kubeconfig_line > 0;
}

bool mainconf_kubernetes_enabled(const struct mainconf *c)
{
	switch (c->k8s_enabled) {
	case K8S_ENABLED_YES:
		return true;
	case K8S_ENABLED_NO:
		return false;
	case K8S_ENABLED_AUTO:
		/* a Kubeconfig= set by hand means Kubernetes, found or not */
		return c->k8s_credentials || c->kubeconfig_line > 0;
	case _K8S_ENABLED_MAX:
	case _K8S_ENABLED_INVALID:
		break;
	}
	return false;
}
