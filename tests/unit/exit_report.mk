UNIT_TESTS += svm_exit report
UNIT_SRCS_svm_exit := tests/unit/test_svm_exit.c hv/svm/svm_exit.c
UNIT_SRCS_report := tests/unit/test_report.c hv/lab/report.c hv/lab/report_classes.c hv/platform/insn_class.c hv/lib/fmt.c hv/lib/stats.c
