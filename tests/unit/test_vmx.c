// SPDX-License-Identifier: MIT
/*
 * The pure VMX logic: control-field adjustment from capability MSRs, CR0/CR4
 * fixing, message names and the exit-reason table (SDM Vol 3 Appendix A, C,
 * §28.2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmx/vmx_controls.h"
#include "vmx/vmx_exit.h"
#include "arch/segment.h"

/* Realistic capability MSR values */
#define SKL_TRUE_PROCBASED_CTLS 0xfff9fffe04006172ull
#define SKL_PROCBASED_CTLS2 0x0033ffff00000000ull
/* Penryn-like: secondary controls exist, only "virtualize APIC accesses" (bit 0) */
#define PENRYN_PROCBASED_CTLS2 0x0000000100000000ull
/* Skylake IA32_VMX_EPT_VPID_CAP: INVEPT types 1 and 2, INVVPID types 0-3 */
#define SKL_EPT_VPID_CAP 0x00000f0106734141ull

static struct vmx_exit_fields fields;
static struct guest_regs regs;

static struct vm_exit decode(u32 reason)
{
	struct vm_exit exit;

	memset(&exit, 0xa5, sizeof(exit));
	fields.reason = reason;
	vmx_decode_exit(vmx_exit_desc(reason), &fields, &regs, &exit);
	return exit;
}

static int setup(void **state)
{
	(void)state;
	memset(&fields, 0, sizeof(fields));
	memset(&regs, 0, sizeof(regs));
	fields.rip = 0x401000;
	fields.insn_len = 3;
	vmx_exit_table_init();
	return 0;
}

/* ---- vmx_adjust_controls ---- */

static void controls_must_be_one_forced(void **state)
{
	u32 out = 0, missing = 0xdead;

	(void)state;
	/* allowed-0 (bits 31:0) = 0x16, allowed-1 (63:32) = 0xff: bits 1, 2, 4 forced on */
	assert_int_equal(vmx_adjust_controls(0x000000ff00000016ull, 0, 0, &out, &missing), 0);
	assert_int_equal(out, 0x16);
	assert_int_equal(missing, 0);
	/* a required bit on top of them */
	assert_int_equal(vmx_adjust_controls(0x000000ff00000016ull, 0x80, 0, &out, &missing), 0);
	assert_int_equal(out, 0x96);
}

static void controls_optional(void **state)
{
	u32 out = 0, missing = 0;

	(void)state;
	/* bit 8 not allowed to be 1: dropped; bit 3 allowed: kept */
	assert_int_equal(vmx_adjust_controls(0x000000ff00000001ull, 0x2, 0x108, &out, &missing), 0);
	assert_int_equal(out, 0x0b);
	/* only optional bits, none allowed */
	assert_int_equal(vmx_adjust_controls(0x0000000000000000ull, 0, 0xffffffff, &out, &missing),
			 0);
	assert_int_equal(out, 0);
	/* everything allowed */
	assert_int_equal(vmx_adjust_controls(0xffffffff00000000ull, 0, 0xffffffff, &out, &missing),
			 0);
	assert_int_equal(out, 0xffffffff);
}

static void controls_required_missing(void **state)
{
	u32 out = 0x1234, missing = 0;

	(void)state;
	/* bits 0 and 9 required, only bit 0..7 allowed: bit 9 missing */
	assert_int_equal(vmx_adjust_controls(0x000000ff00000000ull, 0x201, 0, &out, &missing), -1);
	assert_int_equal(missing, 0x200);
	/* several missing at once, allowed ones not reported */
	assert_int_equal(
	    vmx_adjust_controls(0x0000000f00000000ull, 0x80010003, 0x10, &out, &missing), -1);
	assert_int_equal(missing, 0x80010000);
}

