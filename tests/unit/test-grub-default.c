/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* /etc/default/grub and its drop-ins read as update-grub's shell reads them
 * (tests/fixtures/grub/NOTES.md); what only a shell could tell refused. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "boot-loader.h"
#include "fileio.h"
#include "fs-util.h"
#include "grub-default.h"
#include "model.h"

#define FIXTURES "tests/fixtures/grub/"

static void feed_file(struct grub_default *g, const char *path)
{
	_cleanup_free_ char *text = NULL, *why = NULL;
	unsigned line = 0;

	assert_int_equal(read_file(path, &text), 0);
	assert_int_equal(grub_default_feed(g, text, &line, &why), 0);
	assert_null(why);
}

static void expect_cmdline(const struct grub_default *g, const char *want)
{
	_cleanup_free_ char *c = grub_default_cmdline(g);

	assert_string_equal(c, want);
}

static void test_distribution_files(void **state)
{
	struct grub_default g = {};

	feed_file(&g, FIXTURES "debian-12/etc/default/grub");
	assert_string_equal(g.cmdline_default, "quiet");
	assert_string_equal(g.cmdline_linux, "");
	grub_default_done(&g);

	feed_file(&g, FIXTURES "ubuntu-24.04/etc/default/grub");
	expect_cmdline(&g, " quiet splash");
	/* the cloud image's drop-in, sourced after the file, replaces it */
	feed_file(&g, FIXTURES "ubuntu-24.04-cloud/etc/default/grub.d/40-force-partuuid.cfg");
	feed_file(&g, FIXTURES "ubuntu-24.04-cloud/etc/default/grub.d/50-cloudimg-settings.cfg");
	expect_cmdline(&g, " console=tty1 console=ttyS0");
	grub_default_done(&g);
}

/* Each value as sh assigns it: quotes, escapes, the variables themselves. */
static void test_values(void **state)
{
	static const struct {
		const char *text, *linux_, *default_;
	} cases[] = {
		{ "GRUB_CMDLINE_LINUX=intel_iommu=on\n", "intel_iommu=on", NULL },
		{ "  export GRUB_CMDLINE_LINUX_DEFAULT='quiet  $x'  # the default\n", NULL,
		  "quiet  $x" },
		{ "GRUB_CMDLINE_LINUX=\"a\"'b'c\\ d\n", "abc d", NULL },
		{ "GRUB_CMDLINE_LINUX=\"\\$x \\\" \\q\"\n", "$x \" \\q", NULL },
		{ "GRUB_CMDLINE_LINUX=a\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX b\"\n"
		  "GRUB_CMDLINE_LINUX_DEFAULT=${GRUB_CMDLINE_LINUX}c\n",
		  "a b", "a bc" },
		/* an unset one is empty; a later assignment replaces */
		{ "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX_DEFAULT x\"\nGRUB_CMDLINE_LINUX_DEFAULT=q\n"
		  "GRUB_CMDLINE_LINUX_DEFAULT=\n",
		  " x", "" },
		/* other variables may hold anything a line holds */
		{ "GRUB_DISTRIBUTOR=$(lsb_release -i -s 2> /dev/null || echo \"Deb)ian\")\n"
		  "GRUB_GFXMODE=\"$(echo 1; echo 2)\" # c\nGRUB_X=a#b\n",
		  NULL, NULL },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct grub_default g = {};
		_cleanup_free_ char *why = NULL;
		unsigned line = 0;

		if (grub_default_feed(&g, cases[i].text, &line, &why) < 0)
			fail_msg("case %zu, line %u: %s", i, line, why);
		if (cases[i].linux_)
			assert_string_equal(g.cmdline_linux, cases[i].linux_);
		else
			assert_null(g.cmdline_linux);
		if (cases[i].default_)
			assert_string_equal(g.cmdline_default, cases[i].default_);
		else
			assert_null(g.cmdline_default);
		grub_default_done(&g);
	}
}

/* What only a shell could tell: the line, why, and nothing taken from the
 * file (what was read before it stays). */
