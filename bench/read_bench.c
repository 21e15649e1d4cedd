/*
 * read_bench.c - reading-speed driver for bench/read (not part of the
 * library; built by bench/read against lib/libetl.a).
 *
 * Modes:
 *   read_bench gen SRC OUT MB
 *       Writes OUT (~MB MiB): the first (header) buffer of SRC followed by
 *       SRC's other buffers repeated until the size is reached. Each copy's
 *       SequenceNumber (u64 at +0x18) is raised by copy x (max sequence + 1)
 *       so every processor's sequence keeps increasing; timestamps repeat
 *       from one copy to the next. Buffers are chained on BufferSize, so
 *       compressed (variable-size) buffers are repeated as stored.
 *   read_bench run [-r REPS] [-c wall|cpu] [-b BIG.etl] [-z BIGLZ.etl] [CORPUS.etl[=EVENTS] ...]
 *       Measures and prints one figure per line, "name value unit", then
 *       the targets with PASS/MISS. Every throughput is the best of REPS
 *       runs over the same bytes with a warm page cache, timed on the wall
 *       clock (default) or the process CPU clock (-c cpu). Exit status 0 even
 *       when a target is missed; 1 only when something fails to run or a
 *       reader result is inconsistent (record counts that differ between
 *       runs or orders).
 *   read_bench iter FILE file|time [PASSES]
 *       One walk of FILE (for profiling under callgrind/perf); prints the
 *       record count.
 *   read_bench inflate FILE [PASSES]
 *       Inflates every compressed buffer of FILE with etl_lz77_decompress
 *       (for profiling); prints the bytes produced.
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
#define BENCH_NAME "read_bench"
#include "bench_util.h"
#include "etl.h"

#define HDR 0x48u
#define MB  (1024.0 * 1024.0)   /* figures are in MiB/s, printed as "MB/s" */

/* CLOCK_MONOTONIC by default; "-c cpu" switches to the process CPU clock
 * (user + system time), steadier on a machine shared with other jobs. */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}
static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void write_all(int fd, const uint8_t *p, size_t n, const char *path)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			die("cannot write %s", path);
		p += k;
		n -= (size_t)k;
	}
}

/* ---- gen ------------------------------------------------------------ */

static int cmd_gen(const char *src, const char *out, double size_mb)
{
	size_t len;
	uint8_t *d = slurp(src, &len);
	/* Chain the buffers of the source. */
	size_t first_end = 0, off = 0, data_end;
	uint64_t max_seq = 0;
	while (off + HDR <= len) {
		uint32_t bs = le32(d + off);
		if (bs < HDR || off + bs > len)
			break;
		if (off == 0)
			first_end = bs;
		else if (le64(d + off + 0x18) > max_seq)
			max_seq = le64(d + off + 0x18);
		off += bs;
	}
	data_end = off;
	if (first_end == 0 || data_end <= first_end)
		die("%s: needs a header buffer and at least one data buffer", src);
	size_t copy_len = data_end - first_end;
	uint64_t target = (uint64_t)(size_mb * MB);
	uint64_t copies = target > first_end ? (target - first_end + copy_len - 1) / copy_len : 1;
	if (copies == 0)
		copies = 1;

	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("cannot create %s", out);
	write_all(fd, d, first_end, out);
	/* Write in chunks of whole copies (about 8 MiB) to keep syscalls few. */
	uint64_t per_chunk = (8u << 20) / copy_len + 1;
	uint8_t *chunk = malloc(per_chunk * copy_len);
	if (!chunk)
		die("out of memory in %s", "gen");
	uint64_t stride = max_seq + 1;
	for (uint64_t c = 0; c < copies;) {
		uint64_t k = copies - c < per_chunk ? copies - c : per_chunk;
		for (uint64_t j = 0; j < k; j++) {
			uint8_t *dst = chunk + j * copy_len;
			memcpy(dst, d + first_end, copy_len);
			for (size_t o = 0; o < copy_len; o += le32(dst + o))
				put_le64(dst + o + 0x18, le64(dst + o + 0x18) + (c + j) * stride);
		}
		write_all(fd, chunk, (size_t)(k * copy_len), out);
		c += k;
	}
	if (close(fd) != 0)
		die("cannot write %s", out);
	free(chunk);
	free(d);
	printf("%s: %llu copies of %zu data bytes, %.1f MiB\n", out, (unsigned long long)copies,
	       copy_len, (double)(first_end + copies * copy_len) / MB);
	return 0;
}

