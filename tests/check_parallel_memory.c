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
 * Threads that start late: below 4 MiB of input, etlconvert starts the
 * threads beyond the first only when the input left is worth their
 * loading the manifests again. A 71-event trace of the corpus with the
 * CLR manifest takes no more memory with -j 8 than with -j 1, and takes
 * seven decoders' more when the environment makes the threads start a few
 * events in (which shows that the first figure is not a worker run
 * that takes no memory); a capture of sixteen times the PerfView trace,
 * with the size limit raised above it, starts the other threads of -j 8
 * by the estimate of the input left and takes what they take when they
 * start at once.
 *
 * Inputs: $ETL_CORPUS (default ../shared/corpus) and the manifests beside
 * it; the tests are skipped without them.
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

/* The small trace: clr-gc-circular.etl, 71 events. -j 8 beyond -j 1:
 * measured 0.3 MiB when the threads do not start, 31 MiB when they start
 * at event 7 (seven decoders with the CLR manifest; every thread starting
 * at once took as much). */
#define SMALL "clr-gc-circular.etl"
#define SMALL_EXTRA_MAX_KIB (4L * 1024)
#define SMALL_LATE_MIN_KIB (16L * 1024)

/* The capture the estimate starts the other threads for: sixteen copies
 * of the PerfView trace (2.9 M events, about a second of work for one
 * thread against some 20 ms of loading: far above the estimate's twice
 * the loading time, however the machine's load moves either). Converted
 * with -j 8 three ways: the other threads started at once, left to the
 * estimate, and never started (ETLCONVERT_LAZY_EVENTS beyond the last
 * event). The seven other threads' decoders and batches are the
 * difference between the first and the last (measured 27 MiB without
 * sanitizers, 60 MiB under ASan+UBSan); threads the estimate started take
 * at least half of it. The gap itself must be LATE_GAP_MIN_KIB at least,
 * or the test could not tell. Measured against threads never started,
 * not as a fixed amount, because that amount is what the schemas of a
 * manifest weigh, and it fell when they were packed into chunks. */
#define LATE_COPIES 16
#define LATE_JOBS "8"
#define LATE_NEVER_EVENTS "4000000000"
#define LATE_GAP_MIN_KIB (16L * 1024)

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

/* Sets the environment variable name to value, or unsets it (NULL). */
static void set_env(const char *name, const char *value)
{
	ck_assert_int_eq(value ? setenv(name, value, 1) : unsetenv(name), 0);
}

/* Makes the tools run as a user runs them (default batches, threads
 * started as the tool sees fit) and, under AddressSanitizer, hold no freed
 * memory in quarantine (its option added to what is set). */
static void tool_env(void)
{
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[1024];
	int n_opts = snprintf(opts, sizeof opts, "%s%squarantine_size_mb=0", asan ? asan : "",
	                      asan && *asan ? ":" : "");
	ck_assert_msg(n_opts > 0 && (size_t)n_opts < sizeof opts, "ASAN_OPTIONS too long");
	set_env("ASAN_OPTIONS", opts);
	set_env("ETLCONVERT_BATCH_EVENTS", NULL);
	set_env("ETLCONVERT_LOG_BYTES", NULL);
	set_env("ETLCONVERT_LAZY_BYTES", NULL);
	set_env("ETLCONVERT_LAZY_EVENTS", NULL);
}

/* What every test starts with: the corpus and the CLR manifest beside it
 * there, the environment of tool_env(), not ThreadSanitizer. @return :
 * the manifest's path, or NULL when the test is skipped (said, named by
 * test). */
static char *begin(const char *test)
{
#ifdef UNDER_TSAN
	tu_skip(test, "the memory limits are not for ThreadSanitizer builds");
	return NULL;
#endif
	if (!tu_corpus_present()) {
		tu_skip(test, "no corpus at %s", tu_corpus_dir());
		return NULL;
	}
	char *manifest = tu_corpus_path("../manifests/dotnet-runtime.ClrEtwAll.man");
	FILE *probe = fopen(manifest, "rb");
	if (!probe) {
		tu_skip(test, "no manifest %s", manifest);
		free(manifest);
		return NULL;
	}
	fclose(probe);
	tool_env();
	return manifest;
}

