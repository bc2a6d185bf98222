/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* k8s-notify VERB: run by sriov-persistd (and by hand) to cordon, drain and
 * uncordon this node, restart its device plugin, take and give back a Lease
 * slot, and publish its SR-IOV state. One JSON result on stdout, messages on
 * stderr; exit 0 ok, 1 final failure, 2 usage, 75 retryable (EX_TEMPFAIL). */

#include <assert.h>
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>

#include "json-util.h"
#include "k8s-notify.h"

static const struct {
	const char *name;
	int (*run)(struct k8s_ctx *x);
	int (*check)(struct k8s_ctx *x); /* the verb's arguments, before any I/O */
	int min_args, max_args;
} verbs[] = {
	{ "cordon", verb_cordon, NULL, 0, 0 },
	{ "uncordon", verb_uncordon, NULL, 0, 0 },
	{ "drain", verb_drain, NULL, 0, 0 },
	{ "restart-device-plugin", verb_restart_device_plugin, verb_restart_device_plugin_check, 0,
	  0 },
	{ "lease", verb_lease, verb_lease_check, 1, 1 },
	{ "annotate", verb_annotate, verb_annotate_check, 0, 0 },
	{ "credentials", verb_credentials, NULL, 0, 0 },
};

/* The options that only some verbs take, and which. */
static const struct {
	const char *name;
	const char *verbs[2];
} verb_options[] = {
	{ "--expect", { "restart-device-plugin" } },
	{ "--state", { "annotate" } },
	{ "--slot", { "lease" } },
	{ "--resource", { "drain", "restart-device-plugin" } },
};

struct options {
	const char *main_config;
	const char *kubeconfig;
	const char *sa_dir;
	const char *node;
	usec_t request_timeout;
};

static void help(void)
{
	printf("Usage: k8s-notify [OPTIONS] VERB [ARGS]\n"
	       "\n"
	       "Verbs:\n"
	       "  cordon                       mark this node unschedulable (and that we did it)\n"
	       "  uncordon                     lift our own cordon; leaves anyone else's alone\n"
	       "  drain [--resource NAME ...]  cordon, then evict pods (PodDisruptionBudgets apply);\n"
	       "                               with DrainPods=sriov only pods requesting one of\n"
	       "                               the resources named in full (intel.com/e810_rdma)\n"
	       "  restart-device-plugin [--expect RESOURCE=COUNT ...] [--resource NAME ...]\n"
	       "                               restart this node's device-plugin pod, then\n"
	       "                               replace DaemonSet pods requesting the resources\n"
	       "  lease acquire|renew|release  a MaxParallelNodes slot (coordination.k8s.io Lease)\n"
	       "  annotate --state JSON        publish this node's SR-IOV state as annotations\n"
	       "  credentials                  say where the credentials come from and when they\n"
	       "                               expire (no request)\n"
	       "\n"
	       "Options:\n"
	       "  --main-config FILE       main configuration (default %s)\n"
	       "  --kubeconfig FILE        credentials (default: Kubeconfig=, else in-cluster)\n"
	       "  --node NAME              this node (default: NodeName=, else the hostname)\n"
	       "  --timeout SEC            bound the waits (lease acquire, device plugin, drain)\n"
	       "  --request-timeout SEC    one API request (default 30)\n"
	       "  --holder ID              lease holder identity (default: the node name)\n"
	       "  --lease-duration SEC     lease validity without renewal (default 3600)\n"
	       "  --slot NAME              lease renew/release: the slot (default: look for ours)\n"
	       "  --service-account-dir DIR  in-cluster credentials (default %s)\n"
	       "  --quiet-unreachable      say nothing on stderr when the API server is\n"
	       "                           unreachable: the caller reports it (sriov-persistd)\n"
	       "  -h, --help               this text\n"
	       "  --version                the version\n"
	       "\n"
	       "Exit status: 0 ok, 1 failure, 2 usage, 75 temporary failure (retry later).\n",
	       MAINCONF_PATH_DEFAULT, SERVICE_ACCOUNT_DIR);
}

