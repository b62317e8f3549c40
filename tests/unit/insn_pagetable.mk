# Host unit tests for hv/arch/insn.c and hv/arch/pagetable.c (included by the Makefile).
UNIT_TESTS += insn pagetable
UNIT_SRCS_insn := tests/unit/test_insn.c hv/arch/insn.c
UNIT_SRCS_pagetable := tests/unit/test_pagetable.c hv/arch/pagetable.c
