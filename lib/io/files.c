/*
 * lib/io/files.c - the file chores of input and output: writing every
 * byte, a temporary beside an output, and a stream copied into an unlinked
 * temporary so that it can be read at any offset.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "lib/io/files.h"

#define SPOOL_CHUNK (256u * 1024u)

int etl__io_writev_all(int fd, const struct iovec *iov, int n, int64_t off)
{
	struct iovec v[64];
	int i = 0;
	while (i < n) {
		int k = n - i > 64 ? 64 : n - i;
		memcpy(v, iov + i, sizeof *v * (size_t)k);
		struct iovec *p = v;
		while (k > 0) {
			ssize_t w = off < 0 ? writev(fd, p, k) : pwritev(fd, p, k, (off_t)off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = ENOSPC;
				return -1;
			}
			if (off >= 0)
				off += w;
			/* Skips what was written (a short write stops anywhere). */
			size_t left = (size_t)w;
			while (k > 0 && left >= p->iov_len) {
				left -= p->iov_len;
				p++;
				k--;
				i++;
			}
			if (k > 0 && left) {
				p->iov_base = (uint8_t *)p->iov_base + left;
				p->iov_len -= left;
			}
		}
	}
	return 0;
}

int etl__io_write_all(int fd, const void *p, size_t n, int64_t off)
{
	struct iovec v = { (void *)(uintptr_t)p, n };
	return etl__io_writev_all(fd, &v, 1, off);
}

int etl__io_temp_beside(const char *path, char **tmp)
{
	size_t n = strlen(path) + 16;
	char *t = malloc(n);
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	snprintf(t, n, "%s.tmp-XXXXXX", path);
	int fd = mkstemp(t);
	if (fd < 0) {
		free(t);
		return -1;
	}
	/* mkstemp makes it 0600; give it the mode a new file would get. */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	*tmp = t;
	return fd;
}

int etl__io_spool(const char *prefix, etl_io_pull_fn pull, void *ctx, uint64_t *size, int *step)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	*step = 0;
	if ((size_t)snprintf(path, sizeof path, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", prefix) >=
	    sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	uint8_t *buf = malloc(SPOOL_CHUNK);
	uint64_t total = 0;
	if (!buf) {
		close(fd);
		*step = 3;
		errno = ENOMEM;
		return -1;
	}
	for (;;) {
		long got = pull(ctx, buf, SPOOL_CHUNK);
		if (got == 0)
			break;
		if (got < 0 || etl__io_write_all(fd, buf, (size_t)got, -1) != 0) {
			int e = errno;
			*step = got < 0 ? 1 : 2;
			free(buf);
			close(fd);
			errno = e;
			return -1;
		}
		total += (uint64_t)got;
	}
	free(buf);
	*size = total;
	return fd;
}
