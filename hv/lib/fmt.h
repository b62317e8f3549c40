/* SPDX-License-Identifier: MIT */
/*
 * Minimal printf core shared by the serial console and snprintf users.
 *
 * Supported: %d %i %u %x %X %p %s %c %%, length modifiers hh h l ll z, flags
 * '-' '0' '+' ' ' '#', field width and precision (both also as '*').
 * %p prints 0x-prefixed lowercase hex (NULL prints "0x0"), %s of NULL prints
 * "(null)".  An unknown conversion is copied to the output verbatim.
 */
#ifndef MHV_FMT_H
#define MHV_FMT_H

#include "types.h"

/* Receives every output character in order; ctx is passed through untouched. */
typedef void (*fmt_sink)(void *ctx, char c);

/* Returns the number of characters handed to sink. */
int fmt_vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap);

/*
 * C99 semantics: writes at most size - 1 characters plus a NUL when size > 0
 * (buf may be NULL when size is 0) and returns the untruncated length.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* A refusal's reason into why[size] (snprintf rules); returns -1 for the caller to return. */
int fmt_refuse(char *why, size_t size, const char *fmt, ...) __printf(3, 4);

#endif
