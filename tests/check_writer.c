/*
 * check_writer.c - the writer's contract (include/etl_writer.h):
 *
 *   roundtrip   every corpus file ($ETL_CORPUS, read-only) re-encoded with
 *               etl_writer_options_from_logfile() and read back equal, event
 *               by event per processor and field by field, with the source's
 *               compression, with compression forced on, and (compressed
 *               sources) forced off; the logfile header reproduced;
 *   structure   the bytes of written files parsed by hand: header buffer,
 *               data buffers, flags, sequence numbers, alignment, fill,
 *               patched logfile-header counters (EndTime in each clock),
 *               compressed layout, caller's header records (also one that
 *               fails, and a compressed header buffer that would shrink);
 *   rejections  events too large for a buffer or for the 0xFFFF record
 *               limit, processors out of range, bad options, misuse:
 *               ETL_FAILED, nothing truncated, the writer goes on;
 *   cbuf        the user-mode compression buffer filled and spilled across
 *               many trace buffers, flush boundaries at every position
 *               inside buffer headers and payloads, the exact write pattern;
 *   failures    output failing after N bytes (RLIMIT_FSIZE in a child
 *               process) on a path: ETL_FATAL, no temporary left, an
 *               existing target untouched; a writer freed unclosed, or
 *               reopened after a failed open; a sink failing once at every
 *               write in turn (events and close): buffers lost and counted,
 *               the rest of the file valid;
 *   modes       circular, new-file (also with a failing flag patch, and
 *               with compression), .gz / .lz4 targets, open_fd over a
 *               longer file, raw buffer copies reproducing files byte for
 *               byte.
 *
 * Events are compared per processor in file order (the writer keeps each
 * processor's events in the order given, but packs buffers its own way).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "etl.h"
#include "etl_writer.h"
#include "testutil.h"

#define HDR ETL_BUFFER_HEADER_SIZE
#define HDR_STREAM 0x10000        /* stream id of header-buffer records */
#define NSTREAMS (HDR_STREAM + 1)
#define FT_2020 132264173104203138LL   /* a FILETIME in February 2020 */

/* ------------------------------------------------------------------ */
/* owned event copies                                                   */
/* ------------------------------------------------------------------ */

struct evc {
	struct etl_event ev;   /* ext / payload point into data; record NULL */
	uint8_t *data;         /* ext bytes then payload bytes               */
	int stream;            /* processor, or HDR_STREAM                   */
};

struct evvec {
	struct evc *v;
	size_t n, cap;
};

static void evvec_push(struct evvec *vv, const struct etl_event *ev, int stream)
{
	if (vv->n == vv->cap) {
		vv->cap = vv->cap ? vv->cap * 2 : 256;
		vv->v = realloc(vv->v, vv->cap * sizeof *vv->v);
		ck_assert_ptr_nonnull(vv->v);
	}
	struct evc *c = &vv->v[vv->n++];
	c->ev = *ev;
	c->stream = stream;
	size_t n = (size_t)ev->ext_size + ev->payload_size;
	c->data = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(c->data);
	if (ev->ext_size)
		memcpy(c->data, ev->ext, ev->ext_size);
	if (ev->payload_size)
		memcpy(c->data + ev->ext_size, ev->payload, ev->payload_size);
	c->ev.ext = ev->ext_size ? c->data : NULL;
	c->ev.payload = ev->payload_size ? c->data + ev->ext_size : NULL;
	c->ev.record = NULL;
}

static void evvec_free(struct evvec *vv)
{
	for (size_t i = 0; i < vv->n; i++)
		free(vv->v[i].data);
	free(vv->v);
	memset(vv, 0, sizeof *vv);
}


/* ------------------------------------------------------------------ */
/* memory sink                                                          */
/* ------------------------------------------------------------------ */

struct wlog {
	uint64_t off;
	size_t n;
	int ok;
};

struct msink {
	uint8_t *p;
	size_t len, cap;
	struct wlog *w;
	size_t nw, wcap;
	long fail_at;          /* index of the call that fails once, -1: none */
	int fail_small;        /* fail the first write of under 8 bytes (a flag patch) */
	uint64_t limit;        /* fail every write reaching past this, 0: none */
};

static void msink_init(struct msink *s)
{
	memset(s, 0, sizeof *s);
	s->fail_at = -1;
}

static void msink_free(struct msink *s)
{
	free(s->p);
	free(s->w);
	memset(s, 0, sizeof *s);
}

static int msink_write(void *ctx, uint64_t off, const void *data, size_t n)
{
	struct msink *s = ctx;
	if (s->nw == s->wcap) {
		s->wcap = s->wcap ? s->wcap * 2 : 64;
		s->w = realloc(s->w, s->wcap * sizeof *s->w);
		if (!s->w)
			abort();
	}
	struct wlog *l = &s->w[s->nw++];
	l->off = off;
	l->n = n;
	l->ok = 0;
	if (s->fail_small && n < 8) {
		s->fail_small = 0;
		errno = EIO;
		return -1;
	}
	if ((long)(s->nw - 1) == s->fail_at || (s->limit && off + n > s->limit)) {
		errno = ENOSPC;
		return -1;
	}
	if (off + n > s->cap) {
		size_t nc = s->cap ? s->cap : 65536;
		while (nc < off + n)
			nc *= 2;
		s->p = realloc(s->p, nc);
		if (!s->p)
			abort();
		memset(s->p + s->cap, 0xA5, nc - s->cap);   /* never-written marker */
		s->cap = nc;
	}
	memcpy(s->p + off, data, n);
	if (off + n > s->len)
		s->len = off + n;
	l->ok = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* reading an output back                                               */
/* ------------------------------------------------------------------ */

struct readback {
	size_t events;          /* events matched (logfile header excluded)   */
	size_t header_records;  /* header-buffer records other than the lf one */
	struct etl_logfile lf;  /* copy; names dropped                        */
	char logger_name[512], log_file_name[512];
};

/* Reads img (order), and checks that every stream's events equal exp's
 * events of that stream, in order, and that nothing is missing or extra.
 * skip_hdr: ignore every header-buffer record (the writer's defaults). */
static void check_readback(const uint8_t *img, size_t len, const struct evvec *exp, int order,
                           int full, int skip_hdr, const char *what, struct readback *rb)
{
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	int orc = etl_reader_open_memory(r, img, len);
	ck_assert_msg(orc == ETL_OK, "%s: open %d: %s", what, orc, etl_reader_errmsg(r));
	const struct etl_logfile *lf = etl_reader_logfile(r);
	ck_assert_msg(lf->present, "%s: no logfile header", what);
	memset(rb, 0, sizeof *rb);
	rb->lf = *lf;
	snprintf(rb->logger_name, sizeof rb->logger_name, "%s", lf->logger_name ? lf->logger_name : "");
	snprintf(rb->log_file_name, sizeof rb->log_file_name, "%s", lf->log_file_name ? lf->log_file_name : "");
	rb->lf.logger_name = rb->logger_name;
	rb->lf.log_file_name = rb->log_file_name;
	size_t *cur = calloc(NSTREAMS, sizeof *cur);
	ck_assert_ptr_nonnull(cur);
	const struct etl_event *ev;
	int st;
	size_t k = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_msg(st == ETL_OK, "%s: reader result %d after %zu events: %s (offset 0x%" PRIx64 ")",
		              what, st, k, etl_reader_errmsg(r), etl_reader_erroff(r));
		k++;
		if (ev->buffer_offset == 0 && ev->file_offset == lf->file_offset)
			continue;
		if (ev->buffer_offset == 0) {
			rb->header_records++;
			if (skip_hdr)
				continue;
		}
		int stream = ev->buffer_offset == 0 ? HDR_STREAM : ev->processor;
		size_t i = cur[stream];
		while (i < exp->n && exp->v[i].stream != stream)
			i++;
		TU_CHECK(i < exp->n, "%s: extra event in stream %d (record %zu, offset 0x%" PRIx64 ", ts %" PRId64 ")",
		         what, stream, k, ev->file_offset, ev->timestamp);
		const char *d = tu_ev_diff(&exp->v[i].ev, ev, full);
		TU_CHECK(d == NULL, "%s: stream %d, event %zu of the source (record %zu read, offset 0x%" PRIx64
		         "): field %s differs", what, stream, i, k, ev->file_offset, d);
		cur[stream] = i + 1;
		rb->events++;
	}
	free(cur);
	etl_reader_free(r);
	size_t want = 0;
	for (size_t i = 0; i < exp->n; i++)
		if (!(skip_hdr && exp->v[i].stream == HDR_STREAM))
			want++;
	ck_assert_msg(rb->events == want, "%s: %zu events read back, %zu written", what, rb->events, want);
}

/* ------------------------------------------------------------------ */
/* the corpus                                                           */
/* ------------------------------------------------------------------ */

static char **g_files;
static size_t g_nfiles;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_corpus(void)
{
	DIR *d = opendir(tu_corpus_dir());
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".etl") != 0)
			continue;
		g_files = realloc(g_files, (g_nfiles + 1) * sizeof *g_files);
		g_files[g_nfiles++] = strdup(de->d_name);
	}
	closedir(d);
	if (g_nfiles)
		qsort(g_files, g_nfiles, sizeof *g_files, cmp_str);
}

struct source {
	struct etl_logfile lf;
	char *logger_name, *log_file_name;
	struct evvec ev;       /* file order, logfile-header record excluded */
	size_t data_events;
};

static void source_load(struct source *s, const char *path)
{
	memset(s, 0, sizeof *s);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	int orc = etl_reader_open_file(r, path);
	ck_assert_msg(orc == ETL_OK, "%s: open %d: %s", path, orc, etl_reader_errmsg(r));
	const struct etl_logfile *lf = etl_reader_logfile(r);
	s->lf = *lf;
	s->logger_name = strdup(lf->logger_name ? lf->logger_name : "");
	s->log_file_name = strdup(lf->log_file_name ? lf->log_file_name : "");
	s->lf.logger_name = s->logger_name;
	s->lf.log_file_name = s->log_file_name;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_msg(st == ETL_OK, "%s: source reader result %d: %s", path, st, etl_reader_errmsg(r));
		if (ev->buffer_offset == 0 && ev->file_offset == lf->file_offset)
			continue;
		int stream = ev->buffer_offset == 0 ? HDR_STREAM : ev->processor;
		evvec_push(&s->ev, ev, stream);
		if (stream != HDR_STREAM)
			s->data_events++;
	}
	etl_reader_free(r);
}

static void source_free(struct source *s)
{
	evvec_free(&s->ev);
	free(s->logger_name);
	free(s->log_file_name);
}

/* The logfile header read back equals the source's (mode: the mode the
 * output was written with), field by field. BuffersWritten and the
 * header record's offset are the file's own. */
static void check_logfile(const struct etl_logfile *a, const struct etl_logfile *b, uint32_t mode,
                          const char *what)
{
#define L(x) ck_assert_msg(a->x == b->x, "%s: logfile %s: source %" PRId64 ", output %" PRId64, what, #x, \
	                   (int64_t)a->x, (int64_t)b->x)
	ck_assert(b->present);
	L(header_ptr_size);
	L(buffer_size);
	for (int i = 0; i < 4; i++)
		L(version[i]);
	L(provider_version);
	L(number_of_processors);
	L(end_time);
	L(timer_resolution);
	L(maximum_file_size);
	ck_assert_msg(b->log_file_mode == mode, "%s: log_file_mode 0x%x, expected 0x%x", what, b->log_file_mode, mode);
	L(start_buffers);
	L(pointer_size);
	L(events_lost);
	L(cpu_speed_mhz);
	/* 6.1+: clock-interrupt and performance-counter timer sources in the
	 * LoggerName / LogFileName slots (before 6.1: stale pointers). */
	L(logger_name_field);
	L(log_file_name_field);
	L(time_zone.bias);
	ck_assert_str_eq(a->time_zone.standard_name, b->time_zone.standard_name);
	ck_assert_str_eq(a->time_zone.daylight_name, b->time_zone.daylight_name);
	ck_assert(memcmp(&a->time_zone.standard_date, &b->time_zone.standard_date, sizeof a->time_zone.standard_date) == 0);
	ck_assert(memcmp(&a->time_zone.daylight_date, &b->time_zone.daylight_date, sizeof a->time_zone.daylight_date) == 0);
	L(time_zone.standard_bias);
	L(time_zone.daylight_bias);
	L(boot_time);
	L(perf_freq);
	L(start_time);
	L(reserved_flags);
	L(buffers_lost);
	L(header_timestamp);
	ck_assert_str_eq(a->logger_name, b->logger_name);
	ck_assert_str_eq(a->log_file_name, b->log_file_name);
