/*
 * lib/compress/lz77_decompress.c - MS-XCA "Plain LZ77" decompressor ([MS-XCA] section 2.4),
 * the format of compressed ETL buffers.
 *
 * Format. The stream is a sequence of groups. A group starts with a 32-bit
 * little-endian flag word whose bits, most significant first, say what each
 * of the next (up to) 32 tokens is:
 *   0 -> one literal byte, copied as is;
 *   1 -> a match: a 16-bit LE word W, distance = (W >> 3) + 1 (1..8192) and
 *        L = W & 7. L < 7 gives length L + 3. L == 7 takes a 4-bit value n
 *        from a "half byte" shared by two matches (the first extension reads
 *        a fresh byte and uses its low nibble, the next one uses the high
 *        nibble of that same byte); n < 15 gives n + 10. n == 15 reads a byte
 *        b; b < 255 gives b + 25. b == 255 reads a u16 v, or a u32 v when the
 *        u16 is 0; the length is v + 3, and v < 22 is invalid.
 * A match copies `length` bytes from `distance` bytes back in the output,
 * byte after byte, so a distance shorter than the length repeats a pattern.
 * The encoder ends the stream by padding the last flag word with 1 bits and
 * simply stopping, so "a match token with no input left" is the normal end.
 *
 * Invariants of the decoder (what makes it safe):
 *   - ip <= iend and op <= oend hold at every point; every read of n input
 *     bytes is preceded by a check that iend - ip >= n, every write of n
 *     output bytes by a check that oend - op >= n (wide copies check the
 *     room for the over-write too). Pointer differences are never negative,
 *     so they are compared as size_t without overflow.
 *   - A match is fully validated (distance within the bytes produced so far,
 *     length within the room left) before any byte of it is written, so on
 *     failure op still marks the end of correct output.
 *   - `flags` keeps the unconsumed flag bits left-aligned with zeros shifted
 *     in below them, and `nbits` counts them (0..32). A shift by 32 is never
 *     done: consuming every remaining bit resets nbits instead.
 *   - Wide copies inside the output (8 or 16 bytes at a time) are only used
 *     when the distance is at least the chunk width, so source and
 *     destination of each memcpy never overlap and every source byte is
 *     final before it is read.
 *
 * Speed. A flag word usually announces runs of literals, which are counted
 * with one count-leading-zeros and copied with a fixed 32-byte memcpy when
 * both buffers have room for it (before every match, even when the run is
 * empty). Matches with distance >= 16 start with two 16-byte copies, then
 * go on 16 bytes at a time; distances 8..15 are copied 8 bytes at a time;
 * shorter distances are widened to a multiple of the distance that is >= 8
 * (a periodic pattern is also periodic in any multiple of its period), and
 * distance 1 becomes a memset. Each copy falls back to a narrower one, and
 * at last to bytes, where the output has too little room after the match.
 */
#include "etl_compress.h"
#include "lib/compress/codec_result.h"

#include <string.h>

/* Little-endian loads from bytes: no alignment or byte-order assumption,
 * unsigned temporaries before every shift. */
static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Number of leading zero bits of a non-zero 32-bit value. */
static inline unsigned clz32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return (unsigned)__builtin_clz(x);
#else
	unsigned n = 0;
	while (!(x & 0x80000000u)) {
		x <<= 1;
		n++;
	}
	return n;
#endif
}

/* Copies step-byte chunks from `from` to op until op reaches end (may write
 * up to step - 1 bytes past end). step is a constant at each call, so the
 * copies compile to single loads and stores. */
static inline uint8_t *copy_chunks(uint8_t *op, const uint8_t *from, uint8_t *end, size_t step)
{
	do {
		memcpy(op, from, step);
		op += step;
		from += step;
	} while (op < end);
	return end;
}

/* Copy a validated match of `len` bytes from `dist` bytes back, where
 * `room` = oend - op >= len. Returns the new output position. */
static inline uint8_t *copy_match(uint8_t *op, size_t dist, size_t len,
                                  size_t room)
{
	uint8_t *const end = op + len;
	const uint8_t *from = op - dist;

	if (dist >= 16 && room - len >= 32) {
		/* Each 16-byte chunk reads only bytes before the chunk it writes
		 * (dist >= 16), so no overlap. Nine matches in ten are 32 bytes
		 * or shorter: two chunks with no loop test between them make
		 * them one path, where a loop mispredicted its count. The
		 * over-write past `end` (< 32 bytes) is within the room. */
		memcpy(op, from, 16);
		memcpy(op + 16, from + 16, 16);
		if (len <= 32)
			return end;
		return copy_chunks(op + 32, from + 32, end, 16);
	}
	if (dist >= 16 && room - len >= 16)
		return copy_chunks(op, from, end, 16);   /* near the end */
	if (dist >= 8) {
		if (room - len >= 8)
			return copy_chunks(op, from, end, 8);
	} else if (dist == 1) {
		memset(op, op[-1], len);
		return end;
	} else if (room - len >= 8) {
		/* Short period: out[j] = out[j - dist] for every j in the match,
		 * hence out[j] = out[j - k*dist] once j - (k-1)*dist is still in
		 * the match. Write the first (k-1)*dist bytes (< 8) one by one,
		 * then copy 8 at a time from k*dist >= 8 bytes back. */
		static const uint8_t wide_of[8] = { 0, 8, 8, 9, 8, 10, 12, 14 };
		size_t wide = wide_of[dist];    /* the least multiple >= 8; no division */
		size_t pre = wide - dist;

		if (pre < len) {
			uint8_t *const pre_end = op + pre;

			while (op < pre_end) {
				*op = *from++;
				op++;
			}
			from = op - wide;
			do {
				memcpy(op, from, 8);
				op += 8;
				from += 8;
			} while (op < end);
			return end;
		}
	}
	/* Near the end of the buffer, or a very short match: byte by byte. */
	while (op < end) {
		*op = *from++;
		op++;
	}
	return end;
}

