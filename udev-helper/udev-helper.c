/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Run by udev and by sriov-persist-apply@.service:
 *   udev-helper match PCI   for IMPORT{program}: prints SRIOV_PERSIST_PF= and
 *                           SRIOV_PERSIST_UNIT= when a layout may select the PF
 *   udev-helper apply PCI   applies the layouts of one PF; logs to the journal */

#include <syslog.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-journal.h>

#include "apply.h"
#include "host-linux.h"
#include "match.h"

#define SYSLOG_ID "sriov-persist"

static void log_diags(const struct diag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];
		_cleanup_free_ char *s = diag_format(d);

		sd_journal_send("MESSAGE=%s", s ?: d->msg, "PRIORITY=%d",
				d->level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "CONFIG_FILE=%s",
				strempty(d->file), "CONFIG_LINE=%u", d->line,
				"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
	}
}

static int verb_match(const char *pci)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_host_ struct host *h = NULL;
	const struct pf_state *pf;
	int r;

	r = layout_set_load(NULL, &set);
	if (r >= 0)
		r = host_linux_open(NULL, &h);
	if (r >= 0)
		r = host_read_pf(h, pci, &hs);
	if (r < 0)
		return r;
	pf = host_state_find_pf(hs, pci);
	/* The apply unit decides with the final name and the bound driver, and
	 * does nothing when no layout selects the PF. */
	if (pf && layout_set_may_select(set, pf, hs->hostname))
		printf("SRIOV_PERSIST_PF=%s\nSRIOV_PERSIST_UNIT=sriov-persist-apply@%s.service\n",
		       pci, pci);
	return 0;
}

