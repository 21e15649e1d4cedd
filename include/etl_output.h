/*
 * etl_output.h - rendering events as XML, JSON, JSON lines, CSV or text.
 *
 * Basic outline:
 *
 *     static int sink(void *ctx, const void *p, size_t n)
 *     {
 *         return fwrite(p, 1, n, ctx) == n ? 0 : -1;
 *     }
 *     ...
 *     etl_output *o = etl_output_new("xml", sink, stdout);
 *     etl_output_begin(o, etl_reader_logfile(r));       // the header event
 *     while (etl_reader_next(r, &ev) ...) {
 *         const struct etl_decoded *dec = NULL;
 *         etl_decoder_decode(d, ev, &dec);              // optional
 *         if (etl_output_event(o, ev, dec) == ETL_FATAL) break;
 *     }
 *     etl_output_end(o);                                // closes the document
 *     etl_output_free(o);
 *
 * Formats (the exact shapes are in etlconvert(1)):
 *   "xml"   an <Events> root holding one Windows event XML <Event> per
 *           event (the EvtRender / tracerpt schema), escaped as libxml2's
 *           writer escapes;
 *   "json"  one document {"Header": {...}, "Events": [ {...}, ... ]};
 *   "jsonl" one object per line, the header first;
 *   "csv"   RFC 4180, a header row, then one row per event;
 *   "text"  one line per event, etldump's columns and name=value pairs.
 *
 * The header event. etl_output_begin() takes the logfile header; it is
 * written first, as the tracerpt header event (provider EventTrace
 * {68fdd900-4a3e-11d1-84f4-0000f80464e3}, opcode 0) whose EventData are the
 * TRACE_LOGFILE_HEADER fields by their MOF names. It is written just before
 * the first event (or by etl_output_end() when there is none): when that
 * first event IS the logfile-header record (the EventTrace Header record at
 * lf->file_offset with timestamp lf->header_timestamp), its System fields
 * (process, thread, processor, time) are used and the record is not written
 * again; otherwise the header event is made from lf alone. Later records
 * that match lf are skipped for the same reason; any other EventTrace
 * Header record (another merged input's) is written as an event with the
 * same EventData.
 *
 * Every event is written: an event whose decoding failed (dec->status !=
 * ETL_OK) or that was not decoded (dec == NULL) is rendered with its raw
 * payload in hex and the reason (ProcessingErrorData).
 *
 * Memory is constant: each event is formatted into a buffer that is passed
 * to the sink and reused; nothing of earlier events is kept.
 */
#ifndef ETL_OUTPUT_H
#define ETL_OUTPUT_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"
#include "etl_util.h"
#include "etl_event.h"
#include "etl_reader.h"
#include "etl_decode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_output etl_output;

/* The sink is an etl_output_write_fn (etl_util.h): it receives the output
 * bytes in order and returns 0 when all were written; on anything else the
 * output fails with ETL_E_IO and writes nothing more. */

/*! etl_output_format_known() : @return : 1 if format is one of "xml",
 *  "json", "jsonl", "csv", "text" (exact, lower case), else 0. */
ETL_API int etl_output_format_known(const char *format);

/*! etl_output_new() : an output handle rendering events in format through
 *  write(ctx, ...). Nothing is written before etl_output_begin().
 *  @return : the handle, or NULL when format is unknown (see
 *  etl_output_format_known()), write is NULL, or memory is short.
 *  Free it with etl_output_free(). */
ETL_API etl_output *etl_output_new(const char *format, etl_output_write_fn write, void *ctx);

/*! etl_output_begin() : starts the document. lf is the logfile header of
 *  the (first) input, or NULL / lf->present == 0 when there is none (JSON
 *  then has "Header": null and the jsonl first line is null; the other
 *  formats write no header event). lf is copied: it need not outlive the
 *  call. Call once, before any etl_output_event().
 *  @return : ETL_OK; ETL_FAILED (ETL_E_MISUSE) when called twice or after
 *  a fatal error; ETL_FATAL when the sink failed or memory is short. */
ETL_API int etl_output_begin(etl_output *o, const struct etl_logfile *lf);

/*! etl_output_event() : writes one event. dec is ev's decoding result from
 *  etl_decoder_decode() (properties, names, message), or NULL when the
 *  event was not decoded. ev and dec are only read during the call.
 *  @return : ETL_OK (also when the event was skipped as the logfile-header
 *  record already written as the header event); ETL_FAILED (ETL_E_MISUSE)
 *  before etl_output_begin(), after etl_output_end() or for a NULL ev;
 *  ETL_FATAL when the sink failed or memory is short (only
 *  etl_output_free() is useful then). */
