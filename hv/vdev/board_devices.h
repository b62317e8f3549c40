/* SPDX-License-Identifier: MIT */
/*
 * The board's port and MMIO handlers (bus.h's signatures), for the
 * tables in board.c.  Each @dev is the board, but for the test devices,
 * whose @dev is the VM (its benchmark instruments: core/vm.h).
 */
#ifndef MHV_BOARD_DEVICES_H
#define MHV_BOARD_DEVICES_H

#include "core/bus.h"

#define PORT_HANDLERS(name)                                               \
	u32 name##_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size); \
	void name##_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
#define MMIO_HANDLER(name)                                                                         \
	void name##_access(void *dev, struct vcpu *vcpu, u64 offset, const struct mmio_insn *insn, \
			   u64 *reg)

/* test_devices.c */
PORT_HANDLERS(test_port);
PORT_HANDLERS(exit_port);
PORT_HANDLERS(shutdown_port);
PORT_HANDLERS(irq_lines);
MMIO_HANDLER(test_mmio);
/* acpi_pm.c */
PORT_HANDLERS(pm_timer);
PORT_HANDLERS(pm1_evt);
PORT_HANDLERS(pm1_cnt);
/* isa_ports.c */
PORT_HANDLERS(com1);
PORT_HANDLERS(pit_port);
PORT_HANDLERS(port_b);
PORT_HANDLERS(rtc_port);
PORT_HANDLERS(fw_cfg);
/* pc_reset.c */
PORT_HANDLERS(sysctl_a);
PORT_HANDLERS(rst_cnt);
PORT_HANDLERS(i8042_data);
PORT_HANDLERS(i8042_cmd);
/* apic_windows.c */
MMIO_HANDLER(xapic);
MMIO_HANDLER(ioapic);

#endif
