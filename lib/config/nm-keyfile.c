/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fnmatch.h>

#include "conf-parser.h"
#include "nm-keyfile.h"

/* Where each key of enum nm_key is: its section (and the section's other
 * name in keyfiles: NetworkManager reads [802-3-ethernet] as [ethernet]),
 * its key and its name in messages. */
static const struct nm_key_row {
	const char *section, *alias, *key, *key_alias, *label;
} nm_key_rows[_NM_KEY_MAX] = {
	[NM_KEY_TYPE] = { "connection", NULL, "type", NULL, "connection.type" },
	[NM_KEY_INTERFACE_NAME] = { "connection", NULL, "interface-name", NULL,
				    "connection.interface-name" },
	[NM_KEY_MAC_ADDRESS] = { "ethernet", "802-3-ethernet", "mac-address", NULL,
				 "ethernet.mac-address" },
	/* its name before NetworkManager 1.48 */
	[NM_KEY_MAC_DENYLIST] = { "ethernet", "802-3-ethernet", "mac-address-denylist",
				  "mac-address-blacklist", "ethernet.mac-address-denylist" },
	[NM_KEY_MATCH_INTERFACE_NAME] = { "match", NULL, "interface-name", NULL,
					  "match.interface-name" },
	[NM_KEY_MATCH_DRIVER] = { "match", NULL, "driver", NULL, "match.driver" },
	[NM_KEY_MATCH_PATH] = { "match", NULL, "path", NULL, "match.path" },
	[NM_KEY_MATCH_CMDLINE] = { "match", NULL, "kernel-command-line", NULL,
				   "match.kernel-command-line" },
	[NM_KEY_TOTAL_VFS] = { "sriov", NULL, "total-vfs", NULL, "sriov.total-vfs" },
};

struct nm_parse_ctx {
	struct nm_profile *p;
	char *section;
};

static int nm_on_section(void *userdata, const char *name, unsigned line)
{
	struct nm_parse_ctx *c = userdata;

	if (name && streq(name, "sriov") && c->p->sriov_line == 0)
		c->p->sriov_line = line;
	return free_and_strdup(&c->section, name);
}

static bool nm_row_is(const struct nm_key_row *row, const char *section, const char *key)
{
	return section && (streq(key, row->key) || streq_ptr(key, row->key_alias)) &&
	       (streq(section, row->section) || streq_ptr(section, row->alias));
}

/* NetworkManager's VF attributes, in the layout's keys */
static const struct nm_vf_attr {
	const char *name;
	enum vf_key key;
} nm_vf_attrs[] = {
	{ "mac", VF_KEY_MAC },
	{ "spoof-check", VF_KEY_SPOOFCHK },
	{ "trust", VF_KEY_TRUST },
	{ "min-tx-rate", VF_KEY_MIN_TX_RATE },
	{ "max-tx-rate", VF_KEY_MAX_TX_RATE },
};

/* vlans=ID[.QOS[.PROTO]]: the VLAN id, QoS and protocol (q: 802.1Q, the
 * default, ad: 802.1ad), all three set as NetworkManager sets them. */
static int nm_vf_vlans(struct other_vf *v, const char *written, unsigned line, const char *value)
{
	size_t n = strcspn(value, ";");
	bool several = value[n] == ';' && value[n + 1] != '\0';
	_cleanup_free_ char *one = strndup(value, several ? 0 : n);
	char *qos, *proto = NULL;
	const char *p;
	int r;

	if (!one)
		return -ENOMEM;
	qos = strchr(one, '.');
	if (qos) {
		*qos++ = '\0';
		proto = strchr(qos, '.');
		if (proto)
			*proto++ = '\0';
	}
	/* more than one VLAN: no value is read */
	p = several			? "" :
	    !proto || streq(proto, "q") ? "802.1Q" :
	    streq(proto, "ad")		? "802.1ad" :
					  "";
	r = other_vf_set(v, VF_KEY_VLAN, written, line, one);
	if (r >= 0)
		r = other_vf_set(v, VF_KEY_QOS, written, line, several ? "" : qos ?: "0");
	if (r >= 0)
		r = other_vf_set(v, VF_KEY_VLAN_PROTO, written, line, p);
	return r;
}

