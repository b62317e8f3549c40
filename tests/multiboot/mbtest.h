/* SPDX-License-Identifier: MIT */
/* mbtest: what its parts share (port I/O, output, checks, the IDT). */
#ifndef MBTEST_H
#define MBTEST_H

#include <stdint.h>

void outb(uint16_t port, uint8_t v);
void outw(uint16_t port, uint16_t v);
void outl(uint16_t port, uint32_t v);
uint8_t inb(uint16_t port);
uint32_t inl(uint16_t port);
void puts(const char *s);
void putu(uint32_t v);
/* One "mbtest: PASS name" or "mbtest: FAIL name" line; failures are counted. */
void check(int ok, const char *name);
/* The number after "key" on the command line ("cpus=2"), or 0. */
uint32_t arg(const char *cmdline, const char *key);
/* A 32-bit interrupt gate for @vector in mbtest's IDT (loaded by this). */
void set_gate(unsigned vector, void (*handler)(void));
/* mbapic.c: the local APIC and INIT-SIPI checks. */
void mbtest_apic(const char *cmdline);

#endif
