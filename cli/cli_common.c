/*
 * cli_common.c - what the command-line tools share: messages, exit
 * statuses, option boilerplate, opening readers, the progress display, the
 * event filter, number and time parsing, JSON escaping and flag names.
 * See cli_common.h.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli_common.h"

#define TICKS_PER_SEC 10000000LL

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

/* ---- the event filter ---------------------------------------------------- */

void cli_filter_init(struct cli_filter *f)
{
	memset(f, 0, sizeof *f);
}

void cli_filter_free(struct cli_filter *f)
{
	for (size_t i = 0; i < f->n_names; i++)
		free(f->names[i]);
	free(f->names);
	free(f->guids);
	memset(f, 0, sizeof *f);
}

int cli_filter_is_option(int opt)
{
	return opt >= CLI_OPT_PROVIDER && opt < CLI_OPT_FILTER_END_;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;
	int n = 0;
	while (*p >= '0' && *p <= '9') {
		if (v > UINT64_MAX / 10 - 9)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
		n++;
	}
	if (n == 0)
		return -1;
	switch (*p) {
	case 0: break;
	case 'k': case 'K': mul = 1024; p++; break;
	case 'm': case 'M': mul = 1024 * 1024; p++; break;
	case 'g': case 'G': mul = 1024 * 1024 * 1024; p++; break;
	default: return -1;
	}
	if (*p || v == 0 || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

void cli_spool_limit_usage(FILE *out)
{
	fputs("      --spool-limit N[K|M|G]\n"
	      "                        the most temporary space (in $TMPDIR) a compressed or\n"
	      "                        piped input may take when it is read in time order\n"
	      "                        (default 4G, or the free space of $TMPDIR if less)\n",
	      out);
}

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int base = 10, n = 0;
	if (!s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, n++) {
		unsigned d;
		char c = *s;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + d;
	}
	if (n == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, const char **end, int64_t *ticks)
{
	int64_t secs = 0, frac = 0;
	int nd = 0, nf = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9') {
		if (secs > 100000000000LL)      /* > 3000 years: nonsense */
			return -1;
		secs = secs * 10 + (*p - '0');
		p++;
		nd++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (nf < 7) {
				frac = frac * 10 + (*p - '0');
				nf++;
			}
			p++;
			nd++;
		}
		for (int i = nf; i < 7; i++)
			frac *= 10;
	}
	*end = p;
	if (nd == 0)
		return -1;
	*ticks = secs * TICKS_PER_SEC + frac;
	return 0;
}

int cli_parse_time(const char *s, struct cli_time *t)
{
	const char *p = s;
	int neg = 0;
	if (!s || !*s)
		return -1;
	if (*p == '+' || *p == '-') {
		neg = *p == '-';
		p++;
	}
	/* A plain number: seconds from the trace start. A date has a '-' after
	 * its four-digit year, which stops the number scan. */
	int64_t ticks;
	const char *end;
	if (cli_parse_seconds(p, &end, &ticks) == 0 && *end == 0) {
		t->relative = 1;
		t->value = neg ? -ticks : ticks;
		return 0;
	}
	int64_t ft;
	if (etl_filetime_parse(s, &ft) != ETL_OK)
		return -1;
	t->relative = 0;
	t->value = ft;
	return 0;
}

static int set_err(char *err, size_t errlen, const char *what, const char *arg, const char *hint)
{
	snprintf(err, errlen, "invalid %s '%s'%s%s", what, arg, hint ? ": " : "", hint ? hint : "");
	return -1;
}

/* A numeric option: arg, up to max, into *val with *has set. */
static int num_opt(const char *arg, uint64_t max, const char *what, int *has, uint64_t *val,
                   char *err, size_t errlen)
{
	if (cli_parse_u64(arg, max, val) != 0) {
		char hint[96];
		snprintf(hint, sizeof hint, "expected a number from 0 to %llu (decimal or 0x hex)",
		         (unsigned long long)max);
		return set_err(err, errlen, what, arg, hint);
	}
	*has = 1;
	return 0;
}

static int add_guid(struct cli_filter *f, const struct etl_guid *g)
{
	struct etl_guid *n = realloc(f->guids, (f->n_guids + 1) * sizeof *n);
	if (!n)
		return -1;
	f->guids = n;
	f->guids[f->n_guids++] = *g;
	return 0;
}

