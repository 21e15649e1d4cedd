/*
 * lib/io/source.c - where the reader's bytes come from.
 *
 * Two shapes:
 *   MEM     the whole input is addressable: a caller's memory block, a
 *           memory-mapped regular file, or a temporary file we spooled a
 *           stream into and mapped. Any offset can be read at any time.
 *   STREAM  a pipe, standard input, or a gzip / LZ4-frame compressed input,
 *           read forward through a window that holds one buffer's bytes.
 * Time-ordered reading revisits buffers, so it asks for MEM (need_random)
 * and a STREAM is then spooled to disk, never to memory: memory stays
 * bounded by the buffers in flight whatever the input size.
 *
 * etl_spool_fd() (include/etl_io.h) gives callers the same spooling for a
 * stream they want to open several times (standard input read by more
 * than one reader): the bytes as they come, undecoded, in a temporary.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "etl_errors.h"
#include "etl_io.h"
#include "etl_reader.h"
#include "lib/io/files.h"
#include "lib/io/source.h"

#define IN_CHUNK (256u * 1024u)
#define WIN_MIN (1024u * 1024u)

static int detect_codec(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return ETL_CODEC_GZIP;
	if (n >= 4 && p[0] == 0x04 && p[1] == 0x22 && p[2] == 0x4d && p[3] == 0x18)
		return ETL_CODEC_LZ4;
	return ETL_CODEC_NONE;
}

static int fail(struct etl_src *src, const char *what)
{
	snprintf(src->errmsg, sizeof src->errmsg, "%s: %s", what, strerror(errno));
	src->errcode = ETL_E_IO;
	return ETL_FATAL;
}

/* ---- damage to a gzip / LZ4 wrapper ------------------------------------ */

/* Compressed bytes the decoder has taken so far. */
static uint64_t compressed_offset(const struct etl_src *src)
{
	if (src->mem_in)
		return src->mem_in_pos;
	return src->in_total - (src->in_len - src->in_pos);
}

/* The kinds of damage a wrapper can have; each has one sentence, the
 * same whatever the reading order or the input's shape (file, memory,
 * pipe), and the reader reports each as ETL_E_DECOMPRESS. */
enum wrap_damage { WRAP_TRUNCATED, WRAP_BAD_HEADER, WRAP_CORRUPT };

static void wrapper_damage(struct etl_src *src, int kind, const char *detail)
{
	static const char *const what[] = { "truncated", "bad", "corrupt" };
	const char *codec = src->codec == ETL_CODEC_GZIP ? "gzip" : "LZ4";
	const char *part = kind == WRAP_BAD_HEADER ? " header" : " stream";
	snprintf(src->errmsg, sizeof src->errmsg, "%s %s%s at compressed offset %llu (%s)",
	         what[kind], codec, part, (unsigned long long)compressed_offset(src), detail);
	src->errcode = ETL_E_DECOMPRESS;
	src->eof = 1;
}

/* zlib's complaints about a member's header (inflate.c). */
static int gzip_header_error(const char *msg)
{
	return msg && (strstr(msg, "header") || strstr(msg, "compression method") ||
	               strstr(msg, "window size"));
}

/* LZ4F errors about the frame header (lz4frame.h's error names). */
static int lz4_header_error(const char *name)
{
	return strstr(name, "frameType") || strstr(name, "headerVersion") ||
	       strstr(name, "frameHeader") || strstr(name, "headerChecksum") ||
	       strstr(name, "maxBlockSize") || strstr(name, "reservedFlag") ||
	       strstr(name, "frameSize");
}

/* Refills the compressed-input staging area. 1 if bytes are available,
 * 0 at end of input, -1 on a read error. */
