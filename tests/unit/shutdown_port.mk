# Host unit test of Bochs' shutdown port matcher (hv/vdev/shutdown_port.h).
UNIT_TESTS += shutdown_port
UNIT_SRCS_shutdown_port := tests/unit/test_shutdown_port.c
