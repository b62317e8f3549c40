/* SPDX-License-Identifier: MIT */
#ifndef MHV_HOST_EVENTS_H
#define MHV_HOST_EVENTS_H

#include "cpu_tables.h"

/* Vector 2 on the host: counted and reported, then the host goes on. */
void host_nmi(const struct isr_frame *f);
u64 host_nmi_count(void);
/* Vector 18: the error banks are printed, then the fatal status. */
void host_machine_check(const struct isr_frame *f) __noreturn;

#endif
