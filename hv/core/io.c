// SPDX-License-Identifier: MIT
/*
 * Guest port I/O.  Every port exits (the I/O permission map is all ones);
 * the emulated devices are a table of port ranges.  A port with no device
 * reads as all ones and ignores writes, as an empty ISA port does.  The
 * interrupt lines of QEMU's pc-testdev (what kvm-unit-tests drives the
 * I/O APIC with) act for the vCPU that wrote them.
 */
#include "exit_dispatch.h"
#include "io_ports.h"
#include "vdev/fw_cfg.h"
#include "lib/guest_abi.h"
#include "vdev/guest_console.h"
#include "vdev/uart16550.h"
#include "vdev/pit.h"
#include "vdev/pit_timer.h"
#include "vdev/rtc_cmos.h"
#include "vdev/shutdown_port.h"
#include "platform/tsc.h"
#include "vcpu.h"
#include "arch/uart.h"
#include "arch/x86.h"
#include "arch/ports.h"
#include "arch/regs.h"
#include "arch/segment.h"
#include "arch/string_insn.h"
#include "arch/pagetable.h"

struct port_device {
	u16 base, count;
	u32 (*in)(struct vcpu *vcpu, u16 offset, u8 size);
	void (*out)(struct vcpu *vcpu, u16 offset, u8 size, u32 val);
	bool fast; /* the fast exit path may call it: it never waits */
};

/* COM1: the 16550A, its IRQ line to the I/O APIC after every access.
 * mhv's own guests only write THR and poll LSR, which the UART serves. */
static u32 serial_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;
	u32 v;

	spin_lock(&vm->uart_lock);
	v = uart_read(&vm->uart, (u8)offset);
	spin_unlock(&vm->uart_lock);
	ioapic_set_line(vcpu, UART_COM1_IRQ, uart_irq(&vm->uart));
	return v;
}

static void serial_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;
	int tx;

	spin_lock(&vm->uart_lock);
	tx = uart_write(&vm->uart, (u8)offset, (u8)val);
	spin_unlock(&vm->uart_lock);
	if (tx >= 0)
		guest_console_putc(vm, (char)tx);
	ioapic_set_line(vcpu, UART_COM1_IRQ, uart_irq(&vm->uart));
}

/* An access at byte @offset sees the register from that byte up. */
static u32 test_port_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;

	return vm->test_port_value >> (offset * 8);
}

static void test_port_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	u32 mask;

	/* the whole register, as the exit benchmark writes it */
	if (likely(size == 4 && !offset)) {
		vm->test_port_value = val;
		return;
	}
	mask = (size == 4 ? ~0u : (1u << (size * 8)) - 1) << (offset * 8);

	vm->test_port_value = (vm->test_port_value & ~mask) | ((val << (offset * 8)) & mask);
}

/* 24-bit, 3.579545 MHz, read-only (ACPI 6.5 §4.8.3.3), derived from the TSC */
static u32 pm_timer_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	return tsc_to_pm_timer(rdtsc());
}

static void ignore_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
}

static u32 write_only_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	return ~0u;
}

static u32 fw_cfg_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;

	return offset == 1 ? fw_cfg_read(&vm->fw_cfg) : ~0u;
}

static void fw_cfg_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	if (offset == 0)
		fw_cfg_select(&vm->fw_cfg, (u16)val);
}

/*
 * The ACPI PM1a event block (status: nothing to report; enable: reads
 * back, which ACPICA checks when it enables the global lock event) and
 * control block (ACPI 6.5 §4.8.3.2.1): SCI_EN reads set, as mhv has no
 * SMI_CMD to switch modes; SLP_EN with the DSDT's \_S5 type is the
 * power button's soft off (§7.4.2): the VM ends with exit code 0.
 */
#define PM1_CNT_SCI_EN BIT(0)
#define PM1_CNT_SLP_TYP_SHIFT 10
#define PM1_CNT_SLP_EN BIT(13)

static u32 pm1_evt_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	return offset >= 2 ? vcpu->vm->pm1_en >> ((offset - 2) * 8) : 0;
}

