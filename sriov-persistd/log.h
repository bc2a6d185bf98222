/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* To the journal with the PF as a field (SRIOV_PF=) when systemd connected
 * stderr to it, plain lines on stderr otherwise (tests, a terminal). */

#include "util.h"

void log_pf(int priority, const char *pci, const char *fmt, ...) _printf_(3, 4);
#define log_msg(priority, ...) log_pf(priority, NULL, __VA_ARGS__)
extern bool log_debug_enabled;
