/*
 * check_hdr.c - unit tests of the trace-header modules (formats/hdr/hdr_*.c)
 * with hand-built records, decoded both directly through
 * etl__hdr_for_marker(marker)->decode() on an etl_cur and through the
 * reader on a synthetic in-memory file built with testutil.
 *
 * Layouts are from doc/format.md §3 (and each module's layout table);
 * the builders below write them field by field, independently of the
 * library's decoders.
 */
#define _POSIX_C_SOURCE 200809L
#define ETL_BUILDING_LIB 1

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "formats/hdr/hdr.h"
#include "testutil.h"

#define BUF_SIZE 0x1000u
#define HDR ETL_BUFFER_HEADER_SIZE

static const uint8_t PAYLOAD[] = "payload-bytes";   /* 14 bytes with the NUL */
#define PAYLOAD_N (sizeof PAYLOAD)

/* ------------------------------------------------------------------ */
/* helpers                                                              */
/* ------------------------------------------------------------------ */

/* Decodes one record directly through its module, as the reader core
 * would: peek_size must give the record's length. */
static int direct_decode(const uint8_t *rec, size_t n, uint8_t lmaj, uint8_t lmin,
                         uint8_t default_ptr, struct etl_event *ev, struct etl_err *err)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_marker(tu_le32(rec));
	ck_assert_ptr_nonnull(ops);
	uint32_t size = 0;
	ck_assert_int_eq(ops->peek_size(rec, &size), 0);
	ck_assert_uint_eq(size, n);
	ck_assert_uint_ge(size, ops->min_size);
	struct etl_hdr_ctx ctx = { lmaj, lmin, default_ptr };
	struct etl_cur c;
	etl_cur_init(&c, rec, size);
	memset(ev, 0, sizeof *ev);
	memset(err, 0, sizeof *err);
	return ops->decode(&c, &ctx, ev, err);
}

/* rec's module given a cursor one byte shorter than its fixed part (what
 * the reader's min_size check keeps from it, but a program calling the
 * module could do): refused as truncated, at the record's start. */
static void assert_fixed_part_short(const uint8_t *rec)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_marker(tu_le32(rec));
	ck_assert_ptr_nonnull(ops);
	struct etl_hdr_ctx ctx = { 1, 5, 8 };
	struct etl_cur c;
	struct etl_event ev;
	struct etl_err err;
	etl_cur_init(&c, rec, ops->min_size - 1);
	memset(&ev, 0, sizeof ev);
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(ops->decode(&c, &ctx, &ev, &err), ETL_FAILED);
	ck_assert_int_eq(err.code, ETL_E_TRUNCATED);
	ck_assert_uint_eq(err.pos, 0);
	ck_assert_msg(strstr(err.msg, "shorter than its header") != NULL, "%s: %s", ops->name, err.msg);
}

/* One result of etl_reader_next(). Events are copied; their pointers
 * borrow from the synthetic file, which the caller keeps alive. */
struct got {
	int st;
	struct etl_event ev;
	int code;
	uint64_t off;
};

#define MAX_GOT 512

/* Reads the whole in-memory file; returns the number of results. */
static size_t read_mem(const struct tu_bytes *file, int order, struct got *out, size_t max)
{
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, order), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, file->p, file->len), ETL_OK);
	size_t n = 0;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		ck_assert_uint_lt(n, max);
		struct got *g = &out[n++];
		memset(g, 0, sizeof *g);
		g->st = st;
		if (st == ETL_FAILED) {
			ck_assert_ptr_null(ev);
		} else {
			ck_assert_ptr_nonnull(ev);
			g->ev = *ev;
		}
		g->code = etl_reader_errcode(r);
		g->off = etl_reader_erroff(r);
	}
	etl_reader_free(r);
	return n;
}

/* A file: header buffer, then one data buffer (processor 0, sequence 1)
 * holding the given records (each padded to 8 bytes). Record file offsets
 * go to offs[] when not NULL. Returns the data buffer's file offset. */
static size_t file_with_records(struct tu_bytes *file, const struct tu_lf *lf,
                                const struct tu_bytes *recs, size_t nrecs,
                                uint32_t buf_size, uint64_t *offs)
{
	struct tu_buffer b;
	tu_bytes_init(file);
	tu_file_header(file, lf, 0);
	tu_buffer_init(&b, buf_size, 0, 1);
	for (size_t i = 0; i < nrecs; i++) {
		uint32_t at = tu_buffer_add(&b, recs[i].p, recs[i].len, 0);
		if (offs)
			offs[i] = file->len + at;
	}
	size_t boff = tu_buffer_emit(file, &b);
	tu_buffer_free(&b);
	return boff;
}

