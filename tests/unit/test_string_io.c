// SPDX-License-Identifier: MIT
/* INS/OUTS: prefix decoding, address-size masking, DF stepping, REP counts.
 * Encodings cross-checked with GNU as/objdump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/insn.h"
#include "arch/segment.h"
#include "arch/string_insn.h"

#define BYTES(...) ((const u8[]){ __VA_ARGS__ }), sizeof((const u8[]){ __VA_ARGS__ })

static struct string_io_insn dec(const u8 *b, size_t n, unsigned code_bits)
{
	struct string_io_insn d;

	memset(&d, 0xa5, sizeof(d));
	assert_int_equal(insn_decode_string_io(b, n, code_bits, &d), 0);
	return d;
}

static void decode_plain(void **state)
{
	struct string_io_insn d;

	(void)state;
	d = dec(BYTES(0x6c), 64); /* insb (%dx),%es:(%rdi) */
	assert_int_equal(d.len, 1);
	assert_true(d.in);
	assert_false(d.rep);
	assert_int_equal(d.size, 1);
	assert_int_equal(d.addr_bits, 64);
	assert_int_equal(d.seg, SEG_ES);
	d = dec(BYTES(0x6f), 64); /* outsl %ds:(%rsi),(%dx) */
	assert_false(d.in);
	assert_int_equal(d.size, 4);
	assert_int_equal(d.seg, SEG_DS);
	d = dec(BYTES(0x66, 0x6d), 64); /* insw */
	assert_int_equal(d.len, 2);
	assert_int_equal(d.size, 2);
	/* REX.W does not make a quadword: INS/OUTS stop at 32 bits */
	d = dec(BYTES(0x48, 0x6f), 64);
	assert_int_equal(d.size, 4);
	assert_int_equal(d.len, 2);
	/* 16-bit code: 6D is insw, 66 6D insl */
	d = dec(BYTES(0x6d), 16);
	assert_int_equal(d.size, 2);
	assert_int_equal(d.addr_bits, 16);
	d = dec(BYTES(0x66, 0x6d), 16);
	assert_int_equal(d.size, 4);
	d = dec(BYTES(0x6d), 32);
	assert_int_equal(d.size, 4);
	assert_int_equal(d.addr_bits, 32);
}

static void decode_prefixes(void **state)
{
	struct string_io_insn d;

	(void)state;
	d = dec(BYTES(0xf3, 0x6e), 64); /* rep outsb */
	assert_true(d.rep);
	assert_int_equal(d.len, 2);
	d = dec(BYTES(0xf2, 0x6c), 64); /* repne insb repeats as well */
	assert_true(d.rep);
	/* 67: 64 -> 32, 32 -> 16, 16 -> 32 */
	assert_int_equal(dec(BYTES(0x67, 0xf3, 0x6c), 64).addr_bits, 32);
	assert_int_equal(dec(BYTES(0x67, 0x6c), 32).addr_bits, 16);
	assert_int_equal(dec(BYTES(0x67, 0x6c), 16).addr_bits, 32);
	/* overrides name OUTS' source; the last one counts */
	assert_int_equal(dec(BYTES(0x26, 0x6e), 32).seg, SEG_ES);
	assert_int_equal(dec(BYTES(0x2e, 0x6e), 32).seg, SEG_CS);
	assert_int_equal(dec(BYTES(0x36, 0x6e), 16).seg, SEG_SS);
	assert_int_equal(dec(BYTES(0x64, 0x65, 0x6e), 32).seg, SEG_GS);
	/* 64-bit mode ignores ES/CS/SS/DS overrides, FS/GS stay */
	assert_int_equal(dec(BYTES(0x26, 0x6e), 64).seg, SEG_DS);
	assert_int_equal(dec(BYTES(0x64, 0x6e), 64).seg, SEG_FS);
	assert_int_equal(dec(BYTES(0x65, 0x3e, 0x6e), 64).seg, SEG_GS);
	/* INS writes through ES whatever the override */
	assert_int_equal(dec(BYTES(0x64, 0x6c), 32).seg, SEG_ES);
	/* a REX before a legacy prefix is no REX, and changes nothing here */
	d = dec(BYTES(0x48, 0xf3, 0x66, 0x6f), 64);
	assert_int_equal(d.len, 4);
	assert_true(d.rep);
	assert_int_equal(d.size, 2);
}

