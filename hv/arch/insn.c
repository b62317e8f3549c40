// SPDX-License-Identifier: MIT
/*
 * Instruction-length checks and MMIO MOV decoding; see insn.h for why.
 * Encodings: SDM Vol 2 ch. 2 (format) and the per-instruction pages,
 * APM Vol 3 ch. 1 and appendix A.
 */
#include "insn.h"
#include "segment.h"

/* Legacy prefixes, SDM Vol 2 §2.1.1. */
#define PFX_OPSIZE BIT(0)
#define PFX_ADDRSIZE BIT(1)
#define PFX_REP BIT(2)
#define PFX_REPNE BIT(3)
#define PFX_LOCK BIT(4)
#define PFX_SEG BIT(5)

static const struct {
	u8 byte;
	u8 flag;
} legacy_prefixes[] = {
	{ 0x66, PFX_OPSIZE }, { 0x67, PFX_ADDRSIZE }, { 0xf3, PFX_REP }, { 0xf2, PFX_REPNE },
	{ 0xf0, PFX_LOCK },   { 0x2e, PFX_SEG },      { 0x36, PFX_SEG }, { 0x3e, PFX_SEG },
	{ 0x26, PFX_SEG },    { 0x64, PFX_SEG },      { 0x65, PFX_SEG },
};

/* REX, SDM Vol 2 §2.2.1: 0100WRXB, only immediately before the opcode. */
#define REX_W 0x08
#define REX_R 0x04
#define REX_B 0x01

struct prefixes {
	u8 flags;
	u8 rex; /* 0 when absent */
};

/* Can bytes [0, n) be read, and is n a legal length? SDM Vol 2 §2.3.11. */
static bool have(size_t n, size_t avail)
{
	return n <= avail && n <= INSN_MAX_LEN;
}

static u8 legacy_prefix(u8 byte)
{
	for (size_t i = 0; i < ARRAY_SIZE(legacy_prefixes); i++) {
		if (legacy_prefixes[i].byte == byte)
			return legacy_prefixes[i].flag;
	}
	return 0;
}

/* Returns the offset of the opcode, or -1 if truncated or too long. */
static inline __attribute__((always_inline)) int
parse_prefixes_mode(const u8 *b, size_t avail, struct prefixes *p, bool long_mode)
{
	size_t i = 0;
	u8 flag;

	p->flags = 0;
	p->rex = 0;
	for (;; i++) {
		if (!have(i + 1, avail))
			return -1;
		flag = legacy_prefix(b[i]);
		if (!flag)
			break;
		p->flags |= flag;
	}
	/* 40-4F are INC/DEC outside 64-bit mode (SDM Vol 2 §2.2.1) */
	if (long_mode && (b[i] & 0xf0) == 0x40) {
		p->rex = b[i++];
		if (!have(i + 1, avail))
			return -1;
	}
	return (int)i;
}

static int parse_prefixes(const u8 *b, size_t avail, struct prefixes *p)
{
	return parse_prefixes_mode(b, avail, p, true);
}

/*
 * End offset of a ModRM operand starting at b[pos]. 32- and 64-bit
 * addressing share the layout: SIB when rm == 4, disp32 with no base when
 * mod == 0 and rm == 5 (RIP-relative in 64-bit mode) or SIB.base == 5; REX.B
 * does not change those special cases. SDM Vol 2 §2.1.5, §2.2.1.6.
 */
