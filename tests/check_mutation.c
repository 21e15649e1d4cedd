/*
 * check_mutation.c - damage test. For every corpus file, many times over
 * (deterministic PRNG): truncate a copy at a random point, or flip bits /
 * overwrite bytes in buffer headers, record headers, compressed payloads
 * or anywhere; then read everything in both orders and check that
 *   - nothing crashes (Check's fork mode turns a crash into a failure;
 *     run under ASan/UBSan to catch quiet overreads too),
 *   - nothing hangs: etl_reader_next() reaches ETL_END within 10x the
 *     undamaged record count + 1000 calls,
 *   - every event handed out is internally consistent (payload, extended
 *     items and record inside the input), no record is returned twice,
 *   - every record before the damage is still returned (see guaranteed()).
 * ETL_SKIP_MUTATION=1 in the environment skips it.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "testutil.h"

#define HDR ETL_BUFFER_HEADER_SIZE
#define ITER_SMALL 200          /* per file */
#define ITER_BIG 100            /* per multi-MB file */
#define BIG_FILE (2u << 20)

static char **g_files;
static size_t g_nfiles;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The corpus .etl files, sorted (runs before the tests: no ck_assert). */
static void list_corpus(void)
{
	DIR *d = opendir(tu_corpus_dir());
	if (!d)
		return;
	struct dirent *de;
	size_t cap = 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".etl") != 0)
			continue;
		if (g_nfiles == cap) {
			cap = cap ? cap * 2 : 32;
			char **n = realloc(g_files, cap * sizeof *n);
			if (!n)
				break;
			g_files = n;
		}
		g_files[g_nfiles++] = strdup(de->d_name);
	}
	closedir(d);
	if (g_nfiles)
		qsort(g_files, g_nfiles, sizeof *g_files, cmp_str);
}

/* ------------------------------------------------------------------ */
/* the undamaged file                                                   */
/* ------------------------------------------------------------------ */

struct bufinfo {
	uint64_t off;
	uint32_t size;
	int compressed;
};

struct reference {
	uint8_t *data;
	size_t n;
	struct bufinfo *bufs;
	size_t nbufs;
	struct tu_run run;           /* file order, undamaged */
	uint64_t *comp_bytes;        /* offsets of compressed payload ranges: */
	size_t ncomp;                /* indices into bufs of compressed ones  */
	size_t *rec_uncomp;          /* indices into run.ev of records in     */
	size_t nrec_uncomp;          /* uncompressed buffers                  */
};

static const struct bufinfo *buffer_of(const struct reference *ref, uint64_t off)
{
	size_t lo = 0, hi = ref->nbufs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ref->bufs[mid].off + ref->bufs[mid].size <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ref->nbufs && ref->bufs[lo].off <= off)
		return &ref->bufs[lo];
	return NULL;
}

