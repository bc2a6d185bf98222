/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The status and plan documents, on fixture hosts with layouts parsed from
 * text and status records in a temporary runtime directory. The member
 * names and their order are checked as well as the values: scripts and
 * the integration tests parse these documents, and the daemon returns them. */

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "json-util.h"
#include "report-edited.h"
#include "report-gone.h"
#include "report.h"
#include "snapshot.h"
#include "status.h"

#define FIXTURES "tests/fixtures/hosts/"
#define LAYOUT "/etc/sriov-persist/conf.d/50-test.conf"
#define ICE_PF "0000:3b:00.0" /* mixed.json: ice, 2 VFs */
#define MLX_PF "0000:5e:00.0" /* mixed.json: mlx5_core, no VFs */

#define PLAN_PF_KEYS \
	"pci,name,configured,held,held_reason,disruptive,actions,reboot_reasons,reboot_planned,unmet,waiting,notes,config_files"
#define STATUS_PF_KEYS                                                                                       \
	"pci,name,driver,link_type,firmware_link_type,speed,state,reason,num_vfs,total_vfs,desired_num_vfs," \
	"config_files,pending_actions,pending_reboot_reasons,waiting,last_apply,reset_waits,firmware_note,firmware_card_need,settings,vfs"
#define VF_KEYS                                                                                   \
	"index,pci,name,driver,mac,vlan,qos,trust,spoofchk,link_state,ib_node_guid,ib_port_guid," \
	"mtu,rdma,representor,representor_up,layout,settings"

struct env {
	struct host_state *hs;
	struct layout_file *file;
	struct layout_set set; /* one file; the parser's diagnostics */
	struct host_view v;
	char runtime[64];
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	snprintf(e->runtime, sizeof(e->runtime), "/tmp/test-report-XXXXXX");
	assert_non_null(mkdtemp(e->runtime));
	*state = e;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void env_unload(struct env *e)
{
	host_view_done(&e->v);
	layout_file_free(e->file);
	host_state_free(e->hs);
	diag_list_done(&e->set.diags);
	e->file = NULL;
	e->hs = NULL;
}

static int teardown(void **state)
{
	struct env *e = *state;

	env_unload(e);
	nftw(e->runtime, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(e);
	return 0;
}

/* The fixture host, one layout file (none when NULL) and the view of every
 * PF, or only of the PF called only. */
static void env_load(struct env *e, const char *fixture, const char *layout, const char *only)
{
	_cleanup_free_ char *text = NULL, *error = NULL;

	env_unload(e);
	assert_int_equal(read_file(fixture, &text), 0);
	assert_int_equal(snapshot_parse(text, &e->hs, &error), 0);
	e->set = (struct layout_set){};
	if (layout) {
		assert_int_equal(layout_parse_string(LAYOUT, layout, &e->set.diags, &e->file), 0);
		e->set.files = &e->file;
		e->set.n_files = 1;
	}
	assert_int_equal(host_view_build(e->hs, &e->set, only, &e->v), 0);
}

/* When the records written finish: in 1970, before this boot. */
static usec_t record_finished = 3000;

static void write_record(const struct env *e, const char *pci, const char *name,
			 enum pf_status_state state, const char *error)
{
	struct pf_status st = {
		.name = (char *)name,
		.state = state,
		.error = (char *)error,
		.started = 1000,
		.finished = record_finished,
		.n_actions = 2,
		.host_usec = 500,
		.num_vfs = 2,
		.reboot_reasons = (char *[]){ NULL },
		.config_files = (char *[]){ NULL },
	};

	snprintf(st.pci, sizeof(st.pci), "%s", pci);
	assert_int_equal(pf_status_write(e->runtime, &st), 0);
}

/* ---- reading the documents ---- */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no member \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static const char *str(struct json_object *o, const char *key)
{
	return json_object_get_string(get(o, key));
}

static int64_t num(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_int64(v);
}

static bool boolean(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_boolean));
	return json_object_get_boolean(v);
}

static struct json_object *idx(struct json_object *o, const char *key, size_t i)
{
	struct json_object *a = get(o, key);

	assert_true(json_object_is_type(a, json_type_array));
	assert_true(i < json_object_array_length(a));
	return json_object_array_get_idx(a, i);
}

static size_t len(struct json_object *o, const char *key)
{
	struct json_object *a = get(o, key);

	assert_true(json_object_is_type(a, json_type_array));
	return json_object_array_length(a);
}

/* The member names of o in order, comma-separated. */
static void assert_keys(struct json_object *o, const char *want)
{
	char buf[512] = "";

	json_object_object_foreach(o, key, val)
	{
		(void)val;
		if (buf[0])
			strcat(buf, ",");
		strcat(buf, key);
	}
	assert_string_equal(buf, want);
}

static struct json_object *find_pf(struct json_object *doc, const char *pci)
{
	for (size_t i = 0; i < len(doc, "pfs"); i++)
		if (streq(str(idx(doc, "pfs", i), "pci"), pci))
			return idx(doc, "pfs", i);
	return NULL;
}

/* ---- plan ---- */

static void test_plan_changes(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *doc = NULL;
	struct json_object *pf, *a;

	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=4\n"
		 "[VirtualFunction 1]\nVLANId=5\n",
		 NULL);
	assert_int_equal(report_plan(&e->v, e->runtime, &doc), 0);
	assert_keys(doc, "pfs,changes");
	assert_true(boolean(doc, "changes"));
	assert_int_equal(len(doc, "pfs"), 3);

	pf = idx(doc, "pfs", 0);
	assert_keys(pf, PLAN_PF_KEYS);
	assert_string_equal(str(pf, "pci"), ICE_PF);
	assert_string_equal(str(pf, "name"), "ens1f0");
	assert_true(boolean(pf, "configured"));
	assert_false(boolean(pf, "held"));
	assert_null(get(pf, "held_reason"));
	/* 2 -> 4 VFs on ice: remove them all, create 4; then the VLAN on VF 1 */
	assert_true(boolean(pf, "disruptive"));
	assert_int_equal(len(pf, "actions"), 3);
	a = idx(pf, "actions", 0);
	assert_keys(a, "action,description,disruptive,needs_reboot");
	assert_string_equal(str(a, "action"), "set_num_vfs");
	assert_string_equal(str(a, "description"), "remove all VFs");
	assert_true(boolean(a, "disruptive"));
	assert_false(boolean(a, "needs_reboot"));
	assert_string_equal(str(idx(pf, "actions", 1), "description"), "set 4 VFs");
	a = idx(pf, "actions", 2);
	assert_keys(a, "action,description,disruptive,needs_reboot,vf");
	assert_string_equal(str(a, "action"), "set_vf");
	assert_string_equal(str(a, "description"), "VF 1: vlan 5 qos 0 802.1Q");
	assert_false(boolean(a, "disruptive"));
	assert_int_equal(num(a, "vf"), 1);
	assert_int_equal(len(pf, "reboot_reasons"), 0);
	assert_int_equal(len(pf, "config_files"), 1);
	assert_string_equal(json_object_get_string(idx(pf, "config_files", 0)), LAYOUT);

	/* no layout selects the others: no actions, never touched */
	pf = idx(doc, "pfs", 1);
	assert_keys(pf, PLAN_PF_KEYS);
	assert_string_equal(str(pf, "pci"), MLX_PF);
	assert_false(boolean(pf, "configured"));
	assert_false(boolean(pf, "held"));
	assert_false(boolean(pf, "disruptive"));
	assert_int_equal(len(pf, "actions"), 0);
	assert_int_equal(len(pf, "config_files"), 0);
}

