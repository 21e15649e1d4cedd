/*
 * lib/io/source.h - where the reader's bytes come from (internal): a file
 * or memory, mapped when it can be, read forward through a window when it
 * is a pipe or a gzip / LZ4 stream.
 */
#ifndef ETL_IO_SOURCE_H
#define ETL_IO_SOURCE_H

#ifndef ETL_BUILDING_LIB
#error "lib/io/source.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>

enum etl_src_kind { ETL_SRC_NONE = 0, ETL_SRC_MEM, ETL_SRC_STREAM };
enum etl_codec { ETL_CODEC_NONE = 0, ETL_CODEC_GZIP, ETL_CODEC_LZ4 };

struct etl_src {
	int kind;                 /* enum etl_src_kind                         */
	/* MEM: the whole input is addressable */
	const uint8_t *base;
	uint64_t size;
	void *map;                /* our own mapping, to munmap               */
	size_t map_len;
	/* STREAM: forward-only reads through a window */
	int fd;                   /* -1 when reading from memory              */
	int codec;                /* enum etl_codec                           */
	void *zs;                 /* z_stream *                               */
	void *lz4;                /* LZ4F_dctx *                              */
	int lz4_in_frame;         /* an LZ4 frame is started and not ended    */
	const uint8_t *mem_in;    /* compressed input held in memory          */
	uint64_t mem_in_len, mem_in_pos;
	uint8_t *in_buf;          /* staging for compressed bytes from fd     */
	size_t in_cap, in_len, in_pos;
	int in_eof;
	uint64_t in_total;        /* bytes read from fd into in_buf so far    */
	uint64_t decoded;         /* decoded bytes produced so far            */
	uint8_t *win;             /* decoded bytes [win_off, win_off+win_len) */
	size_t win_cap, win_len;
	uint64_t win_off;
	int eof;
	int errcode;              /* enum etl_errcode of errmsg; 0: ETL_E_IO  */
	char errmsg[256];         /* why a read failed, or how a compressed
	                             wrapper is damaged (one sentence per kind:
	                             "truncated gzip stream at compressed
	                             offset N ...", "corrupt ...", "bad ...
	                             header ...")                             */
};

/* Opens src over fd or memory, recognising gzip / LZ4 frames. If
 * need_random is set, anything that is not directly addressable is spooled
 * to an unlinked temporary file and mapped, within the spool limit
 * (etl_set_spool_limit(): ETL_E_LIMIT past it). Returns ETL_OK or
 * ETL_FATAL with src->errmsg and src->errcode set. A compressed input
 * whose damaged wrapper leaves less than one buffer header of data fails
 * (ETL_E_DECOMPRESS, the wrapper's message) rather than look empty - at
 * open when spooled, at the first etl__src_get() when streamed; a longer
 * one keeps the message in errmsg for the reader to report at the end. */
int etl__src_open_fd(struct etl_src *src, int fd, int need_random);
int etl__src_open_mem(struct etl_src *src, const uint8_t *p, size_t n, int need_random);
/* Makes bytes [off, off+n) available: *p points to them and *avail is how
 * many exist (less than n only at end of input). For STREAM sources off must
 * not go backwards. Pointer valid until the next call. ETL_OK or ETL_FATAL. */
int etl__src_get(struct etl_src *src, uint64_t off, size_t n, const uint8_t **p, size_t *avail);
/* A compressed STREAM whose reader is done before its end: decodes and
 * drops the rest (at most up to the spool limit of decoded bytes), so
 * that damage to the wrapper's end is found - and said - as it is when
 * the whole input is spooled for time order. */
void etl__src_drain(struct etl_src *src);
void etl__src_close(struct etl_src *src);

#endif /* ETL_IO_SOURCE_H */
