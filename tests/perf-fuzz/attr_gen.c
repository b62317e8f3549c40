// SPDX-License-Identifier: MIT
/*
 * Random perf_event_attr (include/uapi/linux/perf_event.h; the fields as
 * perf_event_open(2) describes them): the four generic types with their
 * configs, now and then another PMU of the guest's, random sample periods
 * or frequencies, sample types, read formats and flag bits.  Mostly values
 * the kernel accepts, so that events get opened and count; some anything.
 */
#include <string.h>

#include "perf_fuzz.h"

/*
 * Raw event selects that count on the pinned Bochs' models and on the
 * CPUs they stand for: AMD's core PMU (PPR for family 1Ah, "Core
 * Performance Monitor Counters") and Intel's architectural events (SDM
 * Vol 3 §20.2.1, table 20-1) with the fixed counters' pseudo-encodings
 * event 0, umask 1-3 (Linux's arch/x86/events/intel)
 */
static const uint16_t amd_events[] = { 0x076, 0x0c0, 0x0c1, 0x0c2, 0x0c3, 0x0c4, 0x0c6,
				       0x040, 0x041, 0x043, 0x060, 0x064, 0x080, 0x081,
				       0x087, 0x0a9, 0x0ab, 0x0ae, 0x0af, 0x1c0 };
static const uint16_t intel_events[] = { 0x003c, 0x00c0, 0x013c, 0x4f2e, 0x412e, 0x00c4,
					 0x00c5, 0x0100, 0x0200, 0x0300, 0x0400, 0x01b7,
					 0x01bb, 0x01cd, 0x01a2, 0x020e };

static uint64_t raw_config(struct fuzz_rng *r, const struct fuzz_pmus *pmus)
{
	uint64_t c;

	if (rng_one_in(r, 8))
		return rng_interesting(r, 64);
	if (pmus->amd) {
		uint16_t ev = rng_one_in(r, 4) ? (uint16_t)rng_below(r, 0x1000)
					       : amd_events[rng_below(r, sizeof(amd_events) / 2)];

		/* EventSelect[7:0], UnitMask[15:8], EventSelect[11:8] at 35:32 */
		c = (ev & 0xff) | ((uint64_t)(ev >> 8) << 32);
		c |= (rng_one_in(r, 3) ? rng_below(r, 256) : 0) << 8;
	} else {
		uint16_t ev = rng_one_in(r, 4)
				  ? (uint16_t)rng_below(r, 0x10000)
				  : intel_events[rng_below(r, sizeof(intel_events) / 2)];

		c = ev; /* event select 7:0, umask 15:8 */
	}
	/* edge (18), any thread (21), invert (23), counter mask (31:24) */
	if (rng_one_in(r, 6))
		c |= 1ull << 18;
	if (rng_one_in(r, 10))
		c |= 1ull << 21;
	if (rng_one_in(r, 6))
		c |= 1ull << 23;
	if (rng_one_in(r, 5))
		c |= rng_below(r, 256) << 24;
	/* AMD HostOnly/GuestOnly (41:40); Intel in_tx/in_txcp (33:32) */
	if (rng_one_in(r, 10))
		c |= rng_below(r, 4) << (pmus->amd ? 40 : 32);
	return c;
}

static void pick_type_config(struct fuzz_rng *r, const struct fuzz_pmus *pmus,
			     struct perf_event_attr *a)
{
	switch (rng_below(r, 10)) {
	case 0:
	case 1:
	case 2:
		a->type = PERF_TYPE_HARDWARE;
		a->config =
		    rng_one_in(r, 12) ? rng_interesting(r, 64) : rng_below(r, PERF_COUNT_HW_MAX);
		break;
	case 3:
	case 4:
		a->type = PERF_TYPE_SOFTWARE;
		a->config =
		    rng_one_in(r, 12) ? rng_interesting(r, 64) : rng_below(r, PERF_COUNT_SW_MAX);
		break;
	case 5:
		a->type = PERF_TYPE_HW_CACHE;
		/* id | op << 8 | result << 16 */
		a->config = rng_one_in(r, 10)
				? rng_interesting(r, 32)
				: rng_below(r, PERF_COUNT_HW_CACHE_MAX) |
				      rng_below(r, PERF_COUNT_HW_CACHE_OP_MAX) << 8 |
				      rng_below(r, PERF_COUNT_HW_CACHE_RESULT_MAX) << 16;
		break;
	case 6:
	case 7:
	case 8:
		a->type = PERF_TYPE_RAW;
		a->config = raw_config(r, pmus);
		/* offcore response, load latency: their extra register */
		if (rng_one_in(r, 3))
			a->config1 = rng_interesting(r, 64);
		break;
	default:
		/* another PMU the guest lists (msr, breakpoint, uncore...) */
		a->type = pmus->n ? pmus->type[rng_below(r, pmus->n)] : PERF_TYPE_SOFTWARE;
		a->config = rng_one_in(r, 2) ? rng_below(r, 16) : rng_interesting(r, 64);
		a->config1 = rng_one_in(r, 3) ? rng_interesting(r, 64) : 0;
		a->config2 = rng_one_in(r, 4) ? rng_below(r, 9) : 0;
		break;
	}
}