static void test_plan_held_and_in_sync(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *held = NULL, *sync = NULL;
	struct json_object *pf;

	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[VirtualFunction]\nVLANId=9999\n", NULL);
	assert_int_equal(report_plan(&e->v, e->runtime, &held), 0);
	assert_false(boolean(held, "changes"));
	pf = find_pf(held, ICE_PF);
	assert_non_null(pf);
	assert_true(boolean(pf, "configured"));
	assert_true(boolean(pf, "held"));
	assert_string_equal(str(pf, "held_reason"), LAYOUT ":4: VLANId=9999: must be 0..4095");
	assert_int_equal(len(pf, "actions"), 0);
	assert_int_equal(len(pf, "config_files"), 1);

	/* the layout asks for what the host has */
	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=2\n", NULL);
	assert_int_equal(report_plan(&e->v, e->runtime, &sync), 0);
	assert_false(boolean(sync, "changes"));
	pf = find_pf(sync, ICE_PF);
	assert_true(boolean(pf, "configured"));
	assert_false(boolean(pf, "held"));
	assert_int_equal(len(pf, "actions"), 0);
}

static void test_only_one_pf(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *doc = NULL;
	struct host_view v;

	env_load(e, FIXTURES "mixed.json", NULL, "ens2f0np0");
	assert_int_equal(report_plan(&e->v, e->runtime, &doc), 0);
	assert_int_equal(len(doc, "pfs"), 1);
	assert_string_equal(str(idx(doc, "pfs", 0), "pci"), MLX_PF);
	assert_int_equal(host_view_build(e->hs, &e->set, "ens9f9", &v), -ENXIO);
	assert_int_equal(host_view_build(e->hs, &e->set, "0000:00:00.0", &v), -ENXIO);
}

/* ---- status ---- */

static void test_status_pending_and_drift(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *pending = NULL, *drifted = NULL, *failed = NULL;
	struct json_object *pf, *vf, *last;

	/* a live change to VF 1 only */
	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=2\n"
		 "[VirtualFunction 1]\nVLANId=5\n",
		 NULL);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &pending), 0);
	assert_keys(pending, "pfs");
	assert_int_equal(len(pending, "pfs"), 3);
	pf = idx(pending, "pfs", 0);
	assert_keys(pf, STATUS_PF_KEYS);
	assert_string_equal(str(pf, "driver"), "ice");
	assert_string_equal(str(pf, "state"), "pending");
	assert_string_equal(str(pf, "reason"), "not applied yet");
	assert_int_equal(num(pf, "num_vfs"), 2);
	assert_int_equal(num(pf, "total_vfs"), 128);
	assert_int_equal(num(pf, "desired_num_vfs"), 2);
	assert_int_equal(num(pf, "pending_actions"), 1);
	assert_int_equal(len(pf, "pending_reboot_reasons"), 0);
	assert_null(get(pf, "last_apply"));
	assert_int_equal(len(pf, "vfs"), 2);
	vf = idx(pf, "vfs", 0);
	assert_keys(vf, VF_KEYS);
	assert_int_equal(num(vf, "index"), 0);
	assert_string_equal(str(vf, "link_state"), "auto");
	assert_string_equal(str(vf, "layout"), "ok");
	/* what the host has, then what is wanted; only the keys that differ */
	assert_string_equal(str(idx(pf, "vfs", 1), "layout"), "differs: vlan 0 (wanted 5)");
	/* every key of the table, wanted next to what the host has */
	assert_int_equal(json_object_object_length(get(vf, "settings")), _VF_KEY_MAX);
	vf = get(get(idx(pf, "vfs", 1), "settings"), "VLANId");
	assert_keys(vf, "now,wanted,source");
	assert_string_equal(str(vf, "now"), "0");
	assert_string_equal(str(vf, "wanted"), "5");
	assert_string_equal(str(vf, "source"), LAYOUT ":6");
	vf = get(get(idx(pf, "vfs", 1), "settings"), "MaxTxRateMbps");
	assert_string_equal(str(vf, "now"), "0");
	assert_null(get(vf, "wanted"));
	assert_null(get(vf, "source"));
	/* a key that is the layout's alone has no value on the host */
	assert_null(get(get(get(idx(pf, "vfs", 1), "settings"), "ResourceName"), "now"));
	assert_string_equal(str(get(get(pf, "settings"), "VirtualFunctions"), "wanted"), "2");
	assert_string_equal(str(get(get(pf, "settings"), "VirtualFunctions"), "source"),
			    LAYOUT ":4");
	assert_int_equal(json_object_object_length(get(pf, "settings")), _PF_KEY_MAX);
	assert_int_equal(len(pf, "config_files"), 1);
	assert_string_equal(json_object_get_string(idx(pf, "config_files", 0)), LAYOUT);

	pf = idx(pending, "pfs", 1);
	assert_string_equal(str(pf, "state"), "unconfigured");
	assert_null(get(pf, "reason"));
	assert_null(get(pf, "desired_num_vfs"));
	assert_int_equal(num(pf, "pending_actions"), 0);

	/* applied before, differs now: drift */
	write_record(e, ICE_PF, "ens1f0", PF_STATUS_APPLIED, NULL);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &drifted), 0);
	assert_int_equal(len(drifted, "pfs"), 3);
	pf = find_pf(drifted, ICE_PF);
	assert_string_equal(str(pf, "state"), "drifted");
	assert_null(get(pf, "reason"));
	last = get(pf, "last_apply");
	assert_keys(last,
		    "state,pending_reboot,error,finished_usec,actions,started_usec,host_usec,by,"
		    "without_drain");
	assert_false(boolean(last, "pending_reboot"));
	assert_string_equal(str(last, "by"), "apply");
	assert_string_equal(str(last, "state"), "applied");
	assert_null(get(last, "error"));
	assert_int_equal(num(last, "finished_usec"), 3000);
	assert_int_equal(num(last, "actions"), 2);
	assert_int_equal(num(last, "started_usec"), 1000);
	assert_int_equal(num(last, "host_usec"), 500);

	/* [Drift] Mode=report leaves it: the reason says so, where, and what
	 * repairs it, with the options sriovctl was given */
	{
		_cleanup_json_ struct json_object *kept = NULL;

		snprintf(e->set.drift_report_at, sizeof(e->set.drift_report_at), "%s",
			 "/etc/sriov-persist/sriov-persist.conf:3");
		e->v.ctl_options = " --host h.json";
		assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &kept), 0);
		pf = find_pf(kept, ICE_PF);
		assert_string_equal(str(pf, "state"), "drifted");
		assert_string_equal(
			str(pf, "reason"),
			"not repaired ([Drift] Mode=report in "
			"/etc/sriov-persist/sriov-persist.conf:3); sriovctl --host h.json "
			"apply " ICE_PF " repairs it");
		e->set.drift_report_at[0] = '\0';
		e->v.ctl_options = NULL;
	}

	/* the last apply failed: its error is the reason */
	write_record(e, ICE_PF, "ens1f0", PF_STATUS_FAILED, "set 2 VFs failed: EIO");
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &failed), 0);
	pf = find_pf(failed, ICE_PF);
	assert_string_equal(str(pf, "state"), "failed");
	assert_string_equal(str(pf, "reason"), "set 2 VFs failed: EIO");
	assert_string_equal(str(get(pf, "last_apply"), "state"), "failed");
}

