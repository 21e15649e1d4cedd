/*
 * check_xml_escape.c - the XML renderer's escaping (etl__out_xml_text and
 * etl__out_xml_attr, lib/render/escape_xml.c) against what libxml2's
 * xmlTextWriter makes of the same text once etl__out_clean() has cleaned
 * it, which is how the renderer wrote XML before it wrote the text itself:
 * element content and attribute values, both loops (SSE2 where built, and
 * the portable one), single ASCII characters (etl__out_xml_char), every
 * class of byte at every position of strings
 * around the 16-byte blocks, UTF-8 sequences cut or straddling a block,
 * and many pseudo-random strings, short and long.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "lib/render/render.h"
#include "testutil.h"

/* xorshift64*: a fixed sequence, so failures reproduce. */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* libxml2's text for s (n bytes) cleaned: the content of <e>...</e>, or
 * the value of attribute a of <e a="..."/>, into *want. */
static void reference(const char *s, size_t n, int attr, struct etl_outbuf *want)
{
	struct etl_outbuf c;
	memset(&c, 0, sizeof c);
	etl__out_clean(&c, s, n, 1);
	size_t clean_len = c.len;
	etl__ob_putc(&c, 0);
	ck_assert(!c.oom);
	xmlBufferPtr xb = xmlBufferCreate();
	ck_assert_ptr_nonnull(xb);
	xmlTextWriterPtr w = xmlNewTextWriterMemory(xb, 0);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_ge(xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL), 0);
	ck_assert_int_ge(xmlTextWriterStartElement(w, BAD_CAST "e"), 0);
	if (attr)
		ck_assert_int_ge(xmlTextWriterWriteAttribute(w, BAD_CAST "a", BAD_CAST c.p), 0);
	else if (clean_len)
		ck_assert_int_ge(xmlTextWriterWriteString(w, BAD_CAST c.p), 0);
	ck_assert_int_ge(xmlTextWriterEndElement(w), 0);
	ck_assert_int_ge(xmlTextWriterFlush(w), 0);
	const char *doc = (const char *)xmlBufferContent(xb);
	size_t len = (size_t)xmlBufferLength(xb);
	static const char prolog[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	const char *open = attr ? "<e a=\"" : "<e>";
	const char *close = attr ? "\"/>" : clean_len ? "</e>" : "<e/>";
	size_t pl = strlen(prolog), ol = strlen(open), cl = strlen(close);
	ck_assert_uint_ge(len, pl);
	ck_assert_int_eq(memcmp(doc, prolog, pl), 0);
	want->len = 0;
	if (!attr && !clean_len) {
		ck_assert_uint_eq(len - pl, cl);
		ck_assert_int_eq(memcmp(doc + pl, close, cl), 0);
	} else {
		ck_assert_uint_ge(len, pl + ol + cl);
		ck_assert_int_eq(memcmp(doc + pl, open, ol), 0);
		ck_assert_int_eq(memcmp(doc + len - cl, close, cl), 0);
		etl__ob_put(want, doc + pl + ol, len - pl - ol - cl);
	}
	xmlFreeTextWriter(w);
	xmlBufferFree(xb);
	etl__ob_free(&c);
}

static void check_xml(const char *s, size_t n)
{
	struct etl_outbuf want, got;
	memset(&want, 0, sizeof want);
	memset(&got, 0, sizeof got);
	for (int attr = 0; attr <= 1; attr++) {
		reference(s, n, attr, &want);
		got.len = 0;
		if (attr)
			etl__out_xml_attr(&got, s, n);
		else
			etl__out_xml_text(&got, s, n);
		ck_assert(!got.oom);
		ck_assert_uint_eq(got.len, want.len);
		ck_assert(got.len == 0 || memcmp(got.p, want.p, want.len) == 0);
		/* Both loops, appended after existing text. */
		for (int simd = 0; simd <= 1; simd++) {
			size_t at = got.len;
			etl__out_xml_ex(&got, s, n, attr, simd);
			ck_assert(!got.oom);
			ck_assert_uint_eq(got.len - at, want.len);
			ck_assert(want.len == 0 || memcmp(got.p + at, want.p, want.len) == 0);
		}
	}
	etl__ob_free(&want);
	etl__ob_free(&got);
}

