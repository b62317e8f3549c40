// SPDX-License-Identifier: MIT
/* Host tests for hv/arch/insn.c; encodings cross-checked with GNU as/objdump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/insn.h"

#define BYTES(...) ((const u8[]){ __VA_ARGS__ }), sizeof((const u8[]){ __VA_ARGS__ })

static const struct {
	enum insn_op op;
	u8 len;
	u8 bytes[8];
} plain_encodings[] = {
	{ INSN_CPUID, 2, { 0x0f, 0xa2 } },
	{ INSN_VMMCALL, 3, { 0x0f, 0x01, 0xd9 } },
	{ INSN_VMCALL, 3, { 0x0f, 0x01, 0xc1 } },
	{ INSN_RDMSR, 2, { 0x0f, 0x32 } },
	{ INSN_WRMSR, 2, { 0x0f, 0x30 } },
	{ INSN_HLT, 1, { 0xf4 } },
	{ INSN_RDTSC, 2, { 0x0f, 0x31 } },
	{ INSN_RDTSCP, 3, { 0x0f, 0x01, 0xf9 } },
	{ INSN_RDPMC, 2, { 0x0f, 0x33 } },
	{ INSN_XSETBV, 3, { 0x0f, 0x01, 0xd1 } },
	{ INSN_WBINVD, 2, { 0x0f, 0x09 } },
	{ INSN_INVD, 2, { 0x0f, 0x08 } },
	{ INSN_PAUSE, 2, { 0xf3, 0x90 } },
	{ INSN_MOV_CR, 3, { 0x0f, 0x20, 0xc0 } }, /* mov %cr0,%rax */
	{ INSN_MOV_DR, 3, { 0x0f, 0x23, 0xf8 } }, /* mov %rax,%dr7 */
	{ INSN_INVLPG, 3, { 0x0f, 0x01, 0x38 } }, /* invlpg (%rax) */
	{ INSN_MONITOR, 3, { 0x0f, 0x01, 0xc8 } },
	{ INSN_MWAIT, 3, { 0x0f, 0x01, 0xc9 } },
};

static void test_each_op(void **state)
{
	(void)state;
	assert_int_equal(ARRAY_SIZE(plain_encodings), INSN_OP_COUNT);
	for (size_t i = 0; i < ARRAY_SIZE(plain_encodings); i++) {
		const u8 *b = plain_encodings[i].bytes;
		int len = plain_encodings[i].len;
		enum insn_op op = plain_encodings[i].op;

		assert_int_equal(insn_length(op, b, len), len);
		/* Extra bytes after the instruction are not part of it. */
		assert_int_equal(insn_length(op, b, sizeof(plain_encodings[i].bytes)), len);
		/* Every shorter prefix of the bytes is truncated. */
		for (int n = 0; n < len; n++)
			assert_true(insn_length(op, b, n) < 0);
		/* No other op accepts these bytes. */
		for (size_t j = 0; j < INSN_OP_COUNT; j++) {
			if (j != op)
				assert_true(insn_length((enum insn_op)j, b, len) < 0);
		}
		assert_string_not_equal(insn_op_name(op), "?");
	}
}

static void test_each_op_with_prefixes(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(plain_encodings); i++) {
		u8 buf[16];
		int len = plain_encodings[i].len;
		/* 2E 66 F3 plus REX.W (no REX.B: that would break PAUSE). */
		const u8 pfx[] = { 0x2e, 0x66, 0xf3, 0x48 };

		memcpy(buf, pfx, sizeof(pfx));
		if (plain_encodings[i].op == INSN_PAUSE) {
			memcpy(buf + sizeof(pfx), plain_encodings[i].bytes + 1, len - 1);
			len -= 1;
		} else {
			memcpy(buf + sizeof(pfx), plain_encodings[i].bytes, len);
		}
		assert_int_equal(insn_length(plain_encodings[i].op, buf, sizeof(pfx) + len),
				 (int)sizeof(pfx) + len);
	}
}

