// SPDX-License-Identifier: MIT
/*
 * Benchmark output: a table for people, and one JSON line per measurement
 * (after a fixed prefix) for scripts/mhv-report.
 */
#include "report.h"
#include "lib/fmt.h"
#include "platform/aperf.h"

#ifndef HOST_TEST
#include "core/backend.h"
#include "host/page_alloc.h"
#include "platform/console.h"
#include "platform/machine.h"
#include "platform/tsc.h"
#endif

#define TABLE_HEADER                                                                           \
	"test                              min     median        p99       mean     stddev   " \
	"median "                                                                              \
	"ns      MHz  cycles"

int report_format_gain(char *buf, size_t size, u64 base, u64 new_value)
{
	s64 tenths;

	if (!base)
		return fmt_snprintf(buf, size, "n/a");
	/* per mille, rounded half away from zero, in integers */
	tenths = ((s64)base - (s64)new_value) * 2000 / (s64)base;
	tenths = tenths >= 0 ? (tenths + 1) / 2 : (tenths - 1) / 2;
	return fmt_snprintf(buf, size, "%c%lld.%lld%%", tenths < 0 ? '-' : '+',
			    (tenths < 0 ? -tenths : tenths) / 10,
			    (tenths < 0 ? -tenths : tenths) % 10);
}

int report_format_ns(char *buf, size_t size, u64 ticks, u64 hz)
{
	u64 tenths;

	if (!hz)
		return fmt_snprintf(buf, size, "-");
	tenths = stats_muldiv(ticks, 10000000000ull, hz);
	return fmt_snprintf(buf, size, "%llu.%llu", tenths / 10, tenths % 10);
}

int report_format_clock(char *buf, size_t size, const struct bench_row *row, u64 tsc_hz)
{
	const struct bench_clock *c = &row->clock;
	u64 khz = aperf_effective_khz(tsc_hz, c->d_aperf, c->d_mperf);

	int n;

	if (!khz)
		n = fmt_snprintf(buf, size, "  %7s %7s", "-", "-");
	else
		n = fmt_snprintf(buf, size, "  %7llu %7llu", khz / 1000,
				 aperf_cycles(row->st.median, c->d_aperf, c->d_mperf));
	/* a row an SMI fell into: its samples may hold the SMM handler's time */
	if (c->smis && (size_t)n < size)
		n += fmt_snprintf(buf + n, size - n, "  SMIs: %llu", c->smis);
	return n;
}

int report_format_row(char *buf, size_t size, const struct bench_row *row)
{
	const struct sample_stats *s = &row->st;

	if (row->skip_reason[0])
		return fmt_snprintf(buf, size, "%-28s (skipped: %s)", row->name, row->skip_reason);
	return fmt_snprintf(buf, size, "%-28s %9llu  %9llu  %9llu  %9llu  %9llu", row->name,
			    (unsigned long long)s->min, (unsigned long long)s->median,
			    (unsigned long long)s->p99, (unsigned long long)s->mean,
			    (unsigned long long)s->stddev);
}

/*
 * @s as the inside of a JSON string (RFC 8259 §7): quote and backslash
 * escaped, and every byte outside printable ASCII as \u00XX, so that the
 * line stays one line whatever a guest named its benchmark.  Cut at a
 * whole escape when @dst is full.
 */
const char *json_escape(char *dst, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t used = 0, n;
	char e[6];

	for (; *s; s++) {
		u8 c = (u8)*s;

		if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			n = 2;
		} else if (c < 0x20 || c > 0x7e) {
			__builtin_memcpy(e, "\\u00", 4);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			n = 6;
		} else {
			e[0] = (char)c;
			n = 1;
		}
		if (used + n >= size)
			break;
		__builtin_memcpy(dst + used, e, n);
		used += n;
	}
	dst[used] = 0;
	return dst;
}

