/*
 * lib/read/reader.c - the reader handle: opening inputs, the logfile header,
 * file-order iteration, buffer iteration and the error model.
 *
 * Errors follow spec style.md §3.2: a status says what to do (ETL_FAILED:
 * something was lost, call again), the handle keeps the reason, a message
 * and the absolute file offset. Damage found deep inside the walk is queued
 * ("pended") and reported one item per etl_reader_next() call, so nothing
 * is silently dropped and every readable record is still returned.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/read/read_internal.h"

etl_reader *etl_reader_new(void)
{
	etl_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->fd = -1;
	r->src.fd = -1;
	r->order = ETL_ORDER_TIME;
	return r;
}

void etl_reader_free(etl_reader *r)
{
	if (!r)
		return;
	etl__order_free(r);
	free(r->fstream.bv.scratch);
	etl__src_close(&r->src);
	free(r->pending);
	if (r->owns_fd && r->fd >= 0)
		close(r->fd);
	etl__logfile_free(&r->lf);
	free(r);
}

int etl_reader_set_order(etl_reader *r, int order)
{
	if (r->opened || (order != ETL_ORDER_TIME && order != ETL_ORDER_FILE)) {
		etl__seterr(r, ETL_E_MISUSE, 0, "Reading order must be set before opening, to ETL_ORDER_TIME or ETL_ORDER_FILE: order=%d", order);
		return ETL_FAILED;
	}
	r->order = order;
	return ETL_OK;
}

void etl__seterr(struct etl_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	r->errcode = code;
	r->erroff = off;
	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
	va_end(ap);
}

void etl__pend(struct etl_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	r->stats.errors++;
	if (r->pend_count == r->pend_cap) {
		unsigned cap = r->pend_cap ? r->pend_cap * 2 : 16;
		struct etl_pending *n = cap <= ETL_PENDING_MAX ? malloc(cap * sizeof *n) : NULL;
		if (!n) {
			/* Full (or out of memory): counted, and reported as one
			 * summary error once the queue drains. */
			if (!r->pend_dropped++)
				r->pend_dropped_off = off;
			return;
		}
		for (unsigned i = 0; i < r->pend_count; i++)
			n[i] = r->pending[(r->pend_head + i) % r->pend_cap];
		free(r->pending);
		r->pending = n;
		r->pend_cap = cap;
		r->pend_head = 0;
	}
	struct etl_pending *p = &r->pending[(r->pend_head + r->pend_count) % r->pend_cap];
	r->pend_count++;
	p->code = code;
	p->off = off;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
}

/* Moves the oldest pending error into the handle. 1 if there was one. */
int etl__pop_pending(struct etl_reader *r)
{
	if (r->pend_count == 0) {
		if (!r->pend_dropped)
			return 0;
		etl__seterr(r, ETL_E_BAD_SIZE, r->pend_dropped_off,
		            "%llu more damage reports were not listed one by one (over %u at once); the first at offset=0x%llx",
		            (unsigned long long)r->pend_dropped, ETL_PENDING_MAX,
		            (unsigned long long)r->pend_dropped_off);
		r->pend_dropped = 0;
		return 1;
	}
	struct etl_pending *p = &r->pending[r->pend_head];
	r->errcode = p->code;
	r->erroff = p->off;
	memcpy(r->errmsg, p->msg, sizeof r->errmsg);
	r->pend_head = (r->pend_head + 1) % r->pend_cap;
	r->pend_count--;
	return 1;
}

/* Reads the logfile header from the first record of the first buffer
 * (spec §1.6, §2). Damage here is not fatal: the walk reports it like any
 * other, and events are still returned, only without converted times. */