static void test_status_applied_and_held(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *applied = NULL, *held = NULL;
	struct json_object *pf;

	write_record(e, ICE_PF, "ens1f0", PF_STATUS_APPLIED, NULL);
	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=2\n", NULL);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &applied), 0);
	pf = find_pf(applied, ICE_PF);
	assert_string_equal(str(pf, "state"), "applied");
	/* a record from an earlier boot: the boot gate does not count it */
	assert_string_equal(str(pf, "reason"), "in place, but not applied in this boot yet "
					       "(sriovctl wait waits for it)");
	assert_int_equal(num(pf, "pending_actions"), 0);
	assert_string_equal(str(idx(pf, "vfs", 1), "layout"), "ok");
	json_object_put(applied);
	record_finished = now_realtime();
	write_record(e, ICE_PF, "ens1f0", PF_STATUS_APPLIED, NULL);
	record_finished = 3000;
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &applied), 0);
	pf = find_pf(applied, ICE_PF);
	assert_string_equal(str(pf, "state"), "applied");
	assert_null(get(pf, "reason"));

	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[VirtualFunction]\nVLANId=9999\n", NULL);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &held), 0);
	pf = find_pf(held, ICE_PF);
	assert_string_equal(str(pf, "state"), "held");
	assert_string_equal(str(pf, "reason"), LAYOUT ":4: VLANId=9999: must be 0..4095");
	/* nothing was planned for a held PF */
	assert_int_equal(num(pf, "pending_actions"), 0);
	assert_null(get(idx(pf, "vfs", 0), "layout"));
}

/* The last apply held the PF, and the files hold it no more: pending, as
 * wait says, also when nothing is left to do. */
static void test_status_hold_lifted(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *doc = NULL;
	struct json_object *pf;

	record_finished = now_realtime();
	write_record(e, ICE_PF, "ens1f0", PF_STATUS_HELD,
		     LAYOUT ":4: VLANId=9999: must be 0..4095");
	record_finished = 3000;
	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=2\n",
		 ICE_PF);
	assert_int_equal(e->v.pfs[0].plan->n_actions, 0);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &doc), 0);
	pf = find_pf(doc, ICE_PF);
	assert_string_equal(str(pf, "state"), "pending");
	assert_string_equal(str(pf, "reason"),
			    "not applied since its last apply held it, and what held it is fixed "
			    "now (sriovctl apply " ICE_PF " applies it)");
	assert_string_equal(str(get(pf, "last_apply"), "state"), "held");
}

/* The last apply was deferred by [Disruption] Policy=never: deferred while
 * the main configuration's policy defers it too (never, drain through
 * Kubernetes, or none given), pending once it lets the plan run. */
static void test_status_deferral_lifted(void **state)
{
	static const struct {
		const char *policy;
		bool runs;
		const char *state;
	} cases[] = {
		{ NULL, false, "deferred" },	  { "never", false, "deferred" },
		{ "drain", false, "deferred" },	  { "drain", true, "pending" },
		{ "immediate", true, "pending" },
	};
	struct env *e = *state;
	struct pf_status st = {
		.name = (char *)"ens1f0",
		.state = PF_STATUS_DEFERRED,
		.error = (char *)"disruptive changes held by [Disruption] Policy=never",
		.reboot_reasons = (char *[]){ NULL },
		.config_files = (char *[]){ (char *)LAYOUT, NULL },
		.waiting = (char *[]){ NULL },
		.deferred_by = (char *)"never",
	};

	snprintf(st.pci, sizeof(st.pci), "%s", ICE_PF);
	assert_int_equal(pf_status_write(e->runtime, &st), 0);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_json_ struct json_object *doc = NULL;
		struct json_object *pf;

		env_load(e, FIXTURES "mixed.json",
			 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=4\n",
			 ICE_PF);
		e->set.disruption_policy = cases[i].policy;
		e->set.disruption_runs = cases[i].runs;
		assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &doc), 0);
		pf = find_pf(doc, ICE_PF);
		assert_string_equal(str(pf, "state"), cases[i].state);
		if (cases[i].runs) {
			_cleanup_free_ char *why = strdup_printf(
				"not applied since its last apply was deferred by [Disruption] "
				"Policy=never, which is now Policy=%s (sriovctl apply " ICE_PF
				" applies it)",
				cases[i].policy);

			assert_string_equal(str(pf, "reason"), why);
		} else
			assert_string_equal(str(pf, "reason"), st.error);
		assert_string_equal(str(get(pf, "last_apply"), "state"), "deferred");
	}
}

/* A deferred reset of a PF that no layout selects: pending once the policy
 * lets it run, or once nothing disruptive is left for it (the VFs removed
 * by hand since), whatever the policy; an apply's record only by the
 * policy. */
static void test_reset_deferral_lifted(void **state)
{
	struct layout_set set = { .disruption_policy = "never" };
	struct pf_status st = { .state = PF_STATUS_DEFERRED,
				.reset = true,
				.deferred_by = (char *)"never" };
	char *why;

	(void)state;
	snprintf(st.pci, sizeof(st.pci), "%s", ICE_PF);
	assert_int_equal(report_reset_deferral_lifted(&set, &st, true, NULL, &why), 0);
	assert_null(why);
	assert_int_equal(report_reset_deferral_lifted(&set, &st, false, " --root /x", &why), 0);
	assert_string_equal(why,
			    "not reset since its last reset was deferred by [Disruption] "
			    "Policy=never, and nothing disruptive is left for it now (sriovctl "
			    "--root /x reset " ICE_PF " runs it)");
	free(why);
	/* the policy first, as report_deferral_lifted() says it */
	set.disruption_policy = "immediate";
	set.disruption_runs = true;
	assert_int_equal(report_reset_deferral_lifted(&set, &st, false, NULL, &why), 0);
	assert_string_equal(why,
			    "not reset since its last reset was deferred by [Disruption] "
			    "Policy=never, which is now Policy=immediate (sriovctl reset " ICE_PF
			    " runs it)");
	free(why);
	/* an apply's record, or one that is not deferred: not this rule's */
	set.disruption_policy = "never";
	set.disruption_runs = false;
	st.reset = false;
	assert_int_equal(report_reset_deferral_lifted(&set, &st, false, NULL, &why), 0);
	assert_null(why);
	st.reset = true;
	st.state = PF_STATUS_FAILED;
	assert_int_equal(report_reset_deferral_lifted(&set, &st, false, NULL, &why), 0);
	assert_null(why);
}