static void controls_skylake_primary(void **state)
{
	u32 out = 0, missing = 0;
	u32 required =
	    PROC_HLT_EXITING | PROC_USE_IO_BITMAPS | PROC_USE_MSR_BITMAPS | PROC_SECONDARY_CONTROLS;

	(void)state;
	/* Table 25-6: HLT exiting bit 7, I/O bitmaps 25, MSR bitmaps 28, secondary 31 */
	assert_int_equal(PROC_HLT_EXITING, 1u << 7);
	assert_int_equal(PROC_USE_IO_BITMAPS, 1u << 25);
	assert_int_equal(PROC_USE_MSR_BITMAPS, 1u << 28);
	assert_int_equal(PROC_SECONDARY_CONTROLS, 1u << 31);
	assert_int_equal(vmx_adjust_controls(SKL_TRUE_PROCBASED_CTLS, required, 0, &out, &missing),
			 0);
	/* default1 bits 1, 4-6, 8, 13, 14, 26 (Appendix A.3.2) plus the requested ones */
	assert_int_equal(out, 0x04006172u | required);
	assert_int_equal(out, 0x960061f2u);
	/* bit 17 ("activate tertiary controls") is not allowed here: optional, dropped */
	assert_int_equal(
	    vmx_adjust_controls(SKL_TRUE_PROCBASED_CTLS, required, 1u << 17, &out, &missing), 0);
	assert_int_equal(out, 0x960061f2u);
	/* bit 0 is reserved-as-0 (allowed-1 bit 32 clear) */
	assert_int_equal(
	    vmx_adjust_controls(SKL_TRUE_PROCBASED_CTLS, required | 1, 0, &out, &missing), -1);
	assert_int_equal(missing, 1);
}

static void controls_skylake_secondary(void **state)
{
	u32 out = 0, missing = 0;

	(void)state;
	/* Table 25-7: enable EPT bit 1, VPID bit 5, WBINVD exiting 6, unrestricted guest 7 */
	assert_int_equal(PROC2_ENABLE_EPT, 1u << 1);
	assert_int_equal(PROC2_ENABLE_VPID, 1u << 5);
	assert_int_equal(PROC2_WBINVD_EXITING, 1u << 6);
	assert_int_equal(PROC2_UNRESTRICTED_GUEST, 1u << 7);
	assert_true(SKL_PROCBASED_CTLS2 >> 32 & PROC2_ENABLE_EPT);
	assert_true(SKL_PROCBASED_CTLS2 >> 32 & PROC2_ENABLE_VPID);
	assert_true(SKL_PROCBASED_CTLS2 >> 32 & PROC2_UNRESTRICTED_GUEST);
	/* what vmx.c asks for */
	assert_int_equal(
	    vmx_adjust_controls(SKL_PROCBASED_CTLS2, PROC2_ENABLE_EPT | PROC2_WBINVD_EXITING,
				PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST, &out, &missing),
	    0);
	assert_int_equal(out, PROC2_ENABLE_EPT | PROC2_WBINVD_EXITING | PROC2_ENABLE_VPID |
				  PROC2_UNRESTRICTED_GUEST);
	/* bit 18 (EPT-violation #VE) not allowed on this part */
	assert_int_equal(vmx_adjust_controls(SKL_PROCBASED_CTLS2, 0, 1u << 18, &out, &missing), 0);
	assert_int_equal(out, 0);
}

static void controls_penryn_no_ept(void **state)
{
	u32 out = 0, missing = 0;

	(void)state;
	assert_false(PENRYN_PROCBASED_CTLS2 >> 32 & PROC2_ENABLE_EPT);
	assert_int_equal(
	    vmx_adjust_controls(PENRYN_PROCBASED_CTLS2, PROC2_ENABLE_EPT | PROC2_WBINVD_EXITING,
				PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST, &out, &missing),
	    -1);
	assert_int_equal(missing, PROC2_ENABLE_EPT | PROC2_WBINVD_EXITING);
	assert_true(missing & PROC2_ENABLE_EPT);
	/* nothing required: the optional ones all drop */
	assert_int_equal(
	    vmx_adjust_controls(PENRYN_PROCBASED_CTLS2, 0,
				PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST | PROC2_ENABLE_EPT,
				&out, &missing),
	    0);
	assert_int_equal(out, 0);
}

/* ---- vmx_fix_cr (Appendix A.7, A.8) ---- */

static void fix_cr0(void **state)
{
	const u64 fixed0 = 0x80000021, fixed1 = 0xffffffff; /* PE (0), NE (5), PG (31) */

	(void)state;
	/* the reset value CD|NW|ET gains PE, NE, PG and keeps the rest */
	assert_int_equal(vmx_fix_cr(0x60000010, fixed0, fixed1), 0xe0000031);
	assert_int_equal(vmx_fix_cr(0, fixed0, fixed1), 0x80000021);
	/* already fine: unchanged */
	assert_int_equal(vmx_fix_cr(0x80050033, fixed0, fixed1), 0x80050033);
	/* bits 63:32 are reserved: fixed1 clears them */
	assert_int_equal(vmx_fix_cr(0x100000001ull, fixed0, fixed1), 0x80000021);
}

