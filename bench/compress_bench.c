/*
 * compress_bench.c - compression driver for bench/compress (not part of the
 * library; built by "make bench" against lib/libetl.a).
 *
 * Compares the project's MS-XCA Plain LZ77 codec (etl_lz77_compress with a
 * reused workspace, etl_lz77_decompress) with zlib level 1 and LZ4's default
 * on the same bytes in the same run, buffer by buffer, as ETW compresses
 * each buffer on its own. Two sets of buffers:
 *
 *   corpus     every compressed buffer of the given files, found with
 *              etl_reader_next_buffer and inflated with etl_lz77_decompress
 *              (Windows' stream must inflate to exactly SavedOffset - 0x48
 *              bytes); Windows' own compressed size of each is
 *              BufferSize - 0x48 (doc/format.md §4.1);
 *   synthetic  64 KiB logger buffers (at most 0x10000 - 0x48 bytes of
 *              records each, no record split) packed from the records of
 *              the given files' uncompressed buffers, in file order
 *              (etl_reader_next, ETL_ORDER_FILE; each record padded with
 *              zeros to 8 bytes as in a logger buffer), the record stream
 *              repeated until the set holds -s MiB. A buffer runs on from
 *              the stream's end to its start, so each repetition cuts the
 *              buffers at other records.
 *
 * Codecs, each reusing its state from buffer to buffer:
 *   lz77   etl_lz77_compress (one workspace) / etl_lz77_decompress
 *   zlib1  deflate level 1, zlib format (2-byte header, Adler-32 trailer:
 *          the bytes compress2(level 1) writes), one z_stream reset with
 *          deflateReset per buffer / inflate with inflateReset
 *   lz4    LZ4_compress_default / LZ4_decompress_safe
 *
 * Modes:
 *   compress_bench run [-r REPS] [-c wall|cpu] [-t SECONDS] [-s MB] FILE...
 *       Prints "name value unit" lines, then the targets with PASS/MISS.
 *       Every speed is in MB (2^20 bytes) of uncompressed data per second,
 *       for compression and inflation alike, the best of REPS runs; one run
 *       passes over the whole set as often as needed to last -t seconds
 *       (default 0.1). Within a run the codecs take turns, so a slower
 *       moment of the machine falls on all of them. Every codec's output
 *       of every buffer is inflated once and compared with the input before
 *       anything is timed. Exit status 0 whether or not targets are met; 1
 *       when an input is missing or unreadable, a Windows buffer does not
 *       inflate to its size, or a round trip fails.
 *   compress_bench profile CODEC compress|inflate PASSES [-s MB] FILE...
 *       PASSES passes of one codec over the corpus set (and the synthetic
 *       set with -s), for perf or callgrind.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lz4.h>
#include <zlib.h>
#define BENCH_NAME "compress_bench"
#include "bench_util.h"
#include "etl.h"

#define HDR ETL_BUFFER_HEADER_SIZE
#define MB (1024.0 * 1024.0)
#define SYN_BUFFER 0x10000u              /* synthetic logger buffer size */

/* ---- buffer sets ------------------------------------------------------ */

struct buf {
	size_t off;                /* uncompressed bytes at set->raw + off */
	uint32_t len;
	uint32_t win_len;          /* Windows' compressed length (corpus) */
	size_t win_off;            /* its stream at set->win + win_off */
};

struct set {
	const char *name;          /* "corpus" or "synthetic" */
	const char *suffix;        /* appended to figure names */
	struct buf *v;
	size_t n, cap;
	uint8_t *raw;
	size_t raw_len, raw_cap;
	uint8_t *win;              /* Windows' streams (corpus only) */
	size_t win_len, win_cap;
	uint32_t max_len;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 1024;
	while (c < need)
		c *= 2;
	p = realloc(p, c * elem);
	if (!p)
		die("out of memory in %s", "grow");
	*cap = c;
	return p;
}