static void test_status_gone(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *all = NULL, *here = NULL, *plan = NULL;
	struct json_object *pf;

	write_record(e, ICE_PF, "ens1f0", PF_STATUS_APPLIED, NULL);
	write_record(e, "0000:af:00.0", "ens9f0", PF_STATUS_APPLIED, NULL);
	env_load(e, FIXTURES "mixed.json", NULL, NULL);

	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &all), 0);
	assert_int_equal(len(all, "pfs"), 4);
	pf = idx(all, "pfs", 3);
	assert_keys(pf, "pci,name,state,reason,last_apply");
	assert_string_equal(str(pf, "pci"), "0000:af:00.0");
	assert_string_equal(str(pf, "name"), "ens9f0");
	assert_string_equal(str(pf, "state"), "gone");
	/* why, from its record */
	assert_true(startswith(str(pf, "reason"), "recorded applied at "));
	assert_true(endswith(str(pf, "reason"), " VFs, no longer on the host"));
	/* when it was last applied, from its record */
	assert_string_equal(str(get(pf, "last_apply"), "state"), "applied");
	/* a record of a PF that is still there is not "gone" */
	assert_string_equal(str(find_pf(all, ICE_PF), "state"), "unconfigured");

	assert_int_equal(report_status(&e->v, e->runtime, NULL, false, &here), 0);
	assert_int_equal(len(here, "pfs"), 3);
	assert_null(find_pf(here, "0000:af:00.0"));

	/* the plan says it too, after the PFs of the host, with no action */
	assert_int_equal(report_plan(&e->v, e->runtime, &plan), 0);
	assert_int_equal(report_plan_add_gone(plan, e->v.hs, e->runtime), 0);
	assert_int_equal(len(plan, "pfs"), 4);
	pf = idx(plan, "pfs", 3);
	assert_keys(pf, "pci,name,configured,gone,reason,actions");
	assert_string_equal(str(pf, "pci"), "0000:af:00.0");
	assert_int_equal(len(pf, "actions"), 0);
}

/* vfio-pci on a host without an IOMMU: degraded, with the arguments to add;
 * never a pending reboot, and the VF row never "ok". */
static void test_vfio_without_iommu(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *status = NULL, *plan = NULL;
	struct json_object *pf, *vf;

	/* the ice PF of mixed.json runs 2 iavf VFs; here without an IOMMU */
	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[VirtualFunction 0]\nDriver=vfio-pci\n", NULL);
	host_view_done(&e->v);
	e->hs->iommu = false;
	assert_int_equal(host_view_build(e->hs, &e->set, NULL, &e->v), 0);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &status), 0);
	pf = find_pf(status, ICE_PF);
	assert_string_equal(str(pf, "state"), "degraded");
	assert_string_equal(
		str(pf, "reason"),
		"VF 0 wants vfio-pci but the IOMMU is off: the CPU's vendor is not known: "
		"add intel_iommu=on iommu=pt (Intel) or amd_iommu=on iommu=pt (AMD) to the "
		"kernel command line and reboot");
	assert_int_equal(len(pf, "pending_reboot_reasons"), 0);
	vf = idx(pf, "vfs", 0);
	assert_string_equal(str(vf, "driver"), "iavf");
	assert_string_equal(str(vf, "layout"), "differs: driver iavf (wanted vfio-pci)");
	assert_string_equal(str(idx(pf, "vfs", 1), "layout"), "ok");

	assert_int_equal(report_plan(&e->v, e->runtime, &plan), 0);
	pf = find_pf(plan, ICE_PF);
	assert_int_equal(len(pf, "reboot_reasons"), 0);
	assert_int_equal(len(pf, "unmet"), 1);
	assert_int_equal(len(pf, "actions"), 0);
}

/* A VF without a network interface (vfio-pci) has no MTU: null, as its
 * settings' MTUBytes "now" is; what the PF's netlink says of it stays. */
static void test_status_vf_without_netdev(void **state)
{
	struct env *e = *state;
	_cleanup_json_ struct json_object *status = NULL;
	struct json_object *pf, *vf;
	struct vf_state *v;

	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=2\n", NULL);
	host_view_done(&e->v);
	v = &host_state_find_pf(e->hs, ICE_PF)->vfs[1];
	free(v->name);
	v->name = NULL;
	v->attrs.mtu = 0;
	free(v->attrs.driver);
	v->attrs.driver = strdup("vfio-pci");
	assert_non_null(v->attrs.driver);
	assert_int_equal(host_view_build(e->hs, &e->set, NULL, &e->v), 0);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &status), 0);
	pf = find_pf(status, ICE_PF);
	vf = idx(pf, "vfs", 1);
	assert_keys(vf, VF_KEYS);
	assert_null(get(vf, "name"));
	assert_null(get(vf, "mtu"));
	assert_null(get(get(get(vf, "settings"), "MTUBytes"), "now"));
	assert_string_equal(str(vf, "driver"), "vfio-pci");
	assert_string_equal(str(vf, "link_state"), "auto");
	assert_int_equal(num(vf, "vlan"), 0);
	assert_true(num(idx(pf, "vfs", 0), "mtu") > 0);
}

/* last_apply says whether that apply left changes for a reboot that still
 * wait: a raise of the firmware VF limit on record while the limit waits
 * (a reset's record too), another reboot reason of an apply that ran its
 * plan; not one deferred before it ran, nor a raise the firmware runs with
 * (a firmware reset). */
static void test_status_last_apply_pending_reboot(void **state)
{
	static const char *const reason[] = {
		NULL,
		"firmware VF limit raised to 16, waiting for a reboot",
		"link type ethernet -> infiniband takes effect after a reboot",
	};
	static const struct {
		enum pf_status_state state;
		int reason;
		bool reset, firmware, waits, pending;
	} cases[] = {
		{ PF_STATUS_APPLIED, 1, false, true, true, true },
		{ PF_STATUS_APPLIED, 1, false, true, false, false },
		{ PF_STATUS_APPLIED, 2, false, false, false, true },
		{ PF_STATUS_DEGRADED, 2, false, false, false, true },
		{ PF_STATUS_APPLIED, 0, false, false, false, false },
		{ PF_STATUS_DEFERRED, 2, false, false, false, false },
		{ PF_STATUS_DEFERRED, 0, true, true, true, true },
		{ PF_STATUS_HELD, 0, false, false, true, false },
	};
	struct env *e = *state;
	struct pf_state *pf;

	env_load(e, FIXTURES "mixed.json",
		 "[Match]\nPCIAddress=" ICE_PF "\n[PhysicalFunction]\nVirtualFunctions=2\n", NULL);
	pf = host_state_find_pf(e->hs, ICE_PF);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_json_ struct json_object *doc = NULL;
		char *reasons[] = { (char *)reason[cases[i].reason], NULL };
		struct pf_status st = {
			.state = cases[i].state,
			.error = cases[i].state == PF_STATUS_APPLIED ? NULL : (char *)"why",
			.finished = 100,
			.reset = cases[i].reset,
			.reboot_reasons = reasons,
			.config_files = (char *[]){ NULL },
			.waiting = (char *[]){ NULL },
			.firmware = { .set = cases[i].firmware ? 100 : 0, .total_vfs = 16 },
		};
		struct json_object *last;

		pf->firmware_total_vfs = cases[i].waits ? (int)pf->total_vfs * 2 : -1;
		snprintf(st.pci, sizeof(st.pci), "%s", ICE_PF);
		assert_int_equal(pf_status_write(e->runtime, &st), 0);
		assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &doc), 0);
		last = get(find_pf(doc, ICE_PF), "last_apply");
		assert_keys(last, "state,pending_reboot,error,finished_usec,actions,started_usec,"
				  "host_usec,by,without_drain");
		assert_string_equal(str(last, "state"), pf_status_state_to_string(cases[i].state));
		if (boolean(last, "pending_reboot") != cases[i].pending)
			fail_msg("case %zu: pending_reboot in %s", i,
				 json_object_to_json_string(last));
	}
}

/* The record of VFs an apply took off their driver: written and read back,
 * strict about what it reads, and marking only VFs that are on no driver. */
