// SPDX-License-Identifier: MIT
#include "config.h"
#include "lib/fmt.h"
#include "lib/guest_abi.h"
#include "arch/ports.h"
#include "arch/uart.h"

struct slice {
	const char *p;
	size_t len;
};

struct name_value {
	const char *name;
	u32 value;
};

struct parser {
	struct mhv_config *cfg;
	char *err;
	size_t err_size;
	unsigned int line;
};

struct config_key {
	const char *name;
	int (*parse)(struct parser *ps, const struct config_key *key, struct slice val);
	const char *desc;
	/* Numeric, choice, on/off and list keys: the field they set (a u32, an
	 * enum of u32's size, or a bool) */
	size_t field;
	u32 min, max;
	/* Choice and list keys: the names allowed (a list ORs their bits) */
	const struct name_value *names;
	size_t nr_names;
};

/* A new suite needs only a SUITE_* bit and one line here. */
static const struct name_value suite_names[] = {
	{ "smoke", SUITE_SMOKE },
	{ "vmexit", SUITE_VMEXIT },
	{ "xstate", SUITE_XSTATE },
	{ "pmu", SUITE_PMU },
	{ "hostile", SUITE_HOSTILE },
	{ "fuzz", SUITE_FUZZ },
	{ "none", 0 }, /* only the "guest =" kernels */
};

/* Bits by enum pmu_mode / HV_PMU_* value: lib/pmu_modes.h's rows. */
#define PMU_MODE_NAME_OF(id, word, guest_pmu, sw_switch) { word, CONFIG_PMU_##id },
static const struct name_value pmu_mode_names[] = { PMU_MODES(PMU_MODE_NAME_OF) };

/* "none" is the empty list: no emulated instruction is accounted. */
static const struct name_value pmu_account_names[] = {
	{ "insn", CONFIG_ACCOUNT_INSN },
	{ "branch", CONFIG_ACCOUNT_BRANCH },
	{ "none", 0 },
};

static const struct name_value exit_action_names[] = {
	{ "halt", EXIT_ACTION_HALT },
	{ "reboot", EXIT_ACTION_REBOOT },
	{ "qemu-exit", EXIT_ACTION_QEMU_EXIT },
};

static const struct name_value console_names[] = {
	{ "serial", CONSOLE_SERIAL },
	{ "fb", CONSOLE_FB },
	{ "both", CONSOLE_BOTH },
};

static const struct name_value apic_names[] = {
	{ "auto", HOST_APIC_AUTO },
	{ "x2apic", HOST_APIC_X2APIC },
};

static const struct name_value tsc_calibration_names[] = {
	{ "auto", TSC_CAL_AUTO },
	{ "hpet", TSC_CAL_HPET },
	{ "pm-timer", TSC_CAL_PM_TIMER },
};

static const struct name_value boost_names[] = {
	{ "off", BOOST_OFF },
	{ "on", BOOST_ON },
	{ "firmware", BOOST_FIRMWARE },
};

static const struct name_value mitigations_names[] = {
	{ "auto", MITIGATIONS_AUTO },
	{ "off", MITIGATIONS_OFF },
};

static const struct name_value on_off_names[] = {
	{ "on", 1 },
	{ "off", 0 },
};

void config_defaults(struct mhv_config *cfg)
{
	__builtin_memset(cfg, 0, sizeof(*cfg));
	cfg->suites = SUITE_SMOKE | SUITE_VMEXIT | SUITE_XSTATE | SUITE_PMU | SUITE_HOSTILE;
	cfg->iterations = 1000;
	cfg->batches = 20;
	cfg->warmup = 1000;
	cfg->exit_action = EXIT_ACTION_HALT;
	cfg->debugcon = false;
	cfg->xstate_cache = true;
	cfg->keep_log = true;
	cfg->boost = BOOST_OFF;
	cfg->pmu_modes = CONFIG_PMU_ALL;
	cfg->pmu_account = CONFIG_ACCOUNT_INSN | CONFIG_ACCOUNT_BRANCH;
	cfg->time_limit = 60;
	cfg->fuzz_exits = 2000;
	cfg->tsc_calibration = TSC_CAL_AUTO;
	cfg->apic = HOST_APIC_AUTO;
}

