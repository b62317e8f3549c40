UNIT_TESTS += svm_vmcb_check
UNIT_SRCS_svm_vmcb_check := tests/unit/test_svm_vmcb_check.c hv/svm/svm_vmcb_check.c hv/lib/fmt.c
