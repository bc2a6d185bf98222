/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl status: the status document (report.h), built here or by
 * sriov-persistd, as JSON or as a table rendered from it. */

#include <inttypes.h>

#include "json-util.h"
#include "pf-keys.h"
#include "plan.h"
#include "report.h"
#include "sriovctl.h"

static const struct {
	const char *state;
	const char *color;
} state_colors[] = {
	{ "applied", ANSI_GREEN },  { "unconfigured", "0" },	 { "held", ANSI_RED },
	{ "failed", ANSI_RED },	    { "deferred", ANSI_YELLOW }, { "drifted", ANSI_YELLOW },
	{ "pending", ANSI_YELLOW }, { "gone", ANSI_YELLOW },	 { "degraded", ANSI_YELLOW },
};

/* An unconfigured PF with a reason has VFs left from a removed layout. */
static const char *state_color(const char *state, const char *why)
{
	if (streq_ptr(state, "unconfigured") && why)
		return ANSI_YELLOW;
	for (size_t i = 0; i < ELEMENTSOF(state_colors); i++)
		if (streq_ptr(state_colors[i].state, state))
			return state_colors[i].color;
	return ANSI_YELLOW;
}

/* A count, or "-" when the document has none (a PF that is gone, a PF that
 * no layout selects). */
static const char *count(struct json_object *o, const char *key, char *buf, size_t size)
{
	if (!doc_get(o, key))
		return "-";
	snprintf(buf, size, "%" PRIu64, doc_u64(o, key));
	return buf;
}

/* The MTU of a VF, "-" when it has no network interface (vfio-pci,
 * unbound: no name or no driver). */
static const char *vf_mtu(struct json_object *vf, char *buf, size_t size)
{
	if (doc_u64(vf, "mtu") == 0 || !doc_str(vf, "name") || !doc_str(vf, "driver"))
		return "-";
	snprintf(buf, size, "%" PRIu64, doc_u64(vf, "mtu"));
	return buf;
}

/* One entry of a "settings" object (report.h) as "label now", with
 * " (wanted X)" when the layouts set it to something else, or NULL when
 * there is nothing to say. on_host: the host may have a value. */
static char *setting_describe(const char *label, struct json_object *e, bool on_host)
{
	const char *now = doc_str(e, "now"), *want = doc_str(e, "wanted");

	if (!now && !want)
		return NULL;
	if (!now && !on_host)
		return strdup_printf("%s %s", label, want);
	if (want && !streq_ptr(now, want))
		return strdup_printf("%s %s (wanted %s)", label, now ?: "-", want);
	return strdup_printf("%s %s", label, now);
}

/* Layout keys that have a column in the VF tables. */
static const char *const eth_columns[] = { "Driver",	       "MACAddress", "VLANId",
					   "QualityOfService", "Trust",	     "MACSpoofCheck",
					   "LinkState",	       "MTUBytes",   NULL };
static const char *const ib_columns[] = { "Driver",    "IBNodeGUID", "IBPortGUID",
					  "LinkState", "MTUBytes",   NULL };

/* Under a VF's row, every other key its layouts set, from the key table:
 * "max_tx_rate 0 (wanted 2000), proto 802.1Q, rdma yes"; for a VF that
 * does not exist yet (!exists) the wanted values alone. */
static void print_vf_settings(struct json_object *vf, const char *const *columns, bool exists)
{
	struct json_object *all = doc_get(vf, "settings");
	_cleanup_strv_free_ char **l = NULL;
	_cleanup_free_ char *line = NULL;

	if (!json_object_is_type(all, json_type_object))
		return;
	json_object_object_foreach(all, key, e)
	{
		enum vf_key k = vf_key_from_string(key);

		if (!doc_str(e, "wanted") || strv_contains((char **)columns, key))
			continue;
		if (strv_consume(&l, setting_describe(k >= 0 ? vf_key_to_label(k) : key, e,
						      exists && (k < 0 || vf_key_on_host(k)))) < 0)
			return;
	}
	line = l ? strv_join(l, ", ") : NULL;
	if (line)
		printf("        %s\n", line);
}

/* A VF the layouts want that the host does not have (no PCI address):
 * its index and what becomes of it, "4   to be created", and every key its
 * layouts set, those of the columns too: the row has no columns. Whether
 * vf was one. */
