/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* VM test tool: sets every netlink attribute on each of COUNT VFs of the PF
 * netdev IFNAME through the Linux backend (one request per VF, read back and
 * verified there), and prints what it set, one JSON object per VF, for the
 * test to compare with `ip -j -d link`. For netdevsim, whose VFs are not PCI
 * functions and which sriovctl therefore does not manage. With
 * --hw-tc-offload, sets that feature of IFNAME through the backend (which
 * reads it back), or only reads it (get), and prints what the backend reads.
 * With --guids, sets VF 0's node and port GUID through the backend and
 * prints the kernel's answer (netdevsim has no ndo_set_vf_guid: the
 * request gets as far as do_setvfinfo, which refuses it there).
 *   vm-nsim-vf IFNAME COUNT
 *   vm-nsim-vf --hw-tc-offload on|off|get IFNAME
 *   vm-nsim-vf --guids IFNAME
 * With --rdma-netns, sets the RDMA subsystem's netns mode through the
 * backend (or only reads it: get) and prints the mode the backend reads
 * afterwards, with the kernel's answer to the set.
 *   vm-nsim-vf --rdma-netns shared|exclusive|get
 * With --representors, finds the switchdev representors of the first COUNT
 * VFs of the device directory DEVDIR through the backend, prints them as
 * it reads them, brings those that are down up, and prints them again.
 *   vm-nsim-vf --representors DEVDIR COUNT */

#include <fcntl.h>
#include <json-c/json.h>

#include "host-linux-internal.h"

/* {"errno": "EBUSY", "error": "...", and extra's key: value}, as JSON. */
static void print_result(int r, const char *error, const char *key, const char *value)
{
	struct json_object *o = json_object_new_object();

	if (key)
		json_object_object_add(o, key, json_object_new_string(value));
	json_object_object_add(o, "errno",
			       json_object_new_string(r < 0 ? strerrorname_np(-r) : "0"));
	json_object_object_add(o, "error", json_object_new_string(r < 0 ? error : ""));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static void want(uint32_t i, struct vf_attrs *ret)
{
	*ret = (struct vf_attrs){
		.mac = { { 0x02, 0x00, 0x00, 0x00, 0x20, (uint8_t)i } },
		.vlan = (uint16_t)(i * 37 % 4094 + 1),
		.qos = (uint8_t)(i % 8),
		.vlan_proto = i % 2 ? VLAN_PROTO_8021AD : VLAN_PROTO_8021Q,
		.spoofchk = i % 2 == 0,
		.trust = i % 3 == 0,
		.link_state = (enum link_state)(i % 3),
		.query_rss = i % 2 == 1,
		.min_tx_rate = i * 10,
		.max_tx_rate = i * 10 + 1000,
	};
}

static void print_want(uint32_t i, const struct vf_attrs *w)
{
	char mac[MAC_STR_MAX];

	printf("{\"vf\": %u, \"mac\": \"%s\", \"vlan\": %u, \"qos\": %u, \"proto\": \"%s\", "
	       "\"spoofchk\": %s, \"trust\": %s, \"link_state\": \"%s\", \"query_rss\": %s, "
	       "\"min_tx\": %u, \"max_tx\": %u}\n",
	       i, mac_format(&w->mac, mac), w->vlan, w->qos, vlan_proto_to_string(w->vlan_proto),
	       w->spoofchk ? "true" : "false", w->trust ? "true" : "false",
	       link_state_to_string(w->link_state), w->query_rss ? "true" : "false", w->min_tx_rate,
	       w->max_tx_rate);
}

static int hw_tc_offload(struct host *h, const char *how, const char *ifname)
{
	bool on = false, changeable = false;
	int ifindex, r;

	r = hl_ifindex(host_linux(h), ifname, &ifindex);
	if (r >= 0 && !streq(how, "get"))
		r = hl_set_hw_tc_offload_ifindex(host_linux(h), ifindex, streq(how, "on"));
	if (r >= 0)
		r = hl_get_hw_tc_offload_ifindex(host_linux(h), ifindex, &on, &changeable);
	if (r < 0) {
		fprintf(stderr, "%s: hw-tc-offload %s: %s: %s\n", ifname, how, strerror(-r),
			h->error);
		return 1;
	}
	printf("{\"hw_tc_offload\": %s, \"changeable\": %s}\n", on ? "true" : "false",
	       changeable ? "true" : "false");
	return 0;
}

static int guids(struct host *h, const char *ifname)
{
	struct vf_attrs w = { .ib_node_guid = 0x0002c90300216e70u,
			      .ib_port_guid = 0x0002c90300216e78u };
	int ifindex, r;

	r = hl_ifindex(host_linux(h), ifname, &ifindex);
	if (r >= 0)
		r = hl_set_vf_ifindex(host_linux(h), ifindex, 0, &w, VF_NETLINK_GUID_KEYS);
	print_result(r, h->error, NULL, NULL);
	return 0;
}

static int rdma_netns(struct host *h, const char *how)
{
	struct host_state s = {};
	int r = 0;

	if (!streq(how, "get"))
		r = hl_set_rdma_netns_mode(host_linux(h), streq(how, "exclusive") ?
								  RDMA_NETNS_MODE_EXCLUSIVE :
								  RDMA_NETNS_MODE_SHARED);
	hl_read_rdma_netns(host_linux(h), &s);
	print_result(r, h->error, "mode",
		     s.has_rdma_netns_mode ? rdma_netns_mode_to_string(s.rdma_netns_mode) : "none");
	return 0;
}

static void print_representors(const struct pf_state *pf)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < pf->n_vfs; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name",
				       pf->vfs[i].representor ?
					       json_object_new_string(pf->vfs[i].representor) :
					       NULL);
		json_object_object_add(o, "up", json_object_new_boolean(pf->vfs[i].representor_up));
		json_object_array_add(a, o);
	}
	printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
	json_object_put(a);
}

