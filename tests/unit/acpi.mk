UNIT_TESTS += acpi
UNIT_SRCS_acpi := tests/unit/test_acpi.c hv/platform/acpi.c hv/lib/mem_map.c
