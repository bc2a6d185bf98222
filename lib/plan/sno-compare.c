/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl compare: each PF the operator or the layouts configure, its
 * fields as the operator left them (the status) against what applying the
 * layouts leaves (sno-compare-after.c). */

#include <limits.h>
#include <stdarg.h>
#include <strings.h>

#include "sno-compare-internal.h"
#include "string-util.h"
#include "strv.h"

struct cmp {
	struct sno_comparison *out;
	const char *who; /* "0000:3b:00.0 (ens1f0)", or "node state NAME" */
};

/* "<who>: <text>" added; unconverged counts it as such. -ENOMEM. */
_printf_(3, 4) static int cmp_say(struct cmp *c, bool unconverged, const char *fmt, ...)
{
	_cleanup_free_ char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	text = strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!text)
		return -ENOMEM;
	if (unconverged)
		c->out->unconverged++;
	return strv_consume(&c->out->lines, strdup_printf("%s: %s", c->who, text));
}

#define SRC_MAX (PATH_MAX + 32)

/* " (conf.d/50-e810.conf:9)" for a value from a layout, named as every
 * other message names it; "" for the host's own. */
static const char *cmp_src(const struct src *s, char buf[static SRC_MAX])
{
	if (!s->file || s->line == 0)
		return "";
	snprintf(buf, SRC_MAX, " (%s:%u)", s->file, s->line);
	return buf;
}

/* ---- the operator's spec against its status: where they differ, it had
 * not brought the node to what it wanted when the node state was taken ---- */

#define NOT_CONVERGED "(the operator had not converged)"

static int converged_pf(struct cmp *c, const struct sno_iface *spec, const struct sno_iface *st)
{
	int r = 0;

	if (spec->num_vfs != st->num_vfs)
		r = cmp_say(c, true, "VF count: operator spec %u, status %u " NOT_CONVERGED,
			    spec->num_vfs, st->num_vfs);
	if (r >= 0 && spec->mtu > 0 && st->mtu > 0 && spec->mtu != st->mtu)
		r = cmp_say(c, true, "MTU: operator spec %u, status %u " NOT_CONVERGED, spec->mtu,
			    st->mtu);
	if (r >= 0 && spec->link_type && st->link_type &&
	    strcasecmp(spec->link_type, st->link_type) != 0)
		r = cmp_say(c, true, "link type: operator spec %s, status %s " NOT_CONVERGED,
			    spec->link_type, st->link_type);
	if (r >= 0 && spec->eswitch_mode && st->eswitch_mode &&
	    !streq(spec->eswitch_mode, st->eswitch_mode))
		r = cmp_say(c, true, "eswitch mode: operator spec %s, status %s " NOT_CONVERGED,
			    spec->eswitch_mode, st->eswitch_mode);
	return r;
}

/* A VF the status lists against the group of the spec that has it. */
static int converged_vf(struct cmp *c, const struct sno_vf_group *g, const struct sno_vf *vf)
{
	bool on_vfio = streq_ptr(vf->driver, "vfio-pci");
	int r = 0;

	if (g->vfio != on_vfio)
		r = cmp_say(c, true, "VF %u driver: operator spec %s, status %s " NOT_CONVERGED,
			    vf->id, g->vfio ? "vfio-pci" : "netdevice", strna(vf->driver));
	if (r >= 0 && !g->vfio && g->mtu > 0 && vf->mtu > 0 && g->mtu != vf->mtu)
		r = cmp_say(c, true, "VF %u MTU: operator spec %u, status %u " NOT_CONVERGED,
			    vf->id, g->mtu, vf->mtu);
	return r;
}

static const struct sno_vf_group *group_of(const struct sno_iface *spec, unsigned id)
{
	for (size_t i = 0; i < spec->n_groups; i++)
		if (spec->groups[i].first <= id && id <= spec->groups[i].last)
			return &spec->groups[i];
	return NULL;
}

