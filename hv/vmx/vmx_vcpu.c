// SPDX-License-Identifier: MIT
/* VMX vCPUs: VMCS set-up, EPT, bitmaps, the exit handler. */
#include "vmx.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "host/cpu_tables.h"
#include "host/nmi_mce.h"
#include "lib/guest_abi.h"
#include "host/paging.h"
#include "core/msr_policy.h"
#include "host/page_alloc.h"
#include "arch/pagetable.h"
#include "pmu/pmu_vcpu.h"
#include "core/vcpu.h"
#include "core/vm.h"
#include "core/guest_cr.h"
#include "arch/ctlreg.h"
#include "vmcs.h"
#include "vmx_controls.h"
#include "vmx_exit.h"
#include "vmx_guest_check.h"
#include "vmx_insn.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/segment.h"
#include "arch/x86.h"

/* The guest segments mhv sets up, as access rights (SDM Vol 3 §25.4.1, Table 25-2) */
#define AR_CODE64 0xa09b /* type 0xb, S, P, L, G */
#define AR_DATA 0xc093	 /* type 0x3, S, P, D/B, G */
#define AR_TSS64_BUSY 0x008b

static struct pt_ctx ept_ctx = {
	.alloc_page = host_pt_alloc_page,
	.phys_to_virt = host_pt_phys_to_virt,
	.table_flags = EPT_READ | EPT_WRITE | EPT_EXEC,
};

static int vmx_map_ram(struct vm *vm, u64 gpa, u64 hpa, u64 size)
{
	return vm_map_nested(vm, &ept_ctx, gpa, hpa, size,
			     EPT_READ | EPT_WRITE | EPT_EXEC | EPT_MEMTYPE_WB);
}

/* Two bits of policy per MSR, shared with SVM: msr_policy.h.  Bitmap
 * layout: read-low, read-high, write-low, write-high, 1 KiB each (§25.6.9). */
void vmx_msr_bitmap_allow(u8 *bitmap, u32 msr, bool read, bool write)
{
	u32 n = msr & 0x1fff;
	unsigned base = msr >= 0xc0000000 ? 0x400 : 0;

	if (msr > 0x1fff && (msr < 0xc0000000 || msr > 0xc0001fff))
		return;
	if (read)
		bitmap[base + n / 8] &= ~(1u << (n % 8));
	if (write)
		bitmap[0x800 + base + n / 8] &= ~(1u << (n % 8));
}

/*
 * The guest's CR0 as it writes and reads it, and the CR0 the CPU runs it
 * with.  VMX fixes some bits (IA32_VMX_CR0_FIXED0/1, SDM Vol 3 Appendix
 * A.7; with unrestricted guest PE and PG are free, §26.3.1.1), and mhv
 * keeps CD and NW clear: guest RAM is ordinary write-back memory that no
 * device writes behind the caches, and CD would make every guest access
 * uncached (§12.5.1), as KVM also avoids.  Those bits are in the CR0
 * guest/host mask: the guest reads its own values from the read shadow,
 * and a write that changes them exits (§25.6.6, §26.1.3).
 */
static u64 vmx_cr0_fixed0(bool unrestricted)
{
	return vmx_caps.cr0_fixed0 & ~(unrestricted ? (u64)(CR0_PE | CR0_PG) : 0);
}

static u64 vmx_cr0_mask(bool unrestricted)
{
	return ((vmx_cr0_fixed0(unrestricted) | ~vmx_caps.cr0_fixed1) & 0xffffffffull) | CR0_CD |
	       CR0_NW;
}

static void vmx_write_cr0(struct vmx_vcpu *x, u64 guest)
{
	u64 real = vmx_fix_cr(guest, vmx_cr0_fixed0(x->unrestricted), vmx_caps.cr0_fixed1);

	vmwrite(VMCS_GUEST_CR0, real & ~(u64)(CR0_CD | CR0_NW));
	vmwrite(VMCS_CR0_READ_SHADOW, guest);
}

/*
 * CR4: VMXE is VMX's (CR4_FIXED0, Appendix A.8) and the guest has no VMX;
 * the guest owns the bits its CPUID offers and VMX leaves free.  Every
 * other bit is in the mask with 0 in the read shadow, so setting one
 * exits and raises #GP (core/guest_cr.c), as on a CPU without it.
 */
static u64 vmx_cr4_mask(struct vcpu *vcpu)
{
	return ~(guest_cr4_valid(vcpu) & ~vmx_caps.cr4_fixed0 & vmx_caps.cr4_fixed1);
}

/*
 * The multiboot entry state (Multiboot Specification §3.2): 32-bit
 * protected mode with paging off, which VMX allows only to an
 * "unrestricted guest" (SDM Vol 3 §26.3.1.1); no IA-32e mode, EFER 0, a
 * 32-bit CS and a 32-bit busy TSS (access rights: G, D/B, P, S, type;
 * §24.4.1).  The flat data segments (AR_DATA) are the 64-bit guests'.
 */
#define AR_CODE32 0xc09b
#define AR_TSS32_BUSY 0x8b

static enum backend_err vmx_boot32(struct backend_error *err)
{
	if (!vmx_caps.unrestricted_guest)
		return backend_fail(err, BACKEND_ERR_UNSUPPORTED,
				    "a multiboot guest starts with paging off: this VMX has no "
				    "unrestricted guest (secondary control bit 7)");
	/* keep PAUSE-loop exiting if it was set for a multi-vCPU VM */
	vmwrite(VMCS_PROC_CONTROLS2, vmread(VMCS_PROC_CONTROLS2) | PROC2_UNRESTRICTED_GUEST);
	vmwrite(VMCS_ENTRY_CONTROLS, vmx_caps.entry & ~ENTRY_IA32E_MODE_GUEST);
	vmwrite(VMCS_GUEST_CR3, 0);
	vmwrite(VMCS_GUEST_CR4, vmread(VMCS_GUEST_CR4) & ~CR4_PAE);
	vmwrite(VMCS_GUEST_EFER, 0);
	vmwrite(VMCS_GUEST_CS_AR, AR_CODE32);
	vmwrite(VMCS_GUEST_TR_AR, AR_TSS32_BUSY);
	vmwrite(VMCS_GUEST_GDTR_BASE, 0);
	vmwrite(VMCS_GUEST_GDTR_LIMIT, 0);
	return BACKEND_OK;
}

/*
 * An external guest entering in 64-bit mode (the kernel's x86 boot.rst,
 * 64-bit boot protocol): mhv's 64-bit state with CS = __BOOT_CS and the
 * data segments __BOOT_DS; unrestricted guest where the CPU has it, for
 * the kernel's later trips through paging off (5-level switch, APs).
 */
