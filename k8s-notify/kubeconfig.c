/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <yaml.h>

#include "kubeconfig.h"
#include "secret-file.h"

static void kc_blob_done(struct kc_blob *b)
{
	free(b->path);
	free(b->data);
	*b = (struct kc_blob){};
}

void kc_exec_free(struct kc_exec *e)
{
	if (!e)
		return;
	free(e->api_version);
	free(e->command);
	strv_free(e->args);
	strv_free(e->env);
	free(e->install_hint);
	free(e);
}

struct kc_exec *kc_exec_copy(const struct kc_exec *e)
{
	struct kc_exec *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->provide_cluster_info = e->provide_cluster_info;
	c->api_version = strdup(e->api_version);
	c->command = strdup(e->command);
	c->args = e->args ? strv_copy(e->args) : NULL;
	c->env = e->env ? strv_copy(e->env) : NULL;
	c->install_hint = e->install_hint ? strdup(e->install_hint) : NULL;
	if (!c->api_version || !c->command || (e->args && !c->args) || (e->env && !c->env) ||
	    (e->install_hint && !c->install_hint)) {
		kc_exec_free(c);
		return NULL;
	}
	return c;
}

struct kubeconfig *kubeconfig_free(struct kubeconfig *kc)
{
	if (!kc)
		return NULL;
	kc_exec_free(kc->exec);
	free(kc->context);
	free(kc->server);
	kc_blob_done(&kc->ca);
	kc_blob_done(&kc->client_cert);
	kc_blob_done(&kc->client_key);
	free(kc->token);
	free(kc->token_file);
	free(kc->namespace);
	free(kc);
	return NULL;
}

