UNIT_TESTS += console_log
UNIT_SRCS_console_log := tests/unit/test_console_log.c hv/platform/console_log.c hv/lib/fmt.c
