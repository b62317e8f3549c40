# Host unit tests for the one-shot count of hv/platform/host_timer.h.
UNIT_TESTS += host_timer
UNIT_SRCS_host_timer := tests/unit/test_host_timer.c
