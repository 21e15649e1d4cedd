/*
 * bench_util.h - helpers shared by the bench/ drivers: the clock they time
 * with (wall, or process CPU with BENCH_CLOCK=cpu), the processor's clock
 * rate at the time, a fatal-error exit, and reading a whole file. Define
 * BENCH_NAME before including it.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static clockid_t bench_clock = CLOCK_MONOTONIC;

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(bench_clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The rate the processor runs this thread at now, in GHz, or 0 where it
 * cannot be measured: a chain of dependent 64-bit multiplications, each
 * 3 cycles on the x86-64 cores of the last fifteen years (Intel from
 * Nehalem, AMD from Zen), timed on the thread's CPU clock so that time
 * the thread spends descheduled does not count. A virtual machine's host
 * may run it at another rate from one day to the next; figures in
 * events per second move with it, cycles per event do not (or much less:
 * memory does not scale with the clock). About 20 ms. */
static inline double bench_cpu_ghz(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	const uint64_t steps = 20000000;        /* 4 multiplications each */
	uint64_t x = 3, n = steps;
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	__asm__ volatile("1:\n\t"
	                 "imul %0, %0\n\t"
	                 "imul %0, %0\n\t"
	                 "imul %0, %0\n\t"
	                 "imul %0, %0\n\t"
	                 "dec %1\n\t"
	                 "jnz 1b"
	                 : "+r"(x), "+r"(n));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	return s > 0 ? 3.0 * 4.0 * (double)steps / s * 1e-9 : 0;
#else
	return 0;
#endif
}

static inline void die(const char *fmt, const char *arg)
{
	fprintf(stderr, BENCH_NAME ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

/* Reads a whole file into memory. */
static inline uint8_t *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		die("cannot open %s", path);
	size_t n = (size_t)st.st_size, got = 0;
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory reading %s", path);
	while (got < n) {
		ssize_t k = read(fd, p + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			die("cannot read %s", path);
		got += (size_t)k;
	}
	close(fd);
	*len = n;
	return p;
}

#endif