ETL_API int etl_output_event(etl_output *o, const struct etl_event *ev, const struct etl_decoded *dec);

/*! etl_output_end() : writes the end of the document (and the header
 *  event if no event came) and passes everything left to the sink.
 *  @return : ETL_OK; ETL_FAILED (ETL_E_MISUSE) before etl_output_begin()
 *  or when called twice; ETL_FATAL on a sink failure. */
ETL_API int etl_output_end(etl_output *o);

/*! etl_output_free() : frees the handle (without ending the document if
 *  etl_output_end() was not called). NULL is allowed. */
ETL_API void etl_output_free(etl_output *o);

/*! etl_output_errcode() : reason of the last failure (enum etl_errcode),
 *  ETL_E_NONE if none. */
ETL_API int etl_output_errcode(const etl_output *o);

/*! etl_output_errmsg() : English sentence describing the last failure, ""
 *  if none. Owned by the handle. */
ETL_API const char *etl_output_errmsg(const etl_output *o);

/* etl_output_set_flags(), format "text": the line of the record as read, etldump's
 * listing. Only the columns (time, processor, process and thread, header
 * type, provider[/record], id or opcode and hook, level, keywords, payload
 * size), no name=value properties; the provider as the record itself names
 * it (the reader's name for it, "component:N" for a WPP message, else the
 * GUID; never a decoder's or a table's name), at most 160 bytes of it with
 * control characters written as '?'. To have every record on its own line
 * (the logfile-header record too), give etl_output_begin() no logfile
 * header (NULL): no header event is then made. */
#define ETL_OUTPUT_TEXT_RECORD 0x1u

/* etl_output_set_flags(), formats "json" and "jsonl": every event but the
 * header event says which decoder source decoded its payload, as the
 * member "DecodingSource" after its EventData (or ProcessingErrorData):
 * etl_decode_source_name() of its source ("manifest", "MOF", "WPP",
 * "TraceLogging", "EventMetadata"), or "none" when it was not decoded. */
#define ETL_OUTPUT_EXPLAIN 0x2u

/* etl_output_set_flags(), every format: the handle writes events only,
 * each as an ordinary handle writes it once the document's header event
 * and first event are written: the same bytes, passed to the sink in the
 * same calls (one per event). It is for rendering one document in several
 * threads: one ordinary handle writes the document's beginning (begin, the
 * header event, the first event) and its end, and handles with this flag,
 * one per thread, each with its own sink (and decoder), render the later
 * events; the caller puts their bytes in the events' order between.
 * With the flag, etl_output_begin() sets the format's document state up
 * (XML: the open <Events> element) but writes nothing, and the logfile
 * header it is given is not used; no header event is made; every
 * EventTrace Header record is written as an event (as another input's
 * header record is: the ordinary handle writes the one that matches its
 * logfile header as the header event, or skips it once, see
 * etl_output_is_header_record()); "json" events are each preceded by ",\n";
 * etl_output_end() writes nothing. Memory caches of the formats may differ
 * between handles; the bytes do not. */
#define ETL_OUTPUT_EVENTS_ONLY 0x4u

/*! etl_output_set_flags() : rendering options (0, ETL_OUTPUT_TEXT_RECORD
 *  for a "text" output, ETL_OUTPUT_EXPLAIN for "json" and "jsonl",
 *  ETL_OUTPUT_EVENTS_ONLY for every format, or'ed); call before
 *  etl_output_begin(). The handle keeps them until it is freed.
 *  @return : ETL_OK; ETL_FAILED (ETL_E_MISUSE) when etl_output_begin() was
 *  called or a flag does not go with the format. */
ETL_API int etl_output_set_flags(etl_output *o, unsigned flags);

/*! etl_output_is_header_record() : 1 when ev is the logfile-header record
 *  that lf describes (the EventTrace Header record at lf->file_offset with
 *  timestamp lf->header_timestamp), else 0 (also for NULL, or lf->present
 *  0). A handle begun with lf makes the header event from that record when
 *  it is the first event, and otherwise skips the first such record that
 *  comes: a program that renders a document with ETL_OUTPUT_EVENTS_ONLY
 *  handles leaves that one out of what they render. Reads ev and lf only
 *  during the call; thread-safe. */
ETL_API int etl_output_is_header_record(const struct etl_logfile *lf, const struct etl_event *ev);

#ifdef __cplusplus
}
#endif
#endif /* ETL_OUTPUT_H */