#undef L
}

enum { RT_ASIS, RT_FORCE_ON, RT_FORCE_OFF };

/* Re-encodes s into a memory image; returns the mode used. */
static uint32_t encode_source(const struct source *s, int variant, const char *tmpdir, struct msink *out,
                              const char *what)
{
	struct etl_writer_options o;
	etl_writer_options_from_logfile(&o, &s->lf);
	o.bare_header = 1;
	if (variant == RT_FORCE_ON) {
		o.log_file_mode |= ETL_MODE_COMPRESSED;
		/* Circular and new-file modes cannot be combined with
		 * compression (refused at open). */
		o.log_file_mode &= ~(ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE);
	} else if (variant == RT_FORCE_OFF) {
		o.log_file_mode &= ~ETL_MODE_COMPRESSED;
	}
	/* New-file mode needs a pattern the logfile header cannot supply;
	 * the source files are far below their limit, so none is used. */
	char pattern[600];
	snprintf(pattern, sizeof pattern, "%s/next_%%03d.etl", tmpdir);
	if (o.log_file_mode & ETL_MODE_NEWFILE)
		o.newfile_pattern = pattern;
	etl_writer *w = etl_writer_new();
	ck_assert_ptr_nonnull(w);
	msink_init(out);
	int rc = etl_writer_open_sink(w, msink_write, out, &o);
	ck_assert_msg(rc == ETL_OK, "%s: open %d: %s", what, rc, etl_writer_errmsg(w));
	for (size_t i = 0; i < s->ev.n; i++) {
		const struct evc *c = &s->ev.v[i];
		if (c->stream == HDR_STREAM) {
			rc = etl_writer_write_header_event(w, &c->ev);
			TU_CHECK(rc == ETL_OK, "%s: header record %zu: %d: %s", what, i, rc, etl_writer_errmsg(w));
		} else {
			rc = etl_writer_write_event(w, &c->ev);
			TU_CHECK(rc == ETL_OK, "%s: event %zu (kind %s, processor %u): %d: %s", what, i,
			         etl_hdr_kind_name(c->ev.kind), c->ev.processor, rc, etl_writer_errmsg(w));
		}
	}
	etl_writer_add_lost(w, s->lf.events_lost, s->lf.buffers_lost);
	rc = etl_writer_close(w);
	ck_assert_msg(rc == ETL_OK, "%s: close %d: %s", what, rc, etl_writer_errmsg(w));
	struct etl_writer_stats stt;
	etl_writer_stats(w, &stt);
	ck_assert_uint_eq(stt.events_written, s->data_events);
	ck_assert_uint_eq(stt.events_rejected, 0);
	ck_assert_uint_eq(stt.files_written, 1);
	etl_writer_free(w);
	return o.log_file_mode;
}

static char *make_tmpdir(void)
{
	char *d = strdup("/tmp/check_writer.XXXXXX");
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

/* Names in dir (not . or ..), as one string "a b c", sorted. */
static void dir_listing(const char *dir, char *out, size_t outn)
{
	char *names[256];
	size_t n = 0;
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	while ((de = readdir(d)) != NULL && n < 256)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(out);
		snprintf(out + l, outn - l, "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
}

static void rm_tree(char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char p[1024];
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
	free(dir);
}

static int count_compressed_buffers(const uint8_t *img, size_t len, size_t *nbuf)
{
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, img, len), ETL_OK);
	const struct etl_buffer_info *bi;
	int st, comp = 0;
	*nbuf = 0;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		ck_assert_msg(st == ETL_OK, "buffer walk: %d: %s", st, etl_reader_errmsg(r));
		(*nbuf)++;
		comp += bi->compressed;
	}
	etl_reader_free(r);
	return comp;
}

/* 1. Every corpus file re-encoded and read back equal. */
START_TEST(test_roundtrip_corpus)
{
	TU_NEED_CORPUS();
	const char *name = g_files[_i];
	char *path = tu_corpus_path(name);
	struct source s;
	source_load(&s, path);
	char *tmp = make_tmpdir();
	int src_comp = (s.lf.log_file_mode & ETL_MODE_COMPRESSED) != 0;
	for (int variant = RT_ASIS; variant <= RT_FORCE_OFF; variant++) {
		if (variant == RT_FORCE_ON && src_comp)
			continue;
		if (variant == RT_FORCE_OFF && !src_comp)
			continue;
		char what[300];
		snprintf(what, sizeof what, "%s (%s)", name,
		         variant == RT_ASIS ? "as is" : variant == RT_FORCE_ON ? "compressed" : "uncompressed");
		struct msink out;
		uint32_t mode = encode_source(&s, variant, tmp, &out, what);
		struct readback rb;
		check_readback(out.p, out.len, &s.ev, ETL_ORDER_FILE, 1, 0, what, &rb);
		ck_assert_uint_eq(rb.events, s.ev.n);
		check_logfile(&s.lf, &rb.lf, mode, what);
		size_t nbuf;
		int comp = count_compressed_buffers(out.p, out.len, &nbuf);
		ck_assert_msg(rb.lf.buffers_written == nbuf, "%s: BuffersWritten %u, buffers %zu", what,
		              rb.lf.buffers_written, nbuf);
		if (mode & ETL_MODE_COMPRESSED)
			ck_assert_msg(comp == (int)nbuf - 1, "%s: %d of %zu buffers compressed", what, comp, nbuf);
		else
			ck_assert_int_eq(comp, 0);
		msink_free(&out);
	}
	char listing[2048];
	dir_listing(tmp, listing, sizeof listing);
	ck_assert_msg(listing[0] == 0, "%s: files left by new-file mode: %s", name, listing);
	rm_tree(tmp);
	source_free(&s);
	free(path);
}
END_TEST

/* ------------------------------------------------------------------ */
/* synthetic events                                                     */
/* ------------------------------------------------------------------ */

static const struct etl_guid PROV = { 0x1234abcd, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 8 } };

/* An EVENT_HEADER64 event. The payload begins with the serial number. */
static void mk_event(struct etl_event *ev, uint8_t *payload, uint32_t plen, uint16_t proc, int64_t ts,
                     uint32_t serial)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_EVENT_HEADER64;
	ev->present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	              ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY;
	ev->provider = PROV;
	ev->pid = 4242;
	ev->tid = 100 + proc;
	ev->id = (uint16_t)(serial & 0x7FFF);
	ev->version = 1;
	ev->level = 4;
	ev->opcode = (uint8_t)serial;
	ev->task = 7;
	ev->keyword = 0x8000000000000001ULL;
	ev->timestamp = ts;
	ev->processor = proc;
	if (plen >= 4) {
		payload[0] = (uint8_t)serial;
		payload[1] = (uint8_t)(serial >> 8);
		payload[2] = (uint8_t)(serial >> 16);
		payload[3] = (uint8_t)(serial >> 24);
	}
	ev->payload = payload;
	ev->payload_size = plen;
}

static uint32_t serial_of(const struct etl_event *ev)
{
	return tu_le32(ev->payload);
}

static void base_opts(struct etl_writer_options *o, uint32_t bs, uint32_t nproc, uint32_t mode)
{
	etl_writer_options_init(o);
	o->buffer_size = bs;
	o->number_of_processors = nproc;
	o->log_file_mode = mode;
	o->start_time = FT_2020;
	o->boot_time = FT_2020 - 36000000000LL;
	o->start_timestamp = 1000000;
	o->perf_freq = 10000000;
	o->logger_name = "check_writer";
	o->log_file_name = "C:\\check\\writer.etl";
}

/* Fills payload bytes 4.. : a fraction rnd/256 of random bytes, the rest
 * a repeating text (compressible). */
static void fill_payload(uint8_t *p, uint32_t n, unsigned rnd, uint64_t *rs)
{
	static const char text[] = "The quick brown fox jumps over the lazy dog. ";
	for (uint32_t i = 4; i < n; i++) {
		uint64_t x = tu_rand(rs);
		p[i] = (x & 0xFF) < rnd ? (uint8_t)(x >> 8) : (uint8_t)text[i % (sizeof text - 1)];
	}
}

/* One 4-processor workload written to w; accepted events kept in acc. */
static void write_workload(etl_writer *w, struct evvec *acc, size_t nev, uint32_t nproc, uint32_t maxpl,
                           uint64_t seed)
{
	uint8_t *pl = malloc(maxpl + 8);
	ck_assert_ptr_nonnull(pl);
	uint64_t rs = seed;
	int64_t ts = 1000000;
	for (size_t i = 0; i < nev; i++) {
		uint32_t plen = 4 + (uint32_t)(tu_rand(&rs) % (maxpl - 3));
		uint16_t proc = (uint16_t)(tu_rand(&rs) % nproc);
		ts += (int64_t)(tu_rand(&rs) % 50);
		struct etl_event ev;
		mk_event(&ev, pl, plen, proc, ts, (uint32_t)i);
		fill_payload(pl, plen, (unsigned)(tu_rand(&rs) % 256), &rs);
		int rc = etl_writer_write_event(w, &ev);
		TU_CHECK(rc == ETL_OK, "event %zu: %d: %s", i, rc, etl_writer_errmsg(w));
		evvec_push(acc, &ev, proc);
	}
	free(pl);
}

/* ------------------------------------------------------------------ */
/* 2. structure                                                         */
/* ------------------------------------------------------------------ */

/* Size of the record at p: EVENT_HEADER (0xC012 / 0xC013) keeps it at +0,
 * the SYSTEM-style headers the writer emits in these tests at +4. */
static uint32_t rec_size(const uint8_t *p)
{
	if (p[3] == 0xC0 && (p[2] == 0x12 || p[2] == 0x13))
		return tu_le16(p);
	return tu_le16(p + 4);
}

/* End of the last record of a buffer whose records start at 0x48 (not
 * rounded up); checks 8-byte alignment and that the padding between
 * records is zero (the writer's choice; Windows leaves stale bytes). */
static uint32_t records_end(const uint8_t *b, uint32_t limit, uint32_t *nrec, int check_pad)
{
	uint32_t pos = HDR, end = HDR;
	*nrec = 0;
	while (pos + 8 <= limit && tu_le32(b + pos) != 0xFFFFFFFFu) {
		if (check_pad)
			for (uint32_t i = end; i < pos; i++)
				TU_CHECK(b[i] == 0, "padding byte at 0x%x is 0x%02x", i, b[i]);
		uint32_t sz = rec_size(b + pos);
		TU_CHECK(sz >= 8 && pos + sz <= limit, "record at 0x%x has size %u (limit 0x%x)", pos, sz, limit);
		TU_CHECK(pos % 8 == 0, "record at 0x%x not 8-aligned", pos);
		end = pos + sz;
		pos = (end + 7) & ~7u;
		(*nrec)++;
	}
	return end;
}

static void check_fill(const uint8_t *b, uint32_t from, uint32_t to, const char *what)
{
	for (uint32_t i = from; i < to; i++)
		TU_CHECK(b[i] == 0xFF, "%s: fill byte at 0x%x is 0x%02x", what, i, b[i]);
}

static void check_zero(const uint8_t *b, uint32_t from, uint32_t to, const char *what)
{
	for (uint32_t i = from; i < to; i++)
		TU_CHECK(b[i] == 0, "%s: byte 0x%x is 0x%02x, expected 0", what, i, b[i]);
}

