# Host unit tests for the console's serial outputs (hv/platform/serial.c)
# against a 16550 model: the COM port probe, SPCR clocks, dead UARTs.
UNIT_TESTS += serial
UNIT_SRCS_serial := tests/unit/test_serial.c hv/platform/serial.c hv/platform/acpi.c hv/lib/mem_map.c hv/lib/fmt.c