static int read_logfile(struct etl_reader *r)
{
	struct etl_buffer_info bi;
	struct etl_bufview bv;
	uint64_t next;
	int rc = etl__buffer_header(r, 0, &bi, &next, 0);
	if (rc == ETL_FATAL)
		return ETL_FATAL;
	if (rc == ETL_END) {
		etl__seterr(r, ETL_E_TRUNCATED, 0, "The input is empty");
		return ETL_FATAL;
	}
	if (rc != ETL_OK || bi.compressed) {
		etl__seterr(r, ETL_E_BAD_SIZE, 0, "The first buffer header is unusable, so there is no logfile header: offset=0x0");
		return ETL_WARN;
	}
	uint32_t header_state = bi.state;
	memset(&bv, 0, sizeof bv);
	rc = etl__buffer_load(r, &bi, &bv);
	r->pend_count = 0;        /* the walk will find and report it again */
	r->stats.errors = 0;
	r->stats.bad_buffers = 0;
	if (rc != ETL_OK) {
		etl__seterr(r, ETL_E_TRUNCATED, 0, "The first buffer is unreadable, so there is no logfile header: offset=0x0");
		return rc == ETL_FATAL ? ETL_FATAL : ETL_WARN;
	}
	struct etl_event ev;
	rc = etl__buffer_next_record(r, &bv, &ev, NULL, 0);
	r->pend_count = 0;
	r->stats.errors = 0;
	r->stats.bad_buffers = 0;
	if ((rc != ETL_OK) || (ev.kind != ETL_HDR_SYSTEM32 && ev.kind != ETL_HDR_SYSTEM64) ||
	    ev.hook_id != 0) {
		etl__seterr(r, ETL_E_BAD_MAGIC, ETL_BUFFER_HEADER_SIZE,
		            "The first record is not a logfile header (SYSTEM record with HookId 0): offset=0x48");
		return ETL_WARN;
	}
	struct etl_err err;
	if (etl__logfile_decode(ev.payload, ev.payload_size, ev.ptr_size, &r->lf, &err) != ETL_OK) {
		etl__seterr(r, err.code, ETL_BUFFER_HEADER_SIZE + ev.header_size + err.pos,
		            "%s: offset=0x%llx", err.msg,
		            (unsigned long long)(ETL_BUFFER_HEADER_SIZE + ev.header_size + err.pos));
		return ETL_WARN;
	}
	r->lf.header_timestamp = ev.timestamp;
	r->lf.file_offset = ev.file_offset;
	r->ctx.layout_major = r->lf.version[2];
	r->ctx.layout_minor = r->lf.version[3];
	if (r->lf.pointer_size == 4 || r->lf.pointer_size == 8)
		r->ctx.default_ptr_size = (uint8_t)r->lf.pointer_size;
	/* SPEC: §4.2 - in compressed-mode files the header buffer's State
	 * names the COMPRESSION_FORMAT (2 LZNT1, 3 XPRESS, 4 XPRESS_HUFF); 0
	 * and other values mean the XPRESS (Plain LZ77) every sample uses. */
	if (r->lf.log_file_mode & 0x04000000u) {
		unsigned fmt = header_state & 0xFFFFu;
		r->compression_format = (fmt == ETL_COMPRESSION_LZNT1 || fmt == ETL_COMPRESSION_XPRESS_HUFF)
		                      ? fmt : ETL_COMPRESSION_XPRESS;
	}
	etl__clock_init(&r->clock, &r->lf);
	return ETL_OK;
}

static int finish_open(struct etl_reader *r, int rc)
{
	if (rc != ETL_OK) {
		etl__seterr(r, ETL_E_IO, 0, "%s", r->src.errmsg);
		r->fatal = 1;
		return ETL_FATAL;
	}
	r->opened = 1;
	if (r->src.kind == ETL_SRC_MEM)
		r->stats.input_size = r->src.size;
	rc = read_logfile(r);
	if (rc == ETL_FATAL) {
		r->fatal = 1;
		return ETL_FATAL;
	}
	return rc;
}

int etl_reader_open_fd(etl_reader *r, int fd)
{
	if (r->opened) {
		etl__seterr(r, ETL_E_MISUSE, 0, "The reader is already open");
		return ETL_FAILED;
	}
	r->fd = fd;
	return finish_open(r, etl__src_open_fd(&r->src, fd, r->order == ETL_ORDER_TIME));
}

