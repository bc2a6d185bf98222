/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An empty value (Trust=) unsets only a value set above it in the same
 * section; where there is none, the line changes nothing: an earlier
 * file's or section's value stays. Such lines are said, as warnings,
 * naming the value that stays. Pure. */

#include "layout.h"

/* files (n) in the order they are read. -ENOMEM. */
int layout_empty_check(struct layout_file *const *files, size_t n, struct diag_list *diags);
