/*
 * lib/read/buffer.h - the buffer walk: reading and checking buffer headers,
 * loading (and inflating) a buffer, and walking its records (internal).
 *
 * struct etl_walk is everything the walk needs and everything it reports:
 * the input, the facts of the logfile header that change the walk, the
 * clock that stamps events with UTC, running totals, and the damage queue.
 * The reader and the time-order merge own one and pass it down; the walk
 * never sees the reader handle.
 */
#ifndef ETL_READ_BUFFER_H
#define ETL_READ_BUFFER_H

#ifndef ETL_BUILDING_LIB
#error "lib/read/buffer.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_reader.h"
#include "formats/hdr/hdr.h"
#include "lib/common/clock.h"
#include "lib/common/errinfo.h"
#include "lib/io/source.h"
#include "lib/read/damage.h"

/* Largest BufferSize the walk accepts. Windows buffers are at most 16 MiB;
 * a compressed buffer of incompressible data is slightly larger than its
 * content, so allow twice that before calling a size field corrupt. */
#define ETL_MAX_BUFFER_SIZE (32u * 1024u * 1024u)

struct etl_walk {
	struct etl_src src;
	/* From the logfile header (0 until it is read): the logger's buffer
	 * size, and whether buffers are compressed (then they vary in size). */
	uint32_t logger_buffer_size;
	int compressed_file;
	int at_end;               /* the walk met the end of the input        */
	uint64_t end_off;         /* ... at this offset                       */
	/* COMPRESSION_FORMAT_* of compressed buffers (doc/format.md §4.2). */
	unsigned compression_format;
	struct etl_hdr_ctx ctx;
	struct etl_clock clock;
	/* Running totals; errors is damage.total, records the caller's. */
	struct etl_reader_stats stats;
	struct etl_damage damage;
	/* The I/O error that made a call return ETL_FATAL. */
	struct etl_errinfo fatal;
};

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

/* A stream of records: one processor's buffers (time order) or the whole
 * file (file order), with one look-ahead event. */
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

/* Records the I/O error that ends the walk (ETL_FATAL). */
void etl__walk_fatal(struct etl_walk *w, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reads and validates the buffer header at off. On ETL_OK fills *info and
 * *next (offset of the following buffer). On ETL_FAILED the damage is
 * queued when walk is set and *next says where to go on (UINT64_MAX: stop
 * the walk). ETL_END at end of input; ETL_FATAL on I/O errors. walk set:
 * this is the walk's visit of the buffer (counted in the totals). */
int etl__buffer_header(struct etl_walk *w, uint64_t off, struct etl_buffer_info *info,
                       uint64_t *next, int walk);

/* Loads the buffer described by info into bv (inflating if compressed).
 * ETL_OK, ETL_FAILED (queued; skip it), ETL_FATAL. */
int etl__buffer_load(struct etl_walk *w, const struct etl_buffer_info *info,
                     struct etl_bufview *bv);

/* Next record of a loaded buffer into ev. ETL_OK / ETL_WARN (ev filled,
 * warn set), ETL_END (buffer exhausted), ETL_FAILED (queued; rest of the
 * buffer abandoned). */
int etl__buffer_next_record(struct etl_walk *w, struct etl_bufview *bv,
                            struct etl_event *ev, char *warn, size_t warnlen);

/* Queues the damage a gzip / LZ4 wrapper left in the source (found while
 * reading through it) at input offset off, once. */
void etl__walk_source_damage(struct etl_walk *w, uint64_t off);

#endif /* ETL_READ_BUFFER_H */
