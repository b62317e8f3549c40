// SPDX-License-Identifier: MIT
/* The MC146818A CMOS clock (see rtc_cmos.h). */
#include "rtc_cmos.h"

/* Time and alarm registers (MC146818A "Address Map") */
#define REG_SECONDS 0
#define REG_SECONDS_ALARM 1
#define REG_MINUTES 2
#define REG_HOURS 4
#define REG_WEEKDAY 6 /* 1-7, Sunday 1 */
#define REG_DAY 7
#define REG_MONTH 8
#define REG_YEAR 9
#define ALARM_DONT_CARE 0xc0 /* both high bits: any value matches */
#define HOUR_PM BIT(7)	     /* 12-hour mode */

#define INDEX_NMI_MASK BIT(7) /* port 0x70 */
#define INDEX_MASK 0x7f
#define A_UIP BIT(7)
#define A_DV_SHIFT 4
#define A_DV_RESET 6 /* 11x: the divider chain held in reset, no updates */
#define A_RS_MASK 0x0f
#define A_POWER_ON 0x26 /* 32.768 kHz time base, 1024 Hz periodic rate */
#define B_SET BIT(7)
#define B_UIE BIT(4)
#define B_DM_BINARY BIT(2)
#define B_24H BIT(1)
#define B_POWER_ON B_24H
#define C_IRQF BIT(7)
#define C_PF BIT(6)
#define C_AF BIT(5)
#define C_UF BIT(4)
#define C_FLAGS (C_PF | C_AF | C_UF) /* each under its enable, the same bit of B */
#define D_VRT BIT(7)
#define UIP_US 244 /* UIP is set this long before the update */

#define SECONDS_PER_DAY 86400

