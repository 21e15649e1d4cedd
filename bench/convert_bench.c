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
 *         xml      the same in "xml"
 *       and the ceiling of each output pass, convert.{jsonl,xml}.ceiling.SHORT:
 *       the rate of a converter that neither decoded nor formatted, the
 *       framing pass plus writing as many bytes as the output pass did
 *       (time_copy());
 *       plus "kind" passes (JSONL and XML) that decode and write only the
 *       events whose decoding source (found by a first pass) is MANIFEST or
 *       TRACELOGGING, the others being framed only. One decoder per file, with the
 *       manifests loaded before timing; its schema cache is warm after the
 *       first (untimed) pass, as it is for all but the first events of a
 *       long conversion. A pass is repeated so that one timed run lasts at
 *       least -t seconds (default 0.05); each figure is the best of REPS
 *       runs, taken in REPS rounds over all the figures of all the files
 *       (so a burst of other load spoils one run of a figure, not all).
 *       Prints "name value unit" lines, the processor's clock rate
 *       (convert.clock: the fastest of one measurement per round) and the
 *       aggregates in cycles per event at that rate, then the targets with
 *       PASS/MISS. Exit status 0 even when a target is missed; 1 when
 *       something fails to run.
 *   convert_bench profile [-m MANIFEST]... [-k manifest|tracelogging|mof] FILE framing|decode|jsonl|xml [PASSES]
 *       PASSES passes of one kind over FILE (for callgrind/perf); with -k,
 *       only the events of that decoding kind are decoded (and written),
 *       the others framed only. The passes run in profile_passes(), which
 *       callgrind can count alone: --toggle-collect=profile_passes.
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

enum { P_FRAMING, P_DECODE, P_OUTPUT, P_KIND };

/* The output formats timed: index into out_formats. */
enum { F_JSONL, F_XML, NFMT };
static const char *const out_formats[NFMT] = { "jsonl", "xml" };

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
	int loops;                 /* passes per timed run */
	uint64_t xml_bytes;        /* XML bytes of one pass */
	/* seconds per pass, the best of the rounds (cmd_run()) */
	double t_frame, t_dec;     /* framing, decode */
	double t_out[NFMT];        /* whole output pass */
	double t_copy[NFMT];       /* copying as many bytes (time_copy()) */
	double t_kind[NFMT][2];    /* kind-only passes: manifest, tracelogging */
};

struct pass_result {
	uint64_t events, decoded_ok, out_bytes;
	uint64_t by_source[NSRC];
};

/* One pass over in. kind_filter: for P_KIND, the source whose events are
 * decoded and written (others are framed only). fmt: the output format of
 * P_OUTPUT and P_KIND (F_*). record: fill in->kinds. */
static int run_pass(struct input *in, int mode, int kind_filter, int fmt, int record, struct pass_result *res)
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
	if (mode == P_OUTPUT || mode == P_KIND) {
		o = etl_output_new(out_formats[fmt], sink_write, &sink);
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
	/* As etlconvert decodes (cli/convert_decode.c). */
	if (etl_decoder_set_flags(d, ETL_DECODE_PACKED_ARRAYS) != ETL_OK)
		die("cannot set %s", "ETL_DECODE_PACKED_ARRAYS");
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
	if (run_pass(in, P_FRAMING, 0, 0, 0, &pr) != 0)
		return -1;
	in->events = pr.events;
	in->kinds = calloc(in->events ? in->events : 1, 1);
	if (!in->kinds)
		die("out of memory in %s", "prepare");
	if (run_pass(in, P_OUTPUT, 0, F_JSONL, 1, &pr) != 0)
		return -1;
	if (pr.events != in->events)
		die("%s: event count changed between passes", in->path);
	memcpy(in->by_source, pr.by_source, sizeof pr.by_source);
	in->failed_decode = pr.events - pr.decoded_ok;
	in->out_bytes = pr.out_bytes;
	return 0;
}

/* Best time of reps runs of loops passes. */
static double time_pass(struct input *in, int mode, int kind, int fmt, int loops, int reps)
{
	struct pass_result pr;
	double best = 1e300;
	for (int k = 0; k < reps; k++) {
		double t = now();
		for (int l = 0; l < loops; l++)
			if (run_pass(in, mode, kind, fmt, 0, &pr) != 0)
				exit(1);
		t = now() - t;
		if (t < best)
			best = t;
	}
	return best / loops; /* seconds per pass */
}

/* Best time of reps runs of loops "outputs" of n bytes, each copied 64 KiB
 * at a time from one buffer to another that both stay in the processor's
 * cache: the least any writer of n bytes costs (the stores, and loads that
 * hit the cache), as an output handing its bytes to a sink. Seconds per
 * n bytes. */
