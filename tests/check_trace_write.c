/*
 * check_trace_write.c - the write kinds of the tracing runtime
 * (lib/trace/trace_write.c, lib/trace/trace_encode.c, include/etl_tracelogging.h).
 *
 * encode (the size / encode callbacks run into a byte buffer, decoded back
 * with the reader's header modules, formats/hdr/hdr_*.c):
 *   eh_manifest      EVENT_HEADER64 marker, every descriptor field, tid /
 *                    pid / timestamp from the stamp, thread activity id,
 *                    CPU times 0, flags 0 without items, exact size and
 *                    payload bytes, nothing written past the record;
 *   eh_props (x7)    each enable property alone and all together, for a
 *                    manifest and a transfer write: item order (1,2,3,6,a,
 *                    c,b,d), ALIGN8 sizes, linkage, EXTENDED_INFO flag, and
 *                    values: related id, SID S-1-22-1-getuid(), TS id =
 *                    getsid(0), stack (MatchId 0, non-zero addresses), event
 *                    key = FNV-1a recomputed here, process start key from
 *                    /proc/self/stat parsed here; the same description
 *                    without items for a session without properties;
 *   eh_stack_start   the stack starts at the caller's return address;
 *   eh_limits        0xFFFF record limit exactly, items pushing over it,
 *                    pieces without pointers, counted-piece prefixes;
 *   classic_and_instance  FULL_HEADER64 / INSTANCE64: class GUID, type,
 *                    level, version word, ids, CPU times 0, instance ids
 *                    and parent GUID, payload;
 *   message          MESSAGE: OptionFlags 0xAB, number, sequence (the
 *                    process counter), GUID, timestamp, tid, pid, payload;
 *   tl_metadata_bytes  compile-time metadata against hand-written bytes;
 *                    ETL_TL_DESCRIPTOR option folding (last level wins,
 *                    keywords OR'ed, defaults level 5 channel 11);
 *   file_roundtrip   3 threads x 200 x every kind encoded, written with
 *                    etl_writer, read back with etl_reader / etl_decoder:
 *                    every field equal, each event exactly once;
 *   activity         thread-local current activity, set/get/prev, new ids
 *                    distinct, non-zero, per-process tail.
 * session (through the delivery core):
 *   session_props (x7)  every write kind and every TraceLogging field
 *                    through a real session for each enable property, read
 *                    back: all header fields, items and values as above,
 *                    the stack starting in the calling function,
 *                    IGNORE_KEYWORD_0 dropping exactly the keyword-0 events,
 *                    events_written / events_lost;
 *   session_roundtrip  4 threads x 500 x 6 kinds in blocking mode with a
 *                    4-buffer pool: events_lost 0, every event back once
 *                    with every field equal, message sequence numbers
 *                    distinct and consecutive;
 *   session_disabled disabled and filtered-out events evaluate no argument
 *                    and write nothing.
 */
#define ETL_BUILDING_LIB 1

#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "etl.h"
#include "etl_trace.h"
#include "etl_tracelogging.h"
#include "lib/trace/trace_encode.h"
#include "formats/hdr/hdr.h"
#include "testutil.h"


static const struct etl_guid PROV = { 0x12345678, 0x9abc, 0xdef0, { 1, 2, 3, 4, 5, 6, 7, 8 } };
static const struct etl_guid ACT = { 0xa1a2a3a4, 0xb1b2, 0xc1c2, { 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8 } };
static const struct etl_guid REL = { 0x01020304, 0x0506, 0x0708, { 9, 10, 11, 12, 13, 14, 15, 16 } };
static const struct etl_guid CLS = { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const struct etl_guid MSG = { 0x2818ef08, 0x6a54, 0x396f, { 0x22, 0x44, 0x5a, 0x6e, 0xa4, 0xa9, 0x8c, 0xf0 } };

#define REC_CAP 0x10000u

/* ------------------------------------------------------------------ */
/* helpers                                                              */
/* ------------------------------------------------------------------ */

static int guid_eq(const struct etl_guid *a, const struct etl_guid *b)
{
	return etl_guid_equal(a, b);
}

/* Runs ev's callbacks like the core: size, then encode into exactly that
 * many bytes; the bytes after the record must stay untouched. */
static uint32_t run_encode(const struct etl__rt_event *ev, const struct etl__rt_stamp *st,
                           uint8_t *buf)
{
	uint32_t n = ev->size(ev, st->props);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n, 0xFFFF);
	ck_assert_uint_eq(ev->size(ev, st->props), n);   /* stable */
	memset(buf, 0xAA, REC_CAP);
	ev->encode(ev, st, buf, n);
	for (uint32_t i = n; i < REC_CAP; i++)
		TU_CHECK(buf[i] == 0xAA, "encode wrote past its size %u at %u", n, i);
	ck_assert_uint_eq(tu_le16(buf), n);
	return n;
}

/* Decodes one record through the reader's header module. */
static void decode_rec(const uint8_t *rec, uint32_t n, struct etl_event *ev)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_marker(tu_le32(rec));
	ck_assert_ptr_nonnull(ops);
	uint32_t size = 0;
	ck_assert_int_eq(ops->peek_size(rec, &size), 0);
	ck_assert_uint_eq(size, n);
	struct etl_hdr_ctx ctx = { 2, 0, 8 };
	struct etl_cur c;
	struct etl_err err;
	etl_cur_init(&c, rec, n);
	memset(ev, 0, sizeof *ev);
	memset(&err, 0, sizeof err);
	int rc = ops->decode(&c, &ctx, ev, &err);
	ck_assert_msg(rc == ETL_OK, "decode: %s", err.msg);
}

/* The ext types of ev in order, as a string like "1,2,3,". Checks the
 * chain's alignment, sizes and linkage on the way. */
static void ext_types(const struct etl_event *ev, char *out, size_t cap)
{
	struct etl_ext_iter it;
	struct etl_ext_item item;
	uint32_t k = 0;
	out[0] = 0;
	etl_ext_iter_init(&it, ev);
	while (etl_ext_iter_next(&it, &item) == ETL_OK) {
		size_t l = strlen(out);
		snprintf(out + l, cap - l, "%x,", (unsigned)item.ext_type);
		ck_assert_uint_eq(item.item_size, (8u + item.data_size + 7u) & ~7u);
		ck_assert_uint_eq(item.item_size % 8, 0);
		k++;
		ck_assert_uint_eq(item.linkage & 1u, k < ev->ext_count ? 1u : 0u);
		ck_assert_uint_eq(item.linkage & ~1u, 0);
	}
	ck_assert_uint_eq(k, ev->ext_count);
}

static int find_ext(const struct etl_event *ev, unsigned type, struct etl_ext_item *out)
{
	struct etl_ext_iter it;
	etl_ext_iter_init(&it, ev);
	while (etl_ext_iter_next(&it, out) == ETL_OK)
		if (out->ext_type == type)
			return 1;
	return 0;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001B3ull;
	}
	return h;
}

/* Expected EVENT_KEY: FNV-1a 64 of GUID bytes as stored, id, version,
 * TraceLogging metadata. */
static uint64_t expect_event_key(const struct etl_guid *g, uint16_t id, uint8_t ver,
                                 const void *meta, size_t meta_n)
{
	uint8_t b[19];
	etl_put_guid(b, g);
	b[16] = (uint8_t)id;
	b[17] = (uint8_t)(id >> 8);
	b[18] = ver;
	uint64_t h = fnv(0xCBF29CE484222325ull, b, 19);
	return meta ? fnv(h, meta, meta_n) : h;
}

static uint64_t expect_start_key(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	ck_assert_ptr_nonnull(p);
	unsigned long long v[20];
	char state;
	/* fields 3..22: state, then 19 numbers; starttime is the last. */
	int got = sscanf(p + 1, " %c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
	                 &state, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
	                 &v[10], &v[11], &v[12], &v[13], &v[14], &v[15], &v[16], &v[17], &v[18]);
	ck_assert_int_eq(got, 20);
	return ((uint64_t)v[18] << 22) + (uint64_t)getpid();
}

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static struct etl__rt_stamp stamp(uint32_t props)
{
	struct etl__rt_stamp st;
	st.timestamp = 0x0123456789ABCDLL;
	st.pid = (uint32_t)getpid();
	st.tid = 4242;
	st.cpu = 0;
	st.props = props;
	st.logger_id = 3;
	return st;
}

static const struct etl_event_descriptor DESC = {
	.id = 0x1234, .version = 3, .channel = 16, .level = 4, .opcode = 7, .task = 0x2345,
	.keyword = 0x8000000000000011ull
};

