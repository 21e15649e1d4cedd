/*
 * lib/decode/event_metadata_schema.c - schemas learned from a trace's
 * EventMetadata records (doc/decoding.md §10.6): a checked TRACE_EVENT_INFO
 * (lib/decode/event_metadata_blob.c) becomes an event of the manifest model
 * (lib/decode/manifest_internal.h) in the decoder's EventMetadata set, and
 * an EVENT_MAP_INFO a value or bit map of its provider, so that the
 * described events decode as manifest events do (lib/decode/manifest_decode.c,
 * source ETL_DECODE_EVENT_METADATA).
 *
 * Rules (what the corpus's blobs need, doc/decoding.md §10.6):
 *   - key (provider, id, version): one event id may come in several
 *     versions, each with its own record; the first record of a key wins;
 *   - pointers take the described record's pointer size (the blobs say 4
 *     even for 64-bit events): the property's length is ignored;
 *   - a count or length names any earlier property: one of the same struct
 *     (or of the top level), or a top-level one before the struct;
 *     anything else is refused;
 *   - a literal count above 1, or any count with PropertyParamFixedCount,
 *     makes an array; a literal length is taken for strings (characters)
 *     and binary (bytes), ignored for fixed-size types;
 *   - out-types are the blob's (TDH spells out its defaults, GUID for a
 *     GUID and hex for a pointer, which show as the manifest's absent
 *     out-type does);
 *   - a map is looked up by (provider, name) when the event is learned and
 *     again when a map record arrives (maps follow the first event that
 *     uses them); names have their trailing spaces trimmed;
 *   - WBEM in-types (classic MOF metadata) and other unknown types are
 *     refused: such an event is not learned (it stays undecoded, "no
 *     schema").
 * Limits: EM_MAX_EVENTS events, EM_MAX_BYTES bytes of blobs learned per
 * decoder; past them records are still shown but not learned.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>

#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/event_metadata.h"
#include "lib/decode/manifest_internal.h"

#define EM_MAX_EVENTS 65536u
#define EM_MAX_BYTES  (64u * 1024u * 1024u)

struct em_prov {
	struct etl_guid guid;
	struct mf_provider *p;
};

struct em_mapref {
	struct etl_guid guid;
	struct mf_map *m;
};

/* What the EventMetadata set holds besides its events (set->ext, in the
 * set's pool). */
struct em_ext {
	struct em_prov *provs;
	size_t n_provs, cap_provs;
	struct em_mapref *maps;
	size_t n_maps, cap_maps;
	size_t bytes;                   /* blob bytes learned */
};

/* One learning: the set, the blob, the failure. */
struct em_learn {
	struct mf_set *s;
	struct em_ext *x;
	const struct em_tei *t;
	const char *why;
	int oom;
};

/* A checked blob string as NUL-terminated UTF-8 in the set's pool, with
 * trailing spaces trimmed when trim; NULL when absent (or out of memory:
 * *oom set). */
static char *pool_str(struct mf_set *s, const uint8_t *p, size_t len, uint32_t off, int trim, int *oom)
{
	size_t n;
	const uint8_t *u = etl__em_str(p, len, off, &n);
	if (!u)
		return NULL;
	size_t ul = etl__utf16_utf8_len(u, n);
	char *o = etl__mf_pool_alloc(s, ul + 1);
	if (!o) {
		*oom = 1;
		return NULL;
	}
	ul = etl__utf16_to_utf8_buf(u, n, o);
	while (trim && ul && o[ul - 1] == ' ')
		ul--;
	o[ul] = 0;
	return o;
}

/* Grows a pool array of n elements of size sz to hold one more. */
static void *grow(struct mf_set *s, void *a, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return a;
	size_t nc = *cap ? *cap * 2 : 16;
	void *b = etl__mf_pool_alloc(s, nc * sz);
	if (!b)
		return NULL;
	if (n)
		memcpy(b, a, n * sz);
	*cap = nc;
	return b;
}

static struct em_ext *ext_get(struct mf_set *s)
{
	if (!s->ext)
		s->ext = etl__mf_pool_alloc(s, sizeof(struct em_ext));
	return s->ext;
}

/* The provider of guid, made (named name) at its first event. */
static struct mf_provider *provider(struct em_learn *L, const struct etl_guid *g)
{
	struct em_ext *x = L->x;
	for (size_t i = 0; i < x->n_provs; i++)
		if (etl_guid_equal(&x->provs[i].guid, g))
			return x->provs[i].p;
	struct em_prov *a = grow(L->s, x->provs, x->n_provs, &x->cap_provs, sizeof *a);
	struct mf_provider *p = a ? etl__mf_pool_alloc(L->s, sizeof *p) : NULL;
	if (!p) {
		L->oom = 1;
		return NULL;
	}
	x->provs = a;
	p->guid = *g;
	p->name = pool_str(L->s, L->t->p, L->t->len, L->t->provider_name, 0, &L->oom);
	a[x->n_provs].guid = *g;
	a[x->n_provs++].p = p;
	return p;
}

