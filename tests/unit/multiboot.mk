UNIT_TESTS += multiboot
UNIT_SRCS_multiboot := tests/unit/test_multiboot.c hv/multiboot.c hv/fmt.c
