/*
 * lib/read/buffer.c - one buffer: its WMI_BUFFER_HEADER, loading (and inflating)
 * it, and walking its records.
 *
 * WMI_BUFFER_HEADER, 0x48 bytes (GC inc/api/ntwmi/wmi_buffer_header;
 * doc/format.md §1.2):
 *   0x00 u32 BufferSize     bytes stored in the file, header included
 *   0x04 u32 SavedOffset    valid bytes (compressed: uncompressed length)
 *   0x08 u32 CurrentOffset  0x0C i32 ReferenceCount
 *   0x10 i64 TimeStamp      0x18 i64 SequenceNumber
 *   0x20 u64 (clock / list pointers; kept as stored)
 *   0x28 u16 ProcessorIndex (u8 ProcessorNumber without flag 0x20)
 *   0x2A u16 LoggerId       0x2C u32 State
 *   0x30 u32 Offset         0x34 u16 BufferFlag   0x36 u16 BufferType
 *   0x38 16 bytes (reference time / stale pointers)
 *
 * Walk rules (doc/format.md §1.5, §4.1):
 *   - the next buffer is at this one + BufferSize (never index x size);
 *   - records run from 0x48 to min(BufferSize, max(SavedOffset, Offset))
 *     (relogged header buffers have SavedOffset < Offset);
 *   - a compressed buffer (flag 0x40) stores BufferSize - 0x48 bytes of
 *     MS-XCA Plain LZ77 that inflate to exactly SavedOffset - 0x48 bytes;
 *   - 0xFFFFFFFF where a record marker should be ends the records;
 *   - records are 8-byte aligned; a record that does not fit abandons the
 *     rest of its buffer.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include "etl_compress.h"
#include "lib/common/cursor.h"
#include "lib/common/zero.h"
#include "lib/read/buffer.h"

#define HDR ETL_BUFFER_HEADER_SIZE

void etl__walk_fatal(struct etl_walk *w, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	etl__errinfo_vset(&w->fatal, code, off, fmt, ap);
	va_end(ap);
}

void etl__walk_source_damage(struct etl_walk *w, uint64_t off)
{
	if (w->src.errmsg[0]) {
		etl__damage_add(&w->damage, ETL_E_DECOMPRESS, off, "%s: offset=0x%llx (in the decompressed stream)",
		                w->src.errmsg, (unsigned long long)off);
		w->src.errmsg[0] = 0;
	}
}

static void parse_header(const uint8_t *p, uint64_t off, struct etl_buffer_info *bi)
{
	memset(bi, 0, sizeof *bi);
	bi->file_offset = off;
	bi->buffer_size = etl_le32(p + 0x00);
	bi->saved_offset = etl_le32(p + 0x04);
	bi->current_offset = etl_le32(p + 0x08);
	bi->reference_count = (int32_t)etl_le32(p + 0x0C);
	bi->timestamp = (int64_t)etl_le64(p + 0x10);
	bi->sequence = (int64_t)etl_le64(p + 0x18);
	bi->union_20 = etl_le64(p + 0x20);
	bi->state = etl_le32(p + 0x2C);
	bi->offset = etl_le32(p + 0x30);
	bi->flags = etl_le16(p + 0x34);
	bi->type = etl_le16(p + 0x36);
	/* doc/format.md §1.4 - the 16-bit ProcessorIndex when PROC_INDEX is set,
	 * else the low byte (ProcessorNumber). */
	bi->processor = (bi->flags & ETL_BUF_FLAG_PROC_INDEX) ? etl_le16(p + 0x28) : p[0x28];
	bi->logger_id = etl_le16(p + 0x2A);
	bi->compressed = (bi->flags & ETL_BUF_FLAG_COMPRESSED) ? 1 : 0;
	bi->header = p;
}

