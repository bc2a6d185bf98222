/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "layout.h"
#include "pf-keys.h"

#define PATH "/etc/sriov-persist/conf.d/50-test.conf"
#define MATCH_ALL "[Match]\nPCIAddress=*\n"

static void layout_file_freep(struct layout_file **f)
{
	layout_file_free(*f);
}
#define _cleanup_layout_file_ _cleanup_(layout_file_freep)

static struct layout_file *parse(const char *text, struct diag_list *d)
{
	struct layout_file *f = NULL;

	assert_int_equal(layout_parse_string(PATH, text, d, &f), 0);
	assert_non_null(f);
	assert_string_equal(f->path, PATH);
	return f;
}

/* Parses text that must give no diagnostics at all. */
static struct layout_file *parse_clean(const char *text)
{
	struct diag_list d = {};
	struct layout_file *f = parse(text, &d);

	for (size_t i = 0; i < d.n; i++)
		print_error("unexpected: %u: %s\n", d.items[i].line, d.items[i].msg);
	assert_int_equal(d.n, 0);
	assert_false(f->has_error);
	diag_list_done(&d);
	return f;
}

/* text must give exactly one diagnostic: an error at line with msg. */
static void expect_error(const char *text, unsigned line, const char *msg)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};

	f = parse(text, &d);
	for (size_t i = 0; i < d.n; i++)
		if (d.n != 1)
			print_error("got: %u: %s\n", d.items[i].line, d.items[i].msg);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].level, DIAG_ERROR);
	assert_string_equal(d.items[0].file, PATH);
	assert_int_equal(d.items[0].line, line);
	assert_string_equal(d.items[0].msg, msg);
	assert_true(f->has_error);
	diag_list_done(&d);
}

static void test_pf_valid(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean(MATCH_ALL "[PhysicalFunction]\n"
				  "VirtualFunctions=16\n"
				  "MTUBytes=9000\n"
				  "LinkUp=yes\n"
				  "ESwitchMode=switchdev\n"
				  "HardwareTCOffload=on\n"
				  "LinkType=infiniband\n"
				  "FirmwareVirtualFunctions=no\n"
				  "ExternallyManaged=false\n"
				  "SharedWith=systemd-udevd\n");
	assert_int_equal(f->pf.set, (1u << _PF_KEY_MAX) - 1);
	assert_false(f->pf.num_vfs_max);
	assert_int_equal(f->pf.num_vfs, 16);
	assert_int_equal(f->pf.mtu, 9000);
	assert_true(f->pf.link_up);
	assert_int_equal(f->pf.eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	assert_true(f->pf.hw_tc_offload);
	assert_int_equal(f->pf.link_type, LINK_TYPE_INFINIBAND);
	assert_int_equal(f->pf.firmware_vfs, FIRMWARE_VFS_NO);
	assert_false(f->pf.externally_managed);
	assert_int_equal(f->pf.shared_with, OTHER_MANAGER_SYSTEMD_LINK);
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		assert_ptr_equal(f->pf.src[k].file, f->path);
		assert_int_equal(f->pf.src[k].line, 4 + (unsigned)k);
	}
	assert_int_equal(f->match.line, 1);
	assert_int_equal(f->n_vf_sections, 0);
}

static void test_pf_other_spellings(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean(MATCH_ALL "[PhysicalFunction]\n"
				  "VirtualFunctions=max\n"
				  "ESwitchMode=legacy\n"
				  "LinkType=ethernet\n"
				  "FirmwareVirtualFunctions=auto\n"
				  "MTUBytes=68\n");
	assert_true(f->pf.num_vfs_max);
	assert_int_equal(f->pf.eswitch_mode, ESWITCH_MODE_LEGACY);
	assert_int_equal(f->pf.link_type, LINK_TYPE_ETHERNET);
	assert_int_equal(f->pf.firmware_vfs, FIRMWARE_VFS_AUTO);
	assert_int_equal(f->pf.mtu, 68);
	assert_false(pf_settings_has(&f->pf, PF_KEY_LINK_UP));
	layout_file_free(f);

	/* a number after max: the number wins, max is forgotten */
	f = parse_clean(MATCH_ALL "[PhysicalFunction]\nVirtualFunctions=max\nVirtualFunctions=0\n"
				  "MTUBytes=65535\n");
	assert_false(f->pf.num_vfs_max);
	assert_int_equal(f->pf.num_vfs, 0);
	assert_int_equal(f->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].line, 5);
	assert_int_equal(f->pf.mtu, 65535);
	layout_file_free(f);

	f = parse_clean(MATCH_ALL "[PhysicalFunction]\nVirtualFunctions=65535\n");
	assert_int_equal(f->pf.num_vfs, 65535);
}

static void test_booleans(void **state)
{
	static const struct {
		const char *s;
		bool v;
	} spellings[] = {
		{ "yes", true }, { "no", false },  { "true", true }, { "false", false },
		{ "on", true },	 { "off", false }, { "1", true },    { "0", false },
		{ "YES", true }, { "Off", false },
	};
	static const char *const pf_keys[] = { "LinkUp", "HardwareTCOffload", "ExternallyManaged" };
	static const char *const vf_keys[] = { "MACSpoofCheck", "Trust", "QueryReceiveSideScaling",
					       "RDMA" };

	for (size_t i = 0; i < ELEMENTSOF(spellings); i++) {
		_cleanup_layout_file_ struct layout_file *f = NULL;
		_cleanup_free_ char *text = NULL;

		text = strdup_printf(MATCH_ALL "[PhysicalFunction]\nLinkUp=%1$s\n"
					       "HardwareTCOffload=%1$s\nExternallyManaged=%1$s\n"
					       "[VirtualFunction]\nMACSpoofCheck=%1$s\nTrust=%1$s\n"
					       "QueryReceiveSideScaling=%1$s\nRDMA=%1$s\n",
				     spellings[i].s);
		assert_non_null(text);
		f = parse_clean(text);
		assert_int_equal(f->pf.link_up, spellings[i].v);
		assert_int_equal(f->pf.hw_tc_offload, spellings[i].v);
		assert_int_equal(f->pf.externally_managed, spellings[i].v);
		assert_int_equal(f->n_vf_sections, 1);
		assert_int_equal(f->vf_sections[0].settings.attrs.spoofchk, spellings[i].v);
		assert_int_equal(f->vf_sections[0].settings.attrs.trust, spellings[i].v);
		assert_int_equal(f->vf_sections[0].settings.attrs.query_rss, spellings[i].v);
		assert_int_equal(f->vf_sections[0].settings.attrs.rdma, spellings[i].v);
	}
	for (size_t i = 0; i < ELEMENTSOF(pf_keys); i++) {
		_cleanup_free_ char *text = NULL, *msg = NULL;

		text = strdup_printf(MATCH_ALL "[PhysicalFunction]\n%s=maybe\n", pf_keys[i]);
		msg = strdup_printf("%s=maybe: must be a boolean (yes/no/true/false/on/off/1/0)",
				    pf_keys[i]);
		expect_error(text, 4, msg);
	}
	for (size_t i = 0; i < ELEMENTSOF(vf_keys); i++) {
		_cleanup_free_ char *text = NULL, *msg = NULL;

		text = strdup_printf(MATCH_ALL "[VirtualFunction 0-3]\n%s=2\n", vf_keys[i]);
		msg = strdup_printf("%s=2: must be a boolean (yes/no/true/false/on/off/1/0)",
				    vf_keys[i]);
		expect_error(text, 4, msg);
	}
}

