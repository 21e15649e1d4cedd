/*
 * lib/io/files.c - the file chores of input and output: writing every
 * byte, a temporary beside an output, and a stream copied into an unlinked
 * temporary so that it can be read at any offset.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/io/files.h"

#define SPOOL_CHUNK (256u * 1024u)

int etl__io_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
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
		if (got < 0 || etl__io_write_all(fd, buf, (size_t)got) != 0) {
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
