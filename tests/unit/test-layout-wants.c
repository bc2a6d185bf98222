/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the layouts say of a PF, for comparing (a reload's, the status
 * record's), and its signature. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "layout-wants.h"
#include "pf-keys.h"

static char *no_modules[] = { NULL };

static struct host_state host = {
	.hostname = "worker-7",
	.iommu = true,
	.modules = no_modules,
};

static struct pf_state pf_make(void)
{
	return (struct pf_state){
		.pci = "0000:3b:00.0",
		.name = "ens1f0",
		.vendor = 0x8086,
		.device = 0x159b,
		.driver = (char *)"ice",
		.total_vfs = 64,
		.num_vfs = 4,
		.mtu = 1500,
		.has_eswitch = true,
		.firmware_total_vfs = -1,
		.numa_node = -1,
	};
}

/* A layout file at path selecting every PF: VirtualFunctions=4 at line 3,
 * [VirtualFunction] VLANId=vlan at line vlan_line. */
static struct layout_file *file_new(const char *path, uint32_t vlan, unsigned vlan_line)
{
	struct layout_file *f = calloc(1, sizeof(*f));
	struct vf_section *s;

	assert_non_null(f);
	f->path = strdup(path);
	assert_non_null(f->path);
	f->match.line = 1;
	assert_int_equal(strv_split("*", &f->match.pci_address), 0);
	f->pf.num_vfs = 4;
	f->pf.set |= 1u << PF_KEY_VIRTUAL_FUNCTIONS;
	f->pf.src[PF_KEY_VIRTUAL_FUNCTIONS] = (struct src){ f->path, 3 };
	s = f->vf_sections = calloc(1, sizeof(*s));
	assert_non_null(s);
	f->n_vf_sections = 1;
	*s = (struct vf_section){ .first = VF_INDEX_ALL,
				  .last = VF_INDEX_ALL,
				  .line = vlan_line - 1 };
	s->settings.attrs.vlan = vlan;
	s->settings.set |= 1u << VF_KEY_VLAN;
	s->settings.src[VF_KEY_VLAN] = (struct src){ f->path, vlan_line };
	return f;
}

static char *signature_of(struct layout_file *f, char **ret_wants)
{
	struct layout_set set = { .files = &f, .n_files = f ? 1 : 0 };
	struct pf_state pf = pf_make();
	char *wants = layout_wants(&set, &host, &pf);
	char *sig;

	assert_non_null(wants);
	sig = layout_wants_signature(wants);
	assert_non_null(sig);
	if (ret_wants)
		*ret_wants = wants;
	else
		free(wants);
	return sig;
}

static void test_signature(void **state)
{
	_cleanup_free_ char *empty = layout_wants_signature("");
	_cleanup_free_ char *a = layout_wants_signature("a");

	/* 64-bit FNV-1a: stable from one version to the next */
	assert_string_equal(empty, "cbf29ce484222325");
	assert_string_equal(a, "af63dc4c8601ec8c");
}

static void test_wants(void **state)
{
	struct layout_file *f10 = file_new("/etc/sriov-persist/conf.d/50-a.conf", 10, 7);
	struct layout_file *f10_lower = file_new("/etc/sriov-persist/conf.d/50-a.conf", 10, 9);
	struct layout_file *f10_other = file_new("/etc/sriov-persist/conf.d/60-b.conf", 10, 7);
	struct layout_file *f55 = file_new("/etc/sriov-persist/conf.d/50-a.conf", 55, 7);
	char *wants = NULL, *none_wants = NULL;
	char *s10 = signature_of(f10, &wants);
	char *s10_lower = signature_of(f10_lower, NULL);
	char *s10_other = signature_of(f10_other, NULL);
	char *s55 = signature_of(f55, NULL);
	char *none = signature_of(NULL, &none_wants);

	assert_string_equal(wants, "0 0 0|50-a.conf\n"
				   " VirtualFunctions=4\n"
				   " [VirtualFunction]\n"
				   "  VLANId=10\n");
	assert_string_equal(none_wants, "none");
	assert_int_equal(strlen(s10), 16);
	/* the same file and values, a comment above them: the same */
	assert_string_equal(s10, s10_lower);
	/* another file, another VLAN, no layout at all: different */
	assert_string_not_equal(s10, s10_other);
	assert_string_not_equal(s10, s55);
	assert_string_not_equal(s10, none);
	free(wants);
	free(none_wants);
	free(s10);
	free(s10_lower);
	free(s10_other);
	free(s55);
	free(none);
	layout_file_free(f10);
	layout_file_free(f10_lower);
	layout_file_free(f10_other);
	layout_file_free(f55);
}

/* What the host has never enters: a layout that leaves VirtualFunctions=
 * to the host says the same of a PF whatever its VF count (VFs added by
 * hand are drift, not a change of the layouts), and so whatever the VFs
 * have; what selects the PF does. */
static void test_wants_not_the_host(void **state)
{
	struct layout_file *f = file_new("/etc/sriov-persist/conf.d/50-a.conf", 10, 7);
	struct layout_set set = { .files = &f, .n_files = 1 };
	struct pf_state pf = pf_make(), more = pf_make(), other = pf_make();
	struct vf_state vfs[8] = {};
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL, *errors = NULL;

	f->pf.set &= ~(1u << PF_KEY_VIRTUAL_FUNCTIONS);
	more.num_vfs = more.n_vfs = 8;
	more.vfs = vfs;
	for (size_t i = 0; i < ELEMENTSOF(vfs); i++)
		vfs[i].attrs.vlan = 55;
	a = layout_wants(&set, &host, &pf);
	b = layout_wants(&set, &host, &more);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	assert_null(strstr(a, "VirtualFunctions="));
	/* a [Match] that does not select the PF: nothing */
	strv_free(f->match.pci_address);
	assert_int_equal(strv_split("0000:5e:*", &f->match.pci_address), 0);
	c = layout_wants(&set, &host, &other);
	assert_string_equal(c, "none");
	/* a file with errors that selects it (and holds it) */
	strv_free(f->match.pci_address);
	assert_int_equal(strv_split("*", &f->match.pci_address), 0);
	f->has_error = true;
	errors = layout_wants(&set, &host, &pf);
	assert_non_null(strstr(errors, "50-a.conf (with errors)\n"));
	layout_file_free(f);
}

/* layouts_differ() is layout_wants() of each set compared;
 * layout_set_selects() whether it is not "none", whether a file selects it
 * (layout_file_selects()). */
static void test_differ(void **state)
{
	struct layout_file *a = file_new("/etc/sriov-persist/conf.d/50-a.conf", 10, 7);
	struct layout_file *a_lower = file_new("/etc/sriov-persist/conf.d/50-a.conf", 10, 9);
	struct layout_file *b = file_new("/etc/sriov-persist/conf.d/50-a.conf", 55, 7);
	struct layout_set set_a = { .files = &a, .n_files = 1 };
	struct layout_set set_a_lower = { .files = &a_lower, .n_files = 1 };
	struct layout_set set_b = { .files = &b, .n_files = 1 };
	struct layout_set empty = {}, rdma = { .rdma_netns = true };
	struct pf_state pf = pf_make(), other = pf_make();

	strcpy(other.pci, "0000:5e:00.0");
	assert_true(layout_set_selects(&set_a, &host, &pf));
	assert_false(layout_set_selects(&empty, &host, &pf));
	/* the same values, a comment above them: the same */
	assert_int_equal(layouts_differ(&set_a, &set_a_lower, &host, &pf), 0);
	assert_int_equal(layouts_differ(&set_a, &set_b, &host, &pf), 1);
	assert_int_equal(layouts_differ(&empty, &set_a, &host, &pf), 1);
	assert_int_equal(layouts_differ(&set_a, &empty, &host, &pf), 1);
	/* no file selects it before or after: "none" both, whatever the main
	 * configuration says */
	assert_int_equal(layouts_differ(&empty, &rdma, &host, &pf), 0);
	/* a [Match] that does not select the PF */
	strv_free(b->match.pci_address);
	b->match.pci_address = NULL;
	assert_int_equal(strv_split("0000:5e:*", &b->match.pci_address), 0);
	assert_false(layout_set_selects(&set_b, &host, &pf));
	assert_true(layout_set_selects(&set_b, &host, &other));
	assert_int_equal(layouts_differ(&empty, &set_b, &host, &pf), 0);
	assert_int_equal(layouts_differ(&empty, &set_b, &host, &other), 1);
	/* a masked file selects nothing */
	a->masked = true;
	assert_false(layout_set_selects(&set_a, &host, &pf));
	assert_false(layout_file_selects(a, &host, &pf));
	assert_int_equal(layouts_differ(&set_a, &empty, &host, &pf), 0);
	/* layout_file_selects(), which reset's refusal asks too: no file, none;
	 * a file with errors whose [Match] selects it, yes (it holds it) */
	assert_false(layout_file_selects(NULL, &host, &pf));
	b->has_error = true;
	assert_true(layout_file_selects(b, &host, &other));
	assert_false(layout_file_selects(b, &host, &pf));
	layout_file_free(a);
	layout_file_free(a_lower);
	layout_file_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_wants),
		cmocka_unit_test(test_wants_not_the_host),
		cmocka_unit_test(test_differ),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
