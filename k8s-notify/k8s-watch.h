/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A watch (a GET with watch=1 in req->path): each event of the stream, a
 * JSON object with "type" and "object", goes to w->event as it arrives;
 * meanwhile w->tick runs when w->wake's time (the client's clock, 0 = none)
 * has come, and may send requests of its own (the watch stays open). A
 * callback returns > 0 to end the watch, 0 to go on, < 0 to fail it. One
 * request, never retried: 1 when a callback ended it, 0 when the server did
 * (its timeoutSeconds) or req->timeout passed, -errno (the message set) when
 * it failed, the answer was not 200, or an event was not JSON. */

#include "k8s-client.h"

struct k8s_watcher {
	int (*event)(struct json_object *event, void *userdata);
	usec_t (*wake)(void *userdata);
	int (*tick)(void *userdata);
	void *userdata;
};
int k8s_watch(struct k8s_client *c, const struct k8s_request *req, const struct k8s_watcher *w);

/* For transports: the next bytes of the watch's stream, and its timer. */
int k8s_watch_feed(struct k8s_client *c, const char *data, size_t len);
usec_t k8s_watch_wake(struct k8s_client *c);
int k8s_watch_tick(struct k8s_client *c);
