/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "kubeconfig.h"

/* "-----BEGIN CERTIFICATE-----\nMIIB\n" */
#define CA_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIK"

#define HEAD                                       \
	"apiVersion: v1\n"                         \
	"kind: Config\n"                           \
	"current-context: prod\n"                  \
	"contexts:\n"                              \
	"- name: other\n"                          \
	"  context: {cluster: nope, user: nope}\n" \
	"- name: prod\n"                           \
	"  context:\n"                             \
	"    cluster: c1\n"                        \
	"    user: u1\n"                           \
	"    namespace: kube-system\n"

static struct kubeconfig *parse_ok(const char *text, const char *base)
{
	char error[K8S_ERROR_MAX] = "";
	struct kubeconfig *kc = NULL;
	int r = kubeconfig_parse(text, strlen(text), base, &kc, error);

	if (r < 0)
		print_error("unexpected error: %s\n", error);
	assert_int_equal(r, 0);
	assert_non_null(kc);
	return kc;
}

/* text must fail with r and a message containing what. */
static void parse_fails(const char *text, int r, const char *what)
{
	char error[K8S_ERROR_MAX] = "";
	struct kubeconfig *kc = NULL;

	assert_int_equal(kubeconfig_parse(text, strlen(text), "/etc/x", &kc, error), r);
	assert_null(kc);
	if (!strstr(error, what))
		print_error("message \"%s\" lacks \"%s\"\n", error, what);
	assert_non_null(strstr(error, what));
}

static void test_token_and_ca_data(void **state)
{
	struct kubeconfig *kc = parse_ok(HEAD "clusters:\n"
					      "- name: c1\n"
					      "  cluster:\n"
					      "    server: https://10.0.0.1:6443/\n"
					      "    certificate-authority-data: " CA_B64 "\n"
					      "users:\n"
					      "- name: u1\n"
					      "  user:\n"
					      "    token: abc.def\n",
					 "/etc/sriov-persist");

	assert_string_equal(kc->context, "prod");
	assert_string_equal(kc->server, "https://10.0.0.1:6443"); /* trailing '/' dropped */
	assert_null(kc->ca.path);
	assert_int_equal(kc->ca.size, strlen("-----BEGIN CERTIFICATE-----\nMIIB\n"));
	assert_memory_equal(kc->ca.data, "-----BEGIN CERTIFICATE-----\nMIIB\n", kc->ca.size);
	assert_string_equal(kc->token, "abc.def");
	assert_null(kc->token_file);
	assert_string_equal(kc->namespace, "kube-system");
	kubeconfig_free(kc);
}

static void test_files_relative(void **state)
{
	struct kubeconfig *kc = parse_ok(HEAD "clusters:\n"
					      "- name: c1\n"
					      "  cluster:\n"
					      "    server: \"https://api.example.com\"\n"
					      "    certificate-authority: pki/ca.crt\n"
					      "    insecure-skip-tls-verify: false\n"
					      "users:\n"
					      "- name: u1\n"
					      "  user:\n"
					      "    tokenFile: token\n"
					      "    client-certificate: /abs/cert.pem\n"
					      "    client-key: key.pem\n",
					 "/etc/sriov-persist");

	assert_string_equal(kc->server, "https://api.example.com");
	assert_string_equal(kc->ca.path, "/etc/sriov-persist/pki/ca.crt");
	assert_string_equal(kc->token_file, "/etc/sriov-persist/token");
	assert_null(kc->token);
	assert_string_equal(kc->client_cert.path, "/abs/cert.pem");
	assert_string_equal(kc->client_key.path, "/etc/sriov-persist/key.pem");
	kubeconfig_free(kc);
}

