// SPDX-License-Identifier: MIT
/*
 * The Fixed ACPI Description Table (signature "FACP"; ACPI 6.5 §5.2.9):
 * where the ACPI PM timer counts and how the machine resets.  Pure: the
 * table comes in, a description goes out.
 */
#include "acpi_fadt.h"
#include "acpi.h"

/* Generic Address Structure (ACPI 6.5 §5.2.3.2) */
struct acpi_gas {
	u8 space_id;
	u8 bit_width;
	u8 bit_offset;
	u8 access_size;
	u64 address;
} __packed;
_Static_assert(sizeof(struct acpi_gas) == 12, "ACPI 6.5 §5.2.3.2, Table 5.1");

/* The FADT up to X_PM_TMR_BLK (ACPI 6.5 §5.2.9, Table 5.9); ACPI 1.0
 * tables end at RESET_REG (116 bytes). */
struct acpi_fadt {
	char signature[4];
	u32 length;
	u8 revision;
	u8 header_rest[27];
	u32 firmware_ctrl;
	u32 dsdt;
	u8 reserved0;
	u8 preferred_pm_profile;
	u16 sci_int;
	u32 smi_cmd;
	u8 acpi_enable, acpi_disable, s4bios_req, pstate_cnt;
	u32 pm1a_evt_blk, pm1b_evt_blk, pm1a_cnt_blk, pm1b_cnt_blk, pm2_cnt_blk;
	u32 pm_tmr_blk;
	u32 gpe0_blk, gpe1_blk;
	u8 pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len;
	u8 gpe0_blk_len, gpe1_blk_len, gpe1_base, cst_cnt;
	u16 p_lvl2_lat, p_lvl3_lat, flush_size, flush_stride;
	u8 duty_offset, duty_width, day_alrm, mon_alrm, century;
	u16 iapc_boot_arch;
	u8 reserved1;
	u32 flags;
	struct acpi_gas reset_reg;
	u8 reset_value;
	u16 arm_boot_arch;
	u8 minor_version;
	u64 x_firmware_ctrl, x_dsdt;
	struct acpi_gas x_pm1a_evt_blk, x_pm1b_evt_blk, x_pm1a_cnt_blk, x_pm1b_cnt_blk;
	struct acpi_gas x_pm2_cnt_blk, x_pm_tmr_blk;
} __packed;
_Static_assert(__builtin_offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "Table 5.9 PM_TMR_BLK");
_Static_assert(__builtin_offsetof(struct acpi_fadt, flags) == 112, "Table 5.9 Flags");
_Static_assert(__builtin_offsetof(struct acpi_fadt, reset_reg) == 116, "Table 5.9 RESET_REG");
_Static_assert(__builtin_offsetof(struct acpi_fadt, reset_value) == 128, "Table 5.9 RESET_VALUE");
_Static_assert(__builtin_offsetof(struct acpi_fadt, x_pm_tmr_blk) == 208, "Table 5.9 X_PM_TMR_BLK");

/* Fixed feature flags (ACPI 6.5 §5.2.9, Table 5.10) */
#define FADT_TMR_VAL_EXT BIT(8)	     /* the PM timer has 32 bits, not 24 */
#define FADT_RESET_REG_SUP BIT(10)   /* RESET_REG and RESET_VALUE are valid */
#define FADT_HW_REDUCED_ACPI BIT(20) /* no fixed hardware: no PM timer */

/* The table holds the field that ends at byte end. */
#define FADT_HAS(f, field) \
	((f)->length >= __builtin_offsetof(struct acpi_fadt, field) + sizeof((f)->field))

static const struct acpi_fadt *fadt_ok(const void *table, const char **why)
{
	const struct acpi_fadt *f = table;

	if (!f) {
		*why = "no ACPI FADT";
		return NULL;
	}
	if (!FADT_HAS(f, flags)) {
		*why = "ACPI FADT shorter than 116 bytes";
		return NULL;
	}
	return f;
}

int acpi_fadt_pm_timer(const void *table, struct acpi_pm_timer *out, const char **why)
{
	const struct acpi_fadt *f = fadt_ok(table, why);

	if (!f)
		return -1;
	if (f->flags & FADT_HW_REDUCED_ACPI) {
		*why = "the FADT says hardware-reduced ACPI: no PM timer";
		return -1;
	}
	out->mask = f->flags & FADT_TMR_VAL_EXT ? 0xffffffffu : 0xffffffu;
	/* A non-zero X_PM_TMR_BLK supersedes PM_TMR_BLK (Table 5.9) */
	if (FADT_HAS(f, x_pm_tmr_blk) && f->x_pm_tmr_blk.address) {
		out->space = f->x_pm_tmr_blk.space_id;
		out->address = f->x_pm_tmr_blk.address;
		out->field = "X_PM_TMR_BLK";
		if (out->space == GAS_SYSTEM_MEMORY && acpi_regs_in_ram(out->address, 4)) {
			*why = "the FADT's X_PM_TMR_BLK is in RAM of the memory map";
			return -1;
		}
		if (out->space == GAS_SYSTEM_MEMORY ||
		    (out->space == GAS_SYSTEM_IO && out->address <= 0xffff))
			return 0;
		*why = "the FADT's X_PM_TMR_BLK is neither an I/O port nor in memory";
		return -1;
	}
	out->space = GAS_SYSTEM_IO;
	out->address = f->pm_tmr_blk;
	out->field = "PM_TMR_BLK";
	if (!out->address || out->address > 0xffff) {
		*why = "the FADT names no PM timer port";
		return -1;
	}
	return 0;
}

int acpi_fadt_reset_reg(const void *table, struct acpi_reset_reg *out, const char **why)
{
	const struct acpi_fadt *f = fadt_ok(table, why);
	const struct acpi_gas *g;

	if (!f)
		return -1;
	if (!FADT_HAS(f, reset_value) || !(f->flags & FADT_RESET_REG_SUP)) {
		*why = "the FADT has no reset register (RESET_REG_SUP clear)";
		return -1;
	}
	g = &f->reset_reg;
	/* Only an 8-bit register at bit 0 in I/O, memory or bus 0's PCI
	 * configuration space (ACPI 6.5 §4.8.3.6) */
	if (g->space_id != GAS_SYSTEM_IO && g->space_id != GAS_SYSTEM_MEMORY &&
	    g->space_id != GAS_PCI_CONFIG) {
		*why = "the FADT's reset register is in an address space ACPI does not allow";
		return -1;
	}
	if (g->bit_width != 8 || g->bit_offset) {
		*why = "the FADT's reset register is not 8 bits wide at bit 0";
		return -1;
	}
	if (!g->address || (g->space_id == GAS_SYSTEM_IO && g->address > 0xffff)) {
		*why = "the FADT's reset register has no valid address";
		return -1;
	}
	if (g->space_id == GAS_SYSTEM_MEMORY && acpi_regs_in_ram(g->address, 1)) {
		*why = "the FADT's reset register is in RAM of the memory map";
		return -1;
	}
	out->space = g->space_id;
	out->address = g->address;
	out->value = f->reset_value;
	return 0;
}