s64 rtc_days_from_date(u32 year, u32 month, u32 day)
{
	/* March-based years put the leap day last (H. Hinnant's method) */
	s64 y = (s64)year - (month <= 2);
	s64 era = (y >= 0 ? y : y - 399) / 400;
	s64 yoe = y - era * 400;
	s64 doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	s64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

void rtc_date_from_seconds(s64 seconds, struct rtc_time *t, u8 *weekday)
{
	s64 days, z, era, doe, yoe, doy, mp, sod;

	if (seconds < 0)
		seconds = 0; /* before 1970 is not a time a guest is given */
	days = seconds / SECONDS_PER_DAY;
	sod = seconds % SECONDS_PER_DAY;
	z = days + 719468;
	era = z / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	t->day = (u8)(doy - (153 * mp + 2) / 5 + 1);
	t->month = (u8)(mp < 10 ? mp + 3 : mp - 9);
	t->year = (u32)(yoe + era * 400 + (t->month <= 2));
	t->hour = (u8)(sod / 3600);
	t->minute = (u8)(sod / 60 % 60);
	t->second = (u8)(sod % 60);
	*weekday = (u8)((days + 4) % 7); /* 1970-01-01 was a Thursday */
}

/* A register's byte in register B's format: BCD unless DM says binary. */
static u8 encode(const struct rtc_cmos *r, u32 v)
{
	return r->ram[RTC_REG_B] & B_DM_BINARY ? (u8)v : (u8)((v / 10) << 4 | v % 10);
}

static u32 rtc_decode(const struct rtc_cmos *r, u8 v)
{
	return r->ram[RTC_REG_B] & B_DM_BINARY ? v : (u32)(v >> 4) * 10 + (v & 0xf);
}

static u8 encode_hour(const struct rtc_cmos *r, u32 h)
{
	if (r->ram[RTC_REG_B] & B_24H)
		return encode(r, h);
	return (u8)(encode(r, h % 12 ? h % 12 : 12) | (h >= 12 ? HOUR_PM : 0));
}

static u32 decode_hour(const struct rtc_cmos *r, u8 v)
{
	u32 h;

	if (r->ram[RTC_REG_B] & B_24H)
		return rtc_decode(r, v);
	h = rtc_decode(r, v & ~HOUR_PM) % 12;
	return v & HOUR_PM ? h + 12 : h;
}

static void store(struct rtc_cmos *r, s64 seconds)
{
	struct rtc_time t;
	u8 wday;

	rtc_date_from_seconds(seconds, &t, &wday);
	r->ram[REG_SECONDS] = encode(r, t.second);
	r->ram[REG_MINUTES] = encode(r, t.minute);
	r->ram[REG_HOURS] = encode_hour(r, t.hour);
	r->ram[REG_WEEKDAY] = encode(r, wday + 1u);
	r->ram[REG_DAY] = encode(r, t.day);
	r->ram[REG_MONTH] = encode(r, t.month);
	r->ram[REG_YEAR] = encode(r, t.year % 100);
	r->ram[RTC_CENTURY] = encode(r, t.year / 100);
}

/* What the registers say, as the guest may have written them. */
static s64 rtc_load_time(const struct rtc_cmos *r)
{
	u32 year = rtc_decode(r, r->ram[RTC_CENTURY]) * 100 + rtc_decode(r, r->ram[REG_YEAR]);
	u32 month = rtc_decode(r, r->ram[REG_MONTH]), day = rtc_decode(r, r->ram[REG_DAY]);

	return rtc_days_from_date(year, month, day) * SECONDS_PER_DAY +
	       decode_hour(r, r->ram[REG_HOURS]) * 3600 + rtc_decode(r, r->ram[REG_MINUTES]) * 60 +
	       rtc_decode(r, r->ram[REG_SECONDS]);
}

static bool running(const struct rtc_cmos *r)
{
	return !(r->ram[RTC_REG_B] & B_SET) &&
	       ((r->ram[RTC_REG_A] >> A_DV_SHIFT) & A_DV_RESET) != A_DV_RESET;
}

/* The alarm bytes against the time, each a match or a don't-care. */
static bool alarm_matches(const struct rtc_cmos *r)
{
	unsigned i;

	for (i = REG_SECONDS; i <= REG_HOURS; i += 2) {
		u8 alarm = r->ram[i + 1];

		if ((alarm & ALARM_DONT_CARE) != ALARM_DONT_CARE && alarm != r->ram[i])
			return false;
	}
	return true;
}

/* Periodic interrupt rate from RS3-0 with the 32.768 kHz base; 0: none. */
static u64 periodic_hz(const struct rtc_cmos *r)
{
	u32 rs = r->ram[RTC_REG_A] & A_RS_MASK;

	if (!rs)
		return 0;
	return rs <= 2 ? 256u >> (rs - 1) : 32768u >> (rs - 1);
}

/*
 * Bring the clock to @now: the seconds that passed are the updates that
 * happened (none while SET or the divider reset holds them; the divider
 * keeps its phase).  UF latches for an update, AF when the time after it
 * matches the alarm (a match within seconds skipped between two accesses
 * is seen only for the last), PF for each periodic interval's end.
 */
static void advance(struct rtc_cmos *r, u64 now)
{
	u64 n = (now - r->second) / r->hz, per;

	if (n) {
		r->second += n * r->hz;
		if (running(r)) {
			store(r, rtc_load_time(r) + (s64)n);
			r->ram[RTC_REG_C] |= C_UF;
			if (alarm_matches(r))
				r->ram[RTC_REG_C] |= C_AF;
		}
	}
	per = periodic_hz(r) ? r->hz / periodic_hz(r) : 0;
	if (per && now / per != r->seen / per)
		r->ram[RTC_REG_C] |= C_PF;
	r->seen = now;
}

void rtc_reset(struct rtc_cmos *r, u64 hz, s64 unix_seconds, u64 now)
{
	__builtin_memset(r, 0, sizeof(*r));
	r->hz = hz ? hz : 1;
	r->second = r->seen = now;
	r->ram[RTC_REG_A] = A_POWER_ON;
	r->ram[RTC_REG_B] = B_POWER_ON;
	r->ram[RTC_REG_D] = D_VRT;
	store(r, unix_seconds);
}

static u8 rtc_data_read(struct rtc_cmos *r, u64 now)
{
	u8 v = r->ram[r->index];

	switch (r->index) {
	case RTC_REG_A:
		if (running(r) && now - r->second >= r->hz - r->hz * UIP_US / 1000000)
			v |= A_UIP;
		return v;
	case RTC_REG_C:
		if (v & r->ram[RTC_REG_B] & C_FLAGS)
			v |= C_IRQF;
		r->ram[RTC_REG_C] = 0; /* read-to-clear */
		return v;
	}
	return v;
}

static void rtc_data_write(struct rtc_cmos *r, u8 val)
{
	switch (r->index) {
	case RTC_REG_A:
		r->ram[RTC_REG_A] = val & ~A_UIP;
		return;
	case RTC_REG_B:
		if (val & B_SET) /* SET going high clears UIE */
			val &= ~B_UIE;
		r->ram[RTC_REG_B] = val;
		return;
	case RTC_REG_C:
	case RTC_REG_D:
		return; /* read-only */
	}
	r->ram[r->index] = val;
}

u8 rtc_read(struct rtc_cmos *r, u16 port, u64 now)
{
	if (port != RTC_DATA_PORT)
		return 0xff; /* the index register is write-only */
	advance(r, now);
	return rtc_data_read(r, now);
}

void rtc_write(struct rtc_cmos *r, u16 port, u8 val, u64 now)
{
	if (port == RTC_INDEX_PORT) {
		r->index = val & INDEX_MASK;
		r->nmi_masked = val & INDEX_NMI_MASK;
		return;
	}
	if (port != RTC_DATA_PORT)
		return;
	advance(r, now);
	rtc_data_write(r, val);
}
