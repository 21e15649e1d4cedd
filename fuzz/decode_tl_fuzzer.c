/*
 * decode_tl_fuzzer.c - libFuzzer harness for the payload decoder, aimed at
 * TraceLogging (lib/decode/tracelogging.c, lib/decode/decoder.c).
 *
 * Input: one EVENT_HEADER record (as stored in a buffer, header + extended
 * items + payload). The header-type byte is forced to EVENT_HEADER64 and the
 * record is decoded by the EVENT_HEADER module exactly as the reader core
 * does (peek_size, a cursor of exactly the record size, decode) into an
 * allocation of exactly the record's size, so ASan sees any read past it.
 * The event is then decoded twice by a fresh decoder (the second time from
 * the schema cache) and every property is touched.
 *
 * Invariants checked with FUZZ_ASSERT:
 *   - the status is ETL_OK or ETL_FAILED (nothing allocates enough to fail
 *     with ETL_FATAL here); ETL_FAILED has a non-empty error, a known
 *     errcode and no properties; ETL_OK has no error and a source;
 *   - the property tree is consistent: parents precede children, children of
 *     a node are contiguous and name it as parent, names are NUL-terminated
 *     UTF-8, payload offsets lie inside the payload, pointers into the
 *     payload stay inside it;
 *   - the cached second decode returns the same result as the first;
 *   - the record bytes are not modified.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hdr/hdr.h"
#include "etl_decode.h"
#include "fuzz.h"

#define DEC_FUZZ_MAX_INPUT (128u * 1024u)

static volatile uint64_t dec_fuzz_sink;

static uint64_t sum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

/* Checks and touches one decoded result. */
static void check_result(const struct etl_event *ev, const struct etl_decoded *d, int rc)
{
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_FAILED);
	FUZZ_ASSERT(d->status == rc);
	if (d->provider_name)
		dec_fuzz_sink += strlen(d->provider_name);
	if (d->event_name)
		dec_fuzz_sink += strlen(d->event_name);
	FUZZ_ASSERT(d->tags < (1u << 28));
	if (rc != ETL_OK) {
		FUZZ_ASSERT(d->error && d->error[0]);
		FUZZ_ASSERT(d->errcode > ETL_E_NONE && d->errcode < ETL_E_MAX_);
		FUZZ_ASSERT(d->n_props == 0);
		dec_fuzz_sink += strlen(d->error);
		return;
	}
	FUZZ_ASSERT(d->error == NULL && d->errcode == ETL_E_NONE);
	/* Inputs without TraceLogging metadata may reach other decoders
	 * (manifests); the tree checks hold for them too, the pointer checks
	 * only for TraceLogging, whose values all point into the payload or
	 * the decoder's own storage. */
	FUZZ_ASSERT(d->source != ETL_DECODE_NONE);
	int tl = d->source == ETL_DECODE_TRACELOGGING;
	FUZZ_ASSERT(d->n_props == 0 || d->props != NULL);
	const uint8_t *pay = ev->payload, *pay_end = ev->payload + ev->payload_size;
	for (uint32_t i = 0; i < d->n_props; i++) {
		const struct etl_prop *p = &d->props[i];
		FUZZ_ASSERT(p->name != NULL);
		dec_fuzz_sink += strlen(p->name);
		FUZZ_ASSERT(p->payload_offset <= ev->payload_size);
		FUZZ_ASSERT(p->parent == ETL_PROP_NO_PARENT || p->parent < i);
		if (p->parent != ETL_PROP_NO_PARENT) {
			const struct etl_prop *q = &d->props[p->parent];
			FUZZ_ASSERT(q->kind == ETL_VAL_STRUCT || q->kind == ETL_VAL_ARRAY);
			FUZZ_ASSERT(i >= q->first_child && i - q->first_child < q->n_children);
		}
		switch (p->kind) {
		case ETL_VAL_STRUCT:
		case ETL_VAL_ARRAY:
			FUZZ_ASSERT(p->n_children == 0 ||
			            (p->first_child > i && p->first_child <= d->n_props &&
			             p->n_children <= d->n_props - p->first_child));
			for (uint32_t k = 0; k < p->n_children; k++) {
				const struct etl_prop *c = &d->props[p->first_child + k];
				FUZZ_ASSERT(c->parent == i);
				if (p->kind == ETL_VAL_ARRAY)
					FUZZ_ASSERT(strcmp(c->name, p->name) == 0);
			}
			break;
		case ETL_VAL_STRING:
			FUZZ_ASSERT(p->v.str.s != NULL || p->v.str.len == 0);
			if (p->v.str.len) {
				dec_fuzz_sink += sum(p->v.str.s, p->v.str.len);
				if ((const uint8_t *)p->v.str.s >= pay && (const uint8_t *)p->v.str.s < pay_end)
					FUZZ_ASSERT(p->v.str.len <= (size_t)(pay_end - (const uint8_t *)p->v.str.s));
			}
			break;
		case ETL_VAL_BINARY:
		case ETL_VAL_SID:
			if (p->v.bin.len) {
				if (tl) {
					FUZZ_ASSERT(p->v.bin.p >= pay && p->v.bin.p < pay_end);
					FUZZ_ASSERT(p->v.bin.len <= (size_t)(pay_end - p->v.bin.p));
				}
				dec_fuzz_sink += sum(p->v.bin.p, p->v.bin.len);
			}
			break;
		case ETL_VAL_BOOL:
			FUZZ_ASSERT(!tl || p->v.u <= 1);
			break;
		case ETL_VAL_INT:
		case ETL_VAL_UINT:
		case ETL_VAL_FLOAT:
		case ETL_VAL_FILETIME:
		case ETL_VAL_GUID:
			dec_fuzz_sink += sum(&p->v, sizeof p->v);
			break;
		default:
			FUZZ_ASSERT(0 && "unknown value kind");
		}
		dec_fuzz_sink += p->in_type + p->out_type;
	}
}

