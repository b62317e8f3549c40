UNIT_TESTS += vmx_guest_check
UNIT_SRCS_vmx_guest_check := tests/unit/test_vmx_guest_check.c hv/vmx/vmx_guest_check.c hv/lib/fmt.c
