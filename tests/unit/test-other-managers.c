/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "other-managers.h"

#define NM_ETC "/etc/NetworkManager/system-connections"
#define NM_RUN "/run/NetworkManager/system-connections"
#define LINK_ETC "/etc/systemd/network"
#define LINK_USR "/usr/lib/systemd/network"

static char root[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	strcpy(root, "/tmp/test-other-managers-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void mkdirs(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s", root, dir);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			(void)mkdir(path, 0755);
			*p = '/';
		}
	(void)mkdir(path, 0755);
}

/* dir/name under the root, made with mode */
static void put(const char *dir, const char *name, mode_t mode, const char *text)
{
	char path[256];
	FILE *f;

	mkdirs(dir);
	snprintf(path, sizeof(path), "%s%s/%s", root, dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void put_link(const char *dir, const char *name, const char *target)
{
	char path[256];

	mkdirs(dir);
	snprintf(path, sizeof(path), "%s%s/%s", root, dir, name);
	assert_int_equal(symlink(target, path), 0);
}

static struct pf_identity pf0(void)
{
	struct pf_identity id = {
		.name = "ens1f0",
		.has_permanent_mac = true,
		.permanent_mac = { { 0xaa, 0xbb, 0xcc, 0x00, 0x00, 0x01 } },
		.pci = "0000:3b:00.0",
		.driver = "ice",
		.id_path = "pci-0000:3b:00.0",
		.iftype = "ether",
	};
	return id;
}

static struct pf_identity pf1(void)
{
	struct pf_identity id = pf0();

	id.name = "ens1f1";
	id.permanent_mac.b[5] = 0x02;
	id.pci = "0000:3b:00.1";
	id.id_path = "pci-0000:3b:00.1";
	return id;
}

/* The findings under root for id. */
static void find(const struct pf_identity *id, struct other_findings *out)
{
	_cleanup_other_configs_ struct other_configs *c = NULL;

	*out = (struct other_findings){};
	assert_int_equal(other_configs_load(root, &c), 0);
	assert_int_equal(other_configs_match(c, id, out), 0);
}

/* path as other_configs_load() names it: under the root */
static const char *under(const char *path)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s%s", root, path);
	return buf;
}

/* f, named path exactly */
static void assert_finding_path(const struct other_finding *f, enum other_manager m,
				enum other_certainty c, const char *path, unsigned line,
				const char *setting, const char *how)
{
	assert_int_equal(f->manager, m);
	assert_string_equal(f->path, path);
	assert_int_equal(f->line, line);
	assert_string_equal(f->setting, setting);
	if (how)
		assert_non_null(strstr(f->how, how));
	assert_int_equal(f->certainty, c);
}

/* f, of a file other_configs_load() read: path under the root */
#define assert_finding(f, m, c, path, ...) assert_finding_path(f, m, c, under(path), __VA_ARGS__)

#define NM_PROFILE(match) "[connection]\nid=x\ntype=ethernet\n" match "\n[sriov]\ntotal-vfs=4\n"

static void test_nm_interface_name(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;
	_cleanup_free_ char *text = NULL;

	put(NM_ETC, "a.nmconnection", 0600, NM_PROFILE("interface-name=ens1f0"));
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MATCHES,
		       NM_ETC "/a.nmconnection", 6, "sriov.total-vfs=4",
		       "connection.interface-name=ens1f0");
	text = other_finding_format(&f.items[0]);
	assert_string_equal(text,
			    under(NM_ETC "/a.nmconnection:6: sriov.total-vfs=4 (NetworkManager, "
					 "matches: connection.interface-name=ens1f0)"));
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
}

static void test_nm_mac_run(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;

	put(NM_RUN, "m.nmconnection", 0600,
	    "[connection]\nid=m\ntype=ethernet\n[ethernet]\nmac-address=AA:BB:CC:00:00:02\n"
	    "[sriov]\ntotal-vfs=2\n");
	/* /run needs the suffix, /etc does not */
	put(NM_RUN, "m.conf", 0600, NM_PROFILE(""));
	find(&a, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MATCHES,
		       NM_RUN "/m.nmconnection", 7, "sriov.total-vfs=2",
		       "ethernet.mac-address=AA:BB:CC:00:00:02");
	other_findings_done(&f);
}