static void test_pf_invalid(void **state)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "VirtualFunctions=65536", "VirtualFunctions=65536: must be 0..65535 or max" },
		{ "VirtualFunctions=-1", "VirtualFunctions=-1: must be 0..65535 or max" },
		{ "VirtualFunctions=MAX", "VirtualFunctions=MAX: must be 0..65535 or max" },
		{ "VirtualFunctions=8 VFs", "VirtualFunctions=8 VFs: must be 0..65535 or max" },
		{ "VirtualFunctions=0x10", "VirtualFunctions=0x10: must be 0..65535 or max" },
		{ "MTUBytes=67", "MTUBytes=67: must be 68..65535" },
		{ "MTUBytes=65536", "MTUBytes=65536: must be 68..65535" },
		{ "MTUBytes=9K", "MTUBytes=9K: must be 68..65535" },
		{ "MTUBytes=+9000", "MTUBytes=+9000: must be 68..65535" },
		{ "MTUBytes=99999999999999999999",
		  "MTUBytes=99999999999999999999: must be 68..65535" },
		{ "ESwitchMode=foo", "ESwitchMode=foo: must be legacy or switchdev" },
		{ "ESwitchMode=Legacy", "ESwitchMode=Legacy: must be legacy or switchdev" },
		{ "LinkType=eth", "LinkType=eth: must be ethernet or infiniband" },
		{ "FirmwareVirtualFunctions=yes",
		  "FirmwareVirtualFunctions=yes: must be auto or no" },
		{ "LinkUp=maybe",
		  "LinkUp=maybe: must be a boolean (yes/no/true/false/on/off/1/0)" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *text = NULL;

		text = strdup_printf(MATCH_ALL "[PhysicalFunction]\n\n%s\n", cases[i].line);
		expect_error(text, 5, cases[i].msg);
	}
}

static void test_vf_valid(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	const struct vf_settings *s;
	char buf[MAC_STR_MAX];

	/* every key once, in the order of enum vf_key */
	f = parse_clean(MATCH_ALL "[VirtualFunction 3]\n"
				  "Driver=vfio-pci\n"
				  "MACAddress=02:AA:bb:cc:dd:03\n"
				  "VLANId=4095\n"
				  "QualityOfService=7\n"
				  "VLANProtocol=802.1ad\n"
				  "Trust=yes\n"
				  "MACSpoofCheck=no\n"
				  "LinkState=no\n"
				  "QueryReceiveSideScaling=true\n"
				  "MinTxRateMbps=100\n"
				  "MaxTxRateMbps=4294967295\n"
				  "IBNodeGUID=00:02:C9:03:00:21:6e:70\n"
				  "IBPortGUID=stable\n"
				  "MTUBytes=1500\n"
				  "RDMA=on\n"
				  "ResourceName=e810_rdma\n"
				  "HostNetworkStack=unmanaged\n");
	assert_int_equal(f->n_vf_sections, 1);
	assert_int_equal(f->vf_sections[0].first, 3);
	assert_int_equal(f->vf_sections[0].last, 3);
	assert_int_equal(f->vf_sections[0].line, 3);
	s = &f->vf_sections[0].settings;
	assert_int_equal(s->set, (1u << _VF_KEY_MAX) - 1);
	assert_string_equal(s->attrs.driver, "vfio-pci");
	assert_int_equal(s->attrs.host_network_stack, HOST_NETWORK_STACK_UNMANAGED);
	assert_false(vf_settings_is_stable(s, VF_KEY_MAC));
	assert_string_equal(mac_format(&s->attrs.mac, buf), "02:aa:bb:cc:dd:03");
	assert_int_equal(s->attrs.vlan, 4095);
	assert_int_equal(s->attrs.qos, 7);
	assert_int_equal(s->attrs.vlan_proto, VLAN_PROTO_8021AD);
	assert_false(s->attrs.spoofchk);
	assert_true(s->attrs.trust);
	assert_int_equal(s->attrs.link_state, LINK_STATE_DISABLE);
	assert_true(s->attrs.query_rss);
	assert_int_equal(s->attrs.min_tx_rate, 100);
	assert_int_equal(s->attrs.max_tx_rate, UINT32_MAX);
	assert_true(s->attrs.ib_node_guid == 0x0002c90300216e70u);
	assert_int_equal(s->stable, VF_KEY_BIT(IB_PORT_GUID));
	assert_true(s->attrs.ib_port_guid == 0);
	assert_int_equal(s->attrs.mtu, 1500);
	assert_true(s->attrs.rdma);
	assert_string_equal(s->attrs.resource_name, "e810_rdma");
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		assert_ptr_equal(s->src[k].file, f->path);
		assert_int_equal(s->src[k].line, 4 + (unsigned)k);
	}
}

static void test_vf_other_spellings(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	const struct vf_settings *s;

	f = parse_clean(MATCH_ALL "[VirtualFunction 0-7]\n"
				  "Driver=default\n"
				  "MACAddress=stable\n"
				  "VLANId=0\n"
				  "QualityOfService=0\n"
				  "VLANProtocol=802.1Q\n"
				  "LinkState=auto\n"
				  "MinTxRateMbps=0\n"
				  "MaxTxRateMbps=0\n"
				  "MTUBytes=68\n"
				  "[VirtualFunction]\n"
				  "LinkState=yes\n"
				  "Driver=mlx5_core\n"
				  "[VirtualFunction 1]\n"
				  "LinkState=off\n");
	assert_int_equal(f->n_vf_sections, 3);
	s = &f->vf_sections[0].settings;
	assert_true(vf_settings_has(s, VF_KEY_DRIVER));
	assert_null(s->attrs.driver);
	assert_true(vf_settings_is_stable(s, VF_KEY_MAC));
	assert_int_equal(s->attrs.vlan, 0);
	assert_int_equal(s->attrs.vlan_proto, VLAN_PROTO_8021Q);
	assert_int_equal(s->attrs.link_state, LINK_STATE_AUTO);
	assert_int_equal(s->attrs.max_tx_rate, 0);
	assert_false(vf_settings_has(s, VF_KEY_TRUST));
	assert_false(vf_settings_has(s, VF_KEY_RESOURCE_NAME));
	assert_int_equal(f->vf_sections[1].first, VF_INDEX_ALL);
	assert_int_equal(f->vf_sections[1].last, VF_INDEX_ALL);
	assert_int_equal(f->vf_sections[1].line, 13);
	assert_int_equal(f->vf_sections[1].settings.attrs.link_state, LINK_STATE_ENABLE);
	assert_string_equal(f->vf_sections[1].settings.attrs.driver, "mlx5_core");
	assert_int_equal(f->vf_sections[2].settings.attrs.link_state, LINK_STATE_DISABLE);
}