static void fix_cr4(void **state)
{
	const u64 fixed0 = 0x2000, fixed1 = 0x3767ff;

	(void)state;
	/* VMXE is bit 13 (Vol 3 §2.5) */
	assert_int_equal(vmx_fix_cr(0, fixed0, fixed1), 0x2000);
	/* PAE (5) | OSFXSR (9) | OSXMMEXCPT (10) kept, VMXE added */
	assert_int_equal(vmx_fix_cr(0x620, fixed0, fixed1), 0x2620);
	/* UMIP (11), LA57 (12), PKE (22) not allowed here: cleared */
	assert_int_equal(vmx_fix_cr(0x401820, fixed0, fixed1), 0x2020);
	/* FSGSBASE (16), PCIDE (17), OSXSAVE (18), SMEP (20), SMAP (21) allowed */
	assert_int_equal(vmx_fix_cr(0x370000, fixed0, fixed1), 0x372000);
}

/* ---- names ---- */

static void instruction_error_names(void **state)
{
	(void)state;
	/* Table 31-1 */
	assert_non_null(strstr(vmx_instruction_error_name(7), "invalid control"));
	assert_non_null(strstr(vmx_instruction_error_name(8), "host-state"));
	assert_non_null(strstr(vmx_instruction_error_name(12), "unsupported VMCS component"));
	assert_string_equal(vmx_instruction_error_name(14), "unknown VM-instruction error");
	assert_string_equal(vmx_instruction_error_name(99), "unknown VM-instruction error");
	assert_string_equal(vmx_instruction_error_name(0), "unknown VM-instruction error");
	assert_string_equal(vmx_instruction_error_name(0xffffffff), "unknown VM-instruction error");
}

/* What a message says after a failed VMWRITE, VMPTRLD or VMLAUNCH (§31.2, §31.4). */
static void failure_texts(void **state)
{
	char buf[96];

	(void)state;
	assert_string_equal(vmx_failure_text(12, buf, sizeof(buf)),
			    "VM-instruction error 12 (VMREAD/VMWRITE from/to unsupported VMCS "
			    "component)");
	assert_string_equal(vmx_failure_text(7, buf, sizeof(buf)),
			    "VM-instruction error 7 (VM entry with invalid control field(s))");
	assert_string_equal(vmx_failure_text(11, buf, sizeof(buf)),
			    "VM-instruction error 11 (VMPTRLD with incorrect VMCS revision "
			    "identifier)");
	assert_string_equal(vmx_failure_text(14, buf, sizeof(buf)),
			    "VM-instruction error 14 (unknown VM-instruction error)");
	/* 0: VMfailInvalid, there was no VMCS to hold a number */
	assert_string_equal(vmx_failure_text(0, buf, sizeof(buf)),
			    "VMfailInvalid (no current VMCS to hold an error number)");
	/* truncated, still terminated */
	assert_string_equal(vmx_failure_text(12, buf, 10), "VM-instru");
}

/* The flushes of a new VM's cached translations from IA32_VMX_EPT_VPID_CAP
 * (Appendix A.10, §29.4.3). */
static void flush_all_context(void **state)
{
	struct vmx_flush f;

	(void)state;
	assert_null(vmx_choose_flush(SKL_EPT_VPID_CAP, true, &f));
	assert_int_equal(f.invept_type, 2);
	assert_int_equal(f.invvpid_type, 2);
	/* VPID off: no INVVPID */
	assert_null(vmx_choose_flush(SKL_EPT_VPID_CAP, false, &f));
	assert_int_equal(f.invept_type, 2);
	assert_int_equal(f.invvpid_type, 0);
}

static void flush_single_context_fallback(void **state)
{
	struct vmx_flush f;

	(void)state;
	/* no all-context INVEPT (bit 26) nor INVVPID (bit 42): the single-context types */
	assert_null(vmx_choose_flush(SKL_EPT_VPID_CAP & ~(BIT(26) | BIT(42)), true, &f));
	assert_int_equal(f.invept_type, 1);
	assert_int_equal(f.invvpid_type, 1);
}

