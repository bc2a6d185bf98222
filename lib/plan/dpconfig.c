/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "dpconfig.h"
#include "json-util.h"

/* One selector: VFs of one resource that look alike to the plugin. */
struct group {
	const char *resource;
	char vendor[8], device[8];
	const char *driver; /* NULL: leave the driver out of the selector */
	bool rdma;
	char **pf_names; /* "<pf>#<ranges>" */
	uint32_t count;
};

struct groups {
	struct group *g;
	size_t n;
};

static void groups_done(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		strv_free(gs->g[i].pf_names);
	free(gs->g);
}

/* The driver a VF will have: the layout's, else the one it has now, else the
 * kernel's VF driver. */
static const char *vf_driver(const struct pf_view *pv, uint32_t i)
{
	const struct vf_settings *vs = &pv->desired->vfs[i];

	if (vf_settings_has(vs, VF_KEY_DRIVER))
		return vs->attrs.driver ?: pv->pf->vf_driver;
	if (i < pv->pf->n_vfs && pv->pf->vfs[i].attrs.driver)
		return pv->pf->vfs[i].attrs.driver;
	return pv->pf->vf_driver;
}

/* The VFs of the layout that exist now: a change not applied yet (VFs that
 * wait for a drain) must not send the plugin looking for VFs that are not
 * there. */
static uint32_t vfs_present(const struct pf_view *pv)
{
	size_t n = pv->desired->n_vfs < pv->pf->n_vfs ? pv->desired->n_vfs : pv->pf->n_vfs;

	return (uint32_t)n;
}

static struct group *group_get(struct groups *gs, const struct group *key)
{
	struct group *n;

	for (size_t i = 0; i < gs->n; i++) {
		struct group *g = &gs->g[i];

		if (streq(g->resource, key->resource) && streq(g->vendor, key->vendor) &&
		    streq(g->device, key->device) && streq_ptr(g->driver, key->driver) &&
		    g->rdma == key->rdma)
			return g;
	}
	n = reallocarray(gs->g, gs->n + 1, sizeof(*n));
	if (!n)
		return NULL;
	gs->g = n;
	n = &gs->g[gs->n++];
	*n = *key;
	n->pf_names = calloc(1, sizeof(char *));
	return n->pf_names ? n : NULL;
}

/* Whether the group of key already has this PF's VFs. */
static bool group_get_existing_pf(const struct groups *gs, const struct group *key,
				  const char *pf_name)
{
	size_t k = strlen(pf_name);

	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];

		if (!streq(g->resource, key->resource) || !streq(g->vendor, key->vendor) ||
		    !streq(g->device, key->device) || !streq_ptr(g->driver, key->driver) ||
		    g->rdma != key->rdma)
			continue;
		for (char **p = g->pf_names; *p; p++)
			if (strncmp(*p, pf_name, k) == 0 && (*p)[k] == '#')
				return true;
	}
	return false;
}

/* The VFs of one PF that have resource, driver and rdma as key says. */
static int add_pf(struct groups *gs, const struct pf_view *pv, struct group *key)
{
	const struct pf_desired *d = pv->desired;
	_cleanup_free_ uint32_t *idx = calloc(d->n_vfs ?: 1, sizeof(*idx));
	_cleanup_free_ char *ranges = NULL;
	struct group *g;
	size_t n = 0;

	if (!idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < vfs_present(pv); i++) {
		const struct vf_settings *vs = &d->vfs[i];

		if (vf_settings_has(vs, VF_KEY_RESOURCE_NAME) &&
		    streq(vs->attrs.resource_name, key->resource) &&
		    streq_ptr(vf_driver(pv, i), key->driver) && vs->attrs.rdma == key->rdma)
			idx[n++] = i;
	}
	if (n == 0)
		return 0;
	g = group_get(gs, key);
	ranges = ranges_format(idx, n);
	if (!g || !ranges)
		return -ENOMEM;
	g->count += (uint32_t)n;
	return strv_consume(&g->pf_names, strdup_printf("%s#%s", pv->pf->name, ranges));
}

