/*
 * check_reader.c - the buffer walk (doc/format.md §1), time order, clock
 * conversion (§5), time and GUID text forms, compressed / piped inputs,
 * and the logfile header (§2) of one real file field by field.
 *
 * Synthetic files are built with testutil; real ones come from the corpus
 * ($ETL_CORPUS, default ../shared/corpus).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lz4frame.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "etl.h"
#include "testutil.h"

#define HDR ETL_BUFFER_HEADER_SIZE
#define BUF 0x1000u

static const uint8_t PL[] = "0123456789abcdef-payload";

/* A SYSTEM64 record (Process group) with timestamp ts; returns it in r. */
static void sysrec(struct tu_bytes *r, int64_t ts, size_t payload_n)
{
	tu_bytes_init(r);
	tu_rec_system(r, 0x02, 2, 0x0302, 1, 2, ts, 0, 0, NULL, PL, payload_n);
}

/* Adds a SYSTEM64 record to b; returns its in-buffer offset. */
static uint32_t add_sys(struct tu_buffer *b, int64_t ts)
{
	struct tu_bytes r;
	sysrec(&r, ts, 10);
	uint32_t at = tu_buffer_add(b, r.p, r.len, 0);
	tu_bytes_free(&r);
	return at;
}

/* Checks that run holds exactly the header record plus the records
 * at the given absolute offsets (any order), and no failure. */
static void expect_records(const struct tu_run *run, const uint64_t *offs, size_t n, const char *what)
{
	ck_assert_msg(run->open_rc == ETL_OK, "%s: open %d", what, run->open_rc);
	ck_assert_msg(run->end_rc == ETL_END, "%s: end %d", what, run->end_rc);
	ck_assert_msg(run->nfail == 0, "%s: %zu failures, first code %d at 0x%" PRIx64, what, run->nfail,
	              run->nfail ? run->fail[0].code : 0, run->nfail ? run->fail[0].off : 0);
	ck_assert_msg(run->n == n + 1, "%s: %zu events, expected %zu", what, run->n, n + 1);
	ck_assert_uint_eq(run->ev[0].file_offset, HDR);
	for (size_t i = 0; i < n; i++) {
		int found = 0;
		for (size_t k = 0; k < run->n; k++)
			if (run->ev[k].file_offset == offs[i])
				found++;
		ck_assert_msg(found == 1, "%s: record 0x%" PRIx64 " returned %d times", what, offs[i], found);
	}
}

/* ------------------------------------------------------------------ */
/* buffer walk                                                          */
/* ------------------------------------------------------------------ */

/* Buffers of different sizes (odd ones too) chain by their own BufferSize. */
START_TEST(test_chain_by_buffer_size)
{
	static const uint32_t sizes[4] = { 0x2000, 0x0A0B, 0x0300, 0x10000 };
	struct tu_lf lf;
	struct tu_bytes file;
	uint64_t offs[8], boffs[4];
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	for (int i = 0; i < 4; i++) {
		struct tu_buffer b;
		tu_buffer_init(&b, sizes[i], 0, i + 1);
		boffs[i] = file.len;
		offs[2 * i] = file.len + add_sys(&b, 2000000 + 10 * i);
		offs[2 * i + 1] = file.len + add_sys(&b, 2000000 + 10 * i + 1);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
	}
	ck_assert_uint_eq(file.len, BUF + 0x2000 + 0x0A0B + 0x0300 + 0x10000);
	for (int order = 0; order < 2; order++) {
		struct tu_run run;
		tu_run_memory(&run, file.p, file.len, order, 0);
		expect_records(&run, offs, 8, order ? "chain/file" : "chain/time");
		ck_assert_uint_eq(run.stats.buffers, 5);
		for (size_t k = 1; k < run.n; k++) {
			int i = (int)(k - 1) / 2;
			ck_assert_uint_eq(run.ev[k].buffer_offset, boffs[i]);
			ck_assert_uint_eq(run.ev[k].file_offset, offs[k - 1]);
			ck_assert_uint_eq(run.ev[k].offset_in_buffer, offs[k - 1] - boffs[i]);
		}
		tu_run_free(&run);
	}
	/* The buffer walk itself. */
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_OK);
	const struct etl_buffer_info *bi;
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_OK);
	ck_assert_uint_eq(bi->file_offset, 0);
	ck_assert_uint_eq(bi->buffer_size, BUF);
	ck_assert_uint_eq(bi->type, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_OK);
		ck_assert_uint_eq(bi->file_offset, boffs[i]);
		ck_assert_uint_eq(bi->buffer_size, sizes[i]);
		ck_assert_uint_eq(bi->sequence, i + 1);
		ck_assert_uint_eq(bi->saved_offset, HDR + 0x60);
		ck_assert_uint_eq(bi->data_end, HDR + 0x60);
		ck_assert_uint_eq(bi->available, sizes[i]);
		ck_assert_uint_eq(bi->flags, 0x20);
		ck_assert_uint_eq(bi->state, 3);
		ck_assert_ptr_eq(bi->header, file.p + boffs[i]);
	}
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_END);
	etl_reader_free(r);
	tu_bytes_free(&file);
}
END_TEST

/* Valid end = max(SavedOffset, Offset): a relogged header buffer with
 * SavedOffset < Offset still yields the records after the logfile header;
 * a data buffer with Offset < SavedOffset too; bytes past the valid end
 * are not records. */
START_TEST(test_valid_end)
{
	struct tu_lf lf;
	struct tu_bytes file, lrec;
	struct tu_buffer h, b;
	uint64_t offs[5];
	tu_lf_defaults(&lf);
	lf.log_file_mode = 0x00010001;          /* relogged */
	tu_bytes_init(&file);
	tu_bytes_init(&lrec);
	tu_buffer_init(&h, 0x400, 0, 0);
	h.flags = 0x01;
	h.type = 4;
	h.state = 0;
	h.current_offset = 0;
	tu_rec_logfile(&lrec, &lf);
	tu_buffer_add(&h, lrec.p, lrec.len, 0);
	h.saved_offset = HDR + (int64_t)h.recs.len;   /* covers the logfile header only */
	offs[0] = add_sys(&h, 1000001);
	offs[1] = add_sys(&h, 1000002);
	h.offset = HDR + (int64_t)h.recs.len;         /* the true end */
	tu_buffer_emit(&file, &h);
	/* Data buffer: Offset smaller than SavedOffset. */
	tu_buffer_init(&b, BUF, 0, 1);
	offs[2] = file.len + add_sys(&b, 1000003);
	offs[3] = file.len + add_sys(&b, 1000004);
	b.offset = HDR + 0x30;
	b.saved_offset = HDR + (int64_t)b.recs.len;
	/* A complete record past the valid end (not 0xFF fill): not read. */
	uint64_t beyond = file.len + add_sys(&b, 1000005);
	tu_buffer_emit(&file, &b);
	/* Next buffer is still reached. */
	tu_buffer_free(&b);
	tu_buffer_init(&b, BUF, 1, 2);
	offs[4] = file.len + add_sys(&b, 1000006);
	tu_buffer_emit(&file, &b);
	/* On disk: SavedOffset ends at the first extra record, Offset after
	 * both. */
	ck_assert_uint_eq(tu_le32(file.p + 4), offs[0]);
	ck_assert_uint_eq(tu_le32(file.p + 0x30), offs[1] + 0x30);
	for (int order = 0; order < 2; order++) {
		struct tu_run run;
		tu_run_memory(&run, file.p, file.len, order, 0);
		expect_records(&run, offs, 5, "valid end");
		for (size_t k = 0; k < run.n; k++)
			ck_assert_uint_ne(run.ev[k].file_offset, beyond);
		ck_assert_uint_eq(run.lf.log_file_mode, 0x00010001);
		tu_run_free(&run);
	}
	tu_buffer_free(&h);
	tu_buffer_free(&b);
	tu_bytes_free(&lrec);
	tu_bytes_free(&file);
}
END_TEST

/* A 0xFFFFFFFF marker ends a buffer's records even inside the valid end. */
START_TEST(test_end_marker)
{
	struct tu_lf lf;
	struct tu_bytes file;
	struct tu_buffer b;
	uint64_t offs[2];
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	tu_buffer_init(&b, BUF, 0, 1);
	offs[0] = file.len + add_sys(&b, 1000001);
	tu_putfill(&b.recs, 0xFF, 8);
	uint64_t hidden = file.len + add_sys(&b, 1000002);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	tu_buffer_init(&b, BUF, 0, 2);
	offs[1] = file.len + add_sys(&b, 1000003);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	/* The hidden record is inside SavedOffset. */
	ck_assert_uint_gt(tu_le32(file.p + BUF + 4), hidden - BUF);
	for (int order = 0; order < 2; order++) {
		struct tu_run run;
		tu_run_memory(&run, file.p, file.len, order, 0);
		expect_records(&run, offs, 2, "end marker");
		for (size_t k = 0; k < run.n; k++)
			ck_assert_uint_ne(run.ev[k].file_offset, hidden);
		tu_run_free(&run);
	}
	tu_bytes_free(&file);
}
END_TEST

/* A buffer filled exactly to its BufferSize (no 0xFF at all), with an
 * aligned and with an unaligned last record. */