/* Appends a buffer of len bytes to s and returns where to put them. */
static uint8_t *set_add(struct set *s, uint32_t len)
{
	s->v = grow(s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->raw = grow(s->raw, &s->raw_cap, s->raw_len + len, 1);
	struct buf *b = &s->v[s->n++];
	memset(b, 0, sizeof *b);
	b->off = s->raw_len;
	b->len = len;
	s->raw_len += len;
	if (len > s->max_len)
		s->max_len = len;
	return s->raw + b->off;
}

/* A reader in file order on the whole file, read into memory (*data, to
 * free after the reader). Exits when the file cannot be read or opened. */
static etl_reader *open_input(const char *path, uint8_t **data)
{
	size_t len;
	etl_reader *r = etl_reader_new();
	if (!r)
		die("out of memory in %s", "etl_reader_new");
	*data = slurp(path, &len);
	etl_reader_set_order(r, ETL_ORDER_FILE);
	if (etl_reader_open_memory(r, *data, len) == ETL_FATAL) {
		fprintf(stderr, BENCH_NAME ": %s: %s\n", path, etl_reader_errmsg(r));
		exit(1);
	}
	return r;
}

/* The compressed buffers of one file into the corpus set, Windows' stream
 * kept and inflated. Returns how many; exits when the file cannot be read
 * or a stream does not inflate to its size. */
static size_t load_compressed(struct set *s, const char *path)
{
	uint8_t *data;
	etl_reader *r = open_input(path, &data);
	const struct etl_buffer_info *bi;
	size_t count = 0;
	int st;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		if (st == ETL_FATAL) {
			fprintf(stderr, BENCH_NAME ": %s: %s\n", path, etl_reader_errmsg(r));
			exit(1);
		}
		if (!bi || !bi->compressed)
			continue;
		uint32_t clen = bi->buffer_size - HDR, ulen = bi->inflated_size;
		if (st != ETL_OK || bi->available < bi->buffer_size || bi->buffer_size <= HDR || ulen == 0) {
			printf("# corpus: %s: damaged compressed buffer at 0x%llx left out\n", path,
			       (unsigned long long)bi->file_offset);
			continue;
		}
		s->win = grow(s->win, &s->win_cap, s->win_len + clen, 1);
		size_t woff = s->win_len;
		memcpy(s->win + woff, bi->stored + HDR, clen);
		s->win_len += clen;
		uint8_t *dst = set_add(s, ulen);
		struct buf *b = &s->v[s->n - 1];
		b->win_off = woff;
		b->win_len = clen;
		size_t out = 0, pos = 0;
		int err = 0;
		if (etl_lz77_decompress(s->win + woff, clen, dst, ulen, &out, &err, &pos) != ETL_OK || out != ulen) {
			fprintf(stderr, BENCH_NAME ": %s: buffer at 0x%llx does not inflate to %u bytes (got %zu)\n",
			        path, (unsigned long long)bi->file_offset, ulen, out);
			exit(1);
		}
		count++;
	}
	etl_reader_free(r);
	free(data);
	return count;
}

/* The records of a file's uncompressed buffers, in file order, each padded
 * to 8 bytes, appended to *stream; their sizes to *sizes. */
static void load_records(const char *path, uint8_t **stream, size_t *len, size_t *cap,
                         uint32_t **sizes, size_t *nrec, size_t *ncap)
{
	uint8_t *data;
	etl_reader *r = open_input(path, &data);
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st == ETL_FATAL) {
			fprintf(stderr, BENCH_NAME ": %s: %s\n", path, etl_reader_errmsg(r));
			exit(1);
		}
		if (st == ETL_FAILED || ev->in_compressed || !ev->record || ev->size == 0)
			continue;
		uint32_t padded = (ev->size + 7u) & ~7u;
		if (padded > SYN_BUFFER - HDR)
			continue;
		*stream = grow(*stream, cap, *len + padded, 1);
		memcpy(*stream + *len, ev->record, ev->size);
		memset(*stream + *len + ev->size, 0, padded - ev->size);
		*len += padded;
		*sizes = grow(*sizes, ncap, *nrec + 1, sizeof **sizes);
		(*sizes)[(*nrec)++] = padded;
	}
	etl_reader_free(r);
	free(data);
}