static int collect(const struct host_view *v, struct groups *gs)
{
	for (size_t p = 0; p < v->n_pfs; p++) {
		const struct pf_view *pv = &v->pfs[p];

		if (!pv->desired || pv->desired->held || !pv->pf->name)
			continue;
		for (uint32_t i = 0; i < vfs_present(pv); i++) {
			const struct vf_settings *vs = &pv->desired->vfs[i];
			struct group key = {
				.resource = vs->attrs.resource_name,
				.driver = vf_driver(pv, i),
				.rdma = vs->attrs.rdma,
			};
			int r;

			if (!vf_settings_has(vs, VF_KEY_RESOURCE_NAME))
				continue;
			snprintf(key.vendor, sizeof(key.vendor), "%04x", pv->pf->vendor);
			snprintf(key.device, sizeof(key.device), "%04x", pv->pf->vf_device);
			/* once per (PF, kind): add_pf takes all its VFs of that kind */
			if (group_get_existing_pf(gs, &key, pv->pf->name))
				continue;
			r = add_pf(gs, pv, &key);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->resource, y->resource);

	if (c == 0)
		c = strcmp(x->vendor, y->vendor);
	if (c == 0)
		c = strcmp(x->device, y->device);
	if (c == 0)
		c = strcmp(strempty(x->driver), strempty(y->driver));
	return c != 0 ? c : (int)x->rdma - (int)y->rdma;
}

static struct json_object *selector(const struct group *g)
{
	struct json_object *o = json_object_new_object();
	char *vendors[] = { (char *)g->vendor, NULL }, *devices[] = { (char *)g->device, NULL };
	char *drivers[] = { (char *)g->driver, NULL };

	json_object_object_add(o, "vendors", json_strv(vendors));
	json_object_object_add(o, "devices", json_strv(devices));
	if (g->driver)
		json_object_object_add(o, "drivers", json_strv(drivers));
	json_object_object_add(o, "pfNames", json_strv(g->pf_names));
	if (g->rdma)
		json_object_object_add(o, "isRdma", json_object_new_boolean(true));
	return o;
}

static int add_count(struct dp_config *c, const char *prefix, const struct group *g)
{
	_cleanup_free_ char *name = strdup_printf("%s/%s", prefix, g->resource);
	struct dp_count *n;

	if (!name)
		return -ENOMEM;
	if (c->n_counts > 0 && streq(c->counts[c->n_counts - 1].resource, name)) {
		c->counts[c->n_counts - 1].count += g->count;
		return 0;
	}
	n = reallocarray(c->counts, c->n_counts + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->counts = n;
	c->counts[c->n_counts++] =
		(struct dp_count){ .resource = TAKE_PTR(name), .count = g->count };
	return 0;
}

static bool group_has_netdev(const struct group *g)
{
	return !g->driver || vf_driver_has_netdev(g->driver);
}

/* The end of the run of groups of gs->g[from]'s resource. */
static size_t run_end(const struct groups *gs, size_t from)
{
	size_t to = from + 1;

	while (to < gs->n && streq(gs->g[to].resource, gs->g[from].resource))
		to++;
	return to;
}

/* The run [from, to) mixes VFs with a network interface and VFs without:
 * the plugin would make one pool of them, and a pod would get either. The
 * desired state holds PFs whose layouts do so (desired-resource.c), but a
 * VF whose Driver= is unset counts on the driver it has now, which may be
 * one without. Fail safe: the resource is left out, and why is said (to
 * c->left_out). 1 when left out. */
static int leave_out_mixed(const struct groups *gs, size_t from, size_t to, struct dp_config *c)
{
	_cleanup_free_ char *with = NULL, *without = NULL;
	bool w = false, wo = false;
	int r;

	for (size_t i = from; i < to; i++) {
		const struct group *g = &gs->g[i];
		char **text = group_has_netdev(g) ? &with : &without;
		_cleanup_free_ char *pfs = strv_join(g->pf_names, " ");
		char *more = pfs ? strdup_printf("%s%s%s on %s", strempty(*text), *text ? ", " : "",
						 pfs, g->driver ?: "their VF driver") :
				   NULL;

		if (!more)
			return -ENOMEM;
		free(*text);
		*text = more;
		w = w || group_has_netdev(g);
		wo = wo || !group_has_netdev(g);
	}
	if (!w || !wo)
		return 0;
	r = strv_consume(&c->left_out,
			 strdup_printf("ResourceName=%s left out of the device plugin's "
				       "configuration: VFs with a network interface (%s) and VFs "
				       "without (%s) would be one pool, and a pod that asks for it "
				       "would get either",
				       gs->g[from].resource, with, without));
	return r < 0 ? r : 1;
}

/* Groups sorted by resource: one resourceList entry per run of them. */
static int build(const struct groups *gs, const char *prefix, struct dp_config *c)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *list = json_object_new_array(), *entry = NULL, *sels = NULL;
	const char *text;
	size_t end = 0;
	int r;

	json_object_object_add(doc, "resourceList", list);
	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];

		if (i == end) {
			end = run_end(gs, i);
			r = leave_out_mixed(gs, i, end, c);
			if (r < 0)
				return r;
			if (r > 0) {
				i = end - 1;
				continue;
			}
			entry = json_object_new_object();
			sels = json_object_new_array();
			json_object_object_add(entry, "resourceName",
					       json_object_new_string(g->resource));
			json_object_object_add(entry, "resourcePrefix",
					       json_object_new_string(prefix));
			json_object_object_add(entry, "selectors", sels);
			json_object_array_add(list, entry);
		}
		json_object_array_add(sels, selector(g));
		r = add_count(c, prefix, g);
		if (r < 0)
			return r;
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	c->json = text ? strdup_printf("%s\n", text) : NULL;
	return c->json ? 0 : -ENOMEM;
}

int dpconfig_pf_resources(const struct pf_desired *d, const char *prefix, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; d && !d->held && i < d->n_vfs; i++) {
		const struct vf_settings *v = &d->vfs[i];
		_cleanup_free_ char *name = NULL;

		if (!vf_settings_has(v, VF_KEY_RESOURCE_NAME) || !v->attrs.resource_name)
			continue;
		name = strdup_printf("%s/%s", prefix, v->attrs.resource_name);
		if (!name)
			return -ENOMEM;
		if (!strv_contains(l, name) && strv_consume(&l, TAKE_PTR(name)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

int dpconfig_build(const struct host_view *v, const char *prefix, struct dp_config *ret)
{
	struct groups gs = {};
	struct dp_config c = {};
	int r;

	r = collect(v, &gs);
	if (r >= 0) {
		if (gs.n > 0)
			qsort(gs.g, gs.n, sizeof(*gs.g), cmp_group);
		r = build(&gs, prefix, &c);
	}
	groups_done(&gs);
	if (r < 0) {
		dp_config_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void dp_config_done(struct dp_config *c)
{
	for (size_t i = 0; i < c->n_counts; i++)
		free(c->counts[i].resource);
	free(c->counts);
	strv_free(c->left_out);
	free(c->json);
	*c = (struct dp_config){};
}
