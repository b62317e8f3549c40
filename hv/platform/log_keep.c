// SPDX-License-Identifier: MIT
/*
 * Storing the run's log in UEFI variables (log_keep.h).  The chunks are
 * as large as the firmware takes (QueryVariableInfo's maximum variable
 * size, at most CHUNK_MAX), and the log is cut to what its variable store
 * has room for, keeping the start and the end (console_log.h).  The info
 * variable is deleted first and written last, so a store cut short by a
 * reset is never read as a whole one.
 */
#include "log_keep.h"
#include "console.h"
#include "console_log.h"
#include "efi_rt.h"
#include "lib/fmt.h"

#define CHUNK_MAX (32u << 10)
#define CHUNK_MIN (1u << 10)
/* A variable's header and name in the store (EDK2's authenticated header
 * is 60 bytes, the name 22), rounded up. */
#define PER_VARIABLE 128
/* Room left for the firmware's own variables (boot order, Secure Boot
 * databases' updates, ...). */
#define STORE_SLACK (16u << 10)
#define KEEP_ATTRS \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)

static struct kept_log_info info;
static char chunk_buf[CHUNK_MAX];
static bool storing;

void log_keep_set_start(const struct kept_log_time *t)
{
	info.started = *t;
}

static u64 set_var(const u16 *name, u64 size, const void *data)
{
	return efi_rt_set_variable(name, &mhv_vendor_guid, KEEP_ATTRS, size, data);
}

/* Chunks a store of a longer log left behind: deleted, up to the first gap. */
static void delete_chunks_from(u32 chunk)
{
	u16 name[12];

	for (; chunk < KEPT_LOG_MAX_CHUNKS; chunk++) {
		kept_log_chunk_name(name, chunk);
		if (set_var(name, 0, NULL))
			break;
	}
}

/* How many bytes of log the store has room for, and in what chunks. */
static u64 room(u32 *chunk_size, char *how, size_t how_size)
{
	u64 max_storage = 0, remaining = 0, max_var = 0, usable;
	u64 st = efi_rt_query_variable_info(KEEP_ATTRS, &max_storage, &remaining, &max_var);
	char buf[40];

	if (st || !max_var) {
		fmt_snprintf(how, how_size, "QueryVariableInfo: %s: trying %u-byte chunks",
			     efi_status_name(st, buf, sizeof(buf)), CHUNK_MAX / 4);
		*chunk_size = CHUNK_MAX / 4;
		return (u64)*chunk_size * 32;
	}
	*chunk_size =
	    max_var > CHUNK_MAX + PER_VARIABLE ? CHUNK_MAX : (u32)(max_var - PER_VARIABLE) & ~1023u;
	if (*chunk_size < CHUNK_MIN)
		*chunk_size = CHUNK_MIN;
	usable = remaining > STORE_SLACK ? remaining - STORE_SLACK : 0;
	fmt_snprintf(how, how_size, "variable store %llu of %llu bytes free, variables up to %llu",
		     remaining, max_storage, max_var);
	return usable / (*chunk_size + PER_VARIABLE) * *chunk_size;
}

/* The chunks of @v; how many were stored (all, or up to a refusal: *st). */
static u32 store_chunks(const struct console_log_view *v, u32 chunk_size, u64 *st)
{
	u16 name[12];
	u64 pos, len;
	u32 n = 0;

	*st = 0;
	for (pos = 0; pos < v->bytes; pos += len, n++) {
		len = v->bytes - pos < chunk_size ? v->bytes - pos : chunk_size;
		console_log_read(v, pos, chunk_buf, len);
		kept_log_chunk_name(name, n);
		*st = set_var(name, len, chunk_buf);
		if (*st)
			break;
	}
	return n;
}

void log_keep_store(u32 status)
{
	struct console_log_view v;
	char how[128], buf[40];
	u32 chunk_size, n;
	u64 max, st;

	if (storing)
		return; /* a fatal error while storing: no second try */
	storing = true;
	if (!efi_rt_available()) {
		console_printf("mhv: log: not kept across the reboot: no UEFI runtime services\n");
		return;
	}
	set_var(KEPT_LOG_INFO_NAME, 0, NULL);
	max = room(&chunk_size, how, sizeof(how));
	if (max < CHUNK_MIN) {
		console_printf(
		    "mhv: log: not kept across the reboot: the firmware's variable store "
		    "has no room (%s)\n",
		    how);
		return;
	}
	console_log_plan(&v, max);
	n = store_chunks(&v, chunk_size, &st);
	if (st && n) {
		/* the store was fuller than it said: the end matters most, so
		 * cut again to what was taken */
		console_log_plan(&v, (u64)n * chunk_size);
		n = store_chunks(&v, chunk_size, &st);
	}
	if (!n) {
		console_printf("mhv: log: not kept across the reboot: SetVariable of %u bytes: %s "
			       "(%s)\n",
			       chunk_size, efi_status_name(st, buf, sizeof(buf)), how);
		return;
	}
	delete_chunks_from(n);
	info.magic = KEPT_LOG_MAGIC;
	info.chunk_size = chunk_size;
	info.nr_chunks = n;
	info.bytes = n * (u64)chunk_size < v.bytes ? n * (u64)chunk_size : v.bytes;
	info.bytes_left_out = v.left_out + (v.bytes - info.bytes);
	info.status = status;
	st = set_var(KEPT_LOG_INFO_NAME, sizeof(info), &info);
	if (st) {
		console_printf("mhv: log: not kept across the reboot: SetVariable MhvLogInfo: %s\n",
			       efi_status_name(st, buf, sizeof(buf)));
		return;
	}
	console_printf("mhv: log: %llu bytes kept in %u UEFI variable%s of up to %u bytes (%s)%s; "
		       "the next boot from this volume writes them to \\mhv-results\\ on it\n",
		       info.bytes, n, n == 1 ? "" : "s", chunk_size, how,
		       info.bytes_left_out ? ": the log was cut, see its marker line" : "");
}