static void vmx_boot64(void)
{
	static const u32 data_sels[] = { VMCS_GUEST_DS_SEL, VMCS_GUEST_ES_SEL, VMCS_GUEST_SS_SEL,
					 VMCS_GUEST_FS_SEL, VMCS_GUEST_GS_SEL };
	unsigned i;

	if (vmx_caps.unrestricted_guest)
		vmwrite(VMCS_PROC_CONTROLS2,
			vmread(VMCS_PROC_CONTROLS2) | PROC2_UNRESTRICTED_GUEST);
	vmwrite(VMCS_GUEST_CS_SEL, GUEST_BOOT64_CS);
	for (i = 0; i < ARRAY_SIZE(data_sels); i++)
		vmwrite(data_sels[i], GUEST_BOOT64_DS);
}

/*
 * An AP's state after INIT-SIPI (SDM Vol 3 §10.1.1 Table 10-1; §9.4.4:
 * CS = vector << 8, base vector << 12, IP 0), on top of the multiboot
 * state: real mode, which needs unrestricted guest too.  Access rights
 * P, S, type: code 0x9b, data 0x93, LDT 0x82 (§27.3.1.2).
 */
static void vmx_boot_real(struct vmx_vcpu *x, u8 vector)
{
	static const u32 data_segs[][4] = {
		{ VMCS_GUEST_DS_SEL, VMCS_GUEST_DS_BASE, VMCS_GUEST_DS_LIMIT, VMCS_GUEST_DS_AR },
		{ VMCS_GUEST_ES_SEL, VMCS_GUEST_ES_BASE, VMCS_GUEST_ES_LIMIT, VMCS_GUEST_ES_AR },
		{ VMCS_GUEST_SS_SEL, VMCS_GUEST_SS_BASE, VMCS_GUEST_SS_LIMIT, VMCS_GUEST_SS_AR },
		{ VMCS_GUEST_FS_SEL, VMCS_GUEST_FS_BASE, VMCS_GUEST_FS_LIMIT, VMCS_GUEST_FS_AR },
		{ VMCS_GUEST_GS_SEL, VMCS_GUEST_GS_BASE, VMCS_GUEST_GS_LIMIT, VMCS_GUEST_GS_AR },
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(data_segs); i++) {
		vmwrite(data_segs[i][0], 0);
		vmwrite(data_segs[i][1], 0);
		vmwrite(data_segs[i][2], 0xffff);
		vmwrite(data_segs[i][3], 0x93);
	}
	vmwrite(VMCS_GUEST_CS_SEL, (u64)vector << 8);
	vmwrite(VMCS_GUEST_CS_BASE, (u64)vector << 12);
	vmwrite(VMCS_GUEST_CS_LIMIT, 0xffff);
	vmwrite(VMCS_GUEST_CS_AR, 0x9b);
	vmx_write_cr0(x, vmread(VMCS_CR0_READ_SHADOW) & ~CR0_PE);
	vmwrite(VMCS_GUEST_IDTR_BASE, 0);
	vmwrite(VMCS_GUEST_IDTR_LIMIT, 0xffff);
	vmwrite(VMCS_GUEST_GDTR_LIMIT, 0xffff);
	vmwrite(VMCS_GUEST_LDTR_SEL, 0);
	vmwrite(VMCS_GUEST_LDTR_BASE, 0);
	vmwrite(VMCS_GUEST_LDTR_LIMIT, 0xffff);
	vmwrite(VMCS_GUEST_LDTR_AR, 0x82);
	vmwrite(VMCS_GUEST_TR_SEL, 0);
	vmwrite(VMCS_GUEST_TR_BASE, 0);
	vmwrite(VMCS_GUEST_TR_LIMIT, 0xffff);
}

#define F VMCS_INIT

/* The VM-instruction error of the VMX instruction that just failed, or 0
 * when no current VMCS holds one (VMfailInvalid, SDM Vol 3 §31.2). */
static u32 vmx_last_error(void)
{
	return vmptrst() == ~0ull ? 0 : (u32)vmread(VMCS_INSTRUCTION_ERROR);
}

enum backend_err vmx_write_fields(const struct vmcs_init *fields, unsigned n, enum backend_err code,
				  struct backend_error *err)
{
	char text[96];
	unsigned i;

	for (i = 0; i < n; i++)
		if (!vmwrite_checked(fields[i].field, fields[i].value))
			return backend_fail(err, code, "VMWRITE of %s (0x%x) failed: %s",
					    fields[i].name, fields[i].field,
					    vmx_failure_text(vmx_last_error(), text, sizeof(text)));
	return BACKEND_OK;
}

/* Read back what VM entry will check: NULL, or why with the field named. */
static const char *guest_state_problem(char *why, size_t size)
{
	const struct vmx_guest_state g = {
		.cr0 = vmread(VMCS_GUEST_CR0),
		.cr4 = vmread(VMCS_GUEST_CR4),
		.efer = vmread(VMCS_GUEST_EFER),
		.rflags = vmread(VMCS_GUEST_RFLAGS),
		.cs_ar = vmread(VMCS_GUEST_CS_AR),
		.ss_ar = vmread(VMCS_GUEST_SS_AR),
		.tr_ar = vmread(VMCS_GUEST_TR_AR),
		.ldtr_ar = vmread(VMCS_GUEST_LDTR_AR),
		.tr_sel = vmread(VMCS_GUEST_TR_SEL),
		.entry_controls = vmread(VMCS_ENTRY_CONTROLS),
		.cr0_fixed0 = vmx_caps.cr0_fixed0,
		.cr0_fixed1 = vmx_caps.cr0_fixed1,
		.cr4_fixed0 = vmx_caps.cr4_fixed0,
		.cr4_fixed1 = vmx_caps.cr4_fixed1,
		.unrestricted = vmread(VMCS_PROC_CONTROLS2) & PROC2_UNRESTRICTED_GUEST,
	};

	return vmx_check_guest_state(&g, why, size);
}

static void vmx_vcpu_destroy(struct vcpu *vcpu)
{
	struct vmx_vcpu *x = vcpu->vendor;

	/* Flush the VMCS out of the CPU before its page is reused. */
	if (x)
		vmclear(x->vmcs_pa);
	vcpu->vendor = NULL;
}

/* The MSR and I/O bitmaps (everything exits but the pass-through MSRs)
 * and the virtual-APIC page. */
static enum backend_err vmx_alloc_bitmaps(struct vcpu *vcpu, struct vmx_vcpu *x,
					  struct backend_error *err)
{
	unsigned i;