enum {
	ARG_MAIN_CONFIG = 0x100,
	ARG_KUBECONFIG,
	ARG_NODE,
	ARG_TIMEOUT,
	ARG_REQUEST_TIMEOUT,
	ARG_HOLDER,
	ARG_LEASE_DURATION,
	ARG_SLOT,
	ARG_STATE,
	ARG_EXPECT,
	ARG_RESOURCE,
	ARG_SA_DIR,
	ARG_QUIET_UNREACHABLE,
	ARG_VERSION,
};

static const struct option long_options[] = {
	{ "main-config", required_argument, NULL, ARG_MAIN_CONFIG },
	{ "kubeconfig", required_argument, NULL, ARG_KUBECONFIG },
	{ "node", required_argument, NULL, ARG_NODE },
	{ "timeout", required_argument, NULL, ARG_TIMEOUT },
	{ "request-timeout", required_argument, NULL, ARG_REQUEST_TIMEOUT },
	{ "holder", required_argument, NULL, ARG_HOLDER },
	{ "lease-duration", required_argument, NULL, ARG_LEASE_DURATION },
	{ "slot", required_argument, NULL, ARG_SLOT },
	{ "state", required_argument, NULL, ARG_STATE },
	{ "expect", required_argument, NULL, ARG_EXPECT },
	{ "resource", required_argument, NULL, ARG_RESOURCE },
	{ "service-account-dir", required_argument, NULL, ARG_SA_DIR },
	{ "quiet-unreachable", no_argument, NULL, ARG_QUIET_UNREACHABLE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, ARG_VERSION },
	{},
};

static int parse_seconds(const char *opt, const char *v, uint32_t min, usec_t *ret)
{
	uint32_t s;

	if (safe_atou32(v, 10, &s) < 0 || s < min || s > 31536000) {
		fprintf(stderr, "k8s-notify: --%s=%s: must be %u..31536000 seconds\n", opt, v, min);
		return -EINVAL;
	}
	*ret = s * USEC_PER_SEC;
	return 0;
}

/* Not there is a mistake, never the defaults. */
static int check_main_config(const char *path)
{
	const char *why = path_option_problem(path, false);

	if (!why)
		return 0;
	fprintf(stderr, "k8s-notify: --main-config=%s: %s\n", path, why);
	return -EINVAL;
}

/* "<prefix>/<name>", as a pod requests it */
static int add_resource(struct k8s_ctx *x, const char *name)
{
	if (!strchr(name, '/') || name[0] == '/' || endswith(name, "/")) {
		fprintf(stderr,
			"k8s-notify: --resource=%s: must be a full resource name "
			"such as intel.com/e810_rdma\n",
			name);
		return -EINVAL;
	}
	return strv_extend(&x->resources, name);
}

static int parse_lease_duration(struct k8s_ctx *x, const char *arg)
{
	usec_t t;
	int r;

	r = parse_seconds("lease-duration", arg, 1, &t);
	if (r < 0)
		return r;
	x->lease_duration = (uint32_t)(t / USEC_PER_SEC);
	return 0;
}

/* One option into x or o; -EINVAL on a bad value. */
static int parse_option(int opt, struct k8s_ctx *x, struct options *o)
{
	switch (opt) {
	case ARG_MAIN_CONFIG:
		o->main_config = optarg;
		return check_main_config(optarg);
	case ARG_KUBECONFIG:
		o->kubeconfig = optarg;
		return 0;
	case ARG_NODE:
		o->node = optarg;
		return 0;
	case ARG_TIMEOUT:
		return parse_seconds("timeout", optarg, 0, &x->timeout);
	case ARG_REQUEST_TIMEOUT:
		return parse_seconds("request-timeout", optarg, 1, &o->request_timeout);
	case ARG_HOLDER:
		x->holder = optarg;
		return 0;
	case ARG_LEASE_DURATION:
		return parse_lease_duration(x, optarg);
	case ARG_SLOT:
		x->slot = optarg;
		return 0;
	case ARG_QUIET_UNREACHABLE:
		x->quiet_unreachable = true;
		return 0;
	case ARG_STATE:
		x->state = optarg;
		return 0;
	case ARG_EXPECT:
		return strv_extend(&x->expect, optarg);
	case ARG_RESOURCE:
		return add_resource(x, optarg);
	case ARG_SA_DIR:
		o->sa_dir = optarg;
		return 0;
	default:
		return -EINVAL;
	}
}

