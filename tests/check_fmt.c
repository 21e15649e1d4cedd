/*
 * check_fmt.c - the hand-made formatting helpers (lib/common/fmt.h) against
 * snprintf, the JSON string writer of the output core
 * (etl__out_json_string) against the public escaper etl_json_escape(), and
 * IPv6 addresses (etl__out_ipv6) against inet_ntop():
 * edge values (0, powers of ten and sixteen and their neighbours,
 * INT64_MIN, UINT64_MAX), and many pseudo-random ones.
 */
#define ETL_BUILDING_LIB 1
#include <arpa/inet.h>
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etl.h"
#include "lib/common/fmt.h"
#include "formats/output/out.h"
#include "testutil.h"

/* xorshift64*: a fixed sequence, so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* A random value with a random number of significant bits, so that short
 * and long numbers are both common. */
static uint64_t rnd_bits(void)
{
	unsigned bits = (unsigned)(rnd() % 65);
	uint64_t v = rnd();
	return bits == 64 ? v : v & (((uint64_t)1 << bits) - 1);
}

static void check_u64(uint64_t v)
{
	char got[ETL_FMT_U64_MAX + 1], want[32];
	size_t n = etl__fmt_u64(got, v);
	got[n] = 0;
	snprintf(want, sizeof want, "%" PRIu64, v);
	TU_CHECK(strcmp(got, want) == 0, "\"%s\" != \"%s\"", got, want);
	TU_CHECK((n) <= (ETL_FMT_U64_MAX), "failed: n <= ETL_FMT_U64_MAX");
}

static void check_i64(int64_t v)
{
	char got[ETL_FMT_I64_MAX + 1], want[32];
	size_t n = etl__fmt_i64(got, v);
	got[n] = 0;
	snprintf(want, sizeof want, "%" PRId64, v);
	TU_CHECK(strcmp(got, want) == 0, "\"%s\" != \"%s\"", got, want);
	TU_CHECK((n) <= (ETL_FMT_I64_MAX), "failed: n <= ETL_FMT_I64_MAX");
}

static void check_hex(uint64_t v)
{
	char got[ETL_FMT_HEX64_MAX + 1], want[32];
	size_t n = etl__fmt_hex64(got, v);
	got[n] = 0;
	snprintf(want, sizeof want, "%" PRIx64, v);
	TU_CHECK(strcmp(got, want) == 0, "\"%s\" != \"%s\"", got, want);
	n = etl__fmt_hex64_uc(got, v);
	got[n] = 0;
	snprintf(want, sizeof want, "%" PRIX64, v);
	TU_CHECK(strcmp(got, want) == 0, "\"%s\" != \"%s\"", got, want);
	TU_CHECK((n) <= (ETL_FMT_HEX64_MAX), "failed: n <= ETL_FMT_HEX64_MAX");
	/* the portable loop gives the same text, and writes only the digits */
	for (int upper = 0; upper <= 1; upper++) {
		char port[ETL_FMT_HEX64_MAX + 2];
		memset(port, '#', sizeof port);
		n = etl__fmt_hex64_portable(port, v, upper);
		TU_CHECK((n) <= (ETL_FMT_HEX64_MAX), "failed: n <= ETL_FMT_HEX64_MAX");
		TU_CHECK((port[n]) == ('#'), "failed: port[n] == '#'");
		port[n] = 0;
		snprintf(want, sizeof want, upper ? "%" PRIX64 : "%" PRIx64, v);
		TU_CHECK(strcmp(port, want) == 0, "\"%s\" != \"%s\"", port, want);
	}
	/* seven-digit fractions */
	char frac[8], fwant[16];
	uint32_t f = (uint32_t)(v % 10000000u);
	etl__fmt_frac7(frac, f);
	frac[7] = 0;
	snprintf(fwant, sizeof fwant, "%07u", (unsigned)f);
	TU_CHECK(strcmp(frac, fwant) == 0, "\"%s\" != \"%s\"", frac, fwant);
}

/* Every edge of every length: 10^k and 16^k, one below and one above. */
static void check_all_ints(uint64_t v)
{
	check_u64(v);
	check_i64((int64_t)v);
	check_hex(v);
}

