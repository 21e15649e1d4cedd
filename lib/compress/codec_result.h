/*
 * lib/compress/codec_result.h - how every decompressor of lib/compress
 * reports its end (internal): the bytes produced, the reason, and where in
 * the input a malformed stream went wrong.
 */
#ifndef ETL_CODEC_RESULT_H
#define ETL_CODEC_RESULT_H

#ifndef ETL_BUILDING_LIB
#error "lib/compress/codec_result.h is internal to libetl"
#endif

#include <stddef.h>
#include "etl_errors.h"

/* Fills the optional out-parameters of a decompressor: produced bytes,
 * ETL_E_NONE or ETL_E_DECOMPRESS, and bad_pos (the input offset of the
 * damage; 0 when ok). @return : ETL_OK when ok, else ETL_FAILED. */
static inline int etl__codec_result(int ok, size_t produced, size_t bad_pos, size_t *out_len,
                                    int *err, size_t *err_pos)
{
	if (out_len)
		*out_len = produced;
	if (err)
		*err = ok ? ETL_E_NONE : ETL_E_DECOMPRESS;
	if (err_pos)
		*err_pos = ok ? 0 : bad_pos;
	return ok ? ETL_OK : ETL_FAILED;
}

#endif /* ETL_CODEC_RESULT_H */
