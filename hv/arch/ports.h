/* SPDX-License-Identifier: MIT */
/* The fixed I/O ports mhv itself uses: a PC's, and its emulators'. */
#ifndef MHV_PORTS_H
#define MHV_PORTS_H

#define PIC1_DATA 0x21 /* 8259A interrupt mask registers (8259A datasheet) */
#define PIC2_DATA 0xa1
#define COM1_PORT 0x3f8
#define RESET_CONTROL_PORT 0xcf9 /* PCH/chipset Reset Control Register */

/* Emulators: the Bochs and QEMU debug console (reads back 0xE9 in Bochs),
 * QEMU's isa-debug-exit as scripts/run-qemu.sh places it, Bochs' shutdown port. */
#define DEBUGCON_PORT 0xe9
#define QEMU_DEBUG_EXIT_PORT 0xf4
#define BOCHS_SHUTDOWN_PORT 0x8900

#endif
