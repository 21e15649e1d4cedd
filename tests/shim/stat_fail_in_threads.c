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
 * It replaces stat, which glibc exports from 2.33 on, and __xstat, which
 * older glibc routes stat through. Built without sanitizers (it is loaded
 * before their runtimes); the test sets ASAN_OPTIONS=
 * verify_asan_link_order=0 for sanitized builds.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int stat(const char *restrict path, struct stat *restrict st);
int __xstat(int ver, const char *path, struct stat *st);

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

/* 1 (and the failure logged) when this call is one to fail. */
static int fails(const char *path)
{
	const char *suffix = getenv("STAT_FAIL_SUFFIX");
	/* The thread id by system call: gettid() is glibc 2.30's. */
	if (!suffix || (pid_t)syscall(SYS_gettid) == getpid() || !ends_with(path, suffix))
		return 0;
	log_failure(path);
	errno = ENOENT;
	return 1;
}

/* The next definition of name (libc's, or a sanitizer's), or NULL. */
static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

int stat(const char *restrict path, struct stat *restrict st)
{
	int (*real)(const char *restrict, struct stat *restrict);
	void *sym = next("stat");
	/* dlsym returns an object pointer; POSIX lets it hold a function's. */
	memcpy(&real, &sym, sizeof real);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return fails(path) ? -1 : real(path, st);
}

int __xstat(int ver, const char *path, struct stat *st)
{
	int (*real)(int, const char *, struct stat *);
	void *sym = next("__xstat");
	memcpy(&real, &sym, sizeof real);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return fails(path) ? -1 : real(ver, path, st);
}
