/* SPDX-License-Identifier: MIT */
/*
 * The run's log kept across a reboot in UEFI variables: what the
 * hypervisor stores when a run ends (platform/log_keep.c) and the boot
 * loader of the next boot writes to a file on the boot volume
 * (boot/kept_log_file.c).  Variables of mhv's vendor GUID
 * (platform/efi_rt.h): "MhvLogInfo" holds struct kept_log_info,
 * "MhvLog0000", "MhvLog0001", ... the log's bytes in order, each
 * chunk_size long but the last.
 */
#ifndef MHV_KEPT_LOG_H
#define MHV_KEPT_LOG_H

#include "types.h"

/* mhv's vendor GUID for its UEFI variables, 33e5bd5d-0a3f-4cb1-9e80-5ab3b9d6d23a
 * (chosen at random), as an EFI_GUID initialiser (UEFI 2.10 Appendix A) */
#define MHV_VENDOR_GUID_INIT                                           \
	{                                                              \
		0x33e5bd5d, 0x0a3f, 0x4cb1,                            \
		{                                                      \
			0x9e, 0x80, 0x5a, 0xb3, 0xb9, 0xd6, 0xd2, 0x3a \
		}                                                      \
	}

#define KEPT_LOG_MAGIC 0x31474f4c56484d00ull /* "\0MHVLOG1" read as bytes, little-endian */
#define KEPT_LOG_INFO_NAME u"MhvLogInfo"
#define KEPT_LOG_CHUNK_PREFIX u"MhvLog" /* then four decimal digits */

/*
 * What one run may take of the firmware's variable store, headers
 * included: filling it has bricked machines (Samsung laptops, 2013), and
 * Linux never writes a variable that leaves less than 5 KiB free
 * (EFI_MIN_RESERVE, arch/x86/platform/efi/quirks.c).  mhv writes in
 * bulk where Linux writes a few small records, so it keeps more: at most
 * an eighth of the store and 64 KiB per run, and never less than a
 * quarter of the store, at least 16 KiB, left free for the firmware's
 * own writes (boot entries, Secure Boot database updates).  With a log
 * that waits for its file, a run stores nothing (platform/log_keep.c), so
 * mhv holds one run's share at most, and one more of garbage (a store cut
 * short) until the next boot reclaims it.
 */
#define KEPT_LOG_ATTRS 0x7u /* non-volatile, boot and runtime access: UEFI 2.10 §8.2.1 */
#define KEPT_LOG_CHUNK_MIN (1u << 10)
#define KEPT_LOG_CHUNK_MAX (32u << 10)
/* A variable's header and name in the store (EDK2's authenticated header
 * is 60 bytes, the name 22), rounded up. */
#define KEPT_LOG_PER_VARIABLE 128u
#define KEPT_LOG_STORE_MAX (64u << 10)
#define KEPT_LOG_STORE_SHARE 8
#define KEPT_LOG_RESERVE_MIN (16u << 10)
#define KEPT_LOG_RESERVE_SHARE 4
/* Chunks and writes (the chunks, then the info) of one run at most. */
#define KEPT_LOG_CHUNKS_MAX (KEPT_LOG_STORE_MAX / (KEPT_LOG_CHUNK_MIN + KEPT_LOG_PER_VARIABLE))
#define KEPT_LOG_WRITES_MAX (KEPT_LOG_CHUNKS_MAX + 1)

/* Bytes of a store of @size one run may take. */
static inline u64 kept_log_share(u64 size)
{
	return size / KEPT_LOG_STORE_SHARE < KEPT_LOG_STORE_MAX ? size / KEPT_LOG_STORE_SHARE
								: KEPT_LOG_STORE_MAX;
}

/* Bytes of a store of @size that stay free whatever mhv keeps. */
static inline u64 kept_log_reserve(u64 size)
{
	return size / KEPT_LOG_RESERVE_SHARE > KEPT_LOG_RESERVE_MIN ? size / KEPT_LOG_RESERVE_SHARE
								    : KEPT_LOG_RESERVE_MIN;
}

/* The run's start, as the firmware's clock had it (the file's name). */
struct kept_log_time {
	u16 year;
	u8 month, day, hour, minute, second, valid;
};

struct kept_log_info {
	u64 magic;
	u64 bytes;	    /* of log kept, in the chunks */
	u64 bytes_left_out; /* of the run's log that did not fit (the middle) */
	u32 chunk_size;
	u32 nr_chunks;
	struct kept_log_time started;
	u32 status; /* the run's enum mhv_status */
};
_Static_assert(sizeof(struct kept_log_info) == 48, "stored as it is: keep its layout");

/* "MhvLog0042" for chunk 42; name has room for 11 characters. */
static inline void kept_log_chunk_name(u16 *name, u32 chunk)
{
	const u16 prefix[] = KEPT_LOG_CHUNK_PREFIX;
	unsigned i;

	for (i = 0; prefix[i]; i++)
		name[i] = prefix[i];
	name[i++] = u'0' + chunk / 1000 % 10;
	name[i++] = u'0' + chunk / 100 % 10;
	name[i++] = u'0' + chunk / 10 % 10;
	name[i++] = u'0' + chunk % 10;
	name[i] = 0;
}

#endif