static void test_flow_style_and_data_wins(void **state)
{
	struct kubeconfig *kc = parse_ok(
		"{current-context: a, contexts: [{name: a, context: {cluster: c, user: u}}],"
		" clusters: [{name: c, cluster: {server: 'https://h', certificate-authority:"
		" /ca, certificate-authority-data: " CA_B64 "}}],"
		" users: [{name: u, user: {client-certificate-data: " CA_B64 ","
		" client-key-data: " CA_B64 ", token-file: /t}}]}",
		NULL);

	assert_null(kc->ca.path); /* -data takes precedence, as in kubectl */
	assert_non_null(kc->ca.data);
	assert_non_null(kc->client_cert.data);
	assert_non_null(kc->client_key.data);
	assert_string_equal(kc->token_file, "/t");
	assert_null(kc->namespace);
	kubeconfig_free(kc);
}

static void test_insecure_refused(void **state)
{
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "    insecure-skip-tls-verify: true\n"
			 "users:\n- name: u1\n  user:\n    token: t\n",
		    -EPERM, "insecure-skip-tls-verify");
}

static void test_errors(void **state)
{
	parse_fails("", -EINVAL, "not a YAML mapping");
	parse_fails("a: [", -EINVAL, "line ");
	parse_fails("- 1\n- 2\n", -EINVAL, "not a YAML mapping");
	parse_fails("apiVersion: v1\n", -EINVAL, "no current-context");
	parse_fails("current-context: x\n", -ENOENT, "context \"x\" not found");
	parse_fails(HEAD, -ENOENT, "cluster \"c1\" not found");
	parse_fails(HEAD "clusters: 5\n", -EINVAL, "clusters must be a list");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: http://h\n", -EINVAL,
		    "https://");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: [1]\n", -EINVAL,
		    "server must be a string");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "    certificate-authority-data: '!!!'\n",
		    -EINVAL, "not valid base64");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "users:\n- name: u1\n  user: {}\n",
		    -ENOKEY, "no token");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "users:\n- name: u1\n  user:\n    client-certificate: /c\n",
		    -EINVAL, "needs a client key");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "users:\n- name: u1\n  user:\n    exec: {command: aws}\n",
		    -EOPNOTSUPP, "exec.apiVersion \"\" is not supported");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "users:\n- name: u1\n  user:\n    username: admin\n",
		    -EOPNOTSUPP, "\"username\"");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n"
			 "users:\n- name: u1\n  user:\n    token: \"a\\nb\"\n",
		    -EINVAL, "control characters");
	parse_fails(HEAD "clusters:\n- name: c1\n  cluster:\n    server: \"https://h\\0x\"\n",
		    -EINVAL, "server must be a string");
}

#define EXEC_HEAD                                                         \
	HEAD "clusters:\n- name: c1\n  cluster:\n    server: https://h\n" \
	     "users:\n- name: u1\n  user:\n    exec:\n"

static const char exec_full[] = EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1\n"
					  "      command: bin/get-token\n"
					  "      args: [token, --cluster, \"$(id)\"]\n"
					  "      env: [{name: AWS_PROFILE, value: 'a b'}]\n"
					  "      interactiveMode: IfAvailable\n"
					  "      provideClusterInfo: true\n"
					  "      installHint: apt install x\n";

