/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriov-persistd over D-Bus: status, plan, apply and reset go through the daemon
 * when it runs, so that they see what it sees and do not race its applies.
 * Whether it runs is asked of the bus (NameHasOwner), never by calling it:
 * a call would start it through D-Bus activation. */

#include "json-util.h"
#include "sriovctl.h"

#define DAEMON_NAME "org.sriovpersist1"
#define DAEMON_PATH "/org/sriovpersist1"
#define DAEMON_IFACE "org.sriovpersist1.Manager"
#define ERROR_NO_SUCH_PF "org.sriovpersist1.Error.NoSuchPF"
#define ERROR_NOT_APPLIED "org.sriovpersist1.Error.NotApplied"
#define ERROR_NOT_RESET "org.sriovpersist1.Error.NotReset"
#define ERROR_MAIN_CONFIG "org.sriovpersist1.Error.MainConfigErrors"

/* An apply may drain pods and wait for the disruption policy. */
#define APPLY_TIMEOUT_USEC (15 * 60 * USEC_PER_SEC)
/* The daemon answers no call while it applies: the metrics are written
 * without its families rather than late. */
#define METRICS_TIMEOUT_USEC (10 * USEC_PER_SEC)
/* wait's question of a PF's state, asked on each of its passes */
#define PF_STATE_TIMEOUT_USEC (2 * USEC_PER_SEC)

sd_bus *bus_client_open(void)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int owned = 0;

	if (sd_bus_open_system(&bus) < 0 ||
	    sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "NameHasOwner", &error, &reply, "s",
			       DAEMON_NAME) < 0 ||
	    sd_bus_message_read(reply, "b", &owned) < 0 || !owned)
		return NULL;
	return TAKE_PTR(bus);
}

/* The verb that made the call, for messages about it */
static const char *verb_of(const char *method)
{
	static const char *const verbs[][2] = {
		{ "Apply", "apply" },	   { "Reset", "reset" }, { "Reload", "reload" },
		{ "GetStatus", "status" }, { "Plan", "plan" },
	};

	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		if (streq(verbs[i][0], method))
			return verbs[i][1];
	return method;
}

static int print_error(const char *method, const sd_bus_error *error, int r)
{
	/* the bus policy's refusal ("Rejected send message, 1 matched rules;
	 * type=...") and the daemon's own say the same to the user */
	if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED))
		fprintf(stderr,
			"%s: permission denied: changing the host needs root (run it with sudo)\n",
			verb_of(method));
	else if (sd_bus_error_is_set(error) && error->message)
		fprintf(stderr, "sriov-persistd: %s\n", error->message);
	else
		fprintf(stderr, "sriov-persistd: %s() failed: %s\n", method, strerror(-r));
	return r;
}

/* A method call; an error named quiet is not printed and returns -EREMOTEIO,
 * nor is the refusal of Apply() and Reset() while the main configuration
 * has errors, which returns -ENOEXEC (the verb says it as without the
 * daemon). */
static int call(sd_bus *bus, const char *method, usec_t timeout, const char *quiet,
		sd_bus_message **ret, const char *types, ...)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, DAEMON_NAME, DAEMON_PATH, DAEMON_IFACE, method);
	if (r >= 0 && types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(bus, m, timeout, &error, ret);
	if (r < 0 && quiet && sd_bus_error_has_name(&error, quiet))
		return -EREMOTEIO;
	if (r < 0 && sd_bus_error_has_name(&error, ERROR_MAIN_CONFIG))
		return -ENOEXEC;
	return r < 0 ? print_error(method, &error, r) : 0;
}

/* The PCI address of the PF called what, found by the daemon as Apply()
 * finds it (alternative names too, which the documents do not list). */
static int resolve_pf(sd_bus *bus, const char *what, char **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *pci, *path;
	char *p;
	int r;

	r = call(bus, "GetPhysicalFunction", 0, ERROR_NO_SUCH_PF, &reply, "s", what);
	if (r == -EREMOTEIO) {
		fprintf(stderr, "No PF '%s' on this host\n", what);
		return -ENXIO;
	}
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "so", &pci, &path);
	if (r < 0)
		return print_error("GetPhysicalFunction", NULL, r);
	p = strdup(pci);
	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

int bus_client_document(sd_bus *bus, const char *method, const char *only, struct json_object **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_json_ struct json_object *doc = NULL;
	_cleanup_free_ char *pci = NULL;
	enum json_tokener_error jerr;
	const char *text;
	int r;

	r = only ? resolve_pf(bus, only, &pci) : 0;
	if (r >= 0)
		r = call(bus, method, 0, NULL, &reply, NULL);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "s", &text);
	if (r < 0)
		return print_error(method, NULL, r);
	doc = json_tokener_parse_verbose(text, &jerr);
	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_is_type(doc_get(doc, "pfs"), json_type_array)) {
		fprintf(stderr, "sriov-persistd: %s() returned no document: %s\n", method,
			doc ? "no \"pfs\" array" : json_tokener_error_desc(jerr));
		return -EBADMSG;
	}
	r = pci ? doc_filter_pfs(doc, pci) : 0;
	if (r == -ENXIO)
		fprintf(stderr, "No PF '%s' on this host\n", only);
	else if (r < 0)
		fprintf(stderr, "Out of memory\n");
	if (r < 0)
		return r;
	*ret = TAKE_PTR(doc);
	return 0;
}

