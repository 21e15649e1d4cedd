/*
 * check_encode.c - the trace-header encoders (encoded_size() / encode() of
 * every formats/hdr/hdr_*.c module, etl__hdr_for_kind()).
 *
 *   - Per module, 32- and 64-bit: events with every optional item (PEBS and
 *     0..7 PMC counters; both INSTANCE forms; EVENT_HEADER with chains of
 *     several extended-item types; MESSAGE with all 256 OptionFlags
 *     combinations; ERROR/TIMED/WNODE) are encoded, decoded through the
 *     module's decode() on an etl_cur, compared field by field with the
 *     expected event (fuzz/event_equal.h), and encoded again to identical
 *     bytes. The expected events are written out by hand from
 *     doc/format.md §3, including the fields decode() derives.
 *   - Rejections: records over 0xFFFF bytes, an EXTENDED_INFO flag that
 *     disagrees with the chain, malformed chains, wrong kinds, wrong output
 *     sizes, conflicting fields.
 *   - Corpus: every record of every file in $ETL_CORPUS (read with the
 *     public reader in file order) encodes back to its own bytes, byte for
 *     byte, and decodes to the same event; the per-kind record counts match
 *     expected.json.
 */
#define _POSIX_C_SOURCE 200809L
#define ETL_BUILDING_LIB 1

#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "formats/hdr/hdr.h"
#include "../fuzz/event_equal.h"
#include "json_mini.h"
#include "testutil.h"

/* Layout 1.5 (GUID instance form), 64-bit default; layout 1.0 (old form). */
static const struct etl_hdr_ctx CTX_MODERN = { 1, 5, 8 };
static const struct etl_hdr_ctx CTX_OLD = { 1, 0, 4 };

static uint8_t g_pay[0x10000];           /* payload bytes: a pattern     */

static void fill_payload(void)
{
	uint64_t s = 0x1234567887654321ull;
	for (size_t i = 0; i < sizeof g_pay; i++)
		g_pay[i] = (uint8_t)(tu_rand(&s) >> 24);
}

static const struct etl_guid G_PROV = { 0x0cd1c309, 0x0878, 0x4515,
                                        { 0x83, 0xdb, 0x74, 0x98, 0x43, 0xb3, 0xf5, 0xc9 } };
static const struct etl_guid G_ACT = { 0xa1b2c3d4, 0xe5f6, 0x0718,
                                       { 0x29, 0x3a, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, 0x90 } };
static const struct etl_guid G_PARENT = { 0xfeedface, 0xbeef, 0xcafe,
                                          { 1, 2, 3, 4, 5, 6, 7, 8 } };

/* ------------------------------------------------------------------ */
/* round trip                                                           */
/* ------------------------------------------------------------------ */

/* Encodes ev with its module (etl__hdr_for_kind), checks what a reader
 * would check (the marker dispatches to the module, peek_size() gives the
 * encoded size, min_size holds), decodes the bytes through the module on
 * a cursor of exactly that size into *out (rc must be expect_rc).
 * Returns the bytes (malloc'd; out->record points into them), *n = size. */
static uint8_t *enc_dec(const struct etl_event *ev, const struct etl_hdr_ctx *ctx,
                        int expect_rc, size_t *n, struct etl_event *out)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_kind(ev->kind);
	ck_assert_ptr_nonnull(ops);
	size_t sz = ops->encoded_size(ev, ctx);
	TU_CHECK(sz > 0, "encoded_size is 0: kind=%s", etl_hdr_kind_name(ev->kind));
	uint8_t *buf = malloc(sz);
	ck_assert_ptr_nonnull(buf);
	memset(buf, 0xA5, sz);
	struct etl_err err;
	memset(&err, 0, sizeof err);
	int rc = ops->encode(buf, sz, ev, ctx, &err);
	TU_CHECK(rc == ETL_OK, "encode failed: kind=%s: %s", etl_hdr_kind_name(ev->kind), err.msg);
	TU_CHECK(etl__hdr_for_marker(tu_le32(buf)) == ops, "marker 0x%08x does not dispatch to %s",
	         tu_le32(buf), ops->name);
	uint32_t psz = 0;
	TU_REQUIRE(ops->peek_size(buf, &psz) == 0);
	TU_CHECK(psz == sz, "peek_size %u != encoded size %zu", psz, sz);
	TU_REQUIRE(sz >= ops->min_size);
	struct etl_cur c;
	etl_cur_init(&c, buf, sz);
	memset(out, 0, sizeof *out);
	memset(&err, 0, sizeof err);
	rc = ops->decode(&c, ctx, out, &err);
	TU_CHECK(rc == expect_rc, "decode of the encoding: rc=%d (want %d): %s", rc, expect_rc, err.msg);
	out->record = buf;
	*n = sz;
	return buf;
}

/* decode(encode(ev)) equals expect field by field (and provider_name);
 * encoding the decoded event gives the same bytes. */
static void roundtrip_x(const struct etl_event *ev, const struct etl_event *expect,
                        const struct etl_hdr_ctx *ctx, int expect_rc)
{
	size_t n1, n2;
	struct etl_event d1, d2;
	uint8_t *b1 = enc_dec(ev, ctx, expect_rc, &n1, &d1);
	const char *diff = event_diff(expect, &d1);
	TU_CHECK(diff == NULL, "%s: field '%s' differs after encode+decode", etl_hdr_kind_name(ev->kind),
	         diff);
	TU_CHECK(event_equal_names(expect, &d1), "%s: provider_name differs",
	         etl_hdr_kind_name(ev->kind));
	uint8_t *b2 = enc_dec(&d1, ctx, expect_rc, &n2, &d2);
	TU_CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "%s: re-encoding gives other bytes",
	         etl_hdr_kind_name(ev->kind));
	diff = event_diff(&d1, &d2);
	TU_CHECK(diff == NULL, "%s: field '%s' differs after the second round trip",
	         etl_hdr_kind_name(ev->kind), diff);
	free(b2);
	free(b1);
}

static void roundtrip(const struct etl_event *ev, const struct etl_hdr_ctx *ctx, int expect_rc)
{
	roundtrip_x(ev, ev, ctx, expect_rc);
}

/* The encoding of ev (which must succeed), malloc'd. */
static uint8_t *encode_ok(const struct etl_event *ev, const struct etl_hdr_ctx *ctx, size_t *n)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_kind(ev->kind);
	ck_assert_ptr_nonnull(ops);
	*n = ops->encoded_size(ev, ctx);
	ck_assert_uint_gt(*n, 0);
	uint8_t *buf = malloc(*n);
	ck_assert_ptr_nonnull(buf);
	struct etl_err err;
	memset(&err, 0, sizeof err);
	int rc = ops->encode(buf, *n, ev, ctx, &err);
	ck_assert_msg(rc == ETL_OK, "encode: %s", err.msg);
	return buf;
}

/* encode() must refuse ev (with a reason and a message); returns err.code. */
static int encode_fails(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_kind(ev->kind);
	ck_assert_ptr_nonnull(ops);
	size_t n = ops->encoded_size(ev, ctx);
	uint8_t *buf = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(buf);
	struct etl_err err;
	memset(&err, 0, sizeof err);
	int rc = ops->encode(buf, n, ev, ctx, &err);
	free(buf);
	ck_assert_int_eq(rc, ETL_FAILED);
	ck_assert(err.msg[0] != 0);
	ck_assert_int_gt(err.code, ETL_E_NONE);
	ck_assert_int_lt(err.code, ETL_E_MAX_);
	return err.code;
}

/* ------------------------------------------------------------------ */
/* expected events (what decode() must produce), from doc/format.md §3  */
/* ------------------------------------------------------------------ */

