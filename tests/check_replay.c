/*
 * check_replay.c - etlreplay's exact re-emission, on every corpus file
 * ($ETL_CORPUS, read only): `etlreplay IN -o OUT.etl`, and the same with
 * --compress, then
 *
 *   events     IN and OUT read in time order give the same events, one
 *              for one, field by field (tu_ev_diff(), every field the
 *              reader fills: header type, every header field, processor,
 *              process, thread, timestamp and its UTC time, activity ids,
 *              extended items and payload bytes), the header buffers'
 *              records left out of both (the session writes its own);
 *   census     `etldump --summary --json` counts the same records per
 *              header type in IN and OUT once each file's header-buffer
 *              records are taken out;
 *   header     OUT's logfile header keeps IN's clock type, frequency, time
 *              anchor (StartTime at the header record's timestamp),
 *              pointer size, processor count, version, build, timer
 *              resolution, CPU speed, boot time, timer sources and time
 *              zone; its mode is sequential (compressed with --compress).
 *
 * The tools are the build's own (the test program's ../bin). Without the
 * corpus the test is skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl.h"
#include "json_mini.h"
#include "testutil.h"

static char **g_files;
static size_t g_nfiles;

static char *g_tmp;

static void tmp_setup(void)
{
	g_tmp = strdup("/tmp/check_replay.XXXXXX");
	ck_assert_ptr_nonnull(g_tmp);
	ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}

static void tmp_teardown(void)
{
	tu_remove_tree(g_tmp);
	free(g_tmp);
}

static char *tmp_path(const char *name)
{
	return tu_join_path(g_tmp, name);
}

/* Records of the header buffer per header type, and the reader. */
static etl_reader *open_time_order(const char *path)
{
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	int st = etl_reader_open_file(r, path);
	ck_assert_msg(st == ETL_OK, "%s: open %d: %s", path, st, etl_reader_errmsg(r));
	return r;
}

/* The next event outside the header buffer (counted per kind in hdr), or
 * NULL at the end. */
static const struct etl_event *next_data(etl_reader *r, const char *path, uint64_t *hdr)
{
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		TU_CHECK(st == ETL_OK, "%s: reader %d: %s (offset 0x%" PRIx64 ")", path, st,
		         etl_reader_errmsg(r), etl_reader_erroff(r));
		if (ev->buffer_offset != 0)
			return ev;
		hdr[ev->kind]++;
	}
	return NULL;
}

/* IN and OUT event by event; header-buffer records counted per kind. */
static uint64_t compare_events(const char *in, const char *out, uint64_t *hdr_in, uint64_t *hdr_out)
{
	etl_reader *a = open_time_order(in), *b = open_time_order(out);
	const struct etl_event *x, *y;
	uint64_t n = 0;
	for (;;) {
		x = next_data(a, in, hdr_in);
		y = next_data(b, out, hdr_out);
		if (!x || !y)
			break;
		const char *d = tu_ev_diff(x, y, 1);
		TU_CHECK(d == NULL, "%s: event %" PRIu64 " (offset 0x%" PRIx64 ", %s) differs in %s in the replay "
		         "(offset 0x%" PRIx64 ")", in, n, x->file_offset, etl_hdr_kind_name(x->kind), d,
		         y->file_offset);
		n++;
	}
	ck_assert_msg(!x && !y, "%s: the replay has %s events (%" PRIu64 " equal)", in, x ? "fewer" : "more", n);
	const struct etl_logfile *l = etl_reader_logfile(a), *m = etl_reader_logfile(b);
#define L(f) ck_assert_msg(l->f == m->f, "%s: logfile %s: %" PRId64 " in, %" PRId64 " out", in, #f, \
	                   (int64_t)l->f, (int64_t)m->f)
	L(reserved_flags);
	L(perf_freq);
	L(start_time);
	L(header_timestamp);
	L(header_ptr_size);
	L(pointer_size);
	L(provider_version);
	L(timer_resolution);
	L(cpu_speed_mhz);
	L(boot_time);
	L(logger_name_field);
	L(log_file_name_field);
	for (int i = 0; i < 4; i++)
		L(version[i]);
	L(time_zone.bias);
	L(time_zone.standard_bias);
	L(time_zone.daylight_bias);
#undef L
	ck_assert_str_eq(l->time_zone.standard_name, m->time_zone.standard_name);
	ck_assert_str_eq(l->time_zone.daylight_name, m->time_zone.daylight_name);
	ck_assert(memcmp(&l->time_zone.standard_date, &m->time_zone.standard_date,
	                 sizeof l->time_zone.standard_date) == 0);
	ck_assert(memcmp(&l->time_zone.daylight_date, &m->time_zone.daylight_date,
	                 sizeof l->time_zone.daylight_date) == 0);
	/* A stream for every processor an event names: the header's count,
	 * or more when buffers name higher processors. */
	ck_assert_uint_ge(m->number_of_processors, l->number_of_processors);
	etl_reader_free(a);
	etl_reader_free(b);
	return n;
}

