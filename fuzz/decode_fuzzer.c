/*
 * decode_fuzzer.c - libFuzzer harness for the whole payload decoder and
 * the output formats: one record of any trace-header type is decoded by its
 * module exactly as the reader core does (fuzz/hdr_fuzz_common.h's rules),
 * then by etl_decoder_decode() with the test manifest and TMF loaded
 * (testdata/manifests/test.man, testdata/tmf/test.tmf, read once; set
 * ETL_FUZZ_TESTDATA to run from elsewhere than the repository root), so
 * the TraceLogging, MOF, manifest, in-band and WPP decoders are all
 * reachable; then every output format renders the event into a sink
 * that keeps its length and a hash.
 *
 * Input: byte 0 selects the module (low 3 bits over the 8 header families)
 * and, with bit 3, stamps the test manifest's provider GUID (EVENT_HEADER)
 * or the test TMF's message GUID (MESSAGE) into the record so schema
 * lookups hit; the rest is the record.
 *
 * Invariants (FUZZ_ASSERT): the decoder returns ETL_OK or ETL_FAILED;
 * ETL_FAILED carries an error and no properties; the property tree is
 * consistent (children contiguous, parents before children, payload
 * offsets inside the payload); every output format accepts the event;
 * decoded again with ETL_DECODE_PACKED_ARRAYS, the event gets the same
 * status and every format writes the same bytes.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hdr/hdr.h"
#include "lib/decode/decode_internal.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "fuzz.h"

#define DEC_MAX_INPUT (64u * 1024u + 16u)

static const struct etl_hdr_ops *const mods[8] = {
	&etl__hdr_system, &etl__hdr_compact, &etl__hdr_perfinfo, &etl__hdr_full,
	&etl__hdr_instance, &etl__hdr_event, &etl__hdr_message, &etl__hdr_error,
};

static char *load(const char *name, size_t *len)
{
	const char *dir = getenv("ETL_FUZZ_TESTDATA");
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "testdata", name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 20);
	*len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	return buf;
}

static const char *man_xml, *tmf_text;
static size_t man_len, tmf_len;
static int loaded;

/* What a format wrote: its length and an FNV-1a hash of its bytes. */
struct digest {
	uint64_t len, hash;
};

static int digest_sink(void *ctx, const void *data, size_t n)
{
	struct digest *g = ctx;
	const uint8_t *b = data;
	for (size_t i = 0; i < n; i++)
		g->hash = (g->hash ^ b[i]) * 0x100000001b3ull;
	g->len += n;
	return 0;
}

static const char *const formats[] = { "xml", "json", "jsonl", "csv", "text" };
#define N_FORMATS (sizeof formats / sizeof formats[0])

/* Every output format renders the event; out[] gets what each wrote. */
static void render_all(const struct etl_event *ev, const struct etl_decoded *r, struct digest *out)
{
	for (size_t i = 0; i < N_FORMATS; i++) {
		out[i].len = 0;
		out[i].hash = 0xcbf29ce484222325ull;
		etl_output *o = etl_output_new(formats[i], digest_sink, &out[i]);
		FUZZ_ASSERT(o != NULL);
		FUZZ_ASSERT(etl_output_begin(o, NULL) == ETL_OK);
		FUZZ_ASSERT(etl_output_event(o, ev, r) == ETL_OK);
		FUZZ_ASSERT(etl_output_end(o) == ETL_OK);
		etl_output_free(o);
	}
}

