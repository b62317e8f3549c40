# Host unit test of the exit path's duties (hv/core/duties.inc), run natively.
UNIT_TESTS += exit_duties
UNIT_SRCS_exit_duties := tests/unit/test_exit_duties.c hv/core/mitigation_policy.c \
	$(B)/unit/exit_duties_probe.o
$(B)/unit/exit_duties_probe.o: tests/unit/exit_duties_probe.asm hv/core/duties.inc \
		hv/core/guest_regs.inc $(B)/hv/core/asm_offsets.inc
	@mkdir -p $(@D)
	@echo '  NASM    $<'
	@$(NASM) -f elf64 -Ihv/ -I$(B)/hv/ -o $@ $<