static void reference_load(struct reference *ref, const char *name)
{
	memset(ref, 0, sizeof *ref);
	char *path = tu_corpus_path(name);
	ref->data = tu_load_file(path, &ref->n);
	free(path);
	/* Buffers, from the library's own walk of the intact file. */
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, ref->data, ref->n), ETL_OK);
	const struct etl_buffer_info *bi;
	size_t cap = 0;
	int st;
	while ((st = etl_reader_next_buffer(r, &bi)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ref->nbufs == cap) {
			cap = cap ? cap * 2 : 64;
			ref->bufs = realloc(ref->bufs, cap * sizeof *ref->bufs);
			ck_assert_ptr_nonnull(ref->bufs);
		}
		ref->bufs[ref->nbufs].off = bi->file_offset;
		ref->bufs[ref->nbufs].size = bi->buffer_size;
		ref->bufs[ref->nbufs].compressed = bi->compressed;
		ref->nbufs++;
	}
	etl_reader_free(r);
	ck_assert_uint_gt(ref->nbufs, 0);
	/* Buffers tile the file from 0 (the walk chains them). */
	for (size_t i = 1; i < ref->nbufs; i++)
		TU_REQUIRE(ref->bufs[i].off == ref->bufs[i - 1].off + ref->bufs[i - 1].size);
	tu_run_memory(&ref->run, ref->data, ref->n, ETL_ORDER_FILE, 0);
	ck_assert_int_eq(ref->run.end_rc, ETL_END);
	ck_assert_uint_eq(ref->run.nfail, 0);
	ck_assert_uint_gt(ref->run.n, 0);
	ref->comp_bytes = malloc(ref->nbufs * sizeof *ref->comp_bytes);
	ref->rec_uncomp = malloc(ref->run.n * sizeof *ref->rec_uncomp);
	ck_assert_ptr_nonnull(ref->comp_bytes);
	ck_assert_ptr_nonnull(ref->rec_uncomp);
	for (size_t i = 0; i < ref->nbufs; i++)
		if (ref->bufs[i].compressed)
			ref->comp_bytes[ref->ncomp++] = i;
	for (size_t i = 0; i < ref->run.n; i++) {
		const struct bufinfo *b = buffer_of(ref, ref->run.ev[i].buffer_offset);
		TU_REQUIRE(b != NULL);
		TU_REQUIRE(b->off == ref->run.ev[i].buffer_offset);
		if (!b->compressed)
			ref->rec_uncomp[ref->nrec_uncomp++] = i;
	}
}

static void reference_free(struct reference *ref)
{
	free(ref->data);
	free(ref->bufs);
	free(ref->comp_bytes);
	free(ref->rec_uncomp);
	tu_run_free(&ref->run);
}

/* ------------------------------------------------------------------ */
/* reading damaged input                                                */
/* ------------------------------------------------------------------ */

struct damaged {
	uint64_t *keys;
	size_t n, cap;
	size_t calls;
	int end_rc;
	int open_rc;
	size_t nfail;
};

static void push_key(struct damaged *d, uint64_t k)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 1024;
		d->keys = realloc(d->keys, d->cap * sizeof *d->keys);
		TU_REQUIRE(d->keys != NULL);
	}
	d->keys[d->n++] = k;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every pointer of the event lies inside its record, and the record
 * inside the input (uncompressed) - checked while the event is valid. */
static void check_event(const struct etl_event *ev, const uint8_t *data, size_t n)
{
	TU_REQUIRE(ev->record != NULL);
	TU_REQUIRE(ev->size >= ev->header_size);
	TU_REQUIRE(ev->payload == ev->record + ev->header_size);
	TU_REQUIRE((uint64_t)ev->header_size + ev->payload_size == ev->size);
	TU_REQUIRE(ev->buffer_offset < n);
	if (!ev->in_compressed) {
		TU_REQUIRE(ev->record == data + ev->file_offset);
		TU_REQUIRE(ev->file_offset + ev->size <= n);
		TU_REQUIRE(ev->file_offset == ev->buffer_offset + ev->offset_in_buffer);
	} else {
		TU_REQUIRE(ev->file_offset == ev->buffer_offset);
	}
	TU_REQUIRE(ev->offset_in_buffer >= HDR);
	if (ev->ext_count) {
		TU_REQUIRE(ev->ext != NULL);
		TU_REQUIRE(ev->ext >= ev->record && ev->ext + ev->ext_size <= ev->payload);
		struct etl_ext_iter it;
		struct etl_ext_item item;
		struct etl_ext_typed t;
		uint32_t count = 0;
		etl_ext_iter_init(&it, ev);
		while (etl_ext_iter_next(&it, &item) == ETL_OK) {
			count++;
			TU_REQUIRE(item.data >= ev->ext && item.data + item.data_size <= ev->ext + ev->ext_size);
			int rc = etl_ext_item_decode(&item, &t);
			TU_REQUIRE(rc == ETL_OK || rc == ETL_WARN || rc == ETL_FAILED);
			if (rc == ETL_OK && (item.ext_type == ETL_EXT_EVENT_SCHEMA_TL ||
			                     item.ext_type == ETL_EXT_PROV_TRAITS)) {
				/* The name is NUL-terminated inside the item. */
				size_t l = strlen(t.u.tl.name);
				TU_REQUIRE((const uint8_t *)t.u.tl.name + l < item.data + item.data_size);
			}
		}
		TU_REQUIRE(count == ev->ext_count);
	}
}