/* Checks the header buffer; returns its size. */
static uint32_t check_header_buffer(const uint8_t *img, size_t len, const struct etl_writer_options *o,
                                    int compressed)
{
	uint32_t hs = tu_le32(img);
	ck_assert_uint_le(hs, len);
	if (compressed)
		ck_assert_msg(hs % 0x200 == 0 && hs < o->buffer_size, "compressed header buffer size 0x%x", hs);
	else
		ck_assert_uint_eq(hs, o->buffer_size);
	uint32_t nrec;
	/* The valid end covers the last record's alignment padding, as in
	 * Windows' header buffers (multiples of 8). */
	uint32_t end = (records_end(img, hs, &nrec, 1) + 7) & ~7u;
	ck_assert_uint_eq(nrec, o->bare_header ? 1 : 2);
	ck_assert_uint_eq(tu_le32(img + 0x04), end);                  /* SavedOffset */
	ck_assert_uint_eq(tu_le32(img + 0x30), end);                  /* Offset      */
	ck_assert_uint_eq(tu_le32(img + 0x08), compressed ? 0 : end); /* CurrentOffset */
	ck_assert_uint_eq(tu_le64(img + 0x10), 0);                    /* TimeStamp   */
	ck_assert_uint_eq(tu_le64(img + 0x18), 0);                    /* SequenceNumber */
	check_zero(img, 0x20, 0x28, "header buffer 0x20");
	ck_assert_uint_eq(tu_le16(img + 0x28), 0);                    /* processor   */
	ck_assert_uint_eq(tu_le16(img + 0x2A), o->logger_id);
	ck_assert_uint_eq(tu_le32(img + 0x2C), 3);                    /* State       */
	ck_assert_uint_eq(tu_le16(img + 0x34), o->relogger_style ? 0x01 : 0x21);
	ck_assert_uint_eq(tu_le16(img + 0x36), 4);                    /* HEADER      */
	check_zero(img, 0x38, 0x48, "header buffer 0x38");
	check_fill(img, end, hs, "header buffer");
	/* First record: SYSTEM header, HookId 0, version 2. */
	ck_assert_uint_eq(tu_le16(img + HDR), 2);
	ck_assert_uint_eq(img[HDR + 2], o->pointer_size == 4 ? 1 : 2);
	ck_assert_uint_eq(img[HDR + 3], 0xC0);
	ck_assert_uint_eq(tu_le16(img + HDR + 6), 0);
	return hs;
}

/* Logfile header field offsets (64-bit form) inside the file. */
#define LH (HDR + 0x20)
#define LH_AFTER (0x48 + 172 + 4)

struct parsed {
	size_t nbuf;              /* data buffers                    */
	uint64_t last_off;        /* last data buffer in file order  */
	uint64_t *off;            /* data buffer offsets             */
	size_t nrec;              /* records in data buffers         */
};

/* Checks the uncompressed data buffers of a sequential file. */
static void check_data_buffers(const uint8_t *img, size_t len, uint32_t hs, const struct etl_writer_options *o,
                               struct parsed *pp)
{
	uint32_t bs = o->buffer_size;
	ck_assert_msg((len - hs) % bs == 0, "file length %zu is not header + k * buffer size", len);
	memset(pp, 0, sizeof *pp);
	pp->nbuf = (len - hs) / bs;
	pp->off = calloc(pp->nbuf + 1, sizeof *pp->off);
	uint64_t prev_seq = 0;
	for (size_t k = 0; k < pp->nbuf; k++) {
		const uint8_t *b = img + hs + k * bs;
		char what[64];
		snprintf(what, sizeof what, "data buffer %zu", k);
		pp->off[k] = hs + k * bs;
		ck_assert_uint_eq(tu_le32(b), bs);
		uint32_t nrec;
		uint32_t end = records_end(b, bs, &nrec, 1);
		uint32_t aend = (end + 7) & ~7u;
		ck_assert_uint_ge(nrec, 1);
		pp->nrec += nrec;
		ck_assert_uint_eq(tu_le32(b + 0x04), aend);
		ck_assert_uint_eq(tu_le32(b + 0x30), aend);
		check_zero(b, end, aend, what);               /* the last record's padding */
		ck_assert_uint_eq(tu_le32(b + 0x2C), 3);
		ck_assert_uint_eq(tu_le16(b + 0x36), 0);
		uint16_t fl = tu_le16(b + 0x34);
		ck_assert_msg(fl == (k + 1 == pp->nbuf ? 0x21 : 0x20), "%s: flags 0x%x", what, fl);
		ck_assert_uint_lt(tu_le16(b + 0x28), o->number_of_processors);
		ck_assert_uint_eq(tu_le16(b + 0x2A), o->logger_id);
		uint64_t seq = tu_le64(b + 0x18);
		ck_assert_msg(seq > prev_seq, "%s: SequenceNumber %" PRIu64 " after %" PRIu64, what, seq, prev_seq);
		prev_seq = seq;
		/* TimeStamp = the last event's timestamp (EVENT_HEADER at +0x10). */
		uint32_t pos = HDR, last = HDR;
		while (pos < aend) {
			last = pos;
			pos += (rec_size(b + pos) + 7u) & ~7u;
		}
		ck_assert_uint_eq(tu_le64(b + 0x10), tu_le64(b + last + 0x10));
		check_fill(b, aend, bs, what);
	}
	pp->last_off = pp->nbuf ? pp->off[pp->nbuf - 1] : 0;
}

START_TEST(test_structure_sequential)
{
	for (int relog = 0; relog < 2; relog++) {
		struct etl_writer_options o;
		base_opts(&o, 0x2000, 4, ETL_MODE_SEQUENTIAL);
		o.relogger_style = relog;
		o.logger_id = relog ? 0 : 0x23;
		o.end_time = relog ? 0 : FT_2020 + 5555;
		struct msink out;
		msink_init(&out);
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
		struct evvec acc = { 0 };
		write_workload(w, &acc, 700, 4, 300, 11 + (uint64_t)relog);
		etl_writer_add_lost(w, 7, 2);
		etl_writer_add_lost(w, 1, 1);
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		struct etl_writer_stats st;
		etl_writer_stats(w, &st);
		etl_writer_free(w);

		uint32_t hs = check_header_buffer(out.p, out.len, &o, 0);
		struct parsed pp;
		check_data_buffers(out.p, out.len, hs, &o, &pp);
		ck_assert_uint_eq(pp.nrec, acc.n);
		ck_assert_uint_eq(st.buffers_written, pp.nbuf + 1);
		ck_assert_uint_eq(st.events_written, acc.n);
		ck_assert_uint_eq(st.files_written, 1);
		const uint8_t *h = out.p + LH;
		ck_assert_uint_eq(tu_le32(h + 0x00), o.buffer_size);
		ck_assert_uint_eq(tu_le32(h + 0x24), pp.nbuf + 1);      /* BuffersWritten */
		ck_assert_uint_eq(tu_le32(h + 0x28), 1);                /* StartBuffers   */
		ck_assert_uint_eq(tu_le32(h + 0x30), 8);                /* EventsLost     */
		ck_assert_uint_eq(tu_le32(h + LH_AFTER + 0x1C), 3);     /* BuffersLost    */
		int64_t last_ts = acc.v[acc.n - 1].ev.timestamp;
		int64_t want_end = relog ? o.start_time + (last_ts - o.start_timestamp) : FT_2020 + 5555;
		ck_assert_int_eq((int64_t)tu_le64(h + 0x10), want_end); /* EndTime (10 MHz: 1 tick = 100 ns) */
		ck_assert_uint_eq(tu_le32(h + 0x20), o.log_file_mode);
		ck_assert_uint_eq(h[0x06], 1);                           /* layout 1.5 */
		ck_assert_uint_eq(h[0x07], 5);

		struct readback rb;
		check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 1, "sequential", &rb);
		ck_assert_uint_eq(rb.header_records, 1);                 /* PartitionInfoExtension */
		ck_assert_uint_eq(rb.lf.buffers_written, pp.nbuf + 1);
		free(pp.off);
		evvec_free(&acc);
		msink_free(&out);
	}
}
END_TEST

/* Walks the compressed data buffers; fills starts[] (n of them) and
 * checks every header field and the inflated length. */
static size_t walk_compressed(const uint8_t *img, size_t len, uint32_t hs, const struct etl_writer_options *o,
                              uint64_t **starts_out)
{
	uint32_t bs = o->buffer_size;
	size_t n = 0, cap = 64;
	uint64_t *starts = malloc(cap * sizeof *starts);
	uint8_t *tmp = malloc(bs);
	uint64_t off = hs, prev_seq = 0;
	while (off < len) {
		TU_CHECK(off + HDR <= len, "compressed buffer at 0x%" PRIx64 " cut short (file %zu)", off, len);
		const uint8_t *b = img + off;
		uint32_t size = tu_le32(b), saved = tu_le32(b + 4);
		TU_CHECK(size > HDR && off + size <= len, "buffer at 0x%" PRIx64 ": size %u, file %zu", off, size, len);
		if (n == cap) {
			cap *= 2;
			starts = realloc(starts, cap * sizeof *starts);
		}
		starts[n++] = off;
		size_t got = 0;
		int err = 0;
		size_t epos = 0;
		int rc = etl_lz77_decompress(b + HDR, size - HDR, tmp, bs, &got, &err, &epos);
		TU_CHECK(rc == ETL_OK, "buffer at 0x%" PRIx64 ": does not inflate (%d)", off, err);
		TU_CHECK(saved == HDR + got, "buffer at 0x%" PRIx64 ": SavedOffset 0x%x, inflated 0x%zx", off, saved,
		         got);
		TU_CHECK(saved <= bs && got % 8 == 0, "buffer at 0x%" PRIx64 ": inflated 0x%zx", off, got);
		TU_CHECK(tu_le32(b + 0x30) == saved, "buffer at 0x%" PRIx64 ": Offset", off);
		TU_CHECK(tu_le32(b + 0x08) == bs + saved, "buffer at 0x%" PRIx64 ": CurrentOffset", off);
		TU_CHECK(tu_le16(b + 0x36) == 0 && tu_le32(b + 0x2C) == 3, "buffer at 0x%" PRIx64 ": type/state", off);
		uint16_t fl = tu_le16(b + 0x34);
		int last = off + size == len;
		TU_CHECK(fl == (last ? 0x61 : 0x60), "buffer at 0x%" PRIx64 ": flags 0x%x", off, fl);
		uint64_t seq = tu_le64(b + 0x18);
		TU_CHECK(seq > prev_seq, "buffer at 0x%" PRIx64 ": SequenceNumber %" PRIu64 " after %" PRIu64, off, seq,
		         prev_seq);
		prev_seq = seq;
		TU_CHECK(tu_le16(b + 0x28) < o->number_of_processors, "buffer at 0x%" PRIx64 ": processor", off);
		off += size;
	}
	TU_CHECK(off == len, "buffers end at 0x%" PRIx64 ", file at 0x%zx", off, len);
	free(tmp);
	*starts_out = starts;
	return n;
}

START_TEST(test_structure_compressed)
{
	struct etl_writer_options o;
	base_opts(&o, 0x4000, 3, ETL_MODE_SEQUENTIAL | ETL_MODE_COMPRESSED | ETL_MODE_RELOG);
	o.relogger_style = 1;
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	struct evvec acc = { 0 };
	write_workload(w, &acc, 2000, 3, 500, 5);
	etl_writer_add_lost(w, 3, 1);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	struct etl_writer_stats st;
	etl_writer_stats(w, &st);
	etl_writer_free(w);

	uint32_t hs = check_header_buffer(out.p, out.len, &o, 1);
	const uint8_t *h = out.p + LH;
	ck_assert_uint_eq(tu_le32(h + 0x20) & ETL_MODE_COMPRESSED, ETL_MODE_COMPRESSED);
	ck_assert_uint_eq(h[0x06], 2);                                 /* layout 2.0 */
	ck_assert_uint_eq(h[0x07], 0);
	uint64_t *starts;
	size_t n = walk_compressed(out.p, out.len, hs, &o, &starts);
	ck_assert_uint_ge(n, 20);
	ck_assert_uint_eq(tu_le32(h + 0x24), n + 1);                  /* BuffersWritten */
	ck_assert_uint_eq(st.buffers_written, n + 1);
	ck_assert_uint_eq(tu_le32(h + 0x30), 3);
	ck_assert_uint_eq(tu_le32(h + LH_AFTER + 0x1C), 1);
	/* Buffers are packed back to back, at unaligned offsets. */
	int unaligned = 0;
	for (size_t i = 0; i < n; i++)
		unaligned += (starts[i] % 8) != 0;
	ck_assert_int_gt(unaligned, 0);
	struct readback rb;
	check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 1, "compressed", &rb);
	check_readback(out.p, out.len, &acc, ETL_ORDER_TIME, 0, 1, "compressed/time", &rb);
	free(starts);
	evvec_free(&acc);
	msink_free(&out);
}
END_TEST