	x->msr_bitmap = alloc_page_zeroed();
	x->io_bitmaps = alloc_pages_zeroed(2);
	x->virtual_apic = alloc_page_zeroed();
	if (!x->msr_bitmap || !x->io_bitmaps || !x->virtual_apic)
		return backend_fail(err, BACKEND_ERR_NO_MEMORY,
				    "no memory for the MSR and I/O bitmaps and virtual-APIC page");
	/* With the TPR shadow, CR8 reads and writes the virtual TPR at offset
	 * 0x80 of the virtual-APIC page (SDM Vol 3 §30.1.1, §30.3): the
	 * vAPIC keeps its TPR there, so that MOV to CR8 needs no exit. */
	apic_set_cr8_home(&vcpu->apic, &x->virtual_apic[APIC_TPR], 0);
	__builtin_memset(x->msr_bitmap, 0xff, PAGE_SIZE);
	__builtin_memset(x->io_bitmaps, 0xff, 2 * PAGE_SIZE);
	for (i = 0; i < msr_passthrough_count; i++)
		if (!msr_passthrough[i].available || msr_passthrough[i].available(vcpu))
			vmx_msr_bitmap_allow(x->msr_bitmap, msr_passthrough[i].index,
					     msr_passthrough[i].read, msr_passthrough[i].write);
	return BACKEND_OK;
}

/* A fresh VMCS, made the CPU's current one. */
static enum backend_err vmx_load_new_vmcs(struct vmx_vcpu *x, void *vmcs, struct backend_error *err)
{
	char text[96];

	*(u32 *)vmcs = vmx_caps.revision;
	x->vmcs_pa = (u64)(uintptr_t)vmcs;
	if (!vmclear(x->vmcs_pa))
		return backend_fail(err, BACKEND_ERR_VMCLEAR,
				    "VMCLEAR of the VMCS at 0x%llx failed: %s", x->vmcs_pa,
				    vmx_failure_text(vmx_last_error(), text, sizeof(text)));
	if (!vmptrld(x->vmcs_pa))
		return backend_fail(err, BACKEND_ERR_VMPTRLD,
				    "VMPTRLD of the VMCS at 0x%llx failed: %s", x->vmcs_pa,
				    vmx_failure_text(vmx_last_error(), text, sizeof(text)));
	return BACKEND_OK;
}

/* The execution, exit and entry controls, and what they point at. */
static enum backend_err vmx_write_controls(const struct vmx_vcpu *x, u64 eptp, u64 guest_cr0,
					   u64 guest_cr4, struct backend_error *err)
{
	const struct vmcs_init fields[] = {
		F(VMCS_PIN_CONTROLS, vmx_caps.pin),
		F(VMCS_PROC_CONTROLS, vmx_caps.proc),
		F(VMCS_PROC_CONTROLS2, vmx_caps.proc2),
		F(VMCS_EXIT_CONTROLS, vmx_caps.exit),
		F(VMCS_ENTRY_CONTROLS, vmx_caps.entry),
		/* #DB and #AC always: a guest can otherwise wedge the CPU in an
		 * endless chain of them (CVE-2015-5307, CVE-2015-8104).  #MC:
		 * else it is delivered through the guest's IDT (SDM Vol 3
		 * §26.2), and the machine check is the host's. */
		F(VMCS_EXCEPTION_BITMAP, BIT(VECTOR_DB) | BIT(VECTOR_AC) | BIT(VECTOR_MC)),
		F(VMCS_IO_BITMAP_A, (u64)(uintptr_t)x->io_bitmaps),
		F(VMCS_IO_BITMAP_B, (u64)(uintptr_t)x->io_bitmaps + PAGE_SIZE),
		F(VMCS_MSR_BITMAP, (u64)(uintptr_t)x->msr_bitmap),
		F(VMCS_VIRTUAL_APIC_PAGE, (u64)(uintptr_t)x->virtual_apic),
		F(VMCS_TPR_THRESHOLD, 0),
		F(VMCS_EPT_POINTER, eptp),
		F(VMCS_CR4_GUEST_HOST_MASK, x->cr4_mask),
		F(VMCS_CR4_READ_SHADOW, guest_cr4),
		F(VMCS_CR0_GUEST_HOST_MASK, x->cr0_mask),
		F(VMCS_CR0_READ_SHADOW, guest_cr0),

	};

	return vmx_write_fields(fields, ARRAY_SIZE(fields), BACKEND_ERR_VMWRITE, err);
}

/* Where an exit lands: mhv's own CPU state. */
static enum backend_err vmx_write_host_state(struct backend_error *err)
{
	const struct vmcs_init fields[] = {
		F(VMCS_HOST_CR0, read_cr0()),
		F(VMCS_HOST_CR3, read_cr3()),
		F(VMCS_HOST_CR4, read_cr4()),
		F(VMCS_HOST_CS_SEL, HOST_CS),
		F(VMCS_HOST_SS_SEL, HOST_DS),
		F(VMCS_HOST_DS_SEL, HOST_DS),
		F(VMCS_HOST_ES_SEL, HOST_DS),
		F(VMCS_HOST_FS_SEL, 0),
		F(VMCS_HOST_GS_SEL, 0),
		F(VMCS_HOST_TR_SEL, HOST_TSS),
		F(VMCS_HOST_FS_BASE, rdmsr(MSR_FS_BASE)),
		F(VMCS_HOST_GS_BASE, rdmsr(MSR_GS_BASE)),
		F(VMCS_HOST_TR_BASE, host_tss_base()),
		F(VMCS_HOST_GDTR_BASE, host_gdt_base()),
		F(VMCS_HOST_IDTR_BASE, host_idt_base()),
		F(VMCS_HOST_SYSENTER_CS, 0),
		F(VMCS_HOST_SYSENTER_ESP, 0),
		F(VMCS_HOST_SYSENTER_EIP, 0),
		F(VMCS_HOST_EFER, rdmsr(MSR_EFER)),
		F(VMCS_HOST_PAT, rdmsr(MSR_IA32_PAT)),

	};

	return vmx_write_fields(fields, ARRAY_SIZE(fields), BACKEND_ERR_VMWRITE, err);
}

/* The guest's state at its first entry: 64-bit mode on mhv's page tables
 * and GDT (an external guest's boot mode is set over it afterwards). */
