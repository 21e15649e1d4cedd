/*
 * lib/write/writer.c - the writer handle: options, per-processor buffers,
 * output modes, files and finalisation.
 *
 * What a file looks like (doc/format.md §1.6, §7; as in every sample):
 *   header buffer  see lib/write/header_buffer.c; rewritten with the
 *                  file's figures at sync and close.
 *   data buffers   one stream per processor: BufferType 0, flag 0x20
 *                  (ProcessorIndex in ClientContext), State 3, SequenceNumber
 *                  counting every buffer flushed (the logger's global
 *                  counter), TimeStamp = last event's timestamp, records 8-byte
 *                  aligned, 0xFF fill; the last buffer written also gets the
 *                  flush marker 0x01.
 * Close patches BuffersWritten, EventsLost, BuffersLost and EndTime.
 *
 * Output modes:
 *   sequential  buffers appended in flush order;
 *   circular    fixed-size file: after the header buffer, buffer slots are
 *               reused oldest first once maximum_file_size is reached;
 *               StartBuffers names the slot holding the oldest buffer;
 *   newfile     at maximum_file_size the file is finalised and the next one,
 *               named by newfile_pattern, begins with its own header buffer;
 *   compressed  see lib/write/compress_stage.c (user-mode logger style).
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lib/common/machine.h"
#include "lib/write/compress_stage.h"
#include "lib/write/write_internal.h"

#define HDR ETL_BUFFER_HEADER_SIZE

static void werr(struct etl_writer *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void werr(struct etl_writer *w, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	etl__errinfo_vset(&w->err, code, 0, fmt, ap);
	va_end(ap);
}

void etl_writer_options_init(struct etl_writer_options *o)
{
	memset(o, 0, sizeof *o);
	o->struct_size = sizeof *o;
	o->buffer_size = 64 * 1024;
	o->pointer_size = 8;
	o->number_of_processors = 1;
	o->clock_type = ETL_CLOCK_QPC;
	o->perf_freq = 10000000;
	/* "Now", as a FILETIME; the raw clock starts at 0. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	o->start_time = 116444736000000000LL + (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
	/* The fields Windows fills from its machine: readers open a file
	 * only when they are sane (dissect.etl divides by the CPU speed and
	 * the performance frequency whatever the clock). TimerResolution is
	 * the clock-interrupt period, 15.625 ms as on most Windows machines. */
	o->cpu_speed_mhz = etl__machine_cpu_mhz();
	o->boot_time = etl__machine_boot_time(o->start_time);
	o->timer_resolution = 156250;
	o->log_file_mode = ETL_MODE_SEQUENTIAL;
	o->version[0] = 10;
	o->build = 19041;
}

void etl_writer_options_from_logfile(struct etl_writer_options *o, const struct etl_logfile *lf)
{
	etl_writer_options_init(o);
	if (!lf->present)
		return;
	o->buffer_size = lf->buffer_size;
	o->pointer_size = lf->header_ptr_size == 4 ? 4 : 8;
	o->number_of_processors = lf->number_of_processors ? lf->number_of_processors : 1;
	o->clock_type = lf->reserved_flags;
	o->perf_freq = lf->perf_freq;
	o->cpu_speed_mhz = lf->cpu_speed_mhz;
	o->start_time = lf->start_time;
	o->start_timestamp = lf->header_timestamp;
	o->boot_time = lf->boot_time;
	o->timer_resolution = lf->timer_resolution;
	o->time_zone = lf->time_zone;
	o->logger_name = lf->logger_name;
	o->log_file_name = lf->log_file_name;
	o->log_file_mode = lf->log_file_mode & ~ETL_MODE_NEWFILE;
	o->logger_name_field = lf->logger_name_field;
	o->log_file_name_field = lf->log_file_name_field;
	o->maximum_file_size_mb = lf->maximum_file_size;
	memcpy(o->version, lf->version, 4);
	o->build = lf->provider_version;
	o->end_time = lf->end_time;
}

etl_writer *etl_writer_new(void)
{
	etl_writer *w = calloc(1, sizeof *w);
	if (w)
		w->out.fd = -1;
	return w;
}

/* ---- options ---------------------------------------------------------- */

