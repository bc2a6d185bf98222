/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to layout*.c: the keys of layout files and the values they take.
 * A value parser writes the value into the settings and returns 0, -ENOMEM,
 * or -EINVAL with *ret_why set to a static text saying what is allowed, for
 * the message "Key=value: <why>". Marking the key set (and where) is the
 * caller's job. */

#include "layout.h"

enum pf_key pf_key_from_string(const char *s) _pure_;

int pf_settings_parse(struct pf_settings *s, enum pf_key k, const char *value,
		      const char **ret_why);
/* single_vf: the section is [VirtualFunction N] (or N-N), the only place a
 * literal MACAddress= may stand. */
int vf_settings_parse(struct vf_settings *s, enum vf_key k, const char *value, bool single_vf,
		      const char **ret_why);
/* An empty value: the key is unset again (systemd semantics). */
void pf_settings_unset(struct pf_settings *s, enum pf_key k);
void vf_settings_unset(struct vf_settings *s, enum vf_key k);
