/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "json-util.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "drivers.h"
#include "plan.h"
#include "status.h"

static const char *const state_names[_PF_STATUS_STATE_MAX] = {
	[PF_STATUS_APPLIED] = "applied",   [PF_STATUS_HELD] = "held",
	[PF_STATUS_FAILED] = "failed",	   [PF_STATUS_DEFERRED] = "deferred",
	[PF_STATUS_DEGRADED] = "degraded",
};

DEFINE_STRING_TABLE(pf_status_state, enum pf_status_state, state_names)

void pf_status_done(struct pf_status *s)
{
	free(s->name);
	free(s->error);
	strv_free(s->reboot_reasons);
	strv_free(s->config_files);
	strv_free(s->waiting);
	free(s->deferred_by);
	free(s->without_drain);
	free(s->layouts);
	*s = (struct pf_status){};
}

static int json_to_strv(struct json_object *a, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	size_t n;

	if (!l)
		return -ENOMEM;
	if (!a)
		goto done;
	if (!json_object_is_type(a, json_type_array))
		return -EINVAL;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		int r;

		if (!json_object_is_type(e, json_type_string))
			return -EINVAL;
		r = strv_extend(&l, json_object_get_string(e));
		if (r < 0)
			return r;
	}
done:
	*ret = TAKE_PTR(l);
	return 0;
}

static int write_json(const char *dir, const char *pci, struct json_object *o)
{
	_cleanup_free_ char *sub = NULL, *name = NULL;
	const char *text;
	int r;

	sub = strdup_printf("%s/pf", dir);
	name = strdup_printf("%s.json", pci);
	if (!sub || !name)
		return -ENOMEM;
	r = mkdir_owned(dir, 0755);
	if (r >= 0)
		r = mkdir_owned(sub, 0755);
	if (r < 0)
		return r;
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	return write_file_atomic(sub, name, text, 0644);
}

static int parse_object(const char *text, struct json_object **ret)
{
	struct json_object *o = json_tokener_parse(text);

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EBADMSG;
	}
	*ret = o;
	return 0;
}

static int read_text(const char *dir, const char *pci, char **ret)
{
	_cleanup_free_ char *path = NULL;

	if (!pci_addr_is_valid(pci))
		return -EINVAL;
	path = strdup_printf("%s/pf/%s.json", dir, pci);
	if (!path)
		return -ENOMEM;
	return read_file(path, ret);
}

static void add_opt_string(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

int pf_status_write(const char *dir, const struct pf_status *s)
{
	struct json_object *o = json_object_new_object();
	int r;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "pci", json_object_new_string(s->pci));
	add_opt_string(o, "name", s->name);
	json_object_object_add(o, "state",
			       json_object_new_string(pf_status_state_to_string(s->state)));
	add_opt_string(o, "error", s->error);
	json_object_object_add(o, "started_usec", json_object_new_uint64(s->started));
	json_object_object_add(o, "finished_usec", json_object_new_uint64(s->finished));
	json_object_object_add(o, "actions", json_object_new_uint64(s->n_actions));
	json_object_object_add(o, "host_usec", json_object_new_uint64(s->host_usec));
	json_object_object_add(o, "num_vfs", json_object_new_uint64(s->num_vfs));
	json_object_object_add(o, "reboot_reasons", json_strv(s->reboot_reasons));
	json_object_object_add(o, "config_files", json_strv(s->config_files));
	json_object_object_add(o, "waiting", json_strv(s->waiting));
	if (s->deferred_by)
		json_object_object_add(o, "deferred_by", json_object_new_string(s->deferred_by));
	if (s->without_drain)
		json_object_object_add(o, "without_drain",
				       json_object_new_string(s->without_drain));
	if (s->layouts)
		json_object_object_add(o, "layouts", json_object_new_string(s->layouts));
	json_object_object_add(o, "by", json_object_new_string(s->reset ? "reset" : "apply"));
	if (s->firmware.set || s->firmware.link_set) {
		struct json_object *f = json_object_new_object();

		if (!f) {
			json_object_put(o);
			return -ENOMEM;
		}
		json_object_object_add(f, "total_vfs",
				       json_object_new_uint64(s->firmware.total_vfs));
		json_object_object_add(f, "set_usec", json_object_new_uint64(s->firmware.set));
		json_object_object_add(f, "by", json_object_new_string("apply"));
		if (s->firmware.link_set) {
			json_object_object_add(
				f, "link_type",
				json_object_new_string(link_type_to_string(s->firmware.link_type)));
			json_object_object_add(f, "link_set_usec",
					       json_object_new_uint64(s->firmware.link_set));
		}
		json_object_object_add(o, "firmware", f);
	}
	r = write_json(dir, s->pci, o);
	json_object_put(o);
	return r;
}