/* Checks the EVENT_HEADER fields every write of DESC shares. */
static void check_eh_common(const struct etl_event *ev, const struct etl__rt_stamp *st,
                            const struct etl_event_descriptor *d)
{
	ck_assert_int_eq(ev->kind, ETL_HDR_EVENT_HEADER64);
	ck_assert_uint_eq(ev->header_type, 0x13);
	ck_assert_uint_eq(ev->ptr_size, 8);
	ck_assert_uint_eq(ev->tid, st->tid);
	ck_assert_uint_eq(ev->pid, st->pid);
	ck_assert_int_eq(ev->timestamp, st->timestamp);
	ck_assert(guid_eq(&ev->provider, &PROV));
	ck_assert_uint_eq(ev->id, d->id);
	ck_assert_uint_eq(ev->version, d->version);
	ck_assert_uint_eq(ev->channel, d->channel);
	ck_assert_uint_eq(ev->level, d->level);
	ck_assert_uint_eq(ev->opcode, d->opcode);
	ck_assert_uint_eq(ev->task, d->task);
	ck_assert_uint_eq(ev->keyword, d->keyword);
	ck_assert_uint_eq(ev->kernel_time, 0);
	ck_assert_uint_eq(ev->user_time, 0);
	ck_assert_uint_eq(ev->event_property, 0);
	ck_assert_uint_eq(ev->header_flags, ev->ext_count ? 1u : 0u);
}

/* ------------------------------------------------------------------ */
/* encode: EVENT_HEADER                                                 */
/* ------------------------------------------------------------------ */

static const uint8_t P1[] = { 1, 2, 3 }, P2[] = { 0x44, 0x55 };
static const uint32_t P3 = 0xCAFEBABE;

START_TEST(test_eh_manifest)
{
	static uint8_t buf[REC_CAP];
	struct etl_data data[3] = { ETL_DATA(P1, 3), ETL_DATA(P2, 2), ETL_DATA(&P3, 4) };
	struct etl__eh_desc x;
	struct etl__rt_event rt;
	struct etl__rt_stamp st = stamp(0);
	struct etl_event ev;
	struct etl_guid prev;

	etl_activity_set(&ACT, &prev);
	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, NULL, NULL, NULL, 0, NULL, 3, data, 0, 0),
	                 ETL_OK);
	etl_activity_set(NULL, NULL);
	etl__eh_event(&rt, NULL, &x);
	ck_assert_uint_eq(rt.level, 4);
	ck_assert_uint_eq(rt.keyword, DESC.keyword);
	uint32_t n = run_encode(&rt, &st, buf);
	ck_assert_uint_eq(n, 0x50 + 9);
	/* The marker as Windows writes it: size, 0x13, 0xC0. */
	ck_assert_uint_eq(buf[2], 0x13);
	ck_assert_uint_eq(buf[3], 0xC0);
	decode_rec(buf, n, &ev);
	check_eh_common(&ev, &st, &DESC);
	ck_assert(guid_eq(&ev.activity_id, &ACT));
	ck_assert_uint_eq(ev.ext_count, 0);
	ck_assert_uint_eq(ev.header_flags, 0);
	ck_assert_uint_eq(ev.payload_size, 9);
	static const uint8_t want[] = { 1, 2, 3, 0x44, 0x55, 0xBE, 0xBA, 0xFE, 0xCA };
	ck_assert_mem_eq(ev.payload, want, 9);

	/* No payload at all. */
	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, &REL, NULL, NULL, 0, NULL, 0, NULL, 0, 0),
	                 ETL_OK);
	n = run_encode(&rt, &st, buf);
	ck_assert_uint_eq(n, 0x50);
	decode_rec(buf, n, &ev);
	ck_assert(guid_eq(&ev.activity_id, &REL));
	ck_assert_uint_eq(ev.payload_size, 0);
}
END_TEST

/* Every enable property alone (loop index 0..5) and all together (6). */
static const uint32_t PROPS[] = {
	ETL_ENABLE_SID, ETL_ENABLE_TS_ID, ETL_ENABLE_STACK_TRACE, ETL_ENABLE_EVENT_KEY,
	ETL_ENABLE_PROCESS_START_KEY, ETL_ENABLE_IGNORE_KEYWORD_0,
	ETL_ENABLE_SID | ETL_ENABLE_TS_ID | ETL_ENABLE_STACK_TRACE | ETL_ENABLE_EVENT_KEY |
	ETL_ENABLE_PROCESS_START_KEY | ETL_ENABLE_IGNORE_KEYWORD_0
};

/* Asserts the items props asks for, in Windows order, with their values.
 * related: expected RELATED_ACTIVITYID or NULL; tl: metadata or NULL. */
static void check_items(const struct etl_event *ev, uint32_t props, const struct etl_guid *related,
                        const char *prov_name, const void *meta, size_t meta_n,
                        const struct etl_guid *prov, uint16_t id, uint8_t ver, int stack_min)
{
	char want[64] = "", got[64];
	struct etl_ext_item it;
	struct etl_ext_typed ty;

	if (related)
		strcat(want, "1,");
	if (props & ETL_ENABLE_SID)
		strcat(want, "2,");
	if (props & ETL_ENABLE_TS_ID)
		strcat(want, "3,");
	if (props & ETL_ENABLE_STACK_TRACE)
		strcat(want, "6,");
	if (props & ETL_ENABLE_EVENT_KEY)
		strcat(want, "a,");
	if (meta)
		strcat(want, "c,b,");
	if (props & ETL_ENABLE_PROCESS_START_KEY)
		strcat(want, "d,");
	ext_types(ev, got, sizeof got);
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(ev->header_flags, want[0] ? 1u : 0u);

	if (related) {
		ck_assert(find_ext(ev, ETL_EXT_RELATED_ACTIVITYID, &it));
		ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
		ck_assert(guid_eq(&ty.u.guid, related));
	}
	if (props & ETL_ENABLE_SID) {
		ck_assert(find_ext(ev, ETL_EXT_SID, &it));
		ck_assert_uint_eq(it.data_size, 16);
		ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
		ck_assert_uint_eq(ty.u.sid.revision, 1);
		ck_assert_uint_eq(ty.u.sid.sub_count, 2);
		static const uint8_t auth[6] = { 0, 0, 0, 0, 0, 22 };
		ck_assert_mem_eq(ty.u.sid.authority, auth, 6);
		ck_assert_uint_eq(tu_le32(ty.u.sid.sub), 1);
		ck_assert_uint_eq(tu_le32(ty.u.sid.sub + 4), (uint32_t)getuid());
	}
	if (props & ETL_ENABLE_TS_ID) {
		ck_assert(find_ext(ev, ETL_EXT_TS_ID, &it));
		ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
		ck_assert_uint_eq(ty.u.u32, (uint32_t)getsid(0));
	}
	if (props & ETL_ENABLE_STACK_TRACE) {
		ck_assert(find_ext(ev, ETL_EXT_STACK_TRACE64, &it));
		ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
		ck_assert_uint_eq(ty.u.stack.match_id, 0);
		ck_assert_uint_eq(ty.u.stack.addr_size, 8);
		ck_assert_int_ge(ty.u.stack.count, stack_min);
		ck_assert_uint_le(ty.u.stack.count, ETL__STACK_MAX);
		for (uint32_t i = 0; i < ty.u.stack.count; i++)
			ck_assert_uint_ne(tu_le64(ty.u.stack.addrs + 8 * i), 0);
	}
	if (props & ETL_ENABLE_EVENT_KEY) {
		ck_assert(find_ext(ev, ETL_EXT_EVENT_KEY, &it));
		ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
		ck_assert_uint_eq(ty.u.u64, expect_event_key(prov, id, ver, meta, meta_n));
	}
	if (meta) {
		ck_assert(find_ext(ev, ETL_EXT_PROV_TRAITS, &it));
		ck_assert_uint_eq(it.data_size, 2 + strlen(prov_name) + 1);
		ck_assert_uint_eq(tu_le16(it.data), it.data_size);
		ck_assert_str_eq((const char *)it.data + 2, prov_name);
		ck_assert(find_ext(ev, ETL_EXT_EVENT_SCHEMA_TL, &it));
		ck_assert_uint_eq(it.data_size, 2 + meta_n);
		ck_assert_uint_eq(tu_le16(it.data), 2 + meta_n);
		ck_assert_mem_eq(it.data + 2, meta, meta_n);
	}
	if (props & ETL_ENABLE_PROCESS_START_KEY) {
		ck_assert(find_ext(ev, ETL_EXT_PROCESS_START_KEY, &it));
		ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
		ck_assert_uint_eq(ty.u.u64, expect_start_key());
	}
}

