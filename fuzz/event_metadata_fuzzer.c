/*
 * event_metadata_fuzzer.c - libFuzzer harness for the EventMetadata records
 * of merged traces: the TRACE_EVENT_INFO and EVENT_MAP_INFO parser
 * (lib/decode/event_metadata_blob.c), the schemas learned from them
 * (lib/decode/event_metadata_schema.c) and the events decoded with those
 * (lib/decode/manifest_decode.c).
 *
 * Input: byte 0 flags (bit 0: the described event is 32-bit; bit 1: a map
 * record follows the EventInfo; bit 2: the described event has the next
 * version, so the lower-version fallback runs), u16 length A, A bytes of
 * EventInfo payload (a TRACE_EVENT_INFO), then with bit 1 a u16 length B
 * and B bytes of EventMapInfo payload (provider GUID + EVENT_MAP_INFO); the
 * rest is the payload of the described event. Each part is copied to a
 * block of exactly its size, so ASan sees any read past it.
 *
 * Invariants checked with FUZZ_ASSERT:
 *   - the parser accepts a blob only when every offset it hands out lies
 *     inside it (the strings end inside it, the properties' structs are
 *     inside the array), and measuring the keyword names gives the length
 *     writing them does;
 *   - every decode returns ETL_OK or ETL_FAILED (never ETL_FATAL: nothing
 *     here is large); a failure carries an error, a known errcode and no
 *     properties; a success a well-formed property tree (names set,
 *     children inside the array and pointing back to their parent, offsets
 *     inside the payload);
 *   - the described event decodes from EventMetadata only if its EventInfo
 *     record parsed.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "lib/decode/event_metadata.h"
#include "fuzz.h"

#define EM_FUZZ_MAX_INPUT (256u * 1024u)

static volatile uint64_t em_fuzz_sink;

static uint8_t *dup_part(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	if (b && n)
		memcpy(b, p, n);
	return b;
}

static void check_result(int rc, const struct etl_decoded *r, size_t payload_size)
{
	if (fuzz_decode_failed(rc, r))
		return;
	for (uint32_t i = 0; i < r->n_props; i++) {
		const struct etl_prop *p = &r->props[i];
		FUZZ_ASSERT(p->name != NULL);
		em_fuzz_sink += strlen(p->name);
		FUZZ_ASSERT(p->parent == ETL_PROP_NO_PARENT || p->parent < r->n_props);
		if (p->kind == ETL_VAL_STRUCT || p->kind == ETL_VAL_ARRAY) {
			FUZZ_ASSERT(p->n_children <= r->n_props);
			FUZZ_ASSERT(!p->n_children || p->first_child <= r->n_props - p->n_children);
			for (uint32_t k = 0; k < p->n_children; k++)
				FUZZ_ASSERT(r->props[p->first_child + k].parent == i);
		} else if (p->kind == ETL_VAL_STRING) {
			for (size_t k = 0; k < p->v.str.len; k++)
				em_fuzz_sink += (uint8_t)p->v.str.s[k];
		} else if (p->kind == ETL_VAL_BINARY && p->v.bin.len) {
			em_fuzz_sink += p->v.bin.p[0] + p->v.bin.p[p->v.bin.len - 1];
		}
		FUZZ_ASSERT(p->payload_offset <= payload_size);
	}
	if (r->message)
		em_fuzz_sink += strlen(r->message);
}

/* The blob checks the decoder relies on, seen from outside. */
static void check_tei(const uint8_t *p, size_t n)
{
	struct em_tei t;
	const char *why;
	if (etl__em_parse_tei(p, n, &t, &why) != 0) {
		FUZZ_ASSERT(why && why[0]);
		return;
	}
	const uint32_t offs[] = { t.provider_name, t.level_name, t.channel_name, t.task_name,
	                          t.opcode_name, t.message, t.provider_message };
	for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
		size_t len;
		const uint8_t *s = etl__em_str(p, n, offs[i], &len);
		FUZZ_ASSERT(!offs[i] || (s && (size_t)(s - p) + len + 2 <= n));
	}
	FUZZ_ASSERT(t.n_top <= t.n_props && EM_TEI_FIXED + (uint64_t)t.n_props * EM_PROP_SIZE <= n);
	for (uint32_t i = 0; i < t.n_props; i++) {
		struct em_prop pr;
		size_t len;
		etl__em_prop(&t, i, &pr);
		FUZZ_ASSERT(!pr.name || etl__em_str(p, n, pr.name, &len));
		if (pr.flags & EM_PROP_STRUCT)
			FUZZ_ASSERT((uint32_t)pr.in_type + pr.out_type <= t.n_props);
	}
	size_t kn = etl__em_keywords_utf8(&t, NULL);
	char *kw = malloc(kn + 1);
	if (kw) {
		FUZZ_ASSERT(etl__em_keywords_utf8(&t, kw) == kn);
		free(kw);
	}
}