static const char *get_string(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	return json_object_get_uint64(v);
}

/* A list of strings, empty when the record has none (older records). */
static int get_strv(struct json_object *o, const char *key, char ***ret)
{
	struct json_object *v;

	return json_to_strv(json_object_object_get_ex(o, key, &v) ? v : NULL, ret);
}

static int dup_opt(const char *s, char **ret)
{
	*ret = NULL;
	if (s && !(*ret = strdup(s)))
		return -ENOMEM;
	return 0;
}

int pf_status_read(const char *dir, const char *pci, struct pf_status *ret)
{
	_cleanup_free_ char *text = NULL;
	int r = read_text(dir, pci, &text);

	return r < 0 ? r : pf_status_parse(pci, text, ret);
}

static bool names_firmware(char **reasons)
{
	for (char **r = reasons; *r; r++)
		if (startswith(*r, "firmware VF limit"))
			return true;
	return false;
}

/* The record's raise of the firmware VF limit; of a record before "by", an
 * apply's that names it among its reboot reasons: that apply's. */
static struct pf_firmware_raise get_firmware(struct json_object *o, const struct pf_status *s)
{
	struct json_object *f;

	if (json_object_object_get_ex(o, "firmware", &f) &&
	    json_object_is_type(f, json_type_object))
		return (struct pf_firmware_raise){
			.set = get_u64(f, "set_usec"),
			.total_vfs = (uint32_t)get_u64(f, "total_vfs"),
			.link_set = get_string(f, "link_type") ? get_u64(f, "link_set_usec") : 0,
			.link_type = get_string(f, "link_type") ?
					     link_type_from_string(get_string(f, "link_type")) :
					     _LINK_TYPE_INVALID,
		};
	if (!get_string(o, "by") && !s->reset && names_firmware(s->reboot_reasons))
		return (struct pf_firmware_raise){ .set = s->finished ?: 1 };
	return (struct pf_firmware_raise){};
}

int pf_status_parse(const char *pci, const char *text, struct pf_status *ret)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct pf_status s = {};
	const char *state;
	int r;

	r = parse_object(text, &o);
	if (r < 0)
		return r;
	state = get_string(o, "state");
	s.state = state ? pf_status_state_from_string(state) : _PF_STATUS_STATE_INVALID;
	if (s.state < 0)
		return -EBADMSG;
	snprintf(s.pci, sizeof(s.pci), "%s", pci);
	s.started = get_u64(o, "started_usec");
	s.finished = get_u64(o, "finished_usec");
	s.n_actions = (uint32_t)get_u64(o, "actions");
	s.host_usec = get_u64(o, "host_usec");
	s.num_vfs = (uint32_t)get_u64(o, "num_vfs");
	if (dup_opt(get_string(o, "name"), &s.name) < 0 ||
	    dup_opt(get_string(o, "error"), &s.error) < 0 ||
	    dup_opt(get_string(o, "deferred_by"), &s.deferred_by) < 0 ||
	    dup_opt(get_string(o, "without_drain"), &s.without_drain) < 0 ||
	    dup_opt(get_string(o, "layouts"), &s.layouts) < 0)
		r = -ENOMEM;
	if (r >= 0)
		r = get_strv(o, "reboot_reasons", &s.reboot_reasons);
	if (r >= 0)
		r = get_strv(o, "config_files", &s.config_files);
	if (r >= 0)
		r = get_strv(o, "waiting", &s.waiting);
	/* records of earlier versions: a reset's names no layout file */
	if (r >= 0)
		s.reset = get_string(o, "by") ? streq(get_string(o, "by"), "reset") :
						!s.config_files[0];
	if (r >= 0)
		s.firmware = get_firmware(o, &s);
	if (r < 0) {
		pf_status_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}

