/*
 * check_outfile.c - include/etl_io.h: etl_outfile (an output written
 * safely: a temporary beside the target, renamed over it at commit,
 * removed on abandon; .gz and .lz4 names compressed) and etl_spool_fd (a
 * stream made readable at any offset). No corpus needed.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "etl.h"
#include "testutil.h"

static char g_dir[256];

static void make_dir(void)
{
	snprintf(g_dir, sizeof g_dir, "%s/check_outfile-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

/* Removes the test directory; @return : how many files were in it. */
static int remove_dir(void)
{
	DIR *d = opendir(g_dir);
	struct dirent *de;
	int n = 0;
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		char p[600];
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", g_dir, de->d_name);
		unlink(p);
		n++;
	}
	closedir(d);
	rmdir(g_dir);
	return n;
}

static char *in_dir(const char *name)
{
	static char p[600];
	snprintf(p, sizeof p, "%s/%s", g_dir, name);
	return p;
}

/* Some bytes that compress but not to nothing. */
static uint8_t *sample(size_t n)
{
	uint8_t *p = malloc(n);
	uint32_t x = 12345;
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = i % 7 == 0 ? (uint8_t)(x >> 24) : (uint8_t)"<Event>text</Event>\n"[i % 20];
	}
	return p;
}

/* Writes data (n bytes) in uneven pieces. */
static void write_pieces(etl_outfile *f, const uint8_t *data, size_t n)
{
	size_t at = 0, k = 1;
	while (at < n) {
		size_t take = n - at < k ? n - at : k;
		ck_assert_int_eq(etl_outfile_write(f, data + at, take), ETL_OK);
		at += take;
		k = k * 3 % 300007 + 1;
	}
}

static uint8_t *gunzip(const uint8_t *z, size_t zn, size_t *n)
{
	z_stream zs;
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	memset(&zs, 0, sizeof zs);
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)z;
	zs.avail_in = (uInt)zn;
	int zr;
	do {
		if (zs.total_out == cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		zr = inflate(&zs, Z_NO_FLUSH);
		ck_assert(zr == Z_OK || zr == Z_STREAM_END || zr == Z_BUF_ERROR);
	} while (zr != Z_STREAM_END);
	*n = zs.total_out;
	inflateEnd(&zs);
	return out;
}

static uint8_t *unlz4(const uint8_t *z, size_t zn, size_t *n)
{
	LZ4F_dctx *d;
	size_t cap = 1 << 20, len = 0;
	uint8_t *out = malloc(cap);
	ck_assert(!LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)));
	size_t hint = 1;
	while (zn && hint) {
		if (cap - len < 65536) {
			cap *= 2;
			out = realloc(out, cap);
		}
		size_t dn = cap - len, sn = zn;
		hint = LZ4F_decompress(d, out + len, &dn, z, &sn, NULL);
		ck_assert(!LZ4F_isError(hint));
		len += dn;
		z += sn;
		zn -= sn;
	}
	ck_assert_uint_eq(hint, 0);         /* the frame is complete */
	LZ4F_freeDecompressionContext(d);
	*n = len;
	return out;
}

START_TEST(test_commit_plain_and_compressed)
{
	static const char *const names[] = { "out.xml", "out.xml.gz", "out.jsonl.lz4" };
	const size_t n = 700000;
	uint8_t *data = sample(n);
	make_dir();
	for (int i = 0; i < 3; i++) {
		etl_outfile *f = etl_outfile_new();
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(etl_outfile_open(f, in_dir(names[i])), ETL_OK);
		ck_assert_int_eq(etl_outfile_open(f, in_dir(names[i])), ETL_FAILED);  /* once */
		write_pieces(f, data, n);
		/* Nothing at the target before commit. */
		ck_assert_int_ne(access(in_dir(names[i]), F_OK), 0);
		ck_assert_int_eq(etl_outfile_commit(f), ETL_OK);
		ck_assert_str_eq(etl_outfile_errmsg(f), "");
		ck_assert_int_eq(etl_outfile_write(f, "x", 1), ETL_FATAL);        /* spent */
		etl_outfile_free(f);
		size_t len, plain_len;
		uint8_t *file = tu_load_file(in_dir(names[i]), &len);
		uint8_t *plain = i == 0 ? file : i == 1 ? gunzip(file, len, &plain_len)
		                                        : unlz4(file, len, &plain_len);
		if (i == 0)
			plain_len = len;
		else
			ck_assert_uint_lt(len, n);
		ck_assert_uint_eq(plain_len, n);
		ck_assert(memcmp(plain, data, n) == 0);
		if (plain != file)
			free(plain);
		free(file);
	}
	/* The three targets and nothing else: no temporary is left. */
	ck_assert_int_eq(remove_dir(), 3);
	free(data);
}
END_TEST