static void test_nm_no_sriov_refused_legacy(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;

	put(NM_ETC, "plain.nmconnection", 0600,
	    "[connection]\nid=p\ntype=ethernet\ninterface-name=ens1f0\n[ipv4]\nmethod=auto\n");
	/* NetworkManager loads no keyfile that others may read */
	put(NM_ETC, "open.nmconnection", 0644, NM_PROFILE("interface-name=ens1f0"));
	put(NM_ETC, "backup~", 0600, NM_PROFILE("interface-name=ens1f0"));
	put(NM_ETC, ".hidden", 0600, NM_PROFILE("interface-name=ens1f0"));
	find(&a, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
	/* a legacy name in /etc is read */
	put(NM_ETC, "Wired connection 1", 0600,
	    "[connection]\nid=w\ntype=ethernet\n[ethernet]\nmac-address=170;187;204;0;0;1;\n"
	    "[sriov]\nautoprobe-drivers=0\n");
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MATCHES,
		       NM_ETC "/Wired connection 1", 6,
		       "[sriov] without total-vfs (NetworkManager keeps 0 VFs while the profile "
		       "is active)",
		       "ethernet.mac-address=170;187;204;0;0;1;");
	other_findings_done(&f);
}

static void test_nm_match_section(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;

	put(NM_ETC, "g.nmconnection", 0600,
	    NM_PROFILE("[match]\ninterface-name=ens1*;!ens1f1;\ndriver=ice;i40e;"));
	put(NM_ETC, "k.nmconnection", 0600,
	    NM_PROFILE("[match]\npath=pci-0000:3b:00.0\nkernel-command-line=sriov=on"));
	put(NM_ETC, "z.nmconnection", 0600, NM_PROFILE(""));
	find(&a, &f);
	assert_int_equal(f.n, 3);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MATCHES,
		       NM_ETC "/g.nmconnection", 8, "sriov.total-vfs=4",
		       "match.interface-name=ens1*;!ens1f1;, match.driver=ice;i40e;");
	assert_finding(&f.items[1], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MAY_MATCH,
		       NM_ETC "/k.nmconnection", 8, "sriov.total-vfs=4",
		       "match.kernel-command-line is not compared");
	assert_finding(&f.items[2], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MAY_MATCH,
		       NM_ETC "/z.nmconnection", 6, "sriov.total-vfs=4", "it names no device");
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.items[0].path, under(NM_ETC "/z.nmconnection"));
	other_findings_done(&f);
}

/* The profile's type and the deny list rule a device out; a device
 * without a permanent address takes no profile that names one. */
static void test_nm_type_denylist(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;

	put(NM_ETC, "ib.nmconnection", 0600,
	    "[connection]\nid=ib\ntype=infiniband\ninterface-name=ens1f0\n[sriov]\ntotal-vfs=2\n");
	put(NM_ETC, "deny.nmconnection", 0600,
	    "[connection]\nid=d\ntype=802-3-ethernet\n[802-3-ethernet]\n"
	    "mac-address-blacklist=AA:BB:CC:00:00:01;\n[sriov]\ntotal-vfs=2\n");
	put(NM_ETC, "mac.nmconnection", 0600,
	    "[connection]\nid=m\ntype=ethernet\n[ethernet]\nmac-address=AA:BB:CC:00:00:02\n"
	    "[sriov]\ntotal-vfs=2\n");
	find(&a, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 2);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MAY_MATCH,
		       NM_ETC "/deny.nmconnection", 7, "sriov.total-vfs=2", "it names no device");
	assert_finding(&f.items[1], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MATCHES,
		       NM_ETC "/mac.nmconnection", 7, "sriov.total-vfs=2", NULL);
	other_findings_done(&f);
	b.has_permanent_mac = false;
	b.has_mac = true;
	b.mac = b.permanent_mac;
	find(&b, &f);
	assert_int_equal(f.n, 2);
	assert_finding(&f.items[1], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MAY_MATCH,
		       NM_ETC "/mac.nmconnection", 7, "sriov.total-vfs=2",
		       "the PF's permanent MAC address is not known");
	other_findings_done(&f);
}

