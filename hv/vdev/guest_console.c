// SPDX-License-Identifier: MIT
/*
 * A guest's console: one line buffer per VM, appended by every vCPU that
 * writes port 0x3F8 or calls HC_PRINT, from as many CPUs at once.  A lock
 * per VM makes each byte and each line whole.  It is taken only inside
 * mhv, never held while a guest runs, so a wait is bounded by one line's
 * print; if a holder never lets go (a CPU lost while printing), the guest
 * loses its output, not the host a CPU.  The length is checked before
 * each use all the same: a byte written past the line would land in
 * mhv's own data.
 */
#include "guest_console.h"
#include "platform/console.h"
#include "arch/x86.h"

/* About seconds: far longer than one line takes on a 115200-baud UART. */
#define CONSOLE_LOCK_SPINS (1u << 26)

static bool console_lock(struct vm *vm)
{
	u32 spins = 0;

	while (__atomic_test_and_set(&vm->console_lock, __ATOMIC_ACQUIRE)) {
		if (++spins == CONSOLE_LOCK_SPINS)
			return false;
		cpu_relax();
	}
	return true;
}

static void console_unlock(struct vm *vm)
{
	__atomic_clear(&vm->console_lock, __ATOMIC_RELEASE);
}

/* With the lock: the line out, the buffer empty. */
static void flush_line(struct vm *vm)
{
	u32 len = vm->console_len;

	vm->console_len = 0;
	if (!len || len > sizeof(vm->console_line))
		return;
	console_printf("[%s] %.*s\n", vm->name, (int)len, vm->console_line);
	vm->console_printed += len;
}

void guest_console_flush(struct vm *vm)
{
	if (!console_lock(vm))
		return;
	flush_line(vm);
	console_unlock(vm);
}

void guest_console_putc(struct vm *vm, char c)
{
	u32 len;

	if (c == '\r')
		return;
	/* control characters from a guest must not drive the host's terminal */
	if (c != '\n' && c != '\t')
		c = guest_char_shown(c);
	if (!console_lock(vm))
		return;
	if (c == '\n') {
		flush_line(vm);
	} else {
		len = vm->console_len;
		if (len >= sizeof(vm->console_line))
			len = 0; /* not a length the lock lets happen: start afresh */
		vm->console_line[len++] = c;
		vm->console_len = len;
		vm->console_taken++;
		if (len == sizeof(vm->console_line))
			flush_line(vm);
	}
	console_unlock(vm);
}
