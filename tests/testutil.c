/*
 * testutil.c - helpers shared by the Check programs (see testutil.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ------------------------------------------------------------------ */
/* corpus and files                                                     */
/* ------------------------------------------------------------------ */

const char *tu_corpus_dir(void)
{
	const char *d = getenv("ETL_CORPUS");
	return d && *d ? d : "../shared/corpus";
}

char *tu_corpus_path(const char *name)
{
	const char *dir = tu_corpus_dir();
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int tu_corpus_present(void)
{
	/* No ck_assert here: programs ask before their tests run. */
	char p[4096];
	int n = snprintf(p, sizeof p, "%s/expected.json", tu_corpus_dir());
	return n > 0 && (size_t)n < sizeof p && access(p, R_OK) == 0;
}

void tu_skip(const char *test, const char *fmt, ...)
{
	size_t n = strlen(test);
	va_list ap;
	if (n > 3 && strcmp(test + n - 3, "_fn") == 0)
		n -= 3;
	printf("SKIP: %.*s: ", (int)n, test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	/* Check runs each test in a child process: the line must be out
	 * before the child ends. */
	fflush(stdout);
}

uint8_t *tu_load_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long sz = ftell(f);
	ck_assert_int_ge(sz, 0);
	ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
	uint8_t *p = malloc((size_t)sz + 1);
	ck_assert_ptr_nonnull(p);
	size_t got = fread(p, 1, (size_t)sz, f);
	fclose(f);
	ck_assert_msg(got == (size_t)sz, "short read on %s", path);
	p[sz] = 0;
	*len = (size_t)sz;
	return p;
}

void tu_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

void tu_golden_check(const char *gpath, const void *p, size_t n, const char *what)
{
	const char *upd = getenv("ETL_UPDATE_GOLDEN");
	if (upd && *upd && strcmp(upd, "0") != 0) {
		tu_write_file(gpath, p, n);
		return;
	}
	FILE *f = fopen(gpath, "rb");
	ck_assert_msg(f != NULL, "%s: no golden file %s (create it with ETL_UPDATE_GOLDEN=1)", what, gpath);
	fclose(f);
	size_t glen;
	uint8_t *g = tu_load_file(gpath, &glen);
	const uint8_t *a = p;
	size_t line = 1;
	for (size_t i = 0; i < n && i < glen && a[i] == g[i]; i++)
		if (a[i] == '\n')
			line++;
	int same = glen == n && (n == 0 || memcmp(g, p, n) == 0);
	free(g);
	ck_assert_msg(same,
	              "%s differs from %s (%zu bytes, golden %zu) from line %zu; "
	              "refresh with ETL_UPDATE_GOLDEN=1 if the change is intended",
	              what, gpath, n, glen, line);
}

/* ------------------------------------------------------------------ */
/* byte vector                                                          */
/* ------------------------------------------------------------------ */

void tu_bytes_init(struct tu_bytes *b)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
}

void tu_bytes_free(struct tu_bytes *b)
{
	free(b->p);
	tu_bytes_init(b);
}

void tu_bytes_reserve(struct tu_bytes *b, size_t extra)
{
	if (b->cap - b->len >= extra && b->p)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < extra)
		cap *= 2;
	uint8_t *n = realloc(b->p, cap);
	TU_REQUIRE(n != NULL);
	b->p = n;
	b->cap = cap;
}

void tu_put8(struct tu_bytes *b, uint8_t v)
{
	if (b->len == b->cap)
		tu_bytes_reserve(b, 1);
	b->p[b->len++] = v;
}

void tu_put16(struct tu_bytes *b, uint16_t v)
{
	tu_put8(b, (uint8_t)v);
	tu_put8(b, (uint8_t)(v >> 8));
}

void tu_put32(struct tu_bytes *b, uint32_t v)
{
	tu_put16(b, (uint16_t)v);
	tu_put16(b, (uint16_t)(v >> 16));
}

void tu_put64(struct tu_bytes *b, uint64_t v)
{
	tu_put32(b, (uint32_t)v);
	tu_put32(b, (uint32_t)(v >> 32));
}

