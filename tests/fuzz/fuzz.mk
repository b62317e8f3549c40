# libFuzzer harnesses for everything mhv parses from outside (README:
# Fuzzing).  Included by the top-level Makefile.
FUZZ_TARGETS := config acpi insn hypercall multiboot
FUZZ_SRCS_config := tests/fuzz/fuzz_config.c hv/config.c hv/fmt.c
FUZZ_SRCS_acpi := tests/fuzz/fuzz_acpi.c hv/acpi.c
FUZZ_SRCS_insn := tests/fuzz/fuzz_insn.c hv/insn.c
FUZZ_SRCS_hypercall := tests/fuzz/fuzz_hypercall.c hv/hypercall.c hv/config.c hv/fmt.c hv/stats.c
FUZZ_SRCS_multiboot := tests/fuzz/fuzz_multiboot.c hv/multiboot.c hv/fmt.c