START_TEST(test_buffer_filled_to_end)
{
	for (int unaligned = 0; unaligned < 2; unaligned++) {
		struct tu_lf lf;
		struct tu_bytes file, r;
		struct tu_buffer b;
		uint64_t offs[4];
		tu_lf_defaults(&lf);
		tu_bytes_init(&file);
		tu_file_header(&file, &lf, 0);
		tu_buffer_init(&b, 0, 0, 1);
		offs[0] = add_sys(&b, 1000001);
		offs[1] = add_sys(&b, 1000002);
		sysrec(&r, 1000003, unaligned ? 9 : 8);  /* 0x29 or 0x28 bytes */
		offs[2] = tu_buffer_add(&b, r.p, r.len, 0);
		b.buffer_size = (uint32_t)(offs[2] + r.len);
		b.saved_offset = b.buffer_size;
		for (int i = 0; i < 3; i++)
			offs[i] += file.len;
		tu_buffer_emit(&file, &b);
		ck_assert_uint_eq(file.len, offs[2] + r.len);       /* no fill byte */
		tu_buffer_free(&b);
		tu_bytes_free(&r);
		tu_buffer_init(&b, BUF, 0, 2);
		offs[3] = file.len + add_sys(&b, 1000004);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
		for (int order = 0; order < 2; order++) {
			struct tu_run run;
			tu_run_memory(&run, file.p, file.len, order, 0);
			expect_records(&run, offs, 4, "filled to end");
			tu_run_free(&run);
		}
		tu_bytes_free(&file);
	}
}
END_TEST

/* A file cut short inside its last buffer: the complete records before the
 * cut are returned, then one ETL_FAILED with ETL_E_TRUNCATED naming the
 * buffer. */
START_TEST(test_truncated_last_buffer)
{
	struct tu_lf lf;
	struct tu_bytes file;
	struct tu_buffer b;
	uint64_t offs[8];
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	tu_buffer_init(&b, BUF, 0, 1);
	offs[0] = file.len + add_sys(&b, 1000001);
	offs[1] = file.len + add_sys(&b, 1000002);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	uint64_t last = file.len;
	tu_buffer_init(&b, BUF, 0, 2);
	for (int i = 0; i < 5; i++)
		offs[2 + i] = file.len + add_sys(&b, 1000003 + i);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	/* Cuts: inside record 3 of the last buffer; exactly after record 2;
	 * in the 0xFF fill after all records; inside the buffer header. */
	static const struct {
		int64_t cut_from_last;   /* bytes of the last buffer kept */
		int complete;            /* records of the last buffer returned */
		int64_t fail_off_rel;    /* failure offset relative to `last` */
	} cuts[] = {
		{ HDR + 2 * 0x30 + 0x11, 2, 0 },
		{ HDR + 2 * 0x30, 2, 0 },
		{ HDR + 5 * 0x30 + 0x100, 5, 0 },
		{ HDR + 5 * 0x30, 5, 0 },
		{ 0x20, 0, 0 },
		{ 1, 0, 0 },
	};
	for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
		size_t len = (size_t)(last + (uint64_t)cuts[c].cut_from_last);
		for (int order = 0; order < 2; order++) {
			struct tu_run run;
			tu_run_memory(&run, file.p, len, order, 0);
			ck_assert_int_eq(run.open_rc, ETL_OK);
			ck_assert_int_eq(run.end_rc, ETL_END);
			ck_assert_msg(run.n == 3 + (size_t)cuts[c].complete, "cut %zu order %d: %zu events", c,
			              order, run.n);
			for (int i = 0; i < 2 + cuts[c].complete; i++)
				ck_assert_int_ge(tu_run_find(&run, offs[i] < last ? BUF : last,
				                             (uint32_t)(offs[i] - (offs[i] < last ? BUF : last))), 0);
			ck_assert_msg(run.nfail == 1, "cut %zu order %d: %zu failures", c, order, run.nfail);
			ck_assert_int_eq(run.fail[0].code, ETL_E_TRUNCATED);
			ck_assert_uint_eq(run.fail[0].off, last + (uint64_t)cuts[c].fail_off_rel);
			ck_assert_uint_eq(run.stats.errors, 1);
			/* In file order the failure comes after every record. */
			if (order == ETL_ORDER_FILE)
				ck_assert_uint_eq(run.fail[0].after, run.n);
			tu_run_free(&run);
		}
	}
	/* The buffer walk reports the cut buffer too. */
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, file.p, (size_t)last + HDR + 0x40), ETL_OK);
	const struct etl_buffer_info *bi;
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_OK);
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_OK);
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_FAILED);
	ck_assert_ptr_nonnull(bi);
	ck_assert_uint_eq(bi->file_offset, last);
	ck_assert_uint_eq(bi->available, HDR + 0x40);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_TRUNCATED);
	ck_assert_uint_eq(etl_reader_erroff(r), last);
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_END);
	etl_reader_free(r);
	tu_bytes_free(&file);
}
END_TEST

/* BufferSize 0 or below 0x48 stops the walk with ETL_E_BAD_SIZE naming
 * that buffer's offset; nothing after it is read. */
START_TEST(test_bad_buffer_size_stops)
{
	static const uint32_t bad_sizes[] = { 0, 1, 0x20, 0x47 };
	for (size_t k = 0; k < sizeof bad_sizes / sizeof bad_sizes[0]; k++) {
		struct tu_lf lf;
		struct tu_bytes file;
		struct tu_buffer b;
		uint64_t offs[1];
		tu_lf_defaults(&lf);
		tu_bytes_init(&file);
		tu_file_header(&file, &lf, 0);
		tu_buffer_init(&b, BUF, 0, 1);
		offs[0] = file.len + add_sys(&b, 1000001);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
		uint64_t bad = file.len;
		tu_buffer_init(&b, BUF, 0, 2);
		add_sys(&b, 1000002);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
		tu_set32(&file, bad, bad_sizes[k]);
		/* A valid buffer after it, at both possible strides. */
		tu_buffer_init(&b, BUF, 0, 3);
		add_sys(&b, 1000003);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
		for (int order = 0; order < 2; order++) {
			struct tu_run run;
			tu_run_memory(&run, file.p, file.len, order, 0);
			ck_assert_int_eq(run.end_rc, ETL_END);
			ck_assert_uint_eq(run.n, 2);
			ck_assert_uint_eq(run.ev[1].file_offset, offs[0]);
			ck_assert_uint_eq(run.nfail, 1);
			ck_assert_int_eq(run.fail[0].code, ETL_E_BAD_SIZE);
			ck_assert_uint_eq(run.fail[0].off, bad);
			ck_assert_uint_eq(run.stats.buffers, 3);
			tu_run_free(&run);
		}
		tu_bytes_free(&file);
	}
}
END_TEST

/* Processor indices: up to ETL_MAX_PROCESSORS - 1 a buffer is read (past
 * the header's processor count too: processors can be added while a
 * session runs); at ETL_MAX_PROCESSORS and beyond it is damage, skipped
 * and reported with its offset, and the rest of the file is still read. */
START_TEST(test_processor_limit)
{
	struct tu_lf lf;
	struct tu_bytes file;
	struct tu_buffer b;
	uint64_t boff[3], roff[3];
	const uint16_t procs[3] = { ETL_MAX_PROCESSORS - 1, ETL_MAX_PROCESSORS, 0xFFFF };
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	for (int i = 0; i < 3; i++) {
		tu_buffer_init(&b, BUF, procs[i], 1);
		b.flags = 0x20;
		boff[i] = file.len;
		roff[i] = file.len + add_sys(&b, 1000001 + i);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
	}
	for (int order = 0; order < 2; order++) {
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_OK);
		const struct etl_event *ev;
		int st, seen = 0, fails = 0;
		while ((st = etl_reader_next(r, &ev)) != ETL_END) {
			ck_assert_int_ne(st, ETL_FATAL);
			if (st == ETL_FAILED) {
				ck_assert_int_eq(etl_reader_errcode(r), ETL_E_BAD_VALUE);
				ck_assert_uint_eq(etl_reader_erroff(r), boff[1 + fails]);
				ck_assert_ptr_nonnull(strstr(etl_reader_errmsg(r), "processor index is beyond any Windows machine"));
				fails++;
				continue;
			}
			ck_assert(ev->file_offset != roff[1] && ev->file_offset != roff[2]);
			if (ev->file_offset == roff[0]) {
				ck_assert_uint_eq(ev->processor, ETL_MAX_PROCESSORS - 1);
				seen++;
			}
		}
		ck_assert_int_eq(seen, 1);
		ck_assert_int_eq(fails, 2);
		etl_reader_free(r);
	}
	tu_bytes_free(&file);
}
END_TEST

/* Some other kind of file: the reader says so first, in plain words, then
 * the detail of what it found at offset 0. */
START_TEST(test_not_an_etl_file)
{
	static const char text[] =
		"# libetl\n\nRead, write and decode Windows ETW Event Trace Log (`.etl`) files on any\n"
		"operating system, and produce them from your own programs: a C library,\n";
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, text, sizeof text - 1), ETL_WARN);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_BAD_MAGIC);
	ck_assert_uint_eq(etl_reader_erroff(r), 0);
	const char *m = etl_reader_errmsg(r);
	ck_assert_msg(strncmp(m, "The input is not an ETL file: there is no trace buffer header at offset 0 (", 75) == 0, "%s", m);
	ck_assert_ptr_nonnull(strstr(m, "BufferSize is larger than any ETW buffer"));
	ck_assert(!etl_reader_logfile(r)->present);
	etl_reader_free(r);
}
END_TEST

/* ProcessorIndex (16 bits) with BufferFlag 0x20, else ProcessorNumber (the
 * low byte); LoggerId from bytes 0x2A-0x2B. */
