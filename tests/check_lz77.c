/*
 * check_lz77.c - unit tests of etl_lz77_decompress() (MS-XCA Plain LZ77).
 *
 * Most streams are built by hand with a tiny test-only encoder (struct enc)
 * that writes flag words and tokens exactly as [MS-XCA] 2.4 lays them out,
 * so every length-encoding branch can be hit on purpose, and invalid tokens
 * can be written raw. The corpus test inflates every compressed buffer of
 * the real .etl files in $ETL_CORPUS (default ../shared/corpus).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_compress.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* Test-only encoder                                                    */
/* ------------------------------------------------------------------ */

#define ENC_MAX (1u << 20)

struct enc {
	uint8_t *buf;
	size_t len;
	size_t flag_pos;     /* where the current group's flag word goes    */
	unsigned nflags;     /* tokens in the current group (0..32)          */
	uint32_t flags;      /* their bits, first token most significant     */
	int group_open;      /* a flag word slot has been reserved           */
	size_t half_pos;     /* byte whose high nibble is still free         */
	int have_half;
};

static void enc_init(struct enc *e)
{
	memset(e, 0, sizeof *e);
	e->buf = calloc(ENC_MAX, 1);
	ck_assert_ptr_nonnull(e->buf);
}

static void enc_free(struct enc *e)
{
	free(e->buf);
	e->buf = NULL;
}

static void put8(struct enc *e, uint32_t v)
{
	ck_assert_uint_lt(e->len, ENC_MAX);
	e->buf[e->len++] = (uint8_t)v;
}

static void put16(struct enc *e, uint32_t v)
{
	put8(e, v & 0xffu);
	put8(e, (v >> 8) & 0xffu);
}

static void put32(struct enc *e, uint32_t v)
{
	put16(e, v & 0xffffu);
	put16(e, v >> 16);
}

static void store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Write the flag word of the current group, padding the unused low bits
 * with `pad` (1 bits are what the Windows encoder writes). */
static void enc_close_group(struct enc *e, int pad)
{
	uint32_t w;

	if (!e->group_open)
		return;
	w = e->nflags ? e->flags << (32 - e->nflags) : 0;
	if (pad && e->nflags < 32)
		w |= (e->nflags ? (1u << (32 - e->nflags)) : 0u) - 1u;
	store32(e->buf + e->flag_pos, w);
	e->group_open = 0;
}

/* Account one token of kind `bit`; opens a new group (reserving its flag
 * word at the current position) when needed. */
static void enc_flag(struct enc *e, unsigned bit)
{
	if (e->group_open && e->nflags == 32)
		enc_close_group(e, 0);
	if (!e->group_open) {
		e->flag_pos = e->len;
		put32(e, 0);
		e->group_open = 1;
		e->nflags = 0;
		e->flags = 0;
	}
	e->flags = (e->flags << 1) | bit;
	e->nflags++;
}

static void enc_lit(struct enc *e, uint8_t c)
{
	enc_flag(e, 0);
	put8(e, c);
}

static void enc_lits(struct enc *e, const char *s)
{
	while (*s)
		enc_lit(e, (uint8_t)*s++);
}

/* A 4-bit length extension in the shared half byte. */
static void enc_nibble(struct enc *e, uint32_t n)
{
	if (e->have_half) {
		e->buf[e->half_pos] |= (uint8_t)(n << 4);
		e->have_half = 0;
	} else {
		e->half_pos = e->len;
		put8(e, n);
		e->have_half = 1;
	}
}

/* A match, with the shortest encoding of its length unless force_u32. */
static void enc_match_x(struct enc *e, uint32_t dist, uint32_t len,
                        int force_u32)
{
	uint32_t dfield = (dist - 1) << 3;

	ck_assert(dist >= 1 && dist <= 8192 && len >= 3);
	enc_flag(e, 1);
	if (len < 10 && !force_u32) {
		put16(e, dfield | (len - 3));
		return;
	}
	put16(e, dfield | 7u);
	if (len < 25 && !force_u32) {
		enc_nibble(e, len - 10);
		return;
	}
	enc_nibble(e, 15);
	if (len < 280 && !force_u32) {
		put8(e, len - 25);
		return;
	}
	put8(e, 255);
	if (len - 3 <= 0xffff && !force_u32) {
		put16(e, len - 3);
	} else {
		put16(e, 0);
		put32(e, len - 3);
	}
}

static void enc_match(struct enc *e, uint32_t dist, uint32_t len)
{
	enc_match_x(e, dist, len, 0);
}

/* Finish the stream as Windows does: remaining flag bits set to 1. */
static void enc_finish(struct enc *e)
{
	enc_close_group(e, 1);
}

/* Reference model of the output: a simple array the tests append to. */
struct ref {
	uint8_t *buf;
	size_t len;
};