static int refill_input(struct etl_src *src, const uint8_t **p, size_t *n)
{
	if (src->mem_in) {
		if (src->mem_in_pos >= src->mem_in_len)
			return 0;
		*p = src->mem_in + src->mem_in_pos;
		*n = (size_t)(src->mem_in_len - src->mem_in_pos);
		src->mem_in_pos = src->mem_in_len;
		return 1;
	}
	if (src->in_pos < src->in_len) {
		*p = src->in_buf + src->in_pos;
		*n = src->in_len - src->in_pos;
		src->in_pos = src->in_len;
		return 1;
	}
	if (src->in_eof)
		return 0;
	ssize_t got;
	do {
		got = read(src->fd, src->in_buf, src->in_cap);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	if (got == 0) {
		src->in_eof = 1;
		return 0;
	}
	src->in_total += (uint64_t)got;
	src->in_len = (size_t)got;
	src->in_pos = src->in_len;
	*p = src->in_buf;
	*n = (size_t)got;
	return 1;
}

/* Gives back input bytes a decoder did not consume. */
static void unread_input(struct etl_src *src, size_t left)
{
	if (src->mem_in)
		src->mem_in_pos -= left;
	else
		src->in_pos -= left;
}

/* Produces up to n decoded bytes. Returns the count (0 at end), or -1. */
/* More compressed input: 1 with *in and *in_n set, -1 on a read error, 0 at
 * its end - then src is at EOF, and when the end came inside a member or
 * frame (inside set) the stream is reported as truncated with why. */
static int refill_or_end(struct etl_src *src, const uint8_t **in, size_t *in_n, int inside,
                         const char *why)
{
	int rc = refill_input(src, in, in_n);
	if (rc == 0) {
		/* Input ended: report a cut member or frame, keep what we have. */
		if (inside)
			wrapper_damage(src, WRAP_TRUNCATED, why);
		src->eof = 1;
	}
	return rc < 0 ? -1 : rc;
}

static long stream_read(struct etl_src *src, uint8_t *buf, size_t n)
{
	const uint8_t *in;
	size_t in_n;
	int rc;
	if (src->eof)
		return 0;
	if (src->codec == ETL_CODEC_NONE) {
		rc = refill_input(src, &in, &in_n);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			src->eof = 1;
			return 0;
		}
		size_t take = in_n < n ? in_n : n;
		memcpy(buf, in, take);
		unread_input(src, in_n - take);
		src->decoded += take;
		return (long)take;
	}
	if (src->codec == ETL_CODEC_GZIP) {
		z_stream *zs = src->zs;
		size_t out = 0;
		while (out == 0) {
			rc = refill_or_end(src, &in, &in_n, zs->total_in != 0,
			                   "the input ends inside a gzip member");
			if (rc <= 0)
				return rc;
			zs->next_in = (Bytef *)(uintptr_t)in;
			zs->avail_in = (uInt)(in_n > UINT32_MAX ? UINT32_MAX : in_n);
			size_t given = zs->avail_in;
			zs->next_out = buf;
			zs->avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
			int zr = inflate(zs, Z_NO_FLUSH);
			out = (size_t)(zs->next_out - buf);
			unread_input(src, in_n - given + zs->avail_in);
			if (zr == Z_STREAM_END) {
				/* Concatenated members are one stream (gzip(1) does so). */
				inflateReset(zs);
				zs->total_in = 0;
			} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
				const char *why = zs->msg ? zs->msg : "inflate failed";
				char detail[96];
				snprintf(detail, sizeof detail, "zlib: %s", why);
				wrapper_damage(src, gzip_header_error(zs->msg) ? WRAP_BAD_HEADER : WRAP_CORRUPT,
				               detail);
				break;
			}
		}
		src->decoded += out;
		return (long)out;
	}
	/* LZ4 frame */
	size_t out = 0;
	while (out == 0) {
		rc = refill_or_end(src, &in, &in_n, src->lz4_in_frame,
		                   "the input ends inside an LZ4 frame");
		if (rc < 0)
			return -1;
		if (rc == 0) {
			break;
		}
		size_t dst_n = n, src_n = in_n;
		size_t hint = LZ4F_decompress(src->lz4, buf, &dst_n, in, &src_n, NULL);
		unread_input(src, in_n - src_n);
		out = dst_n;
		if (LZ4F_isError(hint)) {
			const char *name = LZ4F_getErrorName(hint);
			char detail[96];
			snprintf(detail, sizeof detail, "LZ4: %s", name);
			wrapper_damage(src, lz4_header_error(name) ? WRAP_BAD_HEADER : WRAP_CORRUPT, detail);
			break;
		}
		src->lz4_in_frame = hint != 0;   /* 0: a frame just ended */
	}
	src->decoded += out;
	return (long)out;
}

static int setup_codec(struct etl_src *src)
{
	if (src->codec == ETL_CODEC_GZIP) {
		z_stream *zs = calloc(1, sizeof *zs);
		if (!zs || inflateInit2(zs, 15 + 32) != Z_OK) {
			free(zs);
			snprintf(src->errmsg, sizeof src->errmsg, "Cannot start gzip decoder");
			return ETL_FATAL;
		}
		src->zs = zs;
	} else if (src->codec == ETL_CODEC_LZ4) {
		LZ4F_dctx *d = NULL;
		if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION))) {
			snprintf(src->errmsg, sizeof src->errmsg, "Cannot start LZ4 decoder");
			return ETL_FATAL;
		}
		src->lz4 = d;
	}
	return ETL_OK;
}