/* 32-bit header form, bare header, written to a path and to an fd. */
START_TEST(test_structure_32bit_bare)
{
	struct etl_writer_options o;
	base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL);
	o.pointer_size = 4;
	o.bare_header = 1;
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	struct evvec acc = { 0 };
	write_workload(w, &acc, 100, 1, 200, 77);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);
	uint32_t hs = check_header_buffer(out.p, out.len, &o, 0);
	struct parsed pp;
	check_data_buffers(out.p, out.len, hs, &o, &pp);
	/* 32-bit form: BuffersWritten at the same place, header 0x110. */
	ck_assert_uint_eq(tu_le32(out.p + LH + 0x24), pp.nbuf + 1);
	ck_assert_uint_eq(tu_le32(out.p + LH + 0x2C), 4);
	struct readback rb;
	check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 0, "32-bit bare", &rb);
	ck_assert_uint_eq(rb.header_records, 0);
	ck_assert_uint_eq(rb.lf.header_ptr_size, 4);
	free(pp.off);
	evvec_free(&acc);
	msink_free(&out);
}
END_TEST

/* A caller's header record smaller than the default one makes a
 * compressed header buffer shrink after it was first written: the file
 * must still be header + buffers, ending at the last buffer's end, with
 * no bytes of the first, larger header left behind (sink and fd). */
START_TEST(test_header_shrinks)
{
	for (int nev = 0; nev < 3; nev++) {
		struct etl_writer_options o;
		base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL | ETL_MODE_COMPRESSED);
		o.logger_name = "shrinking-header";   /* default header ends at 0x220 */
		struct msink out;
		msink_init(&out);
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
		ck_assert_uint_eq(out.w[0].n, 0x400);
		uint8_t pl[64];
		memset(pl, 0, sizeof pl);
		struct etl_event ev;
		memset(&ev, 0, sizeof ev);
		ev.kind = ETL_HDR_SYSTEM64;
		ev.hook_id = 0x0050;
		ev.opcode = 0x50;
		ev.version_word = 2;
		ev.version = 2;
		ev.payload = pl;
		ev.payload_size = 8;
		ck_assert_int_eq(etl_writer_write_header_event(w, &ev), ETL_OK);
		struct evvec acc = { 0 };
		for (int i = 0; i < nev; i++) {
			mk_event(&ev, pl, 16, 0, 2000000 + i, (uint32_t)i);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
			evvec_push(&acc, &ev, 0);
		}
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		etl_writer_free(w);
		uint32_t hs = tu_le32(out.p);
		uint32_t nrec;
		uint32_t end = (records_end(out.p, hs, &nrec, 1) + 7) & ~7u;   /* padding included */
		ck_assert_uint_eq(nrec, 2);
		ck_assert_uint_le(end, 0x200);
		ck_assert_uint_eq(hs % 0x200, 0);
		ck_assert_uint_eq(tu_le32(out.p + 4), end);
		check_fill(out.p, end, hs, "header buffer");
		uint64_t *starts;
		size_t n = walk_compressed(out.p, out.len, hs, &o, &starts);
		ck_assert_uint_eq(n, nev ? 1 : 0);
		ck_assert_uint_eq(tu_le32(out.p + LH + 0x24), n + 1);
		struct readback rb;
		check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 1, "shrunk header", &rb);
		free(starts);
		evvec_free(&acc);
		msink_free(&out);
	}
}
END_TEST

/* EndTime left to the writer: the time of the latest event, in each clock
 * (doc/format.md §5), as the reader converts it. */
START_TEST(test_end_time_clocks)
{
	static const uint32_t clocks[3] = { ETL_CLOCK_QPC, ETL_CLOCK_SYSTEMTIME, ETL_CLOCK_CPUCYCLE };
	for (int c = 0; c < 3; c++) {
		struct etl_writer_options o;
		base_opts(&o, 0x1000, 2, ETL_MODE_SEQUENTIAL);
		o.clock_type = clocks[c];
		o.perf_freq = 3117777;
		o.cpu_speed_mhz = 2893;
		o.start_timestamp = clocks[c] == ETL_CLOCK_SYSTEMTIME ? FT_2020 : 987654321;
		struct msink out;
		msink_init(&out);
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
		uint8_t pl[64];
		memset(pl, 0, sizeof pl);
		int64_t maxts = 0;
		for (uint32_t i = 0; i < 50; i++) {
			struct etl_event ev;
			/* Processor 1's events are the later ones, written first. */
			int64_t ts = o.start_timestamp + 1000 + (int64_t)i * 777777 + (i < 25 ? 40000000 : 0);
			mk_event(&ev, pl, sizeof pl, (uint16_t)(i < 25), ts, i);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
			if (ts > maxts)
				maxts = ts;
		}
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		etl_writer_free(w);
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_open_memory(r, out.p, out.len), ETL_OK);
		int64_t want;
		ck_assert_int_eq(etl_reader_time_to_utc(r, maxts, &want), ETL_OK);
		ck_assert_int_eq(etl_reader_logfile(r)->end_time, want);
		if (clocks[c] == ETL_CLOCK_SYSTEMTIME)
			ck_assert_int_eq(want, o.start_time + (maxts - o.start_timestamp));
		const struct etl_event *ev;
		int64_t last_utc = 0;
		while (etl_reader_next(r, &ev) == ETL_OK)
			if (ev->timestamp == maxts)
				last_utc = ev->utc;
		ck_assert_int_eq(last_utc, want);
		etl_reader_free(r);
		msink_free(&out);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* 3. rejections                                                        */
/* ------------------------------------------------------------------ */

START_TEST(test_rejections)
{
	for (int comp = 0; comp < 2; comp++) {
		struct etl_writer_options o;
		/* 128 KiB buffers in the second pass so that the 0xFFFF limit,
		 * not the buffer, is what rejects. */
		base_opts(&o, 0x1000, 2, ETL_MODE_SEQUENTIAL | (comp ? ETL_MODE_COMPRESSED : 0));
		struct msink out;
		msink_init(&out);
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
		struct evvec acc = { 0 };
		uint8_t *pl = calloc(1, 0x20000);
		uint32_t serial = 0;
		int64_t ts = 2000000;
		size_t rejected = 0;
		for (int round = 0; round < 40; round++) {
			struct etl_event ev;
			/* Fits. */
			mk_event(&ev, pl, 100 + (uint32_t)round * 20, (uint16_t)(round & 1), ts++, serial++);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
			evvec_push(&acc, &ev, ev.processor);
			/* Exactly fills a buffer: 0x1000 - 0x48 - 0x50 payload. */
			if (round == 5) {
				mk_event(&ev, pl, 0x1000 - HDR - 0x50, 0, ts++, serial++);
				ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
				evvec_push(&acc, &ev, 0);
			}
			/* 5 KiB payload in 4 KiB buffers. */
			mk_event(&ev, pl, 5 * 1024, (uint16_t)(round & 1), ts++, 0xDEAD0000u + serial);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
			ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
			ck_assert_msg(strlen(etl_writer_errmsg(w)) > 10, "message: %s", etl_writer_errmsg(w));
			ck_assert_ptr_nonnull(strstr(etl_writer_errmsg(w), "larger than a buffer"));
			rejected++;
			/* One byte too many for a buffer. */
			mk_event(&ev, pl, 0x1000 - HDR - 0x50 + 1, 0, ts++, 0xDEAD0000u + serial);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
			rejected++;
			/* Processor out of range. */
			mk_event(&ev, pl, 64, 2, ts++, 0xDEAD0000u + serial);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
			ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
			ck_assert_ptr_nonnull(strstr(etl_writer_errmsg(w), "processor"));
			mk_event(&ev, pl, 64, 0xFFFF, ts++, 0xDEAD0000u + serial);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
			rejected += 2;
		}
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		struct etl_writer_stats st;
		etl_writer_stats(w, &st);
		ck_assert_uint_eq(st.events_written, acc.n);
		ck_assert_uint_eq(st.events_rejected, rejected);
		etl_writer_free(w);
		struct readback rb;
		check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 1, comp ? "rejections/compressed" : "rejections", &rb);
		evvec_free(&acc);
		msink_free(&out);
		free(pl);
	}
}
END_TEST

/* The processor rule is the reader's: a file may have 1 ..
 * ETL_MAX_PROCESSORS processors, and the highest index the reader returns
 * (ETL_MAX_PROCESSORS - 1) is written and read back. */
START_TEST(test_processor_limit)
{
	struct etl_writer_options o;
	base_opts(&o, 0x1000, ETL_MAX_PROCESSORS + 1, ETL_MODE_SEQUENTIAL);
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
	char want[64];
	snprintf(want, sizeof want, "1..%u: processors=%u", ETL_MAX_PROCESSORS, ETL_MAX_PROCESSORS + 1);
	ck_assert_msg(strstr(etl_writer_errmsg(w), want) != NULL, "%s", etl_writer_errmsg(w));
	etl_writer_free(w);
	base_opts(&o, 0x1000, ETL_MAX_PROCESSORS, ETL_MODE_SEQUENTIAL);
	w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	uint8_t pl[64] = { 0 };
	struct etl_event ev;
	struct evvec acc = { 0 };
	mk_event(&ev, pl, sizeof pl, ETL_MAX_PROCESSORS - 1, 2000000, 1);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
	evvec_push(&acc, &ev, ev.processor);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);
	struct readback rb;
	check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 1, "processor limit", &rb);
	ck_assert_uint_eq(rb.lf.number_of_processors, ETL_MAX_PROCESSORS);
	evvec_free(&acc);
	msink_free(&out);
}
END_TEST

/* An EVENT_HEADER record above 0xFFFF bytes, in buffers large enough to
 * hold it: rejected by the record size limit, not cut. */
START_TEST(test_reject_record_limit)
{
	struct etl_writer_options o;
	base_opts(&o, 0x40000, 1, ETL_MODE_SEQUENTIAL);
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	struct evvec acc = { 0 };
	uint8_t *pl = calloc(1, 0x20000);
	struct etl_event ev;
	/* Largest that fits the u16 size: 0xFFFF - 0x50. */
	mk_event(&ev, pl, 0xFFFF - 0x50, 0, 5000000, 1);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
	evvec_push(&acc, &ev, 0);
	mk_event(&ev, pl, 0xFFFF - 0x50 + 1, 0, 5000001, 2);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
	ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
	ck_assert_ptr_nonnull(strstr(etl_writer_errmsg(w), "0xFFFF"));
	mk_event(&ev, pl, 0x1FFF0, 0, 5000002, 3);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
	/* An extended-item chain that makes the record too large. */
	static uint8_t ext[0x108];
	memset(ext, 0, sizeof ext);
	ext[0] = (uint8_t)(sizeof ext & 0xFF);   /* item size */
	ext[1] = (uint8_t)(sizeof ext >> 8);
	ext[2] = 0x0B;                       /* EVENT_SCHEMA_TL */
	ext[4] = 0;                          /* linkage 0: last item */
	uint16_t ds = sizeof ext - 8;
	ext[6] = (uint8_t)ds;
	ext[7] = (uint8_t)(ds >> 8);
	mk_event(&ev, pl, 0xFFFF - 0x50 - (uint32_t)sizeof ext + 1, 0, 5000003, 4);
	ev.header_flags = 0x0001;            /* EXTENDED_INFO */
	ev.ext = ext;
	ev.ext_size = sizeof ext;
	ev.ext_count = 1;
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
	ev.payload_size--;
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
	evvec_push(&acc, &ev, 0);
	/* And the writer goes on. */
	mk_event(&ev, pl, 40, 0, 5000004, 5);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
	evvec_push(&acc, &ev, 0);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);
	struct readback rb;
	check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 1, "record limit", &rb);
	ck_assert_uint_eq(rb.events, 3);
	evvec_free(&acc);
	msink_free(&out);
	free(pl);
}
END_TEST

/* Misuse: options out of range, header records after data, raw after
 * events, events after raw. */
