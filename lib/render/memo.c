/*
 * lib/render/memo.c - the memos of lib/render/memo.h: direct-mapped tables
 * of text by the values it was made from. A slot holds the last text made
 * for values hashing to it, so a collision only costs a miss; head and
 * tail entries may take either of a pair of slots (2-way), the one used
 * last kept first. A table starts with MEMO_START slots and doubles
 * (emptied) once it has missed more than twice as many times as it has
 * slots, up to a maximum per kind. Head and tail slots are large (their
 * text) and allocated when first filled, so that a table costs what its
 * kinds use.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/render/memo.h"

#define MEMO_START 16u

/* Whether a table of n slots that missed misses times grows to 2n (at most
 * max): it misses more often than a few times per slot. */
static int should_grow(uint32_t n, uint32_t misses, uint32_t max)
{
	return n < max && misses > 2 * n;
}

/* ---- head ------------------------------------------------------------- */

#define HEAD_MAX_SLOTS 256u
#define HEAD_NAME_MAX 95u
#define HEAD_TEXT_MAX 512u

struct head_slot {
	int used;                   /* first, as in struct tail_slot          */
	uint8_t has_name, version, level, opcode;
	uint16_t id, task;
	uint64_t keywords;
	struct etl_guid prov;
	uint64_t gen;               /* names_gen the name pointer is known in */
	const char *name_ptr;
	size_t text_len;
	char name[HEAD_NAME_MAX + 1];
	char text[HEAD_TEXT_MAX];
};

struct etl_head_memo {
	uint32_t mask, misses;
	struct head_slot *s[];
};

static uint32_t head_hash(const struct etl_out_rec *r)
{
	uint32_t h = r->provider.data1 ^ (uint32_t)r->event_id * 2654435761u ^
	             (uint32_t)r->opcode << 8 ^ (uint32_t)r->version << 16 ^ (uint32_t)r->task * 40503u ^
	             (uint32_t)r->level << 24 ^ (uint32_t)r->keywords ^ (uint32_t)(r->keywords >> 32);
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h;
}

/* The values but the provider name. */
static int head_values_match(const struct head_slot *m, const struct etl_out_rec *r)
{
	return m && m->used && m->id == r->event_id && m->version == r->version && m->level == r->level &&
	       m->opcode == r->opcode && m->task == r->task && m->keywords == r->keywords &&
	       etl__guid_same(&m->prov, &r->provider);
}

/* A table of n slots (zeroed), or NULL. */
static void *memo_table(size_t head, size_t slot, uint32_t n)
{
	uint32_t *t = calloc(1, head + slot * n);
	if (t)
		t[0] = n - 1;           /* mask, the first member of each table */
	return t;
}

/* Frees a table of slot pointers (head, tail) and its slots. */
static void free_slots(void *t, void **s)
{
	if (!t)
		return;
	uint32_t n = *(uint32_t *)t + 1;
	for (uint32_t i = 0; i < n; i++)
		free(s[i]);
	free(t);
}

/* The table *tab of slot pointers doubled (emptied) when it misses often;
 * returns the table now in *tab. */
static void *grown(void **tab, void **s, size_t head, uint32_t max)
{
	uint32_t *t = *tab;
	if (!should_grow(t[0] + 1, ++t[1], max))
		return t;
	uint32_t *g = memo_table(head, sizeof(void *), 2 * (t[0] + 1));
	if (!g) {
		t[1] = 0;
		return t;
	}
	free_slots(t, s);
	*tab = g;
	return g;
}

/* Whether slot m holds the head of r's values (the name compared by
 * pointer where the decoder vouches for it). */
static int head_hit(struct head_slot *m, const struct etl_out_rec *r)
{
	if (!head_values_match(m, r))
		return 0;
	if (r->names_gen && m->gen == r->names_gen && m->name_ptr == r->provider_name)
		return 1;                       /* the same name: no compare */
	if (m->has_name != (r->provider_name != NULL) ||
	    (r->provider_name && strcmp(m->name, r->provider_name) != 0))
		return 0;
	m->gen = r->names_gen;
	m->name_ptr = r->provider_name;
	return 1;
}

/* The pair of slots values hashing to h may take: the one used last first
 * (2-way, so that two frequent kinds whose hashes meet do not evict each
 * other). */
static void **slot_pair(void *tab, void **s, uint32_t h)
{
	return &s[h & *(uint32_t *)tab & ~1u];
}

/* After a hit on pair[w]: the hit slot first. */
static void pair_touch(void **pair, int w)
{
	if (w) {
		void *m = pair[1];
		pair[1] = pair[0];
		pair[0] = m;
	}
}

