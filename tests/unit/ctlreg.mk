# Host unit tests for hv/arch/ctlreg.c (included by the Makefile).
UNIT_TESTS += ctlreg
UNIT_SRCS_ctlreg := tests/unit/test_ctlreg.c hv/arch/ctlreg.c
