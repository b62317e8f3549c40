UNIT_TESTS += apic
UNIT_SRCS_apic := tests/unit/test_apic.c hv/vdev/vapic.c hv/vdev/vapic_ipi.c hv/vdev/vapic_timer.c hv/vdev/vapic_x2apic.c hv/core/vcpu_halt.c