static int cmp_converged(struct cmp *c, const struct sno_iface *spec,
			 const struct sno_iface *status)
{
	int r = converged_pf(c, spec, status);

	for (size_t i = 0; r >= 0 && i < status->n_vfs; i++) {
		const struct sno_vf_group *g = group_of(spec, status->vfs[i].id);

		if (g)
			r = converged_vf(c, g, &status->vfs[i]);
	}
	return r;
}

/* ---- the operator's status against the layouts ---- */

static const char *link_type_word(enum link_type t)
{
	return t == LINK_TYPE_INFINIBAND ? "IB" : "ETH";
}

/* A value the layouts leave as the operator did, but only because the host
 * has it now: nothing makes it again after a reboot. */
#define KEPT                                                                           \
	"%s: operator %s, layouts %s only as the host has it now: no layout sets it, " \
	"and a reboot loses it"

static int cmp_kept(struct cmp *c, const char *field, bool kept, const char *value)
{
	return kept ? cmp_say(c, false, KEPT, field, value, value) : 0;
}

static int cmp_pf_fields(struct cmp *c, const struct after *a, const struct sno_iface *op)
{
	const char *es = eswitch_mode_to_string(a->eswitch_mode);
	char buf[SRC_MAX], n[16];
	int r = 0;

	snprintf(n, sizeof(n), "%u", a->num_vfs);
	if (op->num_vfs != a->num_vfs)
		r = cmp_say(c, false, "VF count: operator %u, layouts %u%s", op->num_vfs,
			    a->num_vfs, cmp_src(&a->num_vfs_src, buf));
	else
		r = cmp_kept(c, "VF count", a->num_vfs_kept, n);
	snprintf(n, sizeof(n), "%u", a->mtu);
	if (r >= 0 && op->mtu > 0 && op->mtu != a->mtu)
		r = cmp_say(c, false, "MTU: operator %u, layouts %u%s", op->mtu, a->mtu,
			    cmp_src(&a->mtu_src, buf));
	else if (r >= 0 && op->mtu > 0)
		r = cmp_kept(c, "MTU", a->mtu_kept, n);
	if (r >= 0 && op->eswitch_mode && !streq(op->eswitch_mode, es))
		r = cmp_say(c, false, "eswitch mode: operator %s, layouts %s%s", op->eswitch_mode,
			    es, cmp_src(&a->eswitch_src, buf));
	else if (r >= 0 && op->eswitch_mode)
		r = cmp_kept(c, "eswitch mode", a->eswitch_kept, es);
	if (r >= 0 && op->link_type && strcasecmp(op->link_type, link_type_word(a->link_type)) != 0)
		r = cmp_say(c, false, "link type: operator %s, layouts %s%s", op->link_type,
			    link_type_to_string(a->link_type), cmp_src(&a->link_type_src, buf));
	return r;
}

/* A VF the status lists, within the count both leave. */
static int cmp_vf(struct cmp *c, const struct after *a, const struct sno_vf *vf)
{
	struct src src;
	bool kept;
	const char *driver = after_vf_driver(a, vf->id, &src, &kept);
	char buf[SRC_MAX], field[32], n[16];
	uint32_t mtu;
	int r = 0;

	snprintf(field, sizeof(field), "VF %u driver", vf->id);
	if (vf->driver && !(driver && module_name_equal(vf->driver, driver)))
		r = cmp_say(c, false, "%s: operator %s, layouts %s%s", field, vf->driver,
			    driver ?: "none (unbound)", cmp_src(&src, buf));
	else if (vf->driver)
		r = cmp_kept(c, field, kept, driver);
	mtu = after_vf_mtu(a, vf->id, &src, &kept);
	snprintf(field, sizeof(field), "VF %u MTU", vf->id);
	snprintf(n, sizeof(n), "%u", mtu);
	if (r >= 0 && vf->mtu > 0 && mtu > 0 && vf->mtu != mtu)
		r = cmp_say(c, false, "%s: operator %u, layouts %u%s", field, vf->mtu, mtu,
			    cmp_src(&src, buf));
	else if (r >= 0 && vf->mtu > 0 && mtu > 0)
		r = cmp_kept(c, field, kept, n);
	return r;
}

