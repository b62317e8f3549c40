UNIT_TESTS += multiboot
UNIT_SRCS_multiboot := tests/unit/test_multiboot.c hv/loader/multiboot.c hv/lib/fmt.c
