/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* desired_build: selection, merging in file and section order, and the
 * hardware checks. Layout files are built in C (the parser has its own
 * tests); which files exist and which mask others is conf-files' business. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "desired.h"
#include "mac.h"
#include "pf-keys.h"

#define A "/etc/sriov-persist/conf.d/10-a.conf"
#define B "/etc/sriov-persist/conf.d/20-b.conf"

/* ---- building layouts ---- */

static struct layout_file *file_new(const char *path, const char *pci_glob)
{
	struct layout_file *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->path = strdup(path);
	assert_non_null(f->path);
	f->match.line = 1;
	if (pci_glob)
		assert_int_equal(strv_split(pci_glob, &f->match.pci_address), 0);
	return f;
}

static void pf_mark(struct layout_file *f, enum pf_key k, unsigned line)
{
	f->pf.set |= 1u << k;
	f->pf.src[k] = (struct src){ f->path, line };
}

#define PF_SET(f, key, field, val, ln)            \
	do {                                      \
		(f)->pf.field = (val);            \
		pf_mark((f), PF_KEY_##key, (ln)); \
	} while (0)

/* [VirtualFunction first-last] at line; VF_INDEX_ALL for [VirtualFunction]. */
static struct vf_settings *section(struct layout_file *f, uint32_t first, uint32_t last,
				   unsigned line)
{
	struct vf_section *s = realloc(f->vf_sections, sizeof(*s) * (f->n_vf_sections + 1));

	assert_non_null(s);
	f->vf_sections = s;
	s = &f->vf_sections[f->n_vf_sections++];
	*s = (struct vf_section){ .first = first, .last = last, .line = line };
	return &s->settings;
}

static void vf_mark(struct vf_settings *s, const struct layout_file *f, enum vf_key k,
		    unsigned line)
{
	s->set |= 1u << k;
	s->src[k] = (struct src){ f->path, line };
}

#define VF_SET(s, f, key, field, val, ln)              \
	do {                                           \
		(s)->attrs.field = (val);              \
		vf_mark((s), (f), VF_KEY_##key, (ln)); \
	} while (0)

static void vf_set_driver(struct vf_settings *s, const struct layout_file *f, const char *drv,
			  unsigned line)
{
	s->attrs.driver = drv ? strdup(drv) : NULL;
	vf_mark(s, f, VF_KEY_DRIVER, line);
}

static void vf_set_mac(struct vf_settings *s, const struct layout_file *f, const char *mac,
		       unsigned line)
{
	if (mac) {
		assert_int_equal(mac_parse(mac, &s->attrs.mac), 0);
		s->stable &= ~VF_KEY_BIT(MAC);
	} else
		s->stable |= VF_KEY_BIT(MAC);
	vf_mark(s, f, VF_KEY_MAC, line);
}

static void vf_set_guid(struct vf_settings *s, const struct layout_file *f, enum vf_key k,
			const char *guid, unsigned line)
{
	uint64_t g = 0;

	if (guid) {
		assert_int_equal(guid_parse(guid, &g), 0);
		s->stable &= ~(1u << k);
	} else
		s->stable |= 1u << k;
	if (k == VF_KEY_IB_NODE_GUID)
		s->attrs.ib_node_guid = g;
	else
		s->attrs.ib_port_guid = g;
	vf_mark(s, f, k, line);
}

/* ---- the host ---- */

static char *no_modules[] = { NULL };

static struct host_state host = {
	.hostname = "worker-7",
	.iommu = true,
	.modules = no_modules,
	.machine_id = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
			0xcc, 0xdd, 0xee, 0xff },
	.has_machine_id = true,
};

static struct pf_state pf_make(const char *driver, unsigned total, unsigned num)
{
	return (struct pf_state){
		.pci = "0000:3b:00.0",
		.name = "ens1f0",
		.vendor = 0x8086,
		.device = 0x159b,
		.driver = (char *)driver,
		.total_vfs = total,
		.num_vfs = num,
		.mtu = 1500,
		.permanent_mac = { { 0xb4, 0x96, 0x91, 0xaa, 0xbb, 0x00 } },
		.has_eswitch = streq(driver, "ice") || streq(driver, "mlx5_core"),
		.firmware_total_vfs = streq(driver, "mlx5_core") ? 8 : -1,
		.has_firmware_link_type = streq(driver, "mlx5_core"),
		.numa_node = -1,
	};
}

/* ---- running desired_build ---- */

struct run {
	struct layout_set set;
	struct diag_list diags;
	struct pf_desired *d;
	int r;
};

static void run_build(struct run *t, const struct host_state *h, const struct pf_state *pf,
		      struct layout_file *const *files, size_t n)
{
	t->set = (struct layout_set){ .files = (struct layout_file **)files, .n_files = n };
	t->diags = (struct diag_list){};
	t->d = NULL;
	t->r = desired_build(&t->set, h, pf, &t->diags, &t->d);
	assert_int_equal(t->r, 0);
}

static void run_done(struct run *t, struct layout_file **files, size_t n)
{
	pf_desired_free(t->d);
	diag_list_done(&t->diags);
	for (size_t i = 0; i < n; i++)
		layout_file_free(files[i]);
}

/* Exactly one diagnostic: an error at file:line saying msg; the PF held
 * with "file:line: msg". */
static void expect_error(const struct run *t, const char *file, unsigned line, const char *msg)
{
	char *reason;

	if (t->diags.n != 1)
		for (size_t i = 0; i < t->diags.n; i++)
			print_message("diag: %s:%u: %s\n", t->diags.items[i].file,
				      t->diags.items[i].line, t->diags.items[i].msg);
	assert_int_equal(t->diags.n, 1);
	assert_int_equal(t->diags.items[0].level, DIAG_ERROR);
	assert_string_equal(t->diags.items[0].file, file);
	assert_int_equal(t->diags.items[0].line, line);
	assert_string_equal(t->diags.items[0].msg, msg);
	assert_non_null(t->d);
	assert_true(t->d->held);
	reason = strdup_printf("%s:%u: %s", file, line, msg);
	assert_string_equal(t->d->held_reason, reason);
	free(reason);
}

static void expect_ok(const struct run *t)
{
	for (size_t i = 0; i < t->diags.n; i++)
		print_message("unexpected diag: %s:%u: %s\n", t->diags.items[i].file,
			      t->diags.items[i].line, t->diags.items[i].msg);
	assert_int_equal(t->diags.n, 0);
	assert_non_null(t->d);
	assert_false(t->d->held);
	assert_null(t->d->held_reason);
}

/* One file, one PF: the common case of the check tests. */
static void check_one(const char *driver, unsigned total, unsigned num, struct layout_file *f,
		      const char *line_msg, unsigned line)
{
	struct pf_state pf = pf_make(driver, total, num);
	struct layout_file *files[] = { f };
	struct run t;

	run_build(&t, &host, &pf, files, 1);
	if (line_msg)
		expect_error(&t, f->path, line, line_msg);
	else
		expect_ok(&t);
	run_done(&t, files, 1);
}

/* ---- selection ---- */

static void test_unconfigured_pf(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "0000:af:00.*"), file_new(B, "0000:3b:00.1") };
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	run_build(&t, &host, &pf, files, 2);
	assert_null(t.d);
	assert_int_equal(t.diags.n, 0);
	run_done(&t, files, 2);

	/* and with no layouts at all */
	run_build(&t, &host, &pf, NULL, 0);
	assert_null(t.d);
	run_done(&t, NULL, 0);
}