static void read_damaged(const uint8_t *data, size_t n, int order, size_t max_calls,
                         struct damaged *d)
{
	memset(d, 0, sizeof *d);
	etl_reader *r = etl_reader_new();
	TU_REQUIRE(r != NULL);
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	d->open_rc = etl_reader_open_memory(r, data, n);
	d->end_rc = ETL_FATAL;
	if (d->open_rc != ETL_OK) {
		/* A damaged header (ETL_WARN) or an unusable input (ETL_FATAL)
		 * is reported with its reason, not only survived. */
		TU_REQUIRE(d->open_rc == ETL_WARN || d->open_rc == ETL_FATAL);
		TU_REQUIRE(etl_reader_errcode(r) > ETL_E_NONE && etl_reader_errcode(r) < ETL_E_MAX_);
		TU_REQUIRE(etl_reader_errmsg(r)[0] != 0);
	}
	const struct etl_event *ev;
	int st;
	if (d->open_rc != ETL_FATAL) {
		/* The logfile strings are readable whatever the damage. */
		const struct etl_logfile *lf = etl_reader_logfile(r);
		if (lf->present) {
			TU_REQUIRE(lf->logger_name != NULL);
			TU_REQUIRE(lf->log_file_name != NULL);
			(void)strlen(lf->logger_name);
			(void)strlen(lf->log_file_name);
		}
		for (;;) {
			if (d->calls >= max_calls) {
				d->end_rc = TU_LIMIT_HIT;
				break;
			}
			d->calls++;
			st = etl_reader_next(r, &ev);
			if (st == ETL_END || st == ETL_FATAL) {
				d->end_rc = st;
				break;
			}
			if (st == ETL_FAILED) {
				TU_REQUIRE(ev == NULL);
				TU_REQUIRE(etl_reader_errcode(r) > ETL_E_NONE && etl_reader_errcode(r) < ETL_E_MAX_);
				TU_REQUIRE(etl_reader_errmsg(r)[0] != 0);
				d->nfail++;
				continue;
			}
			TU_REQUIRE(st == ETL_OK || st == ETL_WARN);
			check_event(ev, data, n);
			push_key(d, tu_ev_key(ev->buffer_offset, ev->offset_in_buffer));
		}
	}
	etl_reader_free(r);
	if (d->n)
		qsort(d->keys, d->n, sizeof *d->keys, cmp_u64);
	for (size_t i = 1; i < d->n; i++)
		TU_CHECK(d->keys[i] != d->keys[i - 1], "record returned twice");
}

static int has_key(const struct damaged *d, uint64_t k)
{
	return d->n && bsearch(&k, d->keys, d->n, sizeof k, cmp_u64) != NULL;
}

/* ------------------------------------------------------------------ */
/* what must survive                                                    */
/* ------------------------------------------------------------------ */

/*
 * Damage starts at file offset x (the first modified byte, or the cut).
 *
 * Truncation at x: a record is certainly returned when its buffer's
 * header is complete and the record itself ends at or before x (an
 * uncompressed buffer cut short still yields its complete records), or,
 * for a compressed buffer (which cannot be inflated in part), when the
 * whole buffer ends at or before x.
 *
 * Changed bytes from x on: every record of a buffer ending at or before
 * the start of x's buffer is returned (the walk reaches and reads those
 * buffers exactly as before; later damage cannot reach back). In x's own
 * buffer, if uncompressed and x is past its header, the records ending at
 * or before x are returned too: header and earlier records are intact.
 *
 * Changes confined to the records (or compressed payload) of one buffer
 * other than the header buffer, its 0x48-byte header intact: every record
 * of every other buffer is returned as well - damage inside a buffer
 * abandons at most the rest of that buffer, never the walk. (The header
 * buffer is excluded: its logfile header steers how some records decode.)
 */
