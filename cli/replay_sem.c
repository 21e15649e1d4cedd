/*
 * replay_sem.c - the Scenario Event Mapper during a replay (replay_sem.h,
 * doc/sem.md §13): the configuration from a .reg file or offline hives,
 * the SEM on the replay's clock, DiagLog.etl and WdiContextLog.etl made as
 * the replay's own output is (staged in a private directory beside their
 * final names and moved into place only when the replay succeeded:
 * replay_out.c), and what the user reads at the end: one row per scenario
 * instance on standard output and, with --report, the JSON contract of
 * doc/sem.md §13 written through etl_outfile (a temporary file renamed).
 *
 * The SEM's sessions block rather than lose events (a replay has time,
 * and a report with losses would not say what the trace holds) and have
 * no flush timer (their buffers are written when full and at the end).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_common.h"
#include "replay_sem.h"

struct replay_sem {
	etl_sem_config *cfg;
	etl_sem *sem;
	struct replay_out diag, ctx;       /* the two files, staged           */
	char *diag_path, *ctx_path;        /* their final names               */
	const char *report;                /* --report FILE.json, or NULL     */
	FILE *table;                       /* stdout, or stderr when OUT is   */
};

int replay_sem_wanted(const struct replay_sem_options *o)
{
	return o->config || o->system_hive;
}

/* ---- paths ------------------------------------------------------------------ */

/* The directory the SEM writes into (malloc'd): --out-dir, else OUT's,
 * else ".". */
static char *out_dir(const struct replay_sem_options *o, const char *output)
{
	if (o->out_dir)
		return strdup(o->out_dir);
	const char *slash = output && strcmp(output, "-") != 0 ? strrchr(output, '/') : NULL;
	if (!slash)
		return strdup(".");
	if (slash == output)
		return strdup("/");
	char *d = malloc((size_t)(slash - output) + 1);
	if (d) {
		memcpy(d, output, (size_t)(slash - output));
		d[slash - output] = 0;
	}
	return d;
}

static char *joined(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* 1 when a and b name the same place: the same text, or the same file
 * name in the same directory (which must exist). */
static int same_place(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 1;
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	if (strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b) != 0)
		return 0;
	char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	snprintf(da, sizeof da, "%.*s", sa ? (int)(sa - a) + 1 : 1, sa ? a : ".");
	snprintf(db, sizeof db, "%.*s", sb ? (int)(sb - b) + 1 : 1, sb ? b : ".");
	return realpath(da, ra) && realpath(db, rb) && strcmp(ra, rb) == 0;
}

/* One file the SEM writes: no input, not OUT, not another of its files. */
static int check_path(const char *path, const char *output, const char *other, char **inputs, int n)
{
	if (cli_check_paths(path, inputs, n, 1) != CLI_EXIT_CLEAN)
		return CLI_EXIT_USAGE;
	if (output && strcmp(output, "-") != 0 && same_place(path, output)) {
		cli_message("'%s' is both the output and a file of the SEM", path);
		return CLI_EXIT_USAGE;
	}
	if (other && same_place(path, other)) {
		cli_message("'%s' is both the report and a file of the SEM", path);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_CLEAN;
}

int replay_sem_check(const struct replay_sem_options *o, const char *output, char **inputs, int n)
{
	if (!replay_sem_wanted(o))
		return CLI_EXIT_CLEAN;
	char *dir = out_dir(o, output);
	char *d = dir ? joined(dir, ETL_SEM_DIAGLOG_FILE) : NULL;
	char *c = dir ? joined(dir, ETL_SEM_CONTEXTLOG_FILE) : NULL;
	int rc = CLI_EXIT_CLEAN;
	if (!d || !c) {
		cli_message("out of memory");
		rc = CLI_EXIT_IO;
	} else if ((rc = check_path(d, output, o->report, inputs, n)) == CLI_EXIT_CLEAN &&
	           (rc = check_path(c, output, o->report, inputs, n)) == CLI_EXIT_CLEAN && o->report) {
		rc = check_path(o->report, output, NULL, inputs, n);
	}
	free(dir);
	free(d);
	free(c);
	return rc;
}

/* ---- open ----------------------------------------------------------------- */

static etl_sem_config *load(const struct replay_sem_options *o, int *rc)
{
	struct etl_sem_error err;
	etl_sem_config *cfg = o->config ? etl_sem_config_from_reg_file(o->config, &err)
	                                : etl_sem_config_from_hives(o->system_hive, o->software_hive, &err);
	if (!cfg) {
		cli_errorf(err.message, "%s", "");
		*rc = err.code == ETL_E_IO || err.code == ETL_E_NOMEM ? CLI_EXIT_IO : CLI_EXIT_USAGE;
		return NULL;
	}
	const char *name = o->config ? o->config : o->system_hive;
	size_t nd;
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &nd);
	for (size_t i = 0; i < nd; i++)
		cli_errorf(d[i].message, "%s: warning: %s%s%s: ", cli_display_name(name), d[i].key,
		           d[i].key[0] ? ": " : "", d[i].rule);
	if (!etl_sem_config_enabled(cfg))
		cli_errorf(etl_sem_config_disabled_message(cfg), "%s: warning: the SEM is off: ", cli_display_name(name));
	return cfg;
}