static void test_config_files_in_order(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "0000:3b:00.*"),
					file_new("/x/15-other.conf", "0000:af:*"),
					file_new(B, "0000:3b:00.0") };
	struct run t;

	run_build(&t, &host, &pf, files, 3);
	expect_ok(&t);
	assert_int_equal(strv_length(t.d->config_files), 2);
	assert_string_equal(t.d->config_files[0], A);
	assert_string_equal(t.d->config_files[1], B);
	assert_string_equal(t.d->pci, "0000:3b:00.0");
	/* nothing set: the VFs there are kept */
	assert_int_equal(t.d->num_vfs, 0);
	run_done(&t, files, 3);
}

/* A selecting file with errors holds the PF; its diagnostics came from the
 * parser and are not repeated. */
static void test_file_with_errors_holds(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "0000:3b:00.*"), file_new(B, "*") };
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	files[1]->has_error = true;
	run_build(&t, &host, &pf, files, 2);
	assert_non_null(t.d);
	assert_true(t.d->held);
	assert_string_equal(t.d->held_reason, B ": has errors");
	assert_int_equal(t.diags.n, 0);
	assert_int_equal(strv_length(t.d->config_files), 2);
	run_done(&t, files, 2);

	/* a file with errors whose [Match] is broken (empty) takes no part in
	 * the merge: the VFs of A beyond its VirtualFunctions=0 are no error
	 * of A's */
	files[0] = file_new(A, "0000:3b:00.*");
	files[1] = file_new(B, NULL);
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 8, 3);
	VF_SET(section(files[0], 0, 7, 5), files[0], VLAN, vlan, 100, 6);
	PF_SET(files[1], VIRTUAL_FUNCTIONS, num_vfs, 0, 3);
	files[1]->has_error = true;
	files[0]->has_error = true;
	run_build(&t, &host, &pf, files, 2);
	assert_true(t.d->held);
	/* the first file's error, with the other file's counted; the file
	 * that holds every PF is no file that selects it */
	assert_string_equal(t.d->held_reason, A ": has errors (and 1 more error)");
	assert_int_equal(strv_length(t.d->config_files), 1);
	assert_string_equal(t.d->config_files[0], A);
	assert_int_equal(t.diags.n, 0);
	run_done(&t, files, 2);

	/* one whose [Match] selects the PF takes part with what parsed of it,
	 * so that the rest of its errors show too; both places are named */
	files[0] = file_new(A, "0000:3b:00.*");
	files[1] = file_new(B, "*");
	VF_SET(section(files[0], 0, 7, 5), files[0], VLAN, vlan, 100, 6);
	PF_SET(files[1], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	files[1]->has_error = true;
	run_build(&t, &host, &pf, files, 2);
	assert_true(t.d->held);
	/* the reason counts the errors found with the file's */
	assert_string_equal(t.d->held_reason, B ": has errors (and 1 more error)");
	assert_int_equal(t.diags.n, 1);
	assert_string_equal(t.diags.items[0].file, A);
	assert_int_equal(t.diags.items[0].line, 5);
	assert_string_equal(t.diags.items[0].msg,
			    "[VirtualFunction 0-7]: VFs 4-7 are beyond VirtualFunctions=4 (" B
			    ":3)");
	run_done(&t, files, 2);
}

/* A file with errors whose [Match] does not select the PF leaves it alone;
 * an unreadable file (empty [Match]) holds every PF. */
static void test_file_with_errors_not_selecting(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "0000:3b:00.*"), file_new(B, "0000:af:00.0") };
	struct layout_file *unreadable[] = { file_new(A, NULL) };
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	files[1]->has_error = true;
	run_build(&t, &host, &pf, files, 2);
	expect_ok(&t);
	assert_int_equal(t.d->num_vfs, 4);
	assert_int_equal(strv_length(t.d->config_files), 1);
	run_done(&t, files, 2);

	unreadable[0]->has_error = true;
	unreadable[0]->match.line = 0;
	run_build(&t, &host, &pf, unreadable, 1);
	assert_non_null(t.d);
	assert_true(t.d->held);
	assert_string_equal(t.d->held_reason, A ": has errors");
	run_done(&t, unreadable, 1);
}

/* ---- merging ---- */

static void test_merge_files_and_sections(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "0000:3b:00.*"), file_new(B, "0000:3b:00.0") };
	struct vf_settings *s;
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	PF_SET(files[0], MTU, mtu, 9000, 4);
	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 6);
	VF_SET(s, files[0], VLAN, vlan, 10, 7);
	VF_SET(s, files[0], TRUST, trust, true, 8);
	s = section(files[0], 3, 3, 10);
	VF_SET(s, files[0], SPOOFCHK, spoofchk, false, 11);

	PF_SET(files[1], VIRTUAL_FUNCTIONS, num_vfs, 8, 3);
	s = section(files[1], 2, 3, 5);
	VF_SET(s, files[1], VLAN, vlan, 20, 6);
	s = section(files[1], 3, 3, 8);
	VF_SET(s, files[1], VLAN, vlan, 30, 9);
	/* a later file's [VirtualFunction] wins over an earlier [VirtualFunction 3] */
	s = section(files[1], VF_INDEX_ALL, VF_INDEX_ALL, 11);
	VF_SET(s, files[1], SPOOFCHK, spoofchk, true, 12);

	run_build(&t, &host, &pf, files, 2);
	/* every value B overrides is said, at B, naming A's place */
	assert_int_equal(t.diags.n, 4);
	for (size_t i = 0; i < t.diags.n; i++) {
		assert_int_equal(t.diags.items[i].level, DIAG_WARNING);
		assert_string_equal(t.diags.items[i].file, B);
	}
	assert_string_equal(t.diags.items[0].msg,
			    "VirtualFunctions=8 overrides VirtualFunctions=4 at " A ":3 "
			    "(a later file wins)");
	assert_string_equal(t.diags.items[1].msg, "VLANId=20 overrides VLANId=10 at " A
						  ":7 for VFs 2-3 (a later file wins)");
	assert_string_equal(t.diags.items[3].msg,
			    "MACSpoofCheck=yes overrides MACSpoofCheck=no at " A
			    ":11 for VF 3 (a later file wins)");
	assert_false(t.d->held);
	assert_int_equal(t.d->num_vfs, 8);
	assert_int_equal(t.d->n_vfs, 8);
	assert_string_equal(t.d->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].file, B);
	assert_int_equal(t.d->pf.mtu, 9000);
	assert_string_equal(t.d->pf.src[PF_KEY_MTU].file, A);
	assert_int_equal(t.d->pf.src[PF_KEY_MTU].line, 4);

	assert_int_equal(t.d->vfs[0].attrs.vlan, 10);
	assert_true(t.d->vfs[0].attrs.trust);
	assert_int_equal(t.d->vfs[2].attrs.vlan, 20);
	assert_int_equal(t.d->vfs[3].attrs.vlan, 30);
	assert_string_equal(t.d->vfs[3].src[VF_KEY_VLAN].file, B);
	assert_int_equal(t.d->vfs[3].src[VF_KEY_VLAN].line, 9);
	assert_true(t.d->vfs[3].attrs.trust);
	assert_true(t.d->vfs[3].attrs.spoofchk);
	assert_int_equal(t.d->vfs[3].src[VF_KEY_SPOOFCHK].line, 12);
	assert_int_equal(t.d->vfs[7].attrs.vlan, 10);
	for (size_t i = 0; i < 8; i++)
		assert_false(vf_settings_has(&t.d->vfs[i], VF_KEY_MAC));
	run_done(&t, files, 2);
}

