// SPDX-License-Identifier: MIT
#include "stats.h"

typedef unsigned __int128 u128;

#define U128_MAX (~(u128)0)

/* Heapsort: no recursion, no allocation, and O(n log n) even on adversarial input. */
static void sift_down(u64 *a, size_t root, size_t end)
{
	u64 v = a[root];

	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= end)
			break;
		if (child + 1 < end && a[child + 1] > a[child])
			child++;
		if (a[child] <= v)
			break;
		a[root] = a[child];
		root = child;
	}
	a[root] = v;
}

static void heapsort_u64(u64 *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		u64 t = a[0];

		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end);
	}
}

/*
 * Shift-and-subtract division: a plain u128 '/' would pull in __udivti3, which
 * the freestanding hypervisor does not link.
 */
static u128 div128(u128 num, u64 den, u64 *rem)
{
	u128 q = 0, r = 0;

	for (int i = 127; i >= 0; i--) {
		r = (r << 1) | ((num >> i) & 1);
		if (r >= den) {
			r -= den;
			q |= (u128)1 << i;
		}
	}
	if (rem)
		*rem = (u64)r;
	return q;
}

u64 stats_muldiv(u64 a, u64 b, u64 d)
{
	u128 q = div128((u128)a * b, d, NULL);

	return q > ~0ull ? ~0ull : (u64)q;
}

/* Digit-by-digit square root, floor(sqrt(x)); needs no division. */
static u64 isqrt128(u128 x)
{
	u128 res = 0, bit = (u128)1 << 126;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return (u64)res;
}

static int bits128(u128 x)
{
	u64 hi = (u64)(x >> 64), lo = (u64)x;

	if (hi)
		return 128 - __builtin_clzll(hi);
	return lo ? 64 - __builtin_clzll(lo) : 0;
}

u64 stats_percentile(const u64 *sorted, size_t count, unsigned pct)
{
	u64 rem;
	u128 rank;

	if (!count)
		return 0;
	if (pct < 1)
		pct = 1;
	if (pct > 100)
		pct = 100;
	rank = div128((u128)count * pct, 100, &rem);
	if (rem)
		rank++;
	return sorted[(size_t)rank - 1];
}

/*
 * Deviations are taken from the floor of the mean m = S / n (remainder r), so
 * that widely offset but tightly clustered samples stay far from overflow.
 * Then n^2 * variance = n * sum((x - m)^2) - r^2 exactly.
 */
static u64 stddev_of(const u64 *a, size_t n, u64 floor_mean, u64 r)
{
	u128 d2 = 0, scaled;
	bool overflow = false;

	for (size_t i = 0; i < n; i++) {
		u64 d = a[i] > floor_mean ? a[i] - floor_mean : floor_mean - a[i];
		u128 sq = (u128)d * d;

		if (d2 > U128_MAX - sq)
			overflow = true;
		d2 += sq;
	}
	/* 4 * n * d2 must fit for the rounding below; otherwise settle for floor. */
	if (overflow || bits128(d2) + bits128((u128)n) + 2 > 128)
		return overflow ? ~0ull : isqrt128(div128(d2, n, NULL));

	scaled = (u128)n * d2 - (u128)r * r;
	/* round(sqrt(N) / n) == floor((floor(sqrt(4 * N)) + n) / (2 * n)) */
	return (u64)div128((u128)isqrt128(scaled * 4) + n, 2 * (u64)n, NULL);
}

void stats_compute(u64 *samples, size_t count, struct sample_stats *out)
{
	u128 sum = 0;
	u64 floor_mean, r, lo, hi;

	__builtin_memset(out, 0, sizeof(*out));
	if (!count)
		return;

	heapsort_u64(samples, count);
	for (size_t i = 0; i < count; i++)
		sum += samples[i];

	out->count = count;
	out->min = samples[0];
	out->max = samples[count - 1];
	lo = samples[(count - 1) / 2];
	hi = samples[count / 2];
	/* lo <= hi, so this is floor((lo + hi) / 2) without overflow. */
	out->median = lo + (hi - lo) / 2;
	out->p99 = stats_percentile(samples, count, 99);
	out->mean = (u64)div128(sum + count / 2, count, NULL);
	floor_mean = (u64)div128(sum, count, &r);
	out->stddev = stddev_of(samples, count, floor_mean, r);
}
