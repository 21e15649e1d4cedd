/*
 * lib/io/sink.c - where the writer's bytes go, safely.
 *
 * A path is never written in place: bytes go to "<path>.tmp-XXXXXX" in the
 * same directory, which is renamed over the target only when the file is
 * complete (rename is atomic within a file system), so a failed or
 * interrupted write leaves an existing target untouched and removes the
 * temporary. A target ending in ".gz" or ".lz4" is compressed from the
 * finished temporary into a second temporary, then renamed the same way
 * (the writer rewrites its header at close, so the plain bytes must stay
 * addressable until then). Outputs written in order (include/etl_io.h,
 * lib/io/outfile.c) compress as they go with the same compressor
 * (etl__zout_*), so a name compresses the same way whoever writes it.
 *
 * The tracing runtime writes its files in place instead
 * (etl__out_open_path_inplace): the path itself is created, written as
 * buffers are flushed, and kept whatever happens, so that a process that
 * dies leaves a file readable up to its last flush. No codec then.
 * Disk space is allocated ahead of such a file in large steps with
 * FALLOC_FL_KEEP_SIZE (the file system's per-block allocation work is
 * then done once per step, not on every write): the file's size stays
 * what was written, so a reader of a file left by a crash sees exactly
 * the bytes written, never a zero-filled tail; commit gives the space
 * past the end back (ftruncate to the size). A process that dies (or an
 * output abandoned after an error) leaves at most one step allocated
 * past the end, freed with the file or by truncating it.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "lib/io/files.h"
#include "lib/io/sink.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

int etl__codec_of_path(const char *path)
{
	return ends_with(path, ".gz") ? ETL_CODEC_GZIP : ends_with(path, ".lz4") ? ETL_CODEC_LZ4
	                                                                        : ETL_CODEC_NONE;
}

/* Opens the device, FIFO or socket target for writing. */
static int open_special(struct etl_out *o, const char *target)
{
	int fd = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		o->why = "cannot open it for writing";
	return fd;
}

static int open_target(struct etl_out *o, const char *path, int sequential)
{
	struct stat st;
	char *target = NULL;
	etl__out_release(o);
	o->why = NULL;
	o->path = strdup(path);
	if (!o->path) {
		errno = ENOMEM;
		o->why = "out of memory";
		return -1;
	}
	o->codec = etl__codec_of_path(path);
	int kind = etl__io_output_target(path, &target, &st);
	if (kind < 0) {
		o->why = errno == EISDIR ? "it is a directory" : "cannot find where it leads";
		goto fail;
	}
	if (kind == ETL_TARGET_SPECIAL && sequential) {
		o->fd = open_special(o, target);
		if (o->fd < 0)
			goto fail;
		free(target);
		o->kind = ETL_OUT_STREAM;
		o->special = 1;
		o->size = 0;
		return 0;
	}
	if (kind == ETL_TARGET_SPECIAL) {
		o->dev_fd = open_special(o, target);
		if (o->dev_fd < 0)
			goto fail;
		o->fd = etl__io_temp_unlinked("libetl-out");
		if (o->fd < 0) {
			close(o->dev_fd);
			o->why = "cannot create a temporary file in $TMPDIR";
			goto fail;
		}
		o->special = 1;
	} else {
		/* The temporary beside the file the name leads to, so that
		 * the rename replaces that file and keeps any link to it. */
		o->fd = etl__io_temp_beside(target, &o->tmp);
		if (o->fd < 0) {
			o->why = "cannot create a temporary file beside it";
			goto fail;
		}
		if (kind == ETL_TARGET_EXISTING)
			fchmod(o->fd, st.st_mode & 07777);   /* the file keeps its mode */
		free(o->path);
		o->path = target;                        /* renamed over at commit  */
		target = NULL;
	}
	free(target);
	o->kind = ETL_OUT_PATH;
	o->size = 0;
	return 0;
fail:;
	int e = errno;
	free(target);
	free(o->path);
	o->path = NULL;
	o->fd = -1;
	errno = e;
	return -1;
}

int etl__out_open_path(struct etl_out *o, const char *path)
{
	return open_target(o, path, 0);
}

int etl__out_open_path_seq(struct etl_out *o, const char *path)
{
	return open_target(o, path, 1);
}

