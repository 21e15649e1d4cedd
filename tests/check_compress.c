/*
 * check_compress.c - tests of the [MS-XCA] code beyond the Plain LZ77
 * decoder (which check_lz77.c covers):
 *   - etl_lz77_compress(): round trips through etl_lz77_decompress() of
 *     empty, tiny, run, random, text and corpus inputs, every length
 *     encoding, the 8192-byte window edge, exact dst_cap behaviour, the
 *     [MS-XCA]'s own examples byte for byte, and the ratio against Windows'
 *     compressed buffers of the corpus;
 *   - etl_lznt1_decompress() and etl_xpress_huff_decompress(): streams
 *     built by small test-only ENCODERS written here from the format
 *     description (an LZNT1 chunk encoder, an LZ77+Huffman block encoder
 *     with canonical, length-limited codes and a bit writer that mirrors
 *     the decoder's read schedule), [MS-XCA]'s LZNT1 example and a
 *     Windows LZ77+Huffman stream quoted on the cifs-protocol list, then
 *     malformed, truncated and malicious streams.
 * Every decode runs on an exact-size copy of the input (ASan sees any
 * over-read) into a block followed by a canary (any over-write shows).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_compress.h"
#include "testutil.h"

#define CANARY 0xA5
#define CANARY_LEN 64

/* ------------------------------------------------------------------ */
/* Shared helpers                                                       */
/* ------------------------------------------------------------------ */

typedef int (*decoder_fn)(const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_cap, size_t *out_len, int *err,
                          size_t *err_pos);

struct dres {
	int rc;
	size_t out_len;
	int err;
	size_t err_pos;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* Decode src[0..n) (copied to an exact-size block) into cap bytes plus a
 * canary; checks the canary and the status contract. When `out` is not
 * NULL it receives the out_len decoded bytes. */
static struct dres run_dec(decoder_fn fn, const uint8_t *src, size_t n,
                           size_t cap, uint8_t *out)
{
	struct dres r;
	uint8_t *in = n ? xmalloc(n) : NULL;
	uint8_t *dst = xmalloc(cap + CANARY_LEN);
	size_t i;

	if (n)
		memcpy(in, src, n);
	memset(dst, CANARY, cap + CANARY_LEN);
	r.out_len = (size_t)-1;
	r.err = -1;
	r.err_pos = (size_t)-1;
	r.rc = fn(in, n, dst, cap, &r.out_len, &r.err, &r.err_pos);
	for (i = 0; i < CANARY_LEN; i++)
		TU_CHECK(dst[cap + i] == CANARY, "canary byte %zu overwritten", i);
	TU_CHECK(r.out_len <= cap, "out_len %zu > cap %zu", r.out_len, cap);
	if (r.rc == ETL_OK) {
		TU_CHECK(r.err == ETL_E_NONE && r.err_pos == 0,
		         "OK with err %d pos %zu", r.err, r.err_pos);
	} else {
		TU_CHECK(r.rc == ETL_FAILED, "rc %d", r.rc);
		TU_CHECK(r.err == ETL_E_DECOMPRESS, "err %d", r.err);
		TU_CHECK(r.err_pos <= n, "err_pos %zu > %zu", r.err_pos, n);
	}
	if (out && r.out_len)
		memcpy(out, dst, r.out_len);
	free(in);
	free(dst);
	return r;
}

/* Full decode with cap == n must give exactly want[0..n). */
static void expect_decodes(decoder_fn fn, const uint8_t *src, size_t n,
                           const uint8_t *want, size_t want_len)
{
	uint8_t *out = xmalloc(want_len);
	struct dres r = run_dec(fn, src, n, want_len, out);

	ck_assert_msg(r.rc == ETL_OK, "rc %d err_pos %zu out_len %zu",
	              r.rc, r.err_pos, r.out_len);
	TU_REQUIRE(r.out_len == want_len);
	TU_CHECK(memcmp(out, want, want_len) == 0, "decoded bytes differ");
	free(out);
}

static void expect_malformed(decoder_fn fn, const uint8_t *src, size_t n,
                             size_t cap, size_t want_pos)
{
	struct dres r = run_dec(fn, src, n, cap, NULL);

	ck_assert_int_eq(r.rc, ETL_FAILED);
	ck_assert_int_eq(r.err, ETL_E_DECOMPRESS);
	if (want_pos != (size_t)-1)
		ck_assert_uint_eq(r.err_pos, want_pos);
}

/* Cut a valid stream at every length, and decode it with every smaller
 * cap (every `step`-th): output is always a correct prefix; a success
 * before the cap is a clean stop. */
static void expect_prefix_safe(decoder_fn fn, const uint8_t *src, size_t n,
                               const uint8_t *want, size_t want_len,
                               size_t step)
{
	uint8_t *out = xmalloc(want_len + 16);
	size_t cut, cap;

	for (cut = 0; cut < n; cut += step) {
		struct dres r = run_dec(fn, src, cut, want_len, out);

		TU_CHECK(memcmp(out, want, r.out_len) == 0,
		         "cut %zu: output not a prefix", cut);
		if (r.rc == ETL_OK)
			TU_CHECK(r.out_len <= want_len, "cut %zu", cut);
	}
	for (cap = 0; cap < want_len; cap += step) {
		struct dres r = run_dec(fn, src, n, cap, out);

		TU_CHECK(memcmp(out, want, r.out_len) == 0,
		         "cap %zu: output not a prefix", cap);
		if (r.rc == ETL_OK)
			TU_CHECK(r.out_len == cap, "cap %zu: out_len %zu",
			         cap, r.out_len);
	}
	free(out);
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t s = seed | 1;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(tu_rand(&s) >> 56);
}

/* Text-like data: random words from a small vocabulary. */
static size_t fill_text(uint8_t *p, size_t n, uint64_t seed)
{
	static const char *const words[] = {
		"event", "trace", "buffer", "provider", "kernel", "process",
		"thread", "the", "of", "and", "Microsoft-Windows-Kernel",
		"timestamp", "0x", "guid", "session", "ETW", "compressed",
		"header", "payload", "a", "is", "to", "in", "{", "}", ",",
	};
	uint64_t s = seed | 1;
	size_t i = 0;

	while (i < n) {
		const char *w = words[tu_rand(&s) % (sizeof words / sizeof *words)];
		size_t k;

		for (k = 0; w[k] && i < n; k++)
			p[i++] = (uint8_t)w[k];
		if (i < n)
			p[i++] = (tu_rand(&s) & 15) ? ' ' : '\n';
	}
	return n;
}

/* Tokens: a literal (dist == 0, byte lit) or a match (dist, len). */
struct tok {
	uint32_t dist;
	uint32_t len;
	uint8_t lit;
};

struct toks {
	struct tok *t;
	size_t n, cap;
};

static void toks_add(struct toks *v, uint32_t dist, uint32_t len, uint8_t lit)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1024;
		v->t = realloc(v->t, v->cap * sizeof *v->t);
		ck_assert_ptr_nonnull(v->t);
	}
	v->t[v->n].dist = dist;
	v->t[v->n].len = len;
	v->t[v->n].lit = lit;
	v->n++;
}

/* The output a token list stands for (malloc'd, *n = its length). */
static uint8_t *toks_apply(const struct toks *v, size_t *n)
{
	size_t total = 0, i, op = 0;
	uint8_t *out;

	for (i = 0; i < v->n; i++)
		total += v->t[i].dist ? v->t[i].len : 1;
	out = xmalloc(total);
	for (i = 0; i < v->n; i++) {
		const struct tok *t = &v->t[i];

		if (!t->dist) {
			out[op++] = t->lit;
		} else {
			size_t k;

			TU_REQUIRE(t->dist <= op);
			for (k = 0; k < t->len; k++, op++)
				out[op] = out[op - t->dist];
		}
	}
	*n = total;
	return out;
}

/* ------------------------------------------------------------------ */
/* Plain LZ77 stream walker (test-only parse of the token structure)   */
/* ------------------------------------------------------------------ */

struct lzstat {
	size_t lits, matches;
	size_t n_short, n_nib, n_byte, n_u16, n_u32;
	uint32_t max_dist;
	uint32_t max_len;
};

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

/* Walks a stream that inflates to out_len bytes; fills *st and, when v
 * is not NULL, the token list. Asserts the structure is well formed. */
static void lz_walk(const uint8_t *s, size_t n, size_t out_len,
                    struct lzstat *st, struct toks *v)
{
	size_t ip = 0, op = 0;
	size_t half = (size_t)-1;

