/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "desired.h"
#include "match.h"

static char *altnames[] = { "enp59s0f0np0", "e810-left", NULL };

static const struct pf_state pf = {
	.pci = "0000:3b:00.0",
	.name = "ens1f0",
	.altnames = altnames,
	.vendor = 0x8086,
	.device = 0x159b,
	.driver = "ice",
};

/* A glob list from space-separated words; NULL stays NULL (unset). */
static char **globs(const char *words)
{
	char **l = NULL;

	if (words)
		assert_int_equal(strv_split(words, &l), 0);
	return l;
}

struct m {
	const char *pci, *name, *vendor, *device, *driver, *host;
};

static bool match(const struct m *w, const struct pf_state *p, const char *hostname)
{
	struct layout_match m = {
		.pci_address = globs(w->pci),
		.name = globs(w->name),
		.vendor = globs(w->vendor),
		.device = globs(w->device),
		.driver = globs(w->driver),
		.host = globs(w->host),
		.line = 1,
	};
	bool r = layout_match_pf(&m, p, hostname);

	strv_free(m.pci_address);
	strv_free(m.name);
	strv_free(m.vendor);
	strv_free(m.device);
	strv_free(m.driver);
	strv_free(m.host);
	return r;
}

static void test_empty_match_selects_all(void **state)
{
	assert_true(match(&(struct m){}, &pf, "worker-7"));
	assert_true(match(&(struct m){}, &pf, NULL));
}

static void test_pci_address(void **state)
{
	assert_true(match(&(struct m){ .pci = "0000:3b:00.*" }, &pf, NULL));
	assert_true(match(&(struct m){ .pci = "0000:3B:00.0" }, &pf, NULL)); /* case-insensitive */
	assert_true(match(&(struct m){ .pci = "0000:af:00.0 0000:3b:00.[0-1]" }, &pf, NULL));
	assert_false(match(&(struct m){ .pci = "0000:3b:00.1" }, &pf, NULL));
	assert_false(match(&(struct m){ .pci = "0000:3b:00" }, &pf, NULL)); /* whole string */
}

static void test_name_and_altnames(void **state)
{
	struct pf_state noname = pf;

	assert_true(match(&(struct m){ .name = "ens1f0" }, &pf, NULL));
	assert_true(match(&(struct m){ .name = "ens2f* ens1f?" }, &pf, NULL));
	assert_true(match(&(struct m){ .name = "enp59s0f0np0" }, &pf, NULL));
	assert_true(match(&(struct m){ .name = "e810-*" }, &pf, NULL));
	assert_false(match(&(struct m){ .name = "ENS1F0" }, &pf, NULL)); /* names are exact */
	assert_false(match(&(struct m){ .name = "ens1f1" }, &pf, NULL));

	/* no netdev: only altnames can match, and without them nothing */
	noname.name = NULL;
	assert_true(match(&(struct m){ .name = "e810-left" }, &noname, NULL));
	noname.altnames = NULL;
	assert_false(match(&(struct m){ .name = "*" }, &noname, NULL));
}

static void test_vendor_device(void **state)
{
	assert_true(match(&(struct m){ .vendor = "0x8086", .device = "0x159b" }, &pf, NULL));
	assert_true(match(&(struct m){ .vendor = "0X8086", .device = "0x159B" }, &pf, NULL));
	assert_true(match(&(struct m){ .device = "0x15*" }, &pf, NULL));
	assert_true(match(&(struct m){ .vendor = "0x15b3 0x8086" }, &pf, NULL));
	assert_false(match(&(struct m){ .vendor = "0x15b3" }, &pf, NULL));
	assert_false(match(&(struct m){ .vendor = "8086" }, &pf, NULL)); /* "0x%04x" form */
	assert_false(match(&(struct m){ .vendor = "0x8086", .device = "0x1593" }, &pf, NULL));
}

static void test_vendor_zero_padded(void **state)
{
	struct pf_state p = pf;

	p.vendor = 0x0abc;
	assert_true(match(&(struct m){ .vendor = "0x0abc" }, &p, NULL));
	assert_false(match(&(struct m){ .vendor = "0xabc" }, &p, NULL));
}