static void test_rebind_record(void **state)
{
	struct env *e = *state;
	struct pf_created c = {}, back = {};
	struct pf_state *pf;

	snprintf(c.pci, sizeof(c.pci), "%s", ICE_PF);
	c.num_vfs = 2;
	assert_int_equal(pf_created_set_rebind(&c, 0, "iavf"), 0);
	assert_int_equal(pf_created_set_rebind(&c, 1, "vfio-pci"), 0);
	assert_int_equal(pf_created_set_rebind(&c, 1, "iavf"), 0);
	assert_int_equal(pf_created_set_rebind(&c, 2, "no/module"), -EINVAL);
	assert_int_equal(c.n_rebind, 2);
	assert_int_equal(pf_created_write(e->runtime, &c), 0);
	assert_int_equal(pf_created_read(e->runtime, ICE_PF, &back), 0);
	assert_int_equal(back.num_vfs, 2);
	assert_int_equal(back.n_rebind, 2);
	assert_int_equal(back.rebind[1].vf, 1);
	assert_string_equal(back.rebind[1].driver, "iavf");
	pf_created_done(&back);

	env_load(e, FIXTURES "mixed.json", NULL, NULL);
	pf = host_state_find_pf(e->hs, ICE_PF);
	pf->vfs[1].attrs.driver = mfree(pf->vfs[1].attrs.driver);
	assert_int_equal(pf_created_mark(e->runtime, pf), 0);
	assert_null(pf->vfs[0].unbound_from);
	assert_string_equal(pf->vfs[1].unbound_from, "iavf");

	/* what a reset or an unconfigured PF reads carries none of it */
	assert_int_equal(pf_created_set_rebind(&c, 0, NULL), 0);
	assert_int_equal(c.n_rebind, 1);
	pf->num_vfs = 2;
	assert_int_equal(pf_created_left(e->runtime, pf, &back), 1);
	assert_int_equal(back.n_rebind, 0);
	assert_null(back.rebind);
	pf_created_done(&c);

	static const char *const bad[] = {
		"{\"rebind\": {}}",
		"{\"rebind\": [1]}",
		"{\"rebind\": [{\"vf\": 0}]}",
		"{\"rebind\": [{\"vf\": -1, \"driver\": \"iavf\"}]}",
		"{\"rebind\": [{\"vf\": 65536, \"driver\": \"iavf\"}]}",
		"{\"rebind\": [{\"vf\": \"0\", \"driver\": \"iavf\"}]}",
		"{\"rebind\": [{\"vf\": 0, \"driver\": \"../iavf\"}]}",
		"{\"rebind\": [{\"vf\": 0, \"driver\": \"\"}]}",
		"{\"rebind\": [{\"vf\": 0, \"driver\": \"iavf\"}, "
		"{\"vf\": 0, \"driver\": \"vfio-pci\"}]}",
		"{\"drivers_autoprobe_off\": 1}",
		"{\"drivers_autoprobe_off\": \"true\"}",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_int_equal(pf_created_parse(ICE_PF, bad[i], &back), -EBADMSG);
}

/* Autoprobe turned off by an apply: on record, and left over while the PF
 * still has it off (a reboot turns it on again, and then nothing is ours). */
static void test_autoprobe_record(void **state)
{
	struct env *e = *state;
	struct pf_created c = {}, back = {};
	struct pf_state *pf;
	char *what;

	snprintf(c.pci, sizeof(c.pci), "%s", ICE_PF);
	c.autoprobe_off = true;
	assert_int_equal(pf_created_write(e->runtime, &c), 0);
	assert_int_equal(pf_created_read(e->runtime, ICE_PF, &back), 0);
	assert_true(back.autoprobe_off);
	assert_int_equal(back.num_vfs, 0);
	pf_created_done(&back);

	env_load(e, FIXTURES "mixed.json", NULL, NULL);
	pf = host_state_find_pf(e->hs, ICE_PF);
	assert_true(pf->drivers_autoprobe);
	assert_int_equal(pf_created_left(e->runtime, pf, &back), 0);
	pf->drivers_autoprobe = false;
	assert_int_equal(pf_created_left(e->runtime, pf, &back), 1);
	what = pf_created_describe(&back);
	assert_string_equal(what, "VF driver autoprobe left off from a removed layout");
	free(what);
	pf_created_done(&back);
	pf_created_done(&c);
}

static void expect_gone(const struct pf_created *c, uint32_t num_vfs, const char *want)
{
	struct pf_state pf = { .num_vfs = num_vfs };
	char *what = pf_created_describe_gone(c, &pf);

	assert_non_null(what);
	assert_string_equal(what, want);
	free(what);
}

/* A reset with nothing of ours left says who has the VFs now. */
static void test_nothing_left_says_why(void **state)
{
	struct pf_created ours = { .num_vfs = 8 }, none = {};

	(void)state;
	expect_gone(NULL, 0, "it has no VFs, and nothing that sriov-persist created is left on it");
	expect_gone(&none, 0,
		    "it has no VFs, and nothing that sriov-persist created is left on it");
	expect_gone(&ours, 0,
		    "it has no VFs; the 8 that sriov-persist created are gone (a reboot, or a "
		    "change outside sriov-persist)");
	expect_gone(&ours, 4,
		    "4 VF(s) exist, but not the 8 sriov-persist created (the count was changed "
		    "outside sriov-persist since its last apply); left as they are");
	expect_gone(&ours, 16,
		    "16 VF(s) exist, but not the 8 sriov-persist created (the count was changed "
		    "outside sriov-persist since its last apply); left as they are");
	expect_gone(NULL, 4,
		    "4 VF(s) exist, none on sriov-persist's record (another tool or an "
		    "administrator made them, or an earlier reset dropped the record); left as "
		    "they are");
}

static void expect_kept(const struct pf_created *c, uint32_t num_vfs, const char *vfs,
			const char *hint, const char *tail)
{
	struct pf_state pf = { .num_vfs = num_vfs,
			       .has_eswitch = true,
			       .eswitch_mode = ESWITCH_MODE_SWITCHDEV,
			       .driver = (char *)"ice" };
	_cleanup_free_ char *want = strdup_printf(
		"%s; left as they are, and with them the eswitch in switchdev that sriov-persist "
		"set: ice changes the eswitch mode only while the PF has no VFs",
		vfs);
	char *what = pf_created_describe_gone(c, &pf);

	assert_true(pf_created_eswitch_kept(c, &pf));
	assert_non_null(what);
	assert_string_equal(what, want);
	assert_string_equal(pf_created_reset_hint(what), hint);
	assert_string_equal(pf_created_reset_tail(what), tail);
	free(what);
}

#define WAITS                                                                             \
	"the eswitch stays in switchdev until the VFs are removed; then a reset sets it " \
	"back to legacy"

/* Switchdev that sriov-persist set on ice stays under VFs that are not its
 * own: whose they are, as the record knows, and what a reset does. */
static void test_switchdev_kept_says_whose_vfs(void **state)
{
	struct pf_created remade = { .eswitch_switchdev = true, .vfs_remade = 2 };
	struct pf_created changed = { .eswitch_switchdev = true, .num_vfs = 4 };
	struct pf_created none = { .eswitch_switchdev = true };

	(void)state;
	expect_kept(&remade, 2,
		    "2 VF(s) exist, as many as before sriov-persist set switchdev (an "
		    "administrator or another tool made them; sriov-persist removed them to change "
		    "the eswitch mode and made as many again, not VFs of its own)",
		    "changes nothing while the VFs are there (" WAITS ")", "; " WAITS);
	/* made since at another count: not those that were there */
	expect_kept(&remade, 3,
		    "3 VF(s) exist, none on sriov-persist's record (another tool or an "
		    "administrator made them, or an earlier reset dropped the record)",
		    "changes nothing while the VFs are there (" WAITS ")", "; " WAITS);
	expect_kept(&changed, 2,
		    "2 VF(s) exist, but not the 4 sriov-persist created (the count was changed "
		    "outside sriov-persist since its last apply)",
		    "drops sriov-persist's record of the VFs it created; " WAITS,
		    "; sriov-persist's record of the VFs it created is dropped, and " WAITS);
	expect_kept(&none, 2,
		    "2 VF(s) exist, none on sriov-persist's record (another tool or an "
		    "administrator made them, or an earlier reset dropped the record)",
		    "changes nothing while the VFs are there (" WAITS ")", "; " WAITS);
}

/* The status hint says what a reset does with what is left. */
static void test_reset_hint(void **state)
{
	(void)state;
	assert_string_equal(pf_created_reset_hint("8 VFs left from a removed layout"),
			    "removes the VFs left from its removed layout");
	assert_string_equal(
		pf_created_reset_hint("4 VFs left from a removed layout, eswitch in switchdev"),
		"removes the VFs left from its removed layout and sets the eswitch back to legacy");
	assert_string_equal(
		pf_created_reset_hint("eswitch left in switchdev from a removed layout"),
		"sets the eswitch back to legacy");
	assert_string_equal(
		pf_created_reset_hint("VF driver autoprobe left off from a removed layout"),
		"turns VF driver autoprobe on again");
	assert_string_equal(pf_created_reset_hint("3 VF(s) exist, but not the 8 sriov-persist "
						  "created (the count was changed outside "
						  "sriov-persist since its last apply); left as "
						  "they are"),
			    "drops sriov-persist's record of them");
	assert_string_equal(pf_created_reset_tail("it has no VFs; the 8 that sriov-persist "
						  "created are gone"),
			    "; sriov-persist's record of what it created is dropped");
}

/* The VFs made again for switchdev are on the record as such. */
static void test_record_vfs_remade(void **state)
{
	struct env *e = *state;
	struct pf_created c = { .eswitch_switchdev = true, .vfs_remade = 2 }, back = {};

	snprintf(c.pci, sizeof(c.pci), "%s", ICE_PF);
	assert_int_equal(pf_created_write(e->runtime, &c), 0);
	assert_int_equal(pf_created_read(e->runtime, ICE_PF, &back), 0);
	assert_int_equal(back.vfs_remade, 2);
	assert_int_equal(back.num_vfs, 0);
	assert_true(back.eswitch_switchdev);
	pf_created_done(&back);
}

/* A record says whether a reset or an apply wrote it ("by"); one of an
 * earlier version is a reset's when it names no layout file. */
static void test_record_by(void **state)
{
	static const struct {
		const char *text;
		bool reset;
	} cases[] = {
		{ "{\"state\": \"held\", \"config_files\": [], \"by\": \"apply\"}", false },
		{ "{\"state\": \"deferred\", \"config_files\": [], \"by\": \"reset\"}", true },
		{ "{\"state\": \"deferred\", \"config_files\": []}", true },
		{ "{\"state\": \"applied\", \"config_files\": [\"a.conf\"]}", false },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct pf_status st;

		assert_int_equal(pf_status_parse(ICE_PF, cases[i].text, &st), 0);
		assert_int_equal(st.reset, cases[i].reset);
		pf_status_done(&st);
	}
}

/* The raise of the firmware VF limit a record carries: its own "firmware",
 * or of a record before "by", an apply's whose reboot reasons name the
 * limit (its value not known); none in a reset's or a later record's that
 * has none. */
static void test_record_firmware(void **state)
{
	static const struct {
		const char *text;
		usec_t set;
		uint32_t total_vfs;
	} cases[] = {
		{ "{\"state\": \"deferred\", \"by\": \"reset\", \"finished_usec\": 9, "
		  "\"firmware\": {\"total_vfs\": 16, \"set_usec\": 5, \"by\": \"apply\"}}",
		  5, 16 },
		{ "{\"state\": \"applied\", \"config_files\": [\"a.conf\"], \"finished_usec\": 7, "
		  "\"reboot_reasons\": [\"firmware VF limit 8 -> 16 takes effect after a reboot\"]}",
		  7, 0 },
		{ "{\"state\": \"applied\", \"config_files\": [\"a.conf\"], \"by\": \"apply\", "
		  "\"finished_usec\": 7, \"reboot_reasons\": [\"firmware VF limit 8 -> 16\"]}",
		  0, 0 },
		{ "{\"state\": \"deferred\", \"config_files\": [], \"finished_usec\": 7, "
		  "\"reboot_reasons\": [\"firmware VF limit 8 -> 16\"]}",
		  0, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct pf_status st;

		assert_int_equal(pf_status_parse(ICE_PF, cases[i].text, &st), 0);
		assert_int_equal(st.firmware.set, cases[i].set);
		assert_int_equal(st.firmware.total_vfs, cases[i].total_vfs);
		pf_status_done(&st);
	}
}

/* The next record of a PF carries the raise on record while the limit
 * waits (a reset's too), takes its own apply's when none is on record or a
 * higher limit was raised since, and none once the limit is in effect. */
/* A disruptive change made without a drain: said on the record and in
 * last_apply, for the daemon's Apply() to print as sriovctl apply does. */
static void test_record_without_drain(void **state)
{
	struct env *e = *state;
	static const char why[] = "Kubernetes is not enabled ([Kubernetes] Enabled=no)";
	_cleanup_json_ struct json_object *doc = NULL;
	struct pf_status st = {
		.state = PF_STATUS_APPLIED,
		.finished = 100,
		.n_actions = 6,
		.reboot_reasons = (char *[]){ NULL },
		.config_files = (char *[]){ NULL },
		.waiting = (char *[]){ NULL },
		.without_drain = (char *)why,
	};
	struct pf_status rec;

	snprintf(st.pci, sizeof(st.pci), "%s", ICE_PF);
	assert_int_equal(pf_status_write(e->runtime, &st), 0);
	assert_int_equal(pf_status_read(e->runtime, ICE_PF, &rec), 0);
	assert_string_equal(rec.without_drain, why);
	pf_status_done(&rec);
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &doc), 0);
	assert_string_equal(str(get(find_pf(doc, ICE_PF), "last_apply"), "without_drain"), why);

	/* none: not on the record, null in last_apply */
	st.without_drain = NULL;
	assert_int_equal(pf_status_write(e->runtime, &st), 0);
	assert_int_equal(pf_status_read(e->runtime, ICE_PF, &rec), 0);
	assert_null(rec.without_drain);
	pf_status_done(&rec);
	json_object_put(doc);
	doc = NULL;
	assert_int_equal(report_status(&e->v, e->runtime, NULL, true, &doc), 0);
	assert_null(get(get(find_pf(doc, ICE_PF), "last_apply"), "without_drain"));
}