START_TEST(test_misuse)
{
	struct etl_writer_options o;
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	base_opts(&o, 0xFFF, 1, ETL_MODE_SEQUENTIAL);
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1004, 1, ETL_MODE_SEQUENTIAL);
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1000, 0, ETL_MODE_SEQUENTIAL);
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1000, 1, ETL_MODE_CIRCULAR | ETL_MODE_COMPRESSED);
	o.maximum_file_size_mb = 1;
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1000, 1, ETL_MODE_CIRCULAR);        /* no size limit */
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1000, 1, ETL_MODE_NEWFILE);         /* no pattern */
	o.maximum_file_size_mb = 1;
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL);
	o.pointer_size = 6;
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL);
	o.struct_size = 16;
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_FAILED);
	ck_assert_int_eq(out.nw, 0);                        /* nothing written */
	etl_writer_free(w);

	/* Layout version 2.0 for buffers over 1 MB or over 256 processors. */
	for (int v = 0; v < 3; v++) {
		base_opts(&o, v == 1 ? 0x200000 : 0x1000, v == 2 ? 300 : 4, ETL_MODE_SEQUENTIAL);
		w = etl_writer_new();
		struct msink vs;
		msink_init(&vs);
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &vs, &o), ETL_OK);
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &vs, &o), ETL_FAILED);   /* already open */
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		etl_writer_free(w);
		ck_assert_uint_eq(vs.p[LH + 6], v ? 2 : 1);
		ck_assert_uint_eq(vs.p[LH + 7], v ? 0 : 5);
		msink_free(&vs);
	}

	w = etl_writer_new();
	base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL);
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	uint8_t pl[4000];
	memset(pl, 0, sizeof pl);
	struct etl_event ev;
	for (int i = 0; i < 3; i++) {
		mk_event(&ev, pl, 3000, 0, 100 + i, (uint32_t)i);
		ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
	}
	/* A kind without an encoder. */
	struct etl_event bad = ev;
	bad.kind = ETL_HDR_UNKNOWN;
	ck_assert_int_eq(etl_writer_write_event(w, &bad), ETL_FAILED);
	ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
	/* A data buffer went out: no more header records, no raw buffers. */
	ck_assert_int_eq(etl_writer_write_header_event(w, &ev), ETL_FAILED);
	ck_assert_int_eq(etl_writer_write_raw_buffer(w, pl, sizeof pl), ETL_FAILED);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
	ck_assert_int_eq(etl_writer_close(w), ETL_FAILED);
	etl_writer_free(w);
	msink_free(&out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* 4. the compression buffer                                            */
/* ------------------------------------------------------------------ */

/* The spill workload, regenerated to check the output instead of kept in
 * memory. Compressibility changes in phases of random length: mostly
 * large all-zero payloads (one to three records per trace buffer, which
 * compress to little more than their 0x48-byte header, so flush
 * boundaries often land in headers), sometimes partly or fully random
 * payloads (compressed buffers up to full size). */
struct spill_gen {
	uint64_t rs;
	int phase;
	unsigned rnd;
	int big;
	int64_t ts;
	uint32_t i;
	uint8_t pl[4000];
};

static void spill_init(struct spill_gen *g)
{
	memset(g, 0, sizeof *g);
	g->rs = 0x5eed;
	g->ts = 3000000;
}

static void spill_next(struct spill_gen *g, struct etl_event *ev)
{
	if (g->phase-- <= 0) {
		g->phase = 1 + (int)(tu_rand(&g->rs) % 30);
		uint64_t pick = tu_rand(&g->rs) % 20;
		g->big = pick < 15;
		g->rnd = pick < 15 ? 0 : pick < 17 ? (unsigned)(tu_rand(&g->rs) % 64) : (unsigned)(tu_rand(&g->rs) % 257);
	}
	uint32_t plen = g->big ? 900 + (uint32_t)(tu_rand(&g->rs) % 3000) : 8 + (uint32_t)(tu_rand(&g->rs) % 400);
	g->ts += 1 + (int64_t)(tu_rand(&g->rs) % 7);
	mk_event(ev, g->pl, plen, 0, g->ts, g->i);
	if (g->rnd == 0)
		memset(g->pl + 4, 0, plen - 4);
	else
		fill_payload(g->pl, plen, g->rnd, &g->rs);
	g->i++;
}

START_TEST(test_compression_buffer_spill)
{
	const uint32_t bs = 0x1000;
	const uint32_t nev = 50000;
	struct etl_writer_options o;
	base_opts(&o, bs, 1, ETL_MODE_SEQUENTIAL | ETL_MODE_COMPRESSED);
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	struct spill_gen *g = malloc(sizeof *g);
	spill_init(g);
	for (uint32_t i = 0; i < nev; i++) {
		struct etl_event ev;
		spill_next(g, &ev);
		int rc = etl_writer_write_event(w, &ev);
		TU_CHECK(rc == ETL_OK, "event %u: %s", i, etl_writer_errmsg(w));
	}
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);

	uint32_t hs = check_header_buffer(out.p, out.len, &o, 1);
	uint64_t *starts;
	size_t n = walk_compressed(out.p, out.len, hs, &o, &starts);

	/* The writes: header, then one trace buffer's worth at a time at
	 * hs + k * bs, the short remainder, the flush marker on the last
	 * buffer, and the header rewritten at close. */
	ck_assert_uint_ge(out.nw, 4);
	ck_assert_uint_eq(out.w[0].off, 0);
	ck_assert_uint_eq(out.w[0].n, hs);
	size_t nw = out.nw;
	ck_assert_uint_eq(out.w[nw - 1].off, 0);
	ck_assert_uint_eq(out.w[nw - 1].n, hs);
	ck_assert_uint_eq(out.w[nw - 2].off, starts[n - 1] + 0x34);
	ck_assert_uint_eq(out.w[nw - 2].n, 2);
	size_t ndata = nw - 3;
	for (size_t k = 0; k < ndata; k++) {
		const struct wlog *l = &out.w[1 + k];
		TU_CHECK(l->off == hs + (uint64_t)k * bs, "write %zu at 0x%" PRIx64 ", expected 0x%" PRIx64, k, l->off,
		         hs + (uint64_t)k * bs);
		if (k + 1 < ndata)
			TU_CHECK(l->n == bs, "write %zu is %zu bytes", k, l->n);
		else
			TU_CHECK(l->n > 0 && l->n <= bs, "last write is %zu bytes", l->n);
	}
	ck_assert_uint_eq(hs + (uint64_t)(ndata - 1) * bs + out.w[nw - 3].n, out.len);
	ck_assert_uint_gt(n, 4 * ndata);     /* one write carries many buffers */

	/* Where the flush boundaries fall inside the buffers. */
	int hit[HDR];
	memset(hit, 0, sizeof hit);
	size_t in_payload = 0, in_header = 0, j = 0;
	for (uint64_t bnd = hs + bs; bnd < out.len; bnd += bs) {
		while (j + 1 < n && starts[j + 1] <= bnd)
			j++;
		uint64_t at = bnd - starts[j];
		if (at < HDR) {
			hit[at]++;
			in_header++;
		} else {
			in_payload++;
		}
	}
	int distinct = 0;
	for (int i = 0; i < (int)HDR; i++)
		distinct += hit[i] > 0;
	/* Every offset 0..0x47 of a buffer header (about 570 boundaries land
	 * in headers with this workload, so full coverage is not luck), and
	 * many inside compressed payloads. */
	ck_assert_msg(distinct == (int)HDR, "flush boundaries hit only %d of the 72 header offsets (%zu in headers, %zu in payloads)",
	              distinct, in_header, in_payload);
	ck_assert_msg(in_payload >= 100, "only %zu flush boundaries inside compressed payloads", in_payload);

	/* Read back: every event, in order, equal to the regenerated one. */
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, out.p, out.len), ETL_OK);
	ck_assert_uint_eq(etl_reader_logfile(r)->buffers_written, n + 1);
	spill_init(g);
	const struct etl_event *rev;
	int st;
	uint32_t got = 0;
	while ((st = etl_reader_next(r, &rev)) != ETL_END) {
		ck_assert_msg(st == ETL_OK, "cbuf: reader %d: %s", st, etl_reader_errmsg(r));
		if (rev->buffer_offset == 0)
			continue;
		TU_CHECK(got < nev, "cbuf: extra event");
		struct etl_event want;
		spill_next(g, &want);
		const char *d = tu_ev_diff(&want, rev, 0);
		TU_CHECK(d == NULL, "cbuf: event %u: %s differs", got, d);
		got++;
	}
	ck_assert_uint_eq(got, nev);
	etl_reader_free(r);
	free(g);
	free(starts);
	msink_free(&out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* 5. write failures                                                    */
/* ------------------------------------------------------------------ */

/* The workload of the failure tests: nev events of a fixed size, so that
 * every trace buffer holds exactly per_buf of them (one processor). */
/* 0x50 + 1928 = 2008 bytes per record: two fill a 4 KiB trace buffer
 * (4016 of 4024 bytes), so a random one compresses to more than 4 KiB. */
#define FW_PAYLOAD 1928u

static size_t fw_per_buf(uint32_t bs)
{
	return (bs - HDR) / (0x50 + FW_PAYLOAD);
}

/* Writes nev events; returns how many write_event results were
 * ETL_FATAL / ETL_FAILED in *fatal and *failed, and the index of the first
 * ETL_FAILED in *first_failed. Stops at the first ETL_FATAL. */
static void fw_write(etl_writer *w, size_t nev, uint64_t seed, struct evvec *acc, size_t *failed, size_t *fatal,
                     long *first_failed)
{
	uint8_t pl[FW_PAYLOAD];
	uint64_t rs = seed;
	*failed = *fatal = 0;
	*first_failed = -1;
	for (size_t i = 0; i < nev; i++) {
		struct etl_event ev;
		mk_event(&ev, pl, FW_PAYLOAD, 0, 1000000 + (int64_t)i * 3, (uint32_t)i);
		/* Compressibility per trace buffer; every fifth one random, so
		 * that its compressed form is larger than a trace buffer. */
		size_t b = i / fw_per_buf(0x1000);
		fill_payload(pl, FW_PAYLOAD, b % 5 == 4 ? 256u : (unsigned)(b * 37 % 256), &rs);
		int rc = etl_writer_write_event(w, &ev);
		if (acc)
			evvec_push(acc, &ev, 0);
		if (rc == ETL_FATAL) {
			(*fatal)++;
			return;
		}
		if (rc == ETL_FAILED) {
			if (*first_failed < 0)
				*first_failed = (long)i;
			(*failed)++;
		} else if (rc != ETL_OK) {
			(*fatal)++;
			return;
		}
	}
}

/* Child: writes to path under RLIMIT_FSIZE = limit. Exit codes:
 * 0 the writer reported ETL_FATAL with a message and close failed;
 * 10 everything succeeded; others: something else went wrong. */
static int fw_child(const char *path, uint64_t limit, int compressed, size_t nev)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
	if (limit != (uint64_t)RLIM_INFINITY && setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 20;
	struct etl_writer_options o;
	base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL | (compressed ? ETL_MODE_COMPRESSED : 0));
	etl_writer *w = etl_writer_new();
	int orc = etl_writer_open_file(w, path, &o);
	int saw_fatal = orc == ETL_FATAL;
	if (orc != ETL_OK && orc != ETL_FATAL)
		return 21;
	if (orc == ETL_OK) {
		size_t failed, fatal;
		long ff;
		fw_write(w, nev, 99, NULL, &failed, &fatal, &ff);
		if (failed)
			return 22;           /* a path never loses single buffers */
		saw_fatal |= fatal > 0;
	}
	int crc = etl_writer_close(w);
	const char *msg = etl_writer_errmsg(w);
	int msg_ok = msg && msg[0];
	etl_writer_free(w);
	if (crc == ETL_OK)
		return saw_fatal ? 23 : 10;
	if (crc != ETL_FATAL)
		return 24;
	return msg_ok ? 0 : 25;
}

static int run_child(const char *path, uint64_t limit, int compressed, size_t nev)
{
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fw_child(path, limit, compressed, nev));
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "child died: status 0x%x", status);
	return WEXITSTATUS(status);
}