int pf_status_remove(const char *dir, const char *pci)
{
	_cleanup_free_ char *path = strdup_printf("%s/pf/%s.json", dir, pci);

	if (!path)
		return -ENOMEM;
	/* ENOTDIR: dir/pf is not a directory, so there is no such record */
	if (unlink(path) < 0 && errno != ENOENT && errno != ENOTDIR)
		return -errno;
	return 0;
}

int pf_status_list(const char *dir, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	_cleanup_free_ char *sub = strdup_printf("%s/pf", dir);
	DIR *d;
	int r = 0;

	if (!l || !sub)
		return -ENOMEM;
	d = opendir(sub);
	if (!d && errno != ENOENT)
		return -errno;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		char pci[PCI_ADDR_MAX];

		if (n != 17 || !streq(e->d_name + 12, ".json"))
			continue;
		snprintf(pci, sizeof(pci), "%.12s", e->d_name);
		if (pci_addr_is_valid(pci) && (r = strv_extend(&l, pci)) < 0)
			break;
	}
	if (d)
		closedir(d);
	if (r < 0)
		return r;
	strv_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}

void pf_created_done(struct pf_created *c)
{
	free(c->rebind);
	*c = (struct pf_created){};
}

int pf_created_set_rebind(struct pf_created *c, uint32_t vf, const char *driver)
{
	struct vf_rebind *m;
	size_t i;

	if (driver && !vf_driver_name_is_valid(driver))
		return -EINVAL;
	for (i = 0; i < c->n_rebind && c->rebind[i].vf != vf; i++)
		;
	if (!driver) {
		if (i < c->n_rebind)
			c->rebind[i] = c->rebind[--c->n_rebind];
		return 0;
	}
	if (i == c->n_rebind) {
		m = realloc(c->rebind, sizeof(*m) * (c->n_rebind + 1));
		if (!m)
			return -ENOMEM;
		c->rebind = m;
		c->n_rebind++;
	}
	c->rebind[i].vf = vf;
	snprintf(c->rebind[i].driver, sizeof(c->rebind[i].driver), "%s", driver);
	return 0;
}

static struct json_object *rebind_to_json(const struct pf_created *c)
{
	struct json_object *a = json_object_new_array_ext((int)c->n_rebind);

