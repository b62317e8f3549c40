/* SPDX-License-Identifier: MIT */
/* The fixed I/O ports mhv itself uses: a PC's, and its emulators'. */
#ifndef MHV_PORTS_H
#define MHV_PORTS_H

#define PIC1_DATA 0x21 /* 8259A interrupt mask registers (8259A datasheet) */
#define PIC2_DATA 0xa1
/* The PC's four COM ports, in the order the BIOS numbered them (its data
 * area at 0x400; the addresses Linux's 8250 driver probes, asm/serial.h) */
#define COM1_PORT 0x3f8
#define COM2_PORT 0x2f8
#define COM3_PORT 0x3e8
#define COM4_PORT 0x2e8
#define RESET_CONTROL_PORT 0xcf9 /* PCH/chipset Reset Control Register */
#define RST_CNT_SYS_RST 0x02	 /* hard (1) or soft (0) reset */
#define RST_CNT_RST_CPU 0x04	 /* 0 -> 1 starts the reset SYS_RST names */
#define RST_CNT_FULL_RST 0x08	 /* power cycle with the hard reset */

/* System Control Port A (PS/2 "port 92"): bit 0 0 -> 1 is a fast reset
 * (INIT), bit 1 the A20 gate. */
#define SYSCTL_A_PORT 0x92
#define SYSCTL_A_FAST_RESET 0x01
#define SYSCTL_A_A20 0x02

/* The 8042 keyboard controller: data, and status (read) / command (write). */
#define I8042_DATA_PORT 0x60
#define I8042_CMD_PORT 0x64
#define I8042_STATUS_OBF 0x01	   /* a byte waits at the data port */
#define I8042_STATUS_IBF 0x02	   /* the controller has not taken the last write */
#define I8042_STATUS_SYS 0x04	   /* self-test passed */
#define I8042_STATUS_UNLOCKED 0x10 /* keyboard not inhibited */
#define I8042_CMD_READ_OUTPORT 0xd0
#define I8042_CMD_WRITE_OUTPORT 0xd1
#define I8042_CMD_PULSE_RESET 0xfe /* pulse output port bit 0: the CPU reset line */
#define I8042_OUTPORT_RESET 0x01   /* low: the CPU is held in reset */
#define I8042_OUTPORT_A20 0x02

/* Emulators: the Bochs and QEMU debug console (reads back 0xE9 in Bochs),
 * QEMU's isa-debug-exit as scripts/run-qemu.sh places it, Bochs' shutdown port. */
#define DEBUGCON_PORT 0xe9
#define QEMU_DEBUG_EXIT_PORT 0xf4
#define BOCHS_SHUTDOWN_PORT 0x8900

/* PCI configuration mechanism #1 (PCI Local Bus 3.0 §3.2.2.3.2) */
#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc
#define PCI_CONFIG_ENABLE 0x80000000u

#endif
