/* SPDX-License-Identifier: MIT */
/*
 * The run's log kept across a reboot (lib/kept_log.h): stored in UEFI
 * variables when the run ends, for machines without a serial port.
 */
#ifndef MHV_LOG_KEEP_H
#define MHV_LOG_KEEP_H

#include "lib/kept_log.h"

/* What the firmware's clock said when the run began (the file's name);
 * says in the header what the variable store has room for. */
void log_keep_start(const struct kept_log_time *t);
/* Store the log as it is now, within the run's share of the variable
 * store (lib/kept_log.h); says on the console what was kept.  One CPU
 * calls it, once (host/finish.c). */
void log_keep_store(u32 status);

#endif