static __printf(2, 3) int parse_error(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!ps->err || !ps->err_size)
		return -1;
	n = fmt_snprintf(ps->err, ps->err_size, "mhv.cfg:%u: ", ps->line);
	if (n < 0 || (size_t)n >= ps->err_size)
		return -1;
	va_start(ap, fmt);
	fmt_vsnprintf(ps->err + n, ps->err_size - n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct slice trim(struct slice s)
{
	while (s.len && is_space(s.p[0])) {
		s.p++;
		s.len--;
	}
	while (s.len && is_space(s.p[s.len - 1]))
		s.len--;
	return s;
}

static bool slice_eq(struct slice s, const char *str)
{
	size_t n = __builtin_strlen(str);

	return s.len == n && !__builtin_memcmp(s.p, str, n);
}

/* Splits off the text before the next ',' (or all of it) and trims it. */
static struct slice next_item(struct slice *rest)
{
	struct slice item = { rest->p, 0 };

	while (item.len < rest->len && rest->p[item.len] != ',')
		item.len++;
	if (item.len < rest->len) {
		rest->p += item.len + 1;
		rest->len -= item.len + 1;
	} else {
		/* NULL rather than an empty slice, so "a," still yields a (bad) empty item. */
		rest->p = NULL;
		rest->len = 0;
	}
	return trim(item);
}

static bool lookup(const struct name_value *tab, size_t n, struct slice s, u32 *out)
{
	for (size_t i = 0; i < n; i++) {
		if (slice_eq(s, tab[i].name)) {
			*out = tab[i].value;
			return true;
		}
	}
	return false;
}

/* Renders "a, b or c" (or "a, b, c" without last_sep) for error messages. */
static void join_names(const struct name_value *tab, size_t n, const char *last_sep, char *buf,
		       size_t size)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && pos < size; i++) {
		const char *sep = i == 0 ? "" : (i == n - 1 && last_sep) ? last_sep : ", ";

		pos += fmt_snprintf(buf + pos, size - pos, "%s%s", sep, tab[i].name);
	}
}

static int bad_choice(struct parser *ps, const struct config_key *key, struct slice val,
		      const struct name_value *tab, size_t n)
{
	char names[96];

	join_names(tab, n, " or ", names, sizeof(names));
	return parse_error(ps, "bad value '%.*s' for '%s': expected %s", (int)val.len, val.p,
			   key->name, names);
}

/* A decimal number in [key->min, key->max] into *out. */
static int parse_u32(struct parser *ps, const struct config_key *key, struct slice val, u32 *out)
{
	u64 v = 0;

	for (size_t i = 0; i < val.len; i++) {
		char c = val.p[i];

		/* Bailing out as soon as v passes max keeps the u64 from overflowing. */
		if (c < '0' || c > '9' || (v = v * 10 + (c - '0')) > key->max)
			goto bad;
	}
	if (v < key->min)
		goto bad;
	*out = (u32)v;
	return 0;
bad:
	return parse_error(ps, "bad value '%.*s' for '%s': expected a number from %u to %u",
			   (int)val.len, val.p, key->name, key->min, key->max);
}

static int parse_number(struct parser *ps, const struct config_key *key, struct slice val)
{
	return parse_u32(ps, key, val, (u32 *)((char *)ps->cfg + key->field));
}

/* Choice keys: one of key->names, its value into the enum at key->field. */
_Static_assert(sizeof(enum exit_action) == sizeof(u32) &&
		   sizeof(enum console_mode) == sizeof(u32) &&
		   sizeof(enum tsc_calibration) == sizeof(u32) &&
		   sizeof(enum host_apic_mode) == sizeof(u32) &&
		   sizeof(enum config_mitigations) == sizeof(u32),
	       "choice keys store a u32");
static int parse_choice(struct parser *ps, const struct config_key *key, struct slice val)
{
	u32 v;

	if (!lookup(key->names, key->nr_names, val, &v))
		return bad_choice(ps, key, val, key->names, key->nr_names);
	*(u32 *)((char *)ps->cfg + key->field) = v;
	return 0;
}

/* on/off keys: the bool at key->field */
static int parse_on_off(struct parser *ps, const struct config_key *key, struct slice val)
{
	u32 v;

	if (!lookup(on_off_names, ARRAY_SIZE(on_off_names), val, &v))
		return bad_choice(ps, key, val, on_off_names, ARRAY_SIZE(on_off_names));
	*(bool *)((char *)ps->cfg + key->field) = v;
	return 0;
}

