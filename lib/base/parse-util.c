/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <strings.h>

#include "parse-util.h"

int safe_atou64(const char *s, int base, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and a minus sign: we do not. */
	if (!s || !isxdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0 || end == s || *end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atou32(const char *s, int base, uint32_t *ret)
{
	uint64_t v;
	int r;

	r = safe_atou64(s, base, &v);
	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int safe_atoi(const char *s, int *ret)
{
	long v;
	char *end;

	if (!s || *s == '\0' || isspace((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
		return -ERANGE;
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int parse_boolean(const char *s)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -EINVAL;
}

int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -EINVAL;
}