/* 1 to go on, 0 to exit successfully, -EINVAL on bad usage. */
static int parse_argv(int argc, char **argv, struct k8s_ctx *x, struct options *o)
{
	int opt, r;

	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) >= 0) {
		if (opt == 'h') {
			help();
			return 0;
		}
		if (opt == ARG_VERSION) {
			printf("k8s-notify %s\n", VERSION);
			return 0;
		}
		r = parse_option(opt, x, o);
		if (r < 0)
			return r == -ENOMEM ? r : -EINVAL;
	}
	x->args = argv + optind;
	x->n_args = argc - optind;
	return 1;
}

static int load_mainconf(struct k8s_ctx *x, const char *path, char *error)
{
	struct diag_list diags = {};
	size_t errors;
	int r;

	path = path ?: MAINCONF_PATH_DEFAULT;
	r = mainconf_load(path, &x->conf, &diags);
	for (size_t i = 0; i < diags.n; i++) {
		_cleanup_free_ char *s = diag_format(&diags.items[i]);

		/* no "NODE: ": the node may be named in it (NodeName=) */
		fprintf(stderr, "k8s-notify: %s\n", s ?: diags.items[i].msg);
	}
	errors = diag_count(&diags, DIAG_ERROR);
	diag_list_done(&diags);
	if (r < 0)
		return k8s_set_error(error, r, "cannot load %s: %s", path, strerror(-r));
	if (errors)
		return k8s_set_error(error, -EINVAL, "%s: %zu error(s), see above", path, errors);
	return 0;
}