static void flush_refused_without_invept(void **state)
{
	struct vmx_flush f;

	(void)state;
	/* INVEPT itself (bit 20) missing */
	assert_non_null(
	    strstr(vmx_choose_flush(SKL_EPT_VPID_CAP & ~BIT(20), true, &f), "without INVEPT"));
	/* INVEPT with neither usable type (bits 25, 26) */
	assert_non_null(strstr(vmx_choose_flush(SKL_EPT_VPID_CAP & ~(BIT(25) | BIT(26)), true, &f),
			       "neither single- nor all-context"));
}

static void flush_no_invvpid_leaves_vpid_off(void **state)
{
	struct vmx_flush f;

	(void)state;
	/* INVVPID missing (bit 32), or with neither type 1 nor 2 (bits 41, 42) */
	assert_null(vmx_choose_flush(SKL_EPT_VPID_CAP & ~BIT(32), true, &f));
	assert_int_equal(f.invept_type, 2);
	assert_int_equal(f.invvpid_type, 0);
	assert_null(vmx_choose_flush(SKL_EPT_VPID_CAP & ~(BIT(41) | BIT(42)), true, &f));
	assert_int_equal(f.invvpid_type, 0);
}

/* The qualification of a VM-entry failure exit (§27.8). */
static void entry_failure_texts(void **state)
{
	char buf[96];

	(void)state;
	assert_null(vmx_entry_failure_text(0x80000021, 0, buf, sizeof(buf)));
	assert_string_equal(vmx_entry_failure_text(0x80000021, 2, buf, sizeof(buf)),
			    "loading the guest's PAE PDPTEs failed");
	assert_string_equal(vmx_entry_failure_text(0x80000021, 3, buf, sizeof(buf)),
			    "NMI injected while STI blocks events");
	assert_string_equal(vmx_entry_failure_text(0x80000021, 4, buf, sizeof(buf)),
			    "invalid VMCS link pointer");
	assert_string_equal(vmx_entry_failure_text(0x80000022, 3, buf, sizeof(buf)),
			    "VM-entry MSR-load entry 3 failed");
	assert_string_equal(vmx_entry_failure_text(0x80000029, 0, buf, sizeof(buf)),
			    "a machine check during VM entry");
	assert_null(vmx_entry_failure_text(EXIT_REASON_CPUID, 2, buf, sizeof(buf)));
}

static void exit_reason_names(void **state)
{
	(void)state;
	/* Table C-1; bit 31 of the exit reason is "VM-entry failure" (§25.9.1) */
	assert_string_equal(vmx_exit_reason_name(48), "EPT violation");
	assert_string_equal(vmx_exit_reason_name(0x80000021),
			    "VM-entry failure: invalid guest state");
	assert_string_equal(vmx_exit_reason_name(200), "unknown exit reason");
	assert_string_equal(vmx_exit_reason_name(5), "unknown exit reason");
	assert_string_equal(vmx_exit_reason_name(10), "CPUID");
	assert_string_equal(vmx_exit_reason_name(18), "VMCALL");
	assert_string_equal(vmx_exit_reason_name(30), "I/O instruction");
}

/* ---- exit decoding ---- */

static void needs_flags(void **state)
{
	(void)state;
	assert_int_equal(vmx_exit_desc(EXIT_REASON_IO)->needs, NEED_QUAL | NEED_STRING_IO_INFO);
	/* guest RSP only for the exits whose handlers may use any GPR */
	assert_int_equal(vmx_exit_desc(EXIT_REASON_EPT_VIOLATION)->needs,
			 NEED_QUAL | NEED_GPA | NEED_RSP);
	assert_int_equal(vmx_exit_desc(EXIT_REASON_CR_ACCESS)->needs, NEED_QUAL | NEED_RSP);
	assert_int_equal(vmx_exit_desc(EXIT_REASON_EXCEPTION_NMI)->needs, NEED_INTR_INFO);
	assert_int_equal(vmx_exit_desc(EXIT_REASON_CPUID)->needs, 0);
	assert_int_equal(vmx_exit_desc(EXIT_REASON_VMCALL)->needs, 0);
	assert_int_equal(vmx_exit_desc(EXIT_REASON_RDMSR)->needs, 0);
	/* unknown reasons report their qualification */
	assert_true(vmx_exit_desc(28)->needs & NEED_QUAL);
	assert_true(vmx_exit_desc(65)->needs & NEED_QUAL);
	assert_true(vmx_exit_desc(1000)->needs & NEED_QUAL);
}

