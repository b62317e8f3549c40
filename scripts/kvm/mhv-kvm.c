// SPDX-License-Identifier: MIT
/*
 * mhv-kvm: mhv's own guest programs (build/guest/SUITE.bin) in a Linux KVM
 * VM through /dev/kvm, with mhv's layout, statistics and MHV-JSON lines,
 * so that scripts/mhv-report puts KVM's numbers beside mhv's
 * (README: Comparing with KVM on your machine).
 *
 *   mhv-kvm [--dev PATH] [--guests DIR] [--suite S] [--iterations N]
 *           [--batches N] [--warmup N] [--tests a,b] [--env NAME]
 *           [--timeout SEC]
 *
 * Exit status: 0 every test passed, 1 a failure (a guest's FAIL, a
 * malformed result, a stopped guest), 2 bad usage, 77 a skip (no
 * /dev/kvm, no permission, a KVM without a needed capability, as
 * kvm-unit-tests' runner), 124 the time limit.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kvm_devices.h"
#include "kvm_hc.h"
#include "kvm_labels.h"
#include "kvm_run.h"
#include "kvm_vm.h"

#define PROG "mhv-kvm"

struct options {
	const char *dev, *guests, *suite, *env;
	unsigned timeout;
	char tests_buf[1024];
};

static void on_alarm(int sig)
{
	(void)sig;
	kvm_run_timed_out = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [--dev PATH] [--guests DIR] [--suite vmexit|xstate|pmu] "
			"[--iterations N] [--batches N] [--warmup N] [--tests a,b] "
			"[--env NAME] [--timeout SEC]\n");
	exit(2);
}

static unsigned number(const char *opt, const char *s, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi) {
		fprintf(stderr, PROG ": %s wants a number from %u to %u, not '%s'\n", opt, lo, hi,
			s);
		exit(2);
	}
	return (unsigned)v;
}

static void parse(int argc, char **argv, struct options *o, struct kvm_hc *hc)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help") || !v)
			usage();
		i++;
		if (!strcmp(a, "--dev"))
			o->dev = v;
		else if (!strcmp(a, "--guests"))
			o->guests = v;
		else if (!strcmp(a, "--suite"))
			o->suite = v;
		else if (!strcmp(a, "--env"))
			o->env = v;
		else if (!strcmp(a, "--iterations"))
			hc->params.iterations = number(a, v, 1, 10000000);
		else if (!strcmp(a, "--batches"))
			hc->params.batches = number(a, v, 1, HC_BENCH_MAX_SAMPLES);
		else if (!strcmp(a, "--warmup"))
			hc->params.warmup = number(a, v, 0, 10000000);
		else if (!strcmp(a, "--timeout"))
			o->timeout = number(a, v, 1, 86400);
		else if (!strcmp(a, "--tests")) {
			char *t;

			snprintf(o->tests_buf, sizeof(o->tests_buf), "%s", v);
			for (t = strtok(o->tests_buf, ","); t && hc->nr_tests < KVM_HC_MAX_TESTS;
			     t = strtok(NULL, ","))
				hc->tests[hc->nr_tests++] = t;
		} else {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			usage();
		}
	}
	if (strcmp(o->suite, "vmexit") && strcmp(o->suite, "xstate") && strcmp(o->suite, "pmu")) {
		fprintf(stderr, PROG ": --suite: vmexit, xstate or pmu, not '%s'\n", o->suite);
		exit(2);
	}
}

static void *read_image(const char *dir, const char *suite, size_t *size)
{
	char path[512];
	FILE *f;
	void *buf = NULL;
	long n;

	snprintf(path, sizeof(path), "%s/%s.bin", dir, suite);
	f = fopen(path, "rb");
	if (!f) {
		printf(PROG ": cannot read %s: %s (make all builds it)\n", path, strerror(errno));
		return NULL;
	}
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*size = (size_t)n;
	fclose(f);
	if (*size < GUEST_INFO_OFFSET + sizeof(struct guest_info) ||
	    memcmp((char *)buf + GUEST_INFO_OFFSET, &(u64){ GUEST_INFO_MAGIC }, 8)) {
		printf(PROG ": %s is not an mhv guest image (no guest_info at 0x%x)\n", path,
		       GUEST_INFO_OFFSET);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The split's rows need the hypervisor's own entry and exit stamps */