/* ---- measurements ---------------------------------------------------- */

static uint8_t *rbuf;          /* the 1 MiB read() buffer */
static int failed_run;         /* something did not work: exit 1 */

/* read() of the whole file into a 1 MiB buffer; returns bytes read. */
static uint64_t raw_read(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("cannot open %s", path);
	uint64_t total = 0;
	unsigned sum = 0;
	for (;;) {
		ssize_t k = read(fd, rbuf, 1u << 20);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die("cannot read %s", path);
		if (k == 0)
			break;
		sum += rbuf[0];     /* keep the read observable */
		total += (uint64_t)k;
	}
	close(fd);
	if (sum == 0xFFFFFFFFu)
		fputc(' ', stderr);
	return total;
}

struct walk {
	uint64_t records;      /* events returned                         */
	uint64_t bytes;        /* sum of ev->size                         */
	uint64_t failed;       /* ETL_FAILED results                      */
	uint64_t input;        /* file size                               */
	int open_rc;
};

/* One complete walk: open, iterate every event, free. */
static int walk_file(const char *path, int order, struct walk *w)
{
	memset(w, 0, sizeof *w);
	etl_reader *r = etl_reader_new();
	if (!r)
		die("out of memory in %s", "etl_reader_new");
	etl_reader_set_order(r, order);
	w->open_rc = etl_reader_open_file(r, path);
	if (w->open_rc == ETL_FATAL) {
		fprintf(stderr, "read_bench: %s: %s\n", path, etl_reader_errmsg(r));
		etl_reader_free(r);
		return -1;
	}
	const struct etl_event *ev;
	int st;
	uint64_t n = 0, bytes = 0, bad = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st == ETL_FATAL) {
			fprintf(stderr, "read_bench: %s: %s\n", path, etl_reader_errmsg(r));
			etl_reader_free(r);
			return -1;
		}
		if (st == ETL_FAILED) {
			bad++;
			continue;
		}
		n++;
		bytes += ev->size;
	}
	struct etl_reader_stats rs;
	etl_reader_stats(r, &rs);
	w->input = rs.input_size;
	etl_reader_free(r);
	w->records = n;
	w->bytes = bytes;
	w->failed = bad;
	return 0;
}

/* The compressed buffers of a file, preloaded. */
struct lzbuf {
	const uint8_t *src;
	uint32_t src_len, out_len;
};

static struct lzbuf *lz_collect(const uint8_t *d, size_t len, size_t *count, uint32_t *max_out,
                                uint64_t *total_out, uint64_t *total_in)
{
	size_t n = 0, cap = 1024;
	struct lzbuf *v = malloc(cap * sizeof *v);
	*max_out = 0;
	*total_out = *total_in = 0;
	for (size_t off = 0; v && off + HDR <= len;) {
		uint32_t bs = le32(d + off), so = le32(d + off + 4);
		uint16_t flags = (uint16_t)(d[off + 0x34] | d[off + 0x35] << 8);
		if (bs < HDR || off + bs > len)
			break;
		if ((flags & ETL_BUF_FLAG_COMPRESSED) && so >= HDR) {
			if (n == cap) {
				cap *= 2;
				struct lzbuf *nv = realloc(v, cap * sizeof *v);
				if (!nv)
					break;
				v = nv;
			}
			v[n].src = d + off + HDR;
			v[n].src_len = bs - HDR;
			v[n].out_len = so - HDR;
			if (so - HDR > *max_out)
				*max_out = so - HDR;
			*total_out += so - HDR;
			*total_in += bs - HDR;
			n++;
		}
		off += bs;
	}
	if (!v)
		die("out of memory in %s", "lz_collect");
	*count = n;
	return v;
}