static void test_ambiguous(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *why;
	} cases[] = {
		{ "GRUB_CMDLINE_LINUX=\"$(cat /etc/args)\"\n", 1,
		  "GRUB_CMDLINE_LINUX=\"$(cat /etc/args)\": only a shell can tell its value" },
		{ "#\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet $EXTRA\"\n", 2,
		  "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $EXTRA\": only a shell can tell its value" },
		{ "GRUB_CMDLINE_LINUX=`cat /x`\n", 1,
		  "GRUB_CMDLINE_LINUX=`cat /x`: only a shell can tell its value" },
		{ "GRUB_CMDLINE_LINUX=${GRUB_CMDLINE_LINUX:-quiet}\n", 1,
		  "GRUB_CMDLINE_LINUX=${GRUB_CMDLINE_LINUX:-quiet}: only a shell can tell its value" },
		{ "if [ -e /etc/sriov ]; then\nGRUB_CMDLINE_LINUX=iommu=pt\nfi\n", 1,
		  "not a plain assignment: only a shell can tell what it does (\"if [ -e "
		  "/etc/sriov ]; then\")" },
		{ ". /etc/default/grub.local\n", 1,
		  "not a plain assignment: only a shell can tell what it does (\". "
		  "/etc/default/grub.local\")" },
		{ "GRUB_CMDLINE_LINUX=\"a\nb\"\n", 1,
		  "a value that does not end on its line (\"GRUB_CMDLINE_LINUX=\"a\")" },
		{ "GRUB_CMDLINE_LINUX=a \\\n", 1,
		  "more than an assignment on the line (\"GRUB_CMDLINE_LINUX=a \\\")" },
		{ "GRUB_X=${GRUB_CMDLINE_LINUX_DEFAULT:=iommu=pt}\n", 1,
		  "names GRUB_CMDLINE_LINUX in another variable's value "
		  "(\"GRUB_X=${GRUB_CMDLINE_LINUX_DEFAULT:=iommu=pt}\")" },
		{ "GRUB_TIMEOUT=5; GRUB_CMDLINE_LINUX=iommu=pt\n", 1,
		  "more than an assignment on the line (\"GRUB_TIMEOUT=5; "
		  "GRUB_CMDLINE_LINUX=iommu=pt\")" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct grub_default g = { .cmdline_linux = strdup("ro") };
		_cleanup_free_ char *why = NULL;
		unsigned line = 0;

		assert_int_equal(grub_default_feed(&g, cases[i].text, &line, &why), -EBADMSG);
		assert_int_equal(line, cases[i].line);
		assert_string_equal(why, cases[i].why);
		assert_string_equal(g.cmdline_linux, "ro");
		assert_null(g.cmdline_default);
		grub_default_done(&g);
	}
}

/* arm64 from /proc/cpuinfo: no vendor_id, "CPU architecture: 8". */
static void test_cpuinfo_platform(void **state)
{
	assert_int_equal(cpu_vendor_from_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\n"),
			 CPU_VENDOR_INTEL);
	assert_int_equal(cpu_vendor_from_cpuinfo("processor\t: 0\nvendor_id\t: HygonGenuine\n"),
			 CPU_VENDOR_AMD);
	/* an Ampere Altra (Neoverse-N1), as its arm64 kernel writes it */
	assert_int_equal(cpu_vendor_from_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n"
						 "Features\t: fp asimd evtstrm aes pmull sha1 "
						 "sha2 crc32 atomics\nCPU implementer\t: 0x41\n"
						 "CPU architecture: 8\nCPU variant\t: 0x3\n"
						 "CPU part\t: 0xd0c\nCPU revision\t: 1\n"),
			 CPU_VENDOR_ARM);
	/* a 32-bit Arm kernel (ARMv7 CPU): not arm64's SMMU case */
	assert_int_equal(cpu_vendor_from_cpuinfo("processor\t: 0\nmodel name\t: ARMv7 Processor "
						 "rev 4 (v7l)\nCPU implementer\t: 0x41\n"
						 "CPU architecture: 7\n"),
			 -ENOENT);
	assert_int_equal(cpu_vendor_from_cpuinfo("processor\t: 0\nisa\t\t: rv64imafdc\n"), -ENOENT);
}

/* What the next boot still lacks: neither added by us nor in every command
 * line of the boot loader's configuration. */
