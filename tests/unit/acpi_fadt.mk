UNIT_TESTS += acpi_fadt
UNIT_SRCS_acpi_fadt := tests/unit/test_acpi_fadt.c hv/platform/acpi_fadt.c hv/platform/acpi.c \
	hv/lib/mem_map.c