static double time_copy(size_t n, int loops, int reps)
{
	static uint8_t from[64 * 1024], stage[64 * 1024];
	memset(from, 'x', sizeof from);
	double best = 1e300;
	for (int k = 0; k < reps; k++) {
		double t = now();
		for (int l = 0; l < loops; l++) {
			for (size_t off = 0; off < n; off += sizeof stage) {
				size_t m = n - off < sizeof stage ? n - off : sizeof stage;
				memcpy(stage, from, m);
				/* The copies are the work: the compiler may not
				 * drop them as dead stores. */
				__asm__ __volatile__("" : : "r"(stage) : "memory");
			}
		}
		t = now() - t;
		if (t < best)
			best = t;
	}
	return best / loops;
}

static double min_time(double a, double b)
{
	return b < a ? b : a;
}

static void fig(const char *name, const char *sub, double v, const char *unit)
{
	printf("%s%s%s %.*f %s\n", name, sub ? "." : "", sub ? sub : "", v < 10 ? 2 : 1, v, unit);
	fflush(stdout);
}

struct agg {
	double t_all, t_kind;      /* seconds per pass, summed over files */
	double t_frame;            /* framing passes of the same files        */
	double t_bound;            /* framing + copying out as many bytes      */
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

	printf("# convert_bench: libetl %s, best of %d runs per figure (one per round over every figure), %s clock, input in memory, time order,"
	       " warm schema cache, integer arrays packed as etlconvert decodes them, Mev = 10^6 events\n",
	       etl_version_string(), reps, bench_clock == CLOCK_MONOTONIC ? "wall" : "process CPU");
	for (int k = 0; k < nman; k++)
		printf("# manifest: %s\n", manifests[k]);

