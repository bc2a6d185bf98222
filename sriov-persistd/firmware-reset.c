/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A pending reboot met by firmware resets ([Reboot] FirmwareReset=yes).
 * Called where the reboot operation would ask logind, after its drain. The
 * cards whose PFs have pending reboot reasons a layout asks for are reset
 * one by one, under the locks of all their PFs (a reset takes them all
 * down); a card that offers no reset, or a reset that fails, means the
 * reboot after all. Then
 * the host is read again and the PFs of the reset cards applied: a PF whose
 * firmware still shows the old settings fails, saying what the firmware
 * reports, and is not reset or rebooted for again (k8s.c keeps the reasons
 * as tried). */

#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "firmware-reset.h"
#include "log.h"
#include "manager-check.h"
#include "manager-summary.h"
#include "status.h"

#define LOCKS_MAX 8

/* Whether pf waits for its firmware's next-boot settings. */
static bool firmware_pending(const struct pf_state *pf)
{
	return (pf->firmware_total_vfs >= 0 && (unsigned)pf->firmware_total_vfs != pf->total_vfs) ||
	       (pf->has_firmware_link_type && pf->firmware_link_type != pf->link_type);
}

/* Every reason is a PF's firmware, and no kernel arguments wait. */
static bool only_firmware(const struct manager *m)
{
	const struct host_state *hs = m->hs;

	if (!hs || m->reboot.n_reasons == 0 ||
	    (strv_length(hs->kernel_args_added) > 0 && !hs->iommu))
		return false;
	for (size_t i = 0; i < m->reboot.n_reasons; i++) {
		const struct pf_state *pf = host_state_find_pf(hs, m->reboot.reasons[i].pci);

		if (!pf || !firmware_pending(pf))
			return false;
	}
	return true;
}

static void unlock_all(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/* The locks of every PF of pci's card; -EBUSY with *ret_busy set when
 * another process applies one of them. */
static int lock_card(struct manager *m, const char *pci, int *fds, size_t *n, const char **ret_busy)
{
	for (size_t i = 0; i < m->hs->n_pfs; i++) {
		const char *p = m->hs->pfs[i].pci;
		int fd;

		if (!pci_same_device(p, pci) || *n >= LOCKS_MAX)
			continue;
		fd = pf_lock(m->runtime_dir, p, 0);
		if (fd < 0) {
			*ret_busy = p;
			return fd == -ETIMEDOUT ? -EBUSY : fd;
		}
		fds[(*n)++] = fd;
	}
	return 0;
}

static int reset_card(struct manager *m, const char *pci)
{
	const struct action a = { .type = ACTION_FIRMWARE_RESET, .disruptive = true };
	const char *busy = NULL;
	int fds[LOCKS_MAX], r;
	size_t n = 0;

	r = lock_card(m, pci, fds, &n, &busy);
	if (r == -EBUSY)
		log_pf(LOG_WARNING, pci,
		       "Firmware reset of %s not made: %s is being applied by "
		       "another process; rebooting instead",
		       pci, busy);
	if (r >= 0) {
		log_pf(LOG_NOTICE, pci, "%s: firmware reset of its card, instead of a reboot", pci);
		r = host_run(m->host, pci, &a, m->conf.sysfs_write_timeout);
		if (r < 0)
			log_pf(LOG_WARNING, pci,
			       "Firmware reset of %s failed, rebooting instead: %s%s%s", pci,
			       strerror(-r), m->host->error[0] ? ": " : "", m->host->error);
	}
	unlock_all(fds, n);
	return r;
}

/* One PF of each card with a pending reason that a layout asks for,
 * NULL-terminated: a card whose only reasons no layout asks for now is not
 * reset (nothing is rebooted or reset for such reasons alone); its reasons
 * stay, reported, for the next reboot. */
static char **cards(const struct manager *m)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	for (size_t i = 0; l && i < m->reboot.n_reasons; i++) {
		const char *p = m->reboot.reasons[i].pci;
		bool seen = m->reboot.reasons[i].unasked;

		for (char **c = l; *c; c++)
			seen = seen || pci_same_device(*c, p);
		if (!seen && strv_extend(&l, p) < 0)
			return NULL;
	}
	return TAKE_PTR(l);
}

static int reread(struct manager *m)
{
	struct host_state *hs = NULL;
	int r = host_read(m->host, &hs);

	if (r < 0) {
		log_msg(LOG_ERR, "Reading the host after the firmware reset failed: %s",
			strerror(-r));
		return r;
	}
	return manager_update_cache(m, hs, NULL);
}

/* What the firmware of pf still runs with, against its next-boot settings. */
static char *still(const struct pf_state *pf)
{
	bool vfs = pf->firmware_total_vfs >= 0 && (unsigned)pf->firmware_total_vfs != pf->total_vfs;

	if (vfs)
		return strdup_printf("a firmware reset of the card ran, but the firmware still has "
				     "a VF limit of %u (NUM_OF_VFS %d set for the next boot); not "
				     "reset or rebooted for again",
				     pf->total_vfs, pf->firmware_total_vfs);
	return strdup_printf("a firmware reset of the card ran, but the firmware still has link "
			     "type %s (%s set for the next boot); not reset or rebooted for again",
			     strna(link_type_to_string(pf->link_type)),
			     strna(link_type_to_string(pf->firmware_link_type)));
}

/* Applies every PF of the reset cards; fails those whose firmware kept its
 * settings. */
static void apply_after(struct manager *m, char *const *reset)
{
	_cleanup_strv_free_ char **pfs = NULL;

	for (size_t i = 0; m->hs && i < m->hs->n_pfs; i++)
		for (char *const *c = reset; *c; c++)
			if (pci_same_device(m->hs->pfs[i].pci, *c) &&
			    strv_extend(&pfs, m->hs->pfs[i].pci) < 0)
				return;
	for (char **p = pfs; p && *p; p++) {
		const struct pf_state *pf;
		struct pf_entry *entry;
		_cleanup_free_ char *e = NULL;
		int r = manager_apply_wanted(m, *p, true);

		if (r < 0)
			log_pf(LOG_ERR, *p, "%s: applying after the firmware reset failed: %s", *p,
			       strerror(-r));
		pf = m->hs ? host_state_find_pf(m->hs, *p) : NULL;
		if (!pf || !firmware_pending(pf))
			continue;
		e = still(pf);
		if (!e)
			continue;
		log_pf(LOG_ERR, *p, "%s: %s", *p, e);
		manager_record_error(m, *p, e, true);
		manager_pf_failed(m, *p, e);
		entry = manager_find_entry(m, *p);
		if (entry) {
			free(entry->firmware_stuck);
			entry->firmware_stuck = TAKE_PTR(e);
		}
	}
}

enum firmware_reset_outcome manager_firmware_reset(struct manager *m)
{
	_cleanup_strv_free_ char **todo = NULL;

	if (!only_firmware(m))
		return FIRMWARE_RESET_NOT_APPLICABLE;
	todo = cards(m);
	if (!todo)
		return FIRMWARE_RESET_FAILED;
	for (char **c = todo; *c; c++)
		if (reset_card(m, *c) < 0)
			return FIRMWARE_RESET_FAILED;
	if (reread(m) < 0)
		return FIRMWARE_RESET_FAILED;
	for (char **c = todo; *c; c++)
		manager_reboot_forget_card(m, *c);
	apply_after(m, todo);
	manager_update_summary(m, false);
	return FIRMWARE_RESET_DONE;
}
