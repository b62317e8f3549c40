// SPDX-License-Identifier: MIT
/*
 * The hypervisor's side of the kept log's tests: platform/efi_rt.h's
 * runtime services over the variable store model, and the console as
 * a record of the last line the store printed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kept_log_fake.h"
#include "lib/fmt.h"
#include "lib/kept_log.h"
#include "platform/console.h"
#include "platform/efi_rt.h"
#include "var_store.h"

const struct efi_guid mhv_vendor_guid = MHV_VENDOR_GUID_INIT;
char fake_console_last[512];

int console_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(fake_console_last, sizeof(fake_console_last), fmt, ap);
	va_end(ap);
	if (getenv_verbose())
		fputs(fake_console_last, stderr);
	return n;
}

bool efi_rt_available(void)
{
	return true;
}

u64 efi_rt_set_variable(const u16 *name, const struct efi_guid *guid, u32 attrs, u64 size,
			const void *data)
{
	return vs_set(name, guid, attrs, size, data);
}

u64 efi_rt_get_variable(const u16 *name, const struct efi_guid *guid, u32 *attrs, u64 *size,
			void *data)
{
	return vs_get(name, guid, attrs, size, data);
}

u64 efi_rt_query_variable_info(u32 attrs, u64 *max_storage, u64 *remaining, u64 *max_size)
{
	return vs_query(attrs, max_storage, remaining, max_size);
}

const char *efi_status_name(u64 status, char *buf, size_t size)
{
	fmt_snprintf(buf, size, "status 0x%llx", status);
	return buf;
}
