/* SPDX-License-Identifier: MIT */
/*
 * The PC's CMOS clock, after the Motorola MC146818A data sheet, at ports
 * 0x70 (index, bit 7 the NMI mask) and 0x71 (data): time and date in
 * registers 0-9 (binary or BCD, 24- or 12-hour, as register B says),
 * alarms, register A (UIP for the 244 us before each once-a-second
 * update, the divider and rate bits), B (SET stops the updates so the OS
 * can write the time; interrupt enables, formats), C (the flags, cleared
 * by reading it), D (VRT: the battery is good), and the CMOS RAM, the
 * century in 0x32 (the FADT's CENTURY).  The flags latch in C, but no
 * IRQ 8 is raised.  Its clock is the caller's: ticks of @hz per second.
 * Pure.
 */
#ifndef MHV_RTC_CMOS_H
#define MHV_RTC_CMOS_H

#include "lib/types.h"

#define RTC_INDEX_PORT 0x70
#define RTC_DATA_PORT 0x71
#define RTC_CENTURY 0x32 /* the CMOS byte the FADT's CENTURY names */
#define RTC_REG_A 0x0a
#define RTC_REG_B 0x0b
#define RTC_REG_C 0x0c
#define RTC_REG_D 0x0d

struct rtc_cmos {
	u8 index;
	bool nmi_masked; /* port 0x70 bit 7 as written */
	u8 ram[128];	 /* registers 0-0xd, then the CMOS RAM */
	u64 hz;		 /* the caller's clock */
	u64 second;	 /* tick at which the second now shown began */
	u64 seen;	 /* tick of the last access: the flags are for since */
};

/* A broken-down UTC time; year in full. */
struct rtc_time {
	u32 year;
	u8 month, day, hour, minute, second;
};

/* Days since 1970-01-01 and back (proleptic Gregorian); weekday 0 = Sunday. */
s64 rtc_days_from_date(u32 year, u32 month, u32 day);
void rtc_date_from_seconds(s64 seconds, struct rtc_time *t, u8 *weekday);

/* Power on: 24-hour BCD (the PC BIOS default), @unix_seconds at tick @now. */
void rtc_reset(struct rtc_cmos *r, u64 hz, s64 unix_seconds, u64 now);
u8 rtc_read(struct rtc_cmos *r, u16 port, u64 now);
void rtc_write(struct rtc_cmos *r, u16 port, u8 val, u64 now);

#endif
