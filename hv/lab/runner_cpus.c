// SPDX-License-Identifier: MIT
/*
 * The CPU sets a run uses: which CPUs a VM's vCPUs go to, starting work on
 * several at once and getting each back (or retiring it), and how a set
 * is printed.  A leaf of the runner: it calls the SMP layer, never the
 * plan (runner.c) or the VM life (runner_vm.c).
 */
#include "runner_priv.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "fw_probe.h"
#include "host/numa.h"

/* CPUs for @n vCPUs: @first, then idle APs, then the BSP (which then runs
 * one itself); how many were found. */
unsigned runner_pick_cpus(struct cpu *first, unsigned n, struct cpu *on[VM_MAX_VCPUS])
{
	unsigned k = 0, i;

	on[k++] = first;
	for (i = 1; i < nr_cpus && k < n; i++)
		if (&cpus[i] != first && cpus[i].state == CPU_IDLE)
			on[k++] = &cpus[i];
	if (k < n && first != &cpus[0])
		on[k++] = &cpus[0];
	return k;
}

/*
 * @c did not end its work on @vm in time: stop the VM and kick @c out of
 * it (the kick makes a vCPU exit; the stop keeps it out), and retire @c
 * when it is not back within KICK_WAIT_MS.
 */
static enum work_end bring_back(struct vm *vm, struct cpu *c)
{
	char why[96];

	vm_stop(vm, VM_STOP_TIME_LIMIT, "cpu %u still ran it past its time limit", c->index);
	smp_kick(c); /* also when the VM had stopped already: its kick was not enough */
	if (smp_wait(c, KICK_WAIT_MS)) {
		console_printf("mhv: cpu %u (APIC ID %u) overran VM %s: stopped and kicked, it "
			       "came back\n",
			       c->index, c->apic_id, vm->name);
		return WORK_DONE;
	}
	fmt_snprintf(why, sizeof(why), "still in VM %s %u ms after a kick", vm->name, KICK_WAIT_MS);
	if (!smp_retire(c, CPU_GRACE_MS, why))
		return WORK_DONE;
	console_printf("mhv: cpu %u (APIC ID %u) retired: %s; it gets no more work, and no "
		       "memory of VM %s is reused\n",
		       c->index, c->apic_id, why, vm->name);
	return WORK_LOST;
}

void runner_run_together(struct cpu *const on[], unsigned n, cpu_work_fn *fn, void *const args[],
			 struct vm *const vms[], u64 timeout_ms, enum work_end end[])
{
	unsigned i;

	/* end[i] is WORK_DONE meanwhile for the ones started (or the BSP's) */
	for (i = 0; i < n; i++)
		end[i] = on[i] == &cpus[0] || smp_start(on[i], fn, args[i]) ? WORK_DONE
									    : WORK_NOT_STARTED;
	for (i = 0; i < n; i++)
		if (on[i] != &cpus[0] && end[i] == WORK_DONE) {
			fw_probe_while_busy(on[i], vms[i]);
			break;
		}
	for (i = 0; i < n; i++)
		if (on[i] == &cpus[0])
			fn(args[i]);
	for (i = 0; i < n; i++)
		if (on[i] != &cpus[0] && end[i] == WORK_DONE && !smp_wait(on[i], timeout_ms))
			end[i] = bring_back(vms[i], on[i]);
}

const char *runner_cpu_node(const struct cpu *c)
{
	static char buf[48];
	size_t used;

	if (numa_nr_nodes() <= 1)
		return "";
	used = fmt_snprintf(buf, sizeof(buf), ", node %u", c->node);
	/* where the CPU found its own stack to be: a remote one costs every
	 * exit's and every host function's memory accesses */
	if (c->stack_node >= 0)
		fmt_snprintf(buf + used, sizeof(buf) - used, ", stack on node %d", c->stack_node);
	else if (c->stack_node == -1)
		fmt_snprintf(buf + used, sizeof(buf) - used, ", stack on no node");
	return buf;
}

void runner_format_cpu_list(char *buf, size_t size, struct cpu *const on[], unsigned n)
{
	size_t used = 0;
	unsigned i, j;

	buf[0] = 0;
	for (i = 0; i < n && used < size; i = j + 1) {
		for (j = i; j + 1 < n && on[j + 1]->index == on[j]->index + 1; j++)
			;
		if (j < i + 2)
			j = i;
		used += fmt_snprintf(buf + used, size - used, "%s%u", i ? "," : "", on[i]->index);
		if (j > i && used < size)
			used += fmt_snprintf(buf + used, size - used, "-%u", on[j]->index);
	}
}
