/* SPDX-License-Identifier: MIT */
#ifndef MHV_BOOT_SECURE_BOOT_H
#define MHV_BOOT_SECURE_BOOT_H

struct boot_secure_boot;

/* The firmware's Secure Boot state, read before ExitBootServices. */
void read_secure_boot(struct boot_secure_boot *sb);

#endif
