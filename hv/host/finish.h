/* SPDX-License-Identifier: MIT */
#ifndef MHV_FINISH_H
#define MHV_FINISH_H

#include "lib/types.h"

/*
 * How a run ends.  With exit_action = qemu-exit the code is written to
 * QEMU's isa-debug-exit port, which ends QEMU with status (code << 1) | 1:
 * never 0, so a harness can tell them from a triple fault (0) or a
 * timeout (124).  docs/configuration.md lists them.
 */
enum mhv_status {
	MHV_PASS = 0x10,	 /* QEMU exit status 33 */
	MHV_TEST_FAILED = 0x11,	 /* 35 */
	MHV_CONFIG_ERROR = 0x12, /* 37 */
	MHV_NO_VIRT = 0x13,	 /* 39: no SVM/VMX, or disabled by firmware */
	MHV_FATAL = 0x14,	 /* 41: unexpected host exception or internal error */
};

/* What the machine does once mhv is done (mhv.cfg "exit_action"). */
enum exit_action {
	EXIT_ACTION_HALT,
	EXIT_ACTION_REBOOT,
	EXIT_ACTION_QEMU_EXIT,
};

/* The spelling used in mhv.cfg (lab/config.c parses the same words). */
static inline const char *exit_action_name(enum exit_action a)
{
	switch (a) {
	case EXIT_ACTION_HALT:
		return "halt";
	case EXIT_ACTION_REBOOT:
		return "reboot";
	case EXIT_ACTION_QEMU_EXIT:
		return "qemu-exit";
	}
	return "unknown";
}

void finish_set_action(enum exit_action action);
/* Called by hv_finish after the final status line, before the exit
 * action: keeps the run's log (platform/log_keep.c), or NULL. */
void finish_set_log_keeper(void (*keep)(u32 status));
const char *mhv_status_name(enum mhv_status st);
/* Print the final status line, then halt, reboot or exit QEMU. */
void hv_finish(enum mhv_status st) __noreturn;
/* One line "mhv: ..." and hv_finish(st). */
void hv_fatal(enum mhv_status st, const char *fmt, ...) __noreturn __printf(2, 3);

#endif