static int decode_record(etl_decoder *d, unsigned opcode, const uint8_t *p, size_t n, int ptr4)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ptr4 ? ETL_HDR_FULL_HEADER32 : ETL_HDR_FULL_HEADER64;
	ev.ptr_size = ptr4 ? 4 : 8;
	ev.present = ETL_EVF_PROVIDER;
	ev.provider = etl__em_guid;
	ev.opcode = (uint8_t)opcode;
	ev.payload = p;
	ev.payload_size = (uint32_t)n;
	const struct etl_decoded *r;
	int rc = etl_decoder_decode(d, &ev, &r);
	check_result(rc, r, n);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > EM_FUZZ_MAX_INPUT)
		return 0;
	unsigned flags = data[0];
	size_t a = (size_t)data[1] | (size_t)data[2] << 8, pos = 3;
	if (a > size - pos)
		a = size - pos;
	uint8_t *tei = dup_part(data + pos, a);
	pos += a;
	uint8_t *map = NULL;
	size_t b = 0;
	if ((flags & 2) && size - pos >= 2) {
		b = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
		pos += 2;
		if (b > size - pos)
			b = size - pos;
		map = dup_part(data + pos, b);
		pos += b;
	}
	uint8_t *payload = dup_part(data + pos, size - pos);
	etl_decoder *d = etl_decoder_new();
	if (!tei || !payload || ((flags & 2) && !map) || !d)
		goto out;

	check_tei(tei, a);
	int ptr4 = flags & 1;
	int learned = decode_record(d, EM_OP_EVENT_INFO, tei, a, ptr4) == ETL_OK;
	if (map) {
		struct em_map m;
		const char *why;
		if (etl__em_parse_map(map, b, &m, &why) == 0) {
			for (uint32_t i = 0; i < m.n_entries; i++) {
				uint32_t name, value;
				size_t len;
				etl__em_map_entry(&m, i, &name, &value);
				FUZZ_ASSERT(!name || etl__em_str(m.p, m.len, name, &len));
			}
		}
		decode_record(d, EM_OP_MAP_INFO, map, b, ptr4);
	}
	/* The described event (a second EventInfo record, the same one, is
	 * known already and changes nothing). */
	struct em_tei t;
	const char *why;
	int parsed = etl__em_parse_tei(tei, a, &t, &why) == 0;
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ptr4 ? ETL_HDR_EVENT_HEADER32 : ETL_HDR_EVENT_HEADER64;
	ev.ptr_size = ptr4 ? 4 : 8;
	ev.present = ETL_EVF_PROVIDER;
	if (parsed) {
		ev.provider = t.provider;
		ev.id = t.id;
		ev.version = (uint8_t)(t.version + ((flags & 4) ? 1 : 0));
	}
	ev.payload = payload;
	ev.payload_size = (uint32_t)(size - pos);
	for (int pass = 0; pass < 2; pass++) {
		const struct etl_decoded *r;
		int rc = etl_decoder_decode(d, &ev, &r);
		check_result(rc, r, ev.payload_size);
		FUZZ_ASSERT(r->source != ETL_DECODE_EVENT_METADATA || (parsed && learned));
		if (pass == 0)
			decode_record(d, EM_OP_EVENT_INFO, tei, a, ptr4);
	}
out:
	etl_decoder_free(d);
	free(tei);
	free(map);
	free(payload);
	return 0;
}