/* Every length around the 16-byte blocks, with each class of byte at
 * every position, and UTF-8 sequences cut by the end of the string or
 * straddling a block boundary. */
START_TEST(test_xml_escape_edges)
{
	static const unsigned char specials[] = {
		'<', '>', '&', '"', '\'', 0x00, 0x01, '\n', '\r', '\t', 0x1F, 0x7F, 0x80, 0xBF, 0xC0,
		0xC3, 0xE2, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, ' ', '~'
	};
	static const char *const seqs[] = { "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\xA0\x80",
	                                    "\xEF\xBF\xBF", "\xEF\xBF\xBE", "\xEF\xBF\xBD", "\xF4\x8F\xBF\xBF" };
	tu_escape_sweep(specials, sizeof specials, seqs, sizeof seqs / sizeof seqs[0], 40, check_xml);
	char buf[80];
	for (size_t n = 0; n <= 40; n++) {
		memset(buf, '&', sizeof buf);
		check_xml(buf, n);
		memset(buf, 0xE9, sizeof buf);
		check_xml(buf, n);
		memset(buf, '\n', sizeof buf);
		check_xml(buf, n);
	}
	ck_assert(etl__out_xml_simd() == 0 || etl__out_xml_simd() == 1);
}
END_TEST

START_TEST(test_xml_escape_random)
{
	static const unsigned char alphabet[] = {
		'a', 'Z', ' ', '~', '<', '>', '&', '"', '\'', 0x7F, 0x00, 0x01, '\n', '\r', '\t', 0x1F,
		0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0xC0, 0xFF, 0xEF, 0xBF, 0xBE
	};
	static char buf[20000];
	check_xml("", 0);
	check_xml("plain ascii text, long enough for sixteen-byte steps", 53);
	for (int i = 0; i < 3000; i++) {
		size_t n = (size_t)(rnd() % 64);
		if (i % 100 == 0)
			n = (size_t)(rnd() % sizeof buf);   /* several blocks of the loop */
		int mostly_plain = i % 3 == 0;
		for (size_t k = 0; k < n; k++) {
			uint64_t r = rnd();
			if (mostly_plain && r % 16)
				buf[k] = (char)(0x20 + r / 16 % 0x5F);
			else if (r % 4 == 0)
				buf[k] = (char)(r >> 8);             /* any byte */
			else
				buf[k] = (char)alphabet[(r >> 8) % sizeof alphabet];
		}
		check_xml(buf, n);
	}
}
END_TEST

/* One character (the XML renderer's char arrays) as content: ASCII, and a
 * lone byte from 0x80, which is no UTF-8 sequence (U+FFFD). */
START_TEST(test_xml_char)
{
	for (unsigned c = 0; c < 0x100; c++) {
		char ch = (char)c, o[8];
		struct etl_outbuf want;
		memset(&want, 0, sizeof want);
		etl__out_xml_text(&want, &ch, 1);
		size_t n = etl__out_xml_char(o, (unsigned char)c);
		ck_assert_uint_eq(n, want.len);
		ck_assert_int_eq(memcmp(o, want.p, n), 0);
		if (c >= 0x80)
			ck_assert_int_eq(memcmp(o, "\xEF\xBF\xBD", 3), 0);
		etl__ob_free(&want);
	}
}
END_TEST

static Suite *xml_escape_suite(void)
{
	Suite *s = suite_create("xml_escape");
	TCase *tc = tcase_create("xml_escape");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_xml_escape_edges);
	tcase_add_test(tc, test_xml_escape_random);
	tcase_add_test(tc, test_xml_char);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	xmlInitParser();
	SRunner *sr = srunner_create(xml_escape_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	xmlCleanupParser();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