static int resolve_node(struct k8s_ctx *x, const struct options *o, char *error)
{
	char host[256] = "";

	if (o->node)
		x->node = strdup(o->node);
	else if (x->conf.node_name)
		x->node = strdup(x->conf.node_name);
	else {
		/* as the kubelet names its node: the hostname, lower case */
		if (gethostname(host, sizeof(host) - 1) < 0)
			return k8s_set_error(error, -errno, "cannot get the hostname: %m");
		for (char *p = host; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		x->node = strdup(host);
	}
	if (!x->node)
		return -ENOMEM;
	if (!k8s_name_is_valid(x->node)) {
		k8s_set_error(error, -EINVAL, "node name \"%s\" is not a DNS subdomain", x->node);
		x->node = mfree(x->node); /* no node: the message names no node */
		return -EINVAL;
	}
	return 0;
}

/* The kubeconfig when it exists (or was named), else the in-cluster service account. */
static int load_credentials(struct k8s_ctx *x, const struct options *o, struct kubeconfig **ret,
			    char *error)
{
	const char *path = o->kubeconfig ?: x->conf.kubeconfig;
	const char *host = getenv("KUBERNETES_SERVICE_HOST");

	if (o->kubeconfig || access(path, F_OK) == 0)
		return kubeconfig_load(path, ret, error);
	if (!host)
		return k8s_set_error(
			error, -ENOKEY,
			"no Kubernetes credentials: %s does not exist and this is not a "
			"pod (KUBERNETES_SERVICE_HOST is not set)",
			path);
	return kubeconfig_in_cluster(o->sa_dir ?: SERVICE_ACCOUNT_DIR, host,
				     getenv("KUBERNETES_SERVICE_PORT"), ret, error);
}

static int open_client(struct k8s_ctx *x, const struct options *o, char *error)
{
	_cleanup_kubeconfig_ struct kubeconfig *kc = NULL;
	struct k8s_client_options co = {
		.connect_timeout = 5 * USEC_PER_SEC,
		.request_timeout = o->request_timeout,
		.max_attempts = 5,
		.backoff_base = 250 * USEC_PER_MSEC,
		.backoff_max = 4 * USEC_PER_SEC,
		.user_agent = "sriov-persist-k8s-notify/" VERSION,
	};
	int r;

	co.node = x->node;
	r = load_credentials(x, o, &kc, error);
	/* the file or directory they came from, as load_credentials() chose */
	co.credentials = kc && kc->context ? o->kubeconfig ?: x->conf.kubeconfig :
			 o->sa_dir	   ?:
					     SERVICE_ACCOUNT_DIR;
	if (r >= 0)
		r = k8s_client_new(kc, &co, &x->client, error);
	return r;
}

static int setup(struct k8s_ctx *x, const struct options *o, char *error)
{
	int r;

	r = load_mainconf(x, o->main_config, error);
	if (r >= 0)
		r = resolve_node(x, o, error);
	if (r >= 0)
		r = open_client(x, o, error);
	if (r == -ENOMEM)
		k8s_set_error(error, r, "out of memory");
	return r;
}

/* Every result says which credentials were used and when they expire; a
 * warning when that is soon goes to standard error (the journal) too. */
static void report_credentials(struct k8s_ctx *x, bool warn)
{
	struct json_object *o;
	_cleanup_free_ char *warning = NULL;
	enum k8s_cred_kind kind;
	char when[MICROTIME_MAX];
	const char *source;
	usec_t issued, expires;

	if (!x->client)
		return;
	k8s_client_credential(x->client, &kind, &source, &issued, &expires);
	o = json_object_new_object();
	if (!o)
		return;
	json_object_object_add(o, "kind", json_object_new_string(k8s_cred_kind_to_string(kind)));
	json_object_object_add(o, "source", source ? json_object_new_string(source) : NULL);
	json_object_object_add(o, "expires",
			       expires ? json_object_new_string(microtime_format(expires, when)) :
					 NULL);
	warning = k8s_cred_warning(kind, strna(source), issued, expires, now_realtime());
	json_object_object_add(o, "warning", warning ? json_object_new_string(warning) : NULL);
	if (kind == K8S_CRED_EXEC)
		json_object_object_add(o, "plugin_runs",
				       json_object_new_int((int)k8s_client_exec_runs(x->client)));
	result_set(x, "credentials", o);
	if (warning && warn)
		fprintf(stderr, "k8s-notify: %s: warning: %s\n", strna(x->node), warning);
}

int verb_credentials(struct k8s_ctx *x)
{
	/* opening the client read them (and ran a plugin); finish() reports */
	return 0;
}

static int finish(struct k8s_ctx *x, int r, const char *error)
{
	bool retryable = r < 0 && k8s_errno_is_retryable(r);
	/* the request it failed on got no answer (or only that the server is
	 * unavailable), at the first request or after others went through */
	bool unreachable = retryable && x->client && k8s_client_unavailable(x->client);

	if (r < 0 && x->client && !error[0])
		error = k8s_client_error(x->client);
	if (r < 0 && !error[0])
		error = strerror(-r);
	result_set(x, "ok", json_object_new_boolean(r >= 0));
	if (x->node)
		result_set(x, "node", json_object_new_string(x->node));
	if (r < 0) {
		result_set(x, "error", json_object_new_string(error));
		result_set(x, "retryable", json_object_new_boolean(retryable));
		if (!(unreachable && x->quiet_unreachable))
			fprintf(stderr, "k8s-notify: %s%s%s\n", strempty(x->node),
				x->node ? ": " : "", error);
	}
	if (unreachable) {
		/* the caller waits for the server, at least as long as it asked */
		result_set(x, "unreachable", json_object_new_boolean(true));
		if (k8s_client_retry_after(x->client))
			result_set(
				x, "retry_after",
				json_object_new_int64((int64_t)(k8s_client_retry_after(x->client) /
								USEC_PER_SEC)));
	}
	report_credentials(x, !(unreachable && x->quiet_unreachable));
	result_set(x, "requests",
		   json_object_new_int(x->client ? (int)k8s_client_requests(x->client) : 0));
	/* attempts that never reached the server are no requests it saw */
	result_set(x, "unanswered",
		   json_object_new_int(x->client ? (int)k8s_client_unanswered(x->client) : 0));
	printf("%s\n", json_object_to_json_string_ext(
			       x->result, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (r >= 0)
		return EXIT_OK;
	return retryable ? EXIT_TEMPFAIL : EXIT_FAIL;
}

static int find_verb(const struct k8s_ctx *x)
{
	if (x->n_args == 0) {
		fprintf(stderr, "k8s-notify: no verb given; see k8s-notify --help\n");
		return -EINVAL;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		if (!streq(verbs[i].name, x->args[0]))
			continue;
		if (x->n_args - 1 < verbs[i].min_args || x->n_args - 1 > verbs[i].max_args) {
			fprintf(stderr, "k8s-notify: %s: wrong number of arguments\n",
				verbs[i].name);
			return -EINVAL;
		}
		return (int)i;
	}
	fprintf(stderr, "k8s-notify: unknown verb '%s'; see k8s-notify --help\n", x->args[0]);
	return -EINVAL;
}

/* Whether verb takes option; when it does not, a message that names the
 * option and the verbs it is for. */
static bool verb_option_ok(const char *verb, const char *option)
{
	const char *const *for_verbs = NULL;

	for (size_t i = 0; i < ELEMENTSOF(verb_options); i++)
		if (streq(verb_options[i].name, option))
			for_verbs = verb_options[i].verbs;
	assert(for_verbs);
	if (streq(verb, for_verbs[0]) || streq_ptr(verb, for_verbs[1]))
		return true;
	fprintf(stderr, "k8s-notify: %s: %s does not apply to %s, only to %s%s%s\n", verb, option,
		verb, for_verbs[0], for_verbs[1] ? " and " : "", strempty(for_verbs[1]));
	return false;
}

/* Each of the options that only some verbs take, given to the verb. */
static bool verb_options_ok(const struct k8s_ctx *x, const char *verb)
{
	const struct {
		const char *name;
		bool given;
	} given[] = {
		{ "--expect", x->expect },
		{ "--state", x->state },
		{ "--slot", x->slot },
		{ "--resource", x->resources },
	};
	bool ok = true;

	for (size_t i = 0; i < ELEMENTSOF(given); i++)
		if (given[i].given && !verb_option_ok(verb, given[i].name))
			ok = false;
	return ok;
}

static int run(struct k8s_ctx *x, const struct options *o)
{
	char error[K8S_ERROR_MAX] = "";
	int v, r;

	v = find_verb(x);
	if (v < 0)
		return EXIT_USAGE;
	x->result = json_object_new_object();
	if (!x->result)
		return EXIT_FAIL;
	result_set(x, "op", json_object_new_string(verbs[v].name));
	x->args++;
	x->n_args--;
	if (!verb_options_ok(x, verbs[v].name))
		return EXIT_USAGE;
	if (verbs[v].check && verbs[v].check(x) < 0)
		return EXIT_USAGE;
	r = setup(x, o, error);
	if (r >= 0)
		r = verbs[v].run(x);
	return finish(x, r, error);
}

int main(int argc, char **argv)
{
	struct k8s_ctx x = { .lease_duration = 3600 };
	struct options o = { .request_timeout = 30 * USEC_PER_SEC };
	int r;

	/* a connection the server resets must fail the request, not kill us (libcurl
	 * leaves SIGPIPE alone with CURLOPT_NOSIGNAL) */
	signal(SIGPIPE, SIG_IGN);
	r = parse_argv(argc, argv, &x, &o);
	if (r > 0)
		r = run(&x, &o);
	else
		r = r < 0 ? EXIT_USAGE : EXIT_OK;
	k8s_client_free(x.client);
	json_object_putp(&x.result);
	mainconf_done(&x.conf);
	strv_free(x.expect);
	strv_free(x.resources);
	free(x.node);
	return r;
}
