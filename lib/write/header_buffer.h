/*
 * lib/write/header_buffer.h - the header buffer of a written .etl file
 * (lib/write/header_buffer.c): the first buffer, holding the logfile header
 * record and what follows it, rewritten with the file's figures at every
 * sync and at close.
 *
 * It knows the writer's options and nothing else of the writer: failures
 * come back as ETL_* codes with the reason in a struct etl_err, which the
 * writer makes its own error.
 */
#ifndef ETL_WRITE_HEADER_BUFFER_H
#define ETL_WRITE_HEADER_BUFFER_H

#ifndef ETL_BUILDING_LIB
#error "lib/write/header_buffer.h is internal to libetl"
#endif

#include <stdint.h>
#include "formats/hdr/hdr.h"
#include "etl_writer.h"

struct etl__hdrbuf {
	uint8_t *buf;
	uint32_t size;             /* bytes of buf, all written to the file   */
	uint32_t lh_offset;        /* TRACE_LOGFILE_HEADER within buf         */
	uint32_t extra;            /* where records after the logfile header
	                              start within buf                        */
	uint32_t end;              /* end of its records                      */
	int custom;                /* put_record replaced the default records */
	int compressed;            /* a compressed file's: 0x200 steps        */
	uint32_t buffer_size;      /* the file's buffer size: the largest     */
};

/* The figures every rewrite of the header buffer carries. */
struct etl__hdr_figures {
	int64_t last_ts;           /* the last event's timestamp: EndTime when
	                              the options give none                   */
	uint32_t buffers_written;  /* buffers in the file, this one included  */
	uint32_t start_buffers;    /* the buffer the oldest events are in (1;
	                              a wrapped circular file: its slot + 1)  */
	uint32_t events_lost, buffers_lost;
};

/*! etl__hdrbuf_build() : builds hb (again) for a file written with o:
 *  the logfile header record (names logger_name and log_file_name), then
 *  PartitionInfoExtension unless o->bare_header. @return : ETL_OK;
 *  ETL_FAILED when the records do not fit; ETL_FATAL out of memory. */
int etl__hdrbuf_build(struct etl__hdrbuf *hb, const struct etl_writer_options *o,
                      const char *logger_name, const char *log_file_name, int compressed,
                      struct etl_err *err);

/*! etl__hdrbuf_record_at() : where the next record of put_record goes
 *  (the first replaces the default records after the logfile header). */
uint32_t etl__hdrbuf_record_at(const struct etl__hdrbuf *hb);

/*! etl__hdrbuf_put_record() : adds the record rec (size bytes) at
 *  etl__hdrbuf_record_at(); the caller made sure that it fits the buffer
 *  size, 8-byte aligned. hb->size may grow. @return : ETL_OK, or
 *  ETL_FAILED out of memory (hb unchanged). */
int etl__hdrbuf_put_record(struct etl__hdrbuf *hb, const uint8_t *rec, size_t size,
                           struct etl_err *err);

/*! etl__hdrbuf_patch() : writes f (and EndTime) into the logfile header. */
void etl__hdrbuf_patch(struct etl__hdrbuf *hb, const struct etl_writer_options *o,
                       const struct etl__hdr_figures *f);

/*! etl__hdrbuf_set_clock() : the QPC rate and boot time of the logfile
 *  header. */
void etl__hdrbuf_set_clock(struct etl__hdrbuf *hb, uint32_t pointer_size, int64_t perf_freq,
                           int64_t boot_time);

void etl__hdrbuf_free(struct etl__hdrbuf *hb);

#endif /* ETL_WRITE_HEADER_BUFFER_H */
