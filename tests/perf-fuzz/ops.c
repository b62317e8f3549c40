// SPDX-License-Identifier: MIT
/*
 * The fuzzer's operations on its events: perf_event_open with random
 * attributes (alone or into a group), the PERF_EVENT_IOC_* ioctls with
 * random arguments, read(), close, O_ASYNC delivery, prctl's task-wide
 * switch, fork and exec of a short child, and user-mode work for the
 * counters to count.  Each syscall is counted as tried and succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf_fuzz.h"

void state_init(struct fuzz_state *st)
{
	memset(st->ev, 0, sizeof(st->ev));
	for (int i = 0; i < FUZZ_MAX_EVENTS; i++)
		st->ev[i].fd = -1;
	memset(st->child, 0, sizeof(st->child));
	memset(&st->stats, 0, sizeof(st->stats));
	st->page_size = sysconf(_SC_PAGESIZE);
}

enum pick {
	PICK_ANY,
	PICK_LEADER, /* opened without a group */
	PICK_RING,   /* with a ring mapped */
};

/* a random open event of the kind asked for, or NULL */
static struct fuzz_event *pick_event(struct fuzz_state *st, enum pick want)
{
	int start = (int)rng_below(&st->rng, FUZZ_MAX_EVENTS);

	for (int i = 0; i < FUZZ_MAX_EVENTS; i++) {
		struct fuzz_event *e = &st->ev[(start + i) % FUZZ_MAX_EVENTS];

		if (e->fd >= 0 && (want != PICK_LEADER || e->leader) &&
		    (want != PICK_RING || e->ring))
			return e;
	}
	return NULL;
}

static void op_close(struct fuzz_state *st, struct fuzz_event *e)
{
	/* the ring outlives the descriptor until it is unmapped */
	int unmap_first = rng_one_in(&st->rng, 2);

	if (unmap_first)
		ring_unmap(st, e);
	stat_count(&st->stats, K_CLOSE, close(e->fd) == 0);
	e->fd = -1;
	e->leader = 0;
	ring_unmap(st, e);
}

static pid_t pick_pid(struct fuzz_state *st, int *cpu)
{
	pid_t pid = 0;

	*cpu = rng_one_in(&st->rng, 6) ? 0 : -1;
	switch (rng_below(&st->rng, 12)) {
	case 0:
	case 1:
		/* every task on CPU 0 (or a CPU the guest lacks, or none) */
		pid = -1;
		*cpu = rng_one_in(&st->rng, 8) ? (int)rng_below(&st->rng, 3) - 1 : 0;
		break;
	case 2: {
		int i = (int)rng_below(&st->rng, FUZZ_MAX_CHILDREN);

		pid = st->child[i].pid;
		break;
	}
	case 3:
		pid = rng_one_in(&st->rng, 2) ? 1 : (pid_t)rng_below(&st->rng, 400);
		break;
	default:
		break;
	}
	return pid;
}

static void op_open(struct fuzz_state *st)
{
	/* room for a size beyond the struct (whose tail must be zero) */
	union {
		struct perf_event_attr attr;
		unsigned char bytes[256];
	} u;
	struct fuzz_event *slot = NULL, *leader = NULL;
	unsigned long flags = 0;
	int cpu, fd;
	pid_t pid;

	for (int i = 0; i < FUZZ_MAX_EVENTS && !slot; i++)
		if (st->ev[i].fd < 0)
			slot = &st->ev[i];
	if (!slot) {
		slot = pick_event(st, PICK_ANY);
		op_close(st, slot);
	}
	memset(&u, 0, sizeof(u));
	attr_random(&st->rng, &st->pmus, &u.attr);
	if (rng_one_in(&st->rng, 30)) {
		u.attr.size = sizeof(u.bytes);
		if (rng_one_in(&st->rng, 2))
			u.bytes[sizeof(u.attr) +
				rng_below(&st->rng, sizeof(u.bytes) - sizeof(u.attr))] = 1;
	}
	pid = pick_pid(st, &cpu);
	if (rng_one_in(&st->rng, 3))
		leader = pick_event(st, PICK_LEADER);
	if (rng_one_in(&st->rng, 2))
		flags |= PERF_FLAG_FD_CLOEXEC;
	if (rng_one_in(&st->rng, 20))
		flags |= PERF_FLAG_FD_NO_GROUP;
	if (rng_one_in(&st->rng, 20))
		flags |= PERF_FLAG_FD_OUTPUT;
	if (rng_one_in(&st->rng, 50))
		flags = rng_next(&st->rng);
	fd = (int)syscall(SYS_perf_event_open, &u.attr, pid, cpu, leader ? leader->fd : -1, flags);
	stat_count(&st->stats, leader ? K_OPEN_GROUP : K_OPEN, fd >= 0);
	snprintf(st->detail, sizeof(st->detail), "type %u config 0x%llx %s %llu pid %d cpu %d: %s",
		 u.attr.type, (unsigned long long)u.attr.config, u.attr.freq ? "freq" : "period",
		 (unsigned long long)u.attr.sample_period, (int)pid, cpu,
		 fd >= 0 ? "opened" : strerror(errno));
	if (fd < 0)
		return;
	slot->fd = fd;
	slot->leader = !leader;
}