START_TEST(test_path_failure_sweep)
{
	const size_t nev = 100;           /* 2 per buffer: 50 data buffers */
	for (int comp = 0; comp < 2; comp++) {
		char *dir = make_tmpdir();
		char path[600];
		snprintf(path, sizeof path, "%s/target.etl", dir);
		/* The size of the complete file, from an unlimited run. */
		ck_assert_int_eq(run_child(path, RLIM_INFINITY, comp, nev), 10);
		struct stat sb;
		ck_assert_int_eq(stat(path, &sb), 0);
		uint64_t full = (uint64_t)sb.st_size;
		size_t flen;
		uint8_t *fimg = tu_load_file(path, &flen);
		uint32_t hs = tu_le32(fimg);             /* 0x1000, or 0x400 compressed */
		free(fimg);
		ck_assert_uint_eq(hs, comp ? 0x400 : 0x1000);
		ck_assert_uint_gt(full, hs + 4 * 0x1000);
		/* An existing target with known content. */
		uint8_t known[5000];
		for (size_t i = 0; i < sizeof known; i++)
			known[i] = (uint8_t)(i * 7 + 1);
		tu_write_file(path, known, sizeof known);
		uint64_t limits[64];
		size_t nl = 0;
		uint64_t fixed[] = { 0, 1, 0x47, 0x48, 0x100, hs - 1, hs, hs + 1, hs + 0x34, hs + 0x47, hs + 0x48,
		                     hs + 0x800, hs + 0xFFF, hs + 0x1000, hs + 0x1001, hs + 0x2000 + 17, full / 2,
		                     full - 0x1000, full - 2, full - 1 };
		for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
			limits[nl++] = fixed[i];
		for (uint64_t x = hs + 0x3000 + 333; x < full - 1 && nl < 60; x += (full - hs) / 30 + 1)
			limits[nl++] = x;
		for (size_t i = 0; i < nl; i++) {
			int ex = run_child(path, limits[i], comp, nev);
			ck_assert_msg(ex == 0, "%s: limit %" PRIu64 " (file %" PRIu64 "): child exit %d",
			              comp ? "compressed" : "plain", limits[i], full, ex);
			char listing[1024];
			dir_listing(dir, listing, sizeof listing);
			ck_assert_msg(strcmp(listing, "target.etl") == 0, "limit %" PRIu64 ": directory holds \"%s\"",
			              limits[i], listing);
			size_t got;
			uint8_t *now = tu_load_file(path, &got);
			ck_assert_msg(got == sizeof known && memcmp(now, known, got) == 0,
			              "limit %" PRIu64 ": target changed", limits[i]);
			free(now);
		}
		/* Exactly enough room: succeeds and replaces the target. */
		ck_assert_int_eq(run_child(path, full, comp, nev), 10);
		ck_assert_int_eq(stat(path, &sb), 0);
		ck_assert_uint_eq((uint64_t)sb.st_size, full);
		char listing[1024];
		dir_listing(dir, listing, sizeof listing);
		ck_assert_str_eq(listing, "target.etl");
		rm_tree(dir);
	}
}
END_TEST

/* A writer freed without close abandons its output; a path that cannot
 * be created is ETL_FATAL. */
START_TEST(test_path_abandon)
{
	char *dir = make_tmpdir();
	char path[600];
	snprintf(path, sizeof path, "%s/target.etl", dir);
	tu_write_file(path, "keep", 4);
	for (int comp = 0; comp < 2; comp++) {
		struct etl_writer_options o;
		base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL | (comp ? ETL_MODE_COMPRESSED : 0));
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_file(w, path, &o), ETL_OK);
		size_t failed, fatal;
		long ff;
		fw_write(w, 40, 5, NULL, &failed, &fatal, &ff);
		ck_assert_uint_eq(failed + fatal, 0);
		char listing[1024];
		dir_listing(dir, listing, sizeof listing);
		ck_assert_msg(strstr(listing, "target.etl.tmp-") != NULL, "no temporary while writing: %s", listing);
		etl_writer_free(w);
		dir_listing(dir, listing, sizeof listing);
		ck_assert_str_eq(listing, "target.etl");
		size_t got;
		uint8_t *now = tu_load_file(path, &got);
		ck_assert(got == 4 && memcmp(now, "keep", 4) == 0);
		free(now);
	}
	char bad[700];
	snprintf(bad, sizeof bad, "%s/no/such/dir/x.etl", dir);
	struct etl_writer_options o;
	base_opts(&o, 0x1000, 1, ETL_MODE_SEQUENTIAL | ETL_MODE_COMPRESSED);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_file(w, bad, &o), ETL_FATAL);
	ck_assert_int_eq(etl_writer_errcode(w), ETL_E_IO);
	ck_assert(etl_writer_errmsg(w)[0] != 0);
	/* The same writer opened again on a good path works (and leaks
	 * nothing: the sanitizer build checks). */
	char good[700];
	snprintf(good, sizeof good, "%s/second.etl", dir);
	ck_assert_int_eq(etl_writer_open_file(w, good, &o), ETL_OK);
	size_t failed, fatal;
	long ff;
	fw_write(w, 10, 5, NULL, &failed, &fatal, &ff);
	ck_assert_uint_eq(failed + fatal, 0);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);
	struct tu_run run;
	tu_run_file(&run, good, ETL_ORDER_FILE, 0);
	ck_assert_int_eq(run.open_rc, ETL_OK);
	ck_assert_uint_eq(run.nfail, 0);
	ck_assert_uint_eq(run.n, 12);                 /* logfile header, PartitionInfoExtension, 10 */
	tu_run_free(&run);
	unlink(good);
	rm_tree(dir);
}
END_TEST

/* A .gz target whose compression step fails: nothing left behind. */
START_TEST(test_path_failure_gz)
{
	char *dir = make_tmpdir();
	char path[600];
	snprintf(path, sizeof path, "%s/target.etl.gz", dir);
	tu_write_file(path, "old", 3);
	/* RLIMIT_FSIZE limits each file, and the gzip copy is smaller than
	 * the ~200 KB temporary it is made from, so these fail while writing
	 * the temporary: it must go, and the target stay. */
	uint64_t limits[] = { 0, 5000, 30000, 60000, 150000 };
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		ck_assert_int_eq(run_child(path, limits[i], 0, 100), 0);
		char listing[1024];
		dir_listing(dir, listing, sizeof listing);
		ck_assert_str_eq(listing, "target.etl.gz");
		size_t got;
		uint8_t *now = tu_load_file(path, &got);
		ck_assert(got == 3 && memcmp(now, "old", 3) == 0);
		free(now);
	}
	rm_tree(dir);
}
END_TEST

/* Complete data buffers of a file; *bad = buffers the walk reported as
 * damaged, *bad_off = the offset of the last one. */
static size_t data_buffers_in(const uint8_t *img, size_t len, int *bad, uint64_t *bad_off)
{
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, img, len), ETL_OK);
	const struct etl_buffer_info *bi;
	int st;
	size_t n = 0;
	*bad = 0;
	*bad_off = 0;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st != ETL_OK) {
			(*bad)++;
			*bad_off = etl_reader_erroff(r);
			continue;
		}
		if (bi->type != 4)
			n++;
	}
	etl_reader_free(r);
	return n;
}

/* A sink failing once at write K (counted from 0, the header buffer),
 * then working again. Writes made while events are written lose one
 * buffer (uncompressed) or the whole buffers waiting in the compression
 * buffer (compressed), the event that caused the flush reports
 * ETL_FAILED, and the writer goes on. Writes made by close: close
 * reports ETL_FAILED (data, flush marker) or ETL_FATAL (the header
 * rewrite), and the header is still finalised when it can be. */
static void sink_fail_once(int compressed, long k, size_t nev, int *in_events, int *in_close, uint32_t *maxbuf,
                           int *retried)
{
	const uint32_t bs = 0x1000;
	const char *mname = compressed ? "compressed" : "plain";
	size_t per = fw_per_buf(bs);
	size_t total_bufs = (nev + per - 1) / per;
	struct etl_writer_options o;
	base_opts(&o, bs, 1, ETL_MODE_SEQUENTIAL | (compressed ? ETL_MODE_COMPRESSED : 0));
	struct msink out;
	msink_init(&out);
	out.fail_at = k;
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	struct evvec all = { 0 };
	size_t failed, fatal;
	long ff;
	fw_write(w, nev, 1234, &all, &failed, &fatal, &ff);
	ck_assert_msg(fatal == 0, "K=%ld (%s): fatal", k, mname);
	size_t nw_events = out.nw;
	int crc = etl_writer_close(w);
	char msg[256];
	snprintf(msg, sizeof msg, "%s", etl_writer_errmsg(w));
	etl_writer_free(w);
	if (k >= (long)out.nw) {                 /* beyond the last write */
		ck_assert_int_eq(crc, ETL_OK);
		evvec_free(&all);
		msink_free(&out);
		return;
	}
	const struct wlog *fl = &out.w[k];
	ck_assert(!fl->ok);
	int closing = k >= (long)nw_events;
	int marker = fl->n == 2;
	ck_assert_msg(msg[0] != 0, "K=%ld (%s): no message", k, mname);
	if (fl->off == 0) {
		/* The header rewrite: the file cannot be finalised. */
		ck_assert_msg(closing && k == (long)out.nw - 1, "K=%ld: header write", k);
		ck_assert_msg(crc == ETL_FATAL, "K=%ld (%s): close %d after the header write failed", k, mname, crc);
		(*in_close)++;
		evvec_free(&all);
		msink_free(&out);
		return;
	}
	if (closing) {
		ck_assert_msg(crc == ETL_FAILED, "K=%ld (%s): close %d, but write %zu of %zu bytes at 0x%" PRIx64
		              " failed: %s", k, mname, crc, (size_t)k, fl->n, fl->off, msg);
		ck_assert_uint_eq(failed, 0);
		(*in_close)++;
	} else {
		ck_assert_msg(crc == ETL_OK, "K=%ld (%s): close %d: %s", k, mname, crc, msg);
		ck_assert_msg(failed == 1, "K=%ld (%s): %zu events reported ETL_FAILED", k, mname, failed);
		/* The event reported is the one that began a new trace buffer. */
		ck_assert_msg(ff > 0 && (size_t)ff % per == 0, "K=%ld: event %ld reported", k, ff);
		(*in_events)++;
	}

	/* Complete buffers in the file. A compressed buffer begun in the file
	 * whose rest could not be written at close stays cut short at the end
	 * of the file: the reader reports that one (a truncated last buffer,
	 * doc/format.md §1.5) and nothing else. */
	int bad;
	uint64_t bad_off;
	/* Only the short last write of close can leave a compressed buffer
	 * cut short (nothing comes after it to complete it). */
	int tail_cut = compressed && closing && !marker && fl->n < bs;
	size_t found = data_buffers_in(out.p, out.len, &bad, &bad_off);
	/* Flags: exactly the last complete buffer has the flush marker, unless
	 * its patch is the write that failed or the last buffer was cut. */
	int markers = 0;
	uint64_t marked = 0, last_whole = 0;
	for (uint64_t off = tu_le32(out.p); off + HDR <= out.len && tu_le32(out.p + off) >= HDR;
	     off += tu_le32(out.p + off)) {
		uint32_t sz = tu_le32(out.p + off);
		uint16_t flags = tu_le16(out.p + off + 0x34);
		if (sz > *maxbuf)
			*maxbuf = sz;
		ck_assert_uint_eq(flags & ~1u, compressed ? 0x60u : 0x20u);
		if (flags & 1) {
			markers++;
			marked = off;
		}
		if (off + sz <= out.len)
			last_whole = off;
	}
	ck_assert_msg(markers == (marker || bad ? 0 : 1), "K=%ld (%s): %d buffers with the flush marker", k, mname,
	              markers);
	if (markers)
		ck_assert_uint_eq(marked, last_whole);
	ck_assert_msg(bad == 0 || (tail_cut && bad == 1), "K=%ld (%s): %d damaged buffers, the last at 0x%" PRIx64,
	              k, mname, bad, bad_off);
	ck_assert_uint_le(found, total_bufs);
	size_t lost = total_bufs - found;
	if (marker)
		ck_assert_uint_eq(lost, 0);
	else if (!compressed)
		ck_assert_msg(lost == 1, "K=%ld: uncompressed: %zu buffers lost", k, lost);
	else if (!closing)
		*retried += lost == 0;   /* the write held only the rest of a buffer
		                            larger than a trace buffer, begun in the
		                            file: kept and written again, none lost */

	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, out.p, out.len), ETL_OK);
	const struct etl_logfile *lf = etl_reader_logfile(r);
	ck_assert_msg(lf->buffers_lost == lost, "K=%ld (%s): BuffersLost %u, buffers lost %zu (%zu of %zu in the file)",
	              k, mname, lf->buffers_lost, lost, found, total_bufs);
	ck_assert_msg(lf->buffers_written == found + 1, "K=%ld (%s): BuffersWritten %u, complete buffers %zu + 1", k,
	              mname, lf->buffers_written, found);
	uint8_t *seen = calloc(nev, 1);
	const struct etl_event *ev;
	int st, fails = 0;
	size_t nread = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st != ETL_OK) {
			fails++;
			continue;
		}
		if (ev->buffer_offset == 0)
			continue;
		uint32_t sn = serial_of(ev);
		ck_assert_uint_lt(sn, nev);
		ck_assert_msg(!seen[sn], "K=%ld: event %u twice", k, sn);
		seen[sn] = 1;
		const char *d = tu_ev_diff(&all.v[sn].ev, ev, 0);
		ck_assert_msg(d == NULL, "K=%ld: event %u: %s differs", k, sn, d);
		nread++;
	}
	etl_reader_free(r);
	ck_assert_int_eq(fails, bad);
	/* Missing events form whole trace buffers (groups of per events). */
	size_t missing_bufs = 0, missing_events = 0;
	for (size_t b = 0; b < total_bufs; b++) {
		size_t from = b * per, to = from + per < nev ? from + per : nev, have = 0;
		for (size_t i = from; i < to; i++)
			have += seen[i];
		ck_assert_msg(have == 0 || have == to - from, "K=%ld: buffer %zu partly present (%zu of %zu)", k, b, have,
		              to - from);
		missing_bufs += have == 0;
		missing_events += to - from - have;
	}
	ck_assert_uint_eq(missing_bufs, lost);
	ck_assert_uint_eq(nread + missing_events, nev);
	free(seen);
	evvec_free(&all);
	msink_free(&out);
}