static bool print_missing_vf(struct json_object *vf)
{
	static const char *const no_columns[] = { NULL };

	if (doc_str(vf, "pci"))
		return false;
	printf("    %-3" PRIu64 " %s\n", doc_u64(vf, "index"), strna(doc_str(vf, "layout")));
	print_vf_settings(vf, no_columns, false);
	return true;
}

/* The VF's link state in the words LinkState= takes (auto, yes, no), as
 * its "settings" give it; the snapshot's "link_state" is ip-link's
 * (enable, disable). */
static const char *vf_link_state(struct json_object *vf)
{
	return doc_str(doc_get(doc_get(vf, "settings"), "LinkState"), "now") ?:
		       doc_str(vf, "link_state");
}

/* The width of a column of the VF table: its header's or the longest
 * value's (the VFs' key), as ip(8) and systemctl size a column, so that a
 * long name (eno12399np0v0) or driver (uio_pci_generic) does not push the
 * columns after it out of line. */
static int vf_column_width(struct json_object *pf, const char *key, const char *header)
{
	size_t w = strlen(header);

	for (size_t i = 0; i < doc_len(pf, "vfs"); i++) {
		const char *value = doc_str(doc_idx(pf, "vfs", i), key);

		if (value && strlen(value) > w)
			w = strlen(value);
	}
	return (int)w;
}

/* An InfiniBand port's VFs have GUIDs and a link state, nothing else of
 * the Ethernet table (IPoIB sets no MAC, VLAN, trust or spoof check). */
static void print_ib_vfs(struct json_object *pf)
{
	size_t n = doc_len(pf, "vfs");
	int w = vf_column_width(pf, "name", "NAME"), dw = vf_column_width(pf, "driver", "DRIVER");

	printf("    %-3s %-12s %-*s %-*s %-23s %-23s %-7s %5s  %s\n", "VF", "PCI", w, "NAME", dw,
	       "DRIVER", "NODE GUID", "PORT GUID", "LINK", "MTU", "LAYOUT");
	for (size_t i = 0; i < n; i++) {
		struct json_object *vf = doc_idx(pf, "vfs", i);
		char mtu[16];

		if (print_missing_vf(vf))
			continue;
		printf("    %-3" PRIu64 " %-12s %-*s %-*s %-23s %-23s %-7s %5s  %s\n",
		       doc_u64(vf, "index"), strna(doc_str(vf, "pci")), w,
		       doc_str(vf, "name") ?: "-", dw, doc_str(vf, "driver") ?: "-",
		       doc_str(vf, "ib_node_guid") ?: "-", doc_str(vf, "ib_port_guid") ?: "-",
		       strna(vf_link_state(vf)), vf_mtu(vf, mtu, sizeof(mtu)),
		       doc_str(vf, "layout") ?: "-");
		print_vf_settings(vf, ib_columns, true);
	}
}

static void print_vfs(struct json_object *pf)
{
	size_t n = doc_len(pf, "vfs");
	int w, dw;

	if (n == 0)
		return;
	if (streq_ptr(doc_str(pf, "link_type"), "infiniband")) {
		print_ib_vfs(pf);
		return;
	}
	w = vf_column_width(pf, "name", "NAME");
	dw = vf_column_width(pf, "driver", "DRIVER");
	printf("    %-3s %-12s %-*s %-*s %-17s %4s %3s %-5s %-5s %-7s %5s  %s\n", "VF", "PCI", w,
	       "NAME", dw, "DRIVER", "MAC", "VLAN", "QOS", "TRUST", "SPOOF", "LINK", "MTU",
	       "LAYOUT");
	for (size_t i = 0; i < n; i++) {
		struct json_object *vf = doc_idx(pf, "vfs", i);
		char mtu[16];

		if (print_missing_vf(vf))
			continue;
		printf("    %-3" PRIu64 " %-12s %-*s %-*s %-17s %4" PRIu64 " %3" PRIu64
		       " %-5s %-5s %-7s %5s  %s\n",
		       doc_u64(vf, "index"), strna(doc_str(vf, "pci")), w,
		       doc_str(vf, "name") ?: "-", dw, doc_str(vf, "driver") ?: "-",
		       strna(doc_str(vf, "mac")), doc_u64(vf, "vlan"), doc_u64(vf, "qos"),
		       doc_bool(vf, "trust") ? "on" : "off",
		       doc_bool(vf, "spoofchk") ? "on" : "off", strna(vf_link_state(vf)),
		       vf_mtu(vf, mtu, sizeof(mtu)), doc_str(vf, "layout") ?: "-");
		print_vf_settings(vf, eth_columns, true);
	}
}

