/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* [Match] keys as other tools name them (NetworkManager, systemd.link(5),
 * sriov-network-operator), and a list written with commas. Pure. */

#include "suggest.h"

/* Considers [Match] key key for sg, by its name and by the names other
 * tools give it ("hostname" for Host, NetworkManager's "interface-name"
 * for Name). */
void layout_match_suggest(struct suggest *sg, const char *key);

/* For key, a [Match] key of systemd.link(5) files that sriov-persist's
 * [Match] does not have: what it is and sriov-persist's equivalent, if
 * any ("Path= is a [Match] key of systemd.link(5) files: sriov-persist's
 * equivalent is PCIAddress= (...)"), in buf, which is returned; NULL for
 * another key. */
const char *layout_match_link_key(const char *key, char *buf, size_t size);

/* why, the error of a [Match] value, with "; globs are separated by
 * spaces, not commas: write 'KEY=a b'" when value has a ','. NULL when out
 * of memory. */
char *layout_match_comma_why(const char *key, const char *value, const char *why);
