// SPDX-License-Identifier: MIT
#include "lapic.h"
#include "arch/msr.h"
#include "arch/x86.h"

#define SPURIOUS_VECTOR 0xff

bool lapic_x2apic;
volatile u32 *lapic_mmio;
static bool present;
static u64 apic_base;

bool lapic_init(void)
{
	apic_base = rdmsr(MSR_IA32_APIC_BASE);
	present = apic_base & APIC_BASE_EN;
	lapic_x2apic = apic_base & APIC_BASE_EXTD;
	lapic_mmio = (volatile u32 *)(uintptr_t)(apic_base & ~0xfffull);
	return present;
}

/*
 * xAPIC -> x2APIC: EXTD set with EN kept, allowed directly (SDM Vol 3
 * §11.12.5, Figure 11-27); CPUID.01H:ECX[21] says the CPU has it.  The
 * ID register then holds the 32-bit x2APIC ID.
 */
bool lapic_enable_x2apic(void)
{
	struct cpuid_regs r;

	if (!present)
		return false;
	if (lapic_x2apic)
		return true;
	cpuid_raw(1, 0, &r);
	if (!(r.ecx & BIT(21)))
		return false;
	apic_base |= APIC_BASE_EXTD;
	wrmsr(MSR_IA32_APIC_BASE, apic_base);
	lapic_x2apic = true;
	return true;
}

bool lapic_present(void)
{
	return present;
}

bool lapic_is_x2apic(void)
{
	return lapic_x2apic;
}

void lapic_eoi(void)
{
	if (present)
		lapic_write(APIC_EOI, 0);
}

u32 lapic_id(void)
{
	return lapic_x2apic ? lapic_read(APIC_ID) : lapic_read(APIC_ID) >> 24;
}

void lapic_send_ipi(u32 apic_id, u32 icr_low)
{
	if (lapic_x2apic) {
		/*
		 * A WRMSR to an x2APIC register is not serializing and may
		 * complete before earlier stores are globally visible; MFENCE;
		 * LFENCE orders them (SDM Vol 3 §11.12.3).  A kick must not
		 * reach its CPU before what it announces (a vIRR bit, an NMI,
		 * a VM's stop), which that CPU reads when it exits.
		 */
		asm volatile("mfence; lfence" ::: "memory");
		/* one 64-bit register in x2APIC mode (§11.12.9) */
		wrmsr(X2APIC_MSR(APIC_ICR), (u64)apic_id << 32 | icr_low);
		return;
	}
	/* 8 bits of destination (§11.6.1): smp leaves out larger IDs or
	 * turns x2APIC on (apic_ids_need_x2apic) */
	lapic_mmio[APIC_ICR_HIGH / 4] = apic_id << 24;
	lapic_mmio[APIC_ICR / 4] = icr_low;
	while (lapic_mmio[APIC_ICR / 4] & ICR_BUSY)
		asm volatile("pause");
}

void lapic_init_ap(void)
{
	u64 base = rdmsr(MSR_IA32_APIC_BASE);

	/* INIT keeps the APIC's mode; switch to the BSP's where it differs
	 * (xAPIC -> x2APIC is allowed directly, §11.12.5). */
	if (lapic_x2apic && !(base & APIC_BASE_EXTD))
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
	/* INIT leaves the APIC software-disabled, which refuses fixed IPIs (§11.4.7.2). */
	lapic_write(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_VECTOR);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED);
	lapic_host_lvtpc();
}

void lapic_host_lvtpc(void)
{
	lapic_write(APIC_LVT_PMC, HOST_PMI_VECTOR);
}
