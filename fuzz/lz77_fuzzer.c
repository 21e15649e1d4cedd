/*
 * lz77_fuzzer.c - libFuzzer harness for etl_lz77_decompress().
 *
 * Input layout: a 2-byte little-endian dst_cap, then the compressed stream.
 * The output block is malloc'd with exactly dst_cap bytes so ASan reports
 * any write past it; libFuzzer's own copy of the input catches over-reads.
 *
 * Beyond "no crash", it checks two properties of the decoder:
 *   - out_len <= dst_cap, and a failure always carries ETL_E_DECOMPRESS with
 *     an error position inside the stream;
 *   - monotonicity in the room given: decoding again with more room never
 *     produces less, and the first run's output is a prefix of the second's
 *     (room only decides where decoding stops, never what it produces).
 *
 * Build: clang -fsanitize=fuzzer,address,undefined -Ilib \
 *            fuzz/lz77_fuzzer.c lib/compress/lz77_decompress.c -o lz77_fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl_compress.h"

#define MAX_INPUT   (1u << 20)   /* bigger inputs add time, not coverage */
#define MAX_DST_CAP (1u << 20)
#define EXTRA_ROOM  4096u        /* for the second, roomier decode       */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t dst_cap, src_len, out1 = 0, out2 = 0, pos1 = 0, pos2 = 0;
	const uint8_t *src;
	uint8_t *dst1, *dst2;
	int rc1, rc2, err1 = -1, err2 = -1;

	if (size < 2 || size > MAX_INPUT)
		return 0;
	dst_cap = (size_t)data[0] | ((size_t)data[1] << 8);
	if (dst_cap > MAX_DST_CAP)
		dst_cap = MAX_DST_CAP;
	src = data + 2;
	src_len = size - 2;

	/* malloc(0) may return NULL; the decoder then must not touch dst. */
	dst1 = malloc(dst_cap);
	if (!dst1 && dst_cap)
		return 0;
	rc1 = etl_lz77_decompress(src_len ? src : NULL, src_len, dst1, dst_cap,
	                          &out1, &err1, &pos1);
	if (out1 > dst_cap)
		abort();
	if (rc1 == ETL_OK) {
		if (err1 != ETL_E_NONE)
			abort();
	} else if (rc1 == ETL_FAILED) {
		if (err1 != ETL_E_DECOMPRESS || pos1 >= src_len)
			abort();
	} else {
		abort();
	}

	dst2 = malloc(dst_cap + EXTRA_ROOM);
	if (dst2) {
		rc2 = etl_lz77_decompress(src_len ? src : NULL, src_len, dst2,
		                          dst_cap + EXTRA_ROOM, &out2, &err2,
		                          &pos2);
		if (out2 > dst_cap + EXTRA_ROOM || out2 < out1)
			abort();
		if (out1 && memcmp(dst1, dst2, out1) != 0)
			abort();
		/* A clean stop before the cap must not depend on the cap. */
		if (rc1 == ETL_OK && out1 < dst_cap &&
		    (rc2 != ETL_OK || out2 != out1))
			abort();
		free(dst2);
	}
	free(dst1);
	return 0;
}
