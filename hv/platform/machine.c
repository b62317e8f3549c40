// SPDX-License-Identifier: MIT
/* What machine this is, said once at start so every number has a context. */
#include "machine.h"
#include "version.h"
#include "lib/boot_info.h"
#include "console.h"
#include "host/cpu_features.h"
#include "lib/fmt.h"
#include "tsc.h"
#include "host_ioapic.h"
#include "reset.h"
#include "arch/apic.h"
#include "arch/msr.h"
#include "arch/ports.h"
#include "arch/x86.h"

static char env_name[16] = "hardware";
static char env_detail[96] = "no hypervisor signature: bare metal";
static bool emulated; /* TSC ticks are not hardware cycles */

static void quiesce_interrupts(void)
{
	u64 apic = rdmsr(MSR_IA32_APIC_BASE);

	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	if (!(apic & APIC_BASE_EN))
		return;
	if (apic & APIC_BASE_EXTD) {
		wrmsr(X2APIC_MSR(APIC_LVT_TIMER), LVT_MASKED);
		wrmsr(X2APIC_MSR(APIC_TIMER_INITIAL), 0);
	} else {
		volatile u32 *regs = (volatile u32 *)(uintptr_t)(apic & ~0xfffull);

		regs[APIC_LVT_TIMER / 4] = LVT_MASKED;
		regs[APIC_TIMER_INITIAL / 4] = 0;
	}
}

void platform_take_over(const struct boot_info *bi)
{
	quiesce_interrupts();
	host_ioapic_mask(bi->rsdp);
	platform_reset_init(bi->rsdp);
}

static void detect_environment(void)
{
	struct cpuid_regs r;
	char sig[13];

	if (host_cpu.has.hypervisor) {
		cpuid_raw(0x40000000, 0, &r);
		__builtin_memcpy(sig, &r.ebx, 4);
		__builtin_memcpy(sig + 4, &r.ecx, 4);
		__builtin_memcpy(sig + 8, &r.edx, 4);
		sig[12] = 0;
		emulated = !__builtin_memcmp(sig, "TCGTCGTCGTCG", 12);
		if (emulated)
			fmt_snprintf(env_name, sizeof(env_name), "qemu-tcg");
		else if (!__builtin_memcmp(sig, "KVMKVMKVM", 9))
			fmt_snprintf(env_name, sizeof(env_name), "kvm");
		else
			fmt_snprintf(env_name, sizeof(env_name), "hypervisor");
		fmt_snprintf(env_detail, sizeof(env_detail), "hypervisor signature \"%s\"", sig);
		return;
	}
	/* Bochs (port_e9_hack) echoes 0xE9 from its debug port; on a PC an
	 * unclaimed port reads 0xFF. */
	if (inb(DEBUGCON_PORT) == DEBUGCON_PORT) {
		emulated = true;
		fmt_snprintf(env_name, sizeof(env_name), "bochs");
		/* Its RDTSC counts instructions: no frequency turns ticks into time. */
		tsc_counts_instructions("Bochs: RDTSC counts retired instructions");
		fmt_snprintf(env_detail, sizeof(env_detail),
			     "no hypervisor signature, port 0xE9 answers: Bochs; "
			     "RDTSC counts retired instructions");
	}
}

const char *platform_version(void)
{
	return MHV_VERSION;
}

const char *platform_env(void)
{
	return env_name;
}

/* Microcode revision, where the CPU (or emulator) answers (SDM Vol 3 §10.11.7). */
static bool microcode_revision(u32 *rev)
{
	struct cpuid_regs r;
	u64 v;

	if (host_cpu.vendor == VENDOR_INTEL) {
		wrmsr(MSR_MICROCODE_REV, 0);
		cpuid_raw(1, 0, &r);
	}
	if (rdmsr_safe(MSR_MICROCODE_REV, &v))
		return false;
	*rev = host_cpu.vendor == VENDOR_INTEL ? v >> 32 : (u32)v;
	return *rev != 0;
}

/* Firmware-map RAM: everything but reserved ranges and MMIO. */
static u64 ram_mib(const struct boot_info *bi)
{
	u64 pages = 0;
	u32 i;

	for (i = 0; i < bi->nr_mem_ranges; i++)
		if (bi->mem[i].kind != MEM_RESERVED)
			pages += bi->mem[i].pages;
	return pages >> 8;
}

