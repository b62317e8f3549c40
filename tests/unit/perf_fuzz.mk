# Host unit tests of the Linux guest's perf_event fuzzer (tests/perf-fuzz):
# its command line, its random source and attributes, its counts.
UNIT_TESTS += perf_fuzz
UNIT_SRCS_perf_fuzz := tests/unit/test_perf_fuzz.c tests/perf-fuzz/args.c tests/perf-fuzz/rng.c \
	tests/perf-fuzz/attr_gen.c tests/perf-fuzz/stats.c
