/* SPDX-License-Identifier: MIT */
/*
 * The 16550 UART's registers, as offsets from its base (PC16550D
 * datasheet, Table 2): the host's console drives one, and guests see one
 * emulated at GUEST_SERIAL_PORT.
 */
#ifndef MHV_UART_H
#define MHV_UART_H

#include "lib/types.h"

#define UART_THR 0 /* write; DLAB = 0 */
#define UART_IER 1 /* DLAB = 0 */
#define UART_DLL 0 /* DLAB = 1 */
#define UART_DLM 1 /* DLAB = 1 */
#define UART_FCR 2 /* write */
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5

#define UART_LCR_DLAB BIT(7)
#define UART_LSR_THRE BIT(5) /* the holding register takes a byte */
#define UART_LSR_IDLE 0x60   /* THRE | TEMT: nothing left to send */

#define UART_BASE_BAUD 115200 /* 1.8432 MHz / 16, the PC UART clock */

#endif