/* Makes out of copies times in (etlconvert -f etl --allow-same-input). */
static void make_copies(const char *in, int copies, const char *out)
{
	char *tool = tu_tool_path("etlconvert"), *err = tmp_path("err.txt");
	char **argv = calloc((size_t)copies + 8, sizeof *argv);
	ck_assert_ptr_nonnull(argv);
	int k = 0;
	argv[k++] = tool;
	argv[k++] = "-q";
	argv[k++] = "-f";
	argv[k++] = "etl";
	argv[k++] = "--allow-same-input";
	for (int i = 0; i < copies; i++)
		argv[k++] = (char *)in;
	argv[k++] = "-o";
	argv[k++] = (char *)out;
	argv[k] = NULL;
	int rc = tu_run_tool(argv, NULL, err);
	if (rc != 0) {
		size_t n;
		char *msg = (char *)tu_load_file(err, &n);
		ck_abort_msg("etlconvert -f etl of %d copies exited %d: %s", copies, rc, msg);
	}
	free(argv);
	free(err);
	free(tool);
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
	char *manifest = begin(__func__);
	if (!manifest)
		return;
	char *small = tu_corpus_path(PERFVIEW), *big = tmp_path("big.etl");
	make_copies(small, COPIES, big);

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

	free(big);
	free(manifest);
	free(small);
}
END_TEST

START_TEST(test_small_input_starts_no_threads)
{
	char *manifest = begin(__func__);
	if (!manifest)
		return;
	char *in = tu_corpus_path(SMALL);
	long one = convert_rss(in, "1", manifest), eight = convert_rss(in, "8", manifest);
	set_env("ETLCONVERT_BATCH_EVENTS", "2");
	set_env("ETLCONVERT_LAZY_EVENTS", "7");
	long late = convert_rss(in, "8", manifest);
	fprintf(stderr, "check_parallel_memory: peak KiB of %s: -j 1 %ld, -j 8 %ld, -j 8 starting at event 7 %ld\n",
	        SMALL, one, eight, late);
	ck_assert_msg(eight - one <= SMALL_EXTRA_MAX_KIB,
	              "-j 8 takes %ld KiB beyond -j 1 for a 71-event trace (at most %ld): its threads loaded",
	              eight - one, SMALL_EXTRA_MAX_KIB);
	ck_assert_msg(late - one >= SMALL_LATE_MIN_KIB,
	              "-j 8 with its threads started at event 7 takes %ld KiB beyond -j 1 (at least %ld):"
	              " did they start?", late - one, SMALL_LATE_MIN_KIB);
	free(in);
	free(manifest);
}
END_TEST

START_TEST(test_estimate_starts_thread)
{
	char *manifest = begin(__func__);
	if (!manifest)
		return;
	char *small = tu_corpus_path(PERFVIEW), *big = tmp_path("late.etl");
	make_copies(small, LATE_COPIES, big);
	long at_once = convert_rss(big, LATE_JOBS, manifest);
	set_env("ETLCONVERT_LAZY_BYTES", "1073741824");
	long late = convert_rss(big, LATE_JOBS, manifest);
	set_env("ETLCONVERT_LAZY_EVENTS", LATE_NEVER_EVENTS);
	long never = convert_rss(big, LATE_JOBS, manifest);
	fprintf(stderr, "check_parallel_memory: peak KiB of %d copies -j %s: at once %ld, by the estimate %ld,"
	        " never started %ld\n", LATE_COPIES, LATE_JOBS, at_once, late, never);
	ck_assert_msg(at_once - never >= LATE_GAP_MIN_KIB,
	              "-j %s with its other threads never started takes %ld KiB, %ld KiB started at once:"
	              " less than %ld KiB apart, the test cannot tell", LATE_JOBS, never, at_once, LATE_GAP_MIN_KIB);
	ck_assert_msg(late - never >= (at_once - never) / 2,
	              "-j %s left to start its other threads takes %ld KiB, %ld KiB started at once, %ld KiB"
	              " never started: did they start?", LATE_JOBS, late, at_once, never);
	free(big);
	free(small);
	free(manifest);
}
END_TEST

static Suite *memory_suite(void)
{
	Suite *s = suite_create("parallel_memory");
	TCase *tc = tcase_create("bounded");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_j2_memory_bounded);
	tcase_add_test(tc, test_small_input_starts_no_threads);
	tcase_add_test(tc, test_estimate_starts_thread);
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
