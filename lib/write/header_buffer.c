/*
 * lib/write/header_buffer.c - the header buffer of a written .etl file: the
 * first buffer, which names the session and gives what a reader needs to
 * read the rest (doc/format.md §1.6, §2).
 *
 *   header        BufferType 4, SequenceNumber 0, TimeStamp 0, flags 0x21
 *                 (0x01 relogger style), State 3, SavedOffset = Offset =
 *                 CurrentOffset = end of its records, 0xFF fill. Full
 *                 buffer size; rounded up to 0x200 in compressed files.
 *   records       the logfile header (SYSTEM32/64, HookId 0, version 2:
 *                 TRACE_LOGFILE_HEADER with the logger and log-file names),
 *                 then PartitionInfoExtension (HookId 0x0050, 0x30 zeros);
 *                 or, once etl_writer_write_header_event() was called, the
 *                 logfile header and the caller's records.
 *
 * BuffersWritten, EventsLost, BuffersLost, StartBuffers and EndTime are
 * patched in whenever the writer rewrites the buffer (sync, close).
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/read/read_internal.h"
#include "lib/write/header_buffer.h"

#define HDR ETL_BUFFER_HEADER_SIZE

static void put_utf16z(uint8_t **p, const char *s)
{
	/* UTF-8 -> UTF-16LE; invalid bytes become U+FFFD. */
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		uint32_t cp = 0xFFFD;
		int n = 0;
		if (u[0] < 0x80) { cp = u[0]; n = 1; }
		else if ((u[0] & 0xE0) == 0xC0 && (u[1] & 0xC0) == 0x80) {
			cp = ((uint32_t)(u[0] & 0x1F) << 6) | (u[1] & 0x3F); n = 2;
		} else if ((u[0] & 0xF0) == 0xE0 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80) {
			cp = ((uint32_t)(u[0] & 0x0F) << 12) | ((uint32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3F); n = 3;
		} else if ((u[0] & 0xF8) == 0xF0 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80 &&
		           (u[3] & 0xC0) == 0x80) {
			cp = ((uint32_t)(u[0] & 0x07) << 18) | ((uint32_t)(u[1] & 0x3F) << 12) |
			     ((uint32_t)(u[2] & 0x3F) << 6) | (u[3] & 0x3F);
			n = 4;
		} else {
			n = 1;
		}
		u += n;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			etl_put16(*p, (uint16_t)(0xD800 + (cp >> 10)));
			etl_put16(*p + 2, (uint16_t)(0xDC00 + (cp & 0x3FF)));
			*p += 4;
		} else {
			etl_put16(*p, (uint16_t)cp);
			*p += 2;
		}
	}
	etl_put16(*p, 0);
	*p += 2;
}

static size_t utf16_bytes(const char *s)
{
	return strlen(s) * 2 + 2; /* UTF-16 never needs more units than UTF-8 bytes */
}

static void put_tz_name(uint8_t *p, const char *name)
{
	/* WCHAR[32], NUL padded; longer names are cut. */
	uint8_t tmp[2 * 97 + 4], *q = tmp;
	memset(p, 0, 64);
	put_utf16z(&q, name);
	size_t n = (size_t)(q - tmp);
	if (n > 62)
		n = 62;
	memcpy(p, tmp, n);
}

static void put_systemtime(uint8_t *p, const struct etl_systemtime *t)
{
	etl_put16(p, t->year); etl_put16(p + 2, t->month); etl_put16(p + 4, t->day_of_week);
	etl_put16(p + 6, t->day); etl_put16(p + 8, t->hour); etl_put16(p + 10, t->minute);
	etl_put16(p + 12, t->second); etl_put16(p + 14, t->milliseconds);
}

/* The SYSTEM_TRACE_HEADER of an EventTrace-group record in the header
 * buffer: version 2, the session's pointer width, the header ids, the
 * start timestamp (the UTC anchor), no CPU times. */
static void put_eventtrace_header(uint8_t *r, const struct etl_writer_options *o, uint16_t size,
                                  uint16_t hook_id)
{
	etl_put16(r + 0x00, 2);
	r[2] = o->pointer_size == 4 ? 0x01 : 0x02;
	r[3] = 0xC0;
	etl_put16(r + 0x04, size);
	etl_put16(r + 0x06, hook_id);
	etl_put32(r + 0x08, o->header_tid);
	etl_put32(r + 0x0C, o->header_pid);
	etl_put64(r + 0x10, (uint64_t)o->start_timestamp);
}

/* The offset of AfterZone (BootTime, PerfFreq, ...) in the logfile header:
 * after the time zone and its padding. */
static size_t after_zone(uint32_t pointer_size)
{
	return (pointer_size == 4 ? 0x40 : 0x48) + 172 + 4;
}

