// SPDX-License-Identifier: MIT
/* Backend selection: once, at init, from the CPUID cache. */
#include "backend.h"
#include "host/cpu_features.h"
#include "exit_dispatch.h"
#include "host/finish.h"
#include "lib/fmt.h"
#include "svm/svm.h"
#include "vmx/vmx.h"

const struct backend_ops *backend;

enum backend_err backend_fail(struct backend_error *err, enum backend_err code, const char *fmt,
			      ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	fmt_vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return code;
}

void backend_select(void)
{
	const char *why = "no hardware virtualization: CPUID 8000_0001 ECX[2] (SVM) and "
			  "CPUID 1 ECX[5] (VMX) are both 0";
	int status = MHV_NO_VIRT;

	if (host_cpu.has.svm)
		backend = svm_probe(&why, &status);
	else if (host_cpu.has.vmx)
		backend = vmx_probe(&why, &status);
	if (!backend)
		hv_fatal(status, "%s", why);
	backend->describe();
	guest_cpuid_init();
}