static void check_tree(const struct etl_decoded *r, const struct etl_event *ev)
{
	for (uint32_t i = 0; i < r->n_props; i++) {
		const struct etl_prop *p = &r->props[i];
		FUZZ_ASSERT(p->name != NULL);
		FUZZ_ASSERT(p->parent == ETL_PROP_NO_PARENT || p->parent < i);
		if (p->kind == ETL_VAL_STRUCT || p->kind == ETL_VAL_ARRAY) {
			FUZZ_ASSERT(p->n_children == 0 ||
			            (p->first_child > i && p->first_child + p->n_children <= r->n_props));
		}
		FUZZ_ASSERT(p->payload_offset <= ev->payload_size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct etl_guid man_guid = { 0x11111111, 0x2222, 0x3333,
	                                          { 0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 } };
	static const struct etl_guid tmf_guid = { 0x11112222, 0x3333, 0x4444,
	                                          { 0x55, 0x55, 0x66, 0x66, 0x77, 0x77, 0x88, 0x88 } };
	if (!loaded) {
		man_xml = load("manifests/test.man", &man_len);
		tmf_text = load("tmf/test.tmf", &tmf_len);
		loaded = 1;
	}
	if (size < 9 || size > DEC_MAX_INPUT)
		return 0;
	const struct etl_hdr_ops *ops = mods[data[0] & 7];
	int stamp = data[0] & 8;
	size_t n = size - 1;
	uint8_t *rec = malloc(n);
	memcpy(rec, data + 1, n);
	/* Make the marker dispatch to the chosen module. */
	if (ops == &etl__hdr_message) {
		rec[3] = 0x90;
		if (stamp && n >= 8 + 16) {
			rec[6] |= 0x02;                      /* GUID item present */
			rec[6] &= (uint8_t)~0x05;            /* no sequence / component id */
			etl_put_guid(rec + 8, &tmf_guid);
		}
	} else if (ops->types[0]) {
		rec[2] = ops->types[(data[0] >> 4) & 1] ? ops->types[(data[0] >> 4) & 1] : ops->types[0];
		rec[3] = 0xC0;
		if (stamp && ops == &etl__hdr_event && n >= 0x28)
			etl_put_guid(rec + 0x18, &man_guid);
	} else {
		rec[3] &= 0x7F;                          /* WNODE: bit 31 clear */
	}
	uint32_t rs = 0;
	if (ops->peek_size(rec, &rs) != 0 || rs < ops->min_size || rs > n) {
		free(rec);
		return 0;
	}
	struct etl_cur c;
	struct etl_event ev;
	struct etl_err err;
	struct etl_hdr_ctx ctx = { 1, 5, 8 };
	memset(&ev, 0, sizeof ev);
	etl_cur_init(&c, rec, rs);
	int st = ops->decode(&c, &ctx, &ev, &err);
	if (st == ETL_FAILED) {
		free(rec);
		return 0;
	}
	ev.size = rs;
	ev.record = rec;

	etl_decoder *d = etl_decoder_new();
	FUZZ_ASSERT(d != NULL);
	if (man_xml)
		etl__mf_load_memory(d, "test.man", man_xml, man_len);
	if (tmf_text)
		etl__wpp_parse_tmf(d, "test.tmf", tmf_text, tmf_len);
	const struct etl_decoded *r;
	int ds = etl_decoder_decode(d, &ev, &r);
	FUZZ_ASSERT(ds == ETL_OK || ds == ETL_FAILED);
	if (ds == ETL_FAILED)
		FUZZ_ASSERT(r->error && r->error[0] && r->n_props == 0);
	else
		check_tree(r, &ev);

	struct digest plain[N_FORMATS], packed[N_FORMATS];
	render_all(&ev, r, plain);
	/* Decoded again with arrays of integers kept packed: the same status
	 * and, from every format, the same bytes. */
	FUZZ_ASSERT(etl_decoder_set_flags(d, ETL_DECODE_PACKED_ARRAYS) == ETL_OK);
	FUZZ_ASSERT(etl_decoder_decode(d, &ev, &r) == ds);
	render_all(&ev, r, packed);
	for (size_t i = 0; i < N_FORMATS; i++)
		FUZZ_ASSERT(packed[i].len == plain[i].len && packed[i].hash == plain[i].hash);
	etl_decoder_free(d);
	free(rec);
	return 0;
}