/* --provider: a GUID, or a name (EventSource and TraceLogging providers
 * take their GUID from their name, decoding.md §7: that GUID is matched
 * too, so the name works even where the trace does not carry it). */
static int provider_opt(struct cli_filter *f, const char *arg, char *err, size_t errlen)
{
	struct etl_guid g;
	if (!arg || !*arg)
		return set_err(err, errlen, "provider", arg ? arg : "", "empty");
	if (etl_guid_parse(arg, &g) == ETL_OK)
		return add_guid(f, &g) == 0 ? 0 : set_err(err, errlen, "provider", arg, "out of memory");
	char **n = realloc(f->names, (f->n_names + 1) * sizeof *n);
	if (!n)
		return set_err(err, errlen, "provider", arg, "out of memory");
	f->names = n;
	if (!(f->names[f->n_names] = strdup(arg)))
		return set_err(err, errlen, "provider", arg, "out of memory");
	f->n_names++;
	if (etl_provider_guid_from_name(arg, &g) == ETL_OK && add_guid(f, &g) != 0)
		return set_err(err, errlen, "provider", arg, "out of memory");
	return 0;
}

/* --since, --until. */
static int time_opt(struct cli_filter *f, int opt, const char *arg, char *err, size_t errlen)
{
	struct cli_time t;
	if (cli_parse_time(arg, &t) != 0)
		return set_err(err, errlen, opt == CLI_OPT_SINCE ? "--since time" : "--until time",
		               arg ? arg : "",
		               "expected YYYY-MM-DD[THH:MM[:SS[.fffffff]]][Z] (UTC) or seconds from the trace start");
	if (opt == CLI_OPT_SINCE) {
		f->has_since = 1;
		f->since = t;
	} else {
		f->has_until = 1;
		f->until = t;
	}
	return 0;
}

/* --type. */
static int type_opt(struct cli_filter *f, const char *arg, char *err, size_t errlen)
{
	int k = etl_hdr_kind_from_name(arg ? arg : "");
	if (k == ETL_HDR_UNKNOWN)
		return set_err(err, errlen, "header type", arg ? arg : "",
		               "expected SYSTEM32, SYSTEM64, COMPACT32, COMPACT64, PERFINFO32, "
		               "PERFINFO64, FULL_HEADER32, FULL_HEADER64, INSTANCE32, INSTANCE64, "
		               "EVENT_HEADER32, EVENT_HEADER64, MESSAGE, ERROR, TIMED or WNODE");
	f->kinds |= 1u << k;
	return 0;
}

int cli_filter_option(struct cli_filter *f, int opt, const char *arg, char *err, size_t errlen)
{
	/* The numeric options: largest value, name in messages, field. */
#define NUM(max, what, field) num_opt(arg, max, what, &f->has_##field, &f->field, err, errlen)
	int rc;
	switch (opt) {
	case CLI_OPT_PROVIDER: rc = provider_opt(f, arg, err, errlen); break;
	case CLI_OPT_ID: rc = NUM(UINT16_MAX, "event id", id); break;
	case CLI_OPT_OPCODE: rc = NUM(UINT8_MAX, "opcode", opcode); break;
	case CLI_OPT_LEVEL: rc = NUM(UINT8_MAX, "level", level); break;
	case CLI_OPT_KEYWORD: rc = NUM(UINT64_MAX, "keyword mask", keyword); break;
	case CLI_OPT_PID: rc = NUM(UINT32_MAX, "process id", pid); break;
	case CLI_OPT_TID: rc = NUM(UINT32_MAX, "thread id", tid); break;
	case CLI_OPT_CPU: rc = NUM(UINT16_MAX, "processor", cpu); break;
	case CLI_OPT_TYPE: rc = type_opt(f, arg, err, errlen); break;
	case CLI_OPT_SINCE:
	case CLI_OPT_UNTIL: rc = time_opt(f, opt, arg, err, errlen); break;
	default:
		snprintf(err, errlen, "unknown filter option %d", opt);
		return -1;
	}
#undef NUM
	if (rc == 0)
		f->active = 1;
	return rc;
}