static int fail(char *error, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(char *error, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(error, K8S_ERROR_MAX, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- YAML document access ---- */

struct kc_parser {
	yaml_document_t *doc;
	const char *base_dir;
	char *error;
	struct kubeconfig *kc;
};

/* The string of a scalar node; NULL for other nodes or scalars holding a NUL. */
static const char *node_str(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

static yaml_node_t *map_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = node_str(yaml_document_get_node(doc, p->key));

		if (k && streq(k, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* A string field of a mapping: 0 and NULL when absent, -EINVAL when not a string. */
static int map_str(struct kc_parser *p, const yaml_node_t *map, const char *what, const char *key,
		   const char **ret)
{
	yaml_node_t *n = map_get(p->doc, map, key);

	*ret = NULL;
	if (!n)
		return 0;
	*ret = node_str(n);
	if (!*ret)
		return fail(p->error, -EINVAL, "kubeconfig: %s: %s must be a string", what, key);
	return 0;
}

/* The entry of list (clusters, contexts, users) called name: its field `field`. */
static int find_named(struct kc_parser *p, const char *list, const char *field, const char *name,
		      yaml_node_t **ret)
{
	yaml_node_t *seq = map_get(p->doc, yaml_document_get_root_node(p->doc), list);

	if (seq && seq->type != YAML_SEQUENCE_NODE)
		return fail(p->error, -EINVAL, "kubeconfig: %s must be a list", list);
	for (yaml_node_item_t *i = seq ? seq->data.sequence.items.start : NULL;
	     seq && i < seq->data.sequence.items.top; i++) {
		yaml_node_t *entry = yaml_document_get_node(p->doc, *i);
		const char *n = node_str(map_get(p->doc, entry, "name"));

		if (!n || !streq(n, name))
			continue;
		*ret = map_get(p->doc, entry, field);
		if (!*ret || (*ret)->type != YAML_MAPPING_NODE)
			return fail(p->error, -EINVAL, "kubeconfig: %s \"%s\" has no %s map", list,
				    name, field);
		return 0;
	}
	return fail(p->error, -ENOENT, "kubeconfig: %.8s \"%s\" not found in %s", field, name,
		    list);
}

static int set_path(struct kc_parser *p, char **field, const char *v)
{
	while (startswith(v, "./"))
		v += 2;
	if (v[0] == '/' || !p->base_dir)
		return free_and_strdup(field, v);
	free(*field);
	*field = strdup_printf("%s/%s", p->base_dir, v);
	return *field ? 0 : -ENOMEM;
}

/* key (a file) or key-data (base64, taking precedence) into b. */
static int parse_blob(struct kc_parser *p, const yaml_node_t *map, const char *what,
		      const char *key, struct kc_blob *b)
{
	_cleanup_free_ char *data_key = strdup_printf("%s-data", key);
	const char *path, *data;
	int r;

	if (!data_key)
		return -ENOMEM;
	r = map_str(p, map, what, key, &path);
	if (r >= 0)
		r = map_str(p, map, what, data_key, &data);
	if (r < 0)
		return r;
	if (data && *data) {
		r = k8s_base64_decode(data, strlen(data), &b->data, &b->size);
		if (r == -EINVAL)
			return fail(p->error, r, "kubeconfig: %s: %s is not valid base64", what,
				    data_key);
		return r;
	}
	if (path && *path)
		return set_path(p, &b->path, path);
	return 0;
}

static int parse_cluster(struct kc_parser *p, const char *name)
{
	_cleanup_free_ char *what = strdup_printf("cluster \"%s\"", name);
	const char *server, *insecure, *sni;
	yaml_node_t *c;
	size_t n;
	int r;

	if (!what)
		return -ENOMEM;
	r = find_named(p, "clusters", "cluster", name, &c);
	if (r >= 0)
		r = map_str(p, c, what, "insecure-skip-tls-verify", &insecure);
	if (r >= 0)
		r = map_str(p, c, what, "tls-server-name", &sni);
	if (r >= 0)
		r = map_str(p, c, what, "server", &server);
	if (r < 0)
		return r;
	if (insecure && parse_boolean(insecure) != 0)
		return fail(p->error, -EPERM,
			    "kubeconfig: %s sets insecure-skip-tls-verify: refused, TLS is always "
			    "verified (give certificate-authority or certificate-authority-data)",
			    what);
	if (sni && *sni)
		return fail(p->error, -EOPNOTSUPP,
			    "kubeconfig: %s: tls-server-name is not supported", what);
	if (!server || strncmp(server, "https://", 8) != 0 || strlen(server) <= 8 ||
	    string_has_control_chars(server) || strpbrk(server, " ?#"))
		return fail(p->error, -EINVAL,
			    "kubeconfig: %s: server must be an https:// URL, got \"%s\"", what,
			    strempty(server));
	r = free_and_strdup(&p->kc->server, server);
	if (r < 0)
		return r;
	for (n = strlen(p->kc->server); n > 8 && p->kc->server[n - 1] == '/'; n--)
		p->kc->server[n - 1] = '\0';
	return parse_blob(p, c, what, "certificate-authority", &p->kc->ca);
}

/* Credentials k8s-notify cannot use are an error, not a silent anonymous request. */
static int check_user_unsupported(struct kc_parser *p, const yaml_node_t *u, const char *what)
{
	static const char *const unsupported[] = { "auth-provider", "username", "password", "as" };

	for (size_t i = 0; i < ELEMENTSOF(unsupported); i++)
		if (map_get(p->doc, u, unsupported[i]))
			return fail(p->error, -EOPNOTSUPP,
				    "kubeconfig: %s uses \"%s\", which is not supported: give a "
				    "token, tokenFile, client certificate or exec plugin",
				    what, unsupported[i]);
	return 0;
}

static bool env_name_is_valid(const char *s)
{
	if (!*s || (!isalpha((unsigned char)*s) && *s != '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* exec.args (env = false: a list of strings) or exec.env (a list of {name,
 * value}, as "name=value"). */
static int parse_exec_list(struct kc_parser *p, const yaml_node_t *seq, const char *what, bool env,
			   char ***ret)
{
	const char *key = env ? "exec.env" : "exec.args";

	if (!seq)
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE)
		return fail(p->error, -EINVAL, "kubeconfig: %s: %s must be a list", what, key);
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top;
	     i++) {
		yaml_node_t *e = yaml_document_get_node(p->doc, *i);
		const char *name = env ? node_str(map_get(p->doc, e, "name")) : NULL;
		const char *value = env ? node_str(map_get(p->doc, e, "value")) : node_str(e);

		if (!value || (env && (!name || !env_name_is_valid(name))))
			return fail(p->error, -EINVAL,
				    env ? "kubeconfig: %s: each %s entry needs a name (letters, "
					  "digits, _) and a string value" :
					  "kubeconfig: %s: %s must be a list of strings",
				    what, key);
		if (strv_consume(ret, env ? strdup_printf("%s=%s", name, value) : strdup(value)) <
		    0)
			return -ENOMEM;
	}
	return 0;
}

/* users[].user.exec. Never interactive: k8s-notify runs without a terminal. */
struct exec_fields {
	const char *api, *command, *mode, *info, *hint; /* NULL: not given */
};

static int exec_fields_read(struct kc_parser *p, const yaml_node_t *x, const char *what,
			    struct exec_fields *f)
{
	int r;

	if (x->type != YAML_MAPPING_NODE)
		return fail(p->error, -EINVAL, "kubeconfig: %s: exec must be a map", what);
	r = map_str(p, x, what, "apiVersion", &f->api);
	if (r >= 0)
		r = map_str(p, x, what, "command", &f->command);
	if (r >= 0)
		r = map_str(p, x, what, "interactiveMode", &f->mode);
	if (r >= 0)
		r = map_str(p, x, what, "provideClusterInfo", &f->info);
	if (r >= 0)
		r = map_str(p, x, what, "installHint", &f->hint);
	return r;
}

/* As client-go: v1 must say its interactiveMode, and "Always" needs a terminal. */
static int exec_mode_check(struct kc_parser *p, const char *api, const char *mode, const char *what)
{
	if (!mode && streq(api, EXEC_API_V1))
		return fail(p->error, -EINVAL,
			    "kubeconfig: %s: exec.interactiveMode must be set for " EXEC_API_V1
			    " (Never or IfAvailable)",
			    what);
	if (mode && !streq(mode, "Never") && !streq(mode, "IfAvailable") && !streq(mode, "Always"))
		return fail(p->error, -EINVAL,
			    "kubeconfig: %s: exec.interactiveMode \"%s\" is not Never, IfAvailable "
			    "or Always",
			    what, mode);
	if (mode && streq(mode, "Always"))
		return fail(p->error, -EOPNOTSUPP,
			    "kubeconfig: %s: exec.interactiveMode %s: k8s-notify runs without a "
			    "terminal; the plugin must work with Never or IfAvailable",
			    what, mode);
	return 0;
}

static int exec_fields_check(struct kc_parser *p, const struct exec_fields *f, const char *what)
{
	int r;

	if (!streq_ptr(f->api, EXEC_API_V1) && !streq_ptr(f->api, EXEC_API_V1BETA1))
		return fail(
			p->error, -EOPNOTSUPP,
			"kubeconfig: %s: exec.apiVersion \"%s\" is not supported (use " EXEC_API_V1
			" or " EXEC_API_V1BETA1 ")",
			what, strempty(f->api));
	if (!f->command || !*f->command || string_has_control_chars(f->command))
		return fail(p->error, -EINVAL, "kubeconfig: %s: exec.command is missing", what);
	r = exec_mode_check(p, f->api, f->mode, what);
	if (r < 0)
		return r;
	if (f->info && parse_boolean(f->info) < 0)
		return fail(p->error, -EINVAL,
			    "kubeconfig: %s: exec.provideClusterInfo must be true or false", what);
	return 0;
}

static int parse_exec(struct kc_parser *p, const yaml_node_t *x, const char *what)
{
	struct exec_fields f = {};
	struct kc_exec *e;
	int r;

	r = exec_fields_read(p, x, what, &f);
	if (r >= 0)
		r = exec_fields_check(p, &f, what);
	if (r < 0)
		return r;
	e = p->kc->exec = calloc(1, sizeof(*e));
	if (!e || !(e->api_version = strdup(f.api)))
		return -ENOMEM;
	e->provide_cluster_info = f.info && parse_boolean(f.info) > 0;
	if (f.hint && !(e->install_hint = strdup(f.hint)))
		return -ENOMEM;
	/* a relative path is the kubeconfig's; a bare name is looked up in PATH */
	r = strchr(f.command, '/') ? set_path(p, &e->command, f.command) :
				     free_and_strdup(&e->command, f.command);
	if (r >= 0)
		r = parse_exec_list(p, map_get(p->doc, x, "args"), what, false, &e->args);
	if (r >= 0)
		r = parse_exec_list(p, map_get(p->doc, x, "env"), what, true, &e->env);
	return r;
}

static int parse_token(struct kc_parser *p, const yaml_node_t *u, const char *what)
{
	const char *token, *file, *file2;
	int r;

	r = map_str(p, u, what, "token", &token);
	if (r >= 0)
		r = map_str(p, u, what, "tokenFile", &file);
	if (r >= 0)
		r = map_str(p, u, what, "token-file", &file2);
	if (r < 0)
		return r;
	if (token && *token) {
		if (string_has_control_chars(token))
			return fail(p->error, -EINVAL,
				    "kubeconfig: %s: token has control characters", what);
		return free_and_strdup(&p->kc->token, token);
	}
	file = file && *file ? file : file2;
	if (file && *file)
		return set_path(p, &p->kc->token_file, file);
	return 0;
}

static bool blob_set(const struct kc_blob *b)
{
	return b->path || b->data;
}

static int parse_user(struct kc_parser *p, const char *name)
{
	_cleanup_free_ char *what = strdup_printf("user \"%s\"", name);
	struct kubeconfig *kc = p->kc;
	yaml_node_t *u;
	int r;

	if (!what)
		return -ENOMEM;
	r = find_named(p, "users", "user", name, &u);
	if (r >= 0)
		r = check_user_unsupported(p, u, what);
	if (r >= 0)
		r = parse_token(p, u, what);
	if (r >= 0 && map_get(p->doc, u, "exec"))
		r = parse_exec(p, map_get(p->doc, u, "exec"), what);
	if (r >= 0)
		r = parse_blob(p, u, what, "client-certificate", &kc->client_cert);
	if (r >= 0)
		r = parse_blob(p, u, what, "client-key", &kc->client_key);
	if (r < 0)
		return r;
	if (blob_set(&kc->client_cert) != blob_set(&kc->client_key))
		return fail(
			p->error, -EINVAL,
			"kubeconfig: %s: a client certificate needs a client key and vice versa",
			what);
	/* one way to authenticate: which one wins would be a guess */
	if (kc->exec && (kc->token || kc->token_file || blob_set(&kc->client_cert)))
		return fail(p->error, -EINVAL,
			    "kubeconfig: %s has an exec plugin and a token or client "
			    "certificate: give one of them",
			    what);
	if (!kc->token && !kc->token_file && !blob_set(&kc->client_cert) && !kc->exec)
		return fail(p->error, -ENOKEY,
			    "kubeconfig: %s has no token, tokenFile, client certificate or exec "
			    "plugin",
			    what);
	return 0;
}

static int parse_context(struct kc_parser *p)
{
	yaml_node_t *root = yaml_document_get_root_node(p->doc), *ctx;
	const char *current, *cluster, *user, *ns;
	int r;

	if (!root || root->type != YAML_MAPPING_NODE)
		return fail(p->error, -EINVAL, "kubeconfig: not a YAML mapping");
	r = map_str(p, root, "document", "current-context", &current);
	if (r < 0)
		return r;
	if (!current || !*current)
		return fail(p->error, -EINVAL, "kubeconfig: no current-context");
	r = find_named(p, "contexts", "context", current, &ctx);
	if (r >= 0)
		r = map_str(p, ctx, "context", "cluster", &cluster);
	if (r >= 0)
		r = map_str(p, ctx, "context", "user", &user);
	if (r >= 0)
		r = map_str(p, ctx, "context", "namespace", &ns);
	if (r < 0)
		return r;
	if (!cluster || !*cluster || !user || !*user)
		return fail(p->error, -EINVAL,
			    "kubeconfig: context \"%s\" needs a cluster and a user", current);
	if (free_and_strdup(&p->kc->context, current) < 0 ||
	    (ns && *ns && free_and_strdup(&p->kc->namespace, ns) < 0))
		return -ENOMEM;
	r = parse_cluster(p, cluster);
	return r < 0 ? r : parse_user(p, user);
}

int kubeconfig_parse(const char *text, size_t size, const char *base_dir, struct kubeconfig **ret,
		     char error[static K8S_ERROR_MAX])
{
	_cleanup_kubeconfig_ struct kubeconfig *kc = calloc(1, sizeof(*kc));
	yaml_parser_t parser;
	yaml_document_t doc;
	struct kc_parser p = { .doc = &doc, .base_dir = base_dir, .error = error, .kc = kc };
	int r;

	if (!kc || !yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
	if (!yaml_parser_load(&parser, &doc)) {
		r = fail(error, -EINVAL, "kubeconfig: line %zu: %s",
			 (size_t)parser.problem_mark.line + 1, strna(parser.problem));
		yaml_parser_delete(&parser);
		return r;
	}
	r = parse_context(&p);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(kc);
	return 0;
}

/* ret_st: may be NULL */
static int read_secret(const char *path, const char *what, bool private_, size_t max, char **ret,
		       size_t *ret_size, struct stat *ret_st, char error[static K8S_ERROR_MAX])
{
	struct stat st;
	_cleanup_close_ int fd = open_regular_at(AT_FDCWD, path, &st);
	int r;

	if (fd == -EISDIR || fd == -EBADFD)
		return fail(error, fd, "%s %s is not a regular file", what, path);
	if (fd < 0)
		return fail(error, fd, "cannot read %s %s: %s", what, path, strerror(-fd));
	/* the rule sriovctl check applies too */
	r = secret_stat_refusal(&st, geteuid(), private_, what, path, error, K8S_ERROR_MAX);
	if (r < 0)
		return r;
	r = read_fd(fd, max, ret, ret_size);
	if (r < 0)
		return fail(error, r, "cannot read %s %s: %s", what, path,
			    r == -EFBIG ? "too large" : strerror(-r));
	if (ret_st)
		*ret_st = st;
	return 0;
}

int k8s_read_secret_file(const char *path, const char *what, size_t max, char **ret,
			 size_t *ret_size, char error[static K8S_ERROR_MAX])
{
	return read_secret(path, what, false, max, ret, ret_size, NULL, error);
}

int k8s_read_private_file(const char *path, const char *what, size_t max, char **ret,
			  size_t *ret_size, char error[static K8S_ERROR_MAX])
{
	return read_secret(path, what, true, max, ret, ret_size, NULL, error);
}

int kubeconfig_load(const char *path, struct kubeconfig **ret, char error[static K8S_ERROR_MAX])
{
	_cleanup_free_ char *text = NULL, *copy = strdup(path), *where = NULL;
	_cleanup_kubeconfig_ struct kubeconfig *kc = NULL;
	struct stat st;
	size_t size;
	int r;

	if (!copy)
		return -ENOMEM;
	r = read_secret(path, "kubeconfig", false, KUBECONFIG_FILE_MAX, &text, &size, &st, error);
	if (r < 0)
		return r;
	r = kubeconfig_parse(text, size, dirname(copy), &kc, error);
	if (r < 0 && r != -ENOMEM) {
		where = strdup_printf("%s: %s", path, error);
		if (where)
			snprintf(error, K8S_ERROR_MAX, "%s", where);
	}
	if (r < 0)
		return r;
	/* a kubeconfig that holds the secret itself is held to the rule of
	 * the files that do (a token file, a client key) */
	if (kc->token || kc->client_key.data) {
		r = secret_stat_refusal(&st, geteuid(), true,
					kc->token ? "kubeconfig (it holds a token)" :
						    "kubeconfig (it holds client-key-data)",
					path, error, K8S_ERROR_MAX);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(kc);
	return 0;
}

static int read_namespace(const char *sa_dir, char **ret)
{
	_cleanup_free_ char *path = strdup_printf("%s/namespace", sa_dir), *ns = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = read_file_at(AT_FDCWD, path, 256, &ns, NULL);
	if (r < 0) /* optional */
		return r == -ENOMEM ? r : 0;
	ns[strcspn(ns, " \t\r\n")] = '\0';
	if (*ns && k8s_name_is_valid(ns))
		*ret = TAKE_PTR(ns);
	return 0;
}

int kubeconfig_in_cluster(const char *sa_dir, const char *host, const char *port,
			  struct kubeconfig **ret, char error[static K8S_ERROR_MAX])
{
	_cleanup_kubeconfig_ struct kubeconfig *kc = calloc(1, sizeof(*kc));
	uint32_t p;
	int r;

	if (!kc)
		return -ENOMEM;
	if (!host || !*host || string_has_control_chars(host) || strpbrk(host, "/ ?#@"))
		return fail(error, -EINVAL,
			    "in-cluster: KUBERNETES_SERVICE_HOST is not a host: \"%s\"",
			    strempty(host));
	if (!port || safe_atou32(port, 10, &p) < 0 || p == 0 || p > 65535)
		return fail(error, -EINVAL,
			    "in-cluster: KUBERNETES_SERVICE_PORT is not a port: \"%s\"",
			    strempty(port));
	kc->server =
		strdup_printf(strchr(host, ':') ? "https://[%s]:%u" : "https://%s:%u", host, p);
	kc->ca.path = strdup_printf("%s/ca.crt", sa_dir);
	kc->token_file = strdup_printf("%s/token", sa_dir);
	if (!kc->server || !kc->ca.path || !kc->token_file)
		return -ENOMEM;
	r = read_namespace(sa_dir, &kc->namespace);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(kc);
	return 0;
}
