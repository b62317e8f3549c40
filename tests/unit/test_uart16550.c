// SPDX-License-Identifier: MIT
/* The 16550A against the TI PC16550D datasheet: reset values, the divisor
 * latch, IIR priorities and what clears each interrupt, the FIFO and its
 * trigger levels, overrun, loopback, and the checks Linux's 8250 driver
 * makes before it takes the port for a 16550A. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/uart.h"
#include "vdev/uart16550.h"

static struct uart16550 u;

static int setup(void **state)
{
	uart_reset(&u);
	return 0;
}

static void reset_values(void **state)
{
	assert_int_equal(uart_read(&u, UART_IER), 0);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_NONE);
	assert_int_equal(uart_read(&u, UART_LCR), 0);
	assert_int_equal(uart_read(&u, UART_MCR), 0);
	assert_int_equal(uart_read(&u, UART_LSR), 0x60); /* THRE, TEMT */
	assert_int_equal(uart_read(&u, UART_MSR) & 0xf0, 0xb0);
	assert_false(uart_irq(&u));
}

static void divisor_latch_and_scratch(void **state)
{
	uart_write(&u, UART_LCR, UART_LCR_DLAB | 0x03);
	assert_int_equal(uart_write(&u, UART_DLL, 0x01), -1); /* not sent */
	uart_write(&u, UART_DLM, 0x02);
	assert_int_equal(uart_read(&u, UART_DLL), 0x01);
	assert_int_equal(uart_read(&u, UART_DLM), 0x02);
	uart_write(&u, UART_LCR, 0x03);
	assert_int_equal(uart_read(&u, UART_IER), 0); /* IER untouched by DLM */
	assert_int_equal(uart_write(&u, UART_THR, 'A'), 'A');
	uart_write(&u, UART_SCR, 0x5a);
	assert_int_equal(uart_read(&u, UART_SCR), 0x5a);
	/* IER keeps bits 3:0 only */
	uart_write(&u, UART_IER, 0xff);
	assert_int_equal(uart_read(&u, UART_IER), 0x0f);
}

static void thre_interrupt(void **state)
{
	/* enabling ETBEI with THR empty interrupts at once (8250 THRE test) */
	uart_write(&u, UART_IER, UART_IER_ETBEI);
	assert_true(uart_intr(&u));
	assert_false(uart_irq(&u)); /* OUT2 low: the PC's line stays quiet */
	uart_write(&u, UART_MCR, UART_MCR_OUT2);
	assert_true(uart_irq(&u));
	/* reading IIR with THRE the source clears it */
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_THRE);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_NONE);
	assert_false(uart_irq(&u));
	/* each byte sent empties THR again */
	uart_write(&u, UART_THR, 'x');
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_THRE);
	/* off and on again: again at once */
	uart_write(&u, UART_IER, 0);
	uart_write(&u, UART_IER, UART_IER_ETBEI);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_THRE);
	/* LSR says THR empty throughout */
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_THRE, UART_LSR_THRE);
}

static void receive_without_fifo(void **state)
{
	uart_write(&u, UART_IER, UART_IER_ERBFI | UART_IER_ELSI);
	assert_true(uart_receive(&u, 'a'));
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_DR, UART_LSR_DR);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_RDA);
	/* a second byte overruns the holding register: OE, the new byte kept */
	assert_false(uart_receive(&u, 'b'));
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_RLS); /* highest priority */
	assert_int_equal(uart_read(&u, UART_LSR) & (UART_LSR_OE | UART_LSR_DR),
			 UART_LSR_OE | UART_LSR_DR);
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_OE, 0); /* cleared by the read */
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_RDA);
	assert_int_equal(uart_read(&u, UART_RBR), 'b');
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_NONE);
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_DR, 0);
}

static void fifo_trigger_and_timeout(void **state)
{
	int i;

	/* FIFOs on, trigger level 4 (FCR bits 7:6 = 01) */
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | 1 << UART_FCR_TRIGGER_SHIFT);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_FIFOS | UART_IIR_NONE);
	uart_write(&u, UART_IER, UART_IER_ERBFI);
	for (i = 0; i < 3; i++)
		uart_receive(&u, (uint8_t)('0' + i));
	/* below the trigger: the character timeout */
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_FIFOS | UART_IIR_TIMEOUT);
	uart_receive(&u, '3');
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_FIFOS | UART_IIR_RDA);
	for (i = 4; i < 16; i++)
		assert_true(uart_receive(&u, (uint8_t)('0' + i)));
	/* the 17th byte overruns; the FIFO keeps the first 16 */
	assert_false(uart_receive(&u, 'X'));
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_OE, UART_LSR_OE);
	for (i = 0; i < 16; i++)
		assert_int_equal(uart_read(&u, UART_RBR), '0' + i);
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_DR, 0);
	/* FCR bit 1 empties the receive FIFO */
	uart_receive(&u, 'z');
	uart_write(&u, UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX);
	assert_int_equal(uart_read(&u, UART_LSR) & UART_LSR_DR, 0);
	/* FIFOs off: IIR bits 7:6 clear */
	uart_write(&u, UART_FCR, 0);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_NONE);
}

static void loopback_and_modem_status(void **state)
{
	/* Linux's autoconfig: MCR = LOOP | OUT2 | RTS reads MSR 0x90 */
	uart_write(&u, UART_MCR, UART_MCR_LOOP | 0x0a);
	assert_int_equal(uart_read(&u, UART_MSR) & 0xf0, 0x90);
	/* bytes sent come back, nothing leaves */
	assert_int_equal(uart_write(&u, UART_THR, 'L'), -1);
	assert_int_equal(uart_read(&u, UART_RBR), 'L');
	/* modem status interrupt on a change; TERI when RI goes off */
	uart_write(&u, UART_IER, UART_IER_EDSSI);
	uart_read(&u, UART_MSR);
	uart_write(&u, UART_MCR, UART_MCR_LOOP | UART_MCR_OUT1);
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_MS);
	assert_int_equal(uart_read(&u, UART_MSR), UART_MSR_RI | 0x09); /* DCTS, DDCD */
	assert_int_equal(uart_read(&u, UART_IIR), UART_IIR_NONE);
	uart_write(&u, UART_MCR, UART_MCR_LOOP);
	assert_int_equal(uart_read(&u, UART_MSR), UART_MSR_TERI);
	/* loopback holds the PC's IRQ line off */
	uart_write(&u, UART_MCR, UART_MCR_LOOP | UART_MCR_OUT2 | UART_MCR_OUT1);
	assert_true(uart_intr(&u));
	assert_false(uart_irq(&u));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(reset_values, setup),
		cmocka_unit_test_setup(divisor_latch_and_scratch, setup),
		cmocka_unit_test_setup(thre_interrupt, setup),
		cmocka_unit_test_setup(receive_without_fifo, setup),
		cmocka_unit_test_setup(fifo_trigger_and_timeout, setup),
		cmocka_unit_test_setup(loopback_and_modem_status, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
