/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Per-PF status records (/run/sriov-persist/pf/<pci>.json) and the record of
 * what sriov-persist created on a PF (/var/lib/sriov-persist/pf/<pci>.json),
 * as JSON written atomically. */

#include "action.h"
#include "model.h"

#define STATUS_RUNTIME_DIR "/run/sriov-persist"
#define STATUS_STATE_DIR "/var/lib/sriov-persist"

/* Fills in whichever of the two directories is NULL: the system's under root
 * when root is set (--root DIR, canonical; path_under_root(): -EXDEV when
 * one leads out of it), else next to a simulated host (FILE.run, FILE.lib)
 * when host_path is set, else the system's. -ENOMEM. */
int status_default_dirs(const char *host_path, const char *root, char **runtime_dir,
			char **state_dir);

enum pf_status_state {
	PF_STATUS_APPLIED,  /* the layout is in place (possibly after 0 actions) */
	PF_STATUS_HELD,	    /* a layout error or hardware-impossible request: nothing applied */
	PF_STATUS_FAILED,   /* an action failed; error says which and why */
	PF_STATUS_DEFERRED, /* disruptive changes wait for the disruption policy */
	PF_STATUS_DEGRADED, /* applied as far as this host allows; error says what it lacks */
	_PF_STATUS_STATE_MAX,
	_PF_STATUS_STATE_INVALID = -EINVAL,
};

/* A firmware VF limit that an apply of the PF raised, a fact that lasts
 * until the reboot or firmware reset that brings it into effect: the record
 * that follows, an apply's or a reset's, carries it over (the "firmware"
 * object of the record: "total_vfs", "set_usec", "by"). */
struct pf_firmware_raise {
	usec_t set;	    /* CLOCK_REALTIME, µs: the end of that apply; 0: no raise */
	uint32_t total_vfs; /* the limit raised to; 0: not known (records of earlier versions) */
	usec_t link_set;    /* the end of the apply that set the link type in firmware; 0: none */
	enum link_type link_type; /* the link type it set for the next reboot */
};

struct pf_status {
	char pci[PCI_ADDR_MAX];
	char *name;
	enum pf_status_state state;
	char *error;	/* HELD/FAILED/DEFERRED/DEGRADED: why; NULL otherwise */
	usec_t started; /* CLOCK_REALTIME, µs */
	usec_t finished;
	uint32_t n_actions;    /* executed */
	usec_t host_usec;      /* time spent in host operations: the kernel's share */
	uint32_t num_vfs;      /* VFs after the apply */
	char **reboot_reasons; /* NULL-terminated, never NULL */
	char **config_files;   /* NULL-terminated, never NULL */
	/* APPLIED as far as it goes while VFs that another tool is expected to
	 * create are missing (plan.waiting): why; NULL-terminated, never NULL */
	char **waiting;
	/* DEFERRED: the value of [Disruption] Policy= that deferred it
	 * ("never", "drain"); NULL otherwise, and in older records */
	char *deferred_by;
	/* a disruptive change this apply made under [Disruption] Policy=drain
	 * without a drain: why (mainconf_without_drain()), as sriovctl apply
	 * says it; NULL otherwise, and in older records */
	char *without_drain;
	/* an apply's: what the layouts wanted of the PF at that apply, as
	 * layout_wants_signature() of layout_wants(); NULL: not known (older
	 * records, a reset's) */
	char *layouts;
	/* written by a reset (sriovctl reset, Reset()), not an apply: "by" in
	 * the record; of records before it, one that names no layout file */
	bool reset;
	/* of records before it, an apply's whose reboot reasons name the
	 * firmware VF limit: that apply's, its value not known */
	struct pf_firmware_raise firmware;
};

const char *pf_status_state_to_string(enum pf_status_state s) _pure_;
enum pf_status_state pf_status_state_from_string(const char *s) _pure_;
void pf_status_done(struct pf_status *s);

