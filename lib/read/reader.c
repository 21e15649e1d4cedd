/*
 * lib/read/reader.c - the reader handle: opening inputs, the logfile header,
 * file-order iteration, buffer iteration and the error model.
 *
 * Errors: a status says what to do (ETL_FAILED: something was lost, call
 * again), the handle keeps the reason, a message and the absolute file
 * offset. Damage found deep inside the walk is queued by the walk
 * (lib/read/damage.h) and reported one item per etl_reader_next() call, so
 * nothing is silently dropped and every readable record is still returned.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/read/read_internal.h"

static void seterr(struct etl_reader *r, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

etl_reader *etl_reader_new(void)
{
	etl_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->fd = -1;
	r->walk.src.fd = -1;
	r->order = ETL_ORDER_TIME;
	r->time.mem_limit = ETL_ORDER_MEMORY_DEFAULT;
	return r;
}

void etl_reader_free(etl_reader *r)
{
	if (!r)
		return;
	etl__order_free(&r->time);
	free(r->fstream.bv.scratch);
	etl__src_close(&r->walk.src);
	etl__damage_free(&r->walk.damage);
	if (r->owns_fd && r->fd >= 0)
		close(r->fd);
	etl__logfile_free(&r->lf);
	free(r);
}

int etl_reader_set_order(etl_reader *r, int order)
{
	if (r->opened || (order != ETL_ORDER_TIME && order != ETL_ORDER_FILE)) {
		seterr(r, ETL_E_MISUSE, 0, "Reading order must be set before opening, to ETL_ORDER_TIME or ETL_ORDER_FILE: order=%d", order);
		return ETL_FAILED;
	}
	r->order = order;
	return ETL_OK;
}

int etl_reader_set_order_memory(etl_reader *r, uint64_t bytes)
{
	if (r->opened || bytes == 0) {
		seterr(r, ETL_E_MISUSE, 0, "The time-order memory limit must be set before opening, to more than 0 bytes: bytes=%llu",
		       (unsigned long long)bytes);
		return ETL_FAILED;
	}
	r->time.mem_limit = bytes;
	return ETL_OK;
}

static void seterr(struct etl_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	etl__errinfo_vset(&r->err, code, off, fmt, ap);
	va_end(ap);
}

/* Moves the oldest damage report of the walk into the handle. 1 if there
 * was one. */
static int take_damage(struct etl_reader *r)
{
	return etl__damage_pending(&r->walk.damage) && etl__damage_take(&r->walk.damage, &r->err);
}

/* The walk's I/O error, as the handle's. */
static int walk_fatal(struct etl_reader *r)
{
	r->err = r->walk.fatal;
	return ETL_FATAL;
}

/* Reads the logfile header from the first record of the first buffer
 * (doc/format.md §1.6, §2). Damage here is not fatal: the walk reports it like any
 * other, and events are still returned, only without converted times. */
