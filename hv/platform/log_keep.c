// SPDX-License-Identifier: MIT
/*
 * Storing the run's log in UEFI variables (log_keep.h), within what one
 * run may take of the firmware's store (lib/kept_log.h): nothing without
 * QueryVariableInfo, whose numbers are asked again before each write;
 * the chunks first and the info last, so that a store cut short (no
 * room after all, a reset) leaves chunks that no info points at, and the
 * next boot's loader deletes them with every other mhv variable it finds
 * (boot/kept_log_file.c).  Nothing is deleted here: at runtime a delete
 * frees no space until the next boot (EDK2 reclaims only before
 * ExitBootServices) and costs a flash write.  One CPU calls this, once
 * (host/finish.c).
 */
#include "log_keep.h"
#include "console.h"
#include "console_log.h"
#include "efi_rt.h"
#include "lib/fmt.h"

/* The info's room in the store, kept free until it is written. */
#define INFO_ROOM (KEPT_LOG_PER_VARIABLE + sizeof(struct kept_log_info))

static struct kept_log_info info;
static char chunk_buf[KEPT_LOG_CHUNK_MAX];

/* QueryVariableInfo's answer */
struct store_room {
	u64 size, free, max_var;
};

static u64 set_var(const u16 *name, u64 size, const void *data)
{
	return efi_rt_set_variable(name, &mhv_vendor_guid, KEPT_LOG_ATTRS, size, data);
}

/* The store's room now; false and why in @why when it cannot be known. */
static bool query(struct store_room *r, char *why, size_t why_size)
{
	u64 st = efi_rt_query_variable_info(KEPT_LOG_ATTRS, &r->size, &r->free, &r->max_var);
	char buf[40];

	if (st) {
		fmt_snprintf(why, why_size,
			     "QueryVariableInfo: %s, and mhv writes no variable without knowing "
			     "the room left",
			     efi_status_name(st, buf, sizeof(buf)));
		return false;
	}
	if (!r->size || r->free > r->size) {
		fmt_snprintf(why, why_size,
			     "QueryVariableInfo says %llu of %llu bytes are free, which cannot be",
			     r->free, r->size);
		return false;
	}
	return true;
}

/* Bytes this run may still take when it has taken @taken: within its
 * share of the store and above the reserve. */
static u64 budget(const struct store_room *r, u64 taken)
{
	u64 share = kept_log_share(r->size), reserve = kept_log_reserve(r->size);

	if (taken >= share || r->free <= reserve)
		return 0;
	return share - taken < r->free - reserve ? share - taken : r->free - reserve;
}

/* Bytes of log that @room bytes of store hold in chunks of @chunk_size. */
static u64 log_room(u64 room, u32 chunk_size)
{
	u64 full = room / (chunk_size + KEPT_LOG_PER_VARIABLE);
	u64 rest = room - full * (chunk_size + KEPT_LOG_PER_VARIABLE);

	return full * chunk_size +
	       (rest > KEPT_LOG_PER_VARIABLE ? rest - KEPT_LOG_PER_VARIABLE : 0);
}

/* What to store: the view of the log and its chunk size; false and why
 * in @why when nothing may be stored. */
static bool plan(struct console_log_view *v, u32 *chunk_size, char *why, size_t why_size)
{
	struct kept_log_info old;
	struct store_room r;
	u64 size = sizeof(old), room, st;
	char buf[40];
	u32 attrs;

	/* one log at a time: a stick that stays read-only costs no more writes */
	st = efi_rt_get_variable(KEPT_LOG_INFO_NAME, &mhv_vendor_guid, &attrs, &size, &old);
	if (!st) {
		fmt_snprintf(why, why_size,
			     "the previous run's log still waits in UEFI variables for a boot "
			     "that can write it to the boot volume");
		return false;
	}
	if (st != EFI_NOT_FOUND) {
		fmt_snprintf(why, why_size, "GetVariable MhvLogInfo: %s",
			     efi_status_name(st, buf, sizeof(buf)));
		return false;
	}
	if (!query(&r, why, why_size))
		return false;
	if (r.max_var < KEPT_LOG_CHUNK_MIN + KEPT_LOG_PER_VARIABLE) {
		fmt_snprintf(
		    why, why_size,
		    "the firmware takes variables of up to %llu bytes only (QueryVariableInfo)",
		    r.max_var);
		return false;
	}
	*chunk_size = r.max_var - KEPT_LOG_PER_VARIABLE < KEPT_LOG_CHUNK_MAX
			  ? (r.max_var - KEPT_LOG_PER_VARIABLE) & ~1023u
			  : KEPT_LOG_CHUNK_MAX;
	room = budget(&r, 0);
	room = room > INFO_ROOM ? room - INFO_ROOM : 0;
	if (log_room(room, *chunk_size) < KEPT_LOG_CHUNK_MIN) {
		fmt_snprintf(why, why_size,
			     "the variable store has %llu of %llu bytes free, and mhv leaves %llu "
			     "of them to the firmware",
			     r.free, r.size, kept_log_reserve(r.size));
		return false;
	}
	console_log_plan(v, log_room(room, *chunk_size));
	return true;
}

