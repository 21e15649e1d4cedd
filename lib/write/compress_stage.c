/*
 * lib/write/compress_stage.c - compressed files the way the user-mode logger
 * writes them (Windows 8 and later; seed 001 "ETW_UM_LOGGER_CONTEXT", spec
 * format.md §4.1, §4.3).
 *
 * Each full trace buffer is compressed on its own (MS-XCA Plain LZ77, no
 * history across buffers) into a compressed buffer: the 0x48-byte header in
 * clear, with BufferSize = 0x48 + compressed length, flag 0x40, SavedOffset
 * = Offset = 0x48 + uncompressed length and CurrentOffset = buffer size +
 * SavedOffset, then the compressed records (the 0xFF fill is not stored).
 *
 * Compressed buffers are appended to a compression buffer two trace buffers
 * long. As soon as it holds at least one trace buffer's worth, exactly that
 * much is written to the file and the overflow moves to the front: it is the
 * rest of a *partial* buffer whose beginning is already in the file, which
 * the next write completes. So buffers lie back to back in the file, each
 * may straddle any buffer-size boundary, and one write can carry many
 * buffers (counted per flush, as Windows 8.1 does).
 *
 * A failed write loses the whole buffers in the compression buffer (counted
 * in BuffersLost) but keeps the overflow of the partial buffer, so a later
 * write that succeeds still completes the buffer already begun in the file.
 * At close the remainder is written short, and the last buffer gets the
 * flush marker: the file ends where its last buffer ends.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/write/write_internal.h"

#define HDR ETL_BUFFER_HEADER_SIZE

int etl__wc_init(struct etl_writer *w)
{
	etl__wc_free(w);   /* an earlier, failed open may have made them */
	size_t bs = w->o.buffer_size;
	size_t one = HDR + etl_lz77_compress_bound(bs - HDR);
	w->cbuf_cap = 2 * bs + one;   /* 2 trace buffers, plus one overflowing add */
	w->cbuf = malloc(w->cbuf_cap);
	w->ctmp = malloc(one);
	w->workspace = malloc(etl_lz77_workspace_size());
	w->cfill = 0;
	if (!w->cbuf || !w->ctmp || !w->workspace) {
		etl__werr(w, ETL_E_NOMEM, "Out of memory for the compression buffer: size=%zu", w->cbuf_cap);
		return ETL_FATAL;
	}
	return ETL_OK;
}

void etl__wc_free(struct etl_writer *w)
{
	free(w->cbuf);
	free(w->ctmp);
	free(w->workspace);
	w->cbuf = w->ctmp = NULL;
	w->workspace = NULL;
}

/* Writes n bytes from the front of the compression buffer. After a
 * successful write every buffer with bytes in the compression buffer has
 * begun in the file, and what stays is the tail of the last one added (it
 * starts before the trace-buffer mark, since a write happens as soon as the
 * mark is reached). On failure the whole buffers not yet begun are lost and
 * only the partial buffer's overflow is kept. */
static int flush_one(struct etl_writer *w, size_t n)
{
	if (etl__out_write(&w->out, w->file_end, w->cbuf, n) != 0) {
		etl__werr(w, ETL_E_IO, "Cannot write compressed buffers: offset=%llu, size=%zu",
		          (unsigned long long)w->file_end, n);
		if (w->out.kind == ETL_OUT_PATH) {
			w->broken = 1;
			return ETL_FATAL;
		}
		w->buffers_lost += w->cbuf_buffers;
		w->wc_buffers_in_file -= w->cbuf_buffers;
		w->cbuf_buffers = 0;
		w->cfill = w->partial_len;
		w->wc_last_off = w->wc_good_off;
		w->wc_have_last = w->wc_have_good;
		return ETL_FAILED;
	}
	w->stats.bytes_written += n;
	w->file_end += n;
	w->wc_flushes++;
	memmove(w->cbuf, w->cbuf + n, w->cfill - n);
	w->cfill -= n;
	w->partial_len = w->cfill;
	w->cbuf_buffers = 0;
	w->wc_good_off = w->wc_last_off;
	w->wc_have_good = w->wc_have_last;
	return ETL_OK;
}

int etl__wc_add_buffer(struct etl_writer *w, uint8_t *buf, uint32_t pos)
{
	size_t bs = w->o.buffer_size;
	size_t clen = 0;
	uint8_t *c = w->ctmp;
	if (etl_lz77_compress(buf + HDR, pos - HDR, c + HDR, etl_lz77_compress_bound(bs - HDR), &clen,
	                      w->workspace) != ETL_OK) {
		etl__werr(w, ETL_E_BAD_VALUE, "Cannot compress a buffer: size=%u", pos);
		w->broken = 1;
		return ETL_FATAL;
	}
	memcpy(c, buf, HDR);
	etl_put32(c + 0x00, (uint32_t)(HDR + clen));
	etl_put32(c + 0x04, pos);
	etl_put32(c + 0x08, (uint32_t)(bs + pos));
	etl_put32(c + 0x30, pos);
	etl_put16(c + 0x34, (uint16_t)(etl_le16(c + 0x34) | ETL_BUF_FLAG_COMPRESSED));
	size_t n = HDR + clen;
	/* Where this buffer lands in the file: after what is already written
	 * and what waits in the compression buffer. */
	w->wc_last_off = w->file_end + w->cfill;
	w->wc_have_last = 1;
	memcpy(w->cbuf + w->cfill, c, n);
	w->cfill += n;
	w->cbuf_buffers++;
	w->wc_buffers_in_file++;
	w->stats.buffers_written++;
	w->data_buffers++;
	if (w->cfill < bs)
		return ETL_OK;
	/* Buffers with bytes in the compression buffer before this write:
	 * all complete after it but the one whose tail stays. */
	uint32_t present = w->cbuf_buffers + (w->partial_len ? 1u : 0u);
	while (w->cfill >= bs) {
		int rc = flush_one(w, bs);
		if (rc != ETL_OK)
			return rc;
	}
	w->wc_last_flush_buffers = present - (w->cfill ? 1u : 0u);
	return ETL_OK;
}

int etl__wc_finish(struct etl_writer *w)
{
	int fin = ETL_OK;
	if (w->cfill > 0) {
		int rc = flush_one(w, w->cfill);
		if (rc == ETL_FATAL)
			return rc;
		if (rc != ETL_OK) {
			/* No later write can complete the buffer begun in the file:
			 * it is lost too, and gets no flush marker. */
			if (w->partial_len) {
				w->buffers_lost++;
				w->wc_buffers_in_file--;
				w->wc_have_last = 0;
			}
			fin = rc;
		}
	}
	if (w->wc_have_last) {
		/* SPEC: §4.1 - the last buffer carries the flush marker (0x61). */
		uint8_t fl[2];
		etl_put16(fl, ETL_BUF_FLAG_PROC_INDEX | ETL_BUF_FLAG_COMPRESSED | ETL_BUF_FLAG_FLUSH_MARKER);
		if (etl__out_write(&w->out, w->wc_last_off + 0x34, fl, 2) != 0) {
			etl__werr(w, ETL_E_IO, "Cannot mark the last compressed buffer: offset=%llu",
			          (unsigned long long)w->wc_last_off);
			if (w->out.kind == ETL_OUT_PATH) {
				w->broken = 1;
				return ETL_FATAL;
			}
			return ETL_FAILED;   /* fd / sink: the header is still finalised */
		}
	}
	return fin;
}
