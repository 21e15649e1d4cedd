/*
 * convert_decode.c - what the one-thread and the -j conversions of
 * etlconvert -f xml|json|jsonl|csv|text share below them: loading the
 * --manifest, --tmf and --mof files into a decoder (set to keep arrays of
 * integers packed), and reading, decoding
 * and rendering a run of merged events. convert_render.c (one thread) and
 * convert_parallel.c (workers) both call down into it, so neither calls
 * the other back.
 */
#include "convert.h"

int convert_load_decoding(etl_decoder *dec, const struct convert_options *o, const char **what)
{
	const struct {
		const char *opt;
		const char *const *paths;
		int n;
		int (*add)(etl_decoder *, const char *);
	} kinds[] = {
		{ "--manifest", o->manifests, o->n_manifests, etl_decoder_add_manifest },
		{ "--tmf", o->tmfs, o->n_tmfs, etl_decoder_add_tmf },
		{ "--mof", o->mofs, o->n_mofs, etl_decoder_add_mof },
	};
	/* The results go to etl_output_event() only, which writes a packed
	 * array as the same bytes as its elements one by one: the decoder then
	 * keeps a character array as its bytes instead of a property per
	 * character. */
	if (etl_decoder_set_flags(dec, ETL_DECODE_PACKED_ARRAYS) != ETL_OK)
		return CLI_EXIT_IO;             /* not expected: a known flag */
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		for (int i = 0; i < kinds[k].n; i++) {
			int rc = kinds[k].add(dec, kinds[k].paths[i]);
			if (rc != ETL_OK) {
				*what = kinds[k].opt;
				return rc == ETL_FATAL ? CLI_EXIT_IO : CLI_EXIT_USAGE;
			}
		}
	}
	return CLI_EXIT_CLEAN;
}

int convert_render_some(struct convert_inputs *ins, etl_decoder *dec, etl_output *out, uint64_t max,
                        void (*seen)(void *ctx, const struct etl_event *ev), void *ctx)
{
	const struct etl_event *ev;
	struct convert_input *in;
	for (uint64_t n = 0; n < max; n++) {
		int more = convert_next(ins, &ev, &in);
		if (more <= 0) {
			cli_progress_clear(&ins->pg);
			return more;
		}
		if (seen)
			seen(ctx, ev);
		const struct etl_decoded *d = NULL;
		if (etl_decoder_decode(dec, ev, &d) == ETL_FATAL) {
			cli_progress_clear(&ins->pg);
			cli_message("out of memory decoding an event");
			return -1;
		}
		if (etl_output_event(out, ev, d) != ETL_OK)
			return -1;
	}
	return 1;
}
