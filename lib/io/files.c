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
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>
#include "etl_io.h"
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

/* The directory temporaries go to: $TMPDIR, default /tmp. */
static const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && *dir ? dir : "/tmp";
}

int etl__io_temp_unlinked(const char *prefix)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/%s-XXXXXX", temp_dir(), prefix) >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* ---- the spool limit ------------------------------------------------- */

/* Set by etl_set_spool_limit(); 0: the default. Written before readers
 * are opened (documented), read when a spool begins. */
static uint64_t spool_limit_set;

void etl_set_spool_limit(uint64_t bytes)
{
	spool_limit_set = bytes;
}

uint64_t etl_spool_limit(void)
{
	return spool_limit_set ? spool_limit_set : ETL_SPOOL_LIMIT_DEFAULT;
}

uint64_t etl__io_spool_room(int *by_space)
{
	uint64_t limit = etl_spool_limit();
	struct statvfs vfs;
	*by_space = 0;
	if (statvfs(temp_dir(), &vfs) == 0) {
		uint64_t room = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
		if (room < limit) {
			*by_space = 1;
			limit = room;
		}
	}
	return limit;
}

int etl__io_spool(const char *prefix, etl_io_pull_fn pull, void *ctx, uint64_t *size, int *step)
{
	int by_space;
	uint64_t limit = etl__io_spool_room(&by_space);
	*step = 0;
	int fd = etl__io_temp_unlinked(prefix);
	if (fd < 0)
		return -1;
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
		if (got > 0 && (uint64_t)got > limit - total) {
			/* The stream is larger than the room it may take: stop
			 * before the disk fills (a decompression bomb costs at most
			 * the limit in time and space). */
			free(buf);
			close(fd);
			*size = limit;
			*step = by_space ? 5 : 4;
			errno = EFBIG;
			return -1;
		}
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

/* ---- where an output goes ------------------------------------------- */

/* dir of path joined with rel (a symbolic link's relative target).
 * Caller frees. */
static char *join_beside(const char *path, const char *rel)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = dl + strlen(rel) + 1;
	char *s = malloc(n);
	if (s) {
		memcpy(s, path, dl);
		strcpy(s + dl, rel);
	}
	return s;
}

/* A symbolic link whose target does not exist yet: the path its chain
 * ends at (the file to create). NULL with errno set. */
static char *follow_dangling(const char *path)
{
	char *cur = strdup(path);
	for (int hops = 0; cur && hops < 40; hops++) {
		struct stat st;
		char target[4096];
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		ssize_t n = readlink(cur, target, sizeof target - 1);
		if (n < 0) {
			free(cur);
			return NULL;
		}
		target[n] = 0;
		char *next = target[0] == '/' ? strdup(target) : join_beside(cur, target);
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	} else {
		errno = ENOMEM;
	}
	return NULL;
}

int etl__io_output_target(const char *path, char **target, struct stat *st)
{
	*target = NULL;
	if (stat(path, st) == 0) {
		if (S_ISDIR(st->st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (!S_ISREG(st->st_mode)) {
			/* A device, a FIFO, a socket: written through its name. */
			if (!(*target = strdup(path)))
				errno = ENOMEM;
			return *target ? ETL_TARGET_SPECIAL : -1;
		}
		/* A regular file, maybe through links (symbolic, or
		 * /proc/self/fd/N): the file itself is replaced, the links
		 * stay. */
		if (!(*target = realpath(path, NULL)))
			return -1;
		return ETL_TARGET_EXISTING;
	}
	if (errno != ENOENT)
		return -1;
	*target = follow_dangling(path);
	return *target ? ETL_TARGET_NEW : -1;
}
