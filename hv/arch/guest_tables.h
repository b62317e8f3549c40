/* SPDX-License-Identifier: MIT */
/*
 * The tables a suite guest starts on (hv/lib/guest_abi.h's layout): an
 * identity map of the low 4 GiB in 2 MiB pages at GUEST_PML4 and a flat
 * GDT at GUEST_GDT.  Built by mhv for its VMs (core/vm.c) and by the KVM
 * side (scripts/kvm/) for the same guests under Linux KVM.
 */
#ifndef MHV_GUEST_TABLES_H
#define MHV_GUEST_TABLES_H

#include "lib/types.h"

/* Into @ram, guest RAM of at least GUEST_RAM_SIZE bytes that the guest
 * sees at physical address 0; -1 when the tables do not fit. */
int guest_tables_build(u8 *ram);

#endif
