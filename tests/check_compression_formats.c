/*
 * check_compression_formats.c - files whose header buffer names LZNT1 or
 * LZ77+Huffman are read too (doc/format.md §4.2: in compressed-mode files
 * State & 0xFFFF of the header buffer is the COMPRESSION_FORMAT: 2 LZNT1,
 * 3 XPRESS, 4 XPRESS_HUFF).
 *
 * Windows only writes XPRESS (Plain LZ77) buffers, so the test makes the
 * other two from a real compressed file: every compressed buffer is
 * inflated and stored again in the other format with the simplest valid
 * encoding (LZNT1 uncompressed chunks; LZ77+Huffman literals with 8-bit
 * codes), the header buffer's State is set, and the rewritten file must
 * give back every event of the original, byte for byte.
 */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define HDR 0x48u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void set32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* MS-XCA 2.5: chunks of at most 4096 bytes; header u16 = (size - 1) |
 * signature 3 << 12, bit 15 clear = stored (uncompressed) chunk. */
static void lznt1_store(struct tu_bytes *out, const uint8_t *p, size_t n)
{
	for (size_t off = 0; off < n; off += 4096) {
		size_t k = n - off < 4096 ? n - off : 4096;
		tu_put16(out, (uint16_t)(0x3000u | (uint16_t)(k - 1)));
		tu_putbytes(out, p + off, k);
	}
}

/* MS-XCA 2.1/2.2: per 65536 output bytes a table of 512 4-bit code
 * lengths; literals 0-255 all of length 8 form a complete code in which
 * symbol b has the code b. The bit stream is 16-bit little-endian words,
 * most significant bit first, so each pair of literals (a, b) is stored as
 * the word a << 8 | b, i.e. the bytes b, a. The end-of-stream symbol is not
 * in this code; the decoder stops at the expected size. Zero words pad the
 * decoder's 32-bit look-ahead. */
static void huff_literals(struct tu_bytes *out, const uint8_t *p, size_t n)
{
	for (size_t off = 0; off < n; off += 65536) {
		size_t k = n - off < 65536 ? n - off : 65536;
		for (int i = 0; i < 128; i++)
			tu_put8(out, 0x88);
		for (int i = 128; i < 256; i++)
			tu_put8(out, 0x00);
		for (size_t i = 0; i < k; i += 2) {
			uint8_t a = p[off + i], b = i + 1 < k ? p[off + i + 1] : 0;
			tu_put8(out, b);
			tu_put8(out, a);
		}
		tu_put32(out, 0);
	}
}

/* Rewrites a compressed file's buffers in another format; returns the
 * number of buffers converted. */
static unsigned convert(const uint8_t *in, size_t len, unsigned format, struct tu_bytes *out)
{
	unsigned n = 0;
	size_t off = 0;
	while (off + HDR <= len) {
		uint32_t bs = le32(in + off);
		ck_assert_uint_ge(bs, HDR);
		ck_assert_uint_le(off + bs, len);
		uint16_t flags = (uint16_t)(in[off + 0x34] | in[off + 0x35] << 8);
		if (!(flags & 0x40)) {
			size_t at = out->len;
			tu_putbytes(out, in + off, bs);
			if (off == 0)
				set32(out->p + at + 0x2C, format);  /* header buffer State */
			off += bs;
			continue;
		}
		uint32_t saved = le32(in + off + 4);
		size_t raw_len = saved - HDR, got = 0;
		uint8_t *raw = malloc(raw_len + 1);
		ck_assert_ptr_nonnull(raw);
		ck_assert_int_eq(etl_lz77_decompress(in + off + HDR, bs - HDR, raw, raw_len, &got, NULL, NULL),
		                 ETL_OK);
		ck_assert_uint_eq(got, raw_len);
		size_t at = out->len;
		tu_putbytes(out, in + off, HDR);
		if (format == ETL_COMPRESSION_LZNT1)
			lznt1_store(out, raw, raw_len);
		else
			huff_literals(out, raw, raw_len);
		set32(out->p + at, (uint32_t)(out->len - at));    /* new BufferSize */
		free(raw);
		off += bs;
		n++;
	}
	return n;
}

/* Every event of a and b, in file order: same count, same record bytes. */
static void same_events(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	etl_reader *ra = etl_reader_new(), *rb = etl_reader_new();
	etl_reader_set_order(ra, ETL_ORDER_FILE);
	etl_reader_set_order(rb, ETL_ORDER_FILE);
	ck_assert_int_eq(etl_reader_open_memory(ra, a, alen), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(rb, b, blen), ETL_OK);
	const struct etl_event *ea, *eb;
	unsigned long n = 0;
	for (;;) {
		int sa = etl_reader_next(ra, &ea), sb = etl_reader_next(rb, &eb);
		TU_CHECK(sa == sb, "status %d vs %d after %lu events: %s", sa, sb, n, etl_reader_errmsg(rb));
		if (sa == ETL_END)
			break;
		TU_CHECK(sa == ETL_OK, "status %d: %s", sa, etl_reader_errmsg(ra));
		TU_CHECK(ea->size == eb->size && memcmp(ea->record, eb->record, ea->size) == 0,
		         "event %lu differs", n);
		TU_CHECK(ea->utc == eb->utc, "event %lu time differs", n);
		n++;
	}
	struct etl_reader_stats st;
	etl_reader_stats(rb, &st);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_gt(n, 1);
	etl_reader_free(ra);
	etl_reader_free(rb);
}

static void check_format(const char *name, unsigned format, unsigned want_buffers)
{
	char *path = tu_corpus_path(name);
	size_t len;
	uint8_t *in = tu_load_file(path, &len);
	struct tu_bytes out;
	tu_bytes_init(&out);
	ck_assert_uint_eq(convert(in, len, format, &out), want_buffers);
	same_events(in, len, out.p, out.len);
	/* The format really is taken from State: read as XPRESS, the same
	 * bytes fail to inflate, and every converted buffer is reported. */
	set32(out.p + 0x2C, ETL_COMPRESSION_XPRESS);
	etl_reader *r = etl_reader_new();
	etl_reader_set_order(r, ETL_ORDER_FILE);
	ck_assert_int_eq(etl_reader_open_memory(r, out.p, out.len), ETL_OK);
	const struct etl_event *ev;
	int st;
	unsigned failed = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END)
		if (st == ETL_FAILED)
			failed++;
	ck_assert_uint_eq(failed, want_buffers);
	etl_reader_free(r);
	tu_bytes_free(&out);
	free(in);
	free(path);
}

START_TEST(test_lznt1_file)
{
	TU_NEED_CORPUS();
	check_format("eventsource-selfdescribing-compressed.etl", ETL_COMPRESSION_LZNT1, 2);
	check_format("clr-rundown-32bit-compressed.etl", ETL_COMPRESSION_LZNT1, 1);
	check_format("perfview-kernel-clr-x64-compressed.etl", ETL_COMPRESSION_LZNT1, 359);
}
END_TEST

START_TEST(test_xpress_huff_file)
{
	TU_NEED_CORPUS();
	check_format("eventsource-selfdescribing-compressed.etl", ETL_COMPRESSION_XPRESS_HUFF, 2);
	check_format("clr-rundown-32bit-compressed.etl", ETL_COMPRESSION_XPRESS_HUFF, 1);
	check_format("perfview-kernel-clr-x64-compressed.etl", ETL_COMPRESSION_XPRESS_HUFF, 359);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compression_formats");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lznt1_file);
	tcase_add_test(tc, test_xpress_huff_file);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
