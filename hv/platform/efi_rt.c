// SPDX-License-Identifier: MIT
/*
 * Calls into the firmware's runtime services (efi_rt.h).  The table is
 * checked once; each call holds a machine-wide lock, since runtime
 * services are not reentrant (UEFI 2.10 §8.1, Table 8-1), and keeps the
 * x87/SSE state it finds: mhv's own code never touches it, but firmware
 * compilers may, and a guest's state may be loaded on this CPU.
 */
#include "efi_rt.h"
#include "lib/kept_log.h"
#include "console.h"
#include "lib/fmt.h"
#include "host/percpu.h"
#include "arch/x86.h"

/* EFI_TABLE_HEADER then the services, in the order of UEFI 2.10 §4.5.1 */
struct efi_runtime_services {
	u64 signature;
	u32 revision, header_size, crc32, reserved;
	u64 get_time, set_time, get_wakeup_time, set_wakeup_time;
	u64 set_virtual_address_map, convert_pointer;
	u64 get_variable, get_next_variable_name, set_variable;
	u64 get_next_high_monotonic_count, reset_system;
	u64 update_capsule, query_capsule_capabilities, query_variable_info;
};
_Static_assert(__builtin_offsetof(struct efi_runtime_services, get_variable) == 72,
	       "UEFI 2.10 §4.5.1");
_Static_assert(__builtin_offsetof(struct efi_runtime_services, set_variable) == 88,
	       "UEFI 2.10 §4.5.1");

#define EFI_RUNTIME_SERVICES_SIGNATURE 0x56524553544e5552ull /* "RUNTSERV" */

/* The services' calling convention is Microsoft's x64 one (UEFI 2.10 §2.3.4). */
typedef u64 __attribute__((ms_abi))
efi_get_variable_fn(const u16 *name, const struct efi_guid *guid, u32 *attrs, u64 *size,
		    void *data);
typedef u64 __attribute__((ms_abi))
efi_query_variable_info_fn(u32 attrs, u64 *max_storage, u64 *remaining, u64 *max_size);
typedef u64 __attribute__((ms_abi))
efi_set_variable_fn(const u16 *name, const struct efi_guid *guid, u32 attrs, u64 size,
		    const void *data);

const struct efi_guid mhv_vendor_guid = MHV_VENDOR_GUID_INIT;

static const struct efi_runtime_services *rt;
static volatile u32 rt_lock;

void efi_rt_init(u64 table)
{
	const struct efi_runtime_services *t = (const void *)(uintptr_t)table;

	if (!t)
		console_printf("mhv: firmware: no UEFI runtime services table\n");
	else if (t->signature != EFI_RUNTIME_SERVICES_SIGNATURE || !t->get_variable ||
		 !t->set_variable)
		console_printf("mhv: firmware: the UEFI runtime services table at 0x%llx has no "
			       "RUNTSERV signature or no variable services: not used\n",
			       table);
	else {
		rt = t;
		console_printf(
		    "mhv: firmware: UEFI runtime services, revision %u.%02u, at 0x%llx\n",
		    t->revision >> 16, t->revision & 0xffff, table);
	}
}

bool efi_rt_available(void)
{
	return rt;
}

struct fx_area {
	u8 bytes[512];
} __attribute__((aligned(16)));

/* About seconds of waiting for another CPU's call (variable writes take
 * milliseconds); past that the call is refused, not waited for. */
#define RT_LOCK_SPINS (1u << 28)

/*
 * The lock holds the caller's CPU index + 1: a CPU that faulted inside a
 * firmware call and ends the run (hv_fatal -> the kept log) must not
 * wait for itself, nor anyone for a CPU that never comes back.  False:
 * the call cannot be made now.
 */
static bool rt_enter(struct fx_area *fx)
{
	u32 me = this_cpu()->index + 1, free = 0;
	u32 spins = 0;

	while (!__atomic_compare_exchange_n(&rt_lock, &free, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		if (free == me || ++spins == RT_LOCK_SPINS)
			return false;
		free = 0;
		cpu_relax();
	}
	asm volatile("fxsave64 %0" : "=m"(*fx));
	return true;
}

static void rt_leave(struct fx_area *fx)
{
	asm volatile("fxrstor64 %0" ::"m"(*fx));
	__atomic_store_n(&rt_lock, 0, __ATOMIC_RELEASE);
}

/* Service fn of the table, of type type, called with the arguments under
 * the lock; EFI_NOT_READY when the lock cannot be had (rt_enter). */
#define RT_CALL(type, fn, ...)                                        \
	({                                                            \
		struct fx_area fx_;                                   \
		u64 st_ = EFI_NOT_READY;                              \
		if (rt_enter(&fx_)) {                                 \
			st_ = ((type *)(uintptr_t)(fn))(__VA_ARGS__); \
			rt_leave(&fx_);                               \
		}                                                     \
		st_;                                                  \
	})

u64 efi_rt_set_variable(const u16 *name, const struct efi_guid *guid, u32 attrs, u64 size,
			const void *data)
{
	if (!rt)
		return EFI_NOT_FOUND;
	return RT_CALL(efi_set_variable_fn, rt->set_variable, name, guid, attrs, size, data);
}

u64 efi_rt_get_variable(const u16 *name, const struct efi_guid *guid, u32 *attrs, u64 *size,
			void *data)
{
	if (!rt)
		return EFI_NOT_FOUND;
	return RT_CALL(efi_get_variable_fn, rt->get_variable, name, guid, attrs, size, data);
}

/* UEFI 2.0 and later (UEFI 2.10 §8.2.4) */
u64 efi_rt_query_variable_info(u32 attrs, u64 *max_storage, u64 *remaining, u64 *max_size)
{
	if (!rt || rt->revision < (2u << 16) || !rt->query_variable_info)
		return EFI_UNSUPPORTED;
	return RT_CALL(efi_query_variable_info_fn, rt->query_variable_info, attrs, max_storage,
		       remaining, max_size);
}

/* UEFI 2.10 Appendix D, the ones a variable call returns */
static const char *const status_names[] = {
	[2] = "EFI_INVALID_PARAMETER",
	[3] = "EFI_UNSUPPORTED",
	[5] = "EFI_BUFFER_TOO_SMALL",
	[6] = "EFI_NOT_READY (another call in the firmware)", /* or mhv's lock: rt_enter */
	[7] = "EFI_DEVICE_ERROR",
	[8] = "EFI_WRITE_PROTECTED",
	[9] = "EFI_OUT_OF_RESOURCES",
	[14] = "EFI_NOT_FOUND",
	[26] = "EFI_SECURITY_VIOLATION",
};

const char *efi_status_name(u64 status, char *buf, size_t size)
{
	u64 code = status & ~EFI_ERROR_BIT;

	if (!status)
		return "EFI_SUCCESS";
	if ((status & EFI_ERROR_BIT) && code < ARRAY_SIZE(status_names) && status_names[code])
		return status_names[code];
	fmt_snprintf(buf, size, "EFI status 0x%llx", status);
	return buf;
}
