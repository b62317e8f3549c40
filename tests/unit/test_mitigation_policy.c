// SPDX-License-Identifier: MIT
/*
 * The "mitigations = auto" decision fed the CPUID and ARCH_CAPABILITIES
 * values of real parts, each transcribed from the document named beside
 * it (only the bits the decision reads; the others are left out):
 *   [Q-MILAN]  QEMU target/i386/cpu.c, "EPYC-Milan" (AMD EPYC 7003, Zen 3)
 *   [Q-GENOA]  QEMU target/i386/cpu.c, "EPYC-Genoa" (AMD EPYC 9004, Zen 4)
 *   [Q-TURIN]  "[PATCH v5 6/6] target/i386: Add support for EPYC-Turin
 *              model", Babu Moger, 2025-02-06 (AMD EPYC 9005, Zen 5)
 *   [Q-GNR]    QEMU target/i386/cpu.c, "GraniteRapids" (Xeon 6 P-core)
 * QEMU's models carry what KVM passes to guests; the bits only bare metal
 * shows come from:
 *   [IBPB-RET] Linux commit 99d252e3ae3e (Jim Mattson): "Beginning with
 *              Zen4, AMD's IBPB *does* clear the return address predictor"
 *              (8000_0008 EBX[30])
 *   [ERAPS]    APM Vol 2 §3.2.9 and "[PATCH v6 1/1] x86: kvm: svm: set up
 *              ERAPS support for guests" (Amit Shah): Zen 5 (8000_0021 EAX[24])
 *   [MSR-FIX]  Linux commit 8442df2b49ed "x86/bugs: KVM: Add support for
 *              SRSO_MSR_FIX" (8000_0021 EAX[31])
 *   [TSA]      AMD-SB-7029 / Linux bugs.c tsa_select_mitigation: the TSA
 *              microcode for family 19h enumerates VERW_CLEAR (EAX[5])
 *   [SBPB]     Linux amd.c early_init_amd: family 19h microcode with
 *              IBPB_BRTYPE is found by a WRMSR of PRED_CMD.SBPB
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/mitigation_policy.h"

#define B(n) (1u << (n))

/* CPUID 8000_0008 EBX: IBPB 12, IBRS 14, STIBP 15, SSBD 24 (APM Vol 3 E) */
#define E8_MILAN (B(12) | B(14) | B(15) | B(24))		 /* [Q-MILAN] */
#define E8_GENOA (B(12) | B(14) | B(15) | B(17) | B(24) | B(28)) /* [Q-GENOA] */
#define E8_TURIN E8_GENOA					 /* [Q-TURIN] */
#define E8_IBPB_RET B(30)					 /* [IBPB-RET] */
/* CPUID 8000_0021 EAX */
#define E21_AUTOIBRS B(8) /* [Q-GENOA] */
#define E21_TURIN \
	(B(8) | B(27) | B(28) | B(30)) /* [Q-TURIN]: AUTO_IBRS, SBPB,
						  * IBPB_BRTYPE, SRSO_USER_KERNEL_NO */
#define E21_VERW_CLEAR B(5)	       /* [TSA] */
#define E21_ERAPS B(24)		       /* [ERAPS] */
#define E21_SRSO_MSR_FIX B(31)	       /* [MSR-FIX] */
/* [Q-GNR]: CPUID 7 EDX SPEC_CTRL 26, ARCH_CAPABILITIES 29 (no MD_CLEAR);
 * ARCH_CAPABILITIES RDCL_NO 0, IBRS_ALL 1, SKIP_L1DFL_VMENTRY 3, MDS_NO 5,
 * PSCHANGE_MC_NO 6, TAA_NO 8, SBDR_SSDP_NO 13, FBSDP_NO 14, PSDP_NO 15,
 * PBRSB_NO 24 */
#define S7_GNR (B(26) | B(29))
#define CAPS_GNR                                                                             \
	(BIT(0) | BIT(1) | BIT(3) | BIT(5) | BIT(6) | BIT(8) | BIT(13) | BIT(14) | BIT(15) | \
	 BIT(24))

#define C DUTY_CLEAR_REGS

static struct spec_decision decide(struct spec_cpu cpu)
{
	struct spec_decision d;

	mitigation_decide(&cpu, &d);
	for (int t = 0; t < SPEC_TOPICS; t++)
		assert_non_null(d.why[t]);
	assert_true(duty_set_index(d.exit_duties) > 0);
	return d;
}

static void assert_why(const struct spec_decision *d, enum spec_topic t, const char *part)
{
	if (!strstr(d->why[t], part))
		print_error("topic %d: \"%s\" does not name \"%s\"\n", t, d->why[t], part);
	assert_non_null(strstr(d->why[t], part));
}