static const struct mf_map *find_map(const struct em_ext *x, const struct etl_guid *g, const char *name)
{
	for (size_t i = x->n_maps; name && i-- > 0;)
		if (etl_guid_equal(&x->maps[i].guid, g) && strcmp(x->maps[i].m->name, name) == 0)
			return x->maps[i].m;
	return NULL;
}

/* ---- properties ------------------------------------------------------ */

/* The reference of property pos of a level (its properties are the array
 * entries first.., the top level when top) to the property at index r:
 * an earlier one of the same level, or a top-level one before anc (the
 * top-level position of the struct holding this level). */
static int ref(struct em_learn *L, uint32_t r, uint32_t first, uint32_t pos, int top, uint32_t anc,
               struct mf_ref *out)
{
	if (r >= first && r - first < pos) {
		out->kind = 2;
		out->v = r - first;
		return 0;
	}
	if (!top && r < anc && r < L->t->n_top) {
		out->kind = 3;
		out->v = r;
		return 0;
	}
	L->why = "a count or length names a property that is not read before it";
	return -1;
}

static int supported_in_type(unsigned t)
{
	return (t >= ETL_IN_UNICODESTRING && t <= ETL_IN_COUNTEDANSISTRING) || t == ETL_IN_COUNTEDBINARY;
}

static int fields(struct em_learn *L, uint32_t first, uint32_t n, int top, uint32_t anc,
                  struct mf_field **out);

/* Property index i, position pos of its level, into *f. */
static int field(struct em_learn *L, uint32_t i, uint32_t first, uint32_t pos, int top, uint32_t anc,
                 struct mf_field *f)
{
	const struct em_tei *t = L->t;
	struct em_prop pr;
	etl__em_prop(t, i, &pr);
	f->name = pool_str(L->s, t->p, t->len, pr.name, 0, &L->oom);
	if (!f->name)
		f->name = "";
	if (L->oom)
		return -1;
	if (pr.flags & EM_PROP_PARAM_COUNT) {
		if (ref(L, pr.count, first, pos, top, anc, &f->count) != 0)
			return -1;
	} else if ((pr.flags & EM_PROP_FIXED_COUNT) || pr.count > 1) {
		f->count.kind = 1;
		f->count.v = pr.count;
	}
	if (pr.flags & EM_PROP_STRUCT) {
		f->is_struct = 1;
		f->in_type = ETL_IN_STRUCT;
		f->n_members = pr.out_type;
		return fields(L, pr.in_type, pr.out_type, 0, top ? pos : anc, &f->members);
	}
	if (!supported_in_type(pr.in_type)) {
		L->why = "a property's in-type is not supported";
		return -1;
	}
	f->in_type = pr.in_type;
	f->out_type = pr.out_type;
	if (pr.flags & EM_PROP_PARAM_LENGTH) {
		if (ref(L, pr.length, first, pos, top, anc, &f->length) != 0)
			return -1;
	} else if ((pr.flags & EM_PROP_FIXED_LENGTH) ||
	           (pr.length && (f->in_type == ETL_IN_UNICODESTRING || f->in_type == ETL_IN_ANSISTRING ||
	                          f->in_type == ETL_IN_BINARY))) {
		f->length.kind = 1;
		f->length.v = pr.length;
	}
	if (!(pr.flags & EM_PROP_CUSTOM_SCHEMA) && pr.map_name) {
		f->map_attr = pool_str(L->s, t->p, t->len, pr.map_name, 1, &L->oom);
		if (L->oom)
			return -1;
		f->map = find_map(L->x, &t->provider, f->map_attr);
	}
	etl__mf_field_set_fast(f);
	return 0;
}

static int fields(struct em_learn *L, uint32_t first, uint32_t n, int top, uint32_t anc,
                  struct mf_field **out)
{
	*out = NULL;
	if (!n)
		return 0;
	struct mf_field *f = etl__mf_pool_alloc(L->s, (size_t)n * sizeof *f);
	if (!f) {
		L->oom = 1;
		return -1;
	}
	for (uint32_t k = 0; k < n; k++)
		if (field(L, first + k, first, k, top, anc, &f[k]) != 0)
			return -1;
	*out = f;
	return 0;
}

/* The keyword names, joined with spaces (NULL when there are none). */
static const char *keyword_list(struct em_learn *L)
{
	size_t n = etl__em_keywords_utf8(L->t, NULL);
	char *s = n ? etl__mf_pool_alloc(L->s, n + 1) : NULL;
	if (n && !s)
		L->oom = 1;
	if (s)
		s[etl__em_keywords_utf8(L->t, s)] = 0;
	return s;
}

/* ---- learning -------------------------------------------------------- */

static int known(struct mf_set *s, const struct em_tei *t)
{
	struct etl_event ev;
	struct mf_memo *memo;
	int prov_known;
	memset(&ev, 0, sizeof ev);
	ev.provider = t->provider;
	ev.id = t->id;
	ev.version = t->version;
	const struct mf_event *e = etl__mf_find_event(s, &ev, &prov_known, &memo);
	return e && e->version == t->version;
}

