// SPDX-License-Identifier: MIT
/* Host CPU identification and the init-time CPUID cache. */
#include "cpu_features.h"
#include "lib/fmt.h"

struct host_cpu host_cpu;

enum cpuid_reg {
	REG_EAX,
	REG_EBX,
	REG_ECX,
	REG_EDX
};

struct feature_bit {
	const char *name;
	size_t offset; /* of the bool in struct cpu_features */
	u32 leaf;
	u8 reg;
	u8 bit;
};

#define FEATURE(field, l, r, b)                                                 \
	{                                                                       \
#field, __builtin_offsetof(struct cpu_features, field), l, r, b \
	}

/* Bit positions: SDM Vol 2A CPUID; APM Vol 3 Appendix E (CPUID Fn8000_000A: APM Vol 2 §15.4) */
static const struct feature_bit feature_bits[] = {
	FEATURE(vmx, 0x1, REG_ECX, 5),
	FEATURE(xsave, 0x1, REG_ECX, 26),
	FEATURE(tsc_deadline, 0x1, REG_ECX, 24),
	FEATURE(x2apic, 0x1, REG_ECX, 21),
	FEATURE(hypervisor, 0x1, REG_ECX, 31),
	FEATURE(svm, 0x80000001, REG_ECX, 2),
	FEATURE(perfctr_core, 0x80000001, REG_ECX, 23),
	FEATURE(nx, 0x80000001, REG_EDX, 20),
	FEATURE(gbpages, 0x80000001, REG_EDX, 26),
	FEATURE(rdtscp, 0x80000001, REG_EDX, 27),
	FEATURE(invariant_tsc, 0x80000007, REG_EDX, 8),
	FEATURE(ibpb, 0x80000008, REG_EBX, 12),
	FEATURE(spec_ctrl, 0x7, REG_EDX, 26),	   /* IBRS and IBPB */
	FEATURE(autoibrs, 0x80000021, REG_EAX, 8), /* EFER.AIBRSE, APM Vol 2 §3.1.7 */
	FEATURE(npt, 0x8000000a, REG_EDX, 0),
	FEATURE(nrips, 0x8000000a, REG_EDX, 3),
	FEATURE(vmcb_clean, 0x8000000a, REG_EDX, 5),
	FEATURE(flush_by_asid, 0x8000000a, REG_EDX, 6),
	FEATURE(decode_assists, 0x8000000a, REG_EDX, 7),
	FEATURE(pause_filter, 0x8000000a, REG_EDX, 10),
	FEATURE(vgif, 0x8000000a, REG_EDX, 16),
};

static const struct cpuid_regs *cache_slot(u32 leaf, u32 subleaf)
{
	const struct cpuid_cache *c = &host_cpu.cpuid;

	if (leaf == 7 && subleaf == 1)
		return leaf <= c->max_std ? &c->leaf7_1 : NULL;
	if (subleaf && cpuid_leaf_indexed(leaf))
		return cpuid_subleaf_find(&c->subs, leaf, subleaf);
	if (leaf < CPUID_STD_CACHED)
		return leaf <= c->max_std ? &c->std[leaf] : NULL;
	if (leaf >= CPUID_EXT_BASE && leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED)
		return leaf <= c->max_ext ? &c->ext[leaf - CPUID_EXT_BASE] : NULL;
	return NULL;
}

bool cpuid_cached(u32 leaf, u32 subleaf, struct cpuid_regs *out)
{
	const struct cpuid_regs *r = cache_slot(leaf, subleaf);

	if (!r)
		return false;
	*out = *r;
	return true;
}

static u32 reg_of(const struct cpuid_regs *r, u8 reg)
{
	const u32 regs[] = { r->eax, r->ebx, r->ecx, r->edx };

	return regs[reg];
}

static void read_host_cpuid(u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	cpuid_raw(leaf, subleaf, r);
}

