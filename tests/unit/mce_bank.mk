# Host unit test of the machine-check bank write rules (hv/core/mce_bank.h).
UNIT_TESTS += mce_bank
UNIT_SRCS_mce_bank := tests/unit/test_mce_bank.c
