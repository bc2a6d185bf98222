/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The rules that need only the layout files: VF sections against a
 * VirtualFunctions= count, literal MACs and GUIDs given to two VFs, keys
 * that need another key, and values that a later file overrides. Each rule
 * is written once, here: desired.c runs them on the files that select a
 * PF, `sriovctl check` without a host and sriov-persistd's ConfigErrors on
 * the files that certainly go together (layout_rules_check_set). Pure. */

#include "layout-set.h"

/* An error reported: its file:line, and whether it is about several VFs'
 * values together (rules_error_together()). */
struct rules_reported {
	const char *file;
	unsigned line;
	bool together;
};

/* Where rules report errors: diags, one error per file:line (a section
 * applied to many VFs reports once; and a file selecting two PFs, each
 * with a rules_out of its own, reports the same text for both, which
 * diag_add() keeps once), and one more there about several VFs' values
 * together. rules_out_done() frees what it keeps. */
struct rules_out {
	struct diag_list *diags;
	/* errors reported already (the parser's, of the layout set): the same
	 * file:line and text is neither reported nor counted again (NULL: none) */
	const struct diag_list *known;
	struct rules_reported *reported; /* each error reported */
	size_t n_errors;
	char *first; /* the first of them, "file:line: message" */
	/* without a host, files with another [Match] may be merged with the
	 * files checked on some PF: an error of the merged values holds only
	 * where no other file changes them, and says so (rules_open()) */
	bool open;
	/* then: every file of the set, in order (n_set), and those checked
	 * together (group, n_group): a value the group sets is changed only by
	 * a file outside it that comes later */
	const struct layout_file *const *set;
	size_t n_set;
	const struct layout_file *const *group;
	size_t n_group;
	/* the kernel's VF driver of the PF, for messages (NULL: no host) */
	const char *vf_driver;
	/* when set, rules_check_vfs() calls it on each VF it checks, with its
	 * index, after the rules of the files alone (desired-hw.c: the
	 * driver's, on VFs beyond the count). */
	int (*vf_hook)(void *userdata, uint32_t vf, const struct vf_settings *v);
	void *vf_hook_data;
};

void rules_out_done(struct rules_out *o);

/* Adds an error at file:line unless this rules_out reported one there
 * already, or known has the same. -ENOMEM. */
int rules_error(struct rules_out *o, const char *file, unsigned line, const char *fmt, ...)
	_printf_(4, 5);
/* Whether o reported an error at file:line (not one of several VFs
 * together). */
bool rules_said_at(const struct rules_out *o, const char *file, unsigned line) _pure_;
/* The same for an error about several VFs' values together (their
 * minimum rates add up beyond the link speed): said also where an error
 * about one VF's value is, as fixing that one need not fix this; once per
 * file:line among such errors. */
int rules_error_together(struct rules_out *o, const char *file, unsigned line, const char *fmt, ...)
	_printf_(4, 5);

/* " (Key=value at file:line)", or " (file:line)" when key is NULL, when
 * what a message at here rests on comes from another file (there), else
 * "". Returns buf. */
const char *rules_elsewhere(const char *here, const struct src *there, const char *key,
			    const char *value, char buf[static 256]);

/* When o is open: " (on every PF where no other file sets key=)" for a key
 * the files checked do not set (at NULL or line 0), " (on every PF where no
 * later file sets key=)" for one they set at at, when a file with another
 * [Match] comes later; else "". Returns buf. */
const char *rules_open(const struct rules_out *o, const char *key, const struct src *at,
		       char buf[static 64]);

/* " (line N)" when there is in the file here, " (file:N)" when in another,
 * "" when not set. Returns buf. */
const char *rules_at(const char *here, const struct src *there, char buf[static 256]);

/* A section naming a VF at or beyond bound (VirtualFunctions=, set at
 * bound_at; bound_text is how it reads: "4" or "max (8)"). */
int rules_check_section(struct rules_out *o, const char *file, const struct vf_section *s,
			uint32_t bound, const char *bound_text, const struct src *bound_at);
/* One VF's merged settings: MTUBytes= and RDMA=yes need a driver with a
 * network interface, MaxTxRateMbps= not below MinTxRateMbps=. files (n)
 * are those merged, in order: a conflict between two files' values is the
 * later file's error. */
int rules_check_vf(struct rules_out *o, const struct vf_settings *v,
		   const struct layout_file *const *files, size_t n);
/* The merged [PhysicalFunction]: SharedWith= needs ExternallyManaged=yes;
 * HardwareTCOffload=yes needs switchdev.
 * mode is the eswitch mode the PF ends in, _ESWITCH_MODE_INVALID when it
 * cannot be known (no host, no ESwitchMode=): then a warning. */
