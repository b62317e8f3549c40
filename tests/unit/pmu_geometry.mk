# Host unit tests for hv/pmu/pmu_geometry.c (included by the Makefile).
UNIT_TESTS += pmu_geometry
UNIT_SRCS_pmu_geometry := tests/unit/test_pmu_geometry.c hv/pmu/pmu_geometry.c hv/lib/fmt.c