static void test_vf_invalid(void **state)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "VLANId=5000", "VLANId=5000: must be 0..4095" },
		{ "VLANId=4096", "VLANId=4096: must be 0..4095" },
		{ "VLANId=-1", "VLANId=-1: must be 0..4095" },
		{ "QualityOfService=8", "QualityOfService=8: must be 0..7" },
		{ "VLANProtocol=802.1q", "VLANProtocol=802.1q: must be 802.1Q or 802.1ad" },
		{ "VLANProtocol=qinq", "VLANProtocol=qinq: must be 802.1Q or 802.1ad" },
		{ "Trust=maybe", "Trust=maybe: must be a boolean (yes/no/true/false/on/off/1/0)" },
		{ "LinkState=enable", "LinkState=enable: must be auto, yes or no" },
		{ "MinTxRateMbps=4294967296", "MinTxRateMbps=4294967296: must be 0..4294967295" },
		{ "MaxTxRateMbps=1G", "MaxTxRateMbps=1G: must be 0..4294967295" },
		{ "MTUBytes=0", "MTUBytes=0: must be 68..65535" },
		{ "Driver=vfio/pci",
		  "Driver=vfio/pci: must be default or a module name (1..63 letters, digits, '_' or "
		  "'-')" },
		{ "Driver=a b",
		  "Driver=a b: must be default or a module name (1..63 letters, digits, '_' or '-')" },
		{ "Driver=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "Driver=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: must be "
		  "default or a module name (1..63 letters, digits, '_' or '-')" },
		{ "ResourceName=e810-rdma",
		  "ResourceName=e810-rdma: must be 1..63 letters, digits or '_'" },
		{ "ResourceName=intel.com/x",
		  "ResourceName=intel.com/x: must be 1..63 letters, digits or '_': give the name "
		  "without its 'prefix/'; the prefix is the host's [Kubernetes] ResourcePrefix= in "
		  "sriov-persist.conf (intel.com by default)" },
		{ "MACAddress=random",
		  "MACAddress=random: must be stable or an address like 02:00:00:00:00:01" },
		{ "MACAddress=02:00:00:00:00",
		  "MACAddress=02:00:00:00:00: must be stable or an address like 02:00:00:00:00:01" },
		{ "MACAddress=01:00:5e:00:00:01",
		  "MACAddress=01:00:5e:00:00:01: must be a unicast address" },
		{ "MACAddress=00:00:00:00:00:00",
		  "MACAddress=00:00:00:00:00:00: must not be 00:00:00:00:00:00" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *text = NULL;

		text = strdup_printf(MATCH_ALL "[VirtualFunction 2]\nTrust=yes\n%s\n",
				     cases[i].line);
		expect_error(text, 5, cases[i].msg);
	}
	/* the last good value stays in place */
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;
		struct diag_list d = {};

		f = parse(MATCH_ALL "[VirtualFunction 2]\nVLANId=7\nVLANId=9999\n", &d);
		assert_true(f->has_error);
		assert_int_equal(f->vf_sections[0].settings.attrs.vlan, 7);
		assert_int_equal(f->vf_sections[0].settings.src[VF_KEY_VLAN].line, 4);
		diag_list_done(&d);
	}
}

static void test_literal_mac_needs_single_vf(void **state)
{
	static const char why[] = "MACAddress=02:00:00:00:00:01: a literal value needs a "
				  "single-VF section such as [VirtualFunction 0]; use stable here";
	_cleanup_layout_file_ struct layout_file *f = NULL;

	expect_error(MATCH_ALL "[VirtualFunction 0-7]\nMACAddress=02:00:00:00:00:01\n", 4, why);
	expect_error(MATCH_ALL "[VirtualFunction]\nMACAddress=02:00:00:00:00:01\n", 4, why);
	f = parse_clean(MATCH_ALL "[VirtualFunction 5-5]\nMACAddress=02:00:00:00:00:01\n"
				  "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:02\n");
	assert_false(vf_settings_is_stable(&f->vf_sections[0].settings, VF_KEY_MAC));
	assert_int_equal(f->vf_sections[1].settings.attrs.mac.b[5], 2);
}

static void test_section_headers(void **state)
{
	static const struct {
		const char *header;
		uint32_t first, last;
	} good[] = {
		{ "[VirtualFunction]", VF_INDEX_ALL, VF_INDEX_ALL },
		{ "[VirtualFunction 0]", 0, 0 },
		{ "[VirtualFunction 4095]", 4095, 4095 },
		{ "[VirtualFunction 0-4095]", 0, 4095 },
		{ "[VirtualFunction 7-7]", 7, 7 },
		{ "  [VirtualFunction 2-9]  ", 2, 9 },
	};
	static const char *const bad[] = {
		"VirtualFunction 5-3",	 "VirtualFunction 4096",  "VirtualFunction 0-4096",
		"VirtualFunction -1",	 "VirtualFunction 1-",	  "VirtualFunction -",
		"VirtualFunction a",	 "VirtualFunction  1",	  "VirtualFunction 1 ",
		"VirtualFunctions",	 "VirtualFunction 1-2-3", "VirtualFunction 0x1",
		"VirtualFunction 00001", "VirtualFunction 1,2",	  "VirtualFunction 99999999999",
	};

	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		_cleanup_layout_file_ struct layout_file *f = NULL;
		_cleanup_free_ char *text = NULL;

		text = strdup_printf(MATCH_ALL "%s\nTrust=yes\n", good[i].header);
		f = parse_clean(text);
		assert_int_equal(f->n_vf_sections, 1);
		assert_int_equal(f->vf_sections[0].first, good[i].first);
		assert_int_equal(f->vf_sections[0].last, good[i].last);
		assert_int_equal(f->vf_sections[0].line, 3);
		assert_true(f->vf_sections[0].settings.attrs.trust);
	}
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		_cleanup_layout_file_ struct layout_file *f = NULL;
		_cleanup_free_ char *text = NULL, *msg = NULL;
		struct diag_list d = {};

		/* good lines of the bad section are checked, and dropped
		 * (test_lines_under_invalid_header: bad ones are reported) */
		text = strdup_printf(MATCH_ALL "[%s]\nTrust=yes\n", bad[i]);
		msg = strdup_printf(
			"invalid section [%s]: must be [VirtualFunction], "
			"[VirtualFunction N] or [VirtualFunction N-M], 0 <= N <= M <= 4095",
			bad[i]);
		expect_error(text, 3, msg);
		f = parse(text, &d);
		assert_int_equal(f->n_vf_sections, 0);
		diag_list_done(&d);
	}
}

static void test_malformed_headers(void **state)
{
	expect_error(MATCH_ALL "[PhysicalFunction\nMTUBytes=9000\n", 3,
		     "invalid section header '[PhysicalFunction': must be [Name]");
	expect_error(MATCH_ALL "[PhysicalFunction] # pf\nMTUBytes=9000\n", 3,
		     "'[PhysicalFunction] # pf': a comment after a section header is not allowed; "
		     "comments are whole lines starting with '#' or ';'");
	expect_error(MATCH_ALL "[Physical[Function]\n", 3,
		     "invalid section header '[Physical[Function]': must be [Name]");
	/* the keys after an invalid header do not land in the section before it */
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;
		struct diag_list d = {};

		f = parse(MATCH_ALL "[PhysicalFunction]\n[Bad\nMTUBytes=9000\n", &d);
		assert_false(pf_settings_has(&f->pf, PF_KEY_MTU));
		diag_list_done(&d);
	}
}

/* Unknown keys and sections are errors, with the name that was likely
 * meant: a typo must never leave a PF with whatever it had. */
