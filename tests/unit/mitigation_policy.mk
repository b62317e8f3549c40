# Host unit tests of the "mitigations = auto" decision (hv/core/mitigation_policy.c).
UNIT_TESTS += mitigation_policy
UNIT_SRCS_mitigation_policy := tests/unit/test_mitigation_policy.c hv/core/mitigation_policy.c