	memset(st, 0, sizeof *st);
	while (op < out_len) {
		uint32_t flags;
		int k;

		TU_REQUIRE(ip + 4 <= n);
		flags = tu_le32(s + ip);
		ip += 4;
		for (k = 31; k >= 0 && op < out_len; k--) {
			uint32_t w, dist, len;

			if (!((flags >> k) & 1u)) {
				TU_REQUIRE(ip < n);
				if (v)
					toks_add(v, 0, 1, s[ip]);
				ip++;
				op++;
				st->lits++;
				continue;
			}
			TU_REQUIRE(ip + 2 <= n);
			w = le16(s + ip);
			ip += 2;
			dist = (w >> 3) + 1;
			len = w & 7u;
			if (len < 7) {
				len += 3;
				st->n_short++;
			} else {
				uint32_t nib;

				if (half != (size_t)-1) {
					nib = s[half] >> 4;
					half = (size_t)-1;
				} else {
					TU_REQUIRE(ip < n);
					half = ip;
					nib = s[ip++] & 15u;
				}
				if (nib < 15) {
					len = nib + 10;
					st->n_nib++;
				} else {
					TU_REQUIRE(ip < n);
					len = s[ip++];
					if (len < 255) {
						len += 25;
						st->n_byte++;
					} else {
						TU_REQUIRE(ip + 2 <= n);
						len = le16(s + ip);
						ip += 2;
						if (len == 0) {
							TU_REQUIRE(ip + 4 <= n);
							len = tu_le32(s + ip);
							ip += 4;
							st->n_u32++;
						} else {
							st->n_u16++;
						}
						len += 3;
					}
				}
			}
			TU_REQUIRE(dist <= op);
			if (v)
				toks_add(v, dist, len, 0);
			op += len;
			st->matches++;
			if (dist > st->max_dist)
				st->max_dist = dist;
			if (len > st->max_len)
				st->max_len = len;
		}
	}
	TU_REQUIRE(op == out_len);
}

static int lz_has_match(const struct toks *v, uint32_t dist, uint32_t len)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->t[i].dist == dist && v->t[i].len == len)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Plain LZ77 compressor                                                */
/* ------------------------------------------------------------------ */

static int lz77_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                    size_t *out_len, int *err, size_t *err_pos)
{
	return etl_lz77_decompress(src, n, dst, cap, out_len, err, err_pos);
}

/* Compress with dst_cap = cap into a canaried block; returns rc. */
static int lz_compress_cap(const uint8_t *src, size_t n, size_t cap,
                           uint8_t *out, size_t *out_len, void *ws)
{
	uint8_t *in = n ? xmalloc(n) : NULL;
	uint8_t *dst = xmalloc(cap + CANARY_LEN);
	size_t i;
	int rc;

	if (n)
		memcpy(in, src, n);
	memset(dst, CANARY, cap + CANARY_LEN);
	*out_len = (size_t)-1;
	rc = etl_lz77_compress(in, n, cap ? dst : NULL, cap, out_len, ws);
	for (i = 0; i < CANARY_LEN; i++)
		TU_CHECK(dst[cap + i] == CANARY, "compress: canary %zu", i);
	if (rc == ETL_OK) {
		TU_CHECK(*out_len <= cap, "compress: out_len %zu > cap %zu",
		         *out_len, cap);
		if (out)
			memcpy(out, dst, *out_len);
	} else {
		TU_CHECK(rc == ETL_FAILED, "compress: rc %d", rc);
		TU_CHECK(*out_len == 0, "compress failed with out_len %zu",
		         *out_len);
	}
	free(in);
	free(dst);
	return rc;
}

/* Compress src, check everything the API promises, return the stream
 * (malloc'd; *clen = its length) and its token statistics. */
static uint8_t *lz_roundtrip(const uint8_t *src, size_t n, size_t *clen,
                             struct lzstat *st, struct toks *v)
{
	size_t bound = etl_lz77_compress_bound(n);
	size_t wsz = etl_lz77_workspace_size();
	uint8_t *ws = xmalloc(wsz + 8);
	uint8_t *c = xmalloc(bound), *c2 = xmalloc(bound);
	size_t len, len2;
	struct dres r;

	TU_REQUIRE(bound >= n);
	/* A dirty workspace must not change the output. */
	memset(ws, 0xAB, wsz + 8);
	TU_REQUIRE(lz_compress_cap(src, n, bound, c, &len, ws) == ETL_OK);
	TU_REQUIRE(len <= bound);
	TU_REQUIRE(lz_compress_cap(src, n, bound, c2, &len2, NULL) == ETL_OK);
	TU_REQUIRE(len == len2);
	TU_CHECK(memcmp(c, c2, len) == 0, "output depends on the workspace");

	/* Exactly enough room works, one byte less does not. */
	TU_REQUIRE(lz_compress_cap(src, n, len, c2, &len2, ws) == ETL_OK);
	TU_REQUIRE(len == len2);
	TU_CHECK(memcmp(c, c2, len) == 0, "output depends on dst_cap");
	if (len)
		TU_REQUIRE(lz_compress_cap(src, n, len - 1, NULL, &len2, ws) == ETL_FAILED);

	expect_decodes(lz77_dec, c, len, src, n);
	/* With spare room the stream still ends at the right place. */
	r = run_dec(lz77_dec, c, len, n + 100, NULL);
	TU_REQUIRE(r.rc == ETL_OK);
	TU_REQUIRE(r.out_len == n);

	if (st)
		lz_walk(c, len, n, st, v);
	free(ws);
	free(c2);
	*clen = len;
	return c;
}

START_TEST(test_lz77c_empty)
{
	size_t out_len = 99;
	uint8_t dst[8];
	void *ws = xmalloc(etl_lz77_workspace_size());

	ck_assert_uint_eq(etl_lz77_compress_bound(0), 0);
	ck_assert_int_eq(etl_lz77_compress(NULL, 0, NULL, 0, &out_len, NULL),
	                 ETL_OK);
	ck_assert_uint_eq(out_len, 0);
	out_len = 99;
	ck_assert_int_eq(etl_lz77_compress(NULL, 0, dst, sizeof dst, &out_len,
	                                   ws), ETL_OK);
	ck_assert_uint_eq(out_len, 0);
	ck_assert_int_eq(etl_lz77_compress(NULL, 0, NULL, 0, NULL, NULL), ETL_OK);
	/* One byte does not fit in nothing. */
	ck_assert_int_eq(etl_lz77_compress((const uint8_t *)"x", 1, NULL, 0,
	                                   &out_len, ws), ETL_FAILED);
	free(ws);
}
END_TEST

START_TEST(test_lz77c_bound)
{
	ck_assert_uint_eq(etl_lz77_compress_bound(1), 5);
	ck_assert_uint_eq(etl_lz77_compress_bound(32), 36);
	ck_assert_uint_eq(etl_lz77_compress_bound(33), 41);
	ck_assert_uint_eq(etl_lz77_compress_bound(65536), 65536 + 8192);
	ck_assert_uint_eq(etl_lz77_compress_bound((size_t)-1), 0);
	ck_assert_uint_ge(etl_lz77_workspace_size(), 8192 * 4);
}
END_TEST

START_TEST(test_lz77c_tiny)
{
	/* Every input of 1..40 bytes over a 2-letter alphabet, by bit
	 * pattern (all literals, short matches, tails of 1..3 bytes). */
	size_t n;

	for (n = 1; n <= 40; n++) {
		uint64_t s = 0x1234 + n;
		int k;

		for (k = 0; k < 40; k++) {
			uint8_t in[40];
			size_t i, clen;
			uint8_t *c;

			for (i = 0; i < n; i++)
				in[i] = (tu_rand(&s) & 1) ? 'a' : 'b';
			c = lz_roundtrip(in, n, &clen, NULL, NULL);
			free(c);
		}
	}
	{
		size_t clen;
		uint8_t *c = lz_roundtrip((const uint8_t *)"x", 1, &clen, NULL, NULL);

		/* One flag word (one 0 bit, 31 bits of 1 padding) + 'x'. */
		ck_assert_uint_eq(clen, 5);
		ck_assert_uint_eq(tu_le32(c), 0x7fffffffu);
		ck_assert_uint_eq(c[4], 'x');
		free(c);
	}
}
END_TEST

START_TEST(test_lz77c_spec_examples)
{
	/* The two Plain LZ77 examples of [MS-XCA] section 3, byte for byte. */
	static const uint8_t abc_want[] = { 0xff, 0xff, 0xff, 0x1f, 0x61, 0x62,
	                                    0x63, 0x17, 0x00, 0x0f, 0xff, 0x26,
	                                    0x01 };
	const char *alpha = "abcdefghijklmnopqrstuvwxyz";
	uint8_t abc[300];
	size_t clen, i;
	uint8_t *c;

	c = lz_roundtrip((const uint8_t *)alpha, 26, &clen, NULL, NULL);
	ck_assert_uint_eq(clen, 30);
	ck_assert_uint_eq(tu_le32(c), 0x3f);
	ck_assert_mem_eq(c + 4, alpha, 26);
	free(c);

	for (i = 0; i < 300; i++)
		abc[i] = (uint8_t)("abc"[i % 3]);
	c = lz_roundtrip(abc, 300, &clen, NULL, NULL);
	ck_assert_uint_eq(clen, sizeof abc_want);
	ck_assert_mem_eq(c, abc_want, sizeof abc_want);
	free(c);
}
END_TEST