static int modrm_end(const u8 *b, size_t avail, size_t pos)
{
	u8 mod, rm;
	size_t n = pos + 1;

	if (!have(n, avail))
		return -1;
	mod = b[pos] >> 6;
	rm = b[pos] & 7;
	if (mod == 3)
		return (int)n;
	if (rm == 4) {
		if (!have(n + 1, avail))
			return -1;
		if (mod == 0 && (b[n] & 7) == 5)
			n += 4;
		n++;
	} else if (mod == 0 && rm == 5) {
		n += 4;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return have(n, avail) ? (int)n : -1;
}

/*
 * The same for 16-bit addressing (SDM Vol 2 Table 2-1): no SIB, disp16
 * alone when mod == 0 and rm == 6, disp8 / disp16 for mod 1 / 2.
 */
static int modrm16_end(const u8 *b, size_t avail, size_t pos)
{
	u8 mod = b[pos] >> 6, rm = b[pos] & 7;
	size_t n = pos + 1;

	if (mod == 0 && rm == 6)
		n += 2;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 2;
	return have(n, avail) ? (int)n : -1;
}

enum match_kind {
	MATCH_FIXED,	 /* opcode bytes only */
	MATCH_MODRM_REG, /* opcode + one ModRM byte, always a register form */
	MATCH_MODRM_MEM, /* opcode + ModRM memory operand with reg == ext */
};

#define ENC_NEED_REP BIT(0) /* F3 is part of the encoding */
#define ENC_NO_REX_B BIT(1) /* REX.B turns it into another instruction */

static const struct insn_enc {
	const char *name;
	u8 kind;
	u8 flags;
	u8 ext;	   /* ModRM.reg for MATCH_MODRM_MEM */
	u8 ignore; /* bits of the last opcode byte that may differ */
	u8 len;
	u8 opcode[3];
} insn_encs[INSN_OP_COUNT] = {
	[INSN_CPUID] = { "cpuid", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0xa2 } },
	[INSN_VMMCALL] = { "vmmcall", MATCH_FIXED, 0, 0, 0, 3, { 0x0f, 0x01, 0xd9 } },
	[INSN_VMCALL] = { "vmcall", MATCH_FIXED, 0, 0, 0, 3, { 0x0f, 0x01, 0xc1 } },
	[INSN_RDMSR] = { "rdmsr", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0x32 } },
	[INSN_WRMSR] = { "wrmsr", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0x30 } },
	[INSN_HLT] = { "hlt", MATCH_FIXED, 0, 0, 0, 1, { 0xf4 } },
	[INSN_RDTSC] = { "rdtsc", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0x31 } },
	[INSN_RDTSCP] = { "rdtscp", MATCH_FIXED, 0, 0, 0, 3, { 0x0f, 0x01, 0xf9 } },
	[INSN_RDPMC] = { "rdpmc", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0x33 } },
	[INSN_XSETBV] = { "xsetbv", MATCH_FIXED, 0, 0, 0, 3, { 0x0f, 0x01, 0xd1 } },
	/* With F3 this is WBNOINVD (SDM Vol 2B); the length is the same. */
	[INSN_WBINVD] = { "wbinvd", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0x09 } },
	[INSN_INVD] = { "invd", MATCH_FIXED, 0, 0, 0, 2, { 0x0f, 0x08 } },
	/* SDM Vol 2B PAUSE: F3 90; 41 90 is XCHG r8, rax. */
	[INSN_PAUSE] = { "pause", MATCH_FIXED, ENC_NEED_REP | ENC_NO_REX_B, 0, 0, 1, { 0x90 } },
	/* 0F 20 / 0F 22; SDM Vol 2B MOV-Control Registers: mod is ignored. */
	[INSN_MOV_CR] = { "mov_cr", MATCH_MODRM_REG, 0, 0, 0x02, 2, { 0x0f, 0x20 } },
	/* 0F 21 / 0F 23; SDM Vol 2B MOV-Debug Registers: mod is ignored. */
	[INSN_MOV_DR] = { "mov_dr", MATCH_MODRM_REG, 0, 0, 0x02, 2, { 0x0f, 0x21 } },
	/* 0F 01 /7 with mod == 3 is SWAPGS/RDTSCP/..., not INVLPG. */
	[INSN_INVLPG] = { "invlpg", MATCH_MODRM_MEM, 0, 7, 0, 2, { 0x0f, 0x01 } },
	[INSN_MONITOR] = { "monitor", MATCH_FIXED, 0, 0, 0, 3, { 0x0f, 0x01, 0xc8 } },
	[INSN_MWAIT] = { "mwait", MATCH_FIXED, 0, 0, 0, 3, { 0x0f, 0x01, 0xc9 } },
};

const char *insn_op_name(enum insn_op op)
{
	if ((unsigned)op >= INSN_OP_COUNT)
		return "?";
	return insn_encs[op].name;
}