static void decode_reject(void **state)
{
	struct string_io_insn d;

	(void)state;
	assert_true(insn_decode_string_io(BYTES(0xec), 64, &d) < 0);	   /* in (%dx),%al */
	assert_true(insn_decode_string_io(BYTES(0xf3, 0xa4), 64, &d) < 0); /* rep movsb */
	assert_true(insn_decode_string_io(BYTES(0xf3), 64, &d) < 0);	   /* truncated */
	assert_true(insn_decode_string_io(NULL, 0, 64, &d) < 0);
	assert_true(insn_decode_string_io(BYTES(0x6c), 8, &d) < 0);
	/* 40-4F are INC/DEC outside 64-bit mode */
	assert_true(insn_decode_string_io(BYTES(0x48, 0x6c), 32, &d) < 0);
	/* 15 bytes at most (SDM Vol 2 §2.3.11) */
	assert_int_equal(insn_decode_string_io(BYTES(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
						     0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x6c),
					       64, &d),
			 0);
	assert_true(insn_decode_string_io(BYTES(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
						0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x6c),
					  64, &d) < 0);
}

static void address_size(void **state)
{
	(void)state;
	assert_int_equal(string_addr_mask(16), 0xffff);
	assert_int_equal(string_addr_mask(32), 0xffffffffull);
	assert_int_equal(string_addr_mask(64), ~0ull);
	assert_int_equal(string_reg_get(0x1234567890abcdefull, 16), 0xcdef);
	assert_int_equal(string_reg_get(0x1234567890abcdefull, 32), 0x90abcdefull);
	assert_int_equal(string_reg_get(0x1234567890abcdefull, 64), 0x1234567890abcdefull);
	/* 16-bit writes merge, 32-bit ones zero-extend */
	assert_int_equal(string_reg_set(0x1234567890abcdefull, 0x11112222, 16),
			 0x1234567890ab2222ull);
	assert_int_equal(string_reg_set(0x1234567890abcdefull, 0x3333444455556666ull, 32),
			 0x55556666ull);
	assert_int_equal(string_reg_set(0x1234567890abcdefull, 0x3333444455556666ull, 64),
			 0x3333444455556666ull);
}

static void df_stepping(void **state)
{
	(void)state;
	assert_int_equal(string_reg_advance(0x1000, 64, 1, false, 1), 0x1001);
	assert_int_equal(string_reg_advance(0x1000, 64, 4, true, 1), 0xffc);
	assert_int_equal(string_reg_advance(0x1000, 64, 2, false, 16), 0x1020);
	assert_int_equal(string_reg_advance(0x1000, 64, 2, true, 16), 0xfe0);
	/* the offset wraps within the address size, the rest of a 16-bit
	 * register stays */
	assert_int_equal(string_reg_advance(0xabcd0000fffeull, 16, 4, false, 1), 0xabcd00000002ull);
	assert_int_equal(string_reg_advance(0xabcd00000001ull, 16, 2, true, 1), 0xabcd0000ffffull);
	assert_int_equal(string_reg_advance(0xabcdfffffffeull, 32, 4, false, 1), 0x2);
	assert_int_equal(string_reg_advance(0x0, 32, 1, true, 1), 0xffffffffull);
	assert_int_equal(string_reg_advance(0x0, 64, 1, true, 1), ~0ull);
}

static void rep_count(void **state)
{
	(void)state;
	/* no REP: one element, whatever rCX says */
	assert_int_equal(string_batch(0, false, 4096), 1);
	assert_int_equal(string_batch(99, false, 4096), 1);
	/* REP with a zero count does nothing */
	assert_int_equal(string_batch(0, true, 4096), 0);
	assert_int_equal(string_batch(16, true, 4096), 16);
	assert_int_equal(string_batch(5000, true, 4096), 4096);
	assert_int_equal(string_batch(4096, true, 4096), 4096);
	/* the count is the address-size part of rCX: ECX = 0 is zero */
	assert_int_equal(string_batch(string_reg_get(0x100000000ull, 32), true, 1024), 0);
	assert_int_equal(string_batch(string_reg_get(0xffff0003ull, 16), true, 1024), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_plain),	 cmocka_unit_test(decode_prefixes),
		cmocka_unit_test(decode_reject), cmocka_unit_test(address_size),
		cmocka_unit_test(df_stepping),	 cmocka_unit_test(rep_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
