/* SPDX-License-Identifier: MIT */
/*
 * The contract between mhv and its test guests: memory layout, the
 * hypercall ABI and the emulated devices.  Shared by hv/ and guest-tests/.
 *
 * Hypercalls: VMMCALL (AMD) or VMCALL (Intel) with the function number in
 * RAX and arguments in RDI, RSI, RDX, RCX; the result comes back in RAX.
 * Pointers are guest-physical (guests run on an identity map).
 */
#ifndef MHV_GUEST_ABI_H
#define MHV_GUEST_ABI_H

#include "types.h"
#include "pmu_modes.h"

enum hypercall_nr {
	HC_NULL = 0,	     /* nothing but the round trip: the benchmark floor */
	HC_PRINT = 1,	     /* (str, len) */
	HC_TEST_RESULT = 2,  /* (struct hc_test_result *) */
	HC_BENCH_RESULT = 3, /* (struct hc_bench_result *) */
	HC_EXIT = 4,	     /* (code): the guest is done */
	HC_TEST_WANTED = 5,  /* (name): 1 if the config selects this test, else 0 */
	HC_EXIT_COUNT = 6,   /* (exit kind): exits of that kind so far on this vCPU */
	HC_PARAMS = 7,	     /* (struct hc_params *): run parameters from the config */
	/* In a timed VM: RAX = TSC just after this exit, RDX = TSC just before
	 * the entry that started the guest's current run (else both 0) */
	HC_TIMESTAMPS = 8,
	HC_COUNT
};

#define HC_ERROR ((u64)-1) /* bad number or bad pointer */

/*
 * Under Linux KVM (scripts/kvm/mhv-kvm.c) the same hypercalls travel by
 * port I/O: KVM answers an unknown VMCALL/VMMCALL in the kernel with
 * -KVM_ENOSYS and never exits to user space (arch/x86/kvm/x86.c,
 * kvm_emulate_hypercall), while an OUT to a port no in-kernel device
 * claims does (KVM_EXIT_IO).  Same registers as above; OUT of EAX to this
 * port.  The runtime chooses once, from CPUID 0x40000000's signature.
 */
#define GUEST_HC_PORT 0x0ee0
#define KVM_SIGNATURE_EBX 0x4b4d564b /* "KVMK" */
#define KVM_SIGNATURE_ECX 0x564b4d56 /* "VMKV" */
#define KVM_SIGNATURE_EDX 0x0000004d /* "M\0\0\0" */

enum test_status {
	TEST_PASS = 0,
	TEST_FAIL = 1,
	TEST_SKIP = 2
};

#define HC_NAME_LEN 32
#define HC_REASON_LEN 96

struct hc_test_result {
	char name[HC_NAME_LEN];
	u32 status; /* enum test_status */
	u32 reserved;
	char reason[HC_REASON_LEN];
};

#define HC_BENCH_MAX_SAMPLES 4096

struct hc_bench_result {
	char name[HC_NAME_LEN];
	u32 nr_samples;	 /* batches */
	u32 iterations;	 /* per batch */
	u64 samples_gpa; /* u64[nr_samples]: TSC ticks per iteration, one per batch */
	char unit[8];	 /* "cycles" */
	char skip_reason[HC_REASON_LEN]; /* non-empty: the test could not run */
};

struct hc_params {
	u32 iterations, batches, warmup, variant;
	/* the fuzz suite (guest-tests/fuzz.c): its seed ("fuzz_seed =", or
	 * one mhv picks) and the exits it causes ("fuzz_exits =") */
	u32 fuzz_seed, fuzz_exits;
};

/*
 * The fuzz guest's flight recorder, at a fixed guest-physical page: its
 * seed and the last FUZZ_RING_LEN operations it tried, written before
 * each one, so that mhv can print them when the VM or mhv's self-check
 * fails (hv/lab/runner_fuzz.c).
 */
#define GUEST_FUZZ_RING 0x8000ull
#define FUZZ_RING_MAGIC 0x474e495258465a46ull /* "FZFXRING" read as bytes, little-endian */
#define FUZZ_RING_LEN 16
struct fuzz_ring_op {
	u32 n;	/* the operation's number in the run, from 1 */
	u16 op; /* its kind (guest-tests/fuzz.h enum fuzz_op) */
	u16 size;
	u64 a, b; /* its operands: MSR/port/address/leaf, value/subleaf */
};
struct fuzz_ring {
	u64 magic;
	u32 seed, done;				/* done: operations tried */
	struct fuzz_ring_op ops[FUZZ_RING_LEN]; /* [done % FUZZ_RING_LEN] the latest */
};

/* Guest-physical layout built by mhv (all inside guest RAM) */
#define GUEST_RAM_SIZE (4ull << 20)
#define GUEST_PML4 0x1000ull
#define GUEST_PDPT 0x2000ull
#define GUEST_PD 0x3000ull  /* four pages: 4 GiB with 2 MiB pages */
#define GUEST_GDT 0x7000ull /* null, code 0x08, data 0x10, TSS 0x18 */
#define GUEST_GDT_LIMIT (5 * 8 - 1)
#define GUEST_TSS 0x7100ull
#define GUEST_TSS_SEL 0x18
/* External guests entering in 64-bit mode (the Linux boot protocol's
 * __BOOT_CS and __BOOT_DS): their selectors in the GDT at GUEST_GDT */
