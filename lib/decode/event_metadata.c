/*
 * lib/decode/event_metadata.c - the per-source decoder of the EventMetadata
 * records a trace merge adds (doc/decoding.md §10.6): classic records of
 * provider {bbccf6c1-6cd1-48c4-80ff-839482e37671}, opcode 32 EventInfo (a
 * TRACE_EVENT_INFO) and 33 EventMapInfo (a provider GUID and an
 * EVENT_MAP_INFO), the schemas TDH had on the capture machine.
 *
 * Each record is shown as what it holds (source ETL_DECODE_MOF: a layout
 * built in, like the kernel classes) and learned (lib/decode/
 * event_metadata_schema.c), so that the described provider's events that
 * follow decode without a manifest (lib/decode/manifest_decode.c, source
 * ETL_DECODE_EVENT_METADATA). A merge writes each EventInfo record just
 * before the first (in time order) event it describes, with the same
 * timestamp, and its maps right after it: a time-ordered read meets every
 * schema before its events.
 *
 * Properties of an EventInfo record: ProviderGuid, EventGuid, Id, Version,
 * Channel, Level, Opcode, Task, Keyword, DecodingSource, the names
 * (ProviderName, LevelName, ChannelName, KeywordsName joined with spaces,
 * TaskName, OpcodeName, EventMessage, ProviderMessage; "" when absent),
 * PropertyCount, TopLevelPropertyCount, Flags, Properties (an array of
 * structs, one per EVENT_PROPERTY_INFO as it is: Name, Flags, InType,
 * OutType, MapName, Count, Length) and BinaryXML. Of an EventMapInfo
 * record: ProviderGuid, MapName, Flag, EntryCount, ValueType and Entries
 * (an array of structs Value, Name). A blob that fails its checks fails
 * the record (ETL_E_BAD_VALUE, naming the fault); a schema that cannot be
 * learned leaves the record shown.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "lib/decode/event_metadata.h"

#define EI_TOP    23u   /* top-level properties of an EventInfo record   */
#define EI_MEMBER  7u   /* members of one Properties element              */
#define MI_TOP     6u
#define MI_MEMBER  2u

int etl__em_match(const struct etl_event *ev)
{
	return (ev->kind == ETL_HDR_FULL_HEADER32 || ev->kind == ETL_HDR_FULL_HEADER64 ||
	        ev->kind == ETL_HDR_INSTANCE32 || ev->kind == ETL_HDR_INSTANCE64) &&
	       (ev->opcode == EM_OP_EVENT_INFO || ev->opcode == EM_OP_MAP_INFO) &&
	       etl_guid_equal(&ev->provider, &etl__em_guid);
}

/* Where the properties go. */
struct em_put {
	etl_decoder *d;
	const uint8_t *blob;            /* strings' blob and its length      */
	size_t len;
	uint32_t base;                  /* payload offset of the blob        */
};

static void put_u(struct em_put *o, uint32_t idx, const char *name, uint16_t in, uint16_t out,
                  uint64_t u, uint32_t parent, uint32_t off)
{
	etl__dec_put_scalar(o->d, idx, name, ETL_VAL_UINT, in, out, u, parent, o->base + off);
}

static void put_guid(struct em_put *o, uint32_t idx, const char *name, const struct etl_guid *g,
                     uint32_t off)
{
	struct etl_prop *p = etl__dec_prop(o->d, idx);
	p->name = name;
	p->kind = ETL_VAL_GUID;
	p->in_type = ETL_IN_GUID;
	p->v.guid = *g;
	p->parent = ETL_PROP_NO_PARENT;
	p->payload_offset = off;
}

/* The blob string at off ("" when absent) as property idx. */
static int put_str(struct em_put *o, uint32_t idx, const char *name, uint32_t off, uint32_t parent)
{
	size_t n, ul;
	const uint8_t *u = etl__em_str(o->blob, o->len, off, &n);
	char *s = etl__dec_utf16(o->d, u ? u : (const uint8_t *)"", u ? n : 0, &ul);
	if (!s)
		return etl__dec_fail(o->d, ETL_E_NOMEM, "out of memory");
	struct etl_prop *p = etl__dec_prop(o->d, idx);
	p->name = name;
	p->kind = ETL_VAL_STRING;
	p->in_type = ETL_IN_UNICODESTRING;
	p->v.str.s = s;
	p->v.str.len = ul;
	p->parent = parent;
	p->payload_offset = o->base + off;
	return ETL_OK;
}

/* An array property at idx of n structs of m members each, the structs at
 * first, their members after them; returns the index of the first member. */