static void test_unknown_things(void **state)
{
	expect_error(MATCH_ALL "[PhysicalFunction]\nFoo=1\n", 4,
		     "unknown key 'Foo' in [PhysicalFunction]");
	expect_error(MATCH_ALL "[PhysicalFunction]\nVirtualFuntions=4\n", 4,
		     "unknown key 'VirtualFuntions' in [PhysicalFunction]; "
		     "did you mean 'VirtualFunctions'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nmtubytes=9000\n", 4,
		     "unknown key 'mtubytes' in [PhysicalFunction]; did you mean 'MTUBytes'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nDriver=vfio-pci\n", 4,
		     "unknown key 'Driver' in [PhysicalFunction]; it belongs in "
		     "[Match] or [VirtualFunction]");
	expect_error(MATCH_ALL "[VirtualFunction 0-3]\nVirtualFunctions=4\n", 4,
		     "unknown key 'VirtualFunctions' in [VirtualFunction 0-3]; it belongs in "
		     "[PhysicalFunction]");
	expect_error(MATCH_ALL "[VirtualFunction 2]\nFoo=1\n", 4,
		     "unknown key 'Foo' in [VirtualFunction 2]");
	/* no key of the section is near: the nearest of another, with where */
	expect_error(MATCH_ALL "[VirtualFunction 0]\nVirtualFuntions=4\n", 4,
		     "unknown key 'VirtualFuntions' in [VirtualFunction 0]; "
		     "did you mean 'VirtualFunctions' of [PhysicalFunction]?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nspoofchk=off\n", 4,
		     "unknown key 'spoofchk' in [PhysicalFunction]; "
		     "did you mean 'MACSpoofCheck' of [VirtualFunction]?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nDrivr=iavf\n", 4,
		     "unknown key 'Drivr' in [PhysicalFunction]; "
		     "did you mean 'Driver' of [Match] or [VirtualFunction]?");
	expect_error("[Match]\nMTUBytez=9000\n", 2,
		     "unknown key 'MTUBytez' in [Match]; did you mean 'MTUBytes' of "
		     "[PhysicalFunction] or [VirtualFunction]?");
	/* a near key of the section wins over one of another */
	expect_error("[Match]\nDrivr=ice\n", 2,
		     "unknown key 'Drivr' in [Match]; did you mean 'Driver'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nVLANID=5\n", 4,
		     "unknown key 'VLANID' in [VirtualFunction]; did you mean 'VLANId'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nTrsut=yes\n", 4,
		     "unknown key 'Trsut' in [VirtualFunction]; did you mean 'Trust'?");
	/* abbreviations, and the names ip-link(8), sysfs, ethtool and
	 * mstconfig give a key, find it; the line is an error all the same */
	expect_error(MATCH_ALL "[VirtualFunction 0-3]\nQueryRSS=yes\n", 4,
		     "unknown key 'QueryRSS' in [VirtualFunction 0-3]; "
		     "did you mean 'QueryReceiveSideScaling'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nRSS=yes\n", 4,
		     "unknown key 'RSS' in [VirtualFunction]; "
		     "did you mean 'QueryReceiveSideScaling'?");
	expect_error(MATCH_ALL "[VirtualFunction 1]\nMAC=02:00:00:00:00:01\n", 4,
		     "unknown key 'MAC' in [VirtualFunction 1]; did you mean 'MACAddress'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nspoofchk=off\n", 4,
		     "unknown key 'spoofchk' in [VirtualFunction]; "
		     "did you mean 'MACSpoofCheck'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nmax_tx_rate=100\n", 4,
		     "unknown key 'max_tx_rate' in [VirtualFunction]; "
		     "did you mean 'MaxTxRateMbps'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nMaxRateMbps=100\n", 4,
		     "unknown key 'MaxRateMbps' in [VirtualFunction]; "
		     "did you mean 'MaxTxRateMbps'?");
	expect_error(MATCH_ALL "[VirtualFunction]\nQoS=3\n", 4,
		     "unknown key 'QoS' in [VirtualFunction]; did you mean 'QualityOfService'?");
	/* MinTxRateMbps or MaxTxRateMbps: no guess */
	expect_error(MATCH_ALL "[VirtualFunction]\nTxRate=100\n", 4,
		     "unknown key 'TxRate' in [VirtualFunction]");
	expect_error(MATCH_ALL "[PhysicalFunction]\nsriov_numvfs=4\n", 4,
		     "unknown key 'sriov_numvfs' in [PhysicalFunction]; "
		     "did you mean 'VirtualFunctions'?");
	/* sriov-network-operator's policy field */
	expect_error(MATCH_ALL "[PhysicalFunction]\nnumVfs=4\n", 4,
		     "unknown key 'numVfs' in [PhysicalFunction]; "
		     "did you mean 'VirtualFunctions'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nVirtFunc=4\n", 4,
		     "unknown key 'VirtFunc' in [PhysicalFunction]; "
		     "did you mean 'VirtualFunctions'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nVFs=4\n", 4,
		     "unknown key 'VFs' in [PhysicalFunction]; did you mean 'VirtualFunctions'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nNUM_OF_VFS=16\n", 4,
		     "unknown key 'NUM_OF_VFS' in [PhysicalFunction]; "
		     "did you mean 'FirmwareVirtualFunctions'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nMTU=9000\n", 4,
		     "unknown key 'MTU' in [PhysicalFunction]; did you mean 'MTUBytes'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nhw-tc-offload=on\n", 4,
		     "unknown key 'hw-tc-offload' in [PhysicalFunction]; "
		     "did you mean 'HardwareTCOffload'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nESwitch=switchdev\n", 4,
		     "unknown key 'ESwitch' in [PhysicalFunction]; did you mean 'ESwitchMode'?");
	expect_error("[Match]\nPCI=0000:3b:00.0\n", 2,
		     "unknown key 'PCI' in [Match]; did you mean 'PCIAddress'?");
	expect_error(MATCH_ALL "[VF 0-3]\nTrust=yes\n", 3,
		     "unknown section [VF 0-3]; sections are [Match], [PhysicalFunction], "
		     "[VirtualFunction ...] and [Layout]; did you mean '[VirtualFunction 0-3]'?");
	/* one error for the section, none for its keys */
	expect_error(MATCH_ALL "[Link]\nMTUBytes=9000\nFoo=bar\n", 3,
		     "unknown section [Link]; sections are [Match], [PhysicalFunction], "
		     "[VirtualFunction ...] and [Layout]");
	expect_error(MATCH_ALL "[PhysicalFuntion]\nVirtualFunctions=4\n", 3,
		     "unknown section [PhysicalFuntion]; sections are [Match], "
		     "[PhysicalFunction], [VirtualFunction ...] and [Layout]; did you mean "
		     "'[PhysicalFunction]'?");
	/* the range stays in the suggestion */
	expect_error(MATCH_ALL "[VirtualFuntion 0-1]\nTrust=yes\n", 3,
		     "unknown section [VirtualFuntion 0-1]; sections are [Match], "
		     "[PhysicalFunction], [VirtualFunction ...] and [Layout]; did you mean "
		     "'[VirtualFunction 0-1]'?");
	expect_error(MATCH_ALL "[SR-IOV]\n", 3,
		     "unknown section [SR-IOV]; sections are [Match], [PhysicalFunction], "
		     "[VirtualFunction ...] and [Layout]");
	expect_error("MTUBytes=9000\n" MATCH_ALL, 1,
		     "'MTUBytes' outside of any section; keys stand in [Match], "
		     "[PhysicalFunction], [VirtualFunction ...] or [Layout]");
}

/* [Layout] Overrides=: file names that add up, an empty value clears them;
 * a path, a name not ending in .conf and the file's own name are errors. */
static void test_layout_overrides(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean(MATCH_ALL "[Layout]\nOverrides=40-a.conf 50-b.conf\nOverrides=40-a.conf\n");
	assert_int_equal(f->declare.n_overrides, 2);
	assert_string_equal(f->declare.overrides[1].name, "50-b.conf");
	assert_int_equal(f->declare.overrides[1].line, 4);
	assert_true(layout_declares_override(&f->declare, "/usr/lib/x/40-a.conf", NULL));
	assert_false(layout_declares_override(&f->declare, "/etc/x/60-c.conf", NULL));
	layout_file_free(f);
	f = parse_clean("[Layout]\nOverrides=40-a.conf\nOverrides=\n" MATCH_ALL);
	assert_int_equal(f->declare.n_overrides, 0);
	expect_error(MATCH_ALL "[Layout]\nOverrides=conf.d/40-a.conf\n", 4,
		     "Overrides=conf.d/40-a.conf: must be file names as in the conf directory "
		     "(no '/'), such as 40-fleet.conf");
	expect_error(MATCH_ALL "[Layout]\nOverrides=40-a\n", 4,
		     "Overrides=40-a: must name layout files, which end in .conf");
	expect_error(MATCH_ALL "[Layout]\nOverride=40-a.conf\n", 4,
		     "unknown key 'Override' in [Layout]; did you mean 'Overrides'?");
	expect_error(MATCH_ALL "[PhysicalFunction]\nOverrides=40-a.conf\n", 4,
		     "unknown key 'Overrides' in [PhysicalFunction]; it belongs in [Layout]");
}

