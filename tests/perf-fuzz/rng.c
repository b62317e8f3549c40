// SPDX-License-Identifier: MIT
/*
 * The fuzzer's random source: splitmix64 (Steele, Lea, Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014), so that a
 * seed replays the same draws wherever it runs.
 */
#include "perf_fuzz.h"

void rng_seed(struct fuzz_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t rng_next(struct fuzz_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t rng_below(struct fuzz_rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

int rng_one_in(struct fuzz_rng *r, unsigned int n)
{
	return n <= 1 || rng_below(r, n) == 0;
}

uint64_t rng_interesting(struct fuzz_rng *r, unsigned int width)
{
	uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;

	switch (rng_below(r, 6)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return mask;
	case 3:
		return mask >> 1; /* the largest positive */
	case 4:
		return (mask >> 1) + 1; /* the sign bit alone */
	default:
		return rng_next(r) & mask;
	}
}