/* A file of the SEM staged beside its final name. */
static int stage(struct replay_out *ro, char **final, const char *dir, const char *name)
{
	*final = joined(dir, name);
	if (!*final) {
		cli_message("out of memory");
		return CLI_EXIT_IO;
	}
	return replay_out_begin(ro, *final, 0);
}

int replay_sem_open(const struct replay_sem_options *o, const char *output, etl_clock_fn clock, void *clock_ctx,
                    struct replay_sem **out)
{
	*out = NULL;
	struct replay_sem *rs = calloc(1, sizeof *rs);
	if (!rs) {
		cli_message("out of memory");
		return CLI_EXIT_IO;
	}
	int rc = CLI_EXIT_CLEAN;
	rs->report = o->report;
	rs->table = output && strcmp(output, "-") == 0 ? stderr : stdout;
	rs->cfg = load(o, &rc);
	char *dir = rs->cfg ? out_dir(o, output) : NULL;
	if (rs->cfg && !dir) {
		cli_message("out of memory");
		rc = CLI_EXIT_IO;
	}
	if (dir && (rc = stage(&rs->diag, &rs->diag_path, dir, ETL_SEM_DIAGLOG_FILE)) == CLI_EXIT_CLEAN)
		rc = stage(&rs->ctx, &rs->ctx_path, dir, ETL_SEM_CONTEXTLOG_FILE);
	if (rc == CLI_EXIT_CLEAN) {
		struct etl_sem_options so;
		etl_sem_options_init(&so);
		so.directory = dir;
		so.diaglog.file_name = rs->diag.staged;
		so.diaglog.log_file_name = rs->diag_path;
		so.context.file_name = rs->ctx.staged;
		so.context.log_file_name = rs->ctx_path;
		so.blocking = 1;
		/* No timer flush: nothing reads the files while the replay
		 * writes them, and on trace time a one-second timer would write
		 * a buffer for nearly every event of a sparse trace. */
		so.diaglog.flush_timer_ms = 0;
		so.context.flush_timer_ms = 0;
		so.clock = clock;
		so.clock_ctx = clock_ctx;
		rs->sem = etl_sem_new(rs->cfg, &so);
		if (!rs->sem) {
			cli_message("out of memory");
			rc = CLI_EXIT_IO;
		} else if (etl_sem_start(rs->sem) != ETL_OK) {
			cli_message("cannot start the SEM: %s", etl_sem_errmsg(rs->sem));
			rc = CLI_EXIT_IO;
		}
	}
	free(dir);
	if (rc != CLI_EXIT_CLEAN) {
		replay_sem_free(rs);
		return rc;
	}
	*out = rs;
	return CLI_EXIT_CLEAN;
}

/* ---- during the replay -------------------------------------------------- */

int replay_sem_event(struct replay_sem *rs, const struct etl_event *ev)
{
	if (etl_sem_clock_advanced(rs->sem) == ETL_FATAL) {
		cli_message("the SEM: %s", etl_sem_errmsg(rs->sem));
		return ETL_FATAL;
	}
	return etl_sem_replay_event(rs->sem, ev);
}

