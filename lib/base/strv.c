/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "strv.h"

char **strv_free(char **l)
{
	if (!l)
		return NULL;
	for (char **i = l; *i; i++)
		free(*i);
	free(l);
	return NULL;
}

size_t strv_length(char *const *l)
{
	size_t n = 0;

	if (l)
		while (l[n])
			n++;
	return n;
}

bool strv_contains(char *const *l, const char *s)
{
	if (!l)
		return false;
	for (char *const *i = l; *i; i++)
		if (streq(*i, s))
			return true;
	return false;
}

int strv_consume(char ***l, char *value)
{
	size_t n = strv_length(*l);
	char **c;

	if (!value)
		return -ENOMEM;
	c = realloc(*l, sizeof(char *) * (n + 2));
	if (!c) {
		free(value);
		return -ENOMEM;
	}
	c[n] = value;
	c[n + 1] = NULL;
	*l = c;
	return 0;
}

int strv_extend(char ***l, const char *value)
{
	return strv_consume(l, strdup(value));
}

int strv_split(const char *s, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	const char *p = s;

	if (!l)
		return -ENOMEM;
	for (;;) {
		size_t n;
		int r;

		p += strspn(p, " \t\r\n");
		n = strcspn(p, " \t\r\n");
		if (n == 0)
			break;
		r = strv_consume(&l, strndup(p, n));
		if (r < 0)
			return r;
		p += n;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

char **strv_copy(char *const *l)
{
	_cleanup_strv_free_ char **c = calloc(strv_length(l) + 1, sizeof(char *));

	if (!c)
		return NULL;
	for (size_t i = 0; l && l[i]; i++) {
		c[i] = strdup(l[i]);
		if (!c[i])
			return NULL;
	}
	return TAKE_PTR(c);
}

char *strv_join(char *const *l, const char *sep)
{
	size_t len = 1, k = 0;
	char *s;

	for (size_t i = 0; l && l[i]; i++)
		len += strlen(l[i]) + (i > 0 ? strlen(sep) : 0);
	s = malloc(len);
	if (!s)
		return NULL;
	for (size_t i = 0; l && l[i]; i++) {
		if (i > 0)
			k += (size_t)sprintf(s + k, "%s", sep);
		k += (size_t)sprintf(s + k, "%s", l[i]);
	}
	s[k] = '\0';
	return s;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **l)
{
	if (l)
		qsort(l, strv_length(l), sizeof(char *), strcmp_ptr);
}
