/*
 * lib/decode/inband.c - EventSource in-band manifests: .NET EventSource providers
 * (that are not self-describing) log their own instrumentation manifest as
 * the ManifestData event (id 0xFFFE, opcode 0xFE, task 0xFFFE), split in
 * chunks of at most 0xFF00 bytes. Each chunk's payload is a ManifestEnvelope
 *
 *     u8 Format (1 = SimpleXmlFormat), u8 MajorVersion (1), u8 MinorVersion,
 *     u8 Magic (0x5B), u16 TotalChunks, u16 ChunkNumber
 *
 * followed by that chunk of UTF-8 manifest XML; the chunks, concatenated in
 * order, are an instrumentation manifest (doc/decoding.md §3) defining the
 * provider's events.
 *
 * This decoder shows the ManifestData events themselves as properties and
 * assembles the chunks per provider GUID; when the last chunk arrives, the
 * whole manifest is loaded with etl__mf_load_memory() (lib/decode/manifest_load.c),
 * so the provider's later events decode through the manifest decoder like
 * those of a manifest file given with etl_decoder_add_manifest().
 *
 * Choices:
 *   - the envelope is validated: at least 8 bytes, Format 1, MajorVersion 1,
 *     Magic 0x5B, TotalChunks >= 1, ChunkNumber < TotalChunks; an invalid one
 *     fails the event (ETL_E_TRUNCATED / ETL_E_BAD_VALUE) and leaves the
 *     provider's assembly alone;
 *   - ChunkNumber 0 starts a new set, dropping any incomplete one of the
 *     provider; a chunk that is not the next expected one of the set (a
 *     chunk lost, duplicated or out of order, or another TotalChunks) drops
 *     the set: the provider's events then stay undecoded ("no schema") until
 *     the manifest is logged again (EventSource logs it when a session
 *     enables it, and again at rundown);
 *   - memory is bounded: the sets being assembled hold at most
 *     ETL_INBAND_MAX_BYTES (16 MiB) together; a chunk that would exceed it
 *     drops its set and fails (ETL_E_BAD_SIZE); at most
 *     ETL_INBAND_MAX_LOADED (64 MiB) of manifests are loaded per decoder;
 *   - a manifest identical to the one last loaded for the provider is not
 *     loaded again (EventSource re-logs it); a different one is loaded, but
 *     the first definition of a (provider, id, version) wins, as for files;
 *   - the ManifestData event decodes (source ETL_DECODE_MANIFEST, event_name
 *     "ManifestData", the other names NULL) to the properties Format, MajorVersion, MinorVersion,
 *     Magic (UINT8), TotalChunks, ChunkNumber (UINT16) and Data: the chunk
 *     as ETL_VAL_STRING (in-type AnsiString, out-type Utf8) when it is valid
 *     UTF-8, else ETL_VAL_BINARY (Binary, HexBinary). The last chunk of a
 *     set also gets a message: "manifest complete: N bytes loaded", "...
 *     bytes already loaded", or "... bytes not loaded: REASON" (the loader's error, also
 *     in etl_decoder_errmsg()); the event itself still decodes (ETL_OK),
 *     except on out-of-memory (ETL_FATAL);
 *   - the reader returns events in time order and EventSource logs the
 *     manifest before its events, so they normally decode; events read
 *     before their manifest fail with "no schema for this event";
 *   - the state lives in the decoder's schema cache (reserved key 'I'...);
 *     a cache flush (over 64 MiB of TraceLogging schemas) drops it along
 *     with the loaded manifests.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/ext_walk.h"
#include "lib/decode/decode_internal.h"

#define IB_ENVELOPE_SIZE 8u

static const char IB_STATE_KEY[] = "I\001inband-manifests";

/* Per-provider assembly and what was last loaded for it. */
struct ib_prov {
	struct etl_guid guid;
	uint16_t total;             /* TotalChunks of the set; 0: none open  */
	uint16_t next;              /* ChunkNumber expected next             */
	uint8_t *buf;
	size_t len, cap;
	int loaded;                 /* loaded_hash/loaded_len are valid      */
	uint64_t loaded_hash;
	size_t loaded_len;
};

struct ib_state {
	struct ib_prov *p;
	size_t n, cap;
	size_t assembling;          /* bytes held in sets, all providers     */
	size_t loaded;              /* manifest bytes loaded so far          */
};

static void state_free(void *data)
{
	struct ib_state *s = data;
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->p[i].buf);
	free(s->p);
	free(s);
}