static void set_payload(struct etl_event *ev, uint32_t header_size, uint32_t payload_size)
{
	ev->header_size = header_size;
	ev->payload = payload_size ? g_pay : NULL;
	ev->payload_size = payload_size;
	ev->size = header_size + payload_size;
}

/* SYSTEM / COMPACT / PERFINFO (§3.2, §3.3). */
static void ev_system(struct etl_event *ev, int kind, uint16_t hook, int pebs, unsigned npmc,
                      uint32_t payload_size)
{
	uint8_t type = 0;
	uint32_t fixed = 0;
	memset(ev, 0, sizeof *ev);
	switch (kind) {
	case ETL_HDR_SYSTEM32:   type = 0x01; fixed = 0x20; break;
	case ETL_HDR_SYSTEM64:   type = 0x02; fixed = 0x20; break;
	case ETL_HDR_COMPACT32:  type = 0x03; fixed = 0x18; break;
	case ETL_HDR_COMPACT64:  type = 0x04; fixed = 0x18; break;
	case ETL_HDR_PERFINFO32: type = 0x10; fixed = 0x10; break;
	case ETL_HDR_PERFINFO64: type = 0x11; fixed = 0x10; break;
	default: ck_abort_msg("not a system-style kind");
	}
	ev->kind = kind;
	ev->header_type = type;
	ev->ptr_size = (kind == ETL_HDR_SYSTEM32 || kind == ETL_HDR_COMPACT32 ||
	                kind == ETL_HDR_PERFINFO32) ? 4 : 8;
	ev->version_word = (uint16_t)(0x0003u | (pebs ? 0x8000u : 0) | (npmc << 8));
	ev->version = 3;
	ev->hook_id = hook;
	ev->opcode = (uint8_t)hook;
	ev->present = ETL_EVF_HOOKID | ETL_EVF_TIMESTAMP;
	ev->provider_name = etl_kernel_group_provider(hook >> 8, &ev->provider);
	if (ev->provider_name)
		ev->present |= ETL_EVF_PROVIDER;
	ev->timestamp = -0x123456789abcdefll + (int64_t)npmc;
	if (fixed >= 0x18) {
		ev->tid = 0x1111 + npmc;
		ev->pid = 0x2222 + (uint32_t)pebs;
		ev->present |= ETL_EVF_PID;
	}
	if (fixed == 0x20) {
		ev->kernel_time = 0x33330000u | npmc;
		ev->user_time = 0x44440000u | npmc;
		ev->present |= ETL_EVF_CPU_TIMES;
	}
	if (pebs) {
		ev->pebs_index = 0xfedcba9876543210ull;
		ev->present |= ETL_EVF_PEBS;
	}
	ev->pmc_count = (uint8_t)npmc;
	for (unsigned i = 0; i < npmc; i++)
		ev->pmc[i] = 0x0101010101010101ull * (i + 1) + 0x8000000000000000ull;
	if (npmc)
		ev->present |= ETL_EVF_PMC;
	set_payload(ev, fixed + 8u * ((pebs ? 1u : 0u) + npmc), payload_size);
}

/* EVENT_TRACE_HEADER (§3.4). */
static void ev_full(struct etl_event *ev, int kind, uint32_t payload_size)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->header_type = kind == ETL_HDR_FULL_HEADER32 ? 0x0A : 0x14;
	ev->ptr_size = kind == ETL_HDR_FULL_HEADER32 ? 4 : 8;
	ev->opcode = 0x0F;
	ev->level = 4;
	ev->version_word = 0x0102;
	ev->version = 0x02;
	ev->tid = 0xAAAA;
	ev->pid = 0xBBBB;
	ev->timestamp = 0x01d5e5a4c0ffee00ll;
	ev->provider = G_PROV;
	ev->provider_name = etl_known_provider_name(&ev->provider);
	ev->kernel_time = 0x10;
	ev->user_time = ev->trace_flags = 0x00020200;
	ev->present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	              ETL_EVF_CLASS;
	set_payload(ev, 0x30, payload_size);
}

/* EVENT_INSTANCE_GUID_HEADER / EVENT_INSTANCE_HEADER (§3.5). */
static void ev_instance(struct etl_event *ev, int kind, int old_form, uint32_t payload_size)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->header_type = kind == ETL_HDR_INSTANCE32 ? 0x0B : 0x15;
	ev->ptr_size = kind == ETL_HDR_INSTANCE32 ? 4 : 8;
	ev->opcode = 0x24;
	ev->level = 5;
	ev->version_word = 0x0003;
	ev->version = 3;
	ev->tid = 0x1234;
	ev->pid = 0x5678;
	ev->timestamp = 0x7000000000000001ll;
	ev->kernel_time = 0x99;
	ev->user_time = ev->trace_flags = 0x77;
	ev->instance_id = 0xCAFEBABE;
	ev->parent_instance_id = 0xDEADBEEF;
	ev->present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_CLASS;
	if (old_form) {
		ev->reg_handle = 0x1122334455667788ull;
		ev->parent_reg_handle = 0x99aabbccddeeff00ull;
		ev->present |= ETL_EVF_OLD_INSTANCE;
		set_payload(ev, 0x38, payload_size);
	} else {
		ev->provider = G_PROV;
		ev->provider_name = etl_known_provider_name(&ev->provider);
		ev->parent_guid = G_PARENT;
		ev->present |= ETL_EVF_PROVIDER | ETL_EVF_INSTANCE;
		set_payload(ev, 0x48, payload_size);
	}
}

/* EVENT_HEADER (§3.6) with the given chain bytes (ext_count items). */
static void ev_event(struct etl_event *ev, int kind, const uint8_t *ext, uint32_t ext_size,
                     uint32_t ext_count, uint32_t payload_size)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->header_type = kind == ETL_HDR_EVENT_HEADER32 ? 0x12 : 0x13;
	ev->ptr_size = kind == ETL_HDR_EVENT_HEADER32 ? 4 : 8;
	ev->header_flags = (uint16_t)(0x0240u | (ext_size ? 1u : 0u));
	ev->event_property = 0x0008;
	ev->tid = 0x4242;
	ev->pid = 0x2424;
	ev->timestamp = 132266213104567890ll;
	ev->provider = G_PROV;
	ev->provider_name = etl_known_provider_name(&ev->provider);
	ev->id = 0x1234;
	ev->version = 2;
	ev->channel = 0x10;
	ev->level = 4;
	ev->opcode = 1;
	ev->task = 0x8765;
	ev->keyword = 0x8000000000000123ull;
	ev->kernel_time = 0xFFFFFFFF;
	ev->user_time = 0x01020304;
	ev->activity_id = G_ACT;
	ev->present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	              ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY;
	ev->ext = ext_size ? ext : NULL;
	ev->ext_size = ext_size;
	ev->ext_count = ext_count;
	set_payload(ev, 0x50 + ext_size, payload_size);
}

/* MESSAGE_TRACE_HEADER (§3.7) with OptionFlags fl. */
static void ev_message(struct etl_event *ev, uint16_t fl, uint8_t default_ptr, uint32_t payload_size)
{
	uint32_t hs = 8;
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_MESSAGE;
	ev->header_type = 0x90;
	ev->id = (uint16_t)(0x0A00u + fl);
	ev->header_flags = fl;
	if (fl & ETL_MSG_SEQUENCE) {
		ev->sequence = 0x5EC00000u + fl;
		ev->present |= ETL_EVF_SEQUENCE;
		hs += 4;
	}
	if (fl & ETL_MSG_COMPONENTID) {
		ev->component_id = 0xC0C00000u + fl;
		ev->present |= ETL_EVF_COMPONENT_ID;
		hs += 4;
	} else if (fl & ETL_MSG_GUID) {
		ev->provider = G_PROV;
		ev->provider.data2 = fl;
		ev->present |= ETL_EVF_PROVIDER;
		hs += 16;
	}
	if (fl & (ETL_MSG_TIMESTAMP | ETL_MSG_PERF_TIMESTAMP)) {
		if (fl & ETL_MSG_TIMESTAMP) {
			ev->timestamp = 0x0102030405060708ll + fl;
			ev->present |= ETL_EVF_TIMESTAMP;
		}
		hs += 8;
	}
	if (fl & ETL_MSG_SYSTEMINFO) {
		ev->tid = 0x7100u + fl;
		ev->pid = 0x7200u + fl;
		ev->present |= ETL_EVF_PID;
		hs += 8;
	}
	if (fl & ETL_MSG_POINTER64)
		ev->ptr_size = 8;
	else if (fl & ETL_MSG_POINTER32)
		ev->ptr_size = 4;
	else
		ev->ptr_size = default_ptr ? default_ptr : 8;
	set_payload(ev, hs, payload_size);
}

