/*
 * etlconvert.c - convert Windows ETW .etl files: the command line. -f etl
 * re-encodes events into a new .etl file (with the etldump filters,
 * compression on or off, several inputs merged in time order, output split
 * by size or time) or copies buffers byte for byte (--raw): convert_etl.c.
 * -f xml|json|jsonl|csv|text decodes the events and renders them with
 * etl_output to standard output or to a file: convert_render.c, on -j N
 * threads (convert_parallel.c; -f etl takes -j and works on one). Both
 * read their inputs merged in time order through convert_input.c.
 *
 * Before anything is read, an output that is one of the inputs (under any
 * name) and an input named twice are refused (etl_check_paths()). An
 * existing output is replaced only when at least one event (--raw: one
 * buffer) was read; a device, FIFO or socket is written through, never
 * replaced (etl_outfile, the writer).
 *
 * Exit status: 0 clean; 1 usage error; 2 some input had damage or some
 * event could not be re-encoded (each is reported; the output holds the
 * rest), or no event could be read (the output is left as it was); 3 an
 * input could not be opened or read, or the output could not be written
 * (no output is left behind).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "convert.h"

#define PROG "etlconvert"

/* getopt_long() values of long-only options (below the CLI_OPT_* range). */
enum {
	OPT_COMPRESS = 0x800,
	OPT_NO_COMPRESS,
	OPT_RAW,
	OPT_SPLIT_SIZE,
	OPT_SPLIT_TIME,
	OPT_MANIFEST,
	OPT_TMF,
	OPT_MOF,
	OPT_ALLOW_SAME_INPUT,
	OPT_EXPLAIN,
};

/* -j: at most this many threads, and by default as many as processors
 * are online, up to DEFAULT_JOBS_MAX. */
#define JOBS_MAX 256                  /* as the usage error says */
#define DEFAULT_JOBS_MAX 64

/* ---- messages --------------------------------------------------------- */

static void usage(void)
{
	printf("Usage: " PROG " [-f etl] [OPTION]... FILE... -o OUTPUT\n"
	       "   or: " PROG " -f xml|json|jsonl|csv|text [OPTION]... FILE... [-o OUTPUT]\n"
	       "Convert Windows ETW trace logs (.etl). With -f etl (the default) the events of\n"
	       "every FILE are re-encoded into a new .etl file; with the other formats they\n"
	       "are decoded and written as Windows event XML, JSON, JSON lines, CSV or text\n"
	       "(standard output by default). Several FILEs are merged in time order into\n"
	       "one output. FILE may be '-' for standard input; inputs compressed with gzip or\n"
	       "LZ4 are read transparently.\n"
	       "\n"
	       "Output:\n"
	       "  -f, --format FMT      output format: etl (default), xml, json, jsonl, csv\n"
	       "                        or text\n"
	       "  -o, --output PATH     the output file ('-': standard output, the default\n"
	       "                        for the text formats); a name ending in .gz or .lz4\n"
	       "                        is compressed with gzip or LZ4 as a whole\n"
	       "      --compress        (-f etl) compress the buffers (LogFileMode COMPRESSED)\n"
	       "      --no-compress     (-f etl) do not compress the buffers\n"
	       "                        (default: as the first input)\n"
	       "      --raw             (-f etl) copy the buffers unchanged, byte for byte\n"
	       "                        (one FILE, no filter, no split, no --compress/\n"
	       "                        --no-compress)\n"
	       "      --split-size N[K|M|G]\n"
	       "                        (-f etl) write numbered files of about N bytes each:\n"
	       "                        OUT_000.etl, OUT_001.etl, ... (the number goes\n"
	       "                        before the extension); numbered files of OUT left\n"
	       "                        by an earlier run beyond the new ones are removed\n"
	       "      --split-time SECONDS\n"
	       "                        (-f etl) start the next numbered file when an event\n"
	       "                        is SECONDS or more after the current file's first one\n"
	       "      --manifest PATH   instrumentation manifest (file, or directory of\n"
	       "                        *.man/*.xml) for decoding; repeatable\n"
	       "      --tmf PATH        WPP trace message format file (file, or directory\n"
	       "                        of *.tmf) for decoding; repeatable\n"
	       "      --mof PATH        MOF classes of classic events (file, or directory\n"
	       "                        of *.mof) for decoding; repeatable\n"
	       "      --explain         (-f json, jsonl) give every event a \"DecodingSource\"\n"
	       "                        member: what decoded it (manifest, MOF, WPP,\n"
	       "                        TraceLogging, EventMetadata: the schemas a merged\n"
	       "                        trace carries) or none\n"
	       "  -j, --jobs N          (xml, json, jsonl, csv, text) decode and render with\n"
	       "                        N threads, 1 to 256 (default: the processors\n"
	       "                        online, at most 64); the output is the same for\n"
	       "                        every N. -f etl takes -j and works on one thread\n"
	       "      --allow-same-input\n"
	       "                        let a FILE be given more than once (its events are\n"
	       "                        merged with themselves); refused otherwise\n"
	       "  -q, --quiet           no progress display on stderr (shown for inputs over\n"
	       "                        8 MiB when stderr is a terminal)\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n");
	cli_limits_usage(stdout);
	printf("\n");
	cli_filter_usage(stdout);
	printf("\nWith -f etl, the logfile header and the header buffer's records are always\n"
	       "kept. With the other formats the first input's logfile header is written\n"
	       "first, as the tracerpt header event; events that cannot be decoded are\n"
	       "written with their payload in hex and the reason. See etlconvert(1).\n"
	       "\n"
	       "Your data is safe: an output that is one of the inputs, or an input given\n"
	       "twice, is refused before anything is read; an output is written to a\n"
	       "temporary file and renamed over OUTPUT (or the file a link leads to) only\n"
	       "when the run succeeds and read at least one event; a device or FIFO is\n"
	       "written through.\n"
	       "\n"
	       "Exit status: 0 success, 1 usage error, 2 damaged input or events that could\n"
	       "not be re-encoded (each is reported on stderr; the output holds the rest),\n"
	       "or nothing could be read (the output is left as it was), 3 input/output\n"
	       "error (no output is left behind).\n");
}