START_TEST(test_eh_props)
{
	static uint8_t buf[REC_CAP];
	uint32_t props = PROPS[_i];
	struct etl_data data[2] = { ETL_DATA(P1, 3), ETL_DATA(&P3, 4) };
	struct etl__eh_desc x;
	struct etl__rt_event rt;
	struct etl__rt_stamp st = stamp(props);
	struct etl_event ev;

	/* Manifest write, and a transfer write (related activity). */
	for (int transfer = 0; transfer < 2; transfer++) {
		ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, &ACT, transfer ? &REL : NULL,
		                                 NULL, 0, NULL, 2, data, 0, 0), ETL_OK);
		etl__eh_event(&rt, NULL, &x);
		uint32_t n = run_encode(&rt, &st, buf);
		decode_rec(buf, n, &ev);
		check_eh_common(&ev, &st, &DESC);
		ck_assert(guid_eq(&ev.activity_id, &ACT));
		check_items(&ev, props, transfer ? &REL : NULL, NULL, NULL, 0, &PROV, DESC.id,
		            DESC.version, 1);
		ck_assert_uint_eq(ev.payload_size, 7);
		ck_assert_mem_eq(ev.payload, P1, 3);
		ck_assert_uint_eq(tu_le32(ev.payload + 3), P3);
		/* The same description encodes for a session without items. */
		struct etl__rt_stamp st0 = stamp(0);
		n = run_encode(&rt, &st0, buf);
		ck_assert_uint_eq(n, 0x50 + (transfer ? 24u : 0u) + 7);
	}
}
END_TEST

/* Stack item: starts at the caller of the public write (the address
 * handed as caller), which is found in the frames. */
static __attribute__((noinline)) uintptr_t here(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

START_TEST(test_eh_stack_start)
{
	static uint8_t buf[REC_CAP];
	struct etl__eh_desc x;
	struct etl__rt_event rt;
	struct etl__rt_stamp st = stamp(ETL_ENABLE_STACK_TRACE);
	struct etl_event ev;
	struct etl_ext_item it;
	struct etl_ext_typed ty;
	uintptr_t caller = here();   /* an address inside this test function */

	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, NULL, NULL, NULL, 0, NULL, 0, NULL, 0,
	                                 caller), ETL_OK);
	etl__eh_event(&rt, NULL, &x);
	uint32_t n = run_encode(&rt, &st, buf);
	decode_rec(buf, n, &ev);
	ck_assert(find_ext(&ev, ETL_EXT_STACK_TRACE64, &it));
	ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
	/* caller is not a return address of the frames here, so the whole
	 * stack is kept; with a real return address the list starts there. */
	ck_assert_uint_ge(ty.u.stack.count, 2);
	uint64_t second = tu_le64(ty.u.stack.addrs + 8);
	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, NULL, NULL, NULL, 0, NULL, 0, NULL, 0,
	                                 (uintptr_t)second), ETL_OK);
	n = run_encode(&rt, &st, buf);
	decode_rec(buf, n, &ev);
	ck_assert(find_ext(&ev, ETL_EXT_STACK_TRACE64, &it));
	ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
	ck_assert_uint_eq(tu_le64(ty.u.stack.addrs), second);
}
END_TEST

START_TEST(test_eh_limits)
{
	static uint8_t big[0x10000];
	struct etl__eh_desc x;
	struct etl__rt_event rt;
	struct etl_data d1 = ETL_DATA(big, 0xFFFF - 0x50);
	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, NULL, NULL, NULL, 0, NULL, 1, &d1, 0, 0),
	                 ETL_OK);
	etl__eh_event(&rt, NULL, &x);
	ck_assert_uint_eq(rt.size(&rt, 0), 0xFFFF);            /* exactly the limit */
	ck_assert_uint_eq(rt.size(&rt, ETL_ENABLE_TS_ID), 0);  /* items push it over */
	d1.size = 0xFFFF - 0x50 + 1;
	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, NULL, NULL, NULL, 0, NULL, 1, &d1, 0, 0),
	                 ETL_OK);
	ck_assert_uint_eq(rt.size(&rt, 0), 0);
	/* A piece with a size but no pointer is refused. */
	struct etl_data bad = { NULL, 4, 0 };
	ck_assert_uint_eq(etl__payload_size(1, &bad, 0), UINT32_MAX);
	ck_assert_int_eq(etl__eh_prepare(&x, &PROV, &DESC, NULL, NULL, NULL, 0, NULL, 1, NULL, 0, 0),
	                 ETL_FAILED);
	/* Counted pieces add their u16 prefix; more than 0xFFFF elements no. */
	struct etl_data c = { big, 8, ETL__TL_COUNTED | 4 };
	ck_assert_uint_eq(etl__payload_size(1, &c, 1), 10);
	ck_assert_uint_eq(etl__payload_size(1, &c, 0), 8);
}
END_TEST

/* ------------------------------------------------------------------ */
/* encode: classic, instance, message                                   */
/* ------------------------------------------------------------------ */

START_TEST(test_classic_and_instance)
{
	static uint8_t buf[REC_CAP];
	struct etl_data data[2] = { ETL_DATA(P1, 3), ETL_DATA(P2, 2) };
	struct etl__rt_stamp st = stamp(ETL_ENABLE_SID);   /* no items in classic records */
	struct etl__rt_event rt;
	struct etl_event ev;

	for (int inst = 0; inst < 2; inst++) {
		struct etl__classic_desc x;
		memset(&x, 0, sizeof x);
		x.class_guid = CLS;
		x.type = 12;
		x.level = 3;
		x.version = 0x0102;
		x.instance = inst;
		x.instance_id = 77;
		x.parent_instance_id = 66;
		x.parent_guid = REL;
		x.n = 2;
		x.data = data;
		x.payload_size = etl__payload_size(2, data, 0);
		etl__classic_event(&rt, NULL, &x);
		ck_assert_uint_eq(rt.level, 3);
		ck_assert_uint_eq(rt.keyword, 0);
		uint32_t n = run_encode(&rt, &st, buf);
		ck_assert_uint_eq(n, (inst ? 0x48u : 0x30u) + 5);
		ck_assert_uint_eq(buf[2], inst ? 0x15 : 0x14);
		ck_assert_uint_eq(buf[3], 0xC0);
		decode_rec(buf, n, &ev);
		ck_assert_int_eq(ev.kind, inst ? ETL_HDR_INSTANCE64 : ETL_HDR_FULL_HEADER64);
		ck_assert_uint_eq(ev.ptr_size, 8);
		ck_assert(guid_eq(&ev.provider, &CLS));
		ck_assert_uint_eq(ev.opcode, 12);
		ck_assert_uint_eq(ev.level, 3);
		ck_assert_uint_eq(ev.version, 2);
		ck_assert_uint_eq(ev.version_word, 0x0102);
		ck_assert_uint_eq(ev.tid, st.tid);
		ck_assert_uint_eq(ev.pid, st.pid);
		ck_assert_int_eq(ev.timestamp, st.timestamp);
		ck_assert_uint_eq(ev.kernel_time, 0);
		ck_assert_uint_eq(ev.user_time, 0);    /* CPU-time outputs, not Flags */
		ck_assert_uint_eq(ev.trace_flags, 0);
		ck_assert_uint_eq(ev.payload_size, 5);
		ck_assert_mem_eq(ev.payload, P1, 3);
		ck_assert_mem_eq(ev.payload + 3, P2, 2);
		if (inst) {
			ck_assert(ev.present & ETL_EVF_INSTANCE);
			ck_assert_uint_eq(ev.instance_id, 77);
			ck_assert_uint_eq(ev.parent_instance_id, 66);
			ck_assert(guid_eq(&ev.parent_guid, &REL));
		}
	}
}
END_TEST