int etl__em_learn_event(etl_decoder *d, const struct em_tei *t, const char **why)
{
	struct mf_set *s = etl__mf_meta_set_get(d, 1);
	struct em_ext *x = s ? ext_get(s) : NULL;
	*why = NULL;
	if (!x)
		return ETL_FATAL;
	if (known(s, t))
		return ETL_OK;
	if (s->n_events >= EM_MAX_EVENTS || x->bytes > EM_MAX_BYTES - t->len) {
		*why = "too many EventMetadata schemas in this trace; this one is not learned";
		return ETL_FAILED;
	}
	struct em_learn L = { s, x, t, NULL, 0 };
	struct mf_event *e = etl__mf_pool_alloc(s, sizeof *e);
	struct mf_template *tm = e ? etl__mf_pool_alloc(s, sizeof *tm) : NULL;
	if (!tm)
		return ETL_FATAL;
	e->guid = t->provider;
	e->id = t->id;
	e->version = t->version;
	e->prov = provider(&L, &t->provider);
	e->task = pool_str(s, t->p, t->len, t->task_name, 0, &L.oom);
	e->opcode = pool_str(s, t->p, t->len, t->opcode_name, 0, &L.oom);
	e->level = pool_str(s, t->p, t->len, t->level_name, 0, &L.oom);
	e->channel = pool_str(s, t->p, t->len, t->channel_name, 0, &L.oom);
	e->message = pool_str(s, t->p, t->len, t->message, 0, &L.oom);
	e->keywords = keyword_list(&L);
	if (L.oom)
		return ETL_FATAL;
	e->task_text = e->task;
	e->opcode_text = etl__mf_winmeta_text(e->opcode);
	e->level_text = etl__mf_winmeta_text(e->level);
	e->channel_text = etl__mf_winmeta_text(e->channel);
	if (fields(&L, 0, t->n_top, 1, 0, &tm->fields) != 0) {
		*why = L.why;
		return L.oom ? ETL_FATAL : ETL_FAILED;
	}
	tm->n_fields = t->n_top;
	e->tmpl = tm;
	if (e->message && !(e->msg = etl__mf_msg_compile(s, e->message, t->n_top)))
		return ETL_FATAL;
	if (!etl__mf_set_insert(s, e))
		return ETL_FATAL;
	x->bytes += t->len;
	return ETL_OK;
}

/* Gives every field (and member) of the list that names map m by name,
 * and has none yet, the map. */
static void attach(struct mf_field *f, size_t n, const struct mf_map *m, unsigned depth)
{
	for (size_t i = 0; i < n && depth <= EM_MAX_DEPTH; i++) {
		if (f[i].is_struct)
			attach(f[i].members, f[i].n_members, m, depth + 1);
		else if (!f[i].map && f[i].map_attr && strcmp(f[i].map_attr, m->name) == 0)
			f[i].map = m;
	}
}

int etl__em_learn_map(etl_decoder *d, const struct em_map *em, const char **why)
{
	struct mf_set *s = etl__mf_meta_set_get(d, 1);
	struct em_ext *x = s ? ext_get(s) : NULL;
	int oom = 0;
	*why = NULL;
	if (!x)
		return ETL_FATAL;
	/* Manifest value and bit maps of ULONG values (WBEM's alike). */
	int bitmap = (em->flag & 0x12u) != 0;
	if (!(em->flag & 0x1bu) || em->value_type != 0) {
		*why = "only value and bit maps of numbers are used";
		return ETL_FAILED;
	}
	char *name = pool_str(s, em->p, em->len, em->name, 1, &oom);
	if (oom)
		return ETL_FATAL;
	if (!name || find_map(x, &em->provider, name))
		return ETL_OK;                  /* the first map of a name wins */
	if (x->bytes > EM_MAX_BYTES - em->len) {
		*why = "too many EventMetadata schemas in this trace; this map is not learned";
		return ETL_FAILED;
	}
	struct mf_map *m = etl__mf_pool_alloc(s, sizeof *m);
	struct mf_map_entry *e = m ? etl__mf_pool_alloc(s, (em->n_entries ? em->n_entries : 1) * sizeof *e) : NULL;
	struct em_mapref *a = e ? grow(s, x->maps, x->n_maps, &x->cap_maps, sizeof *a) : NULL;
	if (!a)
		return ETL_FATAL;
	x->maps = a;
	m->name = name;
	m->is_bitmap = bitmap;
	m->e = e;
	m->n = em->n_entries;
	for (uint32_t i = 0; i < em->n_entries; i++) {
		uint32_t off, value;
		etl__em_map_entry(em, i, &off, &value);
		e[i].value = value;
		e[i].message = pool_str(s, em->p, em->len, off, 1, &oom);
		if (oom)
			return ETL_FATAL;
	}
	a[x->n_maps].guid = em->provider;
	a[x->n_maps++].m = m;
	x->bytes += em->len;
	for (size_t i = 0; i < s->n_events; i++) {
		struct mf_event *ev = s->events[i];
		if (etl_guid_equal(&ev->guid, &em->provider) && ev->tmpl)
			attach(ev->tmpl->fields, ev->tmpl->n_fields, m, 0);
	}
	return ETL_OK;
}
