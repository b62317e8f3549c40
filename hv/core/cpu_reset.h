/* SPDX-License-Identifier: MIT */
#ifndef MHV_CPU_RESET_H
#define MHV_CPU_RESET_H

/*
 * On the CPU a vCPU is about to enter for the first time: the registers
 * that VM entry and exit leave in the CPU put back to their reset values,
 * so that nothing the VM before left there is readable.  Once per vCPU
 * and CPU, never per exit.
 */
void cpu_reset_for_new_vcpu(void);

#endif