int etl__hdrbuf_build(struct etl__hdrbuf *hb, const struct etl_writer_options *o,
                      const char *logger_name, const char *log_file_name, int compressed,
                      struct etl_err *err)
{
	unsigned ptr = o->pointer_size;
	size_t lh_size = ptr == 4 ? 0x110 : 0x118;
	size_t payload = lh_size + utf16_bytes(logger_name) + utf16_bytes(log_file_name);
	size_t rec1 = 0x20 + payload;
	size_t rec2 = 0x20 + 0x30;
	if (rec1 > 0xFFFF)
		return etl__err_set(err, ETL_E_BAD_VALUE, 0,
		                    "Logger and log-file names are too long for the header record");
	/* doc/format.md §1.5, §1.6: the valid end covers the last record's
	 * alignment padding (Windows' header buffers end at multiples of 8). */
	size_t end = o->bare_header ? HDR + ETL_ALIGN8(rec1) : HDR + ETL_ALIGN8(rec1) + rec2;
	size_t size = compressed ? (end + 0x1FF) & ~(size_t)0x1FF : o->buffer_size;
	if (end > o->buffer_size)
		return etl__err_set(err, ETL_E_BAD_VALUE, 0,
		                    "The header records do not fit one buffer: need=%zu, buffer-size=%u",
		                    end, o->buffer_size);
	free(hb->buf);
	hb->buf = malloc(size);
	if (!hb->buf) {
		etl__err_set(err, ETL_E_NOMEM, 0, "Out of memory for the header buffer");
		return ETL_FATAL;
	}
	hb->size = (uint32_t)size;
	hb->compressed = compressed;
	hb->buffer_size = o->buffer_size;
	uint8_t *b = hb->buf;
	memset(b, 0xFF, size);
	memset(b, 0, HDR);
	etl_put32(b + 0x00, (uint32_t)size);
	etl_put32(b + 0x04, (uint32_t)end);                 /* SavedOffset   */
	etl_put32(b + 0x08, compressed ? 0 : (uint32_t)end); /* CurrentOffset */
	etl_put16(b + 0x2A, o->logger_id);
	/* doc/format.md §4.2: State holds COMPRESSION_FORMAT_XPRESS (3) in
	 * compressed files, and 3 (Flush) otherwise. */
	etl_put32(b + 0x2C, 3);
	etl_put32(b + 0x30, (uint32_t)end);                 /* Offset        */
	etl_put16(b + 0x34, o->relogger_style ? 0x01 : 0x21);
	etl_put16(b + 0x36, 4);                             /* HEADER        */

	/* Record 1: SYSTEM header, HookId 0 (logfile header). */
	uint8_t *r = b + HDR;
	memset(r, 0, rec1);
	put_eventtrace_header(r, o, (uint16_t)rec1, 0x0000);
	uint8_t *h = r + 0x20;
	etl_put32(h + 0x00, o->buffer_size);
	memcpy(h + 0x04, o->version, 4);
	etl_put32(h + 0x08, o->build);
	etl_put32(h + 0x0C, o->number_of_processors);
	etl_put64(h + 0x10, 0);                             /* EndTime, patched */
	etl_put32(h + 0x18, o->timer_resolution);
	etl_put32(h + 0x1C, o->maximum_file_size_mb);
	etl_put32(h + 0x20, o->log_file_mode);
	etl_put32(h + 0x24, 0);                             /* BuffersWritten, patched */
	etl_put32(h + 0x28, 1);                             /* StartBuffers  */
	etl_put32(h + 0x2C, ptr);
	etl_put32(h + 0x30, 0);                             /* EventsLost, patched */
	etl_put32(h + 0x34, o->cpu_speed_mhz);
	if (ptr == 4) {
		etl_put32(h + 0x38, (uint32_t)o->logger_name_field);
		etl_put32(h + 0x3C, (uint32_t)o->log_file_name_field);
	} else {
		etl_put64(h + 0x38, o->logger_name_field);
		etl_put64(h + 0x40, o->log_file_name_field);
	}
	size_t tz = ptr == 4 ? 0x40 : 0x48;
	const struct etl_time_zone *z = &o->time_zone;
	etl_put32(h + tz + 0x00, (uint32_t)z->bias);
	put_tz_name(h + tz + 0x04, z->standard_name);
	put_systemtime(h + tz + 0x44, &z->standard_date);
	etl_put32(h + tz + 0x54, (uint32_t)z->standard_bias);
	put_tz_name(h + tz + 0x58, z->daylight_name);
	put_systemtime(h + tz + 0x98, &z->daylight_date);
	etl_put32(h + tz + 0xA8, (uint32_t)z->daylight_bias);
	size_t after = after_zone(ptr);
	etl_put64(h + after + 0x00, (uint64_t)o->boot_time);
	etl_put64(h + after + 0x08, (uint64_t)o->perf_freq);
	etl_put64(h + after + 0x10, (uint64_t)o->start_time);
	etl_put32(h + after + 0x18, o->clock_type);
	etl_put32(h + after + 0x1C, 0);                     /* BuffersLost, patched */
	uint8_t *s = h + lh_size;
	put_utf16z(&s, logger_name);
	put_utf16z(&s, log_file_name);
	hb->lh_offset = (uint32_t)(HDR + 0x20);
	hb->extra = (uint32_t)(HDR + ETL_ALIGN8(rec1));
	hb->end = (uint32_t)end;
	/* Windows leaves stale bytes in alignment padding; ours are zero. */
	memset(r + rec1, 0, ETL_ALIGN8(rec1) - rec1);
	if (o->bare_header)
		return ETL_OK;