START_TEST(test_integers_edges)
{
	uint64_t p10 = 1, p16 = 1;
	for (int k = 0; k < 20; k++) {
		check_all_ints(p10 - 1);
		check_all_ints(p10);
		check_all_ints(p10 + 1);
		check_all_ints(0 - p10);            /* negative as int64 */
		if (k < 16) {
			check_all_ints(p16 - 1);
			check_all_ints(p16);
			check_all_ints(p16 + 1);
			p16 *= 16;
		}
		p10 *= 10;
	}
	check_all_ints(0);
	check_all_ints(UINT64_MAX);
	check_all_ints(UINT64_MAX - 1);
	check_all_ints((uint64_t)INT64_MAX);
	check_all_ints((uint64_t)INT64_MIN);
	check_all_ints((uint64_t)INT64_MIN + 1);
	check_all_ints(UINT32_MAX);
	check_all_ints((uint64_t)UINT32_MAX + 1);
	check_all_ints(9007199254740992ull);    /* 2^53, the JSON boundary */
	check_i64(INT64_MIN);
	check_i64(INT64_MAX);
	check_i64(-1);
}
END_TEST

START_TEST(test_integers_random)
{
	for (int i = 0; i < 200000; i++)
		check_all_ints(rnd_bits());
}
END_TEST

static void check_guid(const struct etl_guid *g)
{
	char got[ETL_GUID_STRLEN], want[ETL_GUID_STRLEN + 8];
	snprintf(want, sizeof want, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         (unsigned)g->data1, (unsigned)g->data2, (unsigned)g->data3,
	         g->data4[0], g->data4[1], g->data4[2], g->data4[3],
	         g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
	TU_CHECK(strcmp(etl_guid_format(g, got), want) == 0, "\"%s\" != \"%s\"", etl_guid_format(g, got), want);
	char raw[ETL_FMT_GUID_LEN + 1];
	etl__fmt_guid(raw, g);
	raw[ETL_FMT_GUID_LEN] = 0;
	TU_CHECK(strcmp(raw, want) == 0, "\"%s\" != \"%s\"", raw, want);
}

START_TEST(test_guids)
{
	struct etl_guid g;
	memset(&g, 0, sizeof g);
	check_guid(&g);
	memset(&g, 0xFF, sizeof g);
	check_guid(&g);
	for (int i = 0; i < 20000; i++) {
		g.data1 = (uint32_t)rnd();
		g.data2 = (uint16_t)rnd();
		g.data3 = (uint16_t)rnd();
		uint64_t d4 = rnd();
		memcpy(g.data4, &d4, 8);
		check_guid(&g);
	}
}
END_TEST

/* The previous implementation of etl_filetime_format(): snprintf over the
 * proleptic Gregorian date (Howard Hinnant's civil_from_days). */
static void ref_filetime(int64_t ft, char *out, size_t outlen)
{
	int64_t secs = ft / 10000000, frac = ft % 10000000;
	if (frac < 0) {
		frac += 10000000;
		secs -= 1;
	}
	secs -= 11644473600LL;
	int64_t days = secs / 86400, rem = secs % 86400;
	if (rem < 0) {
		rem += 86400;
		days -= 1;
	}
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	snprintf(out, outlen, "%04lld-%02u-%02uT%02u:%02u:%02u.%07lldZ", (long long)y, m, d,
	         (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60),
	         (long long)frac);
}

static void check_filetime(int64_t ft)
{
	char got[ETL_TIME_STRLEN], want[64];
	ref_filetime(ft, want, sizeof want);
	TU_CHECK(strcmp(etl_filetime_format(ft, got, sizeof got), want) == 0, "\"%s\" != \"%s\"", etl_filetime_format(ft, got, sizeof got), want);
	char raw[ETL_FMT_TIME_MAX + 1];
	size_t n = etl__fmt_filetime(raw, ft);
	TU_CHECK((n) <= (ETL_FMT_TIME_MAX), "failed: n <= ETL_FMT_TIME_MAX");
	raw[n] = 0;
	TU_CHECK(strcmp(raw, want) == 0, "\"%s\" != \"%s\"", raw, want);
	/* Truncation follows snprintf: outlen - 1 bytes and a NUL. */
	for (size_t len = 0; len < 12; len++) {
		char a[16], b[16];
		memset(a, 'x', sizeof a);
		memset(b, 'x', sizeof b);
		etl_filetime_format(ft, a, len);
		ref_filetime(ft, b, len);
		TU_CHECK((memcmp(a, b, sizeof a)) == (0), "failed: memcmp(a, b, sizeof a) == 0");
	}
}

START_TEST(test_filetimes)
{
	static const int64_t edges[] = {
		INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, 0, 1, -1, 9999999, 10000000,
		-10000000, -10000001, 116444736000000000LL,       /* 1970-01-01 */
		132262601104203138LL,                              /* 2020-02-17T12:48:30.4203138Z */
		2650467743999999999LL,                             /* 9999-12-31T23:59:59.9999999Z */
		2650467744000000000LL,                             /* 10000-01-01 */
		-504911232000000000LL,                             /* year 0 */
		-504911232000000001LL, -536457600000000000LL,      /* negative years */
		-31556908800000000LL * 10,
	};
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		check_filetime(edges[i]);
	for (int i = 0; i < 30000; i++)
		check_filetime((int64_t)rnd());
	/* Plausible times: 1601..2100, where most real ones are. */
	for (int i = 0; i < 30000; i++)
		check_filetime((int64_t)(rnd() % 157000000000000000ull));
}
END_TEST

/* ---- JSON strings ----------------------------------------------------- */

struct sink {
	char *p;
	size_t n, cap;
};
static int sink_write(void *ctx, const void *data, size_t n)
{
	struct sink *s = ctx;
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2;
		s->p = realloc(s->p, s->cap);
		TU_CHECK((s->p) != NULL, "s->p is NULL");
	}
	memcpy(s->p + s->n, data, n);
	s->n += n;
	return 0;
}