/* X- keys and sections are the user's own notes, never read. */
static void test_extensions(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean("X-Owner=team-a\n[Match]\nX-Ticket=OPS-17\nDevice=0x159b\n"
			"[PhysicalFunction]\nX-Why=rdma\nVirtualFunctions=4\n"
			"[X-Inventory]\nRack=7\nVirtualFunctions=99\n"
			"[VirtualFunction]\nX-Note=yes\nTrust=yes\n");
	assert_string_equal(f->match.device[0], "0x159b");
	assert_int_equal(f->pf.num_vfs, 4);
	assert_int_equal(f->n_vf_sections, 1);
	assert_true(f->vf_sections[0].settings.attrs.trust);
}

/* A [Match] that cannot say what it means selects every PF (and, having
 * an error, holds them all). */
static void expect_match_holds_all(const char *text)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};

	f = parse(text, &d);
	assert_true(f->has_error);
	assert_null(f->match.pci_address);
	assert_null(f->match.name);
	assert_null(f->match.vendor);
	assert_null(f->match.device);
	assert_null(f->match.driver);
	assert_null(f->match.host);
	diag_list_done(&d);
}

static void test_match_errors_hold_all(void **state)
{
	expect_error("[Match]\nDevcie=0x1593\n", 2,
		     "unknown key 'Devcie' in [Match]; did you mean 'Device'?");
	expect_match_holds_all("[Match]\nDevcie=0x1593\n[PhysicalFunction]\nVirtualFunctions=0\n");
	expect_match_holds_all("[Match]\nDevice=0x1593\nVendor=8086\n");
	expect_match_holds_all("[Match]\nHost=worker-1\nDevice=0x1593\nMAC=00:11:22:33:44:55\n");
	expect_error("[Match]\n[PhysicalFunction]\nVirtualFunctions=0\n", 1,
		     "[Match] is empty; a layout must say which PFs it selects; use "
		     "PCIAddress=* to select all");
	expect_match_holds_all("[Match]\n[PhysicalFunction]\nVirtualFunctions=0\n");
	/* an emptied key is not a selection either */
	expect_match_holds_all("[Match]\nDevice=0x1593\nDevice=\n");
	expect_match_holds_all("[PhysicalFunction]\nVirtualFunctions=0\n");
	/* the cleared [Match] keeps its line: "a [Match] with an error" */
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;
		struct diag_list d = {};

		f = parse("# x\n[Match]\nDevcie=0x1593\n", &d);
		assert_true(layout_match_is_empty(&f->match));
		assert_int_equal(f->match.line, 2);
		diag_list_done(&d);
	}
}

static void test_syntax_errors(void **state)
{
	expect_error(MATCH_ALL "[PhysicalFunction]\nMTUBytes 9000\n", 4,
		     "'MTUBytes 9000': not a Key=value line");
	expect_error(MATCH_ALL "[PhysicalFunction]\nMTUBytes: 9000\n", 4,
		     "'MTUBytes: 9000': must be Key=value (not Key: value)");
	expect_error(MATCH_ALL "[PhysicalFunction]\n=9000\n", 4,
		     "'=9000': missing key name before '='");
	/* ':' after the '=' is part of the value */
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;

		f = parse_clean("[Match]\nPCIAddress=0000:3b:00.* 0000:5e:00.1\n");
		assert_string_equal(f->match.pci_address[0], "0000:3b:00.*");
		assert_string_equal(f->match.pci_address[1], "0000:5e:00.1");
		assert_null(f->match.pci_address[2]);
	}
	/* every bad line is reported, not only the first */
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;
		struct diag_list d = {};

		f = parse(MATCH_ALL "[PhysicalFunction]\nfoo\nMTUBytes=1\nbar: 1\nLinkUp=2\n", &d);
		assert_int_equal(diag_count(&d, DIAG_ERROR), 4);
		assert_int_equal(d.items[0].line, 4);
		assert_int_equal(d.items[1].line, 5);
		assert_int_equal(d.items[2].line, 6);
		assert_int_equal(d.items[3].line, 7);
		diag_list_done(&d);
	}
}

/* The lines under an invalid [VirtualFunction ...] header are checked too,
 * and none of them is applied. */
static void test_lines_under_invalid_header(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};

	f = parse(MATCH_ALL "[VirtualFunction 2-1]\nTrust=maybe\nVLANId=9999\nTrsut=yes\n"
			    "MACAddress=02:00:00:00:00:01\nMinTxRateMbps=200\nMaxTxRateMbps=100\n"
			    "[VirtualFunction 0]\nTrust=yes\n",
		  &d);
	assert_int_equal(d.n, 5);
	assert_int_equal(d.items[0].line, 3);
	assert_string_equal(d.items[1].msg,
			    "Trust=maybe: must be a boolean (yes/no/true/false/on/off/1/0)");
	assert_string_equal(d.items[2].msg, "VLANId=9999: must be 0..4095");
	assert_string_equal(d.items[3].msg,
			    "unknown key 'Trsut' in [VirtualFunction 2-1]; did you mean 'Trust'?");
	assert_int_equal(d.items[4].line, 8);
	assert_string_equal(d.items[4].msg,
			    "MinTxRateMbps=200: must not exceed MaxTxRateMbps=100 (line 9)");
	/* only the valid section is kept, with its own line */
	assert_int_equal(f->n_vf_sections, 1);
	assert_int_equal(f->vf_sections[0].first, 0);
	assert_false(vf_settings_has(&f->vf_sections[0].settings, VF_KEY_VLAN));
	diag_list_done(&d);
}

/* A '[' without its ']' is a [Match] error: fnmatch() would take it literally. */
static void test_match_broken_glob(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	expect_error("[Match]\nName=ens1f[0\n", 2, "Name=ens1f[0: '[' without a closing ']'");
	expect_error("[Match]\nDriver=ice[\n", 2, "Driver=ice[: '[' without a closing ']'");
	expect_error("[Match]\nPCIAddress=0000:3b:00.[0\n", 2,
		     "PCIAddress=0000:3b:00.[0: '[' without a closing ']'");
	expect_error("[Match]\nDevice=0x159[b\n", 2, "Device=0x159[b: '[' without a closing ']'");
	expect_error("[Match]\nName=ens1f[01] ens2f[!\n", 2,
		     "Name=ens1f[01] ens2f[!: '[' without a closing ']'");
	/* a ']' first in the set is a member, and sets that close are fine */
	expect_error("[Match]\nName=ens[]\n", 2, "Name=ens[]: '[' without a closing ']'");
	f = parse_clean("[Match]\nName=ens[]]1 ens1f[!0] ens1f[0-1]\n");
	assert_false(f->has_error);
}

