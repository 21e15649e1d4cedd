/*
 * lib/sem/regtree.c - the in-memory registry both SEM loaders fill (see
 * regtree.h): keys, values, case-insensitive lookups through one
 * open-addressing table per tree, deletion of whole subtrees.
 *
 * The table maps (owner key id, kind, folded name) to a key or a value.
 * Ids are never reused, so entries of a deleted subtree could never match
 * a new key; they are still taken out (as tombstones) so the table does
 * not fill with the dead. Deletion is rare (a .reg "[-key]" line), lookups
 * are not.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "etl_errors.h"
#include "lib/sem/regtree.h"

enum { SLOT_EMPTY = 0, SLOT_USED, SLOT_TOMB };

struct etl__regslot {
	uint64_t hash;
	void *p;               /* struct etl__regkey * or struct etl__regval * */
	uint8_t state;
	uint8_t is_val;
};

static unsigned char fold(unsigned char c)
{
	return (c >= 'a' && c <= 'z') ? (unsigned char)(c - 32) : c;
}

int etl__reg_name_eq(const char *a, size_t n, const char *b)
{
	size_t i = 0;
	for (; i < n; i++) {
		if (!b[i] || fold((unsigned char)a[i]) != fold((unsigned char)b[i]))
			return 0;
	}
	return b[i] == 0;
}

int etl__reg_name_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = fold((unsigned char)*a), y = fold((unsigned char)*b);
		if (x != y || !x)
			return (int)x - (int)y;
	}
}

unsigned etl__reg_control_set_number(const char *name, size_t n)
{
	if (n != 13 || !etl__reg_name_eq(name, 10, "ControlSet"))
		return 0;
	unsigned v = 0;
	for (size_t i = 10; i < 13; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		v = v * 10 + (unsigned)(name[i] - '0');
	}
	return v;
}

static uint64_t name_hash(uint64_t owner, int is_val, const char *name, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < 8; i++) {
		h ^= (uint8_t)(owner >> (8 * i));
		h *= 1099511628211ULL;
	}
	h ^= (uint64_t)(is_val + 1);
	h *= 1099511628211ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= fold((unsigned char)name[i]);
		h *= 1099511628211ULL;
	}
	return h;
}

static void fail(struct etl__regtree *t, int code)
{
	if (!t->err)
		t->err = code;
}

/* ---- the table ---------------------------------------------------------- */

static int slot_matches(const struct etl__regslot *s, uint64_t h, int is_val, uint64_t owner,
                        const char *name, size_t n)
{
	if (s->state != SLOT_USED || s->hash != h || s->is_val != is_val)
		return 0;
	if (is_val) {
		const struct etl__regval *v = s->p;
		return v->owner == owner && etl__reg_name_eq(name, n, v->name);
	}
	const struct etl__regkey *k = s->p;
	return k->parent && k->parent->id == owner && etl__reg_name_eq(name, n, k->name);
}

static struct etl__regslot *find_slot(const struct etl__regtree *t, int is_val, uint64_t owner,
                                      const char *name, size_t n)
{
	if (!t->cap)
		return NULL;
	uint64_t h = name_hash(owner, is_val, name, n);
	size_t mask = t->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct etl__regslot *s = &t->slots[i];
		if (s->state == SLOT_EMPTY)
			return NULL;
		if (slot_matches(s, h, is_val, owner, name, n))
			return s;
	}
}

static void place(struct etl__regslot *slots, size_t cap, uint64_t h, void *p, int is_val)
{
	size_t mask = cap - 1;
	size_t i = (size_t)h & mask;
	while (slots[i].state == SLOT_USED)
		i = (i + 1) & mask;
	slots[i].hash = h;
	slots[i].p = p;
	slots[i].state = SLOT_USED;
	slots[i].is_val = (uint8_t)is_val;
}

/* Room for one more entry: rehash (dropping tombstones) past half full. */
static int table_reserve(struct etl__regtree *t)
{
	if ((t->used + t->tombs + 1) * 2 <= t->cap)
		return 0;
	size_t cap = 64;
	while ((t->used + 1) * 4 > cap)     /* a quarter full after the rehash */
		cap *= 2;
	struct etl__regslot *n = calloc(cap, sizeof *n);
	if (!n) {
		fail(t, ETL_E_NOMEM);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].state == SLOT_USED)
			place(n, cap, t->slots[i].hash, t->slots[i].p, t->slots[i].is_val);
	free(t->slots);
	t->slots = n;
	t->cap = cap;
	t->tombs = 0;
	return 0;
}