/* ---- option parsing --------------------------------------------------- */

/* Seconds with up to 7 fractional digits, > 0, as 100 ns units. */
static int parse_seconds(const char *s, int64_t *out)
{
	const char *end;
	if (cli_parse_seconds(s, &end, out) != 0 || *end)
		return -1;
	return *out > 0 ? 0 : -1;
}

/* The processors online, 1 to DEFAULT_JOBS_MAX. */
static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > DEFAULT_JOBS_MAX ? DEFAULT_JOBS_MAX : (int)n;
}

/* ---- main -------------------------------------------------------------- */

/* Why the options cannot go together (a format for cli_usage_error() with
 * the format or output name), or NULL. */
static const char *conflict(const struct convert_options *o, int nfiles, int is_etl)
{
	if (!is_etl) {
		if (nfiles == 0)
			return "no input file (give '-' to read standard input)";
		if (o->raw)
			return "--raw goes with -f etl only, not -f %s";
		if (o->split_size || o->split_time)
			return "--split-size and --split-time go with -f etl only, not -f %s";
		if (o->compress >= 0)
			return "--compress and --no-compress go with -f etl only, not -f %s (a name ending "
			       "in .gz or .lz4 compresses the output)";
		if (o->explain && strcmp(o->format, "json") != 0 && strcmp(o->format, "jsonl") != 0)
			return "--explain goes with -f json and -f jsonl only, not -f %s";
		return NULL;
	}
	if (o->explain)
		return "--explain goes with -f json and -f jsonl only, not -f etl";
	if (o->n_manifests || o->n_tmfs || o->n_mofs)
		return "--manifest, --tmf and --mof go with the xml, json, jsonl, csv and text formats";
	if (!o->output)
		return "no output file (give -o OUTPUT)";
	if (strcmp(o->output, "-") == 0 || !o->output[0])
		return "an .etl output must be a file: -o '%s' is not possible";
	if (nfiles == 0)
		return "no input file (give '-' to read standard input)";
	if (o->raw && nfiles > 1)
		return "--raw copies one input only";
	if (o->raw && o->filter.active)
		return "--raw cannot be combined with filters (it copies buffers, not events)";
	if (o->raw && (o->split_size || o->split_time))
		return "--raw cannot be combined with --split-size or --split-time";
	if (o->raw && o->compress >= 0)
		return "--raw cannot be combined with --compress or --no-compress";
	return NULL;
}

/* Adds arg to a list of paths. @return : 0, or -1 when memory is short. */
static int add_path(const char ***list, int *n, const char *arg)
{
	const char **l = realloc(*list, (size_t)(*n + 1) * sizeof *l);
	if (!l)
		return -1;
	*list = l;
	l[(*n)++] = arg;
	return 0;
}