static void test_num_vfs_resolution(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 2);
	struct layout_file *files[] = { file_new(A, "*") };
	struct run t;

	/* unset: the current count */
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	assert_int_equal(t.d->num_vfs, 2);
	assert_int_equal(t.d->n_vfs, 2);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	files[0]->pf.num_vfs_max = true;
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 0, 3);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	assert_int_equal(t.d->num_vfs, 64);
	assert_int_equal(t.d->n_vfs, 64);
	run_done(&t, files, 1);
}

/* ExternallyManaged: the VFs that exist are configured; VirtualFunctions is
 * what the external manager will create: it bounds the sections, and the
 * settings cover every VF it is to create. */
static void test_externally_managed(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 2);
	struct layout_file *files[] = { file_new(A, "*") };
	struct vf_settings *s;
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 8, 3);
	PF_SET(files[0], EXTERNALLY_MANAGED, externally_managed, true, 4);
	s = section(files[0], 0, 7, 6);
	VF_SET(s, files[0], TRUST, trust, true, 7);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	assert_int_equal(t.d->num_vfs, 2);
	/* the VFs the other tool has yet to make have their settings too */
	assert_int_equal(t.d->n_vfs, 8);
	assert_true(t.d->vfs[1].attrs.trust);
	assert_true(t.d->vfs[7].attrs.trust);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	s = section(files[0], 9, 12, 9);
	VF_SET(s, files[0], TRUST, trust, true, 10);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 9, "[VirtualFunction 9-12]: VFs 9-12 are beyond VirtualFunctions=8");
	run_done(&t, files, 1);
}

/* ---- stable MACs ---- */

static void test_stable_mac(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct host_state no_id = host;
	struct mac_addr want;
	struct vf_settings *s;
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	vf_set_mac(s, files[0], NULL, 6);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(mac_stable(host.machine_id, &pf.permanent_mac, i, &want), 0);
		assert_false(vf_settings_is_stable(&t.d->vfs[i], VF_KEY_MAC));
		assert_true(mac_equal(&t.d->vfs[i].attrs.mac, &want));
	}
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	/* unknown machine ID: one error for the section, not one per VF */
	no_id.has_machine_id = false;
	run_build(&t, &no_id, &pf, files, 1);
	expect_error(&t, A, 6, "MACAddress=stable: the machine ID is unknown");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	/* nor without the PF's permanent address: all PFs would collide */
	memset(&pf.permanent_mac, 0, sizeof(pf.permanent_mac));
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 6, "MACAddress=stable: the PF's permanent MAC address is unknown");
	run_done(&t, files, 1);
}

/* An InfiniBand port that LinkType=ethernet makes Ethernet has no permanent
 * MAC until that reboot: its stable MACs wait, underived, as the GUIDs of a
 * change the other way (plan notes it); the machine ID is still needed. */
static void test_stable_mac_waits_for_ethernet(void **state)
{
	struct pf_state pf = pf_make("mlx5_core", 8, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct host_state no_id = host;
	struct vf_settings *s;
	struct run t;

	pf.link_type = pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	pf.permanent_mac = (struct mac_addr){};
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	PF_SET(files[0], LINK_TYPE, link_type, LINK_TYPE_ETHERNET, 4);
	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	vf_set_mac(s, files[0], NULL, 6);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	for (uint32_t i = 0; i < 4; i++)
		assert_true(vf_settings_is_stable(&t.d->vfs[i], VF_KEY_MAC));
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	no_id.has_machine_id = false;
	run_build(&t, &no_id, &pf, files, 1);
	expect_error(&t, A, 6, "MACAddress=stable: the machine ID is unknown");
	run_done(&t, files, 1);
}

/* ---- hardware checks ---- */

static void test_too_many_vfs(void **state)
{
	struct layout_file *f = file_new(A, "*");

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 65, 3);
	check_one("ice", 64, 0, f,
		  "VirtualFunctions=65: the PF supports at most 64 VFs (sriov_totalvfs)", 3);
}

static void test_firmware_vfs(void **state)
{
	struct pf_state pf = pf_make("mlx5_core", 8, 2);
	struct layout_file *files[] = { file_new(A, "*") };
	struct run t;

	/* mlx5 raises the firmware limit: a reboot plan, not an error */
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 16, 3);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	assert_int_equal(t.d->num_vfs, 16);
	assert_int_equal(t.d->n_vfs, 16);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	PF_SET(files[0], FIRMWARE_VFS, firmware_vfs, FIRMWARE_VFS_NO, 4);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 3,
		     "VirtualFunctions=16: the PF supports at most 8 VFs (sriov_totalvfs), and "
		     "FirmwareVirtualFunctions=no (line 4) forbids raising the firmware limit");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	PF_SET(files[0], FIRMWARE_VFS, firmware_vfs, FIRMWARE_VFS_AUTO, 4);
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 128, 3);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 3,
		     "VirtualFunctions=128: the firmware VF limit can be raised to at most 127");
	run_done(&t, files, 1);
}

static void test_section_beyond(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 8, 3);
	s = section(f, 9, 12, 7);
	VF_SET(s, f, TRUST, trust, true, 8);
	check_one("ice", 64, 0, f, "[VirtualFunction 9-12]: VFs 9-12 are beyond VirtualFunctions=8",
		  7);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 8, 3);
	s = section(f, 8, 8, 5);
	VF_SET(s, f, TRUST, trust, true, 6);
	check_one("ice", 64, 0, f, "[VirtualFunction 8]: VF 8 is beyond VirtualFunctions=8", 5);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 0, 3);
	s = section(f, 0, 0, 5);
	VF_SET(s, f, TRUST, trust, true, 6);
	check_one("ice", 64, 2, f, "[VirtualFunction 0]: VF 0 is beyond VirtualFunctions=0", 5);

	f = file_new(A, "*");
	f->pf.num_vfs_max = true;
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 0, 3);
	s = section(f, 6, 7, 5);
	VF_SET(s, f, TRUST, trust, true, 6);
	check_one("igb", 7, 0, f, "[VirtualFunction 6-7]: VF 7 is beyond VirtualFunctions=max (7)",
		  5);

	/* [VirtualFunction] is never beyond */
	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 0, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, TRUST, trust, true, 6);
	check_one("ice", 64, 2, f, NULL, 0);
}