/* A comma-separated list of key->names: their bits ORed into the u32 field. */
static int parse_name_list(struct parser *ps, const struct config_key *key, struct slice val)
{
	struct slice rest = val;
	u32 bits = 0, bit;
	char names[96];

	while (rest.p) {
		struct slice item = next_item(&rest);

		if (!item.len)
			return parse_error(ps, "empty name in list for '%s'", key->name);
		if (!lookup(key->names, key->nr_names, item, &bit)) {
			join_names(key->names, key->nr_names, NULL, names, sizeof(names));
			return parse_error(ps, "unknown %s '%.*s' (known: %s)", key->desc,
					   (int)item.len, item.p, names);
		}
		bits |= bit;
	}
	*(u32 *)((char *)ps->cfg + key->field) = bits;
	return 0;
}

/* A CPU index 0..CPUSET_BITS-1 from all of s: true, or false when s is not one. */
static bool cpu_number(struct slice s, u32 *n)
{
	*n = 0;
	if (!s.len || s.len > 4)
		return false;
	for (size_t i = 0; i < s.len; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		*n = *n * 10 + (u32)(s.p[i] - '0');
	}
	return *n < CPUSET_BITS;
}

/* "all", or CPU indices as the run header numbers them (0 is the BSP),
 * and ranges of them: "cpus = 0, 2, 64-127". */
static int parse_cpus(struct parser *ps, const struct config_key *key, struct slice val)
{
	struct slice rest = val;
	struct cpuset set;

	cpuset_clear(&set);
	ps->cfg->cpus_all = slice_eq(val, "all");
	if (ps->cfg->cpus_all) {
		ps->cfg->cpus = set;
		return 0;
	}
	while (rest.p) {
		struct slice item = next_item(&rest), lo = item, hi = item;
		u32 first, last;

		for (size_t i = 0; i < item.len; i++)
			if (item.p[i] == '-') {
				lo.len = i;
				hi = (struct slice){ item.p + i + 1, item.len - i - 1 };
				break;
			}
		if (!cpu_number(lo, &first) || !cpu_number(hi, &last) || last < first)
			return parse_error(
			    ps,
			    "bad CPU '%.*s' for '%s': expected CPU numbers 0 to %u, ranges "
			    "of them (0-127) or all",
			    (int)item.len, item.p, key->name, CPUSET_BITS - 1);
		for (; first <= last; first++)
			cpuset_add(&set, first);
	}
	ps->cfg->cpus = set;
	return 0;
}

/* "0x" and hex digits, at most max, into *out. */
static bool parse_hex(struct slice s, u64 max, u64 *out)
{
	u64 v = 0;

	if (s.len < 3 || s.p[0] != '0' || (s.p[1] != 'x' && s.p[1] != 'X'))
		return false;
	for (size_t i = 2; i < s.len; i++) {
		char c = s.p[i];
		u32 d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		if (v > (max - d) / 16)
			return false;
		v = v * 16 + d;
	}
	*out = v;
	return true;
}

/* Decimal digits, 1 to max, into *out. */
static bool parse_dec(struct slice s, u32 max, u32 *out)
{
	u64 v = 0;

	if (!s.len)
		return false;
	for (size_t i = 0; i < s.len; i++) {
		if (s.p[i] < '0' || s.p[i] > '9' || (v = v * 10 + (s.p[i] - '0')) > max)
			return false;
	}
	if (!v)
		return false;
	*out = (u32)v;
	return true;
}

#define SERIAL_MAX_BAUD 4000000
/* 16 x the fastest baud rate a 16-bit divisor of 1 gives */
#define SERIAL_MAX_CLOCK (16u * SERIAL_MAX_BAUD)
/* x86 physical addresses have at most 52 bits (MAXPHYADDR) */
#define SERIAL_MAX_MMIO ((1ull << 52) - 1)
/* the UART's eight registers must fit in the 64 KiB I/O space */
#define SERIAL_MAX_PORT 0xfff8

/*
 * auto | none | PORT[,BAUD[,CLOCK]] | mmio:ADDR[,BAUD,CLOCK] |
 * mmio32:ADDR[,BAUD,CLOCK].  PORT is com1..com4 or a hex I/O port; BAUD
 * bits/s or "keep" (the firmware's divisor stays); CLOCK the UART's input
 * clock in Hz.  An I/O port defaults to 115200 from the PC's 1.8432 MHz;
 * a memory-mapped UART's clock has no such convention, so without both
 * BAUD and CLOCK its firmware's divisor stays.
 */