int insn_length(enum insn_op op, const u8 *bytes, size_t avail)
{
	const struct insn_enc *e;
	struct prefixes p;
	int pos;
	u8 last;

	if ((unsigned)op >= INSN_OP_COUNT || !bytes)
		return -1;
	e = &insn_encs[op];
	pos = parse_prefixes(bytes, avail, &p);
	if (pos < 0)
		return -1;
	if ((e->flags & ENC_NEED_REP) && !(p.flags & PFX_REP))
		return -1;
	if ((e->flags & ENC_NO_REX_B) && (p.rex & REX_B))
		return -1;
	if (!have(pos + e->len, avail))
		return -1;
	for (u8 i = 0; i + 1 < e->len; i++) {
		if (bytes[pos + i] != e->opcode[i])
			return -1;
	}
	last = bytes[pos + e->len - 1];
	if ((last & ~e->ignore) != e->opcode[e->len - 1])
		return -1;
	pos += e->len;

	switch (e->kind) {
	case MATCH_FIXED:
		return pos;
	case MATCH_MODRM_REG:
		return have(pos + 1, avail) ? pos + 1 : -1;
	case MATCH_MODRM_MEM:
		if (!have(pos + 1, avail))
			return -1;
		if ((bytes[pos] >> 6) == 3 || ((bytes[pos] >> 3) & 7) != e->ext)
			return -1;
		return modrm_end(bytes, avail, pos);
	}
	return -1;
}

int insn_decode_mov_cr(const u8 *bytes, size_t avail, unsigned code_bits, struct mov_cr_insn *out)
{
	struct prefixes p;
	int pos;
	u8 modrm;

	if (!bytes)
		return -1;
	pos = parse_prefixes_mode(bytes, avail, &p, code_bits == 64);
	if (pos < 0 || !have(pos + 3, avail) || bytes[pos] != 0x0f ||
	    (bytes[pos + 1] != 0x20 && bytes[pos + 1] != 0x22))
		return -1;
	modrm = bytes[pos + 2];
	out->to_cr = bytes[pos + 1] == 0x22;
	out->cr = ((modrm >> 3) & 7) | (p.rex & REX_R ? 8 : 0) | (p.flags & PFX_LOCK ? 8 : 0);
	out->gpr = (modrm & 7) | (p.rex & REX_B ? 8 : 0);
	return pos + 3;
}

#define MMIO_WRITE BIT(0)
#define MMIO_IMM BIT(1)	  /* C6/C7: ModRM.reg must be 0, immediate follows */
#define MMIO_MOFFS BIT(2) /* A0-A3: no ModRM, absolute address, reg is rAX */
#define MMIO_ZX BIT(3)
#define MMIO_SX BIT(4)

/* SDM Vol 2B MOV, MOVZX, MOVSX/MOVSXD. */
static const struct mmio_enc {
	u8 escape; /* 0x0f for two-byte opcodes */
	u8 opcode;
	u8 src_size; /* memory operand size; 0: the operand size */
	u8 flags;
} mmio_encs[] = {
	{ 0, 0x88, 1, MMIO_WRITE },
	{ 0, 0x89, 0, MMIO_WRITE },
	{ 0, 0x8a, 1, 0 },
	{ 0, 0x8b, 0, 0 },
	{ 0, 0xc6, 1, MMIO_WRITE | MMIO_IMM },
	{ 0, 0xc7, 0, MMIO_WRITE | MMIO_IMM },
	{ 0, 0xa0, 1, MMIO_MOFFS },
	{ 0, 0xa1, 0, MMIO_MOFFS },
	{ 0, 0xa2, 1, MMIO_MOFFS | MMIO_WRITE },
	{ 0, 0xa3, 0, MMIO_MOFFS | MMIO_WRITE },
	{ 0, 0x63, 4, MMIO_SX },
	{ 0x0f, 0xb6, 1, MMIO_ZX },
	{ 0x0f, 0xb7, 2, MMIO_ZX },
	{ 0x0f, 0xbe, 1, MMIO_SX },
	{ 0x0f, 0xbf, 2, MMIO_SX },
};

static u64 size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : BIT(size * 8) - 1;
}