static enum backend_err vmx_write_guest_state(u64 cr0, u64 guest_cr3, u64 cr4, u64 guest_gdt,
					      u16 gdt_limit, struct backend_error *err)
{
	const struct vmcs_init fields[] = {
		F(VMCS_GUEST_CR0, cr0),
		F(VMCS_GUEST_CR3, guest_cr3),
		F(VMCS_GUEST_CR4, cr4),
		F(VMCS_GUEST_DR7, DR7_INIT),
		F(VMCS_GUEST_DEBUGCTL, 0),
		F(VMCS_GUEST_RFLAGS, RFLAGS_FIXED1),
		F(VMCS_GUEST_EFER, EFER_LME | EFER_LMA | (host_cpu.has.nx ? EFER_NXE : 0)),
		F(VMCS_GUEST_PAT, PAT_POWER_ON_DEFAULT),
		F(VMCS_GUEST_CS_SEL, 0x08),
		F(VMCS_GUEST_CS_AR, AR_CODE64),
		F(VMCS_GUEST_CS_LIMIT, 0xffffffff),
		F(VMCS_GUEST_CS_BASE, 0),
		F(VMCS_GUEST_SS_SEL, 0x10),
		F(VMCS_GUEST_SS_AR, AR_DATA),
		F(VMCS_GUEST_SS_LIMIT, 0xffffffff),
		F(VMCS_GUEST_SS_BASE, 0),
		F(VMCS_GUEST_DS_SEL, 0x10),
		F(VMCS_GUEST_DS_AR, AR_DATA),
		F(VMCS_GUEST_DS_LIMIT, 0xffffffff),
		F(VMCS_GUEST_DS_BASE, 0),
		F(VMCS_GUEST_ES_SEL, 0x10),
		F(VMCS_GUEST_ES_AR, AR_DATA),
		F(VMCS_GUEST_ES_LIMIT, 0xffffffff),
		F(VMCS_GUEST_ES_BASE, 0),
		F(VMCS_GUEST_FS_SEL, 0x10),
		F(VMCS_GUEST_FS_AR, AR_DATA),
		F(VMCS_GUEST_FS_LIMIT, 0xffffffff),
		F(VMCS_GUEST_FS_BASE, 0),
		F(VMCS_GUEST_GS_SEL, 0x10),
		F(VMCS_GUEST_GS_AR, AR_DATA),
		F(VMCS_GUEST_GS_LIMIT, 0xffffffff),
		F(VMCS_GUEST_GS_BASE, 0),
		F(VMCS_GUEST_LDTR_SEL, 0),
		F(VMCS_GUEST_LDTR_AR, AR_UNUSABLE),
		F(VMCS_GUEST_LDTR_LIMIT, 0),
		F(VMCS_GUEST_LDTR_BASE, 0),
		F(VMCS_GUEST_TR_SEL, GUEST_TSS_SEL),
		F(VMCS_GUEST_TR_AR, AR_TSS64_BUSY),
		F(VMCS_GUEST_TR_LIMIT, 0x67),
		F(VMCS_GUEST_TR_BASE, GUEST_TSS),
		F(VMCS_GUEST_GDTR_BASE, guest_gdt),
		F(VMCS_GUEST_GDTR_LIMIT, gdt_limit),
		F(VMCS_GUEST_IDTR_BASE, 0),
		F(VMCS_GUEST_IDTR_LIMIT, 0),
		F(VMCS_GUEST_SYSENTER_CS, 0),
		F(VMCS_GUEST_SYSENTER_ESP, 0),
		F(VMCS_GUEST_SYSENTER_EIP, 0),
		F(VMCS_GUEST_INTERRUPTIBILITY, 0),
		F(VMCS_GUEST_ACTIVITY_STATE, 0),
		F(VMCS_GUEST_PENDING_DBG, 0),
		F(VMCS_LINK_POINTER, ~0ull),
	};

	return vmx_write_fields(fields, ARRAY_SIZE(fields), BACKEND_ERR_VMWRITE, err);
}

/* The controls only some CPUs or some VMs have. */
static enum backend_err vmx_write_optional_controls(const struct vm *vm, u16 vpid_value,
						    struct backend_error *err)
{
	const struct vmcs_init vpid[] = { F(VMCS_VPID, vpid_value) };
	/* Without "enable XSAVES/XRSTORS" both #UD in the guest, whose CPUID
	 * shows them (Linux's first return to user mode dies in XRSTORS); with
	 * it, set XSS bits in this bitmap would exit (SDM Vol 3 §26.3, 26.6.2) */
	const struct vmcs_init xsaves[] = { F(VMCS_XSS_EXIT_BITMAP, 0) };
	/* PAUSE-loop exiting where vCPUs can wait on each other (SDM Vol 3,
	 * "Controls for PAUSE-Loop Exiting"); KVM's defaults: gap 128, window
	 * 4096 cycles */
	const struct vmcs_init ple[] = {
		F(VMCS_PROC_CONTROLS2, vmx_caps.proc2 | PROC2_PAUSE_LOOP_EXITING),
		F(VMCS_PLE_GAP, 128),
		F(VMCS_PLE_WINDOW, 4096),
	};

	enum backend_err e = BACKEND_OK;

	if (vmx_caps.vpid)
		e = vmx_write_fields(vpid, ARRAY_SIZE(vpid), BACKEND_ERR_VPID, err);
	if (!e && (vmx_caps.proc2 & PROC2_ENABLE_XSAVES))
		e = vmx_write_fields(xsaves, ARRAY_SIZE(xsaves), BACKEND_ERR_VMWRITE, err);
	if (!e && vm->nr_vcpus > 1 && vmx_caps.ple)
		e = vmx_write_fields(ple, ARRAY_SIZE(ple), BACKEND_ERR_VMWRITE, err);
	return e;
}

static enum backend_err vmx_vcpu_setup(struct vcpu *vcpu, u64 guest_cr3, u64 guest_gdt,
				       u16 gdt_limit, struct backend_error *err)
{
	struct vmx_vcpu *x = alloc_page_zeroed();
	void *vmcs = alloc_page_zeroed();
	struct vm *vm = vcpu->vm;
	/* One VPID per VM, never 0: that one is the host's (SDM Vol 3 §29.1). */
	u16 vpid_value = 1 + vm->id % 0xfffe;
	u64 eptp = vm->npt_root | EPTP_WALK_LENGTH_4 | EPTP_WB;
	enum backend_err e;
	char text[96];
	/* a multiboot guest has unrestricted guest (vmx_boot32 checks) */
	bool unrestricted = vcpu->boot32 && vmx_caps.unrestricted_guest;
	bool paging_off = vcpu->boot32 && !vcpu->boot64;
	u64 guest_cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | (paging_off ? 0 : CR0_PG);
	u64 guest_cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	u64 cr0, cr4;

	if (!x || !vmcs)
		return backend_fail(err, BACKEND_ERR_NO_MEMORY, "no memory for the VMCS");
	e = vmx_alloc_bitmaps(vcpu, x, err);
	if (!e)
		e = vmx_load_new_vmcs(x, vmcs, err);
	if (e)
		return e;
	vcpu->vendor = x; /* the VMCS is current: vmx_vcpu_destroy clears it */
	vcpu->guest_rflags = &vcpu->exit_rflags;

	x->unrestricted = unrestricted;
	x->cr0_mask = vmx_cr0_mask(unrestricted);
	x->cr4_mask = vmx_cr4_mask(vcpu);
	cr0 = vmx_fix_cr(guest_cr0, vmx_cr0_fixed0(unrestricted), vmx_caps.cr0_fixed1);
	cr4 = vmx_fix_cr(guest_cr4, vmx_caps.cr4_fixed0, vmx_caps.cr4_fixed1);
	x->proc = vmx_caps.proc;
	x->vpid = vpid_value;

	e = vmx_write_controls(x, eptp, guest_cr0, guest_cr4, err);
	if (!e)
		e = vmx_write_host_state(err);
	if (!e)
		e = vmx_write_guest_state(cr0, guest_cr3, cr4, guest_gdt, gdt_limit, err);
	if (!e)
		e = vmx_write_optional_controls(vm, vpid_value, err);
	if (!e && vcpu->boot64)
		vmx_boot64();
	else if (!e && vcpu->boot32)
		e = vmx_boot32(err);
	if (e)
		return e;
	if (vcpu->wait_sipi)
		vmx_boot_real(x, vcpu->sipi_vector);
	if (vcpu->pmu_mode) {
		e = vmx_pmu_setup(vcpu, x, err);
		if (e)
			return e;
	}
	if (guest_state_problem(text, sizeof(text)))
		return backend_fail(err, BACKEND_ERR_GUEST_STATE,
				    "invalid guest state before VMLAUNCH: %s", text);
	/* The EPT pages and the VPID may have served an earlier VM; vmx_probe
	 * refused a CPU without the INVEPT type (SDM Vol 3 §29.4.3.4). */
	invept(vmx_caps.flush.invept_type, eptp);
	if (vmx_caps.vpid)
		invvpid(vmx_caps.flush.invvpid_type, vpid_value);
	return BACKEND_OK;
}