static void test_driver(void **state)
{
	struct pf_state unbound = pf;

	assert_true(match(&(struct m){ .driver = "ice" }, &pf, NULL));
	assert_true(match(&(struct m){ .driver = "i40e ice" }, &pf, NULL));
	assert_false(match(&(struct m){ .driver = "mlx5_core" }, &pf, NULL));
	unbound.driver = NULL;
	assert_false(match(&(struct m){ .driver = "*" }, &unbound, NULL));
	assert_true(match(&(struct m){ .name = "ens1f0" }, &unbound, NULL));
}

static void test_host(void **state)
{
	assert_true(match(&(struct m){ .host = "worker-*" }, &pf, "worker-7"));
	assert_false(match(&(struct m){ .host = "worker-*" }, &pf, "master-1"));
	assert_false(match(&(struct m){ .host = "*" }, &pf, NULL));
	/* DNS names have no case; a short name matches the FQDN */
	assert_true(match(&(struct m){ .host = "Worker-7" }, &pf, "worker-7"));
	assert_true(match(&(struct m){ .host = "worker-7" }, &pf, "WORKER-7.dc1.example.net"));
	assert_true(match(&(struct m){ .host = "worker-*" }, &pf, "worker-7.dc1.example.net"));
	assert_true(
		match(&(struct m){ .host = "*.dc1.example.net" }, &pf, "worker-7.dc1.example.net"));
	assert_false(match(&(struct m){ .host = "worker-7" }, &pf, "worker-70.dc1.example.net"));
	assert_false(match(&(struct m){ .host = "dc1" }, &pf, "worker-7.dc1.example.net"));
	assert_false(match(&(struct m){ .host = "worker-7.dc2.example.net" }, &pf,
			   "worker-7.dc1.example.net"));
}

static void test_every_key_must_match(void **state)
{
	struct m all = {
		.pci = "0000:3b:*",
		.name = "ens1f0",
		.vendor = "0x8086",
		.device = "0x159b",
		.driver = "ice",
		.host = "worker-*",
	};
	struct m one_off = all;

	assert_true(match(&all, &pf, "worker-7"));
	one_off.driver = "i40e";
	assert_false(match(&one_off, &pf, "worker-7"));
	one_off = all;
	one_off.host = "db-*";
	assert_false(match(&one_off, &pf, "worker-7"));
	one_off = all;
	one_off.pci = "0000:af:*";
	assert_false(match(&one_off, &pf, "worker-7"));
}

/* Before the rename and while the driver probes: Name= is left out, and
 * Driver= too while no driver is bound; every other key still counts. */
static void test_may_select(void **state)
{
	struct layout_file f = {
		.path = (char *)"50.conf",
		.match = { .name = globs("ens*"),
			   .driver = globs("ice"),
			   .device = globs("0x159b") },
	};
	struct layout_file *files[] = { &f };
	struct layout_set set = { .files = files, .n_files = 1 };
	struct pf_state early = pf, other = pf;

	early.name = (char *)"eth0";
	early.altnames = NULL;
	assert_true(layout_set_may_select(&set, &early, "worker-7"));
	early.driver = NULL;
	assert_true(layout_set_may_select(&set, &early, "worker-7"));
	early.driver = (char *)"i40e";
	assert_false(layout_set_may_select(&set, &early, "worker-7"));
	other.driver = NULL;
	other.device = 0x1572;
	assert_false(layout_set_may_select(&set, &other, "worker-7"));
	set.n_files = 0;
	assert_false(layout_set_may_select(&set, &pf, "worker-7"));
	strv_free(f.match.name);
	strv_free(f.match.driver);
	strv_free(f.match.device);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_match_selects_all),
		cmocka_unit_test(test_pci_address),
		cmocka_unit_test(test_name_and_altnames),
		cmocka_unit_test(test_vendor_device),
		cmocka_unit_test(test_vendor_zero_padded),
		cmocka_unit_test(test_driver),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_every_key_must_match),
		cmocka_unit_test(test_may_select),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
