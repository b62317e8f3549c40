# Host unit tests of the KVM side's result channel (scripts/kvm/kvm_hc.c).
UNIT_TESTS += kvm_hc
UNIT_SRCS_kvm_hc := tests/unit/test_kvm_hc.c scripts/kvm/kvm_hc.c hv/lab/report.c \
	hv/lab/report_classes.c hv/platform/insn_class.c hv/lib/fmt.c hv/lib/stats.c
