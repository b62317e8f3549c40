/* SPDX-License-Identifier: MIT */
/*
 * The perf_event fuzzer of the Linux guest (docs/linux-guest.md, issue 41):
 * a static Linux program in the guest's initramfs that opens perf events
 * with random attributes and drives them with random ioctls, reads, ring
 * buffer reads, forks and closes, seeded and time-bounded.
 */
#ifndef PERF_FUZZ_H
#define PERF_FUZZ_H

#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* the random source: splitmix64, whose whole state is the seed's walk */
struct fuzz_rng {
	uint64_t state;
};

void rng_seed(struct fuzz_rng *r, uint64_t seed);
uint64_t rng_next(struct fuzz_rng *r);
/* uniform in [0, n); 0 when n is 0 */
uint64_t rng_below(struct fuzz_rng *r, uint64_t n);
/* true with probability 1/n */
int rng_one_in(struct fuzz_rng *r, unsigned int n);
/* a value from the boundaries of a width-bit field or a random one */
uint64_t rng_interesting(struct fuzz_rng *r, unsigned int width);

/* the command line: seconds to run and the seed (given or drawn) */
struct fuzz_args {
	unsigned int seconds;
	uint64_t seed;
	int seed_given;
};

/* 0, or -1 with a one-line reason in err */
int fuzz_parse_args(int argc, char **argv, struct fuzz_args *a, char *err, unsigned int errlen);

/* the PMUs the guest's /sys/bus/event_source/devices lists: their types */
#define FUZZ_MAX_PMUS 16
struct fuzz_pmus {
	unsigned int n;
	uint32_t type[FUZZ_MAX_PMUS];
	int amd; /* the core PMU's raw event layout: AMD's, else Intel's */
};

/* the PMUs under dir (/sys/bus/event_source/devices) and the CPU's vendor */
void pmus_read(struct fuzz_pmus *p, const char *dir);

/* random attributes: a generic type's or another PMU's event, random fields */
void attr_random(struct fuzz_rng *r, const struct fuzz_pmus *pmus, struct perf_event_attr *attr);

/* every syscall kind the fuzzer tries, counted as tried and succeeded */
enum fuzz_kind {
	K_OPEN,
	K_OPEN_GROUP,
	K_IOC_ENABLE,
	K_IOC_DISABLE,
	K_IOC_RESET,
	K_IOC_REFRESH,
	K_IOC_PERIOD,
	K_IOC_SET_OUTPUT,
	K_IOC_PAUSE_OUTPUT,
	K_IOC_ID,
	K_IOC_MODIFY,
	K_READ,
	K_MMAP,
	K_RING_READ,
	K_RDPMC,
	K_FCNTL_ASYNC,
	K_PRCTL,
	K_FORK,
	K_EXEC,
	K_CLOSE,
	K_MUNMAP,
	K_COUNT
};

struct fuzz_stats {
	unsigned long tried[K_COUNT];
	unsigned long ok[K_COUNT];
	unsigned long records;	 /* ring records walked */
	unsigned long lost;	 /* PERF_RECORD_LOST among them */
	unsigned long throttles; /* PERF_RECORD_THROTTLE among them */
	unsigned long ops;
};

const char *fuzz_kind_name(enum fuzz_kind k);
static inline void stat_count(struct fuzz_stats *s, enum fuzz_kind k, int ok)
{
	s->tried[k]++;
	if (ok)
		s->ok[k]++;
}
/* the end-of-run table: one "KIND tried N ok M" line per kind tried */
void stats_print(const struct fuzz_stats *s, void (*line)(const char *));

/* the open events, their rings and the children */
#define FUZZ_MAX_EVENTS 48
#define FUZZ_MAX_CHILDREN 4

struct fuzz_event {
	int fd;	    /* -1: free slot */
	int leader; /* opened as a group's leader (group_fd -1) */
	void *ring;
	size_t ring_len;
	int ring_writable;
};

struct fuzz_state {
	struct fuzz_rng rng;
	struct fuzz_pmus pmus;
	struct fuzz_stats stats;
	struct fuzz_event ev[FUZZ_MAX_EVENTS];
	struct {
		pid_t pid; /* 0: none */
		int execs; /* it execs /bin/busybox true: its exit status says whether it did */
	} child[FUZZ_MAX_CHILDREN];
	long page_size;
	const char *step; /* the kind of the last step */
	char detail[128]; /* what it did, where it says (an open's event) */
};

void state_init(struct fuzz_state *st);
/* one random operation */
void fuzz_step(struct fuzz_state *st);
/* every event closed, every ring unmapped, every child killed and reaped */
void fuzz_teardown(struct fuzz_state *st);

/* ring buffers and user-space counter reads (ring.c) */
void op_mmap(struct fuzz_state *st, struct fuzz_event *e);
void op_ring_read(struct fuzz_state *st, struct fuzz_event *e);
void op_rdpmc(struct fuzz_state *st, struct fuzz_event *e);
void ring_unmap(struct fuzz_state *st, struct fuzz_event *e);

/*
 * A fault of the fuzzer's own (RDPMC of a counter the kernel did not
 * enable for user mode: #GP, SIGSEGV) is caught: while fuzz_guard_armed,
 * main.c's handler jumps back to fuzz_guard.
 */
extern sigjmp_buf fuzz_guard;
extern volatile sig_atomic_t fuzz_guard_armed;
extern volatile sig_atomic_t fuzz_signals; /* SIGIO and SIGTRAP taken */

#endif
