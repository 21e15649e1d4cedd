/*
 * convert_bench.c - conversion-speed driver for bench/convert (not part of
 * the library; built by bench/convert against lib/libetl.a).
 *
 * Modes:
 *   convert_bench run [-r REPS] [-c wall|cpu] [-t SECONDS] [-m MANIFEST]... SHORT=FILE ...
 *       For each file, three kinds of pass over the whole file (read into
 *       memory first, opened with etl_reader_open_memory, time order as
 *       etlconvert uses):
 *         framing  etl_reader_next only
 *         decode   etl_reader_next + etl_decoder_decode
 *         jsonl    the above + etl_output_event ("jsonl") into a sink that
 *                  only counts bytes (etl_output_begin/end included)
 *       plus "kind" passes that decode and write only the events whose
 *       decoding source (found by a first pass) is MANIFEST or TRACELOGGING,
 *       the others being framed only. One decoder per file, with the
 *       manifests loaded before timing; its schema cache is warm after the
 *       first (untimed) pass, as it is for all but the first events of a
 *       long conversion. A pass is repeated so that one timed run lasts at
 *       least -t seconds (default 0.05); each figure is the best of REPS
 *       runs. Prints "name value unit" lines, then the targets with
 *       PASS/MISS. Exit status 0 even when a target is missed; 1 when
 *       something fails to run.
 *   convert_bench profile [-m MANIFEST]... FILE framing|decode|jsonl [PASSES]
 *       PASSES passes of one kind over FILE (for callgrind/perf).
 *   convert_bench coverage [-m MANIFEST]... FILE...
 *       Decodes every FILE once (time order, a fresh decoder per file with
 *       the manifests loaded) and prints how many of the events decode:
 *       "# coverage FILE: D / T" per file, then "decode coverage: D / T
 *       events decoded over the corpus (P %)".
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define BENCH_NAME "convert_bench"
#include "bench_util.h"
#include "etl.h"

/* ---- passes ------------------------------------------------------------ */

enum { P_FRAMING, P_DECODE, P_JSONL, P_KIND };

/* Decoding sources counted (enum etl_decode_source). */
#define NSRC 6

struct sink {
	uint64_t bytes;
};
static int sink_write(void *ctx, const void *data, size_t n)
{
	(void)data;
	((struct sink *)ctx)->bytes += n;
	return 0;
}

struct input {
	const char *name;          /* short name */
	const char *path;
	uint8_t *data;
	size_t size;
	etl_decoder *dec;
	uint8_t *kinds;            /* decode source of each event, in pass order */
	uint64_t events;
	uint64_t by_source[NSRC];  /* events decoded (status OK) per source */
	uint64_t failed_decode;
	uint64_t out_bytes;        /* JSONL bytes of one pass */
};

struct pass_result {
	uint64_t events, decoded_ok, out_bytes;
	uint64_t by_source[NSRC];
};

/* One pass over in. kind_filter: for P_KIND, the source whose events are
 * decoded and written (others are framed only). record: fill in->kinds. */
static int run_pass(struct input *in, int mode, int kind_filter, int record, struct pass_result *res)
{
	memset(res, 0, sizeof *res);
	etl_reader *r = etl_reader_new();
	if (!r)
		die("out of memory in %s", "etl_reader_new");
	etl_reader_set_order(r, ETL_ORDER_TIME);
	if (etl_reader_open_memory(r, in->data, in->size) == ETL_FATAL) {
		fprintf(stderr, "convert_bench: %s: %s\n", in->path, etl_reader_errmsg(r));
		etl_reader_free(r);
		return -1;
	}
	struct sink sink = { 0 };
	etl_output *o = NULL;
	if (mode == P_JSONL || mode == P_KIND) {
		o = etl_output_new("jsonl", sink_write, &sink);
		if (!o || etl_output_begin(o, etl_reader_logfile(r)) != ETL_OK)
			die("%s: etl_output_new/begin failed", in->path);
	}
	const struct etl_event *ev;
	const struct etl_decoded *d;
	int st;
	uint64_t n = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st == ETL_FATAL) {
			fprintf(stderr, "convert_bench: %s: %s\n", in->path, etl_reader_errmsg(r));
			etl_reader_free(r);
			etl_output_free(o);
			return -1;
		}
		if (st != ETL_OK)
			continue;
		if (mode == P_FRAMING) {
			n++;
			continue;
		}
		if (mode == P_KIND && (n >= in->events || in->kinds[n] != kind_filter)) {
			n++;
			continue;
		}
		if (etl_decoder_decode(in->dec, ev, &d) == ETL_FATAL)
			die("%s: out of memory decoding", in->path);
		if (d->status == ETL_OK && d->source >= 0 && d->source < NSRC) {
			res->decoded_ok++;
			res->by_source[d->source]++;
		}
		if (record && n < in->events)
			in->kinds[n] = (uint8_t)(d->status == ETL_OK ? d->source : ETL_DECODE_NONE);
		if (o && etl_output_event(o, ev, d) != ETL_OK)
			die("%s: etl_output_event failed", in->path);
		n++;
	}
	if (o) {
		if (etl_output_end(o) != ETL_OK)
			die("%s: etl_output_end failed", in->path);
		etl_output_free(o);
	}
	etl_reader_free(r);
	res->events = n;
	res->out_bytes = sink.bytes;
	return 0;
}