static int guaranteed(const struct reference *ref, const struct tu_ev *e, uint64_t x, int truncated,
                      const struct bufinfo *confined)
{
	const struct bufinfo *b = buffer_of(ref, e->buffer_offset);
	if (confined && b != confined)
		return 1;
	uint64_t rec_end = e->buffer_offset + e->offset_in_buffer + e->size;
	if (truncated) {
		if (b->compressed)
			return b->off + b->size <= x;
		return b->off + HDR <= x && rec_end <= x;
	}
	const struct bufinfo *bx = buffer_of(ref, x);
	uint64_t bx_start = bx ? bx->off : ref->n;
	if (b->off + b->size <= bx_start)
		return 1;
	if (bx && b == bx && !b->compressed && x >= b->off + HDR && rec_end <= x)
		return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* mutations                                                            */
/* ------------------------------------------------------------------ */

#define MAX_EDITS 8

struct edit {
	size_t off;
	uint8_t old;
};

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? tu_rand(s) % n : 0;
}

static void set_byte(uint8_t *w, struct edit *ed, int *ned, size_t off, uint8_t v)
{
	TU_REQUIRE(*ned < MAX_EDITS);
	ed[*ned].off = off;
	ed[*ned].old = w[off];
	(*ned)++;
	w[off] = v;
}

/* Applies one random in-place mutation to w (a copy of ref->data);
 * records the edits; returns a short description. */
static const char *mutate(const struct reference *ref, uint8_t *w, uint64_t *s, struct edit *ed,
                          int *ned)
{
	static const uint32_t interesting[] = { 0, 1, 0x47, 0x48, 0x49, 0x7FFFFFFF, 0x80000000u,
	                                        0xFFFFFFFFu, 0x00010000, 0x02000000 };
	*ned = 0;
	size_t n = ref->n;
	switch (rnd(s, 6)) {
	case 0: {                                 /* 1-3 random bits anywhere */
		int k = 1 + (int)rnd(s, 3);
		for (int i = 0; i < k; i++) {
			size_t off = (size_t)rnd(s, n);
			set_byte(w, ed, ned, off, (uint8_t)(w[off] ^ (1u << rnd(s, 8))));
		}
		return "bits anywhere";
	}
	case 1: {                                 /* a buffer header byte */
		const struct bufinfo *b = &ref->bufs[rnd(s, ref->nbufs)];
		size_t off = (size_t)(b->off + rnd(s, HDR));
		if (off >= n)
			off = n - 1;
		set_byte(w, ed, ned, off, (uint8_t)(w[off] ^ (1u << rnd(s, 8))));
		return "buffer header bit";
	}
	case 2: {                                 /* a buffer header field */
		const struct bufinfo *b = &ref->bufs[rnd(s, ref->nbufs)];
		static const unsigned fields[] = { 0x00, 0x04, 0x30, 0x28, 0x34, 0x18 };
		size_t off = (size_t)(b->off + fields[rnd(s, 6)]);
		uint32_t v = interesting[rnd(s, sizeof interesting / sizeof interesting[0])];
		if (rnd(s, 3) == 0)
			v = tu_le32(w + off) + (uint32_t)rnd(s, 64) - 32u;
		for (int i = 0; i < 4 && off + (size_t)i < n; i++)
			set_byte(w, ed, ned, off + (size_t)i, (uint8_t)(v >> (8 * i)));
		return "buffer header field";
	}
	case 3:                                   /* a record header */
		if (ref->nrec_uncomp) {
			const struct tu_ev *e = &ref->run.ev[ref->rec_uncomp[rnd(s, ref->nrec_uncomp)]];
			size_t lim = e->size < 0x58 ? e->size : 0x58;
			int k = 1 + (int)rnd(s, 2);
			for (int i = 0; i < k; i++) {
				size_t off = (size_t)(e->file_offset + rnd(s, lim));
				if (rnd(s, 2))
					set_byte(w, ed, ned, off, (uint8_t)(w[off] ^ (1u << rnd(s, 8))));
				else
					set_byte(w, ed, ned, off, (uint8_t)rnd(s, 256));
			}
			return "record header";
		}
		/* fall through */
	case 4:                                   /* compressed payload */
		if (ref->ncomp) {
			const struct bufinfo *b = &ref->bufs[ref->comp_bytes[rnd(s, ref->ncomp)]];
			int k = 1 + (int)rnd(s, 3);
			for (int i = 0; i < k; i++) {
				size_t off = (size_t)(b->off + HDR + rnd(s, b->size - HDR));
				set_byte(w, ed, ned, off, rnd(s, 2) ? (uint8_t)(w[off] ^ (1u << rnd(s, 8)))
				                                     : (uint8_t)rnd(s, 256));
			}
			return "compressed payload";
		}
		/* fall through */
	default: {                                /* a record size field */
		/* The header buffer is never compressed: there is always one. */
		TU_REQUIRE(ref->nrec_uncomp > 0);
		const struct tu_ev *e = &ref->run.ev[ref->rec_uncomp[rnd(s, ref->nrec_uncomp)]];
		size_t off = (size_t)e->file_offset + (rnd(s, 2) ? 0 : 4) + (size_t)rnd(s, 2);
		set_byte(w, ed, ned, off, (uint8_t)rnd(s, 256));
		return "record size";
	}
	}
}

