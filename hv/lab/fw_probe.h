/* SPDX-License-Identifier: MIT */
/* Firmware calls while a VM runs (fw_probe.c): "firmware_probe = on". */
#ifndef MHV_FW_PROBE_H
#define MHV_FW_PROBE_H

#include "results.h"
#include "host/smp.h"
#include "core/vm.h"

/* Every VM an AP runs from now on gets the probe, its results into @results. */
void fw_probe_arm(struct run_results *results);
/* The id of the VM the next fw_probe_while_busy runs beside. */
void fw_probe_expect(u32 vm_id);
/* Called by the BSP once @busy has started @vm; does
 * nothing unless armed. */
void fw_probe_while_busy(struct cpu *busy, const struct vm *vm);

#endif
