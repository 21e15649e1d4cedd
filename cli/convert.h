/*
 * convert.h - the parts of etlconvert: its options (etlconvert.c), the
 * inputs of a conversion merged in time order (convert_input.c), and the
 * two ways out: a new .etl file (convert_etl.c) or rendered text
 * (convert_render.c; with -j N on several threads, convert_parallel.c).
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
	int jobs;                  /* -j: threads that decode and render     */
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

/* What convert_next() says on the way: the progress, and each problem an
 * input reports (repeat: cli_report_open() said it already; only the
 * progress line is to be wiped). convert_open_inputs() sets the one that
 * prints at once (convert_say_now); a parallel conversion puts in its own,
 * which keeps them in order with the events it writes. */
struct convert_say {
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void (*problem)(void *ctx, const struct convert_input *in, uint64_t off, const char *kind,
	                const char *msg, int repeat);
};
extern const struct convert_say convert_say_now;   /* ctx: the convert_inputs */

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
	const struct convert_say *say;
	void *say_ctx;
	/* Rendering: called with the records the filters leave out when they
	 * carry schemas (etl_decoder_schema_event()), for the decoder to learn
	 * them all the same; NULL: not called. */
	void (*learn)(void *ctx, const struct etl_event *ev);
	void *learn_ctx;
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

/* ---- what a trace of the merged inputs needs (convert_etl.c) ------------- */

/* From a walk over an input's buffer headers. */
struct buffer_scan {
	int max_proc;              /* highest processor of any buffer, -1    */
	uint32_t max_size;         /* largest logger buffer a buffer shows   */
	int hdr_known;             /* the header buffer was seen             */
	uint16_t hdr_flags, hdr_logger_id;
};

/*! convert_scan_buffers() : walks the buffer headers of input in with a
 *  reader of its own (damage is the main pass's to report). */
void convert_scan_buffers(const struct convert_input *in, struct buffer_scan *bs);

/* The figures of one trace of every input's events. */
struct convert_figures {
	const struct etl_logfile *clock; /* whose clock (etl_merge_clock_input),
	                              NULL when no input has a logfile header */
	uint32_t processors;       /* a buffer stream for every processor an
	                              event names: the largest of the inputs'
	                              NumberOfProcessors and highest processor
	                              + 1, 1..ETL_MAX_PROCESSORS              */
	uint32_t buffer_size;      /* the largest of the inputs' (a damaged
	                              first header: its buffers'), not yet
	                              made to fit a writer                   */
	uint32_t events_lost, buffers_lost; /* the inputs' sums              */
	int64_t end_time;          /* the latest EndTime                     */
};

/*! convert_figures() : fg for the inputs and their scans (one per
 *  input). */
void convert_figures(const struct convert_inputs *ins, const struct buffer_scan *scan,
                     struct convert_figures *fg);

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

/*! convert_load_decoding() : loads the --manifest, --tmf and --mof files
 *  of o into dec, in order. @return : CLI_EXIT_CLEAN; else the exit status,
 *  with *what the option that failed ("--manifest", "--tmf", "--mof") and
 *  etl_decoder_errmsg(dec) the reason (nothing is printed). */
int convert_load_decoding(etl_decoder *dec, const struct convert_options *o, const char **what);

/*! convert_render_some() : reads, decodes and renders up to max events of
 *  the merge (seen, when not NULL, looks at each first), as -j 1 does.
 *  @return : 1 when max events were rendered; 0 at the end of the inputs
 *  (the progress line wiped); -1 when the run failed (an input, memory or
 *  the output; said, except an output failure). */
int convert_render_some(struct convert_inputs *ins, etl_decoder *dec, etl_output *out, uint64_t max,
                        void (*seen)(void *ctx, const struct etl_event *ev), void *ctx);

/* ---- -j N (convert_parallel.c) --------------------------------------- */

struct par;

/*! convert_parallel_jobs() : the threads a conversion with o runs:
 *  o->jobs, or 1 when a --manifest, --tmf or --mof path is not a regular
 *  file or a directory (a pipe can be read once: every worker's decoder
 *  reads the files for itself). */
int convert_parallel_jobs(const struct convert_options *o);

/*! convert_parallel_new() : the threads of a -j conversion of ins (o->jobs
 *  workers): workers 1.. start and load their own decoders at once.
 *  @return : the run, or NULL when memory is short. */
struct par *convert_parallel_new(struct convert_inputs *ins, const struct convert_options *o);

/*! convert_parallel_run() : the whole document into out and f, as
 *  etl_output_begin(), then the events with convert_render_some() and
 *  etl_output_end() would make it, with dec (its manifests loaded) as
 *  worker 0's decoder. @return : 0, or -1 when the run failed (said,
 *  except an output failure: etl_outfile_errmsg(f), else the message
 *  put in why when there is one, else etl_output_errmsg(out)). */
int convert_parallel_run(struct par *p, etl_decoder *dec, etl_output *out, etl_outfile *f, char *why,
                         size_t why_len);

/*! convert_parallel_free() : stops and frees the run. NULL is allowed. */
void convert_parallel_free(struct par *p);

#endif /* CONVERT_H */