START_TEST(test_message)
{
	static uint8_t buf[REC_CAP];
	struct etl_data data[1] = { ETL_DATA(&P3, 4) };
	struct etl__rt_stamp st = stamp(ETL_ENABLE_SID);
	struct etl__rt_event rt;
	struct etl__msg_desc x;
	struct etl_event ev;

	uint32_t s1 = etl__msg_next_sequence();
	uint32_t s2 = etl__msg_next_sequence();
	ck_assert_uint_eq(s2, s1 + 1);
	x.message_guid = MSG;
	x.number = 43;
	x.sequence = s2;
	x.n = 1;
	x.data = data;
	x.payload_size = 4;
	etl__msg_event(&rt, NULL, 2, 0x30, &x);
	ck_assert_uint_eq(rt.level, 2);
	ck_assert_uint_eq(rt.keyword, 0x30);
	uint32_t n = run_encode(&rt, &st, buf);
	ck_assert_uint_eq(n, 8 + 4 + 16 + 8 + 8 + 4);
	ck_assert_uint_eq(buf[2], 0);
	ck_assert_uint_eq(buf[3], 0x90);
	decode_rec(buf, n, &ev);
	ck_assert_int_eq(ev.kind, ETL_HDR_MESSAGE);
	ck_assert_uint_eq(ev.header_flags, 0x01 | 0x02 | 0x08 | 0x20 | 0x80);
	ck_assert_uint_eq(ev.ptr_size, 8);
	ck_assert_uint_eq(ev.id, 43);
	ck_assert(ev.present & ETL_EVF_SEQUENCE);
	ck_assert_uint_eq(ev.sequence, s2);
	ck_assert(guid_eq(&ev.provider, &MSG));
	ck_assert_int_eq(ev.timestamp, st.timestamp);
	ck_assert_uint_eq(ev.tid, st.tid);
	ck_assert_uint_eq(ev.pid, st.pid);
	ck_assert_uint_eq(ev.payload_size, 4);
	ck_assert_uint_eq(tu_le32(ev.payload), P3);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TraceLogging macros                                                  */
/* ------------------------------------------------------------------ */

/* Compile-time metadata against hand-written bytes (doc/decoding.md §2.3). */
START_TEST(test_tl_metadata_bytes)
{
	static const char m[] = ETL_TL_METADATA("Ev", ETL_TL_LEVEL(2), ETL_TL_U32("A", 0),
	                                        ETL_TL_STR8("S", ""), ETL_TL_HEX8("H", 0),
	                                        ETL_TL_U32_ARRAY("R", (const uint32_t *)0, 0),
	                                        ETL_TL_GUID("G", &PROV), ETL_TL_CSTR16("W", 0, 0));
	static const uint8_t want[] = {
		0x00, 'E', 'v', 0,                 /* tags 0, name */
		'A', 0, 0x08,                      /* UINT32 */
		'S', 0, 0x82, 0x23,                /* ANSISTRING | chain, UTF8 */
		'H', 0, 0x84, 0x04,                /* UINT8 | chain, HEX */
		'R', 0, 0x48,                      /* UINT32 | Vcount */
		'G', 0, 0x0F,                      /* GUID */
		'W', 0, 0x16                       /* COUNTEDSTRING */
	};
	ck_assert_uint_eq(sizeof m - 1, sizeof want);
	ck_assert_mem_eq(m, want, sizeof want);
	struct etl_event_descriptor d = ETL_TL_DESCRIPTOR(ETL_TL_LEVEL(2), ETL_TL_KEYWORD(0x10),
	                                                  ETL_TL_KEYWORD(0x400), ETL_TL_OPCODE(9),
	                                                  ETL_TL_TASK(300), ETL_TL_LEVEL(3));
	ck_assert_uint_eq(d.level, 3);                     /* last wins */
	ck_assert_uint_eq(d.keyword, 0x410);               /* OR'ed */
	ck_assert_uint_eq(d.opcode, 9);
	ck_assert_uint_eq(d.task, 300);
	ck_assert_uint_eq(d.channel, 11);
	ck_assert_uint_eq(d.id, 0);
	struct etl_event_descriptor d0 = ETL_TL_DESCRIPTOR(ETL_TL_CHANNEL(12));
	ck_assert_uint_eq(d0.level, 5);
	ck_assert_uint_eq(d0.keyword, 0);
	ck_assert_uint_eq(d0.channel, 12);
}
END_TEST

/* Where TL events end up: without the core, the test's own
 * etl_write_tracelogging_counted() encodes them into tl_buf with
 * tl_props; with the core, a session file is read back. */

static int side_effects;
static uint32_t count_me(uint32_t v)
{
	side_effects++;
	return v;
}

static const uint8_t BIN[] = { 1, 2, 3, 0, 5 };
static const uint32_t U32A[] = { 1, 2, 0xFFFFFFFF };
static const int32_t I32A[] = { -1, 7 };
static const uint64_t U64A[] = { 0x1122334455667788ull };
static const int64_t I64A[] = { -9, 9, -99 };
static const double DBLA[] = { 0.5, -1.25 };
static const uint16_t W16[] = { 'w', 'i', 'd', 0xE9, 0 };   /* "widé" */
static const uint16_t C16[] = { 'a', 'b', 'c', 'd' };
#define FT_2020 132264173104203138LL

/* The two TL events of the tests; "which" selects. */
static void write_tl_scalars(etl_provider *p)
{
	ETL_TL_WRITE(p, "Scalars", ETL_TL_LEVEL(4), ETL_TL_KEYWORD(0x10), ETL_TL_OPCODE(1),
	             ETL_TL_I8("i8", -5), ETL_TL_U8("u8", 250), ETL_TL_I16("i16", -300),
	             ETL_TL_U16("u16", 60000), ETL_TL_I32("i32", -70000),
	             ETL_TL_U32("u32", count_me(4000000000u)), ETL_TL_I64("i64", -5000000000000LL),
	             ETL_TL_U64("u64", 0xFEDCBA9876543210ull), ETL_TL_HEX8("h8", 0xAB),
	             ETL_TL_HEX16("h16", 0xBEEF), ETL_TL_HEX32("h32", 0xDEADBEEFu),
	             ETL_TL_HEX64("h64", 0x0123456789ABCDEFull), ETL_TL_BOOL32("b", 7),
	             ETL_TL_FLOAT("f", 1.5f), ETL_TL_DOUBLE("d", -2.25),
	             ETL_TL_FILETIME("ft", FT_2020));
}

static void write_tl_others(etl_provider *p)
{
	ETL_TL_WRITE(p, "Others", ETL_TL_LEVEL(2), ETL_TL_KEYWORD(0x20), ETL_TL_CHANNEL(12),
	             ETL_TL_TASK(5), ETL_TL_ACTIVITY(&ACT), ETL_TL_RELATED_ACTIVITY(&REL),
	             ETL_TL_STR8("s8", "h\xc3\xa9llo"), ETL_TL_STR8("null8", NULL),
	             ETL_TL_STR16("s16", W16), ETL_TL_CSTR8("c8", "counted!", 7),
	             ETL_TL_CSTR16("c16", C16, 3), ETL_TL_GUID("g", &MSG),
	             ETL_TL_BINARY("bin", BIN, sizeof BIN), ETL_TL_POINTER("ptr", (void *)0x7ffe1234),
	             ETL_TL_U32_ARRAY("u32a", U32A, 3), ETL_TL_I32_ARRAY("i32a", I32A, 2),
	             ETL_TL_U64_ARRAY("u64a", U64A, 1), ETL_TL_I64_ARRAY("i64a", I64A, 3),
	             ETL_TL_DOUBLE_ARRAY("dbla", DBLA, 2), ETL_TL_U32_ARRAY("empty", U32A, 0));
}

static const struct etl_prop *prop(const struct etl_decoded *dec, uint32_t i, const char *name,
                                   int kind, unsigned in_type)
{
	ck_assert_uint_lt(i, dec->n_props);
	const struct etl_prop *p = &dec->props[i];
	ck_assert_str_eq(p->name, name);
	ck_assert_int_eq(p->kind, kind);
	ck_assert_uint_eq(p->in_type, in_type);
	ck_assert_uint_eq(p->parent, ETL_PROP_NO_PARENT);
	return p;
}

static void check_str(const struct etl_prop *p, const char *s)
{
	ck_assert_uint_eq(p->v.str.len, strlen(s));
	ck_assert_mem_eq(p->v.str.s, s, strlen(s));
}

static void check_tl_scalars(const struct etl_event *ev, etl_decoder *d, const char *prov_name)
{
	const struct etl_decoded *dec;
	ck_assert_uint_eq(ev->level, 4);
	ck_assert_uint_eq(ev->keyword, 0x10);
	ck_assert_uint_eq(ev->opcode, 1);
	ck_assert_uint_eq(ev->channel, 11);
	ck_assert_uint_eq(ev->id, 0);
	int rc = etl_decoder_decode(d, ev, &dec);
	ck_assert_msg(rc == ETL_OK, "decode: %s", dec->error ? dec->error : "");
	ck_assert_int_eq(dec->source, ETL_DECODE_TRACELOGGING);
	ck_assert_str_eq(dec->event_name, "Scalars");
	ck_assert_str_eq(dec->provider_name, prov_name);
	ck_assert_uint_eq(dec->tags, 0);
	ck_assert_uint_eq(dec->n_props, 16);
	ck_assert_int_eq(prop(dec, 0, "i8", ETL_VAL_INT, ETL_IN_INT8)->v.i, -5);
	ck_assert_uint_eq(prop(dec, 1, "u8", ETL_VAL_UINT, ETL_IN_UINT8)->v.u, 250);
	ck_assert_int_eq(prop(dec, 2, "i16", ETL_VAL_INT, ETL_IN_INT16)->v.i, -300);
	ck_assert_uint_eq(prop(dec, 3, "u16", ETL_VAL_UINT, ETL_IN_UINT16)->v.u, 60000);
	ck_assert_int_eq(prop(dec, 4, "i32", ETL_VAL_INT, ETL_IN_INT32)->v.i, -70000);
	ck_assert_uint_eq(prop(dec, 5, "u32", ETL_VAL_UINT, ETL_IN_UINT32)->v.u, 4000000000u);
	ck_assert_int_eq(prop(dec, 6, "i64", ETL_VAL_INT, ETL_IN_INT64)->v.i, -5000000000000LL);
	ck_assert_uint_eq(prop(dec, 7, "u64", ETL_VAL_UINT, ETL_IN_UINT64)->v.u, 0xFEDCBA9876543210ull);
	const struct etl_prop *p = prop(dec, 8, "h8", ETL_VAL_UINT, ETL_IN_UINT8);
	ck_assert_uint_eq(p->v.u, 0xAB);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXINT8);
	p = prop(dec, 9, "h16", ETL_VAL_UINT, ETL_IN_UINT16);
	ck_assert_uint_eq(p->v.u, 0xBEEF);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXINT16);
	p = prop(dec, 10, "h32", ETL_VAL_UINT, ETL_IN_HEXINT32);
	ck_assert_uint_eq(p->v.u, 0xDEADBEEFu);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXINT32);
	p = prop(dec, 11, "h64", ETL_VAL_UINT, ETL_IN_HEXINT64);
	ck_assert_uint_eq(p->v.u, 0x0123456789ABCDEFull);
	ck_assert_uint_eq(p->out_type, ETL_OUT_HEXINT64);
	ck_assert_uint_eq(prop(dec, 12, "b", ETL_VAL_BOOL, ETL_IN_BOOLEAN)->v.u, 1);
	ck_assert(prop(dec, 13, "f", ETL_VAL_FLOAT, ETL_IN_FLOAT)->v.f == 1.5);
	ck_assert(prop(dec, 14, "d", ETL_VAL_FLOAT, ETL_IN_DOUBLE)->v.f == -2.25);
	ck_assert_int_eq(prop(dec, 15, "ft", ETL_VAL_FILETIME, ETL_IN_FILETIME)->v.i, FT_2020);
	/* Exact payload size: 1+1+2+2+4+4+8+8+1+2+4+8+4+4+8+8. */
	ck_assert_uint_eq(ev->payload_size, 69);
}

