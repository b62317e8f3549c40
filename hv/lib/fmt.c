// SPDX-License-Identifier: MIT
#include "fmt.h"

#define FL_LEFT BIT(0)
#define FL_ZERO BIT(1)
#define FL_PLUS BIT(2)
#define FL_SPACE BIT(3)
#define FL_ALT BIT(4)
#define FL_UPPER BIT(5)

/* Keeps width/precision arithmetic far away from int overflow. */
#define FMT_NUM_MAX 0x3fffffff

enum fmt_len {
	LEN_NONE,
	LEN_HH,
	LEN_H,
	LEN_L,
	LEN_LL,
	LEN_Z
};

struct fmt_out {
	fmt_sink sink;
	void *ctx;
	int count;
};

struct fmt_spec {
	unsigned int flags;
	int width;
	int prec; /* -1 when absent */
};

static void out_char(struct fmt_out *o, char c)
{
	o->sink(o->ctx, c);
	if (o->count < 0x7fffffff)
		o->count++;
}

static void out_repeat(struct fmt_out *o, char c, int n)
{
	while (n-- > 0)
		out_char(o, c);
}

static void out_mem(struct fmt_out *o, const char *s, int n)
{
	while (n-- > 0)
		out_char(o, *s++);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Saturates instead of overflowing on absurd widths like "%99999999999d". */
static int parse_num(const char **p)
{
	int n = 0;

	while (is_digit(**p)) {
		if (n <= FMT_NUM_MAX / 10)
			n = n * 10 + (**p - '0');
		else
			n = FMT_NUM_MAX;
		(*p)++;
	}
	return n > FMT_NUM_MAX ? FMT_NUM_MAX : n;
}

static int clamp_num(int n)
{
	return n > FMT_NUM_MAX ? FMT_NUM_MAX : n;
}

static void out_padded(struct fmt_out *o, const struct fmt_spec *sp, const char *s, int len)
{
	int pad = sp->width > len ? sp->width - len : 0;

	if (!(sp->flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	out_mem(o, s, len);
	if (sp->flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

static void out_string(struct fmt_out *o, const struct fmt_spec *sp, const char *s)
{
	int len = 0;

	if (!s)
		s = "(null)";
	/* Bounded scan: with a precision the string need not be terminated. */
	while ((sp->prec < 0 || len < sp->prec) && s[len] && len < FMT_NUM_MAX)
		len++;
	out_padded(o, sp, s, len);
}

/*
 * Sign and prefix are passed separately from the digits so that zero padding
 * can go between them ("-0042", "0x00ff").
 */
static void out_number(struct fmt_out *o, const struct fmt_spec *sp, u64 v, unsigned int base,
		       const char *prefix)
{
	const char *digits = (sp->flags & FL_UPPER) ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[24];
	int len = 0, zeros, pad, plen = __builtin_strlen(prefix);

	while (v) {
		buf[sizeof(buf) - 1 - len++] = digits[v % base];
		v /= base;
	}
	/* C says "%.0d" of zero prints no digits at all. */
	if (len == 0 && sp->prec != 0)
		buf[sizeof(buf) - 1 - len++] = '0';

	zeros = sp->prec > len ? sp->prec - len : 0;
	pad = sp->width - plen - zeros - len;
	if (pad < 0)
		pad = 0;
	if ((sp->flags & FL_ZERO) && !(sp->flags & FL_LEFT) && sp->prec < 0) {
		zeros += pad;
		pad = 0;
	}

	if (!(sp->flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	out_mem(o, prefix, plen);
	out_repeat(o, '0', zeros);
	out_mem(o, buf + sizeof(buf) - len, len);
	if (sp->flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

static s64 fetch_signed(va_list *ap, enum fmt_len len)
{
	switch (len) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		/* The signed counterpart of size_t is ptrdiff_t on every ABI we build for. */
		return va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, int);
	}
}

static u64 fetch_unsigned(va_list *ap, enum fmt_len len)
{
	switch (len) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static void convert_signed(struct fmt_out *o, const struct fmt_spec *sp, s64 v)
{
	const char *sign = "";
	u64 mag = (u64)v;

	if (v < 0) {
		sign = "-";
		/* Negating in unsigned arithmetic keeps INT64_MIN well defined. */
		mag = -mag;
	} else if (sp->flags & FL_PLUS) {
		sign = "+";
	} else if (sp->flags & FL_SPACE) {
		sign = " ";
	}
	out_number(o, sp, mag, 10, sign);
}

static enum fmt_len parse_length(const char **p)
{
	switch (**p) {
	case 'h':
		if ((*p)[1] == 'h') {
			*p += 2;
			return LEN_HH;
		}
		(*p)++;
		return LEN_H;
	case 'l':
		if ((*p)[1] == 'l') {
			*p += 2;
			return LEN_LL;
		}
		(*p)++;
		return LEN_L;
	case 'z':
		(*p)++;
		return LEN_Z;
	default:
		return LEN_NONE;
	}
}

static unsigned int parse_flags(const char **p)
{
	unsigned int flags = 0;

	for (;; (*p)++) {
		switch (**p) {
		case '-':
			flags |= FL_LEFT;
			break;
		case '0':
			flags |= FL_ZERO;
			break;
		case '+':
			flags |= FL_PLUS;
			break;
		case ' ':
			flags |= FL_SPACE;
			break;
		case '#':
			flags |= FL_ALT;
			break;
		default:
			return flags;
		}
	}
}

/* Handles one conversion starting just after '%'; returns where parsing resumes. */
static const char *convert(struct fmt_out *o, const char *start, va_list *ap)
{
	const char *p = start;
	struct fmt_spec sp = { .prec = -1 };
	enum fmt_len len;
	char c;
	u64 u;

	sp.flags = parse_flags(&p);
	if (*p == '*') {
		int w = va_arg(*ap, int);

		p++;
		/* C: a negative '*' width means left-justify; INT_MIN must not be negated. */
		if (w < 0) {
			sp.flags |= FL_LEFT;
			w = w < -FMT_NUM_MAX ? FMT_NUM_MAX : -w;
		}
		sp.width = clamp_num(w);
	} else {
		sp.width = parse_num(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			int pr = va_arg(*ap, int);

			p++;
			sp.prec = pr < 0 ? -1 : clamp_num(pr);
		} else {
			sp.prec = parse_num(&p);
		}
	}
	len = parse_length(&p);

	switch (c = *p) {
	case 'd':
	case 'i':
		convert_signed(o, &sp, fetch_signed(ap, len));
		break;
	case 'u':
		out_number(o, &sp, fetch_unsigned(ap, len), 10, "");
		break;
	case 'X':
		sp.flags |= FL_UPPER;
		/* fall through */
	case 'x':
		u = fetch_unsigned(ap, len);
		out_number(o, &sp, u, 16, (sp.flags & FL_ALT) && u ? (c == 'X' ? "0X" : "0x") : "");
		break;
	case 'p':
		out_number(o, &sp, (uintptr_t)va_arg(*ap, void *), 16, "0x");
		break;
	case 's':
		out_string(o, &sp, va_arg(*ap, const char *));
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		out_padded(o, &sp, &c, 1);
		break;
	case '%':
		out_char(o, '%');
		break;
	case '\0':
		/* A lone trailing '%' is echoed; never step past the terminator. */
		out_mem(o, start - 1, p - start + 1);
		return p;
	default:
		out_mem(o, start - 1, p - start + 2);
		break;
	}
	return p + 1;
}

int fmt_vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap)
{
	struct fmt_out o = { .sink = sink, .ctx = ctx };
	va_list aq;

	/* A copy lets helpers take va_list by pointer portably. */
	va_copy(aq, ap);
	while (*fmt) {
		if (*fmt != '%') {
			out_char(&o, *fmt++);
			continue;
		}
		fmt = convert(&o, fmt + 1, &aq);
	}
	va_end(aq);
	return o.count;
}

struct buf_sink {
	char *buf;
	size_t size;
	size_t pos;
};

static void buf_put(void *ctx, char c)
{
	struct buf_sink *b = ctx;

	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_sink b = { .buf = buf, .size = size };
	int n = fmt_vformat(buf_put, &b, fmt, ap);

	if (size)
		buf[b.pos < size ? b.pos : size - 1] = '\0';
	return n;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int fmt_refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}
