# Host unit test: both backends' fast tables against core/fast_exit.c's rules.
UNIT_TESTS += fast_exit
UNIT_SRCS_fast_exit := tests/unit/test_fast_exit.c hv/core/fast_exit.c hv/svm/svm_fast.c hv/vmx/vmx_fast.c
