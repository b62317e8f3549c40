UNIT_TESTS += cpuid_allow
UNIT_SRCS_cpuid_allow := tests/unit/test_cpuid_allow.c hv/core/cpuid_allow.c hv/arch/ctlreg.c
