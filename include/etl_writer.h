/*
 * etl_writer.h - writing .etl files as Windows writes them.
 *
 * Basic outline:
 *
 *     struct etl_writer_options o;
 *     etl_writer_options_init(&o);             // 64 KiB buffers, 64-bit, QPC...
 *     o.logger_name = "MySession";
 *     etl_writer *w = etl_writer_new();
 *     if (etl_writer_open_file(w, "out.etl", &o) != ETL_OK) { report; }
 *     for (each event ev)                      // struct etl_event, as the
 *         etl_writer_write_event(w, ev);       // reader returns them
 *     if (etl_writer_close(w) != ETL_OK) { report; }   // out.etl appears here
 *     etl_writer_free(w);
 *
 * The file has a header buffer (logfile-header record, then a
 * PartitionInfoExtension record), then one stream of buffers per
 * processor with increasing SequenceNumber, 8-byte aligned records and
 * 0xFF fill. etl_writer_close() patches BuffersWritten, EventsLost,
 * BuffersLost and EndTime into the header.
 *
 * Output to a path is safe: everything goes to a temporary file beside
 * the target, renamed over it only when close succeeds; on any error the
 * temporary is removed and an existing target is left untouched. A path
 * ending in ".gz" or ".lz4" is compressed with zlib or an LZ4 frame.
 */
#ifndef ETL_WRITER_H
#define ETL_WRITER_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"
#include "etl_event.h"
#include "etl_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_writer etl_writer;

/* Where bytes go when writing to a callback sink: write n bytes at the
 * absolute offset off (the header buffer is rewritten at offset 0 on
 * close, so the sink must accept writes at earlier offsets). Return 0 on
 * success, -1 on failure (set errno if you can). */
typedef int (*etl_sink_write_fn)(void *ctx, uint64_t off, const void *data, size_t n);

/* LogFileMode bits the writer acts on. */
#define ETL_MODE_SEQUENTIAL  0x00000001u
#define ETL_MODE_CIRCULAR    0x00000002u
#define ETL_MODE_NEWFILE     0x00000008u
#define ETL_MODE_RELOG       0x00010000u
#define ETL_MODE_COMPRESSED  0x04000000u

struct etl_writer_options {
	uint32_t struct_size;          /* sizeof(struct etl_writer_options)     */
	uint32_t buffer_size;          /* bytes per buffer, 0x1000..16 MiB,
	                                  multiple of 8; default 64 KiB          */
	uint8_t  pointer_size;         /* 4 or 8: logfile-header form           */
	uint32_t number_of_processors; /* buffer streams; events name theirs    */
	uint32_t clock_type;           /* ETL_CLOCK_QPC, _SYSTEMTIME, _CPUCYCLE */
	int64_t  perf_freq;            /* QPC frequency (Hz)                    */
	uint32_t cpu_speed_mhz;        /* CpuSpeedInMHz; the clock's rate for
	                                  ETL_CLOCK_CPUCYCLE. Never leave it 0:
	                                  readers divide by it                   */
	int64_t  start_time;           /* FILETIME of start_timestamp           */
	int64_t  start_timestamp;      /* raw clock value at start (the header
	                                  record's timestamp, the UTC anchor)    */
	int64_t  boot_time;            /* FILETIME                              */
	uint32_t timer_resolution;     /* 100 ns units; default 156250          */
	struct etl_time_zone time_zone;
	const char *logger_name;       /* UTF-8; default "libetl"              */
	const char *log_file_name;     /* UTF-8; default: the output path      */
	uint32_t log_file_mode;        /* ETL_MODE_* and any other bits, kept  */
	uint32_t maximum_file_size_mb; /* CIRCULAR / NEWFILE limit, MB (KB when
	                                  log_file_mode has USE_KBYTES_FOR_SIZE,
	                                  0x2000, as in Windows)                 */
	const char *newfile_pattern;   /* NEWFILE: printf pattern with one %d,
	                                  e.g. "trace_%03d.etl"                  */
	uint8_t  version[4];           /* Windows major, minor; the layout
	                                  version (2, 3) is set by the writer
	                                  when left 0                            */
	uint32_t build;                /* Windows build (ProviderVersion)       */
	uint64_t logger_name_field;    /* LoggerName / LogFileName fields of the
	                                  logfile header: on 6.1+ the clock and  */
	uint64_t log_file_name_field;  /* performance-counter timer sources     */
	uint32_t header_pid;           /* ids in the logfile-header record      */
	uint32_t header_tid;
	uint16_t logger_id;            /* ClientContext.LoggerId of buffers     */
	int      relogger_style;       /* header buffer flags 0x01 not 0x21     */
	int      bare_header;          /* 1: no default PartitionInfoExtension
	                                  record (re-encoding a file that had
	                                  none; see write_header_event)          */
	int64_t  end_time;             /* FILETIME for EndTime; 0: the last
	                                  event's time                           */
};

/*! etl_writer_options_init() : fills o with defaults: 64 KiB buffers,
 *  64-bit, 1 processor, QPC at 10 MHz, start now, version 10.0 build
 *  19041, sequential mode; the fields Windows takes from its machine from
 *  this one: CPU speed (/proc/cpuinfo, else cpufreq, else 1000 MHz) and
 *  boot time (/proc/stat, else CLOCK_BOOTTIME), and a timer resolution of
 *  156250 (15.625 ms, the usual Windows clock-interrupt period). */
