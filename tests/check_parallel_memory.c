/*
 * check_parallel_memory.c - etlconvert -j 2 holds a bounded number of
 * batches, not the input: the memory it takes beyond -j 1 (batches in
 * flight, a second decoder with its manifest, the threads) is the same
 * for a capture four times larger.
 *
 * The PerfView capture of the corpus (179,474 events, 23 MB of buffers
 * inflated, 131 MiB of JSON lines) and a capture made of it four times
 * over (etlconvert -f etl --allow-same-input, its copies merged in time
 * order) are converted to JSON lines with the CLR manifest, -j 1 and -j 2,
 * and the tool's peak resident set is read (wait4's ru_maxrss). Both runs
 * of an input map the same file, so the difference between them is what
 * the threads add. Were -j 2 to keep a share of the events or of their
 * output, that share would grow by three times the small capture's with
 * the large one: tens of MiB.
 *
 * Under AddressSanitizer freed memory waits in a quarantine that grows
 * with the allocations made; the tool is run with quarantine_size_mb=0 so
 * that the peak follows what is held, as without it. The limits are for
 * builds without a sanitizer and with AddressSanitizer; under
 * ThreadSanitizer (whose shadow memory follows every access) the test is
 * skipped. The tool runs with the default batches: the variables that
 * change them for other tests (ETLCONVERT_BATCH_EVENTS,
 * ETLCONVERT_LOG_BYTES) are unset.
 *
 * Inputs: $ETL_CORPUS (default ../shared/corpus) and the manifests beside
 * it; the test is skipped without them.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PERFVIEW "perfview-kernel-clr-x64-compressed.etl"
#define PERFVIEW_EVENTS 179474u
#define COPIES 4

/* Growth of -j 2's extra memory allowed from the small input to the large
 * one (allocator rounding, the larger file's index), and the most -j 2
 * may take beyond -j 1 at all: 5 batches of 1,024 events each with its
 * records and output, a decoder with the CLR manifest, a thread stack.
 * Measured: 13 MiB beyond -j 1 for both inputs, 20 and 22 MiB under
 * AddressSanitizer; a pool of 4,101 batches instead of 5 took 92 MiB. The
 * least: a -j 2 that ran on one thread (as it does when it cannot share
 * a manifest among threads) would take nothing beyond -j 1, and the test
 * would then show nothing. */
#define GROWTH_MAX_KIB (8L * 1024)
#define EXTRA_MAX_KIB (48L * 1024)
#define EXTRA_MIN_KIB (2L * 1024)

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

static char g_tmp[] = "/tmp/check_parallel_memory.XXXXXX";

/* The temporary directory, made and removed in the runner's process (an
 * unchecked fixture), so that it goes also when the test fails. */
static void tmp_setup(void)
{
	if (!mkdtemp(g_tmp)) {
		fprintf(stderr, "check_parallel_memory: cannot make %s\n", g_tmp);
		exit(EXIT_FAILURE);
	}
}

static void tmp_teardown(void)
{
	tu_remove_tree(g_tmp);
}

static char *tmp_path(const char *name)
{
	return tu_join_path(g_tmp, name);
}

/* The events etldump counts in path. */
static uint64_t count_events(const char *path)
{
	char *dump = tu_tool_path("etldump"), *out = tmp_path("count.txt");
	char *argv[] = { dump, "-q", "-c", (char *)path, NULL };
	int rc = tu_run_tool(argv, out, NULL);
	ck_assert_msg(rc == 0, "etldump -c %s exited %d", path, rc);
	size_t len;
	char *text = (char *)tu_load_file(out, &len);
	uint64_t n = strtoull(text, NULL, 10);
	free(text);
	free(out);
	free(dump);
	return n;
}

/* Peak resident set (KiB) of etlconvert -j jobs converting in to JSON
 * lines with the manifest. */
