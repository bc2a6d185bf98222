/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriov-network-operator's SriovNetworkNodeState objects (one per node:
 * the spec, what the operator wants of the node's PFs, and the status,
 * what its config daemon read back), in YAML or JSON (libyaml reads
 * both): one object, a list, a "kind: List" as kubectl prints it, or
 * several documents. Every field is read, or named as one that sriovctl
 * compare does not judge. Pure: text in, plain data out. */

#include "diag.h"

/* A vfGroups entry of spec.interfaces[]: what a policy wants of a range of
 * VFs. */
struct sno_vf_group {
	unsigned line;
	unsigned first, last; /* vfRange "0-7" (or "3") */
	bool vfio;	      /* deviceType vfio-pci; else netdevice */
	unsigned mtu;	      /* 0: not given */
	bool rdma;	      /* isRdma */
	char *resource_name;
	char *policy_name;
};

/* A Vfs entry of status.interfaces[]: one VF as the config daemon read it. */
struct sno_vf {
	unsigned line;
	unsigned id; /* vfID */
	char *driver;
	unsigned mtu; /* 0: not given (no network interface) */
};

/* An entry of spec.interfaces[] or status.interfaces[]. */
struct sno_iface {
	unsigned line;
	char *pci; /* pciAddress, lower case */
	char *name;
	unsigned num_vfs; /* 0 when not given, as the operator omits a 0 */
	unsigned mtu;	  /* 0: not given */
	/* linkType "ETH"/"IB" (either case) and eSwitchMode as written;
	 * NULL: not given */
	char *link_type;
	char *eswitch_mode;
	bool externally_managed;
	struct sno_vf_group *groups; /* spec only */
	size_t n_groups;
	struct sno_vf *vfs; /* status only */
	size_t n_vfs;
};

/* What the input has that compare does not judge: the field ("status.
 * interfaces[].Vfs[].mac"), the first line it is at, and why it is not
 * compared (a static text). */
struct sno_unjudged {
	char *field;
	unsigned line;
	const char *why;
};

struct sno_node_state {
	char *name; /* metadata.name: the node's name */
	unsigned line;
	bool has_spec, has_status;
	struct sno_iface *spec;
	size_t n_spec;
	struct sno_iface *status;
	size_t n_status;
	char *sync_status; /* "Succeeded", "InProgress", "Failed"; NULL: not given */
	char *last_sync_error;
	struct sno_unjudged *unjudged;
	size_t n_unjudged;
};

struct sno_node_states {
	struct sno_node_state *items;
	size_t n;
};

/* Reads the node states of text; source names it in diagnostics ("-" is
 * "<stdin>"). What is wrong with the input is an error in diags ("node
 * state NAME: status.interfaces[1].numVfs: x: must be a number"), and such
 * an object is left out. -ENOMEM only. */
int sno_node_states_parse(const char *source, const char *text, struct sno_node_states *ret,
			  struct diag_list *diags);
void sno_node_states_done(struct sno_node_states *s);

/* The node state of this node: the one named node when node is given
 * (--node); else the only one; else the one whose name is hostname or its
 * first label. -ENOENT or -ENOTUNIQ with *ret_why saying why (the names
 * there are, what to give); -ENOMEM. */
int sno_node_states_select(const struct sno_node_states *s, const char *node, const char *hostname,
			   const struct sno_node_state **ret, char **ret_why);
/* Whether name is the node name of hostname: the hostname as the kubelet
 * takes it, or its first label (a node registered by its short name). */
bool sno_node_name_is_host(const char *name, const char *hostname) _pure_;
/* The interface of list whose pciAddress is pci (either case); NULL. */
const struct sno_iface *sno_iface_find(const struct sno_iface *list, size_t n, const char *pci);
