/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The simulated backend of host.h: a snapshot file that follows the
 * kernel's rules, with faults injected on request. */

#include "host.h"

/* The simulated host: state lives in the snapshot JSON at path. Every
 * operation takes an exclusive lock on the file, reads it, checks the
 * injected faults, applies the kernel's rule, writes it back atomically and
 * unlocks, so several processes see one consistent "kernel". */
/* On failure, ret_error (HOST_ERROR_MAX bytes, or NULL) says why when the file was found but
 * cannot be used ("/etc/passwd: not a simulated host snapshot: not valid
 * JSON at offset 0: unexpected character"); "" when -errno says it all. */
int host_sim_open(const char *path, struct host **ret, char *ret_error);

/* sriovctl --root DIR with --host: the boot loader configuration that the
 * snapshot's "boot_loader" names is read under root (host_state's
 * boot_cmdlines), as the real host reads its own. -ENOMEM. */
int host_sim_set_root(struct host *h, const char *root);