static void test_mismatch(void **state)
{
	(void)state;
	assert_true(insn_length(INSN_CPUID, BYTES(0x0f, 0x01, 0xd9)) < 0);
	/* NOP is not PAUSE, and neither is XCHG r8, rax. */
	assert_true(insn_length(INSN_PAUSE, BYTES(0x90)) < 0);
	assert_true(insn_length(INSN_PAUSE, BYTES(0xf3, 0x41, 0x90)) < 0);
	assert_int_equal(insn_length(INSN_PAUSE, BYTES(0xf3, 0x40, 0x90)), 3);
	/* REX must be last: a REX before a legacy prefix ends the prefixes. */
	assert_true(insn_length(INSN_CPUID, BYTES(0x48, 0x66, 0x0f, 0xa2)) < 0);
	/* MOV to/from CR vs DR vs other 0F 2x. */
	assert_true(insn_length(INSN_MOV_CR, BYTES(0x0f, 0x21, 0xc0)) < 0);
	assert_true(insn_length(INSN_MOV_DR, BYTES(0x0f, 0x22, 0xc0)) < 0);
	assert_true(insn_length(INSN_MOV_CR, BYTES(0x0f, 0x24, 0xc0)) < 0);
	/* 0F 01 /7 register forms are SWAPGS / RDTSCP, not INVLPG. */
	assert_true(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0xf8)) < 0);
	assert_true(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0xf9)) < 0);
	/* 0F 01 /6 memory is LMSW. */
	assert_true(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0x30)) < 0);
	assert_true(insn_length(INSN_OP_COUNT, BYTES(0x0f, 0xa2)) < 0);
	assert_true(insn_length(INSN_CPUID, NULL, 2) < 0);
	assert_string_equal(insn_op_name(INSN_OP_COUNT), "?");
	assert_string_equal(insn_op_name(INSN_CPUID), "cpuid");
}

static void test_truncated_and_too_long(void **state)
{
	u8 buf[20];

	(void)state;
	/* Prefixes only. */
	assert_true(insn_length(INSN_CPUID, BYTES(0x66, 0x2e)) < 0);
	assert_true(insn_length(INSN_CPUID, BYTES(0x66, 0x48)) < 0);
	/* 13 prefixes + 0F A2 is 15 bytes: legal. 14 + 2 is not. */
	memset(buf, 0x66, sizeof(buf));
	buf[13] = 0x0f;
	buf[14] = 0xa2;
	assert_int_equal(insn_length(INSN_CPUID, buf, sizeof(buf)), 15);
	memset(buf, 0x66, sizeof(buf));
	buf[14] = 0x0f;
	buf[15] = 0xa2;
	assert_true(insn_length(INSN_CPUID, buf, sizeof(buf)) < 0);
	/* INVLPG whose displacement is cut off. */
	assert_true(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0x3d, 0x10, 0x00, 0x00)) < 0);
}

static void test_mov_cr_dr(void **state)
{
	(void)state;
	/* mov %rax,%cr8 (44 0F 22 C0); mov %dr7,%r9 (41 0F 21 F9). */
	assert_int_equal(insn_length(INSN_MOV_CR, BYTES(0x44, 0x0f, 0x22, 0xc0)), 4);
	assert_int_equal(insn_length(INSN_MOV_DR, BYTES(0x41, 0x0f, 0x21, 0xf9)), 4);
	/* AMD's LOCK MOV CR0 alias for CR8 (APM Vol 3 MOV CRn). */
	assert_int_equal(insn_length(INSN_MOV_CR, BYTES(0xf0, 0x0f, 0x20, 0xc0)), 4);
	/* mod bits are ignored: never a memory operand, never a displacement. */
	assert_int_equal(insn_length(INSN_MOV_CR, BYTES(0x0f, 0x20, 0x05, 0, 0, 0, 0)), 3);
	assert_int_equal(insn_length(INSN_MOV_DR, BYTES(0x0f, 0x23, 0x84, 0, 0, 0, 0, 0)), 3);
}

