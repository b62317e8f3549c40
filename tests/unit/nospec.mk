# Host unit tests for the speculation-safe index clamp (hv/lib/nospec.h).
UNIT_TESTS += nospec
UNIT_SRCS_nospec := tests/unit/test_nospec.c