int rules_check_pf(struct rules_out *o, const struct pf_settings *s, enum eswitch_mode mode);
/* QualityOfService= on vfs[i] without a VLANId= other than 0: an error at
 * its line, once, naming every VF of vfs (n) it holds for ("VF 0", "VFs
 * 0-3, 6"). vfs[j] stands for the VFs index[j]..last[j] (last[j]
 * UINT32_MAX: every VF from index[j] on); both NULL: vfs[j] is VF j. */
int rules_check_qos(struct rules_out *o, const struct vf_settings *vfs, const uint32_t *index,
		    const uint32_t *last, size_t n, size_t i);
/* Two of n VFs with the same literal value of a unique key (MACAddress=,
 * the GUIDs). index[i] is the VF index of vfs[i] (NULL: i); was_stable[i]
 * (may be NULL) the keys that were "stable" before derivation, which are
 * not the user's typo and so not blamed when a literal one is there. */
int rules_check_unique(struct rules_out *o, const struct vf_settings *vfs, const uint32_t *index,
		       const uint32_t *was_stable, size_t n);
/* One ResourceName= given to VFs with a network interface and VFs without
 * (an error) or to VFs that differ in RDMA= (a warning), as the device
 * plugin would make one pool of them; once per ResourceName= line. index
 * as for rules_check_unique(). */
int rules_check_resources(struct rules_out *o, const struct vf_settings *vfs, const uint32_t *index,
			  size_t n);
/* The same rule across two PFs: b, a VF of the PF whose errors o collects
 * (vb: "VF 0 of 0000:3b:00.1"), against a, a VF of another PF (va, whose
 * VFs' kernel driver is a_driver), said at b's ResourceName= line. 1 when
 * said, 0 when they are of one kind or resource, -ENOMEM. */
int rules_check_resource_across(struct rules_out *o, const struct vf_settings *a, const char *va,
				const char *a_driver, const struct vf_settings *b, const char *vb);
/* The VF rules above (rules_check_vf, rules_check_qos, rules_check_unique,
 * rules_check_resources) on the VFs that files want (below bound, and those
 * a ranged section names beyond it), merged as written ("stable" not
 * derived), one VF for each run of VFs that the same sections cover: whether
 * or not the VFs exist, what files ask of them is checked. */
int rules_check_vfs(struct rules_out *o, const struct layout_file *const *files, size_t n,
		    uint32_t bound);
/* The VFs rules_check_vfs() checks: vfs[i], merged as written, stands for
 * the VFs index[i]..last[i] (last[i] UINT32_MAX: every VF from index[i]
 * on). rules_vfs_done() frees them. */
struct rules_vfs {
	struct vf_settings *vfs;
	uint32_t *index;
	uint32_t *last;
	size_t n;
};
int rules_vfs_build(const struct layout_file *const *files, size_t n, uint32_t bound,
		    struct rules_vfs *ret);
void rules_vfs_done(struct rules_vfs *v);
/* files' [PhysicalFunction] merged into *pf, and the VF count they bound
 * the VF sections by: a numeric VirtualFunctions=, else UINT32_MAX ("max"
 * is known only with the PF). */
uint32_t rules_vfs_bound(const struct layout_file *const *files, size_t n, struct pf_settings *pf);
/* Without a host, across files whose [Match] differs (group_of[i], 1 to
 * n_groups, the group of files[i]; 0: not checked): a literal MAC or GUID
 * that a VF of one group has and a VF of another too. Whether both select
 * a PF of one host is known only with the host (which makes it an error,
 * desired-unique.c): here a warning at the later place, naming the other
 * and saying where it is an error; nothing when their Host= cannot both
 * select one host (layout-rules-across.c). -ENOMEM. */
int rules_check_unique_across(const struct layout_file *const *files, size_t n,
			      const size_t *group_of, size_t n_groups, struct diag_list *diags);
/* A value that a later file overrides with another for the same key on the
 * same VF (or PF): a warning at the later place naming the earlier one. */
int rules_check_overrides(struct diag_list *diags, const struct layout_file *const *files,
			  size_t n);

/* Without a host: every file, merged with the files whose [Match] is the
 * same as its own (they select the same PFs on any host), is checked by
 * the rules above. Errors and warnings go to diags. -ENOMEM. */
int layout_rules_check_set(const struct layout_set *set, struct diag_list *diags);
/* The same for some files of a set, in set order. */
int layout_rules_check_files(const struct layout_file *const *files, size_t n,
			     struct diag_list *diags);