static void test_decode_mov_cr(void **state)
{
	struct mov_cr_insn m;

	(void)state;
	/* mov %rbx,%cr4 (0F 22 E3) */
	assert_int_equal(insn_decode_mov_cr(BYTES(0x0f, 0x22, 0xe3), 64, &m), 3);
	assert_true(m.to_cr);
	assert_int_equal(m.cr, 4);
	assert_int_equal(m.gpr, 3);
	/* mov %r10,%cr4 (41 0F 22 E2); mov %cr8,%rax (44 0F 20 C0) */
	assert_int_equal(insn_decode_mov_cr(BYTES(0x41, 0x0f, 0x22, 0xe2), 64, &m), 4);
	assert_int_equal(m.gpr, 10);
	assert_int_equal(insn_decode_mov_cr(BYTES(0x44, 0x0f, 0x20, 0xc0), 64, &m), 4);
	assert_false(m.to_cr);
	assert_int_equal(m.cr, 8);
	/* 32-bit code: 41 is INC ECX, not REX */
	assert_true(insn_decode_mov_cr(BYTES(0x41, 0x0f, 0x22, 0xe2), 32, &m) < 0);
	assert_int_equal(insn_decode_mov_cr(BYTES(0x0f, 0x22, 0xe0), 32, &m), 3);
	assert_int_equal(m.cr, 4);
	assert_int_equal(m.gpr, 0);
	/* LOCK MOV CR0 is CR8 on AMD; mod is ignored */
	assert_int_equal(insn_decode_mov_cr(BYTES(0xf0, 0x0f, 0x22, 0x00), 64, &m), 4);
	assert_int_equal(m.cr, 8);
	/* other instructions, truncated bytes */
	assert_true(insn_decode_mov_cr(BYTES(0x0f, 0x21, 0xc0), 64, &m) < 0);
	assert_true(insn_decode_mov_cr(BYTES(0x0f, 0x22), 64, &m) < 0);
}

static void test_invlpg_forms(void **state)
{
	(void)state;
	/* invlpg 0x10(%rip) */
	assert_int_equal(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0x3d, 0x10, 0, 0, 0)), 7);
	/* invlpg 0x80(%rsp): SIB + disp32 */
	assert_int_equal(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0xbc, 0x24, 0x80, 0, 0, 0)), 8);
	/* invlpg 0x12345678(,%r9,2): REX.X, SIB without base */
	assert_int_equal(
	    insn_length(INSN_INVLPG, BYTES(0x42, 0x0f, 0x01, 0x3c, 0x4d, 0x78, 0x56, 0x34, 0x12)),
	    9);
	/* invlpg 8(%rbp): disp8 */
	assert_int_equal(insn_length(INSN_INVLPG, BYTES(0x0f, 0x01, 0x7d, 0x08)), 4);
	/* invlpg (%r13) needs a disp8 of 0: 41 0F 01 7D 00 */
	assert_int_equal(insn_length(INSN_INVLPG, BYTES(0x41, 0x0f, 0x01, 0x7d, 0x00)), 5);
	/* invlpg %fs:(%eax) with 64 67 */
	assert_int_equal(insn_length(INSN_INVLPG, BYTES(0x64, 0x67, 0x0f, 0x01, 0x38)), 5);
}

struct mmio_case {
	const char *what;
	u8 bytes[16];
	u8 avail;
	struct mmio_insn want;
};

