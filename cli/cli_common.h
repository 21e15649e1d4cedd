/*
 * cli_common.h - what the command-line tools (etldump, etlconvert) share:
 * the program's name, exit statuses and messages (errors naming an input
 * and a file offset), the option boilerplate, opening a reader, the
 * progress display, the event filter (its long options, their parsing and
 * the predicate), number and time parsing, JSON string escaping and the
 * names of header fields.
 *
 * Typical use with getopt_long():
 *
 *     static const struct option opts[] = {
 *         { "count", no_argument, NULL, 'c' },
 *         CLI_FILTER_LONG_OPTIONS,
 *         { NULL, 0, NULL, 0 }
 *     };
 *     struct cli_filter f;
 *     cli_filter_init(&f);
 *     while ((c = getopt_long(argc, argv, "c", opts, NULL)) != -1) {
 *         if (cli_filter_is_option(c)) {
 *             if (cli_filter_option(&f, c, optarg, err, sizeof err) != 0)
 *                 usage error (err says why);
 *             continue;
 *         }
 *         ...
 *     }
 *     per input: cli_filter_begin_file(&f, etl_reader_logfile(r));
 *     per event: if (cli_filter_match(&f, ev)) ...
 *     cli_filter_free(&f);
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include "etl.h"

struct cli_filter;

/* ---- program, exit status, messages ---------------------------------- */

/* Exit statuses, in order of severity (cli_worse() keeps the higher). */
enum {
	CLI_EXIT_CLEAN = 0,    /* success                                     */
	CLI_EXIT_USAGE = 1,    /* usage error                                 */
	CLI_EXIT_DAMAGE = 2,   /* damaged input (each loss reported)          */
	CLI_EXIT_IO = 3        /* input/output error                          */
};

/*! cli_set_program() : the name messages begin with ("etldump"); call
 *  first in main(). prog must stay valid. */
void cli_set_program(const char *prog);

/*! cli_worse() : @return : the more severe of two exit statuses. */
int cli_worse(int a, int b);

/*! cli_message() : prints "PROG: " and the printf-style message, then a
 *  line feed, on stderr. */
void cli_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*! cli_error() : prints "PROG: NAME: MSG" on stderr, MSG made safe for a
 *  terminal (cli_text_safe()). */
void cli_error(const char *name, const char *msg);

/*! cli_errorf() : prints "PROG: ", the printf-style prefix, then MSG made
 *  safe for a terminal, on stderr. */