/* A digest of everything a result says, strings by content. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return s ? mix(h, s, strlen(s) + 1) : mix(h, "\xff", 1);
}

static uint64_t digest(const struct etl_decoded *d)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = mix(h, &d->status, sizeof d->status);
	h = mix(h, &d->errcode, sizeof d->errcode);
	h = mix(h, &d->source, sizeof d->source);
	h = mix(h, &d->tags, sizeof d->tags);
	h = mix_str(h, d->provider_name);
	h = mix_str(h, d->event_name);
	h = mix_str(h, d->error);
	for (uint32_t i = 0; i < d->n_props; i++) {
		const struct etl_prop *p = &d->props[i];
		h = mix_str(h, p->name);
		h = mix(h, &p->kind, sizeof p->kind);
		h = mix(h, &p->in_type, sizeof p->in_type);
		h = mix(h, &p->out_type, sizeof p->out_type);
		h = mix(h, &p->parent, sizeof p->parent);
		h = mix(h, &p->n_children, sizeof p->n_children);
		h = mix(h, &p->payload_offset, sizeof p->payload_offset);
		if (p->kind == ETL_VAL_STRING)
			h = mix(h, p->v.str.s, p->v.str.len);
		else if (p->kind == ETL_VAL_BINARY || p->kind == ETL_VAL_SID)
			h = mix(h, p->v.bin.p, p->v.bin.len);
		else if (p->kind == ETL_VAL_GUID)
			h = mix(h, &p->v.guid, sizeof p->v.guid);
		else if (p->kind != ETL_VAL_STRUCT && p->kind != ETL_VAL_ARRAY)
			h = mix(h, &p->v.u, sizeof p->v.u);
	}
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_hdr_ctx ctx = { 1, 5, 8 };
	struct etl_cur rec;
	struct etl_event ev;
	struct etl_err err;
	uint32_t rec_size = 0;
	uint8_t *exact, *copy;

	if (size < 8 || size > DEC_FUZZ_MAX_INPUT)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[2] = 0x13;                  /* EVENT_HEADER64 */
	copy[3] |= 0xC0;
	if (etl__hdr_for_marker(etl_le32(copy)) != &etl__hdr_event ||
	    etl__hdr_event.peek_size(copy, &rec_size) != 0 ||
	    rec_size < etl__hdr_event.min_size || rec_size > size) {
		free(copy);
		return 0;
	}
	exact = malloc(rec_size);
	if (!exact) {
		free(copy);
		return 0;
	}
	memcpy(exact, copy, rec_size);
	etl_cur_init(&rec, exact, rec_size);
	memset(&ev, 0, sizeof ev);
	memset(&err, 0, sizeof err);
	int rc = etl__hdr_event.decode(&rec, &ctx, &ev, &err);
	if (rc == ETL_OK || rc == ETL_WARN) {
		ev.record = exact;
		ev.file_offset = 0x48;
		etl_decoder *d = etl_decoder_new();
		FUZZ_ASSERT(d != NULL);
		const struct etl_decoded *out = NULL;
		int r1 = etl_decoder_decode(d, &ev, &out);
		FUZZ_ASSERT(out != NULL);
		check_result(&ev, out, r1);
		uint64_t h1 = digest(out);
		int r2 = etl_decoder_decode(d, &ev, &out);
		FUZZ_ASSERT(r2 == r1);
		check_result(&ev, out, r2);
		FUZZ_ASSERT(digest(out) == h1);
		etl_decoder_free(d);
	}
	FUZZ_ASSERT(memcmp(exact, copy, rec_size) == 0);
	free(exact);
	free(copy);
	return 0;
}
