/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "host-stack.h"
#include "layout-merge.h"

bool vf_settings_host_network_stack(const struct vf_settings *v, enum host_network_stack *ret)
{
	if (vf_settings_has(v, VF_KEY_HOST_NETWORK_STACK)) {
		*ret = v->attrs.host_network_stack;
		return true;
	}
	/* meant for a pod or a VM: the device plugin hands it out, or it is
	 * to have no network interface at all (one it may have until it is
	 * bound is not the host's either) */
	if ((vf_settings_has(v, VF_KEY_RESOURCE_NAME) && v->attrs.resource_name) ||
	    (vf_settings_has(v, VF_KEY_DRIVER) && v->attrs.driver &&
	     !vf_driver_has_netdev(v->attrs.driver))) {
		*ret = HOST_NETWORK_STACK_UNMANAGED;
		return true;
	}
	return false;
}

int pf_desired_host_network_stack(const struct layout_set *set, const struct pf_desired *d,
				  unsigned index, enum host_network_stack *ret)
{
	struct vf_settings *vfs = NULL;
	size_t n = 0;
	bool decided;
	int r;

	r = layout_merge_vfs(set, d, &vfs, &n);
	if (r < 0)
		return r;
	decided = index < n && vf_settings_host_network_stack(&vfs[index], ret);
	vf_settings_free_array(vfs, n);
	return decided;
}
