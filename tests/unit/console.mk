# Host unit tests of the console's output from several CPUs at once
# (hv/platform/console.c).  Included by the top-level Makefile.
UNIT_TESTS += console
UNIT_SRCS_console := tests/unit/test_console.c hv/platform/console.c hv/lib/fmt.c
