/*
 * lib/io/sink.h - where output bytes go, safely (internal, defined in
 * lib/io/sink.c): struct etl_out, the writer's output (a temporary renamed
 * over the target at commit, a caller's fd, a callback, or a file written
 * in place for the tracing runtime), and the stream compressor that makes
 * .gz and .lz4 outputs. The public face of it is include/etl_io.h
 * (lib/io/outfile.c).
 */
#ifndef ETL_IO_SINK_H
#define ETL_IO_SINK_H

#ifndef ETL_BUILDING_LIB
#error "lib/io/sink.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "etl_writer.h"
#include "lib/io/source.h"

/* The codec a file name asks for (enum etl_codec): ".gz" gzip, ".lz4" an
 * LZ4 frame. */
int etl__codec_of_path(const char *path);

/* ---- stream compressor (lib/io/sink.c) --------------------------------- */

/* Compresses a byte stream as a whole into gzip (deflate level 6) or one
 * LZ4 frame (default preferences), appending to an output. The codecs get
 * the input as etl__zout_put() gives it, in pieces of at most `piece`
 * bytes: gzip's output does not depend on that, an LZ4 frame's can (its
 * blocks are compressed from the caller's bytes or from its own copy,
 * whichever holds a whole block), so each user keeps to one way. */
struct etl_zout {
	int codec;                 /* ETL_CODEC_GZIP or ETL_CODEC_LZ4         */
	size_t piece;              /* most input given to the codec at once   */
	void *zs;                  /* z_stream *                              */
	void *lz;                  /* LZ4F_cctx *                             */
	uint8_t *buf;              /* compressed bytes on their way out       */
	size_t cap;
	const char *err;           /* after a failure: the codec's complaint,
	                              or NULL when writing the output failed
	                              (errno then says why)                   */
};

struct etl_out;

/* Starts a stream of codec into out (the gzip header / LZ4 frame header
 * are written). @return : 0, or -1 (z->err, or errno). */
int etl__zout_begin(struct etl_zout *z, int codec, struct etl_out *out, size_t piece);
/* Compresses n more bytes; with last, finishes the stream (n may be 0).
 * @return : 0, or -1 (z->err, or errno). */
int etl__zout_put(struct etl_zout *z, struct etl_out *out, const void *p, size_t n, int last);
/* Frees the compressor (finished or not). */
void etl__zout_free(struct etl_zout *z);

/* ---- output (lib/io/sink.c) -------------------------------------------- */
enum { ETL_OUT_NONE = 0, ETL_OUT_PATH, ETL_OUT_FD, ETL_OUT_SINK, ETL_OUT_STREAM };

struct etl_out {
	int kind;
	int fd;                    /* PATH: the temporary file; FD, STREAM:
	                              the caller's                            */
	char *path;                /* PATH: the target                        */
	char *tmp;                 /* PATH: the temporary beside it           */
	int codec;                 /* enum etl_codec, from the path's suffix:
	                              applied to the temporary at commit      */
	etl_sink_write_fn fn;      /* SINK                                    */
	void *ctx;
	uint64_t size;             /* highest offset written                  */
	int in_place;              /* PATH written directly (no temporary,
	                              no rename, kept on abandon): the tracing
	                              runtime's files, readable after a crash  */
	uint64_t prealloc_end;     /* in place: disk space allocated up to
	                              here beyond the size (FALLOC_FL_KEEP_SIZE:
	                              the file's size never includes it)       */
	int prealloc_off;          /* the file system cannot preallocate      */
	uint64_t prealloc_cap;     /* never beyond (the file's size limit),
	                              0: no limit                             */
	int special;               /* PATH or STREAM to a device, FIFO or
	                              socket named by path (never replaced):
	                              PATH keeps it open in dev_fd and copies
	                              the temporary to it at commit; STREAM
	                              writes it as bytes come and owns fd     */
	int dev_fd;                /* PATH, special: the target, opened       */
	const char *why;           /* after a failed open: what failed, as a
	                              phrase ("cannot create a temporary file
	                              beside it")                             */
};

/* An output to path, safely (see lib/io/sink.c): a regular or new file
 * through a temporary renamed over it at commit (through symbolic links:
 * the file they end at is replaced, the links stay); a device, FIFO or
 * socket written through, never replaced, from a temporary in $TMPDIR at
 * commit (the writer needs to go back in its bytes).
 * 0 on success, -1 with errno set and o->why. */
int etl__out_open_path(struct etl_out *o, const char *path);
/* The same for bytes written in order only (etl_outfile): a device, FIFO
 * or socket is written as the bytes come (o->kind ETL_OUT_STREAM). */
int etl__out_open_path_seq(struct etl_out *o, const char *path);
/* The same, writing path itself (created or truncated) in place. */
int etl__out_open_path_inplace(struct etl_out *o, const char *path);
/* The caller's fd, written at the offsets given (pwrite). */
void etl__out_open_fd(struct etl_out *o, int fd);
/* The caller's fd, written in order (write): a pipe, a terminal. Every
 * write must start where the previous one ended. */
void etl__out_open_stream(struct etl_out *o, int fd);
void etl__out_open_sink(struct etl_out *o, etl_sink_write_fn fn, void *ctx);
int etl__out_write(struct etl_out *o, uint64_t off, const void *data, size_t n);
/* The same for n pieces written one after the other from off (one system
 * call for all when the output is a file). */
int etl__out_writev(struct etl_out *o, uint64_t off, const struct iovec *iov, int n);

/* What etl__out_commit() returns when it fails (errno set). */
enum { ETL_OUT_EWRITE = -1, ETL_OUT_ECOMPRESS = -2, ETL_OUT_ERENAME = -3 };

/* Makes the output final (PATH: compress if asked, rename over target).
 * @return : 0, or ETL_OUT_E* with errno set. */
int etl__out_commit(struct etl_out *o);
/* Drops the output (PATH: removes the temporary, target untouched). */
void etl__out_abandon(struct etl_out *o);
void etl__out_release(struct etl_out *o);

#endif /* ETL_IO_SINK_H */
