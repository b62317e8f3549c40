/* SPDX-License-Identifier: MIT */
#ifndef MHV_REPORT_H
#define MHV_REPORT_H

#include "results.h"
#include "platform/aperf.h"

/*
 * The machine-read lines: this prefix at the start of a line, then one
 * JSON object.  No guest can print one: a guest's console lines start
 * "[its name] ", and guest text inside mhv's lines is printable ASCII
 * (core/vm_harness.h) and JSON-escaped, so it cannot start a line.
 */
#define REPORT_JSON_PREFIX "MHV-JSON "
/* Room for any such line, every string of the row escaped at worst. */
#define REPORT_JSON_MAX 1600

/* @s as the inside of a JSON string in @dst (every byte outside printable
 * ASCII escaped, cut at a whole escape); returns @dst.  Also the KVM
 * side's labels (scripts/kvm/). */
const char *json_escape(char *dst, size_t size, const char *s);
/* Room for a string of @n bytes escaped, each byte at worst \u00XX. */
#define JSON_ESCAPED(n) (6 * (n) + 1)
/* One human-readable row of the benchmark table into buf. */
int report_format_row(char *buf, size_t size, const struct bench_row *row);
/* One machine-readable line: REPORT_JSON_PREFIX then a JSON object; with
 * "mhz" and "cycles_median" where the row's clock is known (@tsc_hz
 * and APERF/MPERF). */
int report_format_json(char *buf, size_t size, const struct bench_row *row, const char *env,
		       const char *backend_name, u64 tsc_hz);
/* The run's SMIs: MSR_SMI_COUNT on the BSP since @start where it counts
 * them, and the SMI exits of every VM. */
void report_run_smis(const struct aperf_sample *start, u64 guest_smis);
/* At the end of the run, on the screen alone: the first CPU's medians,
 * test x column, cut to the screen's width and height (the tables it
 * showed have scrolled away; serial and the kept log have everything). */
void report_screen_summary(void);
/* Room for the screen summary's medians of a plan of @rows benchmark
 * rows; false when there is no memory for it. */
bool report_keep_room(u32 rows);
/* The row's costly instructions per iteration where an emulator counts
 * them, else nothing: "  per iteration: wrmsr_pmu 2 rdpmc 1" (only the
 * classes that occur; " none" when none does), or with @json
 * ,"classes":{"cpuid":0,...} (every class). */
int report_format_classes(char *buf, size_t size, const struct insn_class_rate *r, bool json);
/* The MHz and cycles columns of a row ("-" where unknown). */
int report_format_clock(char *buf, size_t size, const struct bench_row *row, u64 tsc_hz);
/* "+44.6%": how much lower new is than base (the seed tables' gain column). */
int report_format_gain(char *buf, size_t size, u64 base, u64 new_value);
/* Nanoseconds with one decimal for TSC ticks at hz ("123.4"), "-" when hz is 0. */
int report_format_ns(char *buf, size_t size, u64 ticks, u64 hz);
/* The benchmark tables and JSON lines of a run, on the console. */
void report_bench_tables(const struct run_results *r);

#endif
