/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "conf-files.h"
#include "fs-util.h"
#include "layout-set.h"

struct tree {
	char root[64];
	char etc[96], run[96], usr[96], missing[96];
};

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void make_link(const char *target, const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(symlink(target, path), 0);
}

#define GOOD "[Match]\nPCIAddress=*\n[PhysicalFunction]\nVirtualFunctions=1\n"

/* etc masks run masks usr, as /etc, /run and /usr/lib do. */
static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char target[256];

	if (!t)
		return -1;
	strcpy(t->root, "/tmp/test-conf-files-XXXXXX");
	if (!mkdtemp(t->root))
		return -1;
	snprintf(t->etc, sizeof(t->etc), "%s/etc", t->root);
	snprintf(t->run, sizeof(t->run), "%s/run", t->root);
	snprintf(t->usr, sizeof(t->usr), "%s/usr", t->root);
	snprintf(t->missing, sizeof(t->missing), "%s/missing", t->root);
	if (mkdir(t->etc, 0755) < 0 || mkdir(t->run, 0755) < 0 || mkdir(t->usr, 0755) < 0)
		return -1;

	write_file(t->etc, "10-a.conf", GOOD);
	write_file(t->etc, "30-shared.conf", "[Match]\nName=etc\n[PhysicalFunction]\nMTUBytes=1\n");
	make_link("/dev/null", t->etc, "50-masked.conf");
	write_file(t->etc, ".hidden.conf", GOOD);
	write_file(t->etc, "README", "not a layout\n");
	write_file(t->etc, "40-x.conf.bak", GOOD);
	write_file(t->etc, "40-xconf", GOOD);
	write_file(t->etc, ".conf", GOOD);
	{
		char sub[128];

		snprintf(sub, sizeof(sub), "%s/45-dir.conf", t->etc);
		assert_int_equal(mkdir(sub, 0755), 0);
	}
	snprintf(target, sizeof(target), "%s/real-target", t->usr);
	make_link(target, t->etc, "60-link.conf");
	make_link("/nonexistent/target", t->etc, "70-dangling.conf");

	write_file(t->run, "30-shared.conf", "[Match]\nName=run\n");
	write_file(t->run, "50-masked.conf", GOOD);
	write_file(t->run, "20-b.conf", "[Match]\nName=run-b\n");
	write_file(t->run, "70-dangling.conf", "[Match]\nName=run-dangling\n");

	write_file(t->usr, "30-shared.conf", "[Match]\nName=usr\n");
	write_file(t->usr, "05-first.conf", "[PhysicalFunction]\nVirtualFunctions=2\n");
	write_file(t->usr, "99-last.conf", GOOD "X-Foo=bar\n");
	write_file(t->usr, "20-b.conf", "[Match]\nName=usr-b\n");
	write_file(t->usr, "50-masked.conf", GOOD);
	write_file(t->usr, "real-target", "[Match]\nName=linked\n");
	*state = t;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	struct tree *t = *state;

	nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
	return 0;
}

static void assert_paths(char **paths, const char *const *want)
{
	size_t n = strv_length(paths);

	if (n != strv_length((char *const *)want))
		for (size_t i = 0; i < n; i++)
			print_message("got %s\n", paths[i]);
	for (size_t i = 0; want[i]; i++) {
		assert_true(i < n);
		assert_string_equal(paths[i], want[i]);
	}
	assert_int_equal(n, strv_length((char *const *)want));
}

static void test_masking_and_order(void **state)
{
	struct tree *t = *state;
	const char *const dirs[] = { t->etc, t->run, t->missing, t->usr, NULL };
	_cleanup_strv_free_ char **paths = NULL;
	char want[7][256];

	snprintf(want[0], 256, "%s/05-first.conf", t->usr);
	snprintf(want[1], 256, "%s/10-a.conf", t->etc);
	snprintf(want[2], 256, "%s/20-b.conf", t->run);
	snprintf(want[3], 256, "%s/30-shared.conf", t->etc);
	/* 50-masked.conf: masked by the link to /dev/null in etc, and left out */
	snprintf(want[4], 256, "%s/60-link.conf", t->etc);
	/* a dangling link is skipped and masks nothing: run's copy is used */
	snprintf(want[5], 256, "%s/70-dangling.conf", t->run);
	snprintf(want[6], 256, "%s/99-last.conf", t->usr);

	assert_int_equal(conf_files_list(dirs, "conf", &paths, NULL), 0);
	assert_paths(paths, (const char *const[]){ want[0], want[1], want[2], want[3], want[4],
						   want[5], want[6], NULL });
}

