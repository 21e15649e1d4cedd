/*
 * convert_input.c - the inputs of one etlconvert run: every file opened in
 * time order before any output is made, merged by UTC time (etl_merge),
 * each with its own copy of the filters (relative times count from each
 * input's start), damage reported as it is met.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "convert.h"

/* The merge's filter: the header buffer's records (-f etl copies them
 * apart), then the command line's filters. A record left out that carries
 * schemas still goes to the decoder (the events it describes may pass). */
static int keep_event(void *ctx, int input, const struct etl_event *ev)
{
	struct convert_inputs *ins = ctx;
	struct convert_input *in = &ins->v[input];
	ins->records++;
	if (!ins->header_buffer && in->lf->present && ev->buffer_offset == 0)
		return 0;
	if (cli_filter_match(&in->filter, ev))
		return 1;
	if (ins->learn && etl_decoder_schema_event(ev))
		ins->learn(ins->learn_ctx, ev);
	return 0;
}

static void say_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct convert_inputs *ins = ctx;
	cli_progress_show(&ins->pg, done, total);
}

static void say_problem(void *ctx, const struct convert_input *in, uint64_t off, const char *kind,
                        const char *msg, int repeat)
{
	struct convert_inputs *ins = ctx;
	cli_progress_clear(&ins->pg);
	if (!repeat)
		cli_error_at(in->name, off, kind, msg);
}

const struct convert_say convert_say_now = { say_progress, say_problem };

etl_reader *convert_reopen(const struct convert_input *in, int order)
{
	int st;
	return cli_open_reader(in->name, in->path, in->fd, order, &st);
}

/* Opens one input. Standard input may be named once; with spool it is
 * first copied to a temporary file (-f etl reads inputs more than once). */
static int open_input(struct convert_input *in, const char *path, const struct convert_options *o,
                      int spool, int *stdin_used)
{
	in->path = path;
	in->name = cli_display_name(path);
	if (strcmp(path, "-") == 0) {
		if ((*stdin_used)++) {
			cli_message("standard input can be read only once");
			return CLI_EXIT_USAGE;
		}
		if (spool && (in->fd = etl_spool_fd(STDIN_FILENO)) < 0) {
			if (errno == EFBIG)
				cli_message("%s: cannot copy it to a temporary file: it is larger than the spool "
				            "limit (%llu bytes) or the free space of $TMPDIR; raise the limit with "
				            "--spool-limit, or give the input as a file", in->name,
				            (unsigned long long)etl_spool_limit());
			else
				cli_message("%s: cannot copy it to a temporary file: %s", in->name, strerror(errno));
			return CLI_EXIT_IO;
		}
	}
	int st;
	if (!(in->r = cli_open_reader(in->name, in->path, in->fd, ETL_ORDER_TIME, &st)))
		return st;
	in->rc = cli_report_open(in->name, in->r, st, &in->notes);
	in->lf = etl_reader_logfile(in->r);
	in->filter = o->filter;
	cli_filter_begin_file(&in->filter, in->lf);
	return CLI_EXIT_CLEAN;
}

int convert_open_inputs(struct convert_inputs *ins, char **paths, int n,
                        const struct convert_options *o, int spool, int header_buffer)
{
	int stdin_used = 0;
	memset(ins, 0, sizeof *ins);
	ins->header_buffer = header_buffer;
	ins->v = calloc((size_t)n, sizeof *ins->v);
	ins->m = etl_merge_new(header_buffer ? ETL_MERGE_HEADER_FIRST : 0);
	if (!ins->v || !ins->m) {
		cli_message("out of memory");
		convert_free_inputs(ins);
		return CLI_EXIT_IO;
	}
	for (int i = 0; i < n; i++)
		ins->v[i].fd = -1;
	ins->n = n;
	for (int i = 0; i < n; i++) {
		int rc = open_input(&ins->v[i], paths[i], o, spool, &stdin_used);
		if (rc == CLI_EXIT_CLEAN && etl_merge_add(ins->m, ins->v[i].r) != i) {
			cli_message("out of memory");
			rc = CLI_EXIT_IO;
		}
		if (rc != CLI_EXIT_CLEAN) {
			convert_free_inputs(ins);
			return rc;
		}
	}
	etl_merge_set_filter(ins->m, keep_event, ins);
	ins->say = &convert_say_now;
	ins->say_ctx = ins;
	uint64_t total;
	etl_merge_progress(ins->m, NULL, &total);
	cli_progress_init(&ins->pg, o->progress_ok && total > CLI_PROGRESS_MIN_SIZE, NULL);
	return CLI_EXIT_CLEAN;
}

int convert_next(struct convert_inputs *ins, const struct etl_event **ev, struct convert_input **in)
{
	int i;
	if (ins->pg.on && (++ins->tick & 0x3FFF) == 0) {
		uint64_t done, total;
		etl_merge_progress(ins->m, &done, &total);
		ins->say->progress(ins->say_ctx, done, total);
	}
	for (;;) {
		int st = etl_merge_next(ins->m, ev, &i);
		if (st == ETL_END)
			return 0;
		*in = &ins->v[i];
		if (st == ETL_OK)
			return 1;
		uint64_t off = etl_merge_erroff(ins->m);
		const char *msg = etl_merge_errmsg(ins->m);
		ins->say->problem(ins->say_ctx, *in, off, st == ETL_WARN ? "warning: " : "", msg,
		                  cli_open_note_repeats(&(*in)->notes, off, msg));
		if (st == ETL_FATAL) {
			(*in)->rc = CLI_EXIT_IO;
			return -1;
		}
		if (st == ETL_FAILED)
			(*in)->rc = cli_worse((*in)->rc, CLI_EXIT_DAMAGE);
	}
}

int convert_status(const struct convert_inputs *ins)
{
	int rc = CLI_EXIT_CLEAN;
	for (int i = 0; i < ins->n; i++)
		rc = cli_worse(rc, ins->v[i].rc);
	return rc;
}

int convert_nothing_read(const struct convert_inputs *ins, const char *output)
{
	const char *s = ins->n > 1 ? "s" : "";
	if (ins->records)
		return 0;
	if (!output || strcmp(output, "-") == 0)
		cli_message("nothing written to standard output: no event could be read from the input%s", s);
	else
		cli_message("%s: left as it was: no event could be read from the input%s", output, s);
	return 1;
}

void convert_free_inputs(struct convert_inputs *ins)
{
	cli_progress_clear(&ins->pg);
	etl_merge_free(ins->m);
	for (int i = 0; ins->v && i < ins->n; i++) {
		etl_reader_free(ins->v[i].r);
		if (ins->v[i].fd > STDIN_FILENO)
			close(ins->v[i].fd);
	}
	free(ins->v);
	memset(ins, 0, sizeof *ins);
}
