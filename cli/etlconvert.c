/*
 * etlconvert.c - convert Windows ETW .etl files. -f etl re-encodes events
 * into a new .etl file (with the etldump filters, compression on or off,
 * several inputs merged in time order, output split by size or time) or
 * copies buffers byte for byte (--raw). -f xml|json|jsonl|csv|text decodes
 * the events (one etl_decoder per run) and renders them with etl_output
 * (include/etl_output.h) to standard output or to a file (written to a
 * temporary beside it and renamed on success; .gz / .lz4 names compressed
 * as a stream).
 *
 * Rendering, per conversion: every input is opened in time order and the
 * inputs are merged by UTC time as for -f etl; every record passes (the
 * header-buffer records too) unless a filter drops it, except the first
 * input's logfile-header record, which always passes and is sent first:
 * etl_output makes it the header event. The other inputs' logfile-header
 * records are written as ordinary events.
 *
 * Re-encoding, per conversion:
 *   1. every input is opened in time order (all at once: a k-way merge);
 *      a second, buffer-walking reader finds the highest processor number
 *      of each input so that the output has a buffer stream for every
 *      processor an event names (number_of_processors = the largest of the
 *      inputs' logfile values and highest processor + 1);
 *   2. the output's logfile header comes from the first input's
 *      (etl_writer_options_from_logfile), the clock and its anchor
 *      (StartTime at T0) from the input that started earliest; with several
 *      inputs LogFileName is "[multiple files]" and RELOG is set;
 *   3. the first input's header-buffer records after the logfile header
 *      (Extension, PartitionInfoExtension, BuildInfo, ...) are copied into
 *      the output's header buffer (bare_header) before any event, with a
 *      file-order reader that stops after the header buffer; the other
 *      inputs' header-buffer records are dropped;
 *   4. events are written in order of UTC time, always the smallest next;
 *      events of an input whose clock differs from the output's get their
 *      timestamp re-expressed in the output clock;
 *   5. lost-event and lost-buffer counts of the inputs are added up;
 *      EndTime is the latest of the inputs'.
 * CIRCULAR and NEWFILE are dropped from LogFileMode (SEQUENTIAL is set in
 * their place): the output is written front to back and holds every
 * event.
 *
 * Exit status: 0 clean; 1 usage error; 2 some input had damage or some
 * event could not be re-encoded (each is reported; the output holds the
 * rest); 3 an input could not be opened or read, or the output could not
 * be written (no output is left behind).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lz4frame.h>
#include <zlib.h>
#include "cli_common.h"
#include "etl.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "etl_writer.h"

#define PROG "etlconvert"

#define EXIT_CLEAN   0
#define EXIT_USAGE   1
#define EXIT_DAMAGE  2
#define EXIT_IO      3

#define PROGRESS_MIN_SIZE (8u * 1024u * 1024u)
#define TICKS_PER_SEC 10000000LL

/* getopt_long() values of long-only options (below the CLI_OPT_* range). */
enum {
	OPT_COMPRESS = 0x800,
	OPT_NO_COMPRESS,
	OPT_RAW,
	OPT_SPLIT_SIZE,
	OPT_SPLIT_TIME,
	OPT_MANIFEST,
	OPT_TMF,
};

struct options {
	const char *format;
	const char *output;
	int compress;              /* -1 as the input, 0 off, 1 on           */
	int raw;
	uint64_t split_size;       /* bytes, 0 = no size split               */
	int64_t split_time;        /* 100 ns units, 0 = no time split        */
	int quiet;
	int progress_ok;
	const char *manifest;      /* last --manifest PATH, or NULL          */
	const char **manifests;    /* every --manifest PATH, in order        */
	int n_manifests;
	const char *tmf;           /* last --tmf PATH, or NULL               */
	const char **tmfs;         /* every --tmf PATH, in order             */
	int n_tmfs;
	struct cli_filter filter;
};

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
	       "                        before the extension)\n"
	       "      --split-time SECONDS\n"
	       "                        (-f etl) start the next numbered file when an event\n"
	       "                        is SECONDS or more after the current file's first one\n"
	       "      --manifest PATH   instrumentation manifest (file, or directory of\n"
	       "                        *.man/*.xml) for decoding; repeatable\n"
	       "      --tmf PATH        WPP trace message format file (file, or directory\n"
	       "                        of *.tmf) for decoding; repeatable\n"
	       "  -q, --quiet           no progress display on stderr\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n"
	       "\n");
	cli_filter_usage(stdout);
	printf("\nWith -f etl, the logfile header and the header buffer's records are always\n"
	       "kept. With the other formats the first input's logfile header is written\n"
	       "first, as the tracerpt header event; events that cannot be decoded are\n"
	       "written with their payload in hex and the reason. See etlconvert(1).\n"
	       "\n"
	       "Exit status: 0 success, 1 usage error, 2 damaged input or events that could\n"
	       "not be re-encoded (each is reported on stderr; the output holds the rest),\n"
	       "3 input/output error (no output is left behind).\n");
}

static int worse(int a, int b)
{
	return a > b ? a : b;
}

static void report_reader(const char *name, const char *kind, etl_reader *r)
{
	fprintf(stderr, PROG ": %s: offset 0x%llx: %s", name, (unsigned long long)etl_reader_erroff(r),
	        kind);
	cli_text_safe(stderr, etl_reader_errmsg(r));
	fputc('\n', stderr);
}

/* ---- option parsing --------------------------------------------------- */

static int parse_size(const char *s, uint64_t *out)
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

/* Seconds with up to 7 fractional digits, > 0, as 100 ns units. */
static int parse_seconds(const char *s, int64_t *out)
{
	const char *end;
	if (cli_parse_seconds(s, &end, out) != 0 || *end)
		return -1;
	return *out > 0 ? 0 : -1;
}

/* ---- split output names ------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* OUT.etl -> OUT_003.etl; OUT.etl.gz -> OUT_003.etl.gz; OUT -> OUT_003:
 * the number goes before the last extension of the file name, not
 * counting a final .gz or .lz4. Caller frees. */
static char *piece_name(const char *out, unsigned index)
{
	size_t len = strlen(out);
	size_t comp = ends_with(out, ".gz") ? 3 : ends_with(out, ".lz4") ? 4 : 0;
	size_t stem = len - comp;
	const char *base = strrchr(out, '/');
	size_t base_at = base ? (size_t)(base - out) + 1 : 0;
	size_t at = stem;
	for (size_t i = stem; i > base_at; i--) {
		if (out[i - 1] == '.') {
			if (i - 1 > base_at)         /* not a leading dot (".etl") */
				at = i - 1;
			break;
		}
	}
	char num[16];
	int nl = snprintf(num, sizeof num, "_%03u", index);
	char *s = malloc(len + (size_t)nl + 1);
	if (!s)
		return NULL;
	memcpy(s, out, at);
	memcpy(s + at, num, (size_t)nl);
	memcpy(s + at + nl, out + at, len - at + 1);
	return s;
}

