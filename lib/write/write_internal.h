/*
 * lib/write/write_internal.h - internals of the writer shared between lib/
 * files: the output it writes to (lib/io/sink.c), the writer handle
 * (lib/write/writer.c) and the writer's entry points for the tracing
 * runtime (lib/trace/trace_output.c).
 */
#ifndef ETL_WRITER_PRIVATE_H
#define ETL_WRITER_PRIVATE_H

#ifndef ETL_BUILDING_LIB
#error "lib/write/write_internal.h is internal to libetl"
#endif

#include <sys/uio.h>
#include "lib/read/read_internal.h"
#include "lib/write/header_buffer.h"
#include "etl_writer.h"

/* ---- output: struct etl_out (lib/io/sink.h) ---------------------------- */
#include "lib/common/errinfo.h"
#include "lib/io/sink.h"

/* ---- writer ----------------------------------------------------------- */
struct etl__wc;                /* lib/write/compress_stage.h              */

struct etl_wcpu {
	uint8_t *buf;              /* buffer being filled (buffer_size bytes) */
	uint32_t pos;              /* next record offset                      */
	int64_t last_ts;           /* timestamp of its last event             */
};

struct etl_writer {
	int opened, broken, raw, compressed;
	int closed;                /* close ran: the writer is spent          */
	struct etl_writer_options o;
	char *logger_name, *log_file_name, *pattern;
	struct etl_hdr_ctx ctx;
	struct etl_out out;
	uint32_t nproc;
	struct etl_wcpu *cpus;
	struct etl__hdrbuf hdr;    /* the header buffer (lib/write/header_buffer.c) */
	uint64_t seq;              /* last SequenceNumber given               */
	uint64_t file_end;         /* bytes of this file so far               */
	uint64_t data_buffers;     /* data buffers written to this file       */
	uint64_t last_buf_off;     /* where the last buffer went              */
	uint64_t max_bytes;        /* CIRCULAR / NEWFILE limit                */
	uint64_t circ_slots;
	int wrapped;
	int file_index;            /* files started                           */
	int in_place;              /* rotated files are written in place too  */
	int name_base;             /* NEWFILE: number of the first file; later
	                              ones are pattern % (file_index + base)  */
	int64_t last_ts;
	uint32_t events_lost, buffers_lost;
	struct etl_writer_stats stats;
	struct etl_errinfo err;

	struct etl__wc *wc;        /* compressed mode: the compressed-file
	                              stage (lib/write/compress_stage.c)      */
};

/* ---- entry points of the tracing runtime (lib/trace/trace_output.c) -------- */

/*! etl__writer_open_inplace() : etl_writer_open_file() writing path in
 *  place (NEWFILE: the rotated files too, numbered from name_base + 1).
 *  A process that dies leaves what was written. Same returns. */
int etl__writer_open_inplace(etl_writer *w, const char *path, const struct etl_writer_options *o,
                             int name_base);

/*! etl__writer_put_buffer() : what flush_cpu does, for a buffer filled
 *  outside the writer: buf (buffer_size bytes) holds records from 0x48 to
 *  pos; it is stamped (header, 0xFF fill, next SequenceNumber, processor
 *  cpu, TimeStamp last_ts) and placed (circular slots, NEWFILE rotation,
 *  compression). buf is modified. @return : as etl_writer_write_event. */
int etl__writer_put_buffer(etl_writer *w, uint8_t *buf, uint32_t pos, uint32_t cpu, int64_t last_ts);

/* One buffer for etl__writer_put_buffers(). */
struct etl_wbuf {
	uint8_t *buf;
	uint32_t pos, cpu;
	int64_t last_ts;
};

/*! etl__writer_put_buffers() : etl__writer_put_buffer() for each of the
 *  n buffers in order, rcs[i] its result; a sequential file without size
 *  limit or compression gets them in one system call (n <= 64).
 *  @return : ETL_OK when every buffer was placed, else the first failure
 *  (ETL_FATAL before any other). */
int etl__writer_put_buffers(etl_writer *w, const struct etl_wbuf *v, uint32_t n, int *rcs);

/*! etl__writer_sync() : makes the output readable as it stands: writes the
 *  compressed bytes still waiting in the compression buffer (they stay
 *  there, rewritten by the next write) and rewrites the header buffer with
 *  the figures so far. The file stays open. @return : ETL_OK, ETL_FATAL. */
int etl__writer_sync(etl_writer *w);

/*! etl__writer_set_clock() : a better measured QPC rate (and the boot
 *  time it implies) for the header buffer, written by the next sync,
 *  close or file rotation. */
void etl__writer_set_clock(etl_writer *w, int64_t perf_freq, int64_t boot_time);

/*! etl__writer_bytes() : bytes the current file holds or will hold once
 *  the compression buffer is written. */
uint64_t etl__writer_bytes(const etl_writer *w);

#endif /* ETL_WRITER_PRIVATE_H */
