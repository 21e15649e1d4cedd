/*
 * check_output_events_only.c - ETL_OUTPUT_EVENTS_ONLY and
 * etl_output_is_header_record() (include/etl_output.h): one document made
 * of an ordinary handle's beginning (begin, the header event, the first
 * event), the later events rendered by several events-only handles in
 * turn, and the ordinary handle's end, is byte for byte the document one
 * ordinary handle writes, in every format and with the same sink calls;
 * also when the logfile-header record comes late (it is then left out, as
 * the ordinary handle skips it), when there is no logfile header, and with
 * ETL_OUTPUT_EXPLAIN. An events-only handle writes nothing at begin and
 * end; the predicate says which record is the logfile header's.
 *
 * Corpus files are read from $ETL_CORPUS (default ../shared/corpus).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "testutil.h"

static const char *const formats[] = { "xml", "json", "jsonl", "csv", "text" };
#define N_FORMATS (sizeof formats / sizeof formats[0])

static const char *const files[] = {
	"wsl-lxcore-tracelogging.etl",       /* TraceLogging                    */
	"onedrive-cldflt-wpp.etl",           /* WPP                             */
	"vista-classic-mixed-32.etl",        /* classic, 32-bit                 */
	"eventsource-primitive-types.etl",   /* in-band EventSource manifest    */
	"win7-httpservice-manifest.etl",     /* manifest events, many of them   */
};
#define N_FILES (sizeof files / sizeof files[0])

/* The events-only handles a document is shared among, and how many
 * events each renders in a row (as a batch). */
#define N_PARTS 3
#define RUN 7

/* A sink that keeps the bytes and the length of every call. */
struct rec {
	struct tu_bytes b;
	struct tu_bytes calls;     /* one size_t per call                    */
};

static int rec_write(void *ctx, const void *p, size_t n)
{
	struct rec *r = ctx;
	tu_putbytes(&r->b, p, n);
	tu_putbytes(&r->calls, &n, sizeof n);
	return 0;
}

static void rec_free(struct rec *r)
{
	tu_bytes_free(&r->b);
	tu_bytes_free(&r->calls);
}

/* The events of a rendering, in order: those of reader a, with the
 * logfile-header record of reader b (the same file) put in at position
 * late when late > 0 (a's own is then left out). */
struct feed {
	etl_reader *a, *b;
	int late;
	int n;
};

static etl_reader *open_reader(const char *path)
{
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	int st = etl_reader_open_file(r, path);
	ck_assert_msg(st == ETL_OK || st == ETL_WARN, "%s: cannot open: %s", path, etl_reader_errmsg(r));
	return r;
}

static void feed_open(struct feed *f, const char *path, int late)
{
	memset(f, 0, sizeof *f);
	f->a = open_reader(path);
	f->late = late;
	if (late)
		f->b = open_reader(path);
}

static const struct etl_event *feed_next(struct feed *f)
{
	const struct etl_event *ev;
	const struct etl_logfile *lf = etl_reader_logfile(f->a);
	int st;
	if (f->late && f->n == f->late) {
		while ((st = etl_reader_next(f->b, &ev)) != ETL_END) {
			ck_assert_int_ne(st, ETL_FATAL);
			if (st == ETL_OK && etl_output_is_header_record(lf, ev)) {
				f->n++;
				return ev;
			}
		}
		ck_abort_msg("no logfile-header record in the second reader");
	}
	while ((st = etl_reader_next(f->a, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st != ETL_OK || (f->late && etl_output_is_header_record(lf, ev)))
			continue;
		f->n++;
		return ev;
	}
	return NULL;
}

static void feed_close(struct feed *f)
{
	etl_reader_free(f->a);
	etl_reader_free(f->b);
}

static etl_output *new_output(const char *fmt, struct rec *r, unsigned flags)
{
	etl_output *o = etl_output_new(fmt, rec_write, r);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_set_flags(o, flags), ETL_OK);
	return o;
}