static void test_hash_in_value(void **state)
{
	expect_error(
		MATCH_ALL "[PhysicalFunction]\nMTUBytes=9000 # jumbo\n", 4,
		"MTUBytes=9000 # jumbo: a '#' after a value is part of the value; comments are "
		"whole lines starting with '#' or ';' (the value must be 68..65535)");
	expect_error(MATCH_ALL "[VirtualFunction 0-1]\nResourceName=rdma # pool\n", 4,
		     "ResourceName=rdma # pool: a '#' after a value is part of the value; comments "
		     "are whole lines starting with '#' or ';' (the value must be 1..63 letters, "
		     "digits or '_')");
	expect_error(
		"[Match]\nName=ens1f0 # uplink\n", 2,
		"Name=ens1f0 # uplink: a '#' after a value is part of the value; comments are "
		"whole lines starting with '#' or ';' (the value must be interface name globs, "
		"each without '/', ':' or '#')");
	expect_error(
		"[Match]\nHost=worker-* ; fleet\n", 2,
		"Host=worker-* ; fleet: a ';' after a value is part of the value; comments are "
		"whole lines starting with '#' or ';' (the value must be host name globs "
		"(letters, digits, '.', '-', '_', and * ? [ ] !))");
	/* a '#' inside a value with no blank before it is no comment */
	expect_error(MATCH_ALL "[PhysicalFunction]\nMTUBytes=9000#x\n", 4,
		     "MTUBytes=9000#x: must be 68..65535");
	/* whole-line comments in both styles, also indented */
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;

		f = parse_clean("# a comment\n; another\n   # indented\n" MATCH_ALL);
		assert_int_equal(f->match.line, 4);
	}
}

static void test_line_length(void **state)
{
	_cleanup_free_ char *text = NULL;
	char *p;

	/* a 4000-byte line is fine */
	text = malloc(16 + 4000 + 64);
	assert_non_null(text);
	p = stpcpy(text, MATCH_ALL "#");
	memset(p, 'x', 3999);
	strcpy(p + 3999, "\n[PhysicalFunction]\nMTUBytes=9000\n");
	{
		_cleanup_layout_file_ struct layout_file *f = parse_clean(text);

		assert_int_equal(f->pf.src[PF_KEY_MTU].line, 5);
	}
	/* 4001 bytes is an error, and the lines after it keep their numbers */
	p = stpcpy(text, MATCH_ALL "#");
	memset(p, 'x', 4000);
	strcpy(p + 4000, "\n[PhysicalFunction]\nMTUBytes=9000\n");
	expect_error(text, 3, "line too long (more than 4000 bytes)");
	{
		_cleanup_layout_file_ struct layout_file *f = NULL;
		struct diag_list d = {};

		f = parse(text, &d);
		assert_int_equal(f->pf.mtu, 9000);
		assert_int_equal(f->pf.src[PF_KEY_MTU].line, 5);
		diag_list_done(&d);
	}
	/* also when it is a key line, and when it is the last line without '\n' */
	p = stpcpy(text, MATCH_ALL "Name=");
	memset(p, 'x', 4000);
	p[4000] = '\0';
	expect_error(text, 3, "line too long (more than 4000 bytes)");
}

static void test_rates(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	expect_error(MATCH_ALL "[VirtualFunction 0-3]\nMinTxRateMbps=500\nTrust=yes\n"
			       "MaxTxRateMbps=100\n",
		     4, "MinTxRateMbps=500: must not exceed MaxTxRateMbps=100 (line 6)");
	/* Max before Min; the check runs when the next section starts */
	expect_error(MATCH_ALL "[VirtualFunction]\nMaxTxRateMbps=100\nMinTxRateMbps=101\n"
			       "[PhysicalFunction]\nMTUBytes=9000\n",
		     5, "MinTxRateMbps=101: must not exceed MaxTxRateMbps=100 (line 4)");
	f = parse_clean(MATCH_ALL "[VirtualFunction 0-3]\nMinTxRateMbps=500\nMaxTxRateMbps=0\n"
				  "[VirtualFunction 4]\nMinTxRateMbps=100\nMaxTxRateMbps=100\n"
				  "[VirtualFunction 5]\nMinTxRateMbps=100\n"
				  "[VirtualFunction 5]\nMaxTxRateMbps=10\n");
	assert_int_equal(f->n_vf_sections, 4);
}

static void test_empty_value_resets(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	const struct vf_settings *s;

	f = parse_clean("[Match]\nName=ens1f0 ens2f*\nName=\nDriver=ice\nDriver=\nDriver=i40e\n"
			"[PhysicalFunction]\nVirtualFunctions=8\nVirtualFunctions=\nMTUBytes=9000\n"
			"[VirtualFunction 1]\nDriver=vfio-pci\nDriver=\nResourceName=x\n"
			"ResourceName=\nMACAddress=02:00:00:00:00:01\nMACAddress=\nVLANId=3\n");
	assert_null(f->match.name);
	assert_string_equal(f->match.driver[0], "i40e");
	assert_null(f->match.driver[1]);
	assert_false(pf_settings_has(&f->pf, PF_KEY_VIRTUAL_FUNCTIONS));
	assert_int_equal(f->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].line, 0);
	assert_true(pf_settings_has(&f->pf, PF_KEY_MTU));
	s = &f->vf_sections[0].settings;
	assert_int_equal(s->set, 1u << VF_KEY_VLAN);
	assert_null(s->attrs.driver);
	assert_null(s->attrs.resource_name);
	assert_int_equal(s->src[VF_KEY_DRIVER].line, 0);
}

static void test_match(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean("\n[Match]\nPCIAddress=0000:3b:00.* 0000:[5-6]?:00.[!1]\n"
			"Name=ens1f0   ens2f*\nVendor=0x8086\nDevice=0x159? 0X15[9a]b\n"
			"Driver=ice mlx5_*\nHost=worker-* gpu_node.example.com\n"
			"[PhysicalFunction]\nMTUBytes=9000\n[Match]\nName=enp*\n");
	assert_int_equal(f->match.line, 2);
	assert_int_equal(strv_length(f->match.pci_address), 2);
	assert_string_equal(f->match.pci_address[1], "0000:[5-6]?:00.[!1]");
	/* repeated keys and sections add */
	assert_int_equal(strv_length(f->match.name), 3);
	assert_string_equal(f->match.name[0], "ens1f0");
	assert_string_equal(f->match.name[1], "ens2f*");
	assert_string_equal(f->match.name[2], "enp*");
	assert_string_equal(f->match.vendor[0], "0x8086");
	assert_int_equal(strv_length(f->match.device), 2);
	assert_int_equal(strv_length(f->match.driver), 2);
	assert_string_equal(f->match.host[1], "gpu_node.example.com");
}

static void test_match_invalid(void **state)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "Name=ens1/0",
		  "Name=ens1/0: must be interface name globs, each without '/', ':' or '#'" },
		{ "Name=eth0 eth0:1",
		  "Name=eth0 eth0:1: must be interface name globs, each without '/', ':' or '#'" },
		{ "PCIAddress=0000:3g:00.0",
		  "PCIAddress=0000:3g:00.0: must be PCI address globs (hex digits, ':', '.', and * ? "
		  "[ ] ! -)" },
		{ "PCIAddress=/sys/bus/pci",
		  "PCIAddress=/sys/bus/pci: must be PCI address globs (hex digits, ':', '.', and * ? "
		  "[ ] ! -)" },
		{ "Vendor=8086",
		  "Vendor=8086: must be globs like 0x8086 (0x, then hex digits or * ? [ ] ! -)" },
		{ "Vendor=0x",
		  "Vendor=0x: must be globs like 0x8086 (0x, then hex digits or * ? [ ] ! -)" },
		{ "Device=0x15zz",
		  "Device=0x15zz: must be globs like 0x8086 (0x, then hex digits or * ? [ ] ! -)" },
		{ "Device=*",
		  "Device=*: must be globs like 0x8086 (0x, then hex digits or * ? [ ] ! -)" },
		{ "Driver=ice/x",
		  "Driver=ice/x: must be driver name globs (letters, digits, '_', '-', and * ? [ ] !)" },
		{ "Host=worker/1",
		  "Host=worker/1: must be host name globs (letters, digits, '.', '-', '_', and * ? [ ] "
		  "!)" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *text = NULL;

		text = strdup_printf("[Match]\n%s\n", cases[i].line);
		expect_error(text, 2, cases[i].msg);
	}
}