START_TEST(test_lz77c_runs)
{
	/* One literal then one match at distance 1 of n - 1 bytes: every
	 * length encoding, up to the u32 form. */
	static const size_t sizes[] = { 2, 3, 4, 5, 10, 11, 13, 27, 28, 100,
	                                282, 283, 284, 1000, 65538, 65539,
	                                65540, 65541, 65542, 200000, 1u << 20 };
	uint8_t *buf = xmalloc(1u << 20);
	struct lzstat total;
	size_t k;

	memset(&total, 0, sizeof total);
	memset(buf, 'z', 1u << 20);
	for (k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t n = sizes[k], clen;
		struct lzstat st;
		uint8_t *c = lz_roundtrip(buf, n, &clen, &st, NULL);

		if (n >= 5) {   /* a match needs 4 bytes at its start */
			ck_assert_uint_eq(st.matches, 1);
			ck_assert_uint_eq(st.lits, 1);
			ck_assert_uint_eq(st.max_len, n - 1);
		}
		total.n_short += st.n_short;
		total.n_nib += st.n_nib;
		total.n_byte += st.n_byte;
		total.n_u16 += st.n_u16;
		total.n_u32 += st.n_u32;
		free(c);
	}
	ck_assert_uint_gt(total.n_short, 0);
	ck_assert_uint_gt(total.n_nib, 0);
	ck_assert_uint_gt(total.n_byte, 0);
	ck_assert_uint_gt(total.n_u16, 0);
	ck_assert_uint_gt(total.n_u32, 0);
	free(buf);
}
END_TEST

START_TEST(test_lz77c_lengths)
{
	/* 16 random bytes, then L bytes continuing that period, then a byte
	 * that breaks it, then random bytes: exactly one match (16, L). */
	static const uint32_t lens[] = { 3, 4, 8, 9, 10, 11, 23, 24, 25, 26,
	                                 63, 64, 65, 278, 279, 280, 281,
	                                 65535, 65537, 65538, 65539, 65540,
	                                 100000 };
	size_t k;

	for (k = 0; k < sizeof lens / sizeof *lens; k++) {
		uint32_t L = lens[k];
		size_t n = 16 + L + 1 + 40, clen, i;
		uint8_t *in = xmalloc(n);
		struct lzstat st;
		struct toks v = { 0 };
		uint8_t *c;

		fill_random(in, n, 77 + L);
		for (i = 16; i < 16 + L; i++)
			in[i] = in[i - 16];
		in[16 + L] = (uint8_t)(in[L] ^ 0x55);
		c = lz_roundtrip(in, n, &clen, &st, &v);
		ck_assert_msg(lz_has_match(&v, 16, L), "no match (16, %u)", L);
		free(c);
		free(v.t);
		free(in);
	}
}
END_TEST

START_TEST(test_lz77c_window_edge)
{
	/* A 40-byte block repeated exactly 8192 bytes later is found; 8193
	 * bytes later it cannot be (the format's limit). */
	size_t gap;

	for (gap = 8190; gap <= 8194; gap++) {
		size_t n = gap + 40 + 100, clen;
		uint8_t *in = xmalloc(n);
		struct lzstat st;
		struct toks v = { 0 };
		uint8_t *c;

		fill_random(in, n, 5150 + gap);
		memcpy(in + gap, in, 40);
		in[gap + 40] = (uint8_t)(in[40] ^ 1);
		c = lz_roundtrip(in, n, &clen, &st, &v);
		ck_assert_uint_le(st.max_dist, 8192);
		if (gap <= 8192) {
			ck_assert_msg(lz_has_match(&v, (uint32_t)gap, 40),
			              "gap %zu: match not found", gap);
		} else {
			ck_assert_uint_lt(st.max_len, 8);
		}
		free(c);
		free(v.t);
		free(in);
	}
}
END_TEST

START_TEST(test_lz77c_random)
{
	size_t n = 1u << 20, clen, k;
	uint8_t *in = xmalloc(n);
	uint8_t *c;

	fill_random(in, n, 42);
	c = lz_roundtrip(in, n, &clen, NULL, NULL);
	ck_assert_uint_le(clen, etl_lz77_compress_bound(n));
	ck_assert_uint_ge(clen, n);
	free(c);
	/* Random sizes; low-entropy random data (4 symbols). */
	for (k = 0; k < 200; k++) {
		size_t m = 1 + (k * 7919) % 5000, i;

		fill_random(in, m, 1000 + k);
		if (k & 1)
			for (i = 0; i < m; i++)
				in[i] &= 3;
		c = lz_roundtrip(in, m, &clen, NULL, NULL);
		free(c);
	}
	free(in);
}
END_TEST

START_TEST(test_lz77c_text)
{
	size_t n = 300000, clen;
	uint8_t *in = xmalloc(n);
	struct lzstat st;
	uint8_t *c;

	fill_text(in, n, 9);
	c = lz_roundtrip(in, n, &clen, &st, NULL);
	ck_assert_uint_lt(clen, n / 2);
	ck_assert_uint_gt(st.n_short, 0);
	ck_assert_uint_gt(st.n_nib, 0);
	free(c);
	free(in);
}
END_TEST

START_TEST(test_lz77c_dst_cap)
{
	/* Every cap below the stream length fails without writing past it;
	 * the exact length succeeds. */
	size_t n = 3000, clen, cap, k;
	uint8_t *in = xmalloc(n);

	for (k = 0; k < 3; k++) {
		uint8_t *c;

		if (k == 0)
			fill_text(in, n, 3);
		else if (k == 1)
			fill_random(in, n, 4);
		else
			memset(in, 0, n);
		c = lz_roundtrip(in, n, &clen, NULL, NULL);
		for (cap = 0; cap < clen; cap++) {
			size_t ol;

			TU_CHECK(lz_compress_cap(in, n, cap, NULL, &ol, NULL) ==
			         ETL_FAILED, "cap %zu < %zu succeeded", cap, clen);
		}
		free(c);
	}
	free(in);
}
END_TEST

START_TEST(test_lz77c_misaligned_workspace)
{
	size_t n = 20000, len1, len2;
	uint8_t *in = xmalloc(n);
	uint8_t *ws = xmalloc(etl_lz77_workspace_size() + 8);
	uint8_t *a = xmalloc(etl_lz77_compress_bound(n));
	uint8_t *b = xmalloc(etl_lz77_compress_bound(n));

	fill_text(in, n, 11);
	ck_assert_int_eq(etl_lz77_compress(in, n, a, etl_lz77_compress_bound(n),
	                                   &len1, ws + 1), ETL_OK);
	ck_assert_int_eq(etl_lz77_compress(in, n, b, etl_lz77_compress_bound(n),
	                                   &len2, ws), ETL_OK);
	ck_assert_uint_eq(len1, len2);
	ck_assert_mem_eq(a, b, len1);
	free(in);
	free(ws);
	free(a);
	free(b);
}
END_TEST

/* Every compressed buffer of the corpus: Windows' stream -> inflate ->
 * our compressor -> inflate -> same bytes. Sizes compared with Windows'. */
static const char *const corpus_files[] = {
	"clr-rundown-32bit-compressed.etl",
	"eventsource-selfdescribing-compressed.etl",
	"perfview-kernel-clr-x64-compressed.etl",
};

START_TEST(test_lz77c_corpus)
{
	TU_NEED_CORPUS();
	size_t nbuf = 0, raw_total = 0, win_total = 0, our_total = 0, f;
	void *ws = xmalloc(etl_lz77_workspace_size());

	for (f = 0; f < sizeof corpus_files / sizeof *corpus_files; f++) {
		char *path = tu_corpus_path(corpus_files[f]);
		size_t len, off = 0;
		uint8_t *data = tu_load_file(path, &len);

		while (len - off >= 0x48) {
			const uint8_t *h = data + off;
			uint32_t size = tu_le32(h), saved = tu_le32(h + 4);

			ck_assert(size >= 0x48 && size <= len - off);
			if (tu_le16(h + 0x34) & 0x40) {
				size_t want = saved - 0x48, ol, clen, ol2;
				size_t bound = etl_lz77_compress_bound(want);
				uint8_t *raw = xmalloc(want), *c = xmalloc(bound);
				uint8_t *back = xmalloc(want);
				int err;
				size_t ep;

				ck_assert_int_eq(etl_lz77_decompress(h + 0x48, size - 0x48,
				                 raw, want, &ol, &err, &ep), ETL_OK);
				ck_assert_uint_eq(ol, want);
				ck_assert_int_eq(etl_lz77_compress(raw, want, c, bound,
				                                   &clen, ws), ETL_OK);
				ck_assert_int_eq(etl_lz77_decompress(c, clen, back,
				                 want, &ol2, &err, &ep), ETL_OK);
				ck_assert_uint_eq(ol2, want);
				TU_CHECK(memcmp(raw, back, want) == 0,
				         "%s: buffer at %zu differs after round trip",
				         corpus_files[f], off);
				nbuf++;
				raw_total += want;
				win_total += size - 0x48;
				our_total += clen;
				free(raw);
				free(c);
				free(back);
			}
			off += size;
		}
		free(data);
		free(path);
	}
	printf("compress: corpus %zu buffers, %zu bytes inflated; Windows %zu "
	       "(%.2f%%), libetl %zu (%.2f%%), libetl/Windows = %.3f\n",
	       nbuf, raw_total, win_total, 100.0 * win_total / raw_total,
	       our_total, 100.0 * our_total / raw_total,
	       (double)our_total / win_total);
	fflush(stdout);
	ck_assert_uint_eq(nbuf, 362);
	ck_assert_msg(our_total * 10 <= win_total * 13,
	              "ours %zu vs Windows %zu", our_total, win_total);
	free(ws);
}
END_TEST