/*
 * The MSRs that decide what a world switch must flush or restore: their
 * values change exit costs, so they belong in every run's header.
 * CPUID.7.0:EDX[26] IBRS/IBPB and [29] ARCH_CAPABILITIES (SDM Vol 2A);
 * 8000_0008 EBX[25] VIRT_SSBD (APM Vol 3 Appendix E).
 */
static void describe_mitigations(void)
{
	struct cpuid_regs r7 = { 0, 0, 0, 0 }, e8 = { 0, 0, 0, 0 };
	char line[160];
	size_t n = 0;
	u64 v;

	cpuid_cached(7, 0, &r7);
	cpuid_cached(0x80000008, 0, &e8);
	if (((r7.edx & BIT(26)) || host_cpu.has.spec_ctrl) && !rdmsr_safe(MSR_IA32_SPEC_CTRL, &v))
		n += fmt_snprintf(line + n, sizeof(line) - n, " SPEC_CTRL 0x%llx", v);
	if ((r7.edx & BIT(29)) && !rdmsr_safe(MSR_IA32_ARCH_CAPABILITIES, &v))
		n += fmt_snprintf(line + n, sizeof(line) - n, " ARCH_CAPABILITIES 0x%llx", v);
	if ((e8.ebx & BIT(25)) && !rdmsr_safe(MSR_AMD_VIRT_SPEC_CTRL, &v))
		n += fmt_snprintf(line + n, sizeof(line) - n, " VIRT_SPEC_CTRL 0x%llx", v);
	console_printf("mhv: mitigation MSRs:%s\n", n ? line : " none enumerated by CPUID");
}

/* What the firmware enforced before mhv ran (boot/secure_boot.c read it). */
static void describe_secure_boot(const struct boot_secure_boot *sb)
{
	if (sb->secure_boot < 0)
		console_printf("mhv: secure boot: unknown (the firmware has no SecureBoot "
			       "variable)\n");
	else
		console_printf("mhv: secure boot: %s (SecureBoot=%d, SetupMode=%d)\n",
			       sb->secure_boot == 1 ? "on" : "off", sb->secure_boot,
			       sb->setup_mode);
}

void platform_describe(const struct boot_info *bi)
{
	char features[256];
	u32 ucode;

	detect_environment();
	cpu_features_describe(features, sizeof(features));
	console_printf("mhv: cpu: %s family 0x%x model 0x%x stepping %u \"%s\"\n",
		       host_cpu.vendor_id, host_cpu.family, host_cpu.model, host_cpu.stepping,
		       host_cpu.brand);
	if (microcode_revision(&ucode)) {
		host_cpu.microcode_rev = ucode;
		console_printf("mhv: microcode: revision 0x%x\n", ucode);
	} else
		console_printf("mhv: microcode: revision not readable here\n");
	console_printf("mhv: cpu features: %s\n", features);
	describe_mitigations();
	console_printf("mhv: memory: %llu MiB RAM in the firmware's map\n", ram_mib(bi));
	if (host_tsc.hz)
		console_printf("mhv: tsc: %llu.%03llu MHz (%s)\n", host_tsc.hz / 1000000,
			       host_tsc.hz / 1000 % 1000, host_tsc.source);
	else
		console_printf("mhv: tsc: no frequency (%s): tables in TSC ticks only; time limits "
			       "and guest clocks: %llu.%03llu MHz of ticks (%s)\n",
			       host_tsc.source, host_tsc.clock_hz / 1000000,
			       host_tsc.clock_hz / 1000 % 1000, host_tsc.clock_source);
	/* Invariant TSC: a constant rate in every P-, C- and T-state (SDM Vol 3
	 * §18.17.1; APM Vol 3, CPUID Fn8000_0007 EDX[8]) */
	if (!host_cpu.has.invariant_tsc)
		console_printf("mhv: tsc: not invariant (CPUID 8000_0007 EDX[8]=0): its rate may "
			       "follow P-states and it may stop in deep C-states: tick counts may "
			       "not compare across runs\n");
	console_printf("mhv: environment: %s (%s)\n", env_name, env_detail);
	describe_secure_boot(&bi->secure_boot);
	if (emulated)
		console_printf("mhv: note: emulator timings are not hardware cycle counts\n");
	console_printf("mhv: console: %s; framebuffer: %s\n", console_describe(),
		       console_fb_describe());
}
