/*
 * check_convert_corpus.c - every corpus file converted to XML, JSON and
 * JSON lines (include/etl_output.h), the outputs parsed back and the events
 * counted.
 *
 * For each file listed in $ETL_CORPUS/expected.json (default
 * ../shared/corpus), with a decoder that has every manifest of
 * <corpus>/../manifests loaded (etl_decoder_add_manifest on the
 * directory), the records are read in time order, decoded once, and each
 * record is handed to three outputs (xml, json, jsonl) at the same time.
 * The outputs are checked while they are produced, never held whole (the
 * largest file has ~180 000 records; its XML is hundreds of MB):
 *
 *   - XML: fed chunk by chunk to a libxml2 push parser (xmlParseChunk,
 *     XML_PARSE_NONET | XML_PARSE_HUGE) with a SAX handler that builds no
 *     tree: no error may be reported, the document must be well-formed,
 *     the root must be <Events> and its children exactly the expected
 *     number of <Event> elements (nothing else);
 *   - JSON: a small streaming scanner (strings and escapes aware) cuts the
 *     document into a "skeleton" in which every element of the top-level
 *     "Events" array is replaced by 0, and the elements themselves. Each
 *     element is parsed by json_mini (must be an object); the skeleton is
 *     parsed by json_mini too (so the document's own syntax - braces,
 *     commas, keys - is checked) and must be {"Header": ..., "Events":
 *     [0, 0, ...]} with as many placeholders as elements;
 *   - JSON lines: split at LF, every line parsed by json_mini, the first
 *     one being the header (an object; null without a logfile header), the
 *     others objects; the output must end with LF.
 *
 * Counting the logfile-header record (see etl_output.h, "The header
 * event"): with a logfile header (lf->present), the output writes ONE
 * header event first. The record that IS the logfile header (hook id 0 at
 * lf->file_offset with timestamp lf->header_timestamp) lends it its System
 * fields and is not written again - only the first such record; any other
 * hook-0 record is an ordinary event. So, with N = the records the reader
 * returned (== expected.json "events") and S = 1 when one of them is the
 * logfile-header record (computed here independently, by the same rule),
 * else 0, and H = 1 when lf->present, else 0:
 *
 *     XML   <Event> elements      = N - S + H
 *     JSON  "Events" elements     = N - S      (the header is "Header")
 *     JSONL lines                 = N - S + 1  (the first line is the
 *                                   header, null without one)
 *
 * i.e. every record is accounted for: it is an event of its own, or it is
 * the header event.
 *
 * CONVERT_CORPUS_VERBOSE=1 prints one summary line per file to stderr.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etl.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "json_mini.h"
#include "testutil.h"

/* ---- expected.json ------------------------------------------------------ */

static struct jm_val *g_exp;
static char g_exp_err[1400];
static size_t g_nfiles;

static void load_expected(void)
{
	/* Runs before the tests: no ck_assert here. */
	char path[1024];
	snprintf(path, sizeof path, "%s/expected.json", tu_corpus_dir());
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(g_exp_err, sizeof g_exp_err, "cannot open %s", path);
		return;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
	size_t got = text ? fread(text, 1, (size_t)n, f) : 0;
	fclose(f);
	if (!text || got != (size_t)n) {
		snprintf(g_exp_err, sizeof g_exp_err, "cannot read %s", path);
		free(text);
		return;
	}
	char err[200];
	g_exp = jm_parse(text, (size_t)n, err, sizeof err);
	free(text);
	if (!g_exp) {
		snprintf(g_exp_err, sizeof g_exp_err, "%s: %s", path, err);
		return;
	}
	if (g_exp->type != JM_OBJ) {
		snprintf(g_exp_err, sizeof g_exp_err, "%s: top level is not an object", path);
		jm_free(g_exp);
		g_exp = NULL;
		return;
	}
	g_nfiles = g_exp->len;
}

/* ---- XML: push parser, SAX, no tree ---------------------------------------- */

