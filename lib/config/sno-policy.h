/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriov-network-operator's SriovNetworkNodePolicy objects, read with libyaml
 * (one object, a list, a "kind: List" as kubectl prints it, or several
 * documents), and the layout file each becomes (sriovctl import). Every
 * field is either converted or a diagnostic naming the policy and the
 * field. Pure: text in, file names and texts out. */

#include "diag.h"

/* Priorities run 0..99, 0 the strongest (the operator's CRD). */
#define SNO_POLICY_PRIORITY_MAX 99

/* Each diagnostic names the line of the field it is about: the policy's
 * line only for the policy as a whole, or for a field it does not give. */
struct sno_policy {
	char *name; /* metadata.name */
	unsigned line, name_line;
	unsigned priority, priority_line;
	/* [Match] */
	unsigned nic_line;		     /* nicSelector */
	char *vendor, *device;		     /* "0x8086"; NULL: any */
	char **pci;			     /* rootDevices */
	char **pf_names;		     /* pfNames without their "#first-last" */
	unsigned *pci_lines, *pf_name_lines; /* each entry's */
	char **hosts;			     /* nodeSelector kubernetes.io/hostname */
	char **labels;			     /* the other nodeSelector labels, "key=value" */
	/* the VFs of a pfNames "#first-last"; else 0..num_vfs-1 */
	bool has_range;
	unsigned vf_first, vf_last;
	size_t pf_ranged; /* the pf_names entry that gave the range */
	unsigned pf_ranged_line;
	/* pfNames entries without a range (0..num_vfs-1): their names, the
	 * first one's index and line */
	char **pf_plain_names;
	bool has_plain;
	size_t pf_plain;
	unsigned pf_plain_line;
	/* [PhysicalFunction] */
	unsigned num_vfs;
	unsigned num_vfs_line; /* for the checks across policies */
	unsigned mtu;	       /* 0: not given */
	const char *link_type, *eswitch_mode;
	unsigned link_type_line;
	bool externally_managed;
	/* [VirtualFunction first-last] */
	bool vfio;
	unsigned device_type_line;
	bool rdma;
	unsigned rdma_line; /* for the check against deviceType */
	char *resource_name;
	/* device plugin settings without an equivalent (warned) */
	bool exclude_topology, need_vhost_net;
	/* no file: the operator configures nothing for it (warned) */
	bool skipped;
};

struct sno_policies {
	struct sno_policy *items;
	size_t n;
};

/* Reads the policies of text; source names it in diagnostics ("-" is
 * "<stdin>"). Errors and warnings go to diags, each "policy NAME: field:
 * why". Returns -ENOMEM only: what is wrong with the input is in diags. */
int sno_policies_parse(const char *source, const char *text, struct sno_policies *ret,
		       struct diag_list *diags);
void sno_policies_done(struct sno_policies *p);

/* The layout file of each policy that makes one, in file order (the order
 * the operator applies them: the higher number first, then by name; the
 * last wins), as "NN-NAME.conf" with NN = 99 - priority. A later file names
 * in its [Layout] Overrides= the earlier files whose values it replaces
 * where both may select one PF. names and texts are NULL-terminated,
 * parallel vectors. Two policies of one priority whose file order would not
 * be the operator's name order are an error in diags. -ENOMEM. */
int sno_policies_layouts(const char *source, const struct sno_policies *p, char ***ret_names,
			 char ***ret_texts, struct diag_list *diags);