static int check_options(struct etl_writer *w, const struct etl_writer_options *o)
{
	if (!o || o->struct_size < sizeof *o) {
		werr(w, ETL_E_MISUSE, "Writer options are missing or from another version: struct_size=%u",
		     o ? o->struct_size : 0);
		return ETL_FAILED;
	}
	if (o->buffer_size < 0x1000 || o->buffer_size > 16u * 1024 * 1024 || (o->buffer_size & 7)) {
		werr(w, ETL_E_BAD_VALUE,
		     "Buffer size must be a multiple of 8 from 4 KiB to 16 MiB: buffer-size=%u", o->buffer_size);
		return ETL_FAILED;
	}
	if (o->pointer_size != 4 && o->pointer_size != 8) {
		werr(w, ETL_E_BAD_VALUE, "Pointer size must be 4 or 8: pointer-size=%u", o->pointer_size);
		return ETL_FAILED;
	}
	/* The reader's rule: processor indices 0 .. ETL_MAX_PROCESSORS - 1. */
	if (o->number_of_processors == 0 || o->number_of_processors > ETL_MAX_PROCESSORS) {
		werr(w, ETL_E_BAD_VALUE, "Number of processors must be 1..%u: processors=%u",
		     ETL_MAX_PROCESSORS, o->number_of_processors);
		return ETL_FAILED;
	}
	uint32_t m = o->log_file_mode;
	if ((m & (ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE)) && o->maximum_file_size_mb == 0) {
		werr(w, ETL_E_BAD_VALUE, "Circular and new-file modes need a maximum file size: mode=0x%x", m);
		return ETL_FAILED;
	}
	if ((m & ETL_MODE_CIRCULAR) && (m & (ETL_MODE_NEWFILE | ETL_MODE_COMPRESSED))) {
		werr(w, ETL_E_BAD_VALUE,
		     "Circular mode cannot be combined with new-file or compressed mode: mode=0x%x", m);
		return ETL_FAILED;
	}
	/* Rotation is only implemented for uncompressed buffers (flush_cpu). */
	if ((m & ETL_MODE_NEWFILE) && (m & ETL_MODE_COMPRESSED)) {
		werr(w, ETL_E_BAD_VALUE, "New-file mode cannot be combined with compressed mode: mode=0x%x", m);
		return ETL_FAILED;
	}
	if ((m & ETL_MODE_NEWFILE) && (!o->newfile_pattern || !strstr(o->newfile_pattern, "%"))) {
		werr(w, ETL_E_BAD_VALUE, "New-file mode needs a file name pattern with a %%d");
		return ETL_FAILED;
	}
	return ETL_OK;
}

/* Copies the options and the strings they point to. */
static int take_options(struct etl_writer *w, const struct etl_writer_options *o, const char *path)
{
	/* Opened again after an open that failed: drop what that one took. */
	free(w->logger_name);
	free(w->log_file_name);
	free(w->pattern);
	for (uint32_t i = 0; w->cpus && i < w->nproc; i++)
		free(w->cpus[i].buf);
	free(w->cpus);
	w->o = *o;
	w->logger_name = strdup(o->logger_name ? o->logger_name : "libetl");
	w->log_file_name = strdup(o->log_file_name ? o->log_file_name : path ? path : "");
	w->pattern = o->newfile_pattern ? strdup(o->newfile_pattern) : NULL;
	w->nproc = o->number_of_processors;
	w->cpus = calloc(w->nproc, sizeof *w->cpus);
	if (!w->logger_name || !w->log_file_name || !w->cpus || (o->newfile_pattern && !w->pattern)) {
		werr(w, ETL_E_NOMEM, "Out of memory for the writer");
		return ETL_FATAL;
	}
	/* doc/format.md §2.3: log layout 2.0 with compression, buffers over
	 * 1 MB or more than 256 processors; 1.5 otherwise. */
	if (!w->o.version[2] && !w->o.version[3]) {
		int v2 = (o->log_file_mode & ETL_MODE_COMPRESSED) || o->buffer_size > 1024 * 1024 ||
		         o->number_of_processors > 256;
		w->o.version[2] = v2 ? 2 : 1;
		w->o.version[3] = v2 ? 0 : 5;
	}
	w->ctx.layout_major = w->o.version[2];
	w->ctx.layout_minor = w->o.version[3];
	w->ctx.default_ptr_size = o->pointer_size;
	w->compressed = (o->log_file_mode & ETL_MODE_COMPRESSED) != 0;
	/* doc/format.md §2.4: EVENT_TRACE_USE_KBYTES_FOR_SIZE (0x2000) counts
	 * the maximum file size in KB instead of MB. */
	if (o->log_file_mode & (ETL_MODE_CIRCULAR | ETL_MODE_NEWFILE))
		w->max_bytes = (uint64_t)o->maximum_file_size_mb * 1024 *
		               ((o->log_file_mode & 0x2000u) ? 1 : 1024);
	w->last_ts = o->start_timestamp;
	return ETL_OK;
}