static void ref_init(struct ref *r)
{
	r->buf = calloc(ENC_MAX, 1);
	ck_assert_ptr_nonnull(r->buf);
	r->len = 0;
}

static void ref_lits(struct ref *r, const char *s)
{
	while (*s)
		r->buf[r->len++] = (uint8_t)*s++;
}

static void ref_match(struct ref *r, size_t dist, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++, r->len++)
		r->buf[r->len] = r->buf[r->len - dist];
}

/* Both at once: literals / a match in the stream and in the model. */
static void both_lits(struct enc *e, struct ref *r, const char *s)
{
	enc_lits(e, s);
	ref_lits(r, s);
}

static void both_match(struct enc *e, struct ref *r, uint32_t dist,
                       uint32_t len)
{
	enc_match(e, dist, len);
	ref_match(r, dist, len);
}

/* ------------------------------------------------------------------ */
/* Decoding helpers                                                     */
/* ------------------------------------------------------------------ */

#define CANARY 0xA5
#define CANARY_LEN 64

struct result {
	int rc;
	size_t out_len;
	int err;
	size_t err_pos;
};

/* Decode src[0..n) (copied to an exact-size heap block so ASan sees any
 * over-read) into a block of cap bytes followed by a canary, and check the
 * canary survived. `out` receives a copy of the decoded bytes. */
static struct result decode(const uint8_t *src, size_t n, size_t cap,
                            uint8_t *out)
{
	struct result res;
	uint8_t *in = malloc(n ? n : 1);
	uint8_t *dst = malloc(cap + CANARY_LEN);
	size_t i;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(dst);
	if (n)
		memcpy(in, src, n);
	memset(dst, CANARY, cap + CANARY_LEN);
	res.out_len = (size_t)-1;
	res.err = -1;
	res.err_pos = (size_t)-1;
	res.rc = etl_lz77_decompress(in, n, dst, cap, &res.out_len, &res.err,
	                             &res.err_pos);
	for (i = 0; i < CANARY_LEN; i++)
		ck_assert_uint_eq(dst[cap + i], CANARY);
	ck_assert_uint_le(res.out_len, cap);
	if (out)
		memcpy(out, dst, res.out_len);
	free(in);
	free(dst);
	return res;
}

/* Decode a whole encoded stream with cap == expected length and require an
 * exact, clean result. */
static void expect_roundtrip(const struct enc *e, const struct ref *r)
{
	uint8_t *out = malloc(r->len + 1);
	struct result res;

	ck_assert_ptr_nonnull(out);
	res = decode(e->buf, e->len, r->len, out);
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_int_eq(res.err, ETL_E_NONE);
	ck_assert_uint_eq(res.out_len, r->len);
	ck_assert_mem_eq(out, r->buf, r->len);

	/* With spare room the stream must stop by itself at the same place. */
	res = decode(e->buf, e->len, r->len + 1000, NULL);
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, r->len);
	free(out);
}

static void expect_malformed(const struct enc *e, size_t cap,
                             size_t want_out, size_t want_pos)
{
	struct result res = decode(e->buf, e->len, cap, NULL);

	ck_assert_int_eq(res.rc, ETL_FAILED);
	ck_assert_int_eq(res.err, ETL_E_DECOMPRESS);
	ck_assert_uint_eq(res.out_len, want_out);
	ck_assert_uint_eq(res.err_pos, want_pos);
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */
/* ------------------------------------------------------------------ */

START_TEST(test_empty)
{
	size_t out_len = 99;
	int err = -1;
	size_t err_pos = 99;
	uint8_t dst[4] = { 1, 2, 3, 4 };

	ck_assert_int_eq(etl_lz77_decompress(NULL, 0, dst, sizeof dst, &out_len,
	                                     &err, &err_pos), ETL_OK);
	ck_assert_uint_eq(out_len, 0);
	ck_assert_int_eq(err, ETL_E_NONE);
	ck_assert_uint_eq(err_pos, 0);
	/* NULL out-parameters are allowed. */
	ck_assert_int_eq(etl_lz77_decompress(dst, sizeof dst, NULL, 0, NULL,
	                                     NULL, NULL), ETL_OK);
}
END_TEST

START_TEST(test_literals_only)
{
	/* Flag word 0 then three literals: the hand-written bytes. */
	static const uint8_t s[] = { 0, 0, 0, 0, 'a', 'b', 'c' };
	uint8_t out[8];
	struct result res = decode(s, sizeof s, sizeof out, out);

	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 3);
	ck_assert_mem_eq(out, "abc", 3);
}
END_TEST