/* Decompresses every buffer once; returns bytes produced, or 0 on error. */
static uint64_t lz_pass(const struct lzbuf *v, size_t n, uint8_t *dst)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		size_t out = 0, pos = 0;
		int err = 0;
		int rc = etl_lz77_decompress(v[i].src, v[i].src_len, dst, v[i].out_len, &out, &err, &pos);
		if (rc != ETL_OK || out != v[i].out_len) {
			fprintf(stderr, "read_bench: buffer %zu does not inflate: rc=%d produced=%zu expected=%u\n",
			        i, rc, out, v[i].out_len);
			return 0;
		}
		total += out;
	}
	return total;
}

/* Output helpers: one figure per line, "name value unit". */
static void fig(const char *name, double v, const char *unit)
{
	printf("%s %.*f %s\n", name, v < 10 ? 2 : 1, v, unit);
	fflush(stdout);
}

struct target {
	const char *name, *unit;
	double value, min;
	int have;
};
static struct target targets[] = {
	{ "read.framing.ratio", "x", 0, 0.5, 0 },
	{ "read.ordered", "Mrec/s", 0, 10.0, 0 },
	{ "read.inflate", "MB/s", 0, 1000.0, 0 },
};
static void set_target(int i, double v)
{
	targets[i].value = v;
	targets[i].have = 1;
}

/* Best-of-reps measurements of one file. */
struct filefig {
	double raw_mbs, framing_mbs, framing_mrs, ordered_mbs, ordered_mrs;
	uint64_t size, records;
};