/* ---- output ----------------------------------------------------------- */

static int out_write(struct etl_writer *w, uint64_t off, const void *data, size_t n)
{
	if (etl__out_write(&w->out, off, data, n) != 0) {
		werr(w, ETL_E_IO, "Cannot write the output: offset=%llu, size=%zu, error=\"%s\"",
		     (unsigned long long)off, n, strerror(errno ? errno : EIO));
		return -1;
	}
	w->stats.bytes_written += n;
	return 0;
}

/* A write failed: fatal for a path (safe output drops the whole file),
 * a lost buffer for fd and sink outputs, which go on. */
static int write_failed(struct etl_writer *w)
{
	if (w->out.kind == ETL_OUT_PATH) {
		w->broken = 1;
		return ETL_FATAL;
	}
	w->buffers_lost++;
	return ETL_FAILED;
}

/* Places one finished uncompressed trace buffer in the file. */
static int place_buffer(struct etl_writer *w, const uint8_t *buf)
{
	uint32_t bs = w->o.buffer_size;
	uint64_t off;
	if (w->max_bytes && (w->o.log_file_mode & ETL_MODE_CIRCULAR)) {
		uint64_t slots = (w->max_bytes - w->hdr.size) / bs;
		if (slots == 0)
			slots = 1;
		uint64_t slot = w->data_buffers % slots;
		off = w->hdr.size + slot * bs;
		if (w->data_buffers >= slots)
			w->wrapped = 1;
		w->circ_slots = slots;
	} else {
		off = w->file_end;
	}
	if (out_write(w, off, buf, bs) != 0)
		return write_failed(w);
	w->data_buffers++;
	if (off + bs > w->file_end)
		w->file_end = off + bs;
	w->last_buf_off = off;
	w->stats.buffers_written++;
	return ETL_OK;
}

/* Takes in what the compressed-file stage did: the bytes it wrote at the
 * end of the file (from end0 to file_end), the buffers it took in or lost,
 * and its failure. */
static int from_stage(struct etl_writer *w, int rc, uint64_t end0, const struct etl__wc_report *r)
{
	w->stats.bytes_written += w->file_end - end0;
	w->stats.buffers_written += r->taken;
	w->data_buffers += r->taken;
	w->buffers_lost += r->lost;
	if (rc != ETL_OK)
		werr(w, r->err.code, "%s", r->err.msg);
	if (rc == ETL_FATAL)
		w->broken = 1;
	return rc;
}

/* Sends a stamped buffer through the compressed-file stage. */
static int compress_buffer(struct etl_writer *w, uint8_t *b, uint32_t pos)
{
	struct etl__wc_report r;
	uint64_t end = w->file_end;
	int rc = etl__wc_add_buffer(w->wc, &w->out, &w->file_end, b, pos, &r);
	return from_stage(w, rc, end, &r);
}

/* ---- per-processor buffers ------------------------------------------- */

static int start_file(struct etl_writer *w);
static int finish_file(struct etl_writer *w, int last);

/* Stamps a buffer of processor cpu holding records up to pos: header
 * fields, 0xFF fill after the records, the next SequenceNumber. */
static void stamp_buffer(struct etl_writer *w, uint8_t *b, uint32_t pos, uint32_t cpu, int64_t last_ts)
{
	uint32_t bs = w->o.buffer_size;
	memset(b, 0, HDR);
	memset(b + pos, 0xFF, bs - pos);
	etl_put32(b + 0x00, bs);
	etl_put32(b + 0x04, pos);
	etl_put32(b + 0x08, pos);
	etl_put64(b + 0x10, (uint64_t)last_ts);
	etl_put64(b + 0x18, ++w->seq);
	etl_put16(b + 0x28, (uint16_t)cpu);
	etl_put16(b + 0x2A, w->o.logger_id);
	etl_put32(b + 0x2C, 3);                             /* Flush */
	etl_put32(b + 0x30, pos);
	etl_put16(b + 0x34, ETL_BUF_FLAG_PROC_INDEX);
	etl_put16(b + 0x36, 0);
}

