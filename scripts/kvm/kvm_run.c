// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kvm_run.h"

#define PROG "mhv-kvm"

volatile int kvm_run_timed_out;

struct vcpu_ctx {
	struct kvm_vm *v;
	struct kvm_hc *hc;
	struct kvm_devices *d;
	unsigned index, timeout;
	int status;
};

/* One exit to user space at a time: the channel and the devices are shared */
static pthread_mutex_t exit_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stopping;

/* The hypercall: the guest's OUT of EAX to GUEST_HC_PORT with the
 * arguments in RDI and RSI; the result goes back in RAX. */
static int hypercall(int vcpu, struct kvm_hc *hc)
{
	struct kvm_regs r;

	if (ioctl(vcpu, KVM_GET_REGS, &r))
		return -1;
	r.rax = kvm_hc_call(hc, r.rax, r.rdi, r.rsi);
	return ioctl(vcpu, KVM_SET_REGS, &r);
}

/* One exit to user space: 0 to go on, else the run's status (said). */
static int handle_exit(struct vcpu_ctx *c)
{
	struct kvm_run *run = c->v->run[c->index];
	const char *suite = c->hc->suite;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		if (run->io.port == GUEST_HC_PORT && run->io.direction == KVM_EXIT_IO_OUT &&
		    run->io.size == 4) {
			if (!hypercall(c->v->vcpu[c->index], c->hc))
				return 0;
			printf(PROG ": %s: registers: %s\n", suite, strerror(errno));
			return 1;
		}
		kvm_devices_io(c->d, run->io.port, run->io.size, run->io.count,
			       run->io.direction == KVM_EXIT_IO_OUT,
			       (unsigned char *)run + run->io.data_offset);
		return 0;
	case KVM_EXIT_MMIO:
		kvm_devices_mmio(c->d, run->mmio.phys_addr, run->mmio.data, run->mmio.len,
				 run->mmio.is_write);
		return 0;
	case KVM_EXIT_INTR:
		return 0;
	case KVM_EXIT_SHUTDOWN:
		printf(PROG ": %s: vCPU %u shut down (triple fault)\n", suite, c->index);
		return 1;
	case KVM_EXIT_FAIL_ENTRY:
		printf(PROG ": %s: VM entry failed (hardware reason 0x%llx)\n", suite,
		       (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		return 1;
	case KVM_EXIT_INTERNAL_ERROR:
		printf(PROG ": %s: KVM internal error %u\n", suite, run->internal.suberror);
		return 1;
	}
	printf(PROG ": %s: unexpected exit to user space, reason %u\n", suite, run->exit_reason);
	return 1;
}

static int run_vcpu(struct vcpu_ctx *c)
{
	int fd = c->v->vcpu[c->index], st;

	while (!c->hc->exited && !stopping) {
		if (ioctl(fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR && stopping)
				return 0; /* vCPU 1, kicked: vCPU 0 has ended the run */
			if (errno == EINTR && kvm_run_timed_out) {
				printf(PROG ": %s: no HC_EXIT within %u s (--timeout): guest "
					    "stopped\n",
				       c->hc->suite, c->timeout);
				return 124;
			}
			if (errno == EINTR || errno == EAGAIN)
				continue;
			printf(PROG ": %s: KVM_RUN: %s\n", c->hc->suite, strerror(errno));
			return 1;
		}
		pthread_mutex_lock(&exit_lock);
		st = handle_exit(c);
		pthread_mutex_unlock(&exit_lock);
		if (st)
			return st;
	}
	return 0;
}

/* The @n-th CPU this process may run on, or -1 */
static int nth_cpu(unsigned n)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && !n--)
			return cpu;
	return -1;
}

unsigned kvm_run_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) ? 1 : (unsigned)CPU_COUNT(&set);
}

static void pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

static void *vcpu_thread(void *arg)
{
	struct vcpu_ctx *c = arg;
	sigset_t alarm_set;

	/* the time limit's SIGALRM goes to vCPU 0's thread, which says it */
	sigemptyset(&alarm_set);
	sigaddset(&alarm_set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm_set, NULL);
	c->status = run_vcpu(c);
	return NULL;
}

static void on_kick(int sig)
{
	(void)sig;
}

int kvm_run_vm(struct kvm_vm *v, struct kvm_hc *hc, struct kvm_devices *d, unsigned timeout)
{
	struct vcpu_ctx c[KVM_VM_MAX_VCPUS];
	pthread_t thread;
	int st, cpu0, cpu1;
	unsigned i;

	stopping = 0;
	for (i = 0; i < v->nr_vcpus; i++)
		c[i] = (struct vcpu_ctx){ v, hc, d, i, timeout, 0 };
	if (v->nr_vcpus == 1)
		return run_vcpu(&c[0]);
	/* no SA_RESTART: a kick ends vCPU 1's KVM_RUN with EINTR */
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = on_kick }, NULL);
	if (pthread_create(&thread, NULL, vcpu_thread, &c[1])) {
		printf(PROG ": %s: no thread for vCPU 1\n", hc->suite);
		return 1;
	}
	cpu0 = nth_cpu(0);
	cpu1 = nth_cpu(1); /* before pinning this thread narrows the set */
	pin(pthread_self(), cpu0);
	pin(thread, cpu1);
	st = run_vcpu(&c[0]);
	/* vCPU 0's exit ends the VM (vmexit.c: vCPU 1 spins until then) */
	stopping = 1;
	v->run[1]->immediate_exit = 1;
	pthread_kill(thread, SIGUSR1);
	pthread_join(thread, NULL);
	return st ? st : c[1].status;
}