START_TEST(test_literals_encoded)
{
	struct enc e;
	struct ref r;

	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, "Hello, plain LZ77 world!");
	enc_finish(&e);
	/* 24 literals, one flag word: 4 + 24 bytes, flags = 24 zeros + 8 ones */
	ck_assert_uint_eq(e.len, 28);
	ck_assert_uint_eq(e.buf[0], 0xff);
	ck_assert_uint_eq(e.buf[1], 0);
	expect_roundtrip(&e, &r);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_short_matches)
{
	/* Every L < 7 length: 3..9, at several distances. */
	uint32_t len;

	for (len = 3; len <= 9; len++) {
		struct enc e;
		struct ref r;

		enc_init(&e);
		ref_init(&r);
		both_lits(&e, &r, "0123456789abcdefXYZ");
		both_match(&e, &r, 19, len);    /* from the start */
		both_match(&e, &r, 3, len);     /* overlapping */
		both_lits(&e, &r, "!");
		enc_finish(&e);
		expect_roundtrip(&e, &r);
		/* the match word sits right after the 19 literals */
		ck_assert_uint_eq(e.buf[4 + 19], (uint8_t)((18u << 3) | (len - 3)));
		enc_free(&e);
		free(r.buf);
	}
}
END_TEST

START_TEST(test_short_match_bytes)
{
	/* Hand-assembled: flags 0b0001 (3 literals then a match), literals
	 * "abc", match W = ((3-1) << 3) | (6-3) = 0x13: distance 3, length 6. */
	static const uint8_t s[] = { 0x00, 0x00, 0x00, 0x10 | 0x0f,
	                             'a', 'b', 'c', 0x13, 0x00 };
	uint8_t out[16];
	struct result res = decode(s, sizeof s, 9, out);

	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 9);
	ck_assert_mem_eq(out, "abcabcabc", 9);
}
END_TEST

START_TEST(test_nibble_extension)
{
	/* Two consecutive long matches share one half byte: the first uses
	 * the low nibble, the second the high nibble of the same byte. */
	uint32_t a, b;

	for (a = 10; a <= 24; a++) {
		for (b = 10; b <= 24; b++) {
			struct enc e;
			struct ref r;
			size_t nib;

			enc_init(&e);
			ref_init(&r);
			both_lits(&e, &r, "abcdefgh");
			nib = e.len + 2;        /* after the first match word */
			both_match(&e, &r, 8, a);
			both_match(&e, &r, 5, b);
			both_lits(&e, &r, "Z");
			enc_finish(&e);
			ck_assert_uint_eq(e.buf[nib], (uint8_t)(((b - 10) << 4) | (a - 10)));
			/* one nibble byte only: 4 + 8 + 2 + 1 + 2 + 1 */
			ck_assert_uint_eq(e.len, 18);
			expect_roundtrip(&e, &r);
			enc_free(&e);
			free(r.buf);
		}
	}
}
END_TEST

START_TEST(test_nibble_three_matches)
{
	/* A third long match starts a new half byte after the second. */
	struct enc e;
	struct ref r;

	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, "xy");
	both_match(&e, &r, 2, 12);
	both_lits(&e, &r, "q");
	both_match(&e, &r, 1, 20);
	both_match(&e, &r, 7, 24);
	both_match(&e, &r, 30, 11);
	enc_finish(&e);
	expect_roundtrip(&e, &r);
	ck_assert_uint_eq(r.len, 2 + 12 + 1 + 20 + 24 + 11);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_byte_extension)
{
	/* n == 15, then one byte b < 255: lengths 25..279. */
	uint32_t len;

	for (len = 25; len <= 279; len++) {
		struct enc e;
		struct ref r;

		enc_init(&e);
		ref_init(&r);
		both_lits(&e, &r, "The quick brown fox");
		both_match(&e, &r, 19, len);
		both_match(&e, &r, 4, len);     /* high nibble of the same byte */
		enc_finish(&e);
		/* half byte 0xff, then one length byte for each match */
		ck_assert_uint_eq(e.buf[4 + 19 + 2], 0xff);
		ck_assert_uint_eq(e.buf[4 + 19 + 3], len - 25);
		ck_assert_uint_eq(e.len, 4 + 19 + 4 + 3);
		expect_roundtrip(&e, &r);
		enc_free(&e);
		free(r.buf);
	}
}
END_TEST

