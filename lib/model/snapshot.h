/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The snapshot JSON (sriovctl(8): snapshot, --host) <-> struct host_state, with json-c. Field
 * names are fixed so that snapshots from users' machines replay as they are.
 * Optional additions (absent in older snapshots, defaults in model.h):
 * PF "altnames", "drivers_autoprobe", "hw_tc_offload", "firmware_link_type";
 * VF "query_rss" (a VF's attributes are the keys of vf-attrs.c, each with
 * its name, range and whether it may be absent from its row);
 * host "machine_id". "faults" is kept aside for the simulated host. */

#include "model.h"

struct json_object;

/* Parses text. On malformed input returns -EINVAL and, when ret_error is
 * given, a message naming the field ("pfs[1].vfs[0].mac: not a MAC address"). */
int snapshot_parse(const char *text, struct host_state **ret, char **ret_error);
/* The same, also handing over the parsed document (for members of its own
 * that a caller reads, such as the simulated host's faults). */
int snapshot_parse_root(const char *text, struct host_state **ret, struct json_object **ret_root,
			char **ret_error);
/* Builds the JSON object (without "faults"). */
int snapshot_to_json(const struct host_state *h, struct json_object **ret);
/* For a writer that keeps the text of the PFs that did not change (the
 * simulated host): one PF's pretty-printed text, and snapshot_to_json() with
 * pf_texts[i], where not NULL, printed for PF i (its text from
 * snapshot_pf_format(), which must still describe it; kept by the caller
 * until the document is printed). */
int snapshot_pf_format(const struct pf_state *pf, char **ret);
int snapshot_to_json_texts(const struct host_state *h, char *const *pf_texts,
			   struct json_object **ret);
/* The host's value of VF key k in a as a snapshot VF carries it (the name
 * is vf_key_host_field()'s): 1 and the value (NULL: JSON null, a VF on no
 * driver), 0 when the snapshot leaves it out (a GUID never set, a key a
 * host has no value for), -ENOMEM. */
int snapshot_vf_attr_format(const struct vf_attrs *a, enum vf_key k, struct json_object **ret);
/* Pretty-printed text with a trailing newline; caller frees. */
int snapshot_format(const struct host_state *h, char **ret);
/* The same text for a JSON object built by snapshot_to_json() and extended by
 * the caller (the simulated host adds "faults"). */
int snapshot_json_format(struct json_object *o, char **ret);
