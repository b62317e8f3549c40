// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "kvm_labels.h"
#include "lab/report.h"

/* The first line of a small file, without its newline; "" when unreadable. */
static const char *read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static void add(char *json, size_t size, const char *key, const char *value)
{
	char e[JSON_ESCAPED(256)];
	size_t n = strlen(json);

	snprintf(json + n, size - n, "%s\"%s\":\"%s\"", n && json[n - 1] != '{' ? "," : "", key,
		 json_escape(e, sizeof(e), value));
}

/*
 * The parameters that change what an exit costs or which exits there are
 * (arch/x86/kvm/x86.c, svm/svm.c, vmx/vmx.c module_param lines).
 * enable_mediated_pmu: the mediated vPMU of kernels that have one
 * (guest PMU MSRs passed through, the PMU switched at VM entry and exit).
 */
static const char *const kvm_params[] = { "enable_pmu", "enable_mediated_pmu", "tdp_mmu",
					  "mitigate_smt_rsb" };
static const char *const amd_params[] = {
	"nested", "npt", "nrips", "avic", "vgif", "vls", "pause_filter_count", "lbrv"
};
static const char *const intel_params[] = {
	"nested",	   "ept", "vpid", "enable_apicv", "unrestricted_guest", "pml", "ple_gap",
	"preemption_timer"
};

static void add_params(char *json, size_t size, const char *module, const char *const *names,
		       size_t n)
{
	char path[128], value[64];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, names[i]);
		if (*read_line(path, value, sizeof(value)))
			add(json, size, names[i], value);
	}
}

/* Linux's view of each CPU bug it knows (Documentation/admin-guide/hw-vuln/):
 * those that affect this CPU, with the mitigation the kernel chose; "Not
 * affected" ones say nothing about the exit path and stay out */
static void add_vulnerabilities(char *json, size_t size)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char path[320], value[256];
	struct dirent *e;
	size_t n;
	DIR *d = opendir(dir);

	n = strlen(json);
	snprintf(json + n, size - n, ",\"vulnerabilities\":{");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (strcmp(read_line(path, value, sizeof(value)), "Not affected"))
			add(json, size, e->d_name, value);
	}
	if (d)
		closedir(d);
	n = strlen(json);
	snprintf(json + n, size - n, "}");
}

static const char *cpu_model(char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, size, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(buf, size, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return buf;
}

void kvm_labels_read(struct kvm_labels *l)
{
	char value[256], cmdline[1024], cpu[128], clock[64];
	const char *module = NULL, *mitigations = "auto";
	struct utsname u;
	size_t n;
	DIR *d;

	memset(l, 0, sizeof(*l));
	/* the vendor module names the backend; KVM built in without
	 * parameters has no /sys/module entry, PVM (kvm_pvm) is neither */
	if ((d = opendir("/sys/module/kvm_amd"))) {
		module = "kvm_amd";
		snprintf(l->backend, sizeof(l->backend), "svm");
	} else if ((d = opendir("/sys/module/kvm_intel"))) {
		module = "kvm_intel";
		snprintf(l->backend, sizeof(l->backend), "vmx");
	} else if ((d = opendir("/sys/module/kvm_pvm"))) {
		module = "kvm_pvm";
		snprintf(l->backend, sizeof(l->backend), "pvm");
	} else {
		snprintf(l->backend, sizeof(l->backend), "unknown");
	}
	if (d)
		closedir(d);
	/* Linux's mitigations= (Documentation/admin-guide/kernel-parameters.txt) */
	if (strstr(read_line("/proc/cmdline", cmdline, sizeof(cmdline)), "mitigations=off"))
		mitigations = "off";
	uname(&u);
	add(l->json, sizeof(l->json), "kernel", u.release);
	add(l->json, sizeof(l->json), "kvm_module", module ? module : "none");
	add(l->json, sizeof(l->json), "mitigations", mitigations);
	add(l->json, sizeof(l->json), "cpu", cpu_model(cpu, sizeof(cpu)));
	/* the numbers are the guest's RDTSC deltas; the host's clock source
	 * says whether the TSC is one the kernel trusts */
	add(l->json, sizeof(l->json), "clock", "tsc");
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", clock,
		  sizeof(clock));
	add(l->json, sizeof(l->json), "host_clocksource", clock[0] ? clock : "unknown");
	n = strlen(l->json);
	snprintf(l->json + n, sizeof(l->json) - n, ",\"kvm_params\":{");
	add_params(l->json, sizeof(l->json), "kvm", kvm_params,
		   sizeof(kvm_params) / sizeof(*kvm_params));
	if (module && !strcmp(module, "kvm_amd"))
		add_params(l->json, sizeof(l->json), module, amd_params,
			   sizeof(amd_params) / sizeof(*amd_params));
	else if (module)
		add_params(l->json, sizeof(l->json), module, intel_params,
			   sizeof(intel_params) / sizeof(*intel_params));
	n = strlen(l->json);
	snprintf(l->json + n, sizeof(l->json) - n, "}");
	add_vulnerabilities(l->json, sizeof(l->json));
	/* the column: KVM's PMU as it comes (enable_pmu=Y), without, mediated */
	snprintf(l->config, sizeof(l->config), "kvm%s%s%s",
		 *read_line("/sys/module/kvm/parameters/enable_pmu", value, sizeof(value)) == 'N'
		     ? "-pmu-off"
		     : "",
		 *read_line("/sys/module/kvm/parameters/enable_mediated_pmu", value,
			    sizeof(value)) == 'Y'
		     ? "-mediated-pmu"
		     : "",
		 !strcmp(mitigations, "off") ? "-mitigations-off" : "");
	snprintf(l->header, sizeof(l->header), "kernel %s, %s, column %s, mitigations %s, cpu %s",
		 u.release, module ? module : "no KVM module", l->config, mitigations, cpu);
}