void cli_filter_usage(FILE *out)
{
	fputs("Filters (all given conditions must hold; repeated --provider/--type: any):\n"
	      "      --provider GUID|NAME  events of this provider (name: case-insensitive;\n"
	      "                            EventSource/TraceLogging names also match the\n"
	      "                            GUID derived from the name)\n"
	      "      --id N                event id (EVENT_HEADER id, WPP message number,\n"
	      "                            kernel HookId)\n"
	      "      --opcode N            opcode\n"
	      "      --level N             level N or lower (more severe)\n"
	      "      --keyword MASK        any of these keyword bits (decimal or 0x hex)\n"
	      "      --pid N               process id\n"
	      "      --tid N               thread id\n"
	      "      --cpu N               processor number\n"
	      "      --type HEADERTYPE     trace header type (SYSTEM64, EVENT_HEADER64, ...)\n"
	      "      --since TIME          events at or after TIME\n"
	      "      --until TIME          events before TIME\n"
	      "                            TIME is YYYY-MM-DD[THH:MM[:SS[.fffffff]]][Z] (UTC)\n"
	      "                            or seconds from the trace start (e.g. 1.5)\n",
	      out);
}

static void resolve_times(struct cli_filter *f)
{
	f->since_ft = f->since.relative ? f->base + f->since.value : f->since.value;
	f->until_ft = f->until.relative ? f->base + f->until.value : f->until.value;
}

void cli_filter_begin_file(struct cli_filter *f, const struct etl_logfile *lf)
{
	f->base_known = 0;
	f->base = 0;
	if (lf && lf->present) {
		f->base_known = 1;
		f->base = lf->start_time;
	}
	resolve_times(f);
}

int cli_filter_match(struct cli_filter *f, const struct etl_event *ev)
{
	if (!f->active)
		return 1;
	if (f->kinds && !(ev->kind > 0 && ev->kind < 32 && (f->kinds & (1u << ev->kind))))
		return 0;
	/* System-style headers carry their HookId as the event id (etl_event.h
	 * documents ev->id so; read hook_id, which every decoder sets). */
	if (f->has_id && (cli_event_is_system(ev) ? ev->hook_id : ev->id) != f->id)
		return 0;
	if (f->has_opcode && ev->opcode != f->opcode)
		return 0;
	if (f->has_level && ev->level > f->level)
		return 0;
	if (f->has_keyword && !(ev->keyword & f->keyword))
		return 0;
	if (f->has_pid && (!(ev->present & ETL_EVF_PID) || ev->pid != f->pid))
		return 0;
	if (f->has_tid && (!(ev->present & ETL_EVF_PID) || ev->tid != f->tid))
		return 0;
	if (f->has_cpu && ev->processor != f->cpu)
		return 0;
	if (f->n_guids || f->n_names) {
		int ok = 0;
		if (ev->present & ETL_EVF_PROVIDER)
			for (size_t i = 0; i < f->n_guids && !ok; i++)
				ok = etl_guid_equal(&ev->provider, &f->guids[i]);
		for (size_t i = 0; i < f->n_names && !ok; i++) {
			if (ev->provider_name)
				ok = strcasecmp(ev->provider_name, f->names[i]) == 0;
			else if ((ev->present & ETL_EVF_COMPONENT_ID) &&
			         strncasecmp(f->names[i], "component:", 10) == 0) {
				uint64_t c;
				ok = cli_parse_u64(f->names[i] + 10, UINT32_MAX, &c) == 0 &&
				     c == ev->component_id;
			}
		}
		if (!ok)
			return 0;
	}
	if (f->has_since || f->has_until) {
		if (!(ev->present & ETL_EVF_UTC))
			return 0;
		if (!f->base_known && ((f->has_since && f->since.relative) ||
		                       (f->has_until && f->until.relative))) {
			/* No logfile header: count from the first timed event. */
			f->base_known = 1;
			f->base = ev->utc;
			resolve_times(f);
		}
		if (f->has_since && ev->utc < f->since_ft)
			return 0;
		if (f->has_until && ev->utc >= f->until_ft)
			return 0;
	}
	return 1;
}

/* ---- JSON and text escaping ------------------------------------------ */

