UNIT_TESTS += host_ioapic
UNIT_SRCS_host_ioapic := tests/unit/test_host_ioapic.c hv/platform/host_ioapic.c