/* Expected fields; dst_size equals size unless MOVZX/MOVSX widen it. */
static const struct mmio_case mmio_cases[] = {
	{ "mov (%rdi),%eax",
	  { 0x8b, 0x07 },
	  2,
	  { .len = 2, .size = 4, .dst_size = 4, .reg = 0, .zero_extend = true } },
	{ "mov %eax,(%rdi)",
	  { 0x89, 0x07 },
	  2,
	  { .len = 2, .size = 4, .dst_size = 4, .write = true } },
	{ "mov %r8,0x10(%rax,%rcx,8)",
	  { 0x4c, 0x89, 0x44, 0xc8, 0x10 },
	  5,
	  { .len = 5, .size = 8, .dst_size = 8, .write = true, .reg = 8 } },
	{ "mov %ax,(%rsi)",
	  { 0x66, 0x89, 0x06 },
	  3,
	  { .len = 3, .size = 2, .dst_size = 2, .write = true } },
	{ "movb $0x7f,(%rbx)",
	  { 0xc6, 0x03, 0x7f },
	  3,
	  { .len = 3, .size = 1, .dst_size = 1, .write = true, .has_imm = true, .imm = 0x7f } },
	{ "movl $0x12345678,0x1000(%rip)",
	  { 0xc7, 0x05, 0x00, 0x10, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12 },
	  10,
	  { .len = 10,
	    .size = 4,
	    .dst_size = 4,
	    .write = true,
	    .has_imm = true,
	    .imm = 0x12345678 } },
	{ "movzbl (%rdx),%ecx",
	  { 0x0f, 0xb6, 0x0a },
	  3,
	  { .len = 3, .size = 1, .dst_size = 4, .reg = 1, .zero_extend = true } },
	{ "mov (%rsi),%ah",
	  { 0x8a, 0x26 },
	  2,
	  { .len = 2, .size = 1, .dst_size = 1, .reg = 0, .high_byte = true } },
	{ "mov 0x100(,%rcx,4),%edx",
	  { 0x8b, 0x14, 0x8d, 0x00, 0x01, 0x00, 0x00 },
	  7,
	  { .len = 7, .size = 4, .dst_size = 4, .reg = 2, .zero_extend = true } },
	{ "movq $-2,(%rax)",
	  { 0x48, 0xc7, 0x00, 0xfe, 0xff, 0xff, 0xff },
	  7,
	  { .len = 7, .size = 8, .dst_size = 8, .write = true, .has_imm = true, .imm = -2ull } },
	{ "movzwq 8(%rbp),%r9",
	  { 0x4c, 0x0f, 0xb7, 0x4d, 0x08 },
	  5,
	  { .len = 5, .size = 2, .dst_size = 8, .reg = 9, .zero_extend = true } },
	{ "movsbl (%rax),%eax",
	  { 0x0f, 0xbe, 0x00 },
	  3,
	  { .len = 3, .size = 1, .dst_size = 4, .sign_extend = true, .zero_extend = true } },
	{ "movsbq (%rax),%rax",
	  { 0x48, 0x0f, 0xbe, 0x00 },
	  4,
	  { .len = 4, .size = 1, .dst_size = 8, .sign_extend = true } },
	{ "movslq (%rdi),%rdx",
	  { 0x48, 0x63, 0x17 },
	  3,
	  { .len = 3, .size = 4, .dst_size = 8, .reg = 2, .sign_extend = true } },
	{ "movw $0x1234,%fs:0(%r13)",
	  { 0x64, 0x66, 0x41, 0xc7, 0x45, 0x00, 0x34, 0x12 },
	  8,
	  { .len = 8, .size = 2, .dst_size = 2, .write = true, .has_imm = true, .imm = 0x1234 } },
	{ "mov %spl,(%rdi)",
	  { 0x40, 0x88, 0x27 },
	  3,
	  { .len = 3, .size = 1, .dst_size = 1, .write = true, .reg = 4 } },
	{ "movabs 0x1122334455667788,%eax",
	  { 0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 },
	  9,
	  { .len = 9, .size = 4, .dst_size = 4, .zero_extend = true } },
	{ "movabs %al,0x1122334455667788",
	  { 0xa2, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 },
	  9,
	  { .len = 9, .size = 1, .dst_size = 1, .write = true } },
	{ "mov (%rsp),%r12",
	  { 0x4c, 0x8b, 0x24, 0x24 },
	  4,
	  { .len = 4, .size = 8, .dst_size = 8, .reg = 12 } },
	{ "mov 0x12(%r12),%r13d",
	  { 0x45, 0x8b, 0x6c, 0x24, 0x12 },
	  5,
	  { .len = 5, .size = 4, .dst_size = 4, .reg = 13, .zero_extend = true } },
	{ "addr32 mov (%eax),%ecx",
	  { 0x67, 0x8b, 0x08 },
	  3,
	  { .len = 3, .size = 4, .dst_size = 4, .reg = 1, .zero_extend = true } },
	{ "mov 0x1(,%rbp,1),%bh",
	  { 0x8a, 0x3c, 0x2d, 0x01, 0x00, 0x00, 0x00 },
	  7,
	  { .len = 7, .size = 1, .dst_size = 1, .reg = 3, .high_byte = true } },
	{ "mov %eax,%gs:0x12345678 (67 A3)",
	  { 0x65, 0x67, 0xa3, 0x78, 0x56, 0x34, 0x12 },
	  7,
	  { .len = 7, .size = 4, .dst_size = 4, .write = true } },
};