static void check_array(const struct etl_decoded *dec, const struct etl_prop *p, uint32_t n)
{
	ck_assert_int_eq(p->kind, ETL_VAL_ARRAY);
	ck_assert_uint_eq(p->n_children, n);
	ck_assert_uint_le(p->first_child + n, dec->n_props);
}

static void check_tl_others(const struct etl_event *ev, etl_decoder *d, const char *prov_name)
{
	const struct etl_decoded *dec;
	struct etl_ext_item it;
	ck_assert_uint_eq(ev->level, 2);
	ck_assert_uint_eq(ev->keyword, 0x20);
	ck_assert_uint_eq(ev->channel, 12);
	ck_assert_uint_eq(ev->task, 5);
	ck_assert(guid_eq(&ev->activity_id, &ACT));
	ck_assert(find_ext(ev, ETL_EXT_RELATED_ACTIVITYID, &it));
	struct etl_guid g;
	etl_guid_dec(it.data, &g);
	ck_assert(guid_eq(&g, &REL));
	int rc = etl_decoder_decode(d, ev, &dec);
	ck_assert_msg(rc == ETL_OK, "decode: %s", dec->error ? dec->error : "");
	ck_assert_str_eq(dec->event_name, "Others");
	ck_assert_str_eq(dec->provider_name, prov_name);
	const struct etl_prop *p = prop(dec, 0, "s8", ETL_VAL_STRING, ETL_IN_ANSISTRING);
	ck_assert_uint_eq(p->out_type, ETL_OUT_UTF8);
	check_str(p, "h\xc3\xa9llo");
	check_str(prop(dec, 1, "null8", ETL_VAL_STRING, ETL_IN_ANSISTRING), "");
	check_str(prop(dec, 2, "s16", ETL_VAL_STRING, ETL_IN_UNICODESTRING), "wid\xc3\xa9");
	check_str(prop(dec, 3, "c8", ETL_VAL_STRING, ETL_IN_COUNTEDANSISTRING), "counted");
	check_str(prop(dec, 4, "c16", ETL_VAL_STRING, ETL_IN_COUNTEDSTRING), "abc");
	ck_assert(guid_eq(&prop(dec, 5, "g", ETL_VAL_GUID, ETL_IN_GUID)->v.guid, &MSG));
	p = prop(dec, 6, "bin", ETL_VAL_BINARY, ETL_IN_BINARY);
	ck_assert_uint_eq(p->v.bin.len, sizeof BIN);
	ck_assert_mem_eq(p->v.bin.p, BIN, sizeof BIN);
	ck_assert_uint_eq(prop(dec, 7, "ptr", ETL_VAL_UINT, ETL_IN_HEXINT64)->v.u, 0x7ffe1234u);
	p = prop(dec, 8, "u32a", ETL_VAL_ARRAY, ETL_IN_UINT32);
	check_array(dec, p, 3);
	for (uint32_t i = 0; i < 3; i++) {
		const struct etl_prop *e = &dec->props[p->first_child + i];
		ck_assert_str_eq(e->name, "u32a");
		ck_assert_int_eq(e->kind, ETL_VAL_UINT);
		ck_assert_uint_eq(e->v.u, U32A[i]);
	}
	p = prop(dec, 9, "i32a", ETL_VAL_ARRAY, ETL_IN_INT32);
	check_array(dec, p, 2);
	for (uint32_t i = 0; i < 2; i++)
		ck_assert_int_eq(dec->props[p->first_child + i].v.i, I32A[i]);
	p = prop(dec, 10, "u64a", ETL_VAL_ARRAY, ETL_IN_UINT64);
	check_array(dec, p, 1);
	ck_assert_uint_eq(dec->props[p->first_child].v.u, U64A[0]);
	p = prop(dec, 11, "i64a", ETL_VAL_ARRAY, ETL_IN_INT64);
	check_array(dec, p, 3);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_int_eq(dec->props[p->first_child + i].v.i, I64A[i]);
	p = prop(dec, 12, "dbla", ETL_VAL_ARRAY, ETL_IN_DOUBLE);
	check_array(dec, p, 2);
	for (uint32_t i = 0; i < 2; i++)
		ck_assert(dec->props[p->first_child + i].v.f == DBLA[i]);
	p = prop(dec, 13, "empty", ETL_VAL_ARRAY, ETL_IN_UINT32);
	check_array(dec, p, 0);
	/* 14 top-level fields and 11 elements. */
	ck_assert_uint_eq(dec->n_props, 14 + 3 + 2 + 1 + 3 + 2);
}


/* ------------------------------------------------------------------ */
/* file round trip through etl_writer / etl_reader / etl_decoder        */
/* ------------------------------------------------------------------ */

/* Kinds of the round trips. */
enum { K_MANIFEST, K_TRANSFER, K_TL, K_CLASSIC, K_INSTANCE, K_MESSAGE, K_COUNT };

/* The payload of every non-TL event: (thread, index, kind). */
struct pl {
	uint32_t thread, index, kind;
};

/* Checks one event read back against what (thread, index) wrote; returns
 * the kind. */