static uint32_t put_array(struct em_put *o, uint32_t idx, const char *name, uint32_t n, uint32_t m,
                          uint32_t first, const char *elem)
{
	*etl__dec_prop(o->d, idx) = (struct etl_prop){ .name = name, .kind = ETL_VAL_ARRAY,
	                                               .in_type = ETL_IN_STRUCT, .parent = ETL_PROP_NO_PARENT,
	                                               .first_child = first, .n_children = n };
	for (uint32_t k = 0; k < n; k++)
		*etl__dec_prop(o->d, first + k) = (struct etl_prop){ .name = elem, .kind = ETL_VAL_STRUCT,
		                                                     .in_type = ETL_IN_STRUCT, .parent = idx,
		                                                     .first_child = first + n + k * m,
		                                                     .n_children = m };
	return first + n;
}

/* Reserves top + n * (1 + m) zeroed properties for a record of kind
 * what: *b gets the first. ETL_OK or the failure. */
static int reserve(etl_decoder *d, uint32_t top, uint32_t n, uint32_t m, const char *what, uint32_t *b)
{
	int oom = 0;
	uint64_t total = (uint64_t)top + (uint64_t)n * (1u + m);
	*b = total <= ETL_DEC_MAX_PROPS ? etl__dec_reserve(d, (uint32_t)total, &oom) : UINT32_MAX;
	if (*b == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, "EventMetadata %s: too many properties",
		                     what);
	return ETL_OK;
}

/* The fields of an EventInfo record into the properties reserved at b. */
static int show_event_info(etl_decoder *d, const struct em_tei *t, uint32_t b)
{
	struct em_put o = { d, t->p, t->len, 0 };
	int rc = ETL_OK;
	put_guid(&o, b + 0, "ProviderGuid", &t->provider, 0x00);
	put_guid(&o, b + 1, "EventGuid", &t->event_guid, 0x10);
	put_u(&o, b + 2, "Id", ETL_IN_UINT16, 0, t->id, ETL_PROP_NO_PARENT, 0x20);
	put_u(&o, b + 3, "Version", ETL_IN_UINT8, 0, t->version, ETL_PROP_NO_PARENT, 0x22);
	put_u(&o, b + 4, "Channel", ETL_IN_UINT8, 0, t->channel, ETL_PROP_NO_PARENT, 0x23);
	put_u(&o, b + 5, "Level", ETL_IN_UINT8, 0, t->level, ETL_PROP_NO_PARENT, 0x24);
	put_u(&o, b + 6, "Opcode", ETL_IN_UINT8, 0, t->opcode, ETL_PROP_NO_PARENT, 0x25);
	put_u(&o, b + 7, "Task", ETL_IN_UINT16, 0, t->task, ETL_PROP_NO_PARENT, 0x26);
	put_u(&o, b + 8, "Keyword", ETL_IN_HEXINT64, ETL_OUT_HEXINT64, t->keyword, ETL_PROP_NO_PARENT, 0x28);
	put_u(&o, b + 9, "DecodingSource", ETL_IN_UINT32, 0, t->decoding_source, ETL_PROP_NO_PARENT, 0x30);
	const char *names[] = { "ProviderName", "LevelName", "ChannelName", NULL, "TaskName", "OpcodeName",
	                        "EventMessage", "ProviderMessage" };
	const uint32_t offs[] = { t->provider_name, t->level_name, t->channel_name, 0, t->task_name,
	                          t->opcode_name, t->message, t->provider_message };
	for (uint32_t i = 0; i < 8 && rc == ETL_OK; i++)
		if (names[i])
			rc = put_str(&o, b + 10 + i, names[i], offs[i], ETL_PROP_NO_PARENT);
	size_t kn = etl__em_keywords_utf8(t, NULL);
	char *kw = etl__dec_alloc(d, kn + 1);
	if (rc != ETL_OK || !kw)
		return rc != ETL_OK ? rc : etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	kw[etl__em_keywords_utf8(t, kw)] = 0;
	struct etl_prop *k = etl__dec_prop(d, b + 13);
	k->name = "KeywordsName";
	k->kind = ETL_VAL_STRING;
	k->in_type = ETL_IN_UNICODESTRING;
	k->v.str.s = kw;
	k->v.str.len = kn;
	k->parent = ETL_PROP_NO_PARENT;
	k->payload_offset = t->keywords_name;
	put_u(&o, b + 18, "PropertyCount", ETL_IN_UINT32, 0, t->n_props, ETL_PROP_NO_PARENT, 0x64);
	put_u(&o, b + 19, "TopLevelPropertyCount", ETL_IN_UINT32, 0, t->n_top, ETL_PROP_NO_PARENT, 0x68);
	put_u(&o, b + 20, "Flags", ETL_IN_HEXINT32, ETL_OUT_HEXINT32, t->flags, ETL_PROP_NO_PARENT, 0x6c);
	uint32_t m = put_array(&o, b + 21, "Properties", t->n_props, EI_MEMBER, b + EI_TOP, "Property");
	for (uint32_t i = 0; i < t->n_props && rc == ETL_OK; i++, m += EI_MEMBER) {
		struct em_prop pr;
		uint32_t el = b + EI_TOP + i, off = EM_TEI_FIXED + i * EM_PROP_SIZE;
		etl__em_prop(t, i, &pr);
		rc = put_str(&o, m, "Name", pr.name, el);
		put_u(&o, m + 1, "Flags", ETL_IN_HEXINT32, ETL_OUT_HEXINT32, pr.flags, el, off);
		put_u(&o, m + 2, "InType", ETL_IN_UINT16, 0, pr.in_type, el, off + 8);
		put_u(&o, m + 3, "OutType", ETL_IN_UINT16, 0, pr.out_type, el, off + 10);
		if (rc == ETL_OK)
			rc = put_str(&o, m + 4, "MapName",
			             pr.flags & (EM_PROP_STRUCT | EM_PROP_CUSTOM_SCHEMA) ? 0 : pr.map_name, el);
		put_u(&o, m + 5, "Count", ETL_IN_UINT16, 0, pr.count, el, off + 16);
		put_u(&o, m + 6, "Length", ETL_IN_UINT16, 0, pr.length, el, off + 18);
	}
	struct etl_prop *x = etl__dec_prop(d, b + 22);
	*x = (struct etl_prop){ .name = "BinaryXML", .kind = ETL_VAL_BINARY, .in_type = ETL_IN_BINARY,
	                        .out_type = ETL_OUT_HEXBINARY, .parent = ETL_PROP_NO_PARENT,
	                        .payload_offset = t->binxml };
	x->v.bin.p = t->binxml_size ? t->p + t->binxml : NULL;
	x->v.bin.len = t->binxml_size;
	return rc;
}