/* VirtualFunctions unset: a section naming a VF that does not exist yet is
 * not applied, and not an error. */
static void test_section_beyond_unset(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 2);
	struct layout_file *files[] = { file_new(A, "*") };
	struct vf_settings *s;
	struct run t;

	s = section(files[0], 1, 5, 5);
	VF_SET(s, files[0], TRUST, trust, true, 6);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	assert_int_equal(t.d->n_vfs, 2);
	assert_false(vf_settings_has(&t.d->vfs[0], VF_KEY_TRUST));
	assert_true(t.d->vfs[1].attrs.trust);
	run_done(&t, files, 1);
}

static void test_duplicate_macs(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;
	struct pf_state pf = pf_make("ice", 64, 0);
	struct mac_addr stable1;
	char buf[MAC_STR_MAX], *msg;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 1, 1, 5);
	vf_set_mac(s, f, "02:00:00:00:00:01", 6);
	s = section(f, 3, 3, 8);
	vf_set_mac(s, f, "02:00:00:00:00:01", 9);
	check_one("ice", 64, 0, f,
		  "MACAddress=02:00:00:00:00:01: VF 1 and VF 3 would have the same address "
		  "(VF 1's at line 6)",
		  9);

	/* a literal equal to another VF's stable address: reported at the literal */
	assert_int_equal(mac_stable(host.machine_id, &pf.permanent_mac, 1, &stable1), 0);
	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 0, 0, 5);
	vf_set_mac(s, f, mac_format(&stable1, buf), 6);
	s = section(f, 1, 3, 8);
	vf_set_mac(s, f, NULL, 9);
	msg = strdup_printf("MACAddress=%s: VF 0 and VF 1 would have the same address "
			    "(VF 1's at line 9)",
			    buf);
	check_one("ice", 64, 0, f, msg, 6);
	free(msg);
}

/* The same literal on VFs of two PFs of the host: both held, both named. */
static void test_duplicate_macs_host(void **state)
{
	struct layout_file *f = file_new(A, "0000:3b:00.*");
	struct layout_file *files[] = { f };
	struct pf_state pfs[] = { pf_make("ice", 64, 0), pf_make("ice", 64, 0) };
	struct host_state two = host;
	struct vf_settings *s;
	const char *msg = "MACAddress=02:00:00:00:00:01: VF 0 of 0000:3b:00.0 and VF 0 of "
			  "0000:3b:00.1 would have the same address";
	struct run t;

	strcpy(pfs[1].pci, "0000:3b:00.1");
	pfs[1].name = "ens1f1";
	two.pfs = pfs;
	two.n_pfs = 2;
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 2, 3);
	s = section(f, 0, 0, 5);
	vf_set_mac(s, f, "02:00:00:00:00:01", 6);
	for (size_t i = 0; i < 2; i++) {
		run_build(&t, &two, &pfs[i], files, 1);
		expect_error(&t, A, 6, msg);
		pf_desired_free(t.d);
		diag_list_done(&t.diags);
	}
	/* a host read of one PF only: nothing to compare with */
	two.n_pfs = 1;
	run_build(&t, &two, &pfs[0], files, 1);
	expect_ok(&t);
	run_done(&t, files, 1);
}

static void test_mtu_range(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, MTU, mtu, 9800, 4);
	check_one("ice", 64, 0, f, "MTUBytes=9800: the ice driver allows 68..9702", 4);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 8, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, MTU, mtu, 60, 6); /* one error for 8 VFs */
	check_one("ice", 64, 0, f, "MTUBytes=60: the ice driver allows 68..9702", 6);

	f = file_new(A, "*");
	PF_SET(f, MTU, mtu, 9702, 4);
	check_one("ice", 64, 0, f, NULL, 0);

	/* a VF above its PF: the PF's MTU as the layout sets it, else as it is */
	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 2, 3);
	s = section(f, 0, 0, 5);
	VF_SET(s, f, MTU, mtu, 9000, 6);
	check_one("ice", 64, 0, f,
		  "MTUBytes=9000: above the PF's MTU 1500; set MTUBytes= in [PhysicalFunction]", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 2, 3);
	PF_SET(f, MTU, mtu, 9000, 4);
	s = section(f, 0, 0, 5);
	VF_SET(s, f, MTU, mtu, 9000, 6);
	check_one("ice", 64, 0, f, NULL, 0);

	/* the PF's MTUBytes= that the VF's is above is named where it is set */
	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 2, 3);
	PF_SET(f, MTU, mtu, 2000, 4);
	s = section(f, 0, 0, 5);
	VF_SET(s, f, MTU, mtu, 9000, 6);
	check_one("ice", 64, 0, f, "MTUBytes=9000: above the PF's MTUBytes=2000 (" A ":4)", 6);
}

static void test_vfio_no_netdev(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 0, 1, 5);
	vf_set_driver(s, f, "vfio-pci", 6);
	VF_SET(s, f, MTU, mtu, 9000, 7);
	check_one("ice", 64, 0, f, "MTUBytes=9000: a VF bound to vfio-pci has no network interface",
		  7);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 0, 1, 5);
	vf_set_driver(s, f, "vfio-pci", 6);
	s = section(f, 1, 1, 9);
	VF_SET(s, f, RDMA, rdma, true, 10);
	check_one("ice", 64, 0, f, "RDMA=yes: a VF bound to vfio-pci has no RDMA device", 10);
}

static void test_rdma_unsupported(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, RDMA, rdma, true, 6);
	check_one("i40e", 64, 0, f, "RDMA=yes: the i40e driver has no RDMA support on VFs", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, RDMA, rdma, false, 6);
	check_one("i40e", 64, 0, f, NULL, 0);
}

/* An attribute the driver does not implement: an error when set to
 * anything but the kernel's default. */
static void test_unimplemented_attrs(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, LINK_STATE, link_state, LINK_STATE_ENABLE, 6);
	check_one("igb", 7, 0, f, "LinkState=yes: the igb driver cannot set this on VFs", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, MIN_TX_RATE, min_tx_rate, 100, 6);
	check_one("i40e", 64, 0, f, "MinTxRateMbps=100: the i40e driver cannot set this on VFs", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, QUERY_RSS, query_rss, true, 6);
	check_one("ice", 64, 0, f,
		  "QueryReceiveSideScaling=yes: the ice driver cannot set this on VFs", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, QOS, qos, 2, 6);
	VF_SET(s, f, VLAN, vlan, 10, 7);
	check_one("bnxt_en", 64, 0, f,
		  "QualityOfService=2: the bnxt_en driver cannot set this on VFs", 6);

	/* the defaults are fine everywhere */
	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, f, LINK_STATE, link_state, LINK_STATE_AUTO, 6);
	VF_SET(s, f, MIN_TX_RATE, min_tx_rate, 0, 7);
	VF_SET(s, f, QUERY_RSS, query_rss, false, 8);
	VF_SET(s, f, SPOOFCHK, spoofchk, true, 9);
	VF_SET(s, f, VLAN_PROTO, vlan_proto, VLAN_PROTO_8021Q, 10);
	check_one("igb", 7, 0, f, NULL, 0);
}

