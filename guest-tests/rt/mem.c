// SPDX-License-Identifier: MIT
/* memcpy and memset for the guests (the compiler emits calls to them). */
#include "lib/types.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n)::"memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}