#define GUEST_BOOT64_CS 0x10
#define GUEST_BOOT64_DS 0x18
#define GUEST_LOAD 0x100000ull
#define GUEST_STACK_TOP (GUEST_RAM_SIZE - 0x1000ull)
#define GUEST_IDENTITY_MAP (4ull << 30)

/* Emulated devices */
#define GUEST_SERIAL_PORT 0x3f8
/* 32-bit register, read back as written, each byte lane on its own: the
 * I/O port of QEMU's pc-testdev, which kvm-unit-tests checks */
#define GUEST_TEST_PORT 0xe0
#define GUEST_MMIO_BASE 0xc0000000ull /* MMIO test device, outside RAM: reached through NPF */
#define GUEST_MMIO_SIZE 0x1000ull
#define MMIO_REG_ID 0x0			 /* read-only: MMIO_DEVICE_ID */
#define MMIO_REG_SCRATCH 0x8		 /* read/write, 1/2/4/8 bytes */
#define MMIO_DEVICE_ID 0x44564d4d	 /* "MMVD" */
#define GUEST_UNBACKED_GPA 0x80000000ull /* neither RAM nor device */
/* Multiboot guests: the memory window of QEMU's pc-testdev, which
 * kvm-unit-tests maps as its "MMIO" page: reads return what was written */
#define GUEST_TESTDEV_MEM 0xff000000ull
#define GUEST_TESTDEV_MEM_SIZE 0x10000ull
#define GUEST_PM_TIMER_PORT 0x608  /* ACPI PM timer, as at PMBASE 0x600 on Q35 */
#define GUEST_PM1A_EVT_PORT 0x600  /* PM1 status and enable (ACPI 6.5 §4.8.3.1) */
#define GUEST_PM1A_CNT_PORT 0x604  /* PM1 control: SCI_EN, SLP_TYP, SLP_EN (§4.8.3.2.1) */
#define GUEST_PM1_SLP_TYP_S5 7	   /* the DSDT's \_S5 sleep type: soft off, as ICH9's */
#define GUEST_SCI_IRQ 9		   /* the FADT's SCI_INT, as on a PC chipset */
#define GUEST_PIT_GSI 2		   /* ISA IRQ0 (PIT channel 0) on I/O APIC pin 2, as on a PC */
#define GUEST_EXIT_PORT 0xf4	   /* writes end the VM with that exit code */
#define GUEST_SHUTDOWN_PORT 0x8900 /* "Shutdown" ends the VM (Bochs' port) */
/* QEMU's pc-testdev interrupt lines: OUT of 1 / 0 to port 0x2000 + n
 * asserts / deasserts the I/O APIC's input n */
#define GUEST_IRQ_LINE_PORT 0x2000
#define HC_UNKNOWN_NR 0xffff /* never a hypercall: the vmcall benchmark's number */

/* CPUID 0x40000001 EBX: what mhv offers beyond the host's CPUID */
#define HV_FEATURE_TIMER BIT(0) /* a TSC deadline fires while the guest runs */
/* An emulator whose interrupt windows can close before a pending interrupt
 * is taken (QEMU TCG), so back-to-back self-IPIs may coalesce in IRR */
#define HV_FEATURE_LOOSE_WINDOWS BIT(1)

/* CPUID 0x40000001 ECX: the VM's PMU mode, numbered as enum pmu_mode
 * (both from lib/pmu_modes.h) */
#define HV_PMU_NUMBER_OF(id, word, guest_pmu, sw_switch) HV_PMU_##id,
enum hv_pmu_mode {
	PMU_MODES(HV_PMU_NUMBER_OF) HV_PMU_MODE_COUNT
};
/* CPUID 0x40000001 EDX: events mhv adds to the guest's counters for each
 * instruction it emulates (config pmu_account) */
#define HV_PMU_ACCOUNT_INSN BIT(0)
#define HV_PMU_ACCOUNT_BRANCH BIT(1)

/* Several vCPUs: each enters GUEST_LOAD with RDI = variant | index << 8
 * and its own stack, GUEST_VCPU_STACK below the previous one's. */
#define GUEST_VCPU_SHIFT 8
#define GUEST_VCPU_STACK 0x10000ull

/*
 * What a guest program tells mhv before it runs: the most benchmark rows
 * each of its variants reports, from the program's own tables.  The run
 * is sized from it before the first VM starts (hv/lab/plan.c), and a VM
 * that reports more than its variant's share is refused.  It sits at
 * GUEST_INFO_OFFSET in the image (guest-tests/guest.ld checks).
 */
#define GUEST_INFO_OFFSET 0x40
#define GUEST_INFO_MAGIC 0x4f464e4956484d00ull /* "\0MHVINFO" read as bytes, little-endian */
#define GUEST_INFO_VARIANTS 32
struct guest_info {
	u64 magic;
	u16 bench_rows[GUEST_INFO_VARIANTS]; /* index: the variant */
};

/* Entry: RDI = variant (which program of the blob), RSI = GUEST_RAM_SIZE */

#endif
