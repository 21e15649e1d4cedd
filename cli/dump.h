/*
 * dump.h - the parts of etldump: the command line and the event and buffer
 * walks (etldump.c), the per-file summary and census (dump_summary.c), and
 * the logfile header, header-buffer records, buffer lines and hex dumps
 * (dump_header.c).
 */
#ifndef DUMP_H
#define DUMP_H

#include <stdint.h>
#include "cli_common.h"
#include "etl.h"

/* ---- summary and census (dump_summary.c) --------------------------------- */

/* What --summary counts over one file; zeroed by the caller. */
struct dump_summary;

/*! dump_summary_new() : an empty summary, or NULL when memory is short. */
struct dump_summary *dump_summary_new(void);
void dump_summary_free(struct dump_summary *s);

/*! dump_summary_record() : counts a record read (matching or not), with the
 *  loss flags of its buffer when it is the buffer's first record. */
void dump_summary_record(struct dump_summary *s, const struct etl_event *ev,
                         const struct etl_buffer_info *bi);

/*! dump_summary_add() : counts a matching event in the census. */
void dump_summary_add(struct dump_summary *s, const struct etl_event *ev);

/*! dump_summary_count() : counts a matching event (without --summary). */
void dump_summary_count(struct dump_summary *s);

/*! dump_summary_matched() : matching events so far. */
uint64_t dump_summary_matched(const struct dump_summary *s);

/*! dump_summary_problem() : keeps a reader error (warning 0) or warning
 *  (warning 1) for the summary. */
void dump_summary_problem(struct dump_summary *s, int warning, uint64_t off, const char *msg);

/*! dump_summary_oom() : 1 when memory ran short and the summary is
 *  incomplete. */
int dump_summary_oom(const struct dump_summary *s);

/*! dump_summary_text() / dump_summary_json() : --summary and --summary
 *  --json for the file name read by r (filtered: f->active). */
void dump_summary_text(const char *name, etl_reader *r, const struct dump_summary *s,
                       const struct cli_filter *f);
void dump_summary_json(const char *name, etl_reader *r, const struct dump_summary *s,
                       const struct cli_filter *f);

/* ---- header, buffers, hex (dump_header.c) ------------------------------- */

/*! dump_logfile_header() : --header: every field of the logfile header. */
void dump_logfile_header(const struct etl_logfile *lf);

/*! dump_header_records() : the EventTrace records that follow the logfile
 *  header in the header buffer, read with a reader of their own (not for
 *  standard input, which cannot be read twice). */
void dump_header_records(const char *path);

/*! dump_buffer_line() : --buffers: one line for a buffer. */
void dump_buffer_line(const struct etl_buffer_info *bi);

/*! dump_hex() : --hex: size bytes at data, 16 a line with their offset,
 *  hex and ASCII. */
void dump_hex(const uint8_t *data, uint32_t size);

#endif /* DUMP_H */
