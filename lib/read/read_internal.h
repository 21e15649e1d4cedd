/*
 * lib/read/read_internal.h - internals of the reader shared between lib/ files.
 */
#ifndef ETL_PRIVATE_H
#define ETL_PRIVATE_H

#ifndef ETL_BUILDING_LIB
#error "lib/read/read_internal.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "etl.h"
#include "formats/hdr/hdr.h"

/* Largest BufferSize the walk accepts. Windows buffers are at most 16 MiB
 * (phnt MAX_ETW_BUFFER_SIZE); a compressed buffer of incompressible data is
 * slightly larger than its content, so allow twice that before calling a
 * size field corrupt. */
#define ETL_MAX_BUFFER_SIZE (32u * 1024u * 1024u)

/* ---- clock ---------------------------------------------------------- */
struct etl_clock {
	int usable;
	int64_t t0;      /* raw timestamp of the logfile-header record */
	int64_t start;   /* StartTime, FILETIME                         */
	int64_t mul, div;
	int64_t factor;  /* mul / div when that is a whole number, else 0 */
};
void etl__clock_init(struct etl_clock *ck, const struct etl_logfile *lf);
int etl__clock_to_utc(const struct etl_clock *ck, int64_t raw, int64_t *ft);

/* ---- input source ---------------------------------------------------- */
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
	uint8_t *win;             /* decoded bytes [win_off, win_off+win_len) */
	size_t win_cap, win_len;
	uint64_t win_off;
	int eof;
	char errmsg[160];         /* why a read failed                        */
};

/* Opens src over fd or memory, recognising gzip / LZ4 frames. If
 * need_random is set, anything that is not directly addressable is spooled
 * to an unlinked temporary file and mapped. Returns ETL_OK or ETL_FATAL
 * with src->errmsg set. */
int etl__src_open_fd(struct etl_src *src, int fd, int need_random);
int etl__src_open_mem(struct etl_src *src, const uint8_t *p, size_t n, int need_random);
/* Makes bytes [off, off+n) available: *p points to them and *avail is how
 * many exist (less than n only at end of input). For STREAM sources off must
 * not go backwards. Pointer valid until the next call. ETL_OK or ETL_FATAL. */
int etl__src_get(struct etl_src *src, uint64_t off, size_t n, const uint8_t **p, size_t *avail);
void etl__src_close(struct etl_src *src);

/* ---- logfile header -------------------------------------------------- */
/* Decodes TRACE_LOGFILE_HEADER(32|64) + names from a header record's
 * payload. ptr_size selects the form. Fills lf (strings allocated). */
int etl__logfile_decode(const uint8_t *payload, size_t n, unsigned ptr_size,
                        struct etl_logfile *lf, struct etl_err *err);
void etl__logfile_free(struct etl_logfile *lf);
/* UTF-16LE (n bytes, stops at NUL) -> newly allocated UTF-8. */
char *etl__utf16_to_utf8(const uint8_t *p, size_t n, size_t *consumed);

/* ---- buffers --------------------------------------------------------- */
/* A loaded buffer: header + records contiguous in memory. */
struct etl_bufview {
	struct etl_buffer_info info;
	const uint8_t *data;      /* header at data[0], records from 0x48     */
	uint32_t end;             /* valid end of records                     */
	uint32_t pos;             /* next record                              */
	uint8_t *scratch;         /* inflation target (owned)                 */
	size_t scratch_cap;
	int64_t last_ts;          /* timestamp of the last record (ordering)  */
};

/* Pending errors, reported one per etl_reader_next() call. */
struct etl_pending {
	int code;
	uint64_t off;
	char msg[256];
};
/* The time-order index pass walks every buffer header before the first
 * event, so a badly damaged file can queue one error per buffer: keep up
 * to this many, then count the rest into one summary error. */
#define ETL_PENDING_MAX 4096

/* A stream of records: one processor's buffers (time order) or the whole
 * file (file order). */
