/*
 * stat_fail_in_threads.c - an LD_PRELOAD shim for tests: stat(2) of a
 * path that ends in $STAT_FAIL_SUFFIX fails with ENOENT when a thread
 * other than the process's first one calls it, as if the file had been
 * removed after the first thread read it. Each call it fails appends one
 * line to $STAT_FAIL_LOG (when set), so that a test can tell the failure
 * happened rather than trust that it did.
 *
 * Used by tests/cli/etlconvert_parallel_load.sh: etlconvert -j N loads
 * every --manifest once in the caller's thread and once in each worker
 * thread, and a worker whose load fails must drop out without changing
 * the output.
 *
 * Built without sanitizers (it is loaded before their runtimes); the
 * test sets ASAN_OPTIONS=verify_asan_link_order=0 for sanitized builds.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int stat(const char *restrict path, struct stat *restrict st);

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return k > 0 && n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static void log_failure(const char *path)
{
	const char *log = getenv("STAT_FAIL_LOG");
	if (!log)
		return;
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0)
		return;
	/* One write per line: threads may fail at the same time. */
	char line[4096];
	size_t n = strlen(path);
	if (n > sizeof line - 1)
		n = sizeof line - 1;
	memcpy(line, path, n);
	line[n] = '\n';
	ssize_t w = write(fd, line, n + 1);
	(void)w;
	close(fd);
}

static int (*real_stat)(const char *restrict, struct stat *restrict);

/* Found before main() runs, while there is one thread. */
__attribute__((constructor)) static void find_real_stat(void)
{
	/* dlsym returns an object pointer; POSIX lets it hold a function's. */
	void *sym = dlsym(RTLD_NEXT, "stat");
	memcpy(&real_stat, &sym, sizeof real_stat);
}

int stat(const char *restrict path, struct stat *restrict st)
{
	if (!real_stat) {
		errno = ENOSYS;
		return -1;
	}
	const char *suffix = getenv("STAT_FAIL_SUFFIX");
	if (suffix && gettid() != getpid() && ends_with(path, suffix)) {
		log_failure(path);
		errno = ENOENT;
		return -1;
	}
	return real_stat(path, st);
}
