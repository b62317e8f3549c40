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
#define KEPT_LOG_MAX_CHUNKS 9999

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