START_TEST(test_processor_index)
{
	struct tu_lf lf;
	struct tu_bytes file;
	struct tu_buffer b;
	uint64_t offs[2];
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	tu_buffer_init(&b, BUF, 0x0102, 1);
	b.flags = 0x20;
	b.logger_id = 0x3D;
	offs[0] = file.len + add_sys(&b, 1000001);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	tu_buffer_init(&b, BUF, 0x0102, 2);
	b.flags = 0x0001;
	b.logger_id = 0x28;
	offs[1] = file.len + add_sys(&b, 1000002);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	for (int order = 0; order < 2; order++) {
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_OK);
		const struct etl_event *ev;
		int seen = 0;
		while (etl_reader_next(r, &ev) == ETL_OK) {
			const struct etl_buffer_info *bi = etl_reader_current_buffer(r);
			ck_assert_ptr_nonnull(bi);
			ck_assert_uint_eq(bi->file_offset, ev->buffer_offset);
			ck_assert_uint_eq(bi->processor, ev->processor);
			if (ev->file_offset == offs[0]) {
				ck_assert_uint_eq(ev->processor, 0x0102);
				ck_assert_uint_eq(ev->logger_id, 0x3D);
				seen |= 1;
			} else if (ev->file_offset == offs[1]) {
				ck_assert_uint_eq(ev->processor, 0x02);
				ck_assert_uint_eq(ev->logger_id, 0x28);
				seen |= 2;
			} else {
				ck_assert_uint_eq(ev->processor, 0);
			}
		}
		ck_assert_int_eq(seen, 3);
		etl_reader_free(r);
	}
	tu_bytes_free(&file);
}
END_TEST

/* Two processors' buffers stored in reverse sequence order: time order
 * merges them by timestamp, file order keeps the stored order. */
START_TEST(test_time_order_merge)
{
	static const struct {
		uint16_t proc;
		int64_t seq;
		int64_t ts[3];
	} bufs[4] = {
		{ 1, 4, { 45, 55, 0 } },
		{ 0, 3, { 40, 50, 0 } },
		{ 1, 2, { 15, 25, 35 } },
		{ 0, 1, { 10, 20, 30 } },
	};
	struct tu_lf lf;
	struct tu_bytes file;
	tu_lf_defaults(&lf);
	lf.header_ts = 5;
	lf.nproc = 2;
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	uint64_t file_order_offs[10];
	size_t nf = 0;
	for (int i = 0; i < 4; i++) {
		struct tu_buffer b;
		tu_buffer_init(&b, BUF, bufs[i].proc, bufs[i].seq);
		for (int k = 0; k < 3 && bufs[i].ts[k]; k++)
			file_order_offs[nf++] = file.len + add_sys(&b, bufs[i].ts[k]);
		tu_buffer_emit(&file, &b);
		tu_buffer_free(&b);
	}
	ck_assert_uint_eq(nf, 10);
	struct tu_run run;
	tu_run_memory(&run, file.p, file.len, ETL_ORDER_TIME, 0);
	ck_assert_uint_eq(run.n, 11);
	ck_assert_uint_eq(run.nfail, 0);
	ck_assert_int_eq(run.ev[0].timestamp, 5);
	for (size_t k = 1; k < run.n; k++) {
		ck_assert_int_eq(run.ev[k].timestamp, 5 + 5 * (int64_t)k);
		ck_assert_uint_eq(run.ev[k].processor, (k % 2) ? 0 : 1);
	}
	tu_run_free(&run);
	tu_run_memory(&run, file.p, file.len, ETL_ORDER_FILE, 0);
	ck_assert_uint_eq(run.n, 11);
	for (size_t k = 1; k < run.n; k++)
		ck_assert_uint_eq(run.ev[k].file_offset, file_order_offs[k - 1]);
	tu_run_free(&run);
	tu_bytes_free(&file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* clocks                                                               */
/* ------------------------------------------------------------------ */

/* Independent expectation: StartTime + (T - T0) * mul / div, computed by
 * splitting quotient and remainder (no 128-bit arithmetic; exact while
 * the result fits). C division truncates toward zero in both parts, like
 * the single division would. */
static int64_t expect_utc(int64_t start, int64_t t, int64_t t0, int64_t mul, int64_t div)
{
	int64_t d = t - t0;
	int64_t q = d / div, rem = d % div;
	return start + q * mul + rem * mul / div;
}

/* A file with the given clock whose data buffer holds records at the
 * given timestamps; returns an open reader (file order) on it. */
static etl_reader *clock_file(struct tu_bytes *file, const struct tu_lf *lf, const int64_t *ts,
                              size_t n)
{
	struct tu_buffer b;
	tu_bytes_init(file);
	tu_file_header(file, lf, 0);
	tu_buffer_init(&b, BUF, 0, 1);
	for (size_t i = 0; i < n; i++)
		add_sys(&b, ts[i]);
	tu_buffer_emit(file, &b);
	tu_buffer_free(&b);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, file->p, file->len), ETL_OK);
	return r;
}

START_TEST(test_clock_qpc_overflow)
{
	struct tu_lf lf;
	struct tu_bytes file;
	tu_lf_defaults(&lf);
	lf.perf_freq = 3117777;
	lf.clock_type = ETL_CLOCK_QPC;
	lf.header_ts = 0x0000012345678901LL;
	/* 2000-01-01T00:00:00Z */
	ck_assert_int_eq(etl_filetime_parse("2000-01-01T00:00:00Z", &lf.start_time), ETL_OK);
	ck_assert_int_eq(lf.start_time, 125911584000000000LL);
	const int64_t year = 3117777LL * 86400 * 365;
	const int64_t ts[6] = {
		lf.header_ts,                                 /* T0 -> StartTime   */
		lf.header_ts + 3117777,                       /* +1 s exactly      */
		lf.header_ts + 1,                             /* +3.2 units (3)    */
		lf.header_ts + 50 * year + 1234567,           /* d*1e7 ~ 4.9e22    */
		lf.header_ts + 200 * year + 3117776,          /* still fits a FILETIME */
		lf.header_ts - 7 * 3117777 - 5,               /* before T0         */
	};
	/* The plain 64-bit product would overflow for these. */
	ck_assert(ts[3] - lf.header_ts > INT64_MAX / 10000000);
	etl_reader *r = clock_file(&file, &lf, ts, 6);
	const struct etl_event *ev;
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	ck_assert_int_eq(ev->utc, lf.start_time);
	for (int i = 0; i < 6; i++) {
		int64_t want = expect_utc(lf.start_time, ts[i], lf.header_ts, 10000000, 3117777);
		ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
		ck_assert_int_eq(ev->timestamp, ts[i]);
		ck_assert(ev->present & ETL_EVF_UTC);
		ck_assert_msg(ev->utc == want, "ts[%d]: utc %" PRId64 ", expected %" PRId64, i, ev->utc, want);
		int64_t ft = 0;
		ck_assert_int_eq(etl_reader_time_to_utc(r, ts[i], &ft), ETL_OK);
		ck_assert_int_eq(ft, want);
	}
	/* Spot values. */
	int64_t ft;
	ck_assert_int_eq(etl_reader_time_to_utc(r, ts[1], &ft), ETL_OK);
	ck_assert_int_eq(ft, lf.start_time + 10000000);
	ck_assert_int_eq(etl_reader_time_to_utc(r, ts[2], &ft), ETL_OK);
	ck_assert_int_eq(ft, lf.start_time + 3);
	ck_assert_int_eq(etl_reader_time_to_utc(r, ts[5], &ft), ETL_OK);
	ck_assert_int_eq(ft, lf.start_time - 70000000 - 16);
	char buf[ETL_TIME_STRLEN];
	etl_reader_time_to_utc(r, ts[3], &ft);
	etl_filetime_format(ft, buf, sizeof buf);
	ck_assert_str_eq(buf, "2049-12-19T00:00:00.3959766Z");
	/* A result beyond any FILETIME is refused, not wrapped. */
	ck_assert_int_eq(etl_reader_time_to_utc(r, INT64_MAX, &ft), ETL_FAILED);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_END);
	etl_reader_free(r);
	tu_bytes_free(&file);
}
END_TEST

