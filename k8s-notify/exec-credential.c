/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <sys/stat.h>

#include "exec-credential.h"
#include "json-util.h"
#include "run-tool.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

extern char **environ;

void exec_credential_done(struct exec_credential *c)
{
	if (c->token)
		explicit_bzero(c->token, strlen(c->token));
	if (c->key)
		explicit_bzero(c->key, strlen(c->key));
	free(c->token);
	free(c->cert);
	free(c->key);
	*c = (struct exec_credential){};
}

/* A status string field: NULL when absent or empty, -EINVAL when not a string. */
static int status_str(struct json_object *status, const char *key, const char **ret)
{
	struct json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(status, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	*ret = json_object_get_string(v);
	if (!**ret)
		*ret = NULL;
	return 0;
}

/* The status of an ExecCredential of api_version. */
static int credential_status(struct json_object *o, const char *api_version,
			     struct json_object **ret, char error[static K8S_ERROR_MAX])
{
	if (!o || !json_object_is_type(o, json_type_object))
		return k8s_set_error(error, -EBADMSG, "its output is not a JSON object");
	if (!streq_ptr(k8s_json_str(o, "kind", NULL), "ExecCredential") ||
	    !streq_ptr(k8s_json_str(o, "apiVersion", NULL), api_version))
		return k8s_set_error(error, -EBADMSG,
				     "its output is not an ExecCredential of %s (kind %s, "
				     "apiVersion %s)",
				     api_version, strna(k8s_json_str(o, "kind", NULL)),
				     strna(k8s_json_str(o, "apiVersion", NULL)));
	*ret = k8s_json_get(o, "status", NULL);
	if (!*ret)
		return k8s_set_error(error, -EBADMSG, "its ExecCredential has no status");
	return 0;
}

struct status_fields {
	const char *token, *cert, *key, *expires; /* the status's strings */
};

/* A token, or a client certificate and its key, or both, in their forms. */
static int status_fields_read(struct json_object *status, struct status_fields *f,
			      char error[static K8S_ERROR_MAX])
{
	if (status_str(status, "token", &f->token) < 0 ||
	    status_str(status, "clientCertificateData", &f->cert) < 0 ||
	    status_str(status, "clientKeyData", &f->key) < 0 ||
	    status_str(status, "expirationTimestamp", &f->expires) < 0)
		return k8s_set_error(error, -EBADMSG,
				     "its ExecCredential has a status field that is not a string");
	if (!f->token && !f->cert)
		return k8s_set_error(error, -EBADMSG,
				     "its ExecCredential has neither a token nor a client "
				     "certificate");
	if (!f->cert != !f->key)
		return k8s_set_error(error, -EBADMSG,
				     "its ExecCredential has a client certificate without a key "
				     "or a key without a certificate");
	if (f->token && string_has_control_chars(f->token))
		return k8s_set_error(error, -EBADMSG, "its token is not one line");
	if (f->cert && (!strstr(f->cert, "-----BEGIN CERTIFICATE-----") ||
			!strstr(f->key, "PRIVATE KEY-----")))
		return k8s_set_error(error, -EBADMSG,
				     "its clientCertificateData or clientKeyData is not PEM");
	return 0;
}

int exec_credential_parse(const char *text, size_t n, const char *api_version,
			  struct exec_credential *ret, char error[static K8S_ERROR_MAX])
{
	_cleanup_json_ struct json_object *o = NULL;
	struct exec_credential c = {};
	struct status_fields f = {};
	struct json_object *status = NULL;
	int r;

	o = k8s_json_parse(text, n);
	r = credential_status(o, api_version, &status, error);
	if (r >= 0)
		r = status_fields_read(status, &f, error);
	if (r < 0)
		return r;
	if (f.expires && microtime_parse(f.expires, &c.expires) < 0)
		return k8s_set_error(error, -EBADMSG,
				     "its expirationTimestamp \"%.64s\" is not an RFC 3339 time",
				     f.expires);
	c.token = f.token ? strdup(f.token) : NULL;
	c.cert = f.cert ? strdup(f.cert) : NULL;
	c.key = f.key ? strdup(f.key) : NULL;
	if ((f.token && !c.token) || (f.cert && (!c.cert || !c.key))) {
		exec_credential_done(&c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

char *exec_credential_request(const struct kc_exec *e, const char *server, const void *ca,
			      size_t ca_size)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	struct json_object *spec = json_object_new_object(), *cluster = NULL;
	_cleanup_free_ char *ca64 = NULL;

	if (!o || !spec) {
		json_object_put(spec);
		return NULL;
	}
	json_object_object_add(o, "kind", json_object_new_string("ExecCredential"));
	json_object_object_add(o, "apiVersion", json_object_new_string(e->api_version));
	json_object_object_add(o, "spec", spec);
	json_object_object_add(spec, "interactive", json_object_new_boolean(false));
	if (e->provide_cluster_info) {
		cluster = json_object_new_object();
		if (!cluster)
			return NULL;
		json_object_object_add(spec, "cluster", cluster);
		json_object_object_add(cluster, "server", json_object_new_string(server));
		if (ca) {
			ca64 = k8s_base64_encode(ca, ca_size);
			if (!ca64)
				return NULL;
			json_object_object_add(cluster, "certificate-authority-data",
					       json_object_new_string(ca64));
		}
	}
	return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The program to run, as an absolute path: a path as it is, a bare name
 * looked up in the absolute directories of PATH (as execvp would, but never
 * relative to wherever we run). It runs as root with our credentials: like a
 * secret file, it must be owned by root or by us and writable by no one
 * else. */
static int find_command(const struct kc_exec *e, char **ret, char *error)
{
	_cleanup_free_ char *found = NULL;
	const char *path = getenv("PATH") ?: DEFAULT_PATH;
	struct stat st;

	if (strchr(e->command, '/'))
		found = realpath(e->command, NULL);
	else
		for (const char *p = path; !found;) {
			size_t n = strcspn(p, ":");
			_cleanup_free_ char *c = strdup_printf("%.*s/%s", (int)n, p, e->command);

			if (!c)
				return -ENOMEM;
			if (p[0] == '/' && access(c, X_OK) == 0 && stat(c, &st) == 0 &&
			    S_ISREG(st.st_mode))
				found = TAKE_PTR(c);
			if (!p[n])
				break;
			p += n + 1;
		}
	if (!found || stat(found, &st) < 0)
		return k8s_set_error(error, -ENOENT, "exec plugin %s: not found%s%s%s", e->command,
				     strchr(e->command, '/') ? "" : " in PATH",
				     e->install_hint ? ": " : "", strempty(e->install_hint));
	if (!S_ISREG(st.st_mode) || access(found, X_OK) < 0)
		return k8s_set_error(error, -ENOENT, "exec plugin %s: not an executable file",
				     found);
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return k8s_set_error(error, -EPERM,
				     "exec plugin %s: refused, owned by uid %u: it runs with our "
				     "credentials, so it must be owned by root or by the user "
				     "k8s-notify runs as",
				     found, (unsigned)st.st_uid);
	if (st.st_mode & 022)
		return k8s_set_error(error, -EPERM,
				     "exec plugin %s: refused, writable by %s (mode %04o); chmod "
				     "go-w it",
				     found, st.st_mode & 002 ? "everyone" : "its group",
				     (unsigned)(st.st_mode & 07777));
	*ret = TAKE_PTR(found);
	return 0;
}

/* environ, with the kubeconfig's variables (replacing ours of the same name)
 * and KUBERNETES_EXEC_INFO. The strings stay the owners'. */
static char **plugin_env(const struct kc_exec *e, const char *info)
{
	char **env = calloc(strv_length(environ) + strv_length(e->env) + 2, sizeof(char *));
	size_t k = 0;

	if (!env)
		return NULL;
	for (char **p = environ; p && *p; p++) {
		bool replaced = startswith(*p, "KUBERNETES_EXEC_INFO=");

		for (char **v = e->env; !replaced && v && *v; v++) {
			size_t len = strcspn(*v, "=") + 1;

			replaced = strncmp(*p, *v, len) == 0;
		}
		if (!replaced)
			env[k++] = *p;
	}
	for (char **v = e->env; v && *v; v++)
		env[k++] = *v;
	env[k] = (char *)info;
	return env;
}

/* Its standard error goes to ours (the journal), line by line, saying how
 * much of it was dropped before; the last non-empty line is returned for the
 * error message (NULL: none). */
static const char *pass_stderr(const char *node, const char *path, char *err, size_t dropped)
{
	const char *last = NULL;

	if (dropped)
		fprintf(stderr,
			"k8s-notify: %s%sexec plugin %s: (its standard error was long: the first "
			"%zu bytes dropped, the last %zu follow)\n",
			strempty(node), node ? ": " : "", path, dropped, strlen(err));

	for (char *line = err, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!*line)
			continue;
		fprintf(stderr, "k8s-notify: %s%sexec plugin %s: %s\n", strempty(node),
			node ? ": " : "", path, line);
		last = line;
	}
	return last;
}

/* The plugin's path, then its arguments. */
static int plugin_argv(const struct kc_exec *e, const char *path, char ***ret)
{
	_cleanup_strv_free_ char **argv = NULL;

	if (strv_extend(&argv, path) < 0)
		return -ENOMEM;
	for (char **a = e->args; a && *a; a++)
		if (strv_extend(&argv, *a) < 0)
			return -ENOMEM;
	*ret = TAKE_PTR(argv);
	return 0;
}

/* What tool_run_with()'s failure r means for the credential. */
static int run_error(const char *path, int r, usec_t timeout, char error[static K8S_ERROR_MAX])
{
	if (r == -EFBIG)
		return k8s_set_error(error, r,
				     "exec plugin %s: more than %u KiB of output, refused", path,
				     EXEC_OUTPUT_MAX >> 10);
	if (r == -ETIMEDOUT)
		return k8s_set_error(error, r,
				     "exec plugin %s: no credential within %llu s, killed", path,
				     (unsigned long long)(timeout / USEC_PER_SEC));
	return k8s_set_error(error, r == -ENOENT || r == -ENOMEM ? r : -EAGAIN,
			     "exec plugin %s: cannot run it: %s", path, strerror(-r));
}

/* The credential from what the plugin printed, once it exited 0. */
static int plugin_result(const struct kc_exec *e, const char *node, const char *path,
			 struct tool_run *t, struct exec_credential *ret,
			 char error[static K8S_ERROR_MAX])
{
	const char *last = pass_stderr(node, path, t->err, t->err_dropped);
	char why[K8S_ERROR_MAX];
	int r;

	if (t->exit_status != 0)
		return k8s_set_error(error, -EAGAIN, "exec plugin %s %s%s%s", path,
				     t->exit_status < 0 ? "was killed by a signal" : "failed",
				     last ? ": " : "", strempty(last));
	r = exec_credential_parse(t->out, t->out_len, e->api_version, ret, why);
	if (r < 0 && r != -ENOMEM)
		k8s_set_error(error, r, "exec plugin %s: %s", path, why);
	return r;
}

int exec_credential_run(const struct kc_exec *e, const char *server, const void *ca, size_t ca_size,
			const char *node, usec_t timeout, struct exec_credential *ret,
			char error[static K8S_ERROR_MAX])
{
	_cleanup_free_ char *path = NULL, *request = NULL, *info = NULL;
	_cleanup_strv_free_ char **argv = NULL;
	_cleanup_free_ char **env = NULL;
	struct tool_run t = {};
	int r;

	r = find_command(e, &path, error);
	if (r < 0)
		return r;
	request = exec_credential_request(e, server, ca, ca_size);
	info = request ? strdup_printf("KUBERNETES_EXEC_INFO=%s", request) : NULL;
	env = info ? plugin_env(e, info) : NULL;
	if (!env || plugin_argv(e, path, &argv) < 0)
		return -ENOMEM;
	/* its own process group: a time-out kills what it started too; stderr
	 * only for messages, bounded apart from the credential */
	r = tool_run_with(
		argv,
		&(struct tool_run_options){ .env = env, .group = true, .max_err = EXEC_STDERR_MAX },
		timeout, EXEC_OUTPUT_MAX, &t);
	if (r < 0)
		return run_error(path, r, timeout, error);
	r = plugin_result(e, node, path, &t, ret, error);
	explicit_bzero(t.out, t.out_len);
	tool_run_done(&t);
	return r;
}
