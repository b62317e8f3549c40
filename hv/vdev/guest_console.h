/* SPDX-License-Identifier: MIT */
#ifndef MHV_GUEST_CONSOLE_H
#define MHV_GUEST_CONSOLE_H

#include "core/vm.h"

/* A guest's console output, printed a line at a time as "[name] line". */
void guest_console_putc(struct vm *vm, char c);
void guest_console_flush(struct vm *vm);

#endif