static int read_logfile(struct etl_reader *r)
{
	struct etl_buffer_info bi;
	struct etl_bufview bv;
	uint64_t next;
	struct etl_walk *w = &r->walk;
	/* A probe of the first buffer, as the walk would read it, for the
	 * reason it may give; the walk meets it again and reports it then. */
	struct etl_reader_stats before = w->stats;
	struct etl_errinfo why;
	int rc = etl__buffer_header(w, 0, &bi, &next, 1);
	if (!etl__damage_take(&w->damage, &why))
		why.msg[0] = 0;
	etl__damage_clear(&w->damage);
	w->stats = before;
	w->at_end = 0;
	if (rc == ETL_FATAL)
		return walk_fatal(r);
	if (rc == ETL_END) {
		seterr(r, ETL_E_TRUNCATED, 0, "The input is empty");
		return ETL_FATAL;
	}
	if (rc != ETL_OK || bi.compressed) {
		/* Said first in words a newcomer understands: most often the
		 * input is simply some other kind of file. */
		seterr(r, ETL_E_BAD_MAGIC, 0,
		       "The input is not an ETL file: there is no trace buffer header at offset 0 (%s)",
		       why.msg[0] ? why.msg : "the first buffer is compressed, which a header buffer never is");
		return ETL_WARN;
	}
	uint32_t header_state = bi.state;
	memset(&bv, 0, sizeof bv);
	rc = etl__buffer_load(w, &bi, &bv);
	etl__damage_clear(&w->damage);   /* the walk will find and report it again */
	w->stats.bad_buffers = 0;
	if (rc != ETL_OK) {
		seterr(r, ETL_E_TRUNCATED, 0, "The first buffer is unreadable, so there is no logfile header: offset=0x0");
		return rc == ETL_FATAL ? ETL_FATAL : ETL_WARN;
	}
	struct etl_event ev;
	rc = etl__buffer_next_record(w, &bv, &ev, NULL, 0);
	etl__damage_clear(&w->damage);
	w->stats.bad_buffers = 0;
	if ((rc != ETL_OK) || (ev.kind != ETL_HDR_SYSTEM32 && ev.kind != ETL_HDR_SYSTEM64) ||
	    ev.hook_id != 0) {
		seterr(r, ETL_E_BAD_MAGIC, ETL_BUFFER_HEADER_SIZE,
		            "The first record is not a logfile header (SYSTEM record with HookId 0): offset=0x48");
		return ETL_WARN;
	}
	struct etl_err err;
	if (etl__logfile_decode(ev.payload, ev.payload_size, ev.ptr_size, &r->lf, &err) != ETL_OK) {
		seterr(r, err.code, ETL_BUFFER_HEADER_SIZE + ev.header_size + err.pos,
		            "%s: offset=0x%llx", err.msg,
		            (unsigned long long)(ETL_BUFFER_HEADER_SIZE + ev.header_size + err.pos));
		return ETL_WARN;
	}
	r->lf.header_timestamp = ev.timestamp;
	r->lf.file_offset = ev.file_offset;
	w->ctx.layout_major = r->lf.version[2];
	w->ctx.layout_minor = r->lf.version[3];
	if (r->lf.pointer_size == 4 || r->lf.pointer_size == 8)
		w->ctx.default_ptr_size = (uint8_t)r->lf.pointer_size;
	w->logger_buffer_size = r->lf.buffer_size;
	w->compressed_file = (r->lf.log_file_mode & 0x04000000u) != 0;
	/* doc/format.md §4.2 - in compressed-mode files the header buffer's State
	 * names the COMPRESSION_FORMAT (2 LZNT1, 3 XPRESS, 4 XPRESS_HUFF); 0
	 * and other values mean the XPRESS (Plain LZ77) every sample uses. */
	if (r->lf.log_file_mode & 0x04000000u) {
		unsigned fmt = header_state & 0xFFFFu;
		w->compression_format = (fmt == ETL_COMPRESSION_LZNT1 || fmt == ETL_COMPRESSION_XPRESS_HUFF)
		                      ? fmt : ETL_COMPRESSION_XPRESS;
	}
	etl__clock_init(&w->clock, &r->lf);
	return ETL_OK;
}

static int finish_open(struct etl_reader *r, int rc)
{
	if (rc != ETL_OK) {
		seterr(r, r->walk.src.errcode ? r->walk.src.errcode : ETL_E_IO, 0, "%s", r->walk.src.errmsg);
		r->fatal = 1;
		return ETL_FATAL;
	}
	r->opened = 1;
	if (r->walk.src.kind == ETL_SRC_MEM)
		r->walk.stats.input_size = r->walk.src.size;
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
		seterr(r, ETL_E_MISUSE, 0, "The reader is already open");
		return ETL_FAILED;
	}
	r->fd = fd;
	return finish_open(r, etl__src_open_fd(&r->walk.src, fd, r->order == ETL_ORDER_TIME));
}