static void check_json(const char *s, size_t n)
{
	struct sink want = { NULL, 0, 0 };
	struct etl_outbuf got;
	memset(&got, 0, sizeof got);
	TU_CHECK((etl_json_escape(s, n, 0, sink_write, &want)) == (0), "failed: etl_json_escape(s, n, 0, sink_write, &want) == 0");
	etl__out_json_string(&got, s, n);
	TU_REQUIRE(!got.oom);
	TU_CHECK((got.len) == (want.n), "failed: got.len == want.n");
	TU_CHECK((memcmp(got.p, want.p, want.n)) == (0), "failed: memcmp(got.p, want.p, want.n) == 0");
	/* Both loops (SSE2 where built, and the portable one), appended
	 * after existing text. */
	for (int simd = 0; simd <= 1; simd++) {
		size_t at = got.len;
		etl__out_json_string_ex(&got, s, n, simd);
		TU_REQUIRE(!got.oom);
		TU_CHECK((got.len - at) == (want.n), "failed: got.len - at == want.n");
		TU_CHECK((memcmp(got.p + at, want.p, want.n)) == (0), "failed: memcmp(got.p + at, want.p, want.n) == 0");
	}
	etl__ob_free(&got);
	free(want.p);
}

/* Every length around the 8- and 16-byte blocks, with each class of byte
 * that is not plain at every position, and UTF-8 sequences cut by the end
 * of the string or straddling a block boundary. */
START_TEST(test_json_strings_edges)
{
	static const unsigned char specials[] = {
		'"', '\\', 0x00, 0x01, '\n', '\r', '\t', 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2,
		0xED, 0xF0, 0xF4, 0xF5, 0xFF, ' ', '~'
	};
	static const char *const seqs[] = { "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
	                                    "\xED\xA0\x80", "\xEF\xBF\xBF" };
	tu_escape_sweep(specials, sizeof specials, seqs, sizeof seqs / sizeof seqs[0], 48, check_json);
	char buf[80];
	/* All plain, and all escapes, at every length up to 3 blocks. */
	for (size_t n = 0; n <= 48; n++) {
		memset(buf, '\n', sizeof buf);
		check_json(buf, n);
		memset(buf, 0xE9, sizeof buf);
		check_json(buf, n);
	}
	ck_assert(etl__out_json_simd() == 0 || etl__out_json_simd() == 1);
}
END_TEST

/* Two bytes or sequences that are not plain at every pair of positions of
 * strings of 19 and 34 bytes (one block and a partial one; two and a
 * partial one): the SSE2 loop finds a block's second escape in the block's
 * mask, with a UTF-8 sequence possibly running into the next block between
 * the two. */
START_TEST(test_json_strings_escape_pairs)
{
	static const char *const pieces[] = { "\"", "\n", "\x01", "\xC3\xA9", "\xE9",
	                                      "\xF0\x9F\x98\x80", "\xE2\x82" };
	const size_t np = sizeof pieces / sizeof pieces[0];
	char buf[48];
	static const size_t lens[] = { 19, 34 };
	for (size_t li = 0; li < 2; li++)
		for (size_t n = lens[li], a = 0; a < n; a++)
			for (size_t b = a + 1; b < n; b++)
				for (size_t i = 0; i < np; i++)
					for (size_t j = 0; j < np; j++) {
						memset(buf, 'q', sizeof buf);
						memcpy(buf + b, pieces[j], strlen(pieces[j]));
						memcpy(buf + a, pieces[i], strlen(pieces[i]));
						check_json(buf, n);
					}
}
END_TEST