/* ---- clocks ------------------------------------------------------------ */

/* The reader's conversion (lib/common/time.c): FILETIME = start + (raw - t0) *
 * mul / div, truncated toward zero. */
struct clock {
	int usable;
	int64_t t0, start, mul, div;
};

static void clock_from(struct clock *ck, int present, uint32_t clock_type, int64_t perf_freq,
                       uint32_t cpu_mhz, int64_t start_time, int64_t t0)
{
	memset(ck, 0, sizeof *ck);
	if (!present)
		return;
	ck->t0 = t0;
	ck->start = start_time;
	switch (clock_type) {
	case ETL_CLOCK_QPC:
		if (perf_freq > 0) {
			ck->mul = TICKS_PER_SEC;
			ck->div = perf_freq;
		}
		break;
	case ETL_CLOCK_SYSTEMTIME:
		ck->mul = ck->div = 1;
		break;
	case ETL_CLOCK_CPUCYCLE:
		if (cpu_mhz > 0) {
			ck->mul = 10;
			ck->div = cpu_mhz;
		}
		break;
	default:
		if (perf_freq > 0) {
			ck->mul = TICKS_PER_SEC;
			ck->div = perf_freq;
		} else {
			ck->mul = ck->div = 1;
		}
		break;
	}
	ck->usable = ck->div != 0;
}

static int clock_same(const struct clock *a, const struct clock *b)
{
	return a->usable == b->usable && a->t0 == b->t0 && a->start == b->start &&
	       a->mul == b->mul && a->div == b->div;
}

/* The raw value in clock ck whose conversion comes nearest FILETIME ft:
 * raw = T0 + (ft - StartTime) * div / mul (for QPC: * PerfFreq / 10^7),
 * in 128-bit arithmetic, choosing between the two neighbouring raw values
 * the one that converts back closest to ft. A clock faster than 10 MHz
 * gives ft exactly; a slower one is off by at most half its tick.
 * @return : 0, or -1 if the clock is unusable or the value overflows. */
static int clock_from_utc(const struct clock *ck, int64_t ft, int64_t *raw)
{
	if (!ck->usable)
		return -1;
	__int128 d = (__int128)ft - ck->start;
	__int128 a = d < 0 ? -d : d;
	/* r: the smallest |raw - T0| that converts to |d| or beyond; the
	 * reader truncates toward zero, so both signs are symmetric. */
	__int128 r = (a * ck->div + ck->mul - 1) / ck->mul;
	if (r > 0) {
		__int128 over = r * ck->mul / ck->div - a;
		__int128 under = a - (r - 1) * ck->mul / ck->div;
		if (under < over)
			r--;
	}
	__int128 v = (__int128)ck->t0 + (d < 0 ? -r : r);
	if (v > INT64_MAX || v < INT64_MIN)
		return -1;
	*raw = (int64_t)v;
	return 0;
}

/* ---- events kept across readers --------------------------------------- */

/* A deep copy of an event (its record bytes), for header-buffer records
 * written to every output file. */
struct kept_event {
	struct etl_event ev;
	uint8_t *mem;
};

static int keep_event(struct kept_event *k, const struct etl_event *ev)
{
	size_t rec = ev->record ? ev->size : 0;
	size_t total = rec + ev->payload_size + ev->ext_size;
	memset(k, 0, sizeof *k);
	k->ev = *ev;
	k->mem = malloc(total ? total : 1);
	if (!k->mem)
		return -1;
	uint8_t *p = k->mem;
	if (rec) {
		memcpy(p, ev->record, rec);
		k->ev.record = p;
		p += rec;
	}
	if (ev->payload_size) {
		memcpy(p, ev->payload, ev->payload_size);
		k->ev.payload = p;
		p += ev->payload_size;
	}
	if (ev->ext_size) {
		memcpy(p, ev->ext, ev->ext_size);
		k->ev.ext = p;
	}
	return 0;
}

/* ---- inputs ------------------------------------------------------------ */

struct input {
	const char *path;
	const char *name;
	int fd;                    /* spooled standard input, else -1        */
	etl_reader *r;
	const struct etl_logfile *lf;
	struct cli_filter filter;  /* shallow copy: per-input time bounds    */
	struct clock clk;
	int convert;               /* re-express timestamps in the output clock */
	int max_proc;              /* highest processor of any buffer, -1    */
	int hdr_flags_known;
	uint16_t hdr_flags, hdr_logger_id;
	const struct etl_event *ev;   /* look-ahead, borrowed from r         */
	int64_t key;               /* UTC of ev, or of the last timed event  */
	int done;
	int rc;
	uint64_t size;             /* input size if known                    */
	int keep_all;              /* rendering: header-buffer records too   */
	int header_pass;           /* rendering: the logfile-header record
	                              passes the filter (first input)       */
};

/* Standard input is copied to an unlinked temporary file so that it can
 * be read by several readers (processor scan, header records, events). */
static int spool_stdin(struct input *in)
{
	struct stat st;
	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		in->fd = STDIN_FILENO;
		return 0;
	}
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(tmpl, sizeof tmpl, "%s/etlconvert-XXXXXX", dir) >= sizeof tmpl) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	unlink(tmpl);
	static char buf[1 << 16];
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(fd, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(fd);
				return -1;
			}
			done += w;
		}
	}
	in->fd = fd;
	return 0;
}

static int open_reader(struct input *in, etl_reader **rp, int order)
{
	etl_reader *r = etl_reader_new();
	*rp = r;
	if (!r) {
		fprintf(stderr, PROG ": %s: out of memory\n", in->name);
		return ETL_FATAL;
	}
	etl_reader_set_order(r, order);
	int st = in->fd >= 0 ? etl_reader_open_fd(r, in->fd) : etl_reader_open_file(r, in->path);
	if (st == ETL_FATAL || st == ETL_FAILED) {
		fprintf(stderr, PROG ": %s: ", in->name);
		cli_text_safe(stderr, etl_reader_errmsg(r));
		fputc('\n', stderr);
		return ETL_FATAL;
	}
	return st;
}

/* Opens one input for conversion in time order: its reader, logfile
 * header, size (for progress) and its own copy of the filters. Standard
 * input may be named once; with spool it is first copied to a temporary
 * file (-f etl reads inputs twice). Returns EXIT_CLEAN or the exit status
 * to stop with (the message is printed). */
