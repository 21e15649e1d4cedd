/*
 * convert.h - the parts of etlconvert: its options (etlconvert.c), the
 * inputs of a conversion merged in time order (convert_input.c), and the
 * two ways out: a new .etl file (convert_etl.c) or rendered text
 * (convert_render.c).
 */
#ifndef CONVERT_H
#define CONVERT_H

#include <stdint.h>
#include "cli_common.h"
#include "etl.h"

/* What the command line asked for. */
struct convert_options {
	const char *format;        /* "etl", "xml", "json", "jsonl", "csv", "text" */
	const char *output;
	int compress;              /* -1 as the input, 0 off, 1 on           */
	int raw;
	int allow_twice;           /* --allow-same-input                     */
	int explain;               /* --explain                              */
	uint64_t split_size;       /* bytes, 0 = no size split               */
	int64_t split_time;        /* 100 ns units, 0 = no time split        */
	int progress_ok;           /* stderr is a terminal and no -q         */
	const char **manifests;    /* every --manifest PATH, in order        */
	int n_manifests;
	const char **tmfs;         /* every --tmf PATH, in order             */
	int n_tmfs;
	const char **mofs;         /* every --mof PATH, in order             */
	int n_mofs;
	struct cli_filter filter;
};

/* ---- inputs (convert_input.c) -------------------------------------------- */

struct convert_input {
	const char *path;
	const char *name;          /* as messages name it                    */
	int fd;                    /* spooled standard input, else -1        */
	etl_reader *r;             /* in time order                          */
	const struct etl_logfile *lf;
	struct cli_filter filter;  /* shallow copy: per-input time bounds    */
	struct cli_open_notes notes; /* what opening it found                */
	int rc;                    /* exit status earned by this input       */
};

/* Every input of a conversion, opened, merged by time (etl_merge) and
 * filtered. */
struct convert_inputs {
	struct convert_input *v;
	int n;
	int header_buffer;         /* header-buffer records take part        */
	etl_merge *m;
	uint64_t records;          /* records read from every input, filtered
	                              out or not (header buffers' too)        */
	struct cli_progress pg;
	unsigned tick;
	/* Rendering: the decoder that also sees the records the filters
	 * leave out when they carry schemas (etl_decoder_schema_event()). */
	etl_decoder *learn;
};

/*! convert_open_inputs() : opens every path in time order (standard input
 *  at most once; with spool it is first copied to a temporary, so that it
 *  can be read again with convert_reopen()), and merges them: with
 *  header_buffer 0 the records of the header buffers are left out (-f etl
 *  copies them apart), else ETL_MERGE_HEADER_FIRST (rendering).
 *  @return : CLI_EXIT_CLEAN, or the status to stop with (reported; the
 *  inputs are then freed). */
int convert_open_inputs(struct convert_inputs *ins, char **paths, int n,
                        const struct convert_options *o, int spool, int header_buffer);

/*! convert_reopen() : another reader of input in, in order (file order
 *  for a second look at it). NULL when it cannot be opened (reported).
 *  What opening it found was reported the first time: nothing is said. */
etl_reader *convert_reopen(const struct convert_input *in, int order);

/*! convert_next() : the next event of the merge that passes the filter;
 *  damage and warnings are reported on the way and counted into the
 *  inputs' exit statuses; the progress display is kept up.
 *  @return : 1 with *ev and *in, 0 at the end, -1 when an input cannot be
 *  read on (reported; its status is CLI_EXIT_IO). */
int convert_next(struct convert_inputs *ins, const struct etl_event **ev, struct convert_input **in);

/*! convert_status() : the worst exit status of the inputs. */
int convert_status(const struct convert_inputs *ins);

/*! convert_nothing_read() : when no record at all could be read from the
 *  inputs, says so ("PROG: OUTPUT: left as it was: no event could be read
 *  from the input"; NULL or "-": standard output) and @return : 1 (the output is not to be made and the
 *  run ends with at least CLI_EXIT_DAMAGE); else 0. */
int convert_nothing_read(const struct convert_inputs *ins, const char *output);

void convert_free_inputs(struct convert_inputs *ins);

/* ---- numbered output files (convert_parts.c) ---------------------------- */

/* The parts of a --split-size / --split-time run, written into a private
 * directory beside the output and moved into place when the run is done. */
struct convert_parts {
	const char *output;        /* OUT: the pattern                       */
	char *dir;                 /* the private directory                  */
};

/*! convert_part_name() : part index of out: OUT.etl -> OUT_003.etl (the
 *  number goes before the last extension, not counting .gz or .lz4).
 *  Caller frees; NULL when memory is short. */
char *convert_part_name(const char *out, unsigned index);

/*! convert_parts_begin() : refuses an existing part of output's pattern
 *  that is one of the n inputs, and an output that is not a regular file;
 *  creates the private directory. @return : CLI_EXIT_CLEAN, or the exit
 *  status (reported). */
int convert_parts_begin(struct convert_parts *p, const char *output, char **inputs, int n);

/*! convert_parts_path() : where part index is written until the commit.
 *  Caller frees; NULL when memory is short. */
char *convert_parts_path(const struct convert_parts *p, unsigned index);

/*! convert_parts_commit() : moves the made parts (0 .. made-1) into
 *  place, removes the parts of the pattern past them that an earlier run
 *  left, and the private directory. @return : 0, or -1 (reported). */
int convert_parts_commit(struct convert_parts *p, unsigned made);

/*! convert_parts_abandon() : removes the made parts and the private
 *  directory; the files of the pattern stay as they were. */
void convert_parts_abandon(struct convert_parts *p, unsigned made);

/* ---- the conversions --------------------------------------------------- */

/*! convert_etl() : -f etl, re-encoding the events of paths into o->output
 *  (convert_etl.c). @return : the exit status. */
int convert_etl(const struct convert_options *o, char **paths, int n);

/*! convert_raw() : -f etl --raw, the buffers of path copied byte for byte
 *  (convert_etl.c). @return : the exit status. */
int convert_raw(const struct convert_options *o, const char *path);

/*! convert_render() : -f xml|json|jsonl|csv|text (convert_render.c).
 *  @return : the exit status. */
int convert_render(const struct convert_options *o, char **paths, int n);

#endif /* CONVERT_H */
