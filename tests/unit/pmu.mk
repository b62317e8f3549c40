UNIT_TESTS += pmu
UNIT_SRCS_pmu := tests/unit/test_pmu.c hv/pmu/pmu_switch.c hv/pmu/pmu_account.c