int etl__out_open_path_inplace(struct etl_out *o, const char *path)
{
	etl__out_release(o);
	o->path = strdup(path);
	if (!o->path) {
		errno = ENOMEM;
		return -1;
	}
	o->codec = ETL_CODEC_NONE;
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (o->fd < 0) {
		free(o->path);
		o->path = NULL;
		return -1;
	}
	o->kind = ETL_OUT_PATH;
	o->in_place = 1;
	o->size = 0;
	o->prealloc_end = 0;
	o->prealloc_off = 0;
	o->prealloc_cap = 0;
	return 0;
}

#define PREALLOC_MIN (4u << 20)
#define PREALLOC_MAX (64u << 20)

/* In place: makes sure disk space is allocated up to end, a step ahead
 * (the size so far, from 4 to 64 MiB; not past prealloc_cap). Failure
 * only turns this off: the write itself reports a full disk. */
static void prealloc(struct etl_out *o, uint64_t end)
{
	if (!o->in_place || o->prealloc_off || end <= o->prealloc_end)
		return;
#ifdef FALLOC_FL_KEEP_SIZE
	uint64_t step = o->size < PREALLOC_MIN ? PREALLOC_MIN : o->size > PREALLOC_MAX ? PREALLOC_MAX : o->size;
	uint64_t from = o->prealloc_end > o->size ? o->prealloc_end : o->size;
	uint64_t to = end + step;
	if (o->prealloc_cap && to > o->prealloc_cap)
		to = o->prealloc_cap > end ? o->prealloc_cap : end;
	if (to <= from)
		return;
	int e = errno;
	if (fallocate(o->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(to - from)) == 0)
		o->prealloc_end = to;
	else
		o->prealloc_off = 1;
	errno = e;
#else
	o->prealloc_off = 1;
#endif
}

void etl__out_open_fd(struct etl_out *o, int fd)
{
	memset(o, 0, sizeof *o);
	o->kind = ETL_OUT_FD;
	o->fd = fd;
}

void etl__out_open_stream(struct etl_out *o, int fd)
{
	memset(o, 0, sizeof *o);
	o->kind = ETL_OUT_STREAM;
	o->fd = fd;
}

void etl__out_open_sink(struct etl_out *o, etl_sink_write_fn fn, void *ctx)
{
	memset(o, 0, sizeof *o);
	o->kind = ETL_OUT_SINK;
	o->fd = -1;
	o->fn = fn;
	o->ctx = ctx;
}

int etl__out_write(struct etl_out *o, uint64_t off, const void *data, size_t n)
{
	if (o->kind == ETL_OUT_SINK) {
		if (o->fn(o->ctx, off, data, n) != 0)
			return -1;
	} else {
		prealloc(o, off + n);
		if (etl__io_write_all(o->fd, data, n, o->kind == ETL_OUT_STREAM ? -1 : (int64_t)off) != 0)
			return -1;
	}
	if (off + n > o->size)
		o->size = off + n;
	return 0;
}

int etl__out_writev(struct etl_out *o, uint64_t off, const struct iovec *iov, int n)
{
	if (o->kind == ETL_OUT_SINK || o->kind == ETL_OUT_STREAM || n == 1) {
		for (int i = 0; i < n; i++) {
			if (etl__out_write(o, off, iov[i].iov_base, iov[i].iov_len) != 0)
				return -1;
			off += iov[i].iov_len;
		}
		return 0;
	}
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	prealloc(o, off + total);
	if (etl__io_writev_all(o->fd, iov, n, (int64_t)off) != 0)
		return -1;
	if (off + total > o->size)
		o->size = off + total;
	return 0;
}

/* ---- the stream compressor ------------------------------------------ */


static int zout_fail(struct etl_zout *z, const char *why)
{
	z->err = why;
	return -1;
}

static int zout_emit(struct etl_zout *z, struct etl_out *out, size_t n)
{
	if (n && etl__out_write(out, out->size, z->buf, n) != 0)
		return zout_fail(z, NULL);
	return 0;
}