/* Whether port o's layout wants more VFs than it has and waits for a
 * reboot (its apply raised the card's firmware VF limit), or for its
 * apply, which raises it. */
static bool port_wants_raise(struct json_object *o)
{
	return doc_get(o, "desired_num_vfs") &&
	       doc_u64(o, "desired_num_vfs") > doc_u64(o, "total_vfs") &&
	       (doc_len(o, "pending_reboot_reasons") > 0 || doc_u64(o, "pending_actions") > 0);
}

/* The port of pf's card (the same PCI device, pf itself included) whose
 * apply raises the card's one firmware VF limit, as far as the layouts of
 * all its ports need: the first that waits for a raise, as the plans and
 * apply decide; NULL when none waits for a raise, or when it is pf itself
 * (its own reboot reason says so). */
static struct json_object *card_raiser(struct json_object *doc, struct json_object *pf)
{
	const char *pci = doc_str(pf, "pci");
	struct json_object *first = NULL;

	for (size_t i = 0; pci && !first && i < doc_len(doc, "pfs"); i++) {
		struct json_object *o = doc_idx(doc, "pfs", i);
		const char *other = doc_str(o, "pci");

		if (other && pci_same_device(other, pci) && port_wants_raise(o))
			first = o;
	}
	return first && !streq_ptr(doc_str(first, "pci"), pci) ? first : NULL;
}

/* The other port of pf's card whose own pending reboot is the raise of
 * the card's limit to now (its record still carries it, its layout removed
 * since: no plan wants a raise), or NULL. */
static struct json_object *card_raised_by(struct json_object *doc, struct json_object *pf,
					  const char *now)
{
	const char *pci = doc_str(pf, "pci");
	unsigned long n = strtoul(now, NULL, 10);

	for (size_t i = 0; pci && i < doc_len(doc, "pfs"); i++) {
		struct json_object *o = doc_idx(doc, "pfs", i);
		const char *other = doc_str(o, "pci");

		if (!other || streq(other, pci) || !pci_same_device(other, pci))
			continue;
		for (size_t j = 0; j < doc_len(o, "pending_reboot_reasons"); j++)
			if (plan_firmware_reason_raised(strempty(json_object_get_string(
				    doc_idx(o, "pending_reboot_reasons", j)))) == n)
				return o;
	}
	return NULL;
}

/* The firmware VF limit, the one after the next reboot ("firmware VF limit
 * 20 from the next reboot, 8 until then"), with what the layout's
 * FirmwareVirtualFunctions= makes the tool do and the other port of the
 * card whose apply raises it: "firmware VF limit 8 (raised by the apply of
 * 0000:ca:00.1, one setting of this card: a reboot is pending through
 * it)", or before that port's apply "(to be raised by the apply of
 * 0000:ca:00.1, one setting of this card)", "(waits for the apply of
 * 0000:ca:00.1, which raises it and which the disruption policy defers,
 * ...)" while the policy defers it. NULL when there is nothing to say. */
static char *firmware_describe(const char *label, struct json_object *e, struct json_object *doc,
			       struct json_object *pf)
{
	const char *now = doc_str(e, "now"), *want = doc_str(e, "wanted");
	struct json_object *by = card_raiser(doc, pf);
	uint64_t total = doc_u64(pf, "total_vfs");
	bool raised = now && strtoull(now, NULL, 10) > total, short_of;
	_cleanup_free_ char *value = NULL, *policy = NULL, *through = NULL;

