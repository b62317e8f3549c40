/* SPDX-License-Identifier: MIT */
/*
 * The run's log kept across a reboot (lib/kept_log.h): stored in UEFI
 * variables when the run ends, for machines without a serial port.
 */
#ifndef MHV_LOG_KEEP_H
#define MHV_LOG_KEEP_H

#include "lib/kept_log.h"

/* What the firmware's clock said when the run began (the file's name). */
void log_keep_set_start(const struct kept_log_time *t);
/* Store the log as it is now; says on the console what was kept. */
void log_keep_store(u32 status);

#endif