int etl__buffer_header(struct etl_walk *w, uint64_t off, struct etl_buffer_info *bi,
                       uint64_t *next, int walk)
{
	const uint8_t *p;
	size_t avail;
	*next = UINT64_MAX;
	if (etl__src_get(&w->src, off, HDR, &p, &avail) != ETL_OK) {
		etl__walk_fatal(w, w->src.errcode ? w->src.errcode : ETL_E_IO, off, "%s", w->src.errmsg);
		return ETL_FATAL;
	}
	if (avail == 0) {
		if (walk) {
			w->at_end = 1;
			w->end_off = off;
		}
		return ETL_END;
	}
	if (walk) {
		w->stats.bytes_in = off;
	}
	if (avail < HDR) {
		if (walk) {
			w->at_end = 1;
			w->end_off = off + avail;
		}
		if (walk)
			etl__damage_add(&w->damage, ETL_E_TRUNCATED, off,
			          "Buffer header cut short by the end of the input: offset=0x%llx, available=%zu",
			          (unsigned long long)off, avail);
		return ETL_FAILED;
	}
	parse_header(p, off, bi);
	if (walk) {
		w->stats.buffers++;
		if (bi->compressed)
			w->stats.compressed_buffers++;
	}
	/* doc/format.md §1.5 - a BufferSize below the header size cannot be chained:
	 * the walk stops here. */
	if (bi->buffer_size < HDR) {
		if (walk) {
			w->stats.bad_buffers++;
			etl__damage_add(&w->damage, ETL_E_BAD_SIZE, off,
			          "BufferSize is smaller than a buffer header, so the walk stops: offset=0x%llx, buffer-size=%u",
			          (unsigned long long)off, bi->buffer_size);
		}
		return ETL_FAILED;
	}
	if (bi->buffer_size > ETL_MAX_BUFFER_SIZE) {
		/* Resynchronise on the logger's buffer size when buffers are of
		 * fixed size (not in compressed files, where they vary). */
		uint32_t step = w->logger_buffer_size;
		int fixed = step >= HDR && step <= ETL_MAX_BUFFER_SIZE && !w->compressed_file;
		if (fixed)
			*next = off + step;
		if (walk) {
			w->stats.bad_buffers++;
			etl__damage_add(&w->damage, ETL_E_BAD_SIZE, off,
			          "BufferSize is larger than any ETW buffer; %s: offset=0x%llx, buffer-size=%u",
			          fixed ? "skipping one logger buffer" : "the walk stops",
			          (unsigned long long)off, bi->buffer_size);
		}
		return ETL_FAILED;
	}
	*next = off + bi->buffer_size;
	if (bi->processor >= ETL_MAX_PROCESSORS) {
		if (walk) {
			w->stats.bad_buffers++;
			etl__damage_add(&w->damage, ETL_E_BAD_VALUE, off,
			                "Buffer's processor index is beyond any Windows machine; buffer skipped: offset=0x%llx, processor=%u, limit=%u",
			                (unsigned long long)off, (unsigned)bi->processor, ETL_MAX_PROCESSORS);
		}
		return ETL_FAILED;
	}
	if (bi->compressed) {
		if (bi->saved_offset < HDR || bi->saved_offset > ETL_MAX_BUFFER_SIZE) {
			if (walk) {
				w->stats.bad_buffers++;
				etl__damage_add(&w->damage, ETL_E_BAD_SIZE, off,
				          "Compressed buffer has an impossible uncompressed size; buffer skipped: offset=0x%llx, saved-offset=%u",
				          (unsigned long long)off, bi->saved_offset);
			}
			return ETL_FAILED;
		}
		/* doc/format.md §4.1 - a compressed buffer holds at most one logger buffer
		 * of records. Holding it to the logfile's BufferSize also bounds
		 * the memory of time order (one inflated buffer per processor)
		 * against tiny buffers that claim to inflate to 32 MiB. */
		if (w->logger_buffer_size >= HDR && bi->saved_offset > w->logger_buffer_size) {
			if (walk) {
				w->stats.bad_buffers++;
				etl__damage_add(&w->damage, ETL_E_BAD_SIZE, off,
				          "Compressed buffer claims more records than a logger buffer holds; buffer skipped: offset=0x%llx, saved-offset=%u, buffer-size=%u",
				          (unsigned long long)off, bi->saved_offset, w->logger_buffer_size);
			}
			return ETL_FAILED;
		}
		bi->inflated_size = bi->saved_offset - HDR;
		bi->data_end = bi->saved_offset;
	} else {
		uint32_t end = bi->saved_offset > bi->offset ? bi->saved_offset : bi->offset;
		if (end > bi->buffer_size)
			end = bi->buffer_size;
		if (end < HDR) {
			if (walk) {
				w->stats.bad_buffers++;
				etl__damage_add(&w->damage, ETL_E_BAD_SIZE, off,
				          "Buffer's valid end lies inside its header; buffer skipped: offset=0x%llx, saved-offset=%u, offset-field=%u",
				          (unsigned long long)off, bi->saved_offset, bi->offset);
			}
			return ETL_FAILED;
		}
		bi->data_end = end;
	}
	return ETL_OK;
}

