/* SPDX-License-Identifier: MIT */
#ifndef MHV_VM_H
#define MHV_VM_H

#include "vdev/vapic.h"
#include "bus.h"
#include "mtrr.h"
#include "pmu/pmu.h"
#include "xstate/xstate_guest.h"
#include "exit.h"
#include "host/cpu_features.h"
#include "host/page_alloc.h"
#include "lib/guest_abi.h"
#include "lib/types.h"

/* Guest GPRs in hardware encoding order: index = ModRM register number. */
enum gpr {
	GPR_RAX,
	GPR_RCX,
	GPR_RDX,
	GPR_RBX,
	GPR_RSP,
	GPR_RBP,
	GPR_RSI,
	GPR_RDI,
	GPR_R8,
	GPR_R9,
	GPR_R10,
	GPR_R11,
	GPR_R12,
	GPR_R13,
	GPR_R14,
	GPR_R15,
	GPR_COUNT
};

struct guest_regs {
	u64 gpr[GPR_COUNT];
	u64 rip; /* kept here so that skipping an instruction is one store */
};

/* TSC stamps of the timed run loops (the split-latency benchmarks). */
struct vcpu_timing {
	u64 entry_tsc; /* just before the last VMRUN / VM entry */
	u64 exit_tsc;  /* just after the last #VMEXIT / VM exit */
};

/* Why a VM stopped. */
enum vm_stop {
	VM_RUNNING,
	VM_STOP_EXIT, /* the guest asked to exit (hypercall) */
	VM_STOP_TRIPLE_FAULT,
	VM_STOP_BAD_ACCESS, /* guest-physical access outside RAM and devices */
	VM_STOP_ENTRY_FAILED,
	VM_STOP_UNHANDLED,
	VM_STOP_INSN_DECODE, /* bytes at RIP are not the instruction the exit names */
	VM_STOP_TIME_LIMIT,  /* ran past its time limit (e.g. a spin without exits) */
	VM_STOP_RESET,	     /* the guest reset its machine (port 0x92, 0xCF9, 8042) */
};

struct vm;
struct cpu;
struct host_timer;
struct vm_config;
struct vm_harness;
struct pt_ctx;
struct board;

enum sipi_state {
	SIPI_WAITING,
	SIPI_INIT_SEEN,
	SIPI_STARTED
};

/*
 * The vCPU's machine-check architecture (core/msr.c): banks that hold what
 * the guest writes and never log an error, as under KVM without injected
 * machine checks.  QEMU gives KVM guests 10 banks.
 */
#define VCPU_MCE_BANKS 10
#define VCPU_MSR_REFUSALS 8
#define VCPU_MODEL_MSRS 7
struct vcpu_mce {
	u64 status;		     /* IA32_MCG_STATUS */
	u64 bank[VCPU_MCE_BANKS][4]; /* MCi_CTL, MCi_STATUS, MCi_ADDR, MCi_MISC */
};

struct vcpu {
	struct guest_regs regs;
	struct vcpu_timing timing;
	/* The per-exit-code handlers the backend's run loop calls, where it
	 * calls through the vCPU's own table (the PMU loops: svm_pmu.c, vmx_pmu.c). */
	const void *exit_table;
	struct vm *vm;
	void *vendor; /* struct svm_vcpu or struct vmx_vcpu */
	/*
	 * The guest's RFLAGS as the last exit left it, read when mhv
	 * completes an instruction (its TF): the VMCB's own field on SVM,
	 * exit_rflags on VMX (one VMREAD into it per exit).  Read-only.
	 */
	const u64 *guest_rflags;
	u64 exit_rflags;
	u64 tsc_adjust;
	u64 tsc_offset; /* guest TSC = host TSC + tsc_offset (mod 2^64) */
	struct vapic apic;
	struct vcpu_xstate xstate;
	u64 exits[EXIT_KIND_COUNT];
	/* the MSRs the guest was refused (#GP), for the report at its end:
	 * what a guest missed is what a hypervisor developer looks for */
	struct msr_refusal {
		u32 index;
		bool write;
		u32 count;
	} msr_refused[VCPU_MSR_REFUSALS];
	u32 msr_refused_other; /* refusals of MSRs past the table's room */
	bool timed;	       /* run with the timed loop (stamps around every entry/exit) */
	u8 duty_set;	       /* index in duty_sets (core/mitigation_policy.h): its loop */
	bool mitigated;	       /* "auto": IBPB and host controls around its run */
	u8 pmu_mode;	       /* enum pmu_mode; not PMU_OFF: the backend's PMU run loop */
	u8 pmu_account;	       /* HV_PMU_ACCOUNT_* events counted for emulated instructions */
	struct pmu_state pmu;
	/* what CPUID exits answer from, and what the MSRs and devices ask
	 * the VM has: its VM's cpuid or cpuid_limited */
	const struct cpuid_cache *cpuid_view;
	u32 index;		  /* vCPU number = its x2APIC ID */
	bool boot32;		  /* an external guest: any CPU mode; vCPU 0 starts in 32-bit PM */
	bool boot64;		  /* with boot32: starts in 64-bit mode (Linux boot protocol) */
	bool wait_sipi;		  /* an AP of an external guest: starts at INIT-SIPI */
	u8 sipi_state;		  /* enum sipi_state, written by other vCPUs' CPUs */
	u8 sipi_vector;		  /* real-mode start at sipi_vector << 12 */
	u8 nmi_pending;		  /* an NMI waits for injection; other vCPUs' CPUs set it */
	struct cpu *cpu;	  /* the physical CPU it runs on */
	struct host_timer *timer; /* that CPU's host timer */
	/* MSRs that only exits reach (core/msr.c) */
	u64 misc_enable; /* IA32_MISC_ENABLE */
	u64 ds_area;	 /* IA32_DS_AREA */
	struct vcpu_mce mce;
	u64 model_msrs[VCPU_MODEL_MSRS]; /* AMD model-specific: core/msr_model.c */
	struct vcpu_mtrr mtrr;
	u8 shutdown_match; /* bytes of "Shutdown" it wrote to GUEST_SHUTDOWN_PORT (vdev/test_devices.c) */
	/* the bus range of its last port access, which a guest polling one
	 * device hits again (core/io.c); &bus_no_ports at first */
	const struct bus_ports *port_hint;
};

