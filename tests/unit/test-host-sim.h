/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by test-host-sim.c and test-host-sim-faults.c: each test works on a
 * copy of a fixture in its own temporary directory. */

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "host-sim.h"
#include "snapshot.h"

#define FIXTURES "tests/fixtures/hosts/"
#define E810_PF0 "0000:3b:00.0"
#define E810_PF1 "0000:3b:00.1"
#define T USEC_PER_SEC

/* One action through host_run(), with the arguments each type takes. */
#define RUN(h, pf, timeout, ...) host_run(h, pf, &(const struct action){ __VA_ARGS__ }, timeout)
#define op_load_module(h, m) RUN(h, NULL, T, .type = ACTION_LOAD_MODULE, .str = (char *)(m))
#define op_set_num_vfs(h, pf, n, t) RUN(h, pf, t, .type = ACTION_SET_NUM_VFS, .value = (n))
#define op_set_eswitch_mode(h, pf, m, t) \
	RUN(h, pf, t, .type = ACTION_SET_ESWITCH_MODE, .value = (uint32_t)(m))
#define op_set_hw_tc_offload(h, pf, on) \
	RUN(h, pf, T, .type = ACTION_SET_HW_TC_OFFLOAD, .value = (on))
#define op_set_pf_mtu(h, pf, mtu) RUN(h, pf, T, .type = ACTION_SET_PF_MTU, .value = (mtu))
#define op_set_pf_up(h, pf) RUN(h, pf, T, .type = ACTION_SET_PF_UP)
#define op_set_autoprobe(h, pf, on) RUN(h, pf, T, .type = ACTION_SET_AUTOPROBE, .value = (on))
#define op_set_vf(h, pf, i, a, k) \
	RUN(h, pf, T, .type = ACTION_SET_VF, .vf = (i), .attrs = *(a), .keys = (k))
#define op_unbind_vf(h, pf, i, t) RUN(h, pf, t, .type = ACTION_UNBIND_VF, .vf = (i))
#define op_bind_vf(h, pf, i, d, t) \
	RUN(h, pf, t, .type = ACTION_BIND_VF, .vf = (i), .str = (char *)(d))
#define op_set_vf_mtu(h, pf, i, mtu) \
	RUN(h, pf, T, .type = ACTION_SET_VF_MTU, .vf = (i), .value = (mtu))
#define op_set_firmware_vfs(h, pf, n) RUN(h, pf, T, .type = ACTION_SET_FIRMWARE_VFS, .value = (n))
#define op_firmware_reset(h, pf) RUN(h, pf, T, .type = ACTION_FIRMWARE_RESET)
#define op_set_firmware_link_type(h, pf, lt) \
	RUN(h, pf, T, .type = ACTION_SET_LINK_TYPE, .value = (uint32_t)(lt))

struct env {
	char dir[64];
	char path[128];
	struct host *h;
};

static inline char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline void env_write_text(struct env *e, const char *text)
{
	FILE *f = fopen(e->path, "we");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* Copies fixture to the test's file, with faults (a JSON array) added. */
static inline void env_prepare(struct env *e, const char *fixture, const char *faults)
{
	char src[256], *text;

	snprintf(src, sizeof(src), FIXTURES "%s", fixture);
	text = read_text(src);
	if (faults) {
		const char *end = strrchr(text, '}');
		int n;
		char *t;

		assert_non_null(end);
		n = (int)(end - text);
		assert_true(asprintf(&t, "%.*s, \"faults\": %s }\n", n, text, faults) > 0);
		free(text);
		text = t;
	}
	env_write_text(e, text);
	free(text);
}

/* env_prepare() and a new handle on the file. */
static inline void env_load(struct env *e, const char *fixture, const char *faults)
{
	e->h = host_free(e->h);
	env_prepare(e, fixture, faults);
	assert_int_equal(host_sim_open(e->path, &e->h, NULL), 0);
}

static inline struct host_state *env_read(struct env *e)
{
	struct host_state *hs = NULL;
	int r = host_read(e->h, &hs);

	if (r < 0)
		fail_msg("host_read: %s: %s", strerror(-r), e->h->error);
	return hs;
}

static inline void env_write_state(struct env *e, const struct host_state *hs)
{
	char *text = NULL;

	assert_int_equal(snapshot_format(hs, &text), 0);
	env_write_text(e, text);
	free(text);
}

static inline char *env_text(struct env *e)
{
	return read_text(e->path);
}

static inline unsigned env_num_vfs(struct env *e, size_t pf)
{
	struct host_state *hs = env_read(e);
	unsigned n = hs->pfs[pf].num_vfs;

	host_state_free(hs);
	return n;
}

static inline size_t env_count_files(struct env *e)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static inline int env_setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	strcpy(e->dir, "/tmp/test-host-sim-XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	snprintf(e->path, sizeof(e->path), "%s/host.json", e->dir);
	*state = e;
	return 0;
}

static inline int env_teardown(void **state)
{
	struct env *e = *state;
	DIR *d = opendir(e->dir);
	struct dirent *de;

	host_free(e->h);
	while (d && (de = readdir(d))) {
		char p[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", e->dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(e->dir);
	free(e);
	return 0;
}

#define ENV_TEST(t) cmocka_unit_test_setup_teardown(t, env_setup, env_teardown)
