// SPDX-License-Identifier: MIT
#include "guest_console.h"
#include "platform/console.h"

void guest_console_flush(struct vm *vm)
{
	u32 len = vm->console_len;

	if (!len)
		return;
	console_printf("[%s] %.*s\n", vm->name, (int)len, vm->console_line);
	__atomic_fetch_add(&vm->console_printed, len, __ATOMIC_RELAXED);
	vm->console_len = 0;
}

void guest_console_putc(struct vm *vm, char c)
{
	if (c == '\n') {
		guest_console_flush(vm);
		return;
	}
	if (c == '\r')
		return;
	/* Control characters from a guest must not drive the host's terminal. */
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		c = '?';
	__atomic_fetch_add(&vm->console_taken, 1, __ATOMIC_RELAXED);
	vm->console_line[vm->console_len++] = c;
	if (vm->console_len == sizeof(vm->console_line))
		guest_console_flush(vm);
}
