/*
 * bench_util.h - helpers shared by the bench/ drivers: the clock they time
 * with (wall, or process CPU with BENCH_CLOCK=cpu), a fatal-error exit, and
 * reading a whole file. Define BENCH_NAME before including it.
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