static void test_priority(void **state)
{
	struct tree *t = *state;
	_cleanup_strv_free_ char **a = NULL, **b = NULL, **c = NULL;
	char usr_shared[256], run_shared[256], usr_masked[256];

	/* without etc, run's copy wins and the /dev/null mask is gone */
	assert_int_equal(conf_files_list((const char *const[]){ t->run, t->usr, NULL }, "conf", &a,
					 NULL),
			 0);
	snprintf(run_shared, sizeof(run_shared), "%s/30-shared.conf", t->run);
	assert_true(strv_contains(a, run_shared));
	snprintf(usr_masked, sizeof(usr_masked), "%s/50-masked.conf", t->run);
	assert_true(strv_contains(a, usr_masked));
	assert_int_equal(strv_length(a), 6);

	/* the order of dirs is the priority */
	assert_int_equal(conf_files_list((const char *const[]){ t->usr, t->run, NULL }, "conf", &b,
					 NULL),
			 0);
	snprintf(usr_shared, sizeof(usr_shared), "%s/30-shared.conf", t->usr);
	assert_true(strv_contains(b, usr_shared));
	assert_false(strv_contains(b, run_shared));

	/* another suffix; a trailing '/' on a dir */
	{
		char dir[128], want[256];

		snprintf(dir, sizeof(dir), "%s/", t->etc);
		assert_int_equal(
			conf_files_list((const char *const[]){ dir, NULL }, "bak", &c, NULL), 0);
		snprintf(want, sizeof(want), "%s/40-x.conf.bak", t->etc);
		assert_paths(c, (const char *const[]){ want, NULL });
	}
}

static void test_missing_and_empty(void **state)
{
	struct tree *t = *state;
	_cleanup_strv_free_ char **a = NULL, **b = NULL, **c = NULL;
	char file_as_dir[256];

	assert_int_equal(
		conf_files_list((const char *const[]){ t->missing, NULL }, "conf", &a, NULL), 0);
	assert_non_null(a);
	assert_null(a[0]);
	assert_int_equal(conf_files_list((const char *const[]){ NULL }, "conf", &b, NULL), 0);
	assert_null(b[0]);
	/* a path that is a file, not a directory, is like a missing one */
	snprintf(file_as_dir, sizeof(file_as_dir), "%s/README", t->etc);
	assert_int_equal(
		conf_files_list((const char *const[]){ file_as_dir, NULL }, "conf", &c, NULL), 0);
	assert_null(c[0]);
}

static void test_layout_set_load(void **state)
{
	struct tree *t = *state;
	const char *const dirs[] = { t->etc, t->run, t->usr, NULL };
	_cleanup_layout_set_ struct layout_set *s = NULL;
	static const char *const names[] = { "05-first.conf",  "10-a.conf",    "20-b.conf",
					     "30-shared.conf", "60-link.conf", "70-dangling.conf",
					     "99-last.conf" };

	assert_int_equal(layout_set_load(dirs, &s), 0);
	assert_int_equal(s->n_files, ELEMENTSOF(names));
	for (size_t i = 0; i < s->n_files; i++) {
		const char *base = strrchr(s->files[i]->path, '/') + 1;

		assert_string_equal(base, names[i]);
	}
	/* 05-first.conf has no [Match]; etc's 30-shared.conf has a bad MTU; 99-last.conf has
	 * an X- key (the user's own, not read) */
	assert_true(s->files[0]->has_error);
	assert_false(s->files[1]->has_error);
	assert_false(s->files[2]->has_error);
	assert_string_equal(s->files[2]->match.name[0], "run-b");
	assert_true(s->files[3]->has_error);
	assert_string_equal(s->files[3]->match.name[0], "etc");
	assert_string_equal(s->files[4]->match.name[0], "linked");
	assert_string_equal(s->files[5]->match.name[0], "run-dangling");
	assert_false(s->files[6]->has_error);

	assert_int_equal(s->diags.n, 2);
	assert_int_equal(diag_count(&s->diags, DIAG_ERROR), 2);
	assert_string_equal(s->diags.items[0].file, s->files[0]->path);
	assert_int_equal(s->diags.items[0].line, 0);
	assert_string_equal(s->diags.items[1].file, s->files[3]->path);
	assert_int_equal(s->diags.items[1].line, 4);
	assert_string_equal(s->diags.items[1].msg, "MTUBytes=1: must be 68..65535");
	assert_true(diag_file_has_error(&s->diags, s->files[3]->path));
	assert_false(diag_file_has_error(&s->diags, s->files[1]->path));
}