START_TEST(test_clock_other_types)
{
	static const struct {
		uint32_t clock;
		int64_t freq;
		uint32_t mhz;
		int64_t mul, div;       /* 0/0: no conversion */
	} cases[] = {
		{ ETL_CLOCK_SYSTEMTIME, 10000000, 2808, 1, 1 },
		{ ETL_CLOCK_CPUCYCLE, 10000000, 2808, 10, 2808 },
		{ ETL_CLOCK_CPUCYCLE, 10000000, 0, 0, 0 },
		{ ETL_CLOCK_QPC, 0, 2808, 0, 0 },
		{ ETL_CLOCK_RAW, 3579545, 2808, 10000000, 3579545 },   /* RAW: QPC if a freq is known */
		{ ETL_CLOCK_RAW, 0, 2808, 1, 1 },                        /* else system time */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct tu_lf lf;
		struct tu_bytes file;
		tu_lf_defaults(&lf);
		lf.clock_type = cases[c].clock;
		lf.perf_freq = cases[c].freq;
		lf.cpu_mhz = cases[c].mhz;
		lf.header_ts = cases[c].clock == ETL_CLOCK_SYSTEMTIME ? lf.start_time : 987654321;
		const int64_t ts[3] = { lf.header_ts + 28080000001LL, lf.header_ts + 1, lf.header_ts - 99999 };
		etl_reader *r = clock_file(&file, &lf, ts, 3);
		const struct etl_event *ev;
		ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
		for (int i = 0; i < 3; i++) {
			ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
			int64_t ft = 0;
			int rc = etl_reader_time_to_utc(r, ts[i], &ft);
			if (cases[c].div == 0) {
				ck_assert_msg(rc == ETL_FAILED, "case %zu: converted without a rate", c);
				ck_assert(!(ev->present & ETL_EVF_UTC));
				continue;
			}
			int64_t want = expect_utc(lf.start_time, ts[i], lf.header_ts, cases[c].mul, cases[c].div);
			ck_assert_int_eq(rc, ETL_OK);
			ck_assert_msg(ft == want, "case %zu ts %d: %" PRId64 " vs %" PRId64, c, i, ft, want);
			ck_assert(ev->present & ETL_EVF_UTC);
			ck_assert_int_eq(ev->utc, want);
		}
		etl_reader_free(r);
		tu_bytes_free(&file);
	}
	/* CPU cycles, by hand: 2808 MHz, 28 080 000 001 cycles = 10 s + 0.36 ns. */
	ck_assert_int_eq(expect_utc(0, 28080000001LL, 0, 10, 2808), 100000000);
	/* No logfile header: no anchor. */
	struct tu_bytes file;
	struct tu_buffer b;
	tu_bytes_init(&file);
	tu_buffer_init(&b, BUF, 0, 1);
	add_sys(&b, 5);
	tu_buffer_emit(&file, &b);
	tu_buffer_free(&b);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_WARN);
	ck_assert_int_eq(etl_reader_logfile(r)->present, 0);
	int64_t ft;
	ck_assert_int_eq(etl_reader_time_to_utc(r, 5, &ft), ETL_FAILED);
	const struct etl_event *ev;
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	ck_assert_int_eq(ev->timestamp, 5);
	ck_assert(!(ev->present & ETL_EVF_UTC));
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_END);
	etl_reader_free(r);
	tu_bytes_free(&file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* FILETIME and GUID text                                               */
/* ------------------------------------------------------------------ */

START_TEST(test_filetime_text)
{
	static const struct {
		const char *text;
		int64_t ft;
	} fixed[] = {
		{ "1601-01-01T00:00:00.0000000Z", 0 },
		{ "1601-01-01T00:00:00.0000001Z", 1 },
		{ "1970-01-01T00:00:00.0000000Z", 116444736000000000LL },
		{ "2000-02-29T12:00:00.0000000Z", 125962992000000000LL },
		{ "2020-02-17T12:48:30.4203138Z", 132264173104203138LL },
		{ "9999-12-31T23:59:59.9999999Z", 2650467743999999999LL },
	};
	char buf[ETL_TIME_STRLEN];
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		ck_assert_str_eq(etl_filetime_format(fixed[i].ft, buf, sizeof buf), fixed[i].text);
		int64_t ft = -1;
		ck_assert_int_eq(etl_filetime_parse(fixed[i].text, &ft), ETL_OK);
		ck_assert_int_eq(ft, fixed[i].ft);
	}
	/* Shorter and alternative forms. */
	static const struct {
		const char *text;
		int64_t ft;
	} forms[] = {
		{ "2020-02-17", 132263712000000000LL },
		{ "2020-02-17T12:48", 132264172800000000LL },
		{ "2020-02-17 12:48:30", 132264173100000000LL },
		{ "2020-02-17 12:48:30Z", 132264173100000000LL },
		{ "2020-02-17t12:48:30z", 132264173100000000LL },
		{ "2020-02-17T12:48:30.4Z", 132264173104000000LL },
		{ "2020-02-17T12:48:30.42031Z", 132264173104203100LL },
		{ "2020-02-17T12:48:30.420313899Z", 132264173104203138LL },  /* extra digits cut */
		{ "1601-01-01", 0 },
		{ "9999-12-31T23:59:59.9999999", 2650467743999999999LL },
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		int64_t ft = -1;
		ck_assert_msg(etl_filetime_parse(forms[i].text, &ft) == ETL_OK, "%s", forms[i].text);
		ck_assert_msg(ft == forms[i].ft, "%s: %" PRId64, forms[i].text, ft);
	}
	static const char *const bad[] = {
		"", "2020", "2020-2-17", "2020-02-1", "2020-13-01", "2020-00-10", "2020-02-00",
		"2020-02-32", "2020-02-17T24:00", "2020-02-17T12:60", "2020-02-17T12", "2020-02-17T12:48:3",
		"2020-02-17T12:48:30.", "2020-02-17T12:48:30.5ZZ", "2020-02-17X", "x020-02-17",
		"2020-02-17T12:48:30+01:00", "2020-02-30", "2021-02-29", "1900-02-29", "2020-04-31",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int64_t ft;
		ck_assert_msg(etl_filetime_parse(bad[i], &ft) == ETL_FAILED, "accepted \"%s\"", bad[i]);
	}
	/* Leap days exist in leap years only (2000 is one, 1900 is not). */
	int64_t leap;
	ck_assert_int_eq(etl_filetime_parse("2000-02-29", &leap), ETL_OK);
	ck_assert_int_eq(etl_filetime_parse("2024-02-29T23:59:59Z", &leap), ETL_OK);
	/* Round trips over the whole range, deterministic. */
	uint64_t seed = 0x5EED;
	for (int i = 0; i < 20000; i++) {
		int64_t ft = (int64_t)(tu_rand(&seed) % 2650467744000000000ULL);
		int64_t back = -1;
		etl_filetime_format(ft, buf, sizeof buf);
		ck_assert_uint_eq(strlen(buf), 28);
		ck_assert_int_eq(etl_filetime_parse(buf, &back), ETL_OK);
		ck_assert_msg(back == ft, "%" PRId64 " -> %s -> %" PRId64, ft, buf, back);
	}
}
END_TEST