/* What only the spec says of a VF (the status has no resource names nor
 * RDMA), against the layouts' settings of it. */
static int cmp_vf_spec(struct cmp *c, const struct after *a, const struct sno_vf_group *g,
		       uint32_t i)
{
	const struct vf_settings *v = after_vf_settings(a, i);
	const char *name = v && vf_settings_has(v, VF_KEY_RESOURCE_NAME) ? v->attrs.resource_name :
									   NULL;
	bool rdma = v && vf_settings_wants_rdma(v);
	char buf[SRC_MAX];
	int r = 0;

	if (g->resource_name && !streq_ptr(g->resource_name, name))
		r = cmp_say(c, false, "VF %u resource name: operator %s, layouts %s%s", i,
			    g->resource_name, name ?: "none",
			    v ? cmp_src(&v->src[VF_KEY_RESOURCE_NAME], buf) : "");
	if (r >= 0 && !g->vfio && g->rdma != rdma)
		r = cmp_say(c, false, "VF %u RDMA: operator %s, layouts %s%s", i,
			    g->rdma ? "yes" : "no", rdma ? "yes" : "no",
			    v ? cmp_src(&v->src[VF_KEY_RDMA], buf) : "");
	return r;
}

static const struct sno_vf *vf_of(const struct sno_iface *status, uint32_t id)
{
	for (size_t i = 0; status && i < status->n_vfs; i++)
		if (status->vfs[i].id == id)
			return &status->vfs[i];
	return NULL;
}

/* Each VF both leave: what the status lists of it, what the spec's group
 * of it says. */
static int cmp_vfs(struct cmp *c, const struct after *a, const struct sno_iface *op,
		   const struct sno_iface *spec)
{
	int r = 0;

	for (uint32_t i = 0; r >= 0 && i < a->num_vfs && i < op->num_vfs; i++) {
		const struct sno_vf *vf = vf_of(op, i);
		const struct sno_vf_group *g = spec ? group_of(spec, i) : NULL;

		if (vf)
			r = cmp_vf(c, a, vf);
		if (r >= 0 && g)
			r = cmp_vf_spec(c, a, g, i);
	}
	return r;
}

static int cmp_externally_managed(struct cmp *c, const struct after *a,
				  const struct sno_iface *spec)
{
	bool external = pf_settings_externally_managed(&a->d->pf);
	char buf[SRC_MAX];

	if (spec->externally_managed == external)
		return 0;
	return cmp_say(c, false, "externally managed: operator %s, layouts %s%s",
		       yes_no(spec->externally_managed), yes_no(external),
		       cmp_src(&a->d->pf.src[PF_KEY_EXTERNALLY_MANAGED], buf));
}

/* A PF both configure: the status (else the spec) against the layouts. */
static int cmp_configured(struct cmp *c, const struct pf_view *pv, const struct sno_iface *spec,
			  const struct sno_iface *status)
{
	const struct sno_iface *op = status ?: spec;
	struct after a;
	int r = 0;

	if (!status)
		r = cmp_say(c, true,
			    "not in the status of the node state: its spec is compared "
			    "(the operator had not converged)");
	after_pf(pv->desired, pv->pf, &a);
	if (r >= 0)
		r = cmp_pf_fields(c, &a, op);
	if (r >= 0 && spec)
		r = cmp_externally_managed(c, &a, spec);
	if (r >= 0)
		r = cmp_vfs(c, &a, op, spec);
	for (size_t i = 0; r >= 0 && pv->plan && pv->plan->unmet[i]; i++)
		r = cmp_say(c, false, "the layouts cannot be applied in full: %s",
			    pv->plan->unmet[i]);
	return r;
}

static char *files_joined(const struct pf_desired *d)
{
	_cleanup_strv_free_ char **names = NULL;

	for (size_t i = 0; d->config_files && d->config_files[i]; i++)
		if (strv_extend(&names, d->config_files[i]) < 0)
			return NULL;
	return names ? strv_join(names, " ") : strdup("");
}