/* One directory alone: its own files, nothing of the others' */
static void test_layout_set_load_dir(void **state)
{
	struct tree *t = *state;
	_cleanup_layout_set_ struct layout_set *s = NULL;

	assert_int_equal(layout_set_load_dir(t->usr, &s), 0);
	assert_int_equal(s->n_files, 5);
	for (size_t i = 0; i < s->n_files; i++)
		assert_true(strncmp(s->files[i]->path, t->usr, strlen(t->usr)) == 0);
	assert_string_equal(s->files[1]->match.name[0], "usr-b");
}

static void test_layout_set_load_files(void **state)
{
	struct tree *t = *state;
	_cleanup_layout_set_ struct layout_set *s = NULL, *e = NULL;
	char a[256], b[256];
	char *paths[] = { a, (char *)"/nonexistent/dir/x.conf", b, NULL };

	/* given order, not lexical; masking does not apply to explicit files */
	snprintf(a, sizeof(a), "%s/99-last.conf", t->usr);
	snprintf(b, sizeof(b), "%s/30-shared.conf", t->usr);
	assert_int_equal(layout_set_load_files(paths, &s), 0);
	assert_int_equal(s->n_files, 3);
	assert_string_equal(s->files[0]->path, a);
	assert_false(s->files[0]->has_error);
	assert_true(s->files[1]->has_error);
	assert_string_equal(s->files[2]->match.name[0], "usr");
	assert_int_equal(diag_count(&s->diags, DIAG_ERROR), 1);
	assert_int_equal(s->diags.n, 1);
	assert_string_equal(s->diags.items[0].msg, "cannot read: No such file or directory");

	assert_int_equal(layout_set_load_files((char *[]){ NULL }, &e), 0);
	assert_int_equal(e->n_files, 0);
	assert_null(layout_set_free(NULL));
}

static void test_defaults(void **state)
{
	_cleanup_layout_set_ struct layout_set *s = NULL;

	assert_string_equal(layout_dirs_default[0], "/etc/sriov-persist/conf.d");
	assert_string_equal(layout_dirs_default[1], "/run/sriov-persist/conf.d");
	assert_string_equal(layout_dirs_default[2], "/usr/lib/sriov-persist/conf.d");
	assert_null(layout_dirs_default[3]);
	/* whatever this machine has: loading must work */
	assert_int_equal(layout_set_load(NULL, &s), 0);
	assert_non_null(s);
}

static struct stat stat_of(uid_t uid, mode_t mode)
{
	return (struct stat){ .st_uid = uid, .st_mode = mode };
}

/* sshd's StrictModes: root's or the running user's, written by nobody else */
static void test_stat_unsafe(void **state)
{
	char buf[CONF_UNSAFE_MAX];
	struct stat st;

	(void)state;
	st = stat_of(0, S_IFREG | 0644);
	assert_null(conf_stat_unsafe(&st, 0, buf));
	st = stat_of(1000, S_IFREG | 0600);
	assert_null(conf_stat_unsafe(&st, 1000, buf));
	st = stat_of(0, S_IFDIR | 01755);
	assert_null(conf_stat_unsafe(&st, 1000, buf));
	st = stat_of(0, S_IFREG | 0666);
	assert_string_equal(conf_stat_unsafe(&st, 0, buf),
			    "writable by group or others (mode 0666); refusing it: chmod go-w");
	st = stat_of(0, S_IFREG | 0620);
	assert_string_equal(conf_stat_unsafe(&st, 0, buf),
			    "writable by group or others (mode 0620); refusing it: chmod go-w");
	st = stat_of(0, S_IFDIR | 01777);
	assert_string_equal(conf_stat_unsafe(&st, 0, buf),
			    "writable by group or others (mode 1777); refusing it: chmod go-w");
	st = stat_of(1000, S_IFREG | 0644);
	assert_string_equal(conf_stat_unsafe(&st, 0, buf),
			    "owned by uid 1000, not by root; refusing it: chown root");
	assert_string_equal(conf_stat_unsafe(&st, 1001, buf),
			    "owned by uid 1000, neither root nor uid 1001 running this; "
			    "refusing it: chown root");
}

/* A directory others may write: nothing it holds is trusted, and since its
 * files may select any PF, the set holds every PF. */