START_TEST(test_guid_text)
{
	struct etl_guid g;
	char buf[ETL_GUID_STRLEN];
	ck_assert_int_eq(etl_guid_parse("68fdd900-4a3e-11d1-84f4-0000f80464e3", &g), ETL_OK);
	ck_assert_uint_eq(g.data1, 0x68fdd900);
	ck_assert_uint_eq(g.data2, 0x4a3e);
	ck_assert_uint_eq(g.data3, 0x11d1);
	ck_assert_mem_eq(g.data4, "\x84\xf4\x00\x00\xf8\x04\x64\xe3", 8);
	ck_assert_str_eq(etl_guid_format(&g, buf), "68fdd900-4a3e-11d1-84f4-0000f80464e3");
	ck_assert_str_eq(etl_known_provider_name(&g), "EventTrace");
	struct etl_guid h;
	ck_assert_int_eq(etl_guid_parse("{68FDD900-4A3E-11D1-84F4-0000F80464E3}", &h), ETL_OK);
	ck_assert(etl_guid_equal(&g, &h));
	ck_assert(!etl_guid_is_null(&g));
	ck_assert_int_eq(etl_guid_parse("00000000-0000-0000-0000-000000000000", &h), ETL_OK);
	ck_assert(etl_guid_is_null(&h));
	ck_assert(!etl_guid_equal(&g, &h));
	/* The on-disk byte order of doc/format.md §0. */
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putguid(&b, &g);
	ck_assert_mem_eq(b.p, "\x00\xd9\xfd\x68\x3e\x4a\xd1\x11\x84\xf4\x00\x00\xf8\x04\x64\xe3", 16);
	tu_bytes_free(&b);
	static const char *const bad[] = {
		"", "68fdd900-4a3e-11d1-84f4-0000f80464e", "68fdd900-4a3e-11d1-84f4-0000f80464e3a",
		"68fdd900x4a3e-11d1-84f4-0000f80464e3", "68fdd900-4a3e-11d1-84f40000f80464e3-",
		"g8fdd900-4a3e-11d1-84f4-0000f80464e3", "68fdd900-4a3e-11d1-84f4-0000f80464eg",
		"{68fdd900-4a3e-11d1-84f4-0000f80464e3", "68fdd900-4a3e-11d1-84f4-0000f80464e3}",
		"(68fdd900-4a3e-11d1-84f4-0000f80464e3)", "68fdd900-4a3e-11d1-8-4f4000f80464e3",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(etl_guid_parse(bad[i], &h) == ETL_FAILED, "accepted \"%s\"", bad[i]);
	uint64_t seed = 42;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = tu_rand(&seed), c = tu_rand(&seed);
		g.data1 = (uint32_t)a;
		g.data2 = (uint16_t)(a >> 32);
		g.data3 = (uint16_t)(a >> 48);
		memcpy(g.data4, &c, 8);
		etl_guid_format(&g, buf);
		ck_assert_uint_eq(strlen(buf), 36);
		ck_assert_int_eq(etl_guid_parse(buf, &h), ETL_OK);
		ck_assert(etl_guid_equal(&g, &h));
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* inputs: memory, gzip, LZ4 frame, pipes                               */
/* ------------------------------------------------------------------ */

static const char *const input_files[] = {
	"win7-httpservice-manifest.etl",                 /* uncompressed buffers */
	"eventsource-selfdescribing-compressed.etl",     /* LZ77 buffers inside  */
};

static void same_run(const struct tu_run *a, const struct tu_run *b, const char *what)
{
	ck_assert_msg(b->open_rc == ETL_OK, "%s: open %d", what, b->open_rc);
	ck_assert_msg(b->end_rc == ETL_END, "%s: end %d", what, b->end_rc);
	ck_assert_msg(b->nfail == 0, "%s: %zu failures", what, b->nfail);
	ck_assert_msg(a->n == b->n, "%s: %zu vs %zu events", what, a->n, b->n);
	ck_assert_uint_eq(a->stats.buffers, b->stats.buffers);
	ck_assert_uint_eq(a->stats.compressed_buffers, b->stats.compressed_buffers);
	for (size_t i = 0; i < a->n; i++) {
		ck_assert_msg(a->ev[i].file_offset == b->ev[i].file_offset &&
		              a->ev[i].offset_in_buffer == b->ev[i].offset_in_buffer,
		              "%s: event %zu differs", what, i);
		ck_assert_int_eq(a->ev[i].timestamp, b->ev[i].timestamp);
		ck_assert_int_eq(a->ev[i].utc, b->ev[i].utc);
		ck_assert_int_eq(a->ev[i].kind, b->ev[i].kind);
	}
	ck_assert_int_eq(a->lf.start_time, b->lf.start_time);
	ck_assert_int_eq(a->lf.buffers_written, b->lf.buffers_written);
}

static char *temp_path(const char *suffix)
{
	char *p = malloc(256);
	ck_assert_ptr_nonnull(p);
	snprintf(p, 256, "/tmp/libetl-check-%ld-XXXXXX", (long)getpid());
	int fd = mkstemp(p);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(p);
	strcat(p, suffix);
	return p;
}

static uint8_t *gzip_bytes(const uint8_t *p, size_t n, size_t *out_n, char **path_out)
{
	char *path = temp_path(".etl.gz");
	gzFile gz = gzopen(path, "wb9");
	ck_assert_ptr_nonnull(gz);
	/* In pieces, so the output has several deflate blocks. */
	for (size_t off = 0; off < n;) {
		size_t k = n - off < 70001 ? n - off : 70001;
		ck_assert_int_eq(gzwrite(gz, p + off, (unsigned)k), (int)k);
		off += k;
	}
	ck_assert_int_eq(gzclose(gz), Z_OK);
	uint8_t *bytes = tu_load_file(path, out_n);
	*path_out = path;
	return bytes;
}

static uint8_t *lz4_bytes(const uint8_t *p, size_t n, size_t *out_n, char **path_out)
{
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof prefs);
	prefs.frameInfo.blockSizeID = LZ4F_max64KB;
	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	size_t cap = LZ4F_compressFrameBound(n, &prefs);
	uint8_t *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	size_t k = LZ4F_compressFrame(out, cap, p, n, &prefs);
	ck_assert_msg(!LZ4F_isError(k), "LZ4F: %s", LZ4F_getErrorName(k));
	ck_assert_uint_eq(tu_le32(out), 0x184D2204u);
	char *path = temp_path(".etl.lz4");
	tu_write_file(path, out, k);
	*out_n = k;
	*path_out = path;
	return out;
}

START_TEST(test_compressed_inputs)
{
	TU_NEED_CORPUS();
	char *src = tu_corpus_path(input_files[_i]);
	size_t n;
	uint8_t *plain = tu_load_file(src, &n);
	for (int codec = 0; codec < 2; codec++) {
		size_t cn;
		char *cpath;
		uint8_t *comp = codec ? lz4_bytes(plain, n, &cn, &cpath) : gzip_bytes(plain, n, &cn, &cpath);
		ck_assert_uint_lt(cn, n);
		for (int order = 0; order < 2; order++) {
			struct tu_run ref, got;
			char what[128];
			tu_run_file(&ref, src, order, 0);
			ck_assert_uint_gt(ref.n, 2);
			ck_assert_uint_eq(ref.nfail, 0);
			snprintf(what, sizeof what, "%s %s file order %d", input_files[_i], codec ? "lz4" : "gzip", order);
			tu_run_file(&got, cpath, order, 0);
			same_run(&ref, &got, what);
			tu_run_free(&got);
			snprintf(what, sizeof what, "%s %s memory order %d", input_files[_i], codec ? "lz4" : "gzip", order);
			tu_run_memory(&got, comp, cn, order, 0);
			same_run(&ref, &got, what);
			tu_run_free(&got);
			snprintf(what, sizeof what, "%s plain memory order %d", input_files[_i], order);
			tu_run_memory(&got, plain, n, order, 0);
			same_run(&ref, &got, what);
			tu_run_free(&got);
			tu_run_free(&ref);
		}
		/* A damaged compressed wrapper: cut in half. The records that
		 * came out are still returned, the loss is reported, no crash. */
		for (int order = 0; order < 2; order++) {
			struct tu_run cut;
			tu_run_memory(&cut, comp, cn / 2, order, 0);
			if (cut.open_rc == ETL_FATAL) {
				/* The 7 KB file is one LZ4 block: half a block decodes
				 * to nothing at all, an empty input. */
				ck_assert(codec == 1 && n < 65536);
				tu_run_free(&cut);
				continue;
			}
			ck_assert_int_eq(cut.open_rc, ETL_OK);
			ck_assert_int_eq(cut.end_rc, ETL_END);
			ck_assert_uint_gt(cut.n, 1);
			ck_assert_msg(tu_run_find_fail(&cut, ETL_E_DECOMPRESS) >= 0,
			              "%s codec %d order %d cut: %zu events, %zu failures, none DECOMPRESS",
			              input_files[_i], codec, order, cut.n, cut.nfail);
			tu_run_free(&cut);
		}
		unlink(cpath);
		free(cpath);
		free(comp);
	}
	free(plain);
	free(src);
}
END_TEST

/* Writes data to fd in small pieces from a child process. */
static pid_t spawn_writer(int fd, const uint8_t *data, size_t n, int other_fd)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(other_fd);
		signal(SIGPIPE, SIG_DFL);
		size_t off = 0;
		while (off < n) {
			size_t k = n - off < 1531 ? n - off : 1531;
			ssize_t w = write(fd, data + off, k);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		close(fd);
		_exit(0);
	}
	close(fd);
	return pid;
}

static void reap(pid_t pid, const char *what)
{
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: writer status 0x%x", what, status);
}

START_TEST(test_pipe_input)
{
	TU_NEED_CORPUS();
	char *src = tu_corpus_path(input_files[_i]);
	size_t n;
	uint8_t *plain = tu_load_file(src, &n);
	char *gzpath;
	size_t gzn;
	uint8_t *gz = gzip_bytes(plain, n, &gzn, &gzpath);
	for (int order = 0; order < 2; order++) {
		struct tu_run ref, got;
		char what[128];
		tu_run_file(&ref, src, order, 0);
		for (int variant = 0; variant < 3; variant++) {
			int fds[2];
			ck_assert_int_eq(pipe(fds), 0);
			pid_t pid = variant == 1 ? spawn_writer(fds[1], gz, gzn, fds[0])
			                         : spawn_writer(fds[1], plain, n, fds[0]);
			snprintf(what, sizeof what, "%s pipe variant %d order %d", input_files[_i], variant, order);
			if (variant == 2) {
				/* "-" is standard input. */
				ck_assert_int_eq(dup2(fds[0], 0), 0);
				if (fds[0] != 0)
					close(fds[0]);
				tu_run_file(&got, "-", order, 0);
				/* Give fd 0 back to something harmless. */
				int dn = open("/dev/null", O_RDONLY);
				ck_assert_int_ge(dn, 0);
				dup2(dn, 0);
				if (dn != 0)
					close(dn);
			} else {
				tu_run_fd(&got, fds[0], order, 0);
				/* The reader does not close a caller's descriptor. */
				ck_assert_int_eq(fcntl(fds[0], F_GETFD), 0);
				close(fds[0]);
			}
			reap(pid, what);
			same_run(&ref, &got, what);
			ck_assert_uint_eq(got.stats.input_size, order == ETL_ORDER_TIME ? n : 0);
			tu_run_free(&got);
		}
		tu_run_free(&ref);
	}
	/* A FIFO works like a pipe. */
	char *fifo = temp_path(".fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		if (fd < 0)
			_exit(1);
		size_t off = 0;
		while (off < n) {
			ssize_t w = write(fd, plain + off, n - off);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	struct tu_run ref, got;
	tu_run_file(&ref, src, ETL_ORDER_FILE, 0);
	tu_run_file(&got, fifo, ETL_ORDER_FILE, 0);
	reap(pid, "fifo");
	same_run(&ref, &got, "fifo");
	tu_run_free(&ref);
	tu_run_free(&got);
	unlink(fifo);
	free(fifo);
	unlink(gzpath);
	free(gzpath);
	free(gz);
	free(plain);
	free(src);
}
END_TEST

START_TEST(test_open_errors_and_misuse)
{
	etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_FATAL);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_order(r, 7), ETL_FAILED);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_file(r, "/nonexistent/dir/x.etl"), ETL_FATAL);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_IO);
	ck_assert_ptr_nonnull(strstr(etl_reader_errmsg(r), "/nonexistent/dir/x.etl"));
	etl_reader_free(r);
	/* Empty input. */
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, "", 0), ETL_FATAL);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_FATAL);
	etl_reader_free(r);
	/* Open twice; order after opening. */
	struct tu_lf lf;
	struct tu_bytes file;
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_FAILED);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_FAILED);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_NONE);
	ck_assert_str_eq(etl_reader_errmsg(r), "");
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_END);
	ck_assert_ptr_null(ev);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_END);
	etl_reader_free(r);
	etl_reader_free(NULL);
	tu_bytes_free(&file);
	/* Names. */
	ck_assert_str_eq(etl_status_name(ETL_FAILED), "failed");
	ck_assert_str_eq(etl_strerror(ETL_E_TRUNCATED), "truncated data");
	ck_assert_str_eq(etl_strerror(9999), "unknown error");
	ck_assert_str_eq(etl_hdr_kind_name(ETL_HDR_EVENT_HEADER64), "EVENT_HEADER64");
	ck_assert_int_eq(etl_hdr_kind_from_name("perfinfo64"), ETL_HDR_PERFINFO64);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the logfile header of a real file, field by field                     */
/* ------------------------------------------------------------------ */