/* On failure the VMCS, if current, is cleared: its page goes back with the VM's. */
static enum backend_err vmx_vcpu_create(struct vcpu *vcpu, u64 guest_cr3, u64 guest_gdt,
					u16 gdt_limit, struct backend_error *err)
{
	enum backend_err e = vmx_vcpu_setup(vcpu, guest_cr3, guest_gdt, gdt_limit, err);

	if (e)
		vmx_vcpu_destroy(vcpu);
	return e;
}

static void sync_regs_to_vmcs(struct vcpu *vcpu)
{
	vmwrite(VMCS_GUEST_RIP, vcpu->regs.rip);
	vmwrite(VMCS_GUEST_RSP, vcpu->regs.gpr[GPR_RSP]);
}

/* Delivering a #DB clears DR7.GD; an injected one does not. */
static void clear_dr7_gd(void)
{
	u64 dr7 = vmread(VMCS_GUEST_DR7);

	if (dr7 & DR7_GD)
		vmwrite(VMCS_GUEST_DR7, dr7 & ~DR7_GD);
}

/*
 * An intercepted #DB, given back to the guest by handle_exception.  The
 * exit leaves DR6 as it was, the bits the #DB would have set are in the
 * exit qualification (SDM Vol 3 §28.1, Table 28-1): set them now.  INT1
 * (ICEBP) exits before it completes: it is a trap, delivered after it
 * with DR6 untouched, so RIP moves past it (as KVM does).
 */
static void intercepted_db(struct vcpu *vcpu, const struct vmx_exit_fields *f)
{
	u64 qual;

	if ((f->intr_info & INTR_TYPE_MASK) == INTR_TYPE_PRIV_SW_EXCEPTION) {
		vcpu->regs.rip += f->insn_len;
		return;
	}
	qual = vmread(VMCS_EXIT_QUALIFICATION);
	write_dr6((read_dr6() & ~DR6_TRAP_BITS) | (qual & (DR6_TRAP_BITS | DR6_BD | DR6_BS)));
	clear_dr7_gd();
}

static void read_exit_fields(struct vcpu *vcpu, u8 needs, struct vmx_exit_fields *f)
{
	f->qual = needs & NEED_QUAL ? vmread(VMCS_EXIT_QUALIFICATION) : 0;
	f->gpa = needs & NEED_GPA ? vmread(VMCS_GUEST_PHYSICAL_ADDRESS) : 0;
	/* Only string I/O has it, and only where IA32_VMX_BASIC[54] says so */
	f->has_insn_info =
	    (needs & NEED_STRING_IO_INFO) && (f->qual & IO_QUAL_STRING) && vmx_caps.ins_outs_info;
	if (f->has_insn_info)
		f->insn_info = vmread(VMCS_EXIT_INSTRUCTION_INFO);
	if (needs & NEED_INTR_INFO) {
		f->intr_info = vmread(VMCS_EXIT_INTR_INFO);
		f->intr_error = vmread(VMCS_EXIT_INTR_ERROR);
		if ((f->intr_info & INTR_INFO_VECTOR_MASK) == VECTOR_DB &&
		    (f->intr_info & INTR_TYPE_MASK) != INTR_TYPE_NMI)
			intercepted_db(vcpu, f);
	}
}

#define INTERRUPTIBILITY_STI_MOV_SS 3u /* blocking by STI, by MOV SS (Table 25-3) */
#define INTERRUPTIBILITY_NMI BIT(3)    /* blocking by NMI */

/* f by pointer: no callee-saved register keeps insn_len across this call. */
static void redeliver_event(u32 idt_info, const struct vmx_exit_fields *f)
{
	/* Bits 30:12 must be 0 on entry (§27.2.1.3); bit 12 of the vectoring
	 * information is undefined (§25.9.3). */
	vmwrite(VMCS_ENTRY_INTR_INFO, idt_info & ~0x7ffff000u);
	/* an NMI again: the guest does not block NMIs yet, and entry refuses
	 * an NMI injected with blocking by NMI set (§27.3.1.5) */
	if ((idt_info & INTR_TYPE_MASK) == INTR_TYPE_NMI)
		vmwrite(VMCS_GUEST_INTERRUPTIBILITY,
			vmread(VMCS_GUEST_INTERRUPTIBILITY) & ~(u64)INTERRUPTIBILITY_NMI);
	if (idt_info & INTR_INFO_ERROR_VALID)
		vmwrite(VMCS_ENTRY_EXCEPTION_ERROR, vmread(VMCS_IDT_VECTORING_ERROR));
	vmwrite(VMCS_ENTRY_INSTRUCTION_LEN, f->insn_len);
}

/*
 * The general path of every VM exit, called by the VM-run loops (with the
 * exit reason they read) and the fast handlers (vmx_fast.c); non-zero to
 * enter again.  Guest RSP moves between the VMCS and vcpu->regs only for
 * the exits whose handlers use it (NEED_RSP).
 */
