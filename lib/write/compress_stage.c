/*
 * lib/write/compress_stage.c - compressed files the way the Windows user-mode
 * logger writes them (Windows 8 and later; doc/format.md §4.1, §4.3).
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
 *
 * The stage is the writer's (lib/write/writer.c) but calls nothing of it:
 * see lib/write/compress_stage.h.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/write/compress_stage.h"
#include "lib/write/write_internal.h"

#define HDR ETL_BUFFER_HEADER_SIZE

struct etl__wc {
	uint32_t bs;               /* trace buffer size                       */
	uint8_t *cbuf;             /* compression buffer: 2 trace buffers     */
	size_t cbuf_cap, cfill;
	size_t partial_len;        /* front bytes finishing a buffer already
	                              partly in the file                      */
	uint32_t cbuf_buffers;     /* whole compressed buffers in cbuf        */
	uint8_t *ctmp;             /* one compressed buffer being built       */
	void *workspace;
	uint64_t buffers_in_file;
	uint64_t last_off;         /* file offset of the last compressed buffer */
	int have_last;
	uint64_t good_off;         /* the last buffer known to have begun in
	                              the file (what a failed write falls back to) */
	int have_good;
	uint64_t flushes;          /* flushes of one trace buffer's worth     */
	uint32_t last_flush_buffers; /* trace buffers completed by the last flush */
};

static void report_init(struct etl__wc_report *r)
{
	r->taken = 0;
	r->lost = 0;
	r->err.code = 0;
	r->err.msg[0] = 0;
}

/* A failed write: the file is spent when it is a path (its temporary is
 * dropped whole); an fd or a sink goes on without what was lost. */
static int write_failed(const struct etl_out *out)
{
	return out->kind == ETL_OUT_PATH ? ETL_FATAL : ETL_FAILED;
}

struct etl__wc *etl__wc_new(uint32_t buffer_size, struct etl__wc_report *r)
{
	report_init(r);
	size_t bs = buffer_size;
	size_t one = HDR + etl_lz77_compress_bound(bs - HDR);
	size_t cap = 2 * bs + one;   /* 2 trace buffers, plus one overflowing add */
	struct etl__wc *c = calloc(1, sizeof *c);
	if (c) {
		c->bs = buffer_size;
		c->cbuf_cap = cap;
		c->cbuf = malloc(cap);
		c->ctmp = malloc(one);
		c->workspace = malloc(etl_lz77_workspace_size());
	}
	if (!c || !c->cbuf || !c->ctmp || !c->workspace) {
		etl__err_set(&r->err, ETL_E_NOMEM, 0, "Out of memory for the compression buffer: size=%zu", cap);
		etl__wc_free(c);
		return NULL;
	}
	return c;
}

void etl__wc_free(struct etl__wc *c)
{
	if (!c)
		return;
	free(c->cbuf);
	free(c->ctmp);
	free(c->workspace);
	free(c);
}

/* Writes n bytes from the front of the compression buffer. After a
 * successful write every buffer with bytes in the compression buffer has
 * begun in the file, and what stays is the tail of the last one added (it
 * starts before the trace-buffer mark, since a write happens as soon as the
 * mark is reached). On failure the whole buffers not yet begun are lost and
 * only the partial buffer's overflow is kept. */
static int flush_one(struct etl__wc *c, struct etl_out *out, uint64_t *end, size_t n,
                     struct etl__wc_report *r)
{
	if (etl__out_write(out, *end, c->cbuf, n) != 0) {
		etl__err_set(&r->err, ETL_E_IO, 0, "Cannot write compressed buffers: offset=%llu, size=%zu",
		             (unsigned long long)*end, n);
		if (write_failed(out) == ETL_FATAL)
			return ETL_FATAL;
		r->lost += c->cbuf_buffers;
		c->buffers_in_file -= c->cbuf_buffers;
		c->cbuf_buffers = 0;
		c->cfill = c->partial_len;
		c->last_off = c->good_off;
		c->have_last = c->have_good;
		return ETL_FAILED;
	}
	*end += n;
	c->flushes++;
	memmove(c->cbuf, c->cbuf + n, c->cfill - n);
	c->cfill -= n;
	c->partial_len = c->cfill;
	c->cbuf_buffers = 0;
	c->good_off = c->last_off;
	c->have_good = c->have_last;
	return ETL_OK;
}