static void vmcall_and_cpuid(void **state)
{
	struct vm_exit e;

	(void)state;
	e = decode(18);
	assert_int_equal(e.kind, EXIT_HYPERCALL);
	assert_int_equal(e.insn, INSN_VMCALL);
	assert_int_equal(e.vendor_code, 18);
	assert_int_equal(e.next_rip, 0x401003);
	fields.insn_len = 2;
	e = decode(10);
	assert_int_equal(e.kind, EXIT_CPUID);
	assert_int_equal(e.insn, INSN_CPUID);
	assert_int_equal(e.next_rip, 0x401002);
	e = decode(12);
	assert_int_equal(e.kind, EXIT_HLT);
	assert_int_equal(e.insn, INSN_HLT);
}

static void msr_read_and_write(void **state)
{
	struct vm_exit e;

	(void)state;
	regs.gpr[GPR_RCX] = 0xffffffffc0000102ull; /* only ECX names the MSR */
	fields.insn_len = 2;
	e = decode(31);
	assert_int_equal(e.kind, EXIT_MSR_READ);
	assert_int_equal(e.insn, INSN_RDMSR);
	assert_int_equal(e.msr.index, 0xc0000102);
	assert_int_equal(e.next_rip, 0x401002);
	regs.gpr[GPR_RCX] = 0x1234567800000277ull;
	e = decode(32);
	assert_int_equal(e.kind, EXIT_MSR_WRITE);
	assert_int_equal(e.insn, INSN_WRMSR);
	assert_int_equal(e.msr.index, 0x277);
}

static void io(void **state)
{
	struct vm_exit e;

	(void)state;
	/* Table 28-5: in al, dx with DX = 0x3fd: size 0 (1 byte), bit 3 = IN */
	fields.qual = (0x3fdull << 16) | (1 << 3);
	e = decode(30);
	assert_int_equal(e.kind, EXIT_IO);
	assert_int_equal(e.insn, INSN_OP_COUNT);
	assert_true(e.io.in);
	assert_false(e.io.string);
	assert_false(e.io.rep);
	assert_int_equal(e.io.size, 1);
	assert_int_equal(e.io.port, 0x3fd);
	/* rep outsw to DX = 0xe0: size 1 (2 bytes), bit 4 string, bit 5 REP */
	fields.qual = (0xe0ull << 16) | (1 << 5) | (1 << 4) | 1;
	e = decode(30);
	assert_false(e.io.in);
	assert_true(e.io.string);
	assert_true(e.io.rep);
	assert_int_equal(e.io.size, 2);
	assert_int_equal(e.io.port, 0xe0);
	/* without the instruction information, neither size nor segment */
	assert_int_equal(e.io.addr_bits, 0);
	assert_int_equal(e.io.seg, SEG_REG_COUNT);
	/* out 0xf4, eax: size 3 (4 bytes), bit 6 = immediate operand */
	fields.qual = (0xf4ull << 16) | (1 << 6) | 3;
	e = decode(30);
	assert_false(e.io.in);
	assert_false(e.io.string);
	assert_false(e.io.rep);
	assert_int_equal(e.io.size, 4);
	assert_int_equal(e.io.port, 0xf4);
	/* outsb with it (Table 28-8): address size in 9:7, segment in 17:15 */
	fields.qual = (0xe0ull << 16) | (1 << 4);
	fields.has_insn_info = true;
	fields.insn_info = (1 << 7) | (SEG_FS << 15);
	e = decode(30);
	assert_int_equal(e.io.addr_bits, 32);
	assert_int_equal(e.io.seg, SEG_FS);
	fields.insn_info = (2 << 7) | (SEG_DS << 15);
	e = decode(30);
	assert_int_equal(e.io.addr_bits, 64);
	assert_int_equal(e.io.seg, SEG_DS);
	fields.insn_info = 0;
	e = decode(30);
	assert_int_equal(e.io.addr_bits, 16);
	assert_int_equal(e.io.seg, SEG_ES);
	/* INS: bits 17:15 are undefined, the core uses ES */
	fields.qual = (0xe0ull << 16) | (1 << 4) | (1 << 3);
	fields.insn_info = (2 << 7) | (5 << 15);
	e = decode(30);
	assert_int_equal(e.io.addr_bits, 64);
	assert_int_equal(e.io.seg, SEG_REG_COUNT);
	/* unused address-size encodings say nothing */
	fields.insn_info = 3 << 7;
	e = decode(30);
	assert_int_equal(e.io.addr_bits, 0);
	fields.has_insn_info = false;
	/* port 0xffff: all of bits 31:16 */
	fields.qual = (0xffffull << 16) | (1 << 3) | 1;
	e = decode(30);
	assert_int_equal(e.io.port, 0xffff);
	assert_int_equal(e.io.size, 2);
}