int etl__buffer_load(struct etl_walk *w, const struct etl_buffer_info *info,
                     struct etl_bufview *bv)
{
	const uint8_t *p;
	size_t avail;
	uint64_t off = info->file_offset;
	if (etl__src_get(&w->src, off, info->buffer_size, &p, &avail) != ETL_OK) {
		etl__walk_fatal(w, w->src.errcode ? w->src.errcode : ETL_E_IO, off, "%s", w->src.errmsg);
		return ETL_FATAL;
	}
	bv->info = *info;
	bv->info.header = p;
	bv->info.stored = p;
	bv->info.available = (uint32_t)avail;
	bv->pos = HDR;
	bv->last_ts = 0;
	if (!info->compressed) {
		bv->data = p;
		bv->end = info->data_end;
		if (avail < info->buffer_size) {
			/* Reported once by etl__buffer_next_record() after the
			 * complete records (cut_short()). */
			w->stats.bad_buffers++;
			if (bv->end > avail)
				bv->end = (uint32_t)avail;
		}
		return ETL_OK;
	}
	if (avail < info->buffer_size) {
		w->stats.bad_buffers++;
		etl__damage_add(&w->damage, ETL_E_TRUNCATED, off,
		          "Compressed buffer cut short by the end of the input; buffer skipped: offset=0x%llx, buffer-size=%u, available=%zu",
		          (unsigned long long)off, info->buffer_size, avail);
		return ETL_FAILED;
	}
	size_t need = (size_t)HDR + info->inflated_size;
	if (need > bv->scratch_cap) {
		uint8_t *s = realloc(bv->scratch, need);
		if (!s) {
			etl__damage_add(&w->damage, ETL_E_NOMEM, off, "Out of memory inflating a buffer: offset=0x%llx, size=%zu",
			          (unsigned long long)off, need);
			return ETL_FAILED;
		}
		bv->scratch = s;
		bv->scratch_cap = need;
	}
	memcpy(bv->scratch, p, HDR);
	size_t out_len = 0, err_pos = 0;
	int err = 0;
	int (*inflate)(const uint8_t *, size_t, uint8_t *, size_t, size_t *, int *, size_t *) =
		w->compression_format == ETL_COMPRESSION_LZNT1       ? etl_lznt1_decompress :
		w->compression_format == ETL_COMPRESSION_XPRESS_HUFF ? etl_xpress_huff_decompress :
		                                                       etl_lz77_decompress;
	int rc = inflate(p + HDR, info->buffer_size - HDR, bv->scratch + HDR,
	                             info->inflated_size, &out_len, &err, &err_pos);
	if (rc != ETL_OK || out_len != info->inflated_size) {
		w->stats.bad_buffers++;
		if (rc != ETL_OK)
			etl__damage_add(&w->damage, ETL_E_DECOMPRESS, off + HDR + err_pos,
			          "Compressed buffer is malformed; buffer skipped: offset=0x%llx, compressed-size=%u, produced=%zu, expected=%u",
			          (unsigned long long)off, info->buffer_size - HDR, out_len, info->inflated_size);
		else
			etl__damage_add(&w->damage, ETL_E_DECOMPRESS, off,
			          "Compressed buffer inflates to the wrong size; buffer skipped: offset=0x%llx, produced=%zu, expected=%u",
			          (unsigned long long)off, out_len, info->inflated_size);
		return ETL_FAILED;
	}
	bv->data = bv->scratch;
	bv->end = (uint32_t)need;
	bv->info.header = bv->scratch;
	return ETL_OK;
}

/* Gives up on the rest of a buffer after a bad record. */
static int abandon(struct etl_walk *w, struct etl_bufview *bv)
{
	bv->pos = bv->end;
	w->stats.bad_buffers++;
	return ETL_FAILED;
}

static uint64_t rec_off(const struct etl_bufview *bv, uint32_t pos)
{
	return bv->info.compressed ? bv->info.file_offset : bv->info.file_offset + pos;
}

/* End of a buffer's records. An uncompressed buffer cut short by the end
 * of the input is reported here, once, after its complete records (the
 * caller abandons the buffer on ETL_FAILED); else ETL_END. */
static int cut_short(struct etl_walk *w, struct etl_bufview *bv)
{
	if (bv->info.compressed || bv->info.available >= bv->info.buffer_size)
		return ETL_END;
	bv->pos = bv->end;
	etl__damage_add(&w->damage, ETL_E_TRUNCATED, bv->info.file_offset,
	          "Buffer cut short by the end of the input; its complete records were read: offset=0x%llx, buffer-size=%u, available=%u",
	          (unsigned long long)bv->info.file_offset, bv->info.buffer_size, bv->info.available);
	return ETL_FAILED;
}