static void test_vlan_8021ad(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 2, 2, 5);
	VF_SET(s, f, VLAN, vlan, 100, 6);
	VF_SET(s, f, VLAN_PROTO, vlan_proto, VLAN_PROTO_8021AD, 7);
	check_one("i40e", 64, 0, f, "VLANProtocol=802.1ad: the i40e driver supports only 802.1Q",
		  7);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 2, 2, 5);
	VF_SET(s, f, VLAN, vlan, 100, 6);
	VF_SET(s, f, VLAN_PROTO, vlan_proto, VLAN_PROTO_8021AD, 7);
	check_one("ice", 64, 0, f, NULL, 0);
}

/* A file selecting two PFs reports a problem once, in one text, and
 * holds both. */
static void test_two_pfs_one_text(void **state)
{
	struct pf_state pfs[2] = { pf_make("i40e", 64, 0), pf_make("i40e", 64, 0) };
	struct layout_file *files[] = { file_new(A, "*") };
	struct pf_desired *d[2] = {};
	struct diag_list diags = {};
	struct layout_set set = { .files = files, .n_files = 1 };
	struct vf_settings *s;

	snprintf(pfs[1].pci, sizeof(pfs[1].pci), "0000:3b:00.1");
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, files[0], VLAN, vlan, 100, 6);
	VF_SET(s, files[0], VLAN_PROTO, vlan_proto, VLAN_PROTO_8021AD, 7);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(desired_build(&set, &host, &pfs[i], &diags, &d[i]), 0);
		assert_true(d[i]->held);
		assert_string_equal(
			d[i]->held_reason,
			A ":7: VLANProtocol=802.1ad: the i40e driver supports only 802.1Q");
		pf_desired_free(d[i]);
	}
	assert_int_equal(diags.n, 1);
	diag_list_done(&diags);
	layout_file_free(files[0]);
}

/* A file whose [Match] selects no PF of the host is said, with what it
 * matches on; one without a usable [Match] is an error of its own. */
static void test_unselected(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct host_state h = host;
	struct layout_file *files[] = { file_new(A, "0000:99:00.0"), file_new(B, "0000:3b:00.*"),
					file_new("/x/30-c.conf", NULL),
					file_new("/x/40-d.conf", "*") };
	struct layout_set set = { .files = files, .n_files = 4 };
	struct diag_list diags = {};
	const struct layout_file **unselected = NULL;
	size_t n = 0;

	h.pfs = &pf;
	h.n_pfs = 1;
	assert_int_equal(strv_split("ens9 ens1f0", &files[0]->match.name), 0);
	assert_int_equal(strv_split("db-*", &files[3]->match.host), 0);
	/* the line cited is of the key that alone selects no PF: PCIAddress=
	 * of A; Host= of D; the header where no key has a line */
	files[0]->match.key_line[0] = 4; /* PCIAddress */
	files[0]->match.key_line[1] = 3; /* Name */
	files[3]->match.key_line[5] = 2; /* Host */
	assert_int_equal(desired_unselected(&set, &h, &diags, &unselected, &n), 0);
	assert_int_equal(n, 2);
	assert_ptr_equal(unselected[0], files[0]);
	assert_ptr_equal(unselected[1], files[3]);
	/* D is for the hosts named db-*: listed, but no warning on worker-7 */
	assert_int_equal(diags.n, 1);
	assert_int_equal(diags.items[0].level, DIAG_WARNING);
	assert_string_equal(diags.items[0].file, A);
	assert_int_equal(diags.items[0].line, 4);
	assert_string_equal(diags.items[0].msg, "[Match] PCIAddress=0000:99:00.0 Name=ens9 ens1f0 "
						"selects no PF on this host");
	free(unselected);
	diag_list_done(&diags);
	for (size_t i = 0; i < 4; i++)
		layout_file_free(files[i]);
}

/* The IPoIB name a LinkType=infiniband change gives a port the file
 * selects ("ib" and its PCI path name) selects it after the reboot: no
 * warning, whichever file sets LinkType=; without the change, or another
 * port's name, it is one. */
static void test_unmatched_globs_renamed(void **state)
{
	struct pf_state pf = pf_make("mlx5_core", 8, 0);
	struct host_state h = host;
	struct layout_file *files[] = { file_new(A, NULL), file_new(B, "0000:3b:00.0") };
	struct layout_set set = { .files = files, .n_files = 1 };
	struct diag_list diags = {};

	h.pfs = &pf;
	h.n_pfs = 1;
	assert_int_equal(strv_split("ens1f0 ibp59s0f0", &files[0]->match.name), 0);
	files[0]->match.key_line[1] = 2;
	assert_int_equal(desired_unmatched_globs(&set, &h, &diags), 0);
	assert_int_equal(diags.n, 1);
	assert_string_equal(diags.items[0].msg, "[Match] Name=ibp59s0f0 selects no PF on this host "
						"(the file's other Name= globs do)");
	diag_list_done(&diags);

	PF_SET(files[0], LINK_TYPE, link_type, LINK_TYPE_INFINIBAND, 4);
	assert_int_equal(desired_unmatched_globs(&set, &h, &diags), 0);
	assert_int_equal(diags.n, 0);
	pf_settings_unset(&files[0]->pf, PF_KEY_LINK_TYPE);
	PF_SET(files[1], LINK_TYPE, link_type, LINK_TYPE_INFINIBAND, 4);
	set.n_files = 2;
	assert_int_equal(desired_unmatched_globs(&set, &h, &diags), 0);
	assert_int_equal(diags.n, 0);

	strv_free(files[0]->match.name);
	assert_int_equal(strv_split("ens1f0 ibp59s0f1", &files[0]->match.name), 0);
	assert_int_equal(desired_unmatched_globs(&set, &h, &diags), 0);
	assert_int_equal(diags.n, 1);
	assert_string_equal(diags.items[0].msg, "[Match] Name=ibp59s0f1 selects no PF on this host "
						"(the file's other Name= globs do)");
	diag_list_done(&diags);
	for (size_t i = 0; i < 2; i++)
		layout_file_free(files[i]);
}

/* With a host, each Name= or PCIAddress= glob of a file that selects PFs,
 * which itself selects none; not for other keys, nor for a file that
 * selects nothing (its own warning says so). */
