/*
 * lib/decode/event_metadata_blob.c - the TRACE_EVENT_INFO and EVENT_MAP_INFO
 * blobs of EventMetadata records (doc/decoding.md §10.6), parsed and
 * checked once so that the code using them (lib/decode/event_metadata*.c)
 * reads only bytes known to be there.
 *
 * Every byte is read through the bounds-checked cursor (lib/common/cursor.h)
 * or after a check in subtraction form; sums of offsets and counts are done
 * in 64 bits or with checked arithmetic. Layouts (tdh.h; offsets of a blob
 * count from its own start):
 *   TRACE_EVENT_INFO: 0x00 ProviderGuid, 0x10 EventGuid, 0x20 the event
 *   descriptor (Id u16, Version, Channel, Level, Opcode u8, Task u16,
 *   Keyword u64), 0x30 DecodingSource, 0x34.. string offsets (provider,
 *   level, channel, keywords list, task, opcode, message, provider
 *   message), 0x54 BinaryXMLOffset, 0x58 BinaryXMLSize, 0x5C/0x60 two
 *   unions (not used), 0x64 PropertyCount, 0x68 TopLevelPropertyCount,
 *   0x6C Flags, 0x70 the EVENT_PROPERTY_INFO array (24 bytes each: Flags,
 *   NameOffset, InType/StructStartIndex u16, OutType/NumOfStructMembers
 *   u16, MapNameOffset, count u16, length u16, Reserved).
 *   EventMapInfo payload: provider GUID, then EVENT_MAP_INFO: NameOffset,
 *   Flag, EntryCount, MapEntryValueType, EntryCount x {OutputOffset,
 *   Value}, then the strings (after 8 bytes of padding in the corpus; the
 *   offsets say where they are, nothing assumes the padding).
 */
#define ETL_BUILDING_LIB 1
#include <string.h>

#include "lib/common/cursor.h"
#include "lib/common/utf16.h"
#include "lib/decode/event_metadata.h"

const struct etl_guid etl__em_guid = {
	0xbbccf6c1, 0x6cd1, 0x48c4, { 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 }
};

/* Length in bytes of the UTF-16 string at off (without its NUL), or -1
 * when off is past the blob or no NUL unit follows inside it. */
static long long str_len(const uint8_t *p, size_t len, uint32_t off)
{
	if (off >= len)
		return -1;
	for (size_t i = off; len - i >= 2; i += 2)
		if (p[i] == 0 && p[i + 1] == 0)
			return (long long)(i - off);
	return -1;
}

const uint8_t *etl__em_str(const uint8_t *p, size_t len, uint32_t off, size_t *n)
{
	long long l = off ? str_len(p, len, off) : -1;
	*n = l > 0 ? (size_t)l : 0;
	return l >= 0 ? p + off : NULL;
}

uint32_t etl__em_str_next(const uint8_t *p, size_t len, uint32_t off)
{
	long long l = off ? str_len(p, len, off) : -1;
	if (l <= 0)
		return 0;
	uint64_t next = (uint64_t)off + (uint64_t)l + 2;
	return next < len && next <= UINT32_MAX && str_len(p, len, (uint32_t)next) >= 0 ? (uint32_t)next : 0;
}

/* A string offset: 0 (absent) or a string inside the blob. */
static int str_ok(const uint8_t *p, size_t len, uint32_t off)
{
	return off == 0 || str_len(p, len, off) >= 0;
}

/* A list of strings ended by an empty one: each inside the blob. The list
 * may also end at the blob's end after a string. */
static int list_ok(const uint8_t *p, size_t len, uint32_t off)
{
	while (off) {
		long long l = str_len(p, len, off);
		if (l < 0)
			return 0;
		if (l == 0)
			return 1;
		uint64_t next = (uint64_t)off + (uint64_t)l + 2;
		if (next >= len)
			return 1;
		off = (uint32_t)next;
	}
	return 1;
}