static void test_no_match_section(void **state)
{
	static const char msg[] = "no [Match] section; a layout must say which PFs it selects; "
				  "use [Match] with PCIAddress=* to select all";
	_cleanup_free_ char *s = NULL;
	struct diag_list d = {};

	expect_error("[PhysicalFunction]\nVirtualFunctions=8\n", 0, msg);
	expect_error("", 0, msg);
	expect_error("# nothing\n", 0, msg);
	/* as the user sees it */
	layout_file_free(parse("[PhysicalFunction]\n", &d));
	s = diag_format(&d.items[0]);
	assert_string_equal(s, PATH ": no [Match] section; a layout must say which PFs it "
				    "selects; use [Match] with PCIAddress=* to select all");
	diag_list_done(&d);
}

/* A header with a comment after it is an error that says so, and the lines
 * below it are read as under the header it names: their errors are said. */
static void test_header_comment(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};

	f = parse(MATCH_ALL "[PhysicalFunction] ; pf\nMTUBytes=9000\nLinkUp=maybe\n", &d);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.items[0].line, 3);
	assert_string_equal(d.items[0].msg,
			    "'[PhysicalFunction] ; pf': a comment after a section header is not "
			    "allowed; comments are whole lines starting with '#' or ';'");
	assert_int_equal(d.items[1].line, 5);
	assert_true(startswith(d.items[1].msg, "LinkUp=maybe: must be a boolean"));
	assert_int_equal(f->pf.mtu, 9000);
	assert_true(f->has_error);
	diag_list_done(&d);
}

/* A header that was meant as [Match], in a file without one, is one error
 * at its line that says so. */
static void test_no_match_mistyped(void **state)
{
	struct diag_list d = {};

	layout_file_free(parse("# c\n[match]\nName=ens1f0\n", &d));
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].line, 2);
	assert_string_equal(d.items[0].msg,
			    "unknown section [match]: section names are "
			    "case-sensitive, write [Match] (the file has no [Match] "
			    "section)");
	diag_list_done(&d);
	layout_file_free(parse("[Mach]\nName=ens1f0\n", &d));
	assert_int_equal(d.n, 1);
	assert_string_equal(
		d.items[0].msg,
		"unknown section [Mach]: write [Match] (the file has no [Match] section)");
	diag_list_done(&d);
	/* with a [Match] elsewhere, the typo is an unknown section */
	layout_file_free(parse("[Match]\nName=ens1f0\n[match]\n", &d));
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].line, 3);
	assert_true(strstr(d.items[0].msg, "did you mean '[Match]'?"));
	diag_list_done(&d);
}

/* Name=a, b: the globs are "a," and "b" (a ',' may be in an interface
 * name), with a warning that says how to write a list. */
static void test_name_commas(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};

	f = parse("[Match]\nName=ens1f0, ens1f1,ens2\n", &d);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].level, DIAG_WARNING);
	assert_int_equal(d.items[0].line, 2);
	assert_string_equal(
		d.items[0].msg,
		"Name=ens1f0, ens1f1,ens2: globs are separated by spaces, not commas: "
		"write 'Name=ens1f0 ens1f1 ens2' (a ',' is taken as part of an interface "
		"name)");
	assert_false(f->has_error);
	assert_string_equal(f->match.name[0], "ens1f0,");
	assert_string_equal(f->match.name[1], "ens1f1,ens2");
	diag_list_done(&d);
}

/* Each [Match] key keeps the line that first set it; an empty value
 * unsets it. A VF key whose value was rejected is marked so. */
static void test_key_lines(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};

	f = parse_clean("[Match]\n# c\nDriver=ice\nName=a\nName=b\nPCIAddress=*\nPCIAddress=\n");
	assert_string_equal(layout_match_key_name(4), "Driver");
	assert_int_equal(f->match.key_line[4], 3);
	assert_int_equal(f->match.key_line[1], 4);
	assert_int_equal(f->match.key_line[0], 0);
	assert_ptr_equal(*layout_match_list(&f->match, 1), f->match.name);
	layout_file_free(TAKE_PTR(f));

	f = parse(MATCH_ALL "[VirtualFunction 0]\nVLANId=9999\n", &d);
	assert_true(f->vf_sections[0].settings.rejected & (1u << VF_KEY_VLAN));
	layout_file_free(TAKE_PTR(f));
	diag_list_done(&d);
	f = parse(MATCH_ALL "[VirtualFunction 0]\nVLANId=9999\nVLANId=5\n", &d);
	assert_false(f->vf_sections[0].settings.rejected & (1u << VF_KEY_VLAN));
	diag_list_done(&d);
}

static void test_crlf_and_bom(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean(
		"\xEF\xBB\xBF[Match]\r\nPCIAddress=0000:3b:00.0\r\n\r\n# c\r\n"
		"[PhysicalFunction]\r\nVirtualFunctions=4\r\nLinkUp=yes\r\n"
		"[VirtualFunction 1]\r\nDriver=vfio-pci\r\nMACAddress=02:00:00:00:00:01\r\n");
	assert_int_equal(f->match.line, 1);
	assert_string_equal(f->match.pci_address[0], "0000:3b:00.0");
	assert_int_equal(f->pf.num_vfs, 4);
	assert_int_equal(f->pf.src[PF_KEY_LINK_UP].line, 7);
	assert_string_equal(f->vf_sections[0].settings.attrs.driver, "vfio-pci");
	assert_int_equal(f->vf_sections[0].line, 8);
	layout_file_free(f);

	/* a BOM only counts at the very start */
	f = parse_clean(MATCH_ALL "[PhysicalFunction]\nMTUBytes=9000");
	assert_int_equal(f->pf.mtu, 9000);
	expect_error(MATCH_ALL "\xEF\xBB\xBF[PhysicalFunction]\n", 3,
		     "'\xEF\xBB\xBF[PhysicalFunction]': not a Key=value line");
}

static void test_repeated_sections(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL;

	f = parse_clean(MATCH_ALL "[PhysicalFunction]\nVirtualFunctions=4\n"
				  "[VirtualFunction 0]\nTrust=yes\n"
				  "[PhysicalFunction]\nMTUBytes=9000\nVirtualFunctions=8\n"
				  "[VirtualFunction 0]\nTrust=no\n");
	assert_int_equal(f->pf.num_vfs, 8);
	assert_int_equal(f->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].line, 9);
	assert_int_equal(f->pf.mtu, 9000);
	assert_int_equal(f->n_vf_sections, 2);
	assert_true(f->vf_sections[0].settings.attrs.trust);
	assert_false(f->vf_sections[1].settings.attrs.trust);
}