static void test_unmatched_globs(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct host_state h = host;
	struct layout_file *files[] = { file_new(A, NULL), file_new(B, "0000:3b:00.0 0000:3b:00.9"),
					file_new("/x/30-c.conf", NULL),
					file_new("/x/40-d.conf", NULL) };
	struct layout_set set = { .files = files, .n_files = 4 };
	struct diag_list diags = {};

	h.pfs = &pf;
	h.n_pfs = 1;
	assert_int_equal(strv_split("ens1f1, ens1f0", &files[0]->match.name), 0);
	files[0]->match.key_line[1] = 2;
	files[1]->match.key_line[0] = 3;
	assert_int_equal(strv_split("ens9 ens8", &files[2]->match.name), 0);
	assert_int_equal(strv_split("ice i40e", &files[3]->match.driver), 0);
	assert_int_equal(desired_unmatched_globs(&set, &h, &diags), 0);
	assert_int_equal(diags.n, 2);
	assert_int_equal(diags.items[0].level, DIAG_WARNING);
	assert_string_equal(diags.items[0].file, A);
	assert_int_equal(diags.items[0].line, 2);
	assert_string_equal(diags.items[0].msg, "[Match] Name=ens1f1, selects no PF on this host "
						"(the file's other Name= globs do)");
	assert_string_equal(diags.items[1].file, B);
	assert_int_equal(diags.items[1].line, 3);
	assert_string_equal(diags.items[1].msg,
			    "[Match] PCIAddress=0000:3b:00.9 selects no PF on this host (the "
			    "file's other PCIAddress= globs do)");
	diag_list_done(&diags);
	for (size_t i = 0; i < 4; i++)
		layout_file_free(files[i]);
}

static void test_qos_without_vlan(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct vf_settings *s;

	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 2, 2, 5);
	VF_SET(s, f, QOS, qos, 3, 6);
	VF_SET(s, f, VLAN, vlan, 0, 7);
	check_one("ice", 64, 0, f, "VF 2: QualityOfService=3 needs a VLANId= other than 0", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 2, 2, 5);
	VF_SET(s, f, QOS, qos, 3, 6);
	check_one("ice", 64, 0, f, "VF 2: QualityOfService=3 needs a VLANId= other than 0", 6);

	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 2, 2, 5);
	VF_SET(s, f, QOS, qos, 3, 6);
	VF_SET(s, f, VLAN, vlan, 100, 7);
	check_one("ice", 64, 0, f, NULL, 0);

	/* a VLANId= the parser rejected has its own error: no second one */
	f = file_new(A, "*");
	PF_SET(f, VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(f, 2, 2, 5);
	VF_SET(s, f, QOS, qos, 3, 6);
	s->rejected |= 1u << VF_KEY_VLAN;
	check_one("ice", 64, 0, f, NULL, 0);
}

static void test_switchdev(void **state)
{
	struct layout_file *f = file_new(A, "*");
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[1];
	struct run t;

	PF_SET(f, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV, 4);
	check_one("i40e", 64, 0, f, "ESwitchMode=switchdev: the i40e driver has no switchdev mode",
		  4);

	files[0] = file_new(A, "*");
	PF_SET(files[0], ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV, 4);
	pf.has_eswitch = false;
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 4, "ESwitchMode=switchdev: the PF (ice) has no devlink eswitch");
	run_done(&t, files, 1);

	f = file_new(A, "*");
	PF_SET(f, HW_TC_OFFLOAD, hw_tc_offload, true, 5);
	/* the PF and the mode it stays in are named */
	check_one("ice", 64, 0, f,
		  "HardwareTCOffload=yes: needs ESwitchMode=switchdev; 0000:3b:00.0 (ens1f0) is in "
		  "legacy mode and no file sets ESwitchMode=",
		  5);

	f = file_new(A, "*");
	PF_SET(f, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV, 4);
	PF_SET(f, HW_TC_OFFLOAD, hw_tc_offload, true, 5);
	check_one("mlx5_core", 8, 0, f, NULL, 0);

	/* a netdev that cannot change the feature: an error, unless it already
	 * has the value wanted */
	pf = pf_make("mlx5_core", 8, 0);
	pf.hw_tc_offload_fixed = true;
	for (int on = 0; on <= 1; on++) {
		files[0] = file_new(A, "*");
		PF_SET(files[0], ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV, 4);
		PF_SET(files[0], HW_TC_OFFLOAD, hw_tc_offload, true, 5);
		pf.hw_tc_offload = on;
		run_build(&t, &host, &pf, files, 1);
		if (on)
			expect_ok(&t);
		else
			expect_error(&t, A, 5,
				     "HardwareTCOffload=yes: ens1f0 cannot change hw-tc-offload "
				     "(ethtool -k shows it [fixed])");
		run_done(&t, files, 1);
	}
}

static void test_link_type(void **state)
{
	struct layout_file *f = file_new(A, "*");

	PF_SET(f, LINK_TYPE, link_type, LINK_TYPE_INFINIBAND, 4);
	check_one("ice", 64, 0, f,
		  "LinkType=infiniband: the ice driver cannot change the link type", 4);

	f = file_new(A, "*");
	PF_SET(f, LINK_TYPE, link_type, LINK_TYPE_ETHERNET, 4);
	check_one("ice", 64, 0, f, NULL, 0);

	f = file_new(A, "*");
	PF_SET(f, LINK_TYPE, link_type, LINK_TYPE_INFINIBAND, 4);
	check_one("mlx5_core", 8, 0, f, NULL, 0);
}

/* A ConnectX whose firmware has no LINK_TYPE_P<n> (ConnectX-6 Dx), or whose
 * firmware could not be read: only the link type it has. */
static void test_link_type_fixed_port(void **state)
{
	struct pf_state pf = pf_make("mlx5_core", 8, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct run t;

	pf.has_firmware_link_type = false;
	PF_SET(files[0], LINK_TYPE, link_type, LINK_TYPE_ETHERNET, 4);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	PF_SET(files[0], LINK_TYPE, link_type, LINK_TYPE_INFINIBAND, 4);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 4,
		     "LinkType=infiniband: the port is ethernet only (its firmware has no link "
		     "type setting)");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	pf.firmware_error = (char *)"mstconfig not found (package mstflint)";
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 4,
		     "LinkType=infiniband: the firmware link type cannot be read: mstconfig not "
		     "found (package mstflint)");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	pf.firmware_total_vfs = -1;
	PF_SET(files[0], LINK_TYPE, link_type, LINK_TYPE_ETHERNET, 4);
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 16, 3);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 3,
		     "VirtualFunctions=16: the PF supports at most 8 VFs (sriov_totalvfs), and its "
		     "firmware VF limit cannot be read: mstconfig not found (package mstflint)");
	run_done(&t, files, 1);
}

/* IBNodeGUID= and IBPortGUID=: stable ones derived from the machine ID and
 * the PCI address (an IPoIB PF has no 6-byte permanent address), only on an
 * InfiniBand port of mlx5, where the other attributes are IPoIB's few. */
