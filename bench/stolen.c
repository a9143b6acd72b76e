// SPDX-License-Identifier: GPL-2.0
/*
 * stolen: measure, with nanosecond resolution, the time a CPU spends on
 * anything but this process: the SUT's share of srperf's cost method.
 *
 * Pinned to CPU and running as SCHED_IDLE, it reads CLOCK_MONOTONIC in a
 * tight loop.  Whenever two consecutive readings are further apart than a
 * threshold, something else ran on the CPU in between (the receive softirq,
 * ksoftirqd, a timer tick): the gap is added to the stolen time.  The
 * threshold is set from the loop's own iteration time (calibrated at start,
 * 8x the median, at least 1 us), so only gaps the loop itself cannot explain
 * count.  This is the idea of the kernel's osnoise tracer, without needing
 * tracing in the guest.
 *
 * The counters live in FILE (a 4 KiB file, mapped shared) so that the reader
 * (srperf.py, on another CPU) never has to interrupt this one:
 *   u64 seq        odd while the writer updates the others
 *   u64 stolen_ns  total time stolen from the loop
 *   u64 gaps       number of gaps counted
 *   u64 now_ns     CLOCK_MONOTONIC at the last update
 *   u64 thresh_ns  the threshold
 * Updates happen at each gap and at least every millisecond.
 *
 * usage: stolen CPU FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct shared {
	volatile uint64_t seq;
	volatile uint64_t stolen_ns;
	volatile uint64_t gaps;
	volatile uint64_t now_ns;
	volatile uint64_t thresh_ns;
};

#define CALIBRATION 200000

static inline uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void publish(struct shared *s, uint64_t stolen, uint64_t gaps,
		    uint64_t t)
{
	s->seq++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->stolen_ns = stolen;
	s->gaps = gaps;
	s->now_ns = t;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->seq++;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 0 };
	uint64_t *d, stolen = 0, gaps = 0, prev, t, last_pub, thresh;
	struct shared *s;
	cpu_set_t set;
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CPU FILE\n", argv[0]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_IDLE, &sp)) {
		perror("stolen: affinity/scheduler");
		return 1;
	}
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096)) {
		perror(argv[2]);
		return 1;
	}
	s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	/* The loop's own iteration time: the median of many. */
	d = calloc(CALIBRATION, sizeof(*d));
	if (!d)
		return 1;
	prev = now();
	for (i = 0; i < CALIBRATION; i++) {
		t = now();
		d[i] = t - prev;
		prev = t;
	}
	qsort(d, CALIBRATION, sizeof(*d), cmp_u64);
	thresh = 8 * d[CALIBRATION / 2];
	if (thresh < 1000)
		thresh = 1000;
	free(d);
	s->thresh_ns = thresh;

	prev = last_pub = now();
	publish(s, 0, 0, prev);
	for (;;) {
		t = now();
		if (t - prev > thresh) {
			stolen += t - prev;
			gaps++;
			publish(s, stolen, gaps, t);
			last_pub = t;
		} else if (t - last_pub > 1000000) {
			publish(s, stolen, gaps, t);
			last_pub = t;
		}
		prev = t;
	}
	return 0;
}
