/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl compare reads YAML or JSON from anyone's cluster: the node state
 * reader must survive every byte sequence, keep no object with an error,
 * and give every interface it keeps a valid PCI address and every VF group
 * an ordered range; choosing this node's must name why when it fails. */

#include <assert.h>
#include <string.h>

#include "addr-util.h"
#include "sno-node-state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ifaces(const struct sno_iface *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert(pci_addr_is_valid(list[i].pci));
		assert(sno_iface_find(list, n, list[i].pci) == &list[i]);
		for (size_t g = 0; g < list[i].n_groups; g++)
			assert(list[i].groups[g].first <= list[i].groups[g].last);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), *why = NULL;
	struct sno_node_states s = {};
	struct diag_list diags = {};
	const struct sno_node_state *ns = NULL;

	if (!text)
		return 0;
	if (sno_node_states_parse("f", text, &s, &diags) == 0) {
		for (size_t i = 0; i < s.n; i++) {
			check_ifaces(s.items[i].spec, s.items[i].n_spec);
			check_ifaces(s.items[i].status, s.items[i].n_status);
		}
		if (sno_node_states_select(&s, NULL, "gpu-worker-03.example.net", &ns, &why) < 0)
			assert(why || diags.n > 0 || s.n == 0);
	}
	free(why);
	sno_node_states_done(&s);
	diag_list_done(&diags);
	free(text);
	return 0;
}