int etl_reader_open_file(etl_reader *r, const char *path)
{
	if (r->opened) {
		etl__seterr(r, ETL_E_MISUSE, 0, "The reader is already open");
		return ETL_FAILED;
	}
	if (strcmp(path, "-") == 0)
		return etl_reader_open_fd(r, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		etl__seterr(r, ETL_E_IO, 0, "Cannot open the input: path=\"%s\", error=\"%s\"", path,
		            strerror(errno));
		r->fatal = 1;
		return ETL_FATAL;
	}
	r->owns_fd = 1;
	return etl_reader_open_fd(r, fd);
}

int etl_reader_open_memory(etl_reader *r, const void *data, size_t size)
{
	if (r->opened) {
		etl__seterr(r, ETL_E_MISUSE, 0, "The reader is already open");
		return ETL_FAILED;
	}
	return finish_open(r, etl__src_open_mem(&r->src, data, size, r->order == ETL_ORDER_TIME));
}

const struct etl_logfile *etl_reader_logfile(const etl_reader *r)
{
	return &r->lf;
}

/* Reports a damaged compressed wrapper (gzip / LZ4) once, at its end. */
static void check_src_damage(struct etl_reader *r, uint64_t off)
{
	if (r->src.kind == ETL_SRC_STREAM && r->src.errmsg[0]) {
		etl__pend(r, ETL_E_DECOMPRESS, off, "%s: offset=0x%llx (in the decompressed stream)",
		          r->src.errmsg, (unsigned long long)off);
		r->src.errmsg[0] = 0;
	}
}

/* Moves the file-order walk to the next loadable buffer. ETL_OK with
 * r->fstream.bv loaded, ETL_FAILED (pended), ETL_END, ETL_FATAL. */
static int walk_next_buffer(struct etl_reader *r)
{
	struct etl_stream *s = &r->fstream;
	struct etl_buffer_info bi;
	uint64_t next;
	if (r->walk_stopped)
		return ETL_END;
	int rc = etl__buffer_header(r, s->next_off, &bi, &next, 1);
	if (rc == ETL_FATAL)
		return ETL_FATAL;
	if (rc == ETL_END) {
		r->walk_stopped = 1;
		r->stats.bytes_in = s->next_off;
		check_src_damage(r, s->next_off);
		return ETL_END;
	}
	if (rc == ETL_FAILED) {
		if (next == UINT64_MAX) {
			r->walk_stopped = 1;
			check_src_damage(r, s->next_off);
		} else {
			s->next_off = next;
		}
		return ETL_FAILED;
	}
	s->next_off = next;
	rc = etl__buffer_load(r, &bi, &s->bv);
	if (rc == ETL_OK)
		s->has_buffer = 1;
	return rc;
}

static int file_next(struct etl_reader *r, const struct etl_event **ev)
{
	struct etl_stream *s = &r->fstream;
	for (;;) {
		if (etl__pop_pending(r))
			return ETL_FAILED;
		if (s->has_buffer) {
			int rc = etl__buffer_next_record(r, &s->bv, &s->ev, s->warn, sizeof s->warn);
			if (rc == ETL_OK || rc == ETL_WARN) {
				r->stats.records++;
				r->cur_buf = &s->bv.info;
				*ev = &s->ev;
				if (rc == ETL_WARN)
					etl__seterr(r, ETL_E_UNSUPPORTED, s->ev.file_offset, "%s", s->warn);
				return rc;
			}
			s->has_buffer = 0;
			continue;
		}
		int rc = walk_next_buffer(r);
		if (rc == ETL_FATAL)
			return ETL_FATAL;
		if (rc == ETL_END && r->pend_count == 0 && !r->pend_dropped)
			return ETL_END;
	}
}