/*
 * amsi-tracelogging.etl (airbus-cert/etl-parser tests/example/AMSITrace.etl,
 * Apache-2.0). The record at 0x48 is SYSTEM64 "02 00 02 c0 86 01 00 00":
 * version 2, size 0x186, HookId 0; its payload (TRACE_LOGFILE_HEADER64)
 * starts at 0x68. Every value below was read from a hex dump of the file:
 *   0x68 00 00 01 00            BufferSize 0x10000
 *   0x6c 0a 00 01 05            Version 10.0.1.5
 *   0x70 ba 47 00 00            build 18362
 *   0x74 08 00 00 00            NumberOfProcessors 8
 *   0x78 36 c6 cb c3 90 e5 d5 01 EndTime 0x01d5e590c3cbc636
 *   0x80 5a 62 02 00            TimerResolution 156250
 *   0x84 00 00 00 00            MaximumFileSize 0
 *   0x88 01 00 00 08            LogFileMode 0x08000001
 *   0x8c 06 00 00 00            BuffersWritten 6
 *   0x90 01 00 00 00            StartBuffers 1 (GUID 0x90-0x9f)
 *   0x94 08 00 00 00            PointerSize 8
 *   0x98 03 00 00 00            EventsLost 3
 *   0x9c c8 07 00 00            CpuSpeedInMHz 1992
 *   0xa0 09 00 ... 00           LoggerName field 9 (u64)
 *   0xa8 06 00 ... 00           LogFileName field 6 (u64)
 *   0xb0 c4 ff ff ff            Bias -60
 *   0xb4 "@tzres.dll,-302"      StandardName (UTF-16)
 *   0xf4 00 00 0a 00 00 00 05 00 03 00 ...  StandardDate month 10, day 5, 03:00
 *   0x104 00 00 00 00           StandardBias 0
 *   0x108 "@tzres.dll,-301"     DaylightName
 *   0x148 00 00 03 00 00 00 05 00 02 00 ... DaylightDate month 3, day 5, 02:00
 *   0x158 c4 ff ff ff           DaylightBias -60
 *   0x15c 00 00 00 00           padding
 *   0x160 40 cc 25 66 11 e3 d5 01 BootTime 0x01d5e3116625cc40
 *   0x168 80 96 98 00 ...       PerfFreq 10 000 000
 *   0x170 82 05 63 8e 90 e5 d5 01 StartTime 0x01d5e5908e630582
 *   0x178 01 00 00 00           ReservedFlags (clock) 1
 *   0x17c 00 00 00 00           BuffersLost 0
 *   0x180 "AMSITraceSession", "c:\work\AMSITrace.etl"
 * The header record's own SystemTime (0x58) is 0x0000027f2e70e03d.
 */
START_TEST(test_logfile_fields_amsi)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("amsi-tracelogging.etl");
	size_t n;
	uint8_t *bytes = tu_load_file(path, &n);
	/* The bytes the comment above was written from. */
	if (getenv("ETL_TEST_VERBOSE"))
		tu_hexdump("amsi-tracelogging.etl logfile header record", bytes + 0x48, 0x186, 0x48);
	ck_assert_uint_eq(tu_le32(bytes + 0x48), 0xC0020002u);
	ck_assert_uint_eq(tu_le16(bytes + 0x4C), 0x186);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	const struct etl_logfile *lf = etl_reader_logfile(r);
	char buf[ETL_TIME_STRLEN], g[ETL_GUID_STRLEN];
	if (getenv("ETL_TEST_VERBOSE")) {
		fprintf(stderr, "buffer_size %u version %u.%u.%u.%u build %u nproc %u end %s\n", lf->buffer_size,
		        lf->version[0], lf->version[1], lf->version[2], lf->version[3], lf->provider_version,
		        lf->number_of_processors, etl_filetime_format(lf->end_time, buf, sizeof buf));
		fprintf(stderr, "tz bias %d '%s' '%s' boot %s start %s\n", lf->time_zone.bias,
		        lf->time_zone.standard_name, lf->time_zone.daylight_name,
		        etl_filetime_format(lf->boot_time, buf, sizeof buf),
		        etl_filetime_format(lf->start_time, g, sizeof g));
	}
	ck_assert_int_eq(lf->present, 1);
	ck_assert_uint_eq(lf->header_ptr_size, 8);
	ck_assert_uint_eq(lf->buffer_size, 0x10000);
	ck_assert_mem_eq(lf->version, "\x0a\x00\x01\x05", 4);
	ck_assert_uint_eq(lf->provider_version, 18362);
	ck_assert_uint_eq(lf->number_of_processors, 8);
	ck_assert_int_eq(lf->end_time, 0x01d5e590c3cbc636LL);
	ck_assert_str_eq(etl_filetime_format(lf->end_time, buf, sizeof buf), "2020-02-17T12:50:00.0260662Z");
	ck_assert_uint_eq(lf->timer_resolution, 156250);
	ck_assert_uint_eq(lf->maximum_file_size, 0);
	ck_assert_uint_eq(lf->log_file_mode, 0x08000001);
	ck_assert_uint_eq(lf->buffers_written, 6);
	ck_assert_uint_eq(lf->start_buffers, 1);
	ck_assert_str_eq(etl_guid_format(&lf->log_instance_guid, g), "00000001-0008-0000-0300-0000c8070000");
	ck_assert_uint_eq(lf->pointer_size, 8);
	ck_assert_uint_eq(lf->events_lost, 3);
	ck_assert_uint_eq(lf->cpu_speed_mhz, 1992);
	ck_assert_uint_eq(lf->logger_name_field, 9);
	ck_assert_uint_eq(lf->log_file_name_field, 6);
	const struct etl_time_zone *tz = &lf->time_zone;
	ck_assert_int_eq(tz->bias, -60);
	ck_assert_str_eq(tz->standard_name, "@tzres.dll,-302");
	ck_assert_uint_eq(tz->standard_date.year, 0);
	ck_assert_uint_eq(tz->standard_date.month, 10);
	ck_assert_uint_eq(tz->standard_date.day_of_week, 0);
	ck_assert_uint_eq(tz->standard_date.day, 5);
	ck_assert_uint_eq(tz->standard_date.hour, 3);
	ck_assert_uint_eq(tz->standard_date.minute, 0);
	ck_assert_uint_eq(tz->standard_date.second, 0);
	ck_assert_uint_eq(tz->standard_date.milliseconds, 0);
	ck_assert_int_eq(tz->standard_bias, 0);
	ck_assert_str_eq(tz->daylight_name, "@tzres.dll,-301");
	ck_assert_uint_eq(tz->daylight_date.month, 3);
	ck_assert_uint_eq(tz->daylight_date.day, 5);
	ck_assert_uint_eq(tz->daylight_date.hour, 2);
	ck_assert_uint_eq(tz->daylight_date.day_of_week, 0);
	ck_assert_int_eq(tz->daylight_bias, -60);
	ck_assert_int_eq(lf->boot_time, 0x01d5e3116625cc40LL);
	ck_assert_str_eq(etl_filetime_format(lf->boot_time, buf, sizeof buf), "2020-02-14T08:33:14.5000000Z");
	ck_assert_int_eq(lf->perf_freq, 10000000);
	ck_assert_int_eq(lf->start_time, 0x01d5e5908e630582LL);
	ck_assert_str_eq(etl_filetime_format(lf->start_time, buf, sizeof buf), "2020-02-17T12:48:30.4203138Z");
	ck_assert_uint_eq(lf->reserved_flags, ETL_CLOCK_QPC);
	ck_assert_uint_eq(lf->buffers_lost, 0);
	ck_assert_str_eq(lf->logger_name, "AMSITraceSession");
	ck_assert_str_eq(lf->log_file_name, "c:\\work\\AMSITrace.etl");
	ck_assert_int_eq(lf->header_timestamp, 0x0000027f2e70e03dLL);
	ck_assert_uint_eq(lf->file_offset, 0x48);
	/* Cross-checks against the raw bytes. */
	ck_assert_uint_eq(tu_le32(bytes + 0x68), lf->buffer_size);
	ck_assert_uint_eq(tu_le64(bytes + 0x78), (uint64_t)lf->end_time);
	ck_assert_uint_eq(tu_le32(bytes + 0xb0), (uint32_t)tz->bias);
	ck_assert_uint_eq(tu_le16(bytes + 0xf4 + 2), tz->standard_date.month);
	ck_assert_uint_eq(tu_le16(bytes + 0x148 + 6), tz->daylight_date.day);
	ck_assert_uint_eq(tu_le64(bytes + 0x160), (uint64_t)lf->boot_time);
	ck_assert_uint_eq(tu_le64(bytes + 0x170), (uint64_t)lf->start_time);
	ck_assert_uint_eq(tu_le64(bytes + 0x58), (uint64_t)lf->header_timestamp);
	/* Buffer header of the header buffer (doc/format.md §1.6). */
	const struct etl_buffer_info *bi;
	etl_reader_free(r);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	ck_assert_int_eq(etl_reader_next_buffer(r, &bi), ETL_OK);
	ck_assert_uint_eq(bi->buffer_size, 0x10000);
	ck_assert_uint_eq(bi->type, 4);
	ck_assert_uint_eq(bi->sequence, 0);
	ck_assert_uint_eq(bi->timestamp, 0);
	ck_assert_uint_eq(bi->flags & ETL_BUF_FLAG_FLUSH_MARKER, ETL_BUF_FLAG_FLUSH_MARKER);
	etl_reader_free(r);
	free(bytes);
	free(path);
}
END_TEST

/* The 32-bit 3.1 MHz relog (perfview smallEtlFile.etl): its last event
 * converts exactly to EndTime (doc/format.md §5, observed). */