size_t etl__em_keywords_utf8(const struct em_tei *t, char *out)
{
	size_t k = 0, n;
	for (uint32_t o = t->keywords_name; o; o = etl__em_str_next(t->p, t->len, o)) {
		const uint8_t *u = etl__em_str(t->p, t->len, o, &n);
		if (!u || !n)
			continue;
		if (k && out)
			out[k] = ' ';
		k += k ? 1 : 0;
		k += out ? etl__utf16_to_utf8_buf(u, n, out + k) : etl__utf16_utf8_len(u, n);
	}
	return k;
}

void etl__em_prop(const struct em_tei *t, uint32_t i, struct em_prop *out)
{
	struct etl_cur c;
	etl_cur_init(&c, t->p, t->len);
	etl_cur_skip(&c, EM_TEI_FIXED + (size_t)i * EM_PROP_SIZE);
	out->flags = etl_cur_u32(&c);
	out->name = etl_cur_u32(&c);
	out->in_type = etl_cur_u16(&c);
	out->out_type = etl_cur_u16(&c);
	out->map_name = etl_cur_u32(&c);
	out->count = etl_cur_u16(&c);
	out->length = etl_cur_u16(&c);
}

/* Visits property i and, for a struct, its members (inside the array:
 * checked before): -1 when the nesting passes EM_MAX_DEPTH or more
 * properties are reached than there are (a member range overlapping
 * another, or a struct among its own members). */
static int visit(const struct em_tei *t, uint32_t i, unsigned depth, uint32_t *seen, const char **why)
{
	struct em_prop pr;
	if (++*seen > t->n_props) {
		*why = "a property is reached twice (struct members overlap)";
		return -1;
	}
	etl__em_prop(t, i, &pr);
	if (!(pr.flags & EM_PROP_STRUCT))
		return 0;
	if (depth + 1 > EM_MAX_DEPTH) {
		*why = "structs nest too deep";
		return -1;
	}
	for (uint32_t k = 0; k < pr.out_type; k++)
		if (visit(t, (uint32_t)pr.in_type + k, depth + 1, seen, why) != 0)
			return -1;
	return 0;
}

static int check_props(const struct em_tei *t, const char **why)
{
	for (uint32_t i = 0; i < t->n_props; i++) {
		struct em_prop pr;
		etl__em_prop(t, i, &pr);
		if (!str_ok(t->p, t->len, pr.name)) {
			*why = "a property name lies outside the blob";
			return -1;
		}
		if (!(pr.flags & (EM_PROP_STRUCT | EM_PROP_CUSTOM_SCHEMA)) && !str_ok(t->p, t->len, pr.map_name)) {
			*why = "a map name lies outside the blob";
			return -1;
		}
		if ((pr.flags & EM_PROP_STRUCT) && (uint32_t)pr.in_type + pr.out_type > t->n_props) {
			*why = "struct members lie past the property array";
			return -1;
		}
		if (((pr.flags & EM_PROP_PARAM_COUNT) && pr.count >= t->n_props) ||
		    ((pr.flags & EM_PROP_PARAM_LENGTH) && pr.length >= t->n_props)) {
			*why = "a count or length names no property";
			return -1;
		}
	}
	uint32_t seen = 0;
	for (uint32_t i = 0; i < t->n_top; i++)
		if (visit(t, i, 0, &seen, why) != 0)
			return -1;
	return 0;
}

