# Host unit tests for hv/insn.c and hv/pagetable.c (included by the Makefile).
UNIT_TESTS += insn pagetable
UNIT_SRCS_insn := tests/unit/test_insn.c hv/insn.c
UNIT_SRCS_pagetable := tests/unit/test_pagetable.c hv/pagetable.c
