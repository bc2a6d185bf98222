/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to the simulated host: the kernel's rules applied to a parsed
 * snapshot (host-sim-kernel.c, pure) and the injected faults
 * (host-sim-faults.c). host-sim.c ties them to the file and its lock. */

#include "host-sim.h"

struct json_object;

/* One action on one PF (NULL for load_module); the fault "op" names are
 * the action type names. */
struct sim_request {
	const char *pf;
	const struct action *a;
	usec_t timeout; /* USEC_INFINITY for operations without one */
	/* ACTION_FIRMWARE_RESET: the tool says it reset the card, but the
	 * firmware still runs with its old settings (a fault) */
	bool no_effect;
};

/* Applies rq to s by the kernel's rules. Returns 0 (s changed as the kernel
 * would change it) or -errno with s untouched and a detail in h->error. */
/* The modules the simulated modprobe finds, NULL-terminated. */
extern const char *const sim_known_modules[];

int sim_kernel_apply(struct host *h, struct host_state *s, const struct sim_request *rq);

/* The VF attributes part of it (host-sim-vf.c). */
int sim_kernel_set_vf(struct host *h, struct host_state *s, const struct sim_request *rq);

/* The PCI address a fault's "pci" is compared with for a VF operation. */
int sim_vf_pci(const struct host_state *s, const char *pf, uint32_t vf,
	       char buf[static PCI_ADDR_MAX]);

/* The VF's network device, as its driver's probe makes it (name and MTU)
 * or as a probe that has not finished leaves it (none). */
int sim_vf_netdev_set(const struct pf_state *pf, struct vf_state *vf, bool present);
/* VF vf of pf takes the random MAC the kernel would give it (a fault). */
int sim_vf_random_mac(struct host_state *s, const char *pf, uint32_t vf);

enum sim_fault_kind {
	SIM_FAULT_ERRNO,
	SIM_FAULT_HANG,
	SIM_FAULT_CRASH,
	SIM_FAULT_NETDEVS, /* VF netdevs that come late, or for only some VFs, or never */
	/* a bind that succeeds while the PF resets: the VF takes a random MAC,
	 * and the PF keeps it (igb as its link comes up) */
	SIM_FAULT_RANDOM_MAC,
	/* a firmware reset that removes the VFs and reports success, while the
	 * firmware keeps the settings it ran with */
	SIM_FAULT_NO_EFFECT,
	_SIM_FAULT_KIND_MAX,
	_SIM_FAULT_KIND_INVALID = -EINVAL,
};

struct sim_fault {
	char *op;		/* as written: an op name, an alias, or "any" */
	char pci[PCI_ADDR_MAX]; /* "" = any device */
	enum sim_fault_kind kind;
	int error;	      /* SIM_FAULT_ERRNO: positive errno */
	int times;	      /* -1 = every time; decremented when it fires */
	unsigned crash_after; /* SIM_FAULT_CRASH */
	bool completes;	      /* SIM_FAULT_HANG: the change lands when the wait ends */
	uint32_t netdevs;     /* SIM_FAULT_NETDEVS: VFs (from VF 0) whose netdev appears at once */
	uint32_t after_ms;    /* SIM_FAULT_NETDEVS: when the others' appear; 0 = never */
};

struct sim_faults {
	struct sim_fault *items;
	size_t n;
};

/* Reads the "faults" array of the parsed snapshot (absent = none). -EINVAL
 * with a message ("faults[1].errno: unknown error name") on bad entries. */
int sim_faults_parse(struct json_object *root, struct sim_faults *ret, char **ret_error);
void sim_faults_done(struct sim_faults *f);
/* The array to write back, NULL when there are no faults left. */
int sim_faults_to_json(const struct sim_faults *f, struct json_object **ret);
/* Whether fault f applies to op on the device pci (PF address) or vf_pci
 * (VF address, NULL for PF operations). */
bool sim_fault_matches(const struct sim_fault *f, enum action_type op, const char *pci,
		       const char *vf_pci);
/* The first fault of kind (errno and hang are one kind: SIM_FAULT_ERRNO)
 * that fires for the request, NULL if none. Counts it down ("times"). */
struct sim_fault *sim_faults_fire(struct sim_faults *f, enum sim_fault_kind kind,
				  enum action_type op, const char *pci, const char *vf_pci);
/* Removes a crash fault once it fired. */
void sim_faults_remove(struct sim_faults *f, struct sim_fault *fault);
const char *sim_errno_name(int error) _pure_;