	if (!now && !want)
		return NULL;
	if (!by && raised)
		by = card_raised_by(doc, pf, now);
	/* a raise short of what its layout wants gives it nothing: its own
	 * apply raises the limit that far */
	short_of = by && raised && doc_get(pf, "desired_num_vfs") &&
		   doc_u64(pf, "desired_num_vfs") > strtoull(now, NULL, 10);
	value = raised ? strdup_printf("%s from the next reboot, %" PRIu64 " until then", now,
				       total) :
			 strdup(now ?: "none");
	if (want)
		policy = strdup_printf("FirmwareVirtualFunctions=%s: %s", want,
				       !streq(want, "no") ? "raised when needed" :
				       raised		  ? "not raised further" :
							    "not raised");
	if (by && short_of)
		through = strdup_printf("raised by the apply of %s, one setting of this card: a "
					"reboot is pending through it, short of the %" PRIu64
					" its layout needs, which its own apply raises it to",
					strna(doc_str(by, "pci")), doc_u64(pf, "desired_num_vfs"));
	else if (by && doc_len(by, "pending_reboot_reasons") > 0)
		through = strdup_printf("raised by the apply of %s, one setting of this card: a "
					"reboot is pending through it",
					strna(doc_str(by, "pci")));
	else if (by && streq_ptr(doc_str(by, "state"), "deferred"))
		through = strdup_printf("waits for the apply of %s, which raises it and which the "
					"disruption policy defers, one setting of this card",
					strna(doc_str(by, "pci")));
	else if (by)
		through = strdup_printf("to be raised by the apply of %s, one setting of this "
					"card",
					strna(doc_str(by, "pci")));
	if (!value || (want && !policy) || (by && !through))
		return NULL;
	if (!policy && !through)
		return strdup_printf("%s %s", label, value);
	return strdup_printf("%s %s (%s%s%s)", label, value, strempty(policy),
			     policy && through ? "; " : "", strempty(through));
}

/* The keys whose value is no state the host is brought to, as what the
 * layout's value makes the tool do: "link up yes (LinkUp=no: left as it
 * is)", "externally managed (ExternallyManaged=yes: ...)"; NULL when the
 * key is compared like the others, "" when there is nothing to say. */
static char *pf_policy_describe(enum pf_key k, const char *label, struct json_object *e)
{
	const char *now = doc_str(e, "now"), *want = doc_str(e, "wanted");

	switch (k) {
	case PF_KEY_LINK_UP:
		return streq_ptr(want, "no") ? strdup_printf("%s %s (LinkUp=no: left as it is)",
							     label, strna(now)) :
					       NULL;
	case PF_KEY_EXTERNALLY_MANAGED:
		return streq_ptr(want, "yes") ?
			       strdup_printf(
				       "%s (ExternallyManaged=yes: another tool makes the VFs)",
				       label) :
			       strdup("");
	case PF_KEY_SHARED_WITH:
		return want ? strdup_printf(
				      "%s %s (SharedWith=: its own SR-IOV settings are left to it)",
				      label, want) :
			      strdup("");
	default:
		return NULL;
	}
}

/* "    speed 1000 Mb/s, mtu 1500 (wanted 9000), link up yes, eswitch
 * switchdev, ...": the link speed while it is known (it bounds the VF rates),
 * then the [PhysicalFunction] keys but the VF count (a column), from the key
 * table. */
static void print_pf_settings(struct json_object *doc, struct json_object *pf)
{
	struct json_object *all = doc_get(pf, "settings");
	_cleanup_strv_free_ char **l = NULL;
	_cleanup_free_ char *line = NULL;

	if (!json_object_is_type(all, json_type_object))
		return;
	if (doc_get(pf, "speed") &&
	    strv_consume(&l, strdup_printf("speed %" PRIu64 " Mb/s", doc_u64(pf, "speed"))) < 0)
		return;
	json_object_object_foreach(all, key, e)
	{
		enum pf_key k = pf_key_from_string(key);

		const char *label = k >= 0 ? pf_key_to_label(k) : key;
		char *d;

		if (k == PF_KEY_VIRTUAL_FUNCTIONS || (!doc_str(e, "now") && !doc_str(e, "wanted")))
			continue;
		d = k == PF_KEY_FIRMWARE_VFS	    ? firmware_describe(label, e, doc, pf) :
		    pf_policy_describe(k, label, e) ?:
						      setting_describe(label, e, true);
		if (!d && k == PF_KEY_FIRMWARE_VFS)
			continue;
		if (d && !*d) {
			free(d);
			continue;
		}
		if (strv_consume(&l, d) < 0)
			return;
	}
	line = l ? strv_join(l, ", ") : NULL;
	if (line)
		printf("    %s\n", line);
}

char *status_run_hint(const struct ctl *c, const char *pci, bool reset)
{
	return strdup_printf("\"sriovctl%s %s %s\" %s it now", strempty(c->local_options),
			     reset ? "reset" : "apply", strna(pci), reset ? "runs" : "applies");
}

/* A PF pending since what held its last apply is fixed, or since the
 * policy that deferred its last apply or reset lets it run now: the command
 * that runs it, as the operator can copy it. */
