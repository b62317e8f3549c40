// SPDX-License-Identifier: MIT
#include <string.h>
#include <time.h>

#include "kvm_devices.h"
#include "lib/guest_abi.h"

/* The ACPI PM timer's rate (ACPI 6.5 §4.8.3.3) */
#define PM_TIMER_HZ 3579545ull

void kvm_devices_init(struct kvm_devices *d)
{
	memset(d, 0, sizeof(*d));
}

static unsigned pm_timer(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned)((unsigned long long)t.tv_sec * PM_TIMER_HZ +
			  (unsigned long long)t.tv_nsec * PM_TIMER_HZ / 1000000000ull);
}

/* One access of @size bytes at @port; reads of nothing are all ones */
static void io_one(struct kvm_devices *d, unsigned port, unsigned size, bool out,
		   unsigned char *data)
{
	unsigned v = 0xffffffffu, shift;

	if (port >= GUEST_TEST_PORT && port + size <= GUEST_TEST_PORT + 4) {
		/* each byte lane on its own, read back as written */
		shift = (port - GUEST_TEST_PORT) * 8;
		if (out) {
			unsigned mask = (size == 4 ? 0xffffffffu : (1u << size * 8) - 1) << shift;

			memcpy(&v, data, size);
			d->test_port = (d->test_port & ~mask) | ((v << shift) & mask);
			return;
		}
		v = d->test_port >> shift;
	} else if (port == GUEST_PM_TIMER_PORT && !out) {
		v = pm_timer();
	} else {
		if (!d->unknown_io++)
			d->first_unknown_port = port;
	}
	if (!out)
		memcpy(data, &v, size);
}

void kvm_devices_io(struct kvm_devices *d, unsigned port, unsigned size, unsigned count, bool out,
		    unsigned char *data)
{
	unsigned i;

	for (i = 0; i < count; i++)
		io_one(d, port, size, out, data + i * size);
}

void kvm_devices_mmio(struct kvm_devices *d, unsigned long long gpa, unsigned char *data,
		      unsigned len, bool write)
{
	unsigned long long off = gpa - GUEST_MMIO_BASE, v = ~0ull;

	if (len > 8)
		len = 8;
	if (gpa >= GUEST_MMIO_BASE && off + len <= MMIO_REG_ID + 4 && !write) {
		v = MMIO_DEVICE_ID >> (off * 8);
	} else if (off >= MMIO_REG_SCRATCH && off + len <= MMIO_REG_SCRATCH + 8 &&
		   gpa >= GUEST_MMIO_BASE) {
		unsigned shift = (unsigned)(off - MMIO_REG_SCRATCH) * 8;
		unsigned long long mask = (len == 8 ? ~0ull : (1ull << len * 8) - 1) << shift;

		if (write) {
			memcpy(&v, data, len);
			d->mmio_scratch = (d->mmio_scratch & ~mask) | ((v << shift) & mask);
			return;
		}
		v = d->mmio_scratch >> shift;
	} else if (!d->unknown_mmio++) {
		d->first_unknown_gpa = gpa;
	}
	if (!write)
		memcpy(data, &v, len);
}

void kvm_devices_report(const struct kvm_devices *d, FILE *out)
{
	if (d->unknown_io)
		fprintf(out, "mhv-kvm: %llu port accesses no device answered (first: port 0x%x)\n",
			d->unknown_io, d->first_unknown_port);
	if (d->unknown_mmio)
		fprintf(out, "mhv-kvm: %llu MMIO accesses no device answered (first: 0x%llx)\n",
			d->unknown_mmio, d->first_unknown_gpa);
}

const char *kvm_devices_not_comparable(const char *test)
{
	static const struct {
		const char *test, *why;
	} rows[] = {
		{ "inl_from_hv", "KVM has no in-kernel device that answers reads of port 0xe0: "
				 "a round trip to user space (kvm-unit-tests' inl_from_qemu)" },
		{ "inl_from_pmtimer", "KVM has no in-kernel ACPI PM timer: a round trip to user "
				      "space" },
		{ "mmio_read", "KVM has no in-kernel device that answers MMIO reads there: a "
			       "round trip to user space" },
	};
	unsigned i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i].test, test))
			return rows[i].why;
	return NULL;
}

const char *kvm_devices_env(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	const char *env = "hardware";

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			if (strstr(line, " hypervisor"))
				env = "hypervisor";
			break;
		}
	}
	if (f)
		fclose(f);
	return env;
}