static struct ib_state *get_state(etl_decoder *d)
{
	uint64_t h = etl__dec_hash(IB_STATE_KEY, sizeof IB_STATE_KEY, ETL_DEC_HASH_INIT);
	struct ib_state *s = etl__dec_cache_find(d, h, IB_STATE_KEY, sizeof IB_STATE_KEY);
	if (s)
		return s;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (etl__dec_cache_add(d, h, IB_STATE_KEY, sizeof IB_STATE_KEY, s, state_free, sizeof *s) != ETL_OK)
		return NULL;
	return s;
}

static struct ib_prov *get_prov(struct ib_state *s, const struct etl_guid *g)
{
	for (size_t i = 0; i < s->n; i++)
		if (etl_guid_equal(&s->p[i].guid, g))
			return &s->p[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct ib_prov *p = realloc(s->p, cap * sizeof *p);
		if (!p)
			return NULL;
		s->p = p;
		s->cap = cap;
	}
	struct ib_prov *p = &s->p[s->n++];
	memset(p, 0, sizeof *p);
	p->guid = *g;
	return p;
}

static void drop_set(struct ib_state *s, struct ib_prov *p)
{
	s->assembling -= p->len;
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
	p->total = p->next = 0;
}

static int append(struct ib_state *s, struct ib_prov *p, const uint8_t *data, size_t n)
{
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		while (cap < p->len + n)
			cap *= 2;
		uint8_t *b = realloc(p->buf, cap);
		if (!b)
			return 0;
		p->buf = b;
		p->cap = cap;
	}
	if (n)
		memcpy(p->buf + p->len, data, n);
	p->len += n;
	s->assembling += n;
	return 1;
}

static int valid_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		size_t k;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			k = 1; cp = c & 0x1F; min = 0x80;
		} else if ((c & 0xF0) == 0xE0) {
			k = 2; cp = c & 0x0F; min = 0x800;
		} else if ((c & 0xF8) == 0xF0) {
			k = 3; cp = c & 0x07; min = 0x10000;
		} else {
			return 0;
		}
		if (n - i <= k)
			return 0;
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xC0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i + j] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		i += k + 1;
	}
	return 1;
}

int etl__inband_match(const struct etl_event *ev)
{
	if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
		return 0;
	if (ev->id != ETL_INBAND_EVENT_ID || ev->opcode != ETL_INBAND_OPCODE)
		return 0;
	return !etl__ext_has(ev, ETL_EXT_EVENT_SCHEMA_TL);
}

static uint32_t add_uint(etl_decoder *d, uint32_t idx, const char *name, uint16_t in, uint16_t out,
                         uint64_t v, uint32_t off)
{
	etl__dec_put_scalar(d, idx, name, ETL_VAL_UINT, in, out, v, ETL_PROP_NO_PARENT, off);
	return idx + 1;
}

/* Fills the seven properties of a valid envelope. */
static int emit_props(etl_decoder *d, const uint8_t *pl, size_t size)
{
	int oom = 0;
	uint32_t i = etl__dec_reserve(d, 7, &oom);
	if (i == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, "cannot reserve 7 properties");
	i = add_uint(d, i, "Format", ETL_IN_UINT8, ETL_OUT_NULL, pl[0], 0);
	i = add_uint(d, i, "MajorVersion", ETL_IN_UINT8, ETL_OUT_NULL, pl[1], 1);
	i = add_uint(d, i, "MinorVersion", ETL_IN_UINT8, ETL_OUT_NULL, pl[2], 2);
	i = add_uint(d, i, "Magic", ETL_IN_UINT8, ETL_OUT_HEXINT8, pl[3], 3);
	i = add_uint(d, i, "TotalChunks", ETL_IN_UINT16, ETL_OUT_NULL, (uint64_t)pl[4] | (uint64_t)pl[5] << 8, 4);
	i = add_uint(d, i, "ChunkNumber", ETL_IN_UINT16, ETL_OUT_NULL, (uint64_t)pl[6] | (uint64_t)pl[7] << 8, 6);
	struct etl_prop *p = etl__dec_prop(d, i);
	const uint8_t *data = pl + IB_ENVELOPE_SIZE;
	size_t n = size - IB_ENVELOPE_SIZE;
	p->name = "Data";
	p->payload_offset = IB_ENVELOPE_SIZE;
	if (valid_utf8(data, n)) {
		p->kind = ETL_VAL_STRING;
		p->in_type = ETL_IN_ANSISTRING;
		p->out_type = ETL_OUT_UTF8;
		p->v.str.s = (const char *)data;
		p->v.str.len = n;
	} else {
		p->kind = ETL_VAL_BINARY;
		p->in_type = ETL_IN_BINARY;
		p->out_type = ETL_OUT_HEXBINARY;
		p->v.bin.p = data;
		p->v.bin.len = n;
	}
	return ETL_OK;
}