static int nm_vf_attr(struct other_vf *v, uint32_t index, unsigned line, const char *word)
{
	const char *eq = strchr(word, '=');
	_cleanup_free_ char *written = strdup_printf("vf.%u %s", index, word);

	if (!written)
		return -ENOMEM;
	if (!eq)
		return 0;
	if (strncmp(word, "vlans=", 6) == 0)
		return nm_vf_vlans(v, written, line, eq + 1);
	for (size_t i = 0; i < ELEMENTSOF(nm_vf_attrs); i++)
		if (strlen(nm_vf_attrs[i].name) == (size_t)(eq - word) &&
		    strncmp(word, nm_vf_attrs[i].name, (size_t)(eq - word)) == 0)
			return other_vf_set(v, nm_vf_attrs[i].key, written, line, eq + 1);
	return 0;
}

int nm_vf_parse(const char *path, unsigned line, uint32_t index, const char *value,
		struct other_vf *ret)
{
	_cleanup_strv_free_ char **words = NULL;
	struct other_vf v = { .index = index, .path = strdup(path) };
	int r = v.path ? strv_split(value, &words) : -ENOMEM;

	vf_attrs_init(&v.attrs);
	for (size_t i = 0; r >= 0 && words[i]; i++)
		r = nm_vf_attr(&v, index, line, words[i]);
	if (r < 0) {
		other_vf_done(&v);
		return r;
	}
	*ret = v;
	return 0;
}

/* [sriov] vf.N=; GKeyFile keeps the last of a repeated key */
static int nm_on_vf(struct nm_profile *p, const char *key, const char *value, unsigned line)
{
	struct other_vf *items, v;
	uint32_t index;
	size_t i = 0;
	int r;

	if (safe_atou32(key + 3, 10, &index) < 0)
		return 0;
	r = nm_vf_parse(p->path, line, index, value, &v);
	if (r < 0)
		return r;
	while (i < p->n_vfs && p->vfs[i].index != index)
		i++;
	if (i < p->n_vfs) {
		other_vf_done(&p->vfs[i]);
		p->vfs[i] = v;
		return 0;
	}
	items = realloc(p->vfs, sizeof(*items) * (p->n_vfs + 1));
	if (!items) {
		other_vf_done(&v);
		return -ENOMEM;
	}
	p->vfs = items;
	p->vfs[p->n_vfs++] = v;
	return 0;
}

static int nm_on_assignment(void *userdata, const char *key, const char *value, unsigned line)
{
	struct nm_parse_ctx *c = userdata;

	if (streq_ptr(c->section, "sriov") && strncmp(key, "vf.", 3) == 0)
		return nm_on_vf(c->p, key, value, line);

	for (size_t k = 0; k < _NM_KEY_MAX; k++) {
		struct nm_value *v = &c->p->values[k];

		if (!nm_row_is(&nm_key_rows[k], c->section, key))
			continue;
		/* GKeyFile keeps the last of a repeated key */
		v->line = line;
		return free_and_strdup(&v->text, value);
	}
	return 0;
}

