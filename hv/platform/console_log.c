// SPDX-License-Identifier: MIT
/* The console's copy of the run's log (console_log.h). */
#include "console_log.h"
#include "lib/fmt.h"

#define LOG_HEAD (64u << 10)
#define LOG_TAIL (960u << 10)

static char head[LOG_HEAD];
static char tail[LOG_TAIL]; /* a ring: byte n of the log at (n - LOG_HEAD) % LOG_TAIL */
static u64 total;

/* Several CPUs may print at once (their lines mix on the wire too): each
 * byte takes its own slot. */
void console_log_putc(char c)
{
	u64 n = __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);

	if (n < LOG_HEAD)
		head[n] = c;
	else
		tail[(n - LOG_HEAD) % LOG_TAIL] = c;
}

u64 console_log_total(void)
{
	return __atomic_load_n(&total, __ATOMIC_RELAXED);
}

static u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static char byte_at(u64 n)
{
	return n < LOG_HEAD ? head[n] : tail[(n - LOG_HEAD) % LOG_TAIL];
}

void console_log_plan(struct console_log_view *v, u64 max)
{
	u64 n = console_log_total();

	v->total = n;
	v->marker_len = 0;
	if (n <= max && n <= LOG_HEAD + LOG_TAIL) {
		v->first = n;
		v->last = 0;
	} else {
		/* the head, at most a quarter of what fits; the rest the end */
		v->first = min_u64(min_u64(n, LOG_HEAD), max / 4);
		v->last =
		    min_u64(min_u64(n - v->first, LOG_TAIL), max - v->first - sizeof(v->marker));
	}
	v->left_out = n - v->first - v->last;
	if (v->left_out)
		v->marker_len =
		    fmt_snprintf(v->marker, sizeof(v->marker),
				 "\r\n[mhv: %llu bytes of the log left out here]\r\n", v->left_out);
	v->bytes = v->first + v->marker_len + v->last;
}

void console_log_read(const struct console_log_view *v, u64 pos, char *buf, u64 len)
{
	u64 i;

	for (i = 0; i < len; i++, pos++)
		if (pos < v->first)
			buf[i] = byte_at(pos);
		else if (pos < v->first + v->marker_len)
			buf[i] = v->marker[pos - v->first];
		else
			buf[i] = byte_at(v->total - v->last + (pos - v->first - v->marker_len));
}
