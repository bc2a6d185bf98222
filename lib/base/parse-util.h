/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "macro.h"

/* Checked number parsing: whole string, no sign, no overflow. base 0 accepts 0x. */
int safe_atou32(const char *s, int base, uint32_t *ret);
int safe_atou64(const char *s, int base, uint64_t *ret);
int safe_atoi(const char *s, int *ret);
/* yes/no/true/false/on/off/1/0, case-insensitive; -EINVAL otherwise. */
int parse_boolean(const char *s);
/* What a value for parse_boolean() must be, for "Key=value: <why>". */
#define WHY_BOOLEAN "must be a boolean (yes/no/true/false/on/off/1/0)"

/* The value of a hex digit, in either case; -EINVAL for anything else. */
int hexval(char c) _const_;