int nm_profile_parse(const char *path, const char *text, struct nm_profile *ret)
{
	static const struct conf_parser_ops ops = {
		.section = nm_on_section,
		.assignment = nm_on_assignment,
	};
	struct nm_profile p = { .path = strdup(path) };
	struct nm_parse_ctx c = { .p = &p };
	struct diag_list diags = {};
	int r;

	if (!p.path)
		return -ENOMEM;
	r = conf_parse_text(path, text, &ops, &c, &diags);
	free(c.section);
	if (r >= 0 && diags.n > 0) {
		p.error = strdup_printf("line %u: %s", diags.items[0].line, diags.items[0].msg);
		if (!p.error)
			r = -ENOMEM;
	}
	diag_list_done(&diags);
	if (r < 0) {
		nm_profile_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

void nm_profile_done(struct nm_profile *p)
{
	free(p->path);
	for (size_t k = 0; k < _NM_KEY_MAX; k++)
		free(p->values[k].text);
	for (size_t i = 0; i < p->n_vfs; i++)
		other_vf_done(&p->vfs[i]);
	free(p->vfs);
	free(p->error);
	*p = (struct nm_profile){};
}

static char nm_unescape_char(char c)
{
	switch (c) {
	case 's':
		return ' ';
	case 't':
		return '\t';
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	default:
		return c;
	}
}

int nm_list_split(const char *value, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	_cleanup_free_ char *buf = malloc(strlen(value) + 1);
	size_t n = 0;

	if (!l || !buf)
		return -ENOMEM;
	for (const char *p = value;; p++) {
		if (*p == '\\' && p[1] != '\0') {
			buf[n++] = nm_unescape_char(*++p);
			continue;
		}
		if (*p != ';' && *p != '\0') {
			buf[n++] = *p;
			continue;
		}
		/* an empty last element is the list's closing ';' */
		if (n > 0 || *p == ';') {
			buf[n] = '\0';
			if (strv_extend(&l, buf) < 0)
				return -ENOMEM;
		}
		n = 0;
		if (*p == '\0')
			break;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

/* One element: its pattern and whether it is mandatory or inverted. */
static const char *nm_pattern_parse(const char *s, bool *ret_mandatory, bool *ret_inverted)
{
	*ret_mandatory = *ret_inverted = false;
	if (*s == '&' || *s == '|') {
		*ret_mandatory = *s == '&';
		s++;
		if (*s == '!') {
			*ret_inverted = true;
			s++;
		}
	} else if (*s == '!') {
		*ret_mandatory = *ret_inverted = true;
		s++;
	}
	if (*s == '\\')
		s++;
	return s;
}

bool nm_wildcard_match(const char *str, char *const *patterns)
{
	bool any_optional = false, optional_matched = false;

	for (size_t i = 0; patterns && patterns[i]; i++) {
		bool mandatory, inverted;
		const char *pattern = nm_pattern_parse(patterns[i], &mandatory, &inverted);
		bool match = (fnmatch(pattern, str ? str : "", 0) == 0) != inverted;

		if (mandatory && !match)
			return false;
		if (!mandatory) {
			any_optional = true;
			optional_matched = optional_matched || match;
		}
	}
	return optional_matched || !any_optional;
}

/* What matching a profile found so far: the keys that selected the PF, and
 * why it only may apply. */
struct nm_verdict {
	bool no;
	char **how;
	const char *unsure; /* static text, or NULL */
	char *unsure_owned;
};

static int nm_verdict_add(struct nm_verdict *v, const char *label, const char *value)
{
	return strv_consume(&v->how, strdup_printf("%s=%s", label, value));
}

/* ethernet.mac-address as keyfiles write it, or as older ones did: the six
 * bytes in decimal, "0;17;34;51;68;85;". */
static int nm_mac_parse(const char *s, struct mac_addr *ret)
{
	_cleanup_strv_free_ char **bytes = NULL;
	struct mac_addr m;
	int r;

	if (mac_parse(s, ret) >= 0)
		return 0;
	r = nm_list_split(s, &bytes);
	if (r < 0)
		return r;
	if (strv_length(bytes) != ETHER_ADDR_LEN_)
		return -EINVAL;
	for (size_t i = 0; i < ETHER_ADDR_LEN_; i++) {
		uint32_t b;

		if (safe_atou32(bytes[i], 10, &b) < 0 || b > 255)
			return -EINVAL;
		m.b[i] = (uint8_t)b;
	}
	*ret = m;
	return 0;
}

/* NetworkManager compares the permanent address; a device without one
 * takes no profile that names an address. */
static int nm_check_mac(struct nm_verdict *v, const char *text, const struct pf_identity *id)
{
	struct mac_addr want;
	int r = nm_mac_parse(text, &want);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		v->unsure = "ethernet.mac-address cannot be read";
	else if (!id->has_permanent_mac)
		v->unsure = "the PF's permanent MAC address is not known";
	else if (!mac_equal(&id->permanent_mac, &want))
		v->no = true;
	return nm_verdict_add(v, "ethernet.mac-address", text);
}

/* A profile is never activated on a device whose permanent address its deny
 * list names. */
static int nm_check_denylist(struct nm_verdict *v, const char *text, const struct pf_identity *id)
{
	_cleanup_strv_free_ char **macs = NULL;
	int r = nm_list_split(text, &macs);

	if (r < 0)
		return r;
	for (size_t i = 0; id->has_permanent_mac && macs[i]; i++) {
		struct mac_addr m;

		if (mac_parse(macs[i], &m) >= 0 && mac_equal(&m, &id->permanent_mac))
			v->no = true;
	}
	return 0;
}

/* An Ethernet device takes Ethernet profiles, an InfiniBand one
 * InfiniBand profiles (the profile's main setting). */
static void nm_check_type(struct nm_verdict *v, const char *text, const struct pf_identity *id)
{
	bool ib = streq_ptr(id->iftype, "infiniband");

	if (ib ? !streq(text, "infiniband") :
		 !streq(text, "ethernet") && !streq(text, "802-3-ethernet"))
		v->no = true;
}

static int nm_check_list(struct nm_verdict *v, const char *label, const char *text, const char *str)
{
	_cleanup_strv_free_ char **patterns = NULL;
	int r = nm_list_split(text, &patterns);

	if (r < 0)
		return r;
	if (!patterns[0])
		return 0; /* an empty list matches every device */
	if (!nm_wildcard_match(str, patterns))
		v->no = true;
	return nm_verdict_add(v, label, text);
}

static int nm_check_key(struct nm_verdict *v, enum nm_key k, const char *text,
			const struct pf_identity *id)
{
	const char *label = nm_key_rows[k].label;

	switch (k) {
	case NM_KEY_TYPE:
		nm_check_type(v, text, id);
		return 0;
	case NM_KEY_MAC_DENYLIST:
		return nm_check_denylist(v, text, id);
	case NM_KEY_INTERFACE_NAME:
		if (!streq_ptr(text, id->name))
			v->no = true;
		return nm_verdict_add(v, label, text);
	case NM_KEY_MAC_ADDRESS:
		return nm_check_mac(v, text, id);
	case NM_KEY_MATCH_INTERFACE_NAME:
		return nm_check_list(v, label, text, id->name);
	case NM_KEY_MATCH_DRIVER:
		return nm_check_list(v, label, text, id->driver);
	case NM_KEY_MATCH_PATH:
		return nm_check_list(v, label, text, id->id_path);
	case NM_KEY_MATCH_CMDLINE:
		v->unsure = "match.kernel-command-line is not compared";
		return nm_verdict_add(v, label, text);
	case NM_KEY_TOTAL_VFS:
	case _NM_KEY_MAX:
	case _NM_KEY_INVALID:
		break;
	}
	return 0;
}

static int nm_profile_judge(const struct nm_profile *p, const struct pf_identity *id,
			    struct nm_verdict *v)
{
	for (enum nm_key k = 0; k < NM_KEY_TOTAL_VFS && !v->no; k++) {
		const char *text = p->values[k].text;
		int r;

		if (!text || (k == NM_KEY_INTERFACE_NAME && !text[0]))
			continue;
		r = nm_check_key(v, k, text, id);
		if (r < 0)
			return r;
	}
	if (p->error) {
		v->unsure_owned = strdup_printf("%s cannot be read", p->error);
		if (!v->unsure_owned)
			return -ENOMEM;
	} else if (!v->no && !v->how)
		v->unsure = "it names no device (no connection.interface-name, "
			    "ethernet.mac-address or [match]): NetworkManager may activate "
			    "it on any Ethernet device";
	return 0;
}

static int nm_finding_add(const struct nm_profile *p, const struct nm_verdict *v,
			  struct other_findings *out)
{
	const struct nm_value *total = &p->values[NM_KEY_TOTAL_VFS];
	const char *why = v->unsure_owned ? v->unsure_owned : v->unsure;
	_cleanup_free_ char *setting = NULL, *joined = NULL, *how = NULL;
	struct other_finding *f;
	int r;

	setting = total->text ? strdup_printf("sriov.total-vfs=%s", total->text) :
				strdup("[sriov] without total-vfs (NetworkManager keeps 0 VFs "
				       "while the profile is active)");
	joined = v->how ? strv_join(v->how, ", ") : strdup("");
	if (!setting || !joined)
		return -ENOMEM;
	how = why ? strdup_printf("%s%s%s", joined, joined[0] ? "; " : "", why) : strdup(joined);
	if (!how)
		return -ENOMEM;
	r = other_findings_add(out, OTHER_MANAGER_NETWORKMANAGER,
			       why ? OTHER_CERTAINTY_MAY_MATCH : OTHER_CERTAINTY_MATCHES, p->path,
			       total->text ? total->line : p->sriov_line, setting, how);
	if (r < 0)
		return r;
	/* without total-vfs NetworkManager keeps 0 VFs */
	f = &out->items[out->n - 1];
	r = other_finding_set_count(f, total->text ?: "0");
	f->count_implied = !total->text;
	return r < 0 ? r : other_finding_add_vfs(f, p->vfs, p->n_vfs);
}

int nm_profile_match(const struct nm_profile *p, const struct pf_identity *id,
		     struct other_findings *out)
{
	struct nm_verdict v = {};
	int r;

	if (p->sriov_line == 0)
		return 0;
	r = nm_profile_judge(p, id, &v);
	if (r >= 0 && !v.no)
		r = nm_finding_add(p, &v, out);
	strv_free(v.how);
	free(v.unsure_owned);
	return r;
}
