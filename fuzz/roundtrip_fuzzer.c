/*
 * roundtrip_fuzzer.c - libFuzzer harness for the trace-header encoders:
 * decode(record) -> encode -> decode must give the same event, and
 * encoding it again the same bytes.
 *
 * Input layout:
 *   byte 0   which module: etl__hdr_modules[byte % number of modules]
 *   byte 1   control, as in hdr_fuzz_common.h:
 *              bit 0     which header-type byte of the module (32/64 form)
 *              bits 1-2  log-file layout version: 0.0, 1.0 (old INSTANCE
 *                        form), 1.1, 1.5
 *              bits 3-4  default pointer size: 0 (unknown), 4, 8, 8
 *   byte 2.. the record (its marker forced to the module), then whatever
 *            follows it in the buffer.
 * The record is decoded as the reader core does (peek_size, min_size,
 * a cursor of exactly the record size, on an allocation of exactly that
 * size). When decode() accepts it:
 *   - etl__hdr_for_kind(ev.kind) is the module, and encoded_size(ev) is the
 *     record's size (no decodable record is refused by its encoder);
 *   - encode(ev) reproduces the record byte for byte, except the bytes the
 *     event view does not carry, which it writes in their canonical form:
 *       the marker flag byte (byte 3) of the 0xC0-marker types: any value
 *         with bits 0xC0 set is read, 0xC0 is written;
 *       MESSAGE byte 2 (Reserved): written 0;
 *       MESSAGE: the 8 timestamp bytes reserved by OptionFlags 0x0010
 *         without 0x0008: written 0;
 *     (WNODE: ProviderId, HistoricalContext, ClientContext come from
 *     ev.record, as for an event the reader returned, so no exception);
 *   - the encoding dispatches to the same module, decodes with the same
 *     status, to an event equal field by field (fuzz/event_equal.h, plus
 *     provider_name), and encodes again to identical bytes;
 *   - encode() refuses a wrong output size.
 * Then the bytes after the record (if any) perturb copies of the event (up
 * to RT_MAX_PERTURB per input):
 * version, opcode, hook_id, user_time/trace_flags, pmc_count, present,
 * header_flags, ext_count, a shorter ext chain or payload, another kind.
 * For such an event - consistent or not - the encoder of its kind must
 * either refuse it (encoded_size 0, or encode ETL_FAILED with a reason and
 * a message) or write exactly encoded_size bytes (ASan: the output is
 * allocated at that size) that dispatch to the module, decode, and encode
 * again to the same bytes.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hdr/hdr.h"
#include "event_equal.h"
#include "fuzz.h"

/* Records are at most 0xFFFF bytes (WNODE blocks aside). */
#define RT_MAX_INPUT (128u * 1024u)
/* Perturbed copies tried per input (keeps executions fast). */
#define RT_MAX_PERTURB 16u

static unsigned rt_module_count(void)
{
	unsigned n = 0;
	while (etl__hdr_modules[n])
		n++;
	return n;
}

/* Rewrites the marker so that the record belongs to ops (the same rule as
 * hdr_fuzz_force_marker() in hdr_fuzz_common.h). */
static void rt_force_marker(const struct etl_hdr_ops *ops, uint8_t *rec, unsigned variant)
{
	if (ops == &etl__hdr_message) {
		rec[3] = 0x90;
	} else if (ops == &etl__hdr_wnode) {
		rec[3] &= 0x7F;
	} else {
		uint8_t t = ops->types[0];
		if ((variant & 1) && ops->types[1])
			t = ops->types[1];
		rec[2] = t;
		rec[3] |= 0xC0;
	}
}

/* 1 if byte i of a record of module ops is one the view does not carry;
 * *canon = the value the encoder writes there. */
static int rt_uncarried(const struct etl_hdr_ops *ops, const struct etl_event *ev, size_t i,
                        uint8_t *canon)
{
	if (ops == &etl__hdr_wnode)
		return 0;
	if (ops == &etl__hdr_message) {
		uint16_t fl = ev->header_flags;
		size_t ts = 8;
		if (i == 2) {
			*canon = 0;
			return 1;
		}
		if ((fl & ETL_MSG_PERF_TIMESTAMP) && !(fl & ETL_MSG_TIMESTAMP)) {
			if (fl & ETL_MSG_SEQUENCE)
				ts += 4;
			if (fl & ETL_MSG_COMPONENTID)
				ts += 4;
			else if (fl & ETL_MSG_GUID)
				ts += 16;
			if (i >= ts && i < ts + 8) {
				*canon = 0;
				return 1;
			}
		}
		return 0;
	}
	if (i == 3) {
		*canon = 0xC0;
		return 1;
	}
	return 0;
}

/* Reads perturbation bytes; 0 once they run out. */
struct rt_src {
	const uint8_t *p;
	size_t n, pos;
};

static uint32_t rt_take(struct rt_src *s, unsigned bytes)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint32_t)(s->pos < s->n ? s->p[s->pos++] : 0) << (8 * i);
	return v;
}

