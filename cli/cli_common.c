/*
 * cli_common.c - what the command-line tools share: messages, exit
 * statuses, option boilerplate, opening readers and the progress display.
 * The event filter (cli_filter.c), number and time parsing (cli_parse.c)
 * and JSON escaping and flag names (cli_names.c) are beside it; all are
 * declared in cli_common.h.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli_common.h"


/* ---- program, exit status, messages ------------------------------------ */

static const char *program = "libetl";

void cli_set_program(const char *prog)
{
	program = prog;
}

int cli_worse(int a, int b)
{
	return a > b ? a : b;
}

void cli_message(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_errorf(const char *msg, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	cli_text_safe(stderr, msg);
	fputc('\n', stderr);
}

void cli_error(const char *name, const char *msg)
{
	cli_errorf(msg, "%s: ", name);
}

void cli_error_at(const char *name, uint64_t off, const char *kind, const char *msg)
{
	cli_errorf(msg, "%s: offset 0x%llx: %s", name, (unsigned long long)off, kind);
}

void cli_reader_problem(const char *name, const char *kind, etl_reader *r)
{
	cli_error_at(name, etl_reader_erroff(r), kind, etl_reader_errmsg(r));
}

void cli_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", program);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", program);
}

/* --order-memory, for every reader the tool opens. */
static uint64_t order_memory = ETL_ORDER_MEMORY_DEFAULT;

int cli_standard_option(int c, char **argv, struct cli_filter *f, int *quiet, void (*usage)(void))
{
	char err[512];
	if (cli_filter_is_option(c)) {
		if (cli_filter_option(f, c, optarg, err, sizeof err) == 0)
			return -1;
		cli_usage_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	switch (c) {
	case CLI_OPT_SPOOL_LIMIT: {
		uint64_t v;
		if (cli_parse_size(optarg, &v) == 0) {
			etl_set_spool_limit(v);
			return -1;
		}
		cli_usage_error("invalid --spool-limit '%s': expected a positive number of bytes with "
		                "an optional K, M or G suffix", optarg);
		return CLI_EXIT_USAGE;
	}
	case CLI_OPT_ORDER_MEMORY:
		if (cli_parse_size(optarg, &order_memory) == 0)
			return -1;
		cli_usage_error("invalid --order-memory '%s': expected a positive number of bytes with "
		                "an optional K, M or G suffix", optarg);
		return CLI_EXIT_USAGE;
	case 'q':
		*quiet = 1;
		return -1;
	case 'h':
		usage();
		return fflush(stdout) == 0 ? CLI_EXIT_CLEAN : CLI_EXIT_IO;
	case 'V':
		printf("%s (libetl) %s\n", program, etl_version_string());
		return fflush(stdout) == 0 ? CLI_EXIT_CLEAN : CLI_EXIT_IO;
	case ':':
		cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
		return CLI_EXIT_USAGE;
	case '?':
		if (optopt && optopt < 0x100) {
			char opt[3] = { '-', (char)optopt, 0 };
			cli_usage_error("unknown option '%s'", opt);
		} else {
			cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
		return CLI_EXIT_USAGE;
	default:
		return CLI_OWN_OPTION;
	}
}

int cli_parse_options(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      struct cli_filter *f, int *quiet, void (*usage)(void), cli_option_fn own,
                      void *ctx)
{
	int c, rc = -1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		rc = cli_standard_option(c, argv, f, quiet, usage);
		if (rc == CLI_OWN_OPTION)
			rc = own(ctx, c);
	}
	return rc;
}

const char *cli_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "(standard input)" : path;
}

static const char *limit_hint = "";

void cli_set_limit_hint(const char *hint)
{
	limit_hint = hint;
}

int cli_check_paths(const char *output, char **inputs, int n, int allow_twice)
{
	char why[1024];
	const char *const *in = (const char *const *)inputs;
	/* allow_twice: each input alone against the output. */
	for (int i = 0; i < (allow_twice ? n : 1); i++)
		if (etl_check_paths(output, in + i, allow_twice ? 1 : n, why, sizeof why, NULL) != ETL_OK) {
			cli_errorf(why, "%s", "");
			return CLI_EXIT_USAGE;
		}
	return CLI_EXIT_CLEAN;
}

etl_reader *cli_open_reader(const char *name, const char *path, int fd, int order, int *status)
{
	etl_reader *r = etl_reader_new();
	*status = CLI_EXIT_IO;
	if (!r) {
		cli_error(name, "out of memory");
		return NULL;
	}
	etl_reader_set_order(r, order);
	etl_reader_set_order_memory(r, order_memory);
	int st = fd >= 0 ? etl_reader_open_fd(r, fd) : etl_reader_open_file(r, path);
	if (st == ETL_FATAL || st == ETL_FAILED) {
		int code = etl_reader_errcode(r);
		if (code == ETL_E_LIMIT)
			cli_errorf(limit_hint, "%s: %s", name, etl_reader_errmsg(r));
		else
			cli_error(name, etl_reader_errmsg(r));
		if (code == ETL_E_DECOMPRESS)
			*status = CLI_EXIT_DAMAGE;
		etl_reader_free(r);
		return NULL;
	}
	*status = st;
	return r;
}

