UNIT_TESTS += pmu
UNIT_SRCS_pmu := tests/unit/test_pmu.c hv/pmu/pmu_switch.c hv/pmu/pmu_account.c hv/pmu/pmu_pmi.c
UNIT_TESTS += pmu_cpuid
UNIT_SRCS_pmu_cpuid := tests/unit/test_pmu_cpuid.c hv/pmu/pmu_cpuid.c