/* Encodes m with the module of its kind: refused cleanly, or bytes that
 * decode and re-encode identically. */
static void rt_perturbed(const struct etl_event *m, const struct etl_hdr_ctx *ctx)
{
	const struct etl_hdr_ops *ops = etl__hdr_for_kind(m->kind);
	struct etl_err err;
	struct etl_cur c;
	struct etl_event d;
	uint32_t psz = 0;
	size_t n, i;
	uint8_t *a, *b;
	int rc;

	if (!ops) {
		for (i = 0; etl__hdr_modules[i]; i++)
			FUZZ_ASSERT(etl__hdr_modules[i]->encoded_size(m, ctx) == 0);
		return;
	}
	n = ops->encoded_size(m, ctx);
	a = malloc(n ? n : 1);
	FUZZ_ASSERT(a != NULL);
	memset(&err, 0, sizeof err);
	rc = ops->encode(a, n, m, ctx, &err);
	if (rc != ETL_OK) {
		FUZZ_ASSERT(rc == ETL_FAILED);
		FUZZ_ASSERT(err.msg[0] != 0 && err.code > ETL_E_NONE && err.code < ETL_E_MAX_);
		free(a);
		return;
	}
	FUZZ_ASSERT(n >= ops->min_size);
	FUZZ_ASSERT(etl__hdr_for_marker(etl_le32(a)) == ops);
	FUZZ_ASSERT(ops->peek_size(a, &psz) == 0 && psz == n);
	etl_cur_init(&c, a, n);
	memset(&d, 0, sizeof d);
	rc = ops->decode(&c, ctx, &d, &err);
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN);
	FUZZ_ASSERT(d.kind == m->kind && d.size == n);
	FUZZ_ASSERT(d.payload_size == m->payload_size);
	if (ops == &etl__hdr_event)      /* only EVENT_HEADER carries a chain */
		FUZZ_ASSERT(d.ext_size == m->ext_size && d.ext_count == m->ext_count);
	else
		FUZZ_ASSERT(d.ext_size == 0);
	d.record = a;
	FUZZ_ASSERT(ops->encoded_size(&d, ctx) == n);
	b = malloc(n);
	FUZZ_ASSERT(b != NULL);
	memset(&err, 0, sizeof err);
	FUZZ_ASSERT(ops->encode(b, n, &d, ctx, &err) == ETL_OK);
	FUZZ_ASSERT(memcmp(a, b, n) == 0);
	free(b);
	free(a);
}

