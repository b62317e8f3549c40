// SPDX-License-Identifier: MIT
#include "backend.h"
#include "lib/fmt.h"

const struct backend_ops *backend;

enum backend_err backend_fail(struct backend_error *err, enum backend_err code, const char *fmt,
			      ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	fmt_vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return code;
}