int etl__zout_begin(struct etl_zout *z, int codec, struct etl_out *out, size_t piece)
{
	memset(z, 0, sizeof *z);
	z->codec = codec;
	z->piece = piece;
	if (codec == ETL_CODEC_GZIP) {
		z_stream *zs = calloc(1, sizeof *zs);
		z->cap = 256u * 1024u;
		z->buf = malloc(z->cap);
		if (!zs || !z->buf) {
			free(zs);
			return zout_fail(z, "out of memory");
		}
		if (deflateInit2(zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(zs);
			return zout_fail(z, "cannot start gzip compression");
		}
		z->zs = zs;
		return 0;
	}
	LZ4F_cctx *lz = NULL;
	if (LZ4F_isError(LZ4F_createCompressionContext(&lz, LZ4F_VERSION)))
		return zout_fail(z, "cannot start LZ4 compression");
	z->lz = lz;
	z->cap = LZ4F_compressBound(piece, NULL) + LZ4F_HEADER_SIZE_MAX;
	z->buf = malloc(z->cap);
	if (!z->buf)
		return zout_fail(z, "out of memory");
	size_t h = LZ4F_compressBegin(lz, z->buf, z->cap, NULL);
	if (LZ4F_isError(h))
		return zout_fail(z, LZ4F_getErrorName(h));
	return zout_emit(z, out, h);
}

int etl__zout_put(struct etl_zout *z, struct etl_out *out, const void *p, size_t n, int last)
{
	const uint8_t *in = p;
	if (z->err || (!z->zs && !z->lz))
		return zout_fail(z, z->err ? z->err : "the compressor is not started");
	if (z->codec == ETL_CODEC_GZIP) {
		z_stream *zs = z->zs;
		do {
			size_t k = n > z->piece ? z->piece : n;
			int flush = last && k == n ? Z_FINISH : Z_NO_FLUSH;
			zs->next_in = (Bytef *)(uintptr_t)in;
			zs->avail_in = (uInt)k;
			do {
				zs->next_out = z->buf;
				zs->avail_out = (uInt)z->cap;
				if (deflate(zs, flush) == Z_STREAM_ERROR)
					return zout_fail(z, "gzip compression failed");
				if (zout_emit(z, out, z->cap - zs->avail_out) != 0)
					return -1;
			} while (zs->avail_out == 0);
			in += k;
			n -= k;
		} while (n);
		return 0;
	}
	while (n) {
		size_t k = n > z->piece ? z->piece : n;
		size_t h = LZ4F_compressUpdate(z->lz, z->buf, z->cap, in, k, NULL);
		if (LZ4F_isError(h))
			return zout_fail(z, LZ4F_getErrorName(h));
		if (zout_emit(z, out, h) != 0)
			return -1;
		in += k;
		n -= k;
	}
	if (last) {
		size_t h = LZ4F_compressEnd(z->lz, z->buf, z->cap, NULL);
		if (LZ4F_isError(h))
			return zout_fail(z, LZ4F_getErrorName(h));
		return zout_emit(z, out, h);
	}
	return 0;
}

void etl__zout_free(struct etl_zout *z)
{
	if (z->lz)
		LZ4F_freeCompressionContext(z->lz);
	if (z->zs)
		deflateEnd(z->zs);
	free(z->zs);
	free(z->buf);
	memset(z, 0, sizeof *z);
}

/* Compresses the finished temporary (in_fd) into the target's codec,
 * written to a second temporary (to), read and compressed a piece of this
 * size at a time. */
#define COMMIT_PIECE (1u << 20)

static int compress_to(const struct etl_out *o, int in_fd, struct etl_out *to)
{
	struct etl_zout z;
	uint8_t *in = malloc(COMMIT_PIECE);
	int rc = -1;
	if (!in) {
		errno = ENOMEM;
		return -1;
	}
	errno = 0;
	if (etl__zout_begin(&z, o->codec, to, COMMIT_PIECE) != 0)
		goto end;
	uint64_t pos = 0;
	for (;;) {
		ssize_t k = pread(in_fd, in, COMMIT_PIECE, (off_t)pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			goto end;
		pos += (uint64_t)k;
		if (etl__zout_put(&z, to, in, (size_t)k, k == 0) != 0)
			goto end;
		if (k == 0)
			break;
	}
	rc = 0;
end:
	etl__zout_free(&z);
	free(in);
	if (rc != 0 && errno == 0)
		errno = EIO;
	return rc;
}

/* Copies the finished temporary to the device, FIFO or socket (in order,
 * compressed if the name asks), then closes both. */
static int commit_special(struct etl_out *o)
{
	struct etl_out to;
	int rc = 0;
	etl__out_open_stream(&to, o->dev_fd);
	if (o->codec != ETL_CODEC_NONE) {
		rc = compress_to(o, o->fd, &to) == 0 ? 0 : ETL_OUT_ECOMPRESS;
	} else {
		uint8_t *buf = malloc(COMMIT_PIECE);
		uint64_t pos = 0;
		if (!buf) {
			errno = ENOMEM;
			rc = ETL_OUT_EWRITE;
		}
		while (rc == 0 && pos < o->size) {
			ssize_t k = pread(o->fd, buf, COMMIT_PIECE, (off_t)pos);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0 || etl__out_write(&to, pos, buf, (size_t)k) != 0) {
				if (k == 0)
					errno = EIO;
				rc = ETL_OUT_EWRITE;
				break;
			}
			pos += (uint64_t)k;
		}
		free(buf);
	}
	int e = errno;
	close(o->fd);
	o->fd = -1;
	if (close(o->dev_fd) != 0 && rc == 0) {
		e = errno;
		rc = ETL_OUT_EWRITE;
	}
	o->dev_fd = -1;
	o->special = 0;
	o->kind = ETL_OUT_NONE;
	errno = e;
	return rc;
}

int etl__out_commit(struct etl_out *o)
{
	if (o->kind == ETL_OUT_STREAM && o->special) {
		/* The device, FIFO or socket this output opened. */
		int rc = close(o->fd) == 0 ? 0 : ETL_OUT_EWRITE;
		o->fd = -1;
		o->special = 0;
		o->kind = ETL_OUT_NONE;
		return rc;
	}
	if (o->kind == ETL_OUT_FD) {
		struct stat st;
		/* Shorten a reused file to what this one wrote. */
		if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > o->size)
			return ftruncate(o->fd, (off_t)o->size);
		return 0;
	}
	if (o->kind != ETL_OUT_PATH)
		return 0;
	if (o->in_place) {
		if (ftruncate(o->fd, (off_t)o->size) != 0 || close(o->fd) != 0) {
			int e = errno;
			close(o->fd);
			o->fd = -1;
			errno = e;
			return ETL_OUT_EWRITE;
		}
		o->fd = -1;
		o->kind = ETL_OUT_NONE;
		return 0;
	}
	/* The temporary is new, so it only holds more than was written last
	 * when a raw copy replaced a longer header buffer. */
	if (ftruncate(o->fd, (off_t)o->size) != 0)
		return ETL_OUT_EWRITE;
	if (o->special)
		return commit_special(o);
	if (o->codec != ETL_CODEC_NONE) {
		char *tmp2 = NULL;
		struct etl_out to;
		int fd2 = etl__io_temp_beside(o->path, &tmp2);
		if (fd2 < 0)
			return ETL_OUT_ECOMPRESS;
		etl__out_open_stream(&to, fd2);
		if (compress_to(o, o->fd, &to) != 0 || close(fd2) != 0) {
			int e = errno;
			close(fd2);
			unlink(tmp2);
			free(tmp2);
			errno = e;
			return ETL_OUT_ECOMPRESS;
		}
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = tmp2;
	}
	if (close(o->fd) != 0) {
		o->fd = -1;
		return ETL_OUT_EWRITE;
	}
	o->fd = -1;
	if (rename(o->tmp, o->path) != 0)
		return ETL_OUT_ERENAME;
	free(o->tmp);
	o->tmp = NULL;
	o->kind = ETL_OUT_NONE;
	return 0;
}

void etl__out_abandon(struct etl_out *o)
{
	if (o->special) {
		/* Nothing more goes to the device (PATH: nothing went yet). */
		if (o->kind == ETL_OUT_PATH)
			close(o->dev_fd);
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		o->dev_fd = -1;
		o->special = 0;
		o->kind = ETL_OUT_NONE;
		return;
	}
	if (o->kind == ETL_OUT_PATH) {
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		/* In place: what was written stays (no temporary to remove).
		 * Space allocated past its end is not given back here: the
		 * writer abandoning may be a forked child's copy, whose idea of
		 * the size is stale while the parent writes on. */
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		o->kind = ETL_OUT_NONE;
	}
}

void etl__out_release(struct etl_out *o)
{
	etl__out_abandon(o);
	free(o->path);
	free(o->tmp);
	o->path = NULL;
	o->tmp = NULL;
	o->in_place = 0;
	if (o->kind != ETL_OUT_FD)
		o->fd = -1;
}