/* Packs the record stream into 64 KiB logger buffers until the set holds
 * target bytes; a buffer runs on from the stream's end to its start. */
static void pack_synthetic(struct set *s, const uint8_t *stream, const uint32_t *sizes, size_t nrec,
                           uint64_t target)
{
	const uint32_t room = SYN_BUFFER - HDR;
	uint8_t *tmp = malloc(room);
	size_t k = 0, off = 0;
	if (!tmp)
		die("out of memory in %s", "synthetic");
	while (nrec && s->raw_len < target) {
		uint32_t used = 0;
		while (used + sizes[k] <= room) {
			memcpy(tmp + used, stream + off, sizes[k]);
			used += sizes[k];
			off += sizes[k];
			if (++k == nrec)
				k = off = 0;
		}
		memcpy(set_add(s, used), tmp, used);
	}
	free(tmp);
}

/* ---- codecs ------------------------------------------------------------ */

static void *lz77_ws;
static z_stream zdef, zinf;

static size_t lz77_bound(size_t n) { return etl_lz77_compress_bound(n); }
static int lz77_comp(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
	return etl_lz77_compress(src, n, dst, cap, out, lz77_ws) == ETL_OK ? 0 : -1;
}
static int lz77_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t ulen)
{
	size_t out = 0;
	return etl_lz77_decompress(src, n, dst, ulen, &out, NULL, NULL) == ETL_OK && out == ulen ? 0 : -1;
}

static size_t zlib_bound(size_t n) { return (size_t)compressBound((uLong)n); }
static int zlib_comp(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
	if (deflateReset(&zdef) != Z_OK)
		return -1;
	zdef.next_in = (Bytef *)(uintptr_t)src;
	zdef.avail_in = (uInt)n;
	zdef.next_out = dst;
	zdef.avail_out = (uInt)cap;
	if (deflate(&zdef, Z_FINISH) != Z_STREAM_END)
		return -1;
	*out = (size_t)zdef.total_out;
	return 0;
}
static int zlib_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t ulen)
{
	if (inflateReset(&zinf) != Z_OK)
		return -1;
	zinf.next_in = (Bytef *)(uintptr_t)src;
	zinf.avail_in = (uInt)n;
	zinf.next_out = dst;
	zinf.avail_out = (uInt)ulen;
	return inflate(&zinf, Z_FINISH) == Z_STREAM_END && zinf.total_out == ulen ? 0 : -1;
}

static size_t lz4_bound(size_t n) { return (size_t)LZ4_compressBound((int)n); }
static int lz4_comp(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
	int k = LZ4_compress_default((const char *)src, (char *)dst, (int)n, cap > INT_MAX ? INT_MAX : (int)cap);
	*out = k > 0 ? (size_t)k : 0;
	return k > 0 ? 0 : -1;
}
static int lz4_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t ulen)
{
	return LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)ulen) == (int)ulen ? 0 : -1;
}

struct codec {
	const char *name;          /* compress.NAME */
	const char *iname;         /* inflate.INAME */
	size_t (*bound)(size_t);
	int (*comp)(const uint8_t *, size_t, uint8_t *, size_t, size_t *);
	int (*inflate)(const uint8_t *, size_t, uint8_t *, size_t);
};
static const struct codec codecs[] = {
	{ "lz77", "lz77", lz77_bound, lz77_comp, lz77_inflate },
	{ "zlib1", "zlib", zlib_bound, zlib_comp, zlib_inflate },
	{ "lz4", "lz4", lz4_bound, lz4_comp, lz4_inflate },
};
#define NCODECS (sizeof codecs / sizeof codecs[0])