static void log_pf(const struct apply_pf_result *res)
{
	const struct pf_status *st = &res->status;
	const char *state = pf_status_state_to_string(st->state);

	if (!res->configured)
		return;
	sd_journal_send("MESSAGE=%s (%s): %s%s%s%s", st->pci, strna(st->name), state,
			res->changed ? "" : " (nothing to change)", st->error ? ": " : "",
			strempty(st->error), "PRIORITY=%d",
			st->state == PF_STATUS_APPLIED ? LOG_INFO : LOG_ERR, "SRIOV_PF=%s", st->pci,
			"SRIOV_IFNAME=%s", strna(st->name), "SRIOV_STATE=%s", state,
			"SRIOV_ACTIONS=%u", st->n_actions, "SRIOV_HOST_USEC=%llu",
			(unsigned long long)st->host_usec, "SRIOV_TOTAL_USEC=%llu",
			(unsigned long long)(st->finished - st->started), "SYSLOG_IDENTIFIER=%s",
			SYSLOG_ID, NULL);
	for (char **r = st->reboot_reasons; r && *r; r++)
		sd_journal_send("MESSAGE=%s (%s): reboot needed: %s", st->pci, strna(st->name), *r,
				"PRIORITY=%d", LOG_WARNING, "SRIOV_PF=%s", st->pci,
				"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
}

static void helper_log_action(const struct pf_state *pf, const struct action *a, int r,
			      const char *detail, void *userdata)
{
	_cleanup_free_ char *d = action_describe(a);

	sd_journal_send("MESSAGE=%s (%s): %s%s%s%s%s", pf->pci, strna(pf->name), strna(d),
			r < 0 ? " failed: " : "", r < 0 ? strerror(-r) : "",
			r < 0 && detail && *detail ? ": " : "", r < 0 ? strempty(detail) : "",
			"PRIORITY=%d", r < 0 ? LOG_ERR : LOG_DEBUG, "SRIOV_PF=%s", pf->pci,
			"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
}

#define SYSTEMD "org.freedesktop.systemd1"
#define BOOT_GATE "sriov-persist-wait.service"

/* At boot, before the boot gate lets kubelet start, nothing uses the VFs yet:
 * disruptive changes run directly, whatever [Disruption] Policy= says for a
 * running system. That is so while systemd is still starting up and the gate
 * has not finished: its start job is queued (it is ordered after the apply
 * units) or running. Anything else, or any doubt (no bus, no gate), is a
 * running system. */
static bool before_boot_gate(const char *pci)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error err = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *job = NULL;
	_cleanup_free_ char *system = NULL, *active = NULL;
	const char *unit;
	uint32_t job_id = 0;
	bool boot;

	if (sd_bus_open_system(&bus) < 0 ||
	    sd_bus_get_property_string(bus, SYSTEMD, "/org/freedesktop/systemd1",
				       SYSTEMD ".Manager", "SystemState", &err, &system) < 0)
		return false;
	if (!streq(system, "initializing") && !streq(system, "starting"))
		return false;
	if (sd_bus_call_method(bus, SYSTEMD, "/org/freedesktop/systemd1", SYSTEMD ".Manager",
			       "GetUnit", &err, &reply, "s", BOOT_GATE) < 0 ||
	    sd_bus_message_read(reply, "o", &unit) < 0 ||
	    sd_bus_get_property_string(bus, SYSTEMD, unit, SYSTEMD ".Unit", "ActiveState", &err,
				       &active) < 0 ||
	    sd_bus_get_property(bus, SYSTEMD, unit, SYSTEMD ".Unit", "Job", &err, &job, "(uo)") <
		    0 ||
	    sd_bus_message_read(job, "(uo)", &job_id, NULL) < 0)
		return false;
	boot = streq(active, "activating") || (streq(active, "inactive") && job_id > 0);
	if (boot)
		sd_journal_send("MESSAGE=%s: the system is booting and %s has not finished: "
				"disruptive changes run now, nothing uses the VFs yet",
				pci, BOOT_GATE, "PRIORITY=%d", LOG_INFO, "SRIOV_PF=%s", pci,
				"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
	return boot;
}

static int verb_apply(const char *pci)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	struct apply_result res = {};
	struct diag_list diags = {};
	struct mainconf conf = {};
	struct apply_options opts = {
		.conf = &conf,
		.runtime_dir = STATUS_RUNTIME_DIR,
		.state_dir = STATUS_STATE_DIR,
		.only = pci,
		.on_action = helper_log_action,
	};
	int r;

	r = mainconf_load(NULL, &conf, &diags);
	log_diags(&diags);
	/* its policy cannot be known: hold, and say so in the record */
	if (r >= 0 && diag_count(&diags, DIAG_ERROR) > 0)
		opts.hold = "the main configuration has errors; nothing is applied until they "
			    "are fixed";
	diag_list_done(&diags);
	if (r < 0)
		return r;
	opts.allow_disruptive = !opts.hold && before_boot_gate(pci);
	r = layout_set_load(NULL, &set);
	if (r >= 0)
		r = host_linux_open(NULL, &h);
	if (r >= 0) {
		log_diags(&set->diags);
		r = apply_run(h, set, &opts, &res);
	}
	mainconf_done(&conf);
	if (r < 0 && r != -EIO) {
		sd_journal_send("MESSAGE=%s: applying failed: %s%s%s", pci, strerror(-r),
				h && h->error[0] ? ": " : "", h ? h->error : "", "PRIORITY=%d",
				LOG_ERR, "SRIOV_PF=%s", pci, "SYSLOG_IDENTIFIER=%s", SYSLOG_ID,
				NULL);
		return r;
	}
	log_diags(&res.diags);
	for (size_t i = 0; i < res.n_pfs; i++)
		log_pf(&res.pfs[i]);
	apply_result_done(&res);
	return r;
}

int main(int argc, char **argv)
{
	int r;

	if (argc != 3 || !pci_addr_is_valid(argv[2])) {
		fprintf(stderr, "Usage: %s match|apply PCI-ADDRESS\n", argv[0]);
		return 2;
	}
	if (streq(argv[1], "match"))
		r = verb_match(argv[2]);
	else if (streq(argv[1], "apply"))
		r = verb_apply(argv[2]);
	else {
		fprintf(stderr, "Unknown command '%s'\n", argv[1]);
		return 2;
	}
	if (r < 0 && r != -EIO)
		fprintf(stderr, "%s %s: %s\n", argv[1], argv[2], strerror(-r));
	return r < 0 ? 1 : 0;
}