static int set_message(etl_decoder *d, size_t len, const char *what)
{
	char buf[400];
	snprintf(buf, sizeof buf, "manifest complete: %zu bytes %s", len, what);
	size_t n = strlen(buf) + 1;
	char *m = etl__dec_alloc(d, n);
	if (!m)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	memcpy(m, buf, n);
	etl__dec_result(d)->message = m;
	return ETL_OK;
}

/* The last chunk of p's set arrived: load the manifest (unless it is the
 * one already loaded), then drop the set. */
static int complete(etl_decoder *d, struct ib_state *s, struct ib_prov *p)
{
	size_t len = p->len;
	while (len && p->buf[len - 1] == 0)     /* tolerate a terminating NUL */
		len--;
	uint64_t h = etl__dec_hash(p->buf, len, ETL_DEC_HASH_INIT);
	if (p->loaded && p->loaded_hash == h && p->loaded_len == len) {
		drop_set(s, p);
		return set_message(d, len, "already loaded");
	}
	if (len > ETL_INBAND_MAX_LOADED - s->loaded) {
		drop_set(s, p);
		return set_message(d, len, "not loaded: over the 64 MiB of in-band manifests a decoder loads");
	}
	/* Take the buffer out of the state: loading may add to the schema
	 * cache, which could flush it (and free s). */
	uint8_t *buf = p->buf;
	struct etl_guid g = p->guid;
	s->assembling -= p->len;
	p->buf = NULL;
	p->len = p->cap = 0;
	p->total = p->next = 0;

	char name[ETL_GUID_STRLEN + 40];
	char gs[ETL_GUID_STRLEN];
	etl_guid_format(&g, gs);
	snprintf(name, sizeof name, "in-band manifest of {%s}", gs);
	int rc = etl__mf_load_memory(d, name, buf, len);
	free(buf);
	if (rc == ETL_FATAL)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory loading the %s", name);

	/* Look the state up again (see above). */
	s = get_state(d);
	if (!s)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	p = get_prov(s, &g);
	if (!p)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	if (rc != ETL_OK) {
		char why[300];
		snprintf(why, sizeof why, "not loaded: %s", etl_decoder_errmsg(d));
		return set_message(d, len, why);
	}
	p->loaded = 1;
	p->loaded_hash = h;
	p->loaded_len = len;
	s->loaded += len;
	return set_message(d, len, "loaded");
}

int etl__inband_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	const uint8_t *pl = ev->payload;
	size_t size = pl ? ev->payload_size : 0;

	res->source = ETL_DECODE_MANIFEST;
	res->event_name = "ManifestData";
	if (size < IB_ENVELOPE_SIZE)
		return etl__dec_fail(d, ETL_E_TRUNCATED,
		                     "ManifestData: %zu-byte payload, shorter than the 8-byte envelope", size);
	unsigned total = (unsigned)pl[4] | (unsigned)pl[5] << 8;
	unsigned chunk = (unsigned)pl[6] | (unsigned)pl[7] << 8;
	if (pl[0] != 1 || pl[1] != 1 || pl[3] != 0x5B)
		return etl__dec_fail(d, ETL_E_BAD_VALUE,
		                     "ManifestData: invalid envelope (format %u, major version %u, magic 0x%02x; "
		                     "expected 1, 1, 0x5b)", pl[0], pl[1], pl[3]);
	if (total == 0 || chunk >= total)
		return etl__dec_fail(d, ETL_E_BAD_VALUE,
		                     "ManifestData: invalid envelope (chunk %u of %u)", chunk, total);

	int rc = emit_props(d, pl, size);
	if (rc != ETL_OK)
		return rc;

	struct ib_state *s = get_state(d);
	if (!s)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	struct ib_prov *p = get_prov(s, &ev->provider);
	if (!p)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	if (chunk == 0) {
		drop_set(s, p);
		p->total = (uint16_t)total;
	} else if (p->total != total || p->next != chunk) {
		drop_set(s, p);         /* a chunk is missing: wait for the next set */
		return ETL_OK;
	}
	size_t n = size - IB_ENVELOPE_SIZE;
	if (n > ETL_INBAND_MAX_BYTES - s->assembling) {
		drop_set(s, p);
		return etl__dec_fail(d, ETL_E_BAD_SIZE,
		                     "ManifestData: chunk %u of %u would make the in-band manifests being "
		                     "assembled exceed %u bytes: dropped", chunk, total, ETL_INBAND_MAX_BYTES);
	}
	if (!append(s, p, pl + IB_ENVELOPE_SIZE, n)) {
		drop_set(s, p);
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	}
	p->next = (uint16_t)(chunk + 1);
	if (chunk + 1 == total)
		return complete(d, s, p);
	return ETL_OK;
}