	for (size_t i = 0; a && i < c->n_rebind; i++) {
		struct json_object *e = json_object_new_object();

		if (!e || json_object_array_add(a, e) < 0) {
			json_object_put(e);
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(e, "vf", json_object_new_uint64(c->rebind[i].vf));
		json_object_object_add(e, "driver", json_object_new_string(c->rebind[i].driver));
	}
	return a;
}

int pf_created_write(const char *dir, const struct pf_created *c)
{
	struct json_object *o = json_object_new_object(), *rebind = NULL;
	int r;

	if (!o || (c->n_rebind > 0 && !(rebind = rebind_to_json(c)))) {
		json_object_put(o);
		return -ENOMEM;
	}
	json_object_object_add(o, "pci", json_object_new_string(c->pci));
	json_object_object_add(o, "num_vfs", json_object_new_uint64(c->num_vfs));
	json_object_object_add(o, "eswitch_switchdev",
			       json_object_new_boolean(c->eswitch_switchdev));
	if (c->vfs_remade > 0)
		json_object_object_add(o, "vfs_remade", json_object_new_uint64(c->vfs_remade));
	if (c->autoprobe_off)
		json_object_object_add(o, "drivers_autoprobe_off", json_object_new_boolean(true));
	if (c->kernel_args)
		json_object_object_add(o, "kernel_arguments", json_object_new_boolean(true));
	json_object_object_add(o, "when_usec", json_object_new_uint64(c->when));
	if (rebind)
		json_object_object_add(o, "rebind", rebind);
	r = write_json(dir, c->pci, o);
	json_object_put(o);
	return r;
}

int pf_created_read(const char *dir, const char *pci, struct pf_created *ret)
{
	_cleanup_free_ char *text = NULL;
	int r = read_text(dir, pci, &text);

	return r < 0 ? r : pf_created_parse(pci, text, ret);
}

/* [{"vf": 3, "driver": "igbvf"}, ...]: every entry valid, each VF once. */
static int rebind_from_json(struct json_object *a, struct pf_created *c)
{
	size_t n;
	int r;

	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *vf;
		const char *driver = get_string(e, "driver");
		uint64_t idx;

		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "vf", &vf) ||
		    !json_object_is_type(vf, json_type_int) || !driver)
			return -EBADMSG;
		idx = json_object_get_uint64(vf);
		if (json_object_get_int64(vf) < 0 || idx > UINT16_MAX)
			return -EBADMSG;
		for (size_t j = 0; j < c->n_rebind; j++)
			if (c->rebind[j].vf == idx)
				return -EBADMSG;
		r = pf_created_set_rebind(c, (uint32_t)idx, driver);
		if (r < 0)
			return r == -EINVAL ? -EBADMSG : r;
	}
	return 0;
}

int pf_created_parse(const char *pci, const char *text, struct pf_created *ret)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct pf_created c = {};
	struct json_object *v;
	int r;

	r = parse_object(text, &o);
	if (r < 0)
		return r;
	snprintf(c.pci, sizeof(c.pci), "%s", pci);
	c.num_vfs = (uint32_t)get_u64(o, "num_vfs");
	c.eswitch_switchdev = json_object_object_get_ex(o, "eswitch_switchdev", &v) &&
			      json_object_get_boolean(v);
	c.vfs_remade = (uint32_t)get_u64(o, "vfs_remade");
	c.when = get_u64(o, "when_usec");
	if (json_object_object_get_ex(o, "drivers_autoprobe_off", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return -EBADMSG;
		c.autoprobe_off = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "kernel_arguments", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return -EBADMSG;
		c.kernel_args = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "rebind", &v)) {
		r = rebind_from_json(v, &c);
		if (r < 0) {
			pf_created_done(&c);
			return r;
		}
	}
	*ret = c;
	return 0;
}

int pf_created_mark(const char *state_dir, struct pf_state *pf)
{
	_cleanup_(pf_created_done) struct pf_created c = {};

	if (!state_dir || pf_created_read(state_dir, pf->pci, &c) < 0)
		return 0;
	pf->autoprobe_ours = c.autoprobe_off && !pf->drivers_autoprobe;
	pf->vfs_ours = c.num_vfs > 0 && c.num_vfs == pf->num_vfs ? c.num_vfs : 0;
	for (size_t i = 0; i < c.n_rebind; i++) {
		struct vf_state *vf = c.rebind[i].vf < pf->n_vfs ? &pf->vfs[c.rebind[i].vf] : NULL;

		if (!vf || vf->attrs.driver)
			continue;
		if (free_and_strdup(&vf->unbound_from, c.rebind[i].driver) < 0)
			return -ENOMEM;
	}
	return 0;
}

int host_state_mark_created(const char *state_dir, struct host_state *hs)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < hs->n_pfs; i++)
		r = pf_created_mark(state_dir, &hs->pfs[i]);
	return r;
}

int pf_created_remove(const char *dir, const char *pci)
{
	/* the same file layout as the status records, in the state directory */
	return pf_status_remove(dir, pci);
}

