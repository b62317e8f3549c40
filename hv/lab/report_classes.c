// SPDX-License-Identifier: MIT
/*
 * A benchmark row's costly instructions per iteration (platform/insn_class.h)
 * in the table and in MHV-JSON.  Hundredths: an exit path's count is a whole
 * number, and the two result hypercalls' share, spread over the warm-up and
 * the batches, stays below the last digit (docs/exit-gate.md).
 */
#include "report.h"
#include "lib/fmt.h"

static int format_hundredths(char *buf, size_t size, u64 h)
{
	if (h % 100 == 0)
		return fmt_snprintf(buf, size, "%llu", h / 100);
	return fmt_snprintf(buf, size, "%llu.%02llu", h / 100, h % 100);
}

int report_format_classes(char *buf, size_t size, const struct insn_class_rate *r, bool json)
{
	int used = 0;
	unsigned n, shown = 0;

	if (!r->known)
		return 0;
	used = fmt_snprintf(buf, size, json ? ",\"classes\":{" : "  per iteration:");
	for (n = 0; n < NR_ICLASSES && (size_t)used < size; n++) {
		/* the table names only the classes that occur, JSON every one */
		if (!json && !r->hundredths[n])
			continue;
		used += fmt_snprintf(buf + used, size - used, json ? "%s\"%s\":" : "%s %s ",
				     shown++ && json ? "," : "", insn_class_names[n]);
		if ((size_t)used < size)
			used += format_hundredths(buf + used, size - used, r->hundredths[n]);
	}
	if ((size_t)used < size)
		used += fmt_snprintf(buf + used, size - used, json ? "}" : shown ? "" : " none");
	return used;
}
