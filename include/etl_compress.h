/*
 * etl_compress.h - decompression of compressed ETL buffers.
 *
 * Windows 8 and later can write .etl files whose buffers are compressed
 * (LogFileMode EVENT_TRACE_COMPRESSED_MODE; BufferFlag 0x40 on the buffer).
 * The payload after the 0x48-byte buffer header is an MS-XCA "Plain LZ77"
 * stream ([MS-XCA] section 2.4) that inflates to SavedOffset - 0x48 bytes.
 *
 * Also here: the Plain LZ77 compressor (for writing compressed buffers)
 * and decoders of the two other [MS-XCA] formats, LZNT1 and LZ77+Huffman,
 * with the same safety contract as etl_lz77_decompress().
 */
#ifndef ETL_COMPRESS_H
#define ETL_COMPRESS_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"

/* COMPRESSION_FORMAT_* values, as a compressed file's header buffer names
 * them in its State field. */
#define ETL_COMPRESSION_LZNT1       2
#define ETL_COMPRESSION_XPRESS      3   /* MS-XCA Plain LZ77 */
#define ETL_COMPRESSION_XPRESS_HUFF 4   /* MS-XCA LZ77+Huffman */

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
ETL_API int etl_lz77_decompress(const uint8_t *src, size_t src_len,
                        uint8_t *dst, size_t dst_cap,
                        size_t *out_len, int *err, size_t *err_pos);

/*! etl_lz77_compress_bound() :
 *  The largest output etl_lz77_compress() can produce for src_len input
 *  bytes: src_len plus one 4-byte flag word per 32 bytes (started), i.e.
 *  the all-literals encoding; any match is shorter than the bytes it
 *  replaces. A dst of this size never makes etl_lz77_compress() fail.
 *  @return : the bound; 0 for src_len == 0 (the empty stream), and also 0
 *            when the bound would not fit in a size_t (src_len beyond
 *            about 8/9 of SIZE_MAX): such an input cannot be compressed. */
ETL_API size_t etl_lz77_compress_bound(size_t src_len);

/*! etl_lz77_workspace_size() :
 *  Bytes of scratch memory etl_lz77_compress() needs (about 96 KiB: the
 *  match finder's hash table and hash chain). A writer allocates it once
 *  and passes it to every call, so compressing a buffer never allocates.
 *  @return : a constant for a given build of the library. */
ETL_API size_t etl_lz77_workspace_size(void);

/*! etl_lz77_compress() :
 *  Compress `src` (src_len bytes) into an MS-XCA Plain LZ77 stream
 *  ([MS-XCA] 2.3/2.4) in `dst` (dst_cap bytes of room), the payload of a
 *  compressed ETL buffer. etl_lz77_decompress() with dst_cap == src_len
 *  inflates it to exactly `src` (so does a decoder given more room: the
 *  last flag word is padded with 1 bits, as Windows' encoder does, and
 *  the stream simply stops). Matches reach at most 8192 bytes back and
 *  are at least 3 bytes long; the output is deterministic (same input,
 *  same bytes, whatever the workspace held before).
 *  Preconditions : `src` may be NULL only when src_len == 0, `dst` only
 *  when dst_cap == 0; they must not overlap. `out_len` may be NULL.
 *  `workspace` is NULL (the function then mallocs and frees its own) or
 *  points to etl_lz77_workspace_size() bytes aligned for uint32_t (any
 *  malloc() result; a misaligned pointer is treated as NULL); its content
 *  on entry does not matter and is garbage on return. One workspace must
 *  not be used by two calls at the same time; otherwise thread-safe (no
 *  global state).
 *  Empty input gives an empty stream (0 bytes), which etl_lz77_decompress
 *  inflates to 0 bytes.
 *  @return : ETL_OK, with *out_len = the stream length (<= dst_cap, and
 *            <= etl_lz77_compress_bound(src_len));
 *            ETL_FAILED when the stream does not fit in dst_cap bytes (it
 *            always fits in etl_lz77_compress_bound(src_len)), or when
 *            workspace is NULL and allocating one failed. *out_len is then
 *            0 and dst[0 .. dst_cap) holds unspecified bytes.
 *  Ownership : nothing is retained; src, dst and workspace belong to the
 *  caller. */
ETL_API int etl_lz77_compress(const uint8_t *src, size_t src_len,
                      uint8_t *dst, size_t dst_cap, size_t *out_len,
                      void *workspace);