/* <dir>/pf/<pci>.json; creates dir/pf as needed (0755). */
int pf_status_write(const char *dir, const struct pf_status *s);
/* -ENOENT when there is no record. */
int pf_status_read(const char *dir, const char *pci, struct pf_status *ret);
/* The record's text as pf_status_read() reads it: -EBADMSG when it is not one. */
int pf_status_parse(const char *pci, const char *text, struct pf_status *ret);
int pf_status_remove(const char *dir, const char *pci);
/* PCI addresses that have a record in dir, sorted; empty when none. */
int pf_status_list(const char *dir, char ***ret);

/* Whether s, the status record of pf, carries a raise of pf's firmware VF
 * limit that still waits for the reboot (or a firmware reset): what the
 * apply set stays set whatever the layouts say now, so the record stays
 * until then. */
bool pf_status_firmware_pending(const struct pf_status *s, const struct pf_state *pf) _pure_;
/* The firmware VF limit whose reboot the apply s records waited for: when s
 * says firmware.set, the raise it made (s->firmware.total_vfs; 0 from a
 * record of an earlier version that does not say its value); else, unless
 * s records a reset, the N of the first "firmware VF limit raised to N,
 * waiting for a reboot" of its reboot reasons, whatever raised it (the
 * card's raise made by the apply of another port); 0: none. */
uint32_t pf_status_firmware_waited(const struct pf_status *s) _pure_;
/* Whether s records an apply (applied, degraded) that waited for the reboot
 * that brings a firmware VF limit, its own raise or the card's raise made
 * by the apply of another port (pf_status_firmware_waited(); pending_reboot
 * in its last_apply), and that limit took effect since (the reboot, a
 * firmware reset: sriov_totalvfs reaches it; not a limit set back by hand,
 * nor one whose value the record does not say): what pf lacks of its
 * layout then is the rest of that apply, not drift. */
bool pf_status_firmware_took_effect(const struct pf_status *s, const struct pf_state *pf) _pure_;
/* Whether s carries a link type set in pf's firmware that still waits for
 * the reboot (part of pf_status_firmware_pending()). */
bool pf_status_link_pending(const struct pf_status *s, const struct pf_state *pf) _pure_;
/* Before s, the next record of pf (as the host has it after what s
 * records), is written in dir: the raise the record there carries, while
 * pf's limit still waits; else the one that s's own apply made (raised: it
 * ran the raise, not another port of the card, and pf's limit waits), at
 * s->finished; else none. -ENOMEM. */
int pf_status_carry_firmware(const char *dir, struct pf_status *s, const struct pf_state *pf,
			     bool raised);

/* A VF that an apply took off its driver to bind it again (a driver change,
 * a MAC igb takes only at bind), and the driver it goes back on. */
struct vf_rebind {
	uint32_t vf;
	char driver[64];
};

/* What sriov-persist itself created on a PF, so that it never resets a PF
 * it did not configure; and the VFs it took off their driver, so that an
 * apply killed before binding them again never leaves one on no driver. */
struct pf_created {
	char pci[PCI_ADDR_MAX];
	uint32_t num_vfs;	/* VFs created by us, 0 = none */
	bool eswitch_switchdev; /* we switched the eswitch to switchdev */
	/* VFs the PF had, not ours, that switching it to switchdev removed and
	 * that were made again at their count (ice changes the mode only
	 * without VFs): still someone else's, 0 = none */
	uint32_t vfs_remade;
	bool autoprobe_off; /* we turned sriov_drivers_autoprobe off */
	/* we added kernel arguments to the boot loader for this PF's VFs
	 * (KernelArguments=manage): a reset takes them out once no other PF's
	 * record says so */
	bool kernel_args;
	usec_t when;
	struct vf_rebind *rebind; /* n_rebind, each VF at most once */
	size_t n_rebind;
};
void pf_created_done(struct pf_created *c);
/* Puts VF vf on record as going back on driver, or off the record when
 * driver is NULL. -ENOMEM, -EINVAL for a driver that is no module name. */