/* Zen 5: AutoIBRS, no RSB fill (ERAPS), BpSpecReduce for SRSO, no TSA */
static void zen5_turin(void **state)
{
	struct spec_decision d = decide((struct spec_cpu){
	    .vendor = SPEC_VENDOR_AMD,
	    .family = 0x1a,
	    .ext8_ebx = E8_TURIN | E8_IBPB_RET,
	    .ext21_eax = E21_TURIN | E21_ERAPS | E21_SRSO_MSR_FIX,
	});

	(void)state;
	assert_int_equal(d.exit_duties, C);
	assert_int_equal(d.host_ctl, HOST_AUTOIBRS | HOST_BP_SPEC_REDUCE);
	assert_true(d.ibpb_switch);
	assert_why(&d, SPEC_BTI, "8000_0021 EAX[8]");
	assert_why(&d, SPEC_RSB, "ERAPS");
	assert_why(&d, SPEC_RSB, "EAX[24]");
	assert_why(&d, SPEC_SRSO, "EAX[31] SRSO_MSR_FIX");
	assert_why(&d, SPEC_VERW, "family 19h only");
}

/* Zen 5 as QEMU's model shows it to a guest: no SRSO_MSR_FIX, no ERAPS;
 * SRSO_USER_KERNEL_NO alone gives Linux's "IBPB on VMEXIT" */
static void zen5_turin_qemu_model(void **state)
{
	struct spec_decision d = decide((struct spec_cpu){
	    .vendor = SPEC_VENDOR_AMD,
	    .family = 0x1a,
	    .ext8_ebx = E8_TURIN,
	    .ext21_eax = E21_TURIN,
	});

	(void)state;
	assert_int_equal(d.exit_duties, C | DUTY_IBPB);
	assert_int_equal(d.host_ctl, HOST_AUTOIBRS);
	assert_why(&d, SPEC_RSB, "clears the return predictor at #VMEXIT");
	assert_why(&d, SPEC_SRSO, "IBPB after every exit");
}

/* Zen 4: AutoIBRS, IBPB after every exit for SRSO, VERW for TSA */
static void zen4_genoa(void **state)
{
	struct spec_decision d = decide((struct spec_cpu){
	    .vendor = SPEC_VENDOR_AMD,
	    .family = 0x19,
	    .ext8_ebx = E8_GENOA | E8_IBPB_RET,
	    .ext21_eax = E21_AUTOIBRS | E21_VERW_CLEAR,
	    .sbpb_probe = true,
	});

	(void)state;
	assert_int_equal(d.exit_duties, C | DUTY_IBPB | DUTY_VERW);
	assert_int_equal(d.host_ctl, HOST_AUTOIBRS);
	assert_why(&d, SPEC_VERW, "TSA");
	assert_why(&d, SPEC_VERW, "EAX[5] VERW_CLEAR");
	assert_why(&d, SPEC_SRSO, "IBPB after every exit");
}

/* Zen 3: no AutoIBRS; the SRSO IBPB covers the first indirect call, and
 * its IBPB leaves the return predictor (no IBPB_RET): RSB fill */
static void zen3_milan(void **state)
{
	struct spec_cpu milan = {
		.vendor = SPEC_VENDOR_AMD,
		.family = 0x19,
		.ext8_ebx = E8_MILAN,
		.sbpb_probe = true,
	};
	struct spec_decision d = decide(milan);

	(void)state;
	assert_int_equal(d.exit_duties, C | DUTY_IBPB | DUTY_RSB_FILL);
	assert_int_equal(d.host_ctl, 0);
	assert_why(&d, SPEC_VERW, "TSA (family 19h) NOT mitigated");
	/* with the TSA microcode */
	milan.ext21_eax = E21_VERW_CLEAR;
	d = decide(milan);
	assert_int_equal(d.exit_duties, C | DUTY_IBPB | DUTY_RSB_FILL | DUTY_VERW);
	/* without the SRSO microcode: IBPB would not do; retpoline and fill */
	milan.sbpb_probe = false;
	d = decide(milan);
	assert_int_equal(d.exit_duties, C | DUTY_RETPOLINE | DUTY_RSB_FILL | DUTY_VERW);
	assert_why(&d, SPEC_SRSO, "NOT mitigated");
	assert_why(&d, SPEC_SRSO, "EAX[28] IBPB_BRTYPE");
	/* a part that says it is not affected by TSA */
	milan.ext21_ecx = B(1) | B(2);
	d = decide(milan);
	assert_false(d.exit_duties & DUTY_VERW);
	assert_why(&d, SPEC_VERW, "TSA_SQ_NO");
}

/* Granite Rapids: eIBRS with PBRSB_NO, MDS_NO: nothing after an exit
 * but the register clearing */
