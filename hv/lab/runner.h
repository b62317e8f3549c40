/* SPDX-License-Identifier: MIT */
#ifndef MHV_RUNNER_H
#define MHV_RUNNER_H

#include "config.h"
#include "host/finish.h"

struct boot_info;

/* Run every suite the config selects, then the guests it names; the
 * status to finish with. */
enum mhv_status runner_run_plan(const struct mhv_config *cfg, const struct boot_info *bi);

#endif