/* ERROR / TIMED: 4-byte marker then opaque payload (hdr_legacy.c). */
static void ev_opaque(struct etl_event *ev, int kind, uint32_t payload_size)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->header_type = kind == ETL_HDR_ERROR ? 0x0D : 0x0C;
	ev->ptr_size = 8;
	set_payload(ev, 4, payload_size);
}

/* WNODE_HEADER block (§3.1 item 2). */
static void ev_wnode(struct etl_event *ev, uint32_t payload_size)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_WNODE;
	ev->ptr_size = 8;
	ev->timestamp = 0x0123456789abcdefll;
	ev->provider = G_PARENT;
	ev->trace_flags = 0x00020000;
	ev->present = ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER;
	set_payload(ev, 0x30, payload_size);
}

/* ------------------------------------------------------------------ */
/* extended-item chains                                                 */
/* ------------------------------------------------------------------ */

struct ext_spec {
	uint16_t type;
	const void *data;
	uint16_t len;
	uint16_t linkage_extra;    /* reserved linkage bits 1-15, kept as stored */
	uint16_t extra_pad;        /* item size beyond ALIGN8(8 + len)           */
	uint8_t pad_byte;
};

/* Writes the chain (item size, ExtType, Linkage, DataSize, data, padding;
 * §3.6) to out; returns its size. */
static uint32_t build_chain(uint8_t *out, size_t cap, const struct ext_spec *it, size_t n)
{
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		size_t sz = ETL_ALIGN8(8u + it[i].len) + it[i].extra_pad;
		ck_assert_uint_le(at + sz, cap);
		uint16_t link = (uint16_t)((i + 1 < n ? 1u : 0u) | (it[i].linkage_extra & ~1u));
		etl_put16(out + at, (uint16_t)sz);
		etl_put16(out + at + 2, it[i].type);
		etl_put16(out + at + 4, link);
		etl_put16(out + at + 6, it[i].len);
		memcpy(out + at + 8, it[i].data, it[i].len);
		memset(out + at + 8 + it[i].len, it[i].pad_byte, sz - 8 - it[i].len);
		at += sz;
	}
	return (uint32_t)at;
}

static const uint8_t X_GUID[16] = { 0xd4, 0xc3, 0xb2, 0xa1, 0xf6, 0xe5, 0x18, 0x07,
                                    0x29, 0x3a, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, 0x90 };
static const uint8_t X_SID[16] = { 1, 2, 0, 0, 0, 0, 0, 5, 0x20, 0, 0, 0, 0x20, 0x02, 0, 0 };
static const uint8_t X_TSID[4] = { 1, 0, 0, 0 };
static const uint8_t X_STACK64[8 + 3 * 8] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x10, 0x20, 0x30, 0x40, 0x00, 0xf8, 0xff, 0xff,
	0x11, 0x21, 0x31, 0x41, 0x01, 0xf8, 0xff, 0xff,
	0x12, 0x22, 0x32, 0x42, 0x02, 0xf8, 0xff, 0xff };
static const uint8_t X_TRAITS[] = { 0x0b, 0x00, 'P', 'r', 'o', 'v', 'X', 0, 0, 0, 0 };
static const uint8_t X_SCHEMA[] = { 0x0e, 0x00, 0x00, 'E', 'v', 0, 'f', '1', 0, 0x01, 'f', '2', 0, 0x02 };
static const uint8_t X_KEY[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };

/* ------------------------------------------------------------------ */
/* tests: round trips per module                                        */
/* ------------------------------------------------------------------ */

static const int SYSTEM_STYLE[] = { ETL_HDR_SYSTEM32, ETL_HDR_SYSTEM64, ETL_HDR_COMPACT32,
                                    ETL_HDR_COMPACT64, ETL_HDR_PERFINFO32, ETL_HDR_PERFINFO64 };

START_TEST(test_system_style_hw_items)
{
	/* Every kind, with and without a PEBS index, 0..7 PMC counters, a
	 * kernel group with a known provider (0x0524 context switch) and one
	 * without, payloads of several sizes. */
	static const uint16_t hooks[] = { 0x0524, 0xFE12, 0x0000 };
	static const uint32_t pays[] = { 0, 1, 7, 40 };
	for (size_t k = 0; k < sizeof SYSTEM_STYLE / sizeof SYSTEM_STYLE[0]; k++)
		for (int pebs = 0; pebs <= 1; pebs++)
			for (unsigned npmc = 0; npmc <= 7; npmc++)
				for (size_t h = 0; h < 3; h++) {
					struct etl_event ev;
					ev_system(&ev, SYSTEM_STYLE[k], hooks[h], pebs, npmc, pays[(npmc + h) % 4]);
					roundtrip(&ev, &CTX_MODERN, ETL_OK);
				}
}
END_TEST

START_TEST(test_system_layout_bytes)
{
	/* The bytes themselves, against the layout table of §3.2/§3.3. */
	struct etl_event ev;
	size_t n;
	ev_system(&ev, ETL_HDR_SYSTEM64, 0x0524, 1, 2, 3);
	uint8_t *b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x20 + 8 + 16 + 3);
	ck_assert_uint_eq(tu_le16(b), 0x8203);
	ck_assert_uint_eq(b[2], 0x02);
	ck_assert_uint_eq(b[3], 0xC0);
	ck_assert_uint_eq(tu_le16(b + 4), n);
	ck_assert_uint_eq(tu_le16(b + 6), 0x0524);
	ck_assert_uint_eq(tu_le32(b + 8), ev.tid);
	ck_assert_uint_eq(tu_le32(b + 0xC), ev.pid);
	ck_assert_uint_eq(tu_le64(b + 0x10), (uint64_t)ev.timestamp);
	ck_assert_uint_eq(tu_le32(b + 0x18), ev.kernel_time);
	ck_assert_uint_eq(tu_le32(b + 0x1C), ev.user_time);
	ck_assert_uint_eq(tu_le64(b + 0x20), ev.pebs_index);
	ck_assert_uint_eq(tu_le64(b + 0x28), ev.pmc[0]);
	ck_assert_uint_eq(tu_le64(b + 0x30), ev.pmc[1]);
	ck_assert_mem_eq(b + 0x38, g_pay, 3);
	free(b);

	ev_system(&ev, ETL_HDR_PERFINFO32, 0x0F2E, 0, 1, 0);
	b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x18);
	ck_assert_uint_eq(tu_le32(b), 0xC0100103u);
	ck_assert_uint_eq(tu_le16(b + 4), 0x18);
	ck_assert_uint_eq(tu_le16(b + 6), 0x0F2E);
	ck_assert_uint_eq(tu_le64(b + 8), (uint64_t)ev.timestamp);
	ck_assert_uint_eq(tu_le64(b + 0x10), ev.pmc[0]);
	free(b);

	ev_system(&ev, ETL_HDR_COMPACT32, 0x0102, 0, 0, 5);
	b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x18 + 5);
	ck_assert_uint_eq(tu_le32(b), 0xC0030003u);
	ck_assert_mem_eq(b + 0x18, g_pay, 5);
	free(b);
}
END_TEST