static void test_nm_unreadable(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;
	char path[256];
	int fd;

	mkdirs(NM_ETC);
	snprintf(path, sizeof(path), "%s%s/big.nmconnection", root, NM_ETC);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 5 << 20), 0);
	close(fd);
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_true(f.items[0].unreadable);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MAY_MATCH,
		       NM_ETC "/big.nmconnection", 0, "cannot read: larger than 4 MiB", NULL);
	other_findings_done(&f);
}

static void test_nm_wildcard(void **state)
{
	char *opt[] = { (char *)"eth*", (char *)"ens1f0", NULL };
	char *mand[] = { (char *)"ens*", (char *)"&!ens1f1", NULL };
	char *inv[] = { (char *)"!ens1f1", NULL };
	char *esc[] = { (char *)"&\\!a", NULL };

	assert_true(nm_wildcard_match("ens1f0", opt));
	assert_false(nm_wildcard_match("ens1f1", opt));
	assert_true(nm_wildcard_match("ens1f0", mand));
	assert_false(nm_wildcard_match("ens1f1", mand));
	assert_true(nm_wildcard_match("ens1f0", inv));
	assert_false(nm_wildcard_match("ens1f1", inv));
	assert_true(nm_wildcard_match("!a", esc));
	assert_false(nm_wildcard_match(NULL, opt));
}

#define LINK_VFS(match) "[Match]\n" match "\n[Link]\nSR-IOVVirtualFunctions=8\n"

/* An earlier file that matches and sets no SR-IOV hides a later one that
 * does; a PF the earlier one does not select gets the later one. */
static void test_link_first_match(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;

	put(LINK_USR, "10-mtu.link", 0644,
	    "[Match]\nPath=pci-0000:3b:00.0\n[Link]\nMTUBytes=9000\n");
	put(LINK_ETC, "20-vfs.link", 0644, LINK_VFS("Driver=ice"));
	put(LINK_ETC, "30-more.link", 0644, LINK_VFS("Driver=ice"));
	find(&a, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MATCHES,
		       LINK_ETC "/20-vfs.link", 4, "SR-IOVVirtualFunctions=8",
		       "[Match] Driver=ice");
	other_findings_done(&f);
}

static void test_link_masking(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;

	/* /etc's 30-x.link masks /usr/lib's, and selects only the first port */
	put(LINK_USR, "30-x.link", 0644, LINK_VFS("Path=pci-*"));
	put(LINK_ETC, "30-x.link", 0644, "[Match]\nPath=pci-0000:3b:00.0\n[Link]\nMTUBytes=9000\n");
	put(LINK_USR, "40-y.link", 0644, LINK_VFS("OriginalName=*"));
	put_link(LINK_ETC, "40-y.link", "/dev/null");
	put(LINK_USR, "50-z.link", 0644, LINK_VFS("Driver=mlx5_core"));
	put(LINK_USR, "60-w.link", 0644, LINK_VFS("Driver=ice"));
	find(&a, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MATCHES,
		       LINK_USR "/60-w.link", 4, "SR-IOVVirtualFunctions=8", "[Match] Driver=ice");
	other_findings_done(&f);
}