static void test_record_firmware_carried(void **state)
{
	struct env *e = *state;
	struct pf_state pf = { .total_vfs = 8, .firmware_total_vfs = 16 };
	char *raised[] = { (char *)"firmware VF limit raised to 16, waiting for a reboot", NULL };
	struct pf_status st = {
		.finished = 100,
		.reboot_reasons = raised,
		.config_files = (char *[]){ NULL },
		.waiting = (char *[]){ NULL },
	};
	struct pf_status rec;

	snprintf(pf.pci, sizeof(pf.pci), "%s", ICE_PF);
	snprintf(st.pci, sizeof(st.pci), "%s", ICE_PF);
	/* nothing on record, and another port of the card ran the raise: not
	 * this apply's, though its reason names the limit */
	assert_int_equal(pf_status_carry_firmware(e->runtime, &st, &pf, false), 0);
	assert_int_equal(st.firmware.set, 0);
	/* nothing on record: the apply's own raise */
	assert_int_equal(pf_status_carry_firmware(e->runtime, &st, &pf, true), 0);
	assert_int_equal(st.firmware.set, 100);
	assert_int_equal(st.firmware.total_vfs, 16);
	assert_int_equal(pf_status_write(e->runtime, &st), 0);
	/* a later reset's record, which names no reason: the one on record */
	st = (struct pf_status){ .pci = ICE_PF,
				 .state = PF_STATUS_DEFERRED,
				 .finished = 200,
				 .reset = true,
				 .reboot_reasons = (char *[]){ NULL },
				 .config_files = (char *[]){ NULL },
				 .waiting = (char *[]){ NULL } };
	assert_int_equal(pf_status_carry_firmware(e->runtime, &st, &pf, false), 0);
	assert_int_equal(st.firmware.set, 100);
	assert_int_equal(pf_status_write(e->runtime, &st), 0);
	assert_int_equal(pf_status_read(e->runtime, ICE_PF, &rec), 0);
	assert_true(rec.reset);
	assert_int_equal(rec.firmware.set, 100);
	assert_int_equal(rec.firmware.total_vfs, 16);
	assert_true(pf_status_firmware_pending(&rec, &pf));
	pf_status_done(&rec);
	/* an apply that raised it further: its own */
	pf.firmware_total_vfs = 32;
	st = (struct pf_status){ .pci = ICE_PF,
				 .finished = 300,
				 .reboot_reasons = raised,
				 .config_files = (char *[]){ NULL },
				 .waiting = (char *[]){ NULL } };
	assert_int_equal(pf_status_carry_firmware(e->runtime, &st, &pf, true), 0);
	assert_int_equal(st.firmware.set, 300);
	assert_int_equal(st.firmware.total_vfs, 32);
	/* the reboot brought the limit into effect: nothing to carry */
	pf.total_vfs = 32;
	assert_int_equal(pf_status_carry_firmware(e->runtime, &st, &pf, true), 0);
	assert_int_equal(st.firmware.set, 0);
}