START_TEST(test_full_header)
{
	for (int k = ETL_HDR_FULL_HEADER32; k <= ETL_HDR_FULL_HEADER64; k++)
		for (uint32_t pay = 0; pay < 20; pay += 9) {
			struct etl_event ev;
			ev_full(&ev, k, pay);
			roundtrip(&ev, &CTX_MODERN, ETL_OK);
			roundtrip(&ev, &CTX_OLD, ETL_OK);        /* the layout does not matter */
		}
	struct etl_event ev;
	size_t n;
	ev_full(&ev, ETL_HDR_FULL_HEADER64, 2);
	uint8_t *b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x32);
	ck_assert_uint_eq(tu_le32(b), 0xC0140032u);
	ck_assert_uint_eq(b[4], 0x0F);
	ck_assert_uint_eq(b[5], 4);
	ck_assert_uint_eq(tu_le16(b + 6), 0x0102);
	ck_assert_uint_eq(tu_le32(b + 0x18), G_PROV.data1);
	ck_assert_uint_eq(tu_le32(b + 0x28), 0x10);
	ck_assert_uint_eq(tu_le32(b + 0x2C), 0x00020200);
	free(b);
}
END_TEST

START_TEST(test_instance_forms)
{
	for (int k = ETL_HDR_INSTANCE32; k <= ETL_HDR_INSTANCE64; k++)
		for (uint32_t pay = 0; pay < 30; pay += 13) {
			struct etl_event ev;
			ev_instance(&ev, k, 0, pay);
			roundtrip(&ev, &CTX_MODERN, ETL_OK);
			/* layout 0.0 (no logfile header) counts as modern, as 1.1 does */
			struct etl_hdr_ctx unknown = { 0, 0, 0 }, l11 = { 1, 1, 4 };
			roundtrip(&ev, &unknown, ETL_OK);
			roundtrip(&ev, &l11, ETL_OK);
			ev_instance(&ev, k, 1, pay);
			roundtrip(&ev, &CTX_OLD, ETL_OK);
		}

	/* Bytes of both forms (§3.5). */
	struct etl_event ev;
	size_t n;
	ev_instance(&ev, ETL_HDR_INSTANCE64, 0, 0);
	uint8_t *b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x48);
	ck_assert_uint_eq(tu_le32(b), 0xC0150048u);
	ck_assert_uint_eq(tu_le32(b + 0x18), G_PROV.data1);
	ck_assert_uint_eq(tu_le32(b + 0x30), 0xCAFEBABE);
	ck_assert_uint_eq(tu_le32(b + 0x34), 0xDEADBEEF);
	ck_assert_uint_eq(tu_le32(b + 0x38), G_PARENT.data1);
	free(b);
	ev_instance(&ev, ETL_HDR_INSTANCE32, 1, 0);
	b = encode_ok(&ev, &CTX_OLD, &n);
	ck_assert_uint_eq(n, 0x38);
	ck_assert_uint_eq(tu_le32(b), 0xC00B0038u);
	ck_assert_uint_eq(tu_le64(b + 0x18), 0x1122334455667788ull);
	ck_assert_uint_eq(tu_le32(b + 0x20), 0xCAFEBABE);
	ck_assert_uint_eq(tu_le32(b + 0x24), 0xDEADBEEF);
	ck_assert_uint_eq(tu_le32(b + 0x28), 0x99);
	ck_assert_uint_eq(tu_le32(b + 0x2C), 0x77);
	ck_assert_uint_eq(tu_le64(b + 0x30), 0x99aabbccddeeff00ull);
	free(b);

	/* An event of one form is not written in a file of the other. */
	ev_instance(&ev, ETL_HDR_INSTANCE64, 1, 4);
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	ev_instance(&ev, ETL_HDR_INSTANCE64, 0, 4);
	ck_assert_int_eq(encode_fails(&ev, &CTX_OLD), ETL_E_BAD_VALUE);
}
END_TEST

START_TEST(test_event_header_chains)
{
	static const struct ext_spec chains[][7] = {
		/* TraceLogging: PROV_TRAITS then EVENT_SCHEMA_TL */
		{ { ETL_EXT_PROV_TRAITS, X_TRAITS, sizeof X_TRAITS, 0, 0, 0 },
		  { ETL_EXT_EVENT_SCHEMA_TL, X_SCHEMA, sizeof X_SCHEMA, 0, 0, 0 } },
		/* one of every common type, a reserved linkage bit, odd padding */
		{ { ETL_EXT_RELATED_ACTIVITYID, X_GUID, 16, 0, 0, 0 },
		  { ETL_EXT_SID, X_SID, sizeof X_SID, 0x8000, 0, 0 },
		  { ETL_EXT_TS_ID, X_TSID, 4, 0, 0, 0xEE },
		  { ETL_EXT_STACK_TRACE64, X_STACK64, sizeof X_STACK64, 0, 8, 0x5A },
		  { ETL_EXT_PROCESS_START_KEY, X_KEY, 8, 0, 0, 0 },
		  { ETL_EXT_EVENT_KEY, X_KEY, 8, 0x0002, 0, 0 },
		  { 0x7777, X_GUID, 3, 0, 0, 0x33 } },
		/* a single item, no data */
		{ { ETL_EXT_CONTAINER_ID, X_GUID, 0, 0, 0, 0 } },
	};
	static const size_t counts[] = { 2, 7, 1 };
	uint8_t chain[512];
	for (int k = ETL_HDR_EVENT_HEADER32; k <= ETL_HDR_EVENT_HEADER64; k++) {
		for (size_t c = 0; c < 3; c++) {
			uint32_t cs = build_chain(chain, sizeof chain, chains[c], counts[c]);
			for (uint32_t pay = 0; pay < 50; pay += 17) {
				struct etl_event ev;
				ev_event(&ev, k, chain, cs, (uint32_t)counts[c], pay);
				roundtrip(&ev, &CTX_MODERN, ETL_OK);
			}
		}
		struct etl_event ev;          /* no chain at all */
		ev_event(&ev, k, NULL, 0, 0, 11);
		roundtrip(&ev, &CTX_MODERN, ETL_OK);
	}

	/* Bytes: header fields (§3.6), the chain as given, then the payload. */
	uint32_t cs = build_chain(chain, sizeof chain, chains[1], counts[1]);
	struct etl_event ev;
	size_t n;
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs, 7, 5);
	uint8_t *b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x50 + cs + 5);
	ck_assert_uint_eq(tu_le16(b), n);
	ck_assert_uint_eq(tu_le16(b + 2), 0xC013);
	ck_assert_uint_eq(tu_le16(b + 4), 0x0241);
	ck_assert_uint_eq(tu_le16(b + 6), 0x0008);
	ck_assert_uint_eq(tu_le16(b + 0x28), 0x1234);
	ck_assert_uint_eq(b[0x2A], 2);
	ck_assert_uint_eq(b[0x2B], 0x10);
	ck_assert_uint_eq(b[0x2C], 4);
	ck_assert_uint_eq(b[0x2D], 1);
	ck_assert_uint_eq(tu_le16(b + 0x2E), 0x8765);
	ck_assert_uint_eq(tu_le64(b + 0x30), 0x8000000000000123ull);
	ck_assert_uint_eq(tu_le32(b + 0x40), G_ACT.data1);
	ck_assert_mem_eq(b + 0x50, chain, cs);
	ck_assert_mem_eq(b + 0x50 + cs, g_pay, 5);
	free(b);
}
END_TEST

