/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Strings: building, copying, trimming, testing. */

#include <stdarg.h>
#include <stdint.h>

#include "macro.h"

/* Whether s has a byte below ' ' or DEL (a newline, a tab, an escape). */
bool string_has_control_chars(const char *s) _pure_;
/* *p becomes a copy of s (NULL: none); nothing happens when they are equal.
 * 0, or -ENOMEM with *p as it was. */
int free_and_strdup(char **p, const char *s);

/* Kernel module names compare with '-' and '_' alike, as modprobe does
 * (/proc/modules spells vfio-pci as vfio_pci). */
bool module_name_equal(const char *a, const char *b) _pure_;

/* Drops the newlines (and carriage returns) that end s. */
void strip_newline(char *s);

/* "0-3,5,7-9" for the sorted indices idx[0..n-1]; caller frees. */
char *ranges_format(const uint32_t *idx, size_t n);

/* asprintf that returns NULL on failure. */
char *strdup_printf(const char *fmt, ...) _printf_(1, 2);
char *strdup_vprintf(const char *fmt, va_list ap) _printf_(1, 0);