int vmx_handle_exit_reason(struct vcpu *vcpu, u32 reason)
{
	struct vmx_exit_fields f;
	const struct vmx_exit_desc *d;
	struct vm_exit exit;
	u32 idt_info;
	u8 needs;

	f.reason = reason;
	f.insn_len = vmread(VMCS_EXIT_INSTRUCTION_LEN);
	f.rip = vmread(VMCS_GUEST_RIP);
	vcpu->regs.rip = f.rip;
	vmread_to(VMCS_GUEST_RFLAGS, &vcpu->exit_rflags);
	d = vmx_exit_desc(f.reason);
	needs = d->needs;
	if (unlikely(needs)) {
		read_exit_fields(vcpu, needs, &f);
		if (needs & NEED_RSP)
			vcpu->regs.gpr[GPR_RSP] = vmread(VMCS_GUEST_RSP);
	}
	/* An event whose delivery the exit interrupted is delivered again (§28.2.4). */
	idt_info = vmread(VMCS_IDT_VECTORING_INFO);
	if (unlikely(idt_info & INTR_INFO_VALID))
		redeliver_event(idt_info, &f);
	vmx_decode_exit(d, &f, &vcpu->regs, &exit);
	if (!vcpu_dispatch_exit(vcpu, &exit))
		return 0;
	vmwrite(VMCS_GUEST_RIP, vcpu->regs.rip);
	if (unlikely(needs & NEED_RSP))
		vmwrite(VMCS_GUEST_RSP, vcpu->regs.gpr[GPR_RSP]);
	return 1;
}

/* The same for the loops that do not read the reason (PMU modes). */
int vmx_handle_exit(struct vcpu *vcpu)
{
	return vmx_handle_exit_reason(vcpu, vmread(VMCS_EXIT_REASON));
}

/* VMLAUNCH/VMRESUME did not even start the guest (VMfailValid/Invalid). */
void vmx_entry_failed(struct vcpu *vcpu)
{
	char text[96];

	vm_stop(vcpu->vm, VM_STOP_ENTRY_FAILED, "VMLAUNCH/VMRESUME failed: %s",
		vmx_failure_text(vmx_last_error(), text, sizeof(text)));
}

/* A VM-entry failure exit (reason bit 31): its qualification, or the guest
 * state check that fails now. */
static void vmx_explain_invalid(struct vcpu *vcpu, u64 reason, char *why, size_t size)
{
	/* A machine check during VM entry (SDM Vol 3 §27.8) is the host's. */
	if ((reason & 0xffff) == EXIT_REASON_MACHINE_CHECK)
		host_machine_check_in_guest(vcpu->regs.rip);
	if (!vmx_entry_failure_text(reason, vmread(VMCS_EXIT_QUALIFICATION), why, size) &&
	    (reason & 0xffff) == EXIT_REASON_INVALID_GUEST_STATE)
		guest_state_problem(why, size);
}

/* The loop kind of each PMU mode; hw has no VMX form (pmu_caps) and keeps
 * the switch at every exit should it ever get here. */
static const u8 loop_kind[PMU_MODE_COUNT] = {
	[PMU_OFF] = VMX_LOOP_PLAIN,    [PMU_SW] = VMX_LOOP_PMU, [PMU_SW_NOELIDE] = VMX_LOOP_PMU,
	[PMU_SW_LAZY] = VMX_LOOP_LAZY, [PMU_HW] = VMX_LOOP_PMU,
};

static void vmx_vcpu_run(struct vcpu *vcpu)
{
	struct vmx_vcpu *x = vcpu->vendor;
	bool pmu = vcpu->pmu_mode != PMU_OFF;
	char text[96];

	if (!vmptrld(x->vmcs_pa)) {
		vm_stop(vcpu->vm, VM_STOP_ENTRY_FAILED, "VMPTRLD of the VMCS at 0x%llx failed: %s",
			x->vmcs_pa, vmx_failure_text(vmx_last_error(), text, sizeof(text)));
		return;
	}
	sync_regs_to_vmcs(vcpu);
	if (pmu)
		vmx_pmu_first_entry(vcpu);
	vmx_run_loops[loop_kind[vcpu->pmu_mode]][vcpu->timed][vcpu->duty_set](vcpu);
	if (pmu)
		pmu_vcpu_stopped(vcpu);
}

static void vmx_inject_exception(struct vcpu *vcpu, u8 vector, bool has_error, u32 error)
{
	vmwrite(VMCS_ENTRY_INTR_INFO, vector | INTR_TYPE_HW_EXCEPTION | INTR_INFO_VALID |
					  (has_error ? INTR_INFO_ERROR_VALID : 0));
	if (has_error)
		vmwrite(VMCS_ENTRY_EXCEPTION_ERROR, error);
}

static bool vmx_interrupt_allowed(struct vcpu *vcpu)
{
	return (vmread(VMCS_GUEST_RFLAGS) & RFLAGS_IF) &&
	       !(vmread(VMCS_GUEST_INTERRUPTIBILITY) & INTERRUPTIBILITY_STI_MOV_SS) &&
	       !(vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID);
}

static void vmx_inject_interrupt(struct vcpu *vcpu, u8 vector)
{
	vmwrite(VMCS_ENTRY_INTR_INFO, vector | INTR_TYPE_EXTERNAL | INTR_INFO_VALID);
}

static bool vmx_event_queued(struct vcpu *vcpu)
{
	return vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID;
}

/* Interrupt-window exiting (SDM Vol 3 §26.7.5); without it the interrupt
 * waits for the next exit that re-evaluates it. */
static void vmx_request_interrupt_window(struct vcpu *vcpu, bool on)
{
	struct vmx_vcpu *x = vcpu->vendor;
	u32 proc = on && vmx_caps.interrupt_window ? x->proc | PROC_INTERRUPT_WINDOW_EXITING
						   : x->proc & ~PROC_INTERRUPT_WINDOW_EXITING;

	if (proc != x->proc) {
		x->proc = proc;
		vmwrite(VMCS_PROC_CONTROLS, proc);
	}
}

static void vmx_end_interrupt_shadow(struct vcpu *vcpu)
{
	u64 v = vmread(VMCS_GUEST_INTERRUPTIBILITY);

	if (v & INTERRUPTIBILITY_STI_MOV_SS)
		vmwrite(VMCS_GUEST_INTERRUPTIBILITY, v & ~(u64)INTERRUPTIBILITY_STI_MOV_SS);
}

/*
 * DR6 is not in the VMCS: the guest's is the CPU's own, and injecting a
 * #DB leaves it alone.  The trap's BS is set in it, B0-B3 cleared as a
 * single-step #DB leaves them (SDM Vol 3 §18.2.3).
 */
static int vmx_single_step_trap(struct vcpu *vcpu)
{
	u32 info = vmread(VMCS_ENTRY_INTR_INFO);
	int taken_back = -1;

	/* also what VM entry wants with TF set and no pending BS (§27.3.1.5) */
	vmx_end_interrupt_shadow(vcpu);
	write_dr6((read_dr6() & ~DR6_TRAP_BITS) | DR6_BS);
	clear_dr7_gd();
	if (info & INTR_INFO_VALID) {
		if ((info & INTR_TYPE_MASK) == INTR_TYPE_NMI)
			taken_back = BACKEND_REQUEUE_NMI;
		else if ((info & INTR_TYPE_MASK) == INTR_TYPE_EXTERNAL)
			taken_back = info & INTR_INFO_VECTOR_MASK;
	}
	vmwrite(VMCS_ENTRY_INTR_INFO, VECTOR_DB | INTR_TYPE_HW_EXCEPTION | INTR_INFO_VALID);
	return taken_back;
}

