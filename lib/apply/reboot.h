/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pending reboots: desired states only a reboot can reach (plan.h
 * reboot_reasons). The daemon keeps them with the boot they were seen in
 * (<state>/reboot.json), so that a restarted daemon still knows them and the
 * reboot that satisfies them clears them. */

#include "util.h"

#define BOOT_ID_MAX 33 /* 32 hex digits */

struct reboot_reason {
	char pci[PCI_ADDR_MAX];
	char *text;
	usec_t since; /* CLOCK_REALTIME, when first seen in this boot */
	/* no layout asks for it now (a firmware raise an apply made for a
	 * layout since removed): reported, never rebooted for on its own */
	bool unasked;
};

struct reboot_record {
	char boot_id[BOOT_ID_MAX];
	struct reboot_reason *reasons;
	size_t n_reasons;
};

void reboot_record_done(struct reboot_record *r);
/* Adds (pci, text) unless present; -ENOMEM. */
int reboot_record_add(struct reboot_record *r, const char *pci, const char *text, usec_t since);
/* reboot_record_add() of a reason that no layout asks for now. */
int reboot_record_add_unasked(struct reboot_record *r, const char *pci, const char *text,
			      usec_t since);
/* The reasons that some layout asks for. */
size_t reboot_record_n_asked(const struct reboot_record *r) _pure_;
bool reboot_record_has(const struct reboot_record *r, const char *pci, const char *text) _pure_;

/* The reasons of r that drop() (given userdata) does not drop, as they
 * are (when first seen, whether a layout asks for them), with r's boot id,
 * in *ret; -ENOMEM. */
int reboot_record_filter(const struct reboot_record *r,
			 bool (*drop)(const struct reboot_reason *reason, void *userdata),
			 void *userdata, struct reboot_record *ret);

/* Pure. The reasons that stand now, for boot_id:
 *  - every reason the plans give now (current), keeping when it was first
 *    seen if persisted knew it in this boot;
 *  - a reason persisted in this boot that the plans no longer give, unless
 *    layouts_changed: only a reboot satisfies a reason (the kernel state
 *    that showed it may hide it until then), but a layout that no longer
 *    asks for it withdraws it;
 *  - nothing from another boot: the reboot happened; what still stands
 *    is in current.
 * Each keeps whether a layout asks for it (unasked) as current, else
 * persisted, says.
 * -ENOMEM. */
int reboot_record_merge(const struct reboot_record *persisted, const struct reboot_record *current,
			const char *boot_id, bool layouts_changed, struct reboot_record *ret);

/* <dir>/reboot.json; -ENOENT when there is none, -EINVAL when it does not parse. */
int reboot_record_read(const char *dir, struct reboot_record *ret);
/* reboot.json's text; -EINVAL when it is not one. */
int reboot_record_parse(const char *text, struct reboot_record *ret);
int reboot_record_write(const char *dir, const struct reboot_record *r);
