/*
 * lib/decode/tracelogging_schema.h - the parsed schema of a TraceLogging
 * event, shared by lib/decode/tracelogging_schema.c (traits and metadata ->
 * schema) and lib/decode/tracelogging.c (payload decoding with a schema).
 *
 * The fields of a schema are flat, in metadata order: a struct is followed
 * by its members' subtrees, and each field records where its subtree ends.
 */
#ifndef ETL_TRACELOGGING_SCHEMA_H
#define ETL_TRACELOGGING_SCHEMA_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/tracelogging_schema.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_decode.h"

/* Count kinds (bits 5-6 of the in-type byte). */
#define TL_SCALAR 0x00
#define TL_CCOUNT 0x20
#define TL_VCOUNT 0x40
#define TL_CUSTOM 0x60

struct tl_field {
	const char *name;           /* UTF-8, in the schema's string block     */
	uint32_t meta_off;          /* offset of the field in the metadata     */
	uint32_t tags;              /* field tags (28 bits)                    */
	uint32_t end;               /* index one past this field's subtree     */
	uint16_t ccount;            /* TL_CCOUNT: element count                */
	uint16_t out_type;          /* TDH numbering (etl_out_type)            */
	uint8_t in_type;            /* low 5 bits of the in-type byte          */
	uint8_t count_kind;         /* TL_SCALAR / TL_CCOUNT / TL_VCOUNT / TL_CUSTOM */
	uint8_t tl_out;             /* raw TlgOut; STRUCT: member count        */
};

struct tl_schema {
	const char *provider_name;  /* from the traits, or NULL                */
	const char *event_name;     /* NULL only if the metadata is malformed  */
	uint32_t tags;
	struct tl_field *fields;
	uint32_t n_fields;
	uint32_t n_top;             /* top-level fields                        */
	int has_group, has_decode_guid;
	struct etl_guid group_guid; /* trait type 1                           */
	struct etl_guid decode_guid;/* trait type 2                           */
	int bad_code;               /* != 0: the metadata is malformed          */
	char *bad_msg;
	char *strings;              /* names (sanitised UTF-8)                 */
	size_t strings_len, strings_cap;
};

/* Size class of an integer in-type: 1, 2, 4, 8 bytes, or 0. */
static inline unsigned etl__tl_int_size(unsigned in)
{
	switch (in) {
	case ETL_IN_INT8: case ETL_IN_UINT8:
		return 1;
	case ETL_IN_INT16: case ETL_IN_UINT16:
		return 2;
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN:
		return 4;
	case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64:
		return 8;
	default:
		return 0;
	}
}

/* Parses the traits (traits_len bytes at traits, or NULL) and the event
 * metadata into a schema; a malformed one is returned too (bad_code set)
 * so that the verdict is cached. *cost gets its size in bytes (for the
 * schema cache). NULL on out-of-memory. Free with etl__tl_schema_free(). */
struct tl_schema *etl__tl_schema_parse(const uint8_t *traits, size_t traits_len,
                                       const uint8_t *meta, size_t meta_len, size_t *cost);
void etl__tl_schema_free(void *schema);

#endif /* ETL_TRACELOGGING_SCHEMA_H */