/* ---- the table ------------------------------------------------------------ */

/* g as the registry and the report write it: upper case, braced. */
static const char *guid_text(const struct etl_guid *g, char out[40])
{
	char t[ETL_GUID_STRLEN];
	etl_guid_format(g, t);
	out[0] = '{';
	for (int i = 0; t[i]; i++)
		out[i + 1] = (char)toupper((unsigned char)t[i]);
	strcpy(out + ETL_GUID_STRLEN, "}");
	return out;
}

/* A growing string; on out of memory it stays empty and says so. */
struct text {
	char *p;
	size_t n, cap;
	int oom;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	if (t->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(t->p ? t->p + t->n : NULL, t->cap - t->n, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if (t->n + (size_t)k < t->cap) {
			t->n += (size_t)k;
			return;
		}
		size_t cap = (t->n + (size_t)k + 1) * 2;
		char *p = realloc(t->p, cap < 64 ? 64 : cap);
		if (!p) {
			t->oom = 1;
			return;
		}
		t->p = p;
		t->cap = cap < 64 ? 64 : cap;
	}
}

enum { COL_SCENARIOS, COL_ACTIVITY, COL_START, COL_END, COL_DURATION, COL_CONTEXT, N_COLS };
static const char *const HEADINGS[N_COLS] = { "SCENARIOS", "ACTIVITY", "START", "END", "DURATION",
	                                      "CONTEXT EVENTS" };

/* provider;id at TIME */
static void event_cell(struct text *t, const struct etl_sem_report_event *e)
{
	char g[40], when[ETL_TIME_STRLEN];
	add(t, "%s;%u %s", guid_text(&e->provider, g), (unsigned)e->id, etl_filetime_format(e->time, when, sizeof when));
}

/* The cells of instance x. */
static void cells(const struct etl_sem_instance_report *x, struct text c[N_COLS])
{
	char g[40], when[ETL_TIME_STRLEN];
	for (size_t i = 0; i < x->n_scenarios; i++) {
		const char *name = etl_sem_scenario_name(&x->scenarios[i]);
		add(&c[COL_SCENARIOS], "%s%s%s%s", i ? ", " : "", name ? name : "", name ? " " : "",
		    guid_text(&x->scenarios[i], g));
	}
	add(&c[COL_ACTIVITY], "%s", guid_text(&x->activity, g));
	event_cell(&c[COL_START], &x->start);
	if (x->status == ETL_SEM_INSTANCE_ENDED)
		event_cell(&c[COL_END], &x->end);
	else if (x->status == ETL_SEM_INSTANCE_TIMED_OUT)
		add(&c[COL_END], "timeout %s", etl_filetime_format(x->end.time, when, sizeof when));
	else
		add(&c[COL_END], "open");
	if (x->duration < 0)
		add(&c[COL_DURATION], "-");
	else
		add(&c[COL_DURATION], "%" PRId64 ".%03d s", x->duration / 10000000, (int)(x->duration / 10000 % 1000));
	int any = 0;
	for (size_t i = 0; i < x->n_context; i++) {
		if (!x->context[i].events)
			continue;
		add(&c[COL_CONTEXT], "%s%s %" PRIu64, any ? ", " : "", guid_text(&x->context[i].provider, g),
		    x->context[i].events);
		any = 1;
	}
	if (!any)
		add(&c[COL_CONTEXT], "-");
}

/* The table: a heading, one row per instance (columns padded to their
 * widest cell, the last one not), then the totals. @return : 0, or -1 out
 * of memory. */
static int print_table(const struct etl_sem_report *r, const struct replay_sem *rs, FILE *f)
{
	size_t n = r->n_instances;
	struct text *c = calloc((n ? n : 1) * N_COLS, sizeof *c);
	if (!c)
		return -1;
	size_t width[N_COLS];
	int oom = 0;
	for (int k = 0; k < N_COLS; k++)
		width[k] = strlen(HEADINGS[k]);
	for (size_t i = 0; i < n; i++) {
		cells(&r->instances[i], &c[i * N_COLS]);
		for (int k = 0; k < N_COLS; k++) {
			oom |= c[i * N_COLS + k].oom;
			if (c[i * N_COLS + k].n > width[k])
				width[k] = c[i * N_COLS + k].n;
		}
	}
	size_t ended = 0, timed_out = 0;
	for (size_t i = 0; i < n; i++) {
		ended += r->instances[i].status == ETL_SEM_INSTANCE_ENDED;
		timed_out += r->instances[i].status == ETL_SEM_INSTANCE_TIMED_OUT;
	}
	fprintf(f, "SEM: %zu scenario instance%s (%zu ended, %zu timed out, %zu open)\n", n, n == 1 ? "" : "s", ended,
	       timed_out, n - ended - timed_out);
	if (n && !oom) {
		for (int k = 0; k < N_COLS; k++)
			fprintf(f, k + 1 < N_COLS ? "%-*s  " : "%.*s\n", (int)width[k], HEADINGS[k]);
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < N_COLS; k++)
				fprintf(f, k + 1 < N_COLS ? "%-*s  " : "%.*s\n", (int)width[k], c[i * N_COLS + k].p);
	}
	fprintf(f, "SEM: %s %" PRIu64 " events, %s %" PRIu64 " events, %" PRIu64 " lost\n", rs->diag_path,
	       r->diaglog_events, rs->ctx_path, r->wdicontextlog_events, r->lost_events);
	for (size_t i = 0; i < n * N_COLS; i++)
		free(c[i].p);
	free(c);
	return oom ? -1 : 0;
}