static int cmp_pf(struct cmp *c, const struct pf_view *pv, const struct sno_iface *spec,
		  const struct sno_iface *status)
{
	_cleanup_free_ char *files = NULL;
	int r = 0;

	if (spec && status)
		r = cmp_converged(c, spec, status);
	if (r < 0 || (!spec && !pv->desired))
		return r;
	if (!pv->desired)
		return cmp_say(c, false,
			       "no layout selects it: the operator configures it (%u VFs); it "
			       "would be unconfigured, and nothing makes its VFs again after a "
			       "reboot",
			       spec->num_vfs);
	files = files_joined(pv->desired);
	if (!files)
		return -ENOMEM;
	if (!spec)
		return cmp_say(c, false,
			       "the layouts configure it (%u VFs; %s), the operator does not "
			       "(it is not in the spec of the node state)",
			       pf_desired_num_vfs(pv->desired, pv->pf), files);
	if (pv->desired->held)
		return cmp_say(c, false, "held (%s): applying the layouts would leave it as it is",
			       strna(pv->desired->held_reason));
	return cmp_configured(c, pv, spec, status);
}

static int cmp_host(struct cmp *c, const struct sno_node_state *ns, const struct host_view *v)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < v->n_pfs; i++) {
		const struct pf_view *pv = &v->pfs[i];
		_cleanup_free_ char *who = pf_describe(pv->pf);

		if (!who)
			return -ENOMEM;
		c->who = who;
		r = cmp_pf(c, pv, sno_iface_find(ns->spec, ns->n_spec, pv->pf->pci),
			   sno_iface_find(ns->status, ns->n_status, pv->pf->pci));
	}
	return r;
}

/* A PF of the node state that the host has not: not this node's state, or
 * the PF is gone (its driver unbound, the card removed). */
static int cmp_missing(struct cmp *c, const struct host_view *v, const struct sno_iface *list,
		       size_t n, const struct sno_iface *other, size_t n_other)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ char *who = NULL;

		if (host_state_find_pf(v->hs, list[i].pci) ||
		    (other && sno_iface_find(other, n_other, list[i].pci)))
			continue;
		who = pf_names_describe(list[i].pci, list[i].name);
		if (!who)
			return -ENOMEM;
		c->who = who;
		r = cmp_say(
			c, false,
			"not on this host: the node state is another node's, or the PF is gone");
	}
	return r;
}

static int cmp_sync(struct cmp *c, const struct sno_node_state *ns)
{
	_cleanup_free_ char *who = strdup_printf("node state %s", ns->name);

	if (!who)
		return -ENOMEM;
	c->who = who;
	if (!ns->sync_status || streq(ns->sync_status, "Succeeded"))
		return 0;
	return cmp_say(c, true, "syncStatus %s%s%s%s: the operator had not converged",
		       ns->sync_status, ns->last_sync_error ? " (lastSyncError: " : "",
		       strempty(ns->last_sync_error), ns->last_sync_error ? ")" : "");
}

int sno_compare(const struct sno_node_state *ns, const struct host_view *v,
		struct sno_comparison *ret)
{
	struct sno_comparison out = { .lines = strv_copy((char *[]){ NULL }) };
	struct cmp c = { .out = &out };
	int r;

	if (!out.lines)
		return -ENOMEM;
	r = cmp_sync(&c, ns);
	if (r >= 0)
		r = cmp_host(&c, ns, v);
	if (r >= 0)
		r = cmp_missing(&c, v, ns->spec, ns->n_spec, NULL, 0);
	if (r >= 0)
		r = cmp_missing(&c, v, ns->status, ns->n_status, ns->spec, ns->n_spec);
	if (r < 0) {
		sno_comparison_done(&out);
		return r;
	}
	*ret = out;
	return 0;
}

void sno_comparison_done(struct sno_comparison *c)
{
	strv_free(c->lines);
	*c = (struct sno_comparison){};
}
