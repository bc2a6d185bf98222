/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl metrics' formatter: a fixture host with counters set on some
 * VFs, a layout from text and a status document written here. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "json-util.h"
#include "metrics.h"
#include "snapshot.h"

#define FIXTURE "tests/fixtures/hosts/mixed.json"
#define ICE_PF "0000:3b:00.0" /* ice, 2 VFs */

struct env {
	struct host_state *hs;
	struct layout_file *file;
	struct layout_set set;
	struct host_view v;
	struct json_object *status;
	struct json_object *daemon;
	char *text;
};

/* mixed.json with counters on VF 0 of the ice PF (counter i is 1000 + i)
 * and none on VF 1, VF 0 in resource "ice_rdma", status as the status
 * document and daemon as GetMetrics()'s (NULL: no daemon answered); the
 * per-PF series of only_pci alone when not NULL. */
static void env_load_daemon(struct env *e, const char *status, const char *daemon,
			    const char *only_pci)
{
	_cleanup_free_ char *text = NULL, *error = NULL;
	struct vf_state *vf;

	*e = (struct env){};
	assert_int_equal(read_file(FIXTURE, &text), 0);
	assert_int_equal(snapshot_parse(text, &e->hs, &error), 0);
	vf = &host_state_find_pf(e->hs, ICE_PF)->vfs[0];
	vf->has_stats = true;
	for (enum vf_stat s = 0; s < _VF_STAT_MAX; s++)
		vf->stats[s] = 1000 + s;
	assert_int_equal(layout_parse_string("/etc/sriov-persist/conf.d/50.conf",
					     "[Match]\nPCIAddress=" ICE_PF "\n"
					     "[PhysicalFunction]\nVirtualFunctions=2\n"
					     "[VirtualFunction 0]\nResourceName=ice_rdma\n",
					     &e->set.diags, &e->file),
			 0);
	e->set.files = &e->file;
	e->set.n_files = 1;
	assert_int_equal(host_view_build(e->hs, &e->set, NULL, &e->v), 0);
	e->status = json_tokener_parse(status);
	assert_non_null(e->status);
	e->daemon = daemon ? json_tokener_parse(daemon) : NULL;
	assert_true(!daemon || e->daemon);
	assert_int_equal(metrics_format(&e->v, e->status, e->daemon, false, only_pci, &e->text), 0);
}

static void env_load(struct env *e, const char *status)
{
	env_load_daemon(e, status, NULL, NULL);
}

static void env_done(struct env *e)
{
	host_view_done(&e->v);
	layout_file_free(e->file);
	diag_list_done(&e->set.diags);
	host_state_free(e->hs);
	json_object_put(e->status);
	json_object_put(e->daemon);
	free(e->text);
}

