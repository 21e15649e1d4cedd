/*
 * mof_fuzzer.c - libFuzzer harness for the MOF parser and the classic
 * events of loaded classes (lib/decode/mof_parse.c, mof_load.c,
 * mof_file.c and the manifest walker they reuse).
 *
 * Input: MOF text, up to the first NUL byte; the bytes after it are an
 * event payload. The text is parsed from a copy of exactly its size (so
 * ASan sees any read past it) with etl__mof_parse_text(). When it loads,
 * an event of each schema it defines (the first 32) is decoded with that
 * payload as FULL_HEADER (pointer sizes 4 and 8), INSTANCE and SYSTEM
 * records, at the schema's version and one above (the version fallback).
 *
 * Invariants checked with FUZZ_ASSERT:
 *   - loading returns ETL_OK or ETL_FAILED; ETL_FAILED leaves a message of
 *     the form "fuzz.mof:LINE: ...";
 *   - decoding returns ETL_OK (source MOF, every property named, inside
 *     the tree's bounds, strings of their stated length) or ETL_FAILED
 *     with a known errcode, an error and no properties.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "fuzz.h"

#define MOF_FUZZ_MAX_INPUT (256u * 1024u)

static volatile uint64_t mof_fuzz_sink;

static void check_result(int rc, const struct etl_decoded *r, size_t payload_size)
{
	if (fuzz_decode_failed(rc, r))
		return;
	FUZZ_ASSERT(r->source == ETL_DECODE_MOF);
	for (uint32_t i = 0; i < r->n_props; i++) {
		const struct etl_prop *p = &r->props[i];
		FUZZ_ASSERT(p->name != NULL);
		mof_fuzz_sink += strlen(p->name);
		FUZZ_ASSERT(p->payload_offset <= payload_size);
		if (p->parent != ETL_PROP_NO_PARENT)
			FUZZ_ASSERT(p->parent < r->n_props);
		if (p->kind == ETL_VAL_ARRAY || p->kind == ETL_VAL_STRUCT)
			FUZZ_ASSERT(p->n_children == 0 ||
			            (p->first_child < r->n_props && p->n_children <= r->n_props - p->first_child));
		if (p->kind == ETL_VAL_STRING)
			for (size_t k = 0; k < p->v.str.len; k++)
				mof_fuzz_sink += (uint8_t)p->v.str.s[k];
		if (p->kind == ETL_VAL_BINARY || p->kind == ETL_VAL_SID)
			for (size_t k = 0; k < p->v.bin.len; k++)
				mof_fuzz_sink += p->v.bin.p[k];
		if (p->map_name)
			mof_fuzz_sink += strlen(p->map_name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MOF_FUZZ_MAX_INPUT)
		return 0;
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	size_t plen = nul ? size - tlen - 1 : 0;
	char *text = malloc(tlen ? tlen : 1);
	uint8_t *payload = malloc(plen ? plen : 1);
	etl_decoder *d = etl_decoder_new();
	if (!text || !payload || !d) {
		free(text);
		free(payload);
		etl_decoder_free(d);
		return 0;
	}
	memcpy(text, data, tlen);
	if (plen)
		memcpy(payload, nul + 1, plen);
	int rc = etl__mof_parse_text(d, "fuzz.mof", text, tlen);
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_FAILED);
	if (rc != ETL_OK) {
		const char *m = etl_decoder_errmsg(d);
		FUZZ_ASSERT(m && strncmp(m, "fuzz.mof:", 9) == 0);
	} else {
		static const int kinds[] = { ETL_HDR_FULL_HEADER64, ETL_HDR_FULL_HEADER32, ETL_HDR_INSTANCE64,
		                             ETL_HDR_SYSTEM64 };
		struct etl_guid g;
		uint8_t type, version;
		for (size_t i = 0; i < 32 && etl__mof_file_event(d, i, &g, &type, &version); i++) {
			for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
				for (unsigned dv = 0; dv < 2; dv++) {
					struct etl_event ev;
					memset(&ev, 0, sizeof ev);
					ev.kind = kinds[k];
					ev.ptr_size = kinds[k] == ETL_HDR_FULL_HEADER32 ? 4 : 8;
					ev.present = ETL_EVF_PROVIDER;
					ev.provider = g;
					ev.opcode = type;
					ev.version = (uint8_t)(version + dv);
					ev.payload = plen ? payload : NULL;
					ev.payload_size = (uint32_t)plen;
					const struct etl_decoded *r = NULL;
					int drc = etl_decoder_decode(d, &ev, &r);
					check_result(drc, r, plen);
				}
			}
		}
	}
	etl_decoder_free(d);
	free(text);
	free(payload);
	return 0;
}
