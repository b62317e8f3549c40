/* SPDX-License-Identifier: MIT */
#ifndef MHV_MACHINE_H
#define MHV_MACHINE_H

#include "lib/types.h"

struct boot_info;

/* At take-over: mask the legacy PICs, the local APIC's timer and the I/O
 * APICs' redirection entries (the host polls); read the reset register. */
void platform_take_over(const struct boot_info *bi);
/* The environment header: CPU, features, emulator or hardware, TSC. */
void platform_describe(const struct boot_info *bi);
/* Short name of the environment for machine-readable lines: "qemu-tcg", ... */
const char *platform_env(void);
/* git describe of the build */
const char *platform_version(void);

#endif
