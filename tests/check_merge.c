/*
 * check_merge.c - etl_merge (include/etl_merge.h): several inputs read as
 * one stream in UTC time order.
 *
 *   api       the contract without any file: an empty merge ends, bad
 *             arguments are refused, inputs cannot be added once reading
 *             began;
 *   corpus    two or three files of $ETL_CORPUS (default ../shared/corpus)
 *             merged: keys never go down, each input's events come in its
 *             own reader's order, the counts are those of expected.json
 *             (their sum in all), equal keys go in input order (a file
 *             merged with itself), a damaged input reports its losses with
 *             its number and offsets while the others are read whole, the
 *             filter and ETL_MERGE_HEADER_FIRST, and the merged clock.
 * Without the corpus the corpus tests are not run: the program says they
 * were skipped (they neither pass nor fail).
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl.h"
#include "json_mini.h"
#include "testutil.h"

static struct jm_val *g_exp;           /* expected.json, or NULL          */

static void load_expected(void)
{
	char path[1024];
	size_t n;
	snprintf(path, sizeof path, "%s/expected.json", tu_corpus_dir());
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = malloc(n + 1);
	if (text && fread(text, 1, n, f) == n) {
		char err[200];
		g_exp = jm_parse(text, n, err, sizeof err);
	}
	free(text);
	fclose(f);
}

static long long expected_events(const char *file)
{
	const struct jm_val *e = jm_get(g_exp, file);
	ck_assert_msg(e != NULL, "%s is not in expected.json", file);
	return jm_int(e, "events", -1);
}

/* ---- inputs ----------------------------------------------------------- */

struct inputs {
	int n;
	etl_reader *r[4];
	uint8_t *mem[4];
	etl_merge *m;
};

/* Opens the named corpus files (time order); cut_first > 0 opens only that
 * many bytes of the first one (from memory). */
static void open_inputs(struct inputs *in, unsigned flags, size_t cut_first, const char *const *files,
                        int n)
{
	memset(in, 0, sizeof *in);
	in->n = n;
	in->m = etl_merge_new(flags);
	ck_assert_ptr_nonnull(in->m);
	for (int i = 0; i < n; i++) {
		char *path = tu_corpus_path(files[i]);
		in->r[i] = etl_reader_new();
		ck_assert_ptr_nonnull(in->r[i]);
		int st;
		if (i == 0 && cut_first) {
			size_t len;
			in->mem[i] = tu_load_file(path, &len);
			ck_assert_uint_lt(cut_first, len);
			st = etl_reader_open_memory(in->r[i], in->mem[i], cut_first);
		} else {
			st = etl_reader_open_file(in->r[i], path);
		}
		ck_assert_msg(st == ETL_OK || st == ETL_WARN, "%s: %s", path, etl_reader_errmsg(in->r[i]));
		ck_assert_int_eq(etl_merge_add(in->m, in->r[i]), i);
		free(path);
	}
	ck_assert_int_eq(etl_merge_count(in->m), n);
}

static void close_inputs(struct inputs *in)
{
	etl_merge_free(in->m);
	for (int i = 0; i < in->n; i++) {
		etl_reader_free(in->r[i]);
		free(in->mem[i]);
	}
}

/* File offsets of every event of a file, as its own reader returns them. */
static uint64_t *own_order(const char *file, size_t *n)
{
	char *path = tu_corpus_path(file);
	etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	size_t cap = 1024;
	uint64_t *v = malloc(cap * sizeof *v);
	int st;
	*n = 0;
	ck_assert_ptr_nonnull(v);
	ck_assert_int_ge(etl_reader_open_file(r, path), ETL_WARN);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st == ETL_FAILED)
			continue;
		if (*n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof *v);
			ck_assert_ptr_nonnull(v);
		}
		v[(*n)++] = ev->file_offset;
	}
	etl_reader_free(r);
	free(path);
	return v;
}

/* ---- what a merge returned -------------------------------------------- */

struct walk {
	uint64_t count[4];
	uint64_t total;
	uint64_t failed[4], warned[4];
	uint64_t min_fail_off[4];      /* lowest offset of a loss reported */
	int first_input;                /* the first event's input, offset, hook */
	uint64_t first_off;
	uint16_t first_hook;
	int key_down;                  /* keys went down somewhere             */
	int tie_out_of_order;          /* equal keys not in input order        */
};