static int open_input(struct input *in, const char *path, const struct options *o, int spool,
                      int *stdin_used)
{
	in->path = path;
	in->name = cli_display_name(path);
	if (strcmp(path, "-") == 0) {
		if ((*stdin_used)++) {
			fprintf(stderr, PROG ": standard input can be read only once\n");
			return EXIT_USAGE;
		}
		if (spool && spool_stdin(in) != 0) {
			fprintf(stderr, PROG ": %s: cannot copy it to a temporary file: %s\n", in->name, strerror(errno));
			return EXIT_IO;
		}
	}
	int st = open_reader(in, &in->r, ETL_ORDER_TIME);
	if (st == ETL_FATAL)
		return EXIT_IO;
	if (st == ETL_WARN)
		report_reader(in->name, "warning: ", in->r);
	in->lf = etl_reader_logfile(in->r);
	struct etl_reader_stats rs;
	etl_reader_stats(in->r, &rs);
	in->size = rs.input_size;
	in->key = INT64_MIN;
	in->filter = o->filter;
	cli_filter_begin_file(&in->filter, in->lf);
	return EXIT_CLEAN;
}

/* Highest processor number of any buffer, and the header buffer's flags
 * and logger id, from a walk over the buffer headers. Damage is reported
 * by the main pass, not here. */
static void scan_buffers(struct input *in)
{
	etl_reader *r;
	const struct etl_buffer_info *bi;
	int st;
	in->max_proc = -1;
	if (open_reader(in, &r, ETL_ORDER_FILE) == ETL_FATAL) {
		etl_reader_free(r);
		return;
	}
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END && st != ETL_FATAL) {
		if (!bi)
			continue;
		if ((int)bi->processor > in->max_proc)
			in->max_proc = bi->processor;
		if (bi->file_offset == 0) {
			in->hdr_flags_known = 1;
			in->hdr_flags = bi->flags;
			in->hdr_logger_id = bi->logger_id;
		}
	}
	etl_reader_free(r);
}

/* The header-buffer records after the logfile header, copied; and the
 * logfile-header record's process and thread ids. */
struct header_records {
	struct kept_event *v;
	size_t n;
	int have_ids;
	uint32_t pid, tid;
};

static void header_records_free(struct header_records *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].mem);
	free(h->v);
	memset(h, 0, sizeof *h);
}

static int read_header_records(struct input *in, struct header_records *h)
{
	etl_reader *r;
	const struct etl_event *ev;
	int st, rc = 0;
	memset(h, 0, sizeof *h);
	if (open_reader(in, &r, ETL_ORDER_FILE) == ETL_FATAL) {
		etl_reader_free(r);
		return -1;
	}
	const struct etl_logfile *lf = etl_reader_logfile(r);
	if (!lf->present) {
		etl_reader_free(r);
		return 0;
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL) {
		if (st == ETL_FAILED)
			continue;
		if (ev->buffer_offset != 0)
			break;
		if (ev->file_offset == lf->file_offset) {
			h->have_ids = (ev->present & ETL_EVF_PID) != 0;
			h->pid = ev->pid;
			h->tid = ev->tid;
			continue;
		}
		struct kept_event *n = realloc(h->v, (h->n + 1) * sizeof *n);
		if (!n || keep_event(&n[h->n], ev) != 0) {
			if (n)
				h->v = n;
			fprintf(stderr, PROG ": %s: out of memory\n", in->name);
			rc = -1;
			break;
		}
		h->v = n;
		h->n++;
	}
	etl_reader_free(r);
	return rc;
}

/* ---- progress --------------------------------------------------------- */

struct progress {
	int on;
	int last_pct;
	uint64_t total;
};

static void progress_update(struct progress *pg, struct input *ins, int n)
{
	uint64_t done = 0;
	for (int i = 0; i < n; i++) {
		struct etl_reader_stats st;
		etl_reader_stats(ins[i].r, &st);
		done += ins[i].done ? ins[i].size : st.bytes_in;
	}
	int pct = (int)(done * 100 / pg->total);
	if (pct > 100)
		pct = 100;
	if (pct <= pg->last_pct)
		return;
	pg->last_pct = pct;
	fprintf(stderr, "\r" PROG ": %3d%%", pct);
}

static void progress_end(struct progress *pg)
{
	if (pg->on && pg->last_pct >= 0)
		fprintf(stderr, "\r\033[K");
	pg->last_pct = -1;
}

/* ---- the output (one or several numbered files) ------------------------ */

struct output {
	const struct options *o;
	struct etl_writer_options wo;
	const struct header_records *hdr;
	const struct clock *out_clk;
	const struct clock *hdr_clk;     /* clock of the header records        */
	int split;
	etl_writer *w;
	char *cur;                 /* path being written                     */
	char **done;               /* files finished by this run             */
	size_t n_done;
	unsigned index;
	uint64_t events_in_file;
	uint32_t *cpu_pos;         /* the writer's buffer fill, per processor
	                              (replayed to predict the file size)    */
	uint64_t n_buffers;        /* data buffers the current file will have */
	uint64_t content;          /* bytes of records in the current file    */
	int64_t file_start;        /* UTC of the current file's first event  */
	int have_start;
	int rc;
};

static void writer_error(struct output *out)
{
	fprintf(stderr, PROG ": %s: ", cli_display_name(out->cur ? out->cur : out->o->output));
	cli_text_safe(stderr, out->w ? etl_writer_errmsg(out->w) : "out of memory");
	fputc('\n', stderr);
}

/* Removes every file this run finished (after a failure). */
static void output_discard(struct output *out)
{
	if (out->w) {
		etl_writer_free(out->w);       /* abandons the temporary */
		out->w = NULL;
	}
	for (size_t i = 0; i < out->n_done; i++) {
		unlink(out->done[i]);
		free(out->done[i]);
	}
	free(out->done);
	out->done = NULL;
	out->n_done = 0;
	free(out->cur);
	out->cur = NULL;
}

/* The first input's header records. When the output's clock is another
 * input's (that one started earlier), they are stamped with the output's
 * start T0: they describe the session, which now begins there, and the
 * header buffer is read first in its processor's stream, so a later stamp
 * would put them out of time order. */
static int write_header_records(struct output *out)
{
	for (size_t i = 0; i < out->hdr->n; i++) {
		struct etl_event ev = out->hdr->v[i].ev;
		if (!clock_same(out->hdr_clk, out->out_clk))
			ev.timestamp = out->wo.start_timestamp;
		int st = etl_writer_write_header_event(out->w, &ev);
		if (st == ETL_FATAL)
			return -1;
		if (st != ETL_OK && out->index == 0) {
			fprintf(stderr, PROG ": %s: header record at offset 0x%llx not copied: ",
			        cli_display_name(out->cur), (unsigned long long)ev.file_offset);
			cli_text_safe(stderr, etl_writer_errmsg(out->w));
			fputc('\n', stderr);
			out->rc = worse(out->rc, EXIT_DAMAGE);
		}
	}
	return 0;
}

static int output_open(struct output *out)
{
	free(out->cur);
	out->cur = out->split ? piece_name(out->o->output, out->index) : strdup(out->o->output);
	out->w = etl_writer_new();
	if (!out->cur || !out->w) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	if (etl_writer_open_file(out->w, out->cur, &out->wo) != ETL_OK) {
		writer_error(out);
		return -1;
	}
	out->events_in_file = 0;
	memset(out->cpu_pos, 0, out->wo.number_of_processors * sizeof *out->cpu_pos);
	out->n_buffers = 0;
	out->content = 0;
	out->have_start = 0;
	return write_header_records(out) == 0 ? 0 : (writer_error(out), -1);
}

