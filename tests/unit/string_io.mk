# Host unit tests for INS/OUTS decoding (hv/arch/insn.c) and the string-instruction
# register rules (hv/arch/string_insn.h) that core/io.c uses.
UNIT_TESTS += string_io
UNIT_SRCS_string_io := tests/unit/test_string_io.c hv/arch/insn.c