/* ------------------------------------------------------------------ */
/* the test                                                             */
/* ------------------------------------------------------------------ */

static size_t check_survivors(const struct reference *ref, const struct damaged *d, uint64_t x,
                              int truncated, const struct bufinfo *confined, const char *file,
                              const char *what, int order, int iter)
{
	size_t must = 0;
	for (size_t i = 0; i < ref->run.n; i++) {
		const struct tu_ev *e = &ref->run.ev[i];
		if (!guaranteed(ref, e, x, truncated, confined))
			continue;
		must++;
		TU_CHECK(has_key(d, tu_ev_key(e->buffer_offset, e->offset_in_buffer)),
		              "%s iter %d (%s at 0x%" PRIx64 ", order %d): record 0x%" PRIx64
		              " (buffer 0x%" PRIx64 ") lost", file, iter, what, x, order,
		              e->file_offset, e->buffer_offset);
	}
	return must;
}

START_TEST(test_mutation)
{
	TU_NEED_CORPUS();
	if (getenv("ETL_SKIP_MUTATION") && strcmp(getenv("ETL_SKIP_MUTATION"), "1") == 0) {
		tu_skip(__func__, "ETL_SKIP_MUTATION=1");
		return;
	}
	ck_assert_msg(g_nfiles > 0, "no .etl files in %s", tu_corpus_dir());
	const char *file = g_files[_i];
	struct reference ref;
	reference_load(&ref, file);
	int iters = ref.n >= BIG_FILE ? ITER_BIG : ITER_SMALL;
	size_t max_calls = 10 * ref.run.n + 1000;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	for (const char *c = file; *c; c++)
		seed = (seed ^ (uint8_t)*c) * 0x100000001B3ULL;
	uint8_t *w = malloc(ref.n);
	ck_assert_ptr_nonnull(w);
	memcpy(w, ref.data, ref.n);
	size_t truncations = 0, lost_checked = 0, survivors = 0, confined_runs = 0;
	for (int it = 0; it < iters; it++) {
		uint64_t s = seed + (uint64_t)it * 0x2545F4914F6CDD1DULL;
		tu_rand(&s);
		int truncated = rnd(&s, 3) == 0;
		uint64_t x;
		const char *what;
		const uint8_t *input;
		size_t len;
		uint8_t *cut = NULL;
		struct edit ed[MAX_EDITS];
		int ned = 0;
		const struct bufinfo *confined = NULL;
		if (truncated) {
			/* Half the cuts near a buffer boundary, where it matters. */
			if (rnd(&s, 2)) {
				const struct bufinfo *b = &ref.bufs[rnd(&s, ref.nbufs)];
				x = b->off + rnd(&s, 0x200);
			} else {
				x = rnd(&s, ref.n);
			}
			if (x >= ref.n)
				x = ref.n - 1;
			len = (size_t)x;
			/* An exactly sized copy, so reading past the cut is an
			 * overread the sanitizers see. */
			cut = malloc(len ? len : 1);
			ck_assert_ptr_nonnull(cut);
			memcpy(cut, ref.data, len);
			input = cut;
			what = "truncation";
			truncations++;
		} else {
			what = mutate(&ref, w, &s, ed, &ned);
			ck_assert_int_gt(ned, 0);
			x = ed[0].off;
			for (int i = 1; i < ned; i++)
				if (ed[i].off < x)
					x = ed[i].off;
			input = w;
			len = ref.n;
			/* All edits past the header of one buffer (not the first)? */
			confined = buffer_of(&ref, ed[0].off);
			for (int i = 0; i < ned && confined; i++) {
				const struct bufinfo *b = buffer_of(&ref, ed[i].off);
				if (b != confined || ed[i].off < b->off + HDR || b->off == 0)
					confined = NULL;
			}
			if (confined)
				confined_runs++;
		}
		for (int order = 0; order < 2; order++) {
			struct damaged d;
			read_damaged(input, len, order, max_calls, &d);
			ck_assert_msg(d.end_rc != TU_LIMIT_HIT,
			              "%s iter %d (%s at 0x%" PRIx64 ", order %d): no end after %zu calls",
			              file, it, what, x, order, d.calls);
			if (d.open_rc == ETL_FATAL) {
				/* Only an input too short to hold anything is fatal. */
				ck_assert_msg(len == 0, "%s iter %d: fatal open of %zu bytes", file, it, len);
			} else {
				ck_assert_int_eq(d.end_rc, ETL_END);
				survivors += check_survivors(&ref, &d, x, truncated, confined, file, what, order, it);
				lost_checked++;
			}
			free(d.keys);
		}
		/* Undo the edits, newest first (a byte may be edited twice). */
		for (int i = ned - 1; i >= 0; i--)
			w[ed[i].off] = ed[i].old;
		free(cut);
	}
	ck_assert_mem_eq(w, ref.data, ref.n);
	ck_assert_uint_gt(truncations, 0);
	ck_assert_uint_gt(lost_checked, 0);
	/* The survivor rule was not vacuous. */
	ck_assert_uint_gt(survivors, 0);
	if (ref.nbufs > 2)
		ck_assert_uint_gt(confined_runs, 0);
	free(w);
	reference_free(&ref);
}
END_TEST