START_TEST(test_u16_extension)
{
	/* b == 255 then a u16 v, length v + 3; includes v values that a byte
	 * could also have encoded (22..276 are legal too). */
	static const uint32_t lens[] = { 25, 100, 279, 280, 281, 1000, 4096,
	                                 65535, 65538 };
	size_t i;

	for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		struct enc e;
		struct ref r;
		size_t ext;

		enc_init(&e);
		ref_init(&r);
		both_lits(&e, &r, "ab");
		ext = e.len + 2;
		enc_flag(&e, 1);                     /* raw: force the u16 form */
		put16(&e, ((2u - 1) << 3) | 7u);
		put8(&e, 15);
		put8(&e, 255);
		put16(&e, lens[i] - 3);
		ref_match(&r, 2, lens[i]);
		both_lits(&e, &r, "c");
		enc_finish(&e);
		ck_assert_uint_eq(e.buf[ext + 1], 255);
		expect_roundtrip(&e, &r);
		ck_assert_uint_eq(r.len, 3 + lens[i]);
		ck_assert_uint_eq(r.buf[lens[i] + 1], lens[i] % 2 ? 'a' : 'b');
		enc_free(&e);
		free(r.buf);
	}
}
END_TEST

START_TEST(test_u32_extension)
{
	/* u16 == 0 then a u32 v: small and large values. */
	static const uint32_t lens[] = { 25, 300, 65538, 65539, 200000 };
	size_t i;

	for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		struct enc e;
		struct ref r;

		enc_init(&e);
		ref_init(&r);
		both_lits(&e, &r, "0123456789");
		enc_match_x(&e, 10, lens[i], 1);
		ref_match(&r, 10, lens[i]);
		/* a second long match: high nibble of the same half byte */
		enc_match_x(&e, 1, 12, 0);
		ref_match(&r, 1, 12);
		enc_finish(&e);
		ck_assert_uint_eq(e.len, 4 + 10 + 2 + 1 + 1 + 2 + 4 + 2);
		expect_roundtrip(&e, &r);
		ck_assert_uint_eq(r.len, 10 + lens[i] + 12);
		ck_assert_uint_eq(r.buf[r.len - 1], (10 + lens[i] - 1) % 10 + '0');
		enc_free(&e);
		free(r.buf);
	}
}
END_TEST

START_TEST(test_long_value_below_22)
{
	/* v < 22 in the u16 or the u32 form is invalid. */
	uint32_t v;

	for (v = 1; v < 22; v++) {
		int form;

		for (form = 0; form < 2; form++) {
			struct enc e;
			size_t tok;

			enc_init(&e);
			enc_lits(&e, "abcd");
			tok = e.len;
			enc_flag(&e, 1);
			put16(&e, (0u << 3) | 7u);
			put8(&e, 15);
			put8(&e, 255);
			if (form == 0) {
				put16(&e, v);
			} else {
				put16(&e, 0);
				put32(&e, v);
			}
			enc_finish(&e);
			expect_malformed(&e, 1000, 4, tok);
			enc_free(&e);
		}
	}
	/* v == 22 is the smallest legal value (length 25). */
	{
		struct enc e;
		struct ref r;

		enc_init(&e);
		ref_init(&r);
		both_lits(&e, &r, "abcd");
		enc_flag(&e, 1);
		put16(&e, (0u << 3) | 7u);
		put8(&e, 15);
		put8(&e, 255);
		put16(&e, 22);
		ref_match(&r, 1, 25);
		enc_finish(&e);
		expect_roundtrip(&e, &r);
		enc_free(&e);
		free(r.buf);
	}
}
END_TEST

START_TEST(test_overlap_distance_1)
{
	struct enc e;
	struct ref r;
	static const uint32_t lens[] = { 3, 7, 9, 10, 17, 24, 25, 100, 279,
	                                 1000, 70000 };
	size_t i;

	enc_init(&e);
	ref_init(&r);
	for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		char lit[2] = { (char)('a' + i), 0 };

		both_lits(&e, &r, lit);
		both_match(&e, &r, 1, lens[i]);
	}
	enc_finish(&e);
	expect_roundtrip(&e, &r);
	/* spot checks of the model itself */
	ck_assert_uint_eq(r.buf[0], 'a');
	ck_assert_uint_eq(r.buf[3], 'a');
	ck_assert_uint_eq(r.buf[4], 'b');
	ck_assert_uint_eq(r.buf[r.len - 1], 'a' + i - 1);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_overlap_short_periods)
{
	/* Distances 2..17 with lengths around the wide-copy thresholds, at
	 * the end of the buffer and with room after it. */
	uint32_t dist, len;

	for (dist = 2; dist <= 17; dist++) {
		for (len = 3; len <= 70; len++) {
			struct enc e;
			struct ref r;
			char pat[18];
			uint32_t k;

			for (k = 0; k < dist; k++)
				pat[k] = (char)('A' + k);
			pat[dist] = 0;
			enc_init(&e);
			ref_init(&r);
			both_lits(&e, &r, pat);
			both_match(&e, &r, dist, len);
			enc_finish(&e);
			expect_roundtrip(&e, &r);
			for (k = 0; k < len; k++)
				ck_assert_uint_eq(r.buf[dist + k], 'A' + k % dist);
			enc_free(&e);
			free(r.buf);
		}
	}
}
END_TEST