	/* Record 2: PartitionInfoExtension, version 0, host partition. */
	uint8_t *p2 = r + ETL_ALIGN8(rec1);
	memset(p2, 0, rec2);
	put_eventtrace_header(p2, o, (uint16_t)rec2, 0x0050);
	return ETL_OK;
}

void etl__hdrbuf_patch(struct etl__hdrbuf *hb, const struct etl_writer_options *o,
                       const struct etl__hdr_figures *f)
{
	uint8_t *h = hb->buf + hb->lh_offset;
	size_t after = after_zone(o->pointer_size);
	int64_t end = o->end_time;
	if (!end) {
		/* The last event's time: when the logger stopped, as far as the
		 * file can tell. */
		struct etl_logfile lf = { 0 };
		struct etl_clock ck;
		int64_t ft;
		lf.present = 1;
		lf.header_timestamp = o->start_timestamp;
		lf.start_time = o->start_time;
		lf.reserved_flags = o->clock_type;
		lf.perf_freq = o->perf_freq;
		lf.cpu_speed_mhz = o->cpu_speed_mhz;
		etl__clock_init(&ck, &lf);
		end = etl__clock_to_utc(&ck, f->last_ts, &ft) == ETL_OK ? ft : o->start_time;
	}
	etl_put64(h + 0x10, (uint64_t)end);
	etl_put32(h + 0x24, f->buffers_written);
	etl_put32(h + 0x28, f->start_buffers);
	etl_put32(h + 0x30, f->events_lost);
	etl_put32(h + after + 0x1C, f->buffers_lost);
}

void etl__hdrbuf_set_clock(struct etl__hdrbuf *hb, uint32_t pointer_size, int64_t perf_freq,
                           int64_t boot_time)
{
	uint8_t *h = hb->buf + hb->lh_offset;
	size_t after = after_zone(pointer_size);
	etl_put64(h + after + 0x00, (uint64_t)boot_time);
	etl_put64(h + after + 0x08, (uint64_t)perf_freq);
}

/* Sets the header buffer's size and valid-end fields for records ending
 * at end; compressed files keep the header buffer small (0x200 steps). */
static int resize(struct etl__hdrbuf *hb, uint32_t end, struct etl_err *err)
{
	uint32_t size = hb->compressed ? (end + 0x1FFu) & ~0x1FFu : hb->buffer_size;
	/* Never shrink: the larger header buffer is already in the output,
	 * and data written after a smaller one would leave its tail behind. */
	if (size < hb->size)
		size = hb->size;
	if (size != hb->size) {
		uint8_t *nb = realloc(hb->buf, size);
		if (!nb)
			return etl__err_set(err, ETL_E_NOMEM, 0, "Out of memory for the header buffer");
		if (size > hb->size)
			memset(nb + hb->size, 0xFF, size - hb->size);
		hb->buf = nb;
		hb->size = size;
	}
	memset(hb->buf + end, 0xFF, size - end);
	etl_put32(hb->buf + 0x00, size);
	etl_put32(hb->buf + 0x04, end);
	etl_put32(hb->buf + 0x08, hb->compressed ? 0 : end);
	etl_put32(hb->buf + 0x30, end);
	hb->end = end;
	return ETL_OK;
}

uint32_t etl__hdrbuf_record_at(const struct etl__hdrbuf *hb)
{
	return hb->custom ? hb->end : hb->extra;
}

int etl__hdrbuf_put_record(struct etl__hdrbuf *hb, const uint8_t *rec, size_t size,
                           struct etl_err *err)
{
	uint32_t at = etl__hdrbuf_record_at(hb);
	size_t asize = ETL_ALIGN8(size);
	if (at + asize > hb->size && resize(hb, (uint32_t)(at + asize), err) != ETL_OK)
		return ETL_FAILED;
	memcpy(hb->buf + at, rec, size);
	/* The valid end covers the record's alignment padding, as Windows'
	 * header buffers do (their ends are multiples of 8). */
	memset(hb->buf + at + size, 0, asize - size);
	hb->custom = 1;
	return resize(hb, (uint32_t)(at + asize), err);
}

void etl__hdrbuf_free(struct etl__hdrbuf *hb)
{
	free(hb->buf);
	hb->buf = NULL;
}
