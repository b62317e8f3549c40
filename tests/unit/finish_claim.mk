# Host unit test of which CPU ends the run (hv/host/finish_claim.h), with
# threads racing through it.
UNIT_TESTS += finish_claim
UNIT_SRCS_finish_claim := tests/unit/test_finish_claim.c
UNIT_CFLAGS_finish_claim := -pthread