/* Whether text has line as one whole line. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define ICE_STATUS                                                                            \
	"{\"pfs\": [{\"pci\": \"" ICE_PF "\", \"name\": \"ens1f0\", \"state\": \"applied\", " \
	"\"num_vfs\": 2, \"total_vfs\": 64, \"desired_num_vfs\": 2, \"pending_actions\": 0, " \
	"\"pending_reboot_reasons\": [], \"last_apply\": {\"state\": \"applied\", "           \
	"\"finished_usec\": 1700000000250000, \"actions\": 3, \"started_usec\": 1700000000000001}}]}"

static void test_escape(void **state)
{
	_cleanup_free_ char *a = metrics_escape_label("a\\b\"c\nd"),
			    *b = metrics_escape_label(NULL);

	assert_string_equal(a, "a\\\\b\\\"c\\nd");
	assert_string_equal(b, "");
}

static void test_vf_counters(void **state)
{
	struct env e;

	env_load(&e, ICE_STATUS);
	assert_true(has_line(e.text,
			     "sriov_persist_vf_receive_bytes_total{pf=\"ens1f0\","
			     "pf_pci=\"0000:3b:00.0\",vf=\"0\",vf_pci=\"0000:3b:01.0\","
			     "driver=\"iavf\",resource=\"ice_rdma\",numa_node=\"0\"} 1002"));
	assert_true(has_line(e.text,
			     "sriov_persist_vf_transmit_dropped_packets_total{pf=\"ens1f0\","
			     "pf_pci=\"0000:3b:00.0\",vf=\"0\",vf_pci=\"0000:3b:01.0\","
			     "driver=\"iavf\",resource=\"ice_rdma\",numa_node=\"0\"} 1007"));
	/* VF 1 has no counters: no counter series, not a zero; its info series */
	assert_null(strstr(e.text, "_total{pf=\"ens1f0\",pf_pci=\"0000:3b:00.0\",vf=\"1\","));
	assert_non_null(strstr(e.text,
			       "sriov_persist_vf_info{pf=\"ens1f0\",pf_pci=\"0000:3b:00.0\","
			       "vf=\"1\",vf_pci=\"0000:3b:01.1\","));
	assert_true(has_line(e.text, "sriov_persist_vf_info{pf=\"ens1f0\",pf_pci=\"0000:3b:00.0\","
				     "vf=\"0\",vf_pci=\"0000:3b:01.0\",driver=\"iavf\","
				     "resource=\"ice_rdma\",numa_node=\"0\"} 1"));
	assert_true(has_line(e.text, "# TYPE sriov_persist_vf_receive_packets_total counter"));
	env_done(&e);
}

static void test_pf_series(void **state)
{
	struct env e;

	env_load(&e, ICE_STATUS);
	assert_true(has_line(e.text, "sriov_persist_pf_state{pf=\"ens1f0\",pf_pci=\"" ICE_PF
				     "\",state=\"applied\"} 1"));
	assert_true(has_line(e.text, "sriov_persist_pf_state{pf=\"ens1f0\",pf_pci=\"" ICE_PF
				     "\",state=\"failed\"} 0"));
	assert_true(has_line(e.text, "sriov_persist_pf_vfs_supported{pf=\"ens1f0\",pf_pci=\"" ICE_PF
				     "\"} 64"));
	assert_true(has_line(e.text, "sriov_persist_pf_last_apply_duration_seconds{pf=\"ens1f0\","
				     "pf_pci=\"" ICE_PF "\"} 0.249999"));
	assert_true(has_line(e.text, "sriov_persist_pf_last_apply_timestamp_seconds{pf=\"ens1f0\","
				     "pf_pci=\"" ICE_PF "\"} 1700000000.250000"));
	assert_true(has_line(e.text, "sriov_persist_pf_info{pf=\"ens1f0\",pf_pci=\"" ICE_PF
				     "\",driver=\"ice\",link_type=\"ethernet\","
				     "eswitch_mode=\"legacy\",numa_node=\"0\"} 1"));
	assert_true(has_line(
		e.text, "sriov_persist_pf_reboot_pending{pf=\"ens1f0\",pf_pci=\"" ICE_PF "\"} 0"));
	env_done(&e);
}

/* A reason with quotes, a backslash and a line feed; a PF that is gone
 * has its state and nothing the host would tell. */