static void pm1_evt_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	u16 mask = size == 1 ? 0xff : 0xffff;

	if (offset < 2)
		return; /* status bits are write-one-to-clear: none is ever set */
	offset -= 2;
	vcpu->vm->pm1_en =
	    (u16)((vcpu->vm->pm1_en & ~(mask << (offset * 8))) | ((val & mask) << (offset * 8)));
}

static u32 pm1_cnt_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	return PM1_CNT_SCI_EN >> (offset * 8);
}

static void pm1_cnt_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	u32 v = val << (offset * 8);

	if ((v & PM1_CNT_SLP_EN) && ((v >> PM1_CNT_SLP_TYP_SHIFT) & 7) == GUEST_PM1_SLP_TYP_S5) {
		vm_stop_exit(vcpu->vm, 0, "ACPI soft off: S5 written to PM1a_CNT (port 0x%x)",
			     GUEST_PM1A_CNT_PORT);
	}
}

/* The 8254 and port 0x61 under the VM's lock, at the PIT's time now. */
static u8 pit_in_at(struct vm *vm, u16 port)
{
	u8 v;

	spin_lock(&vm->pit_lock);
	v = pit_read(&vm->pit, port, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&vm->pit_lock);
	return v;
}

static void pit_out_at(struct vm *vm, u16 port, u8 val)
{
	spin_lock(&vm->pit_lock);
	pit_write(&vm->pit, port, val, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&vm->pit_lock);
}

/* The 8254: channel 0 the timer interrupt, channel 2 what Linux
 * calibrates the TSC against.  A write may change when IRQ0 comes. */
static u32 pit_port_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	return pit_in_at(vcpu->vm, PIT_CH0_PORT + offset);
}

static void pit_port_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	pit_out_at(vcpu->vm, PIT_CH0_PORT + offset, (u8)val);
	pit_timer_claim(vcpu);
}

static u32 port_b_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	return pit_in_at(vcpu->vm, PIT_PORT_B);
}

static void port_b_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	pit_out_at(vcpu->vm, PIT_PORT_B, (u8)val);
}

/* The CMOS clock and RAM at 0x70 (index) and 0x71 (data). */
static u32 rtc_port_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;
	u8 v;

	spin_lock(&vm->rtc_lock);
	v = rtc_read(&vm->rtc, RTC_INDEX_PORT + offset, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&vm->rtc_lock);
	return v;
}

static void rtc_port_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	spin_lock(&vm->rtc_lock);
	rtc_write(&vm->rtc, RTC_INDEX_PORT + offset, (u8)val, tsc_to_pit_ticks(rdtsc()));
	spin_unlock(&vm->rtc_lock);
}

/* isa-debug-exit's port (QEMU, kvm-unit-tests): the value is the exit code. */
static void exit_port_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	vm_stop_exit(vm, val, "guest wrote %u to the exit port 0x%x", val, GUEST_EXIT_PORT);
}

/*
 * Bochs' shutdown port: the string "Shutdown" written a byte at a time.
 * Each vCPU matches its own bytes (its CPU alone writes its count: no
 * lock, and two vCPUs' writes never make one word).
 */
static void shutdown_port_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	vcpu->shutdown_match = shutdown_port_match(vcpu->shutdown_match, (u8)val);
	if (vcpu->shutdown_match == SHUTDOWN_PORT_WORD_LEN)
		vm_stop(vcpu->vm, VM_STOP_EXIT, "guest wrote \"Shutdown\" to port 0x%x",
			GUEST_SHUTDOWN_PORT);
}

/*
 * A PC's reset sources reset the whole machine: here, the VM.  mhv has
 * no firmware to run again at the reset vector (a multiboot kernel is
 * loaded by mhv, not by its own BIOS), so the VM stops with "reset", as
 * QEMU does with -no-reboot, which kvm-unit-tests runs under.
 */
static void reset_vm(struct vm *vm, const char *how)
{
	vm_stop(vm, VM_STOP_RESET, "the guest reset its machine: %s", how);
}

/* The A20 gate is always open: mhv never wraps guest addresses at 1 MiB. */
static u32 sysctl_a_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;

	return vm->sysctl_a | SYSCTL_A_A20;
}