static void test_kernel_args_unset(void **state)
{
	char *entries[] = { (char *)"root=/dev/sda1 intel_iommu=on iommu=pt",
			    (char *)"root=/dev/sda1 intel_iommu=on", NULL };
	char *added[] = { (char *)"iommu=pt", NULL };
	struct host_state h = {};
	_cleanup_free_ char *u1 = NULL, *u2 = NULL, *u3 = NULL, *u4 = NULL;

	assert_int_equal(kernel_args_unset(&h, "intel_iommu=on iommu=pt", &u1), 0);
	assert_string_equal(u1, "intel_iommu=on iommu=pt");
	h.boot_cmdlines = entries;
	assert_int_equal(kernel_args_unset(&h, "intel_iommu=on iommu=pt", &u2), 0);
	assert_string_equal(u2, "iommu=pt"); /* not in the second entry */
	h.kernel_args_added = added;
	assert_int_equal(kernel_args_unset(&h, "intel_iommu=on iommu=pt", &u3), 0);
	assert_null(u3);
	/* the kernel takes the last: a later intel_iommu=off undoes it */
	entries[1] = (char *)"intel_iommu=on quiet intel_iommu=off";
	assert_int_equal(kernel_args_unset(&h, "intel_iommu=on iommu=pt", &u4), 0);
	assert_string_equal(u4, "intel_iommu=on");
	assert_true(kernel_args_all_configured(&h, "iommu=pt") == false);
}

/* An "off" in the configuration that a missing argument turns on holds
 * KernelArguments=manage, and says where; another CPU's does not. */
static void test_kernel_args_contradicted(void **state)
{
	char *off[] = { (char *)"/etc/default/grub:9", (char *)"intel_iommu=off",
			(char *)"/etc/default/grub:9", (char *)"iommu=nopt", NULL };
	struct host_state h = { .boot_iommu_off = off };
	_cleanup_free_ char *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL;

	assert_true(kernel_arg_turns_iommu_off("intel_iommu=off"));
	assert_true(kernel_arg_turns_iommu_off("amd_iommu=off"));
	assert_true(kernel_arg_turns_iommu_off("intel_iommu=sm_on,off"));
	assert_true(kernel_arg_turns_iommu_off("iommu=nopt"));
	assert_false(kernel_arg_turns_iommu_off("intel_iommu=igfx_off"));
	assert_false(kernel_arg_turns_iommu_off("xintel_iommu=off"));
	assert_false(kernel_arg_turns_iommu_off("iommu=pt"));
	assert_int_equal(kernel_args_contradicted(&h, "intel_iommu=on", &c1), 0);
	assert_string_equal(c1, "/etc/default/grub:9 holds intel_iommu=off, which turns off "
				"what intel_iommu=on turns on");
	assert_int_equal(kernel_args_contradicted(&h, "amd_iommu=on", &c2), 0);
	assert_null(c2);
	assert_int_equal(kernel_args_contradicted(&h, NULL, &c3), 0);
	assert_null(c3);
	/* iommu=off turns every IOMMU off */
	off[3] = (char *)"iommu=off";
	assert_int_equal(kernel_args_contradicted(&h, "amd_iommu=on", &c4), 0);
	assert_string_equal(c4, "/etc/default/grub:9 holds iommu=off, which turns off what "
				"amd_iommu=on turns on");
}

/* Where each "off" is, read from a root: only those that the command line
 * still holds (a replaced assignment's are gone). */
static void test_boot_iommu_off_where(void **state)
{
	char dir[] = "/tmp/test-grub-default.XXXXXX", *f;
	_cleanup_strv_free_ char **l = NULL, **off = NULL;
	_cleanup_free_ char *err = NULL;

	assert_non_null(mkdtemp(dir));
	f = strdup_printf("%s/etc/default", dir);
	assert_int_equal(mkdir_p(f, 0755), 0);
	assert_int_equal(write_file_atomic(f, "grub",
					   "# intel_iommu=off\n"
					   "GRUB_CMDLINE_LINUX_DEFAULT=\"amd_iommu=off\"\n"
					   "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet intel_iommu=off\"\n"
					   "GRUB_CMDLINE_LINUX=\"\"\n",
					   0644),
			 0);
	free(f);
	assert_int_equal(boot_loader_cmdlines(dir, BOOT_LOADER_GRUB, &l, &off, &err), 0);
	assert_null(err);
	assert_string_equal(l[0], " quiet intel_iommu=off");
	assert_int_equal(strv_length(off), 2);
	assert_string_equal(off[0], "/etc/default/grub:3");
	assert_string_equal(off[1], "intel_iommu=off");
	f = strdup_printf("rm -rf %s", dir);
	assert_int_equal(system(f), 0);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distribution_files),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_ambiguous),
		cmocka_unit_test(test_cpuinfo_platform),
		cmocka_unit_test(test_kernel_args_unset),
		cmocka_unit_test(test_kernel_args_contradicted),
		cmocka_unit_test(test_boot_iommu_off_where),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