static void ept_violation(void **state)
{
	struct vm_exit e;

	(void)state;
	/* Table 28-7: write (bit 1) to a not-present GPA (bits 3-5 clear), GLA valid (7, 8) */
	fields.qual = (1 << 8) | (1 << 7) | (1 << 1);
	fields.gpa = 0xfee00030;
	e = decode(48);
	assert_int_equal(e.kind, EXIT_NPF);
	assert_int_equal(e.insn, INSN_OP_COUNT);
	assert_int_equal(e.npf.gpa, 0xfee00030);
	assert_true(e.npf.write);
	assert_false(e.npf.fetch);
	assert_false(e.npf.present);
	/* fetch (bit 2) from a readable (3), non-executable page */
	fields.qual = (1 << 3) | (1 << 2);
	fields.gpa = 0x200000;
	e = decode(48);
	assert_true(e.npf.fetch);
	assert_false(e.npf.write);
	assert_true(e.npf.present);
	assert_int_equal(e.npf.gpa, 0x200000);
	/* read (bit 0) of an execute-only entry (bit 5) */
	fields.qual = (1 << 5) | 1;
	e = decode(48);
	assert_false(e.npf.fetch);
	assert_false(e.npf.write);
	assert_true(e.npf.present);
	/* write (1) to a read-only page (3): present */
	fields.qual = (1 << 3) | (1 << 1);
	e = decode(48);
	assert_true(e.npf.write);
	assert_true(e.npf.present);
}

static void exceptions_and_nmi(void **state)
{
	struct vm_exit e;

	(void)state;
	/* Table 25-19: vector 7:0, type 10:8 (3 = hardware exception), 11 error valid, 31 valid */
	fields.intr_info = 0x80000301; /* #DB */
	fields.intr_error = 0;
	e = decode(0);
	assert_int_equal(e.kind, EXIT_EXCEPTION);
	assert_int_equal(e.insn, INSN_OP_COUNT);
	assert_int_equal(e.exc.vector, 1);
	assert_false(e.exc.has_error);
	fields.intr_info = 0x80000b11; /* #AC, error code 0 */
	e = decode(0);
	assert_int_equal(e.kind, EXIT_EXCEPTION);
	assert_int_equal(e.exc.vector, 17);
	assert_true(e.exc.has_error);
	assert_int_equal(e.exc.error_code, 0);
	fields.intr_info = 0x80000b0e; /* #PF, write to a present page */
	fields.intr_error = 0x3;
	e = decode(0);
	assert_int_equal(e.exc.vector, 14);
	assert_true(e.exc.has_error);
	assert_int_equal(e.exc.error_code, 0x3);
	/* type 2 = NMI, vector 2 */
	fields.intr_info = 0x80000202;
	e = decode(0);
	assert_int_equal(e.kind, EXIT_NMI);
}

static void simple_exits(void **state)
{
	static const struct {
		u32 reason;
		enum exit_kind kind;
		enum insn_op insn;
	} cases[] = {
		{ 1, EXIT_INTR, INSN_OP_COUNT },
		{ 2, EXIT_SHUTDOWN, INSN_OP_COUNT },
		{ 13, EXIT_CACHE_FLUSH, INSN_INVD },
		{ 54, EXIT_CACHE_FLUSH, INSN_WBINVD },
		/* VMCLEAR, VMLAUNCH, VMPTRLD, VMPTRST, VMREAD, VMRESUME, VMWRITE, VMXOFF, VMXON */
		{ 19, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 20, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 21, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 22, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 23, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 24, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 25, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 26, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 27, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 50, EXIT_VIRT_INSN, INSN_OP_COUNT }, /* INVEPT */
		{ 53, EXIT_VIRT_INSN, INSN_OP_COUNT }, /* INVVPID */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vm_exit e = decode(cases[i].reason);

		assert_int_equal(e.kind, cases[i].kind);
		assert_int_equal(e.insn, cases[i].insn);
		assert_int_equal(e.vendor_code, cases[i].reason);
	}
}