struct etl_stream {
	struct etl_bufview bv;
	int has_buffer;           /* bv holds a buffer with records left      */
	uint32_t next_idx, end_idx; /* index range (time order)               */
	uint64_t next_off;        /* next buffer offset (file order)          */
	int done;
	struct etl_event ev;      /* look-ahead event                         */
	int ev_status;            /* ETL_OK or ETL_WARN for ev                */
	char warn[256];           /* message for ETL_WARN                     */
	int64_t key;              /* ordering key (timestamp)                 */
};

struct etl_index_entry {
	uint64_t off;
	int64_t seq;
	uint16_t processor;
};

struct etl_reader {
	int opened;
	int order;
	int fatal;
	struct etl_src src;
	int owns_fd;
	int fd;
	struct etl_logfile lf;
	struct etl_clock clock;
	struct etl_hdr_ctx ctx;
	struct etl_reader_stats stats;
	/* Decoder of compressed buffers: COMPRESSION_FORMAT_* named by the
	 * header buffer's State in compressed-mode files (spec §4.2). */
	unsigned compression_format;

	/* error of the last call */
	int errcode;
	uint64_t erroff;
	char errmsg[256];
	struct etl_pending *pending;   /* ring, grown on demand up to
	                                  ETL_PENDING_MAX entries              */
	unsigned pend_cap, pend_head, pend_count;
	uint64_t pend_dropped;         /* errors beyond the cap, reported as
	                                  one summary once the ring drains     */
	uint64_t pend_dropped_off;     /* offset of the first of them         */

	/* file-order walk (also used by next_buffer) */
	struct etl_stream fstream;
	int walk_stopped;

	/* time order */
	struct etl_index_entry *index;
	size_t n_index, cap_index;
	struct etl_stream *streams;
	size_t n_streams;
	size_t *heap;             /* stream indices ordered by key            */
	size_t n_heap;
	size_t *adv;              /* streams waiting to be advanced           */
	size_t n_adv;
	int top_out;              /* the heap's top stream handed out its event:
	                             advance it, then sift it down, next call */
	int indexed;

	const struct etl_buffer_info *cur_buf;
	struct etl_buffer_info walk_info; /* next_buffer() result            */
};

/* Records an error for later report (etl_reader_next drains them). */
void etl__pend(struct etl_reader *r, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Moves the oldest pending error into the handle; 1 if there was one. */
int etl__pop_pending(struct etl_reader *r);
/* Sets the reader's current error. */
void etl__seterr(struct etl_reader *r, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reads and validates the buffer header at off. On ETL_OK fills *info and
 * *next (offset of the following buffer). On ETL_FAILED the error is pended
 * and *next says where to go on (UINT64_MAX: stop the walk). ETL_END at end
 * of input; ETL_FATAL on I/O errors. */
int etl__buffer_header(struct etl_reader *r, uint64_t off, struct etl_buffer_info *info,
                       uint64_t *next, int walk);
/* Loads the buffer described by info into bv (inflating if compressed).
 * ETL_OK, ETL_FAILED (pended; skip it), ETL_FATAL. */
int etl__buffer_load(struct etl_reader *r, const struct etl_buffer_info *info,
                     struct etl_bufview *bv);
/* Next record of a loaded buffer into ev. ETL_OK / ETL_WARN (ev filled,
 * warn set), ETL_END (buffer exhausted), ETL_FAILED (pended; rest of buffer
 * abandoned). */
int etl__buffer_next_record(struct etl_reader *r, struct etl_bufview *bv,
                            struct etl_event *ev, char *warn, size_t warnlen);

/* Time-ordered iteration (lib/read/order.c). */
int etl__order_build(struct etl_reader *r);
int etl__order_next(struct etl_reader *r, const struct etl_event **ev);
void etl__order_free(struct etl_reader *r);

#endif /* ETL_PRIVATE_H */
