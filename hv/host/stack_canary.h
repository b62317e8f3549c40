/* SPDX-License-Identifier: MIT */
/*
 * The canary at the bottom of each of mhv's stacks, the boot CPU's and
 * the APs': a stack that overflowed into it, or a stray write that reached
 * it, shows at the next selfcheck.
 */
#ifndef MHV_STACK_CANARY_H
#define MHV_STACK_CANARY_H

#define STACK_CANARY 0xa5
#define STACK_CANARY_BYTES 256

#endif