static void print_run_hint(const struct ctl *c, struct json_object *pf, struct json_object *last)
{
	_cleanup_free_ char *hint = NULL;

	if (!streq_ptr(doc_str(pf, "state"), "pending") ||
	    !(streq_ptr(doc_str(last, "state"), "deferred") ||
	      streq_ptr(doc_str(last, "state"), "held")))
		return;
	hint = status_run_hint(c, doc_str(pf, "pci"), streq_ptr(doc_str(last, "by"), "reset"));
	if (hint)
		printf("    %s\n", hint);
}

/* A PF that no layout selects whose last apply raised the firmware VF limit,
 * which waits for the reboot (config_files empty, a pending reboot): a
 * reset changes no firmware; what does. */
static bool firmware_pending(struct json_object *pf)
{
	return doc_len(pf, "config_files") == 0 && doc_len(pf, "pending_reboot_reasons") > 0;
}

static bool names_reason(struct json_object *pf, const char *prefix)
{
	for (size_t i = 0; i < doc_len(pf, "pending_reboot_reasons"); i++)
		if (startswith(strempty(json_object_get_string(
				       doc_idx(pf, "pending_reboot_reasons", i))),
			       prefix))
			return true;
	return false;
}

/* The first other port of pci's card in the document, or NULL. */
static const char *card_other_port(struct json_object *doc, const char *pci)
{
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++) {
		const char *other = doc_str(doc_idx(doc, "pfs", i), "pci");

		if (other && !streq(other, pci) && pci_same_device(other, pci))
			return other;
	}
	return NULL;
}

/* The mstconfig commands that set back what waits: NUM_OF_VFS (as far as
 * the layouts of the card's other ports let it, plan_firmware_set_back()),
 * and LINK_TYPE_P<n>=1 (InfiniBand) or 2 (Ethernet) of the port (function
 * n-1): the report's firmware_note, or of a daemon older than it, said
 * from the document. */
static void print_firmware_tail(struct json_object *doc, struct json_object *pf)
{
	const char *pci = strna(doc_str(pf, "pci")), *by = NULL;
	bool vfs = names_reason(pf, "firmware VF limit"), link = names_reason(pf, "link type");
	const char *fw =
		doc_str(doc_get(doc_get(pf, "settings"), "FirmwareVirtualFunctions"), "now");
	uint64_t need = doc_card_need(doc, pf, &by);
	_cleanup_free_ char *back = NULL;

	/* the report's words, of the whole host (firmware_note) */
	if (doc_str(pf, "firmware_note")) {
		printf("%s\n", doc_str(pf, "firmware_note"));
		return;
	}
	if (vfs && fw && need <= UINT32_MAX)
		(void)plan_firmware_set_back(pci, (uint32_t)doc_u64(pf, "total_vfs"),
					     (uint32_t)strtoul(fw, NULL, 10), (uint32_t)need, by,
					     &back);
	if (!back && vfs)
		back = plan_firmware_set_now(pci, (uint32_t)doc_u64(pf, "total_vfs"),
					     card_other_port(doc, pci));
	if (back)
		printf("%s", back);
	if (link)
		printf("%s\"mstconfig -d %s set LINK_TYPE_P%u=%u\" sets the link type back to the "
		       "one it has now, %s",
		       vfs ? "; " : "", pci, plan_link_port(pci),
		       streq_ptr(doc_str(pf, "link_type"), "infiniband") ? 1u : 2u,
		       strna(doc_str(pf, "link_type")));
	printf("\n");
}

/* Whether the PF's record is of a reset that did not go through (deferred,
 * failed): running it again may still do something. */
static bool reset_unfinished(struct json_object *last)
{
	return streq_ptr(doc_str(last, "by"), "reset") &&
	       !streq_ptr(doc_str(last, "state"), "applied");
}

/* "no layout selects it; "sriovctl reset PF" removes them": what reset
 * does (what) and when (, but is deferred now: ...), in one line with
 * what it leaves of a raised firmware VF limit; what NULL: that alone. */
static void print_reset_hint(const struct ctl *c, struct json_object *doc, struct json_object *pf,
			     const char *what, const char *when)
{
	printf("    no layout selects it; \"sriovctl%s reset %s\" ", strempty(c->local_options),
	       strna(doc_str(pf, "pci")));
	if (!what) {
		printf("changes no firmware: ");
		print_firmware_tail(doc, pf);
		return;
	}
	printf("%s%s", what, strempty(when));
	if (!firmware_pending(pf)) {
		printf("\n");
		return;
	}
	printf("; it changes no firmware: ");
	print_firmware_tail(doc, pf);
}