void tu_putguid(struct tu_bytes *b, const struct etl_guid *g)
{
	tu_put32(b, g->data1);
	tu_put16(b, g->data2);
	tu_put16(b, g->data3);
	tu_putbytes(b, g->data4, 8);
}

void tu_putbytes(struct tu_bytes *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	tu_bytes_reserve(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void tu_putf(struct tu_bytes *b, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	ck_assert(n > 0 && (size_t)n < sizeof line);
	tu_putbytes(b, line, (size_t)n);
}

void tu_putfill(struct tu_bytes *b, uint8_t v, size_t n)
{
	if (n == 0)
		return;
	tu_bytes_reserve(b, n);
	memset(b->p + b->len, v, n);
	b->len += n;
}

void tu_pututf16z(struct tu_bytes *b, const char *ascii)
{
	for (const char *s = ascii; *s; s++)
		tu_put16(b, (uint8_t)*s);
	tu_put16(b, 0);
}

void tu_align8(struct tu_bytes *b, uint8_t v)
{
	while (b->len % 8)
		tu_put8(b, v);
}

void tu_set16(struct tu_bytes *b, size_t off, uint16_t v)
{
	TU_REQUIRE(off + 2 <= b->len);
	b->p[off] = (uint8_t)v;
	b->p[off + 1] = (uint8_t)(v >> 8);
}

void tu_set32(struct tu_bytes *b, size_t off, uint32_t v)
{
	tu_set16(b, off, (uint16_t)v);
	tu_set16(b, off + 2, (uint16_t)(v >> 16));
}

void tu_set64(struct tu_bytes *b, size_t off, uint64_t v)
{
	tu_set32(b, off, (uint32_t)v);
	tu_set32(b, off + 4, (uint32_t)(v >> 32));
}

uint16_t tu_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

uint32_t tu_le32(const uint8_t *p)
{
	return (uint32_t)tu_le16(p) | ((uint32_t)tu_le16(p + 2) << 16);
}

uint64_t tu_le64(const uint8_t *p)
{
	return (uint64_t)tu_le32(p) | ((uint64_t)tu_le32(p + 4) << 32);
}

struct etl_guid tu_guid(const char *s)
{
	struct etl_guid g;
	ck_assert_msg(etl_guid_parse(s, &g) == ETL_OK, "not a GUID: %s", s);
	return g;
}

/* ------------------------------------------------------------------ */
/* records                                                              */
/* ------------------------------------------------------------------ */

/* PEBS index and PMC counters announced by a version word. */
static void put_hw(struct tu_bytes *out, uint16_t vw, const uint64_t *hw)
{
	unsigned n = ((vw & 0x8000u) ? 1u : 0u) + ((vw >> 8) & 7u);
	for (unsigned i = 0; i < n; i++)
		tu_put64(out, hw ? hw[i] : 0);
}

size_t tu_rec_system(struct tu_bytes *out, uint8_t htype, uint16_t version_word,
                     uint16_t hook_id, uint32_t tid, uint32_t pid, int64_t ts,
                     uint32_t ktime, uint32_t utime, const uint64_t *hw,
                     const void *payload, size_t n)
{
	size_t at = out->len;
	tu_put16(out, version_word);
	tu_put8(out, htype);
	tu_put8(out, 0xC0);
	tu_put16(out, 0);                      /* size, patched below */
	tu_put16(out, hook_id);
	tu_put32(out, tid);
	tu_put32(out, pid);
	tu_put64(out, (uint64_t)ts);
	if (htype == 0x01 || htype == 0x02) {
		tu_put32(out, ktime);
		tu_put32(out, utime);
	}
	put_hw(out, version_word, hw);
	tu_putbytes(out, payload, n);
	tu_set16(out, at + 4, (uint16_t)(out->len - at));
	return at;
}

size_t tu_rec_perfinfo(struct tu_bytes *out, uint8_t htype, uint16_t version_word,
                       uint16_t hook_id, int64_t ts, const uint64_t *hw,
                       const void *payload, size_t n)
{
	size_t at = out->len;
	tu_put16(out, version_word);
	tu_put8(out, htype);
	tu_put8(out, 0xC0);
	tu_put16(out, 0);
	tu_put16(out, hook_id);
	tu_put64(out, (uint64_t)ts);
	put_hw(out, version_word, hw);
	tu_putbytes(out, payload, n);
	tu_set16(out, at + 4, (uint16_t)(out->len - at));
	return at;
}

size_t tu_rec_event(struct tu_bytes *out, uint8_t htype, const struct etl_guid *provider,
                    uint16_t id, uint32_t tid, uint32_t pid, int64_t ts,
                    const void *payload, size_t n)
{
	static const struct etl_guid zero;
	size_t at = out->len;
	tu_put16(out, 0);                      /* size */
	tu_put8(out, htype);
	tu_put8(out, 0xC0);
	tu_put16(out, 0);                      /* Flags */
	tu_put16(out, 0);                      /* EventProperty */
	tu_put32(out, tid);
	tu_put32(out, pid);
	tu_put64(out, (uint64_t)ts);
	tu_putguid(out, provider ? provider : &zero);
	tu_put16(out, id);
	tu_put8(out, 1);                       /* Version */
	tu_put8(out, 0);                       /* Channel */
	tu_put8(out, 4);                       /* Level */
	tu_put8(out, 0);                       /* Opcode */
	tu_put16(out, 0);                      /* Task */
	tu_put64(out, 0);                      /* Keyword */
	tu_put32(out, 0);
	tu_put32(out, 0);
	tu_putguid(out, &zero);                /* ActivityId */
	tu_putbytes(out, payload, n);
	tu_set16(out, at, (uint16_t)(out->len - at));
	return at;
}

void tu_lf_defaults(struct tu_lf *lf)
{
	memset(lf, 0, sizeof *lf);
	lf->ptr_size = 8;
	lf->buffer_size = 0x1000;
	lf->version[0] = 10;
	lf->version[1] = 0;
	lf->version[2] = 1;
	lf->version[3] = 5;
	lf->build = 19041;
	lf->nproc = 4;
	lf->start_time = 132264713101234567LL;   /* 2020-02-17T12:48:30.1234567Z */
	lf->end_time = lf->start_time + 600000000LL;
	lf->timer_resolution = 156250;
	lf->max_file_size = 100;
	lf->log_file_mode = 0x1;
	/* 0: the fixtures do not claim how many buffers they hold, so the
	 * reader's check of a file shorter than its header does not apply;
	 * tests of that check set the count. */
	lf->buffers_written = 0;
	lf->start_buffers = 1;
	lf->pointer_size = 8;
	lf->events_lost = 0;
	lf->cpu_mhz = 2808;
	lf->logger_name_field = 10;
	lf->log_file_name_field = 7;
	lf->tz_bias = -60;
	lf->tz_std_name = "@tzres.dll,-322";
	lf->tz_std_bias = 0;
	lf->tz_dst_name = "@tzres.dll,-321";
	lf->tz_dst_bias = -60;
	lf->boot_time = lf->start_time - 36000000000LL;
	lf->perf_freq = 10000000;
	lf->clock_type = 1;
	lf->logger_name = "TestLogger";
	lf->log_file_name = "C:\\test\\synthetic.etl";
	lf->header_ts = 1000000;
}

/* WCHAR[32] name field of TIME_ZONE_INFORMATION. */
static void put_tz_name(struct tu_bytes *out, const char *s)
{
	size_t i = 0;
	for (; s && s[i] && i < 31; i++)
		tu_put16(out, (uint8_t)s[i]);
	for (; i < 32; i++)
		tu_put16(out, 0);
}

static void put_systemtime(struct tu_bytes *out, uint16_t month, uint16_t day)
{
	tu_put16(out, 0);       /* Year */
	tu_put16(out, month);
	tu_put16(out, 0);       /* DayOfWeek */
	tu_put16(out, day);
	tu_put16(out, 2);       /* Hour */
	tu_put16(out, 0);
	tu_put16(out, 0);
	tu_put16(out, 0);
}

size_t tu_rec_logfile(struct tu_bytes *out, const struct tu_lf *lf)
{
	struct tu_bytes p;
	tu_bytes_init(&p);
	tu_put32(&p, lf->buffer_size);
	tu_putbytes(&p, lf->version, 4);
	tu_put32(&p, lf->build);
	tu_put32(&p, lf->nproc);
	tu_put64(&p, (uint64_t)lf->end_time);
	tu_put32(&p, lf->timer_resolution);
	tu_put32(&p, lf->max_file_size);
	tu_put32(&p, lf->log_file_mode);
	tu_put32(&p, lf->buffers_written);
	tu_put32(&p, lf->start_buffers);
	tu_put32(&p, lf->pointer_size);
	tu_put32(&p, lf->events_lost);
	tu_put32(&p, lf->cpu_mhz);
	if (lf->ptr_size == 4) {
		tu_put32(&p, (uint32_t)lf->logger_name_field);
		tu_put32(&p, (uint32_t)lf->log_file_name_field);
		ck_assert_uint_eq(p.len, 0x40);
	} else {
		tu_put64(&p, lf->logger_name_field);
		tu_put64(&p, lf->log_file_name_field);
		ck_assert_uint_eq(p.len, 0x48);
	}
	tu_put32(&p, (uint32_t)lf->tz_bias);
	put_tz_name(&p, lf->tz_std_name);
	put_systemtime(&p, 10, 5);
	tu_put32(&p, (uint32_t)lf->tz_std_bias);
	put_tz_name(&p, lf->tz_dst_name);
	put_systemtime(&p, 3, 5);
	tu_put32(&p, (uint32_t)lf->tz_dst_bias);
	tu_put32(&p, 0);                       /* alignment padding */
	tu_put64(&p, (uint64_t)lf->boot_time);
	tu_put64(&p, (uint64_t)lf->perf_freq);
	tu_put64(&p, (uint64_t)lf->start_time);
	tu_put32(&p, lf->clock_type);
	tu_put32(&p, lf->buffers_lost);
	ck_assert_uint_eq(p.len, lf->ptr_size == 4 ? 0x110u : 0x118u);
	tu_pututf16z(&p, lf->logger_name ? lf->logger_name : "");
	tu_pututf16z(&p, lf->log_file_name ? lf->log_file_name : "");
	size_t at = tu_rec_system(out, lf->ptr_size == 4 ? 0x01 : 0x02, 2, 0x0000, 4, 4,
	                          lf->header_ts, 0, 0, NULL, p.p, p.len);
	tu_bytes_free(&p);
	return at;
}

/* ------------------------------------------------------------------ */
/* buffers                                                              */
/* ------------------------------------------------------------------ */

void tu_buffer_init(struct tu_buffer *b, uint32_t buffer_size, uint16_t proc, int64_t seq)
{
	memset(b, 0, sizeof *b);
	b->buffer_size = buffer_size;
	b->sequence = seq;
	b->client_proc = proc;
	b->logger_id = 0x14;
	b->flags = 0x20;
	b->type = 0;
	b->state = 3;
	b->saved_offset = -1;
	b->offset = -1;
	b->current_offset = -1;
	b->fill = 0xFF;
	tu_bytes_init(&b->recs);
}

void tu_buffer_free(struct tu_buffer *b)
{
	tu_bytes_free(&b->recs);
}

uint32_t tu_buffer_add(struct tu_buffer *b, const void *rec, size_t n, uint8_t pad)
{
	uint32_t at = (uint32_t)(ETL_BUFFER_HEADER_SIZE + b->recs.len);
	tu_putbytes(&b->recs, rec, n);
	tu_align8(&b->recs, pad);
	return at;
}

size_t tu_buffer_emit(struct tu_bytes *file, const struct tu_buffer *b)
{
	size_t at = file->len;
	uint32_t used = (uint32_t)(ETL_BUFFER_HEADER_SIZE + b->recs.len);
	uint32_t saved = b->saved_offset >= 0 ? (uint32_t)b->saved_offset : used;
	uint32_t offset = b->offset >= 0 ? (uint32_t)b->offset : saved;
	uint32_t cur = b->current_offset >= 0 ? (uint32_t)b->current_offset : saved;
	tu_put32(file, b->buffer_size);
	tu_put32(file, saved);
	tu_put32(file, cur);
	tu_put32(file, 0);                     /* ReferenceCount */
	tu_put64(file, (uint64_t)b->timestamp);
	tu_put64(file, (uint64_t)b->sequence);
	tu_put64(file, 0);                     /* 0x20 union */
	tu_put16(file, b->client_proc);
	tu_put16(file, b->logger_id);
	tu_put32(file, b->state);
	tu_put32(file, offset);
	tu_put16(file, b->flags);
	tu_put16(file, b->type);
	tu_putfill(file, 0, 16);               /* 0x38 reference time */
	ck_assert_uint_eq(file->len - at, ETL_BUFFER_HEADER_SIZE);
	/* Records beyond BufferSize are cut (for tests of overlong content). */
	size_t room = b->buffer_size > ETL_BUFFER_HEADER_SIZE ?
	              b->buffer_size - ETL_BUFFER_HEADER_SIZE : 0;
	size_t n = b->recs.len < room ? b->recs.len : room;
	tu_putbytes(file, b->recs.p, n);
	if (room > n)
		tu_putfill(file, b->fill, room - n);
	return at;
}

size_t tu_file_header(struct tu_bytes *file, const struct tu_lf *lf,
                      uint32_t header_buffer_size)
{
	struct tu_buffer b;
	struct tu_bytes rec;
	tu_buffer_init(&b, header_buffer_size ? header_buffer_size : lf->buffer_size, 0, 0);
	b.flags = 0x21;
	b.type = 4;
	b.logger_id = 0x14;
	tu_bytes_init(&rec);
	tu_rec_logfile(&rec, lf);
	tu_buffer_add(&b, rec.p, rec.len, 0);
	tu_bytes_free(&rec);
	tu_buffer_emit(file, &b);
	tu_buffer_free(&b);
	return file->len;
}

/* ------------------------------------------------------------------ */
/* running a reader                                                     */
/* ------------------------------------------------------------------ */

static void run_reset(struct tu_run *run)
{
	memset(run, 0, sizeof *run);
	run->end_rc = ETL_END;
}

static void run_push_ev(struct tu_run *run, const struct etl_event *ev, int st)
{
	if (run->n == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 256;
		struct tu_ev *n = realloc(run->ev, cap * sizeof *n);
		TU_REQUIRE(n != NULL);
		run->ev = n;
		run->cap = cap;
	}
	struct tu_ev *e = &run->ev[run->n++];
	e->file_offset = ev->file_offset;
	e->buffer_offset = ev->buffer_offset;
	e->offset_in_buffer = ev->offset_in_buffer;
	e->size = ev->size;
	e->timestamp = ev->timestamp;
	e->utc = ev->utc;
	e->present = ev->present;
	e->processor = ev->processor;
	e->header_flags = ev->header_flags;
	e->hook_id = ev->hook_id;
	e->id = ev->id;
	e->kind = (uint8_t)ev->kind;
	e->status = (int8_t)st;
}

static void run_push_fail(struct tu_run *run, int code, uint64_t off)
{
	if (run->nfail == run->failcap) {
		size_t cap = run->failcap ? run->failcap * 2 : 16;
		struct tu_fail *n = realloc(run->fail, cap * sizeof *n);
		TU_REQUIRE(n != NULL);
		run->fail = n;
		run->failcap = cap;
	}
	run->fail[run->nfail].code = code;
	run->fail[run->nfail].off = off;
	run->fail[run->nfail].after = run->n;
	run->nfail++;
}

static void run_loop(struct tu_run *run, etl_reader *r, size_t max_calls)
{
	const struct etl_event *ev;
	int st;
	const struct etl_logfile *lf = etl_reader_logfile(r);
	run->lf = *lf;
	run->lf.logger_name = NULL;
	run->lf.log_file_name = NULL;
	if (run->open_rc == ETL_FATAL || run->open_rc == ETL_FAILED) {
		run->end_rc = ETL_FATAL;
		etl_reader_stats(r, &run->stats);
		return;
	}
	for (;;) {
		if (max_calls && run->calls >= max_calls) {
			run->end_rc = TU_LIMIT_HIT;
			break;
		}
		run->calls++;
		st = etl_reader_next(r, &ev);
		if (st == ETL_END || st == ETL_FATAL) {
			run->end_rc = st;
			break;
		}
		if (st == ETL_FAILED) {
			TU_REQUIRE(ev == NULL);
			run_push_fail(run, etl_reader_errcode(r), etl_reader_erroff(r));
			continue;
		}
		TU_CHECK(st == ETL_OK || st == ETL_WARN, "unexpected status %d", st);
		TU_REQUIRE(ev != NULL);
		if (st == ETL_WARN)
			run->nwarn++;
		run_push_ev(run, ev, st);
	}
	etl_reader_stats(r, &run->stats);
}

void tu_run_memory(struct tu_run *run, const void *data, size_t n, int order,
                   size_t max_calls)
{
	run_reset(run);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	run->open_rc = etl_reader_open_memory(r, data, n);
	run_loop(run, r, max_calls);
	etl_reader_free(r);
}

void tu_run_file(struct tu_run *run, const char *path, int order, size_t max_calls)
{
	run_reset(run);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	run->open_rc = etl_reader_open_file(r, path);
	run_loop(run, r, max_calls);
	etl_reader_free(r);
}

void tu_run_fd(struct tu_run *run, int fd, int order, size_t max_calls)
{
	run_reset(run);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	run->open_rc = etl_reader_open_fd(r, fd);
	run_loop(run, r, max_calls);
	etl_reader_free(r);
}

void tu_run_free(struct tu_run *run)
{
	free(run->ev);
	free(run->fail);
	run_reset(run);
}

long tu_run_find(const struct tu_run *run, uint64_t buffer_offset, uint32_t in_buffer)
{
	for (size_t i = 0; i < run->n; i++)
		if (run->ev[i].buffer_offset == buffer_offset &&
		    run->ev[i].offset_in_buffer == in_buffer)
			return (long)i;
	return -1;
}

long tu_run_find_fail(const struct tu_run *run, int code)
{
	for (size_t i = 0; i < run->nfail; i++)
		if (run->fail[i].code == code)
			return (long)i;
	return -1;
}

uint64_t tu_ev_key(uint64_t buffer_offset, uint32_t in_buffer)
{
	return (buffer_offset << 26) | (in_buffer & ((1u << 26) - 1));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t *tu_run_keys(const struct tu_run *run, size_t *n)
{
	uint64_t *k = malloc((run->n ? run->n : 1) * sizeof *k);
	ck_assert_ptr_nonnull(k);
	for (size_t i = 0; i < run->n; i++)
		k[i] = tu_ev_key(run->ev[i].buffer_offset, run->ev[i].offset_in_buffer);
	qsort(k, run->n, sizeof *k, cmp_u64);
	*n = run->n;
	return k;
}

uint64_t tu_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ULL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

void tu_hexdump(const char *title, const uint8_t *p, size_t n, uint64_t base)
{
	fprintf(stderr, "%s\n", title);
	for (size_t i = 0; i < n; i += 16) {
		fprintf(stderr, "  %08llx ", (unsigned long long)(base + i));
		for (size_t j = 0; j < 16; j++) {
			if (i + j < n)
				fprintf(stderr, " %02x", p[i + j]);
			else
				fprintf(stderr, "   ");
		}
		fprintf(stderr, "  ");
		for (size_t j = 0; j < 16 && i + j < n; j++) {
			uint8_t c = p[i + j];
			fputc(c >= 0x20 && c < 0x7F ? c : '.', stderr);
		}
		fputc('\n', stderr);
	}
}

/* ---- comparing events ------------------------------------------------ */

static int tu_guid_eq_(const struct etl_guid *a, const struct etl_guid *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* Name of the first field in which a and b differ, or NULL. full = 0
 * compares only what a writer's caller sets (synthetic events); full = 1
 * every field the reader fills, except logger_id and the positions. */
const char *tu_ev_diff(const struct etl_event *a, const struct etl_event *b, int full)
{
#define F(x) do { if (a->x != b->x) return #x; } while (0)
#define G(x) do { if (!tu_guid_eq_(&a->x, &b->x)) return #x; } while (0)
	F(kind);
	F(processor);
	F(pid);
	F(tid);
	F(id);
	F(timestamp);
	G(provider);
	F(version);
	F(channel);
	F(level);
	F(opcode);
	F(task);
	F(keyword);
	F(header_flags);
	F(event_property);
	F(kernel_time);
	F(user_time);
	G(activity_id);
	F(ext_size);
	F(payload_size);
	if (a->ext_size && memcmp(a->ext, b->ext, a->ext_size) != 0)
		return "ext bytes";
	if (a->payload_size && memcmp(a->payload, b->payload, a->payload_size) != 0)
		return "payload bytes";
	if (!full)
		return NULL;
	F(header_type);
	F(ptr_size);
	F(present);
	F(size);
	F(header_size);
	F(hook_id);
	F(version_word);
	F(trace_flags);
	F(utc);
	F(instance_id);
	F(parent_instance_id);
	G(parent_guid);
	F(reg_handle);
	F(parent_reg_handle);
	F(pebs_index);
	F(pmc_count);
	for (int i = 0; i < 7; i++)
		if (a->pmc[i] != b->pmc[i])
			return "pmc[]";
	F(sequence);
	F(component_id);
	F(ext_count);
	if ((a->provider_name == NULL) != (b->provider_name == NULL) ||
	    (a->provider_name && strcmp(a->provider_name, b->provider_name) != 0))
		return "provider_name";
	return NULL;
#undef F
#undef G
}

/* ---- corpus listing, tools ------------------------------------------- */

static int is_etl_name(const struct dirent *de)
{
	size_t l = strlen(de->d_name);
	return l > 4 && strcmp(de->d_name + l - 4, ".etl") == 0;
}

char **tu_corpus_list(size_t *n)
{
	struct dirent **ents = NULL;
	int k = scandir(tu_corpus_dir(), &ents, is_etl_name, alphasort);
	*n = 0;
	char **names = calloc(k > 0 ? (size_t)k + 1 : 1, sizeof *names);
	for (int i = 0; i < k; i++) {
		if (names)
			names[(*n)++] = strdup(ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return names;
}

void tu_corpus_list_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

char *tu_join_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

void tu_remove_tree(const char *dir)
{
	size_t n = strlen(dir) + 16;
	char *cmd = malloc(n);
	if (cmd) {
		snprintf(cmd, n, "rm -rf '%s'", dir);
		if (system(cmd) == 0) {
			free(cmd);
			return;
		}
		free(cmd);
	}
	fprintf(stderr, "cannot remove %s\n", dir);
}

char *tu_tool_path(const char *name)
{
	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	ck_assert_msg(k > 0, "cannot find the test program: %s", strerror(errno));
	self[k] = 0;
	char *slash = strrchr(self, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = 0;
	size_t n = strlen(self) + strlen(name) + 16;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/../bin/%s", self, name);
	return p;
}

int tu_run_tool(char *const argv[], const char *out_path, const char *err_path)
{
	return tu_run_tool_rss(argv, out_path, err_path, NULL);
}

int tu_run_tool_rss(char *const argv[], const char *out_path, const char *err_path, long *maxrss_kib)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		ck_assert_msg(errno == EINTR, "wait4: %s", strerror(errno));
	if (maxrss_kib)
		*maxrss_kib = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1 - WTERMSIG(st);
}

/* ---- escaping ----------------------------------------------------- */

void tu_escape_sweep(const unsigned char *specials, size_t n_specials, const char *const *seqs,
                     size_t n_seqs, size_t max_len, void (*check)(const char *s, size_t n))
{
	char buf[80];
	ck_assert(max_len < sizeof buf);
	for (size_t n = 0; n <= max_len; n++) {
		memset(buf, 'x', sizeof buf);
		check(buf, n);
		for (size_t at = 0; at < n; at++) {
			for (size_t k = 0; k < n_specials; k++) {
				memset(buf, 'x', sizeof buf);
				buf[at] = (char)specials[k];
				check(buf, n);
			}
			for (size_t k = 0; k < n_seqs; k++) {
				size_t l = strlen(seqs[k]);
				memset(buf, 'y', sizeof buf);
				memcpy(buf + at, seqs[k], l < sizeof buf - at ? l : sizeof buf - at);
				check(buf, n);              /* possibly cut at n */
			}
		}
	}
}
