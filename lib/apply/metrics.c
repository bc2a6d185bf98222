/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The Prometheus text exposition format of a host (metrics.h): each metric
 * family is one row (name, type, help, what writes its series), written in
 * table order with all its series together, as the format asks. Names
 * follow Prometheus' conventions: one prefix, base units (bytes, seconds),
 * "_total" for counters only, descriptive labels on "_info" series. */

#include <inttypes.h>
#include <stdio.h>

#include "metrics-internal.h"
#include "plan.h"
#include "util.h"

/* One PF of the status document, with its view when the host has it. */
struct pf_item {
	struct json_object *doc;
	const char *pci, *name;
	const struct pf_view *pv; /* NULL: gone from the host */
};

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *member_str(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A number the document has; false when it is missing or null. */
static bool member_u64(struct json_object *o, const char *key, uint64_t *ret)
{
	struct json_object *v = member(o, key);

	if (!json_object_is_type(v, json_type_int))
		return false;
	*ret = json_object_get_uint64(v);
	return true;
}

#define PF_LABELS(p)               \
	{ "pf", (p)->name },       \
	{                          \
		"pf_pci", (p)->pci \
	}

static int emit_pf_info(FILE *f, const char *name, const struct pf_item *p)
{
	const struct pf_state *pf = p->pv ? p->pv->pf : NULL;
	char numa[DECIMAL_STR_MAX(int)] = "";

	if (!pf)
		return 0;
	if (pf->numa_node >= 0)
		snprintf(numa, sizeof(numa), "%d", pf->numa_node);
	return metrics_series(
		f, name,
		(const struct metrics_label[]){
			PF_LABELS(p),
			{ "driver", pf->driver },
			{ "link_type", link_type_to_string(pf->link_type) },
			{ "eswitch_mode",
			  pf->has_eswitch ? eswitch_mode_to_string(pf->eswitch_mode) : "" },
			{ "numa_node", numa },
		},
		6, "1");
}

/* Every state report.h gives a PF, as Prometheus writes an enum: one
 * series per state, 1 for the PF's. */
static const char *const pf_states[] = {
	"unconfigured", "pending", "applied", "drifted", "degraded",
	"deferred",	"held",	   "failed",  "gone",
};

static int emit_pf_state(FILE *f, const char *name, const struct pf_item *p)
{
	const char *now = member_str(p->doc, "state");
	bool known = false;

	for (size_t i = 0; i < ELEMENTSOF(pf_states); i++) {
		bool is = streq_ptr(now, pf_states[i]);

		known = known || is;
		if (metrics_series(f, name,
				   (const struct metrics_label[]){ PF_LABELS(p),
								   { "state", pf_states[i] } },
				   3, is ? "1" : "0") < 0)
			return -ENOMEM;
	}
	/* a state added to report.c and not here yet is still told */
	if (now && !known)
		return metrics_series(
			f, name, (const struct metrics_label[]){ PF_LABELS(p), { "state", now } },
			3, "1");
	return 0;
}

/* The number key of the PF's document, when it has one. */
static int emit_pf_number(FILE *f, const char *name, const struct pf_item *p, const char *key)
{
	uint64_t v;

	if (!p->pv || !member_u64(p->doc, key, &v))
		return 0;
	return metrics_series_u64(f, name, (const struct metrics_label[]){ PF_LABELS(p) }, 2, v);
}

static int emit_vfs_wanted(FILE *f, const char *name, const struct pf_item *p)
{
	return emit_pf_number(f, name, p, "desired_num_vfs");
}

static int emit_vfs_present(FILE *f, const char *name, const struct pf_item *p)
{
	return emit_pf_number(f, name, p, "num_vfs");
}

static int emit_vfs_supported(FILE *f, const char *name, const struct pf_item *p)
{
	return emit_pf_number(f, name, p, "total_vfs");
}

static int emit_pending_actions(FILE *f, const char *name, const struct pf_item *p)
{
	return emit_pf_number(f, name, p, "pending_actions");
}

/* The card raise another port's apply made, which the PF waits for: its
 * status reason (plan_reason_card_wait()), not among its own
 * pending_reboot_reasons (one reboot, one reason, that port's), but a
 * reboot the PF waits for all the same. NULL when it waits for none. */
static const char *card_wait(const struct pf_item *p)
{
	const char *state = member_str(p->doc, "state"), *why = member_str(p->doc, "reason");

	return state && streq(state, "pending") && why && plan_reason_card_wait(why) ? why : NULL;
}

static int emit_reboot_pending(FILE *f, const char *name, const struct pf_item *p)
{
	struct json_object *r = member(p->doc, "pending_reboot_reasons");

	if (!p->pv)
		return 0;
	return metrics_series(f, name, (const struct metrics_label[]){ PF_LABELS(p) }, 2,
			      json_object_array_length(r) > 0 || card_wait(p) ? "1" : "0");
}

static int emit_reboot_reasons(FILE *f, const char *name, const struct pf_item *p)
{
	struct json_object *r = member(p->doc, "pending_reboot_reasons");
	size_t n = json_object_is_type(r, json_type_array) ? json_object_array_length(r) : 0;
	const char *card = p->pv ? card_wait(p) : NULL;

	for (size_t i = 0; i <= n; i++) {
		const char *why = i < n ? json_object_get_string(json_object_array_get_idx(r, i)) :
					  card;

		if (why && metrics_series(f, name,
					  (const struct metrics_label[]){ PF_LABELS(p),
									  { "reason", why } },
					  3, "1") < 0)
			return -ENOMEM;
	}
	return 0;
}

static int emit_apply_time(FILE *f, const char *name, const struct pf_item *p)
{
	uint64_t t;

	/* of a PF gone from the host, its last apply is history: only its state */
	if (!p->pv || !member_u64(member(p->doc, "last_apply"), "finished_usec", &t) || t == 0)
		return 0;
	return metrics_series_usec(f, name, (const struct metrics_label[]){ PF_LABELS(p) }, 2, t);
}

static int emit_apply_duration(FILE *f, const char *name, const struct pf_item *p)
{
	struct json_object *last = member(p->doc, "last_apply");
	uint64_t start, end;

	if (!p->pv || !member_u64(last, "started_usec", &start) ||
	    !member_u64(last, "finished_usec", &end) || start == 0 || end < start)
		return 0;
	return metrics_series_usec(f, name, (const struct metrics_label[]){ PF_LABELS(p) }, 2,
				   end - start);
}

static int emit_apply_actions(FILE *f, const char *name, const struct pf_item *p)
{
	uint64_t n;

	if (!p->pv || !member_u64(member(p->doc, "last_apply"), "actions", &n))
		return 0;
	return metrics_series_u64(f, name, (const struct metrics_label[]){ PF_LABELS(p) }, 2, n);
}

static const struct pf_family {
	const char *name, *type, *help;
	int (*emit)(FILE *f, const char *name, const struct pf_item *p);
} pf_families[] = {
	{ "pf_info", "gauge",
	  "A PF of the host: its driver, link type, eswitch mode and NUMA node.", emit_pf_info },
	{ "pf_state", "gauge", "The PF's state as sriovctl status gives it: 1 for the current one.",
	  emit_pf_state },
	{ "pf_vfs_wanted", "gauge", "The VFs the layouts want on the PF.", emit_vfs_wanted },
	{ "pf_vfs_present", "gauge", "The VFs the PF has.", emit_vfs_present },
	{ "pf_vfs_supported", "gauge", "The VFs the PF can have (sriov_totalvfs).",
	  emit_vfs_supported },
	{ "pf_pending_actions", "gauge", "The actions an apply would run on the PF now.",
	  emit_pending_actions },
	{ "pf_reboot_pending", "gauge",
	  "1 when the PF waits for a reboot (its layout, a firmware VF limit an apply raised, or the "
	  "card raise another port's apply made that it waits for).",
	  emit_reboot_pending },
	{ "pf_reboot_pending_info", "gauge", "Why the PF waits for a reboot, one series a reason.",
	  emit_reboot_reasons },
	{ "pf_last_apply_timestamp_seconds", "gauge", "When the PF's last apply finished.",
	  emit_apply_time },
	{ "pf_last_apply_duration_seconds", "gauge", "How long the PF's last apply took.",
	  emit_apply_duration },
	{ "pf_last_apply_actions", "gauge", "The actions the PF's last apply ran.",
	  emit_apply_actions },
};

/* The kernel's VF counters (IFLA_VF_STATS), by what they count. */
static const struct vf_family {
	enum vf_stat stat;
	const char *name, *help;
} vf_families[] = {
	{ VF_STAT_RX_BYTES, "vf_receive_bytes_total", "Bytes the VF received." },
	{ VF_STAT_TX_BYTES, "vf_transmit_bytes_total", "Bytes the VF sent." },
	{ VF_STAT_RX_PACKETS, "vf_receive_packets_total", "Packets the VF received." },
	{ VF_STAT_TX_PACKETS, "vf_transmit_packets_total", "Packets the VF sent." },
	{ VF_STAT_BROADCAST, "vf_receive_broadcast_packets_total",
	  "Broadcast packets the VF received." },
	{ VF_STAT_MULTICAST, "vf_receive_multicast_packets_total",
	  "Multicast packets the VF received." },
	{ VF_STAT_RX_DROPPED, "vf_receive_dropped_packets_total",
	  "Packets dropped on their way to the VF." },
	{ VF_STAT_TX_DROPPED, "vf_transmit_dropped_packets_total",
	  "Packets the VF sent that were dropped." },
};

static const struct pf_view *view_find(const struct host_view *v, const char *pci)
{
	for (size_t i = 0; i < v->n_pfs; i++)
		if (streq_ptr(v->pfs[i].pf->pci, pci))
			return &v->pfs[i];
	return NULL;
}

/* The ResourceName= the layouts give VF i of pv, or "". */
static const char *vf_resource(const struct pf_view *pv, size_t i)
{
	const struct pf_desired *d = pv->desired;

	if (!d || i >= d->n_vfs || !(d->vfs[i].set & (1u << VF_KEY_RESOURCE_NAME)))
		return "";
	return strempty(d->vfs[i].attrs.resource_name);
}

/* A VF's labels: its PF's, its own, its ResourceName= and its PF's NUMA
 * node; index and numa are the caller's buffers. */
#define VF_LABELS(pv, i, index, numa)                                                            \
	{ "pf", (pv)->pf->name }, { "pf_pci", (pv)->pf->pci }, { "vf", (index) },                \
		{ "vf_pci", (pv)->pf->vfs[i].pci }, { "driver", (pv)->pf->vfs[i].attrs.driver }, \
		{ "resource", vf_resource((pv), (i)) },                                          \
	{                                                                                        \
		"numa_node", (numa)                                                              \
	}

static void vf_label_values(const struct pf_view *pv, size_t i, char *index, size_t index_size,
			    char *numa, size_t numa_size)
{
	snprintf(index, index_size, "%u", pv->pf->vfs[i].index);
	numa[0] = '\0';
	if (pv->pf->numa_node >= 0)
		snprintf(numa, numa_size, "%d", pv->pf->numa_node);
}

static int emit_vf_family(FILE *f, const struct vf_family *fam, const struct pf_view *pv)
{
	char numa[DECIMAL_STR_MAX(int)], index[DECIMAL_STR_MAX(unsigned)];

	for (size_t i = 0; i < pv->pf->n_vfs; i++) {
		if (!pv->pf->vfs[i].has_stats)
			continue;
		vf_label_values(pv, i, index, sizeof(index), numa, sizeof(numa));
		if (metrics_series_u64(
			    f, fam->name,
			    (const struct metrics_label[]){ VF_LABELS(pv, i, index, numa) }, 7,
			    pv->pf->vfs[i].stats[fam->stat]) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Every VF present, with or without counters: its resource and driver. */
static int emit_vf_info(FILE *f, const struct pf_view *pv)
{
	char numa[DECIMAL_STR_MAX(int)], index[DECIMAL_STR_MAX(unsigned)];

	for (size_t i = 0; i < pv->pf->n_vfs; i++) {
		vf_label_values(pv, i, index, sizeof(index), numa, sizeof(numa));
		if (metrics_series(f, "vf_info",
				   (const struct metrics_label[]){ VF_LABELS(pv, i, index, numa) },
				   7, "1") < 0)
			return -ENOMEM;
	}
	return 0;
}

static int format_pfs(FILE *f, const struct host_view *v, const struct pf_item *items, size_t n)
{
	for (size_t k = 0; k < ELEMENTSOF(pf_families); k++) {
		const struct pf_family *fam = &pf_families[k];

		metrics_header(f, fam->name, fam->type, fam->help);
		for (size_t i = 0; i < n; i++)
			if (fam->emit(f, fam->name, &items[i]) < 0)
				return -ENOMEM;
	}
	metrics_header(
		f, "vf_info", "gauge",
		"A VF of the host: its PF, PCI address, driver, ResourceName= and NUMA node.");
	for (size_t i = 0; i < v->n_pfs; i++)
		if (emit_vf_info(f, &v->pfs[i]) < 0)
			return -ENOMEM;
	for (size_t k = 0; k < ELEMENTSOF(vf_families); k++) {
		metrics_header(f, vf_families[k].name, "counter", vf_families[k].help);
		for (size_t i = 0; i < v->n_pfs; i++)
			if (emit_vf_family(f, &vf_families[k], &v->pfs[i]) < 0)
				return -ENOMEM;
	}
	return 0;
}

/* The PFs of the status document, each with its view. */
static int pf_items(const struct host_view *v, struct json_object *status, struct pf_item **ret,
		    size_t *ret_n)
{
	struct json_object *pfs = member(status, "pfs");
	size_t n = json_object_is_type(pfs, json_type_array) ? json_object_array_length(pfs) : 0;
	struct pf_item *items = calloc(n ?: 1, sizeof(*items));

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(pfs, i);

		items[i] = (struct pf_item){ .doc = o,
					     .pci = member_str(o, "pci"),
					     .name = member_str(o, "name") };
		items[i].pv = view_find(v, items[i].pci);
	}
	*ret = items;
	*ret_n = n;
	return 0;
}

int metrics_format(const struct host_view *v, struct json_object *status,
		   struct json_object *daemon, bool daemon_elsewhere, const char *only_pci,
		   char **ret)
{
	_cleanup_free_ struct pf_item *items = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t n, size = 0;
	FILE *f;
	int r;

	r = pf_items(v, status, &items, &n);
	if (r < 0)
		return r;
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	r = format_pfs(f, v, items, n);
	if (r >= 0 && !daemon_elsewhere)
		r = metrics_format_daemon(f, daemon, only_pci);
	if (fclose(f) != 0 || r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}
