/* SPDX-License-Identifier: MIT */
#ifndef MHV_VM_H
#define MHV_VM_H

#include "vdev/vapic.h"
#include "vdev/fw_cfg.h"
#include "pmu/pmu.h"
#include "xstate/xstate_guest.h"
#include "exit.h"
#include "host/page_alloc.h"
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
};

struct vm;
struct cpu;
struct host_timer;
struct run_results;
struct vm_config;

enum sipi_state {
	SIPI_WAITING,
	SIPI_INIT_SEEN,
	SIPI_STARTED
};

struct vcpu {
	struct guest_regs regs;
	struct vcpu_timing timing;
	struct vm *vm;
	void *vendor; /* struct svm_vcpu or struct vmx_vcpu */
	u64 tsc_adjust;
	struct vapic apic;
	struct vcpu_xstate xstate;
	u64 exits[EXIT_KIND_COUNT];
	bool timed;	/* run with the timed loop (stamps around every entry/exit) */
	u8 pmu_mode;	/* enum pmu_mode; not PMU_OFF: the backend's PMU run loop */
	u8 pmu_account; /* HV_PMU_ACCOUNT_* events counted for emulated instructions */
	struct pmu_state pmu;
	const struct cpuid_cache *cpuid_view; /* what CPUID exits answer from */
	u32 index;			      /* vCPU number = its x2APIC ID */
	bool boot32;		  /* an external guest: any CPU mode; vCPU 0 starts in 32-bit PM */
	bool wait_sipi;		  /* an AP of an external guest: starts at INIT-SIPI */
	u8 sipi_state;		  /* enum sipi_state, written by other vCPUs' CPUs */
	u8 sipi_vector;		  /* real-mode start at sipi_vector << 12 */
	struct cpu *cpu;	  /* the physical CPU it runs on */
	struct host_timer *timer; /* that CPU's host timer */
};

/* The backends' entry code finds the guest GPRs at the start of the vCPU. */
_Static_assert(__builtin_offsetof(struct vcpu, regs) == 0, "regs first in struct vcpu");
_Static_assert(__builtin_offsetof(struct vcpu, timing) == 136, "T_ENTRY_TSC in the entry code");

#define VM_NAME_LEN 32
#define VM_MAX_VCPUS 4
#define VM_CONSOLE_LINE 160

struct vm {
	char name[VM_NAME_LEN];
	u32 id;
	u64 ram_hpa; /* guest RAM: one host-contiguous block at GPA 0 */
	u64 ram_size;
	u64 npt_root; /* nested page table root (host physical) */
	enum vm_stop stop;
	u64 deadline_tsc; /* the time limit, 0 if none */
	u64 time_limit_ms;
	char stop_reason[160];
	s64 exit_code;
	struct vcpu vcpus[VM_MAX_VCPUS];
	u32 nr_vcpus;
	struct page_alloc *arena; /* where its memory came from; NULL: hv_pages */
	struct page_alloc_mark mark;
	/* emulated devices */
	char console_line[VM_CONSOLE_LINE];
	u32 console_len;
	u32 test_port_value;
	u32 shutdown_match;   /* bytes of "Shutdown" seen on GUEST_SHUTDOWN_PORT */
	struct fw_cfg fw_cfg; /* the firmware-configuration ports */
	u64 mmio_scratch;
	/* where results go */
	struct run_results *results;
	const char *suite;
	const struct vm_config *config;
};

/* Host pointer to [gpa, gpa + len) in guest RAM, or NULL if any byte is outside. */
static inline void *gpa_to_hva(struct vm *vm, u64 gpa, u64 len)
{
	if (gpa >= vm->ram_size || len > vm->ram_size - gpa)
		return NULL;
	return (void *)(uintptr_t)(vm->ram_hpa + gpa);
}

void vm_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...) __printf(3, 4);
const char *vm_stop_name(enum vm_stop why);

#endif
