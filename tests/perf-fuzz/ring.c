// SPDX-License-Identifier: MIT
/*
 * The fuzzer's ring buffers: mmap of an event (its user page and 2^n data
 * pages, perf_event_open(2) "MMAP layout"), walks of the records between
 * data_tail and data_head, and user-space counter reads through the user
 * page (cap_user_rdpmc, index, offset: RDPMC of index - 1, as the page's
 * comment in perf_event.h describes), and RDPMC of random counters.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf_fuzz.h"

void ring_unmap(struct fuzz_state *st, struct fuzz_event *e)
{
	if (!e->ring)
		return;
	stat_count(&st->stats, K_MUNMAP, munmap(e->ring, e->ring_len) == 0);
	e->ring = NULL;
	e->ring_len = 0;
}

void op_mmap(struct fuzz_state *st, struct fuzz_event *e)
{
	size_t pages;
	int prot;
	void *p;

	if (e->ring) {
		ring_unmap(st, e);
		return;
	}
	/* the user page alone, 1 + 2^n pages, or a size the kernel refuses */
	if (rng_one_in(&st->rng, 6))
		pages = rng_one_in(&st->rng, 2) ? 1 : 2 + rng_below(&st->rng, 6);
	else
		pages = 1 + (1u << rng_below(&st->rng, 4));
	/* read-only maps the buffer for overwriting (no data_tail) */
	prot = rng_one_in(&st->rng, 4) ? PROT_READ : PROT_READ | PROT_WRITE;
	p = mmap(NULL, pages * st->page_size, prot, MAP_SHARED, e->fd, 0);
	stat_count(&st->stats, K_MMAP, p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	e->ring = p;
	e->ring_len = pages * st->page_size;
	e->ring_writable = prot & PROT_WRITE;
}

static void ring_copy(const unsigned char *data, uint64_t size, uint64_t at, void *out, size_t len)
{
	unsigned char *o = out;

	for (size_t i = 0; i < len; i++)
		o[i] = data[(at + i) % size];
}

static void count_record(struct fuzz_stats *s, const struct perf_event_header *h)
{
	s->records++;
	if (h->type == PERF_RECORD_LOST)
		s->lost++;
	if (h->type == PERF_RECORD_THROTTLE)
		s->throttles++;
}

void op_ring_read(struct fuzz_state *st, struct fuzz_event *e)
{
	struct perf_event_mmap_page *pg = e->ring;
	const unsigned char *data = (const unsigned char *)e->ring + st->page_size;
	uint64_t size = e->ring_len - st->page_size;
	uint64_t head, tail;
	int ok = 1;

	if (!pg)
		return;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (!size || !e->ring_writable) {
		/* the user page alone, or an overwritten ring: its head only */
		stat_count(&st->stats, K_RING_READ, 1);
		return;
	}
	tail = pg->data_tail;
	for (int n = 0; tail < head && n < 4096; n++) {
		struct perf_event_header h;

		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > size) {
			ok = 0; /* a record the kernel cannot have written */
			tail = head;
			break;
		}
		count_record(&st->stats, &h);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	stat_count(&st->stats, K_RING_READ, ok);
}

static uint64_t rdpmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

/* a counter index: the user page's, a small one, Intel's fixed ones, any */
static uint32_t rdpmc_index(struct fuzz_state *st, const struct perf_event_mmap_page *pg)
{
	switch (rng_below(&st->rng, 4)) {
	case 0:
		return pg && pg->index ? pg->index - 1 : 0;
	case 1:
		return (uint32_t)rng_below(&st->rng, 8);
	case 2:
		/* bit 30 selects the fixed counters (SDM Vol 2B, RDPMC) */
		return 0x40000000u | (uint32_t)rng_below(&st->rng, 4);
	default:
		return (uint32_t)rng_interesting(&st->rng, 32);
	}
}

void op_rdpmc(struct fuzz_state *st, struct fuzz_event *e)
{
	struct perf_event_mmap_page *pg = e ? e->ring : NULL;
	volatile uint64_t sink = 0;
	uint32_t idx = rdpmc_index(st, pg);
	volatile int ok = 0; /* set after sigsetjmp, read after a jump */

	/* the seqlock read of the user page, bounded */
	if (pg && pg->cap_user_rdpmc && rng_one_in(&st->rng, 2)) {
		for (int tries = 0; tries < 16; tries++) {
			uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);

			idx = pg->index;
			sink = pg->offset;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE) == seq)
				break;
		}
		if (!idx) {
			stat_count(&st->stats, K_RDPMC, 0);
			return;
		}
		idx--;
	}
	fuzz_guard_armed = 1;
	if (sigsetjmp(fuzz_guard, 1) == 0) {
		sink += rdpmc(idx);
		ok = 1;
	}
	fuzz_guard_armed = 0;
	(void)sink;
	stat_count(&st->stats, K_RDPMC, ok);
}
