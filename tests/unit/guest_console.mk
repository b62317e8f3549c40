# Host unit tests of a guest's console lines (hv/vdev/guest_console.c),
# from one vCPU and from several threads at once.  Included by the
# top-level Makefile.
UNIT_TESTS += guest_console
UNIT_SRCS_guest_console := tests/unit/test_guest_console.c hv/vdev/guest_console.c