static int measure_file(const char *path, int reps, struct filefig *f)
{
	struct walk w;
	memset(f, 0, sizeof *f);
	/* Warm the page cache. */
	f->size = raw_read(path);
	for (int i = 0; i < reps; i++) {
		double t = now();
		uint64_t n = raw_read(path);
		t = now() - t;
		if (n != f->size)
			die("%s changed size while measuring", path);
		double v = (double)n / MB / t;
		if (v > f->raw_mbs)
			f->raw_mbs = v;
	}
	for (int order = 0; order < 2; order++) {
		int o = order == 0 ? ETL_ORDER_FILE : ETL_ORDER_TIME;
		uint64_t first = UINT64_MAX;
		double best = 1e300;
		for (int i = 0; i < reps; i++) {
			double t = now();
			if (walk_file(path, o, &w) != 0)
				return -1;
			t = now() - t;
			if (t < best)
				best = t;
			if (w.failed)
				fprintf(stderr, "read_bench: %s: %llu ETL_FAILED results in %s order\n", path,
				        (unsigned long long)w.failed, order == 0 ? "file" : "time");
			if (first != UINT64_MAX && w.records != first) {
				fprintf(stderr, "read_bench: %s: record count changed between runs\n", path);
				failed_run = 1;
			}
			first = w.records;
		}
		double mbs = (double)f->size / MB / best, mrs = (double)first / 1e6 / best;
		if (order == 0) {
			f->framing_mbs = mbs;
			f->framing_mrs = mrs;
			f->records = first;
		} else {
			f->ordered_mbs = mbs;
			f->ordered_mrs = mrs;
			if (first != f->records) {
				fprintf(stderr, "read_bench: %s: %llu records in file order but %llu in time order\n",
				        path, (unsigned long long)f->records, (unsigned long long)first);
				failed_run = 1;
			}
		}
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	int reps = 5;
	const char *big = NULL, *lz = NULL;
	int i = 0;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "cpu") == 0)
				bench_clock = CLOCK_PROCESS_CPUTIME_ID;
			else if (strcmp(argv[i], "wall") != 0)
				die("-c takes wall or cpu, not %s", argv[i]);
		} else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc)
			big = argv[++i];
		else if (strcmp(argv[i], "-z") == 0 && i + 1 < argc)
			lz = argv[++i];
		else
			die("unknown option %s", argv[i]);
	}
	if (reps < 1)
		reps = 1;
	rbuf = malloc(1u << 20);
	if (!rbuf)
		die("out of memory in %s", "run");
	printf("# read_bench: libetl %s, best of %d runs per figure, %s clock, warm page cache, MB = 2^20 bytes\n",
	       etl_version_string(), reps, bench_clock == CLOCK_MONOTONIC ? "wall" : "process CPU");

	struct filefig f;
	if (big) {
		if (measure_file(big, reps, &f) != 0)
			return 1;
		printf("# large uncompressed input: %.1f MiB, %llu records\n", (double)f.size / MB,
		       (unsigned long long)f.records);
		fig("read.raw", f.raw_mbs, "MB/s");
		fig("read.framing", f.framing_mbs, "MB/s");
		fig("read.framing", f.framing_mrs, "Mrec/s");
		fig("read.ordered", f.ordered_mbs, "MB/s");
		fig("read.ordered", f.ordered_mrs, "Mrec/s");
		fig("read.framing.ratio", f.framing_mbs / f.raw_mbs, "x");
		fig("read.ordered.ratio", f.ordered_mbs / f.raw_mbs, "x");
		set_target(0, f.framing_mbs / f.raw_mbs);
		set_target(1, f.ordered_mrs);
	}

	if (lz) {
		size_t len, n;
		uint32_t max_out;
		uint64_t total_out, total_in;
		if (measure_file(lz, reps, &f) != 0)
			return 1;
		uint8_t *d = slurp(lz, &len);
		struct lzbuf *v = lz_collect(d, len, &n, &max_out, &total_out, &total_in);
		uint8_t *dst = malloc(max_out ? max_out : 1);
		if (!dst)
			die("out of memory in %s", "inflate");
		double best = 1e300;
		for (int k = 0; k < reps && n; k++) {
			double t = now();
			uint64_t got = lz_pass(v, n, dst);
			t = now() - t;
			if (got != total_out) {
				failed_run = 1;
				break;
			}
			if (t < best)
				best = t;
		}
		printf("# large compressed input: %.1f MiB, %zu compressed buffers, %.1f MiB inflated, %llu records\n",
		       (double)f.size / MB, n, (double)total_out / MB, (unsigned long long)f.records);
		double inflate = n ? (double)total_out / MB / best : 0;
		double in_mbs = n ? (double)total_in / MB / best : 0;
		fig("read.inflate", inflate, "MB/s");
		fig("read.inflate.input", in_mbs, "MB/s");
		fig("read.raw.lz77", f.raw_mbs, "MB/s");
		fig("read.framing.lz77", f.framing_mbs, "MB/s");
		fig("read.framing.lz77", f.framing_mrs, "Mrec/s");
		/* End to end in MB of inflated records, comparable with read.inflate. */
		double out_time = (double)f.records / 1e6 / f.framing_mrs;
		fig("read.framing.lz77.inflated", (double)total_out / MB / out_time, "MB/s");
		fig("read.ordered.lz77", f.ordered_mrs, "Mrec/s");
		fig("read.framing.lz77.ratio", f.framing_mbs / f.raw_mbs, "x");
		set_target(2, inflate);
		free(dst);
		free(v);
		free(d);
	}

	/* The real corpus: every file walked in both orders, repeated so the
	 * total is long enough to time. */
	int nfiles = argc - i;
	if (nfiles > 0) {
		char **files = argv + i;
		uint64_t *expect = calloc((size_t)nfiles, sizeof *expect);
		if (!expect)
			die("out of memory in %s", "corpus");
		for (int k = 0; k < nfiles; k++) {
			char *eq = strrchr(files[k], '=');
			if (eq) {
				*eq = 0;
				expect[k] = strtoull(eq + 1, NULL, 10);
			}
		}
		uint64_t bytes = 0, recs = 0;
		struct walk w;
		int mismatches = 0;
		for (int k = 0; k < nfiles; k++) {
			bytes += raw_read(files[k]);
			if (walk_file(files[k], ETL_ORDER_FILE, &w) != 0)
				return 1;
			recs += w.records;
			if (expect[k] && w.records != expect[k]) {
				printf("# corpus: %s: %llu records, expected.json says %llu\n", files[k],
				       (unsigned long long)w.records, (unsigned long long)expect[k]);
				mismatches++;
			}
		}
		/* Repeat the corpus so one timed pass lasts about 0.1 s. */
		double t = now();
		for (int k = 0; k < nfiles; k++)
			walk_file(files[k], ETL_ORDER_FILE, &w);
		t = now() - t;
		int loops = t > 0 ? (int)(0.1 / t) + 1 : 1;
		if (loops > 200)
			loops = 200;
		double best[3] = { 1e300, 1e300, 1e300 };
		for (int k = 0; k < reps; k++) {
			for (int m = 0; m < 3; m++) {
				double t0 = now();
				for (int l = 0; l < loops; l++)
					for (int q = 0; q < nfiles; q++) {
						if (m == 0)
							raw_read(files[q]);
						else if (walk_file(files[q], m == 1 ? ETL_ORDER_FILE : ETL_ORDER_TIME, &w) != 0)
							return 1;
					}
				t0 = now() - t0;
				if (t0 < best[m])
					best[m] = t0;
			}
		}
		printf("# corpus: %d files, %.1f MiB, %llu records (x%d per timed pass)%s\n", nfiles,
		       (double)bytes / MB, (unsigned long long)recs, loops,
		       mismatches ? ", record counts differ from expected.json (see above)" : ", record counts match expected.json");
		double scale = (double)loops;
		fig("read.corpus.raw", (double)bytes * scale / MB / best[0], "MB/s");
		fig("read.corpus.framing", (double)bytes * scale / MB / best[1], "MB/s");
		fig("read.corpus.framing", (double)recs * scale / 1e6 / best[1], "Mrec/s");
		fig("read.corpus.ordered", (double)bytes * scale / MB / best[2], "MB/s");
		fig("read.corpus.ordered", (double)recs * scale / 1e6 / best[2], "Mrec/s");
		fig("read.corpus.framing.ratio", best[0] / best[1], "x");
		free(expect);
	}

	printf("# targets\n");
	for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
		struct target *tg = &targets[k];
		if (!tg->have)
			continue;
		printf("%s %s %.2f %s (target >= %.*f %s)\n", tg->value >= tg->min ? "PASS" : "MISS", tg->name,
		       tg->value, tg->unit, tg->min < 10 ? 1 : 0, tg->min, tg->unit);
	}
	free(rbuf);
	return failed_run ? 1 : 0;
}