START_TEST(test_clock_real_3mhz)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("clr-rundown-32bit-compressed.etl");
	struct tu_run run;
	tu_run_file(&run, path, ETL_ORDER_TIME, 0);
	ck_assert_int_eq(run.open_rc, ETL_OK);
	ck_assert_uint_eq(run.n, 2);
	ck_assert_int_eq(run.lf.perf_freq, 3117777);
	ck_assert_uint_eq(run.lf.header_ptr_size, 4);
	ck_assert_int_eq(run.ev[0].utc, run.lf.start_time);
	ck_assert_int_eq(run.ev[1].kind, ETL_HDR_EVENT_HEADER32);
	ck_assert(run.ev[1].present & ETL_EVF_UTC);
	int64_t want = expect_utc(run.lf.start_time, run.ev[1].timestamp, run.lf.header_timestamp,
	                          10000000, 3117777);
	ck_assert_int_eq(run.ev[1].utc, want);
	ck_assert_int_eq(run.ev[1].utc, run.lf.end_time);
	tu_run_free(&run);
	free(path);
}
END_TEST

/* testdata/fail/compressed-inflate-bomb.etl (see its .md): compressed
 * buffers claiming more records than a logger buffer holds are skipped one
 * by one, in both orders, and time order stays small in memory. */
START_TEST(test_inflate_bomb_rejected)
{
	for (int order = 0; order < 2; order++) {
		etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		int st;
		unsigned failed = 0, events = 0;
		uint64_t first_off = 0;
		etl_reader_set_order(r, order ? ETL_ORDER_FILE : ETL_ORDER_TIME);
		ck_assert_int_eq(etl_reader_open_file(r, "testdata/fail/compressed-inflate-bomb.etl"), ETL_OK);
		ck_assert_uint_eq(etl_reader_logfile(r)->buffer_size, 0x2000);
		while ((st = etl_reader_next(r, &ev)) != ETL_END) {
			ck_assert_int_ne(st, ETL_FATAL);
			if (st == ETL_FAILED) {
				if (!failed++)
					first_off = etl_reader_erroff(r);
				ck_assert_int_eq(etl_reader_errcode(r), ETL_E_BAD_SIZE);
				ck_assert_ptr_nonnull(strstr(etl_reader_errmsg(r),
				                             "claims more records than a logger buffer holds"));
			} else {
				events++;
			}
		}
		ck_assert_uint_eq(failed, 40);
		ck_assert_uint_eq(first_off, 0x220);
		ck_assert_uint_ge(events, 1);          /* the logfile header */
		etl_reader_free(r);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	ck_assert_int_lt(ru.ru_maxrss, 256 * 1024);     /* KiB: far below 40 x 32 MiB */
}
END_TEST

/* ------------------------------------------------------------------ */
/* the time-order memory limit                                          */
/* ------------------------------------------------------------------ */

#define ML_RECS 150u   /* records per compressed buffer */

/* Appends one compressed (Plain LZ77) buffer of processor proc holding
 * n SYSTEM records stamped first_ts, first_ts + step, ...; returns its
 * file offset. *inflated: bytes of records once inflated. */
static uint64_t add_compressed(struct tu_bytes *file, uint16_t proc, int64_t seq,
                               int64_t first_ts, int64_t step, unsigned n, uint32_t *inflated)
{
	struct tu_buffer b;
	struct tu_bytes plain;
	tu_buffer_init(&b, 0x10000, proc, seq);
	for (unsigned k = 0; k < n; k++)
		add_sys(&b, first_ts + step * (int64_t)k);
	b.buffer_size = HDR + (uint32_t)b.recs.len;
	tu_bytes_init(&plain);
	tu_buffer_emit(&plain, &b);
	*inflated = (uint32_t)b.recs.len;

	size_t cap = etl_lz77_compress_bound(b.recs.len), clen = 0;
	uint8_t *z = malloc(cap);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(etl_lz77_compress(b.recs.p, b.recs.len, z, cap, &clen, NULL), ETL_OK);
	uint64_t at = file->len;
	tu_putbytes(file, plain.p, HDR);
	tu_set32(file, at + 0x00, HDR + (uint32_t)clen);   /* BufferSize: as stored */
	tu_set16(file, at + 0x34, (uint16_t)(b.flags | ETL_BUF_FLAG_COMPRESSED));
	tu_putbytes(file, z, clen);                         /* SavedOffset stays 0x48 + records */
	free(z);
	tu_bytes_free(&plain);
	tu_buffer_free(&b);
	return at;
}

/* Starts *file with the header buffer (processor 0, not compressed) of a
 * compressed-mode session of 4 processors and buffer_size-byte buffers;
 * *lf: its logfile header's fields. */
static void ml_file(struct tu_bytes *file, struct tu_lf *lf, uint32_t buffer_size)
{
	tu_lf_defaults(lf);
	lf->header_ts = 5;
	lf->nproc = 4;
	lf->buffer_size = buffer_size;
	lf->log_file_mode |= 0x04000000u;            /* compressed mode */
	tu_bytes_init(file);
	tu_file_header(file, lf, 0);
}

struct ml_result {
	unsigned events, limit_failures, other_failures;
	uint64_t fail_off[8];
	int64_t last_ts;
	int ordered;                 /* timestamps never went back */
	struct etl_reader_stats st;
};

static void ml_read(const struct tu_bytes *file, int order, uint64_t limit, struct ml_result *res)
{
	etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int st;
	memset(res, 0, sizeof *res);
	res->ordered = 1;
	res->last_ts = INT64_MIN;
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	if (limit)
		ck_assert_int_eq(etl_reader_set_order_memory(r, limit), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, file->p, file->len), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st == ETL_FAILED) {
			if (etl_reader_errcode(r) != ETL_E_LIMIT) {
				res->other_failures++;
				continue;
			}
			ck_assert_ptr_nonnull(strstr(etl_reader_errmsg(r), "time-order memory limit"));
			if (res->limit_failures < 8)
				res->fail_off[res->limit_failures] = etl_reader_erroff(r);
			res->limit_failures++;
			continue;
		}
		ck_assert_int_eq(st, ETL_OK);
		if (ev->timestamp < res->last_ts)
			res->ordered = 0;
		res->last_ts = ev->timestamp;
		res->events++;
	}
	etl_reader_stats(r, &res->st);
	etl_reader_free(r);
}

/* Time order inflates one compressed buffer per processor at once; the
 * limit caps what they hold together. Processors 1-3 each have two
 * compressed buffers of the same inflated size S, with interleaved
 * timestamps; the header buffer (processor 0) is not compressed.
 *   - default limit: every event, in time order, no failure;
 *   - limit 2.5 S: processors 1 and 2 take 2 S while the streams are
 *     primed, so both buffers of processor 3 are skipped, each reported
 *     once with ETL_E_LIMIT at its offset, and every other event is read
 *     in order (the second buffers reuse their stream's memory);
 *   - file order holds one buffer and ignores the limit. */
START_TEST(test_time_order_memory_limit)
{
	struct tu_bytes file;
	struct tu_lf lf;
	ml_file(&file, &lf, 0x4000);
	uint64_t off[4][2];
	uint32_t inflated = 0, first = 0;
	for (int j = 0; j < 2; j++)
		for (uint16_t p = 1; p <= 3; p++) {
			off[p][j] = add_compressed(&file, p, 1 + j, 10 + p + 30 * (int64_t)ML_RECS * j, 30,
			                           ML_RECS, &inflated);
			if (!first)
				first = inflated;
			ck_assert_uint_eq(inflated, first);
		}
	ck_assert_uint_le(HDR + inflated, lf.buffer_size);
	const uint64_t S = HDR + inflated;
	const unsigned all = 1 + 6 * ML_RECS;

	struct ml_result res;
	ml_read(&file, ETL_ORDER_TIME, 0, &res);
	ck_assert_uint_eq(res.events, all);
	ck_assert_uint_eq(res.limit_failures + res.other_failures, 0);
	ck_assert_uint_eq(res.st.compressed_buffers, 6);
	ck_assert(res.ordered);
	ck_assert_uint_eq(res.st.order_memory_peak, 3 * S);   /* one buffer per processor */

	ml_read(&file, ETL_ORDER_TIME, S * 5 / 2, &res);
	ck_assert_uint_eq(res.other_failures, 0);
	ck_assert_uint_eq(res.limit_failures, 2);
	ck_assert_uint_eq(res.fail_off[0], off[3][0]);
	ck_assert_uint_eq(res.fail_off[1], off[3][1]);
	ck_assert_uint_eq(res.events, all - 2 * ML_RECS);
	ck_assert_uint_eq(res.st.bad_buffers, 2);
	ck_assert(res.ordered);
	ck_assert_uint_eq(res.st.order_memory_peak, 2 * S);

	/* Exactly three buffers fit: nothing is skipped. */
	ml_read(&file, ETL_ORDER_TIME, 3 * S, &res);
	ck_assert_uint_eq(res.limit_failures + res.other_failures, 0);
	ck_assert_uint_eq(res.events, all);
	ck_assert_uint_eq(res.st.order_memory_peak, 3 * S);

	ml_read(&file, ETL_ORDER_FILE, HDR, &res);
	ck_assert_uint_eq(res.limit_failures + res.other_failures, 0);
	ck_assert_uint_eq(res.events, all);
	ck_assert_uint_eq(res.st.order_memory_peak, 0);

	/* Misuse: 0 bytes, or after opening. */
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order_memory(r, 0), ETL_FAILED);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_memory(r, file.p, file.len), ETL_OK);
	ck_assert_int_eq(etl_reader_set_order_memory(r, S), ETL_FAILED);
	ck_assert_int_eq(etl_reader_errcode(r), ETL_E_MISUSE);
	etl_reader_free(r);
	tu_bytes_free(&file);
}
END_TEST

