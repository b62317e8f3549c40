# Host unit tests for hv/host/page_alloc.c (included by the Makefile).
UNIT_TESTS += page_alloc
UNIT_SRCS_page_alloc := tests/unit/test_page_alloc.c hv/host/page_alloc.c