static int table_add(struct etl__regtree *t, uint64_t h, void *p, int is_val)
{
	if (table_reserve(t) != 0)
		return -1;
	place(t->slots, t->cap, h, p, is_val);
	t->used++;
	return 0;
}

static void table_remove(struct etl__regtree *t, struct etl__regslot *s)
{
	if (!s)
		return;
	s->state = SLOT_TOMB;
	s->p = NULL;
	t->used--;
	t->tombs++;
}

/* ---- keys and values ------------------------------------------------------ */

static struct etl__regkey *key_new(struct etl__regtree *t, const char *name, size_t n)
{
	struct etl__regkey *k = calloc(1, sizeof *k);
	char *s = malloc(n + 1);
	if (!k || !s) {
		free(k);
		free(s);
		fail(t, ETL_E_NOMEM);
		return NULL;
	}
	memcpy(s, name, n);
	s[n] = 0;
	k->name = s;
	k->id = t->next_id++;
	return k;
}

static void val_free(struct etl__regval *v)
{
	if (!v)
		return;
	free(v->name);
	free(v->data);
	free(v);
}

/* Frees k's subtree; with t, also takes every entry out of the table. */
static void key_free(struct etl__regtree *t, struct etl__regkey *k)
{
	for (size_t i = 0; i < k->nkids; i++)
		key_free(t, k->kids[i]);
	for (size_t i = 0; i < k->nvals; i++) {
		struct etl__regval *v = k->vals[i];
		if (t) {
			table_remove(t, find_slot(t, 1, k->id, v->name, strlen(v->name)));
			t->nvals--;
		}
		val_free(v);
	}
	if (t) {
		if (k->parent)
			table_remove(t, find_slot(t, 0, k->parent->id, k->name, strlen(k->name)));
		t->nkeys--;
	}
	free(k->kids);
	free(k->vals);
	free(k->name);
	free(k);
}

struct etl__regtree *etl__regtree_new(void)
{
	struct etl__regtree *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->next_id = 1;
	t->root = key_new(t, "", 0);
	if (!t->root) {
		free(t);
		return NULL;
	}
	return t;
}

void etl__regtree_free(struct etl__regtree *t)
{
	if (!t)
		return;
	key_free(NULL, t->root);
	free(t->slots);
	free(t);
}

struct etl__regkey *etl__regkey_child(const struct etl__regtree *t, const struct etl__regkey *k,
                                      const char *name, size_t n)
{
	struct etl__regslot *s = find_slot(t, 0, k->id, name, n);
	return s ? s->p : NULL;
}

/* Appends p to a growable pointer array. */
static int push(struct etl__regtree *t, void ***arr, size_t *n, size_t *cap, void *p)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		void **a = realloc(*arr, nc * sizeof *a);
		if (!a) {
			fail(t, ETL_E_NOMEM);
			return -1;
		}
		*arr = a;
		*cap = nc;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

struct etl__regkey *etl__regkey_add(struct etl__regtree *t, struct etl__regkey *k, const char *name, size_t n)
{
	struct etl__regkey *c = etl__regkey_child(t, k, name, n);
	if (c)
		return c;
	if (t->nkeys >= ETL_REG_MAX_KEYS || k->depth + 1 > ETL_REG_MAX_DEPTH) {
		fail(t, ETL_E_LIMIT);
		return NULL;
	}
	c = key_new(t, name, n);
	if (!c)
		return NULL;
	c->parent = k;
	c->depth = k->depth + 1;
	if (push(t, (void ***)&k->kids, &k->nkids, &k->capkids, c) != 0) {
		key_free(NULL, c);
		return NULL;
	}
	if (table_add(t, name_hash(k->id, 0, name, n), c, 0) != 0) {
		k->nkids--;
		key_free(NULL, c);
		return NULL;
	}
	t->nkeys++;
	return c;
}