struct xml_check {
	xmlParserCtxtPtr ctxt;
	const char *what;
	int depth;
	int root_ok;              /* root element is <Events>                */
	size_t roots;             /* elements at depth 0                      */
	size_t events;            /* <Event> children of the root             */
	size_t others;            /* other children of the root               */
	size_t errors;
	char first_error[512];
};

static void xml_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                      const xmlChar *uri, int nb_ns, const xmlChar **ns, int nb_attr,
                      int nb_def, const xmlChar **attrs)
{
	(void)prefix; (void)uri; (void)nb_ns; (void)ns; (void)nb_attr; (void)nb_def; (void)attrs;
	struct xml_check *x = ctx;
	if (x->depth == 0) {
		x->roots++;
		x->root_ok = strcmp((const char *)localname, "Events") == 0;
	} else if (x->depth == 1) {
		if (strcmp((const char *)localname, "Event") == 0)
			x->events++;
		else
			x->others++;
	}
	x->depth++;
}

static void xml_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	(void)localname; (void)prefix; (void)uri;
	struct xml_check *x = ctx;
	x->depth--;
}

static struct xml_check *g_xml_current;  /* for the structured error hook */

static void xml_serror(void *ctx, xmlErrorPtr e)
{
	(void)ctx;
	struct xml_check *x = g_xml_current;
	if (!x || !e || e->level < XML_ERR_ERROR)
		return;
	if (x->errors++ == 0)
		snprintf(x->first_error, sizeof x->first_error, "line %d: %s", e->line,
		         e->message ? e->message : "?");
}

static void xml_init(struct xml_check *x, const char *what)
{
	memset(x, 0, sizeof *x);
	x->what = what;
	static xmlSAXHandler sax;
	memset(&sax, 0, sizeof sax);
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = xml_start;
	sax.endElementNs = xml_end;
	sax.serror = xml_serror;
	x->ctxt = xmlCreatePushParserCtxt(&sax, x, NULL, 0, "out.xml");
	ck_assert_ptr_nonnull(x->ctxt);
	xmlCtxtUseOptions(x->ctxt, XML_PARSE_NONET | XML_PARSE_HUGE);
	g_xml_current = x;
}