/* The document one ordinary handle writes. */
static void render_whole(const char *path, const char *fmt, int late, int with_lf, unsigned flags,
                         struct rec *out)
{
	struct feed f;
	feed_open(&f, path, late);
	etl_decoder *d = etl_decoder_new();
	etl_output *o = new_output(fmt, out, flags);
	ck_assert_int_eq(etl_output_begin(o, with_lf ? etl_reader_logfile(f.a) : NULL), ETL_OK);
	const struct etl_event *ev;
	while ((ev = feed_next(&f))) {
		const struct etl_decoded *dec = NULL;
		ck_assert_int_ne(etl_decoder_decode(d, ev, &dec), ETL_FATAL);
		TU_CHECK(etl_output_event(o, ev, dec) == ETL_OK, "%s: %s", path, etl_output_errmsg(o));
	}
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	etl_decoder_free(d);
	feed_close(&f);
}

/* The same document put together from one ordinary handle (begin, the
 * first two events, end) and N_PARTS events-only handles taking RUN
 * events in turn, each with its own sink: their bytes and calls are
 * appended to out in the events' order. The first logfile-header record
 * after the first two events is left out when none came before. */
static void render_parts(const char *path, const char *fmt, int late, int with_lf, unsigned flags,
                         struct rec *out)
{
	struct feed f;
	feed_open(&f, path, late);
	const struct etl_logfile *lf = with_lf ? etl_reader_logfile(f.a) : NULL;
	etl_decoder *d = etl_decoder_new();
	etl_output *main_o = new_output(fmt, out, flags);
	etl_output *part[N_PARTS];
	struct rec prec[N_PARTS];
	memset(prec, 0, sizeof prec);
	for (int k = 0; k < N_PARTS; k++) {
		part[k] = new_output(fmt, &prec[k], flags | ETL_OUTPUT_EVENTS_ONLY);
		ck_assert_int_eq(etl_output_begin(part[k], lf), ETL_OK);
		ck_assert_uint_eq(prec[k].b.len, 0);           /* begin wrote nothing */
	}
	ck_assert_int_eq(etl_output_begin(main_o, lf), ETL_OK);
	const struct etl_event *ev;
	int n = 0, lf_met = 0;
	while ((ev = feed_next(&f))) {
		const struct etl_decoded *dec = NULL;
		ck_assert_int_ne(etl_decoder_decode(d, ev, &dec), ETL_FATAL);
		int is_lf = etl_output_is_header_record(lf, ev);
		if (n < 2) {
			TU_CHECK(etl_output_event(main_o, ev, dec) == ETL_OK, "%s", etl_output_errmsg(main_o));
		} else if (is_lf && !lf_met) {
			;                                          /* skipped once */
		} else {
			int k = (n - 2) / RUN % N_PARTS;
			struct rec *p = &prec[k];
			p->b.len = 0;
			p->calls.len = 0;
			TU_CHECK(etl_output_event(part[k], ev, dec) == ETL_OK, "%s", etl_output_errmsg(part[k]));
			tu_putbytes(&out->b, p->b.p, p->b.len);
			tu_putbytes(&out->calls, p->calls.p, p->calls.len);
		}
		lf_met |= is_lf;
		n++;
	}
	for (int k = 0; k < N_PARTS; k++) {
		prec[k].b.len = 0;
		ck_assert_int_eq(etl_output_end(part[k]), ETL_OK);
		ck_assert_uint_eq(prec[k].b.len, 0);           /* end wrote nothing */
		etl_output_free(part[k]);
		rec_free(&prec[k]);
	}
	ck_assert_int_eq(etl_output_end(main_o), ETL_OK);
	etl_output_free(main_o);
	etl_decoder_free(d);
	feed_close(&f);
}

static void compare(const char *path, const char *fmt, int late, int with_lf, unsigned flags)
{
	struct rec whole, parts;
	memset(&whole, 0, sizeof whole);
	memset(&parts, 0, sizeof parts);
	render_whole(path, fmt, late, with_lf, flags, &whole);
	render_parts(path, fmt, late, with_lf, flags, &parts);
	ck_assert_msg(whole.b.len > 0, "%s as %s: empty", path, fmt);
	ck_assert_msg(whole.b.len == parts.b.len && memcmp(whole.b.p, parts.b.p, whole.b.len) == 0,
	              "%s as %s (late %d, lf %d, flags %#x): %zu bytes whole, %zu put together",
	              path, fmt, late, with_lf, flags, whole.b.len, parts.b.len);
	ck_assert_msg(whole.calls.len == parts.calls.len &&
	              memcmp(whole.calls.p, parts.calls.p, whole.calls.len) == 0,
	              "%s as %s: the sink calls differ", path, fmt);
	rec_free(&whole);
	rec_free(&parts);
}

