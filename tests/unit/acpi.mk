UNIT_TESTS += acpi
UNIT_SRCS_acpi := tests/unit/test_acpi.c hv/platform/acpi.c
