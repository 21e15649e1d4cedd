/*
 * lib/decode/decode_result.c - the decoder handle's state, which the
 * per-source decoders fill through the etl__dec_* calls of
 * lib/decode/decode_internal.h: the result being built (properties, string
 * storage, the failure), the schema cache, and etl_decoder_new(),
 * etl_decoder_free() and etl_decoder_errmsg().
 *
 * Result storage is reused across calls: the property array grows as needed
 * and strings go to an arena of chunks that are kept and refilled, so in the
 * steady state decoding an event allocates nothing. Arena chunks never move,
 * so a string pointer stays valid while properties are still being added.
 *
 * The schema cache is a chained hash table keyed by bytes chosen by each
 * source decoder (TraceLogging: provider GUID, traits and event metadata).
 * It grows by doubling and is flushed whole when it holds more than
 * ETL_DEC_CACHE_MAX_BYTES.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>

#include "lib/common/fmt.h"
#include "lib/decode/decode_internal.h"
#include "lib/common/packed_array.h"
#include "lib/common/zero.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t cap;
	size_t used;
	char data[];
};

#define ARENA_CHUNK_MIN (64u * 1024u)

struct cache_entry {
	struct cache_entry *next;
	uint64_t hash;
	size_t key_len;
	uint8_t *key;
	void *data;
	void (*free_fn)(void *);
	size_t cost;
};

struct etl_decoder {
	/* First, for etl__dec_prop() (inline, lib/decode/decode_internal.h). */
	struct etl_dec_head head;

	struct etl_decoded res;

	uint32_t n_props, cap_props;

	struct arena_chunk *chunks;     /* all chunks, in allocation order   */
	struct arena_chunk *cur;        /* chunk being filled                */

	char err[512];                  /* message of the current failure    */
	char errmsg[256];               /* etl_decoder_errmsg()              */
	int errcode;                    /* etl_decoder_errcode()             */

	struct cache_entry **buckets;
	size_t n_buckets;               /* power of two                      */
	size_t n_entries;
	size_t cache_bytes;

	uint8_t *scratch;
	size_t scratch_cap;

	uint64_t parses;

	void *mf_set;                   /* the manifest set in the cache, or NULL */
	void *em_set;                   /* the EventMetadata set in the cache, or NULL */
	int names_stable;               /* set by the source decoder (see
	                                   etl__dec_set_names_stable())         */
};

/* Generation of schema memory, for etl__dec_names_trusted(): bumped before
 * any decoder frees schemas (cache flush, etl_decoder_free()), so that text
 * remembered by pointer under one generation is known not to have been
 * freed (and its memory reused) while the generation stays the same. */
static _Atomic uint64_t names_gen = 1;

/* The result of this thread's last etl_decoder_decode() whose names are
 * stable, or NULL. */
static _Thread_local const struct etl_decoded *trusted_res;

void etl__dec_set_names_stable(etl_decoder *d)
{
	d->names_stable = 1;
}

uint64_t etl__dec_names_trusted(const struct etl_decoded *dec)
{
	if (!dec || dec != trusted_res)
		return 0;
	return atomic_load(&names_gen);
}

etl_decoder *etl_decoder_new(void)
{
	etl_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->n_buckets = 64;
	d->buckets = calloc(d->n_buckets, sizeof *d->buckets);
	if (!d->buckets) {
		free(d);
		return NULL;
	}
	return d;
}

static void cache_flush(etl_decoder *d)
{
	atomic_fetch_add(&names_gen, 1);
	if (trusted_res == &d->res)
		trusted_res = NULL;
	for (size_t i = 0; i < d->n_buckets; i++) {
		struct cache_entry *e = d->buckets[i];
		while (e) {
			struct cache_entry *next = e->next;
			if (e->free_fn)
				e->free_fn(e->data);
			free(e->key);
			free(e);
			e = next;
		}
		d->buckets[i] = NULL;
	}
	d->n_entries = 0;
	d->cache_bytes = 0;
	d->mf_set = NULL;
	d->em_set = NULL;
}

void *etl__dec_mf_set(const etl_decoder *d)
{
	return d->mf_set;
}

void etl__dec_set_mf_set(etl_decoder *d, void *set)
{
	d->mf_set = set;
}

void *etl__dec_em_set(const etl_decoder *d)
{
	return d->em_set;
}

void etl__dec_set_em_set(etl_decoder *d, void *set)
{
	d->em_set = set;
}

