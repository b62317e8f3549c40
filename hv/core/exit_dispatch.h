/* SPDX-License-Identifier: MIT */
#ifndef MHV_EXIT_DISPATCH_H
#define MHV_EXIT_DISPATCH_H

#include "vm.h"

typedef void exit_handler_fn(struct vcpu *vcpu, const struct vm_exit *exit);

/* Indexed by enum exit_kind; every kind has a handler. */
extern exit_handler_fn *const exit_handlers[EXIT_KIND_COUNT];

exit_handler_fn handle_hypercall;
exit_handler_fn handle_cpuid;
exit_handler_fn handle_msr_read;
exit_handler_fn handle_msr_write;
exit_handler_fn handle_io;
/* IN or OUT (not INS/OUTS) to a port device, RAX in *rax, for the fast
 * exit path: false, with nothing done, for a port without one. */
bool io_port_fast(struct vcpu *vcpu, u16 port, u8 size, bool in, u64 *rax);
/* guest_cpuid() for the fast exit path's leaves other than fast_cpuid()'s */
void guest_cpuid_any(struct vcpu *vcpu, u32 leaf, u32 subleaf, struct cpuid_regs *r);
exit_handler_fn handle_npf;
exit_handler_fn handle_cr_write;

/* The MSRs that only exits reach, as after RESET (core/msr.c); after
 * the vCPU's CPUID view is chosen. */
void msr_vcpu_reset(struct vcpu *vcpu);

/* mhv's own leaves' host-wide bits (once, at init). */
void guest_cpuid_init(void);
/* The VM's CPUID views (vm->cpuid, vm->cpuid_limited) from the host cache
 * and its description (vm->config): vm_init, before its vCPUs take one. */
void guest_cpuid_build(struct vm *vm);

#endif
