UNIT_TESTS += xstate
UNIT_SRCS_xstate := tests/unit/test_xstate.c hv/xstate/xstate_size.c hv/xstate/xss_allow.c