void etl_decoder_free(etl_decoder *d)
{
	if (!d)
		return;
	cache_flush(d);
	free(d->buckets);
	free(d->head.props);
	struct arena_chunk *c = d->chunks;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(d->scratch);
	free(d);
}

int etl_decoder_set_flags(etl_decoder *d, unsigned flags)
{
	if (!d || (flags & ~ETL_DECODE_PACKED_ARRAYS))
		return ETL_FAILED;
	d->head.flags = flags;
	return ETL_OK;
}

int etl_decoded_element(const struct etl_decoded *dec, uint32_t i, uint32_t k, struct etl_prop *out)
{
	if (!dec || !out || !dec->props || i >= dec->n_props)
		return ETL_FAILED;
	const struct etl_prop *a = &dec->props[i];
	if ((a->kind != ETL_VAL_ARRAY && a->kind != ETL_VAL_ARRAY_PACKED) || k >= a->n_children)
		return ETL_FAILED;
	/* Slots the children take: one for a packed array (element 0). */
	uint32_t slots = a->kind == ETL_VAL_ARRAY_PACKED ? 1 : a->n_children;
	if (a->first_child >= dec->n_props || slots > dec->n_props - a->first_child)
		return ETL_FAILED;
	if (a->kind == ETL_VAL_ARRAY) {
		*out = dec->props[a->first_child + k];
		return ETL_OK;
	}
	if (!etl__packed_usable(a, &dec->props[a->first_child]))
		return ETL_FAILED;
	etl__packed_elem(a, &dec->props[a->first_child], k, out);
	return ETL_OK;
}

void etl__dec_set_error(etl_decoder *d, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->errmsg, sizeof d->errmsg, fmt, ap);
	va_end(ap);
	d->errcode = code;
}

const char *etl_decoder_errmsg(const etl_decoder *d)
{
	if (!d)
		return "no decoder";
	return d->errmsg;
}

int etl_decoder_errcode(const etl_decoder *d)
{
	return d ? d->errcode : ETL_E_MISUSE;
}

/* ---- result storage -------------------------------------------------- */

/* Makes room for n more properties; UINT32_MAX as etl__dec_reserve(). */
static uint32_t reserve_room(etl_decoder *d, uint32_t n, int *oom)
{
	uint32_t first = d->n_props;
	if (n > ETL_DEC_MAX_PROPS - d->n_props)
		return UINT32_MAX;
	if (d->n_props + n > d->cap_props) {
		size_t cap = d->cap_props ? d->cap_props : 64;
		while (cap < (size_t)d->n_props + n)
			cap *= 2;
		if (cap > ETL_DEC_MAX_PROPS)
			cap = ETL_DEC_MAX_PROPS;
		struct etl_prop *p = realloc(d->head.props, cap * sizeof *p);
		if (!p) {
			*oom = 1;
			return UINT32_MAX;
		}
		d->head.props = p;
		d->cap_props = (uint32_t)cap;
	}
	d->n_props += n;
	return first;
}

uint32_t etl__dec_reserve(etl_decoder *d, uint32_t n, int *oom)
{
	uint32_t first = reserve_room(d, n, oom);
	if (first == UINT32_MAX || n == 0)     /* props may still be NULL */
		return first;
	struct etl_prop *p = &d->head.props[first];
	memset(p, 0, n * sizeof *p);
	for (uint32_t i = 0; i < n; i++)
		p[i].parent = ETL_PROP_NO_PARENT;
	return first;
}

uint32_t etl__dec_reserve_raw(etl_decoder *d, uint32_t n, int *oom)
{
	return reserve_room(d, n, oom);
}

char *etl__dec_alloc(etl_decoder *d, size_t n)
{
	struct arena_chunk *c = d->cur;
	/* Refill the chunks kept from earlier calls first. */
	while (c) {
		if (c->cap - c->used >= n) {
			char *p = c->data + c->used;
			c->used += n;
			d->cur = c;
			return p;
		}
		if (!c->next)
			break;
		c = c->next;
		c->used = 0;
	}
	size_t cap = n > ARENA_CHUNK_MIN ? n : ARENA_CHUNK_MIN;
	if (cap > SIZE_MAX - sizeof(struct arena_chunk))
		return NULL;
	struct arena_chunk *nc = malloc(sizeof *nc + cap);
	if (!nc)
		return NULL;
	nc->next = NULL;
	nc->cap = cap;
	nc->used = n;
	if (c)
		c->next = nc;
	else
		d->chunks = nc;
	d->cur = nc;
	return nc->data;
}

