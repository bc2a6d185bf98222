/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdio.h>

#include "string-util.h"

bool string_has_control_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return true;
	return false;
}

bool module_name_equal(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

char *strdup_vprintf(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *strdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strdup_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

int free_and_strdup(char **p, const char *s)
{
	char *c = NULL;

	if (streq_ptr(*p, s))
		return 0;
	if (s) {
		c = strdup(s);
		if (!c)
			return -ENOMEM;
	}
	free(*p);
	*p = c;
	return 0;
}

char *ranges_format(const uint32_t *idx, size_t n)
{
	_cleanup_free_ char *s = strdup("");

	for (size_t i = 0; s && i < n;) {
		size_t j = i;
		char *t;

		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		if (j == i)
			t = strdup_printf("%s%s%u", s, *s ? "," : "", idx[i]);
		else
			t = strdup_printf("%s%s%u-%u", s, *s ? "," : "", idx[i], idx[j]);
		free(s);
		s = t;
		i = j + 1;
	}
	return TAKE_PTR(s);
}

void strip_newline(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}