/* Applies one of etlconvert's own options. */
static int option(void *ctx, int c)
{
	static const char *const formats[] = { "etl", "xml", "json", "jsonl", "csv", "text" };
	struct convert_options *o = ctx;
	switch (c) {
	case 'f':
		for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
			if (strcmp(optarg, formats[i]) == 0) {
				o->format = formats[i];
				return -1;
			}
		cli_usage_error("unknown format '%s' (etl, xml, json, jsonl, csv or text)", optarg);
		return CLI_EXIT_USAGE;
	case 'o': o->output = optarg; return -1;
	case OPT_COMPRESS: o->compress = 1; return -1;
	case OPT_NO_COMPRESS: o->compress = 0; return -1;
	case OPT_RAW: o->raw = 1; return -1;
	case OPT_ALLOW_SAME_INPUT: o->allow_twice = 1; return -1;
	case OPT_EXPLAIN: o->explain = 1; return -1;
	case 'j': {
		uint64_t v;
		if (cli_parse_u64(optarg, JOBS_MAX, &v) == 0 && v >= 1) {
			o->jobs = (int)v;
			return -1;
		}
		cli_usage_error("invalid -j '%s': expected a number of threads from 1 to 256", optarg);
		return CLI_EXIT_USAGE;
	}
	case OPT_SPLIT_SIZE:
		if (cli_parse_size(optarg, &o->split_size) == 0)
			return -1;
		cli_usage_error("invalid --split-size '%s': expected a positive number of bytes "
		                "with an optional K, M or G suffix", optarg);
		return CLI_EXIT_USAGE;
	case OPT_SPLIT_TIME:
		if (parse_seconds(optarg, &o->split_time) == 0)
			return -1;
		cli_usage_error("invalid --split-time '%s': expected a positive number of seconds", optarg);
		return CLI_EXIT_USAGE;
	case OPT_MANIFEST:
	case OPT_TMF:
	case OPT_MOF:
		if ((c == OPT_MANIFEST ? add_path(&o->manifests, &o->n_manifests, optarg)
		     : c == OPT_TMF    ? add_path(&o->tmfs, &o->n_tmfs, optarg)
		                       : add_path(&o->mofs, &o->n_mofs, optarg)) == 0)
			return -1;
		cli_message("out of memory");
		return CLI_EXIT_USAGE;
	default:
		return -1;
	}
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "compress", no_argument, NULL, OPT_COMPRESS },
		{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "split-size", required_argument, NULL, OPT_SPLIT_SIZE },
		{ "split-time", required_argument, NULL, OPT_SPLIT_TIME },
		{ "manifest", required_argument, NULL, OPT_MANIFEST },
		{ "tmf", required_argument, NULL, OPT_TMF },
		{ "mof", required_argument, NULL, OPT_MOF },
		{ "allow-same-input", no_argument, NULL, OPT_ALLOW_SAME_INPUT },
		{ "explain", no_argument, NULL, OPT_EXPLAIN },
		{ "jobs", required_argument, NULL, 'j' },
		CLI_STANDARD_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct convert_options o = { .format = "etl", .compress = -1, .jobs = default_jobs() };
	int quiet = 0;

	cli_set_program(PROG);
	cli_set_limit_hint("; raise the limit with --spool-limit, or decompress the input first");
	cli_filter_init(&o.filter);
	int rc = cli_parse_options(argc, argv, ":f:o:j:qhV", long_opts, &o.filter, &quiet, usage,
	                           option, &o);
	if (rc < 0) {
		int nfiles = argc - optind;
		int is_etl = strcmp(o.format, "etl") == 0;
		const char *why = conflict(&o, nfiles, is_etl);
		o.progress_ok = !quiet && isatty(STDERR_FILENO);
		if (why) {
			cli_usage_error(why, !is_etl ? o.format : o.output ? o.output : "");
			rc = CLI_EXIT_USAGE;
		} else if ((rc = cli_check_paths(o.output ? o.output : "-", argv + optind, nfiles,
		                               o.allow_twice)) !=
		           CLI_EXIT_CLEAN) {
			;
		} else if (!is_etl) {
			rc = convert_render(&o, argv + optind, nfiles);
		} else if (o.raw) {
			rc = convert_raw(&o, argv[optind]);
		} else {
			rc = convert_etl(&o, argv + optind, nfiles);
		}
	}
	cli_filter_free(&o.filter);
	free(o.manifests);
	free(o.tmfs);
	free(o.mofs);
	return rc;
}
