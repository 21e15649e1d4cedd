/*
 * xpress_huff_fuzzer.c - libFuzzer harness for etl_xpress_huff_decompress().
 *
 * Input layout: a 2-byte little-endian dst_cap, then the LZ77+Huffman stream.
 * The output block is malloc'd with exactly dst_cap bytes so ASan reports
 * any write past it; libFuzzer's own copy of the input catches over-reads.
 *
 * Checked beyond "no crash":
 *   - out_len <= dst_cap; ETL_OK carries ETL_E_NONE, ETL_FAILED carries
 *     ETL_E_DECOMPRESS and an error position inside the stream (or at
 *     its end);
 *   - more room never produces less, and the first run's output is a
 *     prefix of the second's (room only decides where decoding stops);
 *   - a clean stop before the cap does not depend on the cap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl_compress.h"
#include "fuzz.h"

#define EXTRA_ROOM 70000u        /* past the first 65536-byte block */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t dst_cap, src_len, out1 = 0, out2 = 0, pos1 = 0, pos2 = 0;
	const uint8_t *src;
	uint8_t *dst1, *dst2;
	int rc1, rc2, err1 = -1, err2 = -1;

	if (size < 2 || size > FUZZ_MAX_INPUT)
		return 0;
	dst_cap = (size_t)data[0] | ((size_t)data[1] << 8);
	src = data + 2;
	src_len = size - 2;

	dst1 = malloc(dst_cap);          /* may be NULL when dst_cap == 0 */
	if (!dst1 && dst_cap)
		return 0;
	rc1 = etl_xpress_huff_decompress(src_len ? src : NULL, src_len, dst1,
	                                 dst_cap, &out1, &err1, &pos1);
	FUZZ_ASSERT(out1 <= dst_cap);
	if (rc1 == ETL_OK) {
		FUZZ_ASSERT(err1 == ETL_E_NONE && pos1 == 0);
	} else {
		FUZZ_ASSERT(rc1 == ETL_FAILED);
		/* The symbol may sit in the look-ahead after the last word. */
		FUZZ_ASSERT(err1 == ETL_E_DECOMPRESS && pos1 <= src_len);
	}

	dst2 = malloc(dst_cap + EXTRA_ROOM);
	if (dst2) {
		rc2 = etl_xpress_huff_decompress(src_len ? src : NULL, src_len,
		                                 dst2, dst_cap + EXTRA_ROOM,
		                                 &out2, &err2, &pos2);
		FUZZ_ASSERT(out2 <= dst_cap + EXTRA_ROOM);
		FUZZ_ASSERT(out2 >= out1);
		FUZZ_ASSERT(out1 == 0 || memcmp(dst1, dst2, out1) == 0);
		if (rc1 == ETL_OK && out1 < dst_cap)
			FUZZ_ASSERT(rc2 == ETL_OK && out2 == out1);
		free(dst2);
	}
	free(dst1);
	return 0;
}