	/* agg[format][0 manifest, 1 tracelogging]; all[format]: every file. */
	static const int kinds[2] = { ETL_DECODE_MANIFEST, ETL_DECODE_TRACELOGGING };
	struct agg agg[NFMT][2], all[NFMT];
	memset(agg, 0, sizeof agg);
	memset(all, 0, sizeof all);
	/* Inputs first, then reps rounds over every figure of every file (one
	 * timed run each), each figure the best of its rounds: the runs of one
	 * figure are spread over the whole bench, so a burst of load from
	 * elsewhere (seconds long on a shared machine) spoils one of its runs,
	 * not all of them. */
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
		run_pass(in, P_OUTPUT, 0, F_JSONL, 0, &pr);
		t = now() - t;
		in->loops = t > 0 ? (int)(min_t / t) + 1 : 1000;
		if (in->loops > 100000)
			in->loops = 100000;
		run_pass(in, P_OUTPUT, 0, F_XML, 0, &pr);
		in->xml_bytes = pr.out_bytes;
		printf("# %s: %s, %.2f MiB, %llu events (decoded: %llu manifest, %llu mof, %llu tracelogging,"
		       " %llu wpp, %llu eventmetadata; %llu not decoded), %.1f MiB JSONL and %.1f MiB XML per pass,"
		       " x%d passes per run\n",
		       in->name, in->path, (double)in->size / 1048576.0, (unsigned long long)in->events,
		       (unsigned long long)in->by_source[ETL_DECODE_MANIFEST],
		       (unsigned long long)in->by_source[ETL_DECODE_MOF],
		       (unsigned long long)in->by_source[ETL_DECODE_TRACELOGGING],
		       (unsigned long long)in->by_source[ETL_DECODE_WPP],
		       (unsigned long long)in->by_source[ETL_DECODE_EVENT_METADATA],
		       (unsigned long long)in->failed_decode, (double)in->out_bytes / 1048576.0,
		       (double)in->xml_bytes / 1048576.0, in->loops);
		in->t_frame = in->t_dec = 1e300;
		for (int fm = 0; fm < NFMT; fm++) {
			in->t_out[fm] = in->t_copy[fm] = 1e300;
			in->t_kind[fm][0] = in->t_kind[fm][1] = 1e300;
		}
	}
	double ghz = 0;     /* the fastest the processor ran in any round */
	for (int round = 0; round < reps; round++) {
		double g = bench_cpu_ghz();
		if (g > ghz)
			ghz = g;
		for (int f = 0; f < nfiles; f++) {
			struct input *in = &ins[f];
			const int loops = in->loops;
			in->t_frame = min_time(in->t_frame, time_pass(in, P_FRAMING, 0, 0, loops, 1));
			in->t_dec = min_time(in->t_dec, time_pass(in, P_DECODE, 0, 0, loops, 1));
			for (int fm = 0; fm < NFMT; fm++) {
				in->t_out[fm] = min_time(in->t_out[fm], time_pass(in, P_OUTPUT, 0, fm, loops, 1));
				in->t_copy[fm] = min_time(in->t_copy[fm],
				                          time_copy(fm == F_JSONL ? in->out_bytes : in->xml_bytes, loops, 1));
				for (int q = 0; q < 2; q++)
					if (in->by_source[kinds[q]])
						in->t_kind[fm][q] = min_time(in->t_kind[fm][q],
						                             time_pass(in, P_KIND, kinds[q], fm, loops, 1));
			}
		}
	}
	for (int f = 0; f < nfiles; f++) {
		struct input *in = &ins[f];
		const double tf = in->t_frame, td = in->t_dec;
		double ev = (double)in->events / 1e6;
		printf("# %s\n", in->name);
		fig("convert.framing", in->name, ev / tf, "Mev/s");
		fig("convert.decode", in->name, ev / td, "Mev/s");
		for (int fm = 0; fm < NFMT; fm++) {
			char name[64];
			double to = in->t_out[fm];
			snprintf(name, sizeof name, "convert.%s", out_formats[fm]);
			fig(name, in->name, ev / to, "Mev/s");
			snprintf(name, sizeof name, "convert.%s.MBps", out_formats[fm]);
			fig(name, in->name, (double)(fm == F_JSONL ? in->out_bytes : in->xml_bytes) / 1048576.0 / to,
			    "MB/s");
			/* The ceiling: reading the events and writing out as
			 * many bytes, with no decoding or formatting. */
			snprintf(name, sizeof name, "convert.%s.ceiling", out_formats[fm]);
			fig(name, in->name, ev / (tf + in->t_copy[fm]), "Mev/s");
			all[fm].t_all += to;
			all[fm].events += in->events;
		}
		/* Events of one decoding kind: only those decoded and written, the
		 * rest framed only. */
		for (int fm = 0; fm < NFMT; fm++) {
			for (int q = 0; q < 2; q++) {
				uint64_t nk = in->by_source[kinds[q]];
				if (nk == 0)
					continue;
				double tk = in->t_kind[fm][q];
				char name[64], sub[256];
				snprintf(name, sizeof name, "convert.%s", out_formats[fm]);
				snprintf(sub, sizeof sub, "%s.%s-only", in->name, kind_label(kinds[q]));
				fig(name, sub, (double)nk / 1e6 / tk, "Mev/s");
				struct agg *a = &agg[fm][q];
				a->t_all += in->t_out[fm];
				a->t_kind += tk;
				a->t_frame += tf;
				a->t_bound += tf + in->t_copy[fm];
				a->events += in->events;
				a->kind_events += nk;
			}
		}
	}

	/* Aggregates: whole passes of the files holding events of the kind
	 * (all their events / summed pass time, and only that kind's events /
	 * the same time), and the kind-only passes; and every event of every
	 * file / the summed time of their whole passes. */
	double rate[NFMT][2] = { { 0 } }, overall[NFMT] = { 0 };
	printf("# aggregates over the files holding events of each kind, and over every file; .beyond_framing:"
	       " the kind's events / (time of the kind-only passes - time of the framing passes of the same"
	       " files), the decoding and writing of those events without reading the file (no target)\n");
	for (int fm = 0; fm < NFMT; fm++) {
		for (int q = 0; q < 2; q++) {
			const struct agg *a = &agg[fm][q];
			if (a->t_all <= 0)
				continue;
			char name[64];
			snprintf(name, sizeof name, "convert.%s.%s", out_formats[fm], kind_label(kinds[q]));
			rate[fm][q] = (double)a->kind_events / 1e6 / a->t_all;
			fig(name, "files", (double)a->events / 1e6 / a->t_all, "Mev/s");
			fig(name, NULL, rate[fm][q], "Mev/s");
			if (ghz > 0 && rate[fm][q] > 0)
				fig(name, "cycles", ghz * 1e3 / rate[fm][q], "cycles/event");
			if (a->t_kind > a->t_frame)
				fig(name, "beyond_framing", (double)a->kind_events / 1e6 / (a->t_kind - a->t_frame),
				    "Mev/s");
			else                    /* the noise is larger than the work */
				printf("# %s.beyond_framing: not measured (the kind-only passes took no longer than"
				       " framing)\n", name);
			fig(name, "ceiling", (double)a->kind_events / 1e6 / a->t_bound, "Mev/s");
			strcat(name, "-only");
			fig(name, NULL, (double)a->kind_events / 1e6 / a->t_kind, "Mev/s");
		}
		if (all[fm].t_all > 0) {
			char name[64];
			snprintf(name, sizeof name, "convert.%s", out_formats[fm]);
			overall[fm] = (double)all[fm].events / 1e6 / all[fm].t_all;
			fig(name, NULL, overall[fm], "Mev/s");
		}
	}
	/* The clock the figures were taken at: a target in events per
	 * second is a budget of cycles per event that moves with it. */
	if (ghz > 0) {
		fig("convert.clock", NULL, ghz, "GHz");
		printf("# at %.2f GHz a target of 2 Mev/s leaves %.0f cycles per event, 1 Mev/s %.0f\n", ghz,
		       ghz * 1e3 / 2.0, ghz * 1e3);
	} else {
		printf("# convert.clock: not measured on this processor\n");
	}
	/* Three decimals: a figure just under its target (0.996) must not
	 * read as the target itself beside MISS. */
	printf("# targets (events of the kind / time of the whole passes of their files; convert.xml: every"
	       " event / time of every whole xml pass)\n");
	for (int fm = 0; fm < NFMT; fm++) {
		double target = fm == F_JSONL ? 2.0 : 1.0;
		for (int q = 0; q < 2; q++)
			if (agg[fm][q].t_all > 0)
				printf("%s convert.%s.%s %.3f Mev/s (target >= %.0f Mev/s)\n",
				       rate[fm][q] >= target ? "PASS" : "MISS", out_formats[fm], kind_label(kinds[q]),
				       rate[fm][q], target);
	}
	if (all[F_XML].t_all > 0)
		printf("%s convert.xml %.3f Mev/s (target >= 1 Mev/s)\n", overall[F_XML] >= 1.0 ? "PASS" : "MISS",
		       overall[F_XML]);

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

