# Host unit tests for hv/platform/srat.c (included by the Makefile).
UNIT_TESTS += srat
UNIT_SRCS_srat := tests/unit/test_srat.c hv/platform/srat.c