/* A stream that has read its last buffer gives its memory back.
 * Processor 3's only buffer comes first in time; once it is read,
 * processor 1's second buffer, twice the size of its first, fits within a
 * limit that could not hold it next to processor 3's. */
START_TEST(test_time_order_memory_given_back)
{
	struct tu_bytes file;
	struct tu_lf lf;
	ml_file(&file, &lf, 0x8000);
	uint32_t n3, n2, n1, n1b;
	uint64_t off3 = add_compressed(&file, 3, 1, 10, 1, ML_RECS, &n3);          /* 10 .. 159    */
	add_compressed(&file, 2, 1, 100, 100, ML_RECS, &n2);                       /* 100 .. 15000 */
	add_compressed(&file, 1, 1, 200, 10, ML_RECS, &n1);                        /* 200 .. 1690  */
	uint64_t off1b = add_compressed(&file, 1, 2, 2000, 10, 2 * ML_RECS, &n1b); /* 2000 .. 4990 */
	ck_assert_uint_eq(n1, n3);
	ck_assert_uint_eq(n2, n3);
	ck_assert_uint_eq(n1b, 2 * n1);
	const uint64_t S = HDR + n1;
	/* The streams are primed with 3 S. Processor 1's second buffer needs
	 * 2 S - 0x48 in place of its first: with processor 3's S given back
	 * that makes 3 S - 0x48, without it 4 S - 0x48, over a limit of 3 S. */
	struct ml_result res;
	ml_read(&file, ETL_ORDER_TIME, 3 * S, &res);
	ck_assert_uint_eq(res.limit_failures + res.other_failures, 0);
	ck_assert_uint_eq(res.events, 1 + 5 * ML_RECS);
	ck_assert(res.ordered);
	ck_assert_uint_eq(res.st.order_memory_peak, 3 * S);   /* primed; 3 S - 0x48 later */
	/* Below 3 S, processor 3's buffer does not fit when the streams are
	 * primed; below 3 S - 0x48, processor 1's second one does not either. */
	ml_read(&file, ETL_ORDER_TIME, 3 * S - HDR - 1, &res);
	ck_assert_uint_eq(res.other_failures, 0);
	ck_assert_uint_eq(res.limit_failures, 2);
	ck_assert_uint_eq(res.fail_off[0], off3);
	ck_assert_uint_eq(res.fail_off[1], off1b);
	ck_assert_uint_eq(res.events, 1 + 2 * ML_RECS);
	ck_assert_uint_eq(res.st.order_memory_peak, 2 * S);
	tu_bytes_free(&file);
}
END_TEST

/* testdata/fail/compressed-headerless-inflate-bomb.etl (see its .md):
 * 40 processors' compressed buffers inflate to 32 MiB each, with no
 * logfile header to bound them; each stream ends after its one buffer and
 * passes it on to the next, so time order stays small, skips nothing and
 * faults in one buffer's pages, not forty. */
START_TEST(test_headerless_inflate_bomb)
{
	long faults[2];
	for (int order = 0; order < 2; order++) {
		struct tu_run run;
		struct rusage before, after;
		getrusage(RUSAGE_SELF, &before);
		tu_run_file(&run, "testdata/fail/compressed-headerless-inflate-bomb.etl",
		            order ? ETL_ORDER_FILE : ETL_ORDER_TIME, 0);
		getrusage(RUSAGE_SELF, &after);
		faults[order] = after.ru_minflt - before.ru_minflt;
		ck_assert_int_eq(run.open_rc, ETL_WARN);
		ck_assert_int_eq(run.end_rc, ETL_END);
		ck_assert_uint_eq(run.n, 0);
		ck_assert_uint_eq(run.nfail, 3);
		unsigned seen = 0;
		for (size_t i = 0; i < run.nfail; i++) {
			const struct tu_fail *f = &run.fail[i];
			if (f->code == ETL_E_BAD_SIZE && f->off == 0x48)
				seen |= 1;
			else if (f->code == ETL_E_DECOMPRESS && f->off == 0xfae)
				seen |= 2;
			else if (f->code == ETL_E_BAD_SIZE && f->off == 0xfb8)
				seen |= 4;
		}
		ck_assert_uint_eq(seen, 7);
		/* One inflated buffer at a time (the buffer header and 32 MiB -
		 * 0x48 of records), not one per processor. */
		ck_assert_uint_eq(run.stats.order_memory_peak, (order ? 0 : 32u << 20));
		tu_run_free(&run);
	}
	/* Time order hands an ended stream's buffer to the next stream, so
	 * it touches about as many fresh pages as file order, which keeps one
	 * buffer throughout: 8,210 and 8,194 here (11,361 and 11,273 under
	 * AddressSanitizer). With a buffer of its own for each of the 40
	 * streams it faulted in 319,546. */
	long per_buffer = (32L << 20) / sysconf(_SC_PAGESIZE);
	ck_assert_int_lt(faults[0], 4 * per_buffer);                /* [0]: time order */
	ck_assert_int_lt(faults[0], 2 * faults[1] + per_buffer);
#ifndef TU_ASAN
	/* What the process really held. Under AddressSanitizer the freed
	 * buffers wait in its quarantine (256 MiB by default) and still count,
	 * so there only the reader's own figure above tells. */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	ck_assert_int_lt(ru.ru_maxrss, 256 * 1024);     /* KiB: far below 40 x 32 MiB */
#endif
}
END_TEST

/* 5000 damaged buffers after a good header buffer: file order reports each
 * as it is met; time order meets them all in its index pass before the
 * first event, lists the first ETL_PENDING_MAX (4096) one by one and the
 * rest in one summary that names how many and where the first was. */
START_TEST(test_many_damaged_buffers)
{
	TU_NEED_CORPUS();
	size_t len;
	char *path = tu_corpus_path("wsl-lxcore-tracelogging.etl");
	uint8_t *src = tu_load_file(path, &len);
	uint32_t bs = (uint32_t)src[0] | (uint32_t)src[1] << 8;     /* 0x2000 */
	size_t n_bad = 5000, total = bs + n_bad * 0x48;
	uint8_t *img = malloc(total);
	ck_assert_ptr_nonnull(img);
	memcpy(img, src, bs);
	for (size_t i = 0; i < n_bad; i++) {
		uint8_t *b = img + bs + i * 0x48;
		memset(b, 0, 0x48);
		b[0] = 0x48;             /* BufferSize: just the header        */
		b[4] = 0x10;             /* SavedOffset and Offset inside it   */
		b[0x30] = 0x10;
	}
	for (int order = 0; order < 2; order++) {
		etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		int st;
		unsigned failed = 0, summary = 0, events = 0;
		etl_reader_set_order(r, order ? ETL_ORDER_FILE : ETL_ORDER_TIME);
		ck_assert_int_eq(etl_reader_open_memory(r, img, total), ETL_OK);
		while ((st = etl_reader_next(r, &ev)) != ETL_END) {
			ck_assert_int_ne(st, ETL_FATAL);
			if (st == ETL_OK)
				events++;
			else if (strstr(etl_reader_errmsg(r), "904 more damage reports were not listed")) {
				summary++;
				ck_assert_uint_eq(etl_reader_erroff(r), bs + 4096 * 0x48);
			} else {
				failed++;
			}
		}
		ck_assert_uint_eq(events, 2);           /* the header buffer's records */
		if (order == 0) {
			ck_assert_uint_eq(failed, 4096);
			ck_assert_uint_eq(summary, 1);
		} else {
			ck_assert_uint_eq(failed, 5000);
			ck_assert_uint_eq(summary, 0);
		}
		etl_reader_free(r);
	}
	free(img);
	free(src);
	free(path);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tw = tcase_create("walk");
	tcase_set_timeout(tw, 60);
	tcase_add_test(tw, test_chain_by_buffer_size);
	tcase_add_test(tw, test_valid_end);
	tcase_add_test(tw, test_end_marker);
	tcase_add_test(tw, test_buffer_filled_to_end);
	tcase_add_test(tw, test_truncated_last_buffer);
	tcase_add_test(tw, test_bad_buffer_size_stops);
	tcase_add_test(tw, test_processor_index);
	tcase_add_test(tw, test_processor_limit);
	tcase_add_test(tw, test_not_an_etl_file);
	tcase_add_test(tw, test_time_order_merge);
	suite_add_tcase(s, tw);
	TCase *tt = tcase_create("time");
	tcase_set_timeout(tt, 60);
	tcase_add_test(tt, test_clock_qpc_overflow);
	tcase_add_test(tt, test_clock_other_types);
	tcase_add_test(tt, test_clock_real_3mhz);
	tcase_add_test(tt, test_filetime_text);
	tcase_add_test(tt, test_guid_text);
	suite_add_tcase(s, tt);
	TCase *ti = tcase_create("inputs");
	tcase_set_timeout(ti, 120);
	tcase_add_loop_test(ti, test_compressed_inputs, 0, 2);
	tcase_add_loop_test(ti, test_pipe_input, 0, 2);
	tcase_add_test(ti, test_open_errors_and_misuse);
	tcase_add_test(ti, test_logfile_fields_amsi);
	tcase_add_test(ti, test_inflate_bomb_rejected);
	tcase_add_test(ti, test_many_damaged_buffers);
	tcase_add_test(ti, test_time_order_memory_limit);
	tcase_add_test(ti, test_headerless_inflate_bomb);
	tcase_add_test(ti, test_time_order_memory_given_back);
	suite_add_tcase(s, ti);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reader_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
