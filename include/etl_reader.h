/*
 * etl_reader.h - reading .etl files: the buffer walk, the logfile header,
 * events in time order or file order, and the error model.
 *
 * Basic outline:
 *
 *     etl_reader *r = etl_reader_new();
 *     if (etl_reader_open_file(r, "trace.etl") != ETL_OK) { report; }
 *     const struct etl_event *ev;
 *     int st;
 *     while ((st = etl_reader_next(r, &ev)) != ETL_END) {
 *         if (st == ETL_FATAL) break;                    // I/O error
 *         if (st != ETL_OK) { report etl_reader_errmsg(r); continue; }
 *         use(ev);                                       // borrowed
 *     }
 *     etl_reader_free(r);
 *
 * Damage never stops the walk: a bad record abandons the rest of its buffer,
 * a bad buffer header skips that buffer, and etl_reader_next() returns
 * ETL_FAILED once per such loss with the reason, a message and the absolute
 * file offset available from etl_reader_errcode()/errmsg()/erroff().
 *
 * Memory is bounded by the buffers in flight (one per processor in time
 * order, one in file order) plus a 24-byte index entry per buffer in time
 * order; regular files are mapped, not read into memory.
 */
#ifndef ETL_READER_H
#define ETL_READER_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"
#include "etl_event.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_reader etl_reader;

/* TIME_ZONE_INFORMATION as stored in the logfile header. */
struct etl_systemtime {
	uint16_t year, month, day_of_week, day, hour, minute, second, milliseconds;
};
struct etl_time_zone {
	int32_t  bias;                    /* minutes, UTC = local + bias        */
	char     standard_name[97];      /* UTF-8 of WCHAR[32], NUL terminated  */
	struct etl_systemtime standard_date;
	int32_t  standard_bias;
	char     daylight_name[97];
	struct etl_systemtime daylight_date;
	int32_t  daylight_bias;
};

/* TRACE_LOGFILE_HEADER (32- or 64-bit form) and the strings after it. */
struct etl_logfile {
	int      present;                /* 1 once a logfile header was decoded */
	uint8_t  header_ptr_size;        /* 4 or 8: which form was on disk      */
	uint32_t buffer_size;            /* bytes                               */
	uint8_t  version[4];             /* major, minor, sub, subminor         */
	uint32_t provider_version;       /* Windows build number                */
	uint32_t number_of_processors;
	int64_t  end_time;               /* FILETIME                            */
	uint32_t timer_resolution;       /* 100 ns units                        */
	uint32_t maximum_file_size;      /* MB                                  */
	uint32_t log_file_mode;
	uint32_t buffers_written;
	uint32_t start_buffers;
	struct etl_guid log_instance_guid; /* same bytes as start_buffers..     */
	uint32_t pointer_size;           /* bytes, as stored                    */
	uint32_t events_lost;
	uint32_t cpu_speed_mhz;
	uint64_t logger_name_field;      /* 6.1+: clock-interrupt timer source  */
	uint64_t log_file_name_field;    /* 6.1+: performance-counter source    */
	struct etl_time_zone time_zone;
	int64_t  boot_time;              /* FILETIME                            */
	int64_t  perf_freq;              /* clock frequency (QPC)               */
	int64_t  start_time;             /* FILETIME                            */
	uint32_t reserved_flags;         /* = clock type                        */
	uint32_t buffers_lost;
	char    *logger_name;            /* UTF-8, owned by the reader          */
	char    *log_file_name;          /* UTF-8, owned by the reader          */
	int64_t  header_timestamp;       /* T0: the header record's timestamp   */
	uint64_t file_offset;            /* where the header record is          */
};

/* Clock types (TRACE_LOGFILE_HEADER.ReservedFlags). */
#define ETL_CLOCK_RAW        0
#define ETL_CLOCK_QPC        1
#define ETL_CLOCK_SYSTEMTIME 2
#define ETL_CLOCK_CPUCYCLE   3

/* One buffer as the walk found it. */
struct etl_buffer_info {
	uint64_t file_offset;      /* absolute offset of the buffer header      */
	uint32_t buffer_size;      /* BufferSize: bytes stored in the file      */
	uint32_t saved_offset;     /* SavedOffset                               */
	uint32_t current_offset;   /* CurrentOffset                             */
	int32_t  reference_count;
	int64_t  timestamp;        /* flush time stamp                          */
	int64_t  sequence;         /* SequenceNumber                            */
	uint64_t union_20;         /* bytes 0x20-0x27, kept as stored           */
	uint16_t processor;        /* ProcessorIndex or ProcessorNumber         */
	uint16_t logger_id;
	uint32_t state;
	uint32_t offset;           /* Offset (0x30)                             */
	uint16_t flags;            /* BufferFlag                                */
	uint16_t type;             /* BufferType                                */
	uint32_t data_end;         /* valid end of records used by the walk     */
	uint32_t inflated_size;    /* bytes of records after inflation (0 if
	                              not compressed)                           */
	uint32_t available;        /* bytes present in the file (< buffer_size
	                              for a truncated last buffer)              */
	uint8_t  compressed;       /* BufferFlag & 0x40                         */
	const uint8_t *header;     /* the 0x48 header bytes, borrowed           */
	const uint8_t *stored;     /* the buffer as stored in the file
	                              (`available` bytes: compressed payload,
	                              stale padding and fill as they are), for
	                              byte-exact copies; borrowed               */
};

