/*
 * lz77_roundtrip_fuzzer.c - libFuzzer harness for etl_lz77_compress().
 *
 * The whole input is data to compress. Checked on every input:
 *   - compression into a block of exactly etl_lz77_compress_bound() bytes
 *     succeeds and out_len <= bound (ASan reports any write past it);
 *   - etl_lz77_decompress() with dst_cap == size gives back exactly the
 *     input, and with spare room stops by itself at the same length;
 *   - the output does not depend on the workspace (a caller's reused,
 *     dirty one vs. NULL, i.e. allocated inside) nor on dst_cap: exactly
 *     out_len bytes of room give the same bytes, one byte less fails.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl_compress.h"
#include "fuzz.h"

static void *workspace;         /* reused across inputs, never cleared */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t bound, clen = 0, clen2 = 0, out_len = 0, err_pos = 0;
	uint8_t *c, *c2, *back;
	int err = -1;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (!workspace) {
		workspace = malloc(etl_lz77_workspace_size());
		if (!workspace)
			return 0;
	}
	bound = etl_lz77_compress_bound(size);
	FUZZ_ASSERT(bound >= size);
	c = malloc(bound ? bound : 1);
	c2 = malloc(bound ? bound : 1);
	back = malloc(size ? size : 1);
	if (!c || !c2 || !back)
		goto out;

	FUZZ_ASSERT(etl_lz77_compress(size ? data : NULL, size, bound ? c : NULL,
	                              bound, &clen, workspace) == ETL_OK);
	FUZZ_ASSERT(clen <= bound);

	FUZZ_ASSERT(etl_lz77_decompress(clen ? c : NULL, clen, size ? back : NULL,
	                                size, &out_len, &err, &err_pos) == ETL_OK);
	FUZZ_ASSERT(err == ETL_E_NONE);
	FUZZ_ASSERT(out_len == size);
	FUZZ_ASSERT(size == 0 || memcmp(back, data, size) == 0);

	/* Same bytes without a caller workspace, with exactly enough room. */
	FUZZ_ASSERT(etl_lz77_compress(size ? data : NULL, size, clen ? c2 : NULL,
	                              clen, &clen2, NULL) == ETL_OK);
	FUZZ_ASSERT(clen2 == clen);
	FUZZ_ASSERT(clen == 0 || memcmp(c, c2, clen) == 0);
	if (clen)
		FUZZ_ASSERT(etl_lz77_compress(data, size, c2, clen - 1, &clen2,
		                              workspace) == ETL_FAILED);

	/* With spare room the stream ends by itself. */
	free(back);
	back = malloc(size + 64);
	if (back) {
		FUZZ_ASSERT(etl_lz77_decompress(clen ? c : NULL, clen, back,
		                                size + 64, &out_len, &err,
		                                &err_pos) == ETL_OK);
		FUZZ_ASSERT(out_len == size);
	}
out:
	free(c);
	free(c2);
	free(back);
	return 0;
}
