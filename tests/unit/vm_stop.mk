# Host unit test: a VM's first stop wins with its exit code (hv/core/vm_stop.c),
# through the real hypercall handler.
UNIT_TESTS += vm_stop
UNIT_SRCS_vm_stop := tests/unit/test_vm_stop.c hv/core/vm_stop.c hv/core/hypercall.c hv/lib/stats.c \
	hv/lib/fmt.c
