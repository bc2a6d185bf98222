/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The simulated host's injected faults (an errno, a hang, a crash after the
 * N-th operation) and several processes sharing one state file. */

#include <signal.h>
#include <sys/wait.h>

#include "test-host-sim.h"

static void test_faults_errno(void **state)
{
	struct env *e = *state;
	char *text;

	env_load(e, "e810.json",
		 "[ { \"op\": \"set_num_vfs\", \"pci\": \"" E810_PF0 "\", \"errno\": \"EBUSY\", "
		 "\"times\": 2 } ]");
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), -EBUSY);
	assert_string_equal(e->h->error, "injected EBUSY on set_num_vfs");
	text = env_text(e);
	assert_non_null(strstr(text, "\"times\": 1"));
	free(text);
	/* fired before anything changed */
	assert_int_equal(env_num_vfs(e, 0), 0);
	/* another PF is not affected */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF1, 2, T), 0);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), -EBUSY);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(env_num_vfs(e, 0), 2);
	/* the spent fault stays in the file with its count at 0 */
	text = env_text(e);
	assert_non_null(strstr(text, "\"times\": 0"));
	free(text);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 0, T), 0);
}

static void test_faults_alias_and_any(void **state)
{
	struct env *e = *state;

	/* the "bind_driver" fault, matched by the VF's address */
	env_load(e, "e810.json",
		 "[ { \"op\": \"bind_driver\", \"pci\": \"0000:3b:01.1\", \"errno\": \"EIO\" }, "
		 "{ \"op\": \"unbind_driver\", \"errno\": \"EPERM\", \"times\": 1 } ]");
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 1, T), -EPERM);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 1, T), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 0, T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, NULL, T), -EIO);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, NULL, T), -EIO);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 0, NULL, T), 0);

	/* "any", every time, matched by the PF's address for a VF operation */
	env_load(e, "e810.json",
		 "[ { \"op\": \"any\", \"pci\": \"" E810_PF1 "\", \"errno\": \"ENOSPC\" } ]");
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF1, 9000), -ENOSPC);
	assert_int_equal(op_set_vf(e->h, E810_PF1, 0, &(struct vf_attrs){}, 0), -ENOSPC);
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF0, 9000), 0);

	env_load(e, "e810.json", "[ { \"op\": \"any\", \"errno\": \"ETIMEDOUT\" } ]");
	assert_int_equal(op_load_module(e->h, "iavf"), -ETIMEDOUT);
	assert_int_equal(op_set_pf_up(e->h, E810_PF0), -ETIMEDOUT);
}

/* Bad fault entries make every operation fail, naming the entry. */
static void check_bad_faults(struct env *e, const char *faults, const char *error)
{
	env_prepare(e, "e810.json", faults);
	assert_int_equal(op_set_pf_up(e->h, E810_PF0), -EINVAL);
	if (!strstr(e->h->error, error))
		fail_msg("expected \"%s\" in \"%s\"", error, e->h->error);
}

static void test_faults_invalid(void **state)
{
	struct env *e = *state;
	struct host *h = NULL;

	env_load(e, "e810.json", "[]");
	check_bad_faults(e, "[ { \"op\": \"load_module\", \"errno\": \"EWHAT\" } ]",
			 "faults[0].errno: unknown error name \"EWHAT\"");
	check_bad_faults(e, "[ { \"op\": \"reboot\", \"errno\": \"EIO\" } ]", "faults[0].op");
	check_bad_faults(e, "[ { \"op\": \"any\" } ]",
			 "faults[0]: needs \"errno\", \"hang\" or \"crash_after\"");
	check_bad_faults(e, "[ { \"op\": \"any\", \"crash_after\": 0 } ]", "faults[0].crash_after");
	check_bad_faults(e, "[ { \"op\": \"any\", \"hang\": false } ]", "faults[0].hang");
	check_bad_faults(e, "[ { \"op\": \"set_num_vfs\", \"no_effect\": true } ]",
			 "faults[0].no_effect: only \"firmware_reset\" resets firmware");
	check_bad_faults(e, "[ { \"op\": \"firmware_reset\", \"no_effect\": 1 } ]",
			 "faults[0].no_effect: must be true");
	check_bad_faults(e, "[ { \"op\": \"any\", \"errno\": \"EIO\", \"times\": -1 } ]",
			 "faults[0].times");
	check_bad_faults(e, "[ { \"op\": \"any\", \"errno\": \"EIO\", \"pci\": \"x\" } ]",
			 "faults[0].pci");
	check_bad_faults(e, "{ \"op\": \"any\" }", "faults: not an array");
	/* and host_sim_open() refuses such a file */
	assert_int_equal(host_sim_open(e->path, &h, NULL), -EINVAL);
	env_write_text(e, "{}");
	assert_int_equal(host_sim_open(e->path, &h, NULL), -EINVAL);
	assert_null(h);
}

