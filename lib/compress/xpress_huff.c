/*
 * lib/compress/xpress_huff.c - LZ77+Huffman decompressor ([MS-XCA] sections 2.1
 * and 2.2; COMPRESSION_FORMAT_XPRESS_HUFF).
 *
 * Format. A sequence of blocks, each standing for 65536 bytes of output
 * (the last one fewer; a match may run past the block's end, the next
 * block then starts where it ended). A block is:
 *   - a 256-byte table of 512 4-bit Huffman code lengths: byte i holds
 *     symbol 2i's length in its low nibble, symbol 2i+1's in its high
 *     nibble; 0 = the symbol is not used;
 *   - a bit stream read as 16-bit little-endian words, most significant
 *     bit first. The decoder keeps 32 bits of look-ahead (NextBits): it
 *     loads two words after the table, and whenever consuming bits leaves
 *     fewer than 16 unread bits in the look-ahead it loads the next word
 *     at the current input position. Extra length bytes are read at that
 *     same input position, between words, at the moment the match symbol
 *     is decoded; the next block's table starts at the input position the
 *     block ended at.
 * Codes are canonical: sorted by (length, symbol), each symbol of length
 * L takes the next 2^(15-L) values of the 15-bit code space, which must
 * be filled exactly (no over-subscribed, incomplete or empty table).
 * Symbols 0-255 are literals. Symbol 256 + (D << 4) + L is a match whose
 * distance is 2^D plus the next D bits of the bit stream (1..65535; may
 * reach into earlier blocks) and whose length is L + 3 for L < 15; for
 * L == 15 a byte b follows in the byte stream: length b + 18 for b < 255,
 * else a u16 v follows (v == 0: a u32 v follows instead) and the length
 * is v + 3, where v < 15 is invalid.
 * End: symbol 256 decoded when the whole input has been loaded is the
 * end-of-stream marker ([MS-XCA] also requires the expected size to have
 * been written; this decoder stops before that anyway when dst_cap is the
 * expected size). Also the end of the input at a block boundary, or
 * dst_cap bytes produced.
 *
 * Decoding table: a 1024-entry root table (symbol and length) for codes
 * of at most 10 bits; longer codes (rare: symbols used less than once in
 * 1024) fall back to a search of the 5 remaining length classes, using
 * the start of each class in the 15-bit code space.
 *
 * Safety: the table is validated before use (Kraft sum exactly 2^15), so
 * every 15-bit value decodes to a symbol; every word or byte load is
 * preceded by a check against src_len, every output write by a check
 * against dst_cap; a match is validated before any byte of it is written.
 */
#include "etl_compress.h"
#include "lib/compress/codec_result.h"

#include <string.h>

#define BLOCK      65536u
#define NSYM       512u
#define MAXLEN     15u
#define ROOT_BITS  10u
#define TABLE_SIZE 256u

struct decoder {
	uint16_t root[1u << ROOT_BITS];  /* sym | len << 9; 0 = long code  */
	uint32_t start[MAXLEN + 2];      /* first 15-bit value of length L */
	uint16_t offset[MAXLEN + 1];     /* index in sorted[] of length L  */
	uint16_t sorted[NSYM];           /* symbols by (length, symbol)    */
	uint8_t len[NSYM];
};

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | (rd16(p + 2) << 16);
}

/* Builds the decoder from a 256-byte length table; -1 if invalid. */
static int build(struct decoder *d, const uint8_t *t)
{
	uint32_t count[MAXLEN + 1] = { 0 };
	uint16_t next[MAXLEN + 1];
	uint32_t total = 0, l, s;

	for (s = 0; s < NSYM; s++) {
		d->len[s] = (uint8_t)((t[s >> 1] >> ((s & 1u) * 4)) & 15u);
		count[d->len[s]]++;
	}
	d->start[1] = 0;
	d->offset[0] = 0;
	next[0] = 0;
	for (l = 1; l <= MAXLEN; l++) {
		total += count[l] << (MAXLEN - l);
		d->start[l + 1] = total;
		d->offset[l] = (uint16_t)(l == 1 ? 0 : d->offset[l - 1] + count[l - 1]);
		next[l] = d->offset[l];
	}
	/* Exactly full code space: rejects the empty, over-subscribed and
	 * incomplete tables ([MS-XCA]'s table construction fails on them). */
	if (total != 1u << MAXLEN)
		return -1;
	for (s = 0; s < NSYM; s++)
		if (d->len[s])
			d->sorted[next[d->len[s]]++] = (uint16_t)s;

	memset(d->root, 0, sizeof d->root);
	for (l = 1; l <= ROOT_BITS; l++) {
		uint32_t step = 1u << (ROOT_BITS - l), k;
		uint32_t at = d->start[l] >> (MAXLEN - ROOT_BITS);

		for (k = 0; k < count[l]; k++) {
			uint16_t e = (uint16_t)(d->sorted[d->offset[l] + k] | (l << 9));
			uint32_t j;

			for (j = 0; j < step; j++)
				d->root[at + j] = e;
			at += step;
		}
	}
	return 0;
}