/* ------------------------------------------------------------------ */
/* LZNT1: test-only encoder                                             */
/* ------------------------------------------------------------------ */

enum { NT_NORMAL, NT_RAW, NT_LITERALS };

/* Copies emitted per displacement width (4..12 bits), for coverage. */
static size_t nt_width_use[17];

/* Displacement bits at chunk position pos (>= 1). */
static unsigned nt_dbits(size_t pos)
{
	unsigned d = 4;

	while (((size_t)1 << d) < pos)
		d++;
	return d;
}

/* Compressed data of one chunk (<= 4096 bytes) into out; returns its
 * size. Greedy, brute-force longest match within the chunk. */
static size_t nt_chunk(const uint8_t *src, size_t n, uint8_t *out, int mode)
{
	size_t pos = 0, o = 0, flag_at = 0;
	unsigned nflags = 8;

	while (pos < n) {
		size_t best = 0, best_d = 0;

		if (nflags == 8) {
			flag_at = o;
			out[o++] = 0;
			nflags = 0;
		}
		if (mode != NT_LITERALS && pos > 0) {
			unsigned d = nt_dbits(pos);
			size_t maxlen = ((size_t)1 << (16 - d)) + 2, q;

			if (maxlen > n - pos)
				maxlen = n - pos;
			/* Nearest first; stop at a maximal match. */
			for (q = pos; q-- > 0 && best < maxlen;) {
				size_t l = 0;

				while (l < maxlen && src[q + l] == src[pos + l])
					l++;
				if (l > best) {
					best = l;
					best_d = pos - q;
				}
			}
		}
		if (best >= 3) {
			unsigned d = nt_dbits(pos);
			uint32_t w = (uint32_t)((best_d - 1) << (16 - d)) |
			             (uint32_t)(best - 3);

			out[flag_at] |= (uint8_t)(1u << nflags);
			out[o++] = (uint8_t)w;
			out[o++] = (uint8_t)(w >> 8);
			nt_width_use[d]++;
			pos += best;
		} else {
			out[o++] = src[pos++];
		}
		nflags++;
	}
	return o;
}

/* Whole stream; returns its length. out needs n + n/4096*2 + 4096 + 16
 * bytes at most. A zero terminator is appended when `terminate`. */
static size_t nt_encode(const uint8_t *src, size_t n, uint8_t *out, int mode,
                        int terminate)
{
	size_t ip = 0, o = 0;
	uint8_t *tmp = xmalloc(4096 + 4096 / 8 + 16);

	while (ip < n) {
		size_t k = n - ip < 4096 ? n - ip : 4096;
		size_t c = mode == NT_RAW ? (size_t)-1 : nt_chunk(src + ip, k, tmp, mode);

		if (c <= 4096 && (mode == NT_LITERALS || c < k)) {
			uint32_t h = 0x8000u | 0x3000u | (uint32_t)(c - 1);

			out[o++] = (uint8_t)h;
			out[o++] = (uint8_t)(h >> 8);
			memcpy(out + o, tmp, c);
			o += c;
		} else {
			uint32_t h = 0x3000u | (uint32_t)(k - 1);

			out[o++] = (uint8_t)h;
			out[o++] = (uint8_t)(h >> 8);
			memcpy(out + o, src + ip, k);
			o += k;
		}
		ip += k;
	}
	if (terminate) {
		out[o++] = 0;
		out[o++] = 0;
	}
	free(tmp);
	return o;
}

static size_t nt_cap(size_t n)
{
	return n + (n / 4096 + 1) * (2 + 4096 / 8) + 16;
}

static int nt_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                  size_t *out_len, int *err, size_t *err_pos)
{
	return etl_lznt1_decompress(src, n, dst, cap, out_len, err, err_pos);
}

START_TEST(test_lznt1_spec_example)
{
	/* [MS-XCA] 3.3: 142-byte string, 59-byte LZNT1 stream. */
	static const uint8_t c[] = {
		0x38, 0xb0, 0x88, 0x46, 0x23, 0x20, 0x00, 0x20, 0x47, 0x20,
		0x41, 0x00, 0x10, 0xa2, 0x47, 0x01, 0xa0, 0x45, 0x20, 0x44,
		0x00, 0x08, 0x45, 0x01, 0x50, 0x79, 0x00, 0xc0, 0x45, 0x20,
		0x05, 0x24, 0x13, 0x88, 0x05, 0xb4, 0x02, 0x4a, 0x44, 0xef,
		0x03, 0x58, 0x02, 0x8c, 0x09, 0x16, 0x01, 0x48, 0x45, 0x00,
		0xbe, 0x00, 0x9e, 0x00, 0x04, 0x01, 0x18, 0x90, 0x00,
	};
	static const char s[] =
		"F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E "
		"F# E D D E E F# D E F# G F# D E F# G F# E D E A F# F# G A A "
		"G F# E D D E F# E D D";
	struct dres r;

	ck_assert_uint_eq(sizeof s, 142);
	expect_decodes(nt_dec, c, sizeof c, (const uint8_t *)s, sizeof s);
	/* More room: the stream ends by itself. */
	r = run_dec(nt_dec, c, sizeof c, 1000, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, sizeof s);
	expect_prefix_safe(nt_dec, c, sizeof c, (const uint8_t *)s, sizeof s, 1);
}
END_TEST

static void nt_roundtrip(const uint8_t *in, size_t n, int mode)
{
	uint8_t *c = xmalloc(nt_cap(n));
	size_t clen = nt_encode(in, n, c, mode, 0);
	struct dres r;

	expect_decodes(nt_dec, c, clen, in, n);
	r = run_dec(nt_dec, c, clen, n + 5000, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, n);
	/* With a terminator word too. */
	clen = nt_encode(in, n, c, mode, 1);
	r = run_dec(nt_dec, c, clen, n + 5000, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, n);
	free(c);
}

START_TEST(test_lznt1_roundtrip)
{
	size_t n = 3 * 4096 + 1000, i;
	uint8_t *in = xmalloc(n);
	int mode;

	memset(nt_width_use, 0, sizeof nt_width_use);
	for (mode = NT_NORMAL; mode <= NT_LITERALS; mode++) {
		fill_text(in, n, 21);
		nt_roundtrip(in, n, mode);
		memset(in, 0, n);               /* longest copies */
		nt_roundtrip(in, n, mode);
		fill_random(in, n, 22);         /* falls back to raw chunks */
		nt_roundtrip(in, n, mode);
		for (i = 0; i < n; i++)         /* periodic, period 1000 */
			in[i] = (uint8_t)((i % 1000) * 7);
		nt_roundtrip(in, n, mode);
		for (i = 1; i <= 70; i++) {
			fill_text(in, i, 100 + i);
			nt_roundtrip(in, i, mode);
		}
		nt_roundtrip(in, 4096, mode);
		nt_roundtrip(in, 4097, mode);
	}
	/* Copies at every displacement width were exercised. */
	for (i = 4; i <= 12; i++)
		ck_assert_msg(nt_width_use[i] > 0, "no copy with %zu bits", i);
	free(in);
}
END_TEST

START_TEST(test_lznt1_long_copies)
{
	/* Zeros: the copy at position 1 takes 4095 bytes (12 length bits). */
	uint8_t in[4096] = { 0 };
	uint8_t c[64];
	size_t clen = nt_encode(in, sizeof in, c, NT_NORMAL, 0);

	/* header, flag 0b10, literal 0, copy (disp 1, len 4095) */
	ck_assert_uint_eq(clen, 2 + 1 + 1 + 2);
	ck_assert_uint_eq(tu_le16(c), 0xb000u | 3u);
	ck_assert_uint_eq(c[2], 0x02);
	ck_assert_uint_eq(tu_le16(c + 4), 4095u - 3u);
	expect_decodes(nt_dec, c, clen, in, sizeof in);
}
END_TEST

