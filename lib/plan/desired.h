/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* From layouts to the desired state of one PF: which files select it
 * ([Match]), their settings merged in file order, per VF, with stable MACs
 * resolved and every request checked against what the PF's hardware can do.
 * Pure: takes plain data, returns plain data. */

#include "drivers.h"
#include "layout-set.h"
#include "model.h"

struct pf_desired {
	char pci[PCI_ADDR_MAX];
	char **config_files; /* paths of the files that select this PF, in order */
	/* held: nothing may be applied; reason says why ("file:line: ..."). */
	bool held;
	char *held_reason;
	struct pf_settings pf; /* merged */
	/* VirtualFunctions resolved ("max" = total_vfs); when not set, the
	 * current count is kept and num_vfs = observed num_vfs */
	uint32_t num_vfs;
	/* per VF index 0..num_vfs-1: merged settings, "stable" MACs and
	 * GUIDs derived (their stable bits cleared) */
	struct vf_settings *vfs;
	size_t n_vfs;
	/* [RDMA] NetnsMode= of the main configuration (layout_set.rdma_netns):
	 * the host's mode, set with a PF whose VFs want RDMA */
	enum rdma_netns rdma_netns;
	/* [Reboot] KernelArguments= (layout_set.kernel_arguments): manage adds
	 * the IOMMU arguments that a VF bound to vfio-pci needs */
	enum kernel_arguments kernel_arguments;
};

/* Builds the desired state of pf. *ret = NULL (and 0) when no file selects
 * it: such a PF is never touched. Problems that make the PF held (an error
 * in a selecting file, a hardware-impossible request) are added to diags as
 * DIAG_ERROR with the file:line of the offending key, and ret->held is set.
 * host gives the hostname and machine ID. -ENOMEM on allocation failure. */
int desired_build(const struct layout_set *set, const struct host_state *host,
		  const struct pf_state *pf, struct diag_list *diags, struct pf_desired **ret);
/* desired_build() as on a host named hostname, what the layouts' [Match]
 * Host= are matched against: sriovctl compare of another node, whose PFs
 * host's stand for. */
int desired_build_as(const struct layout_set *set, const struct host_state *host,
		     const char *hostname, const struct pf_state *pf, struct diag_list *diags,
		     struct pf_desired **ret);
/* Every file of set that selects no PF of host gets a warning at its
 * [Match], naming what it matches on: "[Match] PCIAddress=0000:99:00.0
 * selects no PF on this host". Those files in *ret_files (freed by the
 * caller; NULL to leave out). -ENOMEM. */
int desired_unselected(const struct layout_set *set, const struct host_state *host,
		       struct diag_list *diags, const struct layout_file ***ret_files,
		       size_t *ret_n);
/* The same as on a host named hostname (desired_build_as()). */
int desired_unselected_as(const struct layout_set *set, const struct host_state *host,
			  const char *hostname, struct diag_list *diags,
			  const struct layout_file ***ret_files, size_t *ret_n);
/* For sriovctl check: a file that selects PFs of host, one of whose
 * Name= or PCIAddress= globs selects none ("Name=ens1f0 ens1f1" on a host
 * without ens1f1, or "Name=ens1f0, ens1f1"), gets a warning for that
 * glob. Only the keys that name single ports: a list of drivers or
 * device IDs rightly covers hardware a host lacks. Not a Name= glob of the
 * IPoIB name a PF the file selects gets at the reboot of its LinkType=
 * change ("Name=ens2f0np0 ibp65s0f0", as the manual recommends). -ENOMEM. */
int desired_unmatched_globs(const struct layout_set *set, const struct host_state *host,
			    struct diag_list *diags);
/* The eswitch mode pf ends in: the layout's ESwitchMode=, else its own. */
enum eswitch_mode pf_desired_eswitch_mode(const struct pf_desired *d,
					  const struct pf_state *pf) _pure_;
/* The VF count d asks for on pf: with ExternallyManaged=yes and
 * VirtualFunctions= the count another tool is expected to make (d->num_vfs
 * is then the count that exists, which sriov-persist keeps), else
 * d->num_vfs. */
uint32_t pf_desired_num_vfs(const struct pf_desired *d, const struct pf_state *pf) _pure_;
/* With ExternallyManaged=yes, when another tool made more VFs than
 * VirtualFunctions= expects: "another tool made 10 VFs, 8 expected
 * (ExternallyManaged=yes)", or when sriov-persist's record says it made
 * them (pf->vfs_ours) "4 VFs exist, 2 expected; sriov-persist created them
 * before ExternallyManaged=yes (its record)"; call only then
 * (pf_desired_has_extra_vfs()).
 * Caller frees; NULL on ENOMEM. */
char *pf_desired_extra_vfs(const struct pf_desired *d, const struct pf_state *pf);
/* Whether pf has VFs beyond the count another tool is expected to make. */
bool pf_desired_has_extra_vfs(const struct pf_desired *d, const struct pf_state *pf) _pure_;
/* Whether a layout of set says FirmwareVirtualFunctions=no: it forbids
 * raising the firmware VF limit of every port of its card, which
 * desired_build() sees only in a host read with the card's other ports. */
bool desired_reads_card(const struct layout_set *set) _pure_;
/* Whether a VF of d is to be bound to a driver that needs an IOMMU
 * (vfio-pci): what the kernel arguments of KernelArguments=manage are for. */
bool pf_desired_needs_iommu(const struct pf_desired *d) _pure_;
struct pf_desired *pf_desired_free(struct pf_desired *d);
static inline void pf_desired_freep(struct pf_desired **d)
{
	pf_desired_free(*d);
}
#define _cleanup_pf_desired_ _cleanup_(pf_desired_freep)