static void test_ib_guids(void **state)
{
	struct pf_state pf = pf_make("mlx5_core", 8, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct vf_settings *s, *all;
	uint64_t node, port;
	struct run t;

	pf.link_type = pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	pf.permanent_mac = (struct mac_addr){};
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	all = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	vf_set_guid(all, files[0], VF_KEY_IB_NODE_GUID, NULL, 6);
	vf_set_guid(all, files[0], VF_KEY_IB_PORT_GUID, NULL, 7);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(guid_stable(host.machine_id, pf.pci, false, i, &node), 0);
		assert_int_equal(guid_stable(host.machine_id, pf.pci, true, i, &port), 0);
		assert_true(node != port);
		assert_false(vf_settings_is_stable(&t.d->vfs[i], VF_KEY_IB_NODE_GUID));
		assert_true(t.d->vfs[i].attrs.ib_node_guid == node);
		assert_true(t.d->vfs[i].attrs.ib_port_guid == port);
	}
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	/* a literal equal to another VF's stable GUID: reported at the literal */
	assert_int_equal(guid_stable(host.machine_id, pf.pci, true, 2, &port), 0);
	s = section(files[0], 0, 0, 9);
	{
		char buf[GUID_STR_MAX], *msg;

		vf_set_guid(s, files[0], VF_KEY_IB_PORT_GUID, guid_format(port, buf), 10);
		run_build(&t, &host, &pf, files, 1);
		msg = strdup_printf("IBPortGUID=%s: VF 0 and VF 2 would have the same GUID "
				    "(VF 2's at line 7)",
				    buf);
		expect_error(&t, A, 10, msg);
		free(msg);
	}
	pf_desired_free(t.d);
	diag_list_done(&t.diags);
	vf_settings_unset(s, VF_KEY_IB_PORT_GUID);

	/* IPoIB sets no MAC on VFs */
	vf_set_mac(s, files[0], "02:00:00:00:00:01", 10);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 10,
		     "MACAddress=02:00:00:00:00:01: the mlx5_core driver cannot set this on VFs of "
		     "an InfiniBand port");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);
	vf_settings_unset(s, VF_KEY_MAC);

	/* on an Ethernet port, unless the layout makes it InfiniBand */
	all = &files[0]->vf_sections[0].settings; /* section() moved it */
	vf_settings_unset(all, VF_KEY_IB_PORT_GUID);
	pf.link_type = pf.firmware_link_type = LINK_TYPE_ETHERNET;
	pf.permanent_mac = (struct mac_addr){ { 0xb8, 0xce, 0xf6, 0x1d, 0x52, 0x30 } };
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 6,
		     "IBNodeGUID=stable: the port is ethernet; GUIDs are set on InfiniBand ports "
		     "(LinkType=infiniband)");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);
	PF_SET(files[0], LINK_TYPE, link_type, LINK_TYPE_INFINIBAND, 4);
	run_build(&t, &host, &pf, files, 1);
	expect_ok(&t);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	/* no other driver has GUIDs */
	pf = pf_make("ice", 64, 0);
	pf_settings_unset(&files[0]->pf, PF_KEY_LINK_TYPE);
	run_build(&t, &host, &pf, files, 1);
	expect_error(&t, A, 6, "IBNodeGUID=stable: the ice driver cannot set this on VFs");
	run_done(&t, files, 1);
}

/* Several errors against the hardware: the first is the reason, with how
 * many more there are (as for a file's own errors). */
static void test_more_errors_counted(void **state)
{
	struct pf_state pf = pf_make("i40e", 64, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct vf_settings *s;
	struct run t;

	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, files[0], QUERY_RSS, query_rss, true, 6);
	VF_SET(s, files[0], MIN_TX_RATE, min_tx_rate, 10, 7);
	VF_SET(s, files[0], RDMA, rdma, true, 8);
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 2, 3);
	run_build(&t, &host, &pf, files, 1);
	assert_int_equal(t.diags.n, 3);
	assert_string_equal(
		t.d->held_reason,
		"/etc/sriov-persist/conf.d/10-a.conf:6: QueryReceiveSideScaling=yes: the "
		"i40e driver cannot set this on VFs (and 2 more errors)");
	run_done(&t, files, 1);
}

/* MinTxRateMbps from one file, MaxTxRateMbps from another: checked after
 * merging, reported at the maximum. */
static void test_rates_after_merge(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "*"), file_new(B, "*") };
	struct vf_settings *s;
	struct run t;

	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	VF_SET(s, files[0], MIN_TX_RATE, min_tx_rate, 200, 6);
	s = section(files[1], 2, 3, 7);
	VF_SET(s, files[1], MAX_TX_RATE, max_tx_rate, 100, 8);
	run_build(&t, &host, &pf, files, 2);
	expect_error(&t, B, 8, "MaxTxRateMbps=100: below MinTxRateMbps=200 (" A ":6)");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);

	/* 0 = unlimited */
	files[1]->vf_sections[0].settings.attrs.max_tx_rate = 0;
	run_build(&t, &host, &pf, files, 2);
	expect_ok(&t);
	run_done(&t, files, 2);
}

/* One file with [VirtualFunction] key k=rate at line 6 on a PF of driver
 * at speed Mb/s (0: link down). */
