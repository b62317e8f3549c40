# Host unit tests for the firmware's memory map on its way to the page
# allocator: hv/lib/mem_map.c and hv/host/page_alloc.c (included by the Makefile).
UNIT_TESTS += mem_map
UNIT_SRCS_mem_map := tests/unit/test_mem_map.c hv/lib/mem_map.c hv/host/page_alloc.c