static void sysctl_a_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	bool rising = (val & ~vm->sysctl_a) & SYSCTL_A_FAST_RESET;

	vm->sysctl_a = (u8)val;
	if (rising)
		reset_vm(vm, "port 0x92 bit 0 (fast reset)");
}

/* Reset Control Register (Intel PCH datasheets, "RST_CNT", I/O 0xCF9):
 * RST_CPU going 0 -> 1 resets, SYS_RST and FULL_RST say how hard.  It
 * reads back as written; RST_CPU is never seen set, since the reset
 * follows at once. */
static u32 rst_cnt_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;

	return vm->rst_cnt;
}

static void rst_cnt_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	vm->rst_cnt = (u8)val & (RST_CNT_SYS_RST | RST_CNT_FULL_RST);
	if (val & RST_CNT_RST_CPU)
		reset_vm(vm, val & RST_CNT_FULL_RST  ? "0xCF9 full reset"
			     : val & RST_CNT_SYS_RST ? "0xCF9 hard reset"
						     : "0xCF9 soft reset");
}

/*
 * The 8042 as far as a reset goes: it takes every byte at once (IBF
 * clear, so polling guests go on), pulses the reset line on command 0xFE
 * (any 0xF0-0xFF command with bit 0 clear), and has an output port
 * (commands 0xD0/0xD1) whose bit 0 low holds the CPU in reset.  No
 * keyboard: other commands are taken and ignored.
 */
static u32 i8042_status_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;

	return I8042_STATUS_SYS | I8042_STATUS_UNLOCKED | (vm->i8042_full ? I8042_STATUS_OBF : 0);
}

static u32 i8042_data_in(struct vcpu *vcpu, u16 offset, u8 size)
{
	struct vm *vm = vcpu->vm;

	vm->i8042_full = false;
	return vm->i8042_out;
}

static void i8042_data_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	if (vm->i8042_cmd == I8042_CMD_WRITE_OUTPORT && !(val & I8042_OUTPORT_RESET))
		reset_vm(vm, "8042 output port bit 0 (CPU reset) low");
	vm->i8042_cmd = 0;
}

static void i8042_cmd_out(struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
	struct vm *vm = vcpu->vm;

	u8 b = (u8)val;

	vm->i8042_cmd = b == I8042_CMD_WRITE_OUTPORT ? b : 0;
	if (b == I8042_CMD_READ_OUTPORT) {
		vm->i8042_out = I8042_OUTPORT_RESET | I8042_OUTPORT_A20;
		vm->i8042_full = true;
	} else if ((b & 0xf0) == 0xf0 && !(b & I8042_OUTPORT_RESET)) {
		reset_vm(vm, "8042 command 0xFE (pulse reset)");
	}
}

/*
 * The table, from io_ports.h.  The 8042 has two ports, 0x60 and 0x64:
 * one range over both covered port 0x61 (the PIT's gate and OUT2,
 * registered after it), which then read 0xFF and dropped writes.
 */
#define PORT_DEVICE(base, count, in, out, fast) { base, count, in, out, fast },
static const struct port_device port_devices[] = { PORT_DEVICE_LIST(PORT_DEVICE) };
#undef PORT_DEVICE

/* An OUT to no port device: the interrupt lines (write-only), for which
 * the I/O APIC acts for this vCPU; other ports ignore it.  Out of line,
 * off the device ports' path. */
static __attribute__((noinline, cold)) void out_no_device(struct vcpu *vcpu, u16 port, u32 val)
{
	if ((u16)(port - GUEST_IRQ_LINE_PORT) < IOAPIC_PINS)
		ioapic_set_line(vcpu, port - GUEST_IRQ_LINE_PORT, val & 1);
}

static const struct port_device *find_port_device(u16 port)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(port_devices); i++) {
		if ((u16)(port - port_devices[i].base) < port_devices[i].count)
			return &port_devices[i];
	}
	return NULL;
}

static inline u32 io_mask(u8 size)
{
	return size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}

/* A port with no device reads as all ones and ignores writes. */
static u32 port_in(struct vcpu *vcpu, const struct port_device *dev, u16 port, u8 size)
{
	return (dev ? dev->in(vcpu, port - dev->base, size) : ~0u) & io_mask(size);
}