int pf_created_set_rebind(struct pf_created *c, uint32_t vf, const char *driver);
int pf_created_write(const char *dir, const struct pf_created *c);
/* -ENOENT when there is none, -EBADMSG when it is not a record. */
int pf_created_read(const char *dir, const char *pci, struct pf_created *ret);
int pf_created_parse(const char *pci, const char *text, struct pf_created *ret);
int pf_created_remove(const char *dir, const char *pci);
/* What an apply of ours left half-done, from the record in state_dir: sets
 * unbound_from on each VF of pf that has no driver and that the record says
 * an apply took off one (or created on none), autoprobe_ours when
 * autoprobe is off and the record says we turned it off, and vfs_ours when
 * the PF has as many VFs as the record says we created. No record, or one
 * that cannot be read, marks nothing: the PF is then left as it is. 0 or
 * -ENOMEM. */
int pf_created_mark(const char *state_dir, struct pf_state *pf);
/* The same for every PF of hs. */
int host_state_mark_created(const char *state_dir, struct host_state *hs);
/* What sriov-persist created on pf, from the record in state_dir, while pf is
 * still as it was left (the VF count, or the eswitch in switchdev): 1 and ret
 * filled in (without rebind entries), 0 when nothing of ours is there, or a
 * negative errno. */
int pf_created_left(const char *state_dir, const struct pf_state *pf, struct pf_created *ret);
/* Whether the eswitch that c says sriov-persist switched to switchdev must
 * stay: the driver changes the mode only while the PF has no VFs (ice), and
 * the PF has VFs that are not on c. */
bool pf_created_eswitch_kept(const struct pf_created *c, const struct pf_state *pf);
/* The next step that undoes what c says sriov-persist created, while pf is
 * as it was left: the VFs first, then the eswitch (both drivers' orders
 * allow legacy with none), the kernel's autoprobe last. False when nothing
 * of ours is left. */
bool pf_created_next_undo(const struct pf_created *c, const struct pf_state *pf,
			  struct action *ret);
/* "16 VFs left from a removed layout"; caller frees. */
char *pf_created_describe(const struct pf_created *c);
/* What "sriovctl reset PF" does to a PF that no layout selects, from the
 * reason its status gives (the words of pf_created_describe() and
 * pf_created_describe_gone()), for the hint after it: "removes the VFs
 * left from its removed layout" (named, as the hint may be read alone),
 * "sets the eswitch back to legacy", "drops sriov-persist's record of
 * them" ... */
const char *pf_created_reset_hint(const char *reason) _pure_;
/* What a reset that found nothing to undo adds after that reason: "; sriov-
 * persist's record of what it created is dropped", or for a switchdev mode
 * that stays under VFs that are not its own, when a reset sets it back. */
const char *pf_created_reset_tail(const char *reason) _pure_;
/* The record after a reset of pf that leaves the eswitch that c says
 * sriov-persist switched to switchdev as it is (pf_created_eswitch_kept()):
 * only that, and which VFs were there before, are kept; what it says of
 * VFs it created is dropped. Written to state_dir; sets *ret_dropped when
 * it said more of the VFs than is left. */
int pf_created_keep_eswitch(const char *state_dir, const struct pf_created *c,
			    const struct pf_state *pf, bool *ret_dropped);
/* The reset hint of VFs left from a removed layout, named, as the hint may
 * be read alone ("... reset PF" removes the VFs ..., but is deferred now) */
#define PF_CREATED_REMOVES_LEFT "removes the VFs left from its removed layout"
/* "the eswitch stays in switchdev until the VFs are removed; then a reset
 * sets it back to legacy" */
#define PF_CREATED_ESWITCH_WAITS                                                          \
	"the eswitch stays in switchdev until the VFs are removed; then a reset sets it " \
	"back to legacy"
/* Why a reset finds nothing of sriov-persist's left on pf, from c, the
 * record of what it created (NULL: none), which pf_created_left() found not
 * left: "it has no VFs, and nothing that sriov-persist created is left on
 * it", "it has no VFs; the 8 that sriov-persist created are gone (...)",
 * "4 VF(s) exist, but not the 8 sriov-persist created (the count was
 * changed outside sriov-persist since its last apply); left as they are",
 * "4 VF(s) exist, none on sriov-persist's record (...); left as they are".
 * Caller frees; NULL on ENOMEM. */
char *pf_created_describe_gone(const struct pf_created *c, const struct pf_state *pf);