START_TEST(test_lznt1_zero_fill)
{
	/* A short compressed chunk ("abc") followed by another chunk: the
	 * gap up to 4096 is zeros. */
	static const uint8_t c[] = { 0x03, 0xb0, 0x00, 'a', 'b', 'c',
	                             0x02, 0x30, 'x', 'y', 'z' };
	uint8_t *want = calloc(4099, 1);
	size_t cap;

	ck_assert_ptr_nonnull(want);
	memcpy(want, "abc", 3);
	memcpy(want + 4096, "xyz", 3);
	expect_decodes(nt_dec, c, sizeof c, want, 4099);
	for (cap = 0; cap <= 4099; cap += 97) {
		uint8_t *out = xmalloc(cap);
		struct dres r = run_dec(nt_dec, c, sizeof c, cap, out);

		ck_assert_int_eq(r.rc, ETL_OK);
		ck_assert_uint_eq(r.out_len, cap);
		TU_CHECK(memcmp(out, want, cap) == 0, "cap %zu", cap);
		free(out);
	}
	/* Without the second chunk: no fill. */
	{
		struct dres r = run_dec(nt_dec, c, 6, 5000, NULL);

		ck_assert_int_eq(r.rc, ETL_OK);
		ck_assert_uint_eq(r.out_len, 3);
	}
	free(want);
}
END_TEST

START_TEST(test_lznt1_terminators)
{
	static const uint8_t c[] = { 0x02, 0x30, 'x', 'y', 'z', 0x00, 0x00,
	                             0xff, 0xff, 0xff };
	struct dres r;

	/* Data after a zero header word is not examined. */
	r = run_dec(nt_dec, c, sizeof c, 100, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, 3);
	/* A lone byte where a header should be is truncation. */
	expect_malformed(nt_dec, c, 6, 100, 5);
	/* Empty input, empty output. */
	r = run_dec(nt_dec, c, 0, 100, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, 0);
	r = run_dec(nt_dec, c, sizeof c, 0, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, 0);
}
END_TEST

START_TEST(test_lznt1_malformed)
{
	/* Bad signatures (every value but 3), compressed or not. */
	{
		uint32_t sig;

		for (sig = 0; sig < 8; sig++) {
			uint8_t c[] = { 0x02, 0x00, 'a', 'b', 'c' };
			uint32_t h = (sig << 12) | 2u;

			if (sig == 3)
				continue;
			c[0] = (uint8_t)h;
			c[1] = (uint8_t)(h >> 8);
			expect_malformed(nt_dec, c, sizeof c, 100, 0);
			c[1] |= 0x80;
			expect_malformed(nt_dec, c, sizeof c, 100, 0);
		}
	}
	/* Chunk size beyond the input (second chunk). */
	{
		static const uint8_t c[] = { 0x00, 0x30, 'a', 0x05, 0x30, 'b' };

		expect_malformed(nt_dec, c, sizeof c, 100, 3);
	}
	/* Copy as the first token: displacement before the chunk. */
	{
		static const uint8_t c[] = { 0x02, 0xb0, 0x01, 0x00, 0x00 };

		expect_malformed(nt_dec, c, sizeof c, 100, 3);
	}
	/* Displacement 2 at position 1. */
	{
		static const uint8_t c[] = { 0x03, 0xb0, 0x02, 'a', 0x00, 0x10 };

		expect_malformed(nt_dec, c, sizeof c, 100, 4);
	}
	/* Copy reaching into the previous chunk (4 back at position 1). */
	{
		static const uint8_t c[] = { 0x03, 0x30, 'a', 'b', 'c', 'd',
		                             0x03, 0xb0, 0x02, 'e', 0x00, 0x30 };
		struct dres r = run_dec(nt_dec, c, sizeof c, 8192, NULL);

		ck_assert_int_eq(r.rc, ETL_FAILED);
		ck_assert_uint_eq(r.err_pos, 10);
		/* 4 bytes, the zero fill, then 'e': all correct output. */
		ck_assert_uint_eq(r.out_len, 4097);
	}
	/* Copy word cut by the chunk end. */
	{
		static const uint8_t c[] = { 0x02, 0xb0, 0x02, 'a', 0x00, 0x00 };

		expect_malformed(nt_dec, c, 5, 100, 4);
	}
	/* A chunk producing more than 4096 bytes: 'a' + 4095 copied, then
	 * one more literal. */
	{
		static const uint8_t c[] = { 0x04, 0xb0, 0x02, 'a', 0xfc, 0x0f, 'b' };

		expect_malformed(nt_dec, c, sizeof c, 10000, 6);
	}
	/* A copy longer than the room left in dst. */
	{
		static const uint8_t c[] = { 0x03, 0xb0, 0x02, 'a', 0x07, 0x00 };
		struct dres r = run_dec(nt_dec, c, sizeof c, 5, NULL);

		ck_assert_int_eq(r.rc, ETL_FAILED);
		ck_assert_uint_eq(r.err_pos, 4);
		ck_assert_uint_eq(r.out_len, 1);
		r = run_dec(nt_dec, c, sizeof c, 11, NULL);
		ck_assert_int_eq(r.rc, ETL_OK);
		ck_assert_uint_eq(r.out_len, 11);
	}
}
END_TEST

START_TEST(test_lznt1_truncated)
{
	size_t n = 2 * 4096 + 300;
	uint8_t *in = xmalloc(n);
	uint8_t *c = xmalloc(nt_cap(n));
	size_t clen;

	fill_text(in, n, 31);
	clen = nt_encode(in, n, c, NT_NORMAL, 1);
	expect_prefix_safe(nt_dec, c, clen, in, n, 1);
	clen = nt_encode(in, n, c, NT_LITERALS, 0);
	expect_prefix_safe(nt_dec, c, clen, in, n, 7);
	free(in);
	free(c);
}
END_TEST