/* The passes of "profile", apart so that callgrind can count them alone
 * (--toggle-collect=profile_passes). */
static __attribute__((noinline)) int profile_passes(struct input *in, int mode, int kind, int fmt, int passes,
                                                    struct pass_result *pr)
{
	for (int k = 0; k < passes; k++)
		if (run_pass(in, mode, kind, fmt, 0, pr) != 0)
			return -1;
	return 0;
}

static int cmd_profile(int argc, char **argv)
{
	int nman = 0, i = 0, kind = -1;
	char **manifests = calloc((size_t)argc + 1, sizeof *manifests);
	if (!manifests)
		die("out of memory in %s", "profile");
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-m") == 0 && i + 1 < argc)
			manifests[nman++] = argv[++i];
		else if (strcmp(argv[i], "-k") == 0 && i + 1 < argc) {
			i++;
			kind = strcmp(argv[i], "manifest") == 0 ? ETL_DECODE_MANIFEST
			     : strcmp(argv[i], "tracelogging") == 0 ? ETL_DECODE_TRACELOGGING
			     : strcmp(argv[i], "mof") == 0 ? ETL_DECODE_MOF : -1;
			if (kind < 0)
				die("-k takes manifest, tracelogging or mof, not %s", argv[i]);
		} else
			die("unknown option %s", argv[i]);
	}
	if (argc - i < 2)
		die("%s", "profile needs FILE and framing|decode|jsonl|xml");
	struct input in = { 0 };
	in.name = "profile";
	in.path = argv[i];
	const char *m = argv[i + 1];
	int fmt = strcmp(m, "xml") == 0 ? F_XML : F_JSONL;
	int mode = strcmp(m, "framing") == 0 ? P_FRAMING : strcmp(m, "decode") == 0 ? P_DECODE : P_OUTPUT;
	int passes = argc - i > 2 ? atoi(argv[i + 2]) : 1;
	struct pass_result pr = { 0 };
	if (kind >= 0) {
		if (prepare(&in, manifests, nman) != 0)
			return 1;
		if (mode == P_DECODE)
			die("%s", "-k goes with jsonl or xml");
		if (mode != P_FRAMING)
			mode = P_KIND;
	} else {
		in.data = slurp(in.path, &in.size);
		in.dec = make_decoder(manifests, nman);
	}
	if (profile_passes(&in, mode, kind, fmt, passes, &pr) != 0)
		return 1;
	printf("%llu events, %llu decoded, %llu output bytes", (unsigned long long)pr.events,
	       (unsigned long long)pr.decoded_ok, (unsigned long long)pr.out_bytes);
	if (kind >= 0)
		printf(" (%llu events of the kind)", (unsigned long long)in.by_source[kind]);
	printf("\n");
	etl_decoder_free(in.dec);
	free(in.data);
	free(in.kinds);
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
		if (run_pass(&in, P_DECODE, 0, 0, 0, &pr) != 0)
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
	        "       convert_bench profile [-m MANIFEST]... [-k manifest|tracelogging|mof] FILE"
	        " framing|decode|jsonl|xml [PASSES]\n"
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