/* Blocking by NMI: the CPU sets it on injection and clears it at the
 * guest's IRET (virtual NMIs, §25.3 and §26.3). */
static bool vmx_nmi_allowed(struct vcpu *vcpu)
{
	return !(vmread(VMCS_GUEST_INTERRUPTIBILITY) &
		 (INTERRUPTIBILITY_STI_MOV_SS | INTERRUPTIBILITY_NMI)) &&
	       !(vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID);
}

static void set_nmi_window(struct vmx_vcpu *x, bool on)
{
	u32 proc = on ? x->proc | PROC_NMI_WINDOW_EXITING : x->proc & ~PROC_NMI_WINDOW_EXITING;

	if (proc != x->proc) {
		x->proc = proc;
		vmwrite(VMCS_PROC_CONTROLS, proc);
	}
}

static void vmx_inject_nmi(struct vcpu *vcpu)
{
	vmwrite(VMCS_ENTRY_INTR_INFO, VECTOR_NMI | INTR_TYPE_NMI | INTR_INFO_VALID);
	set_nmi_window(vcpu->vendor, false);
}

/* NMI-window exiting (§26.7.6); without it the NMI waits for the next exit. */
static void vmx_request_nmi_window(struct vcpu *vcpu)
{
	if (vmx_caps.nmi_window)
		set_nmi_window(vcpu->vendor, true);
}

static u64 vmx_guest_cr3(struct vcpu *vcpu)
{
	return vmread(VMCS_GUEST_CR3);
}

/* What the guest believes CR4 is: host-owned bits come from the read shadow. */
static u64 vmx_guest_cr4(struct vcpu *vcpu)
{
	u64 mask = ((struct vmx_vcpu *)vcpu->vendor)->cr4_mask;

	return (vmread(VMCS_GUEST_CR4) & ~mask) | (vmread(VMCS_CR4_READ_SHADOW) & mask);
}

/* CPL is SS.DPL, access-rights bits 6:5 (SDM Vol 3 §25.4.1). */
static unsigned vmx_guest_cpl(struct vcpu *vcpu)
{
	return (vmread(VMCS_GUEST_SS_AR) >> 5) & 3;
}

/* What the guest believes CR0 is: held bits come from the read shadow. */
static u64 vmx_guest_cr0(struct vcpu *vcpu)
{
	u64 mask = ((struct vmx_vcpu *)vcpu->vendor)->cr0_mask;

	return (vmread(VMCS_GUEST_CR0) & ~mask) | (vmread(VMCS_CR0_READ_SHADOW) & mask);
}

static u64 vmx_guest_efer(struct vcpu *vcpu)
{
	return vmread(VMCS_GUEST_EFER);
}

/* CS.L and CS.D/B in the access rights (SDM Vol 3 §25.4.1, Table 25-2). */
static unsigned vmx_guest_code_bits(struct vcpu *vcpu, u64 *cs_base)
{
	u64 ar = vmread(VMCS_GUEST_CS_AR);

	*cs_base = vmread(VMCS_GUEST_CS_BASE);
	if ((vmread(VMCS_GUEST_EFER) & EFER_LMA) && (ar & AR_L))
		return 64;
	return (ar & AR_DB) ? 32 : 16;
}

static u64 vmx_guest_rflags(struct vcpu *vcpu)
{
	return vmread(VMCS_GUEST_RFLAGS);
}

/* The guest base fields are in encoding order ES, CS, SS, DS, FS, GS,
 * two apart (SDM Vol 3 Appendix B.4.3). */
static u64 vmx_guest_seg_base(struct vcpu *vcpu, unsigned seg)
{
	return seg < SEG_REG_COUNT ? vmread(VMCS_GUEST_ES_BASE + 2 * seg) : 0;
}

/* CR2 is in no VMCS field: VM entry and exit leave it alone (SDM Vol 3
 * §28.3, §27.3), and the host does not take page faults, so the CPU's CR2
 * is the guest's. */
static void vmx_set_guest_cr2(struct vcpu *vcpu, u64 cr2)
{
	write_cr2(cr2);
}

/* "Use TSC offsetting" is turned on with the first offset (SDM Vol 3 §26.3,
 * RDTSC, RDTSCP and RDMSR of IA32_TIME_STAMP_COUNTER add it). */
static bool vmx_set_tsc_offset(struct vcpu *vcpu, u64 offset)
{
	struct vmx_vcpu *x = vcpu->vendor;

	if (!(x->proc & PROC_USE_TSC_OFFSETTING)) {
		if (!vmx_caps.tsc_offsetting)
			return false;
		x->proc |= PROC_USE_TSC_OFFSETTING;
		vmwrite(VMCS_PROC_CONTROLS, x->proc);
	}
	vmwrite(VMCS_TSC_OFFSET, offset);
	return true;
}

/* The "IA-32e mode guest" entry control follows EFER.LMA (SDM Vol 3
 * §25.8.1; a VM exit stores LMA into it, §28.3.1.1 — here mhv changed it). */
static void vmx_set_guest_efer(struct vcpu *vcpu, u64 efer)
{
	u64 entry = vmread(VMCS_ENTRY_CONTROLS);
	u64 want =
	    efer & EFER_LMA ? entry | ENTRY_IA32E_MODE_GUEST : entry & ~(u64)ENTRY_IA32E_MODE_GUEST;

	vmwrite(VMCS_GUEST_EFER, efer);
	if (want != entry)
		vmwrite(VMCS_ENTRY_CONTROLS, want);
}

/*
 * After a MOV to CR0/CR4 that mhv completed and that changed how the guest
 * translates: the TLB invalidation the MOV does (SDM Vol 3 §4.10.4.1) for
 * the guest's VPID (entries without VPID flush anyway, §29.4.3.1), and
 * with PAE paging outside IA-32e mode the PDPTEs, which VM entry takes
 * from the VMCS under EPT (§27.3.2.4) and the MOV would have loaded from
 * CR3 (§5.4.1).
 */
static void vmx_paging_changed(struct vcpu *vcpu, struct vmx_vcpu *x)
{
	u64 cr0 = vmread(VMCS_GUEST_CR0), cr4 = vmread(VMCS_GUEST_CR4);
	const u64 *pdpte;
	unsigned i;

	if (vmx_caps.vpid)
		invvpid(vmx_caps.flush.invvpid_type, x->vpid);
	if (!(cr0 & CR0_PG) || !(cr4 & CR4_PAE) || (vmread(VMCS_GUEST_EFER) & EFER_LME))
		return;
	pdpte = gpa_to_hva(vcpu->vm, vmread(VMCS_GUEST_CR3) & 0xffffffe0ull, 32);
	for (i = 0; i < 4; i++)
		vmwrite(VMCS_GUEST_PDPTE0 + 2 * i, pdpte ? pdpte[i] : 0);
}

