/*
 * lib/decode/decoder.c - etl_decoder_decode(): dispatch of an event to the
 * decoder of its schema source (doc/decoding.md §1).
 *
 * Each source decoder says whether an event is its own (match()) and
 * decodes it into the handle's result through lib/decode/decode_result.c;
 * the sources are tried in a fixed order and the first that matches
 * decodes. An event no source takes fails with "no schema for this event".
 */
#define ETL_BUILDING_LIB 1
#include <stddef.h>

#include "lib/decode/decode_internal.h"

/* Per-source decoders, tried in order (doc/decoding.md §1). */
struct etl_dec_source {
	const char *name;
	int (*match)(const struct etl_event *ev);
	int (*decode)(etl_decoder *d, const struct etl_event *ev);
};

static const struct etl_dec_source dec_sources[] = {
	{ "TraceLogging", etl__tl_match, etl__tl_decode },
	{ "MOF", etl__mof_match, etl__mof_decode },
	{ "EventMetadata", etl__em_match, etl__em_decode },
	{ "MOF file", etl__moffile_match, etl__moffile_decode },
	{ "in-band manifest", etl__inband_match, etl__inband_decode },
	{ "manifest", etl__mf_match, etl__mf_decode },
	{ "WPP", etl__wpp_match, etl__wpp_decode },
};

const char *etl_decode_source_name(int source)
{
	switch (source) {
	case ETL_DECODE_NONE: return "none";
	case ETL_DECODE_MANIFEST: return "manifest";
	case ETL_DECODE_MOF: return "MOF";
	case ETL_DECODE_WPP: return "WPP";
	case ETL_DECODE_TRACELOGGING: return "TraceLogging";
	case ETL_DECODE_EVENT_METADATA: return "EventMetadata";
	default: return "unknown";
	}
}

int etl_decoder_schema_event(const struct etl_event *ev)
{
	return ev && (etl__em_match(ev) || etl__inband_match(ev));
}

int etl_decoder_decode(etl_decoder *d, const struct etl_event *ev, const struct etl_decoded **out)
{
	int rc = ETL_FAILED;
	int matched = 0;

	if (!d || !out)
		return ETL_FAILED;
	etl__dec_begin(d);

	if (!ev) {
		rc = etl__dec_fail(d, ETL_E_MISUSE, "no event given");
	} else {
		for (size_t i = 0; i < sizeof dec_sources / sizeof dec_sources[0]; i++) {
			if (dec_sources[i].match(ev)) {
				matched = 1;
				rc = dec_sources[i].decode(d, ev);
				break;
			}
		}
		if (!matched)
			rc = etl__dec_fail_noschema(d, ev);
	}

	rc = etl__dec_end(d, rc);
	*out = etl__dec_result(d);
	return rc;
}