START_TEST(test_wide_match_room)
{
	/* Distances from 16 (two 16-byte chunks, or a loop of them, or 8-byte
	 * chunks, or bytes, by the room left) with lengths on both sides of
	 * 16, 32 and 48, each followed by 0..40 literals so that the output
	 * ends 0..40 bytes after the match; decoded into exactly that room
	 * (the canary after it must survive) and with room to spare. */
	static const uint32_t dists[] = { 16, 17, 24, 31, 32, 33, 47, 64, 200 };
	static const uint32_t lens[] = { 3, 9, 10, 15, 16, 17, 24, 31, 32, 33,
	                                 47, 48, 49, 80 };
	char pat[201];
	size_t di, li;
	uint32_t k, tail;

	for (k = 0; k < 200; k++)
		pat[k] = (char)('!' + (k * 7) % 90);
	pat[200] = 0;
	for (di = 0; di < sizeof dists / sizeof dists[0]; di++) {
		for (li = 0; li < sizeof lens / sizeof lens[0]; li++) {
			for (tail = 0; tail <= 40; tail++) {
				struct enc e;
				struct ref r;
				char lits[41];

				for (k = 0; k < tail; k++)
					lits[k] = (char)('a' + k % 26);
				lits[tail] = 0;
				enc_init(&e);
				ref_init(&r);
				both_lits(&e, &r, pat);
				both_match(&e, &r, dists[di], lens[li]);
				both_lits(&e, &r, lits);
				enc_finish(&e);
				expect_roundtrip(&e, &r);
				for (k = 0; k < lens[li]; k++)
					ck_assert_uint_eq(r.buf[200 + k],
					                  (uint8_t)pat[200 - dists[di] +
					                               k % dists[di]]);
				enc_free(&e);
				free(r.buf);
			}
		}
	}
}
END_TEST

START_TEST(test_distance_2_pattern_bytes)
{
	/* Hand-assembled: "ab" then distance 2, length 8 -> "ababababab". */
	static const uint8_t s[] = { 0x00, 0x00, 0x00, 0x20 | 0x1f,
	                             'a', 'b', (1u << 3) | 5u, 0x00 };
	uint8_t out[10];
	struct result res = decode(s, sizeof s, sizeof out, out);

	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 10);
	ck_assert_mem_eq(out, "ababababab", 10);
}
END_TEST

START_TEST(test_distance_before_start)
{
	struct enc e;

	/* A match as the very first token. */
	enc_init(&e);
	enc_match(&e, 1, 3);
	enc_finish(&e);
	expect_malformed(&e, 100, 0, 4);
	enc_free(&e);

	/* Distance 5 after 4 bytes; distance 4 is fine. */
	enc_init(&e);
	enc_lits(&e, "wxyz");
	enc_match(&e, 5, 4);
	enc_finish(&e);
	expect_malformed(&e, 100, 4, 8);
	enc_free(&e);

	/* The largest distance, 8192, after fewer bytes. */
	enc_init(&e);
	enc_lits(&e, "wxyz");
	enc_match(&e, 4, 8000);
	enc_match(&e, 8192, 3);
	enc_finish(&e);
	/* flag 4, literals 4, then word 2 + half byte 1 + 255 1 + u16 2 */
	expect_malformed(&e, 100000, 8004, 4 + 4 + 2 + 1 + 1 + 2);
	enc_free(&e);

	/* ... and exactly 8192 bytes back is legal. */
	{
		struct ref r;

		enc_init(&e);
		ref_init(&r);
		both_lits(&e, &r, "wxyz");
		both_match(&e, &r, 4, 8188);
		both_match(&e, &r, 8192, 3);
		enc_finish(&e);
		expect_roundtrip(&e, &r);
		ck_assert_mem_eq(r.buf + 8192, "wxy", 3);
		enc_free(&e);
		free(r.buf);
	}
}
END_TEST

START_TEST(test_match_overruns_cap)
{
	struct enc e;
	struct result res;
	uint8_t out[16];
	size_t cap;

	enc_init(&e);
	enc_lits(&e, "a");
	enc_match(&e, 1, 10);
	enc_finish(&e);
	/* 11 bytes of output; any cap from 2 to 10 cuts the match. */
	for (cap = 2; cap <= 10; cap++)
		expect_malformed(&e, cap, 1, 5);
	/* cap 1: output full after the literal, the match is not examined */
	res = decode(e.buf, e.len, 1, out);
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 1);
	ck_assert_uint_eq(out[0], 'a');
	res = decode(e.buf, e.len, 11, out);
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 11);
	ck_assert_mem_eq(out, "aaaaaaaaaaa", 11);
	enc_free(&e);

	/* Same with a u32 length near 2^32: must not wrap. */
	enc_init(&e);
	enc_lits(&e, "a");
	enc_flag(&e, 1);
	put16(&e, 7);
	put8(&e, 15);
	put8(&e, 255);
	put16(&e, 0);
	put32(&e, 0xffffffffu);
	enc_finish(&e);
	expect_malformed(&e, 1000, 1, 5);
	enc_free(&e);
}
END_TEST