static void test_mmio_decode(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(mmio_cases); i++) {
		const struct mmio_case *c = &mmio_cases[i];
		struct mmio_insn got;

		print_message("%s\n", c->what);
		assert_int_equal(insn_decode_mmio(c->bytes, c->avail, &got), 0);
		assert_int_equal(got.len, c->want.len);
		assert_int_equal(got.size, c->want.size);
		assert_int_equal(got.dst_size, c->want.dst_size);
		assert_int_equal(got.write, c->want.write);
		assert_int_equal(got.has_imm, c->want.has_imm);
		assert_int_equal(got.imm, c->want.imm);
		if (!c->want.has_imm)
			assert_int_equal(got.reg, c->want.reg);
		assert_int_equal(got.high_byte, c->want.high_byte);
		assert_int_equal(got.zero_extend, c->want.zero_extend);
		assert_int_equal(got.sign_extend, c->want.sign_extend);
		/* Every truncation fails; trailing bytes are ignored. */
		for (u8 n = 0; n < c->avail; n++)
			assert_true(insn_decode_mmio(c->bytes, n, &got) < 0);
		assert_int_equal(insn_decode_mmio(c->bytes, sizeof(c->bytes), &got), 0);
		assert_int_equal(got.len, c->want.len);
	}
}

/* The same bytes mean other sizes outside 64-bit mode (SDM Vol 1 Table 3-4). */
static void test_mmio_decode_modes(void **state)
{
	static const struct {
		const char *what;
		unsigned bits;
		u8 bytes[8];
		u8 avail;
		int ret;
		u8 len, size, reg;
	} cases[] = {
		/* 32-bit: A1 moffs32, not moffs64 */
		{ "mov 0xfee00020,%eax (32)", 32, { 0xa1, 0x20, 0x00, 0xe0, 0xfe }, 5, 0, 5, 4, 0 },
		{ "mov %ebx,0xfee000b0 (32)",
		  32,
		  { 0x89, 0x1d, 0xb0, 0x00, 0xe0, 0xfe },
		  6,
		  0,
		  6,
		  4,
		  3 },
		{ "mov %ax,(%esi) (32, 66)", 32, { 0x66, 0x89, 0x06 }, 3, 0, 3, 2, 0 },
		/* 16-bit: default operand size 2, 66 makes it 4; disp16 with mod 0 rm 6 */
		{ "mov 0x20,%ax (16)", 16, { 0x8b, 0x06, 0x20, 0x00 }, 4, 0, 4, 2, 0 },
		{ "mov %ecx,0x10(%bx) (16, 66)", 16, { 0x66, 0x89, 0x4f, 0x10 }, 4, 0, 4, 4, 1 },
		{ "mov 0x300,%eax (16, 66 67 A1)",
		  16,
		  { 0x66, 0x67, 0xa1, 0x00, 0x03, 0x00, 0x00 },
		  7,
		  0,
		  7,
		  4,
		  0 },
		/* 48 is DEC EAX in 32-bit code, not REX.W */
		{ "dec %eax; mov (32)", 32, { 0x48, 0x8b, 0x07 }, 3, -1, 0, 0, 0 },
		/* 63 is ARPL outside 64-bit mode */
		{ "arpl (32)", 32, { 0x63, 0x07 }, 2, -1, 0, 0, 0 },
	};
	struct mmio_insn got;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		print_message("%s\n", cases[i].what);
		assert_int_equal(
		    insn_decode_mmio_mode(cases[i].bytes, cases[i].avail, cases[i].bits, &got) < 0
			? -1
			: 0,
		    cases[i].ret);
		if (cases[i].ret)
			continue;
		assert_int_equal(got.len, cases[i].len);
		assert_int_equal(got.size, cases[i].size);
		assert_int_equal(got.reg, cases[i].reg);
		for (u8 n = 0; n < cases[i].avail; n++)
			assert_true(insn_decode_mmio_mode(cases[i].bytes, n, cases[i].bits, &got) <
				    0);
	}
	assert_true(insn_decode_mmio_mode(cases[0].bytes, 5, 8, &got) < 0);
}