static void test_unsafe_dir(void **state)
{
	struct tree *t = *state;
	const char *const dirs[] = { t->etc, t->run, t->usr, NULL };
	_cleanup_layout_set_ struct layout_set *s = NULL;
	struct conf_files_failure fail;
	char **paths = NULL;

	assert_int_equal(chmod(t->run, 0777), 0);
	assert_int_equal(conf_files_list(dirs, "conf", &paths, &fail), -EPERM);
	assert_null(paths);
	assert_string_equal(fail.dir, t->run);
	assert_string_equal(fail.why,
			    "writable by group or others (mode 0777); refusing it: chmod go-w");

	assert_int_equal(layout_set_load(dirs, &s), 0);
	assert_int_equal(s->n_files, 1);
	assert_string_equal(s->files[0]->path, t->run);
	assert_true(s->files[0]->has_error);
	assert_null(s->files[0]->match.pci_address);
	assert_int_equal(s->diags.n, 1);
	assert_string_equal(s->diags.items[0].file, t->run);
	assert_string_equal(s->diags.items[0].msg, fail.why);
}

/* An unreadable directory is named, and holds every PF too */
static void test_unreadable_dir(void **state)
{
	struct tree *t = *state;
	_cleanup_layout_set_ struct layout_set *s = NULL;

	assert_int_equal(chmod(t->usr, 0), 0);
	assert_int_equal(layout_set_load_dir(t->usr, &s), 0);
	assert_int_equal(chmod(t->usr, 0755), 0);
	if (geteuid() == 0) {
		/* root reads it anyway */
		assert_int_equal(s->n_files, 5);
		return;
	}
	assert_int_equal(s->n_files, 1);
	assert_true(s->files[0]->has_error);
	assert_string_equal(s->diags.items[0].msg, "cannot read: Permission denied");
}

/* A layout others may write is an error of its own file; its neighbours
 * load. What a link points to is judged, and a link to /dev/null masks. */
static void test_unsafe_file(void **state)
{
	struct tree *t = *state;
	const char *const dirs[] = { t->etc, t->run, t->usr, NULL };
	_cleanup_layout_set_ struct layout_set *s = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/10-a.conf", t->etc);
	assert_int_equal(chmod(path, 0666), 0);
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/20-b.conf", t->run);
		assert_int_equal(chown(path, 1000, 1000), 0);
	}
	assert_int_equal(layout_set_load(dirs, &s), 0);
	assert_string_equal(strrchr(s->files[1]->path, '/'), "/10-a.conf");
	assert_true(s->files[1]->has_error);
	assert_null(s->files[1]->match.pci_address);
	assert_true(diag_file_has_error(&s->diags, s->files[1]->path));
	assert_string_equal(s->diags.items[1].msg,
			    "writable by group or others (mode 0666); refusing it: chmod go-w");
	if (geteuid() == 0) {
		assert_true(s->files[2]->has_error);
		assert_string_equal(s->diags.items[2].msg,
				    "owned by uid 1000, not by root; refusing it: chown root");
	}
	assert_false(s->files[4]->has_error);
	assert_string_equal(s->files[4]->match.name[0], "linked");
}

/* --root DIR: paths as the host names them, read under DIR. */
static void mkdirs(const char *root, const char *path)
{
	char full[256];

	snprintf(full, sizeof(full), "%s%s", root, path);
	assert_int_equal(mkdir_p(full, 0755), 0);
}

static void assert_under(const char *root, const char *path, const char *want)
{
	_cleanup_free_ char *got = NULL, *full = strdup_printf("%s%s", root, want);

	assert_int_equal(path_under_root(root, path, &got), 0);
	assert_string_equal(got, full);
}

static void test_path_under_root(void **state)
{
	struct tree *t = *state;
	char *p = NULL;

	mkdirs(t->root, "/etc/sriov-persist/conf.d");
	mkdirs(t->root, "/usr/lib/sriov-persist/conf.d");
	make_link("/usr/lib/sriov-persist", t->etc, "abs");
	make_link("../..", t->etc, "up2");
	make_link("loop", t->etc, "loop");
	/* an absolute link is the root's, as the node sees it */
	assert_under(t->root, "/etc/abs/conf.d", "/usr/lib/sriov-persist/conf.d");
	assert_under(t->root, "/etc/./sriov-persist/../sriov-persist", "/etc/sriov-persist");
	/* what does not exist is kept as written */
	assert_under(t->root, "/nope/a/../b", "/nope/b");
	assert_under(t->root, "/", "");
	/* climbing above the root, by ".." or by a link, is refused */
	assert_int_equal(path_under_root(t->root, "/../etc", &p), -EXDEV);
	assert_int_equal(path_under_root(t->root, "/etc/up2/x", &p), -EXDEV);
	assert_int_equal(path_under_root(t->root, "/etc/loop", &p), -ELOOP);
	assert_null(p);
	assert_string_equal(root_strerror(-EXDEV), "leads out of the root directory");
	/* without a root, the host's path */
	assert_int_equal(path_under_root(NULL, "/etc/x", &p), 0);
	assert_string_equal(p, "/etc/x");
	free(p);
	assert_int_equal(root_canonicalize(t->etc, &p), 0);
	assert_string_equal(p, t->etc);
	free(p);
	assert_int_equal(root_canonicalize(t->missing, &p), -ENOENT);
	write_file(t->root, "file", "");
	/* a file where a directory should be is missing, as on the host */
	assert_under(t->root, "/file/x", "/file/x");
	snprintf(t->missing, sizeof(t->missing), "%s/file", t->root);
	assert_int_equal(root_canonicalize(t->missing, &p), -ENOTDIR);
}