/* Stamps a buffer and sends it to the file (or the compression buffer). */
static int put_buffer(struct etl_writer *w, uint8_t *b, uint32_t pos, uint32_t cpu, int64_t last_ts)
{
	uint32_t bs = w->o.buffer_size;
	stamp_buffer(w, b, pos, cpu, last_ts);
	/* NEWFILE: rotate before a buffer would pass the size limit. */
	int rot = ETL_OK;
	if (w->max_bytes && (w->o.log_file_mode & ETL_MODE_NEWFILE) && !w->compressed &&
	    w->data_buffers > 0 && w->file_end + bs > w->max_bytes) {
		/* ETL_FAILED (fd / sink: the flush marker could not be set) still
		 * finished the file: go on, or this buffer would stay full and the
		 * caller's next record would be encoded past its end. */
		rot = finish_file(w, 0);
		if (rot == ETL_FATAL)
			return rot;
		int rc = start_file(w);
		if (rc != ETL_OK)
			return rc;
	}
	int rc = w->compressed ? compress_buffer(w, b, pos) : place_buffer(w, b);
	return rc != ETL_OK ? rc : rot;
}

/* Stamps a processor's buffer and sends it on. */
static int flush_cpu(struct etl_writer *w, uint32_t cpu)
{
	struct etl_wcpu *c = &w->cpus[cpu];
	if (!c->buf || c->pos == HDR)
		return ETL_OK;
	int rc = put_buffer(w, c->buf, c->pos, cpu, c->last_ts);
	c->pos = HDR;
	return rc;
}

int etl__writer_put_buffer(etl_writer *w, uint8_t *buf, uint32_t pos, uint32_t cpu, int64_t last_ts)
{
	if (!w->opened || w->broken || w->raw) {
		werr(w, ETL_E_MISUSE, "The writer is not open");
		return w->broken ? ETL_FATAL : ETL_FAILED;
	}
	if (pos < HDR || pos > w->o.buffer_size || cpu >= w->nproc) {
		werr(w, ETL_E_BAD_VALUE, "Buffer does not fit the file: end=%u, processor=%u", pos, cpu);
		return ETL_FAILED;
	}
	if (last_ts > w->last_ts)
		w->last_ts = last_ts;
	return put_buffer(w, buf, pos, cpu, last_ts);
}

int etl__writer_put_buffers(etl_writer *w, const struct etl_wbuf *v, uint32_t n, int *rcs)
{
	uint32_t bs = w->o.buffer_size;
	int simple = w->opened && !w->broken && !w->raw && !w->compressed && !w->max_bytes &&
	             w->out.kind == ETL_OUT_PATH && n > 1 && n <= 64;
	for (uint32_t i = 0; simple && i < n; i++)
		if (v[i].pos < HDR || v[i].pos > bs || v[i].cpu >= w->nproc)
			simple = 0;
	if (!simple) {
		int rc = ETL_OK;
		for (uint32_t i = 0; i < n; i++) {
			rcs[i] = etl__writer_put_buffer(w, v[i].buf, v[i].pos, v[i].cpu, v[i].last_ts);
			if (rcs[i] == ETL_FATAL || (rcs[i] != ETL_OK && rc == ETL_OK))
				rc = rcs[i];
		}
		return rc;
	}
	/* Sequential file: the buffers follow each other at the end, one
	 * system call for all of them. */
	struct iovec iov[64];
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].last_ts > w->last_ts)
			w->last_ts = v[i].last_ts;
		stamp_buffer(w, v[i].buf, v[i].pos, v[i].cpu, v[i].last_ts);
		iov[i].iov_base = v[i].buf;
		iov[i].iov_len = bs;
	}
	uint64_t off = w->file_end;
	if (etl__out_writev(&w->out, off, iov, (int)n) != 0) {
		werr(w, ETL_E_IO, "Cannot write the output: offset=%llu, size=%zu, error=\"%s\"",
		     (unsigned long long)off, (size_t)n * bs, strerror(errno ? errno : EIO));
		int rc = write_failed(w);
		for (uint32_t i = 0; i < n; i++)
			rcs[i] = rc;
		return rc;
	}
	w->stats.bytes_written += (uint64_t)n * bs;
	w->data_buffers += n;
	w->file_end = off + (uint64_t)n * bs;
	w->last_buf_off = w->file_end - bs;
	w->stats.buffers_written += n;
	for (uint32_t i = 0; i < n; i++)
		rcs[i] = ETL_OK;
	return ETL_OK;
}

