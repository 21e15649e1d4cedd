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
	uint64_t split_size;       /* bytes, 0 = no size split               */
	int64_t split_time;        /* 100 ns units, 0 = no time split        */
	int progress_ok;           /* stderr is a terminal and no -q         */
	const char **manifests;    /* every --manifest PATH, in order        */
	int n_manifests;
	const char **tmfs;         /* every --tmf PATH, in order             */
	int n_tmfs;
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
	int rc;                    /* exit status earned by this input       */
};

/* Every input of a conversion, opened, merged by time (etl_merge) and
 * filtered. */
struct convert_inputs {
	struct convert_input *v;
	int n;
	int header_buffer;         /* header-buffer records take part        */
	etl_merge *m;
	struct cli_progress pg;
	unsigned tick;
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
 *  for a second look at it). NULL when it cannot be opened (reported). */
etl_reader *convert_reopen(const struct convert_input *in, int order);

/*! convert_next() : the next event of the merge that passes the filter;
 *  damage and warnings are reported on the way and counted into the
 *  inputs' exit statuses; the progress display is kept up.
 *  @return : 1 with *ev and *in, 0 at the end, -1 when an input cannot be
 *  read on (reported; its status is CLI_EXIT_IO). */
int convert_next(struct convert_inputs *ins, const struct etl_event **ev, struct convert_input **in);

/*! convert_status() : the worst exit status of the inputs. */
int convert_status(const struct convert_inputs *ins);

void convert_free_inputs(struct convert_inputs *ins);

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