static etl_decoder *make_decoder(char **manifests, int nman)
{
	etl_decoder *d = etl_decoder_new();
	if (!d)
		die("out of memory in %s", "etl_decoder_new");
	for (int i = 0; i < nman; i++)
		if (etl_decoder_add_manifest(d, manifests[i]) != ETL_OK) {
			fprintf(stderr, "convert_bench: %s\n", etl_decoder_errmsg(d));
			exit(1);
		}
	return d;
}

/* Loads the file, sizes the kinds array and classifies every event. */
static int prepare(struct input *in, char **manifests, int nman)
{
	struct pass_result pr;
	in->data = slurp(in->path, &in->size);
	in->dec = make_decoder(manifests, nman);
	if (run_pass(in, P_FRAMING, 0, 0, &pr) != 0)
		return -1;
	in->events = pr.events;
	in->kinds = calloc(in->events ? in->events : 1, 1);
	if (!in->kinds)
		die("out of memory in %s", "prepare");
	if (run_pass(in, P_JSONL, 0, 1, &pr) != 0)
		return -1;
	if (pr.events != in->events)
		die("%s: event count changed between passes", in->path);
	memcpy(in->by_source, pr.by_source, sizeof pr.by_source);
	in->failed_decode = pr.events - pr.decoded_ok;
	in->out_bytes = pr.out_bytes;
	return 0;
}

/* Best time of reps runs of loops passes. */
static double time_pass(struct input *in, int mode, int kind, int loops, int reps)
{
	struct pass_result pr;
	double best = 1e300;
	for (int k = 0; k < reps; k++) {
		double t = now();
		for (int l = 0; l < loops; l++)
			if (run_pass(in, mode, kind, 0, &pr) != 0)
				exit(1);
		t = now() - t;
		if (t < best)
			best = t;
	}
	return best / loops; /* seconds per pass */
}

static void fig(const char *name, const char *sub, double v, const char *unit)
{
	printf("%s%s%s %.*f %s\n", name, sub ? "." : "", sub ? sub : "", v < 10 ? 2 : 1, v, unit);
	fflush(stdout);
}

struct agg {
	double t_all, t_kind;      /* seconds per pass, summed over files */
	uint64_t events, kind_events;
};

static const char *kind_label(int k)
{
	return k == ETL_DECODE_MANIFEST ? "manifest" : k == ETL_DECODE_TRACELOGGING ? "tracelogging"
	       : k == ETL_DECODE_MOF ? "mof" : k == ETL_DECODE_WPP ? "wpp" : "none";
}

