/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The [PhysicalFunction] keys as text, for status and `sriovctl cat`: the
 * value a layout gives a key (as it would be written in the file) and what
 * the host has for it now. One row per key in pf-keys.c drives these and
 * the parsing, unsetting and merging below. Pure. */

#include "layout-settings.h"

#define PF_KEY_STR_MAX 32

/* Key names as written in files ("VirtualFunctions", ...); the VF keys'
 * are vf_key_to_string(). */
const char *pf_key_to_string(enum pf_key k) _pure_;
enum pf_key pf_key_from_string(const char *s) _pure_;
/* "auto", "no": as FirmwareVirtualFunctions= is written */
const char *firmware_vfs_to_string(enum firmware_vfs f) _pure_;

/* Value parsers as layout-settings.h describes them. */
int pf_settings_parse(struct pf_settings *s, enum pf_key k, const char *value,
		      const char **ret_why);
/* An empty value: the key is unset again (systemd semantics). */
void pf_settings_unset(struct pf_settings *s, enum pf_key k);
/* Copies every key set in src over dst (a later file wins). */
void pf_settings_merge(struct pf_settings *dst, const struct pf_settings *src);

/* "mtu", "eswitch", "hw-tc-offload", ...: how status tables name key k. */
const char *pf_key_to_label(enum pf_key k) _pure_;
/* The n-th name the kernel or another tool gives key k, when neither its
 * name nor its label is that ("sriov_numvfs", sriov-network-operator's
 * "numVfs", mstconfig's "NUM_OF_VFS"), for "did you mean"; NULL past the
 * last. */
#define PF_KEY_OTHER_NAMES_MAX 2
const char *pf_key_other_name(enum pf_key k, size_t n) _pure_;
/* Key k of s as a layout writes it ("max", "9000", "yes", "switchdev"). */
const char *pf_settings_format(const struct pf_settings *s, enum pf_key k,
			       char buf[static PF_KEY_STR_MAX]);
/* What pf has for key k now, or NULL when it has nothing to show (no
 * netdev for the MTU, no eswitch, no firmware VF setting, a key that is
 * the layout's alone). The firmware VF limit is the one the firmware uses
 * after the next reboot. */
const char *pf_state_format_key(const struct pf_state *pf, enum pf_key k,
				char buf[static PF_KEY_STR_MAX]);