static void rt_fail(const char *what, const struct etl_event *ev)
{
	fprintf(stderr, "round trip: %s (kind=%d, size=%u)\n", what, ev->kind, (unsigned)ev->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t layouts[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 1, 5 } };
	static const uint8_t ptrs[4] = { 0, 4, 8, 8 };
	const struct etl_hdr_ops *ops;
	struct etl_hdr_ctx ctx;
	struct etl_cur rec, rec2;
	struct etl_event ev, ev2;
	struct etl_err err;
	uint8_t *buf, *exact, *enc, *enc2;
	uint32_t rec_size = 0;
	size_t len, want, i;
	int rc, rc2;
	const char *diff;

	if (size < 2 || size > RT_MAX_INPUT)
		return 0;
	ops = etl__hdr_modules[data[0] % rt_module_count()];
	ctx.layout_major = layouts[(data[1] >> 1) & 3][0];
	ctx.layout_minor = layouts[(data[1] >> 1) & 3][1];
	ctx.default_ptr_size = ptrs[(data[1] >> 3) & 3];
	len = size - 2;
	if (len < 8)
		return 0;
	buf = malloc(len);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, len);
	rt_force_marker(ops, buf, data[1]);
	FUZZ_ASSERT(etl__hdr_for_marker(etl_le32(buf)) == ops);
	if (ops->peek_size(buf, &rec_size) != 0 || rec_size < ops->min_size || rec_size > len) {
		free(buf);
		return 0;
	}
	exact = malloc(rec_size);
	if (!exact) {
		free(buf);
		return 0;
	}
	memcpy(exact, buf, rec_size);

	/* Decode as the core does. */
	etl_cur_init(&rec, exact, rec_size);
	memset(&ev, 0, sizeof ev);
	memset(&err, 0, sizeof err);
	rc = ops->decode(&rec, &ctx, &ev, &err);
	if (rc == ETL_FAILED) {
		free(exact);
		free(buf);
		return 0;
	}
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_WARN);
	ev.record = exact;             /* what the core sets after decode() */
	ev.size = rec_size;

	/* Encode. */
	FUZZ_ASSERT(etl__hdr_for_kind(ev.kind) == ops);
	FUZZ_ASSERT(ops->encoded_size != NULL && ops->encode != NULL);
	want = ops->encoded_size(&ev, &ctx);
	if (want != rec_size)
		rt_fail("encoded size differs from the record size", &ev);
	FUZZ_ASSERT(want == rec_size);
	enc = malloc(want);
	enc2 = malloc(want);
	FUZZ_ASSERT(enc && enc2);
	memset(&err, 0, sizeof err);
	FUZZ_ASSERT(ops->encode(enc, want - 1, &ev, &ctx, &err) == ETL_FAILED);
	FUZZ_ASSERT(err.msg[0] != 0 && err.code > ETL_E_NONE && err.code < ETL_E_MAX_);
	memset(&err, 0, sizeof err);
	rc2 = ops->encode(enc, want, &ev, &ctx, &err);
	if (rc2 != ETL_OK)
		fprintf(stderr, "encode failed: %s\n", err.msg);
	FUZZ_ASSERT(rc2 == ETL_OK);

	/* Byte-exact except the documented bytes. */
	for (i = 0; i < want; i++) {
		uint8_t canon;
		if (rt_uncarried(ops, &ev, i, &canon)) {
			FUZZ_ASSERT(enc[i] == canon);
		} else if (enc[i] != exact[i]) {
			fprintf(stderr, "round trip: byte 0x%zx differs: record 0x%02x, encoded 0x%02x\n",
			        i, exact[i], enc[i]);
			FUZZ_ASSERT(enc[i] == exact[i]);
		}
	}

	/* Decode the encoding: same module, same status, same event. */
	FUZZ_ASSERT(etl__hdr_for_marker(etl_le32(enc)) == ops);
	rec_size = 0;
	FUZZ_ASSERT(ops->peek_size(enc, &rec_size) == 0 && rec_size == want);
	etl_cur_init(&rec2, enc, want);
	memset(&ev2, 0, sizeof ev2);
	memset(&err, 0, sizeof err);
	rc2 = ops->decode(&rec2, &ctx, &ev2, &err);
	FUZZ_ASSERT(rc2 == rc);
	ev2.record = enc;
	ev2.size = (uint32_t)want;
	diff = event_diff(&ev, &ev2);
	if (diff)
		rt_fail(diff, &ev);
	FUZZ_ASSERT(diff == NULL);
	FUZZ_ASSERT(event_equal_names(&ev, &ev2));

	/* Encode again: identical bytes. */
	FUZZ_ASSERT(ops->encoded_size(&ev2, &ctx) == want);
	memset(&err, 0, sizeof err);
	FUZZ_ASSERT(ops->encode(enc2, want, &ev2, &ctx, &err) == ETL_OK);
	FUZZ_ASSERT(memcmp(enc, enc2, want) == 0);

	/* Perturbed copies of the event, driven by the bytes after the record. */
	if (len > rec_size) {
		struct rt_src src = { buf + rec_size, len - rec_size, 0 };
		for (unsigned round = 0; round < RT_MAX_PERTURB && src.pos < src.n; round++) {
			struct etl_event m = ev;
			uint32_t sel = rt_take(&src, 2);
			if (sel & 0x0001)
				m.version = (uint8_t)rt_take(&src, 1);
			if (sel & 0x0002)
				m.opcode = (uint8_t)rt_take(&src, 1);
			if (sel & 0x0004)
				m.hook_id = (uint16_t)rt_take(&src, 2);
			if (sel & 0x0008)
				m.version_word = (uint16_t)rt_take(&src, 2);
			if (sel & 0x0010)
				m.user_time = rt_take(&src, 4);
			if (sel & 0x0020)
				m.trace_flags = rt_take(&src, 4);
			if (sel & 0x0040)
				m.pmc_count = (uint8_t)(rt_take(&src, 1) % 8);
			if (sel & 0x0080)
				m.present ^= (uint16_t)rt_take(&src, 2);
			if (sel & 0x0100)
				m.header_flags ^= (uint16_t)rt_take(&src, 2);
			if (sel & 0x0200)
				m.ext_count = rt_take(&src, 1);
			if ((sel & 0x0400) && m.ext_size)     /* shorter: still readable */
				m.ext_size = rt_take(&src, 2) % m.ext_size;
			if ((sel & 0x0800) && m.payload_size)
				m.payload_size = rt_take(&src, 2) % m.payload_size;
			if (sel & 0x1000)
				m.kind = (int)(rt_take(&src, 1) % (ETL_HDR_KIND_COUNT_ + 1));
			if (sel & 0x2000)
				m.size = rt_take(&src, 4);
			if (sel & 0x4000)
				m.ext = NULL;
			if (sel & 0x8000)
				m.payload = NULL;
			if (m.size > rec_size)   /* ev.record holds ev.size bytes */
				m.record = NULL;
			if (m.kind != ev.kind)
				FUZZ_ASSERT(ops->encoded_size(&m, &ctx) == 0 ||
				            etl__hdr_for_kind(m.kind) == ops);
			rt_perturbed(&m, &ctx);
		}
	}

	free(enc2);
	free(enc);
	free(exact);
	free(buf);
	return 0;
}