int etl__em_parse_tei(const uint8_t *p, size_t len, struct em_tei *t, const char **why)
{
	struct etl_cur c;
	memset(t, 0, sizeof *t);
	*why = NULL;
	if (!p || len < EM_TEI_FIXED) {
		*why = "shorter than a TRACE_EVENT_INFO";
		return -1;
	}
	t->p = p;
	t->len = len;
	etl_cur_init(&c, p, len);
	etl_cur_guid(&c, &t->provider);
	etl_cur_guid(&c, &t->event_guid);
	t->id = etl_cur_u16(&c);
	t->version = etl_cur_u8(&c);
	t->channel = etl_cur_u8(&c);
	t->level = etl_cur_u8(&c);
	t->opcode = etl_cur_u8(&c);
	t->task = etl_cur_u16(&c);
	t->keyword = etl_cur_u64(&c);
	t->decoding_source = etl_cur_u32(&c);
	t->provider_name = etl_cur_u32(&c);
	t->level_name = etl_cur_u32(&c);
	t->channel_name = etl_cur_u32(&c);
	t->keywords_name = etl_cur_u32(&c);
	t->task_name = etl_cur_u32(&c);
	t->opcode_name = etl_cur_u32(&c);
	t->message = etl_cur_u32(&c);
	t->provider_message = etl_cur_u32(&c);
	t->binxml = etl_cur_u32(&c);
	t->binxml_size = etl_cur_u32(&c);
	etl_cur_skip(&c, 8);                    /* the two unions */
	t->n_props = etl_cur_u32(&c);
	t->n_top = etl_cur_u32(&c);
	t->flags = etl_cur_u32(&c);
	if (c.err) {
		*why = "shorter than a TRACE_EVENT_INFO";
		return -1;
	}
	if (t->n_props > (len - EM_TEI_FIXED) / EM_PROP_SIZE) {
		*why = "the property array lies past the blob";
		return -1;
	}
	if (t->n_top > t->n_props) {
		*why = "more top-level properties than properties";
		return -1;
	}
	const uint32_t strs[] = { t->provider_name, t->level_name, t->channel_name, t->task_name,
	                          t->opcode_name, t->message, t->provider_message };
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		if (!str_ok(p, len, strs[i])) {
			*why = "a name or message lies outside the blob";
			return -1;
		}
	if (!list_ok(p, len, t->keywords_name)) {
		*why = "the keyword names lie outside the blob";
		return -1;
	}
	if ((t->binxml || t->binxml_size) && (uint64_t)t->binxml + t->binxml_size > len) {
		*why = "the binary XML lies past the blob";
		return -1;
	}
	return check_props(t, why);
}

int etl__em_parse_map(const uint8_t *p, size_t len, struct em_map *m, const char **why)
{
	struct etl_cur c;
	memset(m, 0, sizeof *m);
	*why = NULL;
	if (!p || len < 16 + EM_MAP_FIXED) {
		*why = "shorter than a provider GUID and an EVENT_MAP_INFO";
		return -1;
	}
	etl_cur_init(&c, p, len);
	etl_cur_guid(&c, &m->provider);
	m->p = p + 16;
	m->len = len - 16;
	m->name = etl_cur_u32(&c);
	m->flag = etl_cur_u32(&c);
	m->n_entries = etl_cur_u32(&c);
	m->value_type = etl_cur_u32(&c);
	if (m->n_entries > (m->len - EM_MAP_FIXED) / 8) {
		*why = "the map entries lie past the blob";
		return -1;
	}
	if (!str_ok(m->p, m->len, m->name)) {
		*why = "the map name lies outside the blob";
		return -1;
	}
	for (uint32_t i = 0; i < m->n_entries; i++) {
		uint32_t name, value;
		etl__em_map_entry(m, i, &name, &value);
		if (!str_ok(m->p, m->len, name) || (m->value_type == 1 && !str_ok(m->p, m->len, value))) {
			*why = "a map entry's text lies outside the blob";
			return -1;
		}
	}
	return 0;
}

void etl__em_map_entry(const struct em_map *m, uint32_t i, uint32_t *name, uint32_t *value)
{
	struct etl_cur c;
	etl_cur_init(&c, m->p, m->len);
	etl_cur_skip(&c, EM_MAP_FIXED + (size_t)i * 8);
	*name = etl_cur_u32(&c);
	*value = etl_cur_u32(&c);
}