static int output_close(struct output *out, uint32_t events_lost, uint32_t buffers_lost)
{
	etl_writer_add_lost(out->w, events_lost, buffers_lost);
	int st = etl_writer_close(out->w);
	if (st == ETL_FATAL) {
		writer_error(out);
		return -1;
	}
	etl_writer_free(out->w);
	out->w = NULL;
	char **n = realloc(out->done, (out->n_done + 1) * sizeof *n);
	if (!n) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	out->done = n;
	out->done[out->n_done++] = out->cur;
	out->cur = NULL;
	return 0;
}

/* 1 if writing ev makes the writer begin a buffer for its processor. */
static int needs_buffer(const struct output *out, const struct etl_event *ev)
{
	uint32_t pos = ev->processor < out->wo.number_of_processors ? out->cpu_pos[ev->processor] : 0;
	return pos == 0 || ((ev->size + 7u) & ~7u) > out->wo.buffer_size - pos;
}

/* Replays the writer's packing of a written event. */
static void count_event(struct output *out, const struct etl_event *ev)
{
	if (ev->processor >= out->wo.number_of_processors)
		return;
	if (needs_buffer(out, ev)) {
		out->n_buffers++;
		out->cpu_pos[ev->processor] = ETL_BUFFER_HEADER_SIZE;
	}
	out->cpu_pos[ev->processor] += (ev->size + 7u) & ~7u;
	out->content += (ev->size + 7u) & ~7u;
}

/* Starts the next numbered file before ev when the current one is full. */
static int output_maybe_rotate(struct output *out, const struct etl_event *ev)
{
	if (!out->split || out->events_in_file == 0)
		return 0;
	int rotate = 0;
	if (out->o->split_size) {
		uint64_t est;
		if (out->wo.log_file_mode & ETL_MODE_COMPRESSED) {
			/* Compressed: what was sent so far (the writer holds up to
			 * two buffers' worth). */
			struct etl_writer_stats st;
			etl_writer_stats(out->w, &st);
			est = st.bytes_written + ((ev->size + 7u) & ~7u);
			if (est > out->o->split_size)
				rotate = 1;
		} else {
			/* Plain: header buffer + every buffer begun, with this
			 * event, packed as the writer packs them; so a file never
			 * passes N. But every processor in use holds a buffer of
			 * its own: when N is small for that, a file takes events
			 * until they fill half of N at least, rather than a few. */
			est = (uint64_t)out->wo.buffer_size * (1 + out->n_buffers +
			                                       needs_buffer(out, ev));
			if (est > out->o->split_size && out->content >= out->o->split_size / 2)
				rotate = 1;
		}
	}
	if (out->o->split_time && out->have_start && (ev->present & ETL_EVF_UTC) &&
	    ev->utc - out->file_start >= out->o->split_time)
		rotate = 1;
	if (!rotate)
		return 0;
	if (output_close(out, 0, 0) != 0)
		return -1;
	out->index++;
	return output_open(out);
}

/* ---- re-encoding ------------------------------------------------------- */

/* 1 if ev is the input's logfile-header record (EventTrace Header). */
static int is_header_record(const struct input *in, const struct etl_event *ev)
{
	return in->lf->present && cli_event_is_system(ev) && ev->hook_id == 0 &&
	       ev->file_offset == in->lf->file_offset;
}

/* Next event of an input that is written: passing the filter and, for
 * -f etl, not a header-buffer record (those are copied apart).
 * @return : 0, or -1 on a fatal read error. */
static int fetch(struct input *in)
{
	const struct etl_event *ev;
	for (;;) {
		int st = etl_reader_next(in->r, &ev);
		if (st == ETL_END) {
			in->done = 1;
			in->ev = NULL;
			return 0;
		}
		if (st == ETL_FATAL) {
			report_reader(in->name, "", in->r);
			in->done = 1;
			in->ev = NULL;
			in->rc = EXIT_IO;
			return -1;
		}
		if (st == ETL_FAILED) {
			report_reader(in->name, "", in->r);
			in->rc = worse(in->rc, EXIT_DAMAGE);
			continue;
		}
		if (st == ETL_WARN)
			report_reader(in->name, "warning: ", in->r);
		if (!in->keep_all && in->lf->present && ev->buffer_offset == 0)
			continue;
		if (!(in->header_pass && is_header_record(in, ev)) && !cli_filter_match(&in->filter, ev))
			continue;
		in->ev = ev;
		if (ev->present & ETL_EVF_UTC)
			in->key = ev->utc;
		return 0;
	}
}

static void free_inputs(struct input *ins, int n)
{
	for (int i = 0; i < n; i++) {
		etl_reader_free(ins[i].r);
		if (ins[i].fd > STDIN_FILENO)
			close(ins[i].fd);
	}
	free(ins);
}

/* A buffer size the writer accepts: 4 KiB..16 MiB, a multiple of 8. */
static uint32_t sane_buffer_size(uint32_t bs)
{
	if (bs < 0x1000)
		return bs ? 0x1000 : 64 * 1024;
	if (bs > 16u * 1024 * 1024)
		return 16u * 1024 * 1024;
	return (bs + 7u) & ~7u;
}

static uint32_t sane_mode(uint32_t m)
{
	if (m & (ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE)) {
		m &= ~(ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE);
		m |= ETL_MODE_SEQUENTIAL;
	}
	return m;
}