/* Buffer flags and types. */
#define ETL_BUF_FLAG_FLUSH_MARKER  0x0001u
#define ETL_BUF_FLAG_EVENTS_LOST   0x0002u
#define ETL_BUF_FLAG_BUFFER_LOST   0x0004u
#define ETL_BUF_FLAG_PROC_INDEX    0x0020u
#define ETL_BUF_FLAG_COMPRESSED    0x0040u
#define ETL_BUFFER_HEADER_SIZE     0x48u

/* Processor indices a buffer may carry: 0 .. ETL_MAX_PROCESSORS - 1, more
 * than any Windows machine has. The reader reports a buffer with a larger
 * index as damage and skips it; the writer accepts exactly the indices the
 * reader returns. An index at or past the logfile header's processor count
 * is not damage (processors can be added while a session runs). */
#define ETL_MAX_PROCESSORS         4096u

/* Reading order, set with etl_reader_set_order() before opening. */
#define ETL_ORDER_TIME 0   /* default: per-processor streams merged by time */
#define ETL_ORDER_FILE 1   /* records as they are stored                    */

/*! etl_reader_new() : allocates a reader. @return : NULL on out-of-memory.
 *  Free it with etl_reader_free(). */
ETL_API etl_reader *etl_reader_new(void);

/*! etl_reader_free() : closes the input and frees everything the reader
 *  owns, including every borrowed pointer it handed out. NULL is allowed. */
ETL_API void etl_reader_free(etl_reader *r);

/*! etl_reader_set_order() : ETL_ORDER_TIME or ETL_ORDER_FILE; call before
 *  opening. @return : ETL_OK, or ETL_FAILED (ETL_E_MISUSE) once opened or
 *  for an unknown value. */
ETL_API int etl_reader_set_order(etl_reader *r, int order);

/* The most bytes of inflated buffers a time-order reader holds at once
 * unless etl_reader_set_order_memory() says otherwise: 1 GiB. */
#define ETL_ORDER_MEMORY_DEFAULT (1ull << 30)

/*! etl_reader_set_order_memory() : the most bytes the time-order merge may
 *  hold in inflated (compressed) buffers at once. Time order keeps one
 *  buffer per processor; uncompressed buffers are read where they lie, but
 *  compressed ones are inflated into memory, so a file with many processors
 *  and large buffers needs processors x buffer size (a 64-processor file
 *  of 16 MiB buffers: 1 GiB). A buffer that would take the total past the
 *  limit, once the buffers of finished streams are given back, is skipped
 *  and reported by etl_reader_next() as ETL_FAILED with ETL_E_LIMIT at its
 *  offset; the other processors' events are still read. File order holds
 *  one buffer and ignores the limit. Call before opening.
 *  @return : ETL_OK, or ETL_FAILED (ETL_E_MISUSE) once opened or for 0. */
ETL_API int etl_reader_set_order_memory(etl_reader *r, uint64_t bytes);

/*! etl_reader_open_file() : opens path ("-" means standard input). Input
 *  compressed as gzip or an LZ4 frame is recognised by its magic bytes and
 *  inflated as a stream. Regular uncompressed files are memory-mapped; other
 *  inputs are streamed (file order) or spooled to an unlinked temporary file
 *  (time order needs to revisit buffers).
 *  Reads the logfile header at once.
 *  @return : ETL_OK; ETL_WARN when the file opened but its logfile header is
 *  missing or damaged (events are still read, times are not converted);
 *  ETL_FATAL when the input cannot be opened or read (ETL_E_IO) or is empty. */
ETL_API int etl_reader_open_file(etl_reader *r, const char *path);

/*! etl_reader_open_fd() : like etl_reader_open_file() on an open descriptor;
 *  the reader does not close fd. */
ETL_API int etl_reader_open_fd(etl_reader *r, int fd);

/*! etl_reader_open_memory() : reads size bytes at data, which the caller
 *  keeps valid and unchanged until etl_reader_free(). No copy is made unless
 *  the bytes are gzip or LZ4 compressed. Same return values. */
ETL_API int etl_reader_open_memory(etl_reader *r, const void *data, size_t size);

/*! etl_reader_logfile() : the decoded logfile header (->present == 0 if the
 *  file had none). Owned by the reader, valid until etl_reader_free(). */
ETL_API const struct etl_logfile *etl_reader_logfile(const etl_reader *r);