static int representors(struct host *h, const char *dir, uint32_t count)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct pf_state pf = { .n_vfs = count };
	int r;

	if (fd < 0) {
		fprintf(stderr, "%s: %m\n", dir);
		return 1;
	}
	pf.vfs = calloc(count, sizeof(*pf.vfs));
	r = pf.vfs ? hl_read_representors(host_linux(h), fd, &pf) : -ENOMEM;
	if (r >= 0)
		print_representors(&pf);
	for (size_t i = 0; r >= 0 && i < pf.n_vfs; i++)
		if (pf.vfs[i].representor && !pf.vfs[i].representor_up)
			r = hl_set_up_ifname(host_linux(h), pf.vfs[i].representor);
	for (size_t i = 0; r >= 0 && i < pf.n_vfs; i++)
		pf.vfs[i].representor = mfree(pf.vfs[i].representor);
	if (r >= 0)
		r = hl_read_representors(host_linux(h), fd, &pf);
	if (r >= 0)
		print_representors(&pf);
	pf_state_done(&pf);
	if (r < 0) {
		fprintf(stderr, "representors: %s: %s\n", strerror(-r), h->error);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	_cleanup_host_ struct host *h = NULL;
	uint32_t count;
	int ifindex, r;

	if (argc == 4 && streq(argv[1], "--hw-tc-offload") &&
	    (streq(argv[2], "on") || streq(argv[2], "off") || streq(argv[2], "get")) &&
	    ifname_is_valid(argv[3])) {
		r = host_linux_open(NULL, &h);
		if (r < 0) {
			fprintf(stderr, "%s\n", strerror(-r));
			return 1;
		}
		return hw_tc_offload(h, argv[2], argv[3]);
	}
	if (argc == 3 && streq(argv[1], "--rdma-netns") &&
	    (streq(argv[2], "shared") || streq(argv[2], "exclusive") || streq(argv[2], "get"))) {
		r = host_linux_open(NULL, &h);
		if (r < 0) {
			fprintf(stderr, "%s\n", strerror(-r));
			return 1;
		}
		return rdma_netns(h, argv[2]);
	}
	if (argc == 4 && streq(argv[1], "--representors") &&
	    safe_atou32(argv[3], 10, &count) >= 0 && count <= 256) {
		r = host_linux_open(NULL, &h);
		if (r < 0) {
			fprintf(stderr, "%s\n", strerror(-r));
			return 1;
		}
		return representors(h, argv[2], count);
	}
	if (argc == 3 && streq(argv[1], "--guids") && ifname_is_valid(argv[2])) {
		r = host_linux_open(NULL, &h);
		if (r < 0) {
			fprintf(stderr, "%s\n", strerror(-r));
			return 1;
		}
		return guids(h, argv[2]);
	}
	if (argc != 3 || !ifname_is_valid(argv[1]) || safe_atou32(argv[2], 10, &count) < 0 ||
	    count > 256) {
		fprintf(stderr,
			"Usage: %s IFNAME COUNT\n       %s --hw-tc-offload on|off|get IFNAME\n"
			"       %s --guids IFNAME\n"
			"       %s --rdma-netns shared|exclusive|get\n"
			"       %s --representors DEVDIR COUNT\n",
			argv[0], argv[0], argv[0], argv[0], argv[0]);
		return 2;
	}
	r = host_linux_open(NULL, &h);
	if (r >= 0)
		r = hl_ifindex(host_linux(h), argv[1], &ifindex);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	for (uint32_t i = 0; i < count; i++) {
		struct vf_attrs w;

		want(i, &w);
		r = hl_set_vf_ifindex(host_linux(h), ifindex, i, &w,
				      VF_NETLINK_KEYS & ~VF_NETLINK_GUID_KEYS);
		if (r < 0) {
			fprintf(stderr, "VF %u: %s: %s\n", i, strerror(-r), h->error);
			return 1;
		}
		print_want(i, &w);
	}
	return 0;
}
