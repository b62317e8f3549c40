UNIT_TESTS += vmx
UNIT_SRCS_vmx := tests/unit/test_vmx.c hv/vmx/vmx_controls.c hv/vmx/vmx_exit.c hv/lib/fmt.c