static int check_roundtrip_event(const struct etl_event *ev, etl_decoder *d, uint32_t pid,
                                 const uint32_t *tids, uint32_t nthreads, const char *prov_name,
                                 uint32_t *thread_out, uint32_t *index_out)
{
	struct pl pl;
	uint32_t kind;
	if (ev->kind == ETL_HDR_EVENT_HEADER64 && ev->ext_count &&
	    find_ext(ev, ETL_EXT_EVENT_SCHEMA_TL, &(struct etl_ext_item){ 0 })) {
		const struct etl_decoded *dec;
		int rc = etl_decoder_decode(d, ev, &dec);
		TU_CHECK(rc == ETL_OK, "TL decode: %s", dec->error);
		TU_CHECK(dec->n_props == 3, "TL props %u", dec->n_props);
		TU_CHECK(!strcmp(dec->event_name, "RoundTrip"), "TL name");
		TU_CHECK(!strcmp(dec->provider_name, prov_name), "TL provider %s", dec->provider_name);
		pl.thread = (uint32_t)dec->props[0].v.u;
		pl.index = (uint32_t)dec->props[1].v.u;
		char s[32];
		snprintf(s, sizeof s, "t%u-%u", pl.thread, pl.index);
		TU_CHECK(dec->props[2].v.str.len == strlen(s) &&
		         !memcmp(dec->props[2].v.str.s, s, strlen(s)), "TL string");
		TU_CHECK(ev->level == 4 && ev->keyword == 0x10 && ev->channel == 11, "TL descriptor");
		kind = K_TL;
	} else {
		TU_CHECK(ev->payload_size == sizeof pl, "payload size %u kind %d", ev->payload_size, ev->kind);
		memcpy(&pl, ev->payload, sizeof pl);
		kind = pl.kind;
	}
	TU_CHECK(pl.thread < nthreads, "thread %u", pl.thread);
	*thread_out = pl.thread;
	*index_out = pl.index;
	TU_CHECK(ev->pid == pid, "pid %u", ev->pid);
	TU_CHECK(ev->tid == tids[pl.thread], "tid %u want %u", ev->tid, tids[pl.thread]);
	switch (kind) {
	case K_MANIFEST:
	case K_TRANSFER: {
		TU_CHECK(ev->kind == ETL_HDR_EVENT_HEADER64, "kind");
		TU_CHECK(guid_eq(&ev->provider, &PROV), "provider");
		TU_CHECK(ev->id == (kind == K_MANIFEST ? 1 : 2) && ev->version == 1 && ev->level == 4 &&
		         ev->opcode == 3 && ev->task == 9 && ev->keyword == 0x10, "descriptor");
		struct etl_guid a = ACT;
		a.data1 = pl.thread;
		a.data2 = (uint16_t)pl.index;
		TU_CHECK(guid_eq(&ev->activity_id, &a), "activity");
		if (kind == K_TRANSFER) {
			struct etl_ext_item it;
			struct etl_guid r;
			TU_CHECK(ev->ext_count == 1 && find_ext(ev, ETL_EXT_RELATED_ACTIVITYID, &it),
			         "related item");
			etl_guid_dec(it.data, &r);
			TU_CHECK(guid_eq(&r, &REL), "related");
		} else {
			TU_CHECK(ev->ext_count == 0, "items");
		}
		break;
	}
	case K_TL:
		TU_CHECK(guid_eq(&ev->provider, &PROV), "TL provider GUID");
		break;
	case K_CLASSIC:
	case K_INSTANCE:
		TU_CHECK(ev->kind == (kind == K_CLASSIC ? ETL_HDR_FULL_HEADER64 : ETL_HDR_INSTANCE64), "kind");
		TU_CHECK(guid_eq(&ev->provider, &CLS) && ev->opcode == 10 && ev->level == 4 &&
		         ev->version_word == 2, "class");
		if (kind == K_INSTANCE)
			TU_CHECK(ev->instance_id == pl.index && ev->parent_instance_id == pl.thread &&
			         guid_eq(&ev->parent_guid, &REL), "instance");
		break;
	case K_MESSAGE:
		TU_CHECK(ev->kind == ETL_HDR_MESSAGE && ev->id == 7 && guid_eq(&ev->provider, &MSG) &&
		         ev->header_flags == 0xAB && ev->sequence != 0, "message");
		break;
	default:
		ck_abort_msg("kind %u", kind);
	}
	return (int)kind;
}

START_TEST(test_file_roundtrip)
{
	enum { NT = 3, M = 200 };
	uint32_t tids[NT] = { 1001, 1002, 1003 };
	static uint8_t buf[REC_CAP];
	char path[] = "/tmp/check_trace_write.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);

	struct etl_writer_options o;
	etl_writer_options_init(&o);
	o.buffer_size = 0x4000;
	o.number_of_processors = 2;
	etl_writer *w = etl_writer_new();
	ck_assert_int_eq(etl_writer_open_file(w, path, &o), ETL_OK);
	static const char meta[] = ETL_TL_METADATA("RoundTrip", ETL_TL_U32("thread", 0),
	                                           ETL_TL_U32("index", 0), ETL_TL_STR8("s", ""));
	uint32_t seq_prev = 0;
	int64_t ts = 1000;
	for (uint32_t i = 0; i < M; i++)
		for (uint32_t t = 0; t < NT; t++)
			for (uint32_t k = 0; k < K_COUNT; k++) {
				struct pl pl = { t, i, k };
				struct etl_data data = ETL_DATA(&pl, sizeof pl);
				struct etl__rt_stamp st = stamp(0);
				struct etl__rt_event rt;
				struct etl__eh_desc x;
				struct etl__classic_desc c;
				struct etl__msg_desc m;
				struct etl_guid a = ACT;
				struct etl_event_descriptor dd = { 1, 1, 0, 4, 3, 9, 0x10 };
				char s[32];
				a.data1 = t;
				a.data2 = (uint16_t)i;
				st.tid = tids[t];
				st.timestamp = ts++;
				st.cpu = t % 2;
				switch (k) {
				case K_MANIFEST:
				case K_TRANSFER:
					dd.id = k == K_MANIFEST ? 1 : 2;
					etl__eh_prepare(&x, &PROV, &dd, &a, k == K_TRANSFER ? &REL : NULL, NULL,
					                0, NULL, 1, &data, 0, 0);
					etl__eh_event(&rt, NULL, &x);
					break;
				case K_TL: {
					snprintf(s, sizeof s, "t%u-%u", t, i);
					struct etl_data td[3] = { ETL_DATA(&t, 4), ETL_DATA(&i, 4),
					                          ETL_DATA(s, strlen(s) + 1) };
					dd.id = 0;
					dd.version = 0;
					etl__eh_prepare(&x, &PROV, &dd, &a, NULL, meta, sizeof meta - 1,
					                "RT.Provider", 3, td, 0, 0);
					etl__eh_event(&rt, NULL, &x);
					uint32_t n = run_encode(&rt, &st, buf);
					struct etl_event ev;
					decode_rec(buf, n, &ev);
					ev.processor = (uint16_t)st.cpu;
					ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
					continue;
				}
				case K_CLASSIC:
				case K_INSTANCE:
					memset(&c, 0, sizeof c);
					c.class_guid = CLS;
					c.type = 10;
					c.level = 4;
					c.version = 2;
					c.instance = k == K_INSTANCE;
					c.instance_id = i;
					c.parent_instance_id = t;
					c.parent_guid = REL;
					c.n = 1;
					c.data = &data;
					c.payload_size = sizeof pl;
					etl__classic_event(&rt, NULL, &c);
					break;
				default:
					m.message_guid = MSG;
					m.number = 7;
					m.sequence = etl__msg_next_sequence();
					ck_assert_uint_gt(m.sequence, seq_prev);
					seq_prev = m.sequence;
					m.n = 1;
					m.data = &data;
					m.payload_size = sizeof pl;
					etl__msg_event(&rt, NULL, 4, 0, &m);
					break;
				}
				uint32_t n = run_encode(&rt, &st, buf);
				struct etl_event ev;
				decode_rec(buf, n, &ev);
				ev.processor = (uint16_t)st.cpu;
				ck_assert_int_eq(etl_writer_write_event(w, &ev), ETL_OK);
			}
	ck_assert_int_eq(etl_writer_close(w), ETL_OK);
	etl_writer_free(w);

	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	static uint8_t seen[K_COUNT][NT][M];
	memset(seen, 0, sizeof seen);
	const struct etl_event *ev;
	int st;
	size_t total = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ev->kind == ETL_HDR_SYSTEM64)
			continue;    /* EventTrace header records */
		uint32_t t, i;
		int k = check_roundtrip_event(ev, d, (uint32_t)getpid(), tids, NT, "RT.Provider", &t, &i);
		TU_CHECK(i < M, "index");
		TU_CHECK(!seen[k][t][i], "duplicate %d %u %u", k, t, i);
		seen[k][t][i] = 1;
		total++;
	}
	ck_assert_uint_eq(total, (size_t)K_COUNT * NT * M);
	etl_decoder_free(d);
	etl_reader_free(r);
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------------ */
/* activity ids                                                         */
/* ------------------------------------------------------------------ */

