# Host unit tests for hv/arch/mtrr_type.c and the identity map it splits (included by the Makefile).
UNIT_TESTS += mtrr_type
UNIT_SRCS_mtrr_type := tests/unit/test_mtrr_type.c hv/arch/mtrr_type.c hv/arch/pagetable.c