static void codecs_init(void)
{
	lz77_ws = malloc(etl_lz77_workspace_size());
	if (!lz77_ws)
		die("out of memory in %s", "workspace");
	memset(&zdef, 0, sizeof zdef);
	memset(&zinf, 0, sizeof zinf);
	if (deflateInit(&zdef, 1) != Z_OK || inflateInit(&zinf) != Z_OK)
		die("%s", "zlib does not initialise");
}

static void codecs_free(void)
{
	deflateEnd(&zdef);
	inflateEnd(&zinf);
	free(lz77_ws);
}

/* One codec's output for every buffer of a set. */
struct packed {
	uint8_t *data;
	size_t *off;               /* buffer i's stream at data + off[i] */
	size_t *len;
	uint64_t total;
};

static void packed_alloc(struct packed *p, const struct set *s, const struct codec *c)
{
	size_t room = 0;
	p->off = malloc((s->n ? s->n : 1) * sizeof *p->off);
	p->len = calloc(s->n ? s->n : 1, sizeof *p->len);
	if (!p->off || !p->len)
		die("out of memory in %s", "packed");
	for (size_t i = 0; i < s->n; i++) {
		p->off[i] = room;
		room += c->bound(s->v[i].len);
	}
	p->data = malloc(room ? room : 1);
	if (!p->data)
		die("out of memory in %s", "packed");
	p->total = 0;
}

static void packed_free(struct packed *p)
{
	free(p->data);
	free(p->off);
	free(p->len);
}

/* Compresses every buffer of s into p. check: compare the lengths with the
 * previous pass (the codecs are deterministic). Returns 0 or -1. */
static int compress_pass(const struct codec *c, const struct set *s, struct packed *p, int check)
{
	uint64_t total = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct buf *b = &s->v[i];
		size_t out = 0;
		if (c->comp(s->raw + b->off, b->len, p->data + p->off[i], c->bound(b->len), &out) != 0) {
			fprintf(stderr, BENCH_NAME ": %s: %s buffer %zu (%u bytes) does not compress\n", c->name,
			        s->name, i, b->len);
			return -1;
		}
		if (check && out != p->len[i]) {
			fprintf(stderr, BENCH_NAME ": %s: %s buffer %zu compressed to %zu bytes, before to %zu\n",
			        c->name, s->name, i, out, p->len[i]);
			return -1;
		}
		p->len[i] = out;
		total += out;
	}
	p->total = total;
	return 0;
}

/* Inflates every buffer of p into dst (room for the largest). verify:
 * compare with the original bytes too. Returns 0 or -1. */
static int inflate_pass(const struct codec *c, const struct set *s, const struct packed *p, uint8_t *dst,
                        int verify)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct buf *b = &s->v[i];
		if (c->inflate(p->data + p->off[i], p->len[i], dst, b->len) != 0 ||
		    (verify && memcmp(dst, s->raw + b->off, b->len) != 0)) {
			fprintf(stderr, BENCH_NAME ": %s: %s buffer %zu (%u bytes, %zu compressed) does not inflate "
			        "back to the same bytes\n", c->name, s->name, i, b->len, p->len[i]);
			return -1;
		}
	}
	return 0;
}

/* Windows' streams of the corpus set, inflated into dst. */
static int inflate_windows_pass(const struct set *s, uint8_t *dst)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct buf *b = &s->v[i];
		if (lz77_inflate(s->win + b->win_off, b->win_len, dst, b->len) != 0) {
			fprintf(stderr, BENCH_NAME ": Windows' buffer %zu does not inflate\n", i);
			return -1;
		}
	}
	return 0;
}

/* ---- measuring ----------------------------------------------------------- */

static double min_time = 0.1;