/*
 * The backends' entry code reads struct vcpu at offsets generated from
 * this struct at build time (core/asm_offsets.c -> core/guest_regs.inc);
 * it finds the guest GPRs at the start of the vCPU.
 */
_Static_assert(__builtin_offsetof(struct vcpu, regs) == 0, "regs first in struct vcpu");

/* Whether the vCPU's VM has an x2APIC (struct vm_config's no_x2apic, in its
 * CPUID view): the virtual APIC asks before IA32_APIC_BASE enters x2APIC
 * mode, and the x2APIC MSRs answer only in that mode. */
static inline bool vcpu_has_x2apic(const struct vcpu *vcpu)
{
	return vcpu->cpuid_view->std[1].ecx & CPUID1_ECX_X2APIC;
}

#define VM_NAME_LEN 32
#define VM_MAX_VCPUS 4
#define VM_CONSOLE_LINE 160

struct vm {
	char name[VM_NAME_LEN];
	u32 id;
	u64 ram_hpa; /* guest RAM: one host-contiguous block at GPA 0 */
	u64 ram_size;
	u64 testdev_hpa; /* multiboot guests: pc-testdev's window (lib/guest_abi.h); 0: none */
	u64 npt_root;	 /* nested page table root (host physical) */
	enum vm_stop stop;
	u64 deadline_tsc; /* the time limit, 0 if none */
	u64 time_limit_ms;
	u64 timer_reach_tsc; /* a test's shortened host timer reach, 0: none */
	char stop_reason[160];
	s64 exit_code;
	struct vcpu vcpus[VM_MAX_VCPUS];
	u32 nr_vcpus;
	struct page_alloc *arena; /* where its memory came from; NULL: hv_pages */
	struct page_alloc_mark mark;
	/* bytes of console output the guest gave and mhv printed in lines:
	 * equal once the line is flushed (the hostile suite checks) */
	u64 console_taken, console_printed;
	volatile bool console_lock; /* the line's, for vCPUs on several CPUs */
	char console_line[VM_CONSOLE_LINE];
	u32 console_len;
	/*
	 * The exit benchmarks' instruments: the test port's and the MMIO
	 * test device's registers, here because the fast exit paths read
	 * and write them inline (svm_fast.c, vmx_fast.c, core/mmio.c); the
	 * bus reaches them too (vdev/test_devices.c).
	 */
	u32 test_port_value;
	u64 mmio_scratch;
	/* the devices: their ranges, and the board that serves them */
	struct bus bus;
	struct board *board;
	const struct vm_config *config;
	/* its guest CPUID, built from its config by vm_init (core/cpuid_guest.c),
	 * and the same with IA32_MISC_ENABLE.LIMIT_CPUID set: each vCPU's
	 * cpuid_view is one of them */
	struct cpuid_cache cpuid, cpuid_limited;
	/* who hears the guest's results and answers its questions */
	const struct vm_harness *harness;
	void *harness_ctx;
};

