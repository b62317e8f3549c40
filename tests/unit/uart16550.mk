UNIT_TESTS += uart16550
UNIT_SRCS_uart16550 := tests/unit/test_uart16550.c hv/vdev/uart16550.c