static void *activity_thread(void *arg)
{
	struct etl_guid *out = arg;
	struct etl_guid g = etl_activity_get();
	out[0] = g;                          /* zero in a new thread */
	struct etl_guid mine = etl_activity_new();
	etl_activity_set(&mine, NULL);
	out[1] = etl_activity_get();
	out[2] = mine;
	return NULL;
}

START_TEST(test_activity)
{
	struct etl_guid zero, prev, a, b;
	memset(&zero, 0, sizeof zero);
	etl_activity_set(NULL, NULL);
	a = etl_activity_get();
	ck_assert(guid_eq(&a, &zero));
	etl_activity_set(&ACT, &prev);
	ck_assert(guid_eq(&prev, &zero));
	etl_activity_set(&REL, &prev);
	ck_assert(guid_eq(&prev, &ACT));
	b = etl_activity_get();
	ck_assert(guid_eq(&b, &REL));

	struct etl_guid out[3];
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, activity_thread, out), 0);
	pthread_join(th, NULL);
	ck_assert(guid_eq(&out[0], &zero));
	ck_assert(guid_eq(&out[1], &out[2]));
	b = etl_activity_get();              /* this thread's is unchanged */
	ck_assert(guid_eq(&b, &REL));
	etl_activity_set(NULL, NULL);

	/* New ids: never zero, all distinct. */
	enum { N = 5000 };
	struct etl_guid *ids = malloc(N * sizeof *ids);
	ck_assert_ptr_nonnull(ids);
	for (int i = 0; i < N; i++) {
		ids[i] = etl_activity_new();
		TU_CHECK(!etl_guid_is_null(&ids[i]), "zero id");
		TU_CHECK(i == 0 || !guid_eq(&ids[i], &ids[i - 1]), "repeat");
		TU_CHECK(!guid_eq(&ids[i], &out[2]), "repeat of the thread's");
	}
	for (int i = 1; i < N; i++)
		TU_CHECK(memcmp(ids[i].data4, ids[0].data4, 8) == 0, "per-process tail");
	free(ids);
}
END_TEST

/* ------------------------------------------------------------------ */
/* through a real session (needs the delivery core)                     */
/* ------------------------------------------------------------------ */


static char *tmp_path(const char *tag)
{
	static int n;
	char *p = malloc(128);
	ck_assert_ptr_nonnull(p);
	snprintf(p, 128, "/tmp/check_trace_write.%d.%s.%d.etl", (int)getpid(), tag, n++);
	return p;
}

static etl_session *start_session(const char *name, const char *path, int blocking)
{
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path;
	sp.blocking = blocking;
	sp.buffer_size = 64 * 1024;
	etl_session *s = etl_session_new();
	ck_assert_ptr_nonnull(s);
	int rc = etl_session_start(s, name, &sp);
	ck_assert_msg(rc == ETL_OK, "start: %s", etl_session_errmsg(s));
	return s;
}

static void enable(etl_session *s, const struct etl_guid *g, uint32_t props)
{
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.properties = props;
	ck_assert_int_eq(etl_session_enable(s, g, &ep), ETL_OK);
}

/* A tiny function that calls etl_write(): the stack item of its event
 * must start with the return address inside it. */
static __attribute__((noinline)) int stack_probe_write(etl_provider *p, const struct etl_data *data)
{
	int rc = etl_write(p, &DESC, 2, data);
	__asm__ volatile("" ::: "memory");
	return rc;
}

/* Every write kind through a session with each enable property. */
START_TEST(test_session_props)
{
	uint32_t props = PROPS[_i];
	char *path = tmp_path("props");
	static etl_provider p;
	memset(&p, 0, sizeof p);
	ck_assert_int_eq(etl_provider_register(&p, &PROV, NULL, NULL), ETL_OK);
	etl_session *s = start_session("check_trace_write_props", path, 1);
	enable(s, &PROV, props);

	struct etl_data data[2] = { ETL_DATA(P1, 3), ETL_DATA(&P3, 4) };
	etl_activity_set(&ACT, NULL);
	ck_assert_int_eq(stack_probe_write(&p, data), ETL_OK);
	ck_assert_int_eq(etl_write_transfer(&p, &DESC, &REL, &ACT, 2, data), ETL_OK);
	write_tl_scalars(&p);
	write_tl_others(&p);
	ck_assert_int_eq(etl_write_classic(&p, &CLS, 12, 3, 2, 2, data), ETL_OK);
	ck_assert_int_eq(etl_write_instance(&p, &CLS, 13, 3, 2, 77, 66, &REL, 2, data), ETL_OK);
	ck_assert_int_eq(etl_write_message(&p, 3, 0, &MSG, 43, 2, data), ETL_OK);
	/* A keyword-0 event: filtered out with IGNORE_KEYWORD_0. */
	struct etl_event_descriptor k0 = DESC;
	k0.keyword = 0;
	k0.id = 99;
	ck_assert_int_eq(etl_write(&p, &k0, 0, NULL), ETL_OK);
	etl_activity_set(NULL, NULL);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats sst;
	etl_session_stats(s, &sst);
	/* IGNORE_KEYWORD_0 drops every keyword-0 event: the classic, instance
	 * and message writes (keyword 0) and k0; the other four stay. */
	int want_n = (props & ETL_ENABLE_IGNORE_KEYWORD_0) ? 4 : 8;
	ck_assert_uint_eq(sst.events_written, (uint64_t)want_n);
	ck_assert_uint_eq(sst.events_lost, 0);
	etl_session_free(s);
	etl_provider_unregister(&p);

	char gtext[ETL_GUID_STRLEN];
	etl_guid_format(&PROV, gtext);
	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	const struct etl_event *ev;
	int st, n = 0, tl = 0;
	uint32_t pid = (uint32_t)getpid(), tid = my_tid();
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ev->kind == ETL_HDR_SYSTEM64 || ev->kind == ETL_HDR_SYSTEM32)
			continue;
		n++;
		ck_assert_uint_eq(ev->pid, pid);
		ck_assert_uint_eq(ev->tid, tid);
		uint32_t eprops = props & ~ETL_ENABLE_IGNORE_KEYWORD_0;
		if (ev->kind == ETL_HDR_EVENT_HEADER64) {
			struct etl_ext_item it;
			if (find_ext(ev, ETL_EXT_EVENT_SCHEMA_TL, &it)) {
				const char *pn = gtext;
				if (tl++ == 0) {
					check_tl_scalars(ev, d, pn);
					check_items(ev, eprops, NULL, pn, it.data + 2, it.data_size - 2u,
					            &PROV, 0, 0, 1);
				} else {
					check_tl_others(ev, d, pn);
					check_items(ev, eprops, &REL, pn, it.data + 2, it.data_size - 2u,
					            &PROV, 0, 0, 1);
				}
				continue;
			}
			if (ev->id == 99) {
				ck_assert_uint_eq(ev->keyword, 0);
				continue;
			}
			ck_assert_uint_eq(ev->id, DESC.id);
			ck_assert_uint_eq(ev->version, DESC.version);
			ck_assert_uint_eq(ev->channel, DESC.channel);
			ck_assert_uint_eq(ev->level, DESC.level);
			ck_assert_uint_eq(ev->opcode, DESC.opcode);
			ck_assert_uint_eq(ev->task, DESC.task);
			ck_assert_uint_eq(ev->keyword, DESC.keyword);
			int transfer = find_ext(ev, ETL_EXT_RELATED_ACTIVITYID, &it);
			ck_assert(guid_eq(&ev->activity_id, transfer ? &REL : &ACT));
			check_items(ev, eprops, transfer ? &ACT : NULL, NULL, NULL, 0, &PROV, DESC.id,
			            DESC.version, 1);
			if (eprops & ETL_ENABLE_STACK_TRACE) {
				/* The stack starts in stack_probe_write (the caller of
				 * etl_write): libetl's own frames are cut off. */
				struct etl_ext_typed ty;
				ck_assert(find_ext(ev, ETL_EXT_STACK_TRACE64, &it));
				ck_assert_int_eq(etl_ext_item_decode(&it, &ty), ETL_OK);
				uint64_t first = tu_le64(ty.u.stack.addrs);
				uint64_t fn = (uint64_t)(uintptr_t)stack_probe_write;
				if (!transfer)
					ck_assert_msg(first > fn && first - fn < 512,
					              "first frame 0x%" PRIx64 " not in stack_probe_write at 0x%" PRIx64,
					              first, fn);
			}
			ck_assert_uint_eq(ev->payload_size, 7);
		} else if (ev->kind == ETL_HDR_MESSAGE) {
			ck_assert_uint_eq(ev->id, 43);
			ck_assert(guid_eq(&ev->provider, &MSG));
			ck_assert_uint_eq(ev->payload_size, 7);
		} else {
			ck_assert(ev->kind == ETL_HDR_FULL_HEADER64 || ev->kind == ETL_HDR_INSTANCE64);
			ck_assert(guid_eq(&ev->provider, &CLS));
			ck_assert_uint_eq(ev->level, 3);
			ck_assert_uint_eq(ev->version_word, 2);
			if (ev->kind == ETL_HDR_INSTANCE64) {
				ck_assert_uint_eq(ev->opcode, 13);
				ck_assert_uint_eq(ev->instance_id, 77);
				ck_assert_uint_eq(ev->parent_instance_id, 66);
				ck_assert(guid_eq(&ev->parent_guid, &REL));
			} else {
				ck_assert_uint_eq(ev->opcode, 12);
			}
		}
	}
	ck_assert_int_eq(n, want_n);
	ck_assert_int_eq(tl, 2);
	etl_decoder_free(d);
	etl_reader_free(r);
	unlink(path);
	free(path);
}
END_TEST