START_TEST(test_events_only_same_document)
{
	TU_NEED_CORPUS();
	const char *file = files[_i / N_FORMATS];
	const char *fmt = formats[_i % N_FORMATS];
	char *path = tu_corpus_path(file);
	compare(path, fmt, 0, 1, 0);
	compare(path, fmt, 0, 0, 0);                /* no logfile header */
	compare(path, fmt, 5, 1, 0);                /* its record comes late */
	if (strcmp(fmt, "json") == 0 || strcmp(fmt, "jsonl") == 0)
		compare(path, fmt, 0, 1, ETL_OUTPUT_EXPLAIN);
	if (strcmp(fmt, "text") == 0)
		compare(path, fmt, 0, 1, ETL_OUTPUT_TEXT_RECORD);
	free(path);
}
END_TEST

/* The flag goes with every format, before begin only; the predicate
 * wants a present logfile header and the record it describes. */
START_TEST(test_events_only_flag_and_predicate)
{
	TU_NEED_CORPUS();
	struct rec r;
	memset(&r, 0, sizeof r);
	for (size_t f = 0; f < N_FORMATS; f++) {
		etl_output *o = etl_output_new(formats[f], rec_write, &r);
		ck_assert_int_eq(etl_output_set_flags(o, ETL_OUTPUT_EVENTS_ONLY), ETL_OK);
		ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
		ck_assert_int_eq(etl_output_set_flags(o, ETL_OUTPUT_EVENTS_ONLY), ETL_FAILED);
		ck_assert_int_eq(etl_output_errcode(o), ETL_E_MISUSE);
		ck_assert_int_eq(etl_output_end(o), ETL_OK);
		ck_assert_int_eq(etl_output_end(o), ETL_FAILED);
		etl_output_free(o);
	}
	ck_assert_uint_eq(r.b.len, 0);

	char *path = tu_corpus_path("wsl-lxcore-tracelogging.etl");
	etl_reader *rd = open_reader(path);
	const struct etl_logfile *lf = etl_reader_logfile(rd);
	const struct etl_event *ev;
	int n = 0, matched = 0;
	while (etl_reader_next(rd, &ev) == ETL_OK) {
		int m = etl_output_is_header_record(lf, ev);
		ck_assert_int_eq(etl_output_is_header_record(NULL, ev), 0);
		matched += m;
		if (n++ == 0)
			ck_assert_int_eq(m, 1);                /* the first record of the file */
	}
	ck_assert_int_eq(matched, 1);
	ck_assert_int_eq(etl_output_is_header_record(lf, NULL), 0);

	/* A "json" events-only handle's first event follows a comma. */
	etl_reader_free(rd);
	rd = open_reader(path);
	ck_assert_int_eq(etl_reader_next(rd, &ev), ETL_OK);
	ck_assert_int_eq(etl_reader_next(rd, &ev), ETL_OK);
	etl_output *o = new_output("json", &r, ETL_OUTPUT_EVENTS_ONLY);
	ck_assert_int_eq(etl_output_begin(o, lf), ETL_OK);
	ck_assert_int_eq(etl_output_event(o, ev, NULL), ETL_OK);
	ck_assert_msg(r.b.len > 3 && memcmp(r.b.p, ",\n{", 3) == 0, "json events-only event: %.*s",
	              (int)(r.b.len < 40 ? r.b.len : 40), (const char *)r.b.p);
	etl_output_free(o);
	etl_reader_free(rd);
	rec_free(&r);
	free(path);
}
END_TEST

static Suite *events_only_suite(void)
{
	Suite *s = suite_create("output_events_only");
	TCase *tc = tcase_create("documents");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_events_only_same_document, 0, (int)(N_FILES * N_FORMATS));
	tcase_add_test(tc, test_events_only_flag_and_predicate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(events_only_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	xmlCleanupParser();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
