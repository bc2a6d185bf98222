/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "logind.h"

struct reboot_call {
	logind_done_t done;
	void *userdata;
};

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct reboot_call *c = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);

	c->done(c->userdata, e ? -sd_bus_error_get_errno(e) : 0, e ? e->message : NULL);
	return 0;
}

void logind_reboot(sd_bus *bus, logind_done_t done, void *userdata)
{
	struct reboot_call *c = NULL;
	sd_bus_slot *slot = NULL;
	int r = -ENOTCONN;

	if (bus) {
		c = malloc(sizeof(*c));
		r = c ? 0 : -ENOMEM;
	}
	if (r >= 0) {
		*c = (struct reboot_call){ .done = done, .userdata = userdata };
		r = sd_bus_call_method_async(bus, &slot, "org.freedesktop.login1",
					     "/org/freedesktop/login1",
					     "org.freedesktop.login1.Manager", "Reboot", on_reply,
					     c, "b", 0);
	}
	if (r >= 0) {
		/* the slot lives on the bus until the reply came, and frees c then */
		(void)sd_bus_slot_set_destroy_callback(slot, free);
		(void)sd_bus_slot_set_floating(slot, 1);
		sd_bus_slot_unref(slot);
		return;
	}
	free(c);
	done(userdata, r, strerror(-r));
}