int etl_writer_write_event(etl_writer *w, const struct etl_event *ev)
{
	if (!w->opened || w->broken || w->raw) {
		werr(w, ETL_E_MISUSE, w->raw ? "Events cannot be mixed with raw buffers"
		                             : "The writer is not open");
		return w->broken ? ETL_FATAL : ETL_FAILED;
	}
	const struct etl_hdr_ops *ops = etl__hdr_for_kind(ev->kind);
	if (!ops || !ops->encoded_size || !ops->encode) {
		werr(w, ETL_E_BAD_VALUE, "Events of this header type cannot be written: kind=%s",
		     etl_hdr_kind_name(ev->kind));
		w->stats.events_rejected++;
		return ETL_FAILED;
	}
	if (ev->processor >= w->nproc) {
		werr(w, ETL_E_BAD_VALUE, "Event names a processor the file does not have: processor=%u, processors=%u",
		     ev->processor, w->nproc);
		w->stats.events_rejected++;
		return ETL_FAILED;
	}
	size_t size = ops->encoded_size(ev, &w->ctx);
	uint32_t room = w->o.buffer_size - HDR;
	if (size == 0 || size > room) {
		werr(w, ETL_E_BAD_VALUE,
		     size ? "Event is larger than a buffer: size=%zu, buffer-room=%u, kind=%s"
		          : "Event cannot be encoded: it exceeds the 0xFFFF record size or its fields disagree: size=%zu, room=%u, kind=%s",
		     size, room, etl_hdr_kind_name(ev->kind));
		w->stats.events_rejected++;
		return ETL_FAILED;
	}
	struct etl_wcpu *c = &w->cpus[ev->processor];
	if (!c->buf) {
		c->buf = malloc(w->o.buffer_size);
		if (!c->buf) {
			werr(w, ETL_E_NOMEM, "Out of memory for a buffer of processor %u", ev->processor);
			return ETL_FATAL;
		}
		c->pos = HDR;
	}
	int frc = ETL_OK;
	if (ETL_ALIGN8(size) > w->o.buffer_size - c->pos) {
		frc = flush_cpu(w, ev->processor);
		if (frc == ETL_FATAL)
			return ETL_FATAL;
	}
	struct etl_err err;
	err.msg[0] = 0;
	if (ops->encode(c->buf + c->pos, size, ev, &w->ctx, &err) != ETL_OK) {
		werr(w, err.code ? err.code : ETL_E_BAD_VALUE, "Event cannot be encoded: %s", err.msg);
		w->stats.events_rejected++;
		return ETL_FAILED;
	}
	/* Alignment padding: zero (Windows leaves stale bytes there). */
	memset(c->buf + c->pos + size, 0, ETL_ALIGN8(size) - size);
	c->pos += (uint32_t)ETL_ALIGN8(size);
	if (ev->present & ETL_EVF_TIMESTAMP) {
		c->last_ts = ev->timestamp;
		if (ev->timestamp > w->last_ts)
			w->last_ts = ev->timestamp;
	}
	w->stats.events_written++;
	return frc;
}