static void intel_granite_rapids(void **state)
{
	struct spec_cpu gnr = {
		.vendor = SPEC_VENDOR_INTEL,
		.family = 6,
		.std7_edx = S7_GNR,
		.arch_caps = CAPS_GNR,
	};
	struct spec_decision d = decide(gnr);

	(void)state;
	assert_int_equal(d.exit_duties, C);
	assert_int_equal(d.host_ctl, HOST_EIBRS);
	assert_true(d.ibpb_switch);
	assert_why(&d, SPEC_BTI, "ARCH_CAPABILITIES[1] IBRS_ALL");
	assert_why(&d, SPEC_RSB, "PBRSB_NO");
	assert_why(&d, SPEC_VERW, "MDS_NO");
	assert_why(&d, SPEC_SRSO, "not affected");
	/* an eIBRS part without PBRSB_NO: one CALL after every exit */
	gnr.arch_caps &= ~BIT(24);
	d = decide(gnr);
	assert_int_equal(d.exit_duties, C | DUTY_RSB_LITE);
}

/* The emulators: Bochs' "ryzen" (family 17h, no IBPB) and
 * "corei7_skylake_x" (no ARCH_CAPABILITIES, no MD_CLEAR), QEMU's EPYC */
static void emulated_cpus(void **state)
{
	struct spec_decision d;

	(void)state;
	d = decide((struct spec_cpu){ .vendor = SPEC_VENDOR_AMD, .family = 0x17 });
	assert_int_equal(d.exit_duties, C | DUTY_RETPOLINE | DUTY_RSB_FILL);
	assert_int_equal(d.host_ctl, 0);
	assert_false(d.ibpb_switch);
	assert_why(&d, SPEC_SRSO, "no IBPB");
	d = decide((struct spec_cpu){ .vendor = SPEC_VENDOR_INTEL, .family = 6 });
	assert_int_equal(d.exit_duties, C | DUTY_RETPOLINE | DUTY_RSB_FILL);
	assert_why(&d, SPEC_VERW, "no CPUID 7 EDX[10] MD_CLEAR");
	/* MDS with MD_CLEAR */
	d = decide((struct spec_cpu){
	    .vendor = SPEC_VENDOR_INTEL, .family = 6, .std7_edx = B(10) | B(26) });
	assert_int_equal(d.exit_duties, C | DUTY_RETPOLINE | DUTY_RSB_FILL | DUTY_VERW);
	assert_true(d.ibpb_switch);
}

/* Every combination of the bits the decision reads, for each vendor and
 * family that matters, gives a duty set a loop exists for. */
static void every_decision_has_a_loop(void **state)
{
	static const struct {
		enum spec_vendor vendor;
		u32 family;
	} cpus[] = {
		{ SPEC_VENDOR_AMD, 0x15 }, { SPEC_VENDOR_AMD, 0x17 }, { SPEC_VENDOR_AMD, 0x19 },
		{ SPEC_VENDOR_AMD, 0x1a }, { SPEC_VENDOR_INTEL, 6 },  { SPEC_VENDOR_OTHER, 6 },
	};
	static const struct {
		u8 reg; /* 0 std7_edx, 1 ext8_ebx, 2 ext21_eax, 3 ext21_ecx, 4 arch_caps, 5 probe */
		u8 bit;
	} bits[] = {
		{ 0, 10 }, { 0, 26 }, { 1, 12 }, { 1, 29 }, { 1, 30 }, { 2, 5 },
		{ 2, 8 },  { 2, 24 }, { 2, 28 }, { 2, 29 }, { 2, 30 }, { 2, 31 },
		{ 3, 1 },  { 3, 2 },  { 4, 1 },	 { 4, 5 },  { 4, 24 }, { 5, 0 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		for (u32 m = 0; m < 1u << (sizeof(bits) / sizeof(bits[0])); m++) {
			struct spec_cpu cpu = { .vendor = cpus[c].vendor,
						.family = cpus[c].family };
			struct spec_decision d;

			for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
				u32 v = m & (1u << b) ? 1u << bits[b].bit : 0;

				switch (bits[b].reg) {
				case 0:
					cpu.std7_edx |= v;
					break;
				case 1:
					cpu.ext8_ebx |= v;
					break;
				case 2:
					cpu.ext21_eax |= v;
					break;
				case 3:
					cpu.ext21_ecx |= v;
					break;
				case 4:
					cpu.arch_caps |= v;
					break;
				default:
					cpu.sbpb_probe = v != 0;
					break;
				}
			}
			mitigation_decide(&cpu, &d);
			if (duty_set_index(d.exit_duties) <= 0)
				print_error("cpu %zu bits 0x%x: duties 0x%x have no loop\n", c, m,
					    d.exit_duties);
			assert_true(duty_set_index(d.exit_duties) > 0);
			for (int t = 0; t < SPEC_TOPICS; t++)
				assert_non_null(d.why[t]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zen5_turin),
		cmocka_unit_test(zen5_turin_qemu_model),
		cmocka_unit_test(zen4_genoa),
		cmocka_unit_test(zen3_milan),
		cmocka_unit_test(intel_granite_rapids),
		cmocka_unit_test(emulated_cpus),
		cmocka_unit_test(every_decision_has_a_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
