/*
 * etl_compress.h - decompression of compressed ETL buffers.
 *
 * Windows 8 and later can write .etl files whose buffers are compressed
 * (LogFileMode EVENT_TRACE_COMPRESSED_MODE; BufferFlag 0x40 on the buffer).
 * The payload after the 0x48-byte buffer header is an MS-XCA "Plain LZ77"
 * stream ([MS-XCA] section 2.4) that inflates to SavedOffset - 0x48 bytes.
 */
#ifndef ETL_COMPRESS_H
#define ETL_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/*! etl_lz77_decompress() :
 *  Decompress the MS-XCA Plain LZ77 stream `src` (src_len bytes) into `dst`
 *  (dst_cap bytes of room).
 *  Preconditions : `src` may be NULL only when src_len == 0, `dst` may be NULL
 *  only when dst_cap == 0; `src` and `dst` must not overlap. `out_len`, `err`
 *  and `err_pos` may each be NULL when the caller does not want the value.
 *  Never reads before `src` or past src+src_len, never writes outside
 *  dst[0 .. dst_cap); uses no heap and no global state (thread-safe).
 *
 *  Decoding stops, successfully, at the first of:
 *   - dst_cap bytes produced. Any input left at that point is NOT examined
 *     and is not an error: a stream that would inflate to more than dst_cap
 *     bytes therefore also "succeeds" with *out_len == dst_cap. ETL knows
 *     the exact inflated size (SavedOffset - 0x48), so pass exactly that as
 *     dst_cap;
 *   - the input exhausted at a token boundary. *out_len may then be smaller
 *     than expected; the caller must compare it with the length it expects.
 *
 *  @return : ETL_OK (0) when the stream decoded cleanly as above;
 *            ETL_FAILED when the stream is malformed: a distance that reaches
 *            before the start of the output, a match longer than the room
 *            left in dst, an invalid long-length encoding (value < 22), or
 *            input that ends in the middle of a token (flag word, match word
 *            or length extension). *err is then set to ETL_E_DECOMPRESS and
 *            *err_pos to the input offset of the first byte of the bad token
 *            (its 16-bit match word, or the truncated flag word).
 *            On ETL_OK, *err is set to ETL_E_NONE and *err_pos to 0.
 *  *out_len receives the number of bytes written to dst, on success and on
 *  failure alike (on failure: the bytes produced before the bad token, all
 *  of which are correct output).
 *  Ownership : nothing is retained; `dst` belongs to the caller. Whatever
 *  the result, the bytes of dst past *out_len (but before dst_cap) are
 *  unspecified: wide copies may have used them as scratch. */
int etl_lz77_decompress(const uint8_t *src, size_t src_len,
                        uint8_t *dst, size_t dst_cap,
                        size_t *out_len, int *err, size_t *err_pos);

#ifdef __cplusplus
}
#endif
#endif /* ETL_COMPRESS_H */
