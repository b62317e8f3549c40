/* SPDX-License-Identifier: MIT */
/*
 * The guest's port devices (core/io.c) as one list: base, number of
 * ports, and the in and out handlers' names.  io.c builds its table from
 * it; tests/unit/test_io_ports.c checks the list as a whole (no range
 * covers a port of another, which the table's first-match search would
 * hide).  The ports the exit benchmarks use come first: the search is
 * their cost.  The last column says whether the fast exit path may call
 * the device: PORT_GENERAL for one that may wait, the UART, whose writes
 * print the guest's console line on the host's screen and serial ports
 * (on SVM the fast path runs with GIF clear, holding SMIs: svm/svm.h).
 */
#ifndef MHV_IO_PORTS_H
#define MHV_IO_PORTS_H

#include "arch/ports.h"
#include "lib/guest_abi.h"
#include "vdev/fw_cfg.h"
#include "vdev/pit.h"
#include "vdev/rtc_cmos.h"

#define PORT_FAST true
#define PORT_GENERAL false

#define PORT_DEVICE_LIST(X)                                                    \
	X(GUEST_TEST_PORT, 4, test_port_in, test_port_out, PORT_FAST)          \
	X(GUEST_PM_TIMER_PORT, 4, pm_timer_in, ignore_out, PORT_FAST)          \
	X(GUEST_SERIAL_PORT, 8, serial_in, serial_out, PORT_GENERAL)           \
	X(GUEST_EXIT_PORT, 4, write_only_in, exit_port_out, PORT_FAST)         \
	X(FW_CFG_SELECTOR_PORT, 2, fw_cfg_in, fw_cfg_out, PORT_FAST)           \
	X(GUEST_SHUTDOWN_PORT, 1, write_only_in, shutdown_port_out, PORT_FAST) \
	X(SYSCTL_A_PORT, 1, sysctl_a_in, sysctl_a_out, PORT_FAST)              \
	X(RESET_CONTROL_PORT, 1, rst_cnt_in, rst_cnt_out, PORT_FAST)           \
	X(I8042_DATA_PORT, 1, i8042_data_in, i8042_data_out, PORT_FAST)        \
	X(I8042_CMD_PORT, 1, i8042_status_in, i8042_cmd_out, PORT_FAST)        \
	X(GUEST_PM1A_EVT_PORT, 4, pm1_evt_in, pm1_evt_out, PORT_FAST)          \
	X(GUEST_PM1A_CNT_PORT, 2, pm1_cnt_in, pm1_cnt_out, PORT_FAST)          \
	X(PIT_CH0_PORT, 4, pit_port_in, pit_port_out, PORT_FAST)               \
	X(PIT_PORT_B, 1, port_b_in, port_b_out, PORT_FAST)                     \
	X(RTC_INDEX_PORT, 2, rtc_port_in, rtc_port_out, PORT_FAST)

#endif