/* What one timed run repeats. */
enum { OP_COMPRESS, OP_INFLATE, OP_WINDOWS };
struct job {
	int op;
	const struct codec *c;
	const struct set *s;
	struct packed *p;
	uint8_t *dst;
	int loops;                 /* passes per timed run */
	double best;               /* seconds of one pass, best run */
	double worst;
};

static int job_pass(struct job *j)
{
	switch (j->op) {
	case OP_COMPRESS:
		return compress_pass(j->c, j->s, j->p, 1);
	case OP_INFLATE:
		return inflate_pass(j->c, j->s, j->p, j->dst, 0);
	default:
		return inflate_windows_pass(j->s, j->dst);
	}
}

/* Times one run of j (j->loops passes); keeps the best and worst. */
static int job_run(struct job *j)
{
	double t = now();
	for (int l = 0; l < j->loops; l++)
		if (job_pass(j) != 0)
			return -1;
	t = (now() - t) / j->loops;
	if (t < j->best)
		j->best = t;
	if (t > j->worst)
		j->worst = t;
	return 0;
}

/* One untimed pass to warm the caches and choose the loop count. */
static int job_calibrate(struct job *j)
{
	double t = now();
	if (job_pass(j) != 0)
		return -1;
	t = now() - t;
	j->loops = t > 0 ? (int)(min_time / t) + 1 : 1000;
	if (j->loops > 1000)
		j->loops = 1000;
	j->best = 1e300;
	j->worst = 0;
	return 0;
}

static void fig(const char *name, const char *suffix, double v, const char *unit)
{
	printf("%s%s %.*f %s\n", name, suffix, v < 10 ? 3 : 1, v, unit);
	fflush(stdout);
}

static double mbs(const struct set *s, const struct job *j)
{
	return (double)s->raw_len / MB / j->best;
}

/* What the targets need from the corpus and synthetic sets. */
struct result {
	int have;
	double lz77, zlib1, windows_ratio;
};

/* Measures every codec on s and prints the figures. Returns 0, or -1 on a
 * failed round trip. */
static int measure_set(const struct set *s, int reps, struct result *res)
{
	struct packed p[NCODECS];
	struct job jobs[2 * NCODECS + 1];
	size_t nj = 0;
	uint8_t *dst = malloc(s->max_len ? s->max_len : 1);
	if (!dst)
		die("out of memory in %s", "measure");
	int rc = 0;

	/* Every codec's output first, checked byte for byte. */
	for (size_t k = 0; k < NCODECS; k++) {
		packed_alloc(&p[k], s, &codecs[k]);
		if (compress_pass(&codecs[k], s, &p[k], 0) != 0 ||
		    inflate_pass(&codecs[k], s, &p[k], dst, 1) != 0)
			rc = -1;
	}
	for (size_t k = 0; k < NCODECS && rc == 0; k++)
		jobs[nj++] = (struct job){ OP_COMPRESS, &codecs[k], s, &p[k], dst, 1, 1e300, 0 };
	for (size_t k = 0; k < NCODECS && rc == 0; k++)
		jobs[nj++] = (struct job){ OP_INFLATE, &codecs[k], s, &p[k], dst, 1, 1e300, 0 };
	if (rc == 0 && s->win)
		jobs[nj++] = (struct job){ OP_WINDOWS, &codecs[0], s, NULL, dst, 1, 1e300, 0 };
	for (size_t k = 0; k < nj && rc == 0; k++)
		rc = job_calibrate(&jobs[k]);
	/* The codecs take turns within each run. */
	for (int r = 0; r < reps && rc == 0; r++)
		for (size_t k = 0; k < nj && rc == 0; k++)
			rc = job_run(&jobs[k]);

	if (rc == 0) {
		const char *sfx = s->suffix;
		printf("# %s: %zu buffers, %.1f MiB uncompressed", s->name, s->n, (double)s->raw_len / MB);
		if (s->win)
			printf(", %.2f MiB as Windows compressed them", (double)s->win_len / MB);
		printf("\n");
		for (size_t k = 0; k < nj; k++) {
			const struct job *j = &jobs[k];
			const char *what = j->op == OP_COMPRESS ? "compress" : "inflate";
			char name[64];
			if (j->op == OP_WINDOWS)
				snprintf(name, sizeof name, "inflate.lz77.windows");
			else
				snprintf(name, sizeof name, "%s.%s", what, j->op == OP_COMPRESS ? j->c->name : j->c->iname);
			fig(name, sfx, mbs(s, j), "MB/s");
			printf("#   %s%s: %d pass%s per run, runs %.1f .. %.1f MB/s\n", name, sfx, j->loops,
			       j->loops == 1 ? "" : "es", (double)s->raw_len / MB / j->worst, mbs(s, j));
		}
		for (size_t k = 0; k < NCODECS; k++) {
			char name[64];
			snprintf(name, sizeof name, "compress.%s_ratio", codecs[k].name);
			fig(name, sfx, (double)p[k].total / (double)s->raw_len, "x");
		}
		if (s->win) {
			fig("compress.windows_own_ratio", sfx, (double)s->win_len / (double)s->raw_len, "x");
			fig("compress.windows_ratio", sfx, (double)p[0].total / (double)s->win_len, "x");
			printf("#   LZ77 %.2f MiB against Windows' %.2f MiB on the same buffers\n",
			       (double)p[0].total / MB, (double)s->win_len / MB);
			res->windows_ratio = (double)p[0].total / (double)s->win_len;
		}
		res->have = 1;
		res->lz77 = mbs(s, &jobs[0]);
		res->zlib1 = mbs(s, &jobs[1]);
	}
	for (size_t k = 0; k < NCODECS; k++)
		packed_free(&p[k]);
	free(dst);
	return rc;
}

