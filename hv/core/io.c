// SPDX-License-Identifier: MIT
/*
 * Guest port I/O.  Every port exits (the I/O permission map is all ones);
 * the devices are the ranges registered on the VM's bus (core/bus.h,
 * vdev/board.c).  A port no device serves reads as all ones and ignores
 * writes, as an empty ISA port does.
 */
#include "exit_dispatch.h"
#include "vcpu.h"
#include "arch/x86.h"
#include "arch/regs.h"
#include "arch/segment.h"
#include "arch/string_insn.h"
#include "arch/pagetable.h"

static inline u32 io_mask(u8 size)
{
	return size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}

/*
 * Each access reaches its range through the vCPU's hint, its last range
 * (a guest polls one device: a compare), and else through a search of
 * the bus, out of line and a tail call, so that the hit keeps a short
 * frame.  A range is never NULL: bus_no_ports serves the empty ports.
 */
static inline u32 port_in(struct vcpu *vcpu, const struct bus_ports *p, u16 port, u8 size)
{
	return p->in(p->dev, vcpu, port - p->base, size) & io_mask(size);
}

static inline void port_out(struct vcpu *vcpu, const struct bus_ports *p, u16 port, u8 size,
			    u32 val)
{
	p->out(p->dev, vcpu, port - p->base, size, val & io_mask(size));
}

static inline __attribute__((always_inline)) bool
port_access_fast(struct vcpu *vcpu, const struct bus_ports *p, u16 port, u8 size, bool in, u64 *rax)
{
	if (!p->fast)
		return false;
	if (in) {
		u32 val = port_in(vcpu, p, port, size);

		/* IN to EAX zero-extends; to AL/AX it merges (SDM Vol 3 §3.4.1.1) */
		*rax = size == 4 ? val : (*rax & ~(u64)io_mask(size)) | val;
	} else {
		port_out(vcpu, p, port, size, (u32)*rax);
	}
	return true;
}

static __attribute__((noinline)) bool io_port_fast_search(struct vcpu *vcpu, u16 port, u8 size,
							  bool in, u64 *rax)
{
	const struct bus_ports *p = bus_find_port(&vcpu->vm->bus, port);

	vcpu->port_hint = p;
	return port_access_fast(vcpu, p, port, size, in, rax);
}

bool io_port_fast(struct vcpu *vcpu, u16 port, u8 size, bool in, u64 *rax)
{
	const struct bus_ports *p = vcpu->port_hint;

	if (unlikely(!bus_ports_serve(p, port)))
		return io_port_fast_search(vcpu, port, size, in, rax);
	return port_access_fast(vcpu, p, port, size, in, rax);
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
handle_string_io(struct vcpu *vcpu, const struct vm_exit *exit, const struct bus_ports *dev)
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

static inline __attribute__((always_inline)) void
handle_io_by(struct vcpu *vcpu, const struct vm_exit *exit, const struct bus_ports *p)
{
	u16 port = exit->io.port;
	u8 size = exit->io.size;
	u64 *rax = &vcpu->regs.gpr[GPR_RAX];

	if (exit->io.string) {
		handle_string_io(vcpu, exit, p);
		return;
	}
	if (exit->io.in) {
		u32 val = port_in(vcpu, p, port, size);

		/* IN to EAX zero-extends; to AL/AX it merges (SDM Vol 3 §3.4.1.1) */
		*rax = size == 4 ? val : (*rax & ~(u64)io_mask(size)) | val;
	} else {
		port_out(vcpu, p, port, size, (u32)*rax);
	}
	vcpu_skip_insn(vcpu, exit);
}

static __attribute__((noinline)) void handle_io_search(struct vcpu *vcpu,
						       const struct vm_exit *exit)
{
	const struct bus_ports *p = bus_find_port(&vcpu->vm->bus, exit->io.port);

	vcpu->port_hint = p;
	handle_io_by(vcpu, exit, p);
}

void handle_io(struct vcpu *vcpu, const struct vm_exit *exit)
{
	const struct bus_ports *p = vcpu->port_hint;

	if (unlikely(!bus_ports_serve(p, exit->io.port))) {
		handle_io_search(vcpu, exit);
		return;
	}
	handle_io_by(vcpu, exit, p);
}