int status_default_dirs(const char *host_path, const char *root, char **runtime_dir,
			char **state_dir)
{
	int r;

	if (root) {
		r = *runtime_dir ? 0 : path_under_root(root, STATUS_RUNTIME_DIR, runtime_dir);
		if (r >= 0 && !*state_dir)
			r = path_under_root(root, STATUS_STATE_DIR, state_dir);
		return r;
	}
	if (!*runtime_dir)
		*runtime_dir = host_path ? strdup_printf("%s.run", host_path) :
					   strdup(STATUS_RUNTIME_DIR);
	if (!*state_dir)
		*state_dir = host_path ? strdup_printf("%s.lib", host_path) :
					 strdup(STATUS_STATE_DIR);
	return *runtime_dir && *state_dir ? 0 : -ENOMEM;
}

bool pf_created_eswitch_kept(const struct pf_created *c, const struct pf_state *pf)
{
	return c->eswitch_switchdev && pf->has_eswitch &&
	       pf->eswitch_mode == ESWITCH_MODE_SWITCHDEV && pf->num_vfs > 0 &&
	       !(c->num_vfs > 0 && pf->num_vfs == c->num_vfs) &&
	       driver_info_get(pf->driver)->switchdev == SWITCHDEV_WITHOUT_VFS;
}

bool pf_created_next_undo(const struct pf_created *c, const struct pf_state *pf, struct action *ret)
{
	if (c->num_vfs > 0 && pf->num_vfs == c->num_vfs)
		*ret = (struct action){ .type = ACTION_SET_NUM_VFS,
					.value = 0,
					.disruptive = true };
	else if (c->eswitch_switchdev && pf->has_eswitch &&
		 pf->eswitch_mode == ESWITCH_MODE_SWITCHDEV && !pf_created_eswitch_kept(c, pf))
		*ret = (struct action){ .type = ACTION_SET_ESWITCH_MODE,
					.value = ESWITCH_MODE_LEGACY,
					.disruptive = true };
	else if (c->autoprobe_off && !pf->drivers_autoprobe)
		/* the kernel's default: destroys nothing, waits for nobody */
		*ret = (struct action){ .type = ACTION_SET_AUTOPROBE, .value = 1 };
	else
		return false;
	return true;
}

/* Kernel arguments are the host's: whether they are still there is for the
 * reset to see (apply.c) */
static bool created_is_left(const struct pf_created *c, const struct pf_state *pf)
{
	struct action a;

	return pf_created_next_undo(c, pf, &a) || c->kernel_args;
}

int pf_created_left(const char *state_dir, const struct pf_state *pf, struct pf_created *ret)
{
	struct pf_created c;
	int r;

	if (!state_dir)
		return 0;
	r = pf_created_read(state_dir, pf->pci, &c);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (!created_is_left(&c, pf)) {
		pf_created_done(&c);
		return 0;
	}
	c.rebind = mfree(c.rebind);
	c.n_rebind = 0;
	*ret = c;
	return 1;
}

/* the words that pf_created_reset_hint() and pf_created_reset_tail() know */
#define ESWITCH_KEPT "and with them the eswitch in switchdev that sriov-persist set"
#define COUNT_CHANGED ", but not the "
#define LEFT_FROM_REMOVED "from a removed layout"

char *pf_created_describe(const struct pf_created *c)
{
	if (c->num_vfs > 0)
		return strdup_printf("%u VF%s left " LEFT_FROM_REMOVED "%s", c->num_vfs,
				     c->num_vfs == 1 ? "" : "s",
				     c->eswitch_switchdev ? ", eswitch in switchdev" : "");
	if (c->eswitch_switchdev)
		return strdup("eswitch left in switchdev from a removed layout");
	if (c->autoprobe_off)
		return strdup("VF driver autoprobe left off from a removed layout");
	return strdup("IOMMU kernel arguments left in the boot loader from a removed layout");
}

/* Switchdev we set, on a driver that changes the mode only without VFs,
 * under VFs that are not ours: both stay. Whose the VFs are, as far as the
 * record knows. */