void etl__dec_shrink(etl_decoder *d, char *p, size_t n, size_t keep)
{
	struct arena_chunk *c = d->cur;
	if (c && keep <= n && p + n == c->data + c->used)
		c->used -= n - keep;
}

static void arena_reset(etl_decoder *d)
{
	d->cur = d->chunks;
	if (d->cur)
		d->cur->used = 0;
}

struct etl_decoded *etl__dec_result(etl_decoder *d)
{
	return &d->res;
}

int etl__dec_fail(etl_decoder *d, int errcode, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof d->err, fmt, ap);
	va_end(ap);
	d->res.errcode = errcode;
	d->res.error = d->err;
	d->res.status = errcode == ETL_E_NOMEM ? ETL_FATAL : ETL_FAILED;
	return d->res.status;
}

/* Appends n bytes of s to d->err at *at as vsnprintf() would, keeping room
 * for the NUL (text past the buffer is dropped). */
static void err_put(etl_decoder *d, size_t *at, const char *s, size_t n)
{
	size_t room = sizeof d->err - 1 - *at;
	if (n > room)
		n = room;
	memcpy(d->err + *at, s, n);
	*at += n;
}

int etl__dec_fail_noschema(etl_decoder *d, const struct etl_event *ev)
{
	/* "no schema for this event: provider=%s%s%s%s, id=%u, version=%u"
	 * without vsnprintf: a trace's undecoded events can be many. */
	static const char head[] = "no schema for this event: provider=";
	char g[ETL_GUID_STRLEN], num[24];
	size_t at = 0;
	etl_guid_format(&ev->provider, g);
	err_put(d, &at, head, sizeof head - 1);
	err_put(d, &at, g, strlen(g));
	if (ev->provider_name) {
		err_put(d, &at, " (", 2);
		err_put(d, &at, ev->provider_name, strlen(ev->provider_name));
		err_put(d, &at, ")", 1);
	}
	err_put(d, &at, ", id=", 5);
	err_put(d, &at, num, etl__fmt_u64(num, ev->id));
	err_put(d, &at, ", version=", 10);
	err_put(d, &at, num, etl__fmt_u64(num, ev->version));
	d->err[at] = 0;
	d->res.errcode = ETL_E_UNSUPPORTED;
	d->res.error = d->err;
	d->res.status = ETL_FAILED;
	return ETL_FAILED;
}

/* ---- schema cache ---------------------------------------------------- */

uint64_t etl__dec_hash(const void *key, size_t n, uint64_t h)
{
	const uint8_t *b = key;
	const uint64_t k = 0x9E3779B97F4A7C15ull;
	uint64_t g = h ^ n;
	uint64_t w, v;
	size_t i = 0;
	/* 32 bytes per step in four independent chains, then 16 in two
	 * (TraceLogging keys are whole metadata blobs of a few hundred bytes,
	 * hashed for every event: a chain waits on its multiplication every
	 * eight bytes); the shift folds the high bits, which the
	 * multiplication only moves upwards, into the low ones the bucket
	 * index uses. */
	if (n >= 32) {
		uint64_t e = h ^ k, f = g ^ k, x, y;
		for (; i + 32 <= n; i += 32) {
			memcpy(&w, b + i, 8);
			memcpy(&v, b + i + 8, 8);
			memcpy(&x, b + i + 16, 8);
			memcpy(&y, b + i + 24, 8);
			h = (h ^ w) * k;
			g = (g ^ v) * k;
			e = (e ^ x) * k;
			f = (f ^ y) * k;
			h ^= h >> 32;
			g ^= g >> 32;
			e ^= e >> 32;
			f ^= f >> 32;
		}
		h = (h ^ e) * k;
		g = (g ^ f) * k;
	}
	for (; i + 16 <= n; i += 16) {
		memcpy(&w, b + i, 8);
		memcpy(&v, b + i + 8, 8);
		h = (h ^ w) * k;
		g = (g ^ v) * k;
		h ^= h >> 32;
		g ^= g >> 32;
	}
	if (i + 8 <= n) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * k;
		h ^= h >> 32;
		i += 8;
	}
	if (i < n && n >= 8) {                  /* the last 8 bytes, overlapping */
		memcpy(&v, b + n - 8, 8);
		g = (g ^ v) * k;
		g ^= g >> 32;
	} else {
		for (; i < n; i++) {            /* FNV-1a for a key under 8 bytes */
			h ^= b[i];
			h *= 0x100000001b3ull;
		}
	}
	h = (h ^ g * 0xC2B2AE3D27D4EB4Full) * k;
	return h ^ h >> 29;
}