/* A file cut exactly at a buffer boundary has no damaged record, but it is
 * shorter than its logfile header says: every buffer before the cut is
 * read whole, and one report (ETL_E_TRUNCATED) names both buffer counts -
 * for every file that is not circular, in both orders. A circular file
 * counts every buffer ever written, so the same cut there reports nothing. */
START_TEST(test_boundary_truncation)
{
	TU_NEED_CORPUS();
	const char *file = g_files[_i];
	struct reference ref;
	reference_load(&ref, file);
	uint32_t written = ref.run.lf.buffers_written;
	int circular = (ref.run.lf.log_file_mode & ETL_MODE_CIRCULAR) != 0;
	ck_assert_uint_eq(written, ref.nbufs);      /* the whole file agrees */
	/* At most 8 boundaries, spread over the file. */
	size_t step = ref.nbufs > 9 ? (ref.nbufs - 1) / 8 : 1;
	size_t cuts = 0;
	for (size_t k = 1; k < ref.nbufs; k += step) {
		size_t len = (size_t)ref.bufs[k].off;
		uint8_t *cut = malloc(len);
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, ref.data, len);
		for (int order = 0; order < 2; order++) {
			etl_reader *r = etl_reader_new();
			ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
			ck_assert_int_eq(etl_reader_open_memory(r, cut, len), ETL_OK);
			const struct etl_event *ev;
			int st;
			size_t events = 0, fails = 0;
			char want[96];
			snprintf(want, sizeof want, "it holds %zu buffers, the header counts %u written", k,
			         written);
			while ((st = etl_reader_next(r, &ev)) != ETL_END) {
				ck_assert_int_ne(st, ETL_FATAL);
				if (st != ETL_FAILED) {
					events++;
					continue;
				}
				fails++;
				ck_assert_int_eq(etl_reader_errcode(r), ETL_E_TRUNCATED);
				ck_assert_uint_eq(etl_reader_erroff(r), len);
				ck_assert_msg(strstr(etl_reader_errmsg(r), "shorter than its logfile header") &&
				              strstr(etl_reader_errmsg(r), want),
				              "%s cut at 0x%zx: %s", file, len, etl_reader_errmsg(r));
			}
			ck_assert_uint_eq(fails, circular ? 0 : 1);
			/* Every record of the buffers before the cut. */
			size_t expect = 0;
			for (size_t i = 0; i < ref.run.n; i++)
				if (ref.run.ev[i].buffer_offset < len)
					expect++;
			ck_assert_uint_eq(events, expect);
			etl_reader_free(r);
		}
		free(cut);
		cuts++;
	}
	if (ref.nbufs > 1)
		ck_assert_uint_gt(cuts, 0);
	reference_free(&ref);
}
END_TEST

