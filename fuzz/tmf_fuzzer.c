/*
 * tmf_fuzzer.c - libFuzzer harness for the TMF parser and the WPP decoder
 * (lib/decode/tmf_load.c, lib/decode/wpp_decode.c).
 *
 * Input: TMF text, parsed from memory with etl__wpp_parse_tmf() (a copy of
 * exactly the input's size, so ASan sees any read past it). When it loads,
 * MESSAGE events are decoded for message numbers 0..15 of the GUID on the
 * input's first GUID-looking line, with the input bytes themselves as the
 * argument blob (pointer sizes 4 and 8).
 *
 * Invariants checked with FUZZ_ASSERT:
 *   - parsing returns ETL_OK or ETL_FAILED; ETL_FAILED leaves a non-empty
 *     errmsg of the form "NAME:LINE: ...";
 *   - decoding returns ETL_OK (source WPP, a NUL-terminated message, every
 *     property named, offsets inside the blob) or ETL_FAILED with a known
 *     errcode, an error and no properties.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "fuzz.h"

#define TMF_FUZZ_MAX_INPUT (256u * 1024u)

static volatile uint64_t tmf_fuzz_sink;

static int find_guid(const char *p, size_t n, struct etl_guid *g)
{
	for (size_t i = 0; i + 36 <= n; i++) {
		char t[37];
		memcpy(t, p + i, 36);
		t[36] = 0;
		if (memchr(t, 0, 36) == NULL && etl_guid_parse(t, g) == ETL_OK)
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > TMF_FUZZ_MAX_INPUT)
		return 0;
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	etl_decoder *d = etl_decoder_new();
	if (!d) {
		free(text);
		return 0;
	}
	int rc = etl__wpp_parse_tmf(d, "fuzz.tmf", text, size);
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_FAILED);
	if (rc != ETL_OK) {
		const char *m = etl_decoder_errmsg(d);
		FUZZ_ASSERT(m && strncmp(m, "fuzz.tmf:", 9) == 0);
	} else {
		struct etl_guid g;
		if (find_guid(text, size, &g)) {
			for (unsigned ps = 4; ps <= 8; ps += 4) {
				for (uint16_t num = 0; num < 16; num++) {
					struct etl_event ev;
					memset(&ev, 0, sizeof ev);
					ev.kind = ETL_HDR_MESSAGE;
					ev.ptr_size = (uint8_t)ps;
					ev.present = ETL_EVF_PROVIDER;
					ev.provider = g;
					ev.id = num;
					ev.payload = (const uint8_t *)text;
					ev.payload_size = (uint32_t)size;
					const struct etl_decoded *r;
					int drc = etl_decoder_decode(d, &ev, &r);
					FUZZ_ASSERT(drc == ETL_OK || drc == ETL_FAILED);
					if (drc == ETL_OK) {
						FUZZ_ASSERT(r->source == ETL_DECODE_WPP);
						FUZZ_ASSERT(r->message != NULL);
						tmf_fuzz_sink += strlen(r->message);
						for (uint32_t i = 0; i < r->n_props; i++) {
							FUZZ_ASSERT(r->props[i].name != NULL);
							tmf_fuzz_sink += strlen(r->props[i].name);
							FUZZ_ASSERT(r->props[i].payload_offset <= size);
							if (r->props[i].kind == ETL_VAL_STRING)
								for (size_t k = 0; k < r->props[i].v.str.len; k++)
									tmf_fuzz_sink += (uint8_t)r->props[i].v.str.s[k];
						}
					} else {
						FUZZ_ASSERT(r->error && r->error[0]);
						FUZZ_ASSERT(r->errcode > ETL_E_NONE && r->errcode < ETL_E_MAX_);
						FUZZ_ASSERT(r->n_props == 0);
					}
				}
			}
		}
	}
	etl_decoder_free(d);
	free(text);
	return 0;
}