/* The chunks of @v, each after a query that says it fits with the info
 * beside it; how many were stored, all or up to the reason in @why. */
static u32 store_chunks(const struct console_log_view *v, u32 chunk_size, char *why,
			size_t why_size)
{
	struct store_room r;
	u64 pos, len, taken = 0, st;
	char buf[40];
	u16 name[12];
	u32 n = 0;

	for (pos = 0; pos < v->bytes; pos += len, n++) {
		len = v->bytes - pos < chunk_size ? v->bytes - pos : chunk_size;
		if (!query(&r, why, why_size))
			break;
		if (budget(&r, taken) < len + KEPT_LOG_PER_VARIABLE + INFO_ROOM) {
			fmt_snprintf(why, why_size,
				     "the variable store had less room than it said (%llu bytes "
				     "free before chunk %u)",
				     r.free, n);
			break;
		}
		console_log_read(v, pos, chunk_buf, len);
		kept_log_chunk_name(name, n);
		st = set_var(name, len, chunk_buf);
		if (st) {
			fmt_snprintf(why, why_size, "SetVariable MhvLog%04u of %llu bytes: %s", n,
				     len, efi_status_name(st, buf, sizeof(buf)));
			break;
		}
		taken += len + KEPT_LOG_PER_VARIABLE;
	}
	return n;
}

void log_keep_start(const struct kept_log_time *t)
{
	struct store_room r;
	char why[160];

	info.started = *t;
	if (!efi_rt_available())
		return;
	if (query(&r, why, sizeof(why)))
		console_printf("mhv: log: variable store %llu of %llu bytes free, variables up to "
			       "%llu bytes; a run keeps at most %llu bytes there and leaves %llu "
			       "free\n",
			       r.free, r.size, r.max_var, kept_log_share(r.size),
			       kept_log_reserve(r.size));
	else
		console_printf("mhv: log: %s: the log will not be kept\n", why);
}

void log_keep_store(u32 status)
{
	struct console_log_view v;
	struct store_room r;
	char why[160], buf[40];
	u32 chunk_size, n;
	u64 st;

	if (!efi_rt_available()) {
		console_printf("mhv: log: not kept across the reboot: no UEFI runtime services\n");
		return;
	}
	if (!plan(&v, &chunk_size, why, sizeof(why))) {
		console_printf("mhv: log: not kept across the reboot: %s\n", why);
		return;
	}
	n = store_chunks(&v, chunk_size, why, sizeof(why));
	if (n * (u64)chunk_size < v.bytes) {
		console_printf("mhv: log: not kept across the reboot: %s; the next boot deletes "
			       "the %u chunks written\n",
			       why, n);
		return;
	}
	info.magic = KEPT_LOG_MAGIC;
	info.chunk_size = chunk_size;
	info.nr_chunks = n;
	info.bytes = v.bytes;
	info.bytes_left_out = v.left_out;
	info.status = status;
	st = set_var(KEPT_LOG_INFO_NAME, sizeof(info), &info);
	if (st) {
		console_printf("mhv: log: not kept across the reboot: SetVariable MhvLogInfo: %s; "
			       "the next boot deletes the %u chunks written\n",
			       efi_status_name(st, buf, sizeof(buf)), n);
		return;
	}
	if (!query(&r, why, sizeof(why)))
		r.free = r.size = 0;
	console_printf("mhv: log: %llu bytes kept in %u UEFI variable%s of up to %u bytes%s, the "
		       "store %llu of %llu bytes free after them; the next boot from this volume "
		       "writes them to \\mhv-results\\ on it\n",
		       info.bytes, n, n == 1 ? "" : "s", chunk_size,
		       info.bytes_left_out ? " (the log was cut to fit, see its marker line)" : "",
		       r.free, r.size);
}