/* The survivor rule itself, on a synthetic file where the answer is
 * known: damage in the third buffer keeps the first two buffers. */
START_TEST(test_guaranteed_rule)
{
	struct reference ref;
	memset(&ref, 0, sizeof ref);
	struct bufinfo bufs[3] = { { 0, 0x100, 0 }, { 0x100, 0x100, 0 }, { 0x200, 0x100, 1 } };
	ref.bufs = bufs;
	ref.nbufs = 3;
	ref.n = 0x300;
	struct tu_ev e;
	memset(&e, 0, sizeof e);
	e.buffer_offset = 0x100;
	e.offset_in_buffer = 0x48;
	e.size = 0x30;
	ck_assert(guaranteed(&ref, &e, 0x200, 0, NULL));
	ck_assert(guaranteed(&ref, &e, 0x1FF, 0, NULL));             /* same buffer, past the record */
	ck_assert(!guaranteed(&ref, &e, 0x160, 0, NULL));            /* inside the record */
	ck_assert(guaranteed(&ref, &e, 0x178, 0, NULL));             /* right after it */
	ck_assert(!guaranteed(&ref, &e, 0x120, 0, NULL));            /* in the buffer header */
	ck_assert(guaranteed(&ref, &e, 0x178, 1, NULL));
	ck_assert(!guaranteed(&ref, &e, 0x177, 1, NULL));
	e.buffer_offset = 0x200;
	ck_assert(!guaranteed(&ref, &e, 0x278, 1, NULL));            /* compressed: whole buffer */
	ck_assert(guaranteed(&ref, &e, 0x300, 1, NULL));
	ck_assert(!guaranteed(&ref, &e, 0x290, 0, NULL));
	/* Damage confined to buffer 2 keeps buffer 1's records wherever. */
	e.buffer_offset = 0x100;
	ck_assert(guaranteed(&ref, &e, 0x250, 0, &bufs[2]));
	ck_assert(!guaranteed(&ref, &e, 0x150, 0, &bufs[1]));
}
END_TEST

static Suite *mutation_suite(void)
{
	Suite *s = suite_create("mutation");
	TCase *tc = tcase_create("damage");
	/* Generous: the loop bound is the hang detector; this only catches
	 * a wedged process. */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_guaranteed_rule);
	tcase_add_loop_test(tc, test_mutation, 0, g_nfiles ? (int)g_nfiles : 1);
	tcase_add_loop_test(tc, test_boundary_truncation, 0, g_nfiles ? (int)g_nfiles : 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	list_corpus();
	SRunner *sr = srunner_create(mutation_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (size_t i = 0; i < g_nfiles; i++)
		free(g_files[i]);
	free(g_files);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