static void test_conf_files_under_root(void **state)
{
	struct tree *t = *state;
	const char *const dirs[] = { "/etc/sriov-persist/conf.d", "/usr/lib/sriov-persist/conf.d",
				     NULL };
	char etc[256], usr[256], **paths = NULL, **refused = NULL, **targets = NULL;
	struct conf_files_failure fail;

	mkdirs(t->root, dirs[0]);
	mkdirs(t->root, dirs[1]);
	snprintf(etc, sizeof(etc), "%s%s", t->root, dirs[0]);
	snprintf(usr, sizeof(usr), "%s%s", t->root, dirs[1]);
	write_file(etc, "10-a.conf", GOOD);
	write_file(usr, "20-b.conf", GOOD);
	write_file(usr, "30-masked.conf", GOOD);
	make_link("/usr/lib/sriov-persist/conf.d/20-b.conf", etc, "25-abs.conf");
	make_link("/dev/null", etc, "30-masked.conf");
	assert_int_equal(conf_files_list_root(t->root, dirs, "conf", &paths, &fail), 0);
	assert_non_null(paths[0]);
	assert_true(endswith(paths[0], "/etc/sriov-persist/conf.d/10-a.conf"));
	assert_true(endswith(paths[1], "/usr/lib/sriov-persist/conf.d/20-b.conf"));
	/* the absolute link, taken under the root */
	assert_true(startswith(paths[2], t->root));
	assert_true(endswith(paths[2], "/usr/lib/sriov-persist/conf.d/20-b.conf"));
	assert_null(paths[3]);
	strv_free(paths);
	paths = NULL;

	/* a file's link out of the root fails the list: which files apply is unknown */
	make_link("../../../../../../etc/passwd", etc, "40-out.conf");
	assert_int_equal(conf_files_list_root(t->root, dirs, "conf", &paths, &fail), -EXDEV);
	assert_null(paths);
	assert_true(endswith(fail.dir, "/etc/sriov-persist/conf.d/40-out.conf"));
	assert_string_equal(fail.why, "leads out of the root directory; refusing it");

	/* refusing it alone: listed at its place as the link, the others too */
	assert_int_equal(conf_files_list_root_refusing(t->root, dirs, "conf", &paths, &targets,
						       &refused, &fail),
			 0);
	assert_true(endswith(paths[0], "/etc/sriov-persist/conf.d/10-a.conf"));
	assert_true(endswith(paths[1], "/usr/lib/sriov-persist/conf.d/20-b.conf"));
	/* a link is named by its own name, read from what it leads to */
	assert_true(startswith(paths[2], t->root));
	assert_true(endswith(paths[2], "/etc/sriov-persist/conf.d/25-abs.conf"));
	assert_true(startswith(targets[2], t->root));
	assert_true(endswith(targets[2], "/usr/lib/sriov-persist/conf.d/20-b.conf"));
	assert_string_equal(targets[0], paths[0]);
	assert_true(startswith(paths[3], t->root));
	assert_true(endswith(paths[3], "/etc/sriov-persist/conf.d/40-out.conf"));
	assert_null(paths[4]);
	assert_null(targets[4]);
	assert_non_null(refused[0]);
	assert_string_equal(refused[0], paths[3]);
	assert_null(refused[1]);
	strv_free(paths);
	strv_free(targets);
	strv_free(refused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_unsafe),
		cmocka_unit_test_setup_teardown(test_unsafe_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_masking_and_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_priority, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layout_set_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layout_set_load_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layout_set_load_files, setup, teardown),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test_setup_teardown(test_path_under_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conf_files_under_root, setup, teardown),
	};

	/* the files the tests write are safe whatever umask they ran under */
	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