int report_format_json(char *buf, size_t size, const struct bench_row *row, const char *env,
		       const char *backend_name, u64 tsc_hz)
{
	const struct sample_stats *s = &row->st;
	u64 khz = aperf_effective_khz(tsc_hz, row->clock.d_aperf, row->clock.d_mperf);
	size_t used;
	char suite[JSON_ESCAPED(sizeof(row->suite))], name[JSON_ESCAPED(sizeof(row->name))];
	char column[JSON_ESCAPED(sizeof(row->column))], tag[JSON_ESCAPED(sizeof(row->cpu_tag))];
	char env_e[JSON_ESCAPED(16)], backend_e[JSON_ESCAPED(16)];
	char skipped[JSON_ESCAPED(sizeof(row->skip_reason))];

	json_escape(suite, sizeof(suite), row->suite);
	json_escape(name, sizeof(name), row->name);
	json_escape(column, sizeof(column), row->column);
	json_escape(tag, sizeof(tag), row->cpu_tag);
	json_escape(env_e, sizeof(env_e), env);
	json_escape(backend_e, sizeof(backend_e), backend_name);
	if (row->skip_reason[0])
		return fmt_snprintf(buf, size,
				    REPORT_JSON_PREFIX "{\"suite\":\"%s\",\"test\":\"%s\","
						       "\"config\":\"%s%s\",\"env\":\"%s\","
						       "\"backend\":\"%s\",\"skipped\":\"%s\"}",
				    suite, name, column, tag, env_e, backend_e,
				    json_escape(skipped, sizeof(skipped), row->skip_reason));
	used = fmt_snprintf(
	    buf, size,
	    REPORT_JSON_PREFIX "{\"suite\":\"%s\",\"test\":\"%s\",\"config\":\"%s%s\","
			       "\"env\":\"%s\",\"backend\":\"%s\",\"unit\":\"tsc\","
			       "\"iterations\":%u,\"batches\":%u,\"min\":%llu,"
			       "\"median\":%llu,\"p99\":%llu,\"mean\":%llu,"
			       "\"stddev\":%llu,\"max\":%llu",
	    suite, name, column, tag, env_e, backend_e, row->iterations, row->batches,
	    (unsigned long long)s->min, (unsigned long long)s->median, (unsigned long long)s->p99,
	    (unsigned long long)s->mean, (unsigned long long)s->stddev, (unsigned long long)s->max);
	/* the core's clock, where APERF/MPERF measured it */
	if (khz && used < size)
		used += fmt_snprintf(
		    buf + used, size - used, ",\"mhz\":%llu,\"cycles_median\":%llu", khz / 1000,
		    aperf_cycles(s->median, row->clock.d_aperf, row->clock.d_mperf));
	if (row->clock.smis_known && used < size)
		used += fmt_snprintf(buf + used, size - used, ",\"smis\":%llu", row->clock.smis);
	if (used < size)
		used += report_format_classes(buf + used, size - used, &row->clock.classes, true);
	if (used < size)
		used += fmt_snprintf(buf + used, size - used, "}");
	return used;
}

#ifndef HOST_TEST
static unsigned collect_columns(const struct run_results *r, const char *cols[NR_VM_CONFIGS])
{
	unsigned n = 0, i, j;

	for (i = 0; i < r->nr_bench; i++) {
		for (j = 0; j < n && __builtin_strcmp(cols[j], r->bench[i].column); j++)
			;
		if (j == n && n < NR_VM_CONFIGS)
			cols[n++] = r->bench[i].column;
	}
	return n;
}

static const struct bench_row *find_row(const struct run_results *r, const char *name,
					const char *column)
{
	u32 i;

	for (i = 0; i < r->nr_bench; i++)
		if (!__builtin_strcmp(r->bench[i].name, name) &&
		    !__builtin_strcmp(r->bench[i].column, column))
			return &r->bench[i];
	return NULL;
}

/*
 * The comparisons the seed posts make, as gain columns: each is printed
 * when both of its columns ran.  gain = (base - new) / base.
 */
static const struct gain_pair {
	const char *label, *base, *new;
} gain_pairs[] = {
	{ "xstate-cache", "xstate-nocache", "default" },
	{ "elide", "pmu-sw-noelide", "pmu-sw" },
	{ "lazy", "pmu-sw", "pmu-sw-lazy" },
	{ "hw", "pmu-sw", "pmu-hw" },
	{ "pmu-cost", "pmu-sw", "default" },
	{ "no-acct", "sw+insn", "sw+insn-noacct" },
	/* the duties' cost, whichever side the config picked: negative */
	{ "mitigations", "mitigations-off", "default" },
	{ "mitigations", "default", "mitigations-auto" },
};

static bool have_column(const char *cols[], unsigned n, const char *name)
{
	unsigned c;

	for (c = 0; c < n; c++)
		if (!__builtin_strcmp(cols[c], name))
			return true;
	return false;
}

static u32 format_cell(char *buf, size_t size, const struct bench_row *row)
{
	if (!row || row->skip_reason[0])
		return fmt_snprintf(buf, size, " %14s", "-");
	return fmt_snprintf(buf, size, " %14llu", row->st.median);
}