/* Before a miss is stored: the slot used last moves second, the other one
 * (evicted, or NULL) first, to be refilled. */
static void pair_evict(void **pair)
{
	pair_touch(pair, 1);
	if (pair[0])
		*(int *)pair[0] = 0;            /* used, the first member of a slot */
}

void etl__memo_head(struct etl_head_memo **tab, struct etl_outbuf *b, const struct etl_out_rec *r,
                    etl_memo_make_fn make, void *ctx)
{
	struct etl_head_memo *t = *tab;
	if (!t && !(t = *tab = memo_table(sizeof *t, sizeof t->s[0], MEMO_START))) {
		make(ctx, b, r);
		return;
	}
	uint32_t h = head_hash(r);
	struct head_slot **pair = (struct head_slot **)slot_pair(t, (void **)t->s, h);
	for (int w = 0; w < 2; w++) {
		if (head_hit(pair[w], r)) {
			etl__ob_put(b, pair[w]->text, pair[w]->text_len);
			pair_touch((void **)pair, w);
			return;
		}
	}
	t = grown((void **)tab, (void **)t->s, sizeof *t, HEAD_MAX_SLOTS);
	pair = (struct head_slot **)slot_pair(t, (void **)t->s, h);
	pair_evict((void **)pair);
	size_t start = b->len;
	make(ctx, b, r);
	size_t nl = r->provider_name ? strlen(r->provider_name) : 0;
	if (b->oom || b->len - start > HEAD_TEXT_MAX || nl > HEAD_NAME_MAX)
		return;
	if (!pair[0] && !(pair[0] = malloc(sizeof *pair[0])))
		return;
	struct head_slot *m = pair[0];
	m->used = 1;
	m->id = r->event_id;
	m->version = r->version;
	m->level = r->level;
	m->opcode = r->opcode;
	m->task = r->task;
	m->keywords = r->keywords;
	m->prov = r->provider;
	m->has_name = r->provider_name != NULL;
	memcpy(m->name, r->provider_name ? r->provider_name : "", nl + 1);
	m->gen = r->names_gen;
	m->name_ptr = r->provider_name;
	m->text_len = b->len - start;
	memcpy(m->text, b->p + start, m->text_len);
}

void etl__memo_head_free(struct etl_head_memo *tab)
{
	if (tab)
		free_slots(tab, (void **)tab->s);
}

/* ---- tail ------------------------------------------------------------- */

#define TAIL_MAX_SLOTS 256u
#define TAIL_KEYS 7
#define TAIL_RAW_MAX 256u
#define TAIL_TEXT_MAX 1024u

struct tail_slot {
	int used;
	uint64_t gen;               /* names_gen the pointers are known in   */
	const char *ptr[TAIL_KEYS];
	uint16_t off[TAIL_KEYS];    /* offset in raw, or 0xFFFF for NULL     */
	size_t text_len;
	char raw[TAIL_RAW_MAX];     /* the names, each NUL-terminated       */
	char text[TAIL_TEXT_MAX];
};

struct etl_tail_memo {
	uint32_t mask, misses;
	struct tail_slot *s[];
};

static void tail_keys(const struct etl_out_rec *r, const char *k[TAIL_KEYS])
{
	k[0] = r->r_level;
	k[1] = r->r_opcode;
	k[2] = r->r_task;
	k[3] = r->r_channel;
	k[4] = r->r_provider;
	k[5] = r->r_keywords && *r->r_keywords ? r->r_keywords : NULL;
	k[6] = r->r_event_name;
}

/* Whether slot m holds the text of names k. */
static int tail_match(struct tail_slot *m, const char *k[TAIL_KEYS], uint64_t gen)
{
	int i = 0;
	if (!m || !m->used)
		return 0;
	if (gen && m->gen == gen) {             /* the same names */
		uintptr_t diff = 0;
		for (int j = 0; j < TAIL_KEYS; j++)
			diff |= (uintptr_t)m->ptr[j] ^ (uintptr_t)k[j];
		if (!diff)
			return 1;
	}
	for (; i < TAIL_KEYS; i++)
		if (m->off[i] == 0xFFFF ? k[i] != NULL : !k[i] || strcmp(m->raw + m->off[i], k[i]) != 0)
			return 0;
	m->gen = gen;
	memcpy(m->ptr, k, sizeof m->ptr);
	return 1;
}