#define WHERE_FMT "offset=0x%llx%s, buffer=0x%llx, in-buffer=0x%x"
#define WHERE_ARGS(bv, pos) (unsigned long long)rec_off(bv, pos), \
	(bv)->info.compressed ? " (compressed buffer)" : "", \
	(unsigned long long)(bv)->info.file_offset, (unsigned)(pos)

int etl__buffer_next_record(struct etl_walk *w, struct etl_bufview *bv,
                            struct etl_event *ev, char *warn, size_t warnlen)
{
	uint32_t pos = bv->pos, end = bv->end;
	if (pos >= end || end - pos < 4)
		return cut_short(w, bv);
	const uint8_t *rec = bv->data + pos;
	uint32_t marker = etl_le32(rec);
	if (marker == ETL_MARKER_END)
		return cut_short(w, bv);
	const struct etl_hdr_ops *ops = etl__hdr_for_marker(marker);
	if (!ops) {
		etl__damage_add(&w->damage, ETL_E_UNSUPPORTED_HEADER_TYPE, rec_off(bv, pos),
		          "Unknown record marker; rest of the buffer skipped: marker=0x%08x, " WHERE_FMT,
		          marker, WHERE_ARGS(bv, pos));
		return abandon(w, bv);
	}
	if (end - pos < 8) {
		if (end < bv->info.data_end)
			return cut_short(w, bv);
		etl__damage_add(&w->damage, ETL_E_TRUNCATED, rec_off(bv, pos),
		          "Record header runs past the buffer's valid end; rest of the buffer skipped: " WHERE_FMT,
		          WHERE_ARGS(bv, pos));
		return abandon(w, bv);
	}
	uint32_t size = 0;
	if (ops->peek_size(rec, &size) != 0 || size < ops->min_size || size > end - pos) {
		/* A record that fits the valid end but not the bytes present. */
		if (end < bv->info.data_end && size >= ops->min_size && size > end - pos &&
		    size <= bv->info.data_end - pos)
			return cut_short(w, bv);
		etl__damage_add(&w->damage, ETL_E_BAD_SIZE, rec_off(bv, pos),
		          "Record size does not fit; rest of the buffer skipped: header=%s, size=%u, minimum=%u, left=%u, " WHERE_FMT,
		          ops->name, size, ops->min_size, end - pos, WHERE_ARGS(bv, pos));
		return abandon(w, bv);
	}
	struct etl_cur c;
	struct etl_err err;
	etl_cur_init(&c, rec, size);
	ETL_ZERO(ev);
	err.code = 0;
	err.msg[0] = 0;
	int rc = ops->decode(&c, &w->ctx, ev, &err);
	if (rc == ETL_FAILED) {
		etl__damage_add(&w->damage, err.code ? err.code : ETL_E_BAD_VALUE, rec_off(bv, pos),
		          "%s; rest of the buffer skipped: " WHERE_FMT, err.msg, WHERE_ARGS(bv, pos + err.pos));
		return abandon(w, bv);
	}
	ev->size = size;
	ev->record = rec;
	ev->processor = bv->info.processor;
	ev->logger_id = bv->info.logger_id;
	ev->buffer_offset = bv->info.file_offset;
	ev->offset_in_buffer = pos;
	ev->in_compressed = bv->info.compressed;
	ev->file_offset = rec_off(bv, pos);
	if (ev->present & ETL_EVF_TIMESTAMP) {
		bv->last_ts = ev->timestamp;
		if (etl__clock_to_utc(&w->clock, ev->timestamp, &ev->utc) == ETL_OK)
			ev->present |= ETL_EVF_UTC;
	}
	bv->pos = pos + (uint32_t)ETL_ALIGN8((size_t)size);
	if (bv->pos > end)
		bv->pos = end;
	/* Records are read front to back straight from the mapped file, so
	 * ask for the bytes a record or so ahead (bench/read: +10% records/s
	 * on inputs larger than the caches). No effect on the results. */
	if (end - bv->pos > 256)
		__builtin_prefetch(bv->data + bv->pos + 256);
	if (rc == ETL_WARN && warn)
		snprintf(warn, warnlen, "%s: " WHERE_FMT, err.msg, WHERE_ARGS(bv, pos));
	return rc == ETL_WARN ? ETL_WARN : ETL_OK;
}