/* A compressed input that gave less than one buffer header because its
 * wrapper is damaged, or nothing at all: said so (ETL_FATAL), rather than
 * left for the reader to call an empty or foreign input. 1 if so. */
static int nothing_usable(struct etl_src *src, uint64_t decoded)
{
	if (src->codec == ETL_CODEC_NONE || decoded >= ETL_BUFFER_HEADER_SIZE)
		return 0;
	if (src->errmsg[0])
		return 1;                 /* the wrapper's own message */
	if (decoded > 0)
		return 0;
	snprintf(src->errmsg, sizeof src->errmsg, "The %s stream holds no data: it decompresses to 0 bytes",
	         src->codec == ETL_CODEC_GZIP ? "gzip" : "LZ4");
	src->errcode = ETL_E_TRUNCATED;
	return 1;
}

static long pull_decoded(void *ctx, uint8_t *buf, size_t n)
{
	return stream_read(ctx, buf, n);
}

/* Copies the whole decoded stream into an unlinked temporary file and maps
 * it, turning a STREAM into MEM. */
static int spool(struct etl_src *src)
{
	static const char *const failed[] = {
		"Cannot create a temporary file to spool the input", "Cannot read the input",
		"Cannot write the spool file",
	};
	uint64_t total = 0;
	int step;
	int tfd = etl__io_spool("libetl-spool", pull_decoded, src, &total, &step);
	if (tfd < 0) {
		if (step == 3) {
			snprintf(src->errmsg, sizeof src->errmsg, "Out of memory");
			src->errcode = ETL_E_NOMEM;
			return ETL_FATAL;
		}
		if (step >= 4) {
			snprintf(src->errmsg, sizeof src->errmsg,
			         "The input expands past the room for its temporary copy (time order "
			         "copies a compressed or streamed input into $TMPDIR): it is larger than "
			         "%llu bytes, %s",
			         (unsigned long long)total,
			         step == 4 ? "the spool limit" : "the free space of $TMPDIR");
			src->errcode = ETL_E_LIMIT;
			return ETL_FATAL;
		}
		return fail(src, failed[step]);
	}
	if (nothing_usable(src, total)) {
		close(tfd);
		return ETL_FATAL;
	}
	if (src->map) {            /* the compressed input is no longer needed */
		munmap(src->map, src->map_len);
		src->map = NULL;
		src->mem_in = NULL;
	}
	src->kind = ETL_SRC_MEM;
	src->size = total;
	if (total == 0) {
		close(tfd);
		src->base = NULL;
		return ETL_OK;
	}
	void *m = mmap(NULL, (size_t)total, PROT_READ, MAP_PRIVATE, tfd, 0);
	close(tfd);
	if (m == MAP_FAILED)
		return fail(src, "Cannot map the spool file");
	src->map = m;
	src->map_len = (size_t)total;
	src->base = m;
	return ETL_OK;
}

static int finish_open(struct etl_src *src, int need_random)
{
	if (src->kind == ETL_SRC_STREAM) {
		if (setup_codec(src) != ETL_OK)
			return ETL_FATAL;
		if (need_random)
			return spool(src);
	}
	return ETL_OK;
}

int etl__src_open_mem(struct etl_src *src, const uint8_t *p, size_t n, int need_random)
{
	memset(src, 0, sizeof *src);
	src->fd = -1;
	src->codec = detect_codec(p, n);
	if (src->codec == ETL_CODEC_NONE) {
		src->kind = ETL_SRC_MEM;
		src->base = p;
		src->size = n;
		return ETL_OK;
	}
	src->kind = ETL_SRC_STREAM;
	src->mem_in = p;
	src->mem_in_len = n;
	return finish_open(src, need_random);
}

int etl__src_open_fd(struct etl_src *src, int fd, int need_random)
{
	struct stat st;
	memset(src, 0, sizeof *src);
	src->fd = fd;
	if (fstat(fd, &st) != 0)
		return fail(src, "Cannot stat the input");
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			/* Buffers are mostly walked front to back. (Advice values
			 * are not flags: one call each.) */
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			madvise(m, (size_t)st.st_size, MADV_WILLNEED);
			src->map = m;
			src->map_len = (size_t)st.st_size;
			src->codec = detect_codec(m, (size_t)st.st_size);
			if (src->codec == ETL_CODEC_NONE) {
				src->kind = ETL_SRC_MEM;
				src->base = m;
				src->size = (uint64_t)st.st_size;
				return ETL_OK;
			}
			src->kind = ETL_SRC_STREAM;
			src->mem_in = m;
			src->mem_in_len = (uint64_t)st.st_size;
			return finish_open(src, need_random);
		}
	}
	/* A pipe, a terminal, or a file we could not map: stream it. */
	src->kind = ETL_SRC_STREAM;
	src->in_cap = IN_CHUNK;
	src->in_buf = malloc(src->in_cap);
	if (!src->in_buf) {
		snprintf(src->errmsg, sizeof src->errmsg, "Out of memory");
		return ETL_FATAL;
	}
	/* Peek at the first bytes to recognise a compressed stream. */
	while (src->in_len < 4 && !src->in_eof) {
		ssize_t got = read(fd, src->in_buf + src->in_len, src->in_cap - src->in_len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail(src, "Cannot read the input");
		if (got == 0)
			src->in_eof = 1;
		src->in_len += (size_t)got;
		src->in_total += (uint64_t)got;
	}
	src->codec = detect_codec(src->in_buf, src->in_len);
	return finish_open(src, need_random);
}

