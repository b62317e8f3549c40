// SPDX-License-Identifier: MIT
#include "lapic.h"
#include "arch/x86.h"

#define MSR_IA32_APIC_BASE 0x1b
#define APIC_BASE_X2APIC BIT(10) /* SDM Vol 3 §11.12.1 */
#define APIC_BASE_ENABLE BIT(11)
#define X2APIC_ICR 0x830 /* one 64-bit register in x2APIC mode (§11.12.9) */
#define ICR_BUSY BIT(12) /* xAPIC delivery status */
#define SVR_ENABLE BIT(8)
#define SPURIOUS_VECTOR 0xff

bool lapic_x2apic;
volatile u32 *lapic_mmio;
static bool present;
static u64 apic_base;

bool lapic_init(void)
{
	apic_base = rdmsr(MSR_IA32_APIC_BASE);
	present = apic_base & APIC_BASE_ENABLE;
	lapic_x2apic = apic_base & APIC_BASE_X2APIC;
	lapic_mmio = (volatile u32 *)(uintptr_t)(apic_base & ~0xfffull);
	return present;
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
		wrmsr(X2APIC_ICR, (u64)apic_id << 32 | icr_low);
		return;
	}
	lapic_mmio[APIC_ICR_HIGH / 4] = apic_id << 24;
	lapic_mmio[APIC_ICR_LOW / 4] = icr_low;
	while (lapic_mmio[APIC_ICR_LOW / 4] & ICR_BUSY)
		asm volatile("pause");
}

void lapic_init_ap(void)
{
	u64 base = rdmsr(MSR_IA32_APIC_BASE);

	/* INIT keeps the APIC's mode; switch to the BSP's where it differs
	 * (xAPIC -> x2APIC is allowed directly, §11.12.5). */
	if (lapic_x2apic && !(base & APIC_BASE_X2APIC))
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE | APIC_BASE_X2APIC);
	/* INIT leaves the APIC software-disabled, which refuses fixed IPIs (§11.4.7.2). */
	lapic_write(APIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED);
	lapic_write(APIC_LVT_PMC, LVT_MASKED);
}