/* An unconfigured PF with what a removed layout left, or whose reset of
 * it was deferred: the reset hint (and when the disruption policy would
 * defer the reset now, that it would, and why). Whether it was said. */
static bool print_left_hint(const struct ctl *c, struct json_object *doc, struct json_object *pf,
			    const char *why)
{
	const char *state = doc_str(pf, "state"), *waits = doc_str(pf, "reset_waits");
	_cleanup_free_ char *when = NULL;

	if (!why || doc_len(pf, "config_files") > 0)
		return false;
	if (streq_ptr(state, "unconfigured") && !doc_pf_unsettled(pf)) {
		when = waits ? strdup_printf(", but is deferred now: %s", waits) : NULL;
		print_reset_hint(c, doc, pf, pf_created_reset_hint(why), when);
		return true;
	}
	/* deferred while what is left needs a disruptive change (with nothing
	 * disruptive left, its VFs removed by hand since, it is pending, and
	 * the hint is what runs it, print_run_hint()) */
	if (streq_ptr(state, "deferred") &&
	    streq_ptr(doc_str(doc_get(pf, "last_apply"), "by"), "reset")) {
		/* under Policy=never nothing runs it by itself: say what lifts it */
		print_reset_hint(c, doc, pf, pf_created_reset_hint(why),
				 strstr(why, "[Disruption] Policy=never") ?
					 " when run again, once [Disruption] Policy= lets it run" :
					 " once it is no longer deferred");
		return true;
	}
	return false;
}

static void print_pf(const struct ctl *c, struct json_object *doc, struct json_object *pf)
{
	struct json_object *last = doc_get(pf, "last_apply");
	const char *state = strna(doc_str(pf, "state")), *why = doc_str(pf, "reason");
	const char *last_error = doc_str(last, "error");
	char num[16], want[16], max[16], when[32], padded[20];
	bool left_hint;

	snprintf(padded, sizeof(padded), "%-15s", state);
	printf("%-12s  %-15s %-10s %5s %5s %5s  %s %s\n", strna(doc_str(pf, "pci")),
	       doc_str(pf, "name") ?: "-", doc_str(pf, "driver") ?: "-",
	       count(pf, "num_vfs", num, sizeof(num)),
	       count(pf, "desired_num_vfs", want, sizeof(want)),
	       count(pf, "total_vfs", max, sizeof(max)),
	       ctl_paint(c, state_color(state, why), padded),
	       ctl_format_time(doc_u64(last, "finished_usec"), when, sizeof(when)));
	/* a reason that is the one pending reboot says it below */
	if (why &&
	    !(doc_len(pf, "pending_reboot_reasons") == 1 &&
	      streq_ptr(json_object_get_string(doc_idx(pf, "pending_reboot_reasons", 0)), why)))
		printf("    %s\n", why);
	left_hint = print_left_hint(c, doc, pf, why);
	if (!left_hint && streq(state, "gone"))
		printf("    \"sriovctl%s reset %s\" drops its status record\n",
		       strempty(c->local_options), strna(doc_str(pf, "pci")));
	/* a deferred reset's reason ends with its record's */
	if (last_error && !streq_ptr(doc_str(last, "state"), "applied") &&
	    !streq_ptr(why, last_error) && !(why && endswith(why, last_error)))
		printf("    last %s: %s%s: %s\n", doc_str(last, "by") ?: "apply",
		       strna(doc_str(last, "state")),
		       /* the change it deferred was made by hand since */
		       streq(state, "applied") && streq_ptr(doc_str(last, "state"), "deferred") ?
			       " (the host has what it wanted now)" :
			       "",
		       last_error);
	print_run_hint(c, pf, last);
	/* that of a PF whose own raise waits is said with what sets it back */
	if (doc_str(pf, "firmware_note") && !firmware_pending(pf))
		printf("    %s\n", doc_str(pf, "firmware_note"));
	for (size_t i = 0; i < doc_len(pf, "pending_reboot_reasons"); i++)
		printf("    %s %s\n", ctl_paint(c, ANSI_YELLOW, "pending reboot:"),
		       strna(json_object_get_string(doc_idx(pf, "pending_reboot_reasons", i))));
	/* nothing left to reset (its record is an apply's, or a reset's that
	 * went through): only what changes the firmware */
	if (firmware_pending(pf) && !left_hint && reset_unfinished(last))
		print_reset_hint(c, doc, pf, NULL, NULL);
	else if (firmware_pending(pf) && !left_hint) {
		printf("    no layout selects it; ");
		print_firmware_tail(doc, pf);
	}
	if (doc_len(pf, "config_files") == 0)
		return;
	doc_print_files(pf, "    ");
	print_pf_settings(doc, pf);
	print_vfs(pf);
}