static u64 sign_extend(u64 v, unsigned size)
{
	unsigned shift = 64 - size * 8;

	return (u64)((s64)(v << shift) >> shift);
}

static u64 read_le(const u8 *b, unsigned n)
{
	u64 v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (u64)b[i] << (i * 8);
	return v;
}

static const struct mmio_enc *find_mmio_enc(const u8 *b, size_t avail, int *pos)
{
	u8 escape = 0;

	if (b[*pos] == 0x0f) {
		escape = 0x0f;
		if (!have(*pos + 2, avail))
			return NULL;
		(*pos)++;
	}
	for (size_t i = 0; i < ARRAY_SIZE(mmio_encs); i++) {
		if (mmio_encs[i].escape == escape && mmio_encs[i].opcode == b[*pos]) {
			(*pos)++;
			return &mmio_encs[i];
		}
	}
	return NULL;
}

/* Inlined into both entry points: the 64-bit one is the MMIO hot path. */
static inline __attribute__((always_inline)) int
decode_mmio(const u8 *bytes, size_t avail, unsigned code_bits, struct mmio_insn *out)
{
	const struct mmio_enc *e;
	struct prefixes p;
	unsigned opsize, addrsize, imm_len;
	int pos, end;
	u8 modrm;

	if (!bytes || !out || (code_bits != 16 && code_bits != 32 && code_bits != 64))
		return -1;
	__builtin_memset(out, 0, sizeof(*out));
	pos = parse_prefixes_mode(bytes, avail, &p, code_bits == 64);
	if (pos < 0 || (p.flags & PFX_LOCK))
		return -1;
	e = find_mmio_enc(bytes, avail, &pos);
	if (!e)
		return -1;
	/* MOVSXD exists only in 64-bit mode; 63 is ARPL elsewhere (SDM Vol 2B). */
	if (code_bits != 64 && e->opcode == 0x63 && !e->escape)
		return -1;

	/*
	 * Operand and address size from the code segment's default and the
	 * 66 / 67 prefixes; REX.W wins over 66 (SDM Vol 2 §2.2.1.2, Vol 1
	 * §3.6 Table 3-4).
	 */
	if (code_bits == 64) {
		opsize = (p.rex & REX_W) ? 8 : (p.flags & PFX_OPSIZE) ? 2 : 4;
		addrsize = (p.flags & PFX_ADDRSIZE) ? 4 : 8;
	} else {
		bool wide = code_bits == 32;

		opsize = wide != !!(p.flags & PFX_OPSIZE) ? 4 : 2;
		addrsize = wide != !!(p.flags & PFX_ADDRSIZE) ? 4 : 2;
	}
	out->size = e->src_size && e->src_size < opsize ? e->src_size : opsize;
	out->dst_size = (e->flags & (MMIO_ZX | MMIO_SX)) ? opsize : out->size;
	out->write = e->flags & MMIO_WRITE;

	if (e->flags & MMIO_MOFFS) {
		/* moffs is as wide as the address size. SDM Vol 2 §2.2.1.4. */
		end = pos + addrsize;
		if (!have(end, avail))
			return -1;
	} else {
		if (!have(pos + 1, avail))
			return -1;
		modrm = bytes[pos];
		if ((modrm >> 6) == 3)
			return -1;
		end = addrsize == 2 ? modrm16_end(bytes, avail, pos) : modrm_end(bytes, avail, pos);
		if (end < 0)
			return -1;
		out->reg = ((modrm >> 3) & 7) | ((p.rex & REX_R) ? 8 : 0);
	}

	if (e->flags & MMIO_IMM) {
		if (out->reg != 0)
			return -1;
		/* imm16 with 66, else imm32 sign-extended under REX.W. */
		imm_len = out->size < 4 ? out->size : 4;
		if (!have(end + imm_len, avail))
			return -1;
		out->imm =
		    sign_extend(read_le(bytes + end, imm_len), imm_len) & size_mask(out->size);
		out->has_imm = true;
		end += imm_len;
	}

	/* Byte registers 4..7 are AH..BH without any REX, SDM Vol 2 §3.1.1.1. */
	if (out->size == 1 && !(e->flags & (MMIO_IMM | MMIO_MOFFS | MMIO_ZX | MMIO_SX)) && !p.rex &&
	    out->reg >= 4) {
		out->high_byte = true;
		out->reg -= 4;
	}
	if (!out->write) {
		out->sign_extend = (e->flags & MMIO_SX) && out->dst_size > out->size;
		out->zero_extend = (e->flags & MMIO_ZX) || out->dst_size == 4;
	}
	out->len = (u8)end;
	return 0;
}