int etl_writer_write_header_event(etl_writer *w, const struct etl_event *ev)
{
	if (!w->opened || w->broken || w->raw || w->data_buffers > 0 || etl__wc_pending(w->wc) > 0 ||
	    w->file_index > 1) {
		werr(w, ETL_E_MISUSE, "Header records go in before any data buffer is written");
		return ETL_FAILED;
	}
	const struct etl_hdr_ops *ops = etl__hdr_for_kind(ev->kind);
	size_t size = ops && ops->encoded_size ? ops->encoded_size(ev, &w->ctx) : 0;
	uint32_t at = etl__hdrbuf_record_at(&w->hdr);
	size_t asize = ETL_ALIGN8(size);
	if (size == 0 || at + asize > w->o.buffer_size) {
		werr(w, ETL_E_BAD_VALUE, "Header record cannot be encoded or does not fit: size=%zu, kind=%s",
		     size, etl_hdr_kind_name(ev->kind));
		return ETL_FAILED;
	}
	/* Encoded aside first: a record that fails leaves the header buffer
	 * (size, valid end, fill, default record) as it was. */
	uint8_t *rec = malloc(size);
	if (!rec) {
		werr(w, ETL_E_NOMEM, "Out of memory for a header record");
		return ETL_FAILED;
	}
	struct etl_err err;
	err.msg[0] = 0;
	if (ops->encode(rec, size, ev, &w->ctx, &err) != ETL_OK) {
		free(rec);
		werr(w, ETL_E_BAD_VALUE, "Header record cannot be encoded: %s", err.msg);
		return ETL_FAILED;
	}
	uint32_t was = w->hdr.size;
	int rc = etl__hdrbuf_put_record(&w->hdr, rec, size, &err);
	free(rec);
	/* A larger header buffer moves the data that follows it. */
	if (w->hdr.size != was)
		w->file_end = w->hdr.size;
	if (rc != ETL_OK)
		werr(w, err.code, "%s", err.msg);
	return rc;
}

void etl_writer_add_lost(etl_writer *w, uint32_t events, uint32_t buffers)
{
	w->events_lost += events;
	w->buffers_lost += buffers;
}

int etl_writer_write_raw_buffer(etl_writer *w, const uint8_t *data, size_t n)
{
	if (!w->opened || w->broken) {
		werr(w, ETL_E_MISUSE, "The writer is not open");
		return w->broken ? ETL_FATAL : ETL_FAILED;
	}
	if (!w->raw && (w->stats.events_written || w->file_end > w->hdr.size)) {
		werr(w, ETL_E_MISUSE, "Raw buffers cannot follow events");
		return ETL_FAILED;
	}
	if (!w->raw) {
		/* Raw mode writes no header buffer of its own: the one written at
		 * open is overwritten, and the output is cut to what raw mode
		 * writes (etl__out_commit truncates to out.size). */
		w->raw = 1;
		w->file_end = 0;
		w->out.size = 0;
	}
	if (out_write(w, w->file_end, data, n) != 0)
		return write_failed(w);
	w->file_end += n;
	w->stats.buffers_written++;
	return ETL_OK;
}

/* ---- files ------------------------------------------------------------ */

/* In place: disk space is allocated ahead (lib/io/sink.c), never
 * past the file's size limit. */
static uint64_t prealloc_cap(const struct etl_writer *w)
{
	return (uint64_t)w->o.maximum_file_size_mb * 1024 * ((w->o.log_file_mode & 0x2000u) ? 1 : 1024);
}

/* Begins a file: header buffer first (rewritten on close). */
static int start_file(struct etl_writer *w)
{
	if (w->file_index > 0) {
		char name[4096];
		snprintf(name, sizeof name, w->pattern, w->file_index + w->name_base);
		int rc = w->in_place ? etl__out_open_path_inplace(&w->out, name)
		                     : etl__out_open_path(&w->out, name);
		w->out.prealloc_cap = prealloc_cap(w);
		if (rc != 0) {
			werr(w, ETL_E_IO, "Cannot create the output: path=\"%s\", error=\"%s\"", name,
			     strerror(errno));
			w->broken = 1;
			return ETL_FATAL;
		}
	}
	w->file_index++;
	w->stats.files_written++;
	w->data_buffers = 0;
	w->wrapped = 0;
	w->file_end = w->hdr.size;
	w->last_buf_off = 0;
	if (out_write(w, 0, w->hdr.buf, w->hdr.size) != 0) {
		w->broken = 1;
		return ETL_FATAL;
	}
	w->stats.buffers_written++;
	return ETL_OK;
}

/* Patches the buffer counts (and the circular start buffer) into the
 * header buffer and writes it at offset 0. */