ETL_API void etl_writer_options_init(struct etl_writer_options *o);

/*! etl_writer_options_from_logfile() : options that reproduce an existing
 *  file's logfile header (clock, anchor, time zone, names, mode, version,
 *  buffer size, timer sources, end time), for re-encoding events read from
 *  it. The NEWFILE bit is left out: it needs a file-name pattern the
 *  header does not hold (set newfile_pattern and the bit to rotate). */
ETL_API void etl_writer_options_from_logfile(struct etl_writer_options *o, const struct etl_logfile *lf);

/*! etl_writer_new() : @return : a writer, or NULL on out-of-memory. */
ETL_API etl_writer *etl_writer_new(void);

/*! etl_writer_free() : frees the writer. If it is still open (close was not
 *  called or failed), the output is abandoned: a temporary file is removed
 *  and a target path left as it was. NULL is allowed. */
ETL_API void etl_writer_free(etl_writer *w);

/*! etl_writer_open_file() : writes to path through a temporary file beside
 *  it (renamed on a successful close). ".gz" / ".lz4" compress the output.
 *  The options are copied. @return : ETL_OK, ETL_FAILED (bad option:
 *  ETL_E_BAD_VALUE) or ETL_FATAL (cannot create: ETL_E_IO). */
ETL_API int etl_writer_open_file(etl_writer *w, const char *path, const struct etl_writer_options *o);

/*! etl_writer_open_fd() : writes to a seekable descriptor from offset 0
 *  (not closed by the writer). Same return values. */
ETL_API int etl_writer_open_fd(etl_writer *w, int fd, const struct etl_writer_options *o);

/*! etl_writer_open_sink() : writes through a callback. Same returns. */
ETL_API int etl_writer_open_sink(etl_writer *w, etl_sink_write_fn fn, void *ctx,
                         const struct etl_writer_options *o);

/*! etl_writer_write_event() : appends ev to the buffer of processor
 *  ev->processor, encoded with the header type ev->kind names. Reads the
 *  fields the reader fills (see etl_event.h); ev->record, offsets and utc
 *  are ignored.
 *  @return : ETL_OK; ETL_FAILED when this event cannot be written (too
 *  large for a buffer or for the 0xFFFF record size limit, processor out of
 *  range, inconsistent fields: ETL_E_BAD_VALUE) — nothing is truncated and
 *  the writer stays usable; ETL_FATAL when the output failed (ETL_E_IO). */
ETL_API int etl_writer_write_event(etl_writer *w, const struct etl_event *ev);

/*! etl_writer_write_header_event() : adds a record to the header buffer
 *  after the logfile header, in place of the writer's default
 *  PartitionInfoExtension record (the first call drops it). Use it to carry
 *  a source file's EventTrace records (Extension, PartitionInfoExtension,
 *  ...) into a re-encoded file. Only before the first data buffer is
 *  written. @return : ETL_OK; ETL_FAILED when the record does not fit the
 *  header buffer, cannot be encoded, or data was already written. */
ETL_API int etl_writer_write_header_event(etl_writer *w, const struct etl_event *ev);

/*! etl_writer_write_raw_buffer() : raw mode: appends one buffer exactly as
 *  given (header bytes, stale padding, compressed payload). The first call
 *  switches the writer to raw mode, in which it writes no header buffer of
 *  its own and patches nothing: copy every buffer of a file, header buffer
 *  first, to reproduce it byte for byte. Events cannot be mixed in.
 *  @return : ETL_OK, ETL_FAILED (misuse), ETL_FATAL (I/O). */
ETL_API int etl_writer_write_raw_buffer(etl_writer *w, const uint8_t *data, size_t n);

/*! etl_writer_add_lost() : counts events or buffers lost before they
 *  reached the writer, recorded in the header on close. */
ETL_API void etl_writer_add_lost(etl_writer *w, uint32_t events, uint32_t buffers);

/*! etl_writer_close() : flushes every buffer (the last written gets the
 *  flush-marker flag), finalises the header, and for a path renames the
 *  temporary file over the target. A writer produces one output: free it
 *  after close (it cannot be opened again).
 *  @return : ETL_OK; ETL_FAILED for fd and sink outputs when a write
 *  failed but the file was still finalised (the losses are counted in
 *  BuffersLost); ETL_FATAL with the output abandoned as described for
 *  etl_writer_free(). */
ETL_API int etl_writer_close(etl_writer *w);

/* Figures of a writer. */
struct etl_writer_stats {
	uint64_t events_written;
	uint64_t events_rejected;      /* ETL_FAILED from write_event          */
	uint64_t buffers_written;      /* trace buffers, header buffer included */
	uint64_t bytes_written;        /* bytes sent to the output             */
	uint64_t files_written;        /* NEWFILE rotations + 1                */
};

/*! etl_writer_stats() : copies the running figures into *st. */
ETL_API void etl_writer_stats(const etl_writer *w, struct etl_writer_stats *st);

/*! etl_writer_errcode(), etl_writer_errmsg() : reason and sentence of the
 *  last failure; owned by the writer. */
ETL_API int etl_writer_errcode(const etl_writer *w);
ETL_API const char *etl_writer_errmsg(const etl_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* ETL_WRITER_H */
