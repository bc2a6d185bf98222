/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <strings.h>

#include "sriov-operator.h"

/* The value of a "key: value" line (list dash and quotes left out), or NULL
 * when the line has another key. */
static char *sno_line_value(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key), n;
	const char *p = line, *end = line + len;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p + 1 < end && p[0] == '-' && p[1] == ' ')
		for (p += 2; p < end && *p == ' '; p++)
			;
	if ((size_t)(end - p) <= k || strncmp(p, key, k) != 0 || p[k] != ':')
		return NULL;
	for (p += k + 1; p < end && isspace((unsigned char)*p); p++)
		;
	for (n = (size_t)(end - p); n > 0 && isspace((unsigned char)p[n - 1]); n--)
		;
	if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
		p++;
		n -= 2;
	}
	return strndup(p, n);
}

static int sno_add(struct sno_config *c, char *pci, unsigned line)
{
	struct sno_interface *items = realloc(c->items, sizeof(*items) * (c->n + 1));

	if (!items) {
		free(pci);
		return -ENOMEM;
	}
	c->items = items;
	c->items[c->n++] = (struct sno_interface){ .pci = pci, .line = line };
	return 0;
}

static int sno_scan_line(struct sno_config *c, const char *line, size_t len, unsigned nr)
{
	char *v = sno_line_value(line, len, "pciaddress");
	struct sno_interface *it;

	if (v)
		return sno_add(c, v, nr);
	if (c->n == 0)
		return 0;
	it = &c->items[c->n - 1];
	v = sno_line_value(line, len, "externallymanaged");
	if (v) {
		it->externally_managed = streq(v, "true");
		free(v);
		return 0;
	}
	v = it->numvfs ? NULL : sno_line_value(line, len, "numvfs");
	if (v) {
		it->numvfs = v;
		it->numvfs_line = nr;
	}
	return 0;
}

int sno_config_scan(const char *path, const char *text, struct sno_config *ret)
{
	struct sno_config c = { .path = strdup(path) };
	unsigned nr = 0;
	int r = c.path ? 0 : -ENOMEM;

	for (const char *p = text; r >= 0 && *p;) {
		size_t len = strcspn(p, "\n");

		r = sno_scan_line(&c, p, len, ++nr);
		p += len + (p[len] == '\n');
	}
	if (r < 0) {
		sno_config_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void sno_config_done(struct sno_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].pci);
		free(c->items[i].numvfs);
	}
	free(c->items);
	free(c->path);
	*c = (struct sno_config){};
}

int sno_config_match(const struct sno_config *c, const char *pci, struct other_findings *out)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct sno_interface *it = &c->items[i];
		_cleanup_free_ char *setting = NULL, *how = NULL;

		if (strcasecmp(it->pci, pci) != 0)
			continue;
		setting = it->numvfs ?
				  strdup_printf("numvfs: %s%s", it->numvfs,
						it->externally_managed ?
							" with externallymanaged: true (it "
							"configures the VFs another tool makes)" :
							"") :
				  strdup("an interface without numvfs");
		how = strdup_printf("pciaddress: %s (systemd mode: sriov-config.service applies "
				    "it at boot)",
				    it->pci);
		if (!setting || !how)
			return -ENOMEM;
		return other_findings_add(out, OTHER_MANAGER_SRIOV_OPERATOR,
					  OTHER_CERTAINTY_MATCHES, c->path,
					  it->numvfs ? it->numvfs_line : it->line, setting, how);
	}
	return 0;
}