static void test_fault_hang(void **state)
{
	struct env *e = *state;
	usec_t start, took;

	env_load(e, "e810.json", "[ { \"op\": \"set_num_vfs\", \"hang\": true, \"times\": 1 } ]");
	start = now_monotonic();
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 4, 200 * USEC_PER_MSEC), -ETIMEDOUT);
	took = now_monotonic() - start;
	assert_true(took >= 200 * USEC_PER_MSEC);
	assert_true(took < 60 * USEC_PER_SEC); /* bounded by the timeout, not a hang */
	assert_string_equal(e->h->error, "write to sriov_numvfs did not return within 200ms");
	assert_int_equal(env_num_vfs(e, 0), 0);
	/* spent: the next write goes through (a hang would time out) */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 4, 200 * USEC_PER_MSEC), 0);

	env_load(e, "e810.json",
		 "[ { \"op\": \"bind_driver\", \"pci\": \"0000:3b:01.1\", \"hang\": true } ]");
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 1, T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, NULL, 1 * USEC_PER_SEC), -ETIMEDOUT);
	assert_string_equal(e->h->error, "bind of the VF driver did not return within 1s");
}

/* A process stuck in a hang does not keep others from reading: the read
 * returns while the writer still hangs (it would wait a minute for it). */
static void test_fault_hang_unlocked(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	pid_t pid;
	int status;

	env_load(e, "e810.json", "[ { \"op\": \"set_num_vfs\", \"hang\": true } ]");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		(void)op_set_num_vfs(e->h, E810_PF0, 2, 60 * USEC_PER_SEC);
		_exit(1);
	}
	usleep(200 * 1000);
	hs = env_read(e);
	assert_non_null(hs);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	host_state_free(hs);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
}

/* A crash right after a VF creation whose netdevs come late: the process
 * dies there, with the VFs made and only the netdevs the fault lets appear. */
static void test_fault_crash_with_late_netdevs(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	pid_t pid;
	int status;

	env_load(e, "e810.json",
		 "[ { \"op\": \"set_num_vfs\", \"netdevs\": 1 }, "
		 "{ \"op\": \"any\", \"crash_after\": 1 } ]");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct host *h = NULL;

		if (host_sim_open(e->path, &h, NULL) < 0)
			_exit(10);
		op_set_num_vfs(h, E810_PF0, 3, T);
		_exit(11);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status))
		fail_msg("the child exited with %d", WEXITSTATUS(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].num_vfs, 3);
	assert_non_null(hs->pfs[0].vfs[0].name);
	assert_null(hs->pfs[0].vfs[1].name);
	assert_null(hs->pfs[0].vfs[2].name);
	host_state_free(hs);
}