/* What the reader says of an input with no buffer header at offset 0
 * (lib/read/reader.c), before the detail in parentheses. */
#define NOT_ETL_PREFIX "The input is not an ETL file: there is no trace buffer header at offset 0 ("

/* TRACE_LOGFILE_HEADER fields checked here, from the payload of the
 * logfile-header record, which follows a 0x20-byte SYSTEM_TRACE_HEADER
 * (doc/format.md §2.1, §2.2, §3.2). */
#define LF_PAYLOAD 0x20u
#define LF_BUFFER_SIZE 0x00u
#define LF_PROCESSORS 0x0Cu
/* The largest buffer any libetl reader or writer handles (etl_writer.h). */
#define MAX_BUFFER_SIZE (16u * 1024u * 1024u)

int cli_report_open(const char *name, etl_reader *r, int st, struct cli_open_notes *notes)
{
	int rc = CLI_EXIT_CLEAN;
	const struct etl_logfile *lf = etl_reader_logfile(r);
	memset(notes, 0, sizeof *notes);
	if (st == ETL_WARN) {
		const char *msg = etl_reader_errmsg(r);
		size_t pl = strlen(NOT_ETL_PREFIX), ml = strlen(msg);
		if (etl_reader_errcode(r) == ETL_E_BAD_MAGIC && etl_reader_erroff(r) == 0 &&
		    strncmp(msg, NOT_ETL_PREFIX, pl) == 0 && ml > pl && msg[ml - 1] == ')') {
			/* Said first in words a newcomer understands, then the
			 * detail; the walk meets the same damage and stays quiet. */
			size_t dl = ml - pl - 1;
			if (dl >= sizeof notes->detail)
				dl = sizeof notes->detail - 1;
			memcpy(notes->detail, msg + pl, dl);
			notes->detail[dl] = 0;
			notes->not_etl = 1;
			cli_errorf(notes->detail, "%s is not an ETL file (no trace buffer header at offset 0): ",
			           name);
			rc = CLI_EXIT_DAMAGE;
		} else {
			cli_reader_problem(name, "warning: ", r);
		}
	}
	if (!lf->present)
		return rc;
	uint64_t at = lf->file_offset + LF_PAYLOAD;
	char msg[200];
	if (lf->buffer_size < ETL_BUFFER_HEADER_SIZE || lf->buffer_size > MAX_BUFFER_SIZE) {
		snprintf(msg, sizeof msg, "damaged logfile header: BufferSize is %u bytes, which no trace "
		         "buffer has (%u to %u); the buffers' own sizes are used", lf->buffer_size,
		         ETL_BUFFER_HEADER_SIZE, MAX_BUFFER_SIZE);
		cli_error_at(name, at + LF_BUFFER_SIZE, "", msg);
		notes->bad_buffer_size = 1;
		rc = CLI_EXIT_DAMAGE;
	}
	if (lf->number_of_processors > ETL_MAX_PROCESSORS) {
		snprintf(msg, sizeof msg, "damaged logfile header: NumberOfProcessors is %u, more than any "
		         "Windows machine has (%u at most); the buffers' processors are used",
		         lf->number_of_processors, ETL_MAX_PROCESSORS);
		cli_error_at(name, at + LF_PROCESSORS, "", msg);
		notes->bad_processors = 1;
		rc = CLI_EXIT_DAMAGE;
	}
	return rc;
}

int cli_open_note_repeats(struct cli_open_notes *notes, uint64_t off, const char *msg)
{
	if (!notes->not_etl || off != 0 || strcmp(msg, notes->detail) != 0)
		return 0;
	notes->not_etl = 0;
	return 1;
}

/* ---- progress ----------------------------------------------------------- */

void cli_progress_init(struct cli_progress *pg, int on, const char *name)
{
	pg->on = on;
	pg->last_pct = -1;
	pg->name = name;
}

void cli_progress_show(struct cli_progress *pg, uint64_t done, uint64_t total)
{
	if (!pg->on || !total)
		return;
	int pct = (int)(done * 100 / total);
	if (pct > 100)
		pct = 100;
	if (pct <= pg->last_pct)
		return;
	pg->last_pct = pct;
	if (pg->name)
		fprintf(stderr, "\r%s: %s: %3d%%", program, pg->name, pct);
	else
		fprintf(stderr, "\r%s: %3d%%", program, pct);
}

void cli_progress_clear(struct cli_progress *pg)
{
	if (pg->on && pg->last_pct >= 0)
		fprintf(stderr, "\r\033[K");
	pg->last_pct = -1;
}
