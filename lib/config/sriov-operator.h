/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriov-network-operator's systemd mode: its config daemon writes the node's
 * interfaces to /etc/sriov-operator/sriov-interface-config.yaml, and
 * sriov-config.service applies them at boot (the VF count included). The
 * file is gopkg.in/yaml.v3 of the operator's structs, whose keys are the Go
 * field names in lower case ("spec: interfaces: - pciaddress: 0000:d8:00.0
 * numvfs: 4 externallymanaged: false"), and the operator reads it back with
 * the same, case-sensitive, names. Read with libyaml: the PFs it names, with
 * the line. Pure. */

#include <yaml.h>

#include "diag.h"
#include "other-findings.h"

#define SNO_INTERFACE_CONFIG "/etc/sriov-operator/sriov-interface-config.yaml"

struct sno_interface {
	char *pci;
	unsigned line;
	char *numvfs;	  /* NULL when not given */
	char *numvfs_key; /* as the file spells it */
	unsigned numvfs_line;
	/* "externallymanaged: true": the operator leaves the VF count to
	 * another tool and configures the VFs that are there */
	bool externally_managed;
	/* a key in another spelling than the operator's ("pciAddress",
	 * "numVfs"), which the operator does not read: NULL when none */
	char *other_spelling;
	const char *operator_spelling; /* how the operator spells it */
};

struct sno_config {
	char *path; /* as on the host */
	struct sno_interface *items;
	size_t n;
	/* the file is no YAML the operator reads: why, and the line (1-based;
	 * 0 when none is known); NULL when it is */
	char *error;
	unsigned error_line;
};

/* Parses text (path as on the host, for messages). A file that is not YAML
 * or not the operator's structure does not fail: ret->error says why.
 * -ENOMEM. */
int sno_config_scan(const char *path, const char *text, struct sno_config *ret);
void sno_config_done(struct sno_config *c);
/* The finding of the interface that names pci (either case): sure when it
 * is spelled as the operator writes it, "may match" when not. -ENOMEM. */
int sno_config_match(const struct sno_config *c, const char *pci, struct other_findings *out);

/* libyaml helpers, shared with the policy import (sno-policy.c): a scalar
 * node's text (NULL for another node or NULL), and the value of key in
 * mapping m (NULL when absent). */
const char *sno_yaml_scalar(yaml_node_t *n);
yaml_node_t *sno_yaml_get(yaml_document_t *doc, yaml_node_t *m, const char *key);

/* Each Kubernetes object of a YAML (or JSON) text, for the readers of
 * kubectl's output (policies, node states): a document is one object, a
 * list of them, or a List object with items; an empty document is skipped.
 * on_object is given the document (valid during the call) and the object.
 * Text that does not parse, and a List without items, are errors at their
 * line ("<not_yaml>: problem"), and end the walk. 0, an error of on_object,
 * or -ENOMEM. */
struct sno_walk {
	const char *source;
	struct diag_list *diags;
	const char *not_yaml; /* "not YAML", "neither YAML nor JSON" */
	int (*on_object)(yaml_document_t *doc, yaml_node_t *obj, void *userdata);
	void *userdata;
};
int sno_yaml_objects(const struct sno_walk *w, const char *text);
