// SPDX-License-Identifier: MIT
/* APERF/MPERF samples and the boost setting (aperf.h). */
#include "aperf.h"
#include "console.h"
#include "host/cpu_features.h"
#include "host/percpu.h"
#include "arch/msr.h"
#include "arch/x86.h"

const char *aperf_missing(void)
{
	if (host_cpu.cpuid.max_std < 6 || !(host_cpu.cpuid.std[6].ecx & CPUID6_ECX_APERFMPERF))
		return "no APERF/MPERF (CPUID 6 ECX[0] = 0)";
	return NULL;
}

/*
 * Intel's MSR_SMI_COUNT.  AMD's SMI count is a PMU event (Zen 5's
 * ls_smi_rx, event 0x2B): it would take a counter the guests' PMU modes
 * own, so mhv does not count SMIs there.
 */
const char *smi_count_missing(void)
{
	u64 v;

	if (__builtin_strcmp(host_cpu.vendor_id, "GenuineIntel"))
		return "no SMI count on this vendor (AMD's is a PMU event, which the guests' "
		       "counters own)";
	if (rdmsr_safe(MSR_SMI_COUNT, &v))
		return "MSR_SMI_COUNT (0x34) faults here";
	return NULL;
}

void aperf_sample(struct aperf_sample *s)
{
	static int smi_state; /* 0: not asked, 1: readable, -1: not */

	s->valid = false;
	s->cpu = this_cpu()->index;
	if (!smi_state)
		smi_state = smi_count_missing() ? -1 : 1;
	s->has_smis = smi_state > 0 && !rdmsr_safe(MSR_SMI_COUNT, &s->smis);
	if (aperf_missing())
		return;
	/* MPERF first: an interval is then never short of the APERF cycles in it */
	s->mperf = rdmsr(MSR_IA32_MPERF);
	s->aperf = rdmsr(MSR_IA32_APERF);
	s->valid = true;
}

static const char *const boost_names[] = {
	[BOOST_FIRMWARE] = "as the firmware left it",
	[BOOST_ON] = "on",
	[BOOST_OFF] = "off",
};

/* The MSR and the bit that turns boost off, on this vendor. */
static bool boost_control(u32 *msr, u64 *off_bit)
{
	if (host_cpu.has.svm || !__builtin_strcmp(host_cpu.vendor_id, "AuthenticAMD")) {
		*msr = MSR_AMD_HWCR;
		*off_bit = HWCR_CPB_DIS;
		return true;
	}
	if (!__builtin_strcmp(host_cpu.vendor_id, "GenuineIntel")) {
		*msr = MSR_IA32_MISC_ENABLE;
		*off_bit = MISC_ENABLE_TURBO_DISABLE;
		return true;
	}
	return false;
}

bool boost_apply(enum boost_setting b, const char **why)
{
	u64 off_bit, v;
	u32 msr;

	if (b == BOOST_FIRMWARE)
		return true;
	if (!boost_control(&msr, &off_bit)) {
		*why = "no boost control known for this vendor";
		return false;
	}
	if (rdmsr_safe(msr, &v) || wrmsr_safe(msr, b == BOOST_OFF ? v | off_bit : v & ~off_bit)) {
		*why = "the boost control MSR faulted";
		return false;
	}
	return true;
}

void boost_setup(enum boost_setting b)
{
	const char *missing = aperf_missing(), *why = NULL;
	bool ok = boost_apply(b, &why), off;
	u64 off_bit, v = 0;
	u32 msr;

	console_printf("mhv: clock: boost %s", boost_names[b]);
	if (!ok)
		console_printf(": not applied: %s", why);
	else if (boost_control(&msr, &off_bit) && !rdmsr_safe(msr, &v)) {
		off = v & off_bit;
		console_printf(" (MSR 0x%x bit %s = %u%s)", msr,
			       msr == MSR_AMD_HWCR ? "25 CpbDis" : "38 turbo disable", off,
			       b != BOOST_FIRMWARE && off != (b == BOOST_OFF)
				   ? ": the write did not take, boost is as it was"
				   : "");
	}
	console_printf("; %s; %s\n", missing ? missing : "APERF/MPERF: core cycles and MHz per row",
		       smi_count_missing() ? smi_count_missing()
					   : "SMIs counted per row (MSR_SMI_COUNT)");
}