START_TEST(test_lznt1_garbage)
{
	/* Random bytes with a valid-looking header: never unsafe. */
	uint8_t buf[600];
	size_t k;

	for (k = 0; k < 3000; k++) {
		size_t n = 2 + k % 598;

		fill_random(buf, n, 900 + k);
		buf[1] = (uint8_t)((buf[1] & 0x8f) | 0x30);
		run_dec(nt_dec, buf, n, k % 5000, NULL);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* LZ77+Huffman: test-only encoder                                      */
/* ------------------------------------------------------------------ */

#define XH_NSYM 512

/* Huffman code lengths for freq[] (0 = unused), limited to maxbits by
 * flattening the frequencies until the tree is shallow enough. At least
 * two symbols always get a code, so the code is complete. */
static void huff_lengths(const uint32_t *freq_in, uint8_t *len, unsigned maxbits)
{
	uint32_t freq[XH_NSYM];
	size_t used = 0, i;

	memcpy(freq, freq_in, sizeof freq);
	for (i = 0; i < XH_NSYM; i++)
		used += freq[i] != 0;
	if (used < 2) {
		/* Add one or two dummy symbols so that a complete code exists. */
		for (i = 0; i < XH_NSYM && used < 2; i++) {
			if (!freq[i]) {
				freq[i] = 1;
				used++;
			}
		}
	}
	for (;;) {
		/* Simple O(n^2) tree build over the used symbols. */
		uint64_t w[2 * XH_NSYM];
		int parent[2 * XH_NSYM], alive[2 * XH_NSYM];
		int nodes = XH_NSYM, k;
		unsigned maxlen = 0;

		for (k = 0; k < XH_NSYM; k++) {
			w[k] = freq[k];
			alive[k] = freq[k] != 0;
			parent[k] = -1;
		}
		for (;;) {
			int a = -1, b = -1;

			for (k = 0; k < nodes; k++) {
				if (!alive[k])
					continue;
				if (a < 0 || w[k] < w[a]) {
					b = a;
					a = k;
				} else if (b < 0 || w[k] < w[b]) {
					b = k;
				}
			}
			if (b < 0)
				break;
			w[nodes] = w[a] + w[b];
			alive[nodes] = 1;
			parent[nodes] = -1;
			alive[a] = alive[b] = 0;
			parent[a] = parent[b] = nodes;
			nodes++;
		}
		for (k = 0; k < XH_NSYM; k++) {
			unsigned d = 0;
			int p = k;

			if (!freq[k]) {
				len[k] = 0;
				continue;
			}
			while (parent[p] >= 0) {
				p = parent[p];
				d++;
			}
			len[k] = (uint8_t)(d > 15 ? 15 : d);
			if (d > maxlen)
				maxlen = d;
		}
		if (maxlen <= maxbits)
			return;
		for (k = 0; k < XH_NSYM; k++)
			if (freq[k])
				freq[k] = (freq[k] >> 1) | 1;
	}
}

/* Bit writer that mirrors the decoder: 16-bit words are reserved at the
 * current output position exactly when the decoder would load them. */
struct xh_writer {
	uint8_t *out;
	size_t pos, cap;
	size_t *slot;           /* output offset of each word of the block */
	size_t nslot, slotcap;
	uint64_t used;          /* bits written in this block               */
	uint32_t acc;           /* bits of the current word                 */
	unsigned accn;
};

static void xw_reserve(struct xh_writer *w)
{
	if (w->nslot == w->slotcap) {
		w->slotcap = w->slotcap ? w->slotcap * 2 : 256;
		w->slot = realloc(w->slot, w->slotcap * sizeof *w->slot);
		ck_assert_ptr_nonnull(w->slot);
	}
	TU_REQUIRE(w->pos + 2 <= w->cap);
	w->slot[w->nslot++] = w->pos;
	w->out[w->pos] = 0;
	w->out[w->pos + 1] = 0;
	w->pos += 2;
}

static void xw_block_start(struct xh_writer *w, const uint8_t *len)
{
	size_t i;

	TU_REQUIRE(w->pos + 256 <= w->cap);
	for (i = 0; i < 256; i++)
		w->out[w->pos + i] = (uint8_t)(len[2 * i] | (len[2 * i + 1] << 4));
	w->pos += 256;
	w->nslot = 0;
	w->used = 0;
	w->acc = 0;
	w->accn = 0;
	xw_reserve(w);
	xw_reserve(w);
}

static void xw_bits(struct xh_writer *w, uint32_t v, unsigned n)
{
	unsigned k;

	for (k = n; k-- > 0;) {
		size_t word = (size_t)(w->used / 16);

		w->acc = (w->acc << 1) | ((v >> k) & 1u);
		w->used++;
		if (++w->accn == 16) {
			TU_REQUIRE(word < w->nslot);
			w->out[w->slot[word]] = (uint8_t)w->acc;
			w->out[w->slot[word] + 1] = (uint8_t)(w->acc >> 8);
			w->acc = 0;
			w->accn = 0;
		}
	}
	/* The decoder loads word j once more than 16 * (j - 1) bits are
	 * consumed. */
	while (w->used > 16 * (uint64_t)(w->nslot - 1))
		xw_reserve(w);
}

static void xw_byte(struct xh_writer *w, uint8_t b)
{
	TU_REQUIRE(w->pos < w->cap);
	w->out[w->pos++] = b;
}

static void xw_block_end(struct xh_writer *w)
{
	if (w->accn) {
		uint32_t v = w->acc << (16 - w->accn);
		size_t word = (size_t)(w->used / 16);

		w->out[w->slot[word]] = (uint8_t)v;
		w->out[w->slot[word] + 1] = (uint8_t)(v >> 8);
	}
}

static unsigned log2_floor(uint32_t v)
{
	unsigned r = 0;

	while (v >>= 1)
		r++;
	return r;
}

static uint32_t xh_sym(const struct tok *t)
{
	uint32_t l;

	if (!t->dist)
		return t->lit;
	l = t->len - 3 < 15 ? t->len - 3 : 15;
	return 256 + (log2_floor(t->dist) << 4) + l;
}

/* Options of the encoder. */
struct xh_opts {
	int fixed;              /* all 512 symbols 9 bits instead of Huffman */
	int eof;                /* end with symbol 256                       */
	int u16_small;          /* lengths 18.. via the u16 form (v >= 15)    */
};

/* Encodes the token list; returns the stream length. */
static size_t xh_encode(const struct toks *v, const struct xh_opts *o,
                        uint8_t *out, size_t cap)
{
	struct xh_writer w;
	size_t i = 0, op = 0;

	memset(&w, 0, sizeof w);
	w.out = out;
	w.cap = cap;
	do {
		uint32_t freq[XH_NSYM] = { 0 };
		uint8_t len[XH_NSYM];
		uint32_t code[XH_NSYM] = { 0 };
		size_t j, end = i, bop = op, eop = op;
		uint32_t next15 = 0;
		unsigned l;
		int last, s;

		/* Tokens starting before the block's 65536th byte. */
		while (end < v->n && eop < bop + 65536) {
			freq[xh_sym(&v->t[end])]++;
			eop += v->t[end].dist ? v->t[end].len : 1;
			end++;
		}
		last = end == v->n;
		/* EOF in this block unless it is exactly full (the decoder would
		 * not read it): then in a block of its own. */
		if (last && o->eof && eop < bop + 65536)
			freq[256]++;
		if (o->fixed)
			memset(len, 9, sizeof len);
		else
			huff_lengths(freq, len, 15);
		/* Canonical codes: by (length, symbol), each taking the next
		 * 2^(15 - length) values of the 15-bit space. */
		for (l = 1; l <= 15; l++)
			for (s = 0; s < XH_NSYM; s++)
				if (len[s] == l) {
					code[s] = next15 >> (15 - l);
					next15 += 1u << (15 - l);
				}
		TU_REQUIRE(next15 == 1u << 15);
		xw_block_start(&w, len);
		for (j = i; j < end; j++) {
			const struct tok *t = &v->t[j];
			uint32_t sym = xh_sym(t);

			TU_REQUIRE(len[sym] > 0);
			xw_bits(&w, code[sym], len[sym]);
			if (t->dist) {
				unsigned d = log2_floor(t->dist);

				if (t->len - 3 >= 15) {
					uint32_t x = t->len - 3 - 15;

					if (x < 255 && !o->u16_small) {
						xw_byte(&w, (uint8_t)x);
					} else {
						uint32_t vv = t->len - 3;

						xw_byte(&w, 255);
						if (vv <= 0xffff) {
							xw_byte(&w, (uint8_t)vv);
							xw_byte(&w, (uint8_t)(vv >> 8));
						} else {
							xw_byte(&w, 0);
							xw_byte(&w, 0);
							xw_byte(&w, (uint8_t)vv);
							xw_byte(&w, (uint8_t)(vv >> 8));
							xw_byte(&w, (uint8_t)(vv >> 16));
							xw_byte(&w, (uint8_t)(vv >> 24));
						}
					}
				}
				if (d)
					xw_bits(&w, t->dist - (1u << d), d);
				op += t->len;
			} else {
				op++;
			}
		}
		if (last && o->eof && eop < bop + 65536)
			xw_bits(&w, code[256], len[256]);
		xw_block_end(&w);
		i = end;
		if (last && o->eof && eop >= bop + 65536) {
			/* EOF-only block. */
			memset(freq, 0, sizeof freq);
			freq[256] = 1;
			huff_lengths(freq, len, 15);
			next15 = 0;
			for (l = 1; l <= 15; l++)
				for (s = 0; s < XH_NSYM; s++)
					if (len[s] == l) {
						code[s] = next15 >> (15 - l);
						next15 += 1u << (15 - l);
					}
			xw_block_start(&w, len);
			xw_bits(&w, code[256], len[256]);
			xw_block_end(&w);
		}
	} while (i < v->n);
	free(w.slot);
	return w.pos;
}

static int xh_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                  size_t *out_len, int *err, size_t *err_pos)
{
	return etl_xpress_huff_decompress(src, n, dst, cap, out_len, err, err_pos);
}

/* A genuine match with symbol 256 (distance 1, length 3) among the last
 * symbols would look like the end marker when decoding with spare room:
 * turn such matches near the end into literals. */
static void toks_fix_tail(struct toks *v, const uint8_t *out)
{
	size_t i, op = 0, tail = v->n > 40 ? v->n - 40 : 0;
	struct toks w = { 0 };

	for (i = 0; i < v->n; i++) {
		struct tok t = v->t[i];

		if (i >= tail && t.dist == 1 && t.len == 3) {
			toks_add(&w, 0, 1, out[op]);
			toks_add(&w, 0, 1, out[op + 1]);
			toks_add(&w, 0, 1, out[op + 2]);
		} else {
			toks_add(&w, t.dist, t.len, t.lit);
		}
		op += t.dist ? t.len : 1;
	}
	free(v->t);
	*v = w;
}

/* Encode with each option set, decode, compare; returns nothing. */
static void xh_roundtrip(struct toks *v, int check_room)
{
	size_t n, clen, cap, f;
	uint8_t *want = toks_apply(v, &n);
	uint8_t *c;

	toks_fix_tail(v, want);
	cap = n * 2 + 4096 + (n / 65536 + 2) * 300 + v->n * 8;
	c = xmalloc(cap);
	for (f = 0; f < 4; f++) {
		struct xh_opts o = { (int)(f & 1), 1, (int)(f >> 1) };
		struct dres r;

		clen = xh_encode(v, &o, c, cap);
		expect_decodes(xh_dec, c, clen, want, n);
		if (check_room) {
			r = run_dec(xh_dec, c, clen, n + 70000, NULL);
			ck_assert_msg(r.rc == ETL_OK, "rc %d pos %zu", r.rc,
			              r.err_pos);
			ck_assert_uint_eq(r.out_len, n);
		}
		/* Without EOF: exact cap needed, and enough. */
		o.eof = 0;
		clen = xh_encode(v, &o, c, cap);
		expect_decodes(xh_dec, c, clen, want, n);
	}
	free(c);
	free(want);
}

START_TEST(test_xh_literals)
{
	struct toks v = { 0 };
	const char *s = "Hello, LZ77+Huffman world!";
	size_t i;

	for (i = 0; s[i]; i++)
		toks_add(&v, 0, 1, (uint8_t)s[i]);
	xh_roundtrip(&v, 1);
	free(v.t);
	/* A single literal (one used symbol + EOF). */
	memset(&v, 0, sizeof v);
	toks_add(&v, 0, 1, 'q');
	xh_roundtrip(&v, 1);
	free(v.t);
}
END_TEST

START_TEST(test_xh_every_class)
{
	/* 70000 skewed literals (long codes appear), then a match of every
	 * (distance class, length class) pair, then every extension form. */
	struct toks v = { 0 };
	uint64_t s = 77;
	size_t i, op = 0;
	uint32_t d, l;
	static const uint32_t ext[] = { 18, 19, 100, 271, 272, 273, 274, 1000,
	                                65535, 65538, 65539, 65540, 100000 };

	for (i = 0; i < 70000; i++) {
		uint64_t r = tu_rand(&s);
		unsigned b = 0;

		while ((r & 1) && b < 40) {
			r >>= 1;
			b++;
		}
		toks_add(&v, 0, 1, (uint8_t)('A' + b));
		op++;
	}
	for (d = 0; d < 16; d++) {
		for (l = 0; l < 16; l++) {
			uint32_t dist = (1u << d) + (uint32_t)(tu_rand(&s) % (1u << d));
			uint32_t len = l < 15 ? l + 3 : 18 + (uint32_t)(tu_rand(&s) % 40);

			if (dist > 65535)
				dist = 65535;
			toks_add(&v, dist, len, 0);
			op += len;
			toks_add(&v, 0, 1, 'z');
			op++;
		}
	}
	for (i = 0; i < sizeof ext / sizeof *ext; i++) {
		toks_add(&v, 1 + (uint32_t)i * 1000, ext[i], 0);
		toks_add(&v, 0, 1, '#');
	}
	(void)op;
	xh_roundtrip(&v, 1);
	free(v.t);
}
END_TEST

START_TEST(test_xh_long_codes_used)
{
	/* The skewed data above must give codes longer than the root table
	 * (10 bits) and up to 15 bits: check the encoder's lengths. */
	uint32_t freq[XH_NSYM] = { 0 };
	uint8_t len[XH_NSYM];
	unsigned i, maxl = 0, n_long = 0;

	for (i = 0; i < 40; i++)
		freq['A' + i] = 1u << (i < 30 ? 30 - i : 0);
	for (i = 256; i < 512; i++)
		freq[i] = 1;
	huff_lengths(freq, len, 15);
	for (i = 0; i < XH_NSYM; i++) {
		if (len[i] > maxl)
			maxl = len[i];
		n_long += len[i] > 10;
	}
	ck_assert_uint_eq(maxl, 15);
	ck_assert_uint_gt(n_long, 100);
	/* And a stream with these lengths decodes (long-code path). */
	{
		struct toks v = { 0 };
		uint64_t s = 5;

		for (i = 0; i < 50000; i++) {
			uint64_t r = tu_rand(&s);
			unsigned b = 0;

			while ((r & 1) && b < 39) {
				r >>= 1;
				b++;
			}
			toks_add(&v, 0, 1, (uint8_t)('A' + b));
		}
		for (i = 0; i < 256; i++) {
			uint32_t dd = 1u << (i >> 4);

			toks_add(&v, dd > 40000 ? 40000 : dd, 3 + (i & 15), 0);
		}
		xh_roundtrip(&v, 1);
		free(v.t);
	}
}
END_TEST

START_TEST(test_xh_realistic)
{
	/* Token streams from the Plain LZ77 compressor (text, zeros, random,
	 * a corpus buffer), re-encoded with Huffman codes: several blocks. */
	size_t n = 200000, clen, k;
	uint8_t *in = xmalloc(n);

	for (k = 0; k < 4; k++) {
		struct lzstat st;
		struct toks v = { 0 };
		uint8_t *c;

		if (k == 0)
			fill_text(in, n, 61);
		else if (k == 1)
			memset(in, 0, n);
		else if (k == 2)
			fill_random(in, n, 62);
		else {
			size_t i;

			for (i = 0; i < n; i++)
				in[i] = (uint8_t)(i / 300);
		}
		c = lz_roundtrip(in, n, &clen, &st, &v);
		xh_roundtrip(&v, 1);
		free(c);
		free(v.t);
	}
	free(in);
}
END_TEST

START_TEST(test_xh_block_sizes)
{
	/* Outputs around the 65536-byte block size, including a match that
	 * runs past the block's end and a block ending exactly at it. */
	static const size_t sizes[] = { 65535, 65536, 65537, 131071, 131072,
	                                131073 };
	size_t k;

	for (k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		struct toks v = { 0 };
		uint64_t s = 3 + k;
		size_t op = 0;

		/* literals, and matches of 3..40 bytes at short distances */
		while (op < sizes[k]) {
			size_t left = sizes[k] - op;
			uint32_t len = 3 + (uint32_t)(tu_rand(&s) % 38);

			if (op < 100 || left < len || (tu_rand(&s) & 3) == 0) {
				toks_add(&v, 0, 1, (uint8_t)tu_rand(&s));
				op++;
			} else {
				toks_add(&v, 1 + (uint32_t)(tu_rand(&s) % 100), len, 0);
				op += len;
			}
		}
		xh_roundtrip(&v, 1);
		free(v.t);
	}
	{
		/* One literal, then one match over the block boundary. */
		struct toks v = { 0 };

		toks_add(&v, 0, 1, 7);
		toks_add(&v, 1, 65536 + 500, 0);
		toks_add(&v, 0, 1, 8);
		xh_roundtrip(&v, 1);
		free(v.t);
	}
}
END_TEST

START_TEST(test_xh_windows_example)
{
	/* 65537 zeros as compressed by Windows' Compression API (quoted on
	 * the cifs-protocol list, 2022): lengths 2 for 0x00 and 0x100, 1 for
	 * 0x10f; bits 10 0 11: literal 0, match (distance 1, length from
	 * the byte 255 and u16 0xfffd: 65536), EOF. */
	uint8_t c[263];
	uint8_t *want = calloc(65537, 1);
	struct dres r;

	ck_assert_ptr_nonnull(want);
	memset(c, 0, sizeof c);
	c[0] = 0x02;
	c[128] = 0x02;
	c[135] = 0x10;
	memcpy(c + 256, "\x00\x98\x00\x00\xff\xfd\xff", 7);
	expect_decodes(xh_dec, c, sizeof c, want, 65537);
	r = run_dec(xh_dec, c, sizeof c, 100000, NULL);
	ck_assert_int_eq(r.rc, ETL_OK);
	ck_assert_uint_eq(r.out_len, 65537);
	expect_prefix_safe(xh_dec, c, sizeof c, want, 65537, 1000);
	free(want);
}
END_TEST

/* A table with literal 'a' (code 0) and symbol 0x10f (code 1). */
static void xh_table_a_10f(uint8_t *c)
{
	memset(c, 0, 256);
	c['a' / 2] = 0x10;              /* 'a' = 97, odd: high nibble */
	c[0x10f / 2] = 0x10;            /* 0x10f odd: high nibble     */
}

START_TEST(test_xh_malformed_tables)
{
	uint8_t c[300];

	memset(c, 0, sizeof c);
	/* All-zero table. */
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Over-subscribed: three codes of length 1. */
	c[0] = 0x11;
	c[1] = 0x01;
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Incomplete: a single code of length 1. */
	memset(c, 0, sizeof c);
	c[0] = 0x01;
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Complete: 512 codes of 9 bits; zero bits decode as literal 0. */
	memset(c, 0x99, 256);
	expect_decodes(xh_dec, c, sizeof c, (const uint8_t *)"\0\0\0", 3);
	/* Incomplete: 511 codes of 9 bits. */
	c[255] = 0x09;
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Incomplete: 511 x 9 bits + one 15-bit code. */
	c[255] = 0xf9;
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Over-subscribed: 511 x 9 bits + one 8-bit code. */
	c[255] = 0x89;
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Over-subscribed: two codes of length 1 and one of length 15. */
	memset(c, 0, 256);
	c[0] = 0x11;
	c[1] = 0x0f;
	expect_malformed(xh_dec, c, sizeof c, 100, 0);
	/* Complete table but the block is cut short of its first words. */
	xh_table_a_10f(c);
	memset(c + 256, 0, 4);
	expect_malformed(xh_dec, c, 259, 100, 0);
	expect_decodes(xh_dec, c, 260, (const uint8_t *)"aaaa", 4);
}
END_TEST

START_TEST(test_xh_second_block_short)
{
	/* A block of exactly 65536 bytes without EOF, then fewer bytes than
	 * a table: fine when the caller stops at 65536, malformed beyond. */
	struct toks v = { 0 };
	struct xh_opts o = { 0, 0, 0 };
	uint8_t *c = xmalloc(4096), *want = calloc(65536, 1);
	size_t clen, extra;

	ck_assert_ptr_nonnull(want);
	toks_add(&v, 0, 1, 0);
	toks_add(&v, 1, 65535, 0);
	clen = xh_encode(&v, &o, c, 4096);
	expect_decodes(xh_dec, c, clen, want, 65536);
	for (extra = 1; extra < 260; extra += 37) {
		struct dres r;

		memset(c + clen, 0x99, extra);
		r = run_dec(xh_dec, c, clen + extra, 65536, NULL);
		ck_assert_int_eq(r.rc, ETL_OK);
		ck_assert_uint_eq(r.out_len, 65536);
		r = run_dec(xh_dec, c, clen + extra, 70000, NULL);
		ck_assert_int_eq(r.rc, ETL_FAILED);
		ck_assert_uint_eq(r.err_pos, clen);
		ck_assert_uint_eq(r.out_len, 65536);
	}
	/* Exactly at the end of the input: a clean stop. */
	{
		struct dres r = run_dec(xh_dec, c, clen, 70000, NULL);

		ck_assert_int_eq(r.rc, ETL_OK);
		ck_assert_uint_eq(r.out_len, 65536);
	}
	/* With EOF: the encoder puts it in a block of its own. */
	o.eof = 1;
	clen = xh_encode(&v, &o, c, 4096);
	{
		struct dres r = run_dec(xh_dec, c, clen, 70000, NULL);

		ck_assert_int_eq(r.rc, ETL_OK);
		ck_assert_uint_eq(r.out_len, 65536);
	}
	free(v.t);
	free(c);
	free(want);
}
END_TEST

START_TEST(test_xh_malformed_matches)
{
	uint8_t c[300];
	struct dres r;

	/* First symbol a match: distance before the output start. */
	xh_table_a_10f(c);
	memset(c + 256, 0, 44);
	c[256 + 1] = 0x80;              /* bits 1...: symbol 0x10f first */
	c[260] = 3;                     /* length byte: 3 + 18 = 21      */
	expect_malformed(xh_dec, c, 261, 100, 260);

	/* 'a' then 0x10f with byte 255 and u16 v. Bits "01": word 0x4000. */
	xh_table_a_10f(c);
	memset(c + 256, 0, 44);
	c[257] = 0x40;
	c[260] = 0xff;
	c[261] = 14;                    /* v = 14 < 15: invalid */
	c[262] = 0;
	expect_malformed(xh_dec, c, 263, 100, 260);
	c[261] = 15;                    /* v = 15: length 18    */
	{
		uint8_t want[19];

		memset(want, 'a', sizeof want);
		expect_decodes(xh_dec, c, 263, want, 19);
	}
	/* Truncated length byte, u16, u32. */
	expect_malformed(xh_dec, c, 260, 100, 260);
	expect_malformed(xh_dec, c, 262, 100, 260);
	c[261] = 0;
	c[262] = 0;                     /* u16 0: a u32 follows */
	c[263] = 0x20;
	c[264] = 0;
	c[265] = 0;
	c[266] = 0;
	expect_malformed(xh_dec, c, 266, 100, 260);
	{
		uint8_t want[36];

		memset(want, 'a', sizeof want);
		expect_decodes(xh_dec, c, 267, want, 36);
	}
	/* u32 value below 15. */
	c[263] = 3;
	expect_malformed(xh_dec, c, 267, 100, 260);
	/* Match longer than the room left. */
	c[263] = 0x20;
	r = run_dec(xh_dec, c, 267, 20, NULL);
	ck_assert_int_eq(r.rc, ETL_FAILED);
	ck_assert_uint_eq(r.out_len, 1);
	/* A huge u32 length (2^32 - 1 + 3 bytes): rejected, no overflow. */
	c[263] = 0xff;
	c[264] = 0xff;
	c[265] = 0xff;
	c[266] = 0xff;
	r = run_dec(xh_dec, c, 267, 1000, NULL);
	ck_assert_int_eq(r.rc, ETL_FAILED);
	/* Distance beyond the output: 'a' then a match of distance 2. */
	memset(c, 0, 256);
	c['a' / 2] = 0x10;
	c[0x11f / 2] = 0x10;            /* D = 1, L = 15 */
	memset(c + 256, 0, 44);
	c[257] = 0x40;                  /* 'a', 0x11f, extra bit 0 -> dist 2 */
	c[260] = 0;
	expect_malformed(xh_dec, c, 261, 100, 260);
}
END_TEST

START_TEST(test_xh_truncated)
{
	/* A two-block stream cut at every byte and capped at many sizes. */
	size_t n = 70000, clen, cap;
	uint8_t *in = xmalloc(n);
	struct lzstat st;
	struct toks v = { 0 };
	uint8_t *c, *hc;
	struct xh_opts o = { 0, 1, 0 };
	uint8_t *want;

	fill_text(in, n, 71);
	c = lz_roundtrip(in, n, &clen, &st, &v);
	want = toks_apply(&v, &n);
	toks_fix_tail(&v, want);
	cap = n * 2 + 100000;
	hc = xmalloc(cap);
	clen = xh_encode(&v, &o, hc, cap);
	expect_decodes(xh_dec, hc, clen, want, n);
	expect_prefix_safe(xh_dec, hc, clen, want, n, 13);
	/* every cut near the block boundary and the end */
	{
		size_t cut;

		for (cut = clen > 2000 ? clen - 2000 : 0; cut < clen; cut++) {
			uint8_t *out = xmalloc(n);
			struct dres r = run_dec(xh_dec, hc, cut, n, out);

			TU_CHECK(memcmp(out, want, r.out_len) == 0, "cut %zu", cut);
			free(out);
		}
	}
	free(hc);
	free(c);
	free(v.t);
	free(want);
	free(in);
}
END_TEST

START_TEST(test_xh_garbage)
{
	/* Valid tables with random bit streams: never unsafe. */
	uint8_t buf[2000];
	size_t k;

	for (k = 0; k < 2000; k++) {
		size_t n = 256 + k % 1700;

		fill_random(buf, n, 4000 + k);
		memset(buf, 0x99, 256);          /* 512 x 9 bits: complete */
		if (k & 1) {
			memset(buf, 0, 256);
			buf[0] = 0x11;           /* symbols 0, 1: 1 bit each */
		}
		if (k % 3 == 0) {
			memset(buf, 0, 256);     /* 0x100..0x1ff: 8 bits    */
			memset(buf + 128, 0x88, 128);
		}
		run_dec(xh_dec, buf, n, k % 3000 * 10, NULL);
	}
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *compress_suite(void)
{
	Suite *s = suite_create("compress");
	TCase *tl = tcase_create("lz77_compress");
	TCase *tc = tcase_create("lz77_corpus");
	TCase *tn = tcase_create("lznt1");
	TCase *th = tcase_create("xpress_huff");

	tcase_set_timeout(tl, 300);
	tcase_add_test(tl, test_lz77c_empty);
	tcase_add_test(tl, test_lz77c_bound);
	tcase_add_test(tl, test_lz77c_tiny);
	tcase_add_test(tl, test_lz77c_spec_examples);
	tcase_add_test(tl, test_lz77c_runs);
	tcase_add_test(tl, test_lz77c_lengths);
	tcase_add_test(tl, test_lz77c_window_edge);
	tcase_add_test(tl, test_lz77c_random);
	tcase_add_test(tl, test_lz77c_text);
	tcase_add_test(tl, test_lz77c_dst_cap);
	tcase_add_test(tl, test_lz77c_misaligned_workspace);
	suite_add_tcase(s, tl);

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_lz77c_corpus);
	suite_add_tcase(s, tc);

	tcase_set_timeout(tn, 300);
	tcase_add_test(tn, test_lznt1_spec_example);
	tcase_add_test(tn, test_lznt1_roundtrip);
	tcase_add_test(tn, test_lznt1_long_copies);
	tcase_add_test(tn, test_lznt1_zero_fill);
	tcase_add_test(tn, test_lznt1_terminators);
	tcase_add_test(tn, test_lznt1_malformed);
	tcase_add_test(tn, test_lznt1_truncated);
	tcase_add_test(tn, test_lznt1_garbage);
	suite_add_tcase(s, tn);

	tcase_set_timeout(th, 300);
	tcase_add_test(th, test_xh_literals);
	tcase_add_test(th, test_xh_every_class);
	tcase_add_test(th, test_xh_long_codes_used);
	tcase_add_test(th, test_xh_realistic);
	tcase_add_test(th, test_xh_block_sizes);
	tcase_add_test(th, test_xh_windows_example);
	tcase_add_test(th, test_xh_malformed_tables);
	tcase_add_test(th, test_xh_second_block_short);
	tcase_add_test(th, test_xh_malformed_matches);
	tcase_add_test(th, test_xh_truncated);
	tcase_add_test(th, test_xh_garbage);
	suite_add_tcase(s, th);
	return s;
}

#ifndef CHECK_COMPRESS_NO_MAIN
int main(void)
{
	SRunner *sr = srunner_create(compress_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
#endif