/* Each ASCII byte alone, against the escapes RFC 8259 gives it, spelled
 * out here (both escapers share the per-byte helper, so comparing them
 * with each other could not catch a wrong escape): " \ and the five
 * controls with a short form, the other controls as \u00xx, DEL as it is. */
START_TEST(test_json_ascii_escapes)
{
	for (int c = 0; c < 128; c++) {
		char want[16];
		const char *sh = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" :
		                 c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r" :
		                 c == '\t' ? "\\t" : NULL;
		if (sh)
			snprintf(want, sizeof want, "\"%s\"", sh);
		else if (c < 0x20)
			snprintf(want, sizeof want, "\"\\u%04x\"", (unsigned)c);
		else
			snprintf(want, sizeof want, "\"%c\"", c);
		const char ch = (char)c;
		struct sink got = { NULL, 0, 0 };
		ck_assert_int_eq(etl_json_escape(&ch, 1, 0, sink_write, &got), 0);
		ck_assert_uint_eq(got.n, strlen(want));
		ck_assert_msg(memcmp(got.p, want, got.n) == 0, "byte 0x%02x", (unsigned)c);
		free(got.p);
		check_json(&ch, 1);
	}
}
END_TEST

START_TEST(test_json_strings)
{
	/* Bytes chosen to hit every class: plain, controls, " \ DEL, valid
	 * and invalid UTF-8 lead and continuation bytes. */
	static const unsigned char alphabet[] = {
		'a', 'Z', ' ', '~', '"', '\\', 0x7F, 0x00, 0x01, '\n', '\r', '\t', '\b', '\f', 0x1F,
		0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0xC0, 0xFF, 0x80
	};
	char buf[20000];
	check_json("", 0);
	check_json("plain ascii text, long enough for eight-byte steps", 51);
	for (int i = 0; i < 5000; i++) {
		size_t n = (size_t)(rnd() % 64);
		if (i % 100 == 0)
			n = (size_t)(rnd() % sizeof buf);   /* also past the direct-path limit */
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
		check_json(buf, n);
	}
}
END_TEST

static void check_ipv6(const uint8_t a[16])
{
	char want[INET6_ADDRSTRLEN];
	ck_assert_ptr_nonnull(inet_ntop(AF_INET6, a, want, sizeof want));
	struct etl_outbuf got;
	memset(&got, 0, sizeof got);
	etl__ob_putc(&got, 'x');                /* appended after text */
	etl__out_ipv6(&got, a);
	ck_assert(!got.oom);
	ck_assert_uint_eq(got.len - 1, strlen(want));
	ck_assert_int_eq(memcmp(got.p + 1, want, strlen(want)), 0);
	etl__ob_free(&got);
}

/* Every pattern of zero and non-zero groups (the runs inet_ntop shortens
 * to "::" and the IPv4 forms hang on them), with small, large and mapped
 * values, then random addresses. */
START_TEST(test_ipv6)
{
	uint8_t a[16];
	for (unsigned mask = 0; mask < 256; mask++) {
		for (int v = 0; v < 4; v++) {
			for (int g = 0; g < 8; g++) {
				unsigned x = (mask >> g & 1) ? 0 : v == 0 ? 1 : v == 1 ? 0xabcd : v == 2 ? 0x10 : (unsigned)(rnd() & 0xFFFF);
				if (x == 0 && !(mask >> g & 1))
					x = 7;
				a[2 * g] = (uint8_t)(x >> 8);
				a[2 * g + 1] = (uint8_t)x;
			}
			check_ipv6(a);
			a[10] = a[11] = 0xFF;           /* ::ffff:a.b.c.d when the rest is zero */
			check_ipv6(a);
		}
	}
	for (int i = 0; i < 20000; i++) {
		for (int k = 0; k < 16; k++)
			a[k] = rnd() % 3 ? 0 : (uint8_t)rnd();
		check_ipv6(a);
	}
}
END_TEST

static Suite *fmt_suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("fmt");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_integers_edges);
	tcase_add_test(tc, test_integers_random);
	tcase_add_test(tc, test_guids);
	tcase_add_test(tc, test_filetimes);
	tcase_add_test(tc, test_json_strings);
	tcase_add_test(tc, test_json_ascii_escapes);
	tcase_add_test(tc, test_json_strings_edges);
	tcase_add_test(tc, test_json_strings_escape_pairs);
	tcase_add_test(tc, test_ipv6);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fmt_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