int insn_decode_mmio(const u8 *bytes, size_t avail, struct mmio_insn *out)
{
	return decode_mmio(bytes, avail, 64, out);
}

int insn_decode_mmio_mode(const u8 *bytes, size_t avail, unsigned code_bits, struct mmio_insn *out)
{
	return decode_mmio(bytes, avail, code_bits, out);
}

u64 mmio_merge_read(const struct mmio_insn *insn, u64 old_reg, u64 value)
{
	unsigned dst = insn->dst_size ? insn->dst_size : insn->size;
	u64 v = value & size_mask(insn->size);

	if (insn->sign_extend)
		v = sign_extend(v, insn->size);
	if (insn->high_byte)
		return (old_reg & ~0xff00ull) | ((v & 0xff) << 8);
	/* 32-bit destinations zero bits 63:32, SDM Vol 1 §3.4.1.1. */
	if (dst == 4)
		return v & 0xffffffffull;
	if (dst >= 8)
		return v;
	return (old_reg & ~size_mask(dst)) | (v & size_mask(dst));
}

u64 mmio_write_value(const struct mmio_insn *insn, u64 reg_value)
{
	if (insn->has_imm)
		return insn->imm & size_mask(insn->size);
	if (insn->high_byte)
		return (reg_value >> 8) & 0xff;
	return reg_value & size_mask(insn->size);
}

/* The segment each override prefix selects (SDM Vol 2 §2.1.1, group 2). */
static int segment_prefix(u8 byte)
{
	switch (byte) {
	case 0x26:
		return SEG_ES;
	case 0x2e:
		return SEG_CS;
	case 0x36:
		return SEG_SS;
	case 0x3e:
		return SEG_DS;
	case 0x64:
		return SEG_FS;
	case 0x65:
		return SEG_GS;
	default:
		return -1;
	}
}

int insn_decode_string_io(const u8 *bytes, size_t avail, unsigned code_bits,
			  struct string_io_insn *out)
{
	bool long_mode = code_bits == 64;
	unsigned seg = SEG_DS;
	size_t i;
	u8 flags = 0, flag, op;
	int s;

	if (!bytes || (code_bits != 16 && code_bits != 32 && code_bits != 64))
		return -1;
	for (i = 0;; i++) {
		if (!have(i + 1, avail))
			return -1;
		flag = legacy_prefix(bytes[i]);
		/* A REX not right before the opcode is ignored (SDM Vol 2
		 * §2.2.1); INS/OUTS have no use for one anyway. */
		if (!flag && !(long_mode && (bytes[i] & 0xf0) == 0x40))
			break;
		flags |= flag;
		s = segment_prefix(bytes[i]);
		if (s >= 0 && (!long_mode || s == SEG_FS || s == SEG_GS))
			seg = (unsigned)s;
	}
	op = bytes[i];
	if (op < 0x6c || op > 0x6f)
		return -1;
	out->len = (u8)(i + 1);
	out->in = op <= 0x6d;
	out->rep = flags & (PFX_REP | PFX_REPNE);
	/* 6C/6E move bytes; 6D/6F a word or a doubleword, never a quadword */
	if (!(op & 1))
		out->size = 1;
	else
		out->size = (code_bits == 16) != !!(flags & PFX_OPSIZE) ? 2 : 4;
	/* 67 toggles 64 -> 32, 32 -> 16 and 16 -> 32 (SDM Vol 1 §3.6.1) */
	if (flags & PFX_ADDRSIZE)
		out->addr_bits = code_bits == 32 ? 16 : 32;
	else
		out->addr_bits = (u8)code_bits;
	/* INS's destination is ES:rDI whatever the prefixes (SDM Vol 2B INS) */
	out->seg = out->in ? SEG_ES : (u8)seg;
	return 0;
}