START_TEST(test_sink_fail_once)
{
	for (int comp = 0; comp < 2; comp++) {
		int in_events = 0, in_close = 0;
		uint32_t maxbuf = 0;
		int retried = 0;
		/* 61 trace buffers of 2 events (the last one short): 60 data
		 * writes uncompressed, fewer compressed (some buffers compress
		 * to more than a trace buffer, others to much less), then
		 * close's writes; every one of them fails in turn. */
		for (long k = 1; k < 70; k++)
			sink_fail_once(comp, k, 2 * 60 + 1, &in_events, &in_close, &maxbuf, &retried);
		ck_assert_msg(in_events >= (comp ? 30 : 59), "%s: only %d failure positions while writing events",
		              comp ? "compressed" : "plain", in_events);
		ck_assert_msg(in_close >= 3, "%s: only %d failure positions in close", comp ? "compressed" : "plain",
		              in_close);
		if (comp) {
			ck_assert_msg(maxbuf > 0x1000, "no compressed buffer larger than a trace buffer (%u)", maxbuf);
			ck_assert_msg(retried > 0, "no failed write held only a partial buffer's rest");
		}
	}
}
END_TEST

/* 6 (raw). Copying every buffer as stored reproduces each file. */
START_TEST(test_raw_copy_corpus)
{
	TU_NEED_CORPUS();
	const char *name = g_files[_i];
	char *path = tu_corpus_path(name);
	size_t len;
	uint8_t *src = tu_load_file(path, &len);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, src, len), ETL_OK);
	struct etl_writer_options o;
	etl_writer_options_from_logfile(&o, etl_reader_logfile(r));
	/* Raw mode copies whatever the source's mode; no rotation or slots. */
	o.log_file_mode &= ~(ETL_MODE_NEWFILE | ETL_MODE_CIRCULAR);
	etl_writer *w = etl_writer_new();
	struct msink out;
	msink_init(&out);
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	const struct etl_buffer_info *bi;
	int st;
	size_t nbuf = 0;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		ck_assert_msg(st == ETL_OK, "%s: buffer walk %d: %s", name, st, etl_reader_errmsg(r));
		int rc = etl_writer_write_raw_buffer(w, bi->stored, bi->available);
		ck_assert_msg(rc == ETL_OK, "%s: raw buffer %zu: %s", name, nbuf, etl_writer_errmsg(w));
		nbuf++;
	}
	/* Events cannot follow raw buffers (test_misuse: nor the reverse). */
	struct etl_event ev;
	uint8_t pl[8] = { 0 };
	mk_event(&ev, pl, sizeof pl, 0, 1, 1);
	ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_FAILED);
	ck_assert_int_eq(etl_writer_errcode(w), ETL_E_MISUSE);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);
	etl_reader_free(r);
	ck_assert_msg(out.len == len, "%s: raw copy is %zu bytes, source %zu", name, out.len, len);
	ck_assert_msg(memcmp(out.p, src, len) == 0, "%s: raw copy differs", name);
	msink_free(&out);
	free(src);
	free(path);
}
END_TEST

/* ------------------------------------------------------------------ */
/* 6. modes                                                             */
/* ------------------------------------------------------------------ */

START_TEST(test_circular)
{
	const uint32_t bs = 0x10000;
	struct etl_writer_options o;
	base_opts(&o, bs, 1, ETL_MODE_CIRCULAR);
	o.maximum_file_size_mb = 1;
	struct msink out;
	msink_init(&out);
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	const uint32_t plen = 1000;                      /* 0x50 + 1000 = 1080 = 8-aligned */
	const size_t per = (bs - HDR) / (0x50 + plen);
	const size_t nev = 3 * 1024 * 1024 / (0x50 + plen);
	uint8_t pl[1000];
	struct evvec all = { 0 };
	uint64_t rs = 3;
	for (size_t i = 0; i < nev; i++) {
		struct etl_event ev;
		mk_event(&ev, pl, plen, 0, 7000000 + (int64_t)i * 10, (uint32_t)i);
		fill_payload(pl, plen, 128, &rs);
		ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
		evvec_push(&all, &ev, 0);
	}
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);
	const size_t slots = (1024 * 1024 - bs) / bs;
	const size_t total_bufs = (nev + per - 1) / per;
	ck_assert_uint_gt(total_bufs, 2 * slots);
	ck_assert_uint_eq(out.len, bs + slots * bs);
	check_header_buffer(out.p, out.len, &o, 0);
	/* The slot with the lowest SequenceNumber holds the oldest buffer. */
	uint64_t min_seq = UINT64_MAX;
	size_t oldest = 0;
	int markers = 0;
	for (size_t s = 0; s < slots; s++) {
		const uint8_t *b = out.p + bs + s * bs;
		uint64_t seq = tu_le64(b + 0x18);
		if (seq < min_seq) {
			min_seq = seq;
			oldest = s;
		}
		markers += (tu_le16(b + 0x34) & 1) != 0;
	}
	ck_assert_int_eq(markers, 1);
	const uint8_t *h = out.p + LH;
	ck_assert_uint_eq(tu_le32(h + 0x24), slots + 1);                    /* BuffersWritten */
	/* lib/write/writer.c: "StartBuffers names the slot holding the oldest
	 * buffer", counted as the file's buffer index (header buffer = 0). */
	ck_assert_uint_eq(tu_le32(h + 0x28), oldest + 1);
	ck_assert_uint_eq(oldest, total_bufs % slots);
	/* Exactly the newest buffers' events, in time order. */
	struct evvec want = { 0 };
	size_t first = (total_bufs - slots) * per;
	for (size_t i = first; i < nev; i++)
		evvec_push(&want, &all.v[i].ev, 0);
	struct readback rb;
	check_readback(out.p, out.len, &want, ETL_ORDER_TIME, 0, 1, "circular", &rb);
	ck_assert_uint_eq(rb.events, nev - first);
	evvec_free(&want);
	evvec_free(&all);
	msink_free(&out);
}
END_TEST

START_TEST(test_newfile)
{
	char *dir = make_tmpdir();
	char pattern[600], first[600];
	snprintf(pattern, sizeof pattern, "%s/part_%%03d.etl", dir);
	snprintf(first, sizeof first, "%s/part_000.etl", dir);
	struct etl_writer_options o;
	base_opts(&o, 0x10000, 2, ETL_MODE_SEQUENTIAL | ETL_MODE_NEWFILE);
	o.maximum_file_size_mb = 1;
	o.newfile_pattern = pattern;
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_file(w, first, &o), ETL_OK);
	struct evvec all = { 0 };
	write_workload(w, &all, 14000, 2, 400, 21);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	struct etl_writer_stats st;
	etl_writer_stats(w, &st);
	etl_writer_free(w);
	char listing[4096];
	dir_listing(dir, listing, sizeof listing);
	ck_assert_uint_ge(st.files_written, 3);
	ck_assert_ptr_null(strstr(listing, "tmp"));
	/* Each file readable on its own; together, every event once in order. */
	size_t total = 0;
	uint32_t next_serial[2] = { 0, 0 };
	for (uint64_t f = 0; f < st.files_written; f++) {
		char p[700];
		snprintf(p, sizeof p, pattern, (int)f);
		size_t len;
		uint8_t *img = tu_load_file(p, &len);
		ck_assert_msg(len <= 1024 * 1024, "%s is %zu bytes", p, len);
		check_header_buffer(img, len, &o, 0);
		struct parsed pp;
		check_data_buffers(img, len, 0x10000, &o, &pp);
		ck_assert_uint_eq(tu_le32(img + LH + 0x24), pp.nbuf + 1);
		free(pp.off);
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, img, len), ETL_OK);
		const struct etl_event *ev;
		int rs;
		while ((rs = etl_reader_next(r, &ev)) != ETL_END) {
			ck_assert_msg(rs == ETL_OK, "%s: %s", p, etl_reader_errmsg(r));
			if (ev->buffer_offset == 0)
				continue;
			uint32_t s = serial_of(ev);
			ck_assert_uint_lt(s, all.n);
			/* Per processor, serials increase across files. */
			ck_assert_uint_ge(s, next_serial[ev->processor]);
			next_serial[ev->processor] = s + 1;
			const char *d = tu_ev_diff(&all.v[s].ev, ev, 0);
			ck_assert_msg(d == NULL, "%s: event %u: %s", p, s, d);
			total++;
		}
		etl_reader_free(r);
		free(img);
	}
	ck_assert_uint_eq(total, all.n);
	char extra[700];
	snprintf(extra, sizeof extra, pattern, (int)st.files_written);
	ck_assert_int_ne(access(extra, F_OK), 0);
	evvec_free(&all);
	rm_tree(dir);
}
END_TEST

/* New-file mode on a sink whose first file's flush-marker patch fails at
 * the rotation: that file is still finalised, the writer goes on into the
 * next files, and no event is lost (the marker is only a flag). */
START_TEST(test_newfile_marker_failure)
{
	char *dir = make_tmpdir();
	char pattern[600];
	snprintf(pattern, sizeof pattern, "%s/part_%%03d.etl", dir);
	struct etl_writer_options o;
	base_opts(&o, 0x10000, 1, ETL_MODE_SEQUENTIAL | ETL_MODE_NEWFILE);
	o.maximum_file_size_mb = 1;
	o.newfile_pattern = pattern;
	struct msink out;
	msink_init(&out);
	out.fail_small = 1;
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
	struct evvec all = { 0 };
	uint8_t pl[3000];
	uint64_t rs = 9;
	size_t failed = 0;
	for (uint32_t i = 0; i < 1000; i++) {
		struct etl_event ev;
		mk_event(&ev, pl, 1000 + (uint32_t)(tu_rand(&rs) % 2000), 0, 1000000 + i, i);
		fill_payload(pl, ev.payload_size, 100, &rs);
		int rc = etl_writer_write_event(w, &ev);
		ck_assert_msg(rc == ETL_OK || rc == ETL_FAILED, "event %u: %d: %s", i, rc, etl_writer_errmsg(w));
		failed += rc == ETL_FAILED;
		evvec_push(&all, &ev, 0);
	}
	ck_assert_uint_le(failed, 1);
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	struct etl_writer_stats st;
	etl_writer_stats(w, &st);
	etl_writer_free(w);
	ck_assert_uint_ge(st.files_written, 2);
	ck_assert_int_eq(out.fail_small, 0);            /* the failure happened */
	size_t total = 0;
	for (uint64_t f = 0; f < st.files_written; f++) {
		size_t len;
		uint8_t *img;
		if (f == 0) {
			img = out.p;
			len = out.len;
		} else {
			char p[700];
			snprintf(p, sizeof p, pattern, (int)f);
			img = tu_load_file(p, &len);
		}
		struct parsed pp;
		uint32_t hs = check_header_buffer(img, len, &o, 0);
		ck_assert_uint_eq(hs, 0x10000);
		ck_assert_uint_eq((len - hs) % 0x10000, 0);
		ck_assert_uint_eq(tu_le32(img + LH + 0x24), (len - hs) / 0x10000 + 1);
		if (f > 0)
			check_data_buffers(img, len, hs, &o, &pp), free(pp.off);
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, img, len), ETL_OK);
		const struct etl_event *ev;
		int rs2;
		while ((rs2 = etl_reader_next(r, &ev)) != ETL_END) {
			ck_assert_msg(rs2 == ETL_OK, "file %d: %s", (int)f, etl_reader_errmsg(r));
			if (ev->buffer_offset == 0)
				continue;
			uint32_t sn = serial_of(ev);
			ck_assert_uint_eq(sn, total);
			const char *d = tu_ev_diff(&all.v[sn].ev, ev, 0);
			ck_assert_msg(d == NULL, "event %u: %s", sn, d);
			total++;
		}
		etl_reader_free(r);
		if (f > 0)
			free(img);
	}
	ck_assert_uint_eq(total, all.n);
	evvec_free(&all);
	msink_free(&out);
	rm_tree(dir);
}
END_TEST

