# Host unit tests for an AP's start-up states and this_cpu() (hv/host/smp_state.c, percpu.c).
UNIT_TESTS += smp_state
UNIT_SRCS_smp_state := tests/unit/test_smp_state.c hv/host/smp_state.c hv/host/percpu.c hv/lib/fmt.c