int etl_reader_open_file(etl_reader *r, const char *path)
{
	if (r->opened) {
		seterr(r, ETL_E_MISUSE, 0, "The reader is already open");
		return ETL_FAILED;
	}
	if (strcmp(path, "-") == 0)
		return etl_reader_open_fd(r, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(r, ETL_E_IO, 0, "Cannot open the input: path=\"%s\", error=\"%s\"", path,
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
		seterr(r, ETL_E_MISUSE, 0, "The reader is already open");
		return ETL_FAILED;
	}
	return finish_open(r, etl__src_open_mem(&r->walk.src, data, size, r->order == ETL_ORDER_TIME));
}

const struct etl_logfile *etl_reader_logfile(const etl_reader *r)
{
	return &r->lf;
}

/* A file that is not circular holds every buffer its logfile header counts
 * as written (BuffersWritten): fewer, once the walk has met the end of the
 * input, means the file was cut short - even exactly at a buffer boundary,
 * where no record is damaged. Reported once, as damage at the end. */
static void check_buffer_count(struct etl_reader *r)
{
	struct etl_walk *w = &r->walk;
	if (r->count_checked || !w->at_end || !r->lf.present)
		return;
	r->count_checked = 1;
	if (r->lf.log_file_mode & ETL_MODE_CIRCULAR)
		return;
	if (r->lf.buffers_written > w->stats.buffers)
		etl__damage_add(&w->damage, ETL_E_TRUNCATED, w->end_off,
		                "The file is shorter than its logfile header says: it holds %llu buffers, the header counts %u written; the rest of the trace is missing: offset=0x%llx",
		                (unsigned long long)w->stats.buffers, r->lf.buffers_written,
		                (unsigned long long)w->end_off);
}

/* Reports a damaged compressed wrapper (gzip / LZ4) once, at its end. */
static void check_src_damage(struct etl_reader *r, uint64_t off)
{
	if (r->walk.src.kind == ETL_SRC_STREAM) {
		etl__src_drain(&r->walk.src);    /* the wrapper's end, as time order sees it */
		etl__walk_source_damage(&r->walk, off);
	}
}

/* Moves the file-order walk to the next loadable buffer. ETL_OK with
 * r->fstream.bv loaded, ETL_FAILED (queued), ETL_END, ETL_FATAL. */
static int walk_next_buffer(struct etl_reader *r)
{
	struct etl_stream *s = &r->fstream;
	struct etl_buffer_info bi;
	uint64_t next;
	if (r->walk_stopped)
		return ETL_END;
	int rc = etl__buffer_header(&r->walk, s->next_off, &bi, &next, 1);
	if (rc == ETL_FATAL)
		return walk_fatal(r);
	if (rc == ETL_END) {
		r->walk_stopped = 1;
		r->walk.stats.bytes_in = s->next_off;
		check_src_damage(r, s->next_off);
		check_buffer_count(r);
		return ETL_END;
	}
	if (rc == ETL_FAILED) {
		if (next == UINT64_MAX) {
			r->walk_stopped = 1;
			check_src_damage(r, s->next_off);
			check_buffer_count(r);
		} else {
			s->next_off = next;
		}
		return ETL_FAILED;
	}
	s->next_off = next;
	rc = etl__buffer_load(&r->walk, &bi, &s->bv);
	if (rc == ETL_OK)
		s->has_buffer = 1;
	return rc == ETL_FATAL ? walk_fatal(r) : rc;
}

static int file_next(struct etl_reader *r, const struct etl_event **ev)
{
	struct etl_stream *s = &r->fstream;
	for (;;) {
		if (take_damage(r))
			return ETL_FAILED;
		if (s->has_buffer) {
			int rc = etl__buffer_next_record(&r->walk, &s->bv, &s->ev, s->warn, sizeof s->warn);
			if (rc == ETL_OK || rc == ETL_WARN) {
				r->walk.stats.records++;
				r->cur_buf = &s->bv.info;
				*ev = &s->ev;
				if (rc == ETL_WARN)
					seterr(r, ETL_E_UNSUPPORTED, s->ev.file_offset, "%s", s->warn);
				return rc;
			}
			s->has_buffer = 0;
			continue;
		}
		int rc = walk_next_buffer(r);
		if (rc == ETL_FATAL)
			return ETL_FATAL;
		if (rc == ETL_END && !etl__damage_pending(&r->walk.damage))
			return ETL_END;
	}
}

static int time_next(struct etl_reader *r, const struct etl_event **ev)
{
	for (;;) {
		if (take_damage(r))
			return ETL_FAILED;
		const char *warn = NULL;
		int rc = etl__order_next(&r->time, &r->walk, ev, &r->cur_buf, &warn);
		if (rc == ETL_FAILED)
			continue;   /* reported next turn; the stream goes on */
		if (rc == ETL_FATAL)
			return walk_fatal(r);
		if (rc == ETL_OK || rc == ETL_WARN)
			r->walk.stats.records++;
		if (rc == ETL_WARN)
			seterr(r, ETL_E_UNSUPPORTED, (*ev)->file_offset, "%s", warn);
		return rc;
	}
}

/* What every reading call checks first: ETL_OK with the last error
 * cleared, or ETL_FATAL (a dead handle, or one never opened). */
static int begin_call(struct etl_reader *r)
{
	if (r->fatal)
		return ETL_FATAL;
	if (!r->opened) {
		seterr(r, ETL_E_MISUSE, 0, "The reader is not open");
		return ETL_FATAL;
	}
	r->err.code = ETL_E_NONE;
	r->err.msg[0] = 0;
	return ETL_OK;
}

int etl_reader_next(etl_reader *r, const struct etl_event **ev)
{
	*ev = NULL;
	if (begin_call(r) != ETL_OK)
		return ETL_FATAL;
	int rc;
	if (r->order == ETL_ORDER_FILE) {
		rc = file_next(r, ev);
	} else {
		if (!r->time.built) {
			if (etl__order_build(&r->time, &r->walk) != ETL_OK) {
				walk_fatal(r);
				r->fatal = 1;
				return ETL_FATAL;
			}
			check_buffer_count(r);
		}
		rc = time_next(r, ev);
	}
	if (rc == ETL_FATAL)
		r->fatal = 1;
	return rc;
}

int etl_reader_next_buffer(etl_reader *r, const struct etl_buffer_info **bi)
{
	struct etl_stream *s = &r->fstream;
	*bi = NULL;
	if (begin_call(r) != ETL_OK)
		return ETL_FATAL;
	/* The buffer described by the previous call was reported then: an
	 * error left pending at its offset (a damaged gzip / LZ4 wrapper
	 * found where the walk stopped) must not describe it a second time. */
	memset(&r->walk_info, 0, sizeof r->walk_info);
	for (;;) {
		if (take_damage(r)) {
			/* A buffer whose header was readable is still described. */
			if (r->walk_info.buffer_size && r->walk_info.file_offset == r->err.off)
				*bi = &r->walk_info;
			return ETL_FAILED;
		}
		memset(&r->walk_info, 0, sizeof r->walk_info);
		uint64_t off = s->next_off;
		uint64_t next;
		if (r->walk_stopped)
			return ETL_END;
		int rc = etl__buffer_header(&r->walk, off, &r->walk_info, &next, 1);
		if (rc == ETL_FATAL) {
			r->fatal = 1;
			return walk_fatal(r);
		}
		if (rc == ETL_END) {
			r->walk_stopped = 1;
			check_src_damage(r, off);
			check_buffer_count(r);
			continue;
		}
		if (rc == ETL_FAILED) {
			if (next == UINT64_MAX) {
				r->walk_stopped = 1;
				check_src_damage(r, off);
				check_buffer_count(r);
			} else {
				s->next_off = next;
			}
			continue;
		}
		s->next_off = next;
		rc = etl__buffer_load(&r->walk, &r->walk_info, &s->bv);
		if (rc == ETL_FATAL) {
			r->fatal = 1;
			return walk_fatal(r);
		}
		r->walk_info.available = s->bv.info.available;
		r->walk_info.header = s->bv.info.header;
		r->walk_info.stored = s->bv.info.stored;
		/* A cut uncompressed buffer (record walks report it after its
		 * complete records, in lib/read/buffer.c cut_short()). */
		if (rc == ETL_OK && !s->bv.info.compressed &&
		    s->bv.info.available < s->bv.info.buffer_size)
			etl__damage_add(&r->walk.damage, ETL_E_TRUNCATED, off,
			          "Buffer cut short by the end of the input: offset=0x%llx, buffer-size=%u, available=%u",
			          (unsigned long long)off, s->bv.info.buffer_size, s->bv.info.available);
		if (rc == ETL_FAILED || r->walk.damage.count) {
			take_damage(r);
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
	*st = r->walk.stats;
	st->errors = r->walk.damage.total;
}

int etl_reader_errcode(const etl_reader *r)
{
	return r->err.code;
}

const char *etl_reader_errmsg(const etl_reader *r)
{
	return r->err.msg;
}

uint64_t etl_reader_erroff(const etl_reader *r)
{
	return r->err.off;
}

int etl_reader_time_to_utc(const etl_reader *r, int64_t raw, int64_t *filetime)
{
	return etl__clock_to_utc(&r->walk.clock, raw, filetime);
}
