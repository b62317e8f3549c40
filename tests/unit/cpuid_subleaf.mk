UNIT_TESTS += cpuid_subleaf
UNIT_SRCS_cpuid_subleaf := tests/unit/test_cpuid_subleaf.c hv/host/cpuid_subleaf.c