/* Symbol of the 15-bit value v; its length in *len. Total for a valid
 * table: every v lies in some length class. */
static inline uint32_t decode_sym(const struct decoder *d, uint32_t v,
                                  uint32_t *len)
{
	uint32_t e = d->root[v >> (MAXLEN - ROOT_BITS)], l;

	if (e) {
		*len = e >> 9;
		return e & 511u;
	}
	for (l = ROOT_BITS + 1; l < MAXLEN; l++)
		if (v < d->start[l + 1])
			break;
	*len = l;
	return d->sorted[d->offset[l] + ((v - d->start[l]) >> (MAXLEN - l))];
}

int etl_xpress_huff_decompress(const uint8_t *src, size_t src_len,
                               uint8_t *dst, size_t dst_cap,
                               size_t *out_len, int *err, size_t *err_pos)
{
	struct decoder d;
	size_t ip = 0, op = 0, bad = 0;

	if (src_len == 0 || dst_cap == 0)
		goto done;

	while (op < dst_cap) {
		size_t block_end;
		uint32_t bits;          /* look-ahead, next bit = bit 31      */
		int extra;              /* valid bits beyond the first 16     */

		if (ip == src_len)
			break;          /* end of input at a block boundary */
		bad = ip;
		if (src_len - ip < TABLE_SIZE + 4 || build(&d, src + ip) != 0)
			goto malformed;
		ip += TABLE_SIZE;
		bits = (rd16(src + ip) << 16) | rd16(src + ip + 2);
		ip += 4;
		extra = 16;
		block_end = op + (dst_cap - op < BLOCK ? dst_cap - op : BLOCK);

/* Consume n (<= 15) bits; load the next word when fewer than 16 remain. */
#define CONSUME(n)                                                        \
	do {                                                              \
		bits <<= (n);                                             \
		extra -= (int)(n);                                        \
		if (extra < 0) {                                          \
			if (src_len - ip < 2)                             \
				goto malformed;                           \
			bits |= rd16(src + ip) << (unsigned)-extra;       \
			ip += 2;                                          \
			extra += 16;                                      \
		}                                                         \
	} while (0)

		while (op < block_end) {
			uint32_t sym, n;

			bad = ip;
			sym = decode_sym(&d, bits >> (32 - MAXLEN), &n);
			CONSUME(n);
			if (sym < 256) {
				dst[op++] = (uint8_t)sym;
				continue;
			}
			if (sym == 256 && ip == src_len)
				goto done;      /* end-of-stream marker */
			{
				uint32_t dbits = (sym >> 4) & 15u;
				size_t len = sym & 15u, dist;

				if (len == 15) {
					if (ip == src_len)
						goto malformed;
					len = src[ip++];
					if (len == 255) {
						uint32_t v;

						if (src_len - ip < 2)
							goto malformed;
						v = rd16(src + ip);
						ip += 2;
						if (v == 0) {
							if (src_len - ip < 4)
								goto malformed;
							v = rd32(src + ip);
							ip += 4;
						}
						if (v < 15)
							goto malformed;
						len = (size_t)v - 15;
					}
					len += 15;
				}
				dist = (size_t)1 << dbits;
				if (dbits) {
					dist += bits >> (32 - dbits);
					CONSUME(dbits);
				}
				/* len + 3 may not fit a 32-bit size_t. */
				if (dist > op || len > dst_cap - op ||
				    dst_cap - op - len < 3)
					goto malformed;
				len += 3;
				if (dist >= len) {
					memcpy(dst + op, dst + op - dist, len);
					op += len;
				} else {
					const uint8_t *from = dst + op - dist;
					size_t i;

					for (i = 0; i < len; i++)
						dst[op + i] = from[i];
					op += len;
				}
			}
		}
#undef CONSUME
	}
done:
	return etl__codec_result(1, op, 0, out_len, err, err_pos);

malformed:
	return etl__codec_result(0, op, bad, out_len, err, err_pos);
}