/* A raise of the firmware VF limit that took effect (sriov_totalvfs reaches
 * it) is the rest of the apply; one still waiting, set back by hand, of a
 * record that does not say its value, or of a deferred record is not. */
static void test_record_firmware_took_effect(void **state)
{
	struct pf_state pf = { .total_vfs = 8, .firmware_total_vfs = 12 };
	struct pf_status st = { .state = PF_STATUS_APPLIED,
				.firmware = { .set = 5, .total_vfs = 12 } };

	assert_false(pf_status_firmware_took_effect(&st, &pf)); /* waits */
	pf.firmware_total_vfs = 8;
	assert_false(pf_status_firmware_took_effect(&st, &pf)); /* set back by hand */
	pf.total_vfs = pf.firmware_total_vfs = 12;
	assert_true(pf_status_firmware_took_effect(&st, &pf));
	st.state = PF_STATUS_DEGRADED;
	assert_true(pf_status_firmware_took_effect(&st, &pf));
	st.state = PF_STATUS_DEFERRED;
	assert_false(pf_status_firmware_took_effect(&st, &pf));
	st.state = PF_STATUS_APPLIED;
	st.firmware.total_vfs = 0;
	assert_false(pf_status_firmware_took_effect(&st, &pf));
	st.firmware = (struct pf_firmware_raise){};
	assert_false(pf_status_firmware_took_effect(&st, &pf));
}

/* A link type that an apply set in firmware took effect once the port has
 * it (and its firmware says no other): the rest of that apply; one still
 * waiting, or set back by hand, is not. */
static void test_record_link_took_effect(void **state)
{
	struct pf_state pf = { .link_type = LINK_TYPE_INFINIBAND,
			       .has_firmware_link_type = true,
			       .firmware_link_type = LINK_TYPE_ETHERNET };
	struct pf_status st = { .state = PF_STATUS_APPLIED,
				.firmware = { .link_set = 5, .link_type = LINK_TYPE_ETHERNET } };

	assert_false(report_link_took_effect(&st, &pf)); /* waits */
	pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	assert_false(report_link_took_effect(&st, &pf)); /* set back by hand */
	pf.link_type = pf.firmware_link_type = LINK_TYPE_ETHERNET;
	assert_true(report_link_took_effect(&st, &pf));
	pf.has_firmware_link_type = false;
	assert_true(report_link_took_effect(&st, &pf));
	st.firmware.link_set = 0;
	assert_false(report_link_took_effect(&st, &pf));
}

/* The apply of the card's other port waited for the raise another port's
 * apply made: its record names it among its reboot reasons, no firmware. */
static void test_record_card_raise_took_effect(void **state)
{
	struct pf_state pf = { .total_vfs = 8, .firmware_total_vfs = 20 };
	char *reasons[] = { (char *)"firmware VF limit raised to 20, waiting for a reboot", NULL };
	char *other[] = { (char *)"firmware VF limit 8 -> 20 takes effect after a reboot", NULL };
	struct pf_status st = { .state = PF_STATUS_APPLIED, .reboot_reasons = reasons };

	assert_int_equal(pf_status_firmware_waited(&st), 20);
	assert_false(pf_status_firmware_took_effect(&st, &pf)); /* waits */
	pf.firmware_total_vfs = 8;
	assert_false(pf_status_firmware_took_effect(&st, &pf)); /* set back by hand */
	pf.total_vfs = pf.firmware_total_vfs = 20;
	assert_true(pf_status_firmware_took_effect(&st, &pf));
	st.reset = true; /* a reset's record waited for nothing */
	assert_false(pf_status_firmware_took_effect(&st, &pf));
	st.reset = false;
	st.reboot_reasons = other; /* only planned, never done */
	assert_int_equal(pf_status_firmware_waited(&st), 0);
	assert_false(pf_status_firmware_took_effect(&st, &pf));
	/* its own raise, on record, goes first */
	st.reboot_reasons = reasons;
	st.firmware = (struct pf_firmware_raise){ .set = 5, .total_vfs = 24 };
	assert_int_equal(pf_status_firmware_waited(&st), 24);
	assert_false(pf_status_firmware_took_effect(&st, &pf));
}

static void test_firmware_needs(void **state)
{
	struct pf_state pf = { .pci = "0000:ca:00.0", .total_vfs = 12, .firmware_total_vfs = 16 };

	/* only a layout that wants more than the limit in effect needs a raise */
	assert_false(report_firmware_needs(&pf, 4, "0000:ca:00.1"));
	assert_false(report_firmware_needs(&pf, 12, "0000:ca:00.1"));
	assert_true(report_firmware_needs(&pf, 13, "0000:ca:00.1"));
	assert_true(report_firmware_needs(&pf, 16, "0000:ca:00.1"));
	assert_false(report_firmware_needs(&pf, 16, NULL));
	pf.total_vfs = 20; /* 16 within the 20 in effect */
	assert_false(report_firmware_needs(&pf, 16, "0000:ca:00.1"));
}

