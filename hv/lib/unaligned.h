/* SPDX-License-Identifier: MIT */
/*
 * Little-endian fields at any byte offset of a firmware table or a boot
 * image header: memcpy, so no unaligned access is ever assumed.
 */
#ifndef MHV_UNALIGNED_H
#define MHV_UNALIGNED_H

#include "types.h"

static inline u16 get_le16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static inline u32 get_le32(const u8 *p)
{
	u32 v;

	__builtin_memcpy(&v, p, 4);
	return v;
}

static inline u64 get_le64(const u8 *p)
{
	u64 v;

	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline void put_le16(u8 *p, u16 v)
{
	__builtin_memcpy(p, &v, 2);
}

static inline void put_le32(u8 *p, u32 v)
{
	__builtin_memcpy(p, &v, 4);
}

static inline void put_le64(u8 *p, u64 v)
{
	__builtin_memcpy(p, &v, 8);
}

#endif
