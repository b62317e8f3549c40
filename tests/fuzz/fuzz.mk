# libFuzzer harnesses for everything mhv parses from outside
# (docs/testing.md, "Fuzzing").  Included by the top-level Makefile.
FUZZ_TARGETS := config acpi insn hypercall multiboot srat
FUZZ_SRCS_config := tests/fuzz/fuzz_config.c hv/lab/config.c hv/lib/fmt.c
FUZZ_SRCS_acpi := tests/fuzz/fuzz_acpi.c hv/platform/acpi.c hv/lib/mem_map.c
FUZZ_SRCS_insn := tests/fuzz/fuzz_insn.c hv/arch/insn.c
FUZZ_SRCS_hypercall := tests/fuzz/fuzz_hypercall.c hv/core/hypercall.c hv/lib/stats.c
FUZZ_SRCS_multiboot := tests/fuzz/fuzz_multiboot.c hv/loader/multiboot.c hv/lib/fmt.c
FUZZ_SRCS_srat := tests/fuzz/fuzz_srat.c hv/platform/srat.c