enum { RT_THREADS = 4, RT_M = 500 };

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}
static etl_provider rt_prov;
static uint32_t rt_tids[RT_THREADS];

static void *rt_writer(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	rt_tids[t] = my_tid();
	for (uint32_t i = 0; i < RT_M; i++) {
		struct etl_guid a = ACT;
		a.data1 = t;
		a.data2 = (uint16_t)i;
		struct etl_event_descriptor dd = { 1, 1, 0, 4, 3, 9, 0x10 };
		for (uint32_t k = 0; k < K_COUNT; k++) {
			struct pl pl = { t, i, k };
			struct etl_data data = ETL_DATA(&pl, sizeof pl);
			char s[32];
			int rc = ETL_OK;
			switch (k) {
			case K_MANIFEST:
				etl_activity_set(&a, NULL);
				dd.id = 1;
				rc = etl_write(&rt_prov, &dd, 1, &data);
				etl_activity_set(NULL, NULL);
				break;
			case K_TRANSFER:
				dd.id = 2;
				rc = etl_write_transfer(&rt_prov, &dd, &a, &REL, 1, &data);
				break;
			case K_TL:
				snprintf(s, sizeof s, "t%u-%u", t, i);
				ETL_TL_WRITE(&rt_prov, "RoundTrip", ETL_TL_LEVEL(4), ETL_TL_KEYWORD(0x10),
				             ETL_TL_U32("thread", t), ETL_TL_U32("index", i),
				             ETL_TL_STR8("s", s));
				break;
			case K_CLASSIC:
				rc = etl_write_classic(&rt_prov, &CLS, 10, 4, 2, 1, &data);
				break;
			case K_INSTANCE:
				rc = etl_write_instance(&rt_prov, &CLS, 10, 4, 2, i, t, &REL, 1, &data);
				break;
			default:
				rc = etl_write_message(&rt_prov, 4, 0, &MSG, 7, 1, &data);
				break;
			}
			TU_CHECK(rc == ETL_OK, "write kind %u failed", k);
		}
	}
	return NULL;
}

START_TEST(test_session_roundtrip)
{
	char *path = tmp_path("rt");
	memset(&rt_prov, 0, sizeof rt_prov);
	ck_assert_int_eq(etl_provider_register(&rt_prov, &PROV, NULL, NULL), ETL_OK);
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path;
	sp.blocking = 1;
	sp.buffer_size = 8192;
	sp.min_buffers = 2;
	sp.max_buffers = 4;         /* small pool: writers must wait, not lose */
	etl_session *s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "check_trace_write_rt", &sp), ETL_OK);
	enable(s, &PROV, 0);
	pthread_t th[RT_THREADS];
	for (uintptr_t t = 0; t < RT_THREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, rt_writer, (void *)t), 0);
	for (int t = 0; t < RT_THREADS; t++)
		pthread_join(th[t], NULL);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats sst;
	etl_session_stats(s, &sst);
	ck_assert_uint_eq(sst.events_lost, 0);
	ck_assert_uint_eq(sst.events_written, (uint64_t)K_COUNT * RT_THREADS * RT_M);
	etl_session_free(s);
	etl_provider_unregister(&rt_prov);

	char gtext[ETL_GUID_STRLEN];
	etl_guid_format(&PROV, gtext);
	etl_reader *r = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	static uint8_t seen[K_COUNT][RT_THREADS][RT_M];
	static uint32_t seqs[RT_THREADS * RT_M];
	size_t nseq = 0;
	memset(seen, 0, sizeof seen);
	const struct etl_event *ev;
	int st;
	size_t total = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ev->kind == ETL_HDR_SYSTEM64 || ev->kind == ETL_HDR_SYSTEM32)
			continue;
		uint32_t t, i;
		int k = check_roundtrip_event(ev, d, (uint32_t)getpid(), rt_tids, RT_THREADS, gtext,
		                              &t, &i);
		if (k == K_MESSAGE) {
			TU_CHECK(nseq < RT_THREADS * RT_M, "too many messages");
			seqs[nseq++] = ev->sequence;
		}
		TU_CHECK(i < RT_M, "index");
		TU_CHECK(!seen[k][t][i], "duplicate %d %u %u", k, t, i);
		seen[k][t][i] = 1;
		total++;
	}
	ck_assert_uint_eq(total, (size_t)K_COUNT * RT_THREADS * RT_M);
	/* The process-wide message sequence: one number per message, so the
	 * numbers read back are distinct and consecutive. */
	ck_assert_uint_eq(nseq, RT_THREADS * RT_M);
	qsort(seqs, nseq, sizeof seqs[0], cmp_u32);
	for (size_t j = 1; j < nseq; j++)
		TU_CHECK(seqs[j] == seqs[j - 1] + 1, "sequence %u after %u", seqs[j], seqs[j - 1]);
	etl_decoder_free(d);
	etl_reader_free(r);
	unlink(path);
	free(path);
}
END_TEST

/* Disabled and filtered-out events evaluate no argument and write nothing. */
START_TEST(test_session_disabled)
{
	char *path = tmp_path("off");
	static etl_provider p;
	memset(&p, 0, sizeof p);
	ck_assert_int_eq(etl_provider_register(&p, &PROV, NULL, NULL), ETL_OK);
	side_effects = 0;
	write_tl_scalars(&p);                  /* no session at all */
	etl_session *s = start_session("check_trace_write_off", path, 1);
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.level = 3;
	ck_assert_int_eq(etl_session_enable(s, &PROV, &ep), ETL_OK);
	write_tl_scalars(&p);                  /* level 4 > 3 */
	ck_assert_int_eq(side_effects, 0);
	struct etl_data data = ETL_DATA(&P3, 4);
	ck_assert_int_eq(etl_write(&p, &DESC, 1, &data), ETL_OK);          /* level 4 */
	ck_assert_int_eq(etl_write_message(&p, 5, 0, &MSG, 1, 1, &data), ETL_OK);
	ck_assert_int_eq(etl_write_classic(&p, &CLS, 1, 3, 0, 1, &data), ETL_OK); /* in */
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats sst;
	etl_session_stats(s, &sst);
	ck_assert_uint_eq(sst.events_written, 1);
	etl_session_free(s);
	etl_provider_unregister(&p);
	unlink(path);
	free(path);
}
END_TEST


static Suite *trace_write_suite(void)
{
	Suite *s = suite_create("trace_write");
	TCase *tc = tcase_create("encode");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_eh_manifest);
	tcase_add_loop_test(tc, test_eh_props, 0, (int)(sizeof PROPS / sizeof PROPS[0]));
	tcase_add_test(tc, test_eh_stack_start);
	tcase_add_test(tc, test_eh_limits);
	tcase_add_test(tc, test_classic_and_instance);
	tcase_add_test(tc, test_message);
	tcase_add_test(tc, test_tl_metadata_bytes);
	tcase_add_test(tc, test_file_roundtrip);
	tcase_add_test(tc, test_activity);
	suite_add_tcase(s, tc);
	TCase *ts = tcase_create("session");
	tcase_set_timeout(ts, 120);
	tcase_add_loop_test(ts, test_session_props, 0, (int)(sizeof PROPS / sizeof PROPS[0]));
	tcase_add_test(ts, test_session_roundtrip);
	tcase_add_test(ts, test_session_disabled);
	suite_add_tcase(s, ts);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_write_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