static void op_ioctl(struct fuzz_state *st, struct fuzz_event *e)
{
	struct fuzz_rng *r = &st->rng;
	unsigned long arg = rng_one_in(r, 3) ? PERF_IOC_FLAG_GROUP : 0;
	struct perf_event_attr attr;
	uint64_t val;
	int ret;

	if (rng_one_in(r, 20))
		arg = rng_next(r);
	switch (rng_below(r, 12)) {
	case 0:
	case 1:
		stat_count(&st->stats, K_IOC_ENABLE, ioctl(e->fd, PERF_EVENT_IOC_ENABLE, arg) == 0);
		break;
	case 2:
		stat_count(&st->stats, K_IOC_DISABLE,
			   ioctl(e->fd, PERF_EVENT_IOC_DISABLE, arg) == 0);
		break;
	case 3:
		stat_count(&st->stats, K_IOC_RESET, ioctl(e->fd, PERF_EVENT_IOC_RESET, arg) == 0);
		break;
	case 4:
		/* enable for N overflows (0: EINVAL; inherited events refuse it) */
		arg = rng_one_in(r, 6) ? rng_interesting(r, 32) : rng_below(r, 4);
		stat_count(&st->stats, K_IOC_REFRESH,
			   ioctl(e->fd, PERF_EVENT_IOC_REFRESH, arg) == 0);
		break;
	case 5:
	case 6:
		val = rng_one_in(r, 3) ? rng_interesting(r, 64) : 1 + rng_below(r, 100000);
		ret = ioctl(e->fd, PERF_EVENT_IOC_PERIOD, rng_one_in(r, 30) ? NULL : &val);
		stat_count(&st->stats, K_IOC_PERIOD, ret == 0);
		break;
	case 7: {
		struct fuzz_event *to = pick_event(st, PICK_ANY);

		arg = to && !rng_one_in(r, 4) ? (unsigned long)to->fd : (unsigned long)-1;
		stat_count(&st->stats, K_IOC_SET_OUTPUT,
			   ioctl(e->fd, PERF_EVENT_IOC_SET_OUTPUT, arg) == 0);
		break;
	}
	case 8:
		arg = rng_one_in(r, 8) ? rng_next(r) : rng_below(r, 2);
		stat_count(&st->stats, K_IOC_PAUSE_OUTPUT,
			   ioctl(e->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, arg) == 0);
		break;
	case 9:
	case 10:
		stat_count(&st->stats, K_IOC_ID, ioctl(e->fd, PERF_EVENT_IOC_ID, &val) == 0);
		break;
	default:
		/* breakpoints only; anything else is EINVAL */
		attr_random(r, &st->pmus, &attr);
		stat_count(&st->stats, K_IOC_MODIFY,
			   ioctl(e->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr) == 0);
		break;
	}
}

static void op_read(struct fuzz_state *st, struct fuzz_event *e)
{
	/* a group's values: nr, times and value, id and lost per member */
	static const size_t lens[] = { 8, 16, 24, 32, 40, 64, 4096 };
	uint64_t buf[512];
	size_t len =
	    rng_one_in(&st->rng, 4) ? rng_below(&st->rng, 64) : lens[rng_below(&st->rng, 7)];

	stat_count(&st->stats, K_READ, read(e->fd, buf, len) > 0);
}