/*! etl_lznt1_decompress() :
 *  Decompress an LZNT1 stream ([MS-XCA] 2.5; COMPRESSION_FORMAT_LZNT1, the
 *  NTFS / RtlCompressBuffer format) `src` (src_len bytes) into `dst`
 *  (dst_cap bytes of room). The stream is a sequence of chunks, each with
 *  a u16 header: bits 0-11 = chunk data size - 1 (the header excluded),
 *  bits 12-14 = signature 0b011, bit 15 = compressed. An uncompressed
 *  chunk's data is copied as is (4096 bytes, fewer normally only in the
 *  stream's last chunk); a compressed one holds groups of a flag byte
 *  (bit 0 first, 1 = copy token) and up to 8 tokens: a literal byte, or a
 *  u16 copy token whose split between displacement (high bits) and
 *  length - 3 (low bits) depends on how far into the chunk's 4096-byte
 *  output the token is (12 length bits up to position 16, then one bit
 *  less each time the position passes 16, 32, 64, ... 2048). A chunk's
 *  output never exceeds 4096 bytes and copies never reach before the
 *  chunk's start. Each chunk stands for 4096 bytes of output: when one
 *  produced fewer and another chunk follows, the gap is zero-filled (as
 *  Windows does), so chunk k starts at output offset 4096 * k. A zero
 *  header word, or the end of the input at a chunk boundary, ends the
 *  stream (input after a zero header is not examined).
 *  Preconditions, safety, out-parameters, and the stop-at-dst_cap rule are
 *  those of etl_lz77_decompress(): never reads outside src[0 .. src_len)
 *  or writes outside dst[0 .. dst_cap), no heap, no global state. Decoding
 *  stops successfully once dst_cap bytes are produced; output shorter than
 *  expected must be detected by the caller from *out_len.
 *  @return : ETL_OK; or ETL_FAILED (*err = ETL_E_DECOMPRESS, *err_pos =
 *            input offset of the chunk header or token at fault) for: a bad
 *            chunk signature, a chunk header announcing more bytes than
 *            remain, a chunk whose tokens run past its end or produce more
 *            than 4096 bytes, a copy reaching before the chunk's start, or
 *            a copy longer than the room left in dst.
 *  *out_len receives the bytes written (on failure: the correct output
 *  produced before the bad chunk or token, the bad chunk's first tokens
 *  included).
 *  Ownership : nothing is retained; dst belongs to the caller. */
ETL_API int etl_lznt1_decompress(const uint8_t *src, size_t src_len,
                         uint8_t *dst, size_t dst_cap,
                         size_t *out_len, int *err, size_t *err_pos);

/*! etl_xpress_huff_decompress() :
 *  Decompress an LZ77+Huffman stream ([MS-XCA] 2.1/2.2;
 *  COMPRESSION_FORMAT_XPRESS_HUFF) `src` (src_len bytes) into `dst`
 *  (dst_cap bytes of room). The stream is a sequence of blocks, each
 *  standing for 65536 bytes of output (a match may run past a block's
 *  end): a 256-byte table of 512 4-bit code lengths (symbol 2i in the low
 *  nibble of byte i, 2i+1 in the high nibble; 0 = unused), then a bit
 *  stream read as 16-bit little-endian words, most significant bit first,
 *  with 32 bits of look-ahead as in [MS-XCA]'s decoder, of canonical
 *  Huffman codes of at most 15 bits. Symbols 0-255 are literals; symbol
 *  256 + (D << 4) + L is a match at distance 2^D + the next D bits
 *  (reaching back across blocks, up to 65535), length L + 3, or for
 *  L == 15 a byte b from the byte stream: b + 18, or for b == 255 a u16 v
 *  (v == 0: a u32 v instead), length v + 3 (v < 15 is invalid).
 *  The stream ends with symbol 256 decoded once the whole input has been
 *  loaded (the end-of-stream marker: pass the exact output size as
 *  dst_cap, as [MS-XCA]'s decoder knows it, so that a genuine
 *  distance-1 length-3 match in the last bytes cannot be taken for it),
 *  at the end of the input at a block boundary, or once dst_cap bytes are
 *  produced.
 *  Preconditions, safety, out-parameters, and the stop-at-dst_cap rule are
 *  those of etl_lz77_decompress(): never reads outside src[0 .. src_len)
 *  or writes outside dst[0 .. dst_cap), no heap (about 4 KiB of stack),
 *  no global state. Output shorter than expected must be detected by the
 *  caller from *out_len.
 *  @return : ETL_OK; or ETL_FAILED (*err = ETL_E_DECOMPRESS) for: a block
 *            shorter than its 256-byte table and first two words, an
 *            invalid code-length table (all zero, over-subscribed or
 *            incomplete: the codes must fill the 15-bit code space
 *            exactly), a word, length byte or u16/u32 past the end of the
 *            input, a long length below 15, a match reaching before the
 *            start of the output or longer than the room left. *err_pos
 *            is then the offset of the block's table (bad table) or the
 *            input position, just past the words loaded so far, at which
 *            the bad symbol was decoded.
 *  *out_len receives the bytes written (on failure: the correct output
 *  produced before the bad symbol).
 *  Ownership : nothing is retained; dst belongs to the caller. */
ETL_API int etl_xpress_huff_decompress(const uint8_t *src, size_t src_len,
                               uint8_t *dst, size_t dst_cap,
                               size_t *out_len, int *err, size_t *err_pos);

#ifdef __cplusplus
}
#endif
#endif /* ETL_COMPRESS_H */