static char *describe_eswitch_kept(const struct pf_created *c, const struct pf_state *pf)
{
	_cleanup_free_ char *vfs = NULL;

	if (c->vfs_remade > 0 && c->vfs_remade == pf->num_vfs)
		vfs = strdup_printf("%u VF(s) exist, as many as before sriov-persist set "
				    "switchdev (an administrator or another tool made them; "
				    "sriov-persist removed them to change the eswitch mode and "
				    "made as many again, not VFs of its own)",
				    pf->num_vfs);
	else if (c->num_vfs > 0)
		vfs = strdup_printf("%u VF(s) exist" COUNT_CHANGED "%u sriov-persist created (the "
				    "count was changed outside sriov-persist since its last apply)",
				    pf->num_vfs, c->num_vfs);
	else
		vfs = strdup_printf(
			"%u VF(s) exist, none on sriov-persist's record (another tool "
			"or an administrator made them, or an earlier reset dropped the "
			"record)",
			pf->num_vfs);
	if (!vfs)
		return NULL;
	return strdup_printf("%s; left as they are, " ESWITCH_KEPT ": %s changes the eswitch "
			     "mode only while the PF has no VFs",
			     vfs, strna(pf->driver));
}

const char *pf_created_reset_hint(const char *reason)
{
	if (strstr(reason, ESWITCH_KEPT))
		return strstr(reason, COUNT_CHANGED) ?
			       "drops sriov-persist's record of the VFs it created; " PF_CREATED_ESWITCH_WAITS :
			       "changes nothing while the VFs are there (" PF_CREATED_ESWITCH_WAITS
			       ")";
	if (!strstr(reason, LEFT_FROM_REMOVED))
		return "drops sriov-persist's record of them";
	if (startswith(reason, "eswitch left in switchdev"))
		return "sets the eswitch back to legacy";
	if (startswith(reason, "VF driver autoprobe left off"))
		return "turns VF driver autoprobe on again";
	if (startswith(reason, "IOMMU kernel arguments left"))
		return "takes them out of the boot loader once no other PF needs them";
	return strstr(reason, ", eswitch in switchdev") ? PF_CREATED_REMOVES_LEFT
		       " and sets the eswitch back to legacy" :
							  PF_CREATED_REMOVES_LEFT;
}

const char *pf_created_reset_tail(const char *reason)
{
	if (!strstr(reason, ESWITCH_KEPT))
		return "; sriov-persist's record of what it created is dropped";
	return strstr(reason, COUNT_CHANGED) ?
		       "; sriov-persist's record of the VFs it created is dropped, and " PF_CREATED_ESWITCH_WAITS :
		       "; " PF_CREATED_ESWITCH_WAITS;
}

int pf_created_keep_eswitch(const char *state_dir, const struct pf_created *c,
			    const struct pf_state *pf, bool *ret_dropped)
{
	/* what a reset undid (autoprobe, the kernel arguments) is off it too */
	struct pf_created kept = {
		.eswitch_switchdev = true,
		/* VFs made since are not the ones that were there */
		.vfs_remade = c->vfs_remade == pf->num_vfs ? c->vfs_remade : 0,
		.when = c->when,
	};
	int r;

	*ret_dropped = false;
	if (c->num_vfs == 0 && kept.vfs_remade == c->vfs_remade && !c->autoprobe_off &&
	    !c->kernel_args)
		return 0;
	snprintf(kept.pci, sizeof(kept.pci), "%s", pf->pci);
	r = pf_created_write(state_dir, &kept);
	if (r < 0)
		return r;
	*ret_dropped = c->num_vfs > 0;
	return 0;
}