/*
 * What a VM is made of: its name, configuration column, time limit and
 * vCPUs, the run-wide settings its configuration may override, and who
 * hears its results.  The blob fields are for mhv's own guest programs
 * (vm_create); a multiboot kernel brings its image itself
 * (loader/guest_kernel.h).
 */
struct vm_spec {
	const char *name;
	const struct vm_config *config;
	u64 time_limit_ms; /* 0: none */
	/* A test knob: the host timer is never set further ahead than this, so
	 * the time limit holds only if it is re-armed each time (0: as far as
	 * the hardware reaches). */
	u64 timer_reach_ms;
	u32 nr_vcpus;	   /* 0 or 1: one vCPU */
	bool xstate_cache; /* CPUID.0xD from the cache, unless config->xstate_uncached */
	u32 pmu_account;   /* HV_PMU_ACCOUNT_* events, unless config->no_accounting */
	const struct vm_harness *harness;
	void *harness_ctx;
	/* a program of mhv's own */
	const u8 *blob;
	size_t blob_size;
	u32 variant; /* which of the blob's programs: the guest's RDI */
	bool timed;  /* the entry code stamps the TSC around each entry and exit */
	/* none of the exit path's duties (core/mitigations.h): the floor */
	bool mitigations_off;
	/* The CPU its vCPU 0 runs on: the RAM comes from its NUMA node first;
	 * NULL: the CPU that creates the VM (host/numa.h). */
	const struct cpu *home;
};
/* The NUMA node a VM of @spec takes its RAM from first. */
u32 vm_ram_node(const struct vm_spec *spec);

/* Why vm_create could not make a VM. */
enum vm_create_error {
	VM_CREATED,
	VM_NO_MEMORY,
	VM_IMAGE_TOO_LARGE, /* the blob does not fit below the vCPUs' stacks */
	VM_NO_DEVICES,	    /* its board could not be made (the console says why) */
};

/* "out of memory", "guest image too large": for the line that refuses the VM. */
const char *vm_create_error_str(enum vm_create_error err);

/* Host pointer to [gpa, gpa + len) in guest RAM, or NULL if any byte is outside. */
static inline void *gpa_to_hva(struct vm *vm, u64 gpa, u64 len)
{
	if (gpa >= vm->ram_size || len > vm->ram_size - gpa) {
		/* the window is memory too: what mhv emulates (string I/O, a
		 * MOV's fetch) may touch it as the guest's own accesses do */
		if (vm->testdev_hpa && gpa - GUEST_TESTDEV_MEM < GUEST_TESTDEV_MEM_SIZE &&
		    len <= GUEST_TESTDEV_MEM + GUEST_TESTDEV_MEM_SIZE - gpa)
			return (void *)(uintptr_t)(vm->testdev_hpa + (gpa - GUEST_TESTDEV_MEM));
		return NULL;
	}
	return (void *)(uintptr_t)(vm->ram_hpa + gpa);
}

void vm_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...) __printf(3, 4);
/* The guest's exit (VM_STOP_EXIT) with its exit code, which holds only
 * when this is the VM's first stop. */
void vm_stop_exit(struct vm *vm, s64 code, const char *fmt, ...) __printf(3, 4);
const char *vm_stop_name(enum vm_stop why);

/*
 * What every VM starts from: @vm zeroed and named, its spec's settings,
 * each vCPU's XSTATE and PMU state reset, its memory mark taken (from the
 * running CPU's arena), its board attached to its bus.  The caller adds
 * RAM and the vCPUs' entry state; vm_destroy even when it fails.
 */
enum vm_create_error vm_init(struct vm *vm, const struct vm_spec *spec, u32 id);
/* Guest RAM with @spec's blob, its tables and the vCPUs' initial state.
 * No CPU state yet: that is made by vm_vcpu_run on the CPU that runs the
 * vCPU.  vm_destroy even when it fails. */
enum vm_create_error vm_create(struct vm *vm, const struct vm_spec *spec, u32 id);
/* On the CPU that runs it: the vCPU's VMCB/VMCS, its run until the VM
 * stops (vm->stop says why), and its teardown. */
void vm_vcpu_run(struct vcpu *vcpu);
/* @ms in TSC ticks, as time limits count them (a nominal 1 GHz where the
 * TSC has no known frequency, as under Bochs). */
u64 vm_ms_to_tsc(u64 ms);
/* Give back the VM's memory: all taken since vm_init's mark. */
void vm_destroy(struct vm *vm);
/* Map guest RAM in the VM's nested table (NPT or EPT: the ctx and leaf
 * flags say which), creating its root on first use. */
int vm_map_nested(struct vm *vm, struct pt_ctx *ctx, u64 gpa, u64 hpa, u64 size, u64 leaf_flags);

#endif
