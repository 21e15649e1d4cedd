/*
 * etldump.c - print the contents of Windows ETW .etl files: one line per
 * event (default), the logfile header (--header), the buffers (--buffers),
 * a summary (--summary, --summary --json) or a count (--count), with
 * filters shared with the other tools (cli_common.h).
 *
 * The event line is the text renderer's record line (etl_output "text"
 * with ETL_OUTPUT_TEXT_RECORD), the summary is dump_summary.c's, the
 * header, buffer and hex views are dump_header.c's.
 *
 * Exit status: 0 clean; 1 usage error (an input named twice too); 2 some
 * input had damage (each loss is reported on stderr and the rest is still
 * printed; --summary lists it as well), or is not an ETL file; 3 an input
 * could not be opened or read. With several inputs the highest status
 * wins.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dump.h"

#define PROG "etldump"

struct options {
	int header, buffers, summary, json, hex, count, file_order;
	int list_events;           /* print one line per matching event      */
	int progress_ok;           /* stderr is a terminal, the lines do not
	                              go to it, and no -q                     */
	struct cli_filter filter;
	struct cli_open_notes notes; /* what opening the current input found */
};

/* ---- messages --------------------------------------------------------- */

static void usage(void)
{
	printf("Usage: " PROG " [OPTION]... [FILE]...\n"
	       "Print the events of Windows ETW trace logs (.etl), one line per event:\n"
	       "time, processor, process and thread ids, trace header type, provider,\n"
	       "event id or opcode, level, keywords and payload size.\n"
	       "FILE may be '-' for standard input; with no FILE, standard input is read.\n"
	       "Inputs compressed with gzip or LZ4 are inflated transparently.\n"
	       "\n"
	       "Output:\n"
	       "  -H, --header          print the logfile header (all fields)\n"
	       "  -b, --buffers         print one line per buffer instead of events\n"
	       "  -s, --summary         print counts per header type, provider and event,\n"
	       "                        lost data, first/last event time and errors\n"
	       "  -j, --json            with --summary: print one JSON object per file\n"
	       "  -x, --hex             hex dump each event's payload after its line\n"
	       "  -c, --count           print only the number of matching events\n"
	       "  -F, --file-order      events in file order (default: time order; a gzip,\n"
	       "                        LZ4 or piped input is then copied to $TMPDIR first,\n"
	       "                        while file order reads it as it comes)\n"
	       "  -q, --quiet           no progress display on stderr (shown for inputs over\n"
	       "                        8 MiB when stderr is a terminal and the event lines\n"
	       "                        do not go to it)\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n");
	cli_limits_usage(stdout);
	printf("\n");
	cli_filter_usage(stdout);
	printf("\n"
	       "Exit status: 0 success, 1 usage error, 2 damaged input (each loss is\n"
	       "reported on stderr; a file shorter than its header says is damaged) or an\n"
	       "input that is not an ETL file, 3 input/output error.\n");
}

/* ---- one input -------------------------------------------------------- */

static int dump_buffers(const char *name, etl_reader *r, struct options *o)
{
	const struct etl_buffer_info *bi;
	int rc = CLI_EXIT_CLEAN, st;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		if (st == ETL_FATAL) {
			cli_reader_problem(name, "", r);
			return CLI_EXIT_IO;
		}
		if (bi)
			dump_buffer_line(bi);
		if (st == ETL_FAILED) {
			printf("  damaged: offset 0x%llx: ", (unsigned long long)etl_reader_erroff(r));
			cli_text_safe(stdout, etl_reader_errmsg(r));
			printf("\n");
			if (!cli_open_note_repeats(&o->notes, etl_reader_erroff(r), etl_reader_errmsg(r)))
				cli_reader_problem(name, "", r);
			rc = CLI_EXIT_DAMAGE;
		}
	}
	return rc;
}

/* Event lines go to standard output's (large) buffer; a write error shows
 * in ferror(stdout) at the end. */
static int to_stdout(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	fwrite(p, 1, n, stdout);
	return 0;
}