static void port_out(struct vcpu *vcpu, const struct port_device *dev, u16 port, u8 size, u32 val)
{
	if (dev)
		dev->out(vcpu, port - dev->base, size, val & io_mask(size));
	else
		out_no_device(vcpu, port, val);
}

bool io_port_fast(struct vcpu *vcpu, u16 port, u8 size, bool in, u64 *rax)
{
	const struct port_device *dev = find_port_device(port);

	/* the table is constant: the compiler folds the flag into each
	 * device's branch of the search, no cost on the others' */
	if (!dev || !dev->fast)
		return false;
	if (in) {
		u32 val = port_in(vcpu, dev, port, size);

		/* IN to EAX zero-extends; to AL/AX it merges (SDM Vol 3 §3.4.1.1) */
		*rax = size == 4 ? val : (*rax & ~(u64)io_mask(size)) | val;
	} else {
		port_out(vcpu, dev, port, size, (u32)*rax);
	}
	return true;
}

/* Bytes a REP INS/OUTS moves per exit; then the guest executes it again. */
#define STRING_IO_BATCH_BYTES 4096

/* The INS/OUTS an exit names, from the exit where it says enough, else
 * from the instruction's prefixes. */
static bool string_io_operands(struct vcpu *vcpu, const struct vm_exit *exit, unsigned code_bits,
			       struct string_io_insn *d)
{
	struct string_io_insn dec;
	unsigned fetch_bits;
	u8 bytes[INSN_MAX_LEN];
	size_t n;

	d->addr_bits = exit->io.addr_bits;
	d->seg = exit->io.in ? SEG_ES : exit->io.seg;
	if (d->addr_bits && d->seg < SEG_REG_COUNT)
		return true;
	n = vcpu_fetch_insn_any_mode(vcpu, bytes, sizeof(bytes), &fetch_bits);
	if (insn_decode_string_io(bytes, n, code_bits, &dec) < 0 || dec.in != exit->io.in ||
	    dec.size != exit->io.size) {
		vm_stop(vcpu->vm, VM_STOP_INSN_DECODE,
			"string I/O exit at rip 0x%llx, but the bytes there (%02x %02x %02x) are "
			"not the INS/OUTS it names",
			vcpu->regs.rip, n > 0 ? bytes[0] : 0, n > 1 ? bytes[1] : 0,
			n > 2 ? bytes[2] : 0);
		return false;
	}
	if (!d->addr_bits)
		d->addr_bits = dec.addr_bits;
	if (d->seg >= SEG_REG_COUNT)
		d->seg = dec.seg;
	return true;
}

/*
 * Host pointers to the @size bytes at guest-linear @la, in two parts when
 * they cross a page: false when the guest was given #GP/#SS (non-canonical
 * address, SDM Vol 3 §6.15), #PF (not mapped: error code of §4.7, P = 0)
 * or the VM was stopped (guest-physical memory that is not RAM).
 */
static bool map_element(struct vcpu *vcpu, u64 la, u8 size, bool write, unsigned code_bits,
			unsigned seg, u8 *part[2], unsigned *first)
{
	u64 page_left = PAGE_SIZE - (la & (PAGE_SIZE - 1));
	unsigned i, len[2];
	u64 at[2], gpa;

	len[0] = size < page_left ? size : (unsigned)page_left;
	len[1] = size - len[0];
	at[0] = la;
	at[1] = la + len[0];
	if (code_bits == 64) {
		if ((u64)((s64)(la << 16) >> 16) != la ||
		    (u64)((s64)((la + size - 1) << 16) >> 16) != la + size - 1) {
			backend->inject_exception(vcpu, seg == SEG_SS ? 12 : 13, true, 0);
			return false;
		}
	} else {
		at[1] &= 0xffffffffull;
	}
	for (i = 0; i < 2 && len[i]; i++) {
		if (!vcpu_translate_gva(vcpu, at[i], &gpa)) {
			vcpu_inject_pf(vcpu, at[i],
				       (write ? PF_ERR_WRITE : 0) |
					   (backend->guest_cpl(vcpu) == 3 ? PF_ERR_USER : 0));
			return false;
		}
		part[i] = gpa_to_hva(vcpu->vm, gpa, len[i]);
		if (!part[i]) {
			vm_stop(vcpu->vm, VM_STOP_BAD_ACCESS,
				"%s at guest-physical 0x%llx, outside RAM: string I/O to "
				"devices is not emulated (rip 0x%llx)",
				write ? "INS" : "OUTS", gpa, vcpu->regs.rip);
			return false;
		}
	}
	*first = len[0];
	return true;
}

