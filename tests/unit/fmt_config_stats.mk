# Host unit tests for the printf core, the mhv.cfg parser and the benchmark
# statistics.  Included by the top-level Makefile.
UNIT_TESTS += fmt config stats
UNIT_SRCS_fmt := tests/unit/test_fmt.c hv/lib/fmt.c
UNIT_SRCS_config := tests/unit/test_config.c hv/lab/config.c hv/lib/fmt.c
UNIT_SRCS_stats := tests/unit/test_stats.c hv/lib/stats.c