void etl__regkey_remove(struct etl__regtree *t, struct etl__regkey *k)
{
	struct etl__regkey *p = k->parent;
	if (!p)
		return;
	for (size_t i = 0; i < p->nkids; i++) {
		if (p->kids[i] == k) {
			memmove(&p->kids[i], &p->kids[i + 1], (p->nkids - i - 1) * sizeof *p->kids);
			p->nkids--;
			break;
		}
	}
	key_free(t, k);
}

const struct etl__regval *etl__regkey_value(const struct etl__regtree *t, const struct etl__regkey *k,
                                            const char *name)
{
	struct etl__regslot *s = find_slot(t, 1, k->id, name, strlen(name));
	return s ? s->p : NULL;
}

int etl__regkey_set(struct etl__regtree *t, struct etl__regkey *k, const char *name, size_t namelen,
                    uint32_t type, const void *data, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		fail(t, ETL_E_NOMEM);
		return -1;
	}
	if (len)
		memcpy(copy, data, len);
	struct etl__regslot *s = find_slot(t, 1, k->id, name, namelen);
	if (s) {
		struct etl__regval *v = s->p;
		free(v->data);
		v->data = copy;
		v->len = len;
		v->type = type;
		return 0;
	}
	if (t->nvals >= ETL_REG_MAX_VALUES) {
		free(copy);
		fail(t, ETL_E_LIMIT);
		return -1;
	}
	struct etl__regval *v = calloc(1, sizeof *v);
	char *nm = malloc(namelen + 1);
	if (!v || !nm) {
		free(v);
		free(nm);
		free(copy);
		fail(t, ETL_E_NOMEM);
		return -1;
	}
	memcpy(nm, name, namelen);
	nm[namelen] = 0;
	v->name = nm;
	v->type = type;
	v->data = copy;
	v->len = len;
	v->owner = k->id;
	if (push(t, (void ***)&k->vals, &k->nvals, &k->capvals, v) != 0) {
		val_free(v);
		return -1;
	}
	if (table_add(t, name_hash(k->id, 1, name, namelen), v, 1) != 0) {
		k->nvals--;
		val_free(v);
		return -1;
	}
	t->nvals++;
	return 0;
}

void etl__regkey_unset(struct etl__regtree *t, struct etl__regkey *k, const char *name, size_t namelen)
{
	struct etl__regslot *s = find_slot(t, 1, k->id, name, namelen);
	if (!s)
		return;
	struct etl__regval *v = s->p;
	table_remove(t, s);
	for (size_t i = 0; i < k->nvals; i++) {
		if (k->vals[i] == v) {
			memmove(&k->vals[i], &k->vals[i + 1], (k->nvals - i - 1) * sizeof *k->vals);
			k->nvals--;
			break;
		}
	}
	t->nvals--;
	val_free(v);
}

char *etl__regkey_path(const struct etl__regkey *k)
{
	size_t len = 0;
	for (const struct etl__regkey *p = k; p && p->parent; p = p->parent)
		len += strlen(p->name) + 1;
	char *s = malloc(len ? len : 1);
	if (!s)
		return NULL;
	s[0] = 0;
	if (!len)
		return s;
	size_t end = len - 1;        /* the last name's end; s[end] is the NUL */
	s[end] = 0;
	for (const struct etl__regkey *p = k; p && p->parent; p = p->parent) {
		size_t n = strlen(p->name);
		end -= n;
		memcpy(s + end, p->name, n);
		if (end) {
			end--;
			s[end] = '\\';
		}
	}
	return s;
}

static int cmp_kids(const void *a, const void *b)
{
	const struct etl__regkey *x = *(const struct etl__regkey *const *)a;
	const struct etl__regkey *y = *(const struct etl__regkey *const *)b;
	return etl__reg_name_cmp(x->name, y->name);
}

struct etl__regkey **etl__regkey_sorted_kids(const struct etl__regkey *k, int *oom)
{
	*oom = 0;
	if (!k->nkids)
		return NULL;
	struct etl__regkey **v = malloc(k->nkids * sizeof *v);
	if (!v) {
		*oom = 1;
		return NULL;
	}
	memcpy(v, k->kids, k->nkids * sizeof *v);
	qsort(v, k->nkids, sizeof *v, cmp_kids);
	return v;
}
