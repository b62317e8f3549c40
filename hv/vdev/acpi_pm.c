// SPDX-License-Identifier: MIT
/*
 * The ACPI fixed hardware the guest's FADT names (vdev/guest_acpi.c):
 * the PM timer, the PM1a event block (status: nothing to report;
 * enable: reads back, which ACPICA checks when it enables the global
 * lock event) and control block (ACPI 6.5 §4.8.3.2.1): SCI_EN reads
 * set, as mhv has no SMI_CMD to switch modes; SLP_EN with the DSDT's
 * \_S5 type is the power button's soft off (§7.4.2): the VM ends with
 * exit code 0.
 */
#include "board.h"
#include "board_devices.h"
#include "core/vm.h"
#include "lib/guest_abi.h"
#include "platform/tsc.h"
#include "arch/x86.h"

#define PM1_CNT_SCI_EN BIT(0)
#define PM1_CNT_SLP_TYP_SHIFT 10
#define PM1_CNT_SLP_EN BIT(13)

/* 24-bit, 3.579545 MHz, read-only (ACPI 6.5 §4.8.3.3), derived from the TSC */
u32 pm_timer_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return tsc_to_pm_timer(rdtsc());
}

void pm_timer_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
}

u32 pm1_evt_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	const struct board *b = dev;

	return offset >= 2 ? b->pm1_en >> ((offset - 2) * 8) : 0;
}

void pm1_evt_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct board *b = dev;
	u16 mask = size == 1 ? 0xff : 0xffff;

	if (offset < 2)
		return; /* status bits are write-one-to-clear: none is ever set */
	offset -= 2;
	b->pm1_en = (u16)((b->pm1_en & ~(mask << (offset * 8))) | ((val & mask) << (offset * 8)));
}

u32 pm1_cnt_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return PM1_CNT_SCI_EN >> (offset * 8);
}

void pm1_cnt_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	u32 v = val << (offset * 8);

	if ((v & PM1_CNT_SLP_EN) && ((v >> PM1_CNT_SLP_TYP_SHIFT) & 7) == GUEST_PM1_SLP_TYP_S5) {
		vm_stop_exit(vcpu->vm, 0, "ACPI soft off: S5 written to PM1a_CNT (port 0x%x)",
			     GUEST_PM1A_CNT_PORT);
	}
}