/* Reads the whole merge, checking the order of keys; own[i] (when set) is
 * input i's own order of file offsets, which the merge must keep. */
static void walk(struct inputs *in, struct walk *w, uint64_t *const *own, const size_t *own_n)
{
	const struct etl_event *ev;
	int input, st;
	int64_t last_key[4], prev_key = INT64_MIN;
	int prev_input = -1;
	memset(w, 0, sizeof *w);
	w->first_input = -1;
	for (int i = 0; i < 4; i++)
		last_key[i] = INT64_MIN;
	while ((st = etl_merge_next(in->m, &ev, &input)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		TU_REQUIRE(input >= 0 && input < in->n);
		if (st == ETL_FAILED || st == ETL_WARN) {
			TU_REQUIRE(ev == NULL);
			if (st == ETL_FAILED && (!w->failed[input]++ ||
			                         etl_merge_erroff(in->m) < w->min_fail_off[input]))
				w->min_fail_off[input] = etl_merge_erroff(in->m);
			if (st == ETL_WARN)
				w->warned[input]++;
			TU_CHECK(etl_merge_errmsg(in->m)[0] != 0, "a problem without a message");
			continue;
		}
		TU_REQUIRE(st == ETL_OK && ev != NULL);
		if (w->first_input < 0) {
			w->first_input = input;
			w->first_off = ev->file_offset;
			w->first_hook = ev->hook_id;
		}
		if (own && own[input]) {
			uint64_t k = w->count[input];
			TU_CHECK(k < own_n[input] && own[input][k] == ev->file_offset,
			         "input %d: event %" PRIu64 " at 0x%" PRIx64 ", its reader gives 0x%" PRIx64,
			         input, k, ev->file_offset, k < own_n[input] ? own[input][k] : 0);
		}
		if (ev->present & ETL_EVF_UTC)
			last_key[input] = ev->utc;
		int64_t key = last_key[input];
		if (key < prev_key)
			w->key_down = 1;
		if (key == prev_key && input < prev_input)
			w->tie_out_of_order = 1;
		prev_key = key;
		prev_input = input;
		w->count[input]++;
		w->total++;
	}
	ck_assert_int_eq(input, -1);
	ck_assert_ptr_null(ev);
	/* Once finished, a merge stays finished. */
	ck_assert_int_eq(etl_merge_next(in->m, &ev, &input), ETL_END);
}

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_api)
{
	etl_merge *m = etl_merge_new(0);
	const struct etl_event *ev = (const struct etl_event *)1;
	int input = 7;
	uint64_t done = 1, total = 1;
	int64_t raw;
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(etl_merge_add(m, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_merge_count(m), 0);
	ck_assert_ptr_null(etl_merge_reader(m, 0));
	ck_assert_int_eq(etl_merge_clock_input(m), -1);
	ck_assert_int_eq(etl_merge_same_clock(m, 0), 0);
	ck_assert_int_eq(etl_merge_next(m, &ev, &input), ETL_END);
	ck_assert_ptr_null(ev);
	ck_assert_int_eq(input, -1);
	ck_assert_int_eq(etl_merge_errcode(m), ETL_E_NONE);
	ck_assert_str_eq(etl_merge_errmsg(m), "");
	etl_merge_progress(m, &done, &total);
	ck_assert_uint_eq(done, 0);
	ck_assert_uint_eq(total, 0);
	/* Reading began: no more inputs. */
	etl_reader *r = etl_reader_new();
	static const uint8_t nothing[1];
	ck_assert_int_eq(etl_merge_add(m, r), ETL_FAILED);
	ck_assert_int_eq(etl_merge_timestamp(m, 0, NULL, &raw), ETL_FAILED);
	etl_merge_free(m);
	/* An input with nothing in it ends at once. */
	m = etl_merge_new(ETL_MERGE_HEADER_FIRST);
	etl_reader_open_memory(r, nothing, 0);
	ck_assert_int_eq(etl_merge_add(m, r), 0);
	ck_assert_ptr_eq(etl_merge_reader(m, 0), r);
	while (etl_merge_next(m, &ev, &input) != ETL_END)
		ck_assert_ptr_null(ev);
	etl_merge_free(m);
	etl_reader_free(r);
	etl_merge_free(NULL);
}
END_TEST

static const char *const sets[][3] = {
	{ "amsi-tracelogging.etl", "hw3d-single-tracelogging.etl", "powershell-manifest.etl" },
	{ "win7-classic-image-32.etl", "win7-classic-process-32.etl", NULL },
	{ "waasmedic-tracelogging.etl", "windowsupdate-tracelogging.etl", "wsl-lxcore-tracelogging.etl" },
	{ "win7-httpservice-manifest.etl", "win7-kernel-process-manifest.etl", "wdi-shutdown-perfdiag-kernel.etl" },
};

START_TEST(test_corpus_order)
{
	const char *const *files = sets[_i];
	int n = files[2] ? 3 : 2;
	struct inputs in;
	struct walk w;
	uint64_t *own[4] = { 0 };
	size_t own_n[4] = { 0 };
	long long sum = 0;
	for (int i = 0; i < n; i++)
		own[i] = own_order(files[i], &own_n[i]);
	open_inputs(&in, 0, 0, files, n);
	walk(&in, &w, own, own_n);
	ck_assert_msg(!w.key_down, "set %d: UTC keys went down", _i);
	for (int i = 0; i < n; i++) {
		long long exp = expected_events(files[i]);
		ck_assert_msg(w.count[i] == (uint64_t)exp, "%s: %" PRIu64 " events merged, expected %lld",
		              files[i], w.count[i], exp);
		ck_assert_uint_eq(w.failed[i], 0);
		sum += exp;
		free(own[i]);
	}
	ck_assert_uint_eq(w.total, (uint64_t)sum);
	uint64_t done, total;
	etl_merge_progress(in.m, &done, &total);
	ck_assert_uint_gt(total, 0);
	ck_assert_uint_eq(done, total);
	close_inputs(&in);
}
END_TEST

START_TEST(test_corpus_ties)
{
	/* The same file twice: every key comes twice, input 0's first. */
	static const char *const files[] = { "powershell-manifest.etl", "powershell-manifest.etl" };
	struct inputs in;
	struct walk w;
	open_inputs(&in, 0, 0, files, 2);
	walk(&in, &w, NULL, NULL);
	ck_assert(!w.key_down);
	ck_assert_msg(!w.tie_out_of_order, "equal keys were not returned in input order");
	ck_assert_uint_eq(w.count[0], (uint64_t)expected_events(files[0]));
	ck_assert_uint_eq(w.count[1], w.count[0]);
	ck_assert_int_eq(w.first_input, 0);
	close_inputs(&in);
}
END_TEST

START_TEST(test_corpus_damage)
{
	/* The first input cut inside its data: its losses are reported with
	 * its number, the buffer the cut falls in among them (the rest of the
	 * trace is reported missing where the next buffer would be); the
	 * second input is read whole. */
	static const char *const files[] = { "wdi-shutdown-perfdiag-kernel.etl",
	                                     "win7-kernel-process-manifest.etl" };
	const size_t cut = 200000;
	struct inputs in;
	struct walk w;
	open_inputs(&in, 0, cut, files, 2);
	walk(&in, &w, NULL, NULL);
	ck_assert_uint_gt(w.failed[0], 0);
	ck_assert_uint_le(w.min_fail_off[0], cut);
	ck_assert_uint_eq(w.failed[1], 0);
	ck_assert_uint_gt(w.count[0], 0);
	ck_assert_uint_lt(w.count[0], (uint64_t)expected_events(files[0]));
	ck_assert_uint_eq(w.count[1], (uint64_t)expected_events(files[1]));
	ck_assert(!w.key_down);
	close_inputs(&in);
}
END_TEST

static int keep_system(void *ctx, int input, const struct etl_event *ev)
{
	(void)ctx;
	return input == 1 || ev->kind == ETL_HDR_SYSTEM64;
}

START_TEST(test_corpus_filter_header_first)
{
	/* win7-kernel-process-manifest.etl starts before amsi-tracelogging.etl:
	 * merged by time its events come first, unless the first input's
	 * logfile-header record is asked to lead. */
	static const char *const files[] = { "amsi-tracelogging.etl", "win7-kernel-process-manifest.etl" };
	struct inputs in;
	struct walk w;
	for (int lead = 0; lead < 2; lead++) {
		open_inputs(&in, lead ? ETL_MERGE_HEADER_FIRST : 0, 0, files, 2);
		etl_merge_set_filter(in.m, keep_system, NULL);
		walk(&in, &w, NULL, NULL);
		/* amsi: 2 SYSTEM64 records (the logfile header among them). */
		ck_assert_uint_eq(w.count[0], 2);
		ck_assert_uint_eq(w.count[1], (uint64_t)expected_events(files[1]));
		ck_assert_int_eq(w.first_input, lead ? 0 : 1);
		if (lead) {
			ck_assert_uint_eq(w.first_off, etl_reader_logfile(in.r[0])->file_offset);
			ck_assert_uint_eq(w.first_hook, 0);
		}
		close_inputs(&in);
	}
}
END_TEST

/* Every timed event of every input, in the merged clock and back to UTC:
 * exact for a 10 MHz clock, within half a tick of a slower one. */
static void check_clock(const char *const *files, int expect_clock_input, int64_t tolerance)
{
	struct inputs in;
	const struct etl_event *ev;
	int input, st;
	uint64_t converted = 0;
	open_inputs(&in, 0, 0, files, 2);
	int ci = etl_merge_clock_input(in.m);
	ck_assert_int_eq(ci, expect_clock_input);
	ck_assert_int_eq(etl_merge_same_clock(in.m, ci), 1);
	ck_assert_int_eq(etl_merge_same_clock(in.m, 1 - ci), 0);
	while ((st = etl_merge_next(in.m, &ev, &input)) != ETL_END) {
		if (st != ETL_OK)
			continue;
		int64_t raw, ft;
		int rc = etl_merge_timestamp(in.m, input, ev, &raw);
		if (input == ci) {
			TU_REQUIRE(rc == ETL_OK && raw == ev->timestamp);
			continue;
		}
		if (!(ev->present & ETL_EVF_UTC)) {
			TU_REQUIRE(rc == ETL_FAILED);
			continue;
		}
		TU_REQUIRE(rc == ETL_OK);
		TU_REQUIRE(etl_reader_time_to_utc(in.r[ci], raw, &ft) == ETL_OK);
		TU_CHECK(ft - ev->utc <= tolerance && ev->utc - ft <= tolerance,
		         "%s: %" PRId64 " back as %" PRId64, files[input], ev->utc, ft);
		converted++;
	}
	ck_assert_uint_gt(converted, 0);
	close_inputs(&in);
}

START_TEST(test_corpus_clock)
{
	static const char *const fast[] = { "hw3d-single-tracelogging.etl", "amsi-tracelogging.etl" };
	static const char *const slow[] = { "win7-httpservice-manifest.etl",
	                                    "win7-kernel-process-manifest.etl" };
	check_clock(fast, 1, 0);
	/* 2109960 Hz: a tick is 4.7 units of 100 ns. */
	check_clock(slow, 1, 3);
}
END_TEST

static Suite *merge_suite(int with_corpus)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("api");
	tcase_add_test(tc, test_api);
	suite_add_tcase(s, tc);
	if (with_corpus) {
		tc = tcase_create("corpus");
		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, test_corpus_order, 0, (int)(sizeof sets / sizeof sets[0]));
		tcase_add_test(tc, test_corpus_ties);
		tcase_add_test(tc, test_corpus_damage);
		tcase_add_test(tc, test_corpus_filter_header_first);
		tcase_add_test(tc, test_corpus_clock);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	load_expected();
	if (!g_exp)
		printf("check_merge: SKIPPED the corpus tests: no readable expected.json in %s "
		       "(set ETL_CORPUS)\n", tu_corpus_dir());
	SRunner *sr = srunner_create(merge_suite(g_exp != NULL));
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	jm_free(g_exp);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
