// SPDX-License-Identifier: MIT
#include "smp_state.h"
#include "lib/fmt.h"

bool cpu_state_change(struct cpu *c, u32 from, u32 to)
{
	return __atomic_compare_exchange_n(&c->state, &from, to, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

bool smp_ap_claim(struct cpu *c)
{
	return cpu_state_change(c, CPU_STARTING, CPU_BOOTING);
}

bool smp_ap_ready(struct cpu *c, bool ok)
{
	return cpu_state_change(c, CPU_BOOTING, ok ? CPU_IDLE : CPU_FAILED);
}

bool smp_unsettled(const struct cpu *c)
{
	u32 s = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);

	return s == CPU_STARTING || s == CPU_BOOTING;
}

bool smp_give_up(struct cpu *c, const char *no_answer, const char *no_setup)
{
	/* why is written first: a CPU that is FAILED always has its reason */
	char why[sizeof(c->why)];

	if (cpu_state_change(c, CPU_STARTING, CPU_FAILED)) {
		fmt_snprintf(c->why, sizeof(c->why), "%s", no_answer);
		return true;
	}
	fmt_snprintf(why, sizeof(why), "%s", no_setup);
	if (cpu_state_change(c, CPU_BOOTING, CPU_FAILED)) {
		/* the AP's own set-up may have written a why of its own: ours stands */
		__builtin_memcpy(c->why, why, sizeof(why));
		return true;
	}
	return false;
}

u32 smp_slots_close(u32 *slots)
{
	return __atomic_exchange_n(slots, SMP_SLOTS_CLOSED, __ATOMIC_SEQ_CST);
}
