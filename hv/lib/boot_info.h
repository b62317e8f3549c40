/* SPDX-License-Identifier: MIT */
/*
 * What boot/ hands to the hypervisor core.  After ExitBootServices this
 * is the only view of the firmware's world that hv/ has.
 */
#ifndef MHV_BOOT_INFO_H
#define MHV_BOOT_INFO_H

#include "types.h"

enum mem_kind {
	MEM_USABLE,   /* free RAM after ExitBootServices (conventional, boot services) */
	MEM_IN_USE,   /* loader code/data: our image, the pool, boot_info */
	MEM_ACPI,     /* ACPI tables and NVS */
	MEM_RESERVED, /* runtime services, reserved, MMIO */
};

struct mem_range {
	u64 base;
	u64 pages;
	u32 kind; /* enum mem_kind */
	u32 efi_type;
};

/* Descriptors of the firmware's map (neighbours of a kind merged, lib/mem_map.h):
 * a two-socket server's map has a few hundred. */
#define BOOT_MAX_MEM_RANGES 2048
#define TRAMPOLINE_PAGES 9 /* code, temporary page tables, boot stack, park stacks (host/smp.c) */

/* The GOP framebuffer as the firmware set it up, base 0 when there is none. */
struct boot_fb {
	u64 base;
	u32 width, height, pitch; /* pitch in pixels */
	u32 bgr;	    /* 1: blue in the low byte (PixelBlueGreenRedReserved8BitPerColor) */
	const char *source; /* which GOP: the console's, a console output, the first */
};

/* A file from the boot volume, read before ExitBootServices. */
struct boot_file {
	const u8 *data; /* NULL when it could not be read: error says why */
	u64 size;
	char error[64];
};

#define BOOT_MAX_GUESTS 8 /* mhv.cfg's "guest =" sections at most (CONFIG_MAX_GUESTS) */

/* The firmware's wall clock (UEFI GetTime) and the TSC when it was read,
 * just before ExitBootServices; valid 0 when GetTime failed. */
struct boot_wall_clock {
	u16 year;
	u8 month, day, hour, minute, second;
	bool valid;
	s16 tz_minutes; /* local time = UTC - tz_minutes; 0x7ff: unspecified (local) */
	u64 tsc;
};

/* The SecureBoot and SetupMode UEFI global variables before
 * ExitBootServices (UEFI 2.10 §3.3): 1 or 0, -1 when the firmware has none. */
struct boot_secure_boot {
	s8 secure_boot;
	s8 setup_mode;
};

struct boot_info {
	u64 image_base;
	u64 image_size;
	u64 pool_base; /* pages reserved for the hypervisor before ExitBootServices */
	u64 pool_pages;
	u64 rsdp;		 /* ACPI RSDP physical address, 0 if none */
	const char *config_text; /* contents of \mhv.cfg, NULL if absent */
	u64 config_len;
	char config_error[96]; /* why \mhv.cfg could not be read, "" if fine */
	u64 trampoline_base;   /* pages below 1 MiB for starting APs, 0 if none */
	/* the kernels and modules of mhv.cfg\'s "guest =" sections, by index */
	struct boot_file guest_files[BOOT_MAX_GUESTS], module_files[BOOT_MAX_GUESTS];
	struct boot_fb fb;
	u32 exit_boot_services_tries;
	struct boot_wall_clock wall_clock;
	u64 efi_runtime; /* the UEFI runtime services table, 0 if none */
	/* what became of the log the previous run kept (boot/kept_log_file.c), "" if none */
	char previous_log[160];
	struct boot_secure_boot secure_boot;
	u32 nr_mem_ranges;
	u32 mem_dropped;	      /* descriptors that did not fit in mem[] */
	u64 mem_dropped_usable_pages; /* usable pages among them */
	struct mem_range mem[BOOT_MAX_MEM_RANGES];
};

/* boot/ hands over to hv_start (main.c) once boot services are gone: it
 * moves to mhv's own stack (host/boot_stack.c) and runs the host there. */
void hv_start(const struct boot_info *bi) __noreturn;

#endif