static const struct got *find_off(const struct got *g, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].st != ETL_FAILED && g[i].ev.file_offset == off)
			return &g[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* dispatch                                                             */
/* ------------------------------------------------------------------ */

START_TEST(test_marker_dispatch)
{
	static const struct {
		uint32_t marker;
		const struct etl_hdr_ops *ops;
	} cases[] = {
		{ 0xC0010002u, &etl__hdr_system },   { 0xC0020002u, &etl__hdr_system },
		{ 0xC0030000u, &etl__hdr_compact },  { 0xC0040000u, &etl__hdr_compact },
		{ 0xC0100000u, &etl__hdr_perfinfo }, { 0xC0110000u, &etl__hdr_perfinfo },
		{ 0xC00A0030u, &etl__hdr_full },     { 0xC0140030u, &etl__hdr_full },
		{ 0xC00B0048u, &etl__hdr_instance }, { 0xC0150048u, &etl__hdr_instance },
		{ 0xC0120050u, &etl__hdr_event },    { 0xC0130050u, &etl__hdr_event },
		{ 0xC00D0050u, &etl__hdr_error },    { 0xC00C0008u, &etl__hdr_timed },
		{ 0x90000008u, &etl__hdr_message },  { 0x00000030u, &etl__hdr_wnode },
		{ 0x7FFFFFFFu, &etl__hdr_wnode },
		{ 0xC0FF0010u, NULL }, { 0xC0000010u, NULL }, { 0xC00E0010u, NULL },
		{ 0xC00F0010u, NULL }, { 0xB0000010u, NULL }, { 0xA0000010u, NULL },
		{ 0x80000010u, NULL }, { 0xD0000010u, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(etl__hdr_for_marker(cases[i].marker) == cases[i].ops,
		              "marker 0x%08x", cases[i].marker);
	/* b3 = 0xD0 has both 0xC0 bits: dispatched on b2 (0x00, unknown). */
	ck_assert_ptr_null(etl__hdr_for_marker(0xD0000010u));
	/* Every module is reachable by name and lists its type bytes. */
	for (size_t i = 0; etl__hdr_modules[i]; i++) {
		const struct etl_hdr_ops *m = etl__hdr_modules[i];
		ck_assert_ptr_eq(etl__hdr_by_name(m->name), m);
		for (int k = 0; k < 2; k++)
			if (m->types[k] && m != &etl__hdr_message)
				ck_assert_ptr_eq(etl__hdr_for_marker(0xC0000000u | ((uint32_t)m->types[k] << 16)), m);
	}
	ck_assert_ptr_null(etl__hdr_by_name("nonesuch"));
}
END_TEST

/* ------------------------------------------------------------------ */
/* SYSTEM / COMPACT / PERFINFO with PEBS and PMC items                  */
/* ------------------------------------------------------------------ */

static const struct {
	uint8_t htype;
	int kind;
	uint8_t ptr;
	uint32_t base;       /* fixed header size */
	int has_pid, has_cpu;
} sysmods[] = {
	{ 0x01, ETL_HDR_SYSTEM32, 4, 0x20, 1, 1 },
	{ 0x02, ETL_HDR_SYSTEM64, 8, 0x20, 1, 1 },
	{ 0x03, ETL_HDR_COMPACT32, 4, 0x18, 1, 0 },
	{ 0x04, ETL_HDR_COMPACT64, 8, 0x18, 1, 0 },
	{ 0x10, ETL_HDR_PERFINFO32, 4, 0x10, 0, 0 },
	{ 0x11, ETL_HDR_PERFINFO64, 8, 0x10, 0, 0 },
};

#define HOOK_PROCESS_START 0x0301u   /* group 3 = Process, type 1 */

static void build_sys(struct tu_bytes *r, int m, int pebs, int pmc, int64_t ts)
{
	uint16_t vw = (uint16_t)(3u | (pebs ? 0x8000u : 0u) | ((unsigned)pmc << 8));
	uint64_t hw[8];
	unsigned k = 0;
	if (pebs)
		hw[k++] = 0xFEDCBA9876543210ULL + (uint64_t)pmc;
	for (int i = 0; i < pmc; i++)
		hw[k++] = 0x1111111111111111ULL * (uint64_t)(i + 1) + (uint64_t)(pebs << 4);
	tu_bytes_init(r);
	if (sysmods[m].base == 0x10)
		tu_rec_perfinfo(r, sysmods[m].htype, vw, HOOK_PROCESS_START, ts, hw, PAYLOAD, PAYLOAD_N);
	else
		tu_rec_system(r, sysmods[m].htype, vw, HOOK_PROCESS_START, 0x1234, 0x5678, ts,
		              0xAA, 0xBB, hw, PAYLOAD, PAYLOAD_N);
}

static void check_sys_event(const struct etl_event *ev, const uint8_t *rec, int m, int pebs,
                            int pmc, int64_t ts)
{
	uint32_t hsize = sysmods[m].base + 8u * (uint32_t)(pebs + pmc);
	struct etl_guid process = tu_guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
	ck_assert_int_eq(ev->kind, sysmods[m].kind);
	ck_assert_uint_eq(ev->header_type, sysmods[m].htype);
	ck_assert_uint_eq(ev->ptr_size, sysmods[m].ptr);
	ck_assert_uint_eq(ev->version_word, 3u | (pebs ? 0x8000u : 0u) | ((unsigned)pmc << 8));
	ck_assert_uint_eq(ev->version, 3);
	ck_assert_uint_eq(ev->size, hsize + PAYLOAD_N);
	ck_assert_uint_eq(ev->hook_id, HOOK_PROCESS_START);
	ck_assert_uint_eq(ev->opcode, 0x01);
	ck_assert_uint_eq(ev->id, 0);
	ck_assert(etl_guid_equal(&ev->provider, &process));
	ck_assert_ptr_nonnull(ev->provider_name);
	ck_assert_str_eq(ev->provider_name, "Process");
	ck_assert_int_eq(ev->timestamp, ts);
	ck_assert(ev->present & ETL_EVF_TIMESTAMP);
	ck_assert(ev->present & ETL_EVF_HOOKID);
	ck_assert(ev->present & ETL_EVF_PROVIDER);
	if (sysmods[m].has_pid) {
		ck_assert(ev->present & ETL_EVF_PID);
		ck_assert_uint_eq(ev->tid, 0x1234);
		ck_assert_uint_eq(ev->pid, 0x5678);
	} else {
		ck_assert(!(ev->present & ETL_EVF_PID));
		ck_assert_uint_eq(ev->tid, 0);
		ck_assert_uint_eq(ev->pid, 0);
	}
	if (sysmods[m].has_cpu) {
		ck_assert(ev->present & ETL_EVF_CPU_TIMES);
		ck_assert_uint_eq(ev->kernel_time, 0xAA);
		ck_assert_uint_eq(ev->user_time, 0xBB);
	} else {
		ck_assert(!(ev->present & ETL_EVF_CPU_TIMES));
		ck_assert_uint_eq(ev->kernel_time, 0);
	}
	if (pebs) {
		ck_assert(ev->present & ETL_EVF_PEBS);
		ck_assert_uint_eq(ev->pebs_index, 0xFEDCBA9876543210ULL + (uint64_t)pmc);
	} else {
		ck_assert(!(ev->present & ETL_EVF_PEBS));
		ck_assert_uint_eq(ev->pebs_index, 0);
	}
	ck_assert_uint_eq(ev->pmc_count, pmc);
	ck_assert_uint_eq(!!(ev->present & ETL_EVF_PMC), pmc > 0);
	for (int i = 0; i < 7; i++) {
		uint64_t want = i < pmc ? 0x1111111111111111ULL * (uint64_t)(i + 1) + (uint64_t)(pebs << 4) : 0;
		ck_assert_uint_eq(ev->pmc[i], want);
	}
	ck_assert_uint_eq(ev->header_size, hsize);
	ck_assert_ptr_eq(ev->payload, rec + hsize);
	ck_assert_uint_eq(ev->payload_size, PAYLOAD_N);
	ck_assert_mem_eq(ev->payload, PAYLOAD, PAYLOAD_N);
}

START_TEST(test_system_style)
{
	int m = _i;
	struct tu_bytes recs[16];
	uint64_t offs[16];
	/* Directly through the module. */
	for (int pebs = 0; pebs < 2; pebs++)
		for (int pmc = 0; pmc < 8; pmc++) {
			struct tu_bytes *r = &recs[pebs * 8 + pmc];
			int64_t ts = 2000000 + pebs * 8 + pmc;
			build_sys(r, m, pebs, pmc, ts);
			struct etl_event ev;
			struct etl_err err;
			ck_assert_int_eq(direct_decode(r->p, r->len, 1, 5, 8, &ev, &err), ETL_OK);
			check_sys_event(&ev, r->p, m, pebs, pmc, ts);
		}
	assert_fixed_part_short(recs[0].p);
	/* Through the reader, all 16 in one buffer. */
	struct tu_lf lf;
	struct tu_bytes file;
	tu_lf_defaults(&lf);
	size_t boff = file_with_records(&file, &lf, recs, 16, BUF_SIZE, offs);
	for (int order = 0; order < 2; order++) {
		struct got g[MAX_GOT];
		size_t n = read_mem(&file, order, g, MAX_GOT);
		ck_assert_uint_eq(n, 17);
		for (int i = 0; i < 16; i++) {
			const struct got *e = find_off(g, n, offs[i]);
			ck_assert_ptr_nonnull(e);
			ck_assert_int_eq(e->st, ETL_OK);
			check_sys_event(&e->ev, file.p + offs[i], m, i / 8, i % 8, 2000000 + i);
			ck_assert_uint_eq(e->ev.buffer_offset, boff);
			ck_assert_uint_eq(e->ev.offset_in_buffer, offs[i] - boff);
			ck_assert_uint_eq(e->ev.processor, 0);
			ck_assert_uint_eq(e->ev.logger_id, 0x14);
			ck_assert_uint_eq(e->ev.in_compressed, 0);
			ck_assert_ptr_eq(e->ev.record, file.p + offs[i]);
			/* QPC clock at 10 MHz: UTC = StartTime + (T - T0). */
			ck_assert(e->ev.present & ETL_EVF_UTC);
			ck_assert_int_eq(e->ev.utc, lf.start_time + (2000000 + i) - lf.header_ts);
		}
	}
	/* PEBS/PMC items announced but missing: the record is rejected. */
	struct tu_bytes bad;
	tu_bytes_init(&bad);
	if (sysmods[m].base == 0x10)
		tu_rec_perfinfo(&bad, sysmods[m].htype, 0x8703, HOOK_PROCESS_START, 5, NULL, NULL, 0);
	else
		tu_rec_system(&bad, sysmods[m].htype, 0x8703, HOOK_PROCESS_START, 1, 2, 5, 0, 0, NULL, NULL, 0);
	bad.len -= 16;                                 /* drop two counters */
	tu_set16(&bad, 4, (uint16_t)bad.len);
	struct etl_event ev;
	struct etl_err err;
	ck_assert_int_eq(direct_decode(bad.p, bad.len, 1, 5, 8, &ev, &err), ETL_FAILED);
	ck_assert_int_eq(err.code, ETL_E_BAD_SIZE);
	tu_bytes_free(&bad);
	for (int i = 0; i < 16; i++)
		tu_bytes_free(&recs[i]);
	tu_bytes_free(&file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* FULL_HEADER (EVENT_TRACE_HEADER)                                      */
/* ------------------------------------------------------------------ */

static void build_full(struct tu_bytes *r, uint8_t htype, const struct etl_guid *g, int64_t ts,
                       size_t payload_n)
{
	tu_bytes_init(r);
	tu_put16(r, 0);
	tu_put8(r, htype);
	tu_put8(r, 0xC0);
	tu_put8(r, 0x0B);               /* Class.Type */
	tu_put8(r, 4);                  /* Class.Level */
	tu_put16(r, 0x0102);            /* Class.Version */
	tu_put32(r, 0x111);             /* ThreadId */
	tu_put32(r, 0x222);             /* ProcessId */
	tu_put64(r, (uint64_t)ts);
	tu_putguid(r, g);
	tu_put32(r, 0x333);             /* KernelTime */
	tu_put32(r, 0x00020000);        /* UserTime / Flags */
	for (size_t i = 0; i < payload_n; i++)
		tu_put8(r, (uint8_t)(0xA0 + i));
	tu_set16(r, 0, (uint16_t)r->len);
}

START_TEST(test_full_header)
{
	static const uint8_t types[2] = { 0x0A, 0x14 };
	struct etl_guid meta = tu_guid("bbccf6c1-6cd1-48c4-80ff-839482e37671");
	struct etl_guid other = tu_guid("01234567-89ab-cdef-0123-456789abcdef");
	for (int t = 0; t < 2; t++) {
		struct tu_bytes recs[2];
		uint64_t offs[2];
		build_full(&recs[0], types[t], &meta, 3000000, 9);
		build_full(&recs[1], types[t], &other, 3000001, 0);
		struct tu_lf lf;
		struct tu_bytes file;
		tu_lf_defaults(&lf);
		file_with_records(&file, &lf, recs, 2, BUF_SIZE, offs);
		struct got g[8];
		size_t n = read_mem(&file, ETL_ORDER_FILE, g, 8);
		ck_assert_uint_eq(n, 3);
		for (int i = 0; i < 2; i++) {
			struct etl_event dev;
			struct etl_err err;
			ck_assert_int_eq(direct_decode(recs[i].p, recs[i].len, 1, 5, 8, &dev, &err), ETL_OK);
			const struct etl_event *evs[2] = { &dev, &find_off(g, n, offs[i])->ev };
			const uint8_t *base[2] = { recs[i].p, file.p + offs[i] };
			for (int k = 0; k < 2; k++) {
				const struct etl_event *ev = evs[k];
				ck_assert_int_eq(ev->kind, t ? ETL_HDR_FULL_HEADER64 : ETL_HDR_FULL_HEADER32);
				ck_assert_uint_eq(ev->header_type, types[t]);
				ck_assert_uint_eq(ev->ptr_size, t ? 8 : 4);
				ck_assert_uint_eq(ev->size, 0x30 + (i ? 0 : 9));
				ck_assert_uint_eq(ev->opcode, 0x0B);
				ck_assert_uint_eq(ev->level, 4);
				ck_assert_uint_eq(ev->version_word, 0x0102);
				ck_assert_uint_eq(ev->version, 0x02);
				ck_assert_uint_eq(ev->id, 0);
				ck_assert_uint_eq(ev->tid, 0x111);
				ck_assert_uint_eq(ev->pid, 0x222);
				ck_assert_int_eq(ev->timestamp, 3000000 + i);
				ck_assert(etl_guid_equal(&ev->provider, i ? &other : &meta));
				if (i == 0) {
					ck_assert_ptr_nonnull(ev->provider_name);
					ck_assert_str_eq(ev->provider_name, "EventMetadata");
				} else {
					ck_assert_ptr_null(ev->provider_name);
				}
				ck_assert_uint_eq(ev->kernel_time, 0x333);
				ck_assert_uint_eq(ev->user_time, 0x00020000);
				ck_assert_uint_eq(ev->trace_flags, 0x00020000);
				uint16_t want = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP |
				                ETL_EVF_PROVIDER | ETL_EVF_CLASS;
				ck_assert_uint_eq(ev->present & want, want);
				ck_assert(!(ev->present & (ETL_EVF_DESCRIPTOR | ETL_EVF_INSTANCE | ETL_EVF_HOOKID)));
				ck_assert_uint_eq(ev->header_size, 0x30);
				ck_assert_ptr_eq(ev->payload, base[k] + 0x30);
				ck_assert_uint_eq(ev->payload_size, i ? 0 : 9);
				if (i == 0)
					ck_assert_uint_eq(ev->payload[8], 0xA8);
			}
		}
		tu_bytes_free(&recs[0]);
		tu_bytes_free(&recs[1]);
		tu_bytes_free(&file);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* INSTANCE headers: GUID form (layout >= 1.1) and old 0x38 form         */
/* ------------------------------------------------------------------ */

static void build_instance_guid(struct tu_bytes *r, uint8_t htype, const struct etl_guid *g,
                                const struct etl_guid *parent)
{
	build_full(r, htype, g, 4000000, 0);
	r->p[2] = htype;
	tu_put32(r, 0xDEAD0001);         /* InstanceId */
	tu_put32(r, 0xDEAD0002);         /* ParentInstanceId */
	tu_putguid(r, parent);
	tu_putbytes(r, "\x01\x02\x03\x04\x05", 5);
	tu_set16(r, 0, (uint16_t)r->len);
}

static void build_instance_old(struct tu_bytes *r, uint8_t htype)
{
	tu_bytes_init(r);
	tu_put16(r, 0);
	tu_put8(r, htype);
	tu_put8(r, 0xC0);
	tu_put8(r, 0x0C);                /* Class.Type */
	tu_put8(r, 5);                   /* Class.Level */
	tu_put16(r, 0x0003);             /* Class.Version */
	tu_put32(r, 0x10);               /* ThreadId */
	tu_put32(r, 0x20);               /* ProcessId */
	tu_put64(r, 4000001);            /* TimeStamp */
	tu_put64(r, 0x8877665544332211ULL); /* RegHandle */
	tu_put32(r, 0x31);               /* InstanceId */
	tu_put32(r, 0x32);               /* ParentInstanceId */
	tu_put32(r, 0x41);               /* KernelTime / EventId */
	tu_put32(r, 0x42);               /* UserTime / Flags */
	tu_put64(r, 0x0102030405060708ULL); /* ParentRegHandle */
	tu_putbytes(r, "\xEE\xFF", 2);
	tu_set16(r, 0, (uint16_t)r->len);
}

START_TEST(test_instance_guid_form)
{
	static const uint8_t types[2] = { 0x0B, 0x15 };
	struct etl_guid g = tu_guid("11111111-2222-3333-4444-555555555555");
	struct etl_guid parent = tu_guid("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
	for (int t = 0; t < 2; t++) {
		struct tu_bytes rec;
		uint64_t off;
		build_instance_guid(&rec, types[t], &g, &parent);
		ck_assert_uint_eq(rec.len, 0x48 + 5);
		struct tu_lf lf;
		struct tu_bytes file;
		tu_lf_defaults(&lf);           /* 10.0, layout 1.5 */
		file_with_records(&file, &lf, &rec, 1, BUF_SIZE, &off);
		struct got gg[4];
		size_t n = read_mem(&file, ETL_ORDER_TIME, gg, 4);
		ck_assert_uint_eq(n, 2);
		struct etl_event dev;
		struct etl_err err;
		/* Layout unknown (0.0: no logfile header) is taken as modern too. */
		for (int lay = 0; lay < 2; lay++) {
			ck_assert_int_eq(direct_decode(rec.p, rec.len, lay ? 1 : 0, lay ? 1 : 0, 8, &dev, &err),
			                 ETL_OK);
			const struct etl_event *evs[2] = { &dev, &find_off(gg, n, off)->ev };
			const uint8_t *base[2] = { rec.p, file.p + off };
			for (int k = 0; k < 2; k++) {
				const struct etl_event *ev = evs[k];
				ck_assert_int_eq(ev->kind, t ? ETL_HDR_INSTANCE64 : ETL_HDR_INSTANCE32);
				ck_assert_uint_eq(ev->ptr_size, t ? 8 : 4);
				ck_assert_uint_eq(ev->opcode, 0x0B);
				ck_assert_uint_eq(ev->level, 4);
				ck_assert_uint_eq(ev->version_word, 0x0102);
				ck_assert_uint_eq(ev->tid, 0x111);
				ck_assert_uint_eq(ev->pid, 0x222);
				ck_assert_int_eq(ev->timestamp, 4000000);
				ck_assert(etl_guid_equal(&ev->provider, &g));
				ck_assert_uint_eq(ev->instance_id, 0xDEAD0001);
				ck_assert_uint_eq(ev->parent_instance_id, 0xDEAD0002);
				ck_assert(etl_guid_equal(&ev->parent_guid, &parent));
				ck_assert(ev->present & ETL_EVF_INSTANCE);
				ck_assert(!(ev->present & ETL_EVF_OLD_INSTANCE));
				ck_assert_uint_eq(ev->reg_handle, 0);
				ck_assert_uint_eq(ev->header_size, 0x48);
				ck_assert_ptr_eq(ev->payload, base[k] + 0x48);
				ck_assert_uint_eq(ev->payload_size, 5);
			}
		}
		/* A GUID-form record shorter than 0x48 passes min_size (the old
		 * form's 0x38) but is rejected by decode. */
		struct tu_bytes shortr;
		tu_bytes_init(&shortr);
		tu_putbytes(&shortr, rec.p, 0x40);
		tu_set16(&shortr, 0, 0x40);
		ck_assert_int_eq(direct_decode(shortr.p, shortr.len, 1, 5, 8, &dev, &err), ETL_FAILED);
		ck_assert_int_eq(err.code, ETL_E_TRUNCATED);
		tu_bytes_free(&shortr);
		tu_bytes_free(&rec);
		tu_bytes_free(&file);
	}
}
END_TEST

START_TEST(test_instance_old_form)
{
	static const uint8_t types[2] = { 0x0B, 0x15 };
	for (int t = 0; t < 2; t++) {
		struct tu_bytes rec;
		uint64_t off;
		build_instance_old(&rec, types[t]);
		ck_assert_uint_eq(rec.len, 0x38 + 2);
		/* Logfile version 5.1 with layout (sub version) 1.0: Windows XP. */
		struct tu_lf lf;
		struct tu_bytes file;
		tu_lf_defaults(&lf);
		lf.version[0] = 5;
		lf.version[1] = 1;
		lf.version[2] = 1;
		lf.version[3] = 0;
		lf.build = 2600;
		file_with_records(&file, &lf, &rec, 1, BUF_SIZE, &off);
		struct got gg[4];
		size_t n = read_mem(&file, ETL_ORDER_FILE, gg, 4);
		ck_assert_uint_eq(n, 2);
		struct etl_event dev;
		struct etl_err err;
		ck_assert_int_eq(direct_decode(rec.p, rec.len, 1, 0, 4, &dev, &err), ETL_OK);
		const struct etl_event *evs[2] = { &dev, &find_off(gg, n, off)->ev };
		const uint8_t *base[2] = { rec.p, file.p + off };
		for (int k = 0; k < 2; k++) {
			const struct etl_event *ev = evs[k];
			ck_assert_int_eq(ev->kind, t ? ETL_HDR_INSTANCE64 : ETL_HDR_INSTANCE32);
			ck_assert_uint_eq(ev->opcode, 0x0C);
			ck_assert_uint_eq(ev->level, 5);
			ck_assert_uint_eq(ev->version, 3);
			ck_assert_uint_eq(ev->tid, 0x10);
			ck_assert_uint_eq(ev->pid, 0x20);
			ck_assert_int_eq(ev->timestamp, 4000001);
			ck_assert_uint_eq(ev->reg_handle, 0x8877665544332211ULL);
			ck_assert_uint_eq(ev->instance_id, 0x31);
			ck_assert_uint_eq(ev->parent_instance_id, 0x32);
			ck_assert_uint_eq(ev->kernel_time, 0x41);
			ck_assert_uint_eq(ev->user_time, 0x42);
			ck_assert_uint_eq(ev->parent_reg_handle, 0x0102030405060708ULL);
			ck_assert(ev->present & ETL_EVF_OLD_INSTANCE);
			ck_assert(!(ev->present & ETL_EVF_INSTANCE));
			ck_assert(etl_guid_is_null(&ev->parent_guid));
			ck_assert_uint_eq(ev->header_size, 0x38);
			ck_assert_ptr_eq(ev->payload, base[k] + 0x38);
			ck_assert_uint_eq(ev->payload_size, 2);
		}
		/* The same bytes in a modern file are a (too short) GUID form. */
		ck_assert_int_eq(direct_decode(rec.p, rec.len, 1, 5, 8, &dev, &err), ETL_FAILED);
		tu_bytes_free(&rec);
		tu_bytes_free(&file);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* EVENT_HEADER with every extended item type                           */
/* ------------------------------------------------------------------ */

/* Appends one item: u16 size, u16 type, u16 linkage, u16 DataSize, data,
 * zero padding to ALIGN8(8 + DataSize). */
static void put_item(struct tu_bytes *r, uint16_t type, uint16_t linkage, const void *data,
                     uint16_t ds)
{
	uint16_t size = (uint16_t)((8u + ds + 7u) & ~7u);
	tu_put16(r, size);
	tu_put16(r, type);
	tu_put16(r, linkage);
	tu_put16(r, ds);
	tu_putbytes(r, data, ds);
	tu_putfill(r, 0, size - 8u - ds);
}

#define N_ITEMS 19         /* types 1..0x12 and one unknown */
#define UNKNOWN_EXT 0x0099

static const struct etl_guid G_REL = { 0x10000001, 0x1001, 0x1002, { 1, 2, 3, 4, 5, 6, 7, 8 } };
static const struct etl_guid G_PARENT = { 0x40000004, 0x4001, 0x4002, { 8, 7, 6, 5, 4, 3, 2, 1 } };
static const struct etl_guid G_CTRL = { 0xE000000E, 0xE001, 0xE002, { 0xE, 0xE, 0, 0, 0, 0, 0, 0xE } };
static const struct etl_guid G_CONT = { 0x10101010, 0x1010, 0x1010, { 0x10, 0, 0, 0, 0, 0, 0, 0x10 } };
static const struct etl_guid G_GROUP = { 0x0C0C0C0C, 0x0C0C, 0x0C0C, { 0xC, 0, 0, 0, 0, 0, 0, 0xC } };

/* The chain of items of every type, in type order, unknown last. */
static void build_ext_chain(struct tu_bytes *x)
{
	struct tu_bytes d;
	tu_bytes_init(x);
	for (unsigned type = 1; type <= N_ITEMS; type++) {
		unsigned t = type == N_ITEMS ? UNKNOWN_EXT : type;
		uint16_t link = type == N_ITEMS ? 0 : (type == 3 ? 0x8001 : 1);
		tu_bytes_init(&d);
		switch (t) {
		case ETL_EXT_RELATED_ACTIVITYID: tu_putguid(&d, &G_REL); break;
		case ETL_EXT_SID:
			tu_put8(&d, 1);            /* revision */
			tu_put8(&d, 2);            /* sub-authority count */
			tu_putbytes(&d, "\0\0\0\0\0\x05", 6);
			tu_put32(&d, 21);
			tu_put32(&d, 0x12345678);
			break;
		case ETL_EXT_TS_ID: tu_put32(&d, 7); break;
		case ETL_EXT_INSTANCE_INFO:
			tu_put32(&d, 0x44);
			tu_put32(&d, 0x45);
			tu_putguid(&d, &G_PARENT);
			break;
		case ETL_EXT_STACK_TRACE32:
			tu_put64(&d, 0x0505050505050505ULL);
			tu_put32(&d, 0x77001000);
			tu_put32(&d, 0x77002000);
			tu_put32(&d, 0x77003000);
			break;
		case ETL_EXT_STACK_TRACE64:
			tu_put64(&d, 0x0606060606060606ULL);
			tu_put64(&d, 0xFFFFF80000001000ULL);
			tu_put64(&d, 0x00007FF600002000ULL);
			break;
		case ETL_EXT_PEBS_INDEX: tu_put64(&d, 0x0707070707070707ULL); break;
		case ETL_EXT_PMC_COUNTERS:
			tu_put64(&d, 100);
			tu_put64(&d, 200);
			tu_put64(&d, 0x8000000000000300ULL);
			break;
		case ETL_EXT_PSM_KEY: tu_put64(&d, 0x0909090909090909ULL); break;
		case ETL_EXT_EVENT_KEY: tu_put64(&d, 0x0A0A0A0A0A0A0A0AULL); break;
		case ETL_EXT_EVENT_SCHEMA_TL:
			tu_put16(&d, 0);           /* size, patched */
			tu_put8(&d, 0x81);         /* tag byte with continuation */
			tu_put8(&d, 0x02);         /* last tag byte */
			tu_putbytes(&d, "MyEvent", 8);
			tu_putbytes(&d, "Count", 6);
			tu_put8(&d, 0x08);         /* in-type UINT32 */
			tu_set16(&d, 0, (uint16_t)d.len);
			break;
		case ETL_EXT_PROV_TRAITS:
			tu_put16(&d, 0);
			tu_putbytes(&d, "MyProvider", 11);
			tu_put16(&d, 19);          /* trait size */
			tu_put8(&d, 1);            /* provider group GUID */
			tu_putguid(&d, &G_GROUP);
			tu_set16(&d, 0, (uint16_t)d.len);
			break;
		case ETL_EXT_PROCESS_START_KEY: tu_put64(&d, 0x0D0D0D0D0D0D0D0DULL); break;
		case ETL_EXT_CONTROL_GUID: tu_putguid(&d, &G_CTRL); break;
		case ETL_EXT_QPC_DELTA: tu_put64(&d, 0x0F0F0F0F0F0F0F0FULL); break;
		case ETL_EXT_CONTAINER_ID: tu_putguid(&d, &G_CONT); break;
		case ETL_EXT_STACK_KEY32:
			tu_put64(&d, 0x1111111111111111ULL);
			tu_put32(&d, 0x11223344);
			tu_put32(&d, 0);           /* padding */
			break;
		case ETL_EXT_STACK_KEY64:
			tu_put64(&d, 0x1212121212121212ULL);
			tu_put64(&d, 0xAABBCCDDEEFF0011ULL);
			break;
		default:
			tu_putbytes(&d, "\x99\x98\x97", 3);
			break;
		}
		put_item(x, (uint16_t)t, link, d.p, (uint16_t)d.len);
		tu_bytes_free(&d);
	}
}

static void build_event_header(struct tu_bytes *r, uint8_t htype, uint16_t flags,
                               const struct tu_bytes *ext, const void *payload, size_t n)
{
	struct etl_guid prov = tu_guid("0cd1c309-0878-4515-83db-749843b3f5c9");
	struct etl_guid act = tu_guid("fedcba98-7654-3210-fedc-ba9876543210");
	tu_bytes_init(r);
	tu_put16(r, 0);
	tu_put8(r, htype);
	tu_put8(r, 0xC0);
	tu_put16(r, flags);
	tu_put16(r, 0x0008);             /* EventProperty RELOGGABLE */
	tu_put32(r, 0x0AAA);
	tu_put32(r, 0x0BBB);
	tu_put64(r, 5000000);
	tu_putguid(r, &prov);
	tu_put16(r, 0x0123);             /* Id */
	tu_put8(r, 2);                   /* Version */
	tu_put8(r, 0x10);                /* Channel */
	tu_put8(r, 3);                   /* Level */
	tu_put8(r, 0x0F);                /* Opcode */
	tu_put16(r, 0x4321);             /* Task */
	tu_put64(r, 0x8000000000000ABCULL); /* Keyword */
	tu_put32(r, 0x55);
	tu_put32(r, 0x66);
	tu_putguid(r, &act);
	if (ext)
		tu_putbytes(r, ext->p, ext->len);
	tu_putbytes(r, payload, n);
	tu_set16(r, 0, (uint16_t)r->len);
}

static void check_items(const struct etl_event *ev, const uint8_t *rec, uint64_t rec_off)
{
	struct etl_ext_iter it;
	struct etl_ext_item item;
	struct etl_ext_typed t;
	etl_ext_iter_init(&it, ev);
	uint32_t pos = 0x50;
	for (unsigned type = 1; type <= N_ITEMS; type++) {
		ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_OK);
		unsigned want_type = type == N_ITEMS ? UNKNOWN_EXT : type;
		ck_assert_uint_eq(item.ext_type, want_type);
		ck_assert_uint_eq(item.item_size, (8u + item.data_size + 7u) & ~7u);
		ck_assert_uint_eq(item.linkage, type == N_ITEMS ? 0 : (type == 3 ? 0x8001 : 1));
		ck_assert_ptr_eq(item.data, rec + pos + 8);
		if (rec_off != UINT64_MAX)
			ck_assert_uint_eq(item.file_offset, rec_off + pos);
		pos += item.item_size;
		int rc = etl_ext_item_decode(&item, &t);
		if (want_type == UNKNOWN_EXT) {
			ck_assert_int_eq(rc, ETL_WARN);
			ck_assert_uint_eq(t.kind, 0);
			ck_assert_uint_eq(item.data_size, 3);
			ck_assert_mem_eq(item.data, "\x99\x98\x97", 3);
			ck_assert_ptr_null(etl_ext_type_name(want_type));
			continue;
		}
		ck_assert_msg(rc == ETL_OK, "ext type %u: %d", want_type, rc);
		ck_assert_uint_eq(t.kind, want_type);
		ck_assert_ptr_nonnull(etl_ext_type_name(want_type));
		switch (want_type) {
		case ETL_EXT_RELATED_ACTIVITYID:
			ck_assert(etl_guid_equal(&t.u.guid, &G_REL));
			ck_assert_str_eq(etl_ext_type_name(want_type), "RELATED_ACTIVITYID");
			break;
		case ETL_EXT_SID:
			ck_assert_uint_eq(t.u.sid.revision, 1);
			ck_assert_uint_eq(t.u.sid.sub_count, 2);
			ck_assert_mem_eq(t.u.sid.authority, "\0\0\0\0\0\x05", 6);
			ck_assert_ptr_nonnull(t.u.sid.sub);
			ck_assert_uint_eq(tu_le32(t.u.sid.sub), 21);
			ck_assert_uint_eq(tu_le32(t.u.sid.sub + 4), 0x12345678);
			break;
		case ETL_EXT_TS_ID:
			ck_assert_uint_eq(t.u.u32, 7);
			break;
		case ETL_EXT_INSTANCE_INFO:
			ck_assert_uint_eq(t.u.instance.instance_id, 0x44);
			ck_assert_uint_eq(t.u.instance.parent_instance_id, 0x45);
			ck_assert(etl_guid_equal(&t.u.instance.parent_guid, &G_PARENT));
			break;
		case ETL_EXT_STACK_TRACE32:
			ck_assert_uint_eq(t.u.stack.match_id, 0x0505050505050505ULL);
			ck_assert_uint_eq(t.u.stack.addr_size, 4);
			ck_assert_uint_eq(t.u.stack.count, 3);
			ck_assert_uint_eq(tu_le32(t.u.stack.addrs), 0x77001000);
			ck_assert_uint_eq(tu_le32(t.u.stack.addrs + 8), 0x77003000);
			break;
		case ETL_EXT_STACK_TRACE64:
			ck_assert_uint_eq(t.u.stack.match_id, 0x0606060606060606ULL);
			ck_assert_uint_eq(t.u.stack.addr_size, 8);
			ck_assert_uint_eq(t.u.stack.count, 2);
			ck_assert_uint_eq(tu_le64(t.u.stack.addrs), 0xFFFFF80000001000ULL);
			ck_assert_uint_eq(tu_le64(t.u.stack.addrs + 8), 0x00007FF600002000ULL);
			break;
		case ETL_EXT_PEBS_INDEX:
			ck_assert_uint_eq(t.u.u64, 0x0707070707070707ULL);
			break;
		case ETL_EXT_PMC_COUNTERS:
			ck_assert_uint_eq(t.u.pmc.count, 3);
			ck_assert_uint_eq(tu_le64(t.u.pmc.counters), 100);
			ck_assert_uint_eq(tu_le64(t.u.pmc.counters + 8), 200);
			ck_assert_uint_eq(tu_le64(t.u.pmc.counters + 16), 0x8000000000000300ULL);
			break;
		case ETL_EXT_PSM_KEY:
			ck_assert_uint_eq(t.u.u64, 0x0909090909090909ULL);
			break;
		case ETL_EXT_EVENT_KEY:
			ck_assert_uint_eq(t.u.u64, 0x0A0A0A0A0A0A0A0AULL);
			break;
		case ETL_EXT_EVENT_SCHEMA_TL:
			ck_assert_uint_eq(t.u.tl.declared_size, item.data_size);
			ck_assert_str_eq(t.u.tl.name, "MyEvent");
			ck_assert_ptr_eq(t.u.tl.name, (const char *)item.data + 4);
			ck_assert_uint_eq(t.u.tl.rest_size, 7);
			ck_assert_mem_eq(t.u.tl.rest, "Count\0\x08", 7);
			break;
		case ETL_EXT_PROV_TRAITS:
			ck_assert_uint_eq(t.u.tl.declared_size, item.data_size);
			ck_assert_str_eq(t.u.tl.name, "MyProvider");
			ck_assert_uint_eq(t.u.tl.rest_size, 19);
			ck_assert_uint_eq(tu_le16(t.u.tl.rest), 19);
			ck_assert_uint_eq(t.u.tl.rest[2], 1);
			ck_assert_uint_eq(tu_le32(t.u.tl.rest + 3), G_GROUP.data1);
			break;
		case ETL_EXT_PROCESS_START_KEY:
			ck_assert_uint_eq(t.u.u64, 0x0D0D0D0D0D0D0D0DULL);
			break;
		case ETL_EXT_CONTROL_GUID:
			ck_assert(etl_guid_equal(&t.u.guid, &G_CTRL));
			break;
		case ETL_EXT_QPC_DELTA:
			ck_assert_uint_eq(t.u.u64, 0x0F0F0F0F0F0F0F0FULL);
			break;
		case ETL_EXT_CONTAINER_ID:
			ck_assert(etl_guid_equal(&t.u.guid, &G_CONT));
			break;
		case ETL_EXT_STACK_KEY32:
			ck_assert_uint_eq(t.u.stack_key.match_id, 0x1111111111111111ULL);
			ck_assert_uint_eq(t.u.stack_key.stack_key, 0x11223344);
			break;
		case ETL_EXT_STACK_KEY64:
			ck_assert_uint_eq(t.u.stack_key.match_id, 0x1212121212121212ULL);
			ck_assert_uint_eq(t.u.stack_key.stack_key, 0xAABBCCDDEEFF0011ULL);
			ck_assert_str_eq(etl_ext_type_name(want_type), "STACK_KEY64");
			break;
		default:
			ck_abort_msg("type %u not covered", want_type);
		}
	}
	ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_END);
	ck_assert_uint_eq(pos, 0x50 + ev->ext_size);
}

static void check_event_common(const struct etl_event *ev, int t, uint16_t flags)
{
	struct etl_guid prov = tu_guid("0cd1c309-0878-4515-83db-749843b3f5c9");
	struct etl_guid act = tu_guid("fedcba98-7654-3210-fedc-ba9876543210");
	ck_assert_int_eq(ev->kind, t ? ETL_HDR_EVENT_HEADER64 : ETL_HDR_EVENT_HEADER32);
	ck_assert_uint_eq(ev->header_type, t ? 0x13 : 0x12);
	ck_assert_uint_eq(ev->ptr_size, t ? 8 : 4);
	ck_assert_uint_eq(ev->header_flags, flags);
	ck_assert_uint_eq(ev->event_property, 0x0008);
	ck_assert_uint_eq(ev->tid, 0x0AAA);
	ck_assert_uint_eq(ev->pid, 0x0BBB);
	ck_assert_int_eq(ev->timestamp, 5000000);
	ck_assert(etl_guid_equal(&ev->provider, &prov));
	ck_assert_uint_eq(ev->id, 0x0123);
	ck_assert_uint_eq(ev->version, 2);
	ck_assert_uint_eq(ev->channel, 0x10);
	ck_assert_uint_eq(ev->level, 3);
	ck_assert_uint_eq(ev->opcode, 0x0F);
	ck_assert_uint_eq(ev->task, 0x4321);
	ck_assert_uint_eq(ev->keyword, 0x8000000000000ABCULL);
	ck_assert_uint_eq(ev->kernel_time, 0x55);
	ck_assert_uint_eq(ev->user_time, 0x66);
	ck_assert(etl_guid_equal(&ev->activity_id, &act));
	uint16_t want = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	                ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY;
	ck_assert_uint_eq(ev->present & want, want);
}

START_TEST(test_event_header_all_ext)
{
	static const uint8_t types[2] = { 0x12, 0x13 };
	for (int t = 0; t < 2; t++) {
		struct tu_bytes ext, recs[2];
		uint64_t offs[2];
		build_ext_chain(&ext);
		build_event_header(&recs[0], types[t], 0x0001, &ext, PAYLOAD, PAYLOAD_N);
		build_event_header(&recs[1], types[t], 0x0000, NULL, PAYLOAD, 3);
		/* Direct. */
		struct etl_event ev;
		struct etl_err err;
		ck_assert_int_eq(direct_decode(recs[0].p, recs[0].len, 1, 5, 8, &ev, &err), ETL_OK);
		check_event_common(&ev, t, 1);
		ck_assert_uint_eq(ev.ext_count, N_ITEMS);
		ck_assert_uint_eq(ev.ext_size, ext.len);
		ck_assert_ptr_eq(ev.ext, recs[0].p + 0x50);
		ck_assert_uint_eq(ev.header_size, 0x50 + ext.len);
		ck_assert_ptr_eq(ev.payload, recs[0].p + 0x50 + ext.len);
		ck_assert_uint_eq(ev.payload_size, PAYLOAD_N);
		ev.record = recs[0].p;
		check_items(&ev, recs[0].p, UINT64_MAX);
		ck_assert_int_eq(direct_decode(recs[1].p, recs[1].len, 1, 5, 8, &ev, &err), ETL_OK);
		check_event_common(&ev, t, 0);
		ck_assert_uint_eq(ev.ext_count, 0);
		ck_assert_uint_eq(ev.header_size, 0x50);
		assert_fixed_part_short(recs[1].p);
		ck_assert_uint_eq(ev.payload_size, 3);
		/* Through the reader: item file offsets are absolute. */
		struct tu_lf lf;
		struct tu_bytes file;
		tu_lf_defaults(&lf);
		file_with_records(&file, &lf, recs, 2, BUF_SIZE, offs);
		for (int order = 0; order < 2; order++) {
			struct got g[8];
			size_t n = read_mem(&file, order, g, 8);
			ck_assert_uint_eq(n, 3);
			const struct got *e = find_off(g, n, offs[0]);
			ck_assert_ptr_nonnull(e);
			ck_assert_int_eq(e->st, ETL_OK);
			check_event_common(&e->ev, t, 1);
			ck_assert_uint_eq(e->ev.ext_count, N_ITEMS);
			check_items(&e->ev, file.p + offs[0], offs[0]);
			ck_assert_mem_eq(e->ev.payload, PAYLOAD, PAYLOAD_N);
			e = find_off(g, n, offs[1]);
			ck_assert_ptr_nonnull(e);
			ck_assert_uint_eq(e->ev.ext_count, 0);
			ck_assert_ptr_eq(e->ev.payload, file.p + offs[1] + 0x50);
		}
		tu_bytes_free(&ext);
		tu_bytes_free(&recs[0]);
		tu_bytes_free(&recs[1]);
		tu_bytes_free(&file);
	}
}
END_TEST

/* Item data too short or inconsistent for its type -> ETL_FAILED. */
START_TEST(test_ext_iter_program_event)
{
	/* An event put together by a program, not by the reader: an item
	 * whose size runs past the chain, a count larger than the chain, a
	 * chain shorter than an item header, no chain at all. The walk stops
	 * at the end of ev->ext (the block is exactly ext_size bytes long, so
	 * ASan sees any read past it). */
	uint8_t *chain = malloc(16);
	ck_assert_ptr_nonnull(chain);
	static const uint8_t items[16] = { 8, 0, 11, 0, 1, 0, 0, 0,        /* schema item, no data */
	                                   200, 0, 12, 0, 0, 0, 8, 0 };    /* traits: size 200     */
	memcpy(chain, items, sizeof items);
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.ext = chain;
	ev.ext_size = 16;
	ev.ext_count = 5;
	struct etl_ext_iter it;
	struct etl_ext_item item;
	etl_ext_iter_init(&it, &ev);
	ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_OK);
	ck_assert_uint_eq(item.ext_type, 11);
	ck_assert_ptr_eq(item.data, chain + 8);
	ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_OK);
	ck_assert_uint_eq(item.ext_type, 12);
	ck_assert_uint_eq(item.item_size, 200);
	ck_assert_uint_eq(item.data_size, 8);
	ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_END);  /* position 208 > 16 */

	ev.ext_size = 7;                         /* shorter than an item header */
	etl_ext_iter_init(&it, &ev);
	ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_END);

	ev.ext = NULL;                           /* a count, no chain */
	ev.ext_size = 16;
	etl_ext_iter_init(&it, &ev);
	ck_assert_int_eq(etl_ext_iter_next(&it, &item), ETL_END);
	free(chain);
}
END_TEST

START_TEST(test_ext_decode_rejects)
{
	static const struct {
		uint16_t type;
		const char *data;
		uint16_t n;
	} bad[] = {
		{ ETL_EXT_RELATED_ACTIVITYID, "0123456789abcde", 15 },
		{ ETL_EXT_SID, "\x01\x03\0\0\0\0\0\x05\x01\0\0\0", 12 },    /* 3 subs, 1 present */
		{ ETL_EXT_TS_ID, "\x01\x02", 2 },
		{ ETL_EXT_INSTANCE_INFO, "\x01\0\0\0\x02\0\0\0", 8 },
		{ ETL_EXT_STACK_TRACE32, "\x01\x02\x03\x04\x05\x06\x07", 7 },
		{ ETL_EXT_STACK_TRACE64, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12 },
		{ ETL_EXT_PMC_COUNTERS, "\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9 },
		{ ETL_EXT_EVENT_KEY, "\x01\x02\x03", 3 },
		{ ETL_EXT_EVENT_SCHEMA_TL, "\x08\0\0NoNul", 8 },
		{ ETL_EXT_EVENT_SCHEMA_TL, "\x04\0\x80\x80", 4 },          /* tags never end */
		{ ETL_EXT_PROV_TRAITS, "\x05\0abc", 5 },
		{ ETL_EXT_STACK_KEY32, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12 },
		{ ETL_EXT_STACK_KEY64, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c", 12 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct etl_ext_item item = { bad[i].type, 0, 0, bad[i].n, (const uint8_t *)bad[i].data, 0 };
		struct etl_ext_typed t;
		ck_assert_msg(etl_ext_item_decode(&item, &t) == ETL_FAILED, "case %zu (type %u)", i,
		              bad[i].type);
	}
	/* Empty stack traces are fine: match id only, no frames. */
	struct etl_ext_item ok = { ETL_EXT_STACK_TRACE64, 16, 0, 8,
	                           (const uint8_t *)"\x01\0\0\0\0\0\0\0", 0 };
	struct etl_ext_typed t;
	ck_assert_int_eq(etl_ext_item_decode(&ok, &t), ETL_OK);
	ck_assert_uint_eq(t.u.stack.count, 0);
	ck_assert_uint_eq(t.u.stack.match_id, 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* MESSAGE (WPP) with every OptionFlags combination                     */
/* ------------------------------------------------------------------ */

static const struct etl_guid G_MSG = { 0x2818ef08, 0x6a54, 0x396f, { 0x22, 0x44, 0x5a, 0x6e, 0xa4, 0xa9, 0x8c, 0xf0 } };

/* Writes the optional items in the order of doc/format.md §3.7. */
static void build_message(struct tu_bytes *r, uint16_t flags, uint16_t msgnum)
{
	tu_bytes_init(r);
	tu_put16(r, 0);
	tu_put8(r, 0);
	tu_put8(r, 0x90);
	tu_put16(r, msgnum);
	tu_put16(r, flags);
	if (flags & ETL_MSG_SEQUENCE)
		tu_put32(r, 0x5E000000u + msgnum);
	if (flags & ETL_MSG_COMPONENTID)
		tu_put32(r, 0xC0000000u + msgnum);     /* instead of the GUID */
	else if (flags & ETL_MSG_GUID)
		tu_putguid(r, &G_MSG);
	if (flags & (ETL_MSG_TIMESTAMP | ETL_MSG_PERF_TIMESTAMP))
		tu_put64(r, (flags & ETL_MSG_TIMESTAMP) ? 6000000u + msgnum : 0x7777777777777777ULL);
	if (flags & ETL_MSG_SYSTEMINFO) {
		tu_put32(r, 0x7100u + msgnum);
		tu_put32(r, 0x7200u + msgnum);
	}
	tu_putbytes(r, "args", 4);
	tu_set16(r, 0, (uint16_t)r->len);
}

static uint32_t message_header_size(uint16_t flags)
{
	uint32_t n = 8;
	if (flags & ETL_MSG_SEQUENCE)
		n += 4;
	if (flags & ETL_MSG_COMPONENTID)
		n += 4;
	else if (flags & ETL_MSG_GUID)
		n += 16;
	if (flags & (ETL_MSG_TIMESTAMP | ETL_MSG_PERF_TIMESTAMP))
		n += 8;
	if (flags & ETL_MSG_SYSTEMINFO)
		n += 8;
	return n;
}

static void check_message(const struct etl_event *ev, const uint8_t *rec, uint16_t flags,
                          uint16_t msgnum, uint8_t default_ptr)
{
	ck_assert_int_eq(ev->kind, ETL_HDR_MESSAGE);
	ck_assert_uint_eq(ev->header_type, 0x90);
	ck_assert_uint_eq(ev->id, msgnum);
	ck_assert_uint_eq(ev->header_flags, flags);
	if (flags & ETL_MSG_SEQUENCE) {
		ck_assert(ev->present & ETL_EVF_SEQUENCE);
		ck_assert_uint_eq(ev->sequence, 0x5E000000u + msgnum);
	} else {
		ck_assert(!(ev->present & ETL_EVF_SEQUENCE));
		ck_assert_uint_eq(ev->sequence, 0);
	}
	if (flags & ETL_MSG_COMPONENTID) {
		/* Component id wins over the GUID when both bits are set. */
		ck_assert(ev->present & ETL_EVF_COMPONENT_ID);
		ck_assert_uint_eq(ev->component_id, 0xC0000000u + msgnum);
		ck_assert(!(ev->present & ETL_EVF_PROVIDER));
		ck_assert(etl_guid_is_null(&ev->provider));
	} else if (flags & ETL_MSG_GUID) {
		ck_assert(ev->present & ETL_EVF_PROVIDER);
		ck_assert(etl_guid_equal(&ev->provider, &G_MSG));
		ck_assert(!(ev->present & ETL_EVF_COMPONENT_ID));
	} else {
		ck_assert(!(ev->present & (ETL_EVF_PROVIDER | ETL_EVF_COMPONENT_ID)));
	}
	if (flags & ETL_MSG_TIMESTAMP) {
		ck_assert(ev->present & ETL_EVF_TIMESTAMP);
		ck_assert_int_eq(ev->timestamp, 6000000 + msgnum);
	} else {
		/* 0x10 alone reserves the 8 bytes but they are not a time. */
		ck_assert(!(ev->present & ETL_EVF_TIMESTAMP));
		ck_assert_int_eq(ev->timestamp, 0);
	}
	if (flags & ETL_MSG_SYSTEMINFO) {
		ck_assert(ev->present & ETL_EVF_PID);
		ck_assert_uint_eq(ev->tid, 0x7100u + msgnum);
		ck_assert_uint_eq(ev->pid, 0x7200u + msgnum);
	} else {
		ck_assert(!(ev->present & ETL_EVF_PID));
		ck_assert_uint_eq(ev->tid, 0);
	}
	uint8_t ptr = (flags & ETL_MSG_POINTER64) ? 8 : (flags & ETL_MSG_POINTER32) ? 4 : default_ptr;
	ck_assert_uint_eq(ev->ptr_size, ptr);
	uint32_t hs = message_header_size(flags);
	ck_assert_uint_eq(ev->header_size, hs);
	ck_assert_ptr_eq(ev->payload, rec + hs);
	ck_assert_uint_eq(ev->payload_size, 4);
	ck_assert_mem_eq(ev->payload, "args", 4);
	ck_assert_uint_eq(ev->size, hs + 4);
}

#define N_MSG (64 * 3)

START_TEST(test_message_all_flags)
{
	struct tu_bytes recs[N_MSG];
	uint64_t offs[N_MSG];
	uint16_t flags[N_MSG];
	for (int i = 0; i < N_MSG; i++) {
		static const uint16_t ptrbits[3] = { 0, ETL_MSG_POINTER32, ETL_MSG_POINTER64 };
		flags[i] = (uint16_t)((i % 64) | ptrbits[i / 64]);
		build_message(&recs[i], flags[i], (uint16_t)(i + 1));
		struct etl_event ev;
		struct etl_err err;
		/* The file's default pointer size applies when neither bit is set. */
		for (int dp = 4; dp <= 8; dp += 4) {
			ck_assert_int_eq(direct_decode(recs[i].p, recs[i].len, 1, 5, (uint8_t)dp, &ev, &err), ETL_OK);
			check_message(&ev, recs[i].p, flags[i], (uint16_t)(i + 1), (uint8_t)dp);
		}
		/* Unknown default: 8. */
		ck_assert_int_eq(direct_decode(recs[i].p, recs[i].len, 0, 0, 0, &ev, &err), ETL_OK);
		check_message(&ev, recs[i].p, flags[i], (uint16_t)(i + 1), 8);
		/* One byte short of its optional items: rejected. */
		uint32_t hs = message_header_size(flags[i]);
		if (hs > 8) {
			struct tu_bytes s;
			tu_bytes_init(&s);
			tu_putbytes(&s, recs[i].p, hs - 1);
			tu_set16(&s, 0, (uint16_t)s.len);
			ck_assert_int_eq(direct_decode(s.p, s.len, 1, 5, 8, &ev, &err), ETL_FAILED);
			ck_assert_int_eq(err.code, ETL_E_TRUNCATED);
			tu_bytes_free(&s);
		}
	}
	/* Through the reader: 32-bit and 64-bit logfiles (default pointer size
	 * from PointerSize). */
	for (int p = 0; p < 2; p++) {
		struct tu_lf lf;
		struct tu_bytes file;
		tu_lf_defaults(&lf);
		lf.ptr_size = p ? 8 : 4;
		lf.pointer_size = p ? 8 : 4;
		file_with_records(&file, &lf, recs, N_MSG, 0x4000, offs);
		static struct got g[N_MSG + 8];
		size_t n = read_mem(&file, ETL_ORDER_FILE, g, N_MSG + 8);
		ck_assert_uint_eq(n, N_MSG + 1);
		ck_assert_int_eq(g[0].ev.kind, p ? ETL_HDR_SYSTEM64 : ETL_HDR_SYSTEM32);
		for (int i = 0; i < N_MSG; i++) {
			ck_assert_int_eq(g[i + 1].st, ETL_OK);
			ck_assert_uint_eq(g[i + 1].ev.file_offset, offs[i]);
			check_message(&g[i + 1].ev, file.p + offs[i], flags[i], (uint16_t)(i + 1), p ? 8 : 4);
			ck_assert_uint_eq(!!(g[i + 1].ev.present & ETL_EVF_UTC), !!(flags[i] & ETL_MSG_TIMESTAMP));
		}
		tu_bytes_free(&file);
	}
	for (int i = 0; i < N_MSG; i++)
		tu_bytes_free(&recs[i]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* ERROR, TIMED and WNODE records: returned with ETL_WARN                */
/* ------------------------------------------------------------------ */

START_TEST(test_legacy_warn)
{
	struct tu_bytes recs[4];
	uint64_t offs[4];
	/* ERROR: marker 0xC00D, size in the low 16 bits. */
	tu_bytes_init(&recs[0]);
	tu_put16(&recs[0], 0);
	tu_put8(&recs[0], 0x0D);
	tu_put8(&recs[0], 0xC0);
	tu_putfill(&recs[0], 0xE1, 0x4C);
	tu_set16(&recs[0], 0, (uint16_t)recs[0].len);
	/* TIMED (0xC00C). */
	tu_bytes_init(&recs[1]);
	tu_put16(&recs[1], 0);
	tu_put8(&recs[1], 0x0C);
	tu_put8(&recs[1], 0xC0);
	tu_putfill(&recs[1], 0xE2, 0x14);
	tu_set16(&recs[1], 0, (uint16_t)recs[1].len);
	/* WNODE_HEADER block: bit 31 of the first u32 clear, which is the
	 * u32 BufferSize. Traced GUID flag set. */
	struct etl_guid wg = tu_guid("99999999-8888-7777-6666-555555555555");
	tu_bytes_init(&recs[2]);
	tu_put32(&recs[2], 0);
	tu_put32(&recs[2], 0x1234);            /* ProviderId */
	tu_put64(&recs[2], 0);                 /* HistoricalContext */
	tu_put64(&recs[2], 7000000);           /* TimeStamp */
	tu_putguid(&recs[2], &wg);
	tu_put32(&recs[2], 1);                 /* ClientContext */
	tu_put32(&recs[2], 0x00020000);        /* Flags: TRACED_GUID */
	tu_putbytes(&recs[2], "wnode", 5);
	tu_set32(&recs[2], 0, (uint32_t)recs[2].len);
	/* A normal record after them is still read. */
	tu_bytes_init(&recs[3]);
	tu_rec_system(&recs[3], 0x02, 2, 0x0302, 1, 2, 7000001, 0, 0, NULL, PAYLOAD, PAYLOAD_N);
	struct tu_lf lf;
	struct tu_bytes file;
	tu_lf_defaults(&lf);
	file_with_records(&file, &lf, recs, 4, BUF_SIZE, offs);
	static const int kinds[3] = { ETL_HDR_ERROR, ETL_HDR_TIMED, ETL_HDR_WNODE };
	static const uint32_t sizes[3] = { 0x50, 0x18, 0x35 };
	for (int order = 0; order < 2; order++) {
		struct got g[8];
		size_t n = read_mem(&file, order, g, 8);
		ck_assert_uint_eq(n, 5);
		for (int i = 0; i < 3; i++) {
			const struct got *e = find_off(g, n, offs[i]);
			ck_assert_ptr_nonnull(e);
			ck_assert_int_eq(e->st, ETL_WARN);
			ck_assert_int_eq(e->ev.kind, kinds[i]);
			ck_assert_uint_eq(e->ev.size, sizes[i]);
			ck_assert_int_eq(e->code, ETL_E_UNSUPPORTED);
			ck_assert_uint_eq(e->off, offs[i]);
			ck_assert_ptr_eq(e->ev.record, file.p + offs[i]);
			ck_assert_ptr_eq(e->ev.payload + e->ev.payload_size, file.p + offs[i] + sizes[i]);
		}
		const struct got *w = find_off(g, n, offs[2]);
		ck_assert_int_eq(w->ev.timestamp, 7000000);
		ck_assert(etl_guid_equal(&w->ev.provider, &wg));
		ck_assert_uint_eq(w->ev.trace_flags, 0x00020000);
		ck_assert_uint_eq(w->ev.header_size, 0x30);
		ck_assert_mem_eq(w->ev.payload, "wnode", 5);
		const struct got *e = find_off(g, n, offs[3]);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->st, ETL_OK);
		ck_assert_int_eq(e->code, ETL_E_NONE);
		ck_assert_int_eq(e->ev.kind, ETL_HDR_SYSTEM64);
	}
	for (int i = 0; i < 4; i++)
		tu_bytes_free(&recs[i]);
	tu_bytes_free(&file);
}
END_TEST

/* ------------------------------------------------------------------ */
/* damage: unknown markers, bad sizes, ext chains                       */
/* ------------------------------------------------------------------ */

/* File: header buffer; buffer A = good, BAD, good-after; buffer B = good.
 * Reads it in both orders and checks: the first good record and buffer B's
 * are returned, the record after the bad one is not, and exactly one
 * ETL_FAILED with the given code at the bad record's absolute offset. */
static void check_bad_record(const struct tu_bytes *bad, int want_code, const char *what)
{
	struct tu_bytes good[3];
	for (int i = 0; i < 3; i++) {
		tu_bytes_init(&good[i]);
		tu_rec_system(&good[i], 0x02, 2, 0x0302, 1, 2, 8000000 + i, 0, 0, NULL, PAYLOAD, PAYLOAD_N);
	}
	struct tu_lf lf;
	struct tu_bytes file;
	struct tu_buffer a, b;
	tu_lf_defaults(&lf);
	tu_bytes_init(&file);
	tu_file_header(&file, &lf, 0);
	tu_buffer_init(&a, BUF_SIZE, 0, 1);
	uint64_t good0 = file.len + tu_buffer_add(&a, good[0].p, good[0].len, 0);
	uint64_t bad_off = file.len + tu_buffer_add(&a, bad->p, bad->len, 0);
	uint64_t after = file.len + tu_buffer_add(&a, good[1].p, good[1].len, 0);
	tu_buffer_emit(&file, &a);
	tu_buffer_init(&b, BUF_SIZE, 0, 2);
	uint64_t good2 = file.len + tu_buffer_add(&b, good[2].p, good[2].len, 0);
	tu_buffer_emit(&file, &b);
	for (int order = 0; order < 2; order++) {
		struct got g[16];
		size_t n = read_mem(&file, order, g, 16);
		int nfail = 0;
		for (size_t i = 0; i < n; i++)
			if (g[i].st == ETL_FAILED) {
				nfail++;
				ck_assert_msg(g[i].code == want_code, "%s: code %d, expected %d", what, g[i].code,
				              want_code);
				ck_assert_msg(g[i].off == bad_off, "%s: offset 0x%" PRIx64 ", expected 0x%" PRIx64,
				              what, g[i].off, bad_off);
			}
		ck_assert_msg(nfail == 1, "%s: %d failures", what, nfail);
		ck_assert_msg(n == 4, "%s: %zu results", what, n);
		ck_assert_ptr_nonnull(find_off(g, n, good0));
		ck_assert_ptr_nonnull(find_off(g, n, good2));
		ck_assert_ptr_null(find_off(g, n, after));
		ck_assert_ptr_null(find_off(g, n, bad_off));
	}
	tu_buffer_free(&a);
	tu_buffer_free(&b);
	tu_bytes_free(&file);
	for (int i = 0; i < 3; i++)
		tu_bytes_free(&good[i]);
}

START_TEST(test_unknown_marker)
{
	static const uint32_t markers[] = { 0xC0FF0020u, 0xC0000020u, 0xC00E0020u, 0xC00F0020u,
	                                    0xB0000020u, 0xA0000020u, 0x80000020u, 0xC0160020u };
	for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
		struct tu_bytes bad;
		char what[64];
		tu_bytes_init(&bad);
		tu_put32(&bad, markers[i]);
		tu_putfill(&bad, 0x5A, 0x1C);
		snprintf(what, sizeof what, "marker 0x%08x", markers[i]);
		check_bad_record(&bad, ETL_E_UNSUPPORTED_HEADER_TYPE, what);
		tu_bytes_free(&bad);
	}
}
END_TEST

/* A record whose size is below its module's min_size. */
START_TEST(test_size_below_minimum)
{
	static const struct {
		uint32_t marker_hi;   /* bytes 2-3 of the marker */
		int size_at;          /* 0: u16 at +0; 4: u16 at +4; 32: u32 at +0 */
		uint32_t size;
	} cases[] = {
		{ 0xC002, 4, 0x18 },  /* SYSTEM64, min 0x20 */
		{ 0xC001, 4, 0x08 },
		{ 0xC004, 4, 0x10 },  /* COMPACT64, min 0x18 */
		{ 0xC011, 4, 0x0C },  /* PERFINFO64, min 0x10 */
		{ 0xC014, 0, 0x28 },  /* FULL_HEADER64, min 0x30 */
		{ 0xC015, 0, 0x30 },  /* INSTANCE64, min 0x38 */
		{ 0xC013, 0, 0x48 },  /* EVENT_HEADER64, min 0x50 */
		{ 0xC012, 0, 0x08 },
		{ 0x9000, 0, 0x04 },  /* MESSAGE, min 8 */
		{ 0xC00D, 0, 0x04 },  /* ERROR, min 8 */
		{ 0x0000, 32, 0x28 }, /* WNODE, min 0x30 */
		{ 0xC002, 4, 0x00 },  /* zero size */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tu_bytes bad;
		char what[64];
		tu_bytes_init(&bad);
		tu_putfill(&bad, 0, 0x60);
		if (cases[i].size_at == 32) {
			tu_set32(&bad, 0, cases[i].size);
		} else {
			tu_set16(&bad, 2, (uint16_t)cases[i].marker_hi);
			if (cases[i].size_at == 4) {
				tu_set16(&bad, 0, 2);
				tu_set16(&bad, 4, (uint16_t)cases[i].size);
			} else {
				tu_set16(&bad, 0, (uint16_t)cases[i].size);
			}
		}
		snprintf(what, sizeof what, "case %zu (marker hi 0x%04x, size 0x%x)", i,
		         cases[i].marker_hi, cases[i].size);
		check_bad_record(&bad, ETL_E_BAD_SIZE, what);
		tu_bytes_free(&bad);
	}
}
END_TEST

/* A record that runs past the valid end of its buffer. */
START_TEST(test_size_past_buffer_end)
{
	for (int kind = 0; kind < 3; kind++) {
		struct tu_lf lf;
		struct tu_bytes file, rec;
		struct tu_buffer a, b;
		tu_lf_defaults(&lf);
		tu_bytes_init(&file);
		tu_bytes_init(&rec);
		tu_file_header(&file, &lf, 0);
		tu_buffer_init(&a, BUF_SIZE, 0, 1);
		tu_rec_system(&rec, 0x02, 2, 0x0302, 1, 2, 9000000, 0, 0, NULL, PAYLOAD, PAYLOAD_N);
		uint64_t good = file.len + tu_buffer_add(&a, rec.p, rec.len, 0);
		uint64_t bad;
		if (kind == 0) {
			/* Size field claims 8 bytes beyond SavedOffset (the data is
			 * there, 0xFF fill, but beyond the valid end). */
			bad = file.len + tu_buffer_add(&a, rec.p, rec.len, 0);
			tu_set16(&a.recs, (size_t)(bad - file.len - HDR) + 4, (uint16_t)(rec.len + 8 + 2));
		} else if (kind == 1) {
			/* Size larger than the whole buffer. */
			bad = file.len + tu_buffer_add(&a, rec.p, rec.len, 0);
			tu_set16(&a.recs, (size_t)(bad - file.len - HDR) + 4, 0xFFF0);
		} else {
			/* EVENT_HEADER, whose size is at +0. */
			struct tu_bytes ev;
			tu_bytes_init(&ev);
			tu_rec_event(&ev, 0x13, NULL, 1, 1, 2, 9000001, PAYLOAD, PAYLOAD_N);
			bad = file.len + tu_buffer_add(&a, ev.p, ev.len, 0);
			tu_set16(&a.recs, (size_t)(bad - file.len - HDR), (uint16_t)(ev.len + 0x100));
			tu_bytes_free(&ev);
		}
		tu_buffer_emit(&file, &a);
		tu_buffer_init(&b, BUF_SIZE, 0, 2);
		uint64_t next = file.len + tu_buffer_add(&b, rec.p, rec.len, 0);
		tu_buffer_emit(&file, &b);
		for (int order = 0; order < 2; order++) {
			struct got g[8];
			size_t n = read_mem(&file, order, g, 8);
			ck_assert_uint_eq(n, 4);
			ck_assert_ptr_nonnull(find_off(g, n, good));
			ck_assert_ptr_nonnull(find_off(g, n, next));
			int nfail = 0;
			for (size_t i = 0; i < n; i++)
				if (g[i].st == ETL_FAILED) {
					nfail++;
					ck_assert_int_eq(g[i].code, ETL_E_BAD_SIZE);
					ck_assert_uint_eq(g[i].off, bad);
				}
			ck_assert_int_eq(nfail, 1);
		}
		tu_buffer_free(&a);
		tu_buffer_free(&b);
		tu_bytes_free(&rec);
		tu_bytes_free(&file);
	}
}
END_TEST

/* Extended-item chains that do not fit their record. */
START_TEST(test_ext_chain_damage)
{
	for (int kind = 0; kind < 4; kind++) {
		struct tu_bytes ext, rec;
		tu_bytes_init(&ext);
		int want = ETL_E_BAD_SIZE;
		if (kind == 0) {
			/* Item size runs past the record. */
			put_item(&ext, ETL_EXT_TS_ID, 0, "\x01\0\0\0", 4);
			tu_set16(&ext, 0, 0x40);
		} else if (kind == 1) {
			/* Linkage says more follow, but the record ends. */
			put_item(&ext, ETL_EXT_TS_ID, 1, "\x01\0\0\0", 4);
			want = ETL_E_TRUNCATED;
		} else if (kind == 2) {
			/* DataSize larger than the item. */
			put_item(&ext, ETL_EXT_TS_ID, 0, "\x01\0\0\0", 4);
			tu_set16(&ext, 6, 0x20);
		} else {
			/* EXTENDED_INFO flag but no room for an item header. */
			tu_putbytes(&ext, "\x08\0\x03\0", 4);
			want = ETL_E_TRUNCATED;
		}
		build_event_header(&rec, 0x13, 0x0001, &ext, NULL, 0);
		struct etl_event ev;
		struct etl_err err;
		ck_assert_int_eq(direct_decode(rec.p, rec.len, 1, 5, 8, &ev, &err), ETL_FAILED);
		ck_assert_msg(err.code == want, "kind %d: code %d", kind, err.code);
		ck_assert_uint_ge(err.pos, 0x50);
		char what[32];
		snprintf(what, sizeof what, "ext chain damage %d", kind);
		check_bad_record(&rec, want, what);
		tu_bytes_free(&ext);
		tu_bytes_free(&rec);
	}
}
END_TEST

/* ------------------------------------------------------------------ */

/* Every kernel group's provider is found again by its GUID (the lookup
 * by GUID uses its own sorted index, which must list every entry), with
 * the GUIDs doc/format.md §2.6 gives. */
START_TEST(test_known_providers)
{
	static const struct { unsigned group; const char *name, *guid; } spot[] = {
		{ 0x00, "EventTrace", "68fdd900-4a3e-11d1-84f4-0000f80464e3" },
		{ 0x03, "Process", "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c" },
		{ 0x14, "ImageLoad", "2cb15d1d-5fc1-11d2-abe1-00a0c911f518" },
		{ 0x17, "CritSec", "3ac66736-cc59-4cff-8115-8df50e39816b" },
		{ 0x1E, "HypervisorX", "2ce9a149-effe-42f0-a635-a1d39e26c8f2" },
	};
	unsigned found = 0;
	for (unsigned g = 0; g < 256; g++) {
		struct etl_guid guid;
		const char *name = etl_kernel_group_provider(g, &guid);
		if (!name)
			continue;
		found++;
		const char *back = etl_known_provider_name(&guid);
		ck_assert_msg(back && strcmp(back, name) == 0, "group 0x%02x %s not found by GUID", g, name);
	}
	ck_assert_uint_eq(found, 0x1F);
	for (size_t i = 0; i < sizeof spot / sizeof spot[0]; i++) {
		struct etl_guid guid, want;
		char text[ETL_GUID_STRLEN];
		ck_assert_str_eq(etl_kernel_group_provider(spot[i].group, &guid), spot[i].name);
		ck_assert_str_eq(etl_guid_format(&guid, text), spot[i].guid);
		ck_assert_int_eq(etl_guid_parse(spot[i].guid, &want), ETL_OK);
		ck_assert(etl_guid_equal(&guid, &want));
	}
	static const char *const others[][2] = {
		{ "bbccf6c1-6cd1-48c4-80ff-839482e37671", "EventMetadata" },
		{ "b3e675d7-2554-4f18-830b-2762732560de", "ImageId" },
		{ "9b79ee91-b5fd-41c0-a243-4248e266e9d0", "SystemConfigEx" },
	};
	for (size_t i = 0; i < 3; i++) {
		struct etl_guid guid;
		ck_assert_int_eq(etl_guid_parse(others[i][0], &guid), ETL_OK);
		ck_assert_str_eq(etl_known_provider_name(&guid), others[i][1]);
		guid.data4[7] ^= 1;   /* same first word, other GUID */
		ck_assert_ptr_null(etl_known_provider_name(&guid));
	}
	/* first words below, between and above the table's: no name */
	static const uint32_t absent[] = { 0, 1, 0x01853A64u, 0x50000000u, 0xE43445DFu, 0xE43445E1u, 0xFFFFFFFFu };
	struct etl_guid g;
	ck_assert_int_eq(etl_guid_parse(others[0][0], &g), ETL_OK);
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
		g.data1 = absent[i];
		ck_assert_ptr_null(etl_known_provider_name(&g));
	}
}
END_TEST

static Suite *hdr_suite(void)
{
	Suite *s = suite_create("hdr");
	TCase *tc = tcase_create("modules");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_marker_dispatch);
	tcase_add_loop_test(tc, test_system_style, 0, (int)(sizeof sysmods / sizeof sysmods[0]));
	tcase_add_test(tc, test_full_header);
	tcase_add_test(tc, test_instance_guid_form);
	tcase_add_test(tc, test_instance_old_form);
	tcase_add_test(tc, test_event_header_all_ext);
	tcase_add_test(tc, test_ext_iter_program_event);
	tcase_add_test(tc, test_ext_decode_rejects);
	tcase_add_test(tc, test_message_all_flags);
	tcase_add_test(tc, test_legacy_warn);
	tcase_add_test(tc, test_known_providers);
	suite_add_tcase(s, tc);
	TCase *td = tcase_create("damage");
	tcase_set_timeout(td, 60);
	tcase_add_test(td, test_unknown_marker);
	tcase_add_test(td, test_size_below_minimum);
	tcase_add_test(td, test_size_past_buffer_end);
	tcase_add_test(td, test_ext_chain_damage);
	suite_add_tcase(s, td);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hdr_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
