/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriov-network-operator's systemd mode: its config daemon writes the node's
 * interfaces to /etc/sriov-operator/sriov-interface-config.yaml, and
 * sriov-config.service applies them at boot (the VF count included). This is
 * a line scan of the YAML the operator writes (gopkg.in/yaml.v3 of its
 * structs: "- pciaddress: 0000:d8:00.0", "numvfs: 4" below it), not a YAML
 * parser: the PFs it names, with the line. Pure. */

#include "other-findings.h"

#define SNO_INTERFACE_CONFIG "/etc/sriov-operator/sriov-interface-config.yaml"

struct sno_interface {
	char *pci;
	unsigned line;
	char *numvfs; /* NULL when not given */
	unsigned numvfs_line;
	/* "externallymanaged: true": the operator leaves the VF count to
	 * another tool and configures the VFs that are there */
	bool externally_managed;
};

struct sno_config {
	char *path; /* as on the host */
	struct sno_interface *items;
	size_t n;
};

/* -ENOMEM. */
int sno_config_scan(const char *path, const char *text, struct sno_config *ret);
void sno_config_done(struct sno_config *c);
/* The finding of the interface that names pci (either case). -ENOMEM. */
int sno_config_match(const struct sno_config *c, const char *pci, struct other_findings *out);