/*
 * INS/OUTS (SDM Vol 2B INS, OUTS, REP): each element goes between the
 * port and ES:rDI (INS) or seg:rSI (OUTS), the index register steps by
 * the element size, down when RFLAGS.DF is set, and with REP rCX counts
 * down; all at the address size.  A REP does at most a batch per exit
 * and leaves RIP on the instruction until rCX reaches 0, as hardware
 * lets interrupts in between iterations.  A fault on an element leaves
 * the registers at the elements done before it.  Out of line, so that
 * IN/OUT (benchmarked) keep their short path.
 */
static __attribute__((noinline, cold)) void
handle_string_io(struct vcpu *vcpu, const struct vm_exit *exit, const struct port_device *dev)
{
	u16 port = exit->io.port;
	u8 size = exit->io.size;
	bool in = exit->io.in, rep = exit->io.rep, df;
	u64 *idx = &vcpu->regs.gpr[in ? GPR_RDI : GPR_RSI], *rcx = &vcpu->regs.gpr[GPR_RCX];
	struct string_io_insn d;
	u64 base, count, n, i;
	unsigned code_bits;

	code_bits = backend->guest_code_bits(vcpu, &base);
	if (!string_io_operands(vcpu, exit, code_bits, &d))
		return;
	df = backend->guest_rflags(vcpu) & RFLAGS_DF;
	/* 64-bit mode: ES, CS, SS and DS have base 0 (SDM Vol 3 §3.2.4) */
	base = code_bits == 64 && d.seg != SEG_FS && d.seg != SEG_GS
		   ? 0
		   : backend->guest_seg_base(vcpu, d.seg);
	count = string_reg_get(*rcx, d.addr_bits);
	n = string_batch(count, rep, STRING_IO_BATCH_BYTES / size);
	for (i = 0; i < n; i++) {
		u64 la = base + string_reg_get(*idx, d.addr_bits);
		u8 *part[2], buf[4];
		unsigned first;
		u32 val;

		if (code_bits != 64)
			la &= 0xffffffffull;
		if (!map_element(vcpu, la, size, in, code_bits, d.seg, part, &first))
			return;
		if (in) {
			val = port_in(vcpu, dev, port, size);
			__builtin_memcpy(buf, &val, 4);
			__builtin_memcpy(part[0], buf, first);
			__builtin_memcpy(part[1], buf + first, size - first);
		} else {
			__builtin_memcpy(buf, part[0], first);
			__builtin_memcpy(buf + first, part[1], size - first);
			val = 0;
			__builtin_memcpy(&val, buf, size);
			port_out(vcpu, dev, port, size, val);
		}
		*idx = string_reg_advance(*idx, d.addr_bits, size, df, 1);
		if (rep)
			*rcx = string_reg_set(*rcx, count - i - 1, d.addr_bits);
		if (vcpu->vm->stop != VM_RUNNING)
			return;
	}
	if (!rep || n == count)
		vcpu_skip_insn(vcpu, exit);
}

void handle_io(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u16 port = exit->io.port;
	u8 size = exit->io.size;
	u32 mask = io_mask(size);
	u64 *rax = &vcpu->regs.gpr[GPR_RAX];
	const struct port_device *dev = find_port_device(port);

	if (exit->io.string) {
		handle_string_io(vcpu, exit, dev);
		return;
	}
	if (exit->io.in) {
		u32 val = port_in(vcpu, dev, port, size);

		/* IN to EAX zero-extends; to AL/AX it merges (SDM Vol 3 §3.4.1.1) */
		*rax = size == 4 ? val : (*rax & ~(u64)mask) | val;
	} else {
		port_out(vcpu, dev, port, size, (u32)*rax);
	}
	vcpu_skip_insn(vcpu, exit);
}