static void test_exec(void **state)
{
	struct kubeconfig *kc = parse_ok(exec_full, "/etc/k");

	assert_non_null(kc->exec);
	assert_null(kc->token);
	/* a relative path is the kubeconfig's, the arguments stay as they are */
	assert_string_equal(kc->exec->command, "/etc/k/bin/get-token");
	assert_int_equal(strv_length(kc->exec->args), 3);
	assert_string_equal(kc->exec->args[2], "$(id)");
	assert_string_equal(kc->exec->env[0], "AWS_PROFILE=a b");
	assert_true(kc->exec->provide_cluster_info);
	assert_string_equal(kc->exec->install_hint, "apt install x");
	kubeconfig_free(kc);
	/* "./" adds nothing */
	kc = parse_ok(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1beta1\n"
				"      command: ././bin/get-token\n",
		      "/etc/k");
	assert_string_equal(kc->exec->command, "/etc/k/bin/get-token");
	kubeconfig_free(kc);
	/* a bare name is looked up in PATH when run; v1beta1 needs no interactiveMode */
	kc = parse_ok(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1beta1\n"
				"      command: aws\n",
		      "/etc/k");
	assert_string_equal(kc->exec->command, "aws");
	assert_false(kc->exec->provide_cluster_info);
	kubeconfig_free(kc);

	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1alpha1\n"
			      "      command: aws\n",
		    -EOPNOTSUPP, "v1alpha1\" is not supported");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1\n"
			      "      command: aws\n",
		    -EINVAL, "interactiveMode must be set");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1\n"
			      "      command: aws\n      interactiveMode: Always\n",
		    -EOPNOTSUPP, "without a terminal");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1\n"
			      "      command: aws\n      interactiveMode: Sometimes\n",
		    -EINVAL, "\"Sometimes\" is not Never, IfAvailable or Always");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1beta1\n", -EINVAL,
		    "exec.command is missing");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1beta1\n"
			      "      command: aws\n      args: aws\n",
		    -EINVAL, "exec.args must be a list");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1beta1\n"
			      "      command: aws\n      env: [{name: 'A=B', value: x}]\n",
		    -EINVAL, "exec.env entry");
	parse_fails(EXEC_HEAD "      apiVersion: client.authentication.k8s.io/v1beta1\n"
			      "      command: aws\n    token: t\n",
		    -EINVAL, "an exec plugin and a token");
}

static void test_aliases(void **state)
{
	/* anchors and aliases are YAML; they resolve to the same node */
	struct kubeconfig *kc =
		parse_ok("current-context: a\n"
			 "contexts: [{name: a, context: {cluster: c, user: u}}]\n"
			 "clusters: [{name: c, cluster: {server: &s 'https://h'}}]\n"
			 "users: [{name: u, user: {token: *s}}]\n",
			 NULL);

	assert_string_equal(kc->token, "https://h");
	kubeconfig_free(kc);
}