/* The record lines: the text renderer's, every record on its own line
 * (no logfile header given, so no header event is made). */
static etl_output *event_lines(const char *name)
{
	etl_output *out = etl_output_new("text", to_stdout, NULL);
	if (!out || etl_output_set_flags(out, ETL_OUTPUT_TEXT_RECORD) != ETL_OK ||
	    etl_output_begin(out, NULL) != ETL_OK) {
		cli_error(name, "out of memory");
		etl_output_free(out);
		return NULL;
	}
	return out;
}

static int dump_events(const char *name, etl_reader *r, struct options *o, struct dump_summary *s)
{
	const struct etl_event *ev;
	struct etl_reader_stats rs;
	struct cli_progress pg;
	etl_output *out = NULL;
	int rc = CLI_EXIT_CLEAN, st;
	unsigned tick = 0;
	etl_reader_stats(r, &rs);
	cli_progress_init(&pg, o->progress_ok && rs.input_size > CLI_PROGRESS_MIN_SIZE, name);
	if (o->list_events && !(out = event_lines(name)))
		return CLI_EXIT_IO;
	cli_filter_begin_file(&o->filter, etl_reader_logfile(r));
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (pg.on && (++tick & 0x3FFF) == 0) {
			etl_reader_stats(r, &rs);
			cli_progress_show(&pg, rs.bytes_in, rs.input_size);
		}
		if ((st == ETL_FATAL || st == ETL_FAILED || st == ETL_WARN) &&
		    !cli_open_note_repeats(&o->notes, etl_reader_erroff(r), etl_reader_errmsg(r))) {
			cli_progress_clear(&pg);
			cli_reader_problem(name, st == ETL_WARN ? "warning: " : "", r);
		}
		if (st == ETL_FATAL) {
			rc = CLI_EXIT_IO;
			break;
		}
		if (st == ETL_FAILED || st == ETL_WARN)
			dump_summary_problem(s, st == ETL_WARN, etl_reader_erroff(r), etl_reader_errmsg(r));
		if (st == ETL_FAILED) {
			rc = cli_worse(rc, CLI_EXIT_DAMAGE);
			continue;
		}
		/* The first record of a buffer brings the buffer's loss flags. */
		dump_summary_record(s, ev, o->summary && ev->offset_in_buffer == ETL_BUFFER_HEADER_SIZE
		                           ? etl_reader_current_buffer(r) : NULL);
		if (!cli_filter_match(&o->filter, ev))
			continue;
		if (o->summary) {
			dump_summary_add(s, ev);
			continue;
		}
		dump_summary_count(s);
		if (out && etl_output_event(out, ev, NULL) != ETL_OK) {
			cli_error(name, etl_output_errmsg(out));
			rc = CLI_EXIT_IO;
			break;
		}
		if (o->hex && ev->payload_size)
			dump_hex(ev->payload, ev->payload_size);
	}
	cli_progress_clear(&pg);
	etl_output_free(out);
	return rc;
}

static int process_file(const char *path, struct options *o, int nfiles, int index)
{
	const char *name = cli_display_name(path);
	int rc = CLI_EXIT_CLEAN, st;
	etl_reader *r = cli_open_reader(name, path, -1, o->file_order || (o->buffers && !o->list_events)
	                                                ? ETL_ORDER_FILE : ETL_ORDER_TIME, &st);
	if (!r)
		return st;
	rc = cli_report_open(name, r, st, &o->notes);

	if (nfiles > 1 && !o->json)
		printf("%s==> %s <==\n", index ? "\n" : "", name);
	if (o->header) {
		dump_logfile_header(etl_reader_logfile(r));
		dump_header_records(path);
		if (o->buffers || o->summary || o->count || o->list_events)
			printf("\n");
	}
	struct dump_summary *s = dump_summary_new();
	if (!s) {
		cli_error(name, "out of memory");
		rc = CLI_EXIT_IO;
	} else if (o->buffers) {
		rc = cli_worse(rc, dump_buffers(name, r, o));
	} else if (o->summary || o->count || o->list_events) {
		rc = cli_worse(rc, dump_events(name, r, o, s));
		if (o->count)
			printf("%llu\n", (unsigned long long)dump_summary_matched(s));
		else if (o->summary && o->json)
			dump_summary_json(name, r, s, &o->filter);
		else if (o->summary)
			dump_summary_text(name, r, s, &o->filter);
		if (dump_summary_oom(s))
			cli_error(name, "out of memory: the summary is incomplete");
	}
	dump_summary_free(s);
	etl_reader_free(r);
	if (fflush(stdout) != 0)
		rc = CLI_EXIT_IO;
	return rc;
}