/*
 * A guest CR0/CR4 value core/guest_cr.c checked: the guest's in the read
 * shadow, VMX's fixed bits in the CR the CPU uses.  A bit VMX operation
 * does not allow is refused with #GP, as the CPU refuses it there (§24.8).
 */
static bool vmx_set_guest_cr(struct vcpu *vcpu, unsigned cr, u64 value)
{
	struct vmx_vcpu *x = vcpu->vendor;
	u64 old;

	if (cr == 4) {
		if (value & ~vmx_caps.cr4_fixed1)
			return false;
		old = vmx_guest_cr4(vcpu);
		vmwrite(VMCS_GUEST_CR4,
			vmx_fix_cr(value, vmx_caps.cr4_fixed0, vmx_caps.cr4_fixed1));
		vmwrite(VMCS_CR4_READ_SHADOW, value);
		if ((old ^ value) & CTLREG_CR4_TLB_BITS)
			vmx_paging_changed(vcpu, x);
		return true;
	}
	if (value & ~vmx_caps.cr0_fixed1 & ~(u64)(CR0_CD | CR0_NW))
		return false;
	if (!x->unrestricted && (~value & vmx_caps.cr0_fixed0 & (CR0_PE | CR0_PG))) {
		vm_stop(vcpu->vm, VM_STOP_UNHANDLED,
			"the guest cleared CR0.PE or CR0.PG (CR0 0x%llx at rip 0x%llx): mhv runs "
			"that only for multiboot guests (unrestricted guest)",
			value, vcpu->regs.rip);
		return true;
	}
	old = vmx_guest_cr0(vcpu);
	vmx_write_cr0(x, value);
	if ((old ^ value) & (CR0_PG | CR0_WP))
		vmx_paging_changed(vcpu, x);
	return true;
}

/*
 * VM entry loads the guest's IA32_PAT from the VMCS and VM exit saves it
 * there (SDM Vol 3 §28.3.2.1, §29.3.7.2), where the CPU has the controls
 * (vmx.c asks for them; the processors with EPT have them).
 */
static u64 vmx_guest_pat(struct vcpu *vcpu)
{
	return vmread(VMCS_GUEST_PAT);
}

static void vmx_set_guest_pat(struct vcpu *vcpu, u64 pat)
{
	vmwrite(VMCS_GUEST_PAT, pat);
}

static const char *vmx_exit_name(u64 code)
{
	return vmx_exit_reason_name((u32)code);
}

/* No GIF on Intel: a pending interrupt is taken as soon as IF is set. */
static void vmx_host_interrupt_window(void)
{
	/* With "NMI exiting" an NMI in the guest is consumed by the VM exit
	 * it causes (SDM Vol 3, pin-based controls, bit 3): nothing delivers
	 * it to the host, so "int 2" runs the host's NMI handler. */
	if (vmread(VMCS_EXIT_REASON) == EXIT_REASON_EXCEPTION_NMI &&
	    (vmread(VMCS_EXIT_INTR_INFO) & INTR_TYPE_MASK) == INTR_TYPE_NMI)
		asm volatile("int $2" ::: "memory");
	asm volatile("sti; nop; cli" ::: "memory");
}

/* Without "enable RDTSCP" the guest's RDTSCP and RDPID raise #UD (SDM Vol 3
 * §26.3): then it must see neither in CPUID. */
static void vmx_adjust_guest_cpuid(struct cpuid_cache *view)
{
	if (!(vmx_caps.proc2 & PROC2_ENABLE_RDTSCP)) {
		view->ext[1].edx &= ~CPUID_EXT1_EDX_RDTSCP;
		view->std[7].ecx &= ~CPUID7_ECX_RDPID;
	}
	/* without "enable INVPCID" the guest's INVPCID is #UD (SDM Vol 3 §26.3) */
	if (!(vmx_caps.proc2 & PROC2_ENABLE_INVPCID))
		view->std[7].ebx &= ~CPUID7_EBX_INVPCID;
}

static void vmx_describe(void)
{
	console_printf(
	    "mhv: backend: Intel VMX, EPT, VPID %s, INVEPT %s, unrestricted guest %s (multiboot "
	    "guests), VMCS revision 0x%x, controls pin 0x%x proc 0x%x proc2 0x%x exit 0x%x "
	    "entry 0x%x\n",
	    vmx_caps.vpid ? "yes" : "no",
	    vmx_caps.flush.invept_type == INVEPT_ALL_CONTEXT ? "all-context" : "single-context",
	    vmx_caps.unrestricted_guest ? "yes" : "no", vmx_caps.revision, vmx_caps.pin,
	    vmx_caps.proc, vmx_caps.proc2, vmx_caps.exit, vmx_caps.entry);
}

const struct backend_ops vmx_backend = {
	.name = "vmx",
	.vcpu_create = vmx_vcpu_create,
	.vcpu_run = vmx_vcpu_run,
	.vcpu_destroy = vmx_vcpu_destroy,
	.map_ram = vmx_map_ram,
	.inject_exception = vmx_inject_exception,
	.interrupt_allowed = vmx_interrupt_allowed,
	.inject_interrupt = vmx_inject_interrupt,
	.request_interrupt_window = vmx_request_interrupt_window,
	.event_queued = vmx_event_queued,
	.end_interrupt_shadow = vmx_end_interrupt_shadow,
	.guest_cr0 = vmx_guest_cr0,
	.guest_cr3 = vmx_guest_cr3,
	.guest_efer = vmx_guest_efer,
	.guest_cr4 = vmx_guest_cr4,
	.guest_cpl = vmx_guest_cpl,
	.guest_code_bits = vmx_guest_code_bits,
	.guest_rflags = vmx_guest_rflags,
	.guest_seg_base = vmx_guest_seg_base,
	.set_guest_cr2 = vmx_set_guest_cr2,
	.set_guest_efer = vmx_set_guest_efer,
	.guest_pat = vmx_guest_pat,
	.set_guest_pat = vmx_set_guest_pat,
	.set_tsc_offset = vmx_set_tsc_offset,
	.set_guest_cr = vmx_set_guest_cr,
	.exit_name = vmx_exit_name,
	.explain_invalid = vmx_explain_invalid,
	.host_interrupt_window = vmx_host_interrupt_window,
	.cpu_enable = vmx_cpu_enable,
	.idle_wait = vmx_idle_wait,
	.adjust_guest_cpuid = vmx_adjust_guest_cpuid,
	.describe = vmx_describe,
	.single_step_trap = vmx_single_step_trap,
	.nmi_allowed = vmx_nmi_allowed,
	.inject_nmi = vmx_inject_nmi,
	.request_nmi_window = vmx_request_nmi_window,
};
