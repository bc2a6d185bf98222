/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What metrics.c and metrics-daemon.c share: a series written as the text
 * format asks, and a family's HELP and TYPE lines. */

#include <stdio.h>

#include "metrics.h"

/* room for any value of type in decimal, with its sign and NUL */
#define DECIMAL_STR_MAX(type) (2 + sizeof(type) * 3)

struct metrics_label {
	const char *key, *value;
};

/* METRICS_PREFIX name{k="v",...} value: labels as given, each value
 * escaped. -ENOMEM. */
int metrics_series(FILE *f, const char *name, const struct metrics_label *l, size_t n,
		   const char *value);
int metrics_series_u64(FILE *f, const char *name, const struct metrics_label *l, size_t n,
		       uint64_t v);
/* Microseconds as seconds, exactly: "12.000345". */
int metrics_series_usec(FILE *f, const char *name, const struct metrics_label *l, size_t n,
			uint64_t usec);
void metrics_header(FILE *f, const char *name, const char *type, const char *help);

/* The daemon's families from its GetMetrics() document (NULL: no daemon
 * answered, and only sriov_persist_daemon_up 0 says so); per-PF series of
 * only_pci alone when it is not NULL. -ENOMEM. */
int metrics_format_daemon(FILE *f, struct json_object *daemon, const char *only_pci);