static long convert_rss(const char *in, const char *jobs, const char *manifest)
{
	char *tool = tu_tool_path("etlconvert"), *err = tmp_path("err.txt");
	char *argv[] = { tool, "-q", "-j", (char *)jobs, "-f", "jsonl", "--manifest", (char *)manifest,
		         (char *)in, NULL };
	long rss = 0;
	int rc = tu_run_tool_rss(argv, NULL, err, &rss);
	if (rc != 0) {
		size_t n;
		char *msg = (char *)tu_load_file(err, &n);
		ck_abort_msg("etlconvert -j %s -f jsonl %s exited %d: %s", jobs, in, rc, msg);
	}
	ck_assert_int_gt(rss, 0);
	free(err);
	free(tool);
	return rss;
}

START_TEST(test_j2_memory_bounded)
{
#ifdef UNDER_TSAN
	tu_skip(__func__, "the memory limits are not for ThreadSanitizer builds");
	return;
#endif
	TU_NEED_CORPUS();
	char *small = tu_corpus_path(PERFVIEW);
	char *manifest = tu_corpus_path("../manifests/dotnet-runtime.ClrEtwAll.man");
	FILE *probe = fopen(manifest, "rb");
	if (!probe) {
		tu_skip(__func__, "no manifest %s", manifest);
		free(manifest);
		free(small);
		return;
	}
	fclose(probe);

	/* The ASan option must reach the tools: add it to what is set. */
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[1024];
	int n_opts = snprintf(opts, sizeof opts, "%s%squarantine_size_mb=0", asan ? asan : "",
	                      asan && *asan ? ":" : "");
	ck_assert_msg(n_opts > 0 && (size_t)n_opts < sizeof opts, "ASAN_OPTIONS too long");
	ck_assert_int_eq(setenv("ASAN_OPTIONS", opts, 1), 0);
	ck_assert_int_eq(unsetenv("ETLCONVERT_BATCH_EVENTS"), 0);
	ck_assert_int_eq(unsetenv("ETLCONVERT_LOG_BYTES"), 0);

	char *big = tmp_path("big.etl"), *tool = tu_tool_path("etlconvert"), *err = tmp_path("err.txt");
	char *argv[5 + COPIES + 3] = { tool, "-q", "-f", "etl", "--allow-same-input" };
	int k = 5;
	for (int i = 0; i < COPIES; i++)
		argv[k++] = small;
	argv[k++] = "-o";
	argv[k++] = big;
	argv[k] = NULL;
	int rc = tu_run_tool(argv, NULL, err);
	if (rc != 0) {
		size_t n;
		char *msg = (char *)tu_load_file(err, &n);
		ck_abort_msg("etlconvert -f etl of %d copies exited %d: %s", COPIES, rc, msg);
	}

	uint64_t n_small = count_events(small), n_big = count_events(big);
	ck_assert_uint_eq(n_small, PERFVIEW_EVENTS);
	/* The copies' logfile-header records become the new file's one. */
	ck_assert_uint_ge(n_big, (uint64_t)COPIES * PERFVIEW_EVENTS - COPIES);

	long s1 = convert_rss(small, "1", manifest), s2 = convert_rss(small, "2", manifest);
	long b1 = convert_rss(big, "1", manifest), b2 = convert_rss(big, "2", manifest);
	long extra_small = s2 - s1, extra_big = b2 - b1;
	fprintf(stderr, "check_parallel_memory: peak KiB: 1 copy -j 1 %ld, -j 2 %ld; %d copies -j 1 %ld, -j 2 %ld\n",
	        s1, s2, COPIES, b1, b2);
	ck_assert_msg(extra_big - extra_small <= GROWTH_MAX_KIB,
	              "-j 2 takes %ld KiB beyond -j 1 for %d copies, %ld KiB for one: it grows with the input",
	              extra_big, COPIES, extra_small);
	ck_assert_msg(extra_big <= EXTRA_MAX_KIB, "-j 2 takes %ld KiB beyond -j 1 (at most %ld)", extra_big,
	              EXTRA_MAX_KIB);
	ck_assert_msg(extra_small >= EXTRA_MIN_KIB,
	              "-j 2 takes %ld KiB beyond -j 1 (at least %ld): did it run on one thread?", extra_small,
	              EXTRA_MIN_KIB);

	free(err);
	free(tool);
	free(big);
	free(manifest);
	free(small);
}
END_TEST

static Suite *memory_suite(void)
{
	Suite *s = suite_create("parallel_memory");
	TCase *tc = tcase_create("bounded");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_j2_memory_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(memory_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
