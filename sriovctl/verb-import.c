/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl import: sriov-network-operator's SriovNetworkNodePolicy objects
 * as layout files, one per policy, written into --output-dir. The
 * conversion is lib/config/sno-policy*.c's; here are the files. */

#include <fcntl.h>
#include <sys/stat.h>

#include "sno-policy.h"
#include "sriovctl.h"
#include "strv.h"

/* The directory, before any input is read or judged. */
static int import_check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		int r = -errno;

		fprintf(stderr, "--output-dir %s: %s\n", dir, strerror(-r));
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "--output-dir %s: %s\n", dir, strerror(ENOTDIR));
		return -ENOTDIR;
	}
	return 0;
}

/* None of the files may exist yet: an import never replaces a layout. */
static int import_refuse_existing(const char *dir, char *const *names)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (dfd < 0) {
		fprintf(stderr, "--output-dir %s: %m\n", dir);
		return -EXIT_USAGE;
	}
	for (size_t i = 0; names[i]; i++) {
		struct stat st;

		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
			fprintf(stderr,
				"%s/%s exists; an import does not replace files: move it "
				"away or import into another directory\n",
				dir, names[i]);
			r = -EEXIST;
		}
	}
	return r;
}

static int import_write(const char *dir, char *const *names, char *const *texts)
{
	for (size_t i = 0; names[i]; i++) {
		int r = write_file_atomic(dir, names[i], texts[i], 0644);

		if (r < 0) {
			fprintf(stderr, "Writing %s/%s failed: %s\n", dir, names[i], strerror(-r));
			return r;
		}
		printf("%s/%s\n", dir, names[i]);
	}
	return 0;
}

static bool import_has_resources(const struct sno_policies *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->items[i].resource_name && !p->items[i].skipped)
			return true;
	return false;
}

/* The policies' files; EXIT_FAIL when any is wrong, and then none is
 * written. */
static int import_convert(const struct ctl *c, const char *text)
{
	_cleanup_strv_free_ char **names = NULL, **texts = NULL;
	_cleanup_(sno_policies_done) struct sno_policies p = {};
	_cleanup_(diag_list_done) struct diag_list diags = {};
	size_t errors;
	int r;

	r = sno_policies_parse(c->args[0], text, &p, &diags);
	if (r >= 0)
		r = sno_policies_layouts(c->args[0], &p, &names, &texts, &diags);
	/* the file's problems top to bottom, as check says them */
	if (r >= 0)
		r = diag_list_sort_by_line(&diags);
	if (r < 0) {
		fprintf(stderr, "Out of memory\n");
		return EXIT_FAIL;
	}
	ctl_print_diags(&diags);
	errors = diag_count(&diags, DIAG_ERROR);
	if (errors > 0) {
		fprintf(stderr, "%zu error%s: no file written\n", errors, errors == 1 ? "" : "s");
		return EXIT_FAIL;
	}
	if (!names) {
		fprintf(stderr, "%s: no policy to make a layout file of; no file written\n",
			ctl_input_name(c->args[0]));
		return EXIT_FAIL;
	}
	r = import_refuse_existing(c->output_dir, names);
	if (r < 0)
		return r == -EXIT_USAGE ? EXIT_USAGE : EXIT_FAIL;
	if (import_write(c->output_dir, names, texts) < 0)
		return EXIT_FAIL;
	if (import_has_resources(&p))
		fprintf(stderr, "Note: the operator's resources are named with its "
				"RESOURCE_PREFIX (openshift.io by default): set [Kubernetes] "
				"ResourcePrefix= in sriov-persist.conf to it\n");
	return EXIT_OK;
}

int verb_import(struct ctl *c)
{
	_cleanup_free_ char *text = NULL;

	if (!c->output_dir) {
		fprintf(stderr, "import: --output-dir DIR is needed\n");
		return EXIT_USAGE;
	}
	if (import_check_dir(c->output_dir) < 0)
		return EXIT_USAGE;
	if (ctl_read_input(c->args[0], &text) < 0)
		return EXIT_FAIL;
	return import_convert(c, text);
}
