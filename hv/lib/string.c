// SPDX-License-Identifier: MIT
/*
 * libc routines for freestanding code.  memcpy and memset come from
 * GNU-EFI's libefi (its init.o defines them and is linked into the image
 * anyway); the guests get theirs from guest-tests/rt/mem.c.
 */
#include "types.h"

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (u8)*a - (u8)*b;
}