static void test_reasons_and_gone(void **state)
{
	struct env e;

	env_load(&e, "{\"pfs\": [{\"pci\": \"" ICE_PF
		     "\", \"name\": \"ens1f0\", \"state\": \"pending\", "
		     "\"num_vfs\": 2, \"total_vfs\": 64, \"desired_num_vfs\": 2, "
		     "\"pending_reboot_reasons\": [\"NUM_OF_VFS \\\"8\\\" \\\\ next\\nboot\"], "
		     "\"last_apply\": null}, "
		     "{\"pci\": \"0000:af:00.0\", \"name\": \"gone0\", \"state\": \"gone\", "
		     "\"num_vfs\": 4, \"last_apply\": {\"started_usec\": 1700000000000000, "
		     "\"finished_usec\": 1700000000250000, \"actions\": 3}}]}");
	assert_true(has_line(e.text,
			     "sriov_persist_pf_reboot_pending_info{pf=\"ens1f0\",pf_pci=\"" ICE_PF
			     "\",reason=\"NUM_OF_VFS \\\"8\\\" \\\\ next\\nboot\"} 1"));
	assert_true(has_line(
		e.text, "sriov_persist_pf_reboot_pending{pf=\"ens1f0\",pf_pci=\"" ICE_PF "\"} 1"));
	assert_true(has_line(e.text, "sriov_persist_pf_state{pf=\"gone0\",pf_pci=\"0000:af:00.0\","
				     "state=\"gone\"} 1"));
	assert_null(strstr(e.text, "sriov_persist_pf_info{pf=\"gone0\""));
	/* its last apply, which its record tells, is history */
	assert_null(strstr(e.text, "{pf=\"gone0\",pf_pci=\"0000:af:00.0\"}"));
	assert_null(strstr(e.text, "sriov_persist_pf_last_apply_actions{pf=\"ens1f0\""));
	env_done(&e);
}

/* Every family: HELP then TYPE once, its series right after; only
 * counters end in _total. */
static void test_families(void **state)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL, family[128] = "", type[16] = "";
	size_t n_families = 0;
	struct env e;

	env_load(&e, ICE_STATUS);
	copy = strdup(e.text);
	assert_non_null(copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (sscanf(l, "# HELP %127s", name) == 1) {
			assert_string_not_equal(name, family); /* a family is told once */
			snprintf(family, sizeof(family), "%s", name);
			n_families++;
		} else if (sscanf(l, "# TYPE %127s %15s", name, type) == 2) {
			assert_string_equal(name, family);
			assert_int_equal(endswith(name, "_total"), streq(type, "counter"));
		} else {
			assert_int_equal(strncmp(l, family, strlen(family)), 0);
			assert_true(l[strlen(family)] == '{' || l[strlen(family)] == ' ');
		}
	}
	assert_int_equal(n_families, 21);
	env_done(&e);
}

#define DAEMON_DOC                                                                              \
	"{\"start_time_usec\": 1700000000000001, \"pfs\": ["                                    \
	"{\"pci\": \"" ICE_PF "\", \"drift_events\": 3, \"repairs\": 2}, "                      \
	"{\"pci\": \"0000:5e:00.0\", \"drift_events\": 0, \"repairs\": 0}], "                   \
	"\"applies\": {\"applied\": 7, \"held\": 0, \"deferred\": 0, \"degraded\": 0, "         \
	"\"failed\": 1}, \"drains\": {\"succeeded\": 1, \"failed\": 0}, "                       \
	"\"reboots\": {\"succeeded\": 0, \"failed\": 2}, \"kubernetes_api\": \"unreachable\", " \
	"\"credentials\": {\"kind\": \"token-file\", \"expires_usec\": 1800000000500000}}"

/* No daemon: daemon_up 0, and none of its other families, not even HELP. */
static void test_no_daemon(void **state)
{
	struct env e;

	env_load(&e, ICE_STATUS);
	assert_true(has_line(e.text, "sriov_persist_daemon_up 0"));
	assert_true(has_line(e.text, "# TYPE sriov_persist_daemon_up gauge"));
	assert_null(strstr(e.text, "sriov_persist_daemon_drift"));
	assert_null(strstr(e.text, "sriov_persist_daemon_applies"));
	assert_null(strstr(e.text, "sriov_persist_kubernetes"));
	env_done(&e);
}

/* A daemon that answers for another host: none of its families, not even
 * daemon_up, and the host's own series as without it. */