static int convert_etl(struct options *o, char **paths, int n)
{
	struct input *ins = calloc((size_t)n, sizeof *ins);
	struct header_records hdr;
	struct output out;
	struct clock out_clk;
	int rc = EXIT_CLEAN, stdin_used = 0;
	memset(&hdr, 0, sizeof hdr);
	memset(&out, 0, sizeof out);
	if (!ins) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_IO;
	}
	for (int i = 0; i < n; i++)
		ins[i].fd = -1;

	/* Open every input before creating the output. */
	for (int i = 0; i < n; i++) {
		struct input *in = &ins[i];
		int orc = open_input(in, paths[i], o, 1, &stdin_used);
		if (orc != EXIT_CLEAN) {
			free_inputs(ins, n);
			return orc;
		}
		const struct etl_logfile *lf = in->lf;
		clock_from(&in->clk, lf->present, lf->reserved_flags, lf->perf_freq, lf->cpu_speed_mhz,
		           lf->start_time, lf->header_timestamp);
		scan_buffers(in);
	}
	if (read_header_records(&ins[0], &hdr) != 0) {
		header_records_free(&hdr);
		free_inputs(ins, n);
		return EXIT_IO;
	}

	/* Output options: the first input's header; the clock of the input
	 * that started first. */
	struct etl_writer_options *wo = &out.wo;
	const struct etl_logfile *lf0 = ins[0].lf;
	etl_writer_options_from_logfile(wo, lf0);
	int anchor = 0;
	for (int i = 1; i < n; i++)
		if (ins[i].lf->present &&
		    (!ins[anchor].lf->present || ins[i].lf->start_time < ins[anchor].lf->start_time))
			anchor = i;
	const struct etl_logfile *alf = ins[anchor].lf;
	if (alf->present) {
		wo->clock_type = alf->reserved_flags;
		wo->perf_freq = alf->perf_freq;
		wo->cpu_speed_mhz = alf->cpu_speed_mhz;
		wo->start_time = alf->start_time;
		wo->start_timestamp = alf->header_timestamp;
		wo->boot_time = alf->boot_time;
	}
	uint32_t nproc = wo->number_of_processors, bs = wo->buffer_size;
	uint32_t events_lost = 0, buffers_lost = 0;
	int64_t end_time = 0;
	for (int i = 0; i < n; i++) {
		const struct etl_logfile *lf = ins[i].lf;
		if (lf->present) {
			if (lf->number_of_processors > nproc)
				nproc = lf->number_of_processors;
			if (lf->buffer_size > bs)
				bs = lf->buffer_size;
			events_lost += lf->events_lost;
			buffers_lost += lf->buffers_lost;
			if (lf->end_time > end_time)
				end_time = lf->end_time;
		}
		if (ins[i].max_proc >= 0 && (uint32_t)ins[i].max_proc + 1 > nproc)
			nproc = (uint32_t)ins[i].max_proc + 1;
	}
	wo->number_of_processors = nproc > 0xFFFF ? 0xFFFF : nproc ? nproc : 1;
	wo->buffer_size = sane_buffer_size(bs);
	wo->log_file_mode = sane_mode(wo->log_file_mode);
	if (o->compress == 1)
		wo->log_file_mode |= ETL_MODE_COMPRESSED;
	else if (o->compress == 0)
		wo->log_file_mode &= ~ETL_MODE_COMPRESSED;
	if (n > 1) {
		wo->log_file_name = "[multiple files]";
		wo->log_file_mode |= ETL_MODE_RELOG;
	}
	wo->end_time = (o->split_size || o->split_time) ? 0 : end_time;
	wo->bare_header = lf0->present;
	if (ins[0].hdr_flags_known) {
		wo->relogger_style = !(ins[0].hdr_flags & ETL_BUF_FLAG_PROC_INDEX);
		wo->logger_id = ins[0].hdr_logger_id;
	}
	if (hdr.have_ids) {
		wo->header_pid = hdr.pid;
		wo->header_tid = hdr.tid;
	}
	clock_from(&out_clk, 1, wo->clock_type, wo->perf_freq, wo->cpu_speed_mhz, wo->start_time,
	           wo->start_timestamp);
	for (int i = 0; i < n; i++)
		ins[i].convert = !clock_same(&ins[i].clk, &out_clk);

	out.o = o;
	out.hdr = &hdr;
	out.out_clk = &out_clk;
	out.hdr_clk = &ins[0].clk;
	out.split = o->split_size || o->split_time;
	if (o->split_size && o->split_size < 2 * (uint64_t)wo->buffer_size) {
		/* Each file holds its header buffer and at least one data
		 * buffer; anything smaller would mean a file per event. */
		fprintf(stderr, PROG ": --split-size %llu is less than two buffers of the output "
		        "(2 x %u bytes): each file holds a header buffer and data buffers\n",
		        (unsigned long long)o->split_size, wo->buffer_size);
		header_records_free(&hdr);
		free_inputs(ins, n);
		return EXIT_USAGE;
	}
	out.cpu_pos = calloc(wo->number_of_processors, sizeof *out.cpu_pos);
	if (!out.cpu_pos) {
		fprintf(stderr, PROG ": out of memory\n");
		header_records_free(&hdr);
		free_inputs(ins, n);
		return EXIT_IO;
	}

	struct progress pg = { 0, -1, 0 };
	for (int i = 0; i < n; i++)
		pg.total += ins[i].size;
	pg.on = o->progress_ok && pg.total > PROGRESS_MIN_SIZE;

	int failed = 0;
	if (output_open(&out) != 0)
		failed = 1;
	for (int i = 0; i < n && !failed; i++)
		if (fetch(&ins[i]) != 0)
			failed = 1;
	unsigned tick = 0;
	while (!failed) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (!ins[i].done && (best < 0 || ins[i].key < ins[best].key))
				best = i;
		if (best < 0)
			break;
		struct input *in = &ins[best];
		const struct etl_event *ev = in->ev;
		struct etl_event conv;
		int64_t raw;
		if (in->convert && (ev->present & ETL_EVF_UTC) &&
		    clock_from_utc(&out_clk, ev->utc, &raw) == 0) {
			conv = *ev;
			conv.timestamp = raw;
			ev = &conv;
		}
		if (output_maybe_rotate(&out, ev) != 0) {
			failed = 1;
			break;
		}
		int st = etl_writer_write_event(out.w, ev);
		if (st == ETL_FATAL) {
			writer_error(&out);
			failed = 1;
			break;
		}
		if (st != ETL_OK) {
			progress_end(&pg);
			fprintf(stderr, PROG ": %s: offset 0x%llx: event not written: ", in->name,
			        (unsigned long long)ev->file_offset);
			cli_text_safe(stderr, etl_writer_errmsg(out.w));
			fputc('\n', stderr);
			in->rc = worse(in->rc, EXIT_DAMAGE);
		} else {
			out.events_in_file++;
			count_event(&out, ev);
			if (!out.have_start && (ev->present & ETL_EVF_UTC)) {
				out.have_start = 1;
				out.file_start = ev->utc;
			}
		}
		if (pg.on && (++tick & 0x3FFF) == 0)
			progress_update(&pg, ins, n);
		if (fetch(in) != 0)
			failed = 1;
	}
	progress_end(&pg);
	if (!failed && output_close(&out, events_lost, buffers_lost) != 0)
		failed = 1;

	for (int i = 0; i < n; i++)
		rc = worse(rc, ins[i].rc);
	rc = worse(rc, out.rc);
	if (failed) {
		output_discard(&out);
		rc = EXIT_IO;
	} else {
		for (size_t i = 0; i < out.n_done; i++)
			free(out.done[i]);
		free(out.done);
		free(out.cur);
	}
	free(out.cpu_pos);
	header_records_free(&hdr);
	free_inputs(ins, n);
	return rc;
}

/* ---- raw copy ---------------------------------------------------------- */

