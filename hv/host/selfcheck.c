// SPDX-License-Identifier: MIT
#include "selfcheck.h"
#include "lib/fmt.h"
#include "boot_stack.h"
#include "smp.h"
#include "arch/msr.h"
#include "arch/pagetable.h"
#include "arch/x86.h"

/* Linker symbols (linker.ld): code, and read-only data inside .data. */
extern const u8 _text[], _etext[], _rodata[], _erodata[];

static u64 ref_text, ref_rodata, ref_tables, ref_cr3, ref_cpus;

/* Writable tables that must not change after init (selfcheck_watch). */
static struct watched {
	const char *what;
	const u8 *start;
	size_t size;
	u64 ref;
} watched[SELFCHECK_MAX_WATCHED];
static unsigned nr_watched;

/* Host MSRs a guest's writes must never reach (issue 9's list); the same
 * on every CPU mhv set up, so checked wherever the case ran. */
static const struct {
	u32 msr;
	const char *name;
} guarded_msrs[] = {
	{ MSR_EFER, "EFER" },
	{ MSR_IA32_PAT, "PAT" },
	{ MSR_MTRR_DEF_TYPE, "MTRR_DEF_TYPE" },
	{ MSR_MTRR_PHYSBASE(0), "MTRR_PHYSBASE0" },
	{ MSR_IA32_FEATURE_CONTROL, "FEATURE_CONTROL" },
	{ MSR_VM_CR, "VM_CR" },
	{ MSR_SMM_BASE, "SMM_BASE" },
	{ MSR_SMM_MASK, "SMM_MASK" },
};
static u64 ref_msr[ARRAY_SIZE(guarded_msrs)];
static bool ref_msr_ok[ARRAY_SIZE(guarded_msrs)];

/* FNV-1a over 64-bit words: any change of a word changes the sum. */
static u64 hash_words(u64 h, const u64 *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static u64 hash_range(const u8 *start, const u8 *end)
{
	return hash_words(0xcbf29ce484222325ull, (const u64 *)start, (size_t)(end - start) / 8);
}

/* FNV-1a over bytes, for tables of any size and alignment. */
static u64 hash_bytes(const u8 *p, size_t n)
{
	u64 h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * What each CPU is never changes after start-up: its number, APIC ID, stack and
 * descriptor tables.  Its state, work, arena and timer deadlines change
 * with every job, so they are not hashed; the work function is checked
 * apart (cpu_work_plausible).
 */
static u64 hash_cpus(void)
{
	u64 h = 0xcbf29ce484222325ull;
	unsigned i;

	for (i = 0; i < nr_cpus; i++) {
		u64 fixed[4] = { cpus[i].index, cpus[i].apic_id, (u64)(uintptr_t)cpus[i].tables,
				 (u64)(uintptr_t)cpus[i].stack };

		h = hash_words(h, fixed, ARRAY_SIZE(fixed));
	}
	return hash_words(h, &(u64){ nr_cpus }, 1);
}

/* A CPU's work is none, or a function of mhv's code. */
static bool cpu_work_plausible(const struct cpu *c)
{
	const u8 *fn = (const u8 *)(uintptr_t)c->work;

	return !fn || (fn >= _text && fn < _etext);
}

void selfcheck_watch(const char *what, const void *start, size_t size)
{
	struct watched *w;

	if (nr_watched == ARRAY_SIZE(watched))
		return;
	w = &watched[nr_watched++];
	*w = (struct watched){ what, start, size, hash_bytes(start, size) };
}

/* Every table page reachable from CR3 (4-level; large pages end a walk). */
static u64 hash_table(u64 h, u64 table_pa, unsigned level)
{
	const u64 *t = (const u64 *)(uintptr_t)(table_pa & PTE_ADDR_MASK);
	unsigned i;

	h = hash_words(h, t, 512);
	if (level == 1)
		return h;
	for (i = 0; i < 512; i++)
		if ((t[i] & PTE_P) && !(level < 4 && (t[i] & PTE_PS)))
			h = hash_table(h, t[i], level - 1);
	return h;
}

void selfcheck_init(void)
{
	ref_text = hash_range(_text, _etext);
	ref_rodata = hash_range(_rodata, _erodata);
	ref_cr3 = read_cr3();
	ref_tables = hash_table(0xcbf29ce484222325ull, ref_cr3, 4);
	ref_cpus = hash_cpus();
	for (unsigned i = 0; i < ARRAY_SIZE(guarded_msrs); i++)
		ref_msr_ok[i] = !rdmsr_safe(guarded_msrs[i].msr, &ref_msr[i]);
}

bool selfcheck_verify(char *why, size_t size)
{
	if (hash_range(_text, _etext) != ref_text) {
		fmt_snprintf(why, size, "mhv's code changed");
		return false;
	}
	if (hash_range(_rodata, _erodata) != ref_rodata) {
		fmt_snprintf(why, size, "mhv's read-only data changed");
		return false;
	}
	if (read_cr3() != ref_cr3 || hash_table(0xcbf29ce484222325ull, ref_cr3, 4) != ref_tables) {
		fmt_snprintf(why, size, "the host page tables changed");
		return false;
	}
	for (unsigned i = 0; i < nr_watched; i++) {
		if (hash_bytes(watched[i].start, watched[i].size) != watched[i].ref) {
			fmt_snprintf(why, size, "%s changed", watched[i].what);
			return false;
		}
	}
	if (hash_cpus() != ref_cpus) {
		fmt_snprintf(why, size, "the per-CPU table changed");
		return false;
	}
	for (unsigned i = 0; i < nr_cpus; i++) {
		if (!cpu_work_plausible(&cpus[i])) {
			fmt_snprintf(why, size, "cpu %u's work function points outside mhv's code",
				     i);
			return false;
		}
	}
	for (unsigned i = 0; i < ARRAY_SIZE(guarded_msrs); i++) {
		u64 v;

		if (ref_msr_ok[i] && !rdmsr_safe(guarded_msrs[i].msr, &v) && v != ref_msr[i]) {
			fmt_snprintf(why, size, "host %s changed: 0x%llx, was 0x%llx",
				     guarded_msrs[i].name, v, ref_msr[i]);
			return false;
		}
	}
	if (!boot_stack_intact(why, size))
		return false;
	return smp_stacks_intact(why, size);
}