static void test_daemon_elsewhere(void **state)
{
	_cleanup_free_ char *text = NULL;
	struct env e;

	env_load(&e, ICE_STATUS);
	assert_int_equal(metrics_format(&e.v, e.status, NULL, true, NULL, &text), 0);
	assert_null(strstr(text, "sriov_persist_daemon_"));
	assert_null(strstr(text, "sriov_persist_kubernetes"));
	assert_true(has_line(text, "# TYPE sriov_persist_pf_state gauge"));
	assert_int_equal(strlen(text), strstr(e.text, "# HELP sriov_persist_daemon_up") - e.text);
	assert_int_equal(strncmp(text, e.text, strlen(text)), 0);
	env_done(&e);
}

static void test_daemon_counters(void **state)
{
	struct env e;

	env_load_daemon(&e, ICE_STATUS, DAEMON_DOC, NULL);
	assert_true(has_line(e.text, "sriov_persist_daemon_up 1"));
	assert_true(has_line(e.text, "sriov_persist_daemon_start_time_seconds 1700000000.000001"));
	assert_true(has_line(e.text,
			     "sriov_persist_daemon_drift_events_total{pf_pci=\"" ICE_PF "\"} 3"));
	assert_true(
		has_line(e.text, "sriov_persist_daemon_repairs_total{pf_pci=\"" ICE_PF "\"} 2"));
	assert_true(has_line(e.text,
			     "sriov_persist_daemon_drift_events_total{pf_pci=\"0000:5e:00.0\"} 0"));
	assert_true(has_line(e.text, "sriov_persist_daemon_applies_total{result=\"applied\"} 7"));
	assert_true(has_line(e.text, "sriov_persist_daemon_applies_total{result=\"failed\"} 1"));
	assert_true(has_line(e.text, "sriov_persist_daemon_drains_total{result=\"succeeded\"} 1"));
	assert_true(has_line(e.text, "sriov_persist_daemon_reboots_total{result=\"failed\"} 2"));
	assert_true(
		has_line(e.text, "sriov_persist_kubernetes_api_state{state=\"unreachable\"} 1"));
	assert_true(has_line(e.text, "sriov_persist_kubernetes_api_state{state=\"answers\"} 0"));
	assert_true(has_line(e.text, "sriov_persist_kubernetes_credentials_expiry_timestamp_seconds"
				     "{kind=\"token-file\"} 1800000000.500000"));
	assert_true(has_line(e.text, "# TYPE sriov_persist_daemon_repairs_total counter"));
	env_done(&e);
}

/* One PF asked for: its own daemon counters only; Kubernetes not enabled
 * and credentials not read: HELP and TYPE without series. */
static void test_daemon_one_pf_no_kubernetes(void **state)
{
	struct env e;

	env_load_daemon(&e, ICE_STATUS,
			"{\"start_time_usec\": 1, \"pfs\": [{\"pci\": \"" ICE_PF
			"\", \"drift_events\": 1, \"repairs\": 0}, {\"pci\": \"0000:5e:00.0\", "
			"\"drift_events\": 4, \"repairs\": 4}], \"applies\": {}, \"drains\": {}, "
			"\"reboots\": {}, \"kubernetes_api\": null, \"credentials\": null}",
			ICE_PF);
	assert_true(has_line(e.text,
			     "sriov_persist_daemon_drift_events_total{pf_pci=\"" ICE_PF "\"} 1"));
	assert_null(strstr(e.text, "0000:5e:00.0"));
	assert_true(has_line(e.text, "# TYPE sriov_persist_kubernetes_api_state gauge"));
	assert_null(strstr(e.text, "sriov_persist_kubernetes_api_state{"));
	assert_null(
		strstr(e.text, "sriov_persist_kubernetes_credentials_expiry_timestamp_seconds{"));
	env_done(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_vf_counters),
		cmocka_unit_test(test_pf_series),
		cmocka_unit_test(test_reasons_and_gone),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_no_daemon),
		cmocka_unit_test(test_daemon_elsewhere),
		cmocka_unit_test(test_daemon_counters),
		cmocka_unit_test(test_daemon_one_pf_no_kubernetes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
