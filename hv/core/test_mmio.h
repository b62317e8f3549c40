/* SPDX-License-Identifier: MIT */
/*
 * The MMIO test device's registers (lib/guest_abi.h), an instrument of
 * the exit benchmarks: inline here for core/mmio.c's fast path, which
 * mhv's own 64-bit guests take, and on the bus for everything else
 * (vdev/test_devices.c).  Only the scratch register is writable; narrow
 * writes merge into it, the ID register ignores writes.
 */
#ifndef MHV_TEST_MMIO_H
#define MHV_TEST_MMIO_H

#include "vm.h"
#include "arch/insn.h"
#include "lib/guest_abi.h"

static inline u64 test_mmio_reg(const struct vm *vm, u64 offset)
{
	switch (offset) {
	case MMIO_REG_ID:
		return MMIO_DEVICE_ID;
	case MMIO_REG_SCRATCH:
		return vm->mmio_scratch;
	default:
		return 0;
	}
}

static inline __attribute__((always_inline)) void
test_mmio_reg_access(struct vm *vm, u64 offset, const struct mmio_insn *insn, u64 *reg)
{
	if (insn->write) {
		u64 val = insn->has_imm ? insn->imm : mmio_write_value(insn, *reg);

		if (offset >= MMIO_REG_SCRATCH && offset + insn->size <= MMIO_REG_SCRATCH + 8) {
			unsigned shift = (offset - MMIO_REG_SCRATCH) * 8;
			u64 field =
			    insn->size == 8 ? ~0ull : ((1ull << (insn->size * 8)) - 1) << shift;

			vm->mmio_scratch = (vm->mmio_scratch & ~field) | ((val << shift) & field);
		}
	} else {
		u64 aligned = offset & ~7ull, shift = (offset & 7) * 8;

		*reg = mmio_merge_read(insn, *reg, test_mmio_reg(vm, aligned) >> shift);
	}
}

#endif
