/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* [Reboot] FirmwareReset=yes: the reboot operation's last step, where every
 * pending reboot reason is a ConnectX firmware setting, resets the cards
 * instead (host action firmware_reset), applies their PFs again and fails
 * those whose firmware still runs with the old settings. */

#include "manager.h"

enum firmware_reset_outcome {
	FIRMWARE_RESET_NOT_APPLICABLE, /* a reason that only a reboot meets: reboot */
	FIRMWARE_RESET_FAILED,	       /* not offered, or failed: reboot (logged why) */
	FIRMWARE_RESET_DONE,	       /* reset and applied again: no reboot */
};

/* Carries it out, in the event loop (each reset is bounded by the backend). */
enum firmware_reset_outcome manager_firmware_reset(struct manager *m);