static void test_link_dropin(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;

	put(LINK_USR, "50-z.link", 0644, "[Match]\nOriginalName=*\n[Link]\nNamePolicy=path\n");
	put(LINK_ETC "/50-z.link.d", "sriov.conf", 0644,
	    "[Link]\nSR-IOVVirtualFunctions=4\n[SR-IOV]\nVirtualFunction=0\n");
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MATCHES,
		       LINK_ETC "/50-z.link.d/sriov.conf", 2,
		       "SR-IOVVirtualFunctions=4 and 1 [SR-IOV] section", "[Match] OriginalName=*");
	other_findings_done(&f);
	/* a later drop-in empties it again; the [SR-IOV] section stays */
	put(LINK_USR "/50-z.link.d", "zz-reset.conf", 0644, "[Link]\nSR-IOVVirtualFunctions=\n");
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MATCHES,
		       LINK_ETC "/50-z.link.d/sriov.conf", 3, "1 [SR-IOV] section", NULL);
	other_findings_done(&f);
}

static void test_link_unreadable(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;
	char path[256];
	FILE *fp;

	put(LINK_ETC, "90-vfs.link", 0644, LINK_VFS("Driver=ice"));
	mkdirs(LINK_ETC);
	snprintf(path, sizeof(path), "%s%s/10-bin.link", root, LINK_ETC);
	fp = fopen(path, "we");
	assert_non_null(fp);
	assert_int_equal(fwrite("[Match]\0", 1, 8, fp), 8);
	assert_int_equal(fclose(fp), 0);
	find(&a, &f);
	assert_int_equal(f.n, 2);
	assert_true(f.items[0].unreadable);
	assert_finding(&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MAY_MATCH,
		       LINK_ETC "/10-bin.link", 0,
		       "cannot read: contains a NUL byte, not a text file", NULL);
	/* the unreadable file may be the first to match */
	assert_finding(&f.items[1], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MAY_MATCH,
		       LINK_ETC "/90-vfs.link", 4, "SR-IOVVirtualFunctions=8",
		       LINK_ETC "/10-bin.link sorts first and may match");
	other_findings_done(&f);
}

/* A .link directory that cannot be listed (here: one others may write,
 * which conf_files_list() refuses) may hold the first file to match. */
static void test_link_dir_refused(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;
	char path[256];

	put(LINK_ETC, "10-vfs.link", 0644, LINK_VFS("Driver=ice"));
	snprintf(path, sizeof(path), "%s%s", root, LINK_ETC);
	assert_int_equal(chmod(path, 0777), 0);
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_true(f.items[0].unreadable);
	assert_finding(&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MAY_MATCH, LINK_ETC,
		       0,
		       "cannot read: writable by group or others (mode 0777); refusing it: "
		       "chmod go-w",
		       NULL);
	other_findings_done(&f);
}

/* [Match] semantics, on parsed files without a directory. */
static void link_match_text(const char *text, const struct pf_identity *id,
			    struct other_findings *out)
{
	struct link_file lf = {};

	*out = (struct other_findings){};
	assert_int_equal(link_file_parse(&lf, "/etc/systemd/network/t.link", text), 0);
	assert_int_equal(link_files_match(&lf, 1, id, out), 0);
	link_file_done(&lf);
}

static size_t link_matches(const char *match, const struct pf_identity *id,
			   enum other_certainty *ret)
{
	_cleanup_free_ char *text = strdup_printf(LINK_VFS("%s"), match);
	struct other_findings f;
	size_t n;

	link_match_text(text, id, &f);
	n = f.n;
	if (n > 0)
		*ret = f.items[0].certainty;
	other_findings_done(&f);
	return n;
}