/* With several VM configurations: medians side by side, then the gains. */
static void print_comparison(const struct run_results *r, const char *cols[], unsigned n)
{
	const struct gain_pair *pairs[ARRAY_SIZE(gain_pairs)];
	char line[480], cell[32];
	unsigned c, np = 0;
	size_t used;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(gain_pairs); i++)
		if (have_column(cols, n, gain_pairs[i].base) &&
		    have_column(cols, n, gain_pairs[i].new))
			pairs[np++] = &gain_pairs[i];
	used = fmt_snprintf(line, sizeof(line), "%-28s", "test");
	for (c = 0; c < n; c++)
		used += fmt_snprintf(line + used, sizeof(line) - used, " %14s", cols[c]);
	for (c = 0; c < np; c++)
		used += fmt_snprintf(line + used, sizeof(line) - used, " %12s", pairs[c]->label);
	console_printf("mhv: %s\n", line);
	for (i = 0; i < r->nr_bench; i++) {
		if (__builtin_strcmp(r->bench[i].column, cols[0]))
			continue;
		used = fmt_snprintf(line, sizeof(line), "%-28s", r->bench[i].name);
		for (c = 0; c < n; c++)
			used += format_cell(line + used, sizeof(line) - used,
					    find_row(r, r->bench[i].name, cols[c]));
		for (c = 0; c < np; c++) {
			const struct bench_row *base =
			    find_row(r, r->bench[i].name, pairs[c]->base);
			const struct bench_row *new = find_row(r, r->bench[i].name, pairs[c]->new);

			if (base && new && !base->skip_reason[0] && !new->skip_reason[0])
				report_format_gain(cell, sizeof(cell), base->st.median,
						   new->st.median);
			else
				fmt_snprintf(cell, sizeof(cell), "-");
			used += fmt_snprintf(line + used, sizeof(line) - used, " %12s", cell);
		}
		console_printf("mhv: %s\n", line);
	}
	for (c = 0; c < np; c++)
		console_printf("mhv: gain %s = (%s - %s) / %s\n", pairs[c]->label, pairs[c]->base,
			       pairs[c]->new, pairs[c]->base);
}

/* ---- the medians the screen shows last (report_screen_summary) ---- */

#define SCREEN_MAX_ROWS 256

struct kept_median {
	char name[24], column[24];
	u64 median;
};

/* as many as the plan has rows (report_keep_room) */
static struct kept_median *kept;
static unsigned nr_kept, max_kept;
static char kept_tag[8];
static bool kept_taken;

bool report_keep_room(u32 rows)
{
	max_kept = 0;
	kept = rows ? alloc_pages_zeroed((rows * sizeof(*kept) + PAGE_SIZE - 1) / PAGE_SIZE) : NULL;
	if (rows && !kept)
		return false;
	max_kept = rows;
	return true;
}

/* The first CPU's tables: what the screen repeats at the end. */
static void keep_medians(const struct run_results *r)
{
	u32 i;

	if (kept_taken)
		return;
	kept_taken = true;
	fmt_snprintf(kept_tag, sizeof(kept_tag), "%s", r->cpu_tag);
	for (i = 0; i < r->nr_bench && nr_kept < max_kept; i++) {
		if (r->bench[i].skip_reason[0])
			continue;
		fmt_snprintf(kept[nr_kept].name, sizeof(kept[0].name), "%s", r->bench[i].name);
		fmt_snprintf(kept[nr_kept].column, sizeof(kept[0].column), "%s",
			     r->bench[i].column);
		kept[nr_kept++].median = r->bench[i].st.median;
	}
}

static unsigned index_of(const char *const list[], unsigned n, const char *s)
{
	unsigned i;

	for (i = 0; i < n && __builtin_strcmp(list[i], s); i++)
		;
	return i;
}

void report_run_smis(const struct aperf_sample *start, u64 guest_smis)
{
	struct aperf_sample now;

	aperf_sample(&now);
	if (now.has_smis && start->has_smis && now.cpu == start->cpu)
		console_printf("mhv: SMIs: %llu during the run (MSR_SMI_COUNT of cpu %u)\n",
			       now.smis - start->smis, now.cpu);
	else
		console_printf("mhv: SMIs: not counted over the run: %s\n", smi_count_missing());
	console_printf("mhv: SMIs: %llu made a guest exit (SVM intercepts them; under VMX they "
		       "are taken inside the guest's time)\n",
		       guest_smis);
}

