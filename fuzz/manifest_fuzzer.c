/*
 * manifest_fuzzer.c - libFuzzer harness for the instrumentation-manifest
 * loader (lib/decode/manifest_load.c): the input is manifest XML given to the
 * loader from memory; whatever it accepts, an EVENT_HEADER event of the
 * test provider {11111111-2222-3333-4444-555555555555} with ids 1..3 and a
 * payload taken from the input's last bytes is then decoded, so templates
 * the fuzzer invents are walked over data.
 *
 * Invariants (FUZZ_ASSERT): loading returns ETL_OK, ETL_FAILED or
 * ETL_FATAL; a failed load leaves a message; decoding returns ETL_OK or
 * ETL_FAILED, and ETL_FAILED carries an error and no properties.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "etl_decode.h"
#include "fuzz.h"

#define MAN_MAX_INPUT (256u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct etl_guid guid = { 0x11111111, 0x2222, 0x3333,
	                                      { 0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 } };
	if (size > MAN_MAX_INPUT)
		return 0;
	etl_decoder *d = etl_decoder_new();
	FUZZ_ASSERT(d != NULL);
	int st = etl__mf_load_memory(d, "fuzz.man", data, size);
	FUZZ_ASSERT(st == ETL_OK || st == ETL_FAILED || st == ETL_FATAL);
	if (st != ETL_OK)
		FUZZ_ASSERT(etl_decoder_errmsg(d)[0] != 0);
	size_t plen = size < 64 ? size : 64;
	uint8_t *payload = malloc(plen ? plen : 1);
	memcpy(payload, data + size - plen, plen);
	for (uint16_t id = 1; id <= 3; id++) {
		struct etl_event ev;
		memset(&ev, 0, sizeof ev);
		ev.kind = ETL_HDR_EVENT_HEADER64;
		ev.header_type = 0x13;
		ev.ptr_size = (uint8_t)(id == 2 ? 4 : 8);
		ev.present = ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR;
		ev.provider = guid;
		ev.id = id;
		ev.version = (uint8_t)(id == 2);
		ev.payload = payload;
		ev.payload_size = (uint32_t)plen;
		const struct etl_decoded *r;
		int ds = etl_decoder_decode(d, &ev, &r);
		FUZZ_ASSERT(ds == ETL_OK || ds == ETL_FAILED);
		if (ds == ETL_FAILED)
			FUZZ_ASSERT(r->error && r->error[0] && r->n_props == 0);
	}
	free(payload);
	etl_decoder_free(d);
	return 0;
}