/* New-file mode with compression: either refused at open, or honoured
 * (no file above the limit). Silently ignoring the limit is wrong. */
START_TEST(test_newfile_compressed)
{
	char *dir = make_tmpdir();
	char pattern[600], first[600];
	snprintf(pattern, sizeof pattern, "%s/part_%%03d.etl", dir);
	snprintf(first, sizeof first, "%s/part_000.etl", dir);
	struct etl_writer_options o;
	base_opts(&o, 0x10000, 1, ETL_MODE_SEQUENTIAL | ETL_MODE_NEWFILE | ETL_MODE_COMPRESSED);
	o.maximum_file_size_mb = 1;
	o.newfile_pattern = pattern;
	etl_writer *w = etl_writer_new();
	int orc = etl_writer_open_file(w, first, &o);
	if (orc == ETL_FAILED) {
		ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
	} else {
		ck_assert_int_eq(orc, ETL_OK);
		/* Incompressible payloads: ~3 MB compressed. */
		uint8_t pl[1000];
		uint64_t rs = 17;
		for (uint32_t i = 0; i < 3000; i++) {
			struct etl_event ev;
			mk_event(&ev, pl, sizeof pl, 0, 1000000 + i, i);
			fill_payload(pl, sizeof pl, 256, &rs);
			ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
		}
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		struct etl_writer_stats st;
		etl_writer_stats(w, &st);
		for (uint64_t f = 0; f < st.files_written; f++) {
			char p[700];
			snprintf(p, sizeof p, pattern, (int)f);
			struct stat sb;
			ck_assert_int_eq(stat(p, &sb), 0);
			ck_assert_msg(sb.st_size <= 1024 * 1024, "%s: %lld bytes, limit 1 MB", p, (long long)sb.st_size);
		}
	}
	etl_writer_free(w);
	rm_tree(dir);
}
END_TEST

/* The same events to a sink and to a path (plain, .gz, .lz4): equal bytes
 * after inflation, and read back equal. */
START_TEST(test_compressed_targets)
{
	char *dir = make_tmpdir();
	for (int comp = 0; comp < 2; comp++) {
		struct etl_writer_options o;
		base_opts(&o, 0x2000, 3, ETL_MODE_SEQUENTIAL | (comp ? ETL_MODE_COMPRESSED : 0));
		struct msink ref;
		msink_init(&ref);
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &ref, &o), ETL_OK);
		struct evvec acc = { 0 };
		write_workload(w, &acc, 3000, 3, 300, 8);
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		etl_writer_free(w);
		static const char *const names[] = { "out.etl", "out.etl.gz", "out.etl.lz4" };
		for (int t = 0; t < 3; t++) {
			char p[700];
			snprintf(p, sizeof p, "%s/%s", dir, names[t]);
			base_opts(&o, 0x2000, 3, ETL_MODE_SEQUENTIAL | (comp ? ETL_MODE_COMPRESSED : 0));
			w = etl_writer_new();
			ck_assert_int_eq(etl_writer_open_file(w, p, &o), ETL_OK);
			for (size_t i = 0; i < acc.n; i++)
				ck_assert_int_eq(etl_writer_write_event(w, &acc.v[i].ev), ETL_OK);
			ck_assert_int_eq(etl_writer_close(w), ETL_OK);
			etl_writer_free(w);
			size_t len;
			uint8_t *img = tu_load_file(p, &len);
			if (t == 1)
				ck_assert(len > 2 && img[0] == 0x1F && img[1] == 0x8B);
			if (t == 2)
				ck_assert(len > 4 && tu_le32(img) == 0x184D2204u);
			if (t == 0) {
				/* Same options and events: the same bytes as the sink got. */
				ck_assert_uint_eq(len, ref.len);
				ck_assert(memcmp(img, ref.p, len) == 0);
			}
			struct readback rb;
			check_readback(img, len, &acc, ETL_ORDER_FILE, 0, 1, names[t], &rb);
			free(img);
		}
		char listing[1024];
		dir_listing(dir, listing, sizeof listing);
		ck_assert_str_eq(listing, "out.etl out.etl.gz out.etl.lz4");
		evvec_free(&acc);
		msink_free(&ref);
	}
	rm_tree(dir);
}
END_TEST

START_TEST(test_open_fd)
{
	char *dir = make_tmpdir();
	char p[700];
	snprintf(p, sizeof p, "%s/fd.etl", dir);
	for (int longer = 0; longer < 2; longer++) {
		if (longer) {
			/* Longer previous content: must be cut to the new size. */
			uint8_t *junk = malloc(3 * 1024 * 1024);
			memset(junk, 0x5A, 3 * 1024 * 1024);
			tu_write_file(p, junk, 3 * 1024 * 1024);
			free(junk);
		}
		int fd = open(p, O_RDWR | O_CREAT | (longer ? 0 : O_TRUNC), 0644);
		ck_assert_int_ge(fd, 0);
		struct etl_writer_options o;
		base_opts(&o, 0x2000, 2, ETL_MODE_SEQUENTIAL | (longer ? ETL_MODE_COMPRESSED : 0));
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_fd(w, fd, &o), ETL_OK);
		struct evvec acc = { 0 };
		write_workload(w, &acc, 2000, 2, 300, 31 + (uint64_t)longer);
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		struct etl_writer_stats st;
		etl_writer_stats(w, &st);
		etl_writer_free(w);
		/* The descriptor stays open and usable. */
		struct stat sb;
		ck_assert_int_eq(fstat(fd, &sb), 0);
		ck_assert_int_eq(close(fd), 0);
		size_t len;
		uint8_t *img = tu_load_file(p, &len);
		ck_assert_uint_eq((uint64_t)sb.st_size, len);
		ck_assert_uint_lt(len, 3 * 1024 * 1024);
		uint32_t hs = check_header_buffer(img, len, &o, longer);
		if (longer) {
			uint64_t *starts;
			size_t n = walk_compressed(img, len, hs, &o, &starts);   /* ends exactly at EOF */
			ck_assert_uint_eq(tu_le32(img + LH + 0x24), n + 1);
			free(starts);
		} else {
			struct parsed pp;
			check_data_buffers(img, len, hs, &o, &pp);
			free(pp.off);
		}
		struct readback rb;
		check_readback(img, len, &acc, ETL_ORDER_FILE, 0, 1, longer ? "fd over longer file" : "fd", &rb);
		free(img);
		evvec_free(&acc);
	}
	rm_tree(dir);
}
END_TEST

/* Header records given by the caller replace the default one, in order;
 * compressed header buffers grow in 0x200 steps. */
START_TEST(test_header_records)
{
	for (int comp = 0; comp < 2; comp++) {
		struct etl_writer_options o;
		base_opts(&o, 0x2000, 1, ETL_MODE_SEQUENTIAL | (comp ? ETL_MODE_COMPRESSED : 0));
		struct msink out;
		msink_init(&out);
		etl_writer *w = etl_writer_new();
		ck_assert_int_eq(etl_writer_open_sink(w, msink_write, &out, &o), ETL_OK);
		struct evvec acc = { 0 };
		uint8_t pl[0x800];
		memset(pl, 0x11, sizeof pl);
		for (int i = 0; i < 7; i++) {
			struct etl_event ev;
			if (i == 6) {
				/* A record that passes the size check but cannot be
				 * encoded (EXTENDED_INFO without items), large enough to
				 * grow a compressed header buffer: rejected, and it must
				 * leave no trace (no hole before the next record). */
				mk_event(&ev, pl, 0x600, 0, 1000000, 0);
				ev.header_flags = 0x0001;
				ck_assert_int_eq(etl_writer_write_header_event(w, &ev), ETL_FAILED);
				ck_assert_int_eq(etl_writer_errcode(w), ETL_E_BAD_VALUE);
			}
			memset(&ev, 0, sizeof ev);
			ev.kind = ETL_HDR_SYSTEM64;
			ev.provider = tu_guid("68fdd900-4a3e-11d1-84f4-0000f80464e3");   /* EventTrace */
			ev.hook_id = (uint16_t)(0x0005 + i);
			ev.opcode = (uint8_t)ev.hook_id;
			ev.version_word = 2;
			ev.version = 2;
			ev.pid = 4;
			ev.tid = 8;
			ev.timestamp = 1000000;
			ev.payload = pl;
			ev.payload_size = 36 + (uint32_t)i * 20;
			ck_assert_int_eq(etl_writer_write_header_event(w, &ev), ETL_OK);
			evvec_push(&acc, &ev, HDR_STREAM);
		}
		write_workload(w, &acc, 300, 1, 200, 3);
		ck_assert_int_eq(etl_writer_close(w), ETL_OK);
		etl_writer_free(w);
		uint32_t hs = tu_le32(out.p);
		uint32_t nrec;
		uint32_t end = (records_end(out.p, hs, &nrec, 1) + 7) & ~7u;   /* padding included */
		ck_assert_uint_eq(nrec, 8);
		ck_assert_uint_eq(tu_le32(out.p + 4), end);
		ck_assert_uint_eq(tu_le32(out.p + 0x30), end);
		check_fill(out.p, end, hs, "header buffer");
		if (comp)
			ck_assert_uint_eq(hs, (end + 0x1FF) & ~0x1FFu);
		else
			ck_assert_uint_eq(hs, 0x2000);
		struct readback rb;
		check_readback(out.p, out.len, &acc, ETL_ORDER_FILE, 0, 0, "header records", &rb);
		ck_assert_uint_eq(rb.header_records, 7);
		evvec_free(&acc);
		msink_free(&out);
	}
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("corpus");
	tcase_set_timeout(tc, 300);
	/* One test per corpus file; without the corpus, one skipped test. */
	tcase_add_loop_test(tc, test_roundtrip_corpus, 0, g_nfiles ? (int)g_nfiles : 1);
	tcase_add_loop_test(tc, test_raw_copy_corpus, 0, g_nfiles ? (int)g_nfiles : 1);
	suite_add_tcase(s, tc);

	TCase *ts = tcase_create("structure");
	tcase_set_timeout(ts, 300);
	tcase_add_test(ts, test_structure_sequential);
	tcase_add_test(ts, test_structure_compressed);
	tcase_add_test(ts, test_structure_32bit_bare);
	tcase_add_test(ts, test_header_records);
	tcase_add_test(ts, test_end_time_clocks);
	tcase_add_test(ts, test_header_shrinks);
	tcase_add_test(ts, test_rejections);
	tcase_add_test(ts, test_processor_limit);
	tcase_add_test(ts, test_reject_record_limit);
	tcase_add_test(ts, test_misuse);
	tcase_add_test(ts, test_compression_buffer_spill);
	suite_add_tcase(s, ts);

	TCase *tf = tcase_create("failures");
	tcase_set_timeout(tf, 300);
	tcase_add_test(tf, test_path_failure_sweep);
	tcase_add_test(tf, test_path_failure_gz);
	tcase_add_test(tf, test_path_abandon);
	tcase_add_test(tf, test_sink_fail_once);
	suite_add_tcase(s, tf);

	TCase *tm = tcase_create("modes");
	tcase_set_timeout(tm, 300);
	tcase_add_test(tm, test_circular);
	tcase_add_test(tm, test_newfile);
	tcase_add_test(tm, test_newfile_compressed);
	tcase_add_test(tm, test_newfile_marker_failure);
	tcase_add_test(tm, test_compressed_targets);
	tcase_add_test(tm, test_open_fd);
	suite_add_tcase(s, tm);
	return s;
}

int main(void)
{
	list_corpus();
	if (g_nfiles == 0 && tu_corpus_present()) {
		fprintf(stderr, "check_writer: no .etl files in %s\n", tu_corpus_dir());
		return EXIT_FAILURE;
	}
	SRunner *sr = srunner_create(writer_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (size_t i = 0; i < g_nfiles; i++)
		free(g_files[i]);
	free(g_files);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