/* The API server while it does not answer, and what waits. */
static void print_api(const struct ctl *c, struct json_object *api)
{
	char since[64], next[64];

	if (streq_ptr(doc_str(api, "state"), "unreachable"))
		printf("  %s unreachable since %s (%" PRId64 " failed %s): %s; next try at %s\n",
		       ctl_paint(c, ANSI_YELLOW, "kubernetes API:"),
		       ctl_format_time(doc_u64(api, "unreachable_since_usec"), since,
				       sizeof(since)),
		       doc_int(api, "failed_tries"),
		       doc_int(api, "failed_tries") == 1 ? "try" : "tries",
		       strna(doc_str(api, "error")),
		       ctl_format_time(doc_u64(api, "next_try_usec"), next, sizeof(next)));
	for (size_t i = 0; i < doc_len(api, "waiting"); i++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "waiting:"),
		       strna(json_object_get_string(doc_idx(api, "waiting", i))));
}

void ctl_print_reboot_failed(const struct ctl *c, FILE *f, const char *prefix,
			     struct json_object *failed)
{
	char at[64];

	fprintf(f,
		"%s%s %s: %s; not tried again on its own: reboot by hand (systemctl reboot, "
		"after draining the node where Kubernetes runs), or sriovctl apply tries it "
		"again\n",
		prefix, ctl_paint(c, ANSI_RED, "reboot failed at"),
		ctl_format_time(doc_u64(failed, "at_usec"), at, sizeof(at)),
		strna(doc_str(failed, "error")));
}

void ctl_print_host_error(const struct ctl *c, FILE *f, const char *prefix,
			  struct json_object *host_error)
{
	char at[64];

	fprintf(f, "%s%s %s: %s; the daemon shows what it read last%s\n", prefix,
		ctl_paint(c, ANSI_RED, "reading the host failed at"),
		ctl_format_time(doc_u64(host_error, "at_usec"), at, sizeof(at)),
		strna(doc_str(host_error, "error")),
		doc_bool(host_error, "layout_change_waits") ?
			"; the layout change waits until the host can be read" :
		doc_bool(host_error, "reload_waits") ?
			"; the reload waits until the host can be read" :
			"");
}

/* The daemon's own state, when the document came from it. */
static void print_daemon(const struct ctl *c, struct json_object *d)
{
	const char *state = strna(doc_str(d, "state"));
	struct json_object *op;

	printf("sriov-persistd: %s\n",
	       ctl_paint(c, streq(state, "idle") ? ANSI_GREEN : ANSI_YELLOW, state));
	for (size_t i = 0; i < doc_len(d, "pending_reboot_reasons"); i++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "pending reboot:"),
		       strna(json_object_get_string(doc_idx(d, "pending_reboot_reasons", i))));
	if (doc_str(d, "no_reboot"))
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "no reboot is made:"),
		       doc_str(d, "no_reboot"));
	for (size_t i = 0; i < doc_len(d, "config_errors"); i++)
		printf("  %s %s\n", ctl_paint(c, ANSI_RED, "config error:"),
		       strna(json_object_get_string(doc_idx(d, "config_errors", i))));
	op = doc_get(d, "reboot_failed");
	if (op)
		ctl_print_reboot_failed(c, stdout, "  ", op);
	op = doc_get(d, "host_error");
	if (op)
		ctl_print_host_error(c, stdout, "  ", op);
	op = doc_get(d, "operation");
	if (op) {
		printf("  %s %s, step %s", ctl_paint(c, ANSI_YELLOW, "kubernetes:"),
		       strna(doc_str(op, "kind")), strna(doc_str(op, "step")));
		for (size_t i = 0; i < doc_len(op, "pfs"); i++)
			printf("%s%s", i == 0 ? " for " : ", ",
			       strna(json_object_get_string(doc_idx(op, "pfs", i))));
		if (doc_str(op, "error"))
			printf(" (%s)", doc_str(op, "error"));
		printf("\n");
	}
	print_api(c, doc_get(d, "kubernetes_api"));
	printf("\n");
}