static void test_link_keys(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	enum other_certainty c = _OTHER_CERTAINTY_INVALID;

	assert_int_equal(link_matches("Path=pci-0000:3b:00.*", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MATCHES);
	assert_int_equal(link_matches("Path=!pci-0000:3b:00.1", &b, &c), 0);
	assert_int_equal(link_matches("Path=!pci-0000:3b:00.1", &a, &c), 1);
	assert_int_equal(link_matches("Driver=i40e ice", &a, &c), 1);
	assert_int_equal(link_matches("Driver=mlx5_*", &a, &c), 0);
	assert_int_equal(link_matches("Type=ether", &a, &c), 1);
	assert_int_equal(link_matches("Kind=bond", &a, &c), 0);
	assert_int_equal(link_matches("MACAddress=00:11:22:33:44:55 aa:bb:cc:00:00:02", &b, &c), 1);
	assert_int_equal(link_matches("MACAddress=00:11:22:33:44:55 aa:bb:cc:00:00:02", &a, &c), 0);
	assert_int_equal(link_matches("MACAddress=aa:bb:cc:00:00:01\nMACAddress=\n"
				      "MACAddress=aa:bb:cc:00:00:02",
				      &a, &c),
			 0);
	assert_int_equal(link_matches("PermanentMACAddress=AA:BB:CC:00:00:01", &a, &c), 1);
	/* OriginalName=: the name before renaming */
	assert_int_equal(link_matches("OriginalName=eth*", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MAY_MATCH);
	a.original_name = "eth3";
	assert_int_equal(link_matches("OriginalName=eth*", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MATCHES);
	assert_int_equal(link_matches("OriginalName=ens*", &a, &c), 0);
	/* keys and conditions that cannot be told offline */
	assert_int_equal(link_matches("Property=ID_NET_NAME=x", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MAY_MATCH);
	/* the properties udev's rules give a PCI netdev */
	a.vendor = 0x8086;
	a.device = 0x159b;
	assert_int_equal(link_matches("Property=ID_BUS=usb", &a, &c), 0);
	assert_int_equal(link_matches("Property=!ID_BUS=usb", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MATCHES);
	assert_int_equal(link_matches("Property=ID_VENDOR_ID=0x8086 ID_MODEL_ID=0x159?", &a, &c),
			 1);
	assert_int_equal(c, OTHER_CERTAINTY_MATCHES);
	assert_int_equal(link_matches("Property=ID_VENDOR_ID=0x15b3", &a, &c), 0);
	assert_int_equal(link_matches("Property=ID_PATH=pci-0000:3b:*", &a, &c), 1);
	assert_int_equal(link_matches("Property=ID_BUS=pci ID_NET_NAME=x", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MAY_MATCH);
	assert_int_equal(link_matches("Host=worker-*\nDriver=mlx5_core", &a, &c), 0);
	assert_int_equal(link_matches("Frobnicate=yes", &a, &c), 1);
	assert_int_equal(c, OTHER_CERTAINTY_MAY_MATCH);
	/* an empty [Match]: udev ignores the file */
	assert_int_equal(link_matches("", &a, &c), 0);
}

static void test_link_may_hide(void **state)
{
	struct pf_identity a = pf0();
	struct link_file lf[2] = {};
	struct other_findings f = {};

	assert_int_equal(link_file_parse(&lf[0], "/etc/systemd/network/10-p.link",
					 "[Match]\nProperty=ID_NET_NAME=x\n"),
			 0);
	assert_int_equal(link_file_parse(&lf[1], "/etc/systemd/network/20-v.link",
					 LINK_VFS("Driver=ice")),
			 0);
	assert_int_equal(link_files_match(lf, 2, &a, &f), 0);
	assert_int_equal(f.n, 1);
	assert_finding_path(
		&f.items[0], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MAY_MATCH,
		"/etc/systemd/network/20-v.link", 4, "SR-IOVVirtualFunctions=8",
		"10-p.link sorts first and may match (Property=ID_NET_NAME=x: only ID_BUS, "
		"ID_PATH, ID_VENDOR_ID and ID_MODEL_ID are evaluated offline)");
	other_findings_done(&f);
	link_file_done(&lf[0]);
	link_file_done(&lf[1]);
}

static void test_operator(void **state)
{
	struct pf_identity a = pf0(), b = pf1();
	struct other_findings f;

	put("/etc/sriov-operator", "sriov-interface-config.yaml", 0644,
	    "spec:\n    interfaces:\n        - pciaddress: 0000:3b:00.0\n          numvfs: 4\n"
	    "          mtu: 1500\n          name: ens1f0\n"
	    "          externallymanaged: false\n"
	    "        - pciaddress: \"0000:5e:00.0\"\n          mtu: 1500\n"
	    "        - pciaddress: 0000:af:00.0\n          numvfs: 8\n"
	    "          vfgroups:\n            - resourcename: x\n              mtu: 1500\n"
	    "          externallymanaged: true\n"
	    "unsupportedNics: false\n");
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SRIOV_OPERATOR, OTHER_CERTAINTY_MATCHES,
		       "/etc/sriov-operator/sriov-interface-config.yaml", 4, "numvfs: 4",
		       "pciaddress: 0000:3b:00.0");
	other_findings_done(&f);
	find(&b, &f);
	assert_int_equal(f.n, 0);
	other_findings_done(&f);
	b.pci = "0000:5E:00.0";
	find(&b, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SRIOV_OPERATOR, OTHER_CERTAINTY_MATCHES,
		       "/etc/sriov-operator/sriov-interface-config.yaml", 8,
		       "an interface without numvfs", NULL);
	other_findings_done(&f);
	b.pci = "0000:af:00.0";
	find(&b, &f);
	assert_int_equal(f.n, 1);
	assert_finding(&f.items[0], OTHER_MANAGER_SRIOV_OPERATOR, OTHER_CERTAINTY_MATCHES,
		       "/etc/sriov-operator/sriov-interface-config.yaml", 11,
		       "numvfs: 8 with externallymanaged: true (it configures the VFs another "
		       "tool makes)",
		       NULL);
	other_findings_done(&f);
}

#define BIT(k) (1u << VF_KEY_##k)

static void test_nm_vf_parse(void **state)
{
	struct other_vf v;

	assert_int_equal(nm_vf_parse("/k", 9, 3,
				     "mac=02:00:00:00:00:01 spoof-check=false trust=true "
				     "min-tx-rate=10 max-tx-rate=100 vlans=7.3.ad other=1",
				     &v),
			 0);
	assert_int_equal(v.index, 3);
	assert_int_equal(v.set, BIT(MAC) | BIT(SPOOFCHK) | BIT(TRUST) | BIT(MIN_TX_RATE) |
					BIT(MAX_TX_RATE) | BIT(VLAN) | BIT(QOS) | BIT(VLAN_PROTO));
	assert_int_equal(v.unreadable, 0);
	assert_int_equal(v.attrs.mac.b[5], 1);
	assert_false(v.attrs.spoofchk);
	assert_true(v.attrs.trust);
	assert_int_equal(v.attrs.min_tx_rate, 10);
	assert_int_equal(v.attrs.max_tx_rate, 100);
	assert_int_equal(v.attrs.vlan, 7);
	assert_int_equal(v.attrs.qos, 3);
	assert_int_equal(v.attrs.vlan_proto, VLAN_PROTO_8021AD);
	assert_int_equal(v.line[VF_KEY_TRUST], 9);
	assert_string_equal(v.written[VF_KEY_TRUST], "vf.3 trust=true");
	assert_string_equal(v.written[VF_KEY_QOS], "vf.3 vlans=7.3.ad");
	assert_string_equal(v.path, "/k");
	other_vf_done(&v);

	/* the defaults of a VLAN descriptor; more than one VLAN, a bad value */
	assert_int_equal(nm_vf_parse("/k", 1, 0, "vlans=7", &v), 0);
	assert_int_equal(v.attrs.qos, 0);
	assert_int_equal(v.attrs.vlan_proto, VLAN_PROTO_8021Q);
	other_vf_done(&v);
	assert_int_equal(nm_vf_parse("/k", 1, 0, "vlans=7;8 trust=maybe", &v), 0);
	assert_int_equal(v.unreadable, BIT(VLAN) | BIT(QOS) | BIT(VLAN_PROTO) | BIT(TRUST));
	other_vf_done(&v);
}

/* [sriov] vf.N and the count reach the finding; no total-vfs is 0 VFs */
static void test_nm_vfs_in_finding(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;

	put(NM_ETC, "a.nmconnection", 0600,
	    "[connection]\ntype=ethernet\ninterface-name=ens1f0\n[sriov]\n"
	    "vf.2=trust=false\nvf.x=trust=true\nvf.2=trust=true\n");
	find(&a, &f);
	assert_int_equal(f.n, 1);
	assert_true(f.items[0].has_count);
	assert_int_equal(f.items[0].count, 0);
	assert_int_equal(f.items[0].n_vfs, 1);
	assert_int_equal(f.items[0].vfs[0].index, 2);
	/* the last vf.2 stands, as in GKeyFile */
	assert_int_equal(f.items[0].vfs[0].line[VF_KEY_TRUST], 7);
	assert_true(f.items[0].vfs[0].attrs.trust);
	other_findings_done(&f);
}

static void test_link_sriov_sections(void **state)
{
	struct pf_identity a = pf0();
	struct link_file lf = {};
	struct other_findings f = {};

	assert_int_equal(
		link_file_parse(&lf, "/etc/systemd/network/10-a.link",
				"[Match]\nOriginalName=*\n[Link]\n"
				"SR-IOVVirtualFunctions=x\n"
				"[SR-IOV]\nVirtualFunction=1\nVLANId=5\nVLANProtocol=802.1ad\n"
				"LinkState=auto\nQueryReceiveSideScaling=yes\n"
				"MACAddress=02:00:00:00:00:02\nTrust=\n"
				"[SR-IOV]\nTrust=yes\n"),
		0);
	assert_int_equal(link_file_parse(&lf, "/etc/systemd/network/10-a.link.d/b.conf",
					 "[SR-IOV]\nVirtualFunction=3\nMACSpoofCheck=no\n"),
			 0);
	assert_int_equal(link_files_match(&lf, 1, &a, &f), 0);
	assert_int_equal(f.n, 1);
	assert_true(f.items[0].has_count && f.items[0].count_bad);
	/* the section without VirtualFunction= is left out, as udev does */
	assert_int_equal(f.items[0].n_vfs, 2);
	assert_int_equal(f.items[0].vfs[0].index, 1);
	assert_int_equal(f.items[0].vfs[0].set,
			 BIT(VLAN) | BIT(VLAN_PROTO) | BIT(LINK_STATE) | BIT(QUERY_RSS) | BIT(MAC));
	assert_int_equal(f.items[0].vfs[0].attrs.link_state, LINK_STATE_AUTO);
	assert_string_equal(f.items[0].vfs[0].written[VF_KEY_VLAN], "VLANId=5");
	assert_int_equal(f.items[0].vfs[0].line[VF_KEY_MAC], 11);
	assert_string_equal(f.items[0].vfs[1].path, "/etc/systemd/network/10-a.link.d/b.conf");
	assert_int_equal(f.items[0].vfs[1].index, 3);
	assert_false(f.items[0].vfs[1].attrs.spoofchk);
	other_findings_done(&f);
	link_file_done(&lf);
}

static void test_operator_yaml(void **state)
{
	struct sno_config c;
	struct other_findings f = {};

	/* flow style and quoting are YAML too; a key in another spelling */
	assert_int_equal(sno_config_scan("/o",
					 "spec: {interfaces: [{pciaddress: '0000:3b:00.0', "
					 "numvfs: \"4\"}]}\n---\nignored: 1\n",
					 &c),
			 0);
	assert_null(c.error);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0].numvfs, "4");
	assert_null(c.items[0].other_spelling);
	sno_config_done(&c);
	assert_int_equal(sno_config_scan("/o",
					 "spec:\n  interfaces:\n  - pciaddress: 0000:3b:00.0\n"
					 "    NumVFs: 2\n",
					 &c),
			 0);
	assert_string_equal(c.items[0].other_spelling, "NumVFs");
	assert_int_equal(sno_config_match(&c, "0000:3b:00.0", &f), 0);
	assert_finding_path(&f.items[0], OTHER_MANAGER_SRIOV_OPERATOR, OTHER_CERTAINTY_MAY_MATCH,
			    "/o", 4, "NumVFs: 2",
			    "the key NumVFs, which the operator writes as numvfs");
	other_findings_done(&f);
	sno_config_done(&c);
	/* not YAML, not the operator's structure, empty */
	assert_int_equal(sno_config_scan("/o", "spec:\n  interfaces:\n  - a: [\n", &c), 0);
	assert_non_null(c.error);
	assert_int_equal(c.error_line, 4);
	sno_config_done(&c);
	assert_int_equal(sno_config_scan("/o", "- 1\n", &c), 0);
	assert_string_equal(c.error, "the file is not a mapping");
	assert_int_equal(c.error_line, 1);
	sno_config_done(&c);
	assert_int_equal(sno_config_scan("/o", "", &c), 0);
	assert_null(c.error);
	assert_int_equal(c.n, 0);
	sno_config_done(&c);
}

static void test_identity_from_state(void **state)
{
	struct pf_state pf = { .pci = "0000:3b:00.0",
			       .name = (char *)"ens1f0",
			       .link_type = LINK_TYPE_INFINIBAND };
	char id_path[PF_ID_PATH_MAX];
	struct pf_identity id;

	pf_identity_from_state(&pf, id_path, &id);
	assert_string_equal(id.id_path, "pci-0000:3b:00.0");
	assert_string_equal(id.iftype, "infiniband");
	assert_false(id.has_permanent_mac);
	assert_null(id.original_name);
}

/* Links are resolved inside the root: an absolute target is taken under
 * it, one that climbs out of it is a finding that says so. */
static void test_root_links(void **state)
{
	struct pf_identity a = pf0();
	struct other_findings f;

	put("/usr/share/nm", "a.nmconnection", 0600, NM_PROFILE("interface-name=ens1f0"));
	put_link(NM_ETC, "a.nmconnection", "/usr/share/nm/a.nmconnection");
	put("/usr/share/link", "10-a.link", 0644, LINK_VFS("OriginalName=ens1f0"));
	put_link(LINK_ETC, "10-a.link", "/usr/share/link/10-a.link");
	find(&a, &f);
	assert_int_equal(f.n, 2);
	assert_finding(&f.items[0], OTHER_MANAGER_NETWORKMANAGER, OTHER_CERTAINTY_MATCHES,
		       NM_ETC "/a.nmconnection", 6, "sriov.total-vfs=4", NULL);
	assert_finding(&f.items[1], OTHER_MANAGER_SYSTEMD_LINK, OTHER_CERTAINTY_MAY_MATCH,
		       "/usr/share/link/10-a.link", 4, "SR-IOVVirtualFunctions=8", NULL);
	other_findings_done(&f);
	put_link(NM_ETC, "out.nmconnection", "../../../../../../etc/passwd");
	find(&a, &f);
	assert_int_equal(f.n, 3);
	assert_true(f.items[0].unreadable);
	assert_string_equal(f.items[0].path, under(NM_ETC "/out.nmconnection"));
	assert_string_equal(f.items[0].setting, "cannot read: leads out of the root directory");
	other_findings_done(&f);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_nm_interface_name),
		T(test_nm_mac_run),
		T(test_nm_no_sriov_refused_legacy),
		T(test_nm_match_section),
		T(test_nm_type_denylist),
		T(test_nm_unreadable),
		T(test_nm_wildcard),
		T(test_link_first_match),
		T(test_link_masking),
		T(test_link_dropin),
		T(test_link_unreadable),
		T(test_link_dir_refused),
		T(test_link_keys),
		T(test_link_may_hide),
		T(test_operator),
		T(test_nm_vf_parse),
		T(test_nm_vfs_in_finding),
		T(test_link_sriov_sections),
		T(test_operator_yaml),
		T(test_identity_from_state),
		T(test_root_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