int etl__wc_add_buffer(struct etl__wc *c, struct etl_out *out, uint64_t *end, uint8_t *buf,
                       uint32_t pos, struct etl__wc_report *r)
{
	report_init(r);
	size_t bs = c->bs;
	size_t clen = 0;
	uint8_t *z = c->ctmp;
	if (etl_lz77_compress(buf + HDR, pos - HDR, z + HDR, etl_lz77_compress_bound(bs - HDR), &clen,
	                      c->workspace) != ETL_OK) {
		etl__err_set(&r->err, ETL_E_BAD_VALUE, 0, "Cannot compress a buffer: size=%u", pos);
		return ETL_FATAL;
	}
	memcpy(z, buf, HDR);
	etl_put32(z + 0x00, (uint32_t)(HDR + clen));
	etl_put32(z + 0x04, pos);
	etl_put32(z + 0x08, (uint32_t)(bs + pos));
	etl_put32(z + 0x30, pos);
	etl_put16(z + 0x34, (uint16_t)(etl_le16(z + 0x34) | ETL_BUF_FLAG_COMPRESSED));
	size_t n = HDR + clen;
	/* Where this buffer lands in the file: after what is already written
	 * and what waits in the compression buffer. */
	c->last_off = *end + c->cfill;
	c->have_last = 1;
	memcpy(c->cbuf + c->cfill, z, n);
	c->cfill += n;
	c->cbuf_buffers++;
	c->buffers_in_file++;
	r->taken = 1;
	if (c->cfill < bs)
		return ETL_OK;
	/* Buffers with bytes in the compression buffer before this write:
	 * all complete after it but the one whose tail stays. */
	uint32_t present = c->cbuf_buffers + (c->partial_len ? 1u : 0u);
	while (c->cfill >= bs) {
		int rc = flush_one(c, out, end, bs, r);
		if (rc != ETL_OK)
			return rc;
	}
	c->last_flush_buffers = present - (c->cfill ? 1u : 0u);
	return ETL_OK;
}

int etl__wc_finish(struct etl__wc *c, struct etl_out *out, uint64_t *end,
                   struct etl__wc_report *r)
{
	report_init(r);
	int fin = ETL_OK;
	if (c->cfill > 0) {
		int rc = flush_one(c, out, end, c->cfill, r);
		if (rc == ETL_FATAL)
			return rc;
		if (rc != ETL_OK) {
			/* No later write can complete the buffer begun in the file:
			 * it is lost too, and gets no flush marker. */
			if (c->partial_len) {
				r->lost++;
				c->buffers_in_file--;
				c->have_last = 0;
			}
			fin = rc;
		}
	}
	if (c->have_last) {
		/* doc/format.md §4.1: the last buffer carries the flush marker
		 * (0x61). */
		uint8_t fl[2];
		etl_put16(fl, ETL_BUF_FLAG_PROC_INDEX | ETL_BUF_FLAG_COMPRESSED | ETL_BUF_FLAG_FLUSH_MARKER);
		if (etl__out_write(out, c->last_off + 0x34, fl, 2) != 0) {
			etl__err_set(&r->err, ETL_E_IO, 0, "Cannot mark the last compressed buffer: offset=%llu",
			             (unsigned long long)c->last_off);
			return write_failed(out);   /* fd / sink: the header is still finalised */
		}
	}
	return fin;
}

int etl__wc_sync(const struct etl__wc *c, struct etl_out *out, uint64_t end,
                 struct etl__wc_report *r)
{
	report_init(r);
	if (!c || c->cfill == 0 || etl__out_write(out, end, c->cbuf, c->cfill) == 0)
		return ETL_OK;
	etl__err_set(&r->err, ETL_E_IO, 0, "Cannot write compressed buffers: offset=%llu, error=\"%s\"",
	             (unsigned long long)end, strerror(errno ? errno : EIO));
	return ETL_FATAL;
}

size_t etl__wc_pending(const struct etl__wc *c)
{
	return c ? c->cfill : 0;
}

uint64_t etl__wc_buffers_in_file(const struct etl__wc *c)
{
	return c ? c->buffers_in_file : 0;
}
