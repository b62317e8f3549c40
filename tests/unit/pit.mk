UNIT_TESTS += pit
UNIT_SRCS_pit := tests/unit/test_pit.c hv/vdev/pit.c