/* ---- inputs ------------------------------------------------------------ */

static void load_sets(int nfiles, char **files, double syn_mb, struct set *corpus, struct set *syn)
{
	uint8_t *stream = NULL;
	uint32_t *sizes = NULL;
	size_t len = 0, cap = 0, nrec = 0, ncap = 0;
	memset(corpus, 0, sizeof *corpus);
	memset(syn, 0, sizeof *syn);
	corpus->name = "corpus";
	corpus->suffix = "";
	syn->name = "synthetic";
	syn->suffix = ".synthetic";
	for (int k = 0; k < nfiles; k++) {
		size_t n = load_compressed(corpus, files[k]);
		if (n)
			printf("# corpus: %s: compressed buffers: %zu\n", files[k], n);
		if (syn_mb > 0)
			load_records(files[k], &stream, &len, &cap, &sizes, &nrec, &ncap);
	}
	if (syn_mb > 0) {
		pack_synthetic(syn, stream, sizes, nrec, (uint64_t)(syn_mb * MB));
		printf("# synthetic: %zu records (%.1f MiB) of uncompressed buffers, packed into %u-byte buffers\n",
		       nrec, (double)len / MB, SYN_BUFFER);
	}
	free(stream);
	free(sizes);
}

static void set_free(struct set *s)
{
	free(s->v);
	free(s->raw);
	free(s->win);
}

static void opt_clock(const char *v)
{
	if (strcmp(v, "cpu") == 0)
		bench_clock = CLOCK_PROCESS_CPUTIME_ID;
	else if (strcmp(v, "wall") != 0)
		die("-c takes wall or cpu, not %s", v);
}

