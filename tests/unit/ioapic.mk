UNIT_TESTS += ioapic
UNIT_SRCS_ioapic := tests/unit/test_ioapic.c hv/vdev/ioapic.c
