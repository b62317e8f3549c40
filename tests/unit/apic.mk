UNIT_TESTS += apic
UNIT_SRCS_apic := tests/unit/test_apic.c hv/apic.c hv/apic_ipi.c hv/apic_timer.c