static void test_mmio_reject(void **state)
{
	struct mmio_insn got;

	(void)state;
	/* Register forms. */
	assert_true(insn_decode_mmio(BYTES(0x89, 0xc7), &got) < 0);
	assert_true(insn_decode_mmio(BYTES(0xc7, 0xc0, 1, 0, 0, 0), &got) < 0);
	/* C6 /1 and C7 /7 are not MOV. */
	assert_true(insn_decode_mmio(BYTES(0xc6, 0x08, 0x01), &got) < 0);
	assert_true(insn_decode_mmio(BYTES(0xc7, 0x38, 1, 0, 0, 0), &got) < 0);
	/* Not a MOV at all: add %eax,(%rdi); lock; 0F 0B. */
	assert_true(insn_decode_mmio(BYTES(0x01, 0x07), &got) < 0);
	assert_true(insn_decode_mmio(BYTES(0xf0, 0x89, 0x07), &got) < 0);
	assert_true(insn_decode_mmio(BYTES(0x0f, 0x0b), &got) < 0);
	assert_true(insn_decode_mmio(NULL, 0, &got) < 0);
}

static void test_mmio_merge_read(void **state)
{
	struct mmio_insn in;
	const u64 old = 0x1122334455667788ull;

	(void)state;
	assert_int_equal(insn_decode_mmio(BYTES(0x8b, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0xdeadbeefcafef00dull), 0xcafef00dull);
	assert_int_equal(insn_decode_mmio(BYTES(0x48, 0x8b, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0xdeadbeefcafef00dull), 0xdeadbeefcafef00dull);
	assert_int_equal(insn_decode_mmio(BYTES(0x66, 0x8b, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0xabcdef), 0x112233445566cdefull);
	/* mov (%rdi),%al / %ah / %sil */
	assert_int_equal(insn_decode_mmio(BYTES(0x8a, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x1ab), 0x11223344556677abull);
	assert_int_equal(insn_decode_mmio(BYTES(0x8a, 0x27), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x1ab), 0x112233445566ab88ull);
	assert_int_equal(insn_decode_mmio(BYTES(0x40, 0x8a, 0x37), &in), 0);
	assert_int_equal(in.reg, 6);
	assert_false(in.high_byte);
	assert_int_equal(mmio_merge_read(&in, old, 0xab), 0x11223344556677abull);
	/* movzbl, movzwq, 66 movzbw (merges 16 bits) */
	assert_int_equal(insn_decode_mmio(BYTES(0x0f, 0xb6, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0xfff0), 0xf0);
	assert_int_equal(insn_decode_mmio(BYTES(0x48, 0x0f, 0xb7, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0xfffff00d), 0xf00d);
	assert_int_equal(insn_decode_mmio(BYTES(0x66, 0x0f, 0xb6, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x80), 0x1122334455660080ull);
	/* movsbl, movsbq, movswq, movslq, 66 movsbw */
	assert_int_equal(insn_decode_mmio(BYTES(0x0f, 0xbe, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x80), 0xffffff80ull);
	assert_int_equal(insn_decode_mmio(BYTES(0x48, 0x0f, 0xbe, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x80), 0xffffffffffffff80ull);
	assert_int_equal(mmio_merge_read(&in, old, 0x7f), 0x7f);
	assert_int_equal(insn_decode_mmio(BYTES(0x48, 0x0f, 0xbf, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x8001), 0xffffffffffff8001ull);
	assert_int_equal(insn_decode_mmio(BYTES(0x48, 0x63, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x80000000), 0xffffffff80000000ull);
	assert_int_equal(insn_decode_mmio(BYTES(0x66, 0x0f, 0xbe, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x80), 0x112233445566ff80ull);
	/* MOVSXD without REX.W is a plain 32-bit load. */
	assert_int_equal(insn_decode_mmio(BYTES(0x63, 0x07), &in), 0);
	assert_int_equal(mmio_merge_read(&in, old, 0x80000000), 0x80000000ull);
}

static void test_mmio_write_value(void **state)
{
	struct mmio_insn in;
	const u64 reg = 0x1122334455667788ull;

	(void)state;
	assert_int_equal(insn_decode_mmio(BYTES(0x89, 0x07), &in), 0);
	assert_int_equal(mmio_write_value(&in, reg), 0x55667788);
	assert_int_equal(insn_decode_mmio(BYTES(0x88, 0x27), &in), 0); /* mov %ah,(%rdi) */
	assert_int_equal(mmio_write_value(&in, reg), 0x77);
	assert_int_equal(insn_decode_mmio(BYTES(0x66, 0x89, 0x07), &in), 0);
	assert_int_equal(mmio_write_value(&in, reg), 0x7788);
	assert_int_equal(insn_decode_mmio(BYTES(0x4c, 0x89, 0x07), &in), 0);
	assert_int_equal(mmio_write_value(&in, reg), reg);
	assert_int_equal(in.reg, 8);
	/* Immediates ignore the register; C7 sign-extends only under REX.W. */
	assert_int_equal(insn_decode_mmio(BYTES(0xc7, 0x07, 0xfe, 0xff, 0xff, 0xff), &in), 0);
	assert_int_equal(mmio_write_value(&in, reg), 0xfffffffe);
	assert_int_equal(insn_decode_mmio(BYTES(0x48, 0xc7, 0x07, 0xfe, 0xff, 0xff, 0x7f), &in), 0);
	assert_int_equal(mmio_write_value(&in, reg), 0x7ffffffe);
	assert_int_equal(insn_decode_mmio(BYTES(0x66, 0xc7, 0x07, 0xfe, 0xff), &in), 0);
	assert_int_equal(in.len, 5);
	assert_int_equal(mmio_write_value(&in, reg), 0xfffe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_op),
		cmocka_unit_test(test_each_op_with_prefixes),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_truncated_and_too_long),
		cmocka_unit_test(test_mov_cr_dr),
		cmocka_unit_test(test_decode_mov_cr),
		cmocka_unit_test(test_invlpg_forms),
		cmocka_unit_test(test_mmio_decode),
		cmocka_unit_test(test_mmio_decode_modes),
		cmocka_unit_test(test_mmio_reject),
		cmocka_unit_test(test_mmio_merge_read),
		cmocka_unit_test(test_mmio_write_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