static int xml_write(void *ctx, const void *p, size_t n)
{
	struct xml_check *x = ctx;
	const char *c = p;
	while (n > 0) {
		int k = n > (1u << 30) ? 1 << 30 : (int)n;
		xmlParseChunk(x->ctxt, c, k, 0);
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Ends the parse and checks the document. @return : <Event> count. */
static size_t xml_finish(struct xml_check *x)
{
	xmlParseChunk(x->ctxt, NULL, 0, 1);
	int wf = x->ctxt->wellFormed;
	xmlFreeParserCtxt(x->ctxt);
	x->ctxt = NULL;
	g_xml_current = NULL;
	ck_assert_msg(x->errors == 0, "%s: XML: %zu errors, the first: %s", x->what, x->errors,
	              x->first_error);
	ck_assert_msg(wf, "%s: XML: not well-formed", x->what);
	ck_assert_msg(x->roots == 1 && x->root_ok, "%s: XML: the root is not one <Events>", x->what);
	ck_assert_msg(x->depth == 0, "%s: XML: unbalanced elements", x->what);
	ck_assert_msg(x->others == 0, "%s: XML: %zu children of <Events> are not <Event>", x->what,
	              x->others);
	return x->events;
}

/* ---- JSON document: streaming split into skeleton + elements ------------------ */

struct json_check {
	const char *what;
	struct tu_bytes skel;      /* the document, Events elements -> 0       */
	struct tu_bytes elem;      /* the Events element being read            */
	int depth;                 /* nesting outside strings                  */
	int in_str, esc;
	int in_events;             /* inside the top-level "Events" array      */
	int in_elem;
	size_t str_start;          /* skel offset of the string being read     */
	char last_key[16];         /* last string closed at depth 1            */
	size_t elements;           /* elements parsed                          */
};

static void json_init(struct json_check *j, const char *what)
{
	memset(j, 0, sizeof *j);
	j->what = what;
	tu_bytes_init(&j->skel);
	tu_bytes_init(&j->elem);
}

static void json_elem_done(struct json_check *j)
{
	char err[256];
	struct jm_val *v = jm_parse((const char *)j->elem.p, j->elem.len, err, sizeof err);
	TU_CHECK(v != NULL, "%s: JSON: Events[%zu] is invalid: %s", j->what, j->elements, err);
	TU_CHECK(v->type == JM_OBJ, "%s: JSON: Events[%zu] is not an object", j->what, j->elements);
	jm_free(v);
	j->elements++;
	j->elem.len = 0;
	j->in_elem = 0;
	tu_put8(&j->skel, '0');
}

static int json_write(void *ctx, const void *p, size_t n)
{
	struct json_check *j = ctx;
	const uint8_t *c = p;
	for (size_t i = 0; i < n; i++) {
		uint8_t b = c[i];
		if (j->in_elem) {
			tu_put8(&j->elem, b);
			if (j->in_str) {
				if (j->esc)
					j->esc = 0;
				else if (b == '\\')
					j->esc = 1;
				else if (b == '"')
					j->in_str = 0;
			} else if (b == '"') {
				j->in_str = 1;
			} else if (b == '{' || b == '[') {
				j->depth++;
			} else if (b == '}' || b == ']') {
				if (--j->depth == 2)
					json_elem_done(j);
			}
			continue;
		}
		if (j->in_str) {
			tu_put8(&j->skel, b);
			if (j->esc) {
				j->esc = 0;
			} else if (b == '\\') {
				j->esc = 1;
			} else if (b == '"') {
				j->in_str = 0;
				if (j->depth == 1) {
					size_t len = j->skel.len - j->str_start;
					if (len >= sizeof j->last_key)
						len = sizeof j->last_key - 1;
					memcpy(j->last_key, j->skel.p + j->str_start, len);
					j->last_key[len] = 0;
				}
			}
			continue;
		}
		if (b == '"') {
			j->in_str = 1;
			j->str_start = j->skel.len;
			tu_put8(&j->skel, b);
		} else if (b == '{' && j->in_events && j->depth == 2) {
			j->in_elem = 1;
			j->depth++;
			tu_put8(&j->elem, b);
		} else if (b == '{' || b == '[') {
			if (b == '[' && j->depth == 1 && strcmp(j->last_key, "\"Events\"") == 0)
				j->in_events = 1;
			j->depth++;
			tu_put8(&j->skel, b);
		} else if (b == '}' || b == ']') {
			if (--j->depth == 1)
				j->in_events = 0;
			tu_put8(&j->skel, b);
		} else {
			tu_put8(&j->skel, b);
		}
	}
	return 0;
}

/* Checks the skeleton. @return : the number of "Events" elements. */
static size_t json_finish(struct json_check *j, int have_lf)
{
	ck_assert_msg(!j->in_elem && !j->in_str && j->depth == 0,
	              "%s: JSON: the document is cut short", j->what);
	char err[256];
	struct jm_val *v = jm_parse((const char *)j->skel.p, j->skel.len, err, sizeof err);
	ck_assert_msg(v != NULL, "%s: JSON: invalid document: %s", j->what, err);
	ck_assert_msg(v->type == JM_OBJ, "%s: JSON: not an object", j->what);
	const struct jm_val *h = jm_get(v, "Header");
	ck_assert_msg(h != NULL, "%s: JSON: no Header", j->what);
	ck_assert_msg(h->type == (have_lf ? JM_OBJ : JM_NULL), "%s: JSON: Header is of type %d",
	              j->what, (int)h->type);
	const struct jm_val *e = jm_get(v, "Events");
	ck_assert_msg(e && e->type == JM_ARR, "%s: JSON: no Events array", j->what);
	/* Every element was cut out and parsed (objects only). */
	ck_assert_msg(e->len == j->elements, "%s: JSON: Events has %zu elements, %zu parsed",
	              j->what, e->len, j->elements);
	for (size_t i = 0; i < e->len; i++)
		TU_CHECK(e->items[i].type == JM_NUM && e->items[i].is_int && e->items[i].i == 0,
		         "%s: JSON: Events[%zu] is not an object", j->what, i);
	size_t n = e->len;
	jm_free(v);
	tu_bytes_free(&j->skel);
	tu_bytes_free(&j->elem);
	return n;
}

/* ---- JSON lines: line by line ---------------------------------------------- */

struct jsonl_check {
	const char *what;
	int have_lf;
	struct tu_bytes line;
	size_t lines;
};

static void jsonl_line(struct jsonl_check *l)
{
	char err[256];
	struct jm_val *v = jm_parse((const char *)l->line.p, l->line.len, err, sizeof err);
	TU_CHECK(v != NULL, "%s: JSONL line %zu: %s", l->what, l->lines + 1, err);
	enum jm_type want = (l->lines == 0 && !l->have_lf) ? JM_NULL : JM_OBJ;
	TU_CHECK(v->type == want, "%s: JSONL line %zu is of type %d", l->what, l->lines + 1,
	         (int)v->type);
	jm_free(v);
	l->lines++;
	l->line.len = 0;
}

static int jsonl_write(void *ctx, const void *p, size_t n)
{
	struct jsonl_check *l = ctx;
	const uint8_t *c = p;
	while (n > 0) {
		const uint8_t *nl = memchr(c, '\n', n);
		size_t k = nl ? (size_t)(nl - c) : n;
		tu_putbytes(&l->line, c, k);
		if (!nl)
			break;
		jsonl_line(l);
		c += k + 1;
		n -= k + 1;
	}
	return 0;
}

/* ---- the test ---------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_convert_file)
{
	TU_NEED_CORPUS();
	ck_assert_msg(g_exp != NULL, "expected.json: %s", g_exp_err);
	ck_assert_msg(g_nfiles > 0, "expected.json lists no file");
	const char *name = g_exp->keys[_i];
	const struct jm_val *exp = &g_exp->items[_i];
	long long want_events = jm_int(exp, "events", -1);
	ck_assert_msg(want_events >= 0, "%s: expected.json has no \"events\"", name);

	double t0 = now();
	char *path = tu_corpus_path(name);
	char mdir[1024];
	snprintf(mdir, sizeof mdir, "%s/../manifests", tu_corpus_dir());

	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(etl_decoder_add_manifest(d, mdir) == ETL_OK, "%s: %s", mdir,
	              etl_decoder_errmsg(d));
	int st = etl_reader_open_file(r, path);
	ck_assert_msg(st == ETL_OK || st == ETL_WARN, "%s: cannot open: %s", path,
	              etl_reader_errmsg(r));
	const struct etl_logfile *lf = etl_reader_logfile(r);
	int have_lf = lf && lf->present;

	char wx[300], wj[300], wl[300];
	snprintf(wx, sizeof wx, "%s (xml)", name);
	snprintf(wj, sizeof wj, "%s (json)", name);
	snprintf(wl, sizeof wl, "%s (jsonl)", name);
	struct xml_check xc;
	struct json_check jc;
	struct jsonl_check lc;
	xml_init(&xc, wx);
	json_init(&jc, wj);
	memset(&lc, 0, sizeof lc);
	lc.what = wl;
	lc.have_lf = have_lf;
	tu_bytes_init(&lc.line);

	etl_output *ox = etl_output_new("xml", xml_write, &xc);
	etl_output *oj = etl_output_new("json", json_write, &jc);
	etl_output *ol = etl_output_new("jsonl", jsonl_write, &lc);
	ck_assert_ptr_nonnull(ox);
	ck_assert_ptr_nonnull(oj);
	ck_assert_ptr_nonnull(ol);
	ck_assert_int_eq(etl_output_begin(ox, lf), ETL_OK);
	ck_assert_int_eq(etl_output_begin(oj, lf), ETL_OK);
	ck_assert_int_eq(etl_output_begin(ol, lf), ETL_OK);

	size_t n = 0, skipped = 0, decoded = 0, failures = 0;
	const struct etl_event *ev;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_msg(st != ETL_FATAL, "%s: fatal: %s", name, etl_reader_errmsg(r));
		if (st == ETL_FAILED) {
			failures++;
			continue;
		}
		n++;
		/* The output's rule for "this record is the logfile header". */
		if (have_lf && !skipped && (ev->present & ETL_EVF_HOOKID) && ev->hook_id == 0 &&
		    ev->file_offset == lf->file_offset && ev->timestamp == lf->header_timestamp)
			skipped = 1;
		const struct etl_decoded *dec = NULL;
		TU_CHECK(etl_decoder_decode(d, ev, &dec) != ETL_FATAL, "%s: decoder out of memory", name);
		if (dec && dec->status == ETL_OK)
			decoded++;
		TU_CHECK(etl_output_event(ox, ev, dec) == ETL_OK, "%s: %s", wx, etl_output_errmsg(ox));
		TU_CHECK(etl_output_event(oj, ev, dec) == ETL_OK, "%s: %s", wj, etl_output_errmsg(oj));
		TU_CHECK(etl_output_event(ol, ev, dec) == ETL_OK, "%s: %s", wl, etl_output_errmsg(ol));
	}
	ck_assert_int_eq(etl_output_end(ox), ETL_OK);
	ck_assert_int_eq(etl_output_end(oj), ETL_OK);
	ck_assert_int_eq(etl_output_end(ol), ETL_OK);
	etl_output_free(ox);
	etl_output_free(oj);
	etl_output_free(ol);

	ck_assert_msg(n == (size_t)want_events, "%s: the reader returned %zu events, expected.json says %lld",
	              name, n, want_events);

	size_t hdr = have_lf ? 1 : 0;
	size_t x_events = xml_finish(&xc);
	ck_assert_msg(x_events == n - skipped + hdr,
	              "%s: %zu <Event> elements for %zu records (header event %zu, header record %zu)",
	              wx, x_events, n, hdr, skipped);
	size_t j_events = json_finish(&jc, have_lf);
	ck_assert_msg(j_events == n - skipped,
	              "%s: %zu Events for %zu records (the header record %s)", wj, j_events, n,
	              skipped ? "is the Header" : "absent");
	ck_assert_msg(lc.line.len == 0, "%s: the last line has no LF", wl);
	tu_bytes_free(&lc.line);
	ck_assert_msg(lc.lines == n - skipped + 1,
	              "%s: %zu lines for %zu records (header line + %zu)", wl, lc.lines, n, n - skipped);

	if (getenv("CONVERT_CORPUS_VERBOSE"))
		fprintf(stderr, "%-44s records %6zu (read failures %zu) decoded %6zu  header-record %zu"
		        "  xml %6zu  json %6zu  jsonl %6zu  %.2fs\n", name, n, failures, decoded, skipped,
		        x_events, j_events, lc.lines, now() - t0);

	etl_decoder_free(d);
	etl_reader_free(r);
	free(path);
}
END_TEST

static Suite *convert_corpus_suite(void)
{
	Suite *s = suite_create("convert_corpus");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 600);
	/* One test per file listed in expected.json (at least one, so that a
	 * broken expected.json fails loudly, and the absent corpus is one
	 * skipped test). */
	tcase_add_loop_test(tc, test_convert_file, 0, g_nfiles ? (int)g_nfiles : 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	xmlInitParser();
	load_expected();
	Suite *s = convert_corpus_suite();
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	jm_free(g_exp);
	xmlCleanupParser();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