void cli_errorf(const char *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*! cli_error_at() : prints "PROG: NAME: offset 0xOFF: KIND MSG" (kind is
 *  "" or "warning: ", MSG made safe). */
void cli_error_at(const char *name, uint64_t off, const char *kind, const char *msg);

/*! cli_reader_problem() : cli_error_at() with the last problem of r (its
 *  offset and message). */
void cli_reader_problem(const char *name, const char *kind, etl_reader *r);

/*! cli_usage_error() : prints "PROG: <fmt with arg>" and the --help hint
 *  on stderr. */
void cli_usage_error(const char *fmt, const char *arg);

/* What cli_standard_option() returns for an option of the tool's own. */
#define CLI_OWN_OPTION (-2)

/* A tool's own option c (its argument in optarg) applied to ctx.
 * @return : -1 to go on, else the exit status to end with. */
typedef int (*cli_option_fn)(void *ctx, int c);

/*! cli_parse_options() : getopt_long() over argv (opterr 0; shortopts must
 *  begin with ':' and hold "qhV", longopts CLI_STANDARD_LONG_OPTIONS):
 *  what every tool has goes to cli_standard_option() (filters into f,
 *  *quiet, usage() for -h), the rest to own(ctx, c).
 *  @return : -1 when all options were applied (optind is at the first
 *  operand), else the exit status to end with. */
int cli_parse_options(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      struct cli_filter *f, int *quiet, void (*usage)(void), cli_option_fn own,
                      void *ctx);

/*! cli_standard_option() : handles what getopt_long() returned (c, with
 *  ":" leading the option string and opterr 0) when it is an option every
 *  tool has (CLI_STANDARD_LONG_OPTIONS and "qhV" among the short ones): a
 *  filter option (into f), --spool-limit (etl_set_spool_limit()), -q
 *  (*quiet set), -h (usage() prints the help), -V, an unknown option or
 *  one missing its argument (usage errors).
 *  @return : -1 to go on; the exit status to end with (-h, -V, usage
 *  errors); CLI_OWN_OPTION when c is none of these. */
int cli_standard_option(int c, char **argv, struct cli_filter *f, int *quiet, void (*usage)(void));

/*! cli_display_name() : how messages name an input: the path, or
 *  "(standard input)" for "-". */
const char *cli_display_name(const char *path);

/*! cli_set_limit_hint() : what the tool tells a user whose input passes
 *  the spool limit (how to read it without a copy, how to raise the
 *  limit). hint must stay valid. */
void cli_set_limit_hint(const char *hint);

/*! cli_check_paths() : etl_check_paths() for the tool's output (NULL:
 *  none) and its n inputs, before anything is read; a clash is reported
 *  ("PROG: the output 'a.etl' is the input 'a.etl': ..."). With
 *  allow_twice, an input may be named more than once (the output is
 *  still checked against each).
 *  @return : CLI_EXIT_CLEAN, or CLI_EXIT_USAGE (reported). */
int cli_check_paths(const char *output, char **inputs, int n, int allow_twice);

/*! cli_open_reader() : a reader in order (ETL_ORDER_TIME or _FILE) over
 *  fd, or over path when fd is -1 (path "-" is standard input).
 *  @return : the reader with *status ETL_OK or ETL_WARN (the caller
 *  reports the warning with cli_report_open()); NULL when it cannot be
 *  opened (reported as "PROG: NAME: why"), with *status the exit status:
 *  CLI_EXIT_DAMAGE when a damaged gzip / LZ4 wrapper left nothing to read
 *  (the same status its damage earns when something is left), else
 *  CLI_EXIT_IO. */
etl_reader *cli_open_reader(const char *name, const char *path, int fd, int order, int *status);

/* What cli_report_open() said about a new reader, for what comes after. */
struct cli_open_notes {
	int not_etl;               /* "NAME is not an ETL file" was said; the
	                              walk's report of the same detail at
	                              offset 0 is not said again             */
	char detail[256];
	int bad_buffer_size;       /* the logfile header's BufferSize or      */
	int bad_processors;        /* NumberOfProcessors cannot be (reported
	                              as damage): not to be relied on        */
};

/*! cli_report_open() : reports what opening r (status st) found: an input
 *  that is not an ETL file ("PROG: NAME is not an ETL file (no trace
 *  buffer header at offset 0): DETAIL"), another open warning ("PROG:
 *  NAME: offset 0x..: warning: ..."), and logfile-header fields no trace
 *  can hold (damage naming the field's offset).
 *  @return : the exit status earned (CLI_EXIT_DAMAGE for the first and the
 *  last, else CLI_EXIT_CLEAN); *notes filled. */
int cli_report_open(const char *name, etl_reader *r, int st, struct cli_open_notes *notes);

/*! cli_open_note_repeats() : 1 (once) when the damage at off with msg is
 *  the detail cli_report_open() already gave with "is not an ETL file"
 *  (the caller then does not print it again). */
int cli_open_note_repeats(struct cli_open_notes *notes, uint64_t off, const char *msg);

/* ---- progress ----------------------------------------------------------- */

/* Inputs smaller than this finish too soon for a progress display. */
#define CLI_PROGRESS_MIN_SIZE (8u * 1024u * 1024u)

/* A percentage on stderr, "\rPROG: [NAME: ] NN%", rewritten in place while
 * it grows, and wiped before anything else is printed. */
struct cli_progress {
	int on;                    /* shown at all                            */
	int last_pct;              /* last shown, or -1 (nothing on screen)   */
	const char *name;          /* NULL: the percentage alone              */
};

/*! cli_progress_init() : a display, shown only when on. */
void cli_progress_init(struct cli_progress *pg, int on, const char *name);

/*! cli_progress_show() : shows done of total (in any unit) when the
 *  percentage grew. Nothing when off or total is 0. */
void cli_progress_show(struct cli_progress *pg, uint64_t done, uint64_t total);

/*! cli_progress_clear() : wipes the line if something is shown. */
void cli_progress_clear(struct cli_progress *pg);

/* ---- the event filter ------------------------------------------------- */

/* getopt_long() values of the filter options: above every character so
 * that tools keep their short options free. */
enum cli_filter_opt {
	CLI_OPT_PROVIDER = 0x1000,
	CLI_OPT_ID,
	CLI_OPT_OPCODE,
	CLI_OPT_LEVEL,
	CLI_OPT_KEYWORD,
	CLI_OPT_PID,
	CLI_OPT_TID,
	CLI_OPT_CPU,
	CLI_OPT_TYPE,
	CLI_OPT_SINCE,
	CLI_OPT_UNTIL,
	CLI_OPT_FILTER_END_
};

/* getopt_long() values of --spool-limit and --order-memory (every tool
 * has them). */
#define CLI_OPT_SPOOL_LIMIT 0x1100
#define CLI_OPT_ORDER_MEMORY 0x1101

/* struct option initialisers of the long options every tool has. */
#define CLI_STANDARD_LONG_OPTIONS \
	{ "spool-limit", required_argument, NULL, CLI_OPT_SPOOL_LIMIT }, \
	{ "order-memory", required_argument, NULL, CLI_OPT_ORDER_MEMORY }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	CLI_FILTER_LONG_OPTIONS

/* struct option initialisers for every filter option (long only). */
#define CLI_FILTER_LONG_OPTIONS \
	{ "provider", required_argument, NULL, CLI_OPT_PROVIDER }, \
	{ "id",       required_argument, NULL, CLI_OPT_ID }, \
	{ "opcode",   required_argument, NULL, CLI_OPT_OPCODE }, \
	{ "level",    required_argument, NULL, CLI_OPT_LEVEL }, \
	{ "keyword",  required_argument, NULL, CLI_OPT_KEYWORD }, \
	{ "pid",      required_argument, NULL, CLI_OPT_PID }, \
	{ "tid",      required_argument, NULL, CLI_OPT_TID }, \
	{ "cpu",      required_argument, NULL, CLI_OPT_CPU }, \
	{ "type",     required_argument, NULL, CLI_OPT_TYPE }, \
	{ "since",    required_argument, NULL, CLI_OPT_SINCE }, \
	{ "until",    required_argument, NULL, CLI_OPT_UNTIL }

/* A point in time given on the command line: an absolute FILETIME, or an
 * offset from the trace start (100 ns units, may be negative). */
struct cli_time {
	int relative;          /* 1: value is an offset from the trace start */
	int64_t value;         /* FILETIME, or offset in 100 ns units        */
};

/* The conditions of every filter option; all given ones must hold (AND);
 * repeated --provider and --type options are alternatives (OR). */
struct cli_filter {
	int active;                    /* any condition at all               */

	struct etl_guid *guids;        /* --provider GUID                    */
	size_t n_guids;
	char **names;                  /* --provider NAME (case-insensitive) */
	size_t n_names;

	int has_id;       uint64_t id;
	int has_opcode;   uint64_t opcode;
	int has_level;    uint64_t level;    /* maximum level              */
	int has_keyword;  uint64_t keyword;  /* any of these bits          */
	int has_pid;      uint64_t pid;
	int has_tid;      uint64_t tid;
	int has_cpu;      uint64_t cpu;
	uint32_t kinds;                /* --type: bit (1 << kind); 0 = any   */

	int has_since;    struct cli_time since;   /* utc >= since          */
	int has_until;    struct cli_time until;   /* utc <  until          */

	/* Per input, set by cli_filter_begin_file()/cli_filter_match(). */
	int base_known;                /* trace start known (relative times) */
	int64_t base;                  /* trace start, FILETIME              */
	int64_t since_ft, until_ft;    /* resolved bounds                    */
};

/*! cli_filter_init() : an empty filter (matches everything). */
void cli_filter_init(struct cli_filter *f);

/*! cli_filter_free() : frees what the options allocated. */
void cli_filter_free(struct cli_filter *f);

/*! cli_filter_is_option() : 1 if opt (a getopt_long() result) is one of
 *  the CLI_OPT_* filter options. */
int cli_filter_is_option(int opt);

/*! cli_filter_option() : applies one filter option with its argument.
 *  @return : 0, or -1 with a sentence in err (for a usage error). */
int cli_filter_option(struct cli_filter *f, int opt, const char *arg, char *err, size_t errlen);

/*! cli_filter_usage() : writes the filter part of a --help text. */
void cli_filter_usage(FILE *out);

/*! cli_filter_begin_file() : resets the per-input state; relative times
 *  count from lf->start_time when the logfile header is present, else from
 *  the first event that has a time. lf may be NULL. */
void cli_filter_begin_file(struct cli_filter *f, const struct etl_logfile *lf);

/*! cli_filter_match() : @return : 1 if ev passes every condition, else 0.
 *  With --since/--until, events without a converted time (ETL_EVF_UTC)
 *  never match. */
int cli_filter_match(struct cli_filter *f, const struct etl_event *ev);

/*! cli_parse_size() : a positive byte count with an optional K, M or G
 *  suffix (powers of 1024). @return : 0, or -1 on bad syntax, 0 or
 *  overflow. */
int cli_parse_size(const char *s, uint64_t *out);

/*! cli_limits_usage() : the --spool-limit and --order-memory lines of a
 *  --help text. */
void cli_limits_usage(FILE *out);

/*! cli_parse_u64() : decimal, or hexadecimal with a 0x prefix, up to max.
 *  @return : 0, or -1 on bad syntax or overflow. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/*! cli_parse_seconds() : "SECONDS[.fraction]" (up to 7 fractional digits)
 *  at s, as 100 ns units in *ticks; *end is where the number stops.
 *  @return : 0, or -1 when there is no number or it is absurdly large. */
int cli_parse_seconds(const char *s, const char **end, int64_t *ticks);

/*! cli_parse_time() : "YYYY-MM-DD[THH:MM[:SS[.fffffff]]][Z]" (UTC), or a
 *  number of seconds relative to the trace start ("90", "1.5", "-0.25").
 *  @return : 0, or -1 on bad syntax. */
int cli_parse_time(const char *s, struct cli_time *t);

/*! cli_json_string() : writes s as a JSON string literal, quotes included.
 *  Control characters become \u00XX; bytes that are not valid UTF-8 become
 *  U+FFFD, so the output is valid JSON whatever s holds. NULL -> null. */
void cli_json_string(FILE *out, const char *s);

/*! cli_json_string_n() : like cli_json_string() for n bytes of s. */
void cli_json_string_n(FILE *out, const char *s, size_t n);

/*! cli_text_safe() : writes s for a terminal: control characters become
 *  \xNN, other bytes pass through. */
void cli_text_safe(FILE *out, const char *s);

/* Enough for a GUID or "component:4294967295". */
#define CLI_PROVIDER_STRLEN 48

/*! cli_event_uses_id() : 1 if the event is identified by an id
 *  (EVENT_HEADER, ERROR, MESSAGE), 0 if by an opcode (the others). */
int cli_event_uses_id(const struct etl_event *ev);

/*! cli_event_is_system() : 1 for system-style headers (SYSTEM, COMPACT,
 *  PERFINFO), which carry a kernel HookId. */
int cli_event_is_system(const struct etl_event *ev);

/*! cli_log_file_mode_names() : writes the names of the LogFileMode bits of
 *  mode, separated by '|' ("SEQUENTIAL|COMPRESSED"), and any unnamed bits
 *  as hex. "NONE" for 0. @return : out. */
char *cli_log_file_mode_names(uint32_t mode, char *out, size_t outlen);

/*! cli_clock_type_name() : "QPC", "SYSTEMTIME", "CPUCYCLE", "RAW", or
 *  "unknown". */
const char *cli_clock_type_name(uint32_t clock_type);

/*! cli_timer_source_name() : HAL_PLATFORM_TIMER_SOURCE names ("Hpet",
 *  "HvReferenceTime", ...), or NULL. */
const char *cli_timer_source_name(uint64_t v);

#endif /* CLI_COMMON_H */
