# Host unit test of the guest port table as a whole (hv/core/io_ports.h).
UNIT_TESTS += io_ports
UNIT_SRCS_io_ports := tests/unit/test_io_ports.c