static int parse_serial(struct parser *ps, const struct config_key *key, struct slice val)
{
	static const char *const com_names[] = { "com1", "com2", "com3", "com4" };
	static const u16 com_bases[] = { COM1_PORT, COM2_PORT, COM3_PORT, COM4_PORT };
	struct serial_choice c = { .reg_width = 1 };
	struct slice rest = val, where = next_item(&rest), baud, clock;
	bool mmio32 = where.len > 7 && !__builtin_memcmp(where.p, "mmio32:", 7);
	bool mmio = mmio32 || (where.len > 5 && !__builtin_memcmp(where.p, "mmio:", 5));
	size_t i;

	if (!rest.p && (slice_eq(where, "auto") || slice_eq(where, "none"))) {
		ps->cfg->serial =
		    (struct serial_choice){ .how = slice_eq(where, "auto") ? SERIAL_AUTO
									   : SERIAL_NONE };
		return 0;
	}
	baud = rest.p ? next_item(&rest) : (struct slice){ NULL, 0 };
	clock = rest.p ? next_item(&rest) : (struct slice){ NULL, 0 };
	if (rest.p)
		return parse_error(
		    ps, "too many values for 'serial': expected at most PORT,BAUD,CLOCK");
	if (mmio) {
		c.how = SERIAL_MMIO;
		c.reg_width = mmio32 ? 4 : 1;
		where.p += mmio32 ? 7 : 5;
		where.len -= mmio32 ? 7 : 5;
		if (!parse_hex(where, SERIAL_MAX_MMIO, &c.base) || !c.base || c.base % c.reg_width)
			return parse_error(
			    ps,
			    "bad address '%.*s' for 'serial': expected a non-zero hex "
			    "physical address (0x...) below 2^52%s",
			    (int)where.len, where.p, mmio32 ? ", 4-byte aligned" : "");
	} else {
		c.how = SERIAL_PORT;
		c.baud = 115200;
		c.clock_hz = UART_PC_CLOCK_HZ;
		for (i = 0; i < ARRAY_SIZE(com_names); i++)
			if (slice_eq(where, com_names[i]))
				c.base = com_bases[i];
		if (!c.base && (!parse_hex(where, SERIAL_MAX_PORT, &c.base) || !c.base))
			return parse_error(
			    ps,
			    "bad value '%.*s' for 'serial': expected auto, none, com1 to "
			    "com4, an I/O port 0x1 to 0x%x, mmio:ADDR or mmio32:ADDR",
			    (int)where.len, where.p, SERIAL_MAX_PORT);
	}
	if (baud.p && slice_eq(baud, "keep")) {
		c.baud = c.clock_hz = 0;
		if (clock.p)
			return parse_error(ps, "'serial': a clock after 'keep' has no use");
	} else if (baud.p && !parse_dec(baud, SERIAL_MAX_BAUD, &c.baud)) {
		return parse_error(ps,
				   "bad baud rate '%.*s' for 'serial': expected 1 to %u or keep",
				   (int)baud.len, baud.p, SERIAL_MAX_BAUD);
	}
	if (clock.p && !parse_dec(clock, SERIAL_MAX_CLOCK, &c.clock_hz))
		return parse_error(ps, "bad clock '%.*s' for 'serial': expected 1 to %u Hz",
				   (int)clock.len, clock.p, SERIAL_MAX_CLOCK);
	if (mmio && c.baud && !c.clock_hz)
		return parse_error(
		    ps, "'serial': a memory-mapped UART's baud rate needs its clock: "
			"mmio:ADDR,BAUD,CLOCK_HZ (without BAUD the firmware's rate stays)");
	if (c.baud && !uart_divisor(c.clock_hz, c.baud))
		return parse_error(
		    ps,
		    "'serial': %u bits/s cannot be made from a %u Hz clock (no 16-bit "
		    "divisor within 2%%)",
		    c.baud, c.clock_hz);
	ps->cfg->serial = c;
	return 0;
}