void *etl__dec_cache_find(etl_decoder *d, uint64_t hash, const void *key, size_t key_len)
{
	struct cache_entry *e = d->buckets[hash & (d->n_buckets - 1)];
	for (; e; e = e->next) {
		if (e->hash == hash && e->key_len == key_len && memcmp(e->key, key, key_len) == 0)
			return e->data;
	}
	return NULL;
}

static void cache_grow(etl_decoder *d)
{
	size_t nb = d->n_buckets * 2;
	struct cache_entry **b = calloc(nb, sizeof *b);
	if (!b)
		return;                 /* keep the longer chains */
	for (size_t i = 0; i < d->n_buckets; i++) {
		struct cache_entry *e = d->buckets[i];
		while (e) {
			struct cache_entry *next = e->next;
			size_t j = e->hash & (nb - 1);
			e->next = b[j];
			b[j] = e;
			e = next;
		}
	}
	free(d->buckets);
	d->buckets = b;
	d->n_buckets = nb;
}

int etl__dec_cache_add(etl_decoder *d, uint64_t hash, const void *key, size_t key_len,
                       void *data, void (*free_fn)(void *), size_t cost)
{
	size_t total = cost + key_len + sizeof(struct cache_entry);
	if (d->cache_bytes >= ETL_DEC_CACHE_MAX_BYTES || total > ETL_DEC_CACHE_MAX_BYTES - d->cache_bytes)
		cache_flush(d);
	struct cache_entry *e = malloc(sizeof *e);
	uint8_t *k = malloc(key_len ? key_len : 1);
	if (!e || !k) {
		free(e);
		free(k);
		if (free_fn)
			free_fn(data);
		return ETL_FATAL;
	}
	memcpy(k, key, key_len);
	e->hash = hash;
	e->key = k;
	e->key_len = key_len;
	e->data = data;
	e->free_fn = free_fn;
	e->cost = total;
	if (d->n_entries >= d->n_buckets - d->n_buckets / 4)
		cache_grow(d);
	size_t i = hash & (d->n_buckets - 1);
	e->next = d->buckets[i];
	d->buckets[i] = e;
	d->n_entries++;
	d->cache_bytes += total;
	return ETL_OK;
}

uint8_t *etl__dec_scratch(etl_decoder *d, size_t n)
{
	if (n > d->scratch_cap) {
		size_t cap = d->scratch_cap ? d->scratch_cap : 1024;
		while (cap < n)
			cap *= 2;
		uint8_t *p = realloc(d->scratch, cap);
		if (!p)
			return NULL;
		d->scratch = p;
		d->scratch_cap = cap;
	}
	return d->scratch;
}

void etl__dec_count_parse(etl_decoder *d)
{
	d->parses++;
}

uint64_t etl__decoder_schema_parses(const etl_decoder *d)
{
	return d ? d->parses : 0;
}

size_t etl__decoder_cache_entries(const etl_decoder *d)
{
	return d ? d->n_entries : 0;
}

/* ---- one event ------------------------------------------------------- */

void etl__dec_begin(etl_decoder *d)
{
	trusted_res = NULL;
	d->names_stable = 0;
	ETL_ZERO(&d->res);          /* not the "rep stosq" of a memset */
	d->err[0] = 0;
	d->n_props = 0;
	arena_reset(d);
}

int etl__dec_end(etl_decoder *d, int rc)
{
	if (rc == ETL_OK) {
		d->res.status = ETL_OK;
		d->res.errcode = ETL_E_NONE;
		d->res.error = NULL;
		d->res.props = d->head.props;
		d->res.n_props = d->n_props;
		if (d->names_stable)
			trusted_res = &d->res;
	} else {
		if (d->res.status == ETL_OK) /* decoder forgot etl__dec_fail() */
			etl__dec_fail(d, ETL_E_BAD_VALUE, "payload could not be decoded");
		rc = d->res.status;
		d->res.props = NULL;
		d->res.n_props = 0;
	}
	return rc;
}
