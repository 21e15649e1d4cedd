/*
 * lib/decode/event_metadata.h - the EventMetadata records a trace merge
 * adds (doc/decoding.md §10.6), shared by the files that handle them
 * (internal):
 *   event_metadata_blob.c    TRACE_EVENT_INFO and EVENT_MAP_INFO blobs
 *                            parsed and checked (untrusted bytes);
 *   event_metadata_schema.c  a checked blob turned into the manifest model
 *                            (lib/decode/manifest_internal.h) and learned
 *                            into the decoder's EventMetadata set;
 *   event_metadata.c         the per-source decoder of the records.
 * Calls go one way: event_metadata.c uses schema and blob; schema uses
 * blob.
 */
#ifndef ETL_EVENT_METADATA_H
#define ETL_EVENT_METADATA_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/event_metadata.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_decode.h"
#include "etl_event.h"

/* The provider GUID of the records and their opcodes. */
extern const struct etl_guid etl__em_guid;
#define EM_OP_EVENT_INFO 32u
#define EM_OP_MAP_INFO   33u

#define EM_TEI_FIXED  0x70u     /* TRACE_EVENT_INFO before its properties */
#define EM_PROP_SIZE  24u       /* one EVENT_PROPERTY_INFO                */
#define EM_MAP_FIXED  16u       /* EVENT_MAP_INFO before its entries      */
#define EM_MAX_DEPTH  8u        /* struct nesting                         */

/* PROPERTY_FLAGS */
#define EM_PROP_STRUCT        0x01u
#define EM_PROP_PARAM_LENGTH  0x02u
#define EM_PROP_PARAM_COUNT   0x04u
#define EM_PROP_FIXED_LENGTH  0x10u
#define EM_PROP_FIXED_COUNT   0x20u
#define EM_PROP_CUSTOM_SCHEMA 0x80u

/* A TRACE_EVENT_INFO whose every offset was checked: each string offset
 * (0 = absent) starts a UTF-16 string whose NUL lies inside the blob, the
 * property array and the binary XML lie inside it, every struct's members
 * lie inside the array, the structs nest at most EM_MAX_DEPTH deep and no
 * property is reached twice from the top level, and count/length
 * references name a property of the array. */
struct em_tei {
	const uint8_t *p;
	size_t len;
	struct etl_guid provider, event_guid;
	uint16_t id, task;
	uint8_t version, channel, level, opcode;
	uint64_t keyword;
	uint32_t decoding_source;
	uint32_t provider_name, level_name, channel_name, keywords_name, task_name, opcode_name;
	uint32_t message, provider_message;
	uint32_t binxml, binxml_size;
	uint32_t n_props, n_top, flags;
};

/* One EVENT_PROPERTY_INFO. For a struct (flags & EM_PROP_STRUCT)
 * in_type is the index of its first member and out_type the number of
 * members. count / length are literal or an index (PARAM_COUNT /
 * PARAM_LENGTH). */
struct em_prop {
	uint32_t flags, name, map_name;
	uint16_t in_type, out_type, count, length;
};

/* An EVENT_MAP_INFO record (opcode 33): the provider GUID before the map,
 * the map's offsets relative to its own start (m->p). Checked: the name
 * and every entry's name are strings inside the map. */
struct em_map {
	const uint8_t *p;
	size_t len;
	struct etl_guid provider;
	uint32_t name, flag, n_entries, value_type;
};

/* Parses and checks a TRACE_EVENT_INFO of len bytes at p into *t (which
 * points into p). 0 on success; -1 with *why (static text) naming the
 * first fault. */
int etl__em_parse_tei(const uint8_t *p, size_t len, struct em_tei *t, const char **why);

/* Property i (< t->n_props) of a checked TRACE_EVENT_INFO. */
void etl__em_prop(const struct em_tei *t, uint32_t i, struct em_prop *out);

/* Parses and checks an EventMapInfo payload (provider GUID, then the
 * EVENT_MAP_INFO) into *m. 0, or -1 with *why. */
int etl__em_parse_map(const uint8_t *p, size_t len, struct em_map *m, const char **why);

/* Entry i (< m->n_entries) of a checked map: its name's offset and its
 * value. */
void etl__em_map_entry(const struct em_map *m, uint32_t i, uint32_t *name, uint32_t *value);

/* The UTF-16 string at offset off of a checked blob (p, len): its bytes
 * without the NUL (*n); NULL and 0 for offset 0. */
const uint8_t *etl__em_str(const uint8_t *p, size_t len, uint32_t off, size_t *n);

/* The offset of the string after the one at off in a list of strings
 * ended by an empty one (KeywordsNameOffset), or 0 at the list's end. */
uint32_t etl__em_str_next(const uint8_t *p, size_t len, uint32_t off);

/* The keyword names of a checked TRACE_EVENT_INFO (its list of strings)
 * as UTF-8 joined with spaces, written at out (room for the length that a
 * call with out NULL returns; no NUL is written). */
size_t etl__em_keywords_utf8(const struct em_tei *t, char *out);

/* ---- learning (lib/decode/event_metadata_schema.c) -------------------- */

/* Learns the event a checked TRACE_EVENT_INFO describes into d's
 * EventMetadata set (nothing when its key is known already). ETL_OK;
 * ETL_FAILED with *why (static text) when the event cannot be described
 * (it is then not learned); ETL_FATAL on out-of-memory. */
int etl__em_learn_event(etl_decoder *d, const struct em_tei *t, const char **why);

/* Learns a checked map for the events of its provider (those learned and
 * those to come). Same results. */
int etl__em_learn_map(etl_decoder *d, const struct em_map *m, const char **why);

#endif /* ETL_EVENT_METADATA_H */