static bool valid_test_name(struct slice s)
{
	if (!s.len || s.len >= CONFIG_NAME_LEN)
		return false;
	for (size_t i = 0; i < s.len; i++) {
		char c = s.p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

static int parse_tests(struct parser *ps, const struct config_key *key, struct slice val)
{
	struct mhv_config *cfg = ps->cfg;
	struct slice rest = val;

	cfg->nr_tests = 0;
	while (rest.p) {
		struct slice item = next_item(&rest);

		if (!item.len)
			return parse_error(ps, "empty name in list for '%s'", key->name);
		if (!valid_test_name(item))
			return parse_error(
			    ps,
			    "bad test name '%.*s' for '%s': expected 1 to %d characters "
			    "of a-z, 0-9, _ and -",
			    (int)item.len, item.p, key->name, CONFIG_NAME_LEN - 1);
		if (cfg->nr_tests == CONFIG_MAX_TESTS)
			return parse_error(ps, "too many names for '%s' (at most %d)", key->name,
					   CONFIG_MAX_TESTS);
		__builtin_memcpy(cfg->tests[cfg->nr_tests], item.p, item.len);
		cfg->tests[cfg->nr_tests][item.len] = '\0';
		cfg->nr_tests++;
	}
	return 0;
}

#define NUMBER_KEY(k, lo, hi, d)                                                        \
	{                                                                               \
		.name = #k, .parse = parse_number, .desc = d,                           \
		.field = __builtin_offsetof(struct mhv_config, k), .min = lo, .max = hi \
	}

static int parse_guest(struct parser *ps, const struct config_key *key, struct slice val);

/* desc names one item: "unknown suite 'x' (known: ...)" */
#define LIST_KEY(key, f, tab, d)                                                 \
	{                                                                        \
		.name = key, .parse = parse_name_list, .desc = d,                \
		.field = __builtin_offsetof(struct mhv_config, f), .names = tab, \
		.nr_names = ARRAY_SIZE(tab)                                      \
	}

#define CHOICE_KEY(f, tab, d)                                                    \
	{                                                                        \
		.name = #f, .parse = parse_choice, .desc = d,                    \
		.field = __builtin_offsetof(struct mhv_config, f), .names = tab, \
		.nr_names = ARRAY_SIZE(tab)                                      \
	}

static const struct config_key config_keys[] = {
	LIST_KEY("suites", suites, suite_names, "suite"),
	/* which PMU columns of the benchmark matrix run */
	LIST_KEY("pmu", pmu_modes, pmu_mode_names, "PMU mode"),
	/* events counted for each instruction mhv emulates */
	LIST_KEY("pmu_account", pmu_account, pmu_account_names, "accounting event"),
	NUMBER_KEY(iterations, 1, 10000000, "iterations per batch"),
	/* each batch one sample, all of them in one result (struct hc_bench_result) */
	NUMBER_KEY(batches, 1, HC_BENCH_MAX_SAMPLES, "batches per test"),
	NUMBER_KEY(warmup, 0, 10000000, "warm-up iterations before measuring"),
	NUMBER_KEY(time_limit, 1, 3600, "seconds a VM may run before it is stopped"),
	NUMBER_KEY(fb_pause, 0, 600, "seconds the screen waits before it scrolls"),
	/* the fuzz suite (docs/fuzz.md): 0 or absent, a seed from the TSC */
	NUMBER_KEY(fuzz_seed, 0, 0xffffffff, "the fuzz guest's seed"),
	NUMBER_KEY(fuzz_exits, 1, 100000000, "exits a fuzz VM causes before it stops"),
	CHOICE_KEY(exit_action, exit_action_names, "what to do when done"),
	CHOICE_KEY(console, console_names, "serial, framebuffer or both"),
	{ .name = "serial", .parse = parse_serial, .desc = "the serial port(s) of the console" },
	CHOICE_KEY(tsc_calibration, tsc_calibration_names, "where the TSC frequency comes from"),
	CHOICE_KEY(apic, apic_names, "the host's APIC mode"),
	{ .name = "debugcon",
	  .parse = parse_on_off,
	  .desc = "mirror console to port 0xE9",
	  .field = offsetof(struct mhv_config, debugcon) },
	{ .name = "xstate_cache",
	  .parse = parse_on_off,
	  .desc = "answer guest CPUID.0xD from the init-time cache",
	  .field = offsetof(struct mhv_config, xstate_cache) },
	CHOICE_KEY(boost, boost_names, "core boost: off, on, or as the firmware left it"),
	CHOICE_KEY(mitigations, mitigations_names,
		   "the exit path's duties: what the CPU needs, or none"),
	{ .name = "tests", .parse = parse_tests, .desc = "comma-separated test filter" },
	{ .name = "cpus", .parse = parse_cpus, .desc = "CPUs the suites run on" },
	{ .name = "cpus_at_once",
	  .parse = parse_on_off,
	  .desc = "the chosen CPUs run the suites together, not in turn",
	  .field = offsetof(struct mhv_config, cpus_at_once) },
	{ .name = "keep_log",
	  .parse = parse_on_off,
	  .desc = "keep the run's log in UEFI variables for the next boot to write to a file",
	  .field = offsetof(struct mhv_config, keep_log) },
	{ .name = "firmware_probe",
	  .parse = parse_on_off,
	  .desc = "a UEFI variable written from the BSP and an AP while each VM runs",
	  .field = offsetof(struct mhv_config, firmware_probe) },
	{ .name = "guest",
	  .parse = parse_guest,
	  .desc = "a multiboot kernel or Linux bzImage on the boot volume" },
};

/* ---- guest sections: "guest = PATH", then keys of that guest ---- */

static struct mhv_guest *cur_guest(struct parser *ps)
{
	return &ps->cfg->guests[ps->cfg->nr_guests - 1];
}

static int copy_path(struct parser *ps, const struct config_key *key, struct slice val, char *dst)
{
	size_t i;

	if (val.len >= CONFIG_PATH_LEN)
		return parse_error(ps, "path too long for '%s' (at most %d characters)", key->name,
				   CONFIG_PATH_LEN - 1);
	for (i = 0; i < val.len; i++)
		if (val.p[i] == '"' || (unsigned char)val.p[i] < 0x20)
			return parse_error(ps, "bad path '%.*s' for '%s'", (int)val.len, val.p,
					   key->name);
	__builtin_memcpy(dst, val.p, val.len);
	dst[val.len] = '\0';
	return 0;
}

static int parse_guest(struct parser *ps, const struct config_key *key, struct slice val)
{
	struct mhv_config *cfg = ps->cfg;

	if (cfg->nr_guests == CONFIG_MAX_GUESTS)
		return parse_error(ps, "too many guests (at most %d)", CONFIG_MAX_GUESTS);
	cfg->guests[cfg->nr_guests] =
	    (struct mhv_guest){ .vm = { .name = "guest",
					.description = "a kernel from the boot volume",
					.mem_mib = 64,
					.nr_vcpus = 1 } };
	cfg->nr_guests++;
	return copy_path(ps, key, val, cur_guest(ps)->path);
}

static int parse_cmdline(struct parser *ps, const struct config_key *key, struct slice val)
{
	/* "..." or a bare word list */
	if (val.len >= 2 && val.p[0] == '"' && val.p[val.len - 1] == '"') {
		val.p++;
		val.len -= 2;
	}
	__builtin_memcpy(cur_guest(ps)->cmdline, val.p, val.len);
	cur_guest(ps)->cmdline[val.len] = '\0';
	return 0;
}

static int parse_module(struct parser *ps, const struct config_key *key, struct slice val)
{
	struct mhv_guest *g = cur_guest(ps);
	bool initrd = key->name[0] == 'i';

	/* one file read for each guest (boot_info's module_files) */
	if (g->module[0] && g->initrd != initrd)
		return parse_error(
		    ps, "a guest takes 'module' (multiboot) or 'initrd' (Linux), not both");
	g->initrd = initrd;
	return copy_path(ps, key, val, g->module);
}

static int parse_guest_pmu(struct parser *ps, const struct config_key *key, struct slice val)
{
	u32 bit;

	if (!lookup(pmu_mode_names, ARRAY_SIZE(pmu_mode_names), val, &bit))
		return bad_choice(ps, key, val, pmu_mode_names, ARRAY_SIZE(pmu_mode_names));
	cur_guest(ps)->vm.pmu = (enum pmu_mode)__builtin_ctz(bit);
	return 0;
}

static struct mhv_guest *cur_guest(struct parser *ps);

static int parse_guest_number(struct parser *ps, const struct config_key *key, struct slice val)
{
	return parse_u32(ps, key, val, (u32 *)((char *)cur_guest(ps) + key->field));
}

/* A guest's on/off feature, default on: the bool at key->field says "off"
 * (struct vm_config's zero is the default VM). */
static int parse_guest_off(struct parser *ps, const struct config_key *key, struct slice val)
{
	u32 on;

	if (!lookup(on_off_names, ARRAY_SIZE(on_off_names), val, &on))
		return bad_choice(ps, key, val, on_off_names, ARRAY_SIZE(on_off_names));
	*(bool *)((char *)cur_guest(ps) + key->field) = !on;
	return 0;
}

#define GUEST_NUMBER_KEY(k, f, lo, hi, d)                                              \
	{                                                                              \
		.name = k, .parse = parse_guest_number, .desc = d,                     \
		.field = __builtin_offsetof(struct mhv_guest, f), .min = lo, .max = hi \
	}

/* Keys that follow a "guest =" line belong to that guest. */
static const struct config_key guest_keys[] = {
	{ .name = "cmdline", .parse = parse_cmdline, .desc = "the kernel's command line" },
	{ .name = "module", .parse = parse_module, .desc = "its first multiboot module" },
	{ .name = "initrd", .parse = parse_module, .desc = "a Linux kernel's initial RAM disk" },
	GUEST_NUMBER_KEY("mem", vm.mem_mib, 2, 3072, "guest RAM in MiB"),
	GUEST_NUMBER_KEY("time_limit", time_limit, 1, 3600, "seconds it may run"),
	{ .name = "pmu", .parse = parse_guest_pmu, .desc = "its PMU mode" },
	GUEST_NUMBER_KEY("cpus", vm.nr_vcpus, 1, 4, "its vCPUs, one physical CPU each"),
	{ .name = "x2apic",
	  .parse = parse_guest_off,
	  .desc = "its x2APIC (off: the guest's CPUID has none, its MSRs #GP)",
	  .field = offsetof(struct mhv_guest, vm.no_x2apic) },
};

static int parse_line(struct parser *ps, struct slice line)
{
	struct slice key, val;
	size_t eq;

	for (size_t i = 0; i < line.len; i++) {
		if (line.p[i] == '#') {
			line.len = i;
			break;
		}
	}
	line = trim(line);
	if (!line.len)
		return 0;

	for (eq = 0; eq < line.len && line.p[eq] != '='; eq++)
		;
	key = trim((struct slice){ line.p, eq });
	if (eq == line.len || !key.len)
		return parse_error(ps, "expected 'key = value'");
	val = trim((struct slice){ line.p + eq + 1, line.len - eq - 1 });

	for (size_t i = 0; ps->cfg->nr_guests && i < ARRAY_SIZE(guest_keys); i++) {
		const struct config_key *k = &guest_keys[i];

		if (!slice_eq(key, k->name))
			continue;
		if (!val.len)
			return parse_error(ps, "empty value for '%s'", k->name);
		return k->parse(ps, k, val);
	}
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct config_key *k = &config_keys[i];

		if (!slice_eq(key, k->name))
			continue;
		if (!val.len)
			return parse_error(ps, "empty value for '%s'", k->name);
		return k->parse(ps, k, val);
	}
	return parse_error(ps, "unknown key '%.*s'", (int)key.len, key.p);
}

int config_parse(struct mhv_config *cfg, const char *text, size_t len, char *err, size_t err_size)
{
	struct parser ps = { .cfg = cfg, .err = err, .err_size = err_size };
	size_t pos = 0;

	if (err && err_size)
		err[0] = '\0';
	while (pos < len) {
		struct slice line = { text + pos, 0 };

		ps.line++;
		/* Checked before anything else: a NUL would silently cut C strings later. */
		while (pos + line.len < len && line.p[line.len] != '\n') {
			if (line.p[line.len] == '\0')
				return parse_error(&ps, "NUL byte in file");
			line.len++;
		}
		pos += line.len + 1;
		if (line.len && line.p[line.len - 1] == '\r')
			line.len--;
		if (line.len > CONFIG_LINE_MAX)
			return parse_error(&ps, "line too long (over %d characters)",
					   CONFIG_LINE_MAX);
		if (parse_line(&ps, line))
			return -1;
	}
	return 0;
}

bool config_test_wanted(const struct mhv_config *cfg, const char *name)
{
	size_t n;

	if (!cfg->nr_tests)
		return true;
	if (!name)
		return false;
	n = __builtin_strlen(name);
	if (n >= CONFIG_NAME_LEN)
		return false;
	/* Comparing the terminator too rules out prefix matches. */
	for (u32 i = 0; i < cfg->nr_tests && i < CONFIG_MAX_TESTS; i++) {
		if (!__builtin_memcmp(cfg->tests[i], name, n + 1))
			return true;
	}
	return false;
}