START_TEST(test_abandon_keeps_target)
{
	make_dir();
	tu_write_file(in_dir("t.txt"), "keep", 4);
	for (int how = 0; how < 2; how++) {
		etl_outfile *f = etl_outfile_new();
		ck_assert_int_eq(etl_outfile_open(f, in_dir("t.txt")), ETL_OK);
		ck_assert_int_eq(etl_outfile_write(f, "replaced", 8), ETL_OK);
		if (how == 0)
			etl_outfile_abandon(f);          /* then freed */
		etl_outfile_free(f);                 /* how 1: free alone abandons */
		size_t len;
		uint8_t *p = tu_load_file(in_dir("t.txt"), &len);
		ck_assert_uint_eq(len, 4);
		ck_assert(memcmp(p, "keep", 4) == 0);
		free(p);
	}
	ck_assert_int_eq(remove_dir(), 1);
	etl_outfile_free(NULL);
}
END_TEST

START_TEST(test_errors)
{
	etl_outfile *f = etl_outfile_new();
	ck_assert_int_eq(etl_outfile_open(f, "/nonexistent-dir/x.txt"), ETL_FATAL);
	ck_assert_msg(strncmp(etl_outfile_errmsg(f), "cannot create a temporary file beside it: ", 42) == 0,
	              "%s", etl_outfile_errmsg(f));
	ck_assert_int_eq(etl_outfile_write(f, "x", 1), ETL_FATAL);
	ck_assert_int_eq(etl_outfile_commit(f), ETL_FATAL);
	etl_outfile_free(f);

	/* Not open. */
	f = etl_outfile_new();
	ck_assert_int_eq(etl_outfile_write(f, "x", 1), ETL_FATAL);
	etl_outfile_free(f);

	/* A full device: the first failure is kept, later writes fail too. */
	int fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		uint8_t *big = sample(1 << 20);
		f = etl_outfile_new();
		ck_assert_int_eq(etl_outfile_open_fd(f, fd), ETL_OK);
		ck_assert_int_eq(etl_outfile_write(f, big, 1 << 20), ETL_FATAL);
		ck_assert_str_eq(etl_outfile_errmsg(f), "cannot write: No space left on device");
		ck_assert_int_eq(etl_outfile_write(f, "x", 1), ETL_FATAL);
		ck_assert_int_eq(etl_outfile_commit(f), ETL_FATAL);
		etl_outfile_free(f);
		free(big);
		close(fd);
	}
}
END_TEST

START_TEST(test_fd_and_suffix)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	etl_outfile *f = etl_outfile_new();
	ck_assert_int_eq(etl_outfile_open_fd(f, p[1]), ETL_OK);
	ck_assert_int_eq(etl_outfile_write(f, "hello ", 6), ETL_OK);
	ck_assert_int_eq(etl_outfile_write(f, "world", 5), ETL_OK);
	ck_assert_int_eq(etl_outfile_commit(f), ETL_OK);
	etl_outfile_free(f);
	/* The fd stays open, the bytes are in the pipe. */
	ck_assert_int_eq(write(p[1], "!", 1), 1);
	close(p[1]);
	char buf[32];
	ssize_t got = read(p[0], buf, sizeof buf);
	close(p[0]);
	ck_assert_int_eq(got, 12);
	ck_assert(memcmp(buf, "hello world!", 12) == 0);

	ck_assert_uint_eq(etl_outfile_codec_suffix("a.etl.gz"), 3);
	ck_assert_uint_eq(etl_outfile_codec_suffix("a.lz4"), 4);
	ck_assert_uint_eq(etl_outfile_codec_suffix("a.etl"), 0);
	ck_assert_uint_eq(etl_outfile_codec_suffix("gz"), 0);
	ck_assert_uint_eq(etl_outfile_codec_suffix(NULL), 0);
}
END_TEST

START_TEST(test_spool)
{
	/* A pipe is copied whole into a temporary readable at any offset. */
	const size_t n = 300000;
	uint8_t *data = sample(n);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write(p[1], data, n) == (ssize_t)n ? 0 : 1);
	}
	close(p[1]);
	int fd = etl_spool_fd(p[0]);
	close(p[0]);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(fd, p[0]);
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_size, (off_t)n);
	uint8_t *back = malloc(n);
	ck_assert_int_eq(pread(fd, back, n, 0), (ssize_t)n);
	ck_assert(memcmp(back, data, n) == 0);
	/* Positioned at its start. */
	ck_assert_int_eq(read(fd, back, 10), 10);
	ck_assert(memcmp(back, data, 10) == 0);
	/* A regular file is its own answer. */
	ck_assert_int_eq(etl_spool_fd(fd), fd);
	close(fd);
	free(back);
	free(data);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");
	tcase_add_test(tc, test_commit_plain_and_compressed);
	tcase_add_test(tc, test_abandon_keeps_target);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_fd_and_suffix);
	tcase_add_test(tc, test_spool);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