static void test_merge(void **state)
{
	_cleanup_layout_file_ struct layout_file *a = NULL, *b = NULL;
	struct vf_settings m = {};
	struct pf_settings p = {};

	a = parse_clean(MATCH_ALL "[PhysicalFunction]\nVirtualFunctions=max\nMTUBytes=9000\n"
				  "[VirtualFunction]\nDriver=vfio-pci\nVLANId=10\nResourceName=a\n"
				  "Trust=yes\n");
	b = parse_clean(
		MATCH_ALL
		"[PhysicalFunction]\nVirtualFunctions=4\nLinkUp=yes\n"
		"[VirtualFunction 0]\nDriver=default\nVLANId=20\nMACAddress=02:00:00:00:00:09\n");

	pf_settings_merge(&p, &a->pf);
	pf_settings_merge(&p, &b->pf);
	assert_false(p.num_vfs_max);
	assert_int_equal(p.num_vfs, 4);
	assert_ptr_equal(p.src[PF_KEY_VIRTUAL_FUNCTIONS].file, b->path);
	assert_int_equal(p.src[PF_KEY_VIRTUAL_FUNCTIONS].line, 4);
	assert_int_equal(p.mtu, 9000);
	assert_ptr_equal(p.src[PF_KEY_MTU].file, a->path);
	assert_true(p.link_up);
	assert_int_equal(p.set,
			 1u << PF_KEY_VIRTUAL_FUNCTIONS | 1u << PF_KEY_MTU | 1u << PF_KEY_LINK_UP);

	assert_int_equal(vf_settings_merge(&m, &a->vf_sections[0].settings), 0);
	/* deep copies */
	assert_ptr_not_equal(m.attrs.driver, a->vf_sections[0].settings.attrs.driver);
	assert_string_equal(m.attrs.driver, "vfio-pci");
	assert_ptr_not_equal(m.attrs.resource_name, a->vf_sections[0].settings.attrs.resource_name);
	assert_int_equal(vf_settings_merge(&m, &b->vf_sections[0].settings), 0);
	/* later wins per key, "default" included; unset keys keep earlier values */
	assert_true(vf_settings_has(&m, VF_KEY_DRIVER));
	assert_null(m.attrs.driver);
	assert_int_equal(m.attrs.vlan, 20);
	assert_int_equal(m.src[VF_KEY_VLAN].line, 8);
	assert_false(vf_settings_is_stable(&m, VF_KEY_MAC));
	assert_int_equal(m.attrs.mac.b[5], 9);
	assert_string_equal(m.attrs.resource_name, "a");
	assert_true(m.attrs.trust);
	assert_int_equal(m.src[VF_KEY_TRUST].line, 10);
	assert_ptr_equal(m.src[VF_KEY_TRUST].file, a->path);
	/* survives the files it came from */
	layout_file_free(TAKE_PTR(a));
	assert_string_equal(m.attrs.resource_name, "a");
	vf_settings_done(&m);
	assert_int_equal(m.set, 0);
	vf_settings_done(NULL);
}

static void test_key_names(void **state)
{
	assert_string_equal(pf_key_to_string(PF_KEY_VIRTUAL_FUNCTIONS), "VirtualFunctions");
	assert_string_equal(pf_key_to_string(PF_KEY_FIRMWARE_VFS), "FirmwareVirtualFunctions");
	assert_string_equal(vf_key_to_string(VF_KEY_MAC), "MACAddress");
	assert_string_equal(vf_key_to_string(VF_KEY_QUERY_RSS), "QueryReceiveSideScaling");
	assert_null(pf_key_to_string(_PF_KEY_MAX));
	assert_null(pf_key_to_string(_PF_KEY_INVALID));
	assert_null(vf_key_to_string(_VF_KEY_MAX));
	/* every name is a key the parser knows: setting it to garbage is an error naming it */
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		_cleanup_layout_file_ struct layout_file *f = NULL;
		_cleanup_free_ char *text = NULL, *prefix = NULL;
		struct diag_list d = {};

		assert_non_null(vf_key_to_string(k));
		text = strdup_printf(MATCH_ALL "[VirtualFunction 1]\n%s=a/b\n",
				     vf_key_to_string(k));
		prefix = strdup_printf("%s=a/b: ", vf_key_to_string(k));
		f = parse(text, &d);
		assert_int_equal(d.n, 1);
		assert_int_equal(d.items[0].level, DIAG_ERROR);
		assert_true(strncmp(d.items[0].msg, prefix, strlen(prefix)) == 0);
		diag_list_done(&d);
	}
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		_cleanup_layout_file_ struct layout_file *f = NULL;
		_cleanup_free_ char *text = NULL;
		struct diag_list d = {};

		text = strdup_printf(MATCH_ALL "[PhysicalFunction]\n%s=a/b\n", pf_key_to_string(k));
		f = parse(text, &d);
		assert_int_equal(diag_count(&d, DIAG_ERROR), 1);
		diag_list_done(&d);
	}
}

static void test_parse_file(void **state)
{
	char dir[] = "/tmp/test-layout-XXXXXX", path[64], nul[64];
	_cleanup_layout_file_ struct layout_file *f = NULL;
	struct diag_list d = {};
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/10-a.conf", dir);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs("[Match]\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=2\n", fp);
	fclose(fp);
	assert_int_equal(layout_parse_file(path, &d, &f), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(f->path, path);
	assert_int_equal(f->pf.num_vfs, 2);
	assert_ptr_equal(f->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].file, f->path);
	layout_file_free(TAKE_PTR(f));

	/* a NUL byte: not a text file */
	snprintf(nul, sizeof(nul), "%s/20-nul.conf", dir);
	fp = fopen(nul, "we");
	assert_non_null(fp);
	fwrite("[Match]\n\0x\n", 1, 11, fp);
	fclose(fp);
	assert_int_equal(layout_parse_file(nul, &d, &f), 0);
	assert_true(f->has_error);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].line, 0);
	assert_string_equal(d.items[0].msg, "cannot read: contains a NUL byte, not a text file");
	layout_file_free(TAKE_PTR(f));
	diag_list_done(&d);

	/* unreadable: an error file that selects nothing known */
	assert_int_equal(layout_parse_file("/nonexistent/x.conf", &d, &f), 0);
	assert_true(f->has_error);
	assert_string_equal(f->path, "/nonexistent/x.conf");
	assert_int_equal(d.n, 1);
	assert_int_equal(d.items[0].level, DIAG_ERROR);
	assert_int_equal(d.items[0].line, 0);
	assert_string_equal(d.items[0].file, "/nonexistent/x.conf");
	assert_string_equal(d.items[0].msg, "cannot read: No such file or directory");
	layout_file_free(TAKE_PTR(f));
	diag_list_done(&d);

	/* a directory */
	assert_int_equal(layout_parse_file(dir, &d, &f), 0);
	assert_true(f->has_error);
	assert_string_equal(d.items[0].msg, "cannot read: Is a directory");
	diag_list_done(&d);

	unlink(path);
	unlink(nul);
	rmdir(dir);
}

static void test_null_diags(void **state)
{
	_cleanup_layout_file_ struct layout_file *f = NULL, *g = NULL;

	assert_int_equal(layout_parse_string(PATH, "[PhysicalFunction]\nMTUBytes=1\n", NULL, &f),
			 0);
	assert_true(f->has_error);
	assert_int_equal(layout_parse_file("/nonexistent", NULL, &g), 0);
	assert_true(g->has_error);
	assert_null(layout_file_free(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pf_valid),
		cmocka_unit_test(test_pf_other_spellings),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_pf_invalid),
		cmocka_unit_test(test_vf_valid),
		cmocka_unit_test(test_vf_other_spellings),
		cmocka_unit_test(test_vf_invalid),
		cmocka_unit_test(test_literal_mac_needs_single_vf),
		cmocka_unit_test(test_section_headers),
		cmocka_unit_test(test_malformed_headers),
		cmocka_unit_test(test_unknown_things),
		cmocka_unit_test(test_layout_overrides),
		cmocka_unit_test(test_extensions),
		cmocka_unit_test(test_match_errors_hold_all),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_match_broken_glob),
		cmocka_unit_test(test_lines_under_invalid_header),
		cmocka_unit_test(test_hash_in_value),
		cmocka_unit_test(test_line_length),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_empty_value_resets),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_match_invalid),
		cmocka_unit_test(test_no_match_section),
		cmocka_unit_test(test_crlf_and_bom),
		cmocka_unit_test(test_repeated_sections),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_header_comment),
		cmocka_unit_test(test_no_match_mistyped),
		cmocka_unit_test(test_name_commas),
		cmocka_unit_test(test_key_lines),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_parse_file),
		cmocka_unit_test(test_null_diags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
