UNIT_TESTS += mtrr
UNIT_SRCS_mtrr := tests/unit/test_mtrr.c hv/core/mtrr.c