void etl__memo_tail(struct etl_tail_memo **tab, struct etl_outbuf *b, const struct etl_out_rec *r,
                    etl_memo_make_fn make, void *ctx)
{
	const char *k[TAIL_KEYS];
	struct etl_tail_memo *t = *tab;
	if (!t && !(t = *tab = memo_table(sizeof *t, sizeof t->s[0], MEMO_START))) {
		make(ctx, b, r);
		return;
	}
	tail_keys(r, k);
	/* The slots by the event and opcode names, which tell most kinds
	 * apart. */
	uint64_t h = ((uint64_t)(uintptr_t)k[6] ^ (uint64_t)(uintptr_t)k[1] * 31u) * 0x9E3779B97F4A7C15ull;
	h >>= 40;
	struct tail_slot **pair = (struct tail_slot **)slot_pair(t, (void **)t->s, (uint32_t)h);
	for (int w = 0; w < 2; w++) {
		if (tail_match(pair[w], k, r->names_gen)) {
			etl__ob_put(b, pair[w]->text, pair[w]->text_len);
			pair_touch((void **)pair, w);
			return;
		}
	}
	t = grown((void **)tab, (void **)t->s, sizeof *t, TAIL_MAX_SLOTS);
	pair = (struct tail_slot **)slot_pair(t, (void **)t->s, (uint32_t)h);
	pair_evict((void **)pair);
	size_t start = b->len;
	make(ctx, b, r);
	if (b->oom || b->len - start > TAIL_TEXT_MAX)
		return;
	if (!pair[0] && !(pair[0] = malloc(sizeof *pair[0])))
		return;
	struct tail_slot *m = pair[0];
	m->used = 0;
	size_t at = 0;
	for (int i = 0; i < TAIL_KEYS; i++) {
		if (!k[i]) {
			m->off[i] = 0xFFFF;
			continue;
		}
		size_t n = strlen(k[i]);
		if (n >= TAIL_RAW_MAX - at)
			return;
		m->off[i] = (uint16_t)at;
		memcpy(m->raw + at, k[i], n + 1);
		at += n + 1;
	}
	m->text_len = b->len - start;
	memcpy(m->text, b->p + start, m->text_len);
	m->gen = r->names_gen;
	memcpy(m->ptr, k, sizeof m->ptr);
	m->used = 1;
}

void etl__memo_tail_free(struct etl_tail_memo *tab)
{
	if (tab)
		free_slots(tab, (void **)tab->s);
}

/* ---- names ------------------------------------------------------------ */

#define NAME_MAX_SLOTS 1024u

void etl__memo_name_keep(struct etl_name_memo **tab, const char *name, size_t n, uint64_t gen,
                         const char *text, size_t len)
{
	struct etl_name_memo *t = *tab;
	if (!t) {
		if (!(t = *tab = memo_table(sizeof *t, sizeof t->e[0], MEMO_START)))
			return;
	} else if (should_grow(t->mask + 1, ++t->misses, NAME_MAX_SLOTS)) {
		struct etl_name_memo *g = memo_table(sizeof *t, sizeof t->e[0], 2 * (t->mask + 1));
		if (g) {
			free(t);
			t = *tab = g;
		} else {
			t->misses = 0;
		}
	}
	uintptr_t h = (uintptr_t)name;
	struct etl_name_entry *e = &t->e[(h ^ h >> 5 ^ h >> 13) & t->mask];
	if (n > ETL_NAME_RAW_MAX || len > ETL_NAME_TEXT_MAX) {
		e->ptr = NULL;
		return;
	}
	memcpy(e->text, text, len);
	e->text_len = (uint8_t)len;
	memcpy(e->raw, name, n);
	e->raw[n] = 0;
	e->gen = gen;
	e->ptr = name;
}

/* ---- time ------------------------------------------------------------- */

size_t etl__memo_time(struct etl_time_memo *m, char *q, int64_t ft)
{
	if (ft >= 0 && m->have_sec && ft / 10000000 == m->sec) {
		memcpy(q, m->sec_text, m->sec_len);
		etl__fmt_frac7(q + m->sec_len, (uint32_t)(ft % 10000000));
		q[m->sec_len + 7] = 'Z';
		return m->sec_len + 8;
	}
	size_t n = etl__fmt_filetime(q, ft);
	m->have_sec = 0;
	/* "...:SS.fffffffZ": the fraction is the last 8 bytes */
	if (ft >= 0 && n > 8 && n - 8 <= sizeof m->sec_text && q[n - 9] == '.') {
		m->have_sec = 1;
		m->sec = ft / 10000000;
		m->sec_len = n - 8;
		memcpy(m->sec_text, q, n - 8);
	}
	return n;
}