START_TEST(test_multi_group)
{
	/* 100 tokens: 4 groups (32 + 32 + 32 + 4), literals and matches mixed
	 * so flag words with both kinds of bits cross group boundaries. */
	struct enc e;
	struct ref r;
	int i;
	size_t groups = 0, pos;

	enc_init(&e);
	ref_init(&r);
	for (i = 0; i < 100; i++) {
		if (i % 3 == 2 && r.len >= 4) {
			both_match(&e, &r, 4, 3 + (uint32_t)(i % 7));
		} else {
			char lit[2] = { (char)('a' + i % 26), 0 };

			both_lits(&e, &r, lit);
		}
	}
	enc_finish(&e);
	expect_roundtrip(&e, &r);

	/* Walk the encoded stream: group boundaries every 32 tokens. */
	pos = 0;
	for (i = 0; i < 100; i++) {
		if (i % 32 == 0) {
			pos += 4;
			groups++;
		}
		pos += (i % 3 == 2 && i >= 4) ? 2 : 1;
	}
	ck_assert_uint_eq(groups, 4);
	ck_assert_uint_eq(pos, e.len);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_full_group_then_end)
{
	/* Exactly 32 literals: the Windows encoder then writes one more flag
	 * word (all ones) and nothing else; that word ends the stream. */
	struct enc e;
	struct ref r;
	char s[33];
	int i;

	for (i = 0; i < 32; i++)
		s[i] = (char)('A' + i % 26);
	s[32] = 0;
	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, s);
	enc_close_group(&e, 1);
	put32(&e, 0xffffffffu);
	ck_assert_uint_eq(e.len, 4 + 32 + 4);
	expect_roundtrip(&e, &r);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_end_padding_zeros)
{
	/* Padding the last flag word with 0 bits (literals with no input)
	 * also ends cleanly at the token boundary. */
	struct enc e;
	struct ref r;

	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, "abc");
	both_match(&e, &r, 3, 5);
	enc_close_group(&e, 0);
	expect_roundtrip(&e, &r);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_exact_length_stop)
{
	/* The stream holds 3 + 40 + 3 bytes; a cap that ends exactly at a
	 * token boundary stops with ETL_OK without reading further. */
	struct enc e;
	struct ref r;
	uint8_t out[64];
	struct result res;
	size_t cut;

	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, "xyz");
	both_match(&e, &r, 3, 40);
	both_lits(&e, &r, "123");
	enc_finish(&e);
	ck_assert_uint_eq(r.len, 46);

	res = decode(e.buf, e.len, 46, out);
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 46);
	ck_assert_mem_eq(out, r.buf, 46);

	res = decode(e.buf, e.len, 43, out);   /* after the match */
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 43);
	ck_assert_mem_eq(out, r.buf, 43);

	for (cut = 1; cut <= 3; cut++) {       /* inside the literal runs */
		res = decode(e.buf, e.len, cut, out);
		ck_assert_int_eq(res.rc, ETL_OK);
		ck_assert_uint_eq(res.out_len, cut);
		res = decode(e.buf, e.len, 43 + cut, out);
		ck_assert_int_eq(res.rc, ETL_OK);
		ck_assert_uint_eq(res.out_len, 43 + cut);
		ck_assert_mem_eq(out, r.buf, 43 + cut);
	}

	/* Garbage after the expected length is never looked at. */
	put8(&e, 0xee);
	put8(&e, 0xee);
	put8(&e, 0xee);
	res = decode(e.buf, e.len, 46, out);
	ck_assert_int_eq(res.rc, ETL_OK);
	ck_assert_uint_eq(res.out_len, 46);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_truncated_flag_and_tokens)
{
	/* Specific truncations and where they are reported. */
	struct enc e;
	struct ref r;
	struct result res;
	size_t n;

	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, "abcd");
	both_match(&e, &r, 4, 200);           /* word @8, nibble @10, byte @11 */
	enc_finish(&e);
	ck_assert_uint_eq(e.len, 12);

	for (n = 1; n < 4; n++) {             /* partial flag word */
		res = decode(e.buf, n, 1000, NULL);
		ck_assert_int_eq(res.rc, ETL_FAILED);
		ck_assert_int_eq(res.err, ETL_E_DECOMPRESS);
		ck_assert_uint_eq(res.err_pos, 0);
		ck_assert_uint_eq(res.out_len, 0);
	}
	for (n = 4; n <= 8; n++) {            /* literals only: short, clean */
		res = decode(e.buf, n, 1000, NULL);
		ck_assert_int_eq(res.rc, ETL_OK);
		ck_assert_uint_eq(res.out_len, n - 4);
	}
	for (n = 9; n < 12; n++) {            /* inside the match token */
		res = decode(e.buf, n, 1000, NULL);
		ck_assert_int_eq(res.rc, ETL_FAILED);
		ck_assert_int_eq(res.err, ETL_E_DECOMPRESS);
		ck_assert_uint_eq(res.err_pos, 8);
		ck_assert_uint_eq(res.out_len, 4);
	}
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_truncated_every_position)
{
	/* A stream using every token form, cut after every byte: never a
	 * crash, an over-read (ASan) or a write past cap (canary); the output
	 * produced is always a correct prefix. */
	struct enc e;
	struct ref r;
	uint8_t *out;
	size_t n;
	int i;

	enc_init(&e);
	ref_init(&r);
	both_lits(&e, &r, "ETW buffers are compressed with LZ77!");
	both_match(&e, &r, 37, 5);
	both_match(&e, &r, 1, 14);            /* low nibble */
	both_match(&e, &r, 20, 24);           /* high nibble */
	both_match(&e, &r, 9, 200);           /* byte extension */
	both_match(&e, &r, 2, 1000);          /* u16 */
	enc_match_x(&e, 100, 5000, 1);        /* u32 */
	ref_match(&r, 100, 5000);
	for (i = 0; i < 40; i++) {
		char lit[2] = { (char)(' ' + i), 0 };

		both_lits(&e, &r, lit);
		both_match(&e, &r, 3 + (uint32_t)i, 3 + (uint32_t)(i % 8));
	}
	enc_finish(&e);
	expect_roundtrip(&e, &r);

	out = malloc(r.len);
	ck_assert_ptr_nonnull(out);
	for (n = 0; n <= e.len; n++) {
		struct result res = decode(e.buf, n, r.len, out);

		ck_assert(res.rc == ETL_OK || res.rc == ETL_FAILED);
		if (res.rc == ETL_FAILED) {
			ck_assert_int_eq(res.err, ETL_E_DECOMPRESS);
			ck_assert_uint_lt(res.err_pos, n);
		} else {
			ck_assert_int_eq(res.err, ETL_E_NONE);
		}
		ck_assert_mem_eq(out, r.buf, res.out_len);
		/* 123 tokens: the last group is not empty, so any cut loses
		 * output, and only the whole stream gives all of it. */
		if (n < e.len)
			ck_assert_uint_lt(res.out_len, r.len);
		else
			ck_assert_uint_eq(res.out_len, r.len);
	}
	/* Same with a tight cap smaller than the full output. */
	for (n = 0; n <= e.len; n++) {
		struct result res = decode(e.buf, n, 100, out);

		ck_assert(res.rc == ETL_OK || res.rc == ETL_FAILED);
		if (res.rc == ETL_FAILED) {
			ck_assert_int_eq(res.err, ETL_E_DECOMPRESS);
			ck_assert_uint_lt(res.err_pos, n);
		} else {
			ck_assert_int_eq(res.err, ETL_E_NONE);
			ck_assert_uint_eq(res.err_pos, 0);
		}
		ck_assert_mem_eq(out, r.buf, res.out_len);
	}
	free(out);
	enc_free(&e);
	free(r.buf);
}
END_TEST

