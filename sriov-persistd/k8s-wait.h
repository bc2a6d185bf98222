/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Waiting for the Kubernetes API: one backoff for every k8s-notify run the
 * daemon makes. While the API server does not answer, no run starts before
 * the time this says, and then only one tries it; the first answer ends the
 * wait. Pure: the clocks and the random numbers come in. */

#include <stdint.h>

#include "util.h"

/* The first delay, and what the others grow from. */
#define K8S_WAIT_BASE USEC_PER_SEC

struct k8s_wait {
	usec_t since;	   /* CLOCK_REALTIME when the server stopped answering; 0: it answers */
	usec_t since_mono; /* the same on CLOCK_MONOTONIC */
	unsigned attempts; /* runs that found it unreachable since */
	usec_t next;	   /* CLOCK_MONOTONIC: no run before this */
	char *error;	   /* the last failure, in k8s-notify's words */
};

/* The delay before try attempt + 1 after attempt failed ones (attempt >= 1):
 * exponential, doubling from K8S_WAIT_BASE, capped, and drawn at random
 * between K8S_WAIT_BASE and that (full jitter) from rnd. */
usec_t k8s_wait_delay(unsigned attempt, usec_t cap, uint32_t rnd) _const_;

/* A run found the server unreachable at now (CLOCK_MONOTONIC; real:
 * CLOCK_REALTIME): the next try is due after the delay, or when retry_after
 * (what the server asked for, at most a day) is longer, after it and up to
 * half as long again, whatever the cap. Returns 1 when this begins an
 * outage, 0 when one goes on, -ENOMEM. */
int k8s_wait_failed(struct k8s_wait *w, usec_t now, usec_t real, usec_t cap, usec_t retry_after,
		    uint32_t rnd, const char *error);
/* A run got an answer: the outage, if there was one, is over. Returns
 * whether there was one, with how long it lasted (by now) and how many tries
 * failed. */
bool k8s_wait_answered(struct k8s_wait *w, usec_t now, usec_t *ret_duration,
		       unsigned *ret_attempts);
/* Whether a run may start at now: always while the server answers; during
 * an outage once the next try is due. */
bool k8s_wait_may_run(const struct k8s_wait *w, usec_t now) _pure_;
void k8s_wait_done(struct k8s_wait *w);