static void test_base64(void **state)
{
	char *out = NULL;
	size_t n = 0;

	assert_int_equal(k8s_base64_decode("aGVsbG8=", 8, &out, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(out, "hello");
	free(out);
	assert_int_equal(k8s_base64_decode("aGVs\nbG8", 8, &out, &n), 0); /* no padding, newline */
	assert_string_equal(out, "hello");
	free(out);
	assert_int_equal(k8s_base64_decode("", 0, &out, &n), 0);
	assert_int_equal(n, 0);
	free(out);
	out = NULL;
	assert_int_equal(k8s_base64_decode("aGVsbG9=", 8, &out, &n), -EINVAL); /* stray bits */
	assert_int_equal(k8s_base64_decode("aG=Vs", 5, &out, &n), -EINVAL);
	assert_int_equal(k8s_base64_decode("a===", 4, &out, &n), -EINVAL);
	assert_int_equal(k8s_base64_decode("a*bc", 4, &out, &n), -EINVAL);
	assert_null(out);
	/* encoding, every padding case, and back */
	for (size_t len = 0; len <= 5; len++) {
		static const char *const want[] = { "",	    "aA==",	"aGU=",
						    "aGVs", "aGVsbA==", "aGVsbG8=" };
		char *e = k8s_base64_encode("hello", len);

		assert_string_equal(e, want[len]);
		assert_int_equal(k8s_base64_decode(e, strlen(e), &out, &n), 0);
		assert_int_equal(n, len);
		assert_memory_equal(out, "hello", len);
		free(out);
		free(e);
	}
}

static void test_in_cluster(void **state)
{
	char dir[] = "/tmp/test-k8s-sa-XXXXXX", error[K8S_ERROR_MAX];
	struct kubeconfig *kc = NULL;
	char *ns = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(kubeconfig_in_cluster(dir, "10.96.0.1", "443", &kc, error), 0);
	assert_string_equal(kc->server, "https://10.96.0.1:443");
	assert_null(kc->namespace); /* optional */
	assert_non_null(strstr(kc->token_file, "/token"));
	assert_non_null(strstr(kc->ca.path, "/ca.crt"));
	kc = kubeconfig_free(kc);

	ns = strdup_printf("%s/namespace", dir);
	f = fopen(ns, "we");
	assert_non_null(f);
	fputs("sriov-system\n", f);
	fclose(f);
	assert_int_equal(kubeconfig_in_cluster(dir, "fd00::1", "6443", &kc, error), 0);
	assert_string_equal(kc->server, "https://[fd00::1]:6443");
	assert_string_equal(kc->namespace, "sriov-system");
	kubeconfig_free(kc);
	unlink(ns);
	free(ns);
	rmdir(dir);

	assert_int_equal(kubeconfig_in_cluster(dir, "", "443", &kc, error), -EINVAL);
	assert_int_equal(kubeconfig_in_cluster(dir, "h/x", "443", &kc, error), -EINVAL);
	assert_int_equal(kubeconfig_in_cluster(dir, "h", "0", &kc, error), -EINVAL);
	assert_int_equal(kubeconfig_in_cluster(dir, "h", NULL, &kc, error), -EINVAL);
	assert_non_null(strstr(error, "KUBERNETES_SERVICE_PORT"));
}

static void test_load_errors(void **state)
{
	char error[K8S_ERROR_MAX];
	struct kubeconfig *kc = NULL;

	assert_int_equal(kubeconfig_load("/nonexistent/kubeconfig", &kc, error), -ENOENT);
	assert_non_null(strstr(error, "/nonexistent/kubeconfig"));
	assert_int_equal(kubeconfig_load("/", &kc, error), -EISDIR);
	assert_null(kc);
}

/* Credentials others can write are refused, as ssh refuses its keys. */
static void test_secret_files(void **state)
{
	char path[] = "/tmp/test-kubeconfig-XXXXXX", error[K8S_ERROR_MAX];
	_cleanup_free_ char *text = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "token\n", 6), 6);
	close(fd);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(k8s_read_secret_file(path, "token file", 64, &text, NULL, error), 0);
	assert_string_equal(text, "token\n");
	assert_int_equal(chmod(path, 0644), 0);
	text = mfree(text);
	assert_int_equal(k8s_read_secret_file(path, "token file", 64, &text, NULL, error), 0);
	text = mfree(text);
	assert_int_equal(chmod(path, 0620), 0);
	assert_int_equal(k8s_read_secret_file(path, "token file", 64, &text, NULL, error), -EPERM);
	assert_non_null(strstr(error, "writable by its group (mode 0620); chmod go-w it"));
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(k8s_read_secret_file(path, "kubeconfig", 64, &text, NULL, error), -EPERM);
	assert_non_null(strstr(error, "refusing kubeconfig"));
	assert_non_null(strstr(error, "writable by everyone (mode 0666)"));
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(k8s_read_secret_file(path, "token file", 3, &text, NULL, error), -EFBIG);
	/* owned by someone else: only root can make such a file here (CI runs as root) */
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(k8s_read_secret_file(path, "client key", 64, &text, NULL, error),
				 -EPERM);
		assert_non_null(strstr(error, "owned by uid 65534, not by root or this user"));
	} else {
		print_message("not root: the owner check is exercised by CI, which runs as root\n");
	}
	assert_null(text);
	unlink(path);
	/* a FIFO (a token file someone replaced) once blocked the open for
	 * ever: refused at once; alarm() fails a regression instead of hanging */
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(k8s_read_secret_file(path, "token file", 64, &text, NULL, error), -EBADFD);
	alarm(0);
	assert_non_null(strstr(error, "is not a regular file"));
	assert_int_equal(k8s_read_secret_file("/dev/null", "client key", 64, &text, NULL, error),
			 -EBADFD);
	assert_non_null(strstr(error, "client key /dev/null is not a regular file"));
	assert_null(text);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_and_ca_data),
		cmocka_unit_test(test_files_relative),
		cmocka_unit_test(test_flow_style_and_data_wins),
		cmocka_unit_test(test_insecure_refused),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_in_cluster),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_secret_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