static void op_async(struct fuzz_state *st, struct fuzz_event *e)
{
	int ok = fcntl(e->fd, F_SETOWN, getpid()) == 0;

	ok = ok && fcntl(e->fd, F_SETFL, rng_one_in(&st->rng, 3) ? 0 : O_ASYNC | O_NONBLOCK) == 0;
	stat_count(&st->stats, K_FCNTL_ASYNC, ok);
}

static void op_prctl(struct fuzz_state *st)
{
	int opt =
	    rng_one_in(&st->rng, 2) ? PR_TASK_PERF_EVENTS_DISABLE : PR_TASK_PERF_EVENTS_ENABLE;

	stat_count(&st->stats, K_PRCTL, prctl(opt, 0, 0, 0, 0) == 0);
}

/* user-mode work, with a few system calls, for the events to count */
static void op_work(struct fuzz_state *st)
{
	volatile uint64_t x = 0;
	uint64_t n = rng_below(&st->rng, 20000);

	for (uint64_t i = 0; i < n; i++) {
		x += i * 3 + (x >> 3);
		if ((i & 1023) == 0)
			syscall(SYS_getppid);
	}
}

static void reap(struct fuzz_state *st, int options)
{
	for (int i = 0; i < FUZZ_MAX_CHILDREN; i++) {
		int status;

		if (!st->child[i].pid || waitpid(st->child[i].pid, &status, options) <= 0)
			continue;
		if (st->child[i].execs)
			stat_count(&st->stats, K_EXEC,
				   WIFEXITED(status) && WEXITSTATUS(status) == 0);
		st->child[i].pid = 0;
	}
}

static void op_fork(struct fuzz_state *st)
{
	int slot = -1, execs = !rng_one_in(&st->rng, 4);
	uint64_t spin = rng_below(&st->rng, 50000);
	pid_t pid;

	reap(st, WNOHANG);
	for (int i = 0; i < FUZZ_MAX_CHILDREN && slot < 0; i++)
		if (!st->child[i].pid)
			slot = i;
	if (slot < 0)
		return;
	pid = fork();
	stat_count(&st->stats, K_FORK, pid >= 0);
	if (pid == 0) {
		volatile uint64_t x = 0;

		for (uint64_t i = 0; i < spin; i++)
			x += i;
		if (execs)
			execl("/bin/busybox", "true", (char *)NULL);
		_exit(execs ? 127 : 0);
	}
	if (pid > 0) {
		st->child[slot].pid = pid;
		st->child[slot].execs = execs;
	}
}

void fuzz_step(struct fuzz_state *st)
{
	unsigned int w = (unsigned int)rng_below(&st->rng, 100);
	struct fuzz_event *e = pick_event(st, PICK_ANY), *ringed;

	st->stats.ops++;
	st->detail[0] = '\0';
	if (w < 22 || !e) {
		st->step = "open";
		op_open(st);
	} else if (w < 46) {
		st->step = "ioctl";
		op_ioctl(st, e);
	} else if (w < 56) {
		st->step = "read";
		op_read(st, e);
	} else if (w < 62) {
		st->step = "mmap";
		op_mmap(st, e);
	} else if (w < 74) {
		/* the reads of a ring: an event that has one, if any */
		ringed = pick_event(st, PICK_RING);
		st->step = w < 70 ? "ring-read" : "rdpmc";
		if (w < 70)
			op_ring_read(st, ringed ? ringed : e);
		else
			op_rdpmc(st, ringed ? ringed : e);
	} else if (w < 76) {
		st->step = "fcntl";
		op_async(st, e);
	} else if (w < 78) {
		st->step = "prctl";
		op_prctl(st);
	} else if (w < 81) {
		st->step = "fork";
		op_fork(st);
	} else if (w < 88) {
		st->step = "close";
		op_close(st, e);
	} else {
		st->step = "work";
		op_work(st);
	}
	if ((st->stats.ops & 63) == 0)
		reap(st, WNOHANG);
}

void fuzz_teardown(struct fuzz_state *st)
{
	/* a child killed here did not fail its exec: not counted */
	for (int i = 0; i < FUZZ_MAX_CHILDREN; i++) {
		if (st->child[i].pid)
			kill(st->child[i].pid, SIGKILL);
		st->child[i].execs = 0;
	}
	reap(st, 0);
	for (int i = 0; i < FUZZ_MAX_EVENTS; i++)
		if (st->ev[i].fd >= 0)
			op_close(st, &st->ev[i]);
	prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
}