static int file_sink(void *ctx, const void *p, size_t n)
{
	fwrite(p, 1, n, ctx);
	return 0;
}

void cli_json_string_n(FILE *out, const char *s, size_t n)
{
	etl_json_escape(s, n, ETL_JSON_ESCAPE_U00XX, file_sink, out);
}

void cli_json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	cli_json_string_n(out, s, strlen(s));
}

void cli_text_safe(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p < 0x20 || *p == 0x7F)
			fprintf(out, "\\x%02x", *p);
		else
			putc(*p, out);
	}
}

/* ---- names ----------------------------------------------------------- */

int cli_event_uses_id(const struct etl_event *ev)
{
	switch (ev->kind) {
	case ETL_HDR_EVENT_HEADER32:
	case ETL_HDR_EVENT_HEADER64:
	case ETL_HDR_ERROR:
	case ETL_HDR_MESSAGE:
		return 1;
	default:
		return 0;
	}
}

int cli_event_is_system(const struct etl_event *ev)
{
	return (ev->present & ETL_EVF_HOOKID) != 0;
}

char *cli_log_file_mode_names(uint32_t mode, char *out, size_t outlen)
{
	/* SDK evntrace.h names without EVENT_TRACE_, plus the private bits
	 * from phnt (doc/format.md §2.4). */
	static const char *const names[32] = {
		"FILE_MODE_SEQUENTIAL", "CIRCULAR", "APPEND", "NEWFILE",
		"USE_MS_FLUSH_TIMER", "PREALLOCATE", "NONSTOPPABLE", "SECURE",
		"REAL_TIME", "DELAY_OPEN_FILE", "BUFFERING", "PRIVATE_LOGGER",
		"ADD_HEADER", "USE_KBYTES_FOR_SIZE", "USE_GLOBAL_SEQUENCE", "USE_LOCAL_SEQUENCE",
		"RELOG", "PRIVATE_IN_PROC", "BUFFER_INTERFACE", "KD_FILTER",
		"REALTIME_RELOG", "LOST_EVENTS_DEBUG", "STOP_ON_HYBRID_SHUTDOWN",
		"PERSIST_ON_HYBRID_SHUTDOWN", "USE_PAGED_MEMORY", "SYSTEM_LOGGER", "COMPRESSED",
		"INDEPENDENT_SESSION", "NO_PER_PROCESSOR_BUFFERING", "BLOCKING", NULL,
		"ADDTO_TRIAGE_DUMP",
	};
	size_t len = 0;
	uint32_t unnamed = 0;
	if (outlen == 0)
		return out;
	out[0] = 0;
	if (mode == 0) {
		snprintf(out, outlen, "NONE");
		return out;
	}
	for (int b = 0; b < 32; b++) {
		uint32_t bit = 1u << b;
		if (!(mode & bit))
			continue;
		if (!names[b]) {
			unnamed |= bit;
			continue;
		}
		int w = snprintf(out + len, outlen - len, "%s%s", len ? "|" : "", names[b]);
		if (w < 0 || (size_t)w >= outlen - len)
			return out;
		len += (size_t)w;
	}
	if (unnamed)
		snprintf(out + len, outlen - len, "%s0x%x", len ? "|" : "", unnamed);
	return out;
}

const char *cli_clock_type_name(uint32_t clock_type)
{
	switch (clock_type) {
	case ETL_CLOCK_RAW: return "RAW";
	case ETL_CLOCK_QPC: return "QPC";
	case ETL_CLOCK_SYSTEMTIME: return "SYSTEMTIME";
	case ETL_CLOCK_CPUCYCLE: return "CPUCYCLE";
	default: return "unknown";
	}
}

const char *cli_timer_source_name(uint64_t v)
{
	/* HAL_PLATFORM_TIMER_SOURCE (doc/format.md §2.2). */
	static const char *const names[] = {
		"NotSpecified", "8254", "Rtc", "Acpi", "AcpiBroken", "Hpet", "ProcessorCounter",
		"HvReferenceTime", "Sfi", "Apic", "HvSynthetic", "Custom", "CycleCounter", "Git",
	};
	if (v >= sizeof names / sizeof names[0])
		return NULL;
	return names[v];
}
