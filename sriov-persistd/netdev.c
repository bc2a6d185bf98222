/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "netdev.h"

bool netdev_settled(struct udev *udev, const char *ifname, const char **ret_why,
		    struct netdev_id *ret_id)
{
	struct udev_device *d;
	const char *init;
	bool settled;

	*ret_id = (struct netdev_id){};
	if (!ifname || !udev) {
		*ret_why = "it has no netdev yet";
		return false;
	}
	d = udev_device_new_from_subsystem_sysname(udev, "net", ifname);
	if (!d) {
		*ret_why = "udev does not know its netdev yet";
		return false;
	}
	settled = udev_device_get_is_initialized(d) > 0;
	init = udev_device_get_property_value(d, "USEC_INITIALIZED");
	if (settled && init && safe_atou64(init, 10, &ret_id->initialized) >= 0)
		ret_id->since = now_realtime() - udev_device_get_usec_since_initialized(d);
	if (!settled)
		*ret_why = "udev has not finished with its netdev yet";
	else if (udev_device_get_property_value(d, "ID_RENAMING")) {
		settled = false;
		*ret_why = "udev is renaming its netdev";
	}
	udev_device_unref(d);
	return settled;
}