int etl__src_get(struct etl_src *src, uint64_t off, size_t n, const uint8_t **p, size_t *avail)
{
	if (src->kind == ETL_SRC_MEM) {
		if (off >= src->size) {
			*p = NULL;
			*avail = 0;
			return ETL_OK;
		}
		uint64_t left = src->size - off;
		*p = src->base + off;
		*avail = left < n ? (size_t)left : n;
		return ETL_OK;
	}
	if (off < src->win_off) {
		snprintf(src->errmsg, sizeof src->errmsg,
		         "Streamed input cannot go back: offset=%llu, window=%llu",
		         (unsigned long long)off, (unsigned long long)src->win_off);
		return ETL_FATAL;
	}
	uint64_t drop = off - src->win_off;
	if (drop >= src->win_len) {
		/* Skip bytes that were never asked for. */
		uint64_t skip = drop - src->win_len;
		src->win_len = 0;
		while (skip > 0) {
			uint8_t tmp[4096];
			long got = stream_read(src, tmp, skip < sizeof tmp ? (size_t)skip : sizeof tmp);
			if (got < 0)
				return fail(src, "Cannot read the input");
			if (got == 0)
				break;
			skip -= (uint64_t)got;
		}
	} else if (drop > 0) {
		memmove(src->win, src->win + drop, src->win_len - (size_t)drop);
		src->win_len -= (size_t)drop;
	}
	src->win_off = off;
	if (n > src->win_cap) {
		size_t cap = n < WIN_MIN ? WIN_MIN : n;
		uint8_t *w = realloc(src->win, cap);
		if (!w) {
			snprintf(src->errmsg, sizeof src->errmsg, "Out of memory for a %zu-byte buffer", n);
			return ETL_FATAL;
		}
		src->win = w;
		src->win_cap = cap;
	}
	while (src->win_len < n && !src->eof) {
		long got = stream_read(src, src->win + src->win_len, src->win_cap - src->win_len);
		if (got < 0)
			return fail(src, "Cannot read the input");
		if (got == 0)
			break;
		src->win_len += (size_t)got;
	}
	if (off == 0 && src->win_len < n && nothing_usable(src, src->win_len))
		return ETL_FATAL;
	*p = src->win;
	*avail = src->win_len < n ? src->win_len : n;
	return ETL_OK;
}

void etl__src_drain(struct etl_src *src)
{
	uint8_t tmp[16384];
	uint64_t limit = etl_spool_limit();
	if (src->kind != ETL_SRC_STREAM || src->codec == ETL_CODEC_NONE)
		return;
	while (!src->eof && src->decoded < limit)
		if (stream_read(src, tmp, sizeof tmp) <= 0)
			break;
}

void etl__src_close(struct etl_src *src)
{
	if (src->zs) {
		inflateEnd(src->zs);
		free(src->zs);
	}
	if (src->lz4)
		LZ4F_freeDecompressionContext(src->lz4);
	if (src->map)
		munmap(src->map, src->map_len);
	free(src->in_buf);
	free(src->win);
	memset(src, 0, sizeof *src);
	src->fd = -1;
}

/* ---- public: a stream made readable at any offset --------------------- */

static long pull_fd(void *ctx, uint8_t *buf, size_t n)
{
	int fd = *(const int *)ctx;
	for (;;) {
		ssize_t got = read(fd, buf, n);
		if (got < 0 && errno == EINTR)
			continue;
		return (long)got;
	}
}

int etl_spool_fd(int fd)
{
	struct stat st;
	uint64_t size;
	int step;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return fd;
	int tfd = etl__io_spool("libetl-spool", pull_fd, &fd, &size, &step);
	if (tfd >= 0 && lseek(tfd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(tfd);
		errno = e;
		return -1;
	}
	return tfd;
}