static void render(const struct ctl *c, struct json_object *doc)
{
	if (doc_get(doc, "daemon"))
		print_daemon(c, doc_get(doc, "daemon"));
	printf("%-12s  %-15s %-10s %5s %5s %5s  %-15s %s\n", "PF", "NAME", "DRIVER", "VFS", "WANT",
	       "MAX", "STATE", "LAST APPLY/RESET");
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++)
		print_pf(c, doc, doc_idx(doc, "pfs", i));
}

/* The status of the PF named, or of every PF with those that are gone: a
 * PF named that is not on the host may be gone, which is found by its PCI
 * address in the whole host's status and shown as it shows it. */
static int local_document(struct ctl *c, struct json_object **ret)
{
	const char *only = c->n_args > 0 ? c->args[0] : NULL;
	_cleanup_json_ struct json_object *doc = NULL;
	struct ctl_view cv;
	bool gone;
	int r;

	if (ctl_host_read(c, &cv) < 0)
		return -EIO;
	gone = only && !host_state_lookup_pf(cv.hs, only);
	r = gone ? host_view_build_as(cv.hs, cv.set, cv.hs->hostname, NULL, &cv.v) :
		   ctl_view_build(c, &cv, NULL);
	if (gone && r < 0)
		fprintf(stderr, "Planning failed: %s\n", strerror(-r));
	if (r >= 0) {
		cv.v.ctl_options = c->local_options;
		r = report_status(&cv.v, c->runtime_dir, c->state_dir, !only || gone, &doc);
		if (r < 0)
			fprintf(stderr, "Building the status failed: %s\n", strerror(-r));
	}
	if (r >= 0 && gone) {
		r = doc_filter_gone(doc, only);
		if (r == -ENXIO)
			fprintf(stderr, "No PF '%s' on this host\n", only);
		else if (r < 0)
			fprintf(stderr, "Out of memory\n");
	}
	/* the layouts' warnings, for a PF that is there or gone; of a PF gone,
	 * not those of the whole host's view built to find it (a file that
	 * selects no PF, another PF's plan): the PF named is looked at alone */
	if (r >= 0) {
		ctl_print_diags(&cv.set->diags);
		if (!gone)
			ctl_print_diags(&cv.v.diags);
	}
	ctl_view_done(&cv);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(doc);
	return 0;
}

/* The same through sriov-persistd, whose GetStatus() lists the PFs that are
 * gone too. */
static int ask_daemon(struct ctl *c, struct json_object **ret)
{
	_cleanup_json_ struct json_object *all = NULL;
	const char *only = c->n_args > 0 ? c->args[0] : NULL;

	if (only && bus_client_document(c->bus, "GetStatus", NULL, &all) < 0)
		return -EIO;
	if (all && doc_filter_gone(all, only) == 0) {
		*ret = TAKE_PTR(all);
		return 0;
	}
	return bus_client_document(c->bus, "GetStatus", only, ret);
}

/* A PF that is held, failed, deferred or degraded is a failure of the host's
 * layout. */
static bool any_failed(struct json_object *doc)
{
	static const char *const failed[] = { "held", "failed", "deferred", "degraded", "gone" };

	for (size_t i = 0; i < doc_len(doc, "pfs"); i++) {
		const char *state = doc_str(doc_idx(doc, "pfs", i), "state");

		for (size_t k = 0; k < ELEMENTSOF(failed); k++)
			if (streq_ptr(state, failed[k]))
				return true;
	}
	return false;
}

int verb_status(struct ctl *c)
{
	_cleanup_json_ struct json_object *doc = NULL;

	if ((c->bus ? ask_daemon(c, &doc) : local_document(c, &doc)) < 0)
		return EXIT_FAIL;
	if (c->json)
		ctl_print_json(doc);
	else
		render(c, doc);
	/* a failed reboot that stands is something wrong too, and a host the
	 * daemon cannot read (drift left to [Drift] Mode=report is not) */
	return any_failed(doc) || doc_get(doc_get(doc, "daemon"), "reboot_failed") ||
			       doc_get(doc_get(doc, "daemon"), "host_error") ?
		       EXIT_FAIL :
		       EXIT_OK;
}
