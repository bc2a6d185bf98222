/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The slots of MaxParallelNodes as coordination.k8s.io/v1 Leases: what a
 * slot's Lease means for us, which slot to take, and the objects to write.
 * Pure: the caller reads and writes the Leases. */

#include "k8s-api.h"

#define LEASE_SLOT_PREFIX "sriov-persist-slot-"
#define LEASE_MANAGED_BY "sriov-persist"

enum lease_state {
	LEASE_STATE_ABSENT,  /* no such Lease: create it */
	LEASE_STATE_FREE,    /* no holder: take it over */
	LEASE_STATE_EXPIRED, /* renewTime + leaseDurationSeconds has passed: take it over */
	LEASE_STATE_OURS,    /* held by us: keep it */
	LEASE_STATE_BUSY,    /* held by another node */
	_LEASE_STATE_MAX,
	_LEASE_STATE_INVALID = -EINVAL,
};

const char *lease_state_to_string(enum lease_state s) _pure_;
/* lease NULL = absent; now is the wall clock (µs since the epoch).
 * _LEASE_STATE_INVALID for another holder's Lease whose leaseDurationSeconds
 * is beyond an int32: never taken over on a value the API cannot hold. */
enum lease_state lease_decide(struct json_object *lease, const char *holder, usec_t now);
/* Until when the Lease's holder holds it (renewTime, else acquireTime, plus
 * leaseDurationSeconds); 0 when that cannot be told (taken as expired),
 * -ERANGE when leaseDurationSeconds is beyond an int32. */
int lease_expiry(struct json_object *lease, usec_t *ret);

/* How long a node that watches the slots waits, once one is free, before it
 * tries to take it: a random part of a window that doubles with every race
 * it lost (250 ms, up to 8 s). Of many waiters the first takes the slot and
 * the others see it taken before their turn, instead of all writing at once
 * and all but one losing. */
#define LEASE_TRY_WINDOW (250 * USEC_PER_MSEC)
#define LEASE_TRY_WINDOW_MAX (8 * USEC_PER_SEC)
usec_t lease_try_delay(unsigned lost, uint32_t rnd) _const_;

/* The slot to go for: one we hold, else one of the takeable ones picked by
 * rnd (so that contenders spread over the slots); -EBUSY when none. */
int lease_pick(const enum lease_state *states, size_t n, uint32_t rnd);
/* "sriov-persist-slot-N"; NULL on ENOMEM. */
char *lease_slot_name(unsigned i);
/* The Lease that makes holder hold the slot until now + duration: a new one
 * (prev NULL) or prev with its metadata (resourceVersion) kept, renewTime now,
 * and acquireTime/leaseTransitions advanced when the holder changes. -ERANGE
 * when prev's leaseTransitions is not an int32 that can grow (or duration
 * is beyond one), -EBADMSG when prev is not a JSON object, -ENOMEM. */
int lease_build_hold(struct json_object *prev, const char *ns, const char *name, const char *holder,
		     uint32_t duration, usec_t now, struct json_object **ret);
/* prev without a holder (its resourceVersion kept, so that the write fails
 * if someone else wrote in between); -EBADMSG when prev is not a JSON object. */
int lease_build_release(struct json_object *prev, struct json_object **ret);