static void pick_sampling(struct fuzz_rng *r, struct perf_event_attr *a)
{
	switch (rng_below(r, 8)) {
	case 0:
	case 1:
		break; /* counting only */
	case 2:
		a->sample_period = 1 + rng_below(r, 64);
		break;
	case 3:
	case 4:
		a->sample_period = 1000 + rng_below(r, 200000);
		break;
	case 5:
		a->sample_period = rng_interesting(r, 64);
		break;
	default:
		a->freq = 1;
		a->sample_freq =
		    rng_one_in(r, 8) ? rng_interesting(r, 64) : 1 + rng_below(r, 20000);
		break;
	}
	switch (rng_below(r, 4)) {
	case 0:
		break;
	case 1:
		a->sample_type = rng_next(r) & (PERF_SAMPLE_MAX - 1);
		break;
	default:
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		a->sample_type |=
		    rng_next(r) &
		    (PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
		     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_IDENTIFIER |
		     PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC);
		break;
	}
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
		a->branch_sample_type = rng_next(r) & ((PERF_SAMPLE_BRANCH_MAX << 1) - 1);
	if (a->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR)) {
		/* x86-64's 24 registers of asm/perf_regs.h, or anything */
		uint64_t regs = rng_one_in(r, 4) ? rng_next(r) : rng_next(r) & 0xffffff;

		a->sample_regs_user = regs;
		a->sample_regs_intr = rng_one_in(r, 2) ? regs : rng_next(r) & 0xffffff;
	}
	if (a->sample_type & PERF_SAMPLE_STACK_USER)
		a->sample_stack_user = rng_one_in(r, 4) ? (uint32_t)rng_interesting(r, 32)
							: (uint32_t)rng_below(r, 8192) * 8;
	if (a->sample_type & PERF_SAMPLE_CALLCHAIN)
		a->sample_max_stack = (uint16_t)rng_below(r, 140);
	a->read_format = rng_one_in(r, 3) ? 0 : rng_next(r) & (PERF_FORMAT_MAX - 1);
	if (rng_one_in(r, 3)) {
		a->watermark = rng_one_in(r, 2);
		a->wakeup_events =
		    (uint32_t)(rng_one_in(r, 2) ? rng_below(r, 8) : rng_interesting(r, 32));
	}
}

void attr_random(struct fuzz_rng *r, const struct fuzz_pmus *pmus, struct perf_event_attr *a)
{
	static const uint32_t sizes[] = { PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1,
					  PERF_ATTR_SIZE_VER2, PERF_ATTR_SIZE_VER3,
					  PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5,
					  PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7 };

	memset(a, 0, sizeof(*a));
	a->size = rng_one_in(r, 8) ? sizes[rng_below(r, 8)] : sizeof(*a);
	pick_type_config(r, pmus, a);
	pick_sampling(r, a);
	a->disabled = rng_one_in(r, 2);
	a->inherit = rng_one_in(r, 4);
	a->pinned = rng_one_in(r, 8);
	a->exclusive = rng_one_in(r, 10);
	a->exclude_user = rng_one_in(r, 5);
	a->exclude_kernel = rng_one_in(r, 3);
	a->exclude_hv = rng_one_in(r, 3);
	a->exclude_idle = rng_one_in(r, 5);
	a->mmap = rng_one_in(r, 6);
	a->comm = rng_one_in(r, 6);
	a->inherit_stat = rng_one_in(r, 10);
	a->enable_on_exec = rng_one_in(r, 8);
	a->task = rng_one_in(r, 8);
	a->precise_ip = rng_one_in(r, 3) ? 1 + rng_below(r, 3) : 0;
	a->mmap_data = rng_one_in(r, 10);
	a->sample_id_all = rng_one_in(r, 3);
	a->exclude_host = rng_one_in(r, 10);
	a->exclude_guest = rng_one_in(r, 10);
	a->exclude_callchain_kernel = rng_one_in(r, 10);
	a->exclude_callchain_user = rng_one_in(r, 10);
	a->mmap2 = rng_one_in(r, 8);
	a->comm_exec = rng_one_in(r, 10);
	a->context_switch = rng_one_in(r, 8);
	a->write_backward = rng_one_in(r, 10);
	a->namespaces = rng_one_in(r, 16);
	a->ksymbol = rng_one_in(r, 16);
	a->inherit_thread = a->inherit && rng_one_in(r, 4);
	/* SIGTRAP on overflow: the kernel wants remove_on_exec with it */
	a->remove_on_exec = rng_one_in(r, 10);
	a->sigtrap = a->remove_on_exec && rng_one_in(r, 2);
	a->sig_data = rng_next(r);
	if (rng_one_in(r, 8)) {
		static const int32_t clocks[] = { 0, 1, 4, 7, 11, -1 };

		a->use_clockid = 1;
		a->clockid = clocks[rng_below(r, 6)];
	}
	if (rng_one_in(r, 20)) {
		a->aux_watermark = (uint32_t)rng_interesting(r, 32);
		a->aux_sample_size = (uint32_t)rng_interesting(r, 32);
	}
}