START_TEST(test_message_all_option_flags)
{
	static const uint8_t defaults[] = { 0, 4, 8 };
	for (unsigned fl = 0; fl < 256; fl++)
		for (size_t d = 0; d < 3; d++) {
			struct etl_hdr_ctx ctx = { 1, 5, defaults[d] };
			struct etl_event ev;
			ev_message(&ev, (uint16_t)fl, defaults[d], (fl * 7) % 23);
			roundtrip(&ev, &ctx, ETL_OK);
		}
}
END_TEST

START_TEST(test_message_bytes)
{
	/* Every item, in order: sequence, component id (wins over the GUID),
	 * timestamp, thread/process ids. */
	struct etl_event ev;
	size_t n;
	ev_message(&ev, 0x00FF, 8, 3);
	uint8_t *b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 8 + 4 + 4 + 8 + 8 + 3);
	ck_assert_uint_eq(tu_le16(b), n);
	ck_assert_uint_eq(b[2], 0);
	ck_assert_uint_eq(b[3], 0x90);
	ck_assert_uint_eq(tu_le16(b + 4), ev.id);
	ck_assert_uint_eq(tu_le16(b + 6), 0x00FF);
	ck_assert_uint_eq(tu_le32(b + 8), ev.sequence);
	ck_assert_uint_eq(tu_le32(b + 12), ev.component_id);
	ck_assert_uint_eq(tu_le64(b + 16), (uint64_t)ev.timestamp);
	ck_assert_uint_eq(tu_le32(b + 24), ev.tid);
	ck_assert_uint_eq(tu_le32(b + 28), ev.pid);
	ck_assert_mem_eq(b + 32, g_pay, 3);
	free(b);

	/* GUID form; 0x10 without 0x08 reserves 8 bytes, written as zero even
	 * when the event holds a timestamp (which the record cannot carry). */
	ev_message(&ev, ETL_MSG_GUID | ETL_MSG_PERF_TIMESTAMP | ETL_MSG_SYSTEMINFO, 8, 0);
	ev.timestamp = 0x7777777777777777ll;
	b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 8 + 16 + 8 + 8);
	ck_assert_uint_eq(tu_le32(b + 8), G_PROV.data1);
	ck_assert_uint_eq(tu_le64(b + 24), 0);
	ck_assert_uint_eq(tu_le32(b + 32), ev.tid);
	free(b);

	/* A record with non-zero reserved timestamp bytes and Reserved byte:
	 * it decodes, and encodes to the same event with those bytes zeroed
	 * (the only bytes of a MESSAGE record the view cannot carry). */
	uint8_t rec[8 + 8 + 4];
	etl_put16(rec, sizeof rec);
	rec[2] = 0x5A;
	rec[3] = 0x90;
	etl_put16(rec + 4, 77);
	etl_put16(rec + 6, ETL_MSG_PERF_TIMESTAMP);
	memset(rec + 8, 0xEE, 8);
	memcpy(rec + 16, "args", 4);
	struct etl_cur c;
	struct etl_err err;
	struct etl_event d;
	etl_cur_init(&c, rec, sizeof rec);
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(etl__hdr_message.decode(&c, &CTX_MODERN, &d, &err), ETL_OK);
	b = encode_ok(&d, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, sizeof rec);
	ck_assert_uint_eq(b[2], 0);
	for (size_t i = 8; i < 16; i++)
		ck_assert_uint_eq(b[i], 0);
	ck_assert_mem_eq(b + 3, rec + 3, 5);
	ck_assert_mem_eq(b + 16, rec + 16, 4);
	free(b);
}
END_TEST

START_TEST(test_legacy)
{
	struct etl_event ev;
	size_t n;
	for (int k = ETL_HDR_ERROR; k <= ETL_HDR_TIMED; k++)
		for (uint32_t pay = 4; pay < 40; pay += 11) {
			ev_opaque(&ev, k, pay);
			roundtrip(&ev, &CTX_MODERN, ETL_WARN);
		}
	ev_opaque(&ev, ETL_HDR_ERROR, 6);
	uint8_t *b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 10);
	ck_assert_uint_eq(tu_le32(b), 0xC00D000Au);
	ck_assert_mem_eq(b + 4, g_pay, 6);
	free(b);

	/* WNODE built from the view: the fields the view lacks are zero. */
	for (uint32_t pay = 0; pay < 40; pay += 13) {
		ev_wnode(&ev, pay);
		roundtrip(&ev, &CTX_MODERN, ETL_WARN);
	}
	ev_wnode(&ev, 8);
	b = encode_ok(&ev, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x38);
	ck_assert_uint_eq(tu_le32(b), 0x38);
	ck_assert_uint_eq(tu_le32(b + 4), 0);
	ck_assert_uint_eq(tu_le64(b + 8), 0);
	ck_assert_uint_eq(tu_le64(b + 0x10), (uint64_t)ev.timestamp);
	ck_assert_uint_eq(tu_le32(b + 0x18), G_PARENT.data1);
	ck_assert_uint_eq(tu_le32(b + 0x28), 0);
	ck_assert_uint_eq(tu_le32(b + 0x2C), 0x00020000);
	free(b);

	/* WNODE read from a record: ProviderId, HistoricalContext and
	 * ClientContext are re-emitted from ev->record, so the encoding is the
	 * record byte for byte; with another payload size they are zero. */
	uint8_t rec[0x30 + 6];
	memset(rec, 0, sizeof rec);
	etl_put32(rec, sizeof rec);
	etl_put32(rec + 4, 0x11223344);
	etl_put64(rec + 8, 0x5566778899aabbccull);
	etl_put64(rec + 0x10, 0x1000);
	etl_put_guid(rec + 0x18, &G_PROV);
	etl_put32(rec + 0x28, 0x00010203);
	etl_put32(rec + 0x2C, 0x00020000);
	memcpy(rec + 0x30, "wnode!", 6);
	struct etl_cur c;
	struct etl_err err;
	struct etl_event d;
	etl_cur_init(&c, rec, sizeof rec);
	memset(&d, 0, sizeof d);
	ck_assert_int_eq(etl__hdr_wnode.decode(&c, &CTX_MODERN, &d, &err), ETL_WARN);
	d.record = rec;
	b = encode_ok(&d, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, sizeof rec);
	ck_assert_mem_eq(b, rec, sizeof rec);
	free(b);
	d.payload_size = 2;
	b = encode_ok(&d, &CTX_MODERN, &n);
	ck_assert_uint_eq(n, 0x32);
	ck_assert_uint_eq(tu_le32(b + 4), 0);
	ck_assert_uint_eq(tu_le32(b + 0x28), 0);
	ck_assert_uint_eq(tu_le64(b + 0x10), 0x1000);
	free(b);
	/* A record that is not a WNODE block (a FULL header of the same size,
	 * whose kind the caller changed) lends nothing. */
	struct etl_event f;
	ev_full(&f, ETL_HDR_FULL_HEADER64, 6);
	uint8_t *fb = encode_ok(&f, &CTX_MODERN, &n);
	d.payload_size = 6;
	d.record = fb;
	ck_assert_uint_eq(d.size, n);
	b = encode_ok(&d, &CTX_MODERN, &n);
	ck_assert_uint_eq(tu_le32(b + 4), 0);
	ck_assert_uint_eq(tu_le64(b + 8), 0);
	ck_assert_uint_eq(tu_le32(b + 0x28), 0);
	free(b);
	free(fb);
}
END_TEST