static int cmd_run(int argc, char **argv)
{
	int reps = 5, nman = 0, i = 0;
	double min_t = 0.05;
	char **manifests = calloc((size_t)argc + 1, sizeof *manifests);
	if (!manifests)
		die("out of memory in %s", "run");
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			min_t = atof(argv[++i]);
		else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
			manifests[nman++] = argv[++i];
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "cpu") == 0)
				bench_clock = CLOCK_PROCESS_CPUTIME_ID;
			else if (strcmp(argv[i], "wall") != 0)
				die("-c takes wall or cpu, not %s", argv[i]);
		} else
			die("unknown option %s", argv[i]);
	}
	if (reps < 1)
		reps = 1;
	int nfiles = argc - i;
	if (nfiles <= 0)
		die("%s", "no input files");
	struct input *ins = calloc((size_t)nfiles, sizeof *ins);
	if (!ins)
		die("out of memory in %s", "run");

	printf("# convert_bench: libetl %s, best of %d runs per figure, %s clock, input in memory, time order,"
	       " warm schema cache, Mev = 10^6 events\n",
	       etl_version_string(), reps, bench_clock == CLOCK_MONOTONIC ? "wall" : "process CPU");
	for (int k = 0; k < nman; k++)
		printf("# manifest: %s\n", manifests[k]);

	struct agg agg_tl = { 0 }, agg_man = { 0 };
	for (int f = 0; f < nfiles; f++) {
		struct input *in = &ins[f];
		char *eq = strchr(argv[i + f], '=');
		if (!eq)
			die("expected SHORT=FILE, got %s", argv[i + f]);
		*eq = 0;
		in->name = argv[i + f];
		in->path = eq + 1;
		if (prepare(in, manifests, nman) != 0)
			return 1;
		/* Repeat so that one timed jsonl run lasts about min_t. */
		double t = now();
		struct pass_result pr;
		run_pass(in, P_JSONL, 0, 0, &pr);
		t = now() - t;
		int loops = t > 0 ? (int)(min_t / t) + 1 : 1000;
		if (loops > 100000)
			loops = 100000;
		printf("# %s: %s, %.2f MiB, %llu events (decoded: %llu manifest, %llu mof, %llu tracelogging,"
		       " %llu wpp, %llu eventmetadata; %llu not decoded), %.1f MiB JSONL per pass, x%d passes per run\n",
		       in->name, in->path, (double)in->size / 1048576.0, (unsigned long long)in->events,
		       (unsigned long long)in->by_source[ETL_DECODE_MANIFEST],
		       (unsigned long long)in->by_source[ETL_DECODE_MOF],
		       (unsigned long long)in->by_source[ETL_DECODE_TRACELOGGING],
		       (unsigned long long)in->by_source[ETL_DECODE_WPP],
		       (unsigned long long)in->by_source[ETL_DECODE_EVENT_METADATA],
		       (unsigned long long)in->failed_decode, (double)in->out_bytes / 1048576.0, loops);

		double tf = time_pass(in, P_FRAMING, 0, loops, reps);
		double td = time_pass(in, P_DECODE, 0, loops, reps);
		double tj = time_pass(in, P_JSONL, 0, loops, reps);
		double ev = (double)in->events / 1e6;
		fig("convert.framing", in->name, ev / tf, "Mev/s");
		fig("convert.decode", in->name, ev / td, "Mev/s");
		fig("convert.jsonl", in->name, ev / tj, "Mev/s");
		fig("convert.jsonl.MBps", in->name, (double)in->out_bytes / 1048576.0 / tj, "MB/s");
		/* Events of one decoding kind: only those decoded and written, the
		 * rest framed only. */
		int kinds[2] = { ETL_DECODE_MANIFEST, ETL_DECODE_TRACELOGGING };
		for (int q = 0; q < 2; q++) {
			uint64_t nk = in->by_source[kinds[q]];
			if (nk == 0)
				continue;
			double tk = time_pass(in, P_KIND, kinds[q], loops, reps);
			char sub[256];
			snprintf(sub, sizeof sub, "%s.%s-only", in->name, kind_label(kinds[q]));
			fig("convert.jsonl", sub, (double)nk / 1e6 / tk, "Mev/s");
			struct agg *a = kinds[q] == ETL_DECODE_MANIFEST ? &agg_man : &agg_tl;
			a->t_all += tj;
			a->t_kind += tk;
			a->events += in->events;
			a->kind_events += nk;
		}
	}

	/* Aggregates: whole passes of the files holding events of the kind
	 * (all their events / summed pass time, and only that kind's events /
	 * the same time), and the kind-only passes. */
	double tl = 0, man = 0;
	printf("# aggregates over the files holding events of each kind\n");
	if (agg_tl.t_all > 0) {
		fig("convert.jsonl.tracelogging.files", NULL, (double)agg_tl.events / 1e6 / agg_tl.t_all, "Mev/s");
		tl = (double)agg_tl.kind_events / 1e6 / agg_tl.t_all;
		fig("convert.jsonl.tracelogging", NULL, tl, "Mev/s");
		fig("convert.jsonl.tracelogging-only", NULL, (double)agg_tl.kind_events / 1e6 / agg_tl.t_kind, "Mev/s");
	}
	if (agg_man.t_all > 0) {
		fig("convert.jsonl.manifest.files", NULL, (double)agg_man.events / 1e6 / agg_man.t_all, "Mev/s");
		man = (double)agg_man.kind_events / 1e6 / agg_man.t_all;
		fig("convert.jsonl.manifest", NULL, man, "Mev/s");
		fig("convert.jsonl.manifest-only", NULL, (double)agg_man.kind_events / 1e6 / agg_man.t_kind, "Mev/s");
	}
	printf("# targets (events of the kind / time of the whole jsonl passes of their files)\n");
	if (agg_tl.t_all > 0)
		printf("%s convert.jsonl.tracelogging %.2f Mev/s (target >= 1 Mev/s)\n", tl >= 1.0 ? "PASS" : "MISS", tl);
	if (agg_man.t_all > 0)
		printf("%s convert.jsonl.manifest %.2f Mev/s (target >= 1 Mev/s)\n", man >= 1.0 ? "PASS" : "MISS", man);

	for (int f = 0; f < nfiles; f++) {
		etl_decoder_free(ins[f].dec);
		free(ins[f].data);
		free(ins[f].kinds);
	}
	free(ins);
	free(manifests);
	return 0;
}