/* ---- main -------------------------------------------------------------- */

/* Why the options cannot go together, or NULL. */
static const char *conflict(const struct options *o)
{
	if (o->count && o->summary)
		return "--count and --summary cannot be combined";
	if (o->buffers && (o->summary || o->count || o->hex))
		return "--buffers cannot be combined with --summary, --count or --hex";
	if (o->hex && (o->summary || o->count))
		return "--hex cannot be combined with --summary or --count";
	if (o->json && !o->summary)
		return "--json needs --summary";
	if (o->json && o->header)
		return "--json cannot be combined with --header (the JSON object has a \"logfile\" member)";
	return NULL;
}

/* Applies one of etldump's own options. */
static int option(void *ctx, int c)
{
	struct options *o = ctx;
	switch (c) {
	case 'H': o->header = 1; break;
	case 'b': o->buffers = 1; break;
	case 's': o->summary = 1; break;
	case 'j': o->json = 1; break;
	case 'x': o->hex = 1; break;
	case 'c': o->count = 1; break;
	case 'F': o->file_order = 1; break;
	default: break;
	}
	return -1;
}

/* Every input in turn; the worst exit status. */
static int dump_files(struct options *o, char **paths, int n)
{
	int rc = CLI_EXIT_CLEAN;
	/* The event listing is written in large blocks. */
	static char outbuf[1 << 20];
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	if (n == 0)
		rc = process_file("-", o, 1, 0);
	for (int i = 0; i < n; i++)
		rc = cli_worse(rc, process_file(paths[i], o, n, i));
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_message("cannot write the output: %s", strerror(errno));
		rc = CLI_EXIT_IO;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "header", no_argument, NULL, 'H' },
		{ "buffers", no_argument, NULL, 'b' },
		{ "summary", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "hex", no_argument, NULL, 'x' },
		{ "count", no_argument, NULL, 'c' },
		{ "file-order", no_argument, NULL, 'F' },
		CLI_STANDARD_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct options o = { 0 };
	int quiet = 0;

	cli_set_program(PROG);
	cli_set_limit_hint("; read it in file order (-F), which needs no copy, or raise the limit "
	                   "with --spool-limit");
	cli_filter_init(&o.filter);
	int rc = cli_parse_options(argc, argv, ":HbsjxcFqhV", long_opts, &o.filter, &quiet, usage,
	                           option, &o);
	const char *why = rc < 0 ? conflict(&o) : NULL;
	int nfiles = argc - optind;
	if (rc < 0 && !why && nfiles == 0 && isatty(STDIN_FILENO))
		why = "no input file (give '-' to read a terminal)";
	if (why) {
		cli_usage_error("%s", why);
		rc = CLI_EXIT_USAGE;
	}
	if (rc < 0 && cli_check_paths(NULL, argv + optind, nfiles, 0) != CLI_EXIT_CLEAN)
		rc = CLI_EXIT_USAGE;
	if (rc < 0) {
		o.list_events = o.hex || !(o.header || o.buffers || o.summary || o.count);
		/* The display shares the terminal with nothing: not with the
		 * event lines (the summary and the count come at the end). */
		o.progress_ok = !quiet && isatty(STDERR_FILENO) &&
		                (!o.list_events || !isatty(STDOUT_FILENO));
		rc = dump_files(&o, argv + optind, nfiles);
	}
	cli_filter_free(&o.filter);
	return rc;
}