static void fill_cache(void)
{
	struct cpuid_cache *c = &host_cpu.cpuid;
	struct cpuid_regs r;
	u32 i;

	cpuid_raw(0, 0, &r);
	c->max_std = r.eax;
	for (i = 0; i < CPUID_STD_CACHED && i <= c->max_std; i++)
		cpuid_raw(i, 0, &c->std[i]);
	if (c->max_std >= 7)
		cpuid_raw(7, 1, &c->leaf7_1);
	/* Check the maximum extended leaf first: QEMU answers leaves above it
	 * with other leaves' contents (QEMU 7.2 gives leaf 0xD's). */
	cpuid_raw(CPUID_EXT_BASE, 0, &r);
	c->max_ext = (r.eax & 0xffff0000) == CPUID_EXT_BASE ? r.eax : 0;
	for (i = 0; i < CPUID_EXT_CACHED && CPUID_EXT_BASE + i <= c->max_ext; i++)
		cpuid_raw(CPUID_EXT_BASE + i, 0, &c->ext[i]);
	cpuid_subleaves_fill(&c->subs, c->max_std, c->max_ext, read_host_cpuid);
}

static void copy_reg_chars(char *dst, u32 v)
{
	__builtin_memcpy(dst, &v, 4);
}

void cpu_probe(void)
{
	struct cpuid_cache *c = &host_cpu.cpuid;
	const struct cpuid_regs *l1;
	u32 i, fam;

	fill_cache();
	copy_reg_chars(host_cpu.vendor_id, c->std[0].ebx);
	copy_reg_chars(host_cpu.vendor_id + 4, c->std[0].edx);
	copy_reg_chars(host_cpu.vendor_id + 8, c->std[0].ecx);
	host_cpu.vendor_id[12] = 0;
	if (!__builtin_memcmp(host_cpu.vendor_id, "AuthenticAMD", 12))
		host_cpu.vendor = VENDOR_AMD;
	else if (!__builtin_memcmp(host_cpu.vendor_id, "GenuineIntel", 12))
		host_cpu.vendor = VENDOR_INTEL;

	/* Family/model/stepping with the extended fields (SDM Vol 2A CPUID.01H:EAX) */
	l1 = &c->std[1];
	fam = (l1->eax >> 8) & 0xf;
	host_cpu.family = fam == 0xf ? fam + ((l1->eax >> 20) & 0xff) : fam;
	host_cpu.model = (l1->eax >> 4) & 0xf;
	if (fam == 0x6 || fam == 0xf)
		host_cpu.model |= ((l1->eax >> 16) & 0xf) << 4;
	host_cpu.stepping = l1->eax & 0xf;

	if (c->max_ext >= 0x80000004) {
		for (i = 0; i < 3; i++) {
			const struct cpuid_regs *b = &c->ext[2 + i];

			copy_reg_chars(host_cpu.brand + 16 * i, b->eax);
			copy_reg_chars(host_cpu.brand + 16 * i + 4, b->ebx);
			copy_reg_chars(host_cpu.brand + 16 * i + 8, b->ecx);
			copy_reg_chars(host_cpu.brand + 16 * i + 12, b->edx);
		}
	}
	host_cpu.brand[48] = 0;
	host_cpu.phys_bits = c->max_ext >= 0x80000008 ? c->ext[8].eax & 0xff : 36;

	for (i = 0; i < ARRAY_SIZE(feature_bits); i++) {
		const struct feature_bit *f = &feature_bits[i];
		const struct cpuid_regs *r = cache_slot(f->leaf, 0);
		bool *flag = (bool *)((u8 *)&host_cpu.has + f->offset);

		*flag = r && (reg_of(r, f->reg) >> f->bit) & 1;
	}
	/* SVM leaf 8000_000A is meaningful only with SVM (APM Vol 2 §15.4) */
	if (host_cpu.has.svm && c->max_ext >= 0x8000000a)
		host_cpu.nr_asids = c->ext[0xa].ebx;
}

void cpu_features_describe(char *buf, size_t size)
{
	size_t used = 0;
	u32 i;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(feature_bits) && used < size; i++) {
		const bool *flag =
		    (const bool *)((const u8 *)&host_cpu.has + feature_bits[i].offset);

		if (*flag)
			used += fmt_snprintf(buf + used, size - used, "%s%s", used ? " " : "",
					     feature_bits[i].name);
	}
}