static int convert_raw(struct options *o, const char *path)
{
	struct input in;
	etl_reader *r;
	int rc = EXIT_CLEAN, st;
	memset(&in, 0, sizeof in);
	in.path = path;
	in.name = cli_display_name(path);
	in.fd = -1;
	st = open_reader(&in, &r, ETL_ORDER_FILE);
	if (st == ETL_FATAL) {
		etl_reader_free(r);
		return EXIT_IO;
	}
	if (st == ETL_WARN)
		report_reader(in.name, "warning: ", r);

	struct etl_writer_options wo;
	etl_writer_options_from_logfile(&wo, etl_reader_logfile(r));
	wo.buffer_size = sane_buffer_size(wo.buffer_size);
	/* Raw mode writes no header buffer of its own, but the writer sends
	 * its initial one before the first raw buffer replaces it; compressed
	 * and bare, that one is only 512 bytes (a plain one would be a whole
	 * buffer, which a short input would not cover). */
	wo.log_file_mode = sane_mode(wo.log_file_mode) | ETL_MODE_COMPRESSED;
	wo.bare_header = 1;

	struct etl_reader_stats rs;
	etl_reader_stats(r, &rs);
	struct progress pg = { o->progress_ok && rs.input_size > PROGRESS_MIN_SIZE, -1, rs.input_size };

	etl_writer *w = etl_writer_new();
	if (!w) {
		fprintf(stderr, PROG ": out of memory\n");
		etl_reader_free(r);
		return EXIT_IO;
	}
	int failed = 0;
	if (etl_writer_open_file(w, o->output, &wo) != ETL_OK)
		failed = 1;
	const struct etl_buffer_info *bi;
	unsigned tick = 0;
	uint64_t copied = 0;
	while (!failed && (st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		if (st == ETL_FATAL) {
			progress_end(&pg);
			report_reader(in.name, "", r);
			rc = EXIT_IO;
			break;
		}
		if (st == ETL_FAILED) {
			progress_end(&pg);
			report_reader(in.name, "", r);
			rc = worse(rc, EXIT_DAMAGE);
		}
		if (bi && bi->stored && bi->available) {
			if (etl_writer_write_raw_buffer(w, bi->stored, bi->available) != ETL_OK)
				failed = 1;
			copied += bi->available;
		}
		if (pg.on && (++tick & 0xFF) == 0) {
			etl_reader_stats(r, &rs);
			int pct = (int)(rs.bytes_in * 100 / pg.total);
			if (pct > pg.last_pct && pct <= 100) {
				pg.last_pct = pct;
				fprintf(stderr, "\r" PROG ": %3d%%", pct);
			}
		}
	}
	progress_end(&pg);
	if (!failed && rc != EXIT_IO && etl_writer_close(w) != ETL_OK)
		failed = 1;
	if (failed) {
		fprintf(stderr, PROG ": %s: ", cli_display_name(o->output));
		cli_text_safe(stderr, etl_writer_errmsg(w));
		fputc('\n', stderr);
		rc = EXIT_IO;
	} else if (rc != EXIT_IO && !ends_with(o->output, ".gz") && !ends_with(o->output, ".lz4")) {
		/* The writer's first header buffer (512 bytes, see above) is
		 * left past the end when the input was shorter (cut inside its
		 * header buffer): cut the copy to what was read. */
		struct stat sb;
		if (stat(o->output, &sb) == 0 && (uint64_t)sb.st_size > copied &&
		    truncate(o->output, (off_t)copied) != 0) {
			fprintf(stderr, PROG ": %s: cannot shorten the copy: %s\n", o->output, strerror(errno));
			unlink(o->output);
			rc = EXIT_IO;
		}
	}
	etl_writer_free(w);             /* abandons the output if not closed */
	etl_reader_free(r);
	return rc;
}

/* ---- rendering: xml, json, jsonl, csv, text ------------------------------ */

/* Where rendered bytes go: standard output, or a temporary beside OUT
 * (renamed over it on success), plain or compressed as a stream (gzip
 * with zlib, an LZ4 frame with liblz4). */
enum { CODEC_NONE = 0, CODEC_GZIP, CODEC_LZ4 };

#define SINK_CHUNK (64u * 1024u)

struct sink {
	const char *path;          /* OUT, or NULL for standard output       */
	char *tmp;                 /* the temporary being written            */
	int fd;
	int codec;
	gzFile gz;
	LZ4F_cctx *lz;
	char *buf;                 /* plain: pending bytes; LZ4: frame out   */
	size_t len, cap;
	int err;                   /* errno of the first failure, or -1      */
	const char *what;          /* what failed                            */
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int sink_fail(struct sink *s, const char *what, int err)
{
	if (!s->what) {
		s->what = what;
		s->err = err;
	}
	return -1;
}

static int sink_write(void *ctx, const void *data, size_t n)
{
	struct sink *s = ctx;
	const char *p = data;
	if (s->what)
		return -1;
	switch (s->codec) {
	case CODEC_GZIP:
		while (n) {
			unsigned k = n > SINK_CHUNK ? SINK_CHUNK : (unsigned)n;
			if (gzwrite(s->gz, p, k) != (int)k) {
				int zerr;
				const char *m = gzerror(s->gz, &zerr);
				return sink_fail(s, zerr == Z_ERRNO ? "cannot write" : m, zerr == Z_ERRNO ? errno : -1);
			}
			p += k;
			n -= k;
		}
		return 0;
	case CODEC_LZ4:
		while (n) {
			size_t k = n > SINK_CHUNK ? SINK_CHUNK : n;
			size_t z = LZ4F_compressUpdate(s->lz, s->buf, s->cap, p, k, NULL);
			if (LZ4F_isError(z))
				return sink_fail(s, LZ4F_getErrorName(z), -1);
			if (write_all(s->fd, s->buf, z) != 0)
				return sink_fail(s, "cannot write", errno);
			p += k;
			n -= k;
		}
		return 0;
	default:
		if (n > s->cap - s->len) {
			if (write_all(s->fd, s->buf, s->len) != 0)
				return sink_fail(s, "cannot write", errno);
			s->len = 0;
		}
		if (n > s->cap)
			return write_all(s->fd, p, n) == 0 ? 0 : sink_fail(s, "cannot write", errno);
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		return 0;
	}
}

static void sink_report(const struct sink *s)
{
	fprintf(stderr, PROG ": %s: %s", s->path ? s->path : "(standard output)", s->what);
	if (s->err > 0)
		fprintf(stderr, ": %s", strerror(s->err));
	fputc('\n', stderr);
}

static int sink_open(struct sink *s, const char *path)
{
	memset(s, 0, sizeof s[0]);
	s->fd = -1;
	if (!path || strcmp(path, "-") == 0) {
		s->fd = STDOUT_FILENO;
	} else {
		s->path = path;
		s->codec = ends_with(path, ".gz") ? CODEC_GZIP : ends_with(path, ".lz4") ? CODEC_LZ4 : CODEC_NONE;
		size_t n = strlen(path) + 16;
		s->tmp = malloc(n);
		if (!s->tmp)
			return sink_fail(s, "out of memory", -1);
		snprintf(s->tmp, n, "%s.tmp-XXXXXX", path);
		s->fd = mkstemp(s->tmp);
		if (s->fd < 0) {
			free(s->tmp);
			s->tmp = NULL;
			return sink_fail(s, "cannot create a temporary file beside it", errno);
		}
		/* mkstemp makes it 0600; give it the mode a new file would get. */
		mode_t um = umask(0);
		umask(um);
		if (fchmod(s->fd, 0666 & ~um) != 0)
			return sink_fail(s, "cannot set the mode of the temporary file", errno);
	}
	if (s->codec == CODEC_GZIP) {
		s->gz = gzdopen(s->fd, "wb");
		if (!s->gz)
			return sink_fail(s, "cannot start gzip compression", errno);
		s->fd = -1;                /* gzclose() closes it */
		gzbuffer(s->gz, 128 * 1024);
		return 0;
	}
	if (s->codec == CODEC_LZ4) {
		LZ4F_preferences_t prefs;
		memset(&prefs, 0, sizeof prefs);
		if (LZ4F_isError(LZ4F_createCompressionContext(&s->lz, LZ4F_VERSION)))
			return sink_fail(s, "cannot start LZ4 compression", -1);
		s->cap = LZ4F_compressBound(SINK_CHUNK, &prefs) + LZ4F_HEADER_SIZE_MAX;
		s->buf = malloc(s->cap);
		if (!s->buf)
			return sink_fail(s, "out of memory", -1);
		size_t z = LZ4F_compressBegin(s->lz, s->buf, s->cap, &prefs);
		if (LZ4F_isError(z))
			return sink_fail(s, LZ4F_getErrorName(z), -1);
		if (write_all(s->fd, s->buf, z) != 0)
			return sink_fail(s, "cannot write", errno);
		return 0;
	}
	s->cap = 256 * 1024;
	s->buf = malloc(s->cap);
	return s->buf ? 0 : sink_fail(s, "out of memory", -1);
}

/* Finishes the stream; on success renames the temporary over OUT, on
 * failure (or when ok is 0) removes it. @return : 0 or -1 (reported). */
static int sink_close(struct sink *s, int ok)
{
	int rc = s->what ? -1 : 0;
	if (s->codec == CODEC_GZIP && s->gz) {
		int zr = gzclose(s->gz);
		s->gz = NULL;
		if (zr != Z_OK && rc == 0)
			rc = sink_fail(s, "cannot finish the gzip stream", zr == Z_ERRNO ? errno : -1);
	} else if (s->codec == CODEC_LZ4 && s->lz) {
		if (rc == 0 && ok) {
			size_t z = LZ4F_compressEnd(s->lz, s->buf, s->cap, NULL);
			if (LZ4F_isError(z))
				rc = sink_fail(s, LZ4F_getErrorName(z), -1);
			else if (write_all(s->fd, s->buf, z) != 0)
				rc = sink_fail(s, "cannot write", errno);
		}
		LZ4F_freeCompressionContext(s->lz);
		s->lz = NULL;
	} else if (s->codec == CODEC_NONE && s->buf && s->len && rc == 0 && ok) {
		if (write_all(s->fd, s->buf, s->len) != 0)
			rc = sink_fail(s, "cannot write", errno);
		s->len = 0;
	}
	if (s->fd >= 0 && s->fd != STDOUT_FILENO) {
		if (close(s->fd) != 0 && rc == 0)
			rc = sink_fail(s, "cannot write", errno);
		s->fd = -1;
	}
	if (s->tmp) {
		if (rc == 0 && ok && rename(s->tmp, s->path) != 0)
			rc = sink_fail(s, "cannot rename the temporary file over it", errno);
		if (rc != 0 || !ok)
			unlink(s->tmp);
		free(s->tmp);
		s->tmp = NULL;
	}
	free(s->buf);
	s->buf = NULL;
	if (rc != 0 && ok)
		sink_report(s);
	return rc;
}

static int convert_render(struct options *o, char **paths, int n)
{
	struct input *ins = calloc((size_t)n, sizeof *ins);
	struct sink sk;
	etl_decoder *dec = NULL;
	etl_output *out = NULL;
	int rc = EXIT_CLEAN, stdin_used = 0, failed = 0;
	memset(&sk, 0, sizeof sk);
	sk.fd = -1;
	if (!ins) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_IO;
	}
	for (int i = 0; i < n; i++)
		ins[i].fd = -1;

	/* Open every input before creating the output. */
	for (int i = 0; i < n; i++) {
		struct input *in = &ins[i];
		int orc = open_input(in, paths[i], o, 0, &stdin_used);
		if (orc != EXIT_CLEAN) {
			free_inputs(ins, n);
			return orc;
		}
		in->keep_all = 1;
		in->header_pass = i == 0;
	}

	dec = etl_decoder_new();
	out = etl_output_new(o->format, sink_write, &sk);
	if (!dec || !out) {
		fprintf(stderr, PROG ": out of memory\n");
		etl_output_free(out);
		etl_decoder_free(dec);
		free_inputs(ins, n);
		return EXIT_IO;
	}
	for (int i = 0; i < o->n_manifests; i++) {
		int mrc = etl_decoder_add_manifest(dec, o->manifests[i]);
		if (mrc != ETL_OK) {
			fprintf(stderr, PROG ": --manifest: %s\n", etl_decoder_errmsg(dec));
			etl_output_free(out);
			etl_decoder_free(dec);
			free_inputs(ins, n);
			return mrc == ETL_FATAL ? EXIT_IO : EXIT_USAGE;
		}
	}
	for (int i = 0; i < o->n_tmfs; i++) {
		int trc = etl_decoder_add_tmf(dec, o->tmfs[i]);
		if (trc != ETL_OK) {
			fprintf(stderr, PROG ": --tmf: %s\n", etl_decoder_errmsg(dec));
			etl_output_free(out);
			etl_decoder_free(dec);
			free_inputs(ins, n);
			return trc == ETL_FATAL ? EXIT_IO : EXIT_USAGE;
		}
	}
	if (sink_open(&sk, o->output) != 0) {
		sink_report(&sk);
		sink_close(&sk, 0);
		etl_output_free(out);
		etl_decoder_free(dec);
		free_inputs(ins, n);
		return EXIT_IO;
	}

	struct progress pg = { 0, -1, 0 };
	for (int i = 0; i < n; i++)
		pg.total += ins[i].size;
	pg.on = o->progress_ok && pg.total > PROGRESS_MIN_SIZE;

	if (etl_output_begin(out, ins[0].lf) != ETL_OK)
		failed = 1;
	for (int i = 0; i < n && !failed; i++)
		if (fetch(&ins[i]) != 0)
			failed = 1;
	/* The first input's logfile-header record goes first: it becomes the
	 * header event (with its process, thread and processor). */
	int first = !failed && ins[0].ev && is_header_record(&ins[0], ins[0].ev) ? 0 : -1;
	unsigned tick = 0;
	while (!failed) {
		int best = first;
		first = -1;
		if (best < 0)
			for (int i = 0; i < n; i++)
				if (!ins[i].done && (best < 0 || ins[i].key < ins[best].key))
					best = i;
		if (best < 0)
			break;
		struct input *in = &ins[best];
		const struct etl_decoded *d = NULL;
		if (etl_decoder_decode(dec, in->ev, &d) == ETL_FATAL) {
			progress_end(&pg);
			fprintf(stderr, PROG ": out of memory decoding an event\n");
			failed = 1;
			break;
		}
		if (etl_output_event(out, in->ev, d) != ETL_OK) {
			failed = 1;
			break;
		}
		if (pg.on && (++tick & 0x3FFF) == 0)
			progress_update(&pg, ins, n);
		if (fetch(in) != 0)
			failed = 1;
	}
	progress_end(&pg);
	if (!failed && etl_output_end(out) != ETL_OK)
		failed = 1;
	if (failed && sk.what) {
		sink_report(&sk);
	} else if (failed && etl_output_errcode(out) != ETL_E_NONE) {
		fprintf(stderr, PROG ": %s: ", sk.path ? sk.path : "(standard output)");
		cli_text_safe(stderr, etl_output_errmsg(out));
		fputc('\n', stderr);
	}
	if (sink_close(&sk, !failed) != 0)
		failed = 1;

	for (int i = 0; i < n; i++)
		rc = worse(rc, ins[i].rc);
	if (failed)
		rc = EXIT_IO;
	etl_output_free(out);
	etl_decoder_free(dec);
	free_inputs(ins, n);
	return rc;
}

/* ---- main -------------------------------------------------------------- */

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
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		CLI_FILTER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	static const char *const formats[] = { "etl", "xml", "json", "jsonl", "csv", "text" };
	struct options o;
	char err[512];
	int c, rc;

	memset(&o, 0, sizeof o);
	o.format = "etl";
	o.compress = -1;
	cli_filter_init(&o.filter);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:qhV", long_opts, NULL)) != -1) {
		if (cli_filter_is_option(c)) {
			if (cli_filter_option(&o.filter, c, optarg, err, sizeof err) != 0) {
				cli_usage_error(PROG, "%s", err);
				goto usage_fail;
			}
			continue;
		}
		switch (c) {
		case 'f': {
			size_t i;
			for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
				if (strcmp(optarg, formats[i]) == 0)
					break;
			if (i == sizeof formats / sizeof formats[0]) {
				cli_usage_error(PROG, "unknown format '%s' (etl, xml, json, jsonl, csv or text)", optarg);
				goto usage_fail;
			}
			o.format = formats[i];
			break;
		}
		case 'o': o.output = optarg; break;
		case OPT_COMPRESS: o.compress = 1; break;
		case OPT_NO_COMPRESS: o.compress = 0; break;
		case OPT_RAW: o.raw = 1; break;
		case OPT_SPLIT_SIZE:
			if (parse_size(optarg, &o.split_size) != 0) {
				cli_usage_error(PROG, "invalid --split-size '%s': expected a positive number of bytes "
				            "with an optional K, M or G suffix", optarg);
				goto usage_fail;
			}
			break;
		case OPT_SPLIT_TIME:
			if (parse_seconds(optarg, &o.split_time) != 0) {
				cli_usage_error(PROG, "invalid --split-time '%s': expected a positive number of seconds",
				            optarg);
				goto usage_fail;
			}
			break;
		case OPT_MANIFEST:
			if (!o.manifests && !(o.manifests = calloc((size_t)argc, sizeof *o.manifests))) {
				fprintf(stderr, PROG ": out of memory\n");
				goto usage_fail;
			}
			o.manifest = o.manifests[o.n_manifests++] = optarg;
			break;
		case OPT_TMF:
			if (!o.tmfs && !(o.tmfs = calloc((size_t)argc, sizeof *o.tmfs))) {
				fprintf(stderr, PROG ": out of memory\n");
				goto usage_fail;
			}
			o.tmf = o.tmfs[o.n_tmfs++] = optarg;
			break;
		case 'q': o.quiet = 1; break;
		case 'h':
			usage();
			cli_filter_free(&o.filter);
			return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_IO;
		case 'V':
			printf(PROG " (libetl) %s\n", etl_version_string());
			cli_filter_free(&o.filter);
			return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_IO;
		case ':':
			cli_usage_error(PROG, "option '%s' needs an argument", argv[optind - 1]);
			goto usage_fail;
		default:
			if (optopt && optopt < 0x100) {
				char opt[3] = { '-', (char)optopt, 0 };
				cli_usage_error(PROG, "unknown option '%s'", opt);
			} else {
				cli_usage_error(PROG, "unknown option '%s'", argv[optind - 1]);
			}
			goto usage_fail;
		}
	}

	int nfiles = argc - optind;
	int is_etl = strcmp(o.format, "etl") == 0;
	const char *conflict = NULL;
	if (!is_etl) {
		if (nfiles == 0)
			conflict = "no input file (give '-' to read standard input)";
		else if (o.raw)
			conflict = "--raw goes with -f etl only, not -f %s";
		else if (o.split_size || o.split_time)
			conflict = "--split-size and --split-time go with -f etl only, not -f %s";
		else if (o.compress >= 0)
			conflict = "--compress and --no-compress go with -f etl only, not -f %s (a name ending "
			           "in .gz or .lz4 compresses the output)";
	} else if (o.manifest || o.tmf)
		conflict = "--manifest and --tmf go with the xml, json, jsonl, csv and text formats";
	else if (!o.output)
		conflict = "no output file (give -o OUTPUT)";
	else if (strcmp(o.output, "-") == 0 || !o.output[0])
		conflict = "an .etl output must be a file: -o '%s' is not possible";
	else if (nfiles == 0)
		conflict = "no input file (give '-' to read standard input)";
	else if (o.raw && nfiles > 1)
		conflict = "--raw copies one input only";
	else if (o.raw && o.filter.active)
		conflict = "--raw cannot be combined with filters (it copies buffers, not events)";
	else if (o.raw && (o.split_size || o.split_time))
		conflict = "--raw cannot be combined with --split-size or --split-time";
	else if (o.raw && o.compress >= 0)
		conflict = "--raw cannot be combined with --compress or --no-compress";
	if (conflict) {
		cli_usage_error(PROG, conflict, !is_etl ? o.format : o.output ? o.output : "");
		goto usage_fail;
	}
	o.progress_ok = !o.quiet && isatty(STDERR_FILENO);

	if (!is_etl)
		rc = convert_render(&o, argv + optind, nfiles);
	else if (o.raw)
		rc = convert_raw(&o, argv[optind]);
	else
		rc = convert_etl(&o, argv + optind, nfiles);
	cli_filter_free(&o.filter);
	free(o.manifests);
	free(o.tmfs);
	return rc;

usage_fail:
	cli_filter_free(&o.filter);
	free(o.manifests);
	free(o.tmfs);
	return EXIT_USAGE;
}