/*! etl_reader_next() : the next event, in the order chosen at open time.
 *  @return : ETL_OK with *ev set (borrowed until the next call that advances
 *  the reader); ETL_FAILED when a record or buffer was lost to damage
 *  (*ev is NULL; call again to go on); ETL_END when nothing is left;
 *  ETL_FATAL on an I/O error (stop). */
ETL_API int etl_reader_next(etl_reader *r, const struct etl_event **ev);

/*! etl_reader_next_buffer() : walks buffers in file order without returning
 *  events; compressed buffers are inflated to verify them. Do not mix with
 *  etl_reader_next() on the same reader.
 *  @return : ETL_OK with *bi set (borrowed until the next call); ETL_FAILED
 *  when a buffer is damaged (*bi is still set if its header was readable,
 *  else NULL); ETL_END; ETL_FATAL. */
ETL_API int etl_reader_next_buffer(etl_reader *r, const struct etl_buffer_info **bi);

/*! etl_reader_current_buffer() : the buffer the last returned event came
 *  from, or NULL. Borrowed like the event. */
ETL_API const struct etl_buffer_info *etl_reader_current_buffer(const etl_reader *r);

/* Running totals kept by the reader. */
struct etl_reader_stats {
	uint64_t buffers;            /* buffer headers seen                     */
	uint64_t compressed_buffers; /* of which compressed                     */
	uint64_t records;            /* records returned as events              */
	uint64_t bad_buffers;        /* buffers skipped or cut short by damage,
	                                or skipped at the time-order memory
	                                limit (etl_reader_set_order_memory())  */
	uint64_t errors;             /* ETL_FAILED results                      */
	uint64_t bytes_in;           /* bytes of input walked so far            */
	uint64_t input_size;         /* total input size if known, else 0       */
	uint64_t order_memory_peak;  /* time order: the most bytes the
	                                processors' inflated buffers held at
	                                once, to set against the limit of
	                                etl_reader_set_order_memory(); 0 in file
	                                order, which holds one buffer           */
};

/*! etl_reader_stats() : copies the running totals into *st. */
ETL_API void etl_reader_stats(const etl_reader *r, struct etl_reader_stats *st);

/*! etl_reader_errcode() : reason of the last ETL_FAILED/ETL_WARN/ETL_FATAL
 *  (enum etl_errcode), ETL_E_NONE if none. */
ETL_API int etl_reader_errcode(const etl_reader *r);

/*! etl_reader_errmsg() : English sentence describing the last error, with
 *  key=value details; "" if none. Owned by the reader, valid until the next
 *  call on it. */
ETL_API const char *etl_reader_errmsg(const etl_reader *r);

/*! etl_reader_erroff() : absolute file offset the last error refers to. */
ETL_API uint64_t etl_reader_erroff(const etl_reader *r);

/*! etl_reader_time_to_utc() : converts a raw timestamp in the file's clock
 *  to FILETIME using the logfile-header anchor (StartTime at the header
 *  record's timestamp), in 128-bit arithmetic.
 *  @return : ETL_OK, or ETL_FAILED if the file has no usable anchor. */
ETL_API int etl_reader_time_to_utc(const etl_reader *r, int64_t raw, int64_t *filetime);

/* ---- EventTrace group records (HookId 0x00xx) ------------------------ */

/*! etl_eventtrace_name() : name of an EventTrace-group record by its
 *  opcode (HookId low byte): "Header", "Extension", "RundownComplete",
 *  "EndExtension", "DbgIdRSDS", "BuildInfo", "PartitionInfoExtension", ...
 *  @return : static string, or NULL for an opcode without a known name. */
ETL_API const char *etl_eventtrace_name(unsigned opcode);

/* ETW_KERNEL_HEADER_EXTENSION: payload of Extension (0x0005) and
 * EndExtension (0x0020). */
struct etl_header_extension {
	uint32_t group_mask[8];      /* PERFINFO_GROUPMASK: enabled kernel groups */
	uint32_t version;
};

/*! etl_eventtrace_extension() : decodes the payload of an Extension or
 *  EndExtension record. @return : ETL_OK, or ETL_FAILED if ev is another
 *  record or its payload is too short. */
ETL_API int etl_eventtrace_extension(const struct etl_event *ev, struct etl_header_extension *out);

/* Payload of PartitionInfoExtension (0x0050). */
struct etl_partition_info {
	uint16_t version;
	uint16_t reserved;
	uint32_t partition_type;
	int64_t  qpc_offset;         /* QPC offset from the root partition      */
	int      has_ids;            /* version 0 with both GUIDs present       */
	struct etl_guid partition_id;
	struct etl_guid parent_id;
};

/*! etl_eventtrace_partition() : decodes a PartitionInfoExtension record.
 *  @return : ETL_OK, or ETL_FAILED if ev is another record or too short. */
ETL_API int etl_eventtrace_partition(const struct etl_event *ev, struct etl_partition_info *out);

#ifdef __cplusplus
}
#endif
#endif /* ETL_READER_H */
