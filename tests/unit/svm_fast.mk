# Host unit test of SVM's fast exit handlers (hv/svm/svm_fast.c).
UNIT_TESTS += svm_fast
UNIT_SRCS_svm_fast := tests/unit/test_svm_fast.c hv/svm/svm_fast.c hv/core/fast_exit.c
