/*
 * convert_render.c - etlconvert -f xml|json|jsonl|csv|text: the events of
 * every input, merged by UTC time, decoded (one etl_decoder for the run)
 * and rendered with etl_output (include/etl_output.h) to standard output
 * or to a file written safely (etl_outfile: a temporary beside it renamed
 * over it on success; a name ending in .gz or .lz4 compressed).
 *
 * Every record passes (the header buffers' too) unless a filter drops it,
 * except the first input's logfile-header record, which always passes and
 * is sent first (ETL_MERGE_HEADER_FIRST): etl_output makes it the header
 * event. The other inputs' logfile-header records are written as ordinary
 * events.
 *
 * With -j N (N > 1) convert_parallel.c decodes and renders on N threads
 * what render_events() does here on one, to the same bytes.
 */
#include <string.h>
#include <unistd.h>
#include "convert.h"

/* The merge's learn hook: the decoder learns a record left out. */
static void learn_decode(void *ctx, const struct etl_event *ev)
{
	const struct etl_decoded *d;
	etl_decoder_decode(ctx, ev, &d);
}

static int to_outfile(void *ctx, const void *p, size_t n)
{
	return etl_outfile_write(ctx, p, n);
}

/* The manifests, TMF and MOF files of the command line. @return :
 * CLI_EXIT_CLEAN, else the exit status (reported). */
static int load_decoding(etl_decoder *dec, const struct convert_options *o)
{
	const char *what;
	int rc = convert_load_decoding(dec, o, &what);
	if (rc != CLI_EXIT_CLEAN)
		cli_message("%s: %s", what, etl_decoder_errmsg(dec));
	return rc;
}

/* Every event of the merge through the decoder into out (-j 1). @return :
 * 0, or -1 when the run failed (an input, memory or the output). */
static int render_events(struct convert_inputs *ins, etl_decoder *dec, etl_output *out)
{
	if (etl_output_begin(out, ins->v[0].lf) != ETL_OK)
		return -1;
	if (convert_render_some(ins, dec, out, UINT64_MAX, NULL, NULL) < 0)
		return -1;
	return etl_output_end(out) == ETL_OK ? 0 : -1;
}

int convert_render(const struct convert_options *o, char **paths, int n)
{
	struct convert_inputs ins;
	int to_stdout = !o->output || strcmp(o->output, "-") == 0;
	const char *name = to_stdout ? "(standard output)" : o->output;
	int rc = convert_open_inputs(&ins, paths, n, o, 0, 1);
	if (rc != CLI_EXIT_CLEAN)
		return rc;
	etl_outfile *f = etl_outfile_new();
	etl_decoder *dec = etl_decoder_new();
	etl_output *out = f ? etl_output_new(o->format, to_outfile, f) : NULL;
	/* -j: the other workers load their decoders while this one loads
	 * (large inputs; small ones start them later, when worth it). */
	int jobs = convert_parallel_jobs(o);
	struct par *par = jobs > 1 && dec && out ? convert_parallel_new(&ins, o) : NULL;
	char why[320] = "";
	ins.learn = learn_decode;               /* schemas in filtered-out records */
	ins.learn_ctx = dec;
	if (!dec || !out || (jobs > 1 && !par)) {
		cli_message("out of memory");
		rc = CLI_EXIT_IO;
	} else if (o->explain && etl_output_set_flags(out, ETL_OUTPUT_EXPLAIN) != ETL_OK) {
		cli_message("--explain: %s", etl_output_errmsg(out));
		rc = CLI_EXIT_USAGE;
	} else if ((rc = load_decoding(dec, o)) != CLI_EXIT_CLEAN) {
		;
	} else if ((to_stdout ? etl_outfile_open_fd(f, STDOUT_FILENO) : etl_outfile_open(f, o->output)) !=
	           ETL_OK) {
		cli_error(name, etl_outfile_errmsg(f));
		rc = CLI_EXIT_IO;
	} else {
		int failed = (par ? convert_parallel_run(par, dec, out, f, why, sizeof why)
		                  : render_events(&ins, dec, out)) != 0;
		int empty = 0;
		if (failed && etl_outfile_errmsg(f)[0])
			cli_error(name, etl_outfile_errmsg(f));
		else if (failed && why[0])
			cli_error(name, why);
		else if (failed && etl_output_errcode(out) != ETL_E_NONE)
			cli_error(name, etl_output_errmsg(out));
		/* Nothing read: an existing output stays as it was (freeing f
		 * abandons the output). */
		if (!failed && !(empty = convert_nothing_read(&ins, o->output)) &&
		    etl_outfile_commit(f) != ETL_OK) {
			cli_error(name, etl_outfile_errmsg(f));
			failed = 1;
		}
		rc = failed ? CLI_EXIT_IO : convert_status(&ins);
		if (empty)
			rc = cli_worse(rc, CLI_EXIT_DAMAGE);
	}
	convert_parallel_free(par);             /* its threads use dec and ins */
	etl_output_free(out);
	etl_outfile_free(f);
	etl_decoder_free(dec);
	convert_free_inputs(&ins);
	return rc;
}
