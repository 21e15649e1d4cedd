/*
 * lib/compress/lznt1.c - LZNT1 decompressor ([MS-XCA] section 2.5;
 * COMPRESSION_FORMAT_LZNT1, the format of NTFS compressed files and of
 * RtlCompressBuffer's default engine).
 *
 * Format. A sequence of chunks, each starting with a u16 LE header:
 *   bits 0-11  chunk data size - 1 (the 2 header bytes not included),
 *   bits 12-14 signature, always 0b011,
 *   bit  15    1 = compressed chunk, 0 = the data is stored as is.
 * A zero header word ends the stream, as does the end of the input at a
 * chunk boundary. Every chunk stands for (at most) 4096 bytes of output
 * and its copies never reach before the chunk's own start. When a chunk
 * produced fewer than 4096 bytes and another chunk follows, the gap up to
 * the 4096-byte boundary is zero bytes (as Windows' decoder fills it), so
 * chunk k always starts at output offset 4096 * k.
 * A compressed chunk is a sequence of groups: a flag byte, then one token
 * per flag bit, bit 0 first: 0 = a literal byte, 1 = a u16 LE copy token.
 * With pos = bytes of output so far in this chunk (1..4095 for a valid
 * copy), the token's top D bits hold displacement - 1 and its low 16 - D
 * bits length - 3, where D is the smallest value >= 4 with 2^D >= pos
 * (4 bits up to pos 16, 5 up to 32, ..., 12 from pos 2049). The data may
 * end in the middle of a group: the flag bits left over are ignored.
 *
 * Safety: every input read is preceded by a check against the end of the
 * current chunk (itself checked against src_len), every output write by
 * a check against dst_cap; a copy is validated (displacement within the
 * chunk's output so far, length within the chunk's 4096 bytes and the
 * room left) before any byte of it is written.
 */
#include "etl_compress.h"
#include "lib/compress/codec_result.h"

#include <string.h>

#define CHUNK 4096u

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

/* Decodes one compressed chunk's data [ip, iend) into out[], producing
 * at most `room` bytes, where room <= CHUNK already accounts for dst_cap.
 * *produced receives the bytes written (on failure too: all correct).
 * Returns 0, also when it stopped early because `room` (< CHUNK) bytes
 * were produced; -1 on a malformed token, with *bad at its first byte. */
static int chunk_decode(const uint8_t *ip, const uint8_t *const iend,
                        uint8_t *const out, const size_t room,
                        size_t *produced, const uint8_t **bad)
{
	size_t pos = 0;                 /* bytes of this chunk's output */
	unsigned dbits = 4;             /* displacement bits at pos      */
	int rc = 0;

	while (ip < iend) {
		unsigned flags = *ip++;
		unsigned k;

		for (k = 0; k < 8 && ip < iend; k++, flags >>= 1) {
			if (pos == room) {
				/* dst_cap reached: stop. A full 4096-byte
				 * chunk with tokens left is malformed. */
				if (room == CHUNK) {
					*bad = ip;
					rc = -1;
				}
				goto out;
			}
			if (!(flags & 1u)) {
				out[pos++] = *ip++;
				continue;
			}
			if ((size_t)(iend - ip) < 2) {
				*bad = ip;      /* token cut by the chunk end */
				rc = -1;
				goto out;
			}
			{
				uint32_t w = rd16(ip);
				size_t disp, len, i;

				while (((size_t)1 << dbits) < pos)
					dbits++;
				disp = (size_t)(w >> (16 - dbits)) + 1;
				len = (size_t)(w & ((1u << (16 - dbits)) - 1u)) + 3;
				/* Before the chunk's start, or past its 4096
				 * bytes / dst_cap (room covers both). */
				if (disp > pos || len > room - pos) {
					*bad = ip;
					rc = -1;
					goto out;
				}
				ip += 2;
				for (i = 0; i < len; i++)
					out[pos + i] = out[pos + i - disp];
				pos += len;
			}
		}
	}
out:
	*produced = pos;
	return rc;
}

int etl_lznt1_decompress(const uint8_t *src, size_t src_len,
                         uint8_t *dst, size_t dst_cap,
                         size_t *out_len, int *err, size_t *err_pos)
{
	size_t ip = 0, op = 0;
	size_t chunk_end = 0;           /* output offset the last chunk filled */
	size_t bad = 0;

	if (src_len == 0 || dst_cap == 0)
		goto done;

	while (op < dst_cap) {
		uint32_t hdr;
		size_t size, room, got;

		if (src_len - ip < 2) {
			if (ip == src_len)
				break;          /* end of input at a chunk boundary */
			bad = ip;
			goto malformed;
		}
		hdr = rd16(src + ip);
		if (hdr == 0)
			break;
		size = (size_t)(hdr & 0xfffu) + 1;
		if (((hdr >> 12) & 7u) != 3u || size > src_len - ip - 2) {
			bad = ip;
			goto malformed;
		}
		/* The previous chunk stands for 4096 bytes: zero the gap. */
		if (op < chunk_end) {
			size_t gap = chunk_end - op;

			if (gap > dst_cap - op)
				gap = dst_cap - op;
			memset(dst + op, 0, gap);
			op += gap;
			if (op == dst_cap)
				break;
		}
		room = dst_cap - op < CHUNK ? dst_cap - op : CHUNK;
		if (hdr & 0x8000u) {
			const uint8_t *badp = src;

			if (chunk_decode(src + ip + 2, src + ip + 2 + size,
			                 dst + op, room, &got, &badp) != 0) {
				op += got;  /* correct bytes before the token */
				bad = (size_t)(badp - src);
				goto malformed;
			}
		} else {
			got = size < room ? size : room;
			memcpy(dst + op, src + ip + 2, got);
		}
		op += got;
		chunk_end = op - got + CHUNK;
		ip += 2 + size;
	}
done:
	return etl__codec_result(1, op, 0, out_len, err, err_pos);

malformed:
	return etl__codec_result(0, op, bad, out_len, err, err_pos);
}