START_TEST(test_derived_fields_ignored)
{
	/* size, header_size, header_type, ptr_size, provider_name and the
	 * presence bits that only describe (not announce) data do not change
	 * the bytes: they are the decoder's outputs. */
	struct etl_event ev, junk;
	uint8_t chain[64];
	static const struct ext_spec one[] = { { ETL_EXT_TS_ID, X_TSID, 4, 0, 0, 0 } };
	uint32_t cs = build_chain(chain, sizeof chain, one, 1);
	for (int variant = 0; variant < 6; variant++) {
		switch (variant) {
		case 0: ev_system(&ev, ETL_HDR_SYSTEM64, 0x0524, 1, 3, 9); break;
		case 1: ev_full(&ev, ETL_HDR_FULL_HEADER32, 9); break;
		case 2: ev_instance(&ev, ETL_HDR_INSTANCE64, 0, 9); break;
		case 3: ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs, 1, 9); break;
		case 4: ev_message(&ev, 0x2B, 8, 9); break;
		default: ev_opaque(&ev, ETL_HDR_TIMED, 9); break;
		}
		junk = ev;
		junk.size = 3;
		junk.header_size = 12345;
		junk.header_type = 0xEE;
		junk.ptr_size = 2;
		junk.provider_name = "junk";
		junk.present &= (uint16_t)(ETL_EVF_PEBS | ETL_EVF_INSTANCE | ETL_EVF_OLD_INSTANCE);
		junk.present |= ETL_EVF_UTC;
		junk.utc = 42;
		junk.processor = 3;
		junk.file_offset = 0x1000;
		size_t n1, n2;
		uint8_t *a = encode_ok(&ev, &CTX_MODERN, &n1);
		uint8_t *b = encode_ok(&junk, &CTX_MODERN, &n2);
		ck_assert_uint_eq(n1, n2);
		ck_assert_mem_eq(a, b, n1);
		free(a);
		free(b);
	}
}
END_TEST

START_TEST(test_shared_bytes_merge)
{
	/* version and the low byte of version_word, opcode and the low byte
	 * of hook_id, user_time and trace_flags: one may be left 0, the other
	 * is written; both set and different is refused. */
	struct etl_event ev, want;
	ev_system(&ev, ETL_HDR_SYSTEM64, 0x0524, 0, 0, 4);
	want = ev;
	ev.version_word = 0;
	ev.hook_id = 0x0500;
	roundtrip_x(&ev, &want, &CTX_MODERN, ETL_OK);
	ev = want;
	ev.version = 0;
	ev.opcode = 0;
	roundtrip_x(&ev, &want, &CTX_MODERN, ETL_OK);
	ev = want;
	ev.version = 9;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	ev = want;
	ev.opcode = 0x25;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);

	ev_full(&ev, ETL_HDR_FULL_HEADER64, 4);
	want = ev;
	ev.trace_flags = 0;
	roundtrip_x(&ev, &want, &CTX_MODERN, ETL_OK);
	ev = want;
	ev.user_time = 0;
	roundtrip_x(&ev, &want, &CTX_MODERN, ETL_OK);
	ev.user_time = 5;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);

	ev_instance(&ev, ETL_HDR_INSTANCE32, 1, 4);
	ev.trace_flags = 0x1234;
	ck_assert_int_eq(encode_fails(&ev, &CTX_OLD), ETL_E_BAD_VALUE);
	ev_instance(&ev, ETL_HDR_INSTANCE32, 0, 4);
	ev.version = 0x44;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tests: rejections                                                    */
/* ------------------------------------------------------------------ */

/* An event of kind k whose header (fixed part and items) is `*hdr` bytes;
 * the payload is set by the caller. */
static void ev_any(struct etl_event *ev, int k, uint32_t *hdr, uint8_t *chain, size_t cap)
{
	static const struct ext_spec items[] = {
		{ ETL_EXT_RELATED_ACTIVITYID, X_GUID, 16, 0, 0, 0 },
		{ ETL_EXT_STACK_TRACE64, X_STACK64, sizeof X_STACK64, 0, 0, 0 } };
	switch (k) {
	case ETL_HDR_SYSTEM32: case ETL_HDR_SYSTEM64: case ETL_HDR_COMPACT32:
	case ETL_HDR_COMPACT64: case ETL_HDR_PERFINFO32: case ETL_HDR_PERFINFO64:
		ev_system(ev, k, 0x0524, 1, 7, 0);
		break;
	case ETL_HDR_FULL_HEADER32: case ETL_HDR_FULL_HEADER64:
		ev_full(ev, k, 0);
		break;
	case ETL_HDR_INSTANCE32: case ETL_HDR_INSTANCE64:
		ev_instance(ev, k, 0, 0);
		break;
	case ETL_HDR_EVENT_HEADER32: case ETL_HDR_EVENT_HEADER64: {
		uint32_t cs = build_chain(chain, cap, items, 2);
		ev_event(ev, k, chain, cs, 2, 0);
		break;
	}
	case ETL_HDR_MESSAGE:
		ev_message(ev, 0xFF, 8, 0);
		break;
	case ETL_HDR_ERROR: case ETL_HDR_TIMED:
		ev_opaque(ev, k, 0);
		break;
	default:
		ev_wnode(ev, 0);
		break;
	}
	*hdr = ev->header_size;
}

START_TEST(test_reject_oversize)
{
	/* Every u16-sized kind: a record of exactly 0xFFFF bytes encodes and
	 * decodes; one byte more and encoded_size is 0 (and encode refuses). */
	uint8_t chain[128];
	for (int k = ETL_HDR_SYSTEM32; k < ETL_HDR_WNODE; k++) {
		struct etl_event ev;
		uint32_t hdr;
		ev_any(&ev, k, &hdr, chain, sizeof chain);
		const struct etl_hdr_ops *ops = etl__hdr_for_kind(k);
		ev.payload = g_pay;
		ev.payload_size = 0xFFFFu - hdr;
		ev.size = 0xFFFF;
		ck_assert_uint_eq(ops->encoded_size(&ev, &CTX_MODERN), 0xFFFF);
		int rc = (k == ETL_HDR_ERROR || k == ETL_HDR_TIMED) ? ETL_WARN : ETL_OK;
		roundtrip(&ev, &CTX_MODERN, rc);
		ev.payload_size++;
		ck_assert_uint_eq(ops->encoded_size(&ev, &CTX_MODERN), 0);
		ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_SIZE);
		ev.payload_size = UINT32_MAX;
		ck_assert_uint_eq(ops->encoded_size(&ev, &CTX_MODERN), 0);
	}
	/* A huge chain alone. */
	struct etl_event ev;
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, g_pay, 0x10000, 1, 0);
	ck_assert_uint_eq(etl__hdr_event.encoded_size(&ev, &CTX_MODERN), 0);
	ev.ext_size = UINT32_MAX;
	ck_assert_uint_eq(etl__hdr_event.encoded_size(&ev, &CTX_MODERN), 0);
	/* WNODE has a u32 size whose bit 31 must stay clear. */
	ev_wnode(&ev, 0x7FFFFFFFu - 0x30);
	ck_assert_uint_eq(etl__hdr_wnode.encoded_size(&ev, &CTX_MODERN), 0x7FFFFFFFu);
	ev.payload_size++;
	ck_assert_uint_eq(etl__hdr_wnode.encoded_size(&ev, &CTX_MODERN), 0);
	ev.payload_size = UINT32_MAX;
	ck_assert_uint_eq(etl__hdr_wnode.encoded_size(&ev, &CTX_MODERN), 0);
	ev_wnode(&ev, 0x10000);
	ck_assert_uint_eq(etl__hdr_wnode.encoded_size(&ev, &CTX_MODERN), 0x10030);
	/* ERROR / TIMED under min_size (8 bytes) cannot be read back. */
	for (uint32_t p = 0; p < 4; p++) {
		ev_opaque(&ev, ETL_HDR_TIMED, p);
		ck_assert_uint_eq(etl__hdr_timed.encoded_size(&ev, &CTX_MODERN), 0);
	}
}
END_TEST