int etl_reader_next(etl_reader *r, const struct etl_event **ev)
{
	*ev = NULL;
	if (r->fatal)
		return ETL_FATAL;
	if (!r->opened) {
		etl__seterr(r, ETL_E_MISUSE, 0, "The reader is not open");
		return ETL_FATAL;
	}
	r->errcode = ETL_E_NONE;
	r->errmsg[0] = 0;
	int rc;
	if (r->order == ETL_ORDER_FILE) {
		rc = file_next(r, ev);
	} else {
		if (!r->indexed && etl__order_build(r) != ETL_OK) {
			r->fatal = 1;
			return ETL_FATAL;
		}
		rc = etl__order_next(r, ev);
	}
	if (rc == ETL_FATAL)
		r->fatal = 1;
	return rc;
}

int etl_reader_next_buffer(etl_reader *r, const struct etl_buffer_info **bi)
{
	struct etl_stream *s = &r->fstream;
	*bi = NULL;
	if (r->fatal)
		return ETL_FATAL;
	if (!r->opened) {
		etl__seterr(r, ETL_E_MISUSE, 0, "The reader is not open");
		return ETL_FATAL;
	}
	r->errcode = ETL_E_NONE;
	r->errmsg[0] = 0;
	/* The buffer described by the previous call was reported then: an
	 * error left pending at its offset (a damaged gzip / LZ4 wrapper
	 * found where the walk stopped) must not describe it a second time. */
	memset(&r->walk_info, 0, sizeof r->walk_info);
	for (;;) {
		if (etl__pop_pending(r)) {
			/* A buffer whose header was readable is still described. */
			if (r->walk_info.buffer_size && r->walk_info.file_offset == r->erroff)
				*bi = &r->walk_info;
			return ETL_FAILED;
		}
		memset(&r->walk_info, 0, sizeof r->walk_info);
		uint64_t off = s->next_off;
		uint64_t next;
		if (r->walk_stopped)
			return ETL_END;
		int rc = etl__buffer_header(r, off, &r->walk_info, &next, 1);
		if (rc == ETL_FATAL) {
			r->fatal = 1;
			return ETL_FATAL;
		}
		if (rc == ETL_END) {
			r->walk_stopped = 1;
			check_src_damage(r, off);
			continue;
		}
		if (rc == ETL_FAILED) {
			if (next == UINT64_MAX) {
				r->walk_stopped = 1;
				check_src_damage(r, off);
			} else {
				s->next_off = next;
			}
			continue;
		}
		s->next_off = next;
		rc = etl__buffer_load(r, &r->walk_info, &s->bv);
		if (rc == ETL_FATAL) {
			r->fatal = 1;
			return ETL_FATAL;
		}
		r->walk_info.available = s->bv.info.available;
		r->walk_info.header = s->bv.info.header;
		r->walk_info.stored = s->bv.info.stored;
		/* A cut uncompressed buffer (record walks report it after its
		 * complete records, in lib/read/buffer.c cut_short()). */
		if (rc == ETL_OK && !s->bv.info.compressed &&
		    s->bv.info.available < s->bv.info.buffer_size)
			etl__pend(r, ETL_E_TRUNCATED, off,
			          "Buffer cut short by the end of the input: offset=0x%llx, buffer-size=%u, available=%u",
			          (unsigned long long)off, s->bv.info.buffer_size, s->bv.info.available);
		if (rc == ETL_FAILED || r->pend_count) {
			etl__pop_pending(r);
			*bi = &r->walk_info;
			return ETL_FAILED;
		}
		*bi = &r->walk_info;
		return ETL_OK;
	}
}

const struct etl_buffer_info *etl_reader_current_buffer(const etl_reader *r)
{
	return r->cur_buf;
}

void etl_reader_stats(const etl_reader *r, struct etl_reader_stats *st)
{
	*st = r->stats;
}

int etl_reader_errcode(const etl_reader *r)
{
	return r->errcode;
}

const char *etl_reader_errmsg(const etl_reader *r)
{
	return r->errmsg;
}

uint64_t etl_reader_erroff(const etl_reader *r)
{
	return r->erroff;
}

int etl_reader_time_to_utc(const etl_reader *r, int64_t raw, int64_t *filetime)
{
	return etl__clock_to_utc(&r->clock, raw, filetime);
}