/* etldump --summary --json's header_types of path, less the header
 * buffer's records, into counts (by kind). */
static void census(const char *path, const uint64_t *hdr, uint64_t *counts)
{
	char *dump = tu_tool_path("etldump"), *json = tmp_path("summary.json");
	char *argv[] = { dump, "--summary", "--json", (char *)path, NULL };
	int rc = tu_run_tool(argv, json, NULL);
	ck_assert_msg(rc == 0, "etldump --summary --json %s exited %d", path, rc);
	size_t len;
	char *text = (char *)tu_load_file(json, &len);
	char err[200];
	struct jm_val *v = jm_parse(text, len, err, sizeof err);
	ck_assert_msg(v != NULL, "%s: summary JSON: %s", path, err);
	const struct jm_val *ht = jm_get(v, "header_types");
	ck_assert_msg(ht && ht->type == JM_OBJ, "%s: no header_types", path);
	memset(counts, 0, sizeof(uint64_t) * ETL_HDR_KIND_COUNT_);
	for (size_t i = 0; i < ht->len; i++) {
		int k = etl_hdr_kind_from_name(ht->keys[i]);
		ck_assert_msg(k > 0, "%s: header type %s", path, ht->keys[i]);
		counts[k] = (uint64_t)jm_int(ht, ht->keys[i], -1);
		ck_assert_msg(counts[k] >= hdr[k], "%s: %s: %" PRIu64 " records, %" PRIu64 " in the header buffer",
		              path, ht->keys[i], counts[k], hdr[k]);
		counts[k] -= hdr[k];
	}
	jm_free(v);
	free(text);
	free(json);
	free(dump);
}

static void replay_and_compare(const char *in, int compress)
{
	char *tool = tu_tool_path("etlreplay"), *out = tmp_path("out.etl"), *err = tmp_path("err.txt");
	char *argv[] = { tool, (char *)in, "-o", out, compress ? "--compress" : NULL, NULL };
	int rc = tu_run_tool(argv, NULL, err);
	if (rc != 0) {
		size_t n;
		char *msg = (char *)tu_load_file(err, &n);
		ck_abort_msg("etlreplay %s%s exited %d: %s", in, compress ? " --compress" : "", rc, msg);
	}
	uint64_t hdr_in[ETL_HDR_KIND_COUNT_] = { 0 }, hdr_out[ETL_HDR_KIND_COUNT_] = { 0 };
	uint64_t n = compare_events(in, out, hdr_in, hdr_out);
	ck_assert_uint_gt(n, 0);
	uint64_t c_in[ETL_HDR_KIND_COUNT_], c_out[ETL_HDR_KIND_COUNT_];
	census(in, hdr_in, c_in);
	census(out, hdr_out, c_out);
	for (int k = 0; k < ETL_HDR_KIND_COUNT_; k++)
		ck_assert_msg(c_in[k] == c_out[k], "%s: %s: %" PRIu64 " records in, %" PRIu64 " replayed", in,
		              etl_hdr_kind_name(k), c_in[k], c_out[k]);
	etl_reader *r = open_time_order(out);
	uint32_t mode = etl_reader_logfile(r)->log_file_mode;
	ck_assert_msg((mode & 0x0F) == ETL_MODE_SEQUENTIAL, "%s: mode 0x%x", in, mode);
	ck_assert_msg(((mode & ETL_MODE_COMPRESSED) != 0) == (compress != 0), "%s: mode 0x%x", in, mode);
	etl_reader_free(r);
	unlink(out);
	free(err);
	free(out);
	free(tool);
}

START_TEST(test_reemit_corpus)
{
	TU_NEED_CORPUS();
	char *in = tu_corpus_path(g_files[_i]);
	replay_and_compare(in, 0);
	replay_and_compare(in, 1);
	free(in);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("corpus");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_reemit_corpus, 0, g_nfiles ? (int)g_nfiles : 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	g_files = tu_corpus_list(&g_nfiles);
	if (g_nfiles == 0 && tu_corpus_present()) {
		fprintf(stderr, "check_replay: no .etl files in %s\n", tu_corpus_dir());
		return EXIT_FAILURE;
	}
	SRunner *sr = srunner_create(replay_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	tu_corpus_list_free(g_files);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