static void test_fault_crash(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	char *text;
	pid_t pid;
	int status;

	env_load(e, "e810.json",
		 "[ { \"op\": \"set_pf_mtu\", \"errno\": \"EIO\", \"pci\": \"" E810_PF1 "\" }, "
		 "{ \"op\": \"any\", \"crash_after\": 2 } ]");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct vf_attrs a = { .trust = true };
		struct host *h = NULL;

		/* a fresh handle, as a new process has */
		if (host_sim_open(e->path, &h, NULL) < 0)
			_exit(10);
		if (op_set_num_vfs(h, E810_PF0, 2, T) < 0)
			_exit(11);
		/* a failed operation does not count */
		if (op_set_pf_mtu(h, E810_PF1, 9000) != -EIO)
			_exit(12);
		op_set_vf(h, E810_PF0, 0, &a,
			  VF_KEY_BIT(TRUST)); /* the second one: killed after it */
		op_set_pf_mtu(h, E810_PF0, 9000);
		_exit(13);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status))
		fail_msg("the child exited with %d", WEXITSTATUS(status));
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);

	hs = env_read(e);
	assert_int_equal(hs->pfs[0].num_vfs, 2);
	assert_true(hs->pfs[0].vfs[0].attrs.trust);
	assert_int_equal(hs->pfs[0].mtu, 1500);
	host_state_free(hs);
	text = env_text(e);
	assert_null(strstr(text, "crash_after"));
	assert_non_null(strstr(text, "\"errno\": \"EIO\""));
	free(text);
	assert_int_equal(env_count_files(e), 1);
	/* the crash fault is gone: this process goes on */
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF0, 9000), 0);
	assert_int_equal(op_set_pf_up(e->h, E810_PF0), 0);
}

static void turn_wait(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(20);
}

static void turn_pass(int fd)
{
	if (write(fd, "x", 1) != 1)
		_exit(21);
}

/* The child's half of test_two_processes: plain checks, an exit code. */
static int child_turns(const char *path, int in, int out)
{
	struct vf_attrs a = { .trust = true };
	struct host_state *hs = NULL;
	struct host *h = NULL;
	int r = 0;

	if (host_sim_open(path, &h, NULL) < 0)
		return 30;
	turn_wait(in);
	if (host_read(h, &hs) < 0 || hs->pfs[0].num_vfs != 2)
		r = 31;
	hs = host_state_free(hs);
	if (r == 0 && op_set_vf(h, E810_PF0, 1, &a, VF_KEY_BIT(TRUST)) < 0)
		r = 32;
	turn_pass(out);
	turn_wait(in);
	if (r == 0 && (host_read(h, &hs) < 0 || hs->pfs[0].num_vfs != 0))
		r = 33;
	host_state_free(hs);
	host_free(h);
	return r;
}

static void test_two_processes(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	int to_child[2], to_parent[2], status;
	pid_t pid;

	env_load(e, "e810.json", NULL);
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_turns(e->path, to_child[0], to_parent[1]));

	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	turn_pass(to_child[1]);
	turn_wait(to_parent[0]);
	hs = env_read(e);
	assert_true(hs->pfs[0].vfs[1].attrs.trust);
	host_state_free(hs);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 0, T), 0);
	turn_pass(to_child[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* Interleaved writers never tear the file nor lose an update. */
static void test_concurrent_writers(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	pid_t pid;
	int status;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 64, T), 0);
	pid = fork();
	assert_true(pid >= 0);
	for (uint32_t i = 0; i < 32; i++) {
		/* parent: even VFs, child: odd VFs */
		uint32_t vf = 2 * i + (pid == 0);
		struct vf_attrs a = { .vlan = (uint16_t)(vf + 1) };

		if (op_set_vf(e->h, E810_PF0, vf, &a, VF_KEY_BIT(VLAN)) < 0) {
			if (pid == 0)
				_exit(1);
			fail_msg("set_vf %u: %s", vf, e->h->error);
		}
	}
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	hs = env_read(e);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(hs->pfs[0].vfs[i].attrs.vlan, i + 1);
	host_state_free(hs);
	assert_int_equal(env_count_files(e), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ENV_TEST(test_faults_errno),
		ENV_TEST(test_faults_alias_and_any),
		ENV_TEST(test_faults_invalid),
		ENV_TEST(test_fault_hang),
		ENV_TEST(test_fault_hang_unlocked),
		ENV_TEST(test_fault_crash),
		ENV_TEST(test_fault_crash_with_late_netdevs),
		ENV_TEST(test_two_processes),
		ENV_TEST(test_concurrent_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