/* The -m MANIFEST options that start argv (the only ones cmd allows):
 * a NULL-ended list; *nman and *i get their number and the first other
 * argument. */
static char **manifest_options(int argc, char **argv, const char *cmd, int *nman, int *i)
{
	char **manifests = calloc((size_t)argc + 1, sizeof *manifests);
	if (!manifests)
		die("out of memory in %s", cmd);
	for (*nman = 0, *i = 0; *i < argc && argv[*i][0] == '-'; ++*i) {
		if (strcmp(argv[*i], "-m") == 0 && *i + 1 < argc)
			manifests[(*nman)++] = argv[++*i];
		else
			die("unknown option %s", argv[*i]);
	}
	return manifests;
}

static int cmd_profile(int argc, char **argv)
{
	int nman, i;
	char **manifests = manifest_options(argc, argv, "profile", &nman, &i);
	if (argc - i < 2)
		die("%s", "profile needs FILE and framing|decode|jsonl");
	struct input in = { 0 };
	in.name = "profile";
	in.path = argv[i];
	const char *m = argv[i + 1];
	int mode = strcmp(m, "framing") == 0 ? P_FRAMING : strcmp(m, "decode") == 0 ? P_DECODE : P_JSONL;
	int passes = argc - i > 2 ? atoi(argv[i + 2]) : 1;
	in.data = slurp(in.path, &in.size);
	in.dec = make_decoder(manifests, nman);
	struct pass_result pr = { 0 };
	for (int k = 0; k < passes; k++)
		if (run_pass(&in, mode, 0, 0, &pr) != 0)
			return 1;
	printf("%llu events, %llu decoded, %llu output bytes\n", (unsigned long long)pr.events,
	       (unsigned long long)pr.decoded_ok, (unsigned long long)pr.out_bytes);
	etl_decoder_free(in.dec);
	free(in.data);
	free(manifests);
	return 0;
}

static int cmd_coverage(int argc, char **argv)
{
	int nman, i;
	char **manifests = manifest_options(argc, argv, "coverage", &nman, &i);
	uint64_t total = 0, decoded = 0;
	for (; i < argc; i++) {
		struct input in = { 0 };
		struct pass_result pr;
		in.name = argv[i];
		in.path = argv[i];
		in.data = slurp(in.path, &in.size);
		in.dec = make_decoder(manifests, nman);
		if (run_pass(&in, P_DECODE, 0, 0, &pr) != 0)
			return 1;
		const char *base = strrchr(in.path, '/');
		printf("# coverage %s: %llu / %llu\n", base ? base + 1 : in.path,
		       (unsigned long long)pr.decoded_ok, (unsigned long long)pr.events);
		total += pr.events;
		decoded += pr.decoded_ok;
		etl_decoder_free(in.dec);
		free(in.data);
	}
	printf("decode coverage: %llu / %llu events decoded over the corpus (%.2f %%)\n",
	       (unsigned long long)decoded, (unsigned long long)total,
	       total ? 100.0 * (double)decoded / (double)total : 0.0);
	free(manifests);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: convert_bench run [-r REPS] [-c wall|cpu] [-t SECONDS] [-m MANIFEST]... SHORT=FILE ...\n"
	        "       convert_bench profile [-m MANIFEST]... FILE framing|decode|jsonl [PASSES]\n"
	        "       convert_bench coverage [-m MANIFEST]... FILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "profile") == 0)
		return cmd_profile(argc - 2, argv + 2);
	if (strcmp(argv[1], "coverage") == 0)
		return cmd_coverage(argc - 2, argv + 2);
	usage();
	return 2;
}