/* The fields of an EventMapInfo record into the properties reserved at b. */
static int show_map_info(etl_decoder *d, const struct em_map *mi, uint32_t b)
{
	struct em_put o = { d, mi->p, mi->len, 16 };
	put_guid(&o, b, "ProviderGuid", &mi->provider, 0);
	int rc = put_str(&o, b + 1, "MapName", mi->name, ETL_PROP_NO_PARENT);
	put_u(&o, b + 2, "Flag", ETL_IN_HEXINT32, ETL_OUT_HEXINT32, mi->flag, ETL_PROP_NO_PARENT, 4);
	put_u(&o, b + 3, "EntryCount", ETL_IN_UINT32, 0, mi->n_entries, ETL_PROP_NO_PARENT, 8);
	put_u(&o, b + 4, "ValueType", ETL_IN_UINT32, 0, mi->value_type, ETL_PROP_NO_PARENT, 12);
	uint32_t m = put_array(&o, b + 5, "Entries", mi->n_entries, MI_MEMBER, b + MI_TOP, "Entry");
	for (uint32_t i = 0; i < mi->n_entries && rc == ETL_OK; i++, m += MI_MEMBER) {
		uint32_t name, value, el = b + MI_TOP + i;
		etl__em_map_entry(mi, i, &name, &value);
		if (mi->value_type == 1)        /* string map: the value is text */
			rc = put_str(&o, m, "Value", value, el);
		else
			put_u(&o, m, "Value", ETL_IN_UINT32, 0, value, el, EM_MAP_FIXED + i * 8 + 4);
		if (rc == ETL_OK)
			rc = put_str(&o, m + 1, "Name", name, el);
	}
	return rc;
}

int etl__em_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	const uint8_t *p = ev->payload;
	size_t len = ev->payload ? ev->payload_size : 0;
	const char *why = NULL, *learn_why = NULL;
	int info = ev->opcode == EM_OP_EVENT_INFO;      /* else EventMapInfo */
	const char *name = info ? "EventInfo" : "EventMapInfo";
	struct em_tei t;
	struct em_map m;
	uint32_t b;
	int rc;

	res->source = ETL_DECODE_MOF;
	res->provider_name = "EventMetadata";
	res->event_name = res->opcode_name = name;
	if ((info ? etl__em_parse_tei(p, len, &t, &why) : etl__em_parse_map(p, len, &m, &why)) != 0)
		return etl__dec_fail(d, ETL_E_BAD_VALUE, "EventMetadata %s: %s", name, why);
	if ((rc = reserve(d, info ? EI_TOP : MI_TOP, info ? t.n_props : m.n_entries, info ? EI_MEMBER : MI_MEMBER,
	                  name, &b)) != ETL_OK ||
	    (rc = info ? show_event_info(d, &t, b) : show_map_info(d, &m, b)) != ETL_OK)
		return rc;
	/* A schema that cannot be learned (learn_why) leaves the record shown. */
	rc = info ? etl__em_learn_event(d, &t, &learn_why) : etl__em_learn_map(d, &m, &learn_why);
	if (rc == ETL_FATAL)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory learning an EventMetadata schema");
	etl__dec_set_names_stable(d);           /* property names are static */
	return ETL_OK;
}