void report_screen_summary(void)
{
	/* no screen is taller: past it, names are only counted */
	const char *cols[NR_VM_CONFIGS], *names[SCREEN_MAX_ROWS];
	unsigned nc = 0, nn = 0, more = 0, fit, i, j, k;
	u32 width, height;
	bool was;

	if (!nr_kept || !console_screen_size(&width, &height) || width < 40 || height < 8)
		return;
	for (i = 0; i < nr_kept; i++) {
		if (index_of(cols, nc, kept[i].column) == nc && nc < NR_VM_CONFIGS)
			cols[nc++] = kept[i].column;
		if (index_of(names, nn, kept[i].name) < nn)
			continue;
		if (nn < SCREEN_MAX_ROWS)
			names[nn++] = kept[i].name;
		else
			more = 1;
	}
	fit = (width - 23) / 11;
	nc = nc < fit ? nc : fit;
	was = console_screen_only(true);
	console_printf("mhv: medians%s in TSC ticks (all of it: serial, the kept log)\n", kept_tag);
	console_printf("%-22s", "test");
	for (j = 0; j < nc; j++)
		console_printf(" %10.10s", cols[j]);
	console_printf("\n");
	for (i = 0; i < nn && i < height - 6; i++) {
		console_printf("%-22.22s", names[i]);
		for (j = 0; j < nc; j++) {
			for (k = 0; k < nr_kept && (__builtin_strcmp(kept[k].name, names[i]) ||
						    __builtin_strcmp(kept[k].column, cols[j]));
			     k++)
				;
			if (k < nr_kept)
				console_printf(" %10llu", kept[k].median);
			else
				console_printf(" %10s", "-");
		}
		console_printf("\n");
	}
	if (i < nn || more)
		console_printf("(%s%u more rows)\n", more ? "over " : "", nn - i);
	console_screen_only(was);
}

void report_bench_tables(const struct run_results *r)
{
	/* one CPU prints its tables at a time; too big for an AP's stack */
	static char json[REPORT_JSON_MAX];
	const struct mhv_config *cfg = r->cfg;
	const char *cols[NR_VM_CONFIGS];
	char line[480], ns[24];
	unsigned n, c;
	bool held;
	u32 i;

	if (!r->nr_bench)
		return;
	keep_medians(r);
	n = collect_columns(r, cols);
	for (c = 0; c < n; c++) {
		console_printf(
		    "mhv: ---- %s: TSC ticks per iteration; env %s; backend %s; VM "
		    "configuration %s; %u iterations x %u batches after %u warm-up ----\n",
		    r->bench[0].suite, platform_env(), backend->name, cols[c], cfg->iterations,
		    cfg->batches, cfg->warmup);
		console_printf("mhv: %s\n", TABLE_HEADER);
		for (i = 0; i < r->nr_bench; i++) {
			const struct bench_row *row = &r->bench[i];
			size_t used;

			if (__builtin_strcmp(row->column, cols[c]))
				continue;
			used = report_format_row(line, sizeof(line), row);
			if (!row->skip_reason[0]) {
				report_format_ns(ns, sizeof(ns), row->st.median, host_tsc.hz);
				used +=
				    fmt_snprintf(line + used, sizeof(line) - used, "  %10s", ns);
				used += report_format_clock(line + used, sizeof(line) - used, row,
							    host_tsc.hz);
				if (used < sizeof(line))
					report_format_classes(line + used, sizeof(line) - used,
							      &row->clock.classes, false);
			}
			console_printf("mhv: %s\n", line);
		}
	}
	console_printf("mhv: (loop_overhead is the empty timed loop: included in, not subtracted "
		       "from, every other row; ns from the TSC at %llu Hz, %s)\n",
		       host_tsc.hz, host_tsc.source);
	console_printf("mhv: (MHz: the core's clock over each benchmark, the TSC's rate x "
		       "dAPERF/dMPERF; cycles: the median in core cycles%s%s; \"SMIs: N\" marks a "
		       "row SMIs fell into%s%s)\n",
		       aperf_missing() ? "; here none: " : "",
		       aperf_missing() ? aperf_missing() : "",
		       smi_count_missing() ? ", here uncounted: " : "",
		       smi_count_missing() ? smi_count_missing() : "");
	for (i = 0; i < r->nr_refused; i++)
		console_printf("mhv: column %s could not run here: %s\n", r->refused[i].column,
			       r->refused[i].why);
	if (n > 1)
		print_comparison(r, cols, n);
	/* for programs: serial, port 0xE9 and the kept log, not the screen */
	held = console_screen_hold(true);
	for (i = 0; i < r->nr_bench; i++) {
		report_format_json(json, sizeof(json), &r->bench[i], platform_env(), backend->name,
				   host_tsc.hz);
		console_printf("%s\n", json);
	}
	console_screen_hold(held);
}
#endif
