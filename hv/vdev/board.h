/* SPDX-License-Identifier: MIT */
/*
 * The VM's PC board: the devices every VM has, their state and locks,
 * and the ranges they register on the VM's bus (core/bus.h) when the VM
 * is made.  The core reaches them only through the bus; the board's own
 * files reach one another through this struct (vm->board).
 */
#ifndef MHV_BOARD_H
#define MHV_BOARD_H

#include "fw_cfg.h"
#include "ioapic.h"
#include "pit.h"
#include "rtc_cmos.h"
#include "uart16550.h"
#include "lib/types.h"

struct vm;
struct boot_wall_clock;

/* The PC's reset sources (vdev/pc_reset.c): port 0x92, 0xCF9, the 8042. */
struct pc_reset {
	u8 sysctl_a, rst_cnt;
	u8 i8042_cmd;	 /* a command waiting for its data byte, or 0 */
	u8 i8042_out;	 /* the byte the data port returns */
	bool i8042_full; /* ... and the status register says so */
};

struct board {
	struct uart16550 com1;
	volatile bool com1_lock; /* the vCPUs of a VM share each device */
	struct pit pit;		 /* the 8254 and port 0x61 */
	volatile bool pit_lock;
	u32 pit_vcpu;	     /* whose host timer carries channel 0's IRQ0 (pit_timer.c) */
	struct rtc_cmos rtc; /* ports 0x70-0x71 */
	volatile bool rtc_lock;
	struct ioapic ioapic;
	struct fw_cfg fw_cfg; /* the firmware-configuration ports */
	u16 pm1_en;	      /* ACPI PM1 enable register */
	struct pc_reset reset;
};

/*
 * Make @vm's board: its memory from the VM's arena (given back with the
 * VM) on NUMA node @node first, the one its vCPUs run on, since every
 * device exit takes the board's locks; the devices reset, every range
 * on vm->bus.  -1, with a line on the console saying what failed, when
 * memory is short or a range clashes with another.
 */
int board_attach(struct vm *vm, u32 node);
/* What the firmware-configuration ports tell an external guest. */
void board_set_fw_cfg(struct vm *vm, u64 ram_size, u16 nr_cpus);
/* The firmware's wall clock, for the VMs' CMOS clocks (after tsc_init);
 * says what it took. */
void board_set_wall_clock(const struct boot_wall_clock *w);

#endif