START_TEST(test_reject_extended_info_mismatch)
{
	uint8_t chain[64];
	static const struct ext_spec one[] = { { ETL_EXT_TS_ID, X_TSID, 4, 0, 0, 0 } };
	uint32_t cs = build_chain(chain, sizeof chain, one, 1);
	for (int k = ETL_HDR_EVENT_HEADER32; k <= ETL_HDR_EVENT_HEADER64; k++) {
		struct etl_event ev;
		/* flag set, no chain */
		ev_event(&ev, k, NULL, 0, 0, 8);
		ev.header_flags |= 0x0001;
		ck_assert_uint_gt(etl__hdr_event.encoded_size(&ev, &CTX_MODERN), 0);
		ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
		/* chain, flag clear */
		ev_event(&ev, k, chain, cs, 1, 8);
		ev.header_flags &= (uint16_t)~0x0001u;
		ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	}
}
END_TEST

START_TEST(test_reject_bad_chain)
{
	uint8_t chain[128];
	static const struct ext_spec two[] = { { ETL_EXT_TS_ID, X_TSID, 4, 0, 0, 0 },
	                                       { ETL_EXT_EVENT_KEY, X_KEY, 8, 0, 0, 0 } };
	uint32_t cs = build_chain(chain, sizeof chain, two, 2);
	struct etl_event ev;
	/* wrong count */
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs, 3, 0);
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	/* the chain ends (Linkage 0) before ext_size: the rest would be payload */
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs + 16, 2, 0);
	memset(chain + cs, 0, 16);
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	/* ext_size cuts an item short */
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs - 8, 2, 0);
	ck_assert_int_ne(encode_fails(&ev, &CTX_MODERN), ETL_E_NONE);
	/* item DataSize larger than the item */
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs, 2, 0);
	etl_put16(chain + 6, 200);
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_SIZE);
	/* items counted, none there */
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, NULL, 0, 1, 0);
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	/* ext_size without bytes */
	ev_event(&ev, ETL_HDR_EVENT_HEADER64, chain, cs, 2, 0);
	ev.ext = NULL;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_MISUSE);
}
END_TEST

START_TEST(test_reject_wrong_kind)
{
	/* Each module encodes only its own kinds; etl__hdr_for_kind names the
	 * module of every kind and nothing for others. */
	uint8_t chain[128];
	for (size_t m = 0; etl__hdr_modules[m]; m++) {
		const struct etl_hdr_ops *ops = etl__hdr_modules[m];
		ck_assert_ptr_nonnull(ops->encoded_size);
		ck_assert_ptr_nonnull(ops->encode);
		for (int k = -1; k <= ETL_HDR_KIND_COUNT_ + 1; k++) {
			struct etl_event ev;
			uint32_t hdr;
			ev_any(&ev, (k > ETL_HDR_UNKNOWN && k < ETL_HDR_KIND_COUNT_) ? k : ETL_HDR_WNODE,
			       &hdr, chain, sizeof chain);
			ev.kind = k;
			ev.payload = g_pay;
			ev.payload_size = 16;
			size_t n = ops->encoded_size(&ev, &CTX_MODERN);
			if (etl__hdr_for_kind(k) == ops) {
				ck_assert_uint_gt(n, 0);
				continue;
			}
			ck_assert_uint_eq(n, 0);
			uint8_t out[0x400];
			struct etl_err err;
			memset(&err, 0, sizeof err);
			ck_assert_int_eq(ops->encode(out, 0x100, &ev, &CTX_MODERN, &err), ETL_FAILED);
			ck_assert(err.msg[0] != 0);
		}
	}
	ck_assert_ptr_null(etl__hdr_for_kind(ETL_HDR_UNKNOWN));
	ck_assert_ptr_null(etl__hdr_for_kind(ETL_HDR_KIND_COUNT_));
	ck_assert_ptr_null(etl__hdr_for_kind(-1));
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_SYSTEM32), &etl__hdr_system);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_SYSTEM64), &etl__hdr_system);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_COMPACT32), &etl__hdr_compact);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_COMPACT64), &etl__hdr_compact);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_PERFINFO32), &etl__hdr_perfinfo);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_PERFINFO64), &etl__hdr_perfinfo);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_FULL_HEADER32), &etl__hdr_full);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_FULL_HEADER64), &etl__hdr_full);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_INSTANCE32), &etl__hdr_instance);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_INSTANCE64), &etl__hdr_instance);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_EVENT_HEADER32), &etl__hdr_event);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_EVENT_HEADER64), &etl__hdr_event);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_MESSAGE), &etl__hdr_message);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_ERROR), &etl__hdr_error);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_TIMED), &etl__hdr_timed);
	ck_assert_ptr_eq(etl__hdr_for_kind(ETL_HDR_WNODE), &etl__hdr_wnode);
}
END_TEST

START_TEST(test_reject_misc)
{
	struct etl_event ev;
	struct etl_err err;
	uint8_t out[0x200];
	/* output size other than the encoded size */
	ev_full(&ev, ETL_HDR_FULL_HEADER64, 8);
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(etl__hdr_full.encode(out, 0x37, &ev, &CTX_MODERN, &err), ETL_FAILED);
	ck_assert_int_eq(err.code, ETL_E_MISUSE);
	ck_assert_int_eq(etl__hdr_full.encode(out, 0x39, &ev, &CTX_MODERN, &err), ETL_FAILED);
	ck_assert_int_eq(etl__hdr_full.encode(out, 0x38, &ev, &CTX_MODERN, &err), ETL_OK);
	/* payload size without payload */
	ev.payload = NULL;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_MISUSE);
	/* PMC count that disagrees with the version word, both ways */
	ev_system(&ev, ETL_HDR_SYSTEM64, 0x0524, 0, 3, 0);
	ev.pmc_count = 2;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	ev_system(&ev, ETL_HDR_PERFINFO64, 0x0524, 0, 0, 0);
	ev.pmc_count = 1;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
	/* a PEBS index the version word does not announce */
	ev_system(&ev, ETL_HDR_COMPACT64, 0x0524, 1, 0, 0);
	ev.version_word &= 0x7FFF;
	ck_assert_int_eq(encode_fails(&ev, &CTX_MODERN), ETL_E_BAD_VALUE);
}
END_TEST

/* ------------------------------------------------------------------ */
/* corpus: byte-exact re-encoding of every real record                  */
/* ------------------------------------------------------------------ */

static char **g_files;
static size_t g_nfiles;
static struct jm_val *g_exp;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs before the tests (no ck_assert here): the .etl files of the corpus
 * directory, sorted, and expected.json. */
static void load_corpus_list(void)
{
	DIR *d = opendir(tu_corpus_dir());
	if (d) {
		struct dirent *e;
		size_t cap = 0;
		while ((e = readdir(d)) != NULL) {
			size_t len = strlen(e->d_name);
			if (len < 5 || strcmp(e->d_name + len - 4, ".etl") != 0)
				continue;
			if (g_nfiles == cap) {
				cap = cap ? 2 * cap : 32;
				char **p = realloc(g_files, cap * sizeof *g_files);
				if (!p)
					break;
				g_files = p;
			}
			g_files[g_nfiles++] = strdup(e->d_name);
		}
		closedir(d);
		if (g_nfiles)
			qsort(g_files, g_nfiles, sizeof *g_files, cmp_str);
	}
	char path[1024];
	snprintf(path, sizeof path, "%s/expected.json", tu_corpus_dir());
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = n > 0 ? malloc((size_t)n) : NULL;
	if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
		char err[200];
		g_exp = jm_parse(text, (size_t)n, err, sizeof err);
	}
	free(text);
	fclose(f);
}

/* expected.json header-type name -> kind ("WPP_MESSAGE(flags=..)" is
 * MESSAGE). */