/* ---- the end ------------------------------------------------------------------- */

static int outfile_write(void *ctx, const void *data, size_t n)
{
	return etl_outfile_write(ctx, data, n) == ETL_OK ? 0 : -1;
}

static int write_report(const struct etl_sem_report *r, const char *path)
{
	etl_outfile *f = etl_outfile_new();
	int ok = f && etl_outfile_open(f, path) == ETL_OK && etl_sem_report_write_json(r, outfile_write, f) == 0 &&
	         etl_outfile_commit(f) == ETL_OK;
	if (!ok)
		cli_error(path, f ? etl_outfile_errmsg(f) : "out of memory");
	etl_outfile_free(f);
	return ok ? CLI_EXIT_CLEAN : CLI_EXIT_IO;
}

int replay_sem_finish(struct replay_sem *rs, char **inputs, int n, int commit)
{
	int rc = CLI_EXIT_CLEAN;
	if (etl_sem_stop(rs->sem) != ETL_OK) {
		cli_message("the SEM: %s", etl_sem_errmsg(rs->sem));
		rc = CLI_EXIT_IO;
		commit = 0;
	}
	if (!commit) {
		replay_out_abandon(&rs->diag);
		replay_out_abandon(&rs->ctx);
		return rc;
	}
	rc = cli_worse(replay_out_commit(&rs->diag, 1, inputs, n), replay_out_commit(&rs->ctx, 1, inputs, n));
	struct etl_sem_report *r = etl_sem_report_new(rs->sem);
	if (!r) {
		cli_message("out of memory for the SEM's report");
		return CLI_EXIT_IO;
	}
	if (print_table(r, rs, rs->table) != 0) {
		cli_message("out of memory for the SEM's table");
		rc = CLI_EXIT_IO;
	}
	if (fflush(rs->table) != 0 || ferror(rs->table)) {
		cli_message("cannot write the SEM's table: %s", strerror(errno));
		rc = CLI_EXIT_IO;
	}
	if (rs->report)
		rc = cli_worse(rc, write_report(r, rs->report));
	etl_sem_report_free(r);
	return rc;
}

void replay_sem_free(struct replay_sem *rs)
{
	if (!rs)
		return;
	etl_sem_free(rs->sem);
	etl_sem_config_free(rs->cfg);
	replay_out_abandon(&rs->diag);
	replay_out_abandon(&rs->ctx);
	free(rs->diag_path);
	free(rs->ctx_path);
	free(rs);
}