int bus_client_apply(sd_bus *bus, const char *method, const char *pf)
{
	int r = call(bus, method, APPLY_TIMEOUT_USEC, ERROR_NOT_APPLIED, NULL, "s", pf);

	return r == -EREMOTEIO ? 1 : r;
}

/* Reset()'s reply: a(suub), each PF it changed. */
static int read_reset(sd_bus_message *reply, struct bus_reset **ret, size_t *ret_n)
{
	_cleanup_free_ struct bus_reset *all = NULL;
	const char *pci;
	uint32_t actions, vfs;
	size_t n = 0;
	int kept, r;

	/* a daemon from before Reset() said what it changed */
	if (strempty(sd_bus_message_get_signature(reply, true))[0] == 0) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	r = sd_bus_message_enter_container(reply, 'a', "(suub)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(reply, "(suub)", &pci, &actions, &vfs, &kept)) > 0) {
		struct bus_reset *more = reallocarray(all, n + 1, sizeof(*more));

		if (!more)
			return -ENOMEM;
		all = more;
		all[n] = (struct bus_reset){ .n_actions = actions,
					     .num_vfs = vfs,
					     .eswitch_kept = kept };
		snprintf(all[n++].pci, sizeof(all->pci), "%s", pci);
	}
	if (r < 0)
		return print_error("Reset", NULL, r);
	*ret = TAKE_PTR(all);
	*ret_n = n;
	return 0;
}

int bus_client_reset(sd_bus *bus, const char *pf, struct bus_reset **ret, size_t *ret_n,
		     char **ret_error)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, DAEMON_NAME, DAEMON_PATH, DAEMON_IFACE,
					   "Reset");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", pf);
	if (r >= 0)
		r = sd_bus_call(bus, m, APPLY_TIMEOUT_USEC, &error, &reply);
	if (r < 0 && sd_bus_error_has_name(&error, ERROR_NOT_RESET)) {
		*ret_error = strdup(strna(error.message));
		return *ret_error ? 1 : -ENOMEM;
	}
	if (r < 0 && sd_bus_error_has_name(&error, ERROR_MAIN_CONFIG))
		return -ENOEXEC;
	if (r < 0)
		return print_error("Reset", &error, r);
	return read_reset(reply, ret, ret_n);
}

int bus_client_metrics(sd_bus *bus, struct json_object **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct json_object *doc;
	const char *text;
	int r;

	r = call(bus, "GetMetrics", METRICS_TIMEOUT_USEC, NULL, &reply, NULL);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "s", &text);
	if (r < 0)
		return print_error("GetMetrics", NULL, r);
	doc = json_tokener_parse(text);
	if (!json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		fprintf(stderr, "sriov-persistd: GetMetrics() returned no document\n");
		return -EBADMSG;
	}
	*ret = doc;
	return 0;
}

bool ctl_daemon_same_host(const struct ctl *c, struct json_object *doc)
{
	const char *theirs = json_object_get_string(doc_get(doc, "host"));
	_cleanup_free_ char *ours = c->host_path ? realpath(c->host_path, NULL) : NULL;

	return theirs ? ours && streq(theirs, ours) : !c->host_path;
}

int ctl_drain_daemon(void *userdata)
{
	struct ctl *c = userdata;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_json_ struct json_object *doc = NULL;

	if (c->drain_daemon_asked)
		return c->drain_daemon;
	bus = c->root ? NULL : bus_client_open();
	if (c->root || (bus && bus_client_metrics(bus, &doc) < 0))
		c->drain_daemon = -1;
	else
		c->drain_daemon = doc && ctl_daemon_same_host(c, doc);
	c->drain_daemon_asked = true;
	return c->drain_daemon;
}

char *ctl_daemon_command(const struct ctl *c)
{
	if (!c->local_options)
		return NULL;
	return strdup_printf("sriov-persistd%s%s%s", c->local_options,
			     c->k8s_notify ? " --k8s-notify " : "", strempty(c->k8s_notify));
}

/* A string property of the daemon's object at path, asked without starting
 * the daemon (it is bus-activatable) and for at most PF_STATE_TIMEOUT_USEC:
 * the daemon answers no call while it applies. */
static int pf_property(sd_bus *bus, const char *path, const char *name, char **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	const char *v;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, DAEMON_NAME, path,
					   "org.freedesktop.DBus.Properties", "Get");
	if (r >= 0)
		r = sd_bus_message_set_auto_start(m, 0);
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", DAEMON_NAME ".PhysicalFunction", name);
	if (r >= 0)
		r = sd_bus_call(bus, m, PF_STATE_TIMEOUT_USEC, NULL, &reply);
	if (r >= 0)
		r = sd_bus_message_read(reply, "v", "s", &v);
	if (r < 0)
		return r;
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

int ctl_daemon_pf_state(const char *pci, char **ret_state, char **ret_error)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = bus_client_open();
	_cleanup_free_ char *path = NULL;
	int r;

	*ret_state = *ret_error = NULL;
	if (!bus)
		return 0;
	if (sd_bus_path_encode(DAEMON_PATH "/pf", pci, &path) < 0)
		return -ENOMEM;
	r = pf_property(bus, path, "State", ret_state);
	if (r >= 0)
		r = pf_property(bus, path, "LastError", ret_error);
	if (r < 0) {
		*ret_state = mfree(*ret_state);
		*ret_error = mfree(*ret_error);
	}
	return r == -ENOMEM ? r : 0;
}