static void split_skipped(struct kvm_hc *hc)
{
	static const char *const split[] = { "vmrun_to_guest", "guest_to_exit" };
	unsigned i;

	for (i = 0; i < 2; i++)
		kvm_hc_skip_row(hc, split[i],
				"needs the hypervisor's TSC at VM entry and exit, which KVM "
				"does not give user space");
}

/* vmexit's two-vCPU tests, skipped as mhv skips them on one CPU */
static void two_vcpus_skipped(struct kvm_hc *hc)
{
	static const char *const two_vcpus[] = { "ipi", "ipi_halt", "ple_round_robin" };
	unsigned i;

	for (i = 0; i < 3; i++)
		kvm_hc_skip_row(hc, two_vcpus[i], "needs two CPUs; this machine has one");
}

/* One VM of the guest image's @variant: its status (the skip's 77 too) */
static int run_variant(const struct options *o, struct kvm_hc *hc, struct kvm_devices *dev,
		       const void *image, size_t size, unsigned variant, unsigned nr_vcpus,
		       const char *header)
{
	struct kvm_vm v;
	char why[256];
	enum kvm_vm_status st;
	int status;

	st = kvm_vm_create(&v, o->dev, image, size, variant, nr_vcpus, why, sizeof(why));
	if (st != KVM_VM_OK) {
		printf(PROG ": %s: %s%s\n", o->suite, st == KVM_VM_SKIP ? "skipped: " : "", why);
		kvm_vm_destroy(&v);
		return st;
	}
	/* what the numbers belong to, once there is a VM to measure */
	if (header)
		printf(PROG ": %s\n", header);
	hc->ram = v.ram;
	hc->exited = 0;
	hc->exit_code = 0;
	kvm_run_timed_out = 0;
	alarm(o->timeout);
	status = kvm_run_vm(&v, hc, dev, o->timeout);
	alarm(0);
	kvm_vm_destroy(&v);
	return status ? status : hc->exit_code ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options o = { .dev = "/dev/kvm",
			     .guests = "build/guest",
			     .suite = "vmexit",
			     .env = NULL,
			     .timeout = 120 };
	/* mhv's defaults (hv/lab/config.c) */
	struct kvm_hc hc = { .params = { .iterations = 1000, .batches = 20, .warmup = 1000 } };
	struct kvm_devices dev;
	struct kvm_labels labels;
	size_t size = 0;
	void *image;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv, &o, &hc);
	image = read_image(o.guests, o.suite, &size);
	if (!image)
		return 2;
	kvm_labels_read(&labels);
	hc.ram_size = GUEST_RAM_SIZE;
	hc.suite = o.suite;
	hc.config = labels.config;
	hc.backend = labels.backend;
	hc.env = o.env ? o.env : kvm_devices_env();
	hc.labels = labels.json;
	hc.not_comparable = kvm_devices_not_comparable;
	hc.out = stdout;
	kvm_devices_init(&dev);
	/* no SA_RESTART: KVM_RUN returns EINTR even in a guest's exit-less spin */
	sigaction(SIGALRM, &(struct sigaction){ .sa_handler = on_alarm }, NULL);
	status = run_variant(&o, &hc, &dev, image, size, 0, 1, labels.header);
	if (status == KVM_VM_SKIP) {
		free(image);
		return status;
	}
	/* vmexit's other VMs (vmexit.c guest_main): variant 2, two vCPUs on
	 * two CPUs; variant 1, the split, has no KVM equivalent */
	if (!strcmp(o.suite, "vmexit") && !status) {
		split_skipped(&hc);
		if (kvm_run_cpus() < 2)
			two_vcpus_skipped(&hc);
		else
			status = run_variant(&o, &hc, &dev, image, size, 2, 2, NULL);
	}
	free(image);
	kvm_devices_report(&dev, stdout);
	if (!status && (hc.failed || hc.malformed))
		status = 1;
	printf(PROG ": summary: %u passed, %u failed, %u skipped, %u benchmark rows\n", hc.passed,
	       hc.failed + hc.malformed, hc.skipped, hc.rows);
	/* mhv's closing line: mhv-report reads a log as complete after it */
	printf(PROG ": finished: status %s\n", status ? "fail" : "pass");
	return status;
}
