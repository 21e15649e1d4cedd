/*
 * lib/io/outfile.c - etl_outfile (include/etl_io.h): an output written in
 * order, to a file safely or to a caller's fd.
 *
 * The file itself is lib/io/sink.c's struct etl_out, the one the .etl
 * writer uses: a temporary beside the target, renamed over it at commit,
 * removed on abandon; a device, FIFO or socket is written through as the
 * bytes come, never replaced. What this adds is what writing in order allows:
 * plain bytes are collected into large blocks, and a .gz or .lz4 target
 * is compressed as the bytes come (etl__zout_*; the compressors collect
 * their input themselves), rather than from the finished temporary as the
 * writer must (it rewrites its header at close).
 * Messages are phrases a program can put after the file's name.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_io.h"
#include "lib/io/sink.h"

#define OUTFILE_BLOCK (256u * 1024u)
/* A compressed output gives the compressor the bytes as they are written,
 * at most this much at once (an LZ4 frame depends on the cut: see
 * struct etl_zout). */
#define COMPRESS_PIECE (64u * 1024u)

enum { OF_NEW = 0, OF_OPEN, OF_DONE };

struct etl_outfile {
	int state;                 /* OF_*                                    */
	struct etl_out out;        /* where the bytes go                      */
	int compressing;           /* z is started                            */
	struct etl_zout z;
	char *buf;                 /* bytes not yet written                   */
	size_t len, cap;
	int failed;
	char errmsg[256];
};

etl_outfile *etl_outfile_new(void)
{
	etl_outfile *f = calloc(1, sizeof *f);
	if (f)
		f->out.fd = -1;
	return f;
}

/* Records the first failure: what failed, then the system's reason when
 * err > 0. @return : ETL_FATAL. */
static int fail(etl_outfile *f, const char *what, int err)
{
	if (!f->failed) {
		f->failed = 1;
		snprintf(f->errmsg, sizeof f->errmsg, "%s%s%s", what, err > 0 ? ": " : "",
		         err > 0 ? strerror(err) : "");
	}
	return ETL_FATAL;
}

/* A compressor failure: its complaint, or the write under it. */
static int zfail(etl_outfile *f)
{
	return f->z.err ? fail(f, f->z.err, -1) : fail(f, "cannot write", errno);
}

static int start(etl_outfile *f)
{
	f->state = OF_OPEN;
	f->cap = OUTFILE_BLOCK;
	f->buf = malloc(f->cap);
	return f->buf ? ETL_OK : fail(f, "out of memory", -1);
}

int etl_outfile_open(etl_outfile *f, const char *path)
{
	if (f->state != OF_NEW)
		return ETL_FAILED;               /* opened before: nothing changes */
	if (etl__out_open_path_seq(&f->out, path) != 0) {
		f->state = OF_DONE;
		return errno == ENOMEM ? fail(f, "out of memory", -1)
		                       : fail(f, f->out.why ? f->out.why : "cannot open it", errno);
	}
	if (start(f) != ETL_OK)
		return ETL_FATAL;
	int codec = f->out.codec;
	f->out.codec = ETL_CODEC_NONE;     /* compressed here, as it goes */
	if (codec != ETL_CODEC_NONE) {
		f->compressing = 1;
		if (etl__zout_begin(&f->z, codec, &f->out, COMPRESS_PIECE) != 0)
			return zfail(f);
	}
	return ETL_OK;
}

int etl_outfile_open_fd(etl_outfile *f, int fd)
{
	if (f->state != OF_NEW)
		return ETL_FAILED;               /* opened before: nothing changes */
	etl__out_open_stream(&f->out, fd);
	return start(f);
}

/* Writes the collected bytes (n more from p when the block is full). */
static int flush(etl_outfile *f, const void *p, size_t n)
{
	const void *data = f->len ? f->buf : p;
	size_t len = f->len ? f->len : n;
	if (len == 0)
		return ETL_OK;
	f->len = 0;
	if (f->compressing)
		return etl__zout_put(&f->z, &f->out, data, len, 0) == 0 ? ETL_OK : zfail(f);
	return etl__out_write(&f->out, f->out.size, data, len) == 0 ? ETL_OK
	                                                            : fail(f, "cannot write", errno);
}

int etl_outfile_write(etl_outfile *f, const void *data, size_t n)
{
	if (f->failed)
		return ETL_FATAL;
	if (f->state != OF_OPEN)
		return fail(f, "the output is not open", -1);
	if (f->compressing)
		return n && etl__zout_put(&f->z, &f->out, data, n, 0) != 0 ? zfail(f) : ETL_OK;
	if (n > f->cap - f->len) {
		if (flush(f, NULL, 0) != ETL_OK)
			return ETL_FATAL;
		if (n > f->cap)
			return flush(f, data, n);
	}
	memcpy(f->buf + f->len, data, n);
	f->len += n;
	return ETL_OK;
}

/* Writes what is pending and ends the compressed stream. */
static int finish(etl_outfile *f)
{
	if (f->failed || flush(f, NULL, 0) != ETL_OK)
		return ETL_FATAL;
	if (f->compressing && etl__zout_put(&f->z, &f->out, NULL, 0, 1) != 0)
		return zfail(f);
	switch (etl__out_commit(&f->out)) {
	case 0:
		return ETL_OK;
	case ETL_OUT_ERENAME:
		return fail(f, "cannot rename the temporary file over it", errno);
	default:
		return fail(f, "cannot write", errno);
	}
}

int etl_outfile_commit(etl_outfile *f)
{
	if (f->state != OF_OPEN)
		return f->failed ? ETL_FATAL : fail(f, "the output is not open", -1);
	if (finish(f) != ETL_OK) {
		etl_outfile_abandon(f);
		return ETL_FATAL;
	}
	f->state = OF_DONE;
	return ETL_OK;
}

void etl_outfile_abandon(etl_outfile *f)
{
	if (f->state != OF_OPEN)
		return;
	f->state = OF_DONE;
	f->len = 0;
	etl__out_abandon(&f->out);
}

void etl_outfile_free(etl_outfile *f)
{
	if (!f)
		return;
	etl_outfile_abandon(f);
	etl__zout_free(&f->z);
	etl__out_release(&f->out);
	free(f->buf);
	free(f);
}

const char *etl_outfile_errmsg(const etl_outfile *f)
{
	return f ? f->errmsg : "";
}

size_t etl_outfile_codec_suffix(const char *path)
{
	switch (path ? etl__codec_of_path(path) : ETL_CODEC_NONE) {
	case ETL_CODEC_GZIP: return 3;
	case ETL_CODEC_LZ4: return 4;
	default: return 0;
	}
}