/* Of a PF no layout selects, only a raise an apply made to at least what
 * the layout of the card's other port needs is that layout's: a link type,
 * a limit set by hand since or a raise short of the need is no layout's,
 * and no reboot is made for it. */
static void test_unselected_reason_asked(void **state)
{
	struct pf_state pf = { .pci = "0000:ca:00.0", .total_vfs = 8, .firmware_total_vfs = 16 };
	const char *raised =
		"firmware VF limit raised to 16, waiting for a reboot (set by the apply "
		"of 2026-12-07T12:09:56Z; 0000:ca:00.1's layout needs 12 of it)";
	const char *link = "link type infiniband is set in firmware, waiting for a reboot (set by "
			   "the apply of 2026-12-07T12:09:56Z; no layout asks for it now)";
	const char *hand = "firmware VF limit 12 set in firmware, waiting for a reboot (the apply "
			   "of 2026-12-07T12:09:56Z raised it to 16; changed since; 0000:ca:00.1's "
			   "layout needs 12 of it)";

	assert_true(report_unselected_reason_asked(&pf, raised, 12, "0000:ca:00.1"));
	assert_true(report_unselected_reason_asked(&pf, raised, 16, "0000:ca:00.1"));
	/* the reboot gives the other port 16, not the 20 it wants */
	assert_false(report_unselected_reason_asked(&pf, raised, 20, "0000:ca:00.1"));
	/* needs no raise: wants no more than the limit in effect */
	assert_false(report_unselected_reason_asked(&pf, raised, 8, "0000:ca:00.1"));
	assert_false(report_unselected_reason_asked(&pf, raised, 12, NULL));
	assert_false(report_unselected_reason_asked(&pf, link, 12, "0000:ca:00.1"));
	assert_false(report_unselected_reason_asked(&pf, link, 20, "0000:ca:00.1"));
	assert_false(report_unselected_reason_asked(&pf, hand, 12, "0000:ca:00.1"));
}

static void test_card_limit_short(void **state)
{
	assert_true(report_card_limit_short(
		"firmware VF limit 14 set in firmware, waiting for a reboot (the apply of "
		"2026-12-07T12:09:56Z raised it to 20; changed since; its layout needs 20)"));
	assert_false(report_card_limit_short(
		"firmware VF limit 14 set in firmware, waiting for a reboot (the apply of "
		"2026-12-07T12:09:56Z raised it to 20; changed since; its layout needs 12 of it)"));
	assert_false(report_card_limit_short(
		"firmware VF limit 12 set in firmware, waiting for a reboot (the apply of "
		"2026-12-07T12:09:56Z raised it to 16; changed since; no layout asks for it now)"));
	assert_false(
		report_card_limit_short("firmware VF limit raised to 20, waiting for a reboot"));
	assert_false(report_card_limit_short(
		"link type infiniband is set in firmware, waiting for a reboot"));
}

static void write_raise(const char *runtime, const char *pci, usec_t set, uint32_t vfs)
{
	struct pf_status st = {
		.state = PF_STATUS_APPLIED,
		.finished = set,
		.firmware = { .set = set, .total_vfs = vfs },
		.reboot_reasons = (char *[]){ NULL },
		.config_files = (char *[]){ NULL },
		.waiting = (char *[]){ NULL },
	};

	snprintf(st.pci, sizeof(st.pci), "%s", pci);
	assert_int_equal(pf_status_write(runtime, &st), 0);
}

/* Port 0's apply raised the card's limit to 16, then port 1's to 20: the
 * 20 the firmware holds is port 1's raise, nothing was set by hand. */
static void test_card_raise_by_other(void **state)
{
	struct env *e = *state;
	struct pf_state pfs[2] = {
		{ .pci = "0000:ca:00.0", .total_vfs = 8, .firmware_total_vfs = 20 },
		{ .pci = "0000:ca:00.1", .total_vfs = 8, .firmware_total_vfs = 20 },
	};
	struct host_state hs = { .pfs = pfs, .n_pfs = 2 };
	char **reasons = NULL;

	write_raise(e->runtime, "0000:ca:00.0", 100, 16);
	write_raise(e->runtime, "0000:ca:00.1", 200, 20);
	assert_int_equal(
		strv_extend(&reasons, "firmware VF limit raised to 20, waiting for a reboot"), 0);
	assert_int_equal(report_card_limit_said(e->runtime, &hs, &pfs[0], 16, &reasons), 0);
	assert_int_equal(strv_length(reasons), 1);
	assert_string_equal(reasons[0], "firmware VF limit raised to 20, waiting for a reboot (the "
					"card raise made by the apply of 0000:ca:00.1)");
	strv_free(reasons);
	/* port 1's own raise */
	reasons = NULL;
	assert_int_equal(
		strv_extend(&reasons, "firmware VF limit raised to 20, waiting for a reboot"), 0);
	assert_int_equal(report_card_limit_said(e->runtime, &hs, &pfs[1], 20, &reasons), 0);
	assert_string_equal(reasons[0], "firmware VF limit raised to 20, waiting for a reboot");
	strv_free(reasons);
}

/* An apply raised the limit to 20, set by hand to 14 since, 12 in effect,
 * the layout wants 20: the 14 waits for the reboot, said once however
 * often it is said, and no layout asks for it. */
static void test_card_limit_set_by_hand_once(void **state)
{
	struct env *e = *state;
	struct pf_state pf = { .pci = "0000:ca:00.0", .total_vfs = 12, .firmware_total_vfs = 14 };
	struct host_state hs = { .pfs = &pf, .n_pfs = 1 };
	char **reasons = calloc(1, sizeof(char *));

	assert_non_null(reasons);
	write_raise(e->runtime, "0000:ca:00.0", 100, 20);
	for (int i = 0; i < 2; i++)
		assert_int_equal(report_card_limit_said(e->runtime, &hs, &pf, 20, &reasons), 0);
	assert_int_equal(strv_length(reasons), 1);
	assert_non_null(strstr(reasons[0], "firmware VF limit 14 set in firmware, waiting for a "
					   "reboot (the apply of "));
	assert_true(report_card_limit_short(reasons[0]));
	strv_free(reasons);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_vf_without_netdev, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_last_apply_pending_reboot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_plan_held_and_in_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_one_pf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_pending_and_drift, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_applied_and_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_hold_lifted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfio_without_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebind_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_autoprobe_record, setup, teardown),
		cmocka_unit_test(test_nothing_left_says_why),
		cmocka_unit_test(test_switchdev_kept_says_whose_vfs),
		cmocka_unit_test(test_reset_hint),
		cmocka_unit_test_setup_teardown(test_status_deferral_lifted, setup, teardown),
		cmocka_unit_test(test_reset_deferral_lifted),
		cmocka_unit_test_setup_teardown(test_record_vfs_remade, setup, teardown),
		cmocka_unit_test(test_record_by),
		cmocka_unit_test(test_record_firmware),
		cmocka_unit_test(test_record_firmware_took_effect),
		cmocka_unit_test(test_record_link_took_effect),
		cmocka_unit_test(test_record_card_raise_took_effect),
		cmocka_unit_test(test_firmware_needs),
		cmocka_unit_test(test_unselected_reason_asked),
		cmocka_unit_test(test_card_limit_short),
		cmocka_unit_test_setup_teardown(test_card_raise_by_other, setup, teardown),
		cmocka_unit_test_setup_teardown(test_card_limit_set_by_hand_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_firmware_carried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_without_drain, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