static void entry_failure(void **state)
{
	struct vm_exit e;

	(void)state;
	/* bit 31 + basic reason 33 (invalid guest state); also 34 and 41 */
	e = decode(0x80000021);
	assert_int_equal(e.kind, EXIT_INVALID);
	assert_int_equal(e.vendor_code, 0x80000021);
	assert_int_equal(decode(0x80000022).kind, EXIT_INVALID);
	assert_int_equal(decode(0x80000029).kind, EXIT_INVALID);
}

/* Control-register accesses: SDM Vol 3 Table 28-3 */
static void cr_access(void **state)
{
	struct vm_exit e;

	(void)state;
	fields.qual = 0x4 | (3 << 8); /* MOV to CR4 from RBX */
	e = decode(28);
	assert_int_equal(e.kind, EXIT_CR_WRITE);
	assert_int_equal(e.insn, INSN_MOV_CR);
	assert_int_equal(e.cr.cr, 4);
	assert_int_equal(e.cr.op, CR_WRITE_MOV);
	assert_int_equal(e.cr.gpr, 3);
	fields.qual = 0x0 | (15 << 8); /* MOV to CR0 from R15 */
	e = decode(28);
	assert_int_equal(e.cr.cr, 0);
	assert_int_equal(e.cr.gpr, 15);
	fields.qual = 0x20; /* CLTS */
	e = decode(28);
	assert_int_equal(e.kind, EXIT_CR_WRITE);
	assert_int_equal(e.cr.op, CR_WRITE_CLTS);
	fields.qual = 0x30 | (0xbull << 16); /* LMSW of 0xb */
	e = decode(28);
	assert_int_equal(e.cr.op, CR_WRITE_LMSW);
	assert_int_equal(e.cr.lmsw, 0xb);
	/* MOV from CR3, MOV to CR3 and CR8: nothing mhv asks for */
	fields.qual = 0x13;
	e = decode(28);
	assert_int_equal(e.kind, EXIT_UNHANDLED);
	assert_int_equal(e.info1, 0x13);
	fields.qual = 0x03;
	assert_int_equal(decode(28).kind, EXIT_UNHANDLED);
	fields.qual = 0x08;
	assert_int_equal(decode(28).kind, EXIT_UNHANDLED);
}

static void unknown_reasons(void **state)
{
	static const u32 reasons[] = { 29, 65, 1000 };
	size_t i;

	(void)state;
	fields.qual = 0x34; /* a raw qualification, reported as it came */
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		struct vm_exit e = decode(reasons[i]);

		assert_int_equal(e.kind, EXIT_UNHANDLED);
		assert_int_equal(e.insn, INSN_OP_COUNT);
		assert_int_equal(e.info1, 0x34);
		assert_int_equal(e.vendor_code, reasons[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(controls_must_be_one_forced),
		cmocka_unit_test(controls_optional),
		cmocka_unit_test(controls_required_missing),
		cmocka_unit_test(controls_skylake_primary),
		cmocka_unit_test(controls_skylake_secondary),
		cmocka_unit_test(controls_penryn_no_ept),
		cmocka_unit_test(fix_cr0),
		cmocka_unit_test(fix_cr4),
		cmocka_unit_test(instruction_error_names),
		cmocka_unit_test(failure_texts),
		cmocka_unit_test(entry_failure_texts),
		cmocka_unit_test(flush_all_context),
		cmocka_unit_test(flush_single_context_fallback),
		cmocka_unit_test(flush_refused_without_invept),
		cmocka_unit_test(flush_no_invvpid_leaves_vpid_off),
		cmocka_unit_test(exit_reason_names),
		cmocka_unit_test_setup(needs_flags, setup),
		cmocka_unit_test_setup(vmcall_and_cpuid, setup),
		cmocka_unit_test_setup(msr_read_and_write, setup),
		cmocka_unit_test_setup(io, setup),
		cmocka_unit_test_setup(ept_violation, setup),
		cmocka_unit_test_setup(exceptions_and_nmi, setup),
		cmocka_unit_test_setup(simple_exits, setup),
		cmocka_unit_test_setup(entry_failure, setup),
		cmocka_unit_test_setup(cr_access, setup),
		cmocka_unit_test_setup(unknown_reasons, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
