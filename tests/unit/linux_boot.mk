UNIT_TESTS += linux_boot
UNIT_SRCS_linux_boot := tests/unit/test_linux_boot.c hv/loader/linux_boot.c hv/lib/fmt.c