static int rewrite_header(struct etl_writer *w)
{
	uint64_t in_file = w->compressed ? etl__wc_buffers_in_file(w->wc)
	                 : (w->wrapped ? w->circ_slots : w->data_buffers);
	struct etl__hdr_figures f;
	f.last_ts = w->last_ts;
	f.buffers_written = (uint32_t)(in_file + 1);
	f.start_buffers = 1;
	if (w->wrapped)
		f.start_buffers = (uint32_t)(w->data_buffers % w->circ_slots) + 1;
	f.events_lost = w->events_lost;
	f.buffers_lost = w->buffers_lost;
	etl__hdrbuf_patch(&w->hdr, &w->o, &f);
	if (out_write(w, 0, w->hdr.buf, w->hdr.size) != 0) {
		w->broken = 1;
		return ETL_FATAL;
	}
	return ETL_OK;
}

/* Flushes what is pending, marks the last buffer, patches the header,
 * and commits the file. */
static int finish_file(struct etl_writer *w, int last)
{
	int rc = ETL_OK;
	if (last) {
		for (uint32_t i = 0; i < w->nproc; i++) {
			int frc = flush_cpu(w, i);
			if (frc == ETL_FATAL)
				return ETL_FATAL;
			if (frc != ETL_OK)
				rc = frc;
		}
	}
	if (w->compressed) {
		struct etl__wc_report r;
		uint64_t end = w->file_end;
		int crc = from_stage(w, etl__wc_finish(w->wc, &w->out, &w->file_end, &r), end, &r);
		if (crc == ETL_FATAL)
			return ETL_FATAL;
		if (crc != ETL_OK)
			rc = crc;
	} else if (w->data_buffers > 0 && w->last_buf_off) {
		/* doc/format.md §1.3: the last buffer written carries FLUSH_MARKER. */
		uint8_t fl[2];
		etl_put16(fl, ETL_BUF_FLAG_PROC_INDEX | ETL_BUF_FLAG_FLUSH_MARKER);
		if (out_write(w, w->last_buf_off + 0x34, fl, 2) != 0) {
			/* No buffer is lost (it is in the file, unmarked); fd and
			 * sink outputs still get their header finalised. */
			if (w->out.kind == ETL_OUT_PATH) {
				w->broken = 1;
				return ETL_FATAL;
			}
			rc = ETL_FAILED;
		}
	}
	if (rewrite_header(w) != ETL_OK)
		return ETL_FATAL;
	if (etl__out_commit(&w->out) != 0) {
		werr(w, ETL_E_IO, "Cannot finish the output: error=\"%s\"", strerror(errno));
		w->broken = 1;
		return ETL_FATAL;
	}
	return rc;
}

static int open_common(struct etl_writer *w, const struct etl_writer_options *o, const char *path)
{
	if (w->opened) {
		werr(w, ETL_E_MISUSE, "The writer is already open");
		return ETL_FAILED;
	}
	if (w->closed) {
		werr(w, ETL_E_MISUSE, "A writer produces one output; use a new writer after close");
		return ETL_FAILED;
	}
	int rc = check_options(w, o);
	if (rc != ETL_OK)
		return rc;
	rc = take_options(w, o, path);
	if (rc != ETL_OK)
		return rc;
	struct etl_err err;
	rc = etl__hdrbuf_build(&w->hdr, &w->o, w->logger_name, w->log_file_name, w->compressed, &err);
	if (rc != ETL_OK) {
		werr(w, err.code, "%s", err.msg);
		return rc;
	}
	if (w->compressed) {
		struct etl__wc_report r;
		etl__wc_free(w->wc);   /* an earlier, failed open may have made one */
		w->wc = etl__wc_new(w->o.buffer_size, &r);
		if (!w->wc) {
			werr(w, r.err.code, "%s", r.err.msg);
			return ETL_FATAL;
		}
	}
	return ETL_OK;
}

/* Opens path for w: through a temporary renamed on close, or in place
 * (the tracing runtime's files, readable after a crash). */
static int open_path(etl_writer *w, const char *path, const struct etl_writer_options *o,
                     int in_place)
{
	int rc = open_common(w, o, path);
	if (rc != ETL_OK)
		return rc;
	if ((in_place ? etl__out_open_path_inplace(&w->out, path)
	              : etl__out_open_path(&w->out, path)) != 0) {
		werr(w, ETL_E_IO, "Cannot create the output: path=\"%s\", error=\"%s\"", path,
		     strerror(errno));
		return ETL_FATAL;
	}
	return ETL_OK;
}

