/* SPDX-License-Identifier: MIT */
#ifndef MHV_NMI_MCE_H
#define MHV_NMI_MCE_H

#include "cpu_tables.h"

/* Vector 2 on the host: counted and reported, then the host goes on. */
void host_nmi(const struct isr_frame *f);
u64 host_nmi_count(void);
/* Vector 1 that mhv did not arm (no DR7 enable, TF clear): counted,
 * reported once, survived (true); false for one mhv armed. */
bool host_stray_db(const struct isr_frame *f);
u64 host_stray_db_count(void);
/* From CPUID: CR4.MCE set on the BSP, and the banks that hold a logged
 * error printed, or one line saying there are none. */
void mce_init(void);
/* CR4.MCE set on this CPU (an AP) where the CPU has it. */
void mce_cpu_enable(void);
/* Vector 18: the error banks are printed, then the fatal status. */
void host_machine_check(const struct isr_frame *f) __noreturn;
/* The same for a machine check that made a guest exit (the #MC intercept,
 * or a VM entry that failed on one): no handler ran for it. */
void host_machine_check_in_guest(u64 guest_rip) __noreturn;

#endif