/* ---- profiling helpers ------------------------------------------------ */

static int cmd_iter(const char *path, const char *order, int passes)
{
	struct walk w;
	int o = strcmp(order, "time") == 0 ? ETL_ORDER_TIME : ETL_ORDER_FILE;
	for (int i = 0; i < passes; i++)
		if (walk_file(path, o, &w) != 0)
			return 1;
	printf("%llu records, %llu bytes, %llu failed\n", (unsigned long long)w.records,
	       (unsigned long long)w.bytes, (unsigned long long)w.failed);
	return 0;
}

static int cmd_inflate(const char *path, int passes)
{
	size_t len, n;
	uint32_t max_out;
	uint64_t total_out, total_in, got = 0;
	uint8_t *d = slurp(path, &len);
	struct lzbuf *v = lz_collect(d, len, &n, &max_out, &total_out, &total_in);
	uint8_t *dst = malloc(max_out ? max_out : 1);
	for (int i = 0; i < passes; i++)
		got += lz_pass(v, n, dst);
	printf("%zu buffers, %llu bytes out\n", n, (unsigned long long)got);
	free(dst);
	free(v);
	free(d);
	return got == total_out * (uint64_t)passes ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: read_bench gen SRC OUT MB\n"
	        "       read_bench run [-r REPS] [-c wall|cpu] [-b BIG.etl] [-z BIGLZ.etl] [FILE[=EVENTS] ...]\n"
	        "       read_bench iter FILE file|time [PASSES]\n"
	        "       read_bench inflate FILE [PASSES]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "gen") == 0 && argc == 5)
		return cmd_gen(argv[2], argv[3], atof(argv[4]));
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "iter") == 0 && (argc == 4 || argc == 5))
		return cmd_iter(argv[2], argv[3], argc == 5 ? atoi(argv[4]) : 1);
	if (strcmp(argv[1], "inflate") == 0 && (argc == 3 || argc == 4))
		return cmd_inflate(argv[2], argc == 4 ? atoi(argv[3]) : 1);
	usage();
	return 2;
}