START_TEST(test_long_literal_runs)
{
	/* Long runs of literals cross the 32-byte fast path and the tail. */
	struct enc e;
	struct ref r;
	char s[2] = { 0, 0 };
	int i;

	enc_init(&e);
	ref_init(&r);
	for (i = 0; i < 1000; i++) {
		s[0] = (char)(1 + (i * 7) % 250);
		both_lits(&e, &r, s);
		if (i % 97 == 96)
			both_match(&e, &r, 50, 9);
	}
	enc_finish(&e);
	expect_roundtrip(&e, &r);
	ck_assert_uint_eq(r.len, 1000 + 10 * 9);
	enc_free(&e);
	free(r.buf);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Corpus                                                               */
/* ------------------------------------------------------------------ */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	for (;;) {
		size_t got;

		if (n == cap) {
			cap = cap ? cap * 2 : 1u << 16;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	ck_assert(!ferror(f));
	fclose(f);
	*len = n;
	return buf;
}

/* Inflate every compressed buffer of one file; returns how many. */
static unsigned inflate_file(const char *path)
{
	size_t len, off = 0;
	uint8_t *data = slurp(path, &len);
	unsigned count = 0;

	while (len - off >= 0x48) {
		const uint8_t *h = data + off;
		uint32_t size = le32(h + 0x00);
		uint32_t saved = le32(h + 0x04);
		uint32_t flag = (uint32_t)h[0x34] | ((uint32_t)h[0x35] << 8);

		ck_assert_msg(size >= 0x48 && size <= len - off,
		              "%s: bad BufferSize %u at %zu", path, size, off);
		if (flag & 0x40) {
			size_t want, out_len = 0, err_pos = 0;
			int err = -1, rc;
			uint8_t *out;

			ck_assert_msg(saved > 0x48, "%s: SavedOffset %u at %zu",
			              path, saved, off);
			want = saved - 0x48;
			out = malloc(want);
			ck_assert_ptr_nonnull(out);
			rc = etl_lz77_decompress(h + 0x48, size - 0x48, out, want,
			                         &out_len, &err, &err_pos);
			ck_assert_msg(rc == ETL_OK,
			              "%s: buffer at %zu: rc %d err %d pos %zu",
			              path, off, rc, err, err_pos);
			ck_assert_uint_eq(out_len, want);
			ck_assert_uint_ge(want, 4);
			ck_assert_msg(le32(out) & 0x80000000u,
			              "%s: buffer at %zu: first word %08x",
			              path, off, le32(out));
			free(out);
			count++;
		}
		off += size;
	}
	free(data);
	return count;
}

static const struct {
	const char *name;
	unsigned compressed;
} corpus_expect[] = {
	{ "clr-rundown-32bit-compressed.etl", 1 },
	{ "eventsource-selfdescribing-compressed.etl", 2 },
	{ "perfview-kernel-clr-x64-compressed.etl", 359 },
};
#define N_EXPECT (sizeof corpus_expect / sizeof corpus_expect[0])

START_TEST(test_corpus)
{
	TU_NEED_CORPUS();
	const char *dir = getenv("ETL_CORPUS");
	DIR *d;
	struct dirent *de;
	int seen[N_EXPECT] = { 0 };
	unsigned files = 0;
	size_t i;

	if (!dir || !*dir)
		dir = "../shared/corpus";
	d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open corpus directory %s", dir);
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		unsigned n;

		if (!strstr(de->d_name, "compressed"))
			continue;
		ck_assert_int_lt(snprintf(path, sizeof path, "%s/%s", dir,
		                          de->d_name), (int)sizeof path);
		n = inflate_file(path);
		files++;
		for (i = 0; i < N_EXPECT; i++) {
			if (strcmp(de->d_name, corpus_expect[i].name) == 0) {
				ck_assert_msg(n == corpus_expect[i].compressed,
				              "%s: %u compressed buffers, expected %u",
				              de->d_name, n,
				              corpus_expect[i].compressed);
				seen[i] = 1;
			}
		}
	}
	closedir(d);
	for (i = 0; i < N_EXPECT; i++)
		ck_assert_msg(seen[i], "%s missing from %s",
		              corpus_expect[i].name, dir);
	ck_assert_uint_ge(files, N_EXPECT);
}
END_TEST

static Suite *lz77_suite(void)
{
	Suite *s = suite_create("lz77");
	TCase *tc = tcase_create("streams");
	TCase *tcc = tcase_create("corpus");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_literals_only);
	tcase_add_test(tc, test_literals_encoded);
	tcase_add_test(tc, test_short_matches);
	tcase_add_test(tc, test_short_match_bytes);
	tcase_add_test(tc, test_nibble_extension);
	tcase_add_test(tc, test_nibble_three_matches);
	tcase_add_test(tc, test_byte_extension);
	tcase_add_test(tc, test_u16_extension);
	tcase_add_test(tc, test_u32_extension);
	tcase_add_test(tc, test_long_value_below_22);
	tcase_add_test(tc, test_overlap_distance_1);
	tcase_add_test(tc, test_overlap_short_periods);
	tcase_add_test(tc, test_wide_match_room);
	tcase_add_test(tc, test_distance_2_pattern_bytes);
	tcase_add_test(tc, test_distance_before_start);
	tcase_add_test(tc, test_match_overruns_cap);
	tcase_add_test(tc, test_multi_group);
	tcase_add_test(tc, test_full_group_then_end);
	tcase_add_test(tc, test_end_padding_zeros);
	tcase_add_test(tc, test_exact_length_stop);
	tcase_add_test(tc, test_truncated_flag_and_tokens);
	tcase_add_test(tc, test_truncated_every_position);
	tcase_add_test(tc, test_long_literal_runs);
	suite_add_tcase(s, tc);

	tcase_set_timeout(tcc, 300);
	tcase_add_test(tcc, test_corpus);
	suite_add_tcase(s, tcc);
	return s;
}

int main(void)
{
	Suite *s = lz77_suite();
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
