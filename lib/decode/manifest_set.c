/*
 * lib/decode/manifest_set.c - the set of manifest events a decoder has
 * loaded (doc/decoding.md §3): its memory pool, its place in the decoder's
 * schema cache, the sorted index and the lookup of an event's definition.
 *
 * Storage: the set lives in the decoder's schema cache under a reserved key
 * (MF_SET_KEY, 'M'...; TraceLogging keys start with 'T'). Every string and
 * array of the set is allocated from the set's pool and freed with it (on
 * etl_decoder_free()). The cache is only flushed when its schemas exceed
 * ETL_DEC_CACHE_MAX_BYTES (64 MiB of TraceLogging metadata); such a flush
 * drops the loaded manifests too (they must then be added again).
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>

#include "lib/common/guid.h"
#include "lib/common/pool.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/manifest_internal.h"

_Static_assert(sizeof(struct etl_guid) == 16, "struct etl_guid is 16 bytes");

static const char MF_SET_KEY[] = "M\001manifest-set";
static const char EM_SET_KEY[] = "M\001event-metadata-set";

/* ---- pool ------------------------------------------------------------ */

void *etl__mf_pool_alloc(struct mf_set *s, size_t n)
{
	return etl__pool_alloc(&s->pool, n);
}

void etl__mf_set_clear(struct mf_set *s)
{
	etl__pool_free(&s->pool);
	free(s->events);
	free(s->msg);
	memset(s, 0, sizeof *s);
}

static void set_free(void *data)
{
	struct mf_set *s = data;
	if (!s)
		return;
	etl__mf_set_clear(s);
	free(s);
}

struct mf_set *etl__mf_set_get(etl_decoder *d, int create)
{
	struct mf_set *s = etl__dec_mf_set(d);
	if (s)
		return s;
	uint64_t h = etl__dec_hash(MF_SET_KEY, sizeof MF_SET_KEY, ETL_DEC_HASH_INIT);
	s = etl__dec_cache_find(d, h, MF_SET_KEY, sizeof MF_SET_KEY);
	if (s) {
		etl__dec_set_mf_set(d, s);
		return s;
	}
	if (!create)
		return NULL;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (etl__dec_cache_add(d, h, MF_SET_KEY, sizeof MF_SET_KEY, s, set_free, 0) != ETL_OK)
		return NULL;
	etl__dec_set_mf_set(d, s);
	return s;
}

struct mf_set *etl__mf_meta_set_get(etl_decoder *d, int create)
{
	struct mf_set *s = etl__dec_em_set(d);
	if (s || !create)
		return s;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	uint64_t h = etl__dec_hash(EM_SET_KEY, sizeof EM_SET_KEY, ETL_DEC_HASH_INIT);
	if (etl__dec_cache_add(d, h, EM_SET_KEY, sizeof EM_SET_KEY, s, set_free, 0) != ETL_OK)
		return NULL;
	etl__dec_set_em_set(d, s);
	return s;
}

/* ---- events ---------------------------------------------------------- */

int etl__mf_set_add_event(struct mf_set *s, struct mf_event *e)
{
	if (s->n_events == s->cap_events) {
		size_t cap = s->cap_events ? s->cap_events * 2 : 256;
		struct mf_event **p = realloc(s->events, cap * sizeof *p);
		if (!p)
			return 0;
		s->events = p;
		s->cap_events = cap;
	}
	e->seq = s->seq++;
	s->events[s->n_events++] = e;
	return 1;
}

static int cmp_event(const void *a, const void *b)
{
	const struct mf_event *x = *(const struct mf_event *const *)a;
	const struct mf_event *y = *(const struct mf_event *const *)b;
	int c = memcmp(&x->guid, &y->guid, sizeof x->guid);
	if (c)
		return c;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void etl__mf_set_index(struct mf_set *s)
{
	qsort(s->events, s->n_events, sizeof *s->events, cmp_event);
	memset(s->memo, 0, sizeof s->memo);     /* lookups may now differ */
}

int etl__mf_set_insert(struct mf_set *s, struct mf_event *e)
{
	if (!etl__mf_set_add_event(s, e))
		return 0;
	size_t lo = 0, hi = s->n_events - 1;    /* where e goes among the others */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_event(&s->events[mid], &e) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&s->events[lo + 1], &s->events[lo], (s->n_events - 1 - lo) * sizeof *s->events);
	s->events[lo] = e;
	memset(s->memo, 0, sizeof s->memo);     /* lookups may now differ */
	return 1;
}

/* ---- lookup ---------------------------------------------------------- */

static const struct mf_event *find_event(const struct mf_set *s, const struct etl_event *ev, int *prov_known)
{
	size_t lo = 0, hi = s->n_events;
	struct mf_event key;
	const struct mf_event *kp = &key;
	*prov_known = 0;
	memset(&key, 0, sizeof key);
	key.guid = ev->provider;
	key.id = ev->id;
	key.version = ev->version;
	while (lo < hi) {               /* first element >= key (seq 0) */
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_event(&s->events[mid], &kp) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n_events && etl_guid_equal(&s->events[lo]->guid, &ev->provider))
		*prov_known = 1;
	if (lo < s->n_events) {
		const struct mf_event *e = s->events[lo];
		if (etl_guid_equal(&e->guid, &ev->provider) && e->id == ev->id && e->version == ev->version)
			return e;
	}
	if (lo > 0) {
		const struct mf_event *e = s->events[lo - 1];
		if (etl_guid_equal(&e->guid, &ev->provider)) {
			*prov_known = 1;
			if (e->id == ev->id && e->version < ev->version) {
				/* highest lower version: first of that version */
				size_t i = lo - 1;
				while (i > 0 && s->events[i - 1]->id == e->id && s->events[i - 1]->version == e->version &&
				       etl_guid_equal(&s->events[i - 1]->guid, &e->guid))
					i--;
				return s->events[i];
			}
		}
	}
	return NULL;
}

/* find_event() through the set's memo: the events of a trace are of few
 * kinds, and the binary search compares GUIDs at every step. */
const struct mf_event *etl__mf_find_event(struct mf_set *s, const struct etl_event *ev, int *prov_known,
                                          struct mf_memo **memo)
{
	const struct etl_guid *g = &ev->provider;
	uint32_t h = g->data1 ^ (uint32_t)g->data2 << 7 ^ (uint32_t)ev->id * 2654435761u ^ ev->version;
	struct mf_memo *m = &s->memo[(h ^ h >> 16) % MF_MEMO_SIZE];
	if (!(m->used && m->id == ev->id && m->version == ev->version && etl__guid_same(&m->guid, g))) {
		m->e = find_event(s, ev, &m->prov_known);
		m->guid = *g;
		m->id = ev->id;
		m->version = ev->version;
		m->used = 1;
		m->kw_set = 0;
		m->kw_names = NULL;
		m->ev_name = NULL;
	}
	*prov_known = m->prov_known;
	*memo = m;
	return m->e;
}
