UNIT_TESTS += svm_clean
UNIT_SRCS_svm_clean := tests/unit/test_svm_clean.c hv/svm/svm_vcpu.c hv/svm/svm_exit.c \
	hv/svm/svm_vmcb_check.c hv/core/backend.c hv/lib/fmt.c
