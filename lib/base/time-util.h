/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "macro.h"

/* Microseconds, as in systemd. */
typedef uint64_t usec_t;
#define USEC_INFINITY ((usec_t)UINT64_MAX)
#define USEC_PER_MSEC ((usec_t)1000ULL)
#define USEC_PER_SEC ((usec_t)1000000ULL)
#define USEC_PER_HOUR (3600 * USEC_PER_SEC)

/* A systemd time span: "90", "5min", "1h 30s", "1.5h", "250ms" (a bare
 * number is seconds; units us, ms, s, min, h, d, w and their long forms).
 * -EINVAL for anything else, -ERANGE past UINT64_MAX µs. */
int parse_timespan(const char *s, usec_t *ret);

/* The clocks, in µs. */
usec_t now_realtime(void);
/* When this boot began, on CLOCK_REALTIME: a record finished before it is
 * from an earlier boot. */
usec_t boot_start_realtime(void);
usec_t now_monotonic(void);
/* A span as people read it: "200ms", "1.5s", "12s", "4min 10s", "2h", "3d 4h". */
#define FORMAT_TIMESPAN_MAX 32
const char *format_timespan(char buf[static FORMAT_TIMESPAN_MAX], usec_t t);
/* A CLOCK_REALTIME time in UTC as RFC 3339: "2026-12-06T11:16:22Z". */
#define FORMAT_RFC3339_MAX 32
const char *format_rfc3339(char buf[static FORMAT_RFC3339_MAX], usec_t t);
/* RFC 3339 as Kubernetes writes it (format_rfc3339() and k8s-notify's
 * MicroTime): "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)", fractions beyond
 * 6 digits truncated. -EINVAL for anything else. */
int parse_rfc3339(const char *s, usec_t *ret);
/* now_monotonic() + timeout; USEC_INFINITY stays infinite. */
usec_t deadline_after(usec_t timeout);
/* poll()'s timeout until deadline, rounded up: 0 once it has passed, -1
 * for USEC_INFINITY. */
int poll_ms(usec_t deadline);