char *pf_created_describe_gone(const struct pf_created *c, const struct pf_state *pf)
{
	uint32_t ours = c ? c->num_vfs : 0;

	if (c && pf_created_eswitch_kept(c, pf))
		return describe_eswitch_kept(c, pf);

	if (pf->num_vfs == 0 && ours == 0)
		return strdup(
			"it has no VFs, and nothing that sriov-persist created is left on it");
	if (pf->num_vfs == 0)
		return strdup_printf("it has no VFs; the %u that sriov-persist created are gone "
				     "(a reboot, or a change outside sriov-persist)",
				     ours);
	if (ours > 0)
		return strdup_printf("%u VF(s) exist, but not the %u sriov-persist created (the "
				     "count was changed outside sriov-persist since its last "
				     "apply); left as they are",
				     pf->num_vfs, ours);
	return strdup_printf("%u VF(s) exist, none on sriov-persist's record (another tool or an "
			     "administrator made them, or an earlier reset dropped the record); "
			     "left as they are",
			     pf->num_vfs);
}

static bool firmware_waits(const struct pf_state *pf)
{
	return pf->firmware_total_vfs >= 0 && (uint32_t)pf->firmware_total_vfs > pf->total_vfs;
}

static bool link_waits(const struct pf_state *pf)
{
	return pf->has_firmware_link_type && pf->firmware_link_type != pf->link_type;
}

bool pf_status_link_pending(const struct pf_status *s, const struct pf_state *pf)
{
	return s->firmware.link_set && link_waits(pf) &&
	       s->firmware.link_type == pf->firmware_link_type;
}

bool pf_status_firmware_pending(const struct pf_status *s, const struct pf_state *pf)
{
	return (s->firmware.set && firmware_waits(pf)) || pf_status_link_pending(s, pf);
}

uint32_t pf_status_firmware_waited(const struct pf_status *s)
{
	if (s->firmware.set)
		return s->firmware.total_vfs;
	for (char **r = s->reboot_reasons; !s->reset && r && *r; r++)
		if (plan_firmware_reason_raised(*r))
			return plan_firmware_reason_raised(*r);
	return 0;
}

bool pf_status_firmware_took_effect(const struct pf_status *s, const struct pf_state *pf)
{
	uint32_t waited = pf_status_firmware_waited(s);

	/* not one set back by hand, which brings nothing: sriov_totalvfs
	 * reaches what the apply waited for */
	return (s->state == PF_STATUS_APPLIED || s->state == PF_STATUS_DEGRADED) && waited &&
	       pf->total_vfs >= waited && !pf_status_firmware_pending(s, pf);
}

static bool names_link(char **reasons)
{
	for (char **r = reasons; *r; r++)
		if (startswith(*r, "link type"))
			return true;
	return false;
}

int pf_status_carry_firmware(const char *dir, struct pf_status *s, const struct pf_state *pf,
			     bool raised)
{
	_cleanup_(pf_status_done) struct pf_status old = {};
	bool own = !s->reset && raised;
	int r;

	s->firmware = (struct pf_firmware_raise){};
	if (!firmware_waits(pf) && !link_waits(pf))
		return 0;
	r = pf_status_read(dir, pf->pci, &old);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		old.firmware = (struct pf_firmware_raise){};
	/* a raise above the one on record is this apply's own */
	if (firmware_waits(pf) && old.firmware.set &&
	    (!own || !old.firmware.total_vfs ||
	     old.firmware.total_vfs == (uint32_t)pf->firmware_total_vfs)) {
		s->firmware.set = old.firmware.set;
		s->firmware.total_vfs = old.firmware.total_vfs;
	} else if (firmware_waits(pf) && own) {
		s->firmware.set = s->finished;
		s->firmware.total_vfs = (uint32_t)pf->firmware_total_vfs;
	}
	/* so too the link type an apply set in firmware */
	if (old.firmware.link_set && old.firmware.link_type == pf->firmware_link_type &&
	    link_waits(pf)) {
		s->firmware.link_set = old.firmware.link_set;
		s->firmware.link_type = old.firmware.link_type;
	} else if (link_waits(pf) && !s->reset && names_link(s->reboot_reasons)) {
		s->firmware.link_set = s->finished;
		s->firmware.link_type = pf->firmware_link_type;
	}
	return 0;
}