static void check_rate(const char *driver, uint32_t speed, enum vf_key k, uint32_t rate,
		       const char *msg)
{
	struct pf_state pf = pf_make(driver, 64, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct vf_settings *s;
	struct run t;

	pf.speed = speed;
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(files[0], VF_INDEX_ALL, VF_INDEX_ALL, 5);
	if (k == VF_KEY_MIN_TX_RATE)
		VF_SET(s, files[0], MIN_TX_RATE, min_tx_rate, rate, 6);
	else
		VF_SET(s, files[0], MAX_TX_RATE, max_tx_rate, rate, 6);
	run_build(&t, &host, &pf, files, 1);
	if (msg)
		expect_error(&t, A, 6, msg);
	else
		expect_ok(&t);
	run_done(&t, files, 1);
}

static void test_rates_above_link_speed(void **state)
{
	check_rate("igb", 1000, VF_KEY_MAX_TX_RATE, 20000,
		   "MaxTxRateMbps=20000: the igb driver refuses a VF rate above the link speed of "
		   "0000:3b:00.0 (ens1f0), 1000 Mb/s");
	check_rate("igb", 1000, VF_KEY_MAX_TX_RATE, 1000, NULL);
	check_rate("i40e", 10000, VF_KEY_MAX_TX_RATE, 25000,
		   "MaxTxRateMbps=25000: the i40e driver refuses a VF rate above the link speed of "
		   "0000:3b:00.0 (ens1f0), 10000 Mb/s");
	check_rate(
		"bnxt_en", 25000, VF_KEY_MIN_TX_RATE, 40000,
		"MinTxRateMbps=40000: the bnxt_en driver refuses a VF rate above the link speed of "
		"0000:3b:00.0 (ens1f0), 25000 Mb/s");
	/* link down: the speed is unknown, nothing new is said */
	check_rate("igb", 0, VF_KEY_MAX_TX_RATE, 20000, NULL);
	/* mlx5 and ice compare no VF's maximum with the link speed */
	check_rate("mlx5_core", 25000, VF_KEY_MAX_TX_RATE, 100000, NULL);
	check_rate("ice", 25000, VF_KEY_MAX_TX_RATE, 100000, NULL);
	/* ice: the four VFs' minimums together, 4 x 8000 > 25000 */
	check_rate("ice", 25000, VF_KEY_MIN_TX_RATE, 6000, NULL);
	check_rate("ice", 25000, VF_KEY_MIN_TX_RATE, 8000,
		   "MinTxRateMbps=8000: the VFs' minimum rates would add up to 32000 Mb/s, above "
		   "the PF's link speed, 25000 Mb/s, which the ice driver refuses");
	check_rate("ice", 0, VF_KEY_MIN_TX_RATE, 8000, NULL);
}

/* A VF's MinTxRateMbps= above its MaxTxRateMbps= and the minimums adding
 * up beyond the link speed, both at one MinTxRateMbps= line: two things to
 * fix, both said at once. */
static void test_rates_min_above_max_and_sum(void **state)
{
	struct pf_state pf = pf_make("ice", 64, 0);
	struct layout_file *files[] = { file_new(A, "*") };
	struct vf_settings *s;
	struct run t;

	pf.speed = 25000;
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	s = section(files[0], 0, 3, 5);
	VF_SET(s, files[0], MIN_TX_RATE, min_tx_rate, 10000, 6);
	s = section(files[0], 1, 1, 7);
	VF_SET(s, files[0], MAX_TX_RATE, max_tx_rate, 5000, 8);
	run_build(&t, &host, &pf, files, 1);
	assert_int_equal(t.diags.n, 2);
	assert_string_equal(t.diags.items[0].msg,
			    "MinTxRateMbps=10000: must not exceed MaxTxRateMbps=5000 (line 8)");
	assert_int_equal(t.diags.items[1].line, 6);
	assert_string_equal(t.diags.items[1].msg,
			    "MinTxRateMbps=10000: the VFs' minimum rates would add up to 40000 "
			    "Mb/s, above the PF's link speed, 25000 Mb/s, which the ice driver "
			    "refuses");
	assert_true(t.d->held);
	assert_string_equal(t.d->held_reason,
			    A ":6: MinTxRateMbps=10000: must not exceed MaxTxRateMbps=5000 (line "
			      "8) (and 1 more error)");
	run_done(&t, files, 1);
}

/* NUM_OF_VFS is one setting of the card: FirmwareVirtualFunctions=no in
 * the layouts of one port forbids raising it for the other; the raise that
 * another port needs holds that port, naming the "no" and its port. */
static void test_firmware_vfs_no_on_other_port(void **state)
{
	struct layout_file *files[] = { file_new(A, "0000:ca:00.0"), file_new(B, "0000:ca:00.1") };
	struct pf_state pfs[] = { pf_make("mlx5_core", 8, 0), pf_make("mlx5_core", 8, 0) };
	struct host_state two = host;
	struct run t;

	strcpy(pfs[0].pci, "0000:ca:00.0");
	strcpy(pfs[1].pci, "0000:ca:00.1");
	two.pfs = pfs;
	two.n_pfs = 2;
	PF_SET(files[0], VIRTUAL_FUNCTIONS, num_vfs, 4, 3);
	PF_SET(files[0], FIRMWARE_VFS, firmware_vfs, FIRMWARE_VFS_NO, 4);
	PF_SET(files[1], VIRTUAL_FUNCTIONS, num_vfs, 20, 3);
	run_build(&t, &two, &pfs[1], files, 2);
	expect_error(&t, B, 3,
		     "VirtualFunctions=20: the PF supports at most 8 VFs (sriov_totalvfs), and the "
		     "firmware limit, one setting of this card, may not be raised: "
		     "FirmwareVirtualFunctions=no (" A ":4) for its port 0000:ca:00.0");
	pf_desired_free(t.d);
	diag_list_done(&t.diags);
	/* the port that says no is not held by the other's wish */
	run_build(&t, &two, &pfs[0], files, 2);
	expect_ok(&t);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);
	/* raised already (nothing is written): no conflict */
	pfs[0].firmware_total_vfs = pfs[1].firmware_total_vfs = 20;
	run_build(&t, &two, &pfs[1], files, 2);
	expect_ok(&t);
	pf_desired_free(t.d);
	diag_list_done(&t.diags);
	/* another card's "no" says nothing of this one */
	pfs[0].firmware_total_vfs = pfs[1].firmware_total_vfs = 8;
	strcpy(pfs[0].pci, "0000:cb:00.0");
	free(files[0]->match.pci_address[0]);
	files[0]->match.pci_address[0] = strdup("0000:cb:00.0");
	run_build(&t, &two, &pfs[1], files, 2);
	expect_ok(&t);
	run_done(&t, files, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unconfigured_pf),
		cmocka_unit_test(test_config_files_in_order),
		cmocka_unit_test(test_file_with_errors_holds),
		cmocka_unit_test(test_file_with_errors_not_selecting),
		cmocka_unit_test(test_merge_files_and_sections),
		cmocka_unit_test(test_num_vfs_resolution),
		cmocka_unit_test(test_externally_managed),
		cmocka_unit_test(test_stable_mac),
		cmocka_unit_test(test_too_many_vfs),
		cmocka_unit_test(test_firmware_vfs),
		cmocka_unit_test(test_section_beyond),
		cmocka_unit_test(test_section_beyond_unset),
		cmocka_unit_test(test_duplicate_macs),
		cmocka_unit_test(test_mtu_range),
		cmocka_unit_test(test_vfio_no_netdev),
		cmocka_unit_test(test_rdma_unsupported),
		cmocka_unit_test(test_unimplemented_attrs),
		cmocka_unit_test(test_vlan_8021ad),
		cmocka_unit_test(test_two_pfs_one_text),
		cmocka_unit_test(test_unselected),
		cmocka_unit_test(test_qos_without_vlan),
		cmocka_unit_test(test_switchdev),
		cmocka_unit_test(test_stable_mac_waits_for_ethernet),
		cmocka_unit_test(test_link_type),
		cmocka_unit_test(test_link_type_fixed_port),
		cmocka_unit_test(test_ib_guids),
		cmocka_unit_test(test_duplicate_macs_host),
		cmocka_unit_test(test_unmatched_globs),
		cmocka_unit_test(test_unmatched_globs_renamed),
		cmocka_unit_test(test_more_errors_counted),
		cmocka_unit_test(test_rates_after_merge),
		cmocka_unit_test(test_rates_above_link_speed),
		cmocka_unit_test(test_rates_min_above_max_and_sum),
		cmocka_unit_test(test_firmware_vfs_no_on_other_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
