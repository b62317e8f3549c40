// SPDX-License-Identifier: MIT
/*
 * NMIs and machine checks on the host.  Neither may hang mhv silently: an
 * NMI (a watchdog, a BMC's "diagnostic interrupt", a front-panel button)
 * is counted, reported and survived; a machine check is reported with the
 * banks that hold an error, and the run ends with the fatal status.
 */
#include "nmi_mce.h"
#include "platform/console.h"
#include "cpu_features.h"
#include "finish.h"
#include "arch/msr.h"
#include "arch/x86.h"

#define NMI_REPORTS 5 /* lines for the first NMIs; later ones are only counted */

static u64 nmi_count;

void host_nmi(const struct isr_frame *f)
{
	nmi_count++;
	if (nmi_count <= NMI_REPORTS)
		console_printf("mhv: host NMI #%llu at rip 0x%llx: counted, run continues%s\n",
			       nmi_count, f->rip,
			       nmi_count == NMI_REPORTS ? " (further NMIs are only counted)" : "");
}

u64 host_nmi_count(void)
{
	return nmi_count;
}

static __noreturn void machine_check(const char *where, u64 rip)
{
	u64 cap = 0, status = 0, v, addr;
	unsigned i, banks;

	rdmsr_safe(MSR_IA32_MCG_CAP, &cap);
	rdmsr_safe(MSR_IA32_MCG_STATUS, &status);
	banks = cap & 0xff;
	console_printf("\nmhv: %s at rip 0x%llx: MCG_STATUS 0x%llx (%s), %u banks\n", where, rip,
		       status, status & MCG_STATUS_RIPV ? "RIP valid" : "RIP not valid", banks);
	for (i = 0; i < banks; i++) {
		if (rdmsr_safe(MSR_IA32_MC_STATUS(i), &v) || !(v & MCI_STATUS_VAL))
			continue;
		addr = 0;
		if (v & MCI_STATUS_ADDRV)
			rdmsr_safe(MSR_IA32_MC_ADDR(i), &addr);
		console_printf("mhv:   bank %u: MCi_STATUS 0x%llx, MCi_ADDR 0x%llx\n", i, v, addr);
	}
	hv_fatal(MHV_FATAL, "machine check: the hardware reported an error; the run cannot go on");
}

void host_machine_check(const struct isr_frame *f)
{
	machine_check("host machine check", f->rip);
}

void host_machine_check_in_guest(u64 guest_rip)
{
	machine_check("machine check while a guest ran, guest", guest_rip);
}