int etl_writer_open_file(etl_writer *w, const char *path, const struct etl_writer_options *o)
{
	int rc = open_path(w, path, o, 0);
	if (rc != ETL_OK)
		return rc;
	w->opened = 1;
	return start_file(w);
}

int etl__writer_open_inplace(etl_writer *w, const char *path, const struct etl_writer_options *o,
                             int name_base)
{
	int rc = open_path(w, path, o, 1);
	if (rc != ETL_OK)
		return rc;
	w->out.prealloc_cap = prealloc_cap(w);
	w->in_place = 1;
	w->name_base = name_base;
	w->opened = 1;
	return start_file(w);
}

int etl__writer_sync(etl_writer *w)
{
	if (!w->opened || w->broken || w->raw)
		return w->broken ? ETL_FATAL : ETL_OK;
	/* Compressed bytes waiting for a full trace buffer's worth go out now
	 * at the end of the file; they stay in the compression buffer, and
	 * the write that completes them later lands on the same bytes. */
	struct etl__wc_report r;
	if (w->compressed && etl__wc_sync(w->wc, &w->out, w->file_end, &r) != ETL_OK) {
		werr(w, r.err.code, "%s", r.err.msg);
		w->broken = 1;
		return ETL_FATAL;
	}
	return rewrite_header(w);
}

void etl__writer_set_clock(etl_writer *w, int64_t perf_freq, int64_t boot_time)
{
	w->o.perf_freq = perf_freq;
	w->o.boot_time = boot_time;
	if (!w->hdr.buf || w->raw)
		return;
	etl__hdrbuf_set_clock(&w->hdr, w->o.pointer_size, perf_freq, boot_time);
}

uint64_t etl__writer_bytes(const etl_writer *w)
{
	return w->file_end + (w->compressed ? etl__wc_pending(w->wc) : 0);
}

int etl_writer_open_fd(etl_writer *w, int fd, const struct etl_writer_options *o)
{
	int rc = open_common(w, o, NULL);
	if (rc != ETL_OK)
		return rc;
	etl__out_open_fd(&w->out, fd);
	w->opened = 1;
	return start_file(w);
}

int etl_writer_open_sink(etl_writer *w, etl_sink_write_fn fn, void *ctx,
                         const struct etl_writer_options *o)
{
	int rc = open_common(w, o, NULL);
	if (rc != ETL_OK)
		return rc;
	etl__out_open_sink(&w->out, fn, ctx);
	w->opened = 1;
	return start_file(w);
}

int etl_writer_close(etl_writer *w)
{
	if (!w->opened) {
		werr(w, ETL_E_MISUSE, "The writer is not open");
		return ETL_FAILED;
	}
	int rc;
	if (w->broken) {
		rc = ETL_FATAL;
	} else if (w->raw) {
		rc = etl__out_commit(&w->out) == 0 ? ETL_OK : ETL_FATAL;
		if (rc != ETL_OK)
			werr(w, ETL_E_IO, "Cannot finish the output: error=\"%s\"", strerror(errno));
	} else {
		rc = finish_file(w, 1);
	}
	if (rc == ETL_FATAL) {
		w->broken = 1;
		etl__out_abandon(&w->out);
	}
	w->opened = 0;
	w->closed = 1;
	return rc == ETL_FATAL ? ETL_FATAL : rc;
}

void etl_writer_free(etl_writer *w)
{
	if (!w)
		return;
	if (w->opened)
		etl__out_abandon(&w->out);
	etl__out_release(&w->out);
	for (uint32_t i = 0; w->cpus && i < w->nproc; i++)
		free(w->cpus[i].buf);
	free(w->cpus);
	etl__wc_free(w->wc);
	etl__hdrbuf_free(&w->hdr);
	free(w->logger_name);
	free(w->log_file_name);
	free(w->pattern);
	free(w);
}

void etl_writer_stats(const etl_writer *w, struct etl_writer_stats *st)
{
	*st = w->stats;
}

int etl_writer_errcode(const etl_writer *w)
{
	return w->err.code;
}

const char *etl_writer_errmsg(const etl_writer *w)
{
	return w->err.msg;
}