/* Where the function starts decides how its loop falls on the processor's
 * 64-byte fetch blocks, and so its speed: built from the same source at an
 * address 32 but not 64 bytes aligned (where other code before it in the
 * binary had put it), it ran about 8 % slower (perf samples, against the
 * rest of the reader in the same runs). It is placed on a 64-byte boundary
 * so that changes elsewhere cannot move it. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((aligned(64)))
#endif
int etl_lz77_decompress(const uint8_t *src, size_t src_len,
                        uint8_t *dst, size_t dst_cap,
                        size_t *out_len, int *err, size_t *err_pos)
{
	const uint8_t *ip, *iend;
	uint8_t *op, *oend;
	const uint8_t *tok;            /* first byte of the token being decoded */
	const uint8_t *half = NULL;    /* byte whose high nibble is still unused */
	uint32_t flags = 0;            /* unconsumed flag bits, left-aligned   */
	unsigned nbits = 0;            /* how many bits of `flags` are valid    */

	/* Nothing to read or nowhere to write: done before any pointer
	 * arithmetic on a possibly NULL pointer. */
	if (src_len == 0 || dst_cap == 0) {
		if (out_len)
			*out_len = 0;
		if (err)
			*err = ETL_E_NONE;
		if (err_pos)
			*err_pos = 0;
		return ETL_OK;
	}

	ip = src;
	iend = src + src_len;
	op = dst;
	oend = dst + dst_cap;

	for (;;) {
		unsigned run;

		if (nbits == 0) {
			/* A group boundary is also a token boundary. */
			if (ip == iend || op == oend)
				break;
			if ((size_t)(iend - ip) < 4) {
				tok = ip;
				goto malformed;
			}
			flags = rd32(ip);
			ip += 4;
			nbits = 32;
		}

		/* Leading zero bits = literals before the next match. Bits
		 * below the valid ones are zero, so flags == 0 means that every
		 * remaining token is a literal. */
		run = flags ? clz32(flags) : nbits;
		if ((size_t)(iend - ip) >= 32 && (size_t)(oend - op) >= 32) {
			/* run <= 32: one fixed-size copy, the bytes after the
			 * run are scratch overwritten later. It is made for a
			 * run of 0 too: whether literals come before a match
			 * is as random as the data, and a branch on it cost
			 * more than the copy (9-10 % of the inflation time). */
			memcpy(op, ip, 32);
			ip += run;
			op += run;
		} else if (run) {
			size_t n = run;

			if (n > (size_t)(iend - ip))
				n = (size_t)(iend - ip);
			if (n > (size_t)(oend - op))
				n = (size_t)(oend - op);
			memcpy(op, ip, n);
			ip += n;
			op += n;
			/* Input exhausted or output full, either way at a
			 * token boundary. */
			if (n < run)
				break;
		}
		nbits -= run;
		if (nbits == 0)
			continue;
		flags <<= run;      /* run < nbits <= 32 here */

		/* The current bit is 1: a match. Clear it before shifting so
		 * no set bit is shifted out (keeps -fsanitize=integer quiet). */
		flags = (flags & 0x7fffffffu) << 1;
		nbits--;
		if (op == oend || ip == iend)
			break;              /* full, or the end-of-stream padding */

		tok = ip;
		if ((size_t)(iend - ip) < 2)
			goto malformed;
		{
			uint32_t w = rd16(ip);
			size_t dist = (size_t)(w >> 3) + 1;
			size_t len = w & 7u;
			size_t room = (size_t)(oend - op);

			ip += 2;
			if (len < 7) {
				len += 3;
			} else {
				uint32_t n;

				if (half) {
					n = (uint32_t)*half >> 4;
					half = NULL;
				} else {
					if (ip == iend)
						goto malformed;
					half = ip;
					n = (uint32_t)*ip++ & 15u;
				}
				if (n < 15) {
					len = (size_t)n + 10;
				} else {
					uint32_t b;

					if (ip == iend)
						goto malformed;
					b = *ip++;
					if (b < 255) {
						len = (size_t)b + 25;
					} else {
						uint32_t v;

						if ((size_t)(iend - ip) < 2)
							goto malformed;
						v = rd16(ip);
						ip += 2;
						if (v == 0) {
							if ((size_t)(iend - ip) < 4)
								goto malformed;
							v = rd32(ip);
							ip += 4;
						}
						if (v < 22)
							goto malformed;
						/* v + 3 may not fit a 32-bit
						 * size_t: compare first. */
						if (v > room || room - v < 3)
							goto malformed;
						len = (size_t)v + 3;
					}
				}
			}
			if (dist > (size_t)(op - dst) || len > room)
				goto malformed;
			op = copy_match(op, dist, len, room);
		}
	}

	return etl__codec_result(1, (size_t)(op - dst), 0, out_len, err, err_pos);

malformed:
	return etl__codec_result(0, (size_t)(op - dst), (size_t)(tok - src), out_len, err, err_pos);
}