static int exp_kind(const char *name)
{
	if (strncmp(name, "WPP_MESSAGE", 11) == 0)
		return ETL_HDR_MESSAGE;
	return etl_hdr_kind_from_name(name);
}

/* One corpus file per iteration: every record re-encoded byte for byte;
 * prints one line with the records checked per kind. */
START_TEST(test_corpus_byte_exact)
{
	TU_NEED_CORPUS();
	ck_assert_msg(g_nfiles > 0, "no .etl files in %s", tu_corpus_dir());
	const char *name = g_files[_i];
	char *path = tu_corpus_path(name);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	int orc = etl_reader_open_file(r, path);
	ck_assert_msg(orc == ETL_OK || orc == ETL_WARN, "%s: open: %s", name, etl_reader_errmsg(r));

	/* The layout context, as read_logfile() in lib/read/reader.c builds it. */
	struct etl_hdr_ctx ctx = { 0, 0, 0 };
	const struct etl_logfile *lf = etl_reader_logfile(r);
	if (lf->present) {
		ctx.layout_major = lf->version[2];
		ctx.layout_minor = lf->version[3];
		if (lf->pointer_size == 4 || lf->pointer_size == 8)
			ctx.default_ptr_size = (uint8_t)lf->pointer_size;
	}

	uint64_t per_kind[ETL_HDR_KIND_COUNT_];
	uint64_t total = 0;
	memset(per_kind, 0, sizeof per_kind);
	size_t cap = 0x10000;
	uint8_t *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		TU_CHECK(st == ETL_OK || st == ETL_WARN, "%s: reader: %s", name, etl_reader_errmsg(r));
		TU_CHECK(ev->kind > ETL_HDR_UNKNOWN && ev->kind < ETL_HDR_KIND_COUNT_, "%s: kind %d",
		         name, ev->kind);
		const struct etl_hdr_ops *ops = etl__hdr_for_kind(ev->kind);
		TU_CHECK(ops && ops == etl__hdr_for_marker(tu_le32(ev->record)),
		         "%s: record at 0x%" PRIx64 ": module for kind %s is not the marker's", name,
		         ev->file_offset, etl_hdr_kind_name(ev->kind));
		size_t n = ops->encoded_size(ev, &ctx);
		TU_CHECK(n == ev->size, "%s: record at 0x%" PRIx64 " (%s): encoded size %zu, record size %u",
		         name, ev->file_offset, etl_hdr_kind_name(ev->kind), n, (unsigned)ev->size);
		if (n > cap) {
			cap = n;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		struct etl_err err;
		memset(&err, 0, sizeof err);
		int rc = ops->encode(buf, n, ev, &ctx, &err);
		TU_CHECK(rc == ETL_OK, "%s: record at 0x%" PRIx64 " (%s): encode: %s", name,
		         ev->file_offset, etl_hdr_kind_name(ev->kind), err.msg);
		if (memcmp(buf, ev->record, n) != 0) {
			size_t at = 0;
			while (buf[at] == ev->record[at])
				at++;
			tu_hexdump("record", ev->record, n < 0x80 ? n : 0x80, ev->file_offset);
			tu_hexdump("encoded", buf, n < 0x80 ? n : 0x80, ev->file_offset);
			ck_abort_msg("%s: record at 0x%" PRIx64 " (%s): byte 0x%zx differs: 0x%02x encoded as 0x%02x",
			             name, ev->file_offset, etl_hdr_kind_name(ev->kind), at, ev->record[at],
			             buf[at]);
		}
		/* The encoding decodes to the reader's event. */
		struct etl_cur c;
		struct etl_event d;
		etl_cur_init(&c, buf, n);
		memset(&d, 0, sizeof d);
		rc = ops->decode(&c, &ctx, &d, &err);
		TU_CHECK(rc == st, "%s: record at 0x%" PRIx64 ": decode of the encoding: %d", name,
		         ev->file_offset, rc);
		const char *diff = event_diff(ev, &d);
		TU_CHECK(diff == NULL, "%s: record at 0x%" PRIx64 " (%s): field '%s' differs", name,
		         ev->file_offset, etl_hdr_kind_name(ev->kind), diff);
		TU_CHECK(event_equal_names(ev, &d), "%s: provider_name differs", name);
		per_kind[ev->kind]++;
		total++;
	}
	free(buf);
	etl_reader_free(r);
	free(path);

	char line[1024];
	int len = snprintf(line, sizeof line, "encode corpus %s: %" PRIu64 " records byte-exact:", name,
	                   total);
	for (int k = 1; k < ETL_HDR_KIND_COUNT_; k++)
		if (per_kind[k] && len > 0 && (size_t)len < sizeof line)
			len += snprintf(line + len, sizeof line - (size_t)len, " %s=%" PRIu64,
			                etl_hdr_kind_name(k), per_kind[k]);
	printf("%s\n", line);
	fflush(stdout);

	/* Against expected.json: the record total and the per-kind census. */
	ck_assert_msg(g_exp != NULL, "%s/expected.json cannot be read or parsed", tu_corpus_dir());
	const struct jm_val *fe = jm_get(g_exp, name);
	ck_assert_msg(fe != NULL, "%s is not in expected.json", name);
	long long want_total = jm_int(fe, "events", -1);
	ck_assert_msg((long long)total == want_total, "%s: %" PRIu64 " records checked, expected.json says %lld",
	              name, total, want_total);
	const struct jm_val *ht = jm_get(fe, "header_types");
	ck_assert_ptr_nonnull(ht);
	uint64_t want_kind[ETL_HDR_KIND_COUNT_];
	memset(want_kind, 0, sizeof want_kind);
	for (size_t i = 0; i < ht->len; i++) {
		int k = exp_kind(ht->keys[i]);
		ck_assert_msg(k > ETL_HDR_UNKNOWN && k < ETL_HDR_KIND_COUNT_, "%s: unknown header type %s",
		              name, ht->keys[i]);
		ck_assert(ht->items[i].type == JM_NUM && ht->items[i].is_int);
		want_kind[k] += (uint64_t)ht->items[i].i;
	}
	for (int k = 1; k < ETL_HDR_KIND_COUNT_; k++)
		ck_assert_msg(per_kind[k] == want_kind[k], "%s: %s: %" PRIu64 " records checked, expected %" PRIu64,
		              name, etl_hdr_kind_name(k), per_kind[k], want_kind[k]);
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *encode_suite(void)
{
	Suite *s = suite_create("encode");
	TCase *tc = tcase_create("modules");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_system_style_hw_items);
	tcase_add_test(tc, test_system_layout_bytes);
	tcase_add_test(tc, test_full_header);
	tcase_add_test(tc, test_instance_forms);
	tcase_add_test(tc, test_event_header_chains);
	tcase_add_test(tc, test_message_all_option_flags);
	tcase_add_test(tc, test_message_bytes);
	tcase_add_test(tc, test_legacy);
	tcase_add_test(tc, test_derived_fields_ignored);
	tcase_add_test(tc, test_shared_bytes_merge);
	suite_add_tcase(s, tc);

	tc = tcase_create("reject");
	tcase_add_test(tc, test_reject_oversize);
	tcase_add_test(tc, test_reject_extended_info_mismatch);
	tcase_add_test(tc, test_reject_bad_chain);
	tcase_add_test(tc, test_reject_wrong_kind);
	tcase_add_test(tc, test_reject_misc);
	suite_add_tcase(s, tc);

	tc = tcase_create("corpus");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_corpus_byte_exact, 0, g_nfiles ? (int)g_nfiles : 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	fill_payload();
	load_corpus_list();
	SRunner *sr = srunner_create(encode_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	jm_free(g_exp);
	for (size_t i = 0; i < g_nfiles; i++)
		free(g_files[i]);
	free(g_files);
	return failed ? 1 : 0;
}
