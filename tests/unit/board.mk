# Host unit test of the VM's bus and the PC board's registrations
# (hv/core/bus.c, hv/vdev/board.c), with the real device models.
UNIT_TESTS += board
UNIT_SRCS_board := tests/unit/test_board.c hv/core/bus.c hv/vdev/board.c \
	hv/vdev/test_devices.c hv/vdev/acpi_pm.c hv/vdev/isa_ports.c hv/vdev/pc_reset.c \
	hv/vdev/apic_windows.c hv/vdev/pit.c hv/vdev/pit_timer.c hv/vdev/rtc_cmos.c \
	hv/vdev/uart16550.c hv/vdev/fw_cfg.c hv/vdev/ioapic.c hv/arch/insn.c