static int cmd_run(int argc, char **argv)
{
	int reps = 5, i = 0;
	double syn_mb = 32;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			opt_clock(argv[++i]);
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			min_time = atof(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			syn_mb = atof(argv[++i]);
		else
			die("unknown option %s", argv[i]);
	}
	if (reps < 1)
		reps = 1;
	printf("# compress_bench: libetl %s, zlib %s, LZ4 %s; best of %d runs per figure, %s clock, "
	       "MB = 2^20 bytes of uncompressed data\n",
	       etl_version_string(), zlibVersion(), LZ4_versionString(), reps,
	       bench_clock == CLOCK_MONOTONIC ? "wall" : "process CPU");

	struct set corpus, syn;
	load_sets(argc - i, argv + i, syn_mb, &corpus, &syn);
	if (corpus.n == 0) {
		fprintf(stderr, BENCH_NAME ": no compressed buffer in the input files\n");
		return 1;
	}
	codecs_init();
	struct result rc_corpus = { 0 }, rc_syn = { 0 };
	int failed = measure_set(&corpus, reps, &rc_corpus) != 0;
	if (!failed && syn.n)
		failed = measure_set(&syn, reps, &rc_syn) != 0;
	codecs_free();

	if (!failed) {
		printf("# targets\n");
		printf("%s compress.lz77 %.1f MB/s (target >= compress.zlib1 %.1f MB/s)\n",
		       rc_corpus.lz77 >= rc_corpus.zlib1 ? "PASS" : "MISS", rc_corpus.lz77, rc_corpus.zlib1);
		if (rc_syn.have)
			printf("%s compress.lz77.synthetic %.1f MB/s (target >= compress.zlib1.synthetic %.1f MB/s)\n",
			       rc_syn.lz77 >= rc_syn.zlib1 ? "PASS" : "MISS", rc_syn.lz77, rc_syn.zlib1);
		printf("%s compress.windows_ratio %.3f x (target <= 1.150 x: LZ77 output within 15 %% of Windows')\n",
		       rc_corpus.windows_ratio <= 1.15 ? "PASS" : "MISS", rc_corpus.windows_ratio);
	}
	set_free(&corpus);
	set_free(&syn);
	return failed ? 1 : 0;
}

static int cmd_profile(int argc, char **argv)
{
	if (argc < 3)
		die("%s", "profile needs CODEC compress|inflate PASSES FILE...");
	const struct codec *c = NULL;
	for (size_t k = 0; k < NCODECS; k++)
		if (strcmp(argv[0], codecs[k].name) == 0 || strcmp(argv[0], codecs[k].iname) == 0)
			c = &codecs[k];
	if (!c)
		die("unknown codec %s (lz77, zlib1, lz4)", argv[0]);
	int inflate = strcmp(argv[1], "inflate") == 0;
	if (!inflate && strcmp(argv[1], "compress") != 0)
		die("profile: compress or inflate, not %s", argv[1]);
	int passes = atoi(argv[2]), i = 3;
	double syn_mb = 0;
	if (i + 1 < argc && strcmp(argv[i], "-s") == 0) {
		syn_mb = atof(argv[i + 1]);
		i += 2;
	}
	struct set sets[2];
	load_sets(argc - i, argv + i, syn_mb, &sets[0], &sets[1]);
	codecs_init();
	int rc = 0;
	for (int k = 0; k < 2 && rc == 0; k++) {
		struct set *s = &sets[k];
		if (s->n == 0)
			continue;
		struct packed p;
		uint8_t *dst = malloc(s->max_len);
		if (!dst)
			die("out of memory in %s", "profile");
		packed_alloc(&p, s, c);
		rc = compress_pass(c, s, &p, 0);
		for (int n = 0; n < passes && rc == 0; n++)
			rc = inflate ? inflate_pass(c, s, &p, dst, 0) : compress_pass(c, s, &p, 1);
		if (rc == 0)
			printf("%s: %zu buffers, %zu bytes -> %llu bytes\n", s->name, s->n, s->raw_len,
			       (unsigned long long)p.total);
		packed_free(&p);
		free(dst);
		set_free(s);
	}
	codecs_free();
	return rc ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: compress_bench run [-r REPS] [-c wall|cpu] [-t SECONDS] [-s MB] FILE...\n"
	        "       compress_bench profile lz77|zlib1|lz4 compress|inflate PASSES [-s MB] FILE...\n");
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
	usage();
	return 2;
}
